/* Test module: disk_path_option names a missing option (refused at load, with the file named and a hint). */
#include "benchcore/module.h"

static int meta_nodiskopt_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_nodiskopt_module = {
	BENCH_MODULE_HEADER, .name = "meta_nodiskopt", .event = meta_nodiskopt_event,
	.requires = { .min_disk = 1, .disk_path_option = "path" },
};
BENCH_MODULE(meta_nodiskopt_module);
