/* Test module: BENCH_OPT_SCALES on a STRING option (only SIZE and INT scale): refused at load. */
#include "benchcore/module.h"
static const bench_option_v1 meta_scalestr_options[] = {
	{ .name = "label", .type = BENCH_OPT_STRING, .def = "x", .flags = BENCH_OPT_SCALES }, { 0 } };
static int meta_scalestr_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_scalestr_module = {
	BENCH_MODULE_HEADER, .name = "meta_scalestr", .event = meta_scalestr_event,
	.options = meta_scalestr_options,
};
BENCH_MODULE(meta_scalestr_module);
