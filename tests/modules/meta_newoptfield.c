/* Test module: built "for" a newer minor, an option sets a field past the
   end of this host's bench_option_v1 (refused at load, naming the option). */
#include "benchcore/module.h"
typedef struct meta_newoptfield_option {
	bench_option_v1 o;
	uint64_t future;
} meta_newoptfield_option;
static const meta_newoptfield_option meta_newoptfield_options[] = {
	{ .o = { .name = "plain", .type = BENCH_OPT_INT, .def = "1" } },
	{ .o = { .name = "fancy", .type = BENCH_OPT_INT, .def = "1" }, .future = 7 },
	{ .o = { 0 } }
};
static int meta_newoptfield_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_newoptfield_module = {
	.magic = BENCH_MODULE_MAGIC, .abi_major = BENCH_ABI_MAJOR, .abi_minor = BENCH_ABI_MINOR + 1,
	.struct_size = sizeof(bench_module_v1), .option_size = sizeof(meta_newoptfield_option),
	.name = "meta_newoptfield", .event = meta_newoptfield_event, .options = &meta_newoptfield_options[0].o,
};
BENCH_MODULE(meta_newoptfield_module);
