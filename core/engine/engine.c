/* The case runner: lifecycle, phases, the window, starting and joining the
   worker threads (whose own side is worker.c), measurement. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>
#include "clock.h"
#include "engine_int.h"
#include "freq.h"
#include "steady.h"
#include "sysinfo.h"
#include "util.h"

volatile sig_atomic_t bc_stop_requested;

/* ---------------------------------------------------------------- phases */

static void set_phase(bench_ctx *x, int ph)
{
	pthread_mutex_lock(&x->lock);
	if (x->phase == PH_INIT)	/* the workers waiting at the gate start now */
		bc_clock_expect(x->ready - x->exited);
	__atomic_store_n(&x->phase, ph, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	if (ph == PH_STOP)
		bc_clock_kick();
	if (ph == PH_STOP && x->stop_fd >= 0) {
		uint64_t one = 1;	/* stays readable: nobody reads it */
		if (write(x->stop_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			perror("benchcore: stop fd");
	}
}

/* The measured window, for error(): from its start until the workers
   have returned. */
static void window_mark(bench_ctx *x, int open)
{
	pthread_mutex_lock(&x->lock);
	x->in_window = open;
	if (open)
		x->pre_window = x->first.count;
	pthread_mutex_unlock(&x->lock);
}

/* Waits until time `until` or until all workers exited; 1 if they all did. */
static int wait_until(bench_ctx *x, uint64_t until)
{
	for (;;) {
		pthread_mutex_lock(&x->lock);
		int all = x->exited == x->nthreads;
		pthread_mutex_unlock(&x->lock);
		uint64_t now = bc_now_ns();
		if (all)
			return 1;
		if (now >= until || bc_stop_requested)
			return 0;
		uint64_t slice = now + 50000000u;	/* notice exits and signals within 50 ms */
		bc_sleep_until(until < slice ? until : slice);
	}
}

/* ------------------------------------------------------------- lifecycle */

void bc_case_header(const bc_case *c, const char *status, const char *reason, bc_case_result *r)
{
	bc_case_init(r);
	const bench_option_v1 *o = c->mod->desc.options;
	size_t npl = 0;
	for (size_t i = 0; o && o[i].name; i++) {
		json_object_set_new(r->params, o[i].name, bc_val_json(&o[i], &c->vals[i]));
		npl += (o[i].flags & BENCH_OPT_PLACEMENT) != 0;
	}
	if (npl) {	/* where it ran: compare matches machines without these */
		r->placement = bc_xcalloc(npl + 1, sizeof(char *));
		npl = 0;
		for (size_t i = 0; o[i].name; i++)
			if (o[i].flags & BENCH_OPT_PLACEMENT)
				r->placement[npl++] = bc_xstrdup(o[i].name);
	}
	r->id = c->id;
	r->module = bc_xstrdup(c->mod->desc.name);
	r->module_version = bc_xstrdup(c->mod->desc.version ? c->mod->desc.version : "");
	r->module_path = bc_xstrdup(c->mod->path);
	r->module_sha256 = bc_xstrdup(c->mod->sha256);
	bc_case_set_str(&r->module_shadows, c->mod->shadows);
	r->threads = c->threads;
	r->repeat = c->repeat;
	bc_case_set_str(&r->status, status);
	if (reason) {	/* it may quote a module, a file name or a server's reply */
		char *p = bc_text_dup(reason);
		bc_case_set_str(&r->reason, p);
		free(p);
	}
	r->warmup_s = c->run.warmup_s;
}

static int is_ok(const bc_case_result *r)
{
	return !strcmp(r->status, "ok");
}

static void set_status(bc_case_result *r, const char *status, const char *stage, const char *why)
{
	bc_case_set_str(&r->status, status);
	if (why) {
		char *s = stage ? bc_xasprintf("%s: %s", stage, why) : bc_xstrdup(why);
		free(r->reason);
		r->reason = bc_text_dup(s);
		free(s);
	}
}

/* Phase ph ran from t0 until now: its seconds go into the result's
   phase_s. Returns now, the next phase's start. */
static uint64_t phase_done(bc_case_result *r, int ph, uint64_t t0)
{
	uint64_t now = bc_now_ns();
	r->phases.set = 1;
	r->phases.s[ph] = (double)(now - t0) / 1e9;
	return now;
}

/* The peak resident memory of this process, from VmHWM (reset when the
   case started, see peak_reset) or else getrusage's ru_maxrss. */
static uint64_t peak_rss(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	struct rusage ru;
	if (!kb && getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 0)
		kb = (unsigned long long)ru.ru_maxrss;
	return (uint64_t)kb * 1024;
}

/* A case process is forked from the runner, so its high-water mark starts
   at the runner's; "5" to clear_refs (Linux 4.0+) restarts it at what the
   process holds now. With isolate = false the case runs in benchcore's own
   process, whose peak this resets too: nothing else reads it. */
static void peak_reset(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "5", 1) < 0) {
			/* an older kernel: the peak includes the runner's */
		}
		close(fd);
	}
}

