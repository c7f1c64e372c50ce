/* Internals of one case, shared by the engine's files: the case (struct
   bench_ctx) and its worker threads (struct bench_thread) with their
   per-op-class counters, read and written by engine.c (phases, threads,
   warmup), host_api.c (what a module may call), measure.c (interval reports
   and the case's figures into bc_case_result), declared.c (the run's own
   processes) and needs.c (a module's needs()). Not part of any public
   interface: the rest of benchcore sees engine.h. */
#ifndef BC_ENGINE_INT_H
#define BC_ENGINE_INT_H
#include <pthread.h>
#include <sched.h>
#include "engine.h"
#include "hist.h"

enum { PH_INIT, PH_WARMUP, PH_MEASURE, PH_STOP };
/* Distinct (op class, kind) error pairs a thread keeps counts for; past
   that, an op class's further kinds fold into its "other" count, whose first
   kind is kept (and the results say so). */
#define MAX_ERR_KINDS 32

/* Written only by its thread; read by the reporter with relaxed loads. */
typedef struct bc_opstat {
	uint64_t count, bytes, errors, lat_sum;
	uint64_t min, max;
	double lat_sq;
	uint64_t other_errors;		/* errors of kinds past MAX_ERR_KINDS */
	const char *other_first;	/* the first such kind */
	uint64_t bad;			/* records refused (latency past the window) */
	bc_hist hist;
} bc_opstat;

/* A secondary distribution (ABI 1.1 dist()): kept in the threads' ops[]
   after the op classes, at index nops + id. */
typedef struct bc_dist {
	unsigned op;
	char *name;
} bc_dist;

/* A local process whose CPU time is the workload's (ABI 1.3
   declare_process(), and every private server: group = its process group). */
#define BC_MAX_DECLARED 16
typedef struct bc_declared {
	int pid;
	int group;			/* count every process of process group pid */
	int server;			/* a private server the host started (server_start) */
	char name[48];
} bc_declared;

/* The private servers through the measured window (srvwatch.c). */
typedef struct bc_srvwatch {
	pthread_t tid;
	int running, stop;
	uint64_t t0;
	unsigned n;
	struct bc_srv {
		int pid;
		unsigned long long start;	/* /proc/PID/stat starttime at the window's start */
		char name[48];
		unsigned stops;			/* samples that saw it stopped */
		uint64_t first_stop_ns, stopped_ns;	/* into the window; how long (sampled) */
		uint64_t gone_ns;		/* 1 + when it died or was replaced; 0: never */
		int replaced;
	} s[BC_MAX_DECLARED];
} bc_srvwatch;
/* From the window's start: samples each private server (state, start time). */
void bc_srvwatch_start(bc_srvwatch *w, const bench_ctx *x);
/* At the window's end: stops sampling; 1 with why (n bytes) naming each
   server that was stopped, died or was replaced, when and for how long. */
int bc_srvwatch_stop(bc_srvwatch *w, double window_s, char *why, size_t n);

/* The first error() of a case: its reason. */
typedef struct bc_first_err {
	int set;
	int thread;			/* -1: main thread */
	char msg[512], detail[512], hint[512];
	unsigned count;			/* error() calls in all */
} bc_first_err;

typedef struct bc_errkind {
	const char *kind;
	unsigned op;
	uint64_t n;
} bc_errkind;

struct bench_thread {
	bench_ctx *ctx;
	unsigned idx;
	uint64_t quota;			/* events claimed from the shared budget, not yet run */
	uint64_t charged;		/* events claim() and should_stop() gave out in the
					   window, not yet recorded */
	uint64_t overrun;		/* operations recorded in the window that the budget
					   could not cover (counted; the case says so) */
	int claims;			/* claim() or should_stop() called: 0 never, 1 in
					   warmup only, 2 in the window */
	uint64_t next_arrival;		/* open loop: intended start of the next event */
	uint64_t pending_arrival;	/* next_arrival(take = 0) computed, not yet taken */
	uint64_t rng;
	uint64_t late, max_lag;
	uint64_t end_ns;
	int readied, vanished;		/* vanished: ended inside the module (pthread_exit) */
	uint64_t warm_events;		/* operations done during warmup (warmup = auto watches them) */
	uint64_t garbage;		/* records refused as impossible */
	char garbage_why[160];		/* the first of them */
	bc_errkind errk[MAX_ERR_KINDS];
	void *tstate;
	pthread_t tid;
	int started, init_rc, run_rc, exited;
	bc_opstat ops[];		/* one per op class */
} __attribute__((aligned(64)));

