/* Test module "scale12": a valid ABI 1.2 module (the frozen 1.2 header)
 * with an option named "scale", which became a run setting after 1.2 was
 * released. A later benchcore must keep loading it (#54 item 5): names
 * reserved later do not break modules built earlier. init writes the
 * option's value into the case's info. */
#include <stdio.h>
#include "benchcore/module.h"

#if BENCH_ABI_MINOR != 2
#error "scale12.c must be built against the frozen ABI 1.2 header (tests/abi12)"
#endif

static const bench_option_v1 scale12_options[] = {
	{ .name = "scale", .type = BENCH_OPT_INT, .def = "3", .help = "the module's own scale factor", .min = 1,
	  .max = 10 },
	{ 0 }
};

static int scale12_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)api->opt_int(ctx, "scale"));
	api->set_info(ctx, "scale", buf);
	*state = NULL;
	return BENCH_OK;
}

static int scale12_event(void *tstate, uint64_t *bytes)
{
	(void)tstate;
	(void)bytes;
	return BENCH_OK;
}

static const bench_module_v1 scale12_module = {
	BENCH_MODULE_HEADER,
	.name = "scale12",
	.version = "1.0",
	.summary = "an ABI 1.2 module with an option named scale (test fixture)",
	.options = scale12_options,
	.init = scale12_init,
	.event = scale12_event,
};
BENCH_MODULE(scale12_module);
