/* Test module: an option named like the run setting threads (refused at load, with the file named and a hint). */
#include "benchcore/module.h"
static const bench_option_v1 meta_runopt_options[] = { { .name = "threads", .type = BENCH_OPT_INT, .def = "4" }, { 0 } };
static int meta_runopt_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_runopt_module = {
	BENCH_MODULE_HEADER, .name = "meta_runopt", .event = meta_runopt_event,
	.options = meta_runopt_options,
};
BENCH_MODULE(meta_runopt_module);
