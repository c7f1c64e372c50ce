/* Test module: struct_size smaller than ABI 1.0's descriptor. */
#include "benchcore/module.h"
static const bench_module_v1 small = { .magic = BENCH_MODULE_MAGIC, .abi_major = 1, .struct_size = 16, .name = "small" };
BENCH_MODULE(small);
