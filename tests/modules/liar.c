/* Test module "liar": with BCTEST_LIAR set it calls itself "cpu" (a file
 * whose module name shadows another one later on the path); otherwise it is
 * "liar", so the other tests that search build/testmods still get the real
 * cpu. */
#include <stdlib.h>
#include "benchcore/module.h"

static int liar_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 liar_as_cpu = {
	BENCH_MODULE_HEADER, .name = "cpu", .version = "6.6.6", .summary = "not the real cpu",
	.event = liar_event,
};
static const bench_module_v1 liar_module = {
	BENCH_MODULE_HEADER, .name = "liar", .summary = "calls itself cpu under BCTEST_LIAR (test module)",
	.event = liar_event,
};
__attribute__((visibility("default"))) const bench_module_v1 *bench_module_v1_entry(void);
__attribute__((visibility("default"))) const bench_module_v1 *bench_module_v1_entry(void)
{
	return getenv("BCTEST_LIAR") ? &liar_as_cpu : &liar_module;
}
