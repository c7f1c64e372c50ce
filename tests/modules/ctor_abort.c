/* Test module "ctor_abort": its constructor misbehaves (abort) when
 * BCTEST_CTOR_FAULTS is set (tests/integration/test_contain.sh); otherwise it
 * is a plain module, so the other tests that search build/testmods do not
 * pay for it. benchcore must survive it anywhere on the module path. */
#include <stdlib.h>
#include <stdio.h>
#include "benchcore/module.h"

__attribute__((constructor)) static void ctor_abort_ctor(void)
{
	if (getenv("BCTEST_CTOR_FAULTS")) {
		fprintf(stderr, "ctor_abort: giving up in my constructor\n"); abort();
	}
}

static int ctor_abort_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 ctor_abort_module = {
	BENCH_MODULE_HEADER,
	.name = "ctor_abort",
	.summary = "constructor that misbehaves (abort) under BCTEST_CTOR_FAULTS (test module)",
	.event = ctor_abort_event,
};
BENCH_MODULE(ctor_abort_module);
