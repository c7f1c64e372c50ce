/* Test module "diskhog": needs 1 EiB free at option dir (no machine has it),
 * to show that min_disk is checked at a path that does not exist yet (at
 * its nearest existing parent) and how the figures are printed. */
#include "benchcore/module.h"
static const bench_option_v1 diskhog_options[] = {
	{ .name = "dir", .type = BENCH_OPT_STRING, .def = "/tmp", .help = "where the data would go" },
	{ 0 }
};
static int diskhog_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 diskhog = {
	BENCH_MODULE_HEADER,
	.name		= "diskhog",
	.version	= "1.0",
	.summary	= "test module needing 1 EiB of disk",
	.options	= diskhog_options,
	.requires	= { .min_disk = 1ull << 60, .disk_path_option = "dir" },
	.event		= diskhog_event,
};
BENCH_MODULE(diskhog);