/* The error that explains the case: the measured window's first, else the
   case's first (an earlier one that no BENCH_ERR followed did not stop
   anything). */
static const bc_first_err *cause(const bench_ctx *x)
{
	return x->win.set ? &x->win : &x->first;
}

/* The case's reason: the first error() (naming its thread), else the last
   set_error(), else fallback. Written into x->reason. */
static const char *why(bench_ctx *x, const char *fallback)
{
	const bc_first_err *f = cause(x);
	if (f->set && f->thread >= 0)
		snprintf(x->reason, sizeof(x->reason), "thread %d: %s", f->thread, f->msg);
	else
		snprintf(x->reason, sizeof(x->reason), "%s", f->set ? f->msg : x->err[0] ? x->err : fallback);
	return x->reason;
}

/* A worker that gave up: the first error if it names a thread, else this one. */
static void thread_failed(bench_ctx *x, bc_case_result *cj, const char *stage, unsigned i)
{
	char msg[1200];
	if (cause(x)->set && cause(x)->thread >= 0)
		snprintf(msg, sizeof(msg), "%s", why(x, "failed"));
	else
		snprintf(msg, sizeof(msg), "thread %u: %s", i, why(x, "failed"));
	set_status(cj, "failed", stage, msg);
}

static void first_error(const bc_first_err *f, bc_case_result *r)
{
	r->error.set = 1;
	bc_case_set_str(&r->error.message, f->msg);
	r->error.count = f->count;
	bc_case_set_str(&r->error.detail, f->detail[0] ? f->detail : NULL);
	bc_case_set_str(&r->error.hint, f->hint[0] ? f->hint : NULL);
	r->error.thread = f->thread >= 0 ? f->thread : -1;
}

/* error() before the measured window (or after it) in a case that no
   callback's BENCH_ERR stopped: not the case's reason (an ok case has none;
   a failed one has the window's), but a warning in its result, with the
   detail and hint. n: how many errors it stands for. */
static void error_went_on(bench_ctx *x, unsigned n)
{
	const bc_first_err *f = &x->first;
	char thr[32] = "", more[64] = "";
	if (f->thread >= 0)
		snprintf(thr, sizeof(thr), "thread %d: ", f->thread);
	if (n > 1)
		snprintf(more, sizeof(more), " (%llu errors reported in all)", (unsigned long long)n);
	char *w = bc_xasprintf("%s: error() reported, but no callback returned BENCH_ERR and the case went on: "
			       "%s%s%s%s%s%s%s", x->d->name, thr, f->msg, f->detail[0] ? " DETAIL: " : "", f->detail,
			       f->hint[0] ? " HINT: " : "", f->hint, more);
	bc_ctx_warn(x, w);
	free(w);
}

/* The case's headline by the one rule (bc_headline_pick), computed here
   once, over the metrics it reported in their order (the order the
   grouping sees them in); a case that reported none (it failed) over the
   module's declared metrics, then events_per_sec. */
static void set_headline(const bench_module_v1 *d, bc_case_result *cj)
{
	size_t nd = 0, n = 0;
	while (d->metrics && d->metrics[nd].name)
		nd++;
	bc_headline_cand *c = bc_xcalloc(cj->nmetrics + nd + 1, sizeof(*c));
	for (size_t i = 0; i < cj->nmetrics; i++)
		c[n++] = (bc_headline_cand){ cj->metrics[i].name, cj->metrics[i].higher_is_better };
	for (size_t i = 0; i < nd && !cj->nmetrics; i++)
		c[n++] = (bc_headline_cand){ d->metrics[i].name, d->metrics[i].higher_is_better };
	if (!cj->nmetrics)
		c[n++] = (bc_headline_cand){ "events_per_sec", 1 };
	long k = bc_headline_pick(d->headline_metric, c, n);
	bc_case_set_str(&cj->headline, k >= 0 ? c[k].name : "events_per_sec");
	free(c);
}