struct bench_ctx {
	const bc_case *c;
	const bench_module_v1 *d;
	unsigned nops;			/* op classes: the module's, or set_op_classes() */
	const char **ops;		/* their names */
	char **own_ops;			/* copies made by set_op_classes(), or NULL */
	bc_dist *dists;
	unsigned ndists;
	int in_init, in_prepare, in_finish;	/* which callback runs (main-thread calls) */
	int stop_fd;			/* eventfd: readable once phase is PH_STOP */
	bc_first_err first;
	/* The first error() of the measured window (from its start until the
	   workers have returned): it fails the case, whatever the callbacks
	   return (a server that stopped answering). Under lock. */
	bc_first_err win;
	int in_window;
	unsigned pre_window;		/* first.count when the window opened */
	bc_declared declared[BC_MAX_DECLARED];	/* main thread, init and prepare only */
	unsigned ndeclared;
	struct bc_prep {		/* prepare progress */
		uint64_t t0, last_print, done, total;
		char unit[24];
		int open;		/* a \r line is on the terminal */
	} prep;
	bc_hist *fin_hist;		/* finish(): scratch for percentile() */
	void *opts;			/* the typed options struct (ABI 1.3), or NULL */
	char bad_opt[400];		/* the first misuse of a by-name getter: fails the case */
	void *state;
	int phase __attribute__((aligned(64)));	/* read by every worker: own cache line */
	uint64_t events_left __attribute__((aligned(64)));
	int limited;
	double gap_ns;			/* open loop: mean gap between arrivals per thread */
	unsigned nthreads;
	struct bench_thread **t;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready, exited;
	char err[1024];
	char reason[1100];
	char bad_metric[160];		/* the first non-finite report_metric() */
	unsigned info_dropped;		/* set_info() keys beyond BC_MAX_INFO (under lock) */
	bc_case_result *res;		/* what the case reports; metrics/info/warnings under lock */
	uint64_t t0, t1;		/* the measured window */
	uint64_t case_t0;		/* bc_case_run started */
	uint64_t lat_cap;		/* no latency can be longer than the case can run */
};

#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* Interval state kept by the main thread. */
typedef struct bc_meas {
	uint64_t last_t;		/* time of the previous tick */
	uint64_t *prev_count, *prev_bytes, *prev_err;	/* per op class */
	bc_hist *prev_hist, *cur_hist, *tmp_hist;
	bc_cr_interval *iv;		/* the interval series, moved into the result at the end */
	size_t niv, civ;
	double mhz_sum;
	unsigned mhz_n;
	int progress_open;		/* a \r progress line is on the terminal */
	struct bc_cpu_snap {		/* CPU accounting at the window's start, end */
		double user_s, sys_s;	/* this process (getrusage) */
		unsigned long long steal, total, busy;	/* the machine's ticks (/proc/stat) */
		unsigned long long server;	/* ticks of the declared processes (/proc/PID/stat) */
		int have_stat;
		/* the CPUs the case could run on (affinity, which the cpuset
		   cgroup narrows), summed over their /proc/stat "cpuN" lines */
		unsigned long long set_steal, set_total, set_busy;
		unsigned set_n;		/* CPUs in the set found in /proc/stat; 0: unknown */
		unsigned long long server_set;	/* the declared processes' ticks that could
						   have run on the set (affinity overlaps) */
		char set_list[128];	/* "0", "0-3,6": the set as a cpulist */
	} cpu0, cpu1;
} bc_meas;

void bc_meas_init(bc_meas *m, bench_ctx *x);
/* One interval report ending now; final = the last, possibly partial, one. */
void bc_meas_tick(bc_meas *m, bench_ctx *x, uint64_t now, int final);
/* Fills the case result with ops, metrics.events_per_sec, fairness,
   stability, open_loop, cpu and intervals. */
void bc_meas_finish(bc_meas *m, bench_ctx *x, bc_case_result *r);
void bc_meas_free(bc_meas *m);
/* A warning of the core about this case: to stderr and into its warnings. */
void bc_ctx_warn(bench_ctx *x, const char *msg);
/* CPU time of this process, of the declared processes, and the machine's
   ticks, now. */
void bc_meas_cpu(struct bc_cpu_snap *c, const bench_ctx *x);
/* Records a declared process (0; -1 with a reason in e when pid is not
   a visible process or the table is full). Repeats are merged. */
int bc_declare(bench_ctx *x, int pid, int group, const char *name, bc_err *e);
/* CPU ticks (user + system, with reaped children) of the declared processes
   and groups, each process once; 0 when none. */
unsigned long long bc_declared_ticks(const bench_ctx *x);
/* The same; *on_set: the part of the processes whose affinity overlaps set
   (they could have taken the case's CPUs' time). */
unsigned long long bc_declared_ticks_on(const bench_ctx *x, const cpu_set_t *set,
					unsigned long long *on_set);
