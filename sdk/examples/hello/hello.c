/* hello: a minimal third-party benchcore module, built out of tree against
 * the installed SDK. Each event hashes a greeting `rounds` times (FNV-1a);
 * finish() reports a derived metric from the measured totals. Its options
 * are typed (ABI 1.3): the host fills struct hello_opts, read with
 * api->options(), rather than looked up by name. */
#include <stdlib.h>
#include <string.h>
#include <benchcore/module.h>

/* The options as the host hands them over: one member per option. */
typedef struct hello_opts {
	const char *greeting;	/* STRING: host-owned */
	int64_t rounds;		/* INT */
} hello_opts;

typedef struct hello_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	const hello_opts *o;
} hello_state;

static const bench_option_v1 hello_options[] = {
	{ .name = "greeting", .type = BENCH_OPT_STRING, .def = "hello, world",
	  .help = "text hashed by each event", BENCH_OPT_AT(hello_opts, greeting) },
	{ .name = "rounds", .type = BENCH_OPT_INT, .def = "100",
	  .help = "hash passes per event", .min = 1, .max = 1000000, BENCH_OPT_AT(hello_opts, rounds) },
	{ 0 }
};

static const bench_metric_v1 hello_metrics[] = {
	{ "bytes_hashed_per_sec", "B/s", 1 },
	{ 0 }
};

volatile unsigned hello_sink;	/* keeps the hash from being optimised away */

static int hello_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	hello_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->api = api;
	s->ctx = ctx;
	s->o = api->options(ctx);	/* valid until destroy returns */
	*state = s;
	return BENCH_OK;
}

static int hello_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)t;
	*tstate = state;
	return BENCH_OK;
}

static int hello_event(void *tstate, uint64_t *bytes)
{
	const hello_state *s = tstate;
	size_t len = strlen(s->o->greeting);
	unsigned h = 2166136261u;
	for (int64_t r = 0; r < s->o->rounds; r++)
		for (size_t i = 0; i < len; i++)
			h = (h ^ (unsigned char)s->o->greeting[i]) * 16777619u;
	hello_sink = h;
	*bytes = (uint64_t)len * (uint64_t)s->o->rounds;
	return BENCH_OK;
}

static int hello_finish(void *state)
{
	hello_state *s = state;
	bench_totals_v1 t;
	if (s->api->totals(s->ctx, 0, &t) == BENCH_OK && t.seconds > 0)
		s->api->report_metric(s->ctx, "bytes_hashed_per_sec", (double)t.bytes / t.seconds);
	return BENCH_OK;
}

static void hello_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 hello_module = {
	BENCH_MODULE_HEADER,
	.name		= "hello",
	.version	= "1.0",
	.summary	= "example third-party module: hashes a greeting",
	.options	= hello_options,
	.opts_size	= sizeof(hello_opts),
	.metrics	= hello_metrics,
	.init		= hello_init,
	.thread_init	= hello_thread_init,
	.event		= hello_event,
	.finish		= hello_finish,
	.destroy	= hello_destroy,
};
BENCH_MODULE(hello_module);
