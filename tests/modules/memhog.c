/* Test module "memhog": its static requires asks for 128 MiB of available
 * memory, to show that min_memory is checked against what a memory cgroup
 * leaves (limit less usage), not only the machine's free figure. */
#include "benchcore/module.h"
static int memhog_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 memhog = {
	BENCH_MODULE_HEADER,
	.name		= "memhog",
	.version	= "1.0",
	.summary	= "test module needing 128 MiB of memory",
	.requires	= { .min_memory = 128ull << 20 },
	.event		= memhog_event,
};
BENCH_MODULE(memhog);
