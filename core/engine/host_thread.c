/* The host API's worker-thread calls (module.h, bench_host_api_v1): the hot
 * path a module's threads take for every operation: the clock, stop checks,
 * pacing and arrivals, claiming the events budget, recording operations,
 * errors and distributions, with the checks on what they record. Each call
 * acts on its own thread's counters (written by that thread only) or on
 * relaxed loads of the case's phase. The case's calls and the table itself
 * are host_api.c's. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "engine_int.h"
#include "util.h"

uint64_t bc_api_now(void) { return bc_now_ns(); }

int bc_api_should_stop(bench_thread *t)
{
	int ph = __atomic_load_n(&t->ctx->phase, __ATOMIC_RELAXED);
	if (ph == PH_STOP)
		return 1;
	if (ph != PH_MEASURE || !t->ctx->limited) {
		t->claims |= ph == PH_WARMUP;
		return 0;
	}
	t->claims = 2;
	if (!claim(t))
		return 1;
	t->charged++;	/* the operation it lets run pays with it when recorded */
	return 0;
}

static double rnd01(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t arrival_gap(struct bench_thread *t);

uint64_t bc_api_pace(bench_thread *t)
{
	bench_ctx *x = t->ctx;
	uint64_t now = bc_now_ns();
	if (x->gap_ns <= 0)
		return now;
	if (!t->next_arrival)
		t->next_arrival = now;
	t->next_arrival += arrival_gap(t);
	if (t->next_arrival > now) {
		/* sleep in slices so a stop request is seen promptly */
		while (t->next_arrival > now + 1000 && LD(x->phase) != PH_STOP) {
			uint64_t until = t->next_arrival;
			if (until > now + 100000000u)
				until = now + 100000000u;
			bc_sleep_until(until);
			now = bc_now_ns();
		}
	} else if (LD(x->phase) == PH_MEASURE) {
		uint64_t lag = now - t->next_arrival;
		t->late++;
		if (lag > t->max_lag)
			t->max_lag = lag;
	}
	return t->next_arrival;
}

/* A record that cannot be true: refused, counted, and the first one kept as
   the case's reason (the case fails: its figures are not the system's). Only
   the owning thread writes these. */
static void __attribute__((noinline, cold)) garbage(bench_thread *t, const char *fmt, ...)
{
	if (!t->garbage++) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(t->garbage_why, sizeof(t->garbage_why), fmt, ap);
		va_end(ap);
	}
}

#define MAX_BATCH	(1ull << 40)	/* ops in one record_n: 1000 s of 1 ns operations */
#define MAX_OP_BYTES	(1ull << 50)	/* bytes one operation moves: a PiB is a wrapped count */

/* The cheap checks of a record: op class, latency against the case's age,
   sizes that only a wrapped (negative) number gives, sums that overflow. */
static inline int record_ok(bench_thread *t, unsigned op, uint64_t n, uint64_t lat, uint64_t bytes)
{
	bench_ctx *x = t->ctx;
	uint64_t p;
	if (__builtin_expect(op >= x->nops, 0))
		return garbage(t, "op class %u recorded, the case has %u (0 .. %u)", op, x->nops, x->nops - 1), 0;
	if (__builtin_expect(lat > x->lat_cap, 0))
		return garbage(t, "a latency of %llu ns recorded (op class %s), longer than the case has run "
			       "(a wrapped-around time difference?)", (unsigned long long)lat, x->ops[op]), 0;
	if (__builtin_expect(bytes > MAX_OP_BYTES || n > MAX_BATCH, 0))
		return garbage(t, "%s recorded (op class %s): a negative or overflowing count",
			       n > MAX_BATCH ? "a batch of more than 2^40 operations" : "more than 2^50 bytes in one operation",
			       x->ops[op]), 0;
	if (__builtin_expect(__builtin_mul_overflow(n, lat, &p) || __builtin_add_overflow(t->ops[op].lat_sum, p, &p) ||
			     __builtin_mul_overflow(n, bytes, &p) || __builtin_add_overflow(t->ops[op].bytes, p, &p), 0))
		return garbage(t, "the latency or byte sum of op class %s overflows (record_n n=%llu latency %llu ns, "
			       "%llu bytes)", x->ops[op], (unsigned long long)n, (unsigned long long)lat,
			       (unsigned long long)bytes), 0;
	return 1;
}

void bc_api_record(bench_thread *t, unsigned op, uint64_t lat, uint64_t bytes)
{
	if (LD(t->ctx->phase) == PH_WARMUP) {
		ST(t->warm_events, t->warm_events + 1);	/* only this thread writes it */
		return;
	}
	if (LD(t->ctx->phase) != PH_MEASURE || !record_ok(t, op, 1, lat, bytes))
		return;
	if (t->ctx->limited && !window_pays(t, 1))
		return;
	op_add(&t->ops[op], lat, bytes);
}

/* Warmup progress of a module that records nothing in warmup: only the
   auto warmup's rate sees it (engine.c auto_warmup). */
