/* Test module "ctor_exit": its constructor misbehaves (exit) when
 * BCTEST_CTOR_FAULTS is set (tests/integration/test_contain.sh); otherwise it
 * is a plain module, so the other tests that search build/testmods do not
 * pay for it. benchcore must survive it anywhere on the module path. */
#include <stdlib.h>

#include "benchcore/module.h"

__attribute__((constructor)) static void ctor_exit_ctor(void)
{
	if (getenv("BCTEST_CTOR_FAULTS")) {
		exit(3);
	}
}

static int ctor_exit_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 ctor_exit_module = {
	BENCH_MODULE_HEADER,
	.name = "ctor_exit",
	.summary = "constructor that misbehaves (exit) under BCTEST_CTOR_FAULTS (test module)",
	.event = ctor_exit_event,
};
BENCH_MODULE(ctor_exit_module);
