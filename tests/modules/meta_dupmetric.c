/* Test module: two metrics of one name (refused at load, with the file named and a hint). */
#include "benchcore/module.h"
static const bench_metric_v1 meta_dupmetric_metrics[] = { { "mb_s", "MB/s", 1 }, { "mb_s", "MB/s", 1 }, { 0 } };
static int meta_dupmetric_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_dupmetric_module = {
	BENCH_MODULE_HEADER, .name = "meta_dupmetric", .event = meta_dupmetric_event,
	.metrics = meta_dupmetric_metrics,
};
BENCH_MODULE(meta_dupmetric_module);
