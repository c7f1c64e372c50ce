/* Test module: neither event nor thread_run. */
#include "benchcore/module.h"
static const bench_module_v1 nocb = { BENCH_MODULE_HEADER, .name = "nocallbacks" };
BENCH_MODULE(nocb);