/* What compare needs to judge this module's metrics (ABI 1.1 fields). */
static void compare_hints(const bench_module_v1 *d, bc_case_result *cj)
{
	set_headline(d, cj);
	if (d->thresholds && d->thresholds->metric) {
		size_t n = 0;
		while (d->thresholds[n].metric)
			n++;
		cj->thresholds = bc_xcalloc(n, sizeof(*cj->thresholds));
		for (size_t i = 0; i < n; i++)
			cj->thresholds[i] = (bc_cr_threshold){ bc_xstrdup(d->thresholds[i].metric),
							       d->thresholds[i].pct };
		cj->nthresholds = n;
		cj->has_thresholds = 1;
	}
}

/* A by-name getter the module misused (host_api.c): the case fails with
   the option's name, whatever the callback returned. */
static int opt_misused(bench_ctx *x, bc_case_result *cj, const char *stage)
{
	if (!x->bad_opt[0] || !is_ok(cj))
		return 0;
	set_status(cj, "failed", stage, x->bad_opt);
	return 1;
}

static void phase_note(const bc_case *c, const char *ph)
{
	if (c->on_phase)
		c->on_phase(c->arg, ph);
}

/* Starts the workers and waits for their thread_init. 0 when all are ready. */
static int start_threads(bench_ctx *x, bc_case_result *cj)
{
	size_t sz = sizeof(struct bench_thread) + (x->nops + x->ndists) * sizeof(bc_opstat);
	sz = (sz + 63) & ~(size_t)63;
	for (unsigned i = 0; i < x->nthreads; i++) {
		struct bench_thread *t = aligned_alloc(64, sz);
		if (!t)
			abort();
		memset(t, 0, sz);
		t->ctx = x;
		t->idx = i;
		t->rng = 0x9e3779b97f4a7c15ull * (i + 1) ^ bc_now_ns();
		for (unsigned k = 0; k < x->nops + x->ndists; k++)
			t->ops[k].min = UINT64_MAX;
		x->t[i] = t;
		if (pthread_create(&t->tid, NULL, bc_worker, t) != 0) {
			set_status(cj, "failed", "threads", "could not create worker thread");
			return -1;
		}
		t->started = 1;
	}
	uint64_t deadline = bc_now_ns() + (uint64_t)(x->c->run.thread_init_timeout * 1e9);
	pthread_mutex_lock(&x->lock);
	while (x->ready < x->nthreads && bc_now_ns() < deadline && !bc_stop_requested) {
		pthread_mutex_unlock(&x->lock);
		bc_sleep_until(bc_now_ns() + 10000000u);
		pthread_mutex_lock(&x->lock);
	}
	unsigned ready = x->ready;
	pthread_mutex_unlock(&x->lock);
	if (ready < x->nthreads) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%u of %u threads did not finish thread_init within %g s "
			 "(thread_init_timeout)", x->nthreads - ready, x->nthreads, x->c->run.thread_init_timeout);
		set_status(cj, bc_stop_requested ? "interrupted" : "failed", "thread_init", msg);
		return -2;
	}
	for (unsigned i = 0; i < x->nthreads; i++)
		if (x->t[i]->init_rc != BENCH_OK) {
			thread_failed(x, cj, "thread_init", i);
			return -1;
		}
	return 0;
}

/* Workers that vanished (pthread_exit) or recorded the impossible: the
   case's figures are not the system's, so it fails, saying which thread.
   Failing beats counting only the time each worker was alive: the case
   was asked for N threads, and a result for fewer would compare as if
   N had run. */
static void judge_threads(bench_ctx *x, bc_case_result *cj)
{
	int ok = is_ok(cj);
	uint64_t refused = 0;
	for (unsigned i = 0; i < x->nthreads; i++)
		refused += x->t[i]->garbage;
	cj->records_refused = refused;
	for (unsigned i = 0; i < x->nthreads && ok; i++) {
		char msg[400];
		if (x->t[i]->vanished) {
			snprintf(msg, sizeof(msg), "thread %u ended inside the module (pthread_exit?) before the "
				 "window closed: its figures are not those of %u thread%s", i, x->nthreads,
				 x->nthreads == 1 ? "" : "s");
			set_status(cj, "failed", "thread_run", msg);
			ok = 0;
		} else if (x->t[i]->garbage) {
			snprintf(msg, sizeof(msg), "thread %u: %s (%llu impossible record%s refused in all)", i,
				 x->t[i]->garbage_why, (unsigned long long)refused, refused == 1 ? "" : "s");
			set_status(cj, "failed", "records", msg);
			ok = 0;
		}
	}
}

