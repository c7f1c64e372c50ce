/* Test module "checkable": a well-behaved module for `benchcore check-module`
 * with one option of each type: every bound and choice runs ok. `dir` names
 * where its (tiny) data goes, so check-module keeps it at its default. Each
 * event sums `words` integers of a per-thread buffer of `buf` bytes, scaled. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "benchcore/module.h"

static const char *const checkable_kinds[] = { "add", "xor", NULL };

static const bench_option_v1 checkable_options[] = {
	{ .name = "words", .type = BENCH_OPT_INT, .def = "64", .help = "words summed per event",
	  .min = 1, .max = 4096 },
	{ .name = "buf", .type = BENCH_OPT_SIZE, .def = "16K", .help = "per-thread buffer",
	  .min = 4096, .max = 1 << 20 },
	{ .name = "factor", .type = BENCH_OPT_DOUBLE, .def = "1.5", .help = "factor of the result",
	  .min = 0.5, .max = 4 },
	{ .name = "kind", .type = BENCH_OPT_ENUM, .def = "add", .choices = checkable_kinds,
	  .help = "how words are combined" },
	{ .name = "touch", .type = BENCH_OPT_BOOL, .def = "false", .help = "write the buffer too" },
	{ .name = "dir", .type = BENCH_OPT_STRING, .def = "/tmp", .help = "where data would go" },
	{ 0 }
};

static const char *const checkable_ops[] = { "sum", NULL };
static const bench_metric_v1 checkable_metrics[] = { { "words_per_sec", "words/s", 1 }, { 0 } };

typedef struct checkable_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	int64_t words, buf;
	double scale;
	int kind, touch;
} checkable_state;

typedef struct checkable_thread {
	const checkable_state *s;
	uint64_t *mem;
	size_t n;
	volatile uint64_t sink;
} checkable_thread;

static int checkable_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	checkable_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	*s = (checkable_state){ api, ctx, api->opt_int(ctx, "words"), api->opt_int(ctx, "buf"),
				api->opt_double(ctx, "factor"), api->opt_enum(ctx, "kind"), api->opt_bool(ctx, "touch") };
	*state = s;
	return BENCH_OK;
}

static int checkable_thread_init(void *state, bench_thread *t, void **tstate)
{
	checkable_state *s = state;
	checkable_thread *th = calloc(1, sizeof(*th));
	(void)t;
	if (th)
		th->mem = calloc((size_t)s->buf / 8, 8);
	if (!th || !th->mem) {
		free(th);
		s->api->error(s->ctx, t, "out of memory", NULL, NULL);
		return BENCH_ERR;
	}
	th->s = s;
	th->n = (size_t)s->buf / 8;
	*tstate = th;
	return BENCH_OK;
}

static int checkable_event(void *tstate, uint64_t *bytes)
{
	checkable_thread *th = tstate;
	uint64_t acc = 0;
	for (int64_t i = 0; i < th->s->words; i++) {
		uint64_t *w = &th->mem[(size_t)i % th->n];
		acc = th->s->kind ? acc ^ *w : acc + *w;
		if (th->s->touch)
			*w = acc;
	}
	th->sink = (uint64_t)((double)acc * th->s->scale);
	*bytes = (uint64_t)th->s->words * 8;
	return BENCH_OK;
}

static void checkable_thread_done(void *tstate)
{
	checkable_thread *th = tstate;
	free(th->mem);
	free(th);
}

static int checkable_finish(void *state)
{
	checkable_state *s = state;
	bench_totals_v1 t;
	if (s->api->totals(s->ctx, 0, &t) == BENCH_OK && t.seconds > 0)
		s->api->report_metric(s->ctx, "words_per_sec", (double)t.count * (double)s->words / t.seconds);
	return BENCH_OK;
}

static void checkable_destroy(void *state) { free(state); }

static const bench_module_v1 checkable_module = {
	BENCH_MODULE_HEADER,
	.name		= "checkable",
	.version	= "1.0",
	.summary	= "test module that passes check-module",
	.options	= checkable_options,
	.op_classes	= checkable_ops,
	.metrics	= checkable_metrics,
	.requires	= { .disk_path_option = "dir" },
	.init		= checkable_init,
	.thread_init	= checkable_thread_init,
	.event		= checkable_event,
	.thread_done	= checkable_thread_done,
	.finish		= checkable_finish,
	.destroy	= checkable_destroy,
};
BENCH_MODULE(checkable_module);
