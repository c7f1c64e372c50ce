/* Test module: a metric named like the core's events_per_sec (refused at load, with the file named and a hint). */
#include "benchcore/module.h"
static const bench_metric_v1 meta_coremetric_metrics[] = { { "events_per_sec", "ev/s", 1 }, { 0 } };
static int meta_coremetric_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_coremetric_module = {
	BENCH_MODULE_HEADER, .name = "meta_coremetric", .event = meta_coremetric_event,
	.metrics = meta_coremetric_metrics,
};
BENCH_MODULE(meta_coremetric_module);
