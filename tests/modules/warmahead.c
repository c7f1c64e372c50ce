/* Test module "warmahead": a thread_run loop with two batches in flight
 * (claimed ahead, recorded oldest first), as a pipelined client keeps them,
 * that records what it claimed in warmup too: the two batches claimed in
 * warmup end in the window, where the host charges them from the budget
 * only after the loop has claimed ahead, and --events N after a warmup runs
 * more than N (without a warmup it runs N). check-module's pass with a
 * warmup must fail it; measuring() before claim(), with warmup's batches
 * left out, is the fix. */
#include <stdlib.h>
#include "benchcore/module.h"

#define WARMAHEAD_BATCH 8

typedef struct warmahead_thread {
	const bench_host_api_v1 *api;
	bench_thread *t;
	uint64_t sent[2];
	unsigned pending;
} warmahead_thread;

static const bench_host_api_v1 *warmahead_api;

static int warmahead_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	(void)ctx;
	warmahead_api = api;
	*state = NULL;
	return BENCH_OK;
}

static int warmahead_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)state;
	warmahead_thread *th = calloc(1, sizeof(*th));
	if (!th)
		return BENCH_ERR;
	th->api = warmahead_api;
	th->t = t;
	*tstate = th;
	return BENCH_OK;
}

static int warmahead_thread_run(void *tstate)
{
	warmahead_thread *th = tstate;
	for (;;) {
		while (th->pending < 2 && !th->api->stopping(th->t)) {
			uint64_t n = th->api->claim(th->t, WARMAHEAD_BATCH);	/* the bug: in warmup too */
			if (!n)
				break;
			th->sent[th->pending++] = n;
		}
		if (!th->pending)
			return BENCH_OK;
		th->api->record_n(th->t, 0, th->sent[0], 1000, 0);
		th->sent[0] = th->sent[1];
		th->pending--;
	}
}

static void warmahead_thread_done(void *tstate) { free(tstate); }

static const bench_module_v1 warmahead_module = {
	BENCH_MODULE_HEADER,
	.name = "warmahead",
	.version = "1.0",
	.summary = "two batches claimed ahead, warmup's recorded in the window: --events N runs more (test fixture)",
	.init = warmahead_init,
	.thread_init = warmahead_thread_init,
	.thread_run = warmahead_thread_run,
	.thread_done = warmahead_thread_done,
};
BENCH_MODULE(warmahead_module);
