/* Test module: two options of one name (refused at load, with the file named and a hint). */
#include "benchcore/module.h"
static const bench_option_v1 meta_dupopt_options[] = {
	{ .name = "size", .type = BENCH_OPT_INT, .def = "1" },
	{ .name = "size", .type = BENCH_OPT_INT, .def = "2" },
	{ 0 }
};
static int meta_dupopt_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_dupopt_module = {
	BENCH_MODULE_HEADER, .name = "meta_dupopt", .event = meta_dupopt_event,
	.options = meta_dupopt_options,
};
BENCH_MODULE(meta_dupopt_module);
