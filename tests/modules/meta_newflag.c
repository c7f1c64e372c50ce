/* Test module: built "for" a newer minor, it sets an option flag bit this
   host does not know (refused at load, naming the option and the bit). */
#include "benchcore/module.h"
static const bench_option_v1 meta_newflag_options[] = {
	{ .name = "ok", .type = BENCH_OPT_INT, .def = "1", .flags = BENCH_OPT_SCALES },
	{ .name = "x", .type = BENCH_OPT_STRING, .def = "a", .flags = BENCH_OPT_PLACEMENT | 0x40u },
	{ 0 }
};
static int meta_newflag_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_newflag_module = {
	.magic = BENCH_MODULE_MAGIC, .abi_major = BENCH_ABI_MAJOR, .abi_minor = BENCH_ABI_MINOR + 1,
	.struct_size = sizeof(bench_module_v1), .option_size = sizeof(bench_option_v1),
	.name = "meta_newflag", .event = meta_newflag_event, .options = meta_newflag_options,
};
BENCH_MODULE(meta_newflag_module);
