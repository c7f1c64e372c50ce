/* Test module: built for ABI 2.0 (must be refused with both versions named). */
#include "benchcore/module.h"
static int abi2_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 abi2 = { .magic = BENCH_MODULE_MAGIC, .abi_major = 2, .abi_minor = 0,
				      .struct_size = sizeof(bench_module_v1), .name = "abi2", .event = abi2_event };
BENCH_MODULE(abi2);
