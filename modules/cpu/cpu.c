/* cpu: the prime-number loop of `sysbench cpu`.
 *
 * One event tests every c in [3, max_prime) for primality by trial division
 * by 2 .. sqrt(c), exactly as sysbench 1.0 does, with the same 64-bit integer
 * types (the division instruction dominates the cost, so types matter for
 * parity). The count of primes goes to a volatile sink so the optimiser
 * cannot drop the loop. */
#include <math.h>
#include <stdlib.h>
#include "benchcore/module.h"

typedef struct cpu_state {
	unsigned long long max_prime;
} cpu_state;

/* The options as the host fills them for each case (ABI 1.3). */
typedef struct cpu_opts {
	int64_t max_prime;
} cpu_opts;

static const bench_option_v1 cpu_options[] = {
	{ .name = "max_prime", .type = BENCH_OPT_INT, .def = "10000",
	  .help = "test numbers below this for primality in each event (sysbench --cpu-max-prime)",
	  .min = 3, .max = 1e9, BENCH_OPT_AT(cpu_opts, max_prime) },
	{ 0 }
};

static int cpu_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	const cpu_opts *o = BENCH_HOST_HAS(api, options) ? api->options(ctx) : NULL;
	if (!o) {
		api->set_error(ctx, "cpu needs a benchcore of ABI 1.3 or later (typed options)");
		return BENCH_ERR;
	}
	cpu_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->max_prime = (unsigned long long)o->max_prime;
	*state = s;
	return BENCH_OK;
}

static int cpu_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)t;
	*tstate = state;	/* read-only state: threads share it */
	return BENCH_OK;
}

/* Where each event's result goes, so the compiler must compute it. */
volatile unsigned long long cpu_sink;

static int cpu_event(void *tstate, uint64_t *bytes)
{
	const cpu_state *s = tstate;
	unsigned long long c, l, n = 0;
	double t;
	(void)bytes;
	for (c = 3; c < s->max_prime; c++) {
		t = sqrt((double)c);
		for (l = 2; l <= t; l++)
			if (c % l == 0)
				break;
		if (l > t)
			n++;
	}
	cpu_sink = n;
	return BENCH_OK;
}

static void cpu_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 cpu_module = {
	BENCH_MODULE_HEADER,
	.name		= "cpu",
	.version	= "1.0",
	.summary	= "prime-number trial division (sysbench cpu)",
	.options	= cpu_options,
	.opts_size	= sizeof(cpu_opts),
	.init		= cpu_init,
	.thread_init	= cpu_thread_init,
	.event		= cpu_event,
	.destroy	= cpu_destroy,
};
BENCH_MODULE(cpu_module);
