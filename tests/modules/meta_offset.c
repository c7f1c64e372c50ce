/* Test module: a typed option whose offset does not fit opts_size (refused
   at load, naming the option). */
#include "benchcore/module.h"
typedef struct meta_offset_opts {
	int64_t a;
} meta_offset_opts;
static const bench_option_v1 meta_offset_options[] = {
	{ .name = "a", .type = BENCH_OPT_INT, .def = "1", BENCH_OPT_AT(meta_offset_opts, a) },
	{ .name = "b", .type = BENCH_OPT_INT, .def = "1", .offset = sizeof(meta_offset_opts) },
	{ 0 }
};
static int meta_offset_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_offset_module = {
	BENCH_MODULE_HEADER, .name = "meta_offset", .event = meta_offset_event,
	.options = meta_offset_options, .opts_size = sizeof(meta_offset_opts),
};
BENCH_MODULE(meta_offset_module);