/* --events N: operations the budget could not cover ran in the window and
   are counted; the case says how many and why (check-module fails them). */
static void budget_overrun(bench_ctx *x, bc_case_result *cj)
{
	uint64_t over = 0;
	for (unsigned i = 0; x->limited && i < x->nthreads; i++)
		over += x->t[i]->overrun;
	if (!over)
		return;
	char msg[400];
	snprintf(msg, sizeof(msg), "--events %llu: %llu more operation%s ran in the window than the budget "
		 "allowed (counted): the module recorded work it did not claim (claim(t, n) takes n events, "
		 "should_stop() one; a batch begun in warmup is claimed in the window by none)",
		 (unsigned long long)x->c->run.events, (unsigned long long)over, over == 1 ? "" : "s");
	bc_case_add_warning(cj, msg);
}

/* The share of operations that failed, against max_error_rate. */
static void error_budget(bench_ctx *x, bc_case_result *cj)
{
	uint64_t n = 0, er = 0;
	for (unsigned k = 0; k < x->nops; k++)
		for (unsigned i = 0; i < x->nthreads; i++) {
			n += x->t[i]->ops[k].count;
			er += x->t[i]->ops[k].errors;
		}
	if (!n && !er)
		return;
	double rate = (double)er / (double)(n + er);
	cj->error_rate = rate;
	if (!is_ok(cj))
		return;
	char msg[300];
	if (!n) {
		snprintf(msg, sizeof(msg), "every operation failed (%llu errors, none succeeded)",
			 (unsigned long long)er);
		set_status(cj, "failed", "errors", msg);
	} else if (rate > x->c->run.max_error_rate) {
		snprintf(msg, sizeof(msg), "%.2f%% of operations failed (%llu of %llu), more than max_error_rate "
			 "%g%%", 100 * rate, (unsigned long long)er, (unsigned long long)(n + er),
			 100 * x->c->run.max_error_rate);
		set_status(cj, "failed", "errors", msg);
	}
}

/* The clock the cores ran at (core/machine/freq.c), probed on up to as many
   CPUs as the case has threads (8 at most: ~4 ms each), once as the window
   opens (workers running: the probe keeps its figure under their load) and
   once after it, beside what cpufreq and /proc/cpuinfo claim. */
static void probe_freq(bench_ctx *x, bc_case_result *cj, int after)
{
	bc_freq_probe p;
	if (bc_freq_probe_cpus(x->nthreads < 8 ? x->nthreads : 8, &p) < 0)
		return;
	if (!cj->freq.set) {
		cj->freq.set = 1;
		double f = bc_sysinfo_cpufreq_mhz(), i = bc_sysinfo_cpuinfo_mhz();
		cj->freq.cpufreq_mhz = f > 0 ? f : NAN;
		cj->freq.cpuinfo_mhz = i > 0 ? i : NAN;
	}
	if (after)
		cj->freq.after_mhz = p.mean_mhz;
	else
		cj->freq.before_mhz = p.mean_mhz;
	cj->freq.cpus = p.cpus;
	double b = cj->freq.before_mhz, a = cj->freq.after_mhz;
	cj->freq.measured_mhz = isnan(b) ? a : isnan(a) ? b : (a + b) / 2;
}

/* warmup = auto: the workers' operations counted every step (warmup_window /
   BC_STEADY_WINDOW: the window is a duration, as fio's ss_dur, whatever the
   report_interval) until the last BC_STEADY_WINDOW rates, over steps or
   blocks of them, are steady (steady.h, bc_steady_counter) or warmup_s
   (max_warmup) is spent; the case records what it took. */
