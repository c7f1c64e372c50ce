/* Test module: two typed options at one member (refused at load, naming both). */
#include "benchcore/module.h"
typedef struct meta_overlap_opts {
	int64_t a, b;
} meta_overlap_opts;
static const bench_option_v1 meta_overlap_options[] = {
	{ .name = "a", .type = BENCH_OPT_INT, .def = "1", BENCH_OPT_AT(meta_overlap_opts, a) },
	{ .name = "b", .type = BENCH_OPT_INT, .def = "1", BENCH_OPT_AT(meta_overlap_opts, a) },
	{ 0 }
};
static int meta_overlap_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_overlap_module = {
	BENCH_MODULE_HEADER, .name = "meta_overlap", .event = meta_overlap_event,
	.options = meta_overlap_options, .opts_size = sizeof(meta_overlap_opts),
};
BENCH_MODULE(meta_overlap_module);
