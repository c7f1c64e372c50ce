/* Test module: disk_path_option names an INT option (refused at load, with the file named and a hint). */
#include "benchcore/module.h"
static const bench_option_v1 meta_diskopt_options[] = { { .name = "dir", .type = BENCH_OPT_INT, .def = "0" }, { 0 } };
static int meta_diskopt_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_diskopt_module = {
	BENCH_MODULE_HEADER, .name = "meta_diskopt", .event = meta_diskopt_event,
	.options = meta_diskopt_options, .requires = { .min_disk = 1, .disk_path_option = "dir" },
};
BENCH_MODULE(meta_diskopt_module);
