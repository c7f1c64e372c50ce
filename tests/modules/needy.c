/* Test module "needy": declares requirements no test machine meets (4096
 * CPUs) and the heavy flag, to check skipping, --force-module and skip_heavy;
 * and a needs() that refuses options which make no sense together (lo >= hi),
 * with errorf's message, detail and hint: a configuration error of the plan,
 * not a machine too small. */
#include "benchcore/module.h"

static const bench_option_v1 needy_options[] = {
	{ .name = "lo", .type = BENCH_OPT_INT, .def = "0", .help = "lower bound, below hi" },
	{ .name = "hi", .type = BENCH_OPT_INT, .def = "1", .help = "upper bound, above lo" },
	{ 0 }
};

static int needy_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	int64_t lo = api->opt_int(ctx, "lo"), hi = api->opt_int(ctx, "hi");
	(void)out;
	if (lo >= hi) {
		api->errorf(ctx, NULL, "needy: lo = %lld is not below hi = %lld\nthe range lo .. hi is empty\n"
			    "give lo < hi", (long long)lo, (long long)hi);
		return BENCH_ERR;
	}
	return BENCH_OK;
}

static int needy_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }

static const bench_module_v1 needy = {
	BENCH_MODULE_HEADER,
	.name		= "needy",
	.version	= "1.0",
	.summary	= "test module with unmet requirements",
	.options	= needy_options,
	.requires	= { .min_cpus = 4096, .heavy = 1 },
	.event		= needy_event,
	.needs		= needy_needs,
};
BENCH_MODULE(needy);
