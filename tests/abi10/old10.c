/* Test module "old10": built against the frozen ABI 1.0 header in
 * tests/abi10/benchcore/module.h (never edit that header or this file's use
 * of it), so the suite proves that a module of an older minor keeps loading
 * and running unchanged on today's host. Its results are known in advance:
 * each loop records one "get" of 100 bytes with latency 2000 ns; every 10th
 * loop also records a "put" error of kind "busy"; finish reports
 * gets_per_sec from totals(). */
#include <stdlib.h>
#include "benchcore/module.h"

#if BENCH_ABI_MINOR != 0
#error "old10.c must be built against the frozen ABI 1.0 header (tests/abi10)"
#endif

static const char *const old10_classes[] = { "get", "put", NULL };
static const bench_option_v1 old10_options[] = {
	{ .name = "batch", .type = BENCH_OPT_INT, .def = "1", .help = "gets per record_n call", .min = 1, .max = 1000 },
	{ 0 }
};
static const bench_metric_v1 old10_metrics[] = {
	{ "gets_per_sec", "ops/s", 1 },
	{ 0 }
};

typedef struct old10_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	int64_t batch;
} old10_state;

typedef struct old10_thread {
	old10_state *s;
	bench_thread *t;
} old10_thread;

static int old10_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	old10_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->api = api;
	s->ctx = ctx;
	s->batch = api->opt_int(ctx, "batch");
	api->set_info(ctx, "built_for_abi", "1.0");
	*state = s;
	return BENCH_OK;
}

static int old10_thread_init(void *state, bench_thread *t, void **tstate)
{
	old10_thread *ot = calloc(1, sizeof(*ot));
	if (!ot)
		return BENCH_ERR;
	ot->s = state;
	ot->t = t;
	*tstate = ot;
	return BENCH_OK;
}

static int old10_thread_run(void *tstate)
{
	old10_thread *ot = tstate;
	const bench_host_api_v1 *api = ot->s->api;
	for (uint64_t i = 0; !api->should_stop(ot->t); i++) {
		(void)api->pace(ot->t);
		if (ot->s->batch > 1)
			api->record_n(ot->t, 0, (uint64_t)ot->s->batch, 2000, 100);
		else
			api->record(ot->t, 0, 2000, 100);
		if (i % 10 == 9)
			api->record_error(ot->t, 1, "busy");
	}
	return BENCH_OK;
}

static void old10_thread_done(void *tstate)
{
	free(tstate);
}

static int old10_finish(void *state)
{
	old10_state *s = state;
	bench_totals_v1 t;
	if (s->api->totals(s->ctx, 0, &t) != BENCH_OK || t.seconds <= 0) {
		s->api->set_error(s->ctx, "no totals");
		return BENCH_ERR;
	}
	s->api->report_metric(s->ctx, "gets_per_sec", (double)t.count / t.seconds);
	return BENCH_OK;
}

static void old10_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 old10_module = {
	BENCH_MODULE_HEADER,
	.name		= "old10",
	.version	= "1.0",
	.summary	= "a module built against ABI 1.0 (test fixture)",
	.options	= old10_options,
	.op_classes	= old10_classes,
	.metrics	= old10_metrics,
	.init		= old10_init,
	.thread_init	= old10_thread_init,
	.thread_run	= old10_thread_run,
	.thread_done	= old10_thread_done,
	.finish		= old10_finish,
	.destroy	= old10_destroy,
};
BENCH_MODULE(old10_module);
