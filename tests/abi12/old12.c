/* Test module "old12": built against the frozen ABI 1.2 header in
 * tests/abi12/benchcore/module.h (never edit that header), whose
 * bench_option_v1 has no offset and is 8 bytes shorter than 1.3's. With
 * several options of every kind, a host that stepped through its options[]
 * by its own size would read the second entry from the middle of the first:
 * help and the values init reads show it. init writes every value it reads
 * (by-name getters, as 1.2 modules do) into the case's info; each loop
 * records one "tick" with latency count * 1000 ns. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "benchcore/module.h"

#if BENCH_ABI_MINOR != 2
#error "old12.c must be built against the frozen ABI 1.2 header (tests/abi12)"
#endif

static const char *const old12_modes[] = { "fast", "slow", "exact", NULL };
static const char *const old12_colours[] = { "red", "green", "blue", NULL };
static const bench_option_v1 old12_options[] = {
	{ .name = "count", .type = BENCH_OPT_INT, .def = "3", .help = "an int with a range", .min = 1, .max = 100 },
	{ .name = "shift", .type = BENCH_OPT_INT, .def = "-7", .help = "an int without one" },
	{ .name = "mode", .type = BENCH_OPT_ENUM, .def = "slow", .help = "an enum", .choices = old12_modes },
	{ .name = "tags", .type = BENCH_OPT_STRING, .def = "red,blue", .help = "a list", .choices = old12_colours,
	  .flags = BENCH_OPT_LIST },
	{ .name = "label", .type = BENCH_OPT_STRING, .def = "none", .help = "a string", .flags = BENCH_OPT_NOSWEEP },
	{ .name = "block", .type = BENCH_OPT_SIZE, .def = "4K", .help = "a size", .min = 512, .max = 1073741824.0 },
	{ .name = "on", .type = BENCH_OPT_BOOL, .def = "true", .help = "a bool" },
	{ .name = "ratio", .type = BENCH_OPT_DOUBLE, .def = "0.25", .help = "a double", .min = 0, .max = 1 },
	{ 0 }
};
static const char *const old12_classes[] = { "tick", NULL };

typedef struct old12_state {
	const bench_host_api_v1 *api;
	int64_t count;
} old12_state;

static void old12_info_int(const bench_host_api_v1 *api, bench_ctx *ctx, const char *key, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	api->set_info(ctx, key, buf);
}

static int old12_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	old12_state *s = calloc(1, sizeof(*s));
	char buf[64];
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->api = api;
	s->count = api->opt_int(ctx, "count");
	old12_info_int(api, ctx, "count", s->count);
	old12_info_int(api, ctx, "shift", api->opt_int(ctx, "shift"));
	old12_info_int(api, ctx, "mode_index", api->opt_enum(ctx, "mode"));
	api->set_info(ctx, "mode", api->opt_string(ctx, "mode"));
	api->set_info(ctx, "tags", api->opt_string(ctx, "tags"));
	api->set_info(ctx, "label", api->opt_string(ctx, "label"));
	old12_info_int(api, ctx, "block", api->opt_int(ctx, "block"));
	old12_info_int(api, ctx, "on", api->opt_bool(ctx, "on"));
	snprintf(buf, sizeof(buf), "%g", api->opt_double(ctx, "ratio"));
	api->set_info(ctx, "ratio", buf);
	*state = s;
	return BENCH_OK;
}

static int old12_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)t;
	*tstate = state;
	return BENCH_OK;
}

static int old12_event(void *tstate, uint64_t *bytes)
{
	(void)tstate;
	(void)bytes;
	return BENCH_OK;
}

static void old12_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 old12_module = {
	BENCH_MODULE_HEADER,
	.name		= "old12",
	.version	= "1.2",
	.summary	= "a module built against ABI 1.2 (test fixture)",
	.options	= old12_options,
	.op_classes	= old12_classes,
	.init		= old12_init,
	.thread_init	= old12_thread_init,
	.event		= old12_event,
	.destroy	= old12_destroy,
};
BENCH_MODULE(old12_module);
