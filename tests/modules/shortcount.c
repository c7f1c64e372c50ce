/* Test module "shortcount": the loop #54 item 10 found in sys, on purpose.
 * It asks should_stop(), which takes one event from the --events budget,
 * then claims a batch of 4: each batch loses an event, so --events N runs
 * fewer than N. check-module must fail it. */
#include <stdlib.h>
#include "benchcore/module.h"

typedef struct shortcount_thread {
	const bench_host_api_v1 *api;
	bench_thread *t;
} shortcount_thread;

static const bench_host_api_v1 *shortcount_api;

static int shortcount_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	(void)ctx;
	shortcount_api = api;
	*state = NULL;
	return BENCH_OK;
}

static int shortcount_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)state;
	shortcount_thread *th = calloc(1, sizeof(*th));
	if (!th)
		return BENCH_ERR;
	th->api = shortcount_api;
	th->t = t;
	*tstate = th;
	return BENCH_OK;
}

static int shortcount_thread_run(void *tstate)
{
	shortcount_thread *th = tstate;
	while (!th->api->should_stop(th->t)) {	/* the bug: takes an event */
		uint64_t n = th->api->claim(th->t, 4);
		if (!n)
			break;
		th->api->record_n(th->t, 0, n, 1000, 0);
	}
	return BENCH_OK;
}

static void shortcount_thread_done(void *tstate) { free(tstate); }

static const bench_module_v1 shortcount_module = {
	BENCH_MODULE_HEADER,
	.name = "shortcount",
	.version = "1.0",
	.summary = "should_stop() then claim(): --events N runs fewer (test fixture)",
	.init = shortcount_init,
	.thread_init = shortcount_thread_init,
	.thread_run = shortcount_thread_run,
	.thread_done = shortcount_thread_done,
};
BENCH_MODULE(shortcount_module);
