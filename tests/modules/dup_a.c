/* Test module: declares the name "dup" (dup_b.c does too). */
#include "benchcore/module.h"
static int dup_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 dup = { BENCH_MODULE_HEADER, .name = "dup", .event = dup_event };
BENCH_MODULE(dup);
