/* Test module: two op classes of one name (refused at load, with the file named and a hint). */
#include "benchcore/module.h"
static const char *const meta_dupop_ops[] = { "get", "set", "get", NULL };
static int meta_dupop_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_dupop_module = {
	BENCH_MODULE_HEADER, .name = "meta_dupop", .event = meta_dupop_event,
	.op_classes = meta_dupop_ops
};
BENCH_MODULE(meta_dupop_module);
