/* cpu: the processor alone, three ways (option test):
 *
 * prime: the prime-number loop of `sysbench cpu`. One event tests every c in
 * [3, max_prime) for primality by trial division by 2 .. sqrt(c), exactly as
 * sysbench 1.0 does, with the same 64-bit integer types (the division
 * instruction dominates the cost, so types matter for parity). The count of
 * primes goes to a volatile sink so the optimiser cannot drop the loop.
 *
 * dhrystone: Dhrystone 2.1 with register variables (cpu_dhry.c), UnixBench's
 * dhry2reg: loops_per_sec is its "lps". One event is CPU_DHRY_BATCH loops
 * (a loop takes tens of nanoseconds: timed one by one the clock would cost
 * more than the loop).
 *
 * whetstone: double-precision Whetstone (cpu_whet.c), UnixBench's
 * whetstone-double: one event is one pass of a million Whetstone
 * instructions; mwips is passes per second.
 *
 * Threads: each worker has its own kernel state (Dhrystone's and
 * Whetstone's globals), so N threads are N independent copies. */
#include <math.h>
#include <stdlib.h>
#include "benchcore/module.h"
#include "cpu_kernels.h"

#define CPU_DHRY_BATCH	10000	/* Dhrystone loops a timed event */
#define CPU_WHET_I	10	/* Whetstone's I: 10 = one million instructions a pass */

enum { CPU_PRIME, CPU_DHRYSTONE, CPU_WHETSTONE };
static const char *const cpu_tests[] = { "prime", "dhrystone", "whetstone", NULL };

typedef struct cpu_state {
	unsigned long long max_prime;
	int test;
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
} cpu_state;

/* One worker's own (written by it alone). */
typedef struct cpu_thread {
	const cpu_state *s;
	dhry_state dhry;
	whet_state whet;
} cpu_thread;

/* The options as the host fills them for each case (ABI 1.3). */
typedef struct cpu_opts {
	int64_t max_prime;
	int test;
} cpu_opts;

static const bench_option_v1 cpu_options[] = {
	{ .name = "max_prime", .type = BENCH_OPT_INT, .def = "10000",
	  .help = "test = prime: test numbers below this for primality in each event (sysbench --cpu-max-prime)",
	  .min = 3, .max = 1e9, BENCH_OPT_AT(cpu_opts, max_prime) },
	{ .name = "test", .type = BENCH_OPT_ENUM, .def = "prime",
	  .help = "prime (sysbench cpu's loop), dhrystone (Dhrystone 2.1, register variables: UnixBench's "
		  "dhry2reg) or whetstone (double precision: UnixBench's whetstone-double)",
	  .choices = cpu_tests, BENCH_OPT_AT(cpu_opts, test) },
	{ 0 }
};

static const bench_metric_v1 cpu_metrics[] = {
	{ "loops_per_sec", "loops/s", 1 },	/* dhrystone: UnixBench's lps */
	{ "dmips", "DMIPS", 1 },		/* dhrystone: lps / 1757 (the VAX 11/780's) */
	{ "mwips", "MWIPS", 1 },		/* whetstone */
	{ NULL }
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
	s->test = o->test;
	s->api = api;
	s->ctx = ctx;
	*state = s;
	return BENCH_OK;
}

static int cpu_thread_init(void *state, bench_thread *t, void **tstate)
{
	const cpu_state *s = state;
	cpu_thread *ct = calloc(1, sizeof(*ct));
	if (!ct) {
		s->api->error(s->ctx, t, "out of memory", NULL, NULL);
		return BENCH_ERR;
	}
	ct->s = s;
	cpu_dhry_init(&ct->dhry);
	*tstate = ct;
	return BENCH_OK;
}

static void cpu_thread_done(void *tstate)
{
	free(tstate);
}

/* Where each event's result goes, so the compiler must compute it. */
volatile unsigned long long cpu_sink;

volatile double cpu_whet_sink;

static int cpu_prime(const cpu_state *s)
{
	unsigned long long c, l, n = 0;
	double t;
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

static int cpu_event(void *tstate, uint64_t *bytes)
{
	cpu_thread *ct = tstate;
	(void)bytes;
	switch (ct->s->test) {
	case CPU_DHRYSTONE:
		/* a failed check is a broken build or machine: the case fails */
		return cpu_dhry_loops(&ct->dhry, CPU_DHRY_BATCH) ? BENCH_ERR : BENCH_OK;
	case CPU_WHETSTONE:
		cpu_whet_pass(&ct->whet, CPU_WHET_I);
		cpu_whet_sink = ct->whet.sink;
		return BENCH_OK;
	default:
		return cpu_prime(ct->s);
	}
}

static int cpu_finish(void *state)
{
	const cpu_state *s = state;
	bench_totals_v1 tot;
	if (s->test == CPU_PRIME || s->api->totals(s->ctx, 0, &tot) || tot.seconds <= 0 || !tot.count)
		return BENCH_OK;
	double per_sec = (double)tot.count / tot.seconds;
	if (s->test == CPU_DHRYSTONE) {
		s->api->report_metric(s->ctx, "loops_per_sec", per_sec * CPU_DHRY_BATCH);
		s->api->report_metric(s->ctx, "dmips", per_sec * CPU_DHRY_BATCH / 1757.0);
	} else {
		s->api->report_metric(s->ctx, "mwips", per_sec * CPU_WHET_I / 10.0);
	}
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
	.summary	= "the processor: prime trial division (sysbench cpu), Dhrystone 2.1, Whetstone",
	.options	= cpu_options,
	.metrics	= cpu_metrics,
	.opts_size	= sizeof(cpu_opts),
	.init		= cpu_init,
	.thread_init	= cpu_thread_init,
	.event		= cpu_event,
	.thread_done	= cpu_thread_done,
	.finish		= cpu_finish,
	.destroy	= cpu_destroy,
};
BENCH_MODULE(cpu_module);
