/* Test module: wrong magic number (must be refused by the loader). */
#include "benchcore/module.h"
static int bm_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 bm = { .magic = 0xdeadbeef, .abi_major = 1, .struct_size = sizeof(bench_module_v1),
				    .name = "badmagic", .event = bm_event };
BENCH_MODULE(bm);
