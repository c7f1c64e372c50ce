/* Test module "old13": built against the frozen ABI 1.3 header in
 * tests/abi13/benchcore/module.h (never edit that header), the newest 1.3
 * one, with record_unfinished and warmup_n tested by BENCH_HOST_HAS as that
 * header said. Typed options (one named "scale", free when 1.3 was
 * released), a needs() reading them, thread_run that stops on stopping().
 * init writes what it read into the case's info, so a test sees that a 1.4
 * host fills a 1.3 module's struct and table as that module expects. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "benchcore/module.h"

#if BENCH_ABI_MINOR != 3
#error "old13.c must be built against the frozen ABI 1.3 header (tests/abi13)"
#endif

typedef struct old13_opts {
	int64_t count;
	int64_t scale;
	int64_t block;
} old13_opts;

static const bench_option_v1 old13_options[] = {
	{ .name = "count", .type = BENCH_OPT_INT, .def = "3", .help = "ops per loop", .min = 1, .max = 100,
	  BENCH_OPT_AT(old13_opts, count) },
	{ .name = "scale", .type = BENCH_OPT_INT, .def = "2", .help = "the module's own scale", .min = 1, .max = 9,
	  BENCH_OPT_AT(old13_opts, scale) },
	{ .name = "block", .type = BENCH_OPT_SIZE, .def = "1M", .help = "memory it says it needs",
	  BENCH_OPT_AT(old13_opts, block) },
	{ 0 }
};
static const char *const old13_classes[] = { "tick", NULL };

typedef struct old13_state {
	const bench_host_api_v1 *api;
	const old13_opts *o;
} old13_state;

static int old13_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	const old13_opts *o = api->options(ctx);
	out->memory_bytes = (uint64_t)o->block;
	out->why = "block";
	return BENCH_OK;
}

static int old13_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	old13_state *s = calloc(1, sizeof(*s));
	char buf[96];
	if (!s)
		return BENCH_ERR;
	s->api = api;
	s->o = api->options(ctx);
	snprintf(buf, sizeof(buf), "%" PRId64 ",%" PRId64 ",%" PRId64, s->o->count, s->o->scale, s->o->block);
	api->set_info(ctx, "opts", buf);
	api->set_info(ctx, "unfinished", BENCH_HOST_HAS(api, record_unfinished) ? "yes" : "no");
	snprintf(buf, sizeof(buf), "%u", api->abi_minor);
	api->set_info(ctx, "host_minor", buf);
	*state = s;
	return BENCH_OK;
}

typedef struct old13_thread {
	old13_state *s;
	bench_thread *t;
} old13_thread;

static int old13_thread_init(void *state, bench_thread *t, void **tstate)
{
	old13_thread *th = calloc(1, sizeof(*th));
	if (!th)
		return BENCH_ERR;
	th->s = state;
	th->t = t;
	*tstate = th;
	return BENCH_OK;
}

/* One "tick" per claimed event, its latency count x 1 us: the loop stops on
   stopping() and claims its event, so --events N runs N. */
static int old13_thread_run(void *tstate)
{
	old13_thread *th = tstate;
	const bench_host_api_v1 *api = th->s->api;
	while (!api->stopping(th->t) && api->claim(th->t, 1))
		api->record(th->t, 0, (uint64_t)th->s->o->count * 1000, 0);
	return BENCH_OK;
}

static void old13_thread_done(void *tstate) { free(tstate); }
static void old13_destroy(void *state) { free(state); }

static const bench_module_v1 old13_module = {
	BENCH_MODULE_HEADER,
	.name = "old13",
	.version = "1.0",
	.summary = "a module built against the frozen ABI 1.3 header (test fixture)",
	.options = old13_options,
	.op_classes = old13_classes,
	.opts_size = sizeof(old13_opts),
	.needs = old13_needs,
	.init = old13_init,
	.thread_init = old13_thread_init,
	.thread_run = old13_thread_run,
	.thread_done = old13_thread_done,
	.destroy = old13_destroy,
};
BENCH_MODULE(old13_module);
