/* Test module "needy": declares requirements no test machine meets (4096
 * CPUs) and the heavy flag, to check skipping, --force-module and skip_heavy. */
#include "benchcore/module.h"
static int needy_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 needy = {
	BENCH_MODULE_HEADER,
	.name		= "needy",
	.version	= "1.0",
	.summary	= "test module with unmet requirements",
	.requires	= { .min_cpus = 4096, .heavy = 1 },
	.event		= needy_event,
};
BENCH_MODULE(needy);
