/* Test module for the long-study rules: a synthetic workload whose
   throughput is exactly what its options say, whatever else loads the
   machine (operations are counted from wall time, not done):
   `ops` operations a second per thread, times a factor drawn once per case
   (normal, mean 1, sd `cv`: the spread between repeats), ramping up from
   half rate over the first `ramp_s` seconds of the case, and alternating
   +-`wobble` every 150 ms (never steady). With `step` > 0 the factor is
   not drawn but steps through 1, 1 + step, 1 - step, 1, ... case by case
   (a count kept in `count_file`): a spread known exactly, for the tests of
   the stopping rules. `crash_at` > 0: the first worker dies of SIGSEGV that
   many seconds into the case (the tests of a crashed case). needs() asks
   need_mib per thread of memory, need_disk_mib at disk_path and need_cpus
   CPUs. Typed options (ABI 1.3). */
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <benchcore/module.h>

/* How a worker waits 2 ms between its records: a real sleep, unless a test
   that runs the engine in simulated time points this at its clock's sleep
   (tests/unit/test_run.c: bc_clock_sleep_ns, core/engine/clock.h). */
__attribute__((visibility("default"))) void (*synth_sleep_ns)(uint64_t ns);
/* Called at each event of a case when set (the tests of interruptions:
   tests/unit/test_resume.c signals the runner at a given one). */
enum { SYNTH_INIT, SYNTH_STEP, SYNTH_DESTROY };
__attribute__((visibility("default"))) void (*synth_hook)(int event);

typedef struct synth_opts {
	double ops, cv, ramp_s, wobble, step, need_mib, crash_at, need_disk_mib, done_s;
	int64_t need_cpus;
	const char *count_file, *disk_path;
} synth_opts;

static const bench_option_v1 synth_options[] = {
	{ .name = "ops", .type = BENCH_OPT_DOUBLE, .def = "10000", .help = "operations a second per thread",
	  .min = 1, .max = 1e9, BENCH_OPT_AT(synth_opts, ops), .flags = BENCH_OPT_PLACEMENT },
	{ .name = "cv", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "spread of the rate between repeats",
	  .min = 0, .max = 0.5, BENCH_OPT_AT(synth_opts, cv) },
	{ .name = "ramp_s", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "seconds from half rate to full",
	  .min = 0, .max = 100, BENCH_OPT_AT(synth_opts, ramp_s) },
	{ .name = "wobble", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "alternating share of the rate",
	  .min = 0, .max = 0.9, BENCH_OPT_AT(synth_opts, wobble) },
	{ .name = "step", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "factors 1, 1+step, 1-step in turn (count_file)",
	  .min = 0, .max = 0.5, BENCH_OPT_AT(synth_opts, step) },
	{ .name = "count_file", .type = BENCH_OPT_STRING, .def = "", .help = "where step counts the cases",
	  BENCH_OPT_AT(synth_opts, count_file) },
	{ .name = "need_mib", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "memory a thread needs (needs()), MiB",
	  .min = 0, .max = 1e12, BENCH_OPT_AT(synth_opts, need_mib) },
	{ .name = "need_disk_mib", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "disk a case needs at disk_path, MiB",
	  .min = 0, .max = 1e12, BENCH_OPT_AT(synth_opts, need_disk_mib) },
	{ .name = "disk_path", .type = BENCH_OPT_STRING, .def = "", .help = "where need_disk_mib is needed",
	  BENCH_OPT_AT(synth_opts, disk_path) },
	{ .name = "need_cpus", .type = BENCH_OPT_INT, .def = "0", .help = "usable CPUs a case needs",
	  .min = 0, .max = 1000000, BENCH_OPT_AT(synth_opts, need_cpus) },
	{ .name = "crash_at", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "seconds into the case the first worker crashes",
	  .min = 0, .max = 1e6, BENCH_OPT_AT(synth_opts, crash_at) },
	{ .name = "done_s", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "seconds a worker's thread_done takes",
	  .min = 0, .max = 1e6, BENCH_OPT_AT(synth_opts, done_s) },
	{ .name = NULL }
};

/* step: the k-th case of this count file (0, 1, 2, ...) */
static unsigned synth_count(const char *path)
{
	unsigned k = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%u", &k) != 1)
			k = 0;
		fclose(f);
	}
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%u\n", k + 1);
		fclose(f);
	}
	return k;
}

typedef struct synth_state {
	const bench_host_api_v1 *api;
	const synth_opts *o;
	double factor;
	uint64_t t0;
	int started;		/* workers started so far */
} synth_state;

