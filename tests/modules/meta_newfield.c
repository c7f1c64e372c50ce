/* Test module: built "for" a newer minor, it sets a descriptor field past
   the end of this host's bench_module_v1 (refused at load, naming the byte). */
#include "benchcore/module.h"
static int meta_newfield_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
struct meta_newfield_desc {
	bench_module_v1 m;
	uint64_t future[2];
};
static const struct meta_newfield_desc meta_newfield_desc = {
	.m = { .magic = BENCH_MODULE_MAGIC, .abi_major = BENCH_ABI_MAJOR, .abi_minor = BENCH_ABI_MINOR + 1,
	       .struct_size = sizeof(struct meta_newfield_desc), .option_size = sizeof(bench_option_v1),
	       .name = "meta_newfield", .event = meta_newfield_event },
	.future = { 0, 1 },
};
BENCH_MODULE(meta_newfield_desc.m);