/* "name (pid N[, its process group]), ...", malloc'd. */
char *bc_declared_names(const bench_ctx *x);
void bc_meas_sample_mhz(bc_meas *m);
/* One distribution (count, min, mean, max, stddev, percentiles) of slot k
   of the threads' ops[] (an op class, or nops + a dist id). */
void bc_meas_latency(bench_ctx *x, unsigned k, bc_hist *h, uint64_t *count, bc_cr_latency *out);
/* ------------------------------------------------ recording (hot path) */

/* n operations of latency lat and bytes bytes each (n = 1 on the event path). */
static inline void op_add_n(bc_opstat *s, uint64_t n, uint64_t lat, uint64_t bytes)
{
	uint64_t *bucket = &s->hist.b[bc_hist_index(lat)];
	ST(s->count, s->count + n);
	ST(s->bytes, s->bytes + n * bytes);
	ST(s->lat_sum, s->lat_sum + n * lat);
	s->lat_sq += (double)n * (double)lat * (double)lat;
	if (lat < s->min)
		s->min = lat;
	if (lat > s->max)
		s->max = lat;
	ST(*bucket, *bucket + n);
}

static inline void op_add(bc_opstat *s, uint64_t lat, uint64_t bytes)
{
	op_add_n(s, 1, lat, bytes);
}

/* Takes up to n events from the thread's quota, then from the shared
   budget: how many it got. */
static inline uint64_t take_budget(struct bench_thread *t, uint64_t n)
{
	bench_ctx *x = t->ctx;
	uint64_t got = t->quota < n ? t->quota : n;
	t->quota -= got;
	uint64_t left = __atomic_load_n(&x->events_left, __ATOMIC_RELAXED);
	while (got < n && left) {
		uint64_t take = left < n - got ? left : n - got;
		if (__atomic_compare_exchange_n(&x->events_left, &left, left - take, 0,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			got += take;
	}
	return got;
}

/* Takes one event from the shared budget, in batches so threads rarely touch
   the shared counter. */
static inline int claim(struct bench_thread *t)
{
	if (t->quota) {
		t->quota--;
		return 1;
	}
	bench_ctx *x = t->ctx;
	uint64_t want = x->c->run.events / (x->nthreads * 64u) + 1;
	if (want > 1024)
		want = 1024;
	uint64_t left = __atomic_load_n(&x->events_left, __ATOMIC_RELAXED);
	while (left) {
		uint64_t take = left < want ? left : want;
		if (__atomic_compare_exchange_n(&x->events_left, &left, left - take, 0,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			t->quota = take - 1;
			return 1;
		}
	}
	return 0;
}

/* n operations recorded (or failed) in the window of an events budget:
   whether they count. They pay with the events the thread was given in the
   window (charged). A thread that claimed in warmup (where claim() gives n
   and takes nothing) and not yet in the window records what it began in
   warmup: warmup's, not counted (the window's part of it is small; charged
   instead, another thread could have spent the budget first). The rest ran
   without being charged (a module doing more than it claimed): taken from
   the budget now, and what the budget cannot cover any longer is counted
   all the same (it ran in the window) and the case says so (overrun). */
static inline int window_pays(struct bench_thread *t, uint64_t n)
{
	if (t->claims == 1)
		return 0;
	uint64_t c = t->charged < n ? t->charged : n;
	t->charged -= c;
	if (c < n)
		t->overrun += n - c - take_budget(t, n - c);
	return 1;
}

/* The host API table handed to modules (host_api.c). */
extern const bench_host_api_v1 bc_host_api;
/* The prepare progress line (host_api.c); final closes it. */
void bc_prep_print(bench_ctx *x, uint64_t now, int final);

/* A worker thread's body (worker.c): arg is its struct bench_thread. */
void *bc_worker(void *arg);

/* The host API's worker-thread calls (host_thread.c), which host_api.c's
   table points to: module.h says what each does. */
uint64_t bc_api_now(void);
int bc_api_should_stop(bench_thread *t);
uint64_t bc_api_pace(bench_thread *t);
void bc_api_record(bench_thread *t, unsigned op, uint64_t lat, uint64_t bytes);
void bc_api_warmup_n(bench_thread *t, uint64_t n);
void bc_api_record_n(bench_thread *t, unsigned op, uint64_t n, uint64_t lat, uint64_t bytes);
void bc_api_record_unfinished(bench_thread *t, unsigned op, uint64_t waited);
void bc_api_record_error(bench_thread *t, unsigned op, const char *kind);
unsigned bc_api_thread_index(bench_thread *t);
int bc_api_stop_fd(bench_ctx *x);
int bc_api_stopping(bench_thread *t);
uint64_t bc_api_claim(bench_thread *t, uint64_t n);
uint64_t bc_api_next_arrival(bench_thread *t, int take);
void bc_api_record_dist(bench_thread *t, int id, uint64_t v);
int bc_api_measuring(bench_thread *t);

#endif
