/* Test module "ops": a thread_run module with two op classes whose results
 * are known in advance, to check recording, errors, totals and metrics.
 * Each loop records one "get" of `bytes` bytes with latency 1000 ns, and
 * every 4th iteration one "set" error of kind "timeout". */
#include <stdlib.h>
#include "benchcore/module.h"

static const char *const ops_classes[] = { "get", "set", NULL };
static const bench_option_v1 ops_options[] = {
	{ .name = "bytes", .type = BENCH_OPT_SIZE, .def = "4K", .help = "bytes per get", .min = 0, .max = 1e9 },
	{ .name = "fail", .type = BENCH_OPT_BOOL, .def = "false", .help = "thread 0 gives up with an error" },
	{ .name = "tags", .type = BENCH_OPT_STRING, .def = "get,set", .help = "a list option (kept in info.tags)",
	  .choices = (const char *const[]){ "get", "set", "PING_INLINE", NULL }, .flags = BENCH_OPT_LIST },
	{ .name = "flavour", .type = BENCH_OPT_ENUM, .def = "plain", .help = "an enum (kept in info.flavour)",
	  .choices = (const char *const[]){ "plain", "Fancy", NULL } },
	{ .name = "hang", .type = BENCH_OPT_BOOL, .def = "false", .help = "thread_run loops forever, ignoring should_stop" },
	{ 0 }
};
static const bench_metric_v1 ops_metrics[] = {
	{ "gets_per_sec", "ops/s", 1 },
	{ 0 }
};

typedef struct ops_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	uint64_t bytes;
	int fail, hang;
} ops_state;

typedef struct ops_thread {
	ops_state *s;
	bench_thread *t;
} ops_thread;

static int ops_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	ops_state *s = calloc(1, sizeof(*s));
	s->api = api;
	s->ctx = ctx;
	s->bytes = (uint64_t)api->opt_int(ctx, "bytes");
	s->fail = api->opt_bool(ctx, "fail");
	s->hang = api->opt_bool(ctx, "hang");
	api->set_info(ctx, "ops_info", "present");
	api->set_info(ctx, "latin1", "caf\xe9");	/* not UTF-8: the host must keep the case */
	api->set_info(ctx, "tags", api->opt_string(ctx, "tags"));
	api->set_info(ctx, "flavour", api->opt_string(ctx, "flavour"));
	*state = s;
	return BENCH_OK;
}

static int ops_thread_init(void *state, bench_thread *t, void **tstate)
{
	ops_thread *ot = calloc(1, sizeof(*ot));
	ot->s = state;
	ot->t = t;
	*tstate = ot;
	return BENCH_OK;
}

static int ops_thread_run(void *tstate)
{
	ops_thread *ot = tstate;
	const bench_host_api_v1 *api = ot->s->api;
	for (volatile uint64_t spin = 0; ot->s->hang; spin++)
		;	/* a module stuck in a loop that never asks should_stop() */
	for (uint64_t i = 0; !api->should_stop(ot->t); i++) {
		api->record(ot->t, 0, 1000, ot->s->bytes);
		if (i % 4 == 3)
			api->record_error(ot->t, 1, "timeout");
		if (ot->s->fail && i == 1000 && api->thread_index(ot->t) == 0) {
			api->set_error(ot->s->ctx, "ops: gave up on purpose (caf\xe9)");
			return BENCH_ERR;
		}
	}
	return BENCH_OK;
}

static void ops_thread_done(void *tstate)
{
	free(tstate);
}

static int ops_finish(void *state)
{
	ops_state *s = state;
	bench_totals_v1 t;
	s->api->totals(s->ctx, 0, &t);
	s->api->report_metric(s->ctx, "gets_per_sec", t.seconds > 0 ? t.count / t.seconds : 0);
	return BENCH_OK;
}

static void ops_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 ops_module = {
	BENCH_MODULE_HEADER,
	.name		= "ops",
	.version	= "1.0",
	.summary	= "test module with known op counts",
	.options	= ops_options,
	.op_classes	= ops_classes,
	.metrics	= ops_metrics,
	.init		= ops_init,
	.thread_init	= ops_thread_init,
	.thread_run	= ops_thread_run,
	.thread_done	= ops_thread_done,
	.finish		= ops_finish,
	.destroy	= ops_destroy,
};
BENCH_MODULE(ops_module);