void bc_api_warmup_n(bench_thread *t, uint64_t n)
{
	if (LD(t->ctx->phase) == PH_WARMUP)
		ST(t->warm_events, t->warm_events + n);	/* only this thread writes it */
}

void bc_api_record_n(bench_thread *t, unsigned op, uint64_t n, uint64_t lat, uint64_t bytes)
{
	if (n && LD(t->ctx->phase) == PH_WARMUP) {
		bc_api_warmup_n(t, n);	/* warmup: counted for warmup = auto only */
		return;
	}
	if (!n || LD(t->ctx->phase) != PH_MEASURE || !record_ok(t, op, n, lat, bytes))
		return;
	if (t->ctx->limited && !window_pays(t, n))
		return;
	op_add_n(&t->ops[op], n, lat, bytes);
}

/* Only between the stop and the worker's return: the final interval,
   read after every worker is joined, includes it. */
void bc_api_record_unfinished(bench_thread *t, unsigned op, uint64_t waited)
{
	if (LD(t->ctx->phase) != PH_STOP || !record_ok(t, op, 1, waited, 0))
		return;
	op_add(&t->ops[op], waited, 0);
}

void bc_api_record_error(bench_thread *t, unsigned op, const char *kind)
{
	if (LD(t->ctx->phase) != PH_MEASURE)
		return;
	if (op >= t->ctx->nops) {
		garbage(t, "an error of op class %u recorded, the case has %u (0 .. %u)", op, t->ctx->nops,
			t->ctx->nops - 1);
		return;
	}
	if (t->ctx->limited && !window_pays(t, 1))
		return;		/* begun in warmup; else one of the N events */
	ST(t->ops[op].errors, t->ops[op].errors + 1);
	if (!kind)
		kind = "error";
	for (unsigned i = 0; i < MAX_ERR_KINDS; i++) {
		bc_errkind *k = &t->errk[i];
		if (!k->kind) {
			k->kind = kind;
			k->op = op;
		}
		if (k->op == op && (k->kind == kind || !strcmp(k->kind, kind))) {
			k->n++;
			return;
		}
	}
	/* every slot taken: fold into the class's "other", keeping its first kind */
	if (!t->ops[op].other_first)
		t->ops[op].other_first = kind;
	t->ops[op].other_errors++;
}

unsigned bc_api_thread_index(bench_thread *t) { return t->idx; }

/* ------------------------------------------------- event loops (ABI 1.1) */

int bc_api_stop_fd(bench_ctx *x) { return x->stop_fd; }

int bc_api_stopping(bench_thread *t)
{
	return LD(t->ctx->phase) == PH_STOP;
}

uint64_t bc_api_claim(bench_thread *t, uint64_t n)
{
	bench_ctx *x = t->ctx;
	int ph = LD(x->phase);
	if (!n || !x->limited || ph != PH_MEASURE) {
		t->claims |= ph == PH_WARMUP;
		return n;
	}
	t->claims = 2;
	uint64_t got = take_budget(t, n);
	t->charged += got;	/* recorded later: record() pays with them */
	return got;
}

/* The gap to the next arrival: fixed, or exponential (Poisson arrivals). */
static uint64_t arrival_gap(struct bench_thread *t)
{
	bench_ctx *x = t->ctx;
	return (uint64_t)(x->c->run.arrival_fixed ? x->gap_ns : -log(rnd01(&t->rng)) * x->gap_ns);
}

uint64_t bc_api_next_arrival(bench_thread *t, int take)
{
	bench_ctx *x = t->ctx;
	if (x->gap_ns <= 0)
		return 0;
	uint64_t now = bc_now_ns();
	if (!t->pending_arrival) {
		if (!t->next_arrival)
			t->next_arrival = now;
		t->pending_arrival = t->next_arrival + arrival_gap(t);
	}
	uint64_t due = t->pending_arrival;
	if (take) {
		t->next_arrival = due;
		t->pending_arrival = 0;
		if (due < now && LD(x->phase) == PH_MEASURE) {
			t->late++;
			if (now - due > t->max_lag)
				t->max_lag = now - due;
		}
	}
	return due;
}

void bc_api_record_dist(bench_thread *t, int id, uint64_t v)
{
	bench_ctx *x = t->ctx;
	if (LD(x->phase) != PH_MEASURE)
		return;
	if (id < 0 || (unsigned)id >= x->ndists) {
		garbage(t, "distribution %d recorded, the case declared %u", id, x->ndists);
		return;
	}
	if (v > x->lat_cap) {
		garbage(t, "a value of %llu ns recorded in distribution %s, longer than the case has run",
			(unsigned long long)v, x->dists[id].name);
		return;
	}
	op_add(&t->ops[x->nops + (unsigned)id], v, 0);
}

int bc_api_measuring(bench_thread *t)
{
	return LD(t->ctx->phase) == PH_MEASURE;
}
