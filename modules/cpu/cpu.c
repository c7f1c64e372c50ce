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

static const bench_option_v1 cpu_options[] = {
	{ .name = "max_prime", .type = BENCH_OPT_INT, .def = "10000",
	  .help = "test numbers below this for primality in each event (sysbench --cpu-max-prime)",
	  .min = 3, .max = 1e9 },
	{ 0 }
};

static int cpu_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	cpu_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->max_prime = (unsigned long long)api->opt_int(ctx, "max_prime");
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
	.init		= cpu_init,
	.thread_init	= cpu_thread_init,
	.event		= cpu_event,
	.destroy	= cpu_destroy,
};
BENCH_MODULE(cpu_module);
