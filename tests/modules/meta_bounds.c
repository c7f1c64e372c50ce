/* Test module: reversed bounds (min > max) (refused at load, with the file named and a hint). */
#include "benchcore/module.h"
static const bench_option_v1 meta_bounds_options[] = { { .name = "depth", .type = BENCH_OPT_INT, .def = "4", .min = 64, .max = 1 }, { 0 } };
static int meta_bounds_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_bounds_module = {
	BENCH_MODULE_HEADER, .name = "meta_bounds", .event = meta_bounds_event,
	.options = meta_bounds_options,
};
BENCH_MODULE(meta_bounds_module);
