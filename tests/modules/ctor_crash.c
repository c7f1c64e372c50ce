/* Test module "ctor_crash": its constructor misbehaves (crash) when
 * BCTEST_CTOR_FAULTS is set (tests/integration/test_contain.sh); otherwise it
 * is a plain module, so the other tests that search build/testmods do not
 * pay for it. benchcore must survive it anywhere on the module path. */
#include <stdlib.h>
#include <signal.h>
#include "benchcore/module.h"

__attribute__((constructor)) static void ctor_crash_ctor(void)
{
	if (getenv("BCTEST_CTOR_FAULTS")) {
		raise(SIGSEGV);
	}
}

static int ctor_crash_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 ctor_crash_module = {
	BENCH_MODULE_HEADER,
	.name = "ctor_crash",
	.summary = "constructor that misbehaves (crash) under BCTEST_CTOR_FAULTS (test module)",
	.event = ctor_crash_event,
};
BENCH_MODULE(ctor_crash_module);