static int synth_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	synth_state *s = calloc(1, sizeof(*s));
	if (!s)
		return BENCH_ERR;
	s->api = api;
	s->o = api->options(ctx);
	s->t0 = api->now_ns();
	/* one draw per case process from a per-process seed: twelve uniforms
	   less 6 is normal enough (mean 0, sd 1) and needs no libm */
	unsigned seed = (unsigned)(getpid() ^ (s->t0 >> 10));
	double z = -6;
	for (int i = 0; i < 12; i++)
		z += (double)rand_r(&seed) / RAND_MAX;
	s->factor = 1 + s->o->cv * z;
	if (s->o->step > 0 && s->o->count_file[0]) {
		static const double turn[3] = { 0, 1, -1 };
		s->factor = 1 + s->o->step * turn[synth_count(s->o->count_file) % 3];
	}
	if (s->factor < 0.05)
		s->factor = 0.05;
	*state = s;
	if (synth_hook)
		synth_hook(SYNTH_INIT);
	return BENCH_OK;
}

static void synth_destroy(void *state)
{
	if (synth_hook)
		synth_hook(SYNTH_DESTROY);
	free(state);
}

/* A worker's wait: through the test's clock when it set one, else a real sleep. */
static void synth_wait(uint64_t ns)
{
	if (synth_sleep_ns) {
		synth_sleep_ns(ns);
		return;
	}
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
}

/* Per worker: the case's state and the thread to record on. */
typedef struct synth_thread {
	synth_state *s;
	bench_thread *t;
	int first;		/* the first worker of the case (crash_at) */
} synth_thread;

static int synth_thread_init(void *state, bench_thread *t, void **tstate)
{
	synth_thread *w = calloc(1, sizeof(*w));
	if (!w)
		return BENCH_ERR;
	synth_state *s = state;
	w->s = s;
	w->t = t;
	w->first = __atomic_fetch_add(&s->started, 1, __ATOMIC_RELAXED) == 0;
	*tstate = w;
	return BENCH_OK;
}

static int synth_run(void *tstate)
{
	synth_thread *w = tstate;
	synth_state *s = w->s;
	const bench_host_api_v1 *api = s->api;
	uint64_t last = api->now_ns();
	double owed = 0;
	/* stopping(), not should_stop(): --events N counts operations, and each
	   loop's n take their events with claim() */
	while (!api->stopping(w->t)) {
		synth_wait(2 * 1000 * 1000);	/* 2 ms: a window edge moves the count by < 1% */
		if (synth_hook)
			synth_hook(SYNTH_STEP);
		uint64_t now = api->now_ns();
		if (w->first && s->o->crash_at > 0 && (double)(now - s->t0) / 1e9 >= s->o->crash_at) {
			/* dies of SIGSEGV, as a module's bug would, and not caught by
			   a handler the process inherited (cmocka's, in a unit test;
			   raised: a null store would be ASan's to report) */
			signal(SIGSEGV, SIG_DFL);
			raise(SIGSEGV);
		}
		double age = (double)(now - s->t0) / 1e9, dt = (double)(now - last) / 1e9;
		double ramp = s->o->ramp_s > 0 && age < s->o->ramp_s ? 0.5 + 0.5 * age / s->o->ramp_s : 1;
		/* high for 150 ms, low for 150 ms: slower than any interval */
		double wob = 1 + (((uint64_t)(age / 0.15) & 1) ? s->o->wobble : -s->o->wobble);
		owed += s->o->ops * s->factor * ramp * wob * dt;
		uint64_t n = (uint64_t)owed;
		owed -= (double)n;
		if (n && (n = api->claim(w->t, n)) == 0)
			break;	/* --events: the budget is spent */
		if (n)
			api->record_n(w->t, 0, n, (uint64_t)(dt * 1e9 / (double)n), 0);
		last = now;
	}
	return BENCH_OK;
}

/* needs(): need_mib per thread, for the tests of a case's requirements */
static int synth_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	const synth_opts *o = api->options(ctx);
	out->memory_bytes = (uint64_t)(o->need_mib * 1048576.0) * api->threads(ctx);
	out->why = "need_mib per thread";
	if (o->need_disk_mib > 0) {
		out->disk_bytes = (uint64_t)(o->need_disk_mib * 1048576.0);
		out->disk_path = o->disk_path;
		out->why = "need_disk_mib";
	}
	out->cpus = (uint32_t)o->need_cpus;
	return BENCH_OK;
}

/* done_s: a teardown that takes time, as io's closing of a new file that
   gives its blocks back (the window must not count it) */
static void synth_thread_done(void *tstate)
{
	synth_thread *w = tstate;
	if (w->s->o->done_s > 0)
		synth_wait((uint64_t)(w->s->o->done_s * 1e9));
	free(tstate);
}

static const bench_module_v1 synth_module = {
	BENCH_MODULE_HEADER,
	.name = "synth",
	.version = "1.0",
	.summary = "a throughput set by its options (test module for repeat/warmup = auto)",
	.options = synth_options,
	.opts_size = sizeof(synth_opts),
	.init = synth_init,
	.thread_init = synth_thread_init,
	.thread_run = synth_run,
	.thread_done = synth_thread_done,
	.needs = synth_needs,
	.destroy = synth_destroy,
};

BENCH_MODULE(synth_module)
