/* Test module: a newline in its name (issue 36, finding 9). A name is a key
   of every results file and of compare's matching: one with a control
   character would be shown escaped and matched raw, so it is refused at load. */
#include "benchcore/module.h"
static int badname_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 badname_module = {
	BENCH_MODULE_HEADER, .name = "bad\nname", .event = badname_event,
};
BENCH_MODULE(badname_module);