static void auto_warmup(bench_ctx *x, bc_case_result *cj)
{
	const bc_case *c = x->c;
	double step = (c->run.warmup_window > 0 ? c->run.warmup_window : 2) / BC_STEADY_WINDOW;
	uint64_t t0 = bc_now_ns(), end = t0 + (uint64_t)(c->run.warmup_s * 1e9), last = t0;
	size_t n = 0, cap = 64, block = 1;
	double *at = bc_xcalloc(cap + 1, sizeof(*at)), *ev = bc_xcalloc(cap + 1, sizeof(*ev));
	bc_steady st = { 0 };
	while (!bc_stop_requested) {
		uint64_t next = last + (uint64_t)(step * 1e9);
		if (wait_until(x, next < end ? next : end))
			break;		/* every worker is done */
		uint64_t now = bc_now_ns(), sum = 0;
		for (unsigned i = 0; i < x->nthreads; i++)
			sum += LD(x->t[i]->warm_events);
		if (n == cap) {
			cap *= 2;
			at = bc_xrealloc(at, cap + 1, sizeof(*at));
			ev = bc_xrealloc(ev, cap + 1, sizeof(*ev));
		}
		n++;
		at[n] = (double)(now - t0) / 1e9;
		ev[n] = (double)sum;
		last = now;
		bc_steady_counter(at, ev, n, BC_STEADY_WINDOW, BC_STEADY_DRIFT_PCT, BC_STEADY_SPREAD_PCT, &st,
				  &block);
		if (c->progress == 2 && !bc_quiet)
			fprintf(stderr, "\r[ warmup %.1fs of at most %gs ] thds: %u, %.0f/s", at[n], c->run.warmup_s,
				x->nthreads, (ev[n] - ev[n - 1]) / (at[n] - at[n - 1]));
		if (st.steady || now >= end)
			break;
	}
	free(at);
	free(ev);
	cj->warmup_s = (double)(bc_now_ns() - t0) / 1e9;
	cj->warmup_steady = st.steady;
	if (!st.steady && !bc_stop_requested)
		bc_case_add_warning(cj, "warmup = auto: no steady state within max_warmup; measured anyway");
}

