/* Test module: an option whose default is a sweep (BENCH_OPT_SWEEP_DEFAULT,
   ABI 1.2), as the redis module's tests: one case per default item. */
#include <benchcore/module.h>

static const bench_option_v1 sd_options[] = {
	{ .name = "test", .type = BENCH_OPT_ENUM, .def = "alpha,Beta,gamma",
	  .help = "one case per test unless given", .flags = BENCH_OPT_SWEEP_DEFAULT,
	  .choices = (const char *const[]){ "alpha", "Beta", "gamma", "delta", NULL } },
	{ .name = NULL }
};

static int sd_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	api->set_info(ctx, "test", api->opt_string(ctx, "test"));
	*state = NULL;
	return BENCH_OK;
}

static int sd_event(void *tstate, uint64_t *bytes)
{
	(void)tstate;
	*bytes = 1;
	return BENCH_OK;
}

static const bench_module_v1 sd_module = {
	BENCH_MODULE_HEADER,
	.name = "sweepdef",
	.version = "1.0",
	.summary = "a default that is a sweep (test module)",
	.options = sd_options,
	.init = sd_init,
	.event = sd_event,
};

BENCH_MODULE(sd_module)
