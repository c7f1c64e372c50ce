/* Test module: built for this host's minor, it says it needs a host one
   minor newer (host_minor, ABI 1.4): refused at load, naming both minors. */
#include "benchcore/module.h"
static int meta_hostminor_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_hostminor = {
	BENCH_MODULE_HEADER,
	.host_minor = BENCH_ABI_MINOR + 1,
	.name = "meta_hostminor",
	.event = meta_hostminor_event,
};
BENCH_MODULE(meta_hostminor);
