/* Test module "bigneeds": a lying needs() (#54 item 6). needs() declares
 * 1 MiB of memory; prepare touches option `touch` bytes (kept until
 * destroy). A run warns, and check-module fails, when the case's peak RSS
 * is more than twice the declared figure; in a memory cgroup too small for
 * `touch` the case is killed and the OOM killer is named, with the cgroup
 * and the declared figure, and the case's peak memory kept. */
#include <stdlib.h>
#include <string.h>
#include "benchcore/module.h"

typedef struct bigneeds_opts {
	int64_t touch;
} bigneeds_opts;

static const bench_option_v1 bigneeds_options[] = {
	{ .name = "touch", .type = BENCH_OPT_SIZE, .def = "256M", .help = "bytes prepare touches", .min = 0,
	  .max = 1e12, BENCH_OPT_AT(bigneeds_opts, touch) },
	{ 0 }
};

static int bigneeds_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	(void)api;
	(void)ctx;
	out->memory_bytes = 1u << 20;	/* the lie */
	out->why = "a small table";
	return BENCH_OK;
}

typedef struct bigneeds_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	char *mem;
} bigneeds_state;

static int bigneeds_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	bigneeds_state *s = calloc(1, sizeof(*s));
	if (!s)
		return BENCH_ERR;
	s->api = api;
	s->ctx = ctx;
	*state = s;
	return BENCH_OK;
}

static int bigneeds_prepare(void *state)
{
	bigneeds_state *s = state;
	size_t n = (size_t)((const bigneeds_opts *)s->api->options(s->ctx))->touch;
	if (n && !(s->mem = malloc(n))) {
		s->api->set_error(s->ctx, "out of memory");
		return BENCH_ERR;
	}
	for (size_t i = 0; i < n; i += 4096)
		s->mem[i] = 1;
	return BENCH_OK;
}

static int bigneeds_event(void *tstate, uint64_t *bytes)
{
	(void)tstate;
	(void)bytes;
	return BENCH_OK;
}

static void bigneeds_destroy(void *state)
{
	bigneeds_state *s = state;
	free(s->mem);
	free(s);
}

static const bench_module_v1 bigneeds_module = {
	BENCH_MODULE_HEADER,
	.name = "bigneeds",
	.version = "1.0",
	.summary = "needs() declares 1 MiB, prepare touches more (test fixture)",
	.options = bigneeds_options,
	.opts_size = sizeof(bigneeds_opts),
	.needs = bigneeds_needs,
	.init = bigneeds_init,
	.prepare = bigneeds_prepare,
	.event = bigneeds_event,
	.destroy = bigneeds_destroy,
};
BENCH_MODULE(bigneeds_module);
