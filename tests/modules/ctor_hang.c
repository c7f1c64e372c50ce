/* Test module "ctor_hang": its constructor misbehaves (hang) when
 * BCTEST_CTOR_FAULTS is set (tests/integration/test_contain.sh); otherwise it
 * is a plain module, so the other tests that search build/testmods do not
 * pay for it. benchcore must survive it anywhere on the module path. */
#include <stdlib.h>
#include <unistd.h>
#include "benchcore/module.h"

__attribute__((constructor)) static void ctor_hang_ctor(void)
{
	if (getenv("BCTEST_CTOR_FAULTS")) {
		for (;;) pause();
	}
}

static int ctor_hang_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 ctor_hang_module = {
	BENCH_MODULE_HEADER,
	.name = "ctor_hang",
	.summary = "constructor that misbehaves (hang) under BCTEST_CTOR_FAULTS (test module)",
	.event = ctor_hang_event,
};
BENCH_MODULE(ctor_hang_module);