/* Warmup, then the measured window with interval reports. */
static void measure(bench_ctx *x, bc_case_result *cj)
{
	const bc_case *c = x->c;
	bc_meas m;
	bc_meas_init(&m, x);
	/* nothing this case records can be longer than it can have run by the
	   end of its window (events-bounded: the watchdog's limit) */
	double left = c->run.warmup_s + (c->run.time_s > 0 ? c->run.time_s : 1800) + c->run.grace + 1;
	x->lat_cap = bc_now_ns() - x->case_t0 + (uint64_t)(left * 1e9);
	if (c->run.warmup_s > 0)
		phase_note(c, "warmup");
	uint64_t tw = bc_now_ns();
	/* the phase is named before the workers are let into it: a module's
	   signal from its first operation is then placed in it (a loaded
	   machine's worker ran before a later note, "in thread_init") */
	if (c->run.warmup_s <= 0) {
		window_mark(x, 1);
		phase_note(c, "measure");
	}
	set_phase(x, c->run.warmup_s > 0 ? PH_WARMUP : PH_MEASURE);
	if (c->run.warmup_s > 0 && c->run.warmup_auto) {
		auto_warmup(x, cj);
	} else if (c->run.warmup_s > 0) {
		if (c->progress == 2 && !bc_quiet)
			fprintf(bc_stderr(), "\r[ warmup %gs ] thds: %u", c->run.warmup_s, x->nthreads);
		wait_until(x, bc_now_ns() + (uint64_t)(c->run.warmup_s * 1e9));
	}
	if (c->run.warmup_s > 0) {
		probe_freq(x, cj, 0);	/* the end of warmup: the cores at the load's clock */
		window_mark(x, 1);
		phase_note(c, "measure");
		set_phase(x, PH_MEASURE);
	}
	x->t0 = m.last_t = bc_now_ns();
	bc_srvwatch sw;
	char sw_why[1100];
	bc_srvwatch_start(&sw, x);
	if (c->run.warmup_s > 0)
		phase_done(cj, BC_PH_WARMUP, tw);
	bc_meas_cpu(&m.cpu0, x);
	bc_meas_sample_mhz(&m);
	uint64_t end = c->run.time_s > 0 ? x->t0 + (uint64_t)(c->run.time_s * 1e9) : UINT64_MAX;
	uint64_t step = (uint64_t)(c->run.report_interval * 1e9), next = step ? x->t0 + step : UINT64_MAX;
	int all_done = 0;
	while (!all_done && !bc_stop_requested) {
		uint64_t until = next < end ? next : end;
		all_done = wait_until(x, until);
		uint64_t now = bc_now_ns();
		if (now >= next && !all_done) {
			bc_meas_tick(&m, x, next, 0);	/* tick at the planned time: no drift */
			next += step;
		}
		if (now >= end)
			break;
	}
	set_phase(x, PH_STOP);
	x->t1 = bc_now_ns();
	int sw_bad = bc_srvwatch_stop(&sw, (double)(x->t1 - x->t0) / 1e9, sw_why, sizeof(sw_why));
	bc_meas_cpu(&m.cpu1, x);
	if (all_done) {		/* events limit: the window ends with the last worker */
		x->t1 = x->t0;
		for (unsigned i = 0; i < x->nthreads; i++)
			if (x->t[i]->end_ns > x->t1)
				x->t1 = x->t[i]->end_ns;
	}
	for (unsigned i = 0; i < x->nthreads; i++)
		pthread_join(x->t[i]->tid, NULL);
	window_mark(x, 0);
	probe_freq(x, cj, 1);
	bc_meas_tick(&m, x, x->t1, 1);
	cj->duration_s = (double)(x->t1 - x->t0) / 1e9;
	for (unsigned i = 0; i < x->nthreads; i++)
		if (x->t[i]->run_rc != BENCH_OK) {	/* a worker gave up: its figures are not the system's */
			thread_failed(x, cj, "thread_run", i);
			break;
		}
	judge_threads(x, cj);
	if (sw_bad) {	/* a private server stalled or gone: whatever the module saw */
		bc_ctx_warn(x, sw_why);
		if (is_ok(cj))
			set_status(cj, "failed", "measure", sw_why);
	}
	budget_overrun(x, cj);
	if (x->win.set && is_ok(cj))	/* error() in the window, though every callback said ok */
		set_status(cj, "failed", "thread_run", why(x, "failed"));
	if (bc_stop_requested)
		set_status(cj, "interrupted", NULL, "interrupted by signal");
	cj->phases.s[BC_PH_MEASURE] = cj->duration_s;	/* the window itself, not the join after it */
	phase_note(c, "finish");
	uint64_t tf = bc_now_ns();
	x->in_finish = 1;
	int frc = x->d->finish ? x->d->finish(x->state) : BENCH_OK;
	x->in_finish = 0;
	if (x->d->finish)
		phase_done(cj, BC_PH_FINISH, tf);
	if (frc != BENCH_OK && !bc_stop_requested && is_ok(cj))	/* else the earlier failure is the reason */
		set_status(cj, "failed", "finish", why(x, "failed"));
	if (x->bad_metric[0] && is_ok(cj))
		set_status(cj, "failed", "finish", x->bad_metric);
	opt_misused(x, cj, "options");
	bc_meas_finish(&m, x, cj);
	error_budget(x, cj);
	bc_meas_free(&m);
}

static void stop_threads(bench_ctx *x, int can_join)
{
	set_phase(x, PH_STOP);
	for (unsigned i = 0; i < x->nthreads; i++)
		if (x->t[i] && x->t[i]->started && can_join)
			pthread_join(x->t[i]->tid, NULL);
}

/* prepare, with its progress line closed and its cost kept in the result. */
static int run_prepare(bench_ctx *x, bc_case_result *cj)
{
	uint64_t t0 = bc_now_ns();
	x->in_prepare = 1;
	int rc = x->d->prepare(x->state);
	x->in_prepare = 0;
	uint64_t t1 = bc_now_ns();
	if (x->prep.t0 && x->c->progress && !bc_quiet && (x->prep.open || x->c->progress == 1))
		bc_prep_print(x, t1, 1);
	cj->prepare.set = 1;
	cj->prepare.seconds = (double)(t1 - t0) / 1e9;
	cj->phases.set = 1;
	cj->phases.s[BC_PH_PREPARE] = cj->prepare.seconds;
	if (x->prep.t0) {
		cj->prepare.has_progress = 1;
		cj->prepare.done = x->prep.done;
		cj->prepare.total = x->prep.total;
		bc_case_set_str(&cj->prepare.unit, x->prep.unit);
	}
	return rc;
}

void bc_case_run(const bc_case *c, bc_case_result *cj)
{
	bench_ctx *x = bc_xcalloc(1, sizeof(*x));
	bc_case_header(c, "ok", NULL, cj);
	int rc, inited = 0, leaked = 0;
	x->c = c;
	x->case_t0 = bc_now_ns();
	x->d = &c->mod->desc;
	x->nops = c->mod->nops;
	x->ops = (const char **)c->mod->ops;
	x->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	x->nthreads = c->threads;
	x->t = bc_xcalloc(c->threads, sizeof(*x->t));
	x->limited = c->run.events > 0;
	x->events_left = c->run.events;
	x->gap_ns = c->run.rate > 0 ? 1e9 * c->threads / c->run.rate : 0;
	x->res = cj;
	x->opts = bc_opts_block(x->d, c->vals);
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->cond, NULL);

	peak_reset();
	phase_note(c, "init");
	uint64_t tp = bc_now_ns();
	x->in_init = 1;
	rc = x->d->init ? x->d->init(&bc_host_api, x, &x->state) : BENCH_OK;
	x->in_init = 0;
	if (x->d->init)
		phase_done(cj, BC_PH_INIT, tp);
	if (rc == BENCH_SKIP) {
		set_status(cj, "skipped", NULL, why(x, "the module skipped this case"));
		goto done;
	} else if (rc != BENCH_OK) {
		set_status(cj, "failed", "init", why(x, "failed"));
		goto done;
	}
	inited = 1;
	/* the libraries the module brought in, by file: a module fact beside
	   its own version calls (host "loaded" holds the core's) */
	char *libs = bc_loaded_after(c->mod->path);
	if (libs)
		bc_case_set_info(cj, "libraries_loaded", libs);
	free(libs);
	if (opt_misused(x, cj, "init") || c->cleanup_only)
		goto done;
	phase_note(c, "prepare");
	if (c->do_prepare && x->d->prepare && run_prepare(x, cj) != BENCH_OK) {
		set_status(cj, bc_stop_requested ? "interrupted" : "failed", "prepare", why(x, "failed"));
		goto done;
	}
	if (opt_misused(x, cj, "prepare"))
		goto done;
	if (bc_stop_requested) {
		set_status(cj, "interrupted", NULL, "interrupted by signal");
		goto done;
	}
	phase_note(c, "prepared");	/* the runner: later cases of this data point skip prepare */
	tp = bc_now_ns();
	rc = start_threads(x, cj);
	phase_done(cj, BC_PH_THREAD_INIT, tp);
	if (rc == 0) {
		measure(x, cj);
	} else {
		leaked = rc == -2;	/* a thread stuck in thread_init cannot be joined */
		stop_threads(x, !leaked);
	}
done:
	if (inited && (c->do_cleanup || c->cleanup_only || bc_stop_requested) && !c->run.keep &&
	    x->d->cleanup && !leaked) {
		phase_note(c, "cleanup");	/* the runner: this data point owes no cleanup */
		tp = bc_now_ns();
		x->d->cleanup(x->state);
		phase_done(cj, BC_PH_CLEANUP, tp);
	}
	if (inited && x->d->destroy && !leaked) {
		phase_note(c, "destroy");	/* a hang here is named "in destroy", with its own bound */
		tp = bc_now_ns();
		x->d->destroy(x->state);
		phase_done(cj, BC_PH_DESTROY, tp);
	}
	cj->peak_rss_bytes = peak_rss();
	if (x->first.set && is_ok(cj)) {
		error_went_on(x, x->first.count);
	} else if (x->win.set) {
		first_error(&x->win, cj);
		cj->error.count = x->first.count;
		if (x->pre_window)	/* a hiccup before the window, which went on */
			error_went_on(x, x->pre_window);
	} else if (x->first.set) {
		first_error(&x->first, cj);
	}
	compare_hints(x->d, cj);
	if (leaked) {
		/* a thread stuck in thread_init may still call the host: it gets a
		   result of its own to write into, never the caller's */
		pthread_mutex_lock(&x->lock);
		x->res = bc_xcalloc(1, sizeof(*x->res));
		bc_case_init(x->res);
		pthread_mutex_unlock(&x->lock);
	} else {
		for (unsigned i = 0; i < x->nthreads; i++)
			free(x->t[i]);
		free(x->t);
		pthread_mutex_destroy(&x->lock);
		pthread_cond_destroy(&x->cond);
		if (x->stop_fd >= 0)
			close(x->stop_fd);
		bc_strv_free(x->own_ops);
		for (unsigned i = 0; i < x->ndists; i++)
			free(x->dists[i].name);
		free(x->dists);
		free(x->fin_hist);
		free(x->opts);
		free(x);
	}
}
