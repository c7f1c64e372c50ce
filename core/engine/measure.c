/* Interval reports and the measured figures of a case, read from the
 * workers' counters. The main thread runs all of this; workers are either
 * still writing (interval ticks: relaxed loads, counts only grow) or joined
 * (bc_meas_finish). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/resource.h>
#include "engine_int.h"
#include "sysinfo.h"
#include "util.h"

void bc_meas_init(bc_meas *m, bench_ctx *x)
{
	memset(m, 0, sizeof(*m));
	m->prev_count = bc_xcalloc(x->nops, sizeof(uint64_t));
	m->prev_bytes = bc_xcalloc(x->nops, sizeof(uint64_t));
	m->prev_err = bc_xcalloc(x->nops, sizeof(uint64_t));
	m->prev_hist = bc_xcalloc(x->nops, sizeof(bc_hist));
	m->cur_hist = bc_xcalloc(1, sizeof(bc_hist));
	m->tmp_hist = bc_xcalloc(2, sizeof(bc_hist));
}

void bc_meas_free(bc_meas *m)
{
	free(m->prev_count);
	free(m->prev_bytes);
	free(m->prev_err);
	free(m->prev_hist);
	free(m->cur_hist);
	free(m->tmp_hist);
	bc_case_result left = { .intervals = m->iv, .nintervals = m->niv };	/* a case that never finished */
	bc_case_drop_intervals(&left);
}

/* "0-3,6" of a set, into buf. */
static void cpulist(const cpu_set_t *set, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < CPU_SETSIZE && o < n; i++) {
		if (!CPU_ISSET(i, set))
			continue;
		int j = i;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set))
			j++;
		o += (size_t)(j > i ? snprintf(buf + o, n - o, "%s%d-%d", o ? "," : "", i, j)
				    : snprintf(buf + o, n - o, "%s%d", o ? "," : "", i));
		i = j;
	}
}

/* /proc/stat: the machine's "cpu" line, and the "cpuN" lines of the CPUs
   in set summed. "cpu user nice system idle iowait irq softirq steal ..."
   (guest time is inside user already). */
static void read_proc_stat(struct bc_cpu_snap *c, const cpu_set_t *set)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v[8], tot = 0;
		int cpu = -1, got;
		if (strncmp(line, "cpu", 3) != 0)
			break;	/* the cpu lines come first */
		if (line[3] == ' ')
			got = sscanf(line + 3, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
				     &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		else
			got = sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
				     &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) - 1;
		if (got != 8)
			continue;
		for (int i = 0; i < 8; i++)
			tot += v[i];
		unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6];	/* user nice system irq softirq */
		if (cpu < 0) {
			c->total = tot, c->steal = v[7], c->busy = busy;
			c->have_stat = 1;
		} else if (set && cpu < CPU_SETSIZE && CPU_ISSET(cpu, set)) {
			c->set_total += tot, c->set_steal += v[7], c->set_busy += busy;
			c->set_n++;
		}
	}
	if (f)
		fclose(f);
}

void bc_meas_cpu(struct bc_cpu_snap *c, const bench_ctx *x)
{
	struct rusage ru;
	cpu_set_t set;
	int have_set = sched_getaffinity(0, sizeof(set), &set) == 0;
	memset(c, 0, sizeof(*c));
	if (have_set)
		cpulist(&set, c->set_list, sizeof(c->set_list));
	if (x && x->ndeclared)
		c->server = bc_declared_ticks_on(x, have_set ? &set : NULL, &c->server_set);
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		c->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		c->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	read_proc_stat(c, have_set ? &set : NULL);
	if (have_set && c->set_n != (unsigned)CPU_COUNT(&set))
		c->set_n = 0;	/* a CPU of the set without its line: unknown */
}

/* The share of the machine's CPU time that processes other than this one
   and the run's own (declared processes, private servers) used in the
   window: its busy ticks less our own CPU time and theirs. */
static double other_pct(const struct bc_cpu_snap *a, const struct bc_cpu_snap *b)
{
	double hz = (double)sysconf(_SC_CLK_TCK);
	double total = (double)(b->total - a->total);
	double own = (b->user_s - a->user_s + b->sys_s - a->sys_s) * (hz > 0 ? hz : 100);
	double server = b->server > a->server ? (double)(b->server - a->server) : 0;
	double other = (double)(b->busy - a->busy) - own - server;
	if (total <= 0 || other <= 0)
		return 0;
	return 100.0 * other / total;
}

/* The declared processes' CPU over the window: seconds, share of the
   machine, and per operation of the case (server CPU per request, per
   transaction: what a local server costs besides the client). */
static void server_figures(const struct bc_cpu_snap *a, const struct bc_cpu_snap *b,
			   const bench_ctx *x, uint64_t ops, bc_case_result *r)
{
	double hz = (double)sysconf(_SC_CLK_TCK);
	double ticks = b->server > a->server ? (double)(b->server - a->server) : 0;
	if (!x->ndeclared)
		return;
	r->cpu.server_s = ticks / (hz > 0 ? hz : 100);
	if (a->have_stat && b->have_stat && b->total > a->total)
		r->cpu.server_pct = 100.0 * ticks / (double)(b->total - a->total);
	if (ops)
		r->cpu.server_us_per_op = r->cpu.server_s * 1e6 / (double)ops;
	char *names = bc_declared_names(x);
	bc_case_set_str(&r->cpu.servers, names);
	free(names);
}

/* Interference where the case ran: on the CPUs it could run on (the
   affinity mask at the window's start and end, the same set), the share of
   their time the hypervisor took (steal) and other processes took (their
   busy ticks less the case's own CPU time and its declared processes'
   that could run there). All of the case's CPU time was spent on the set. */
static void set_figures(const struct bc_cpu_snap *a, const struct bc_cpu_snap *b, bc_case_result *r)
{
	double hz = (double)sysconf(_SC_CLK_TCK);
	if (!a->set_n || a->set_n != b->set_n || strcmp(a->set_list, b->set_list) ||
	    b->set_total <= a->set_total)
		return;
	double total = (double)(b->set_total - a->set_total);
	double own = (b->user_s - a->user_s + b->sys_s - a->sys_s) * (hz > 0 ? hz : 100);
	double server = b->server_set > a->server_set ? (double)(b->server_set - a->server_set) : 0;
	double other = (double)(b->set_busy - a->set_busy) - own - server;
	double steal = (double)(b->set_steal - a->set_steal);
	bc_case_set_str(&r->cpu.cpus, a->set_list);
	r->cpu.cpus_n = (long)a->set_n;
	r->cpu.cpus_steal_pct = 100.0 * steal / total;
	r->cpu.cpus_other_pct = other > 0 ? 100.0 * other / total : 0;
	r->cpu.interference_pct = r->cpu.cpus_steal_pct + r->cpu.cpus_other_pct;
	r->cpu.cpus_use = own / total;
	if (r->cpu.cpus_use > 1)
		r->cpu.cpus_use = 1;	/* tick rounding */
}

/* Load on the case's own CPUs is what can slow it; load elsewhere is
   recorded (other_pct) and named only for what CPUs share (memory). */
static void interference_warning(bench_ctx *x, const bc_case_result *r)
{
	char w[400];
	if (isnan(r->cpu.interference_pct)) {
		if (r->cpu.other_pct < 5)
			return;
		snprintf(w, sizeof(w), "other processes used %.1f%% of the machine's CPU time "
			 "during the measured window: this case competed with them%s", r->cpu.other_pct,
			 x->ndeclared ? "" : " (a local server of the workload counts as other unless "
			 "its module declares it)");
	} else if (r->cpu.interference_pct >= 5) {
		snprintf(w, sizeof(w), "steal and other processes took %.1f%% of the time of the CPUs "
			 "this case could run on (%s) during the measured window: it competed with them, "
			 "and compare weighs that against any slowdown%s", r->cpu.interference_pct, r->cpu.cpus,
			 x->ndeclared ? "" : " (a local server of the workload counts as other unless "
			 "its module declares it)");
	} else {
		return;
	}
	bc_ctx_warn(x, w);
}

/* What the window cost in CPU time, and what the hypervisor took (steal):
   rates divided by wall-clock time fall when a host preempts the guest,
   rates per CPU second (what some reference tools print) do not. */
static void cpu_figures(bc_meas *m, bench_ctx *x, double secs, uint64_t ops, bc_case_result *r)
{
	const struct bc_cpu_snap *a = &m->cpu0, *b = &m->cpu1;
	r->cpu.set = 1;
	server_figures(a, b, x, ops, r);
	r->cpu.user_s = b->user_s - a->user_s;
	r->cpu.sys_s = b->sys_s - a->sys_s;
	if (secs > 0)
		r->cpu.utilization = (b->user_s - a->user_s + b->sys_s - a->sys_s) / secs;
	if (a->have_stat && b->have_stat && b->total > a->total) {
		double pct = 100.0 * (double)(b->steal - a->steal) / (double)(b->total - a->total);
		r->cpu.steal_pct = pct;
		if (pct >= 5) {
			char w[256];
			snprintf(w, sizeof(w), "the hypervisor took %.1f%% of the machine's CPU time "
				 "(steal) during the measured window: rates per wall-clock second are "
				 "low by about that much and vary between runs", pct);
			bc_ctx_warn(x, w);
		}
		r->cpu.other_pct = other_pct(a, b);
		set_figures(a, b, r);
		interference_warning(x, r);
	}
}

void bc_meas_sample_mhz(bc_meas *m)
{
	double mhz = bc_sysinfo_cpu_mhz();
	if (mhz > 0) {
		m->mhz_sum += mhz;
		m->mhz_n++;
	}
}

static void print_tick(bc_meas *m, bench_ctx *x, double t, const char *line)
{
	const bc_case *c = x->c;
	if (bc_quiet || !c->progress)
		return;
	if (c->progress == 2) {
		if (c->run.time_s > 0)
			fprintf(bc_stderr(), "\r\033[K[ %gs/%gs ] %s", t, c->run.time_s, line);
		else
			fprintf(bc_stderr(), "\r\033[K[ %gs ] %s", t, line);
		m->progress_open = 1;
	} else {
		fprintf(bc_stderr(), "[ %gs ] %s\n", t, line);
	}
}

void bc_meas_tick(bc_meas *m, bench_ctx *x, uint64_t now, int final)
{
	const bc_case *c = x->c;
	double dt = (double)(now - m->last_t) / 1e9, step = c->run.report_interval;
	bc_hist *all = &m->tmp_hist[1];
	if (final && m->progress_open) {
		fputc('\n', bc_stderr());
		m->progress_open = 0;
	}
	if (step <= 0 || dt <= 0 || (final && dt < 0.25 * step))
		return;	/* a short remainder says nothing about stability */
	char line[1024];
	uint64_t n_all = 0, e_all = 0;
	size_t o = 0;
	if (m->niv == m->civ) {
		m->civ = m->civ ? 2 * m->civ : 16;
		m->iv = bc_xrealloc(m->iv, m->civ, sizeof(*m->iv));
	}
	bc_cr_interval *iv = &m->iv[m->niv];
	*iv = (bc_cr_interval){ .ops = bc_xcalloc(x->nops ? x->nops : 1, sizeof(bc_cr_iop)), .nops = x->nops };
	memset(all, 0, sizeof(*all));
	o += (size_t)snprintf(line, sizeof(line), "thds: %u", x->nthreads);
	size_t mid = o;	/* eps and latency go here, after the totals are known */
	char opsbuf[700] = "";
	size_t oo = 0;
	for (unsigned k = 0; k < x->nops; k++) {
		uint64_t cnt = 0, by = 0, er = 0;
		memset(m->cur_hist, 0, sizeof(bc_hist));
		for (unsigned i = 0; i < x->nthreads; i++) {
			cnt += LD(x->t[i]->ops[k].count);
			by += LD(x->t[i]->ops[k].bytes);
			er += LD(x->t[i]->ops[k].errors);
			bc_hist_merge(m->cur_hist, &x->t[i]->ops[k].hist);
		}
		uint64_t dc = cnt - m->prev_count[k], db = by - m->prev_bytes[k];
		n_all += dc;
		e_all += er - m->prev_err[k];
		bc_hist_diff(&m->tmp_hist[0], m->cur_hist, &m->prev_hist[k]);
		bc_hist_merge(all, &m->tmp_hist[0]);
		m->prev_hist[k] = *m->cur_hist;
		m->prev_count[k] = cnt;
		m->prev_bytes[k] = by;
		m->prev_err[k] = er;
		iv->ops[k] = (bc_cr_iop){ bc_xstrdup(x->ops[k]), dc / dt, db ? db / dt / 1048576.0 : NAN };
		/* op classes the module has not used so far are left out of the line */
		if ((x->nops > 1 || db) && (cnt || er)) {
			oo += (size_t)snprintf(opsbuf + oo, sizeof(opsbuf) - oo, " %s: %.2f/s", x->ops[k], dc / dt);
			if (db && oo < sizeof(opsbuf))
				oo += (size_t)snprintf(opsbuf + oo, sizeof(opsbuf) - oo, " %.2f MiB/s", db / dt / 1048576.0);
		}
		if (oo >= sizeof(opsbuf))
			oo = sizeof(opsbuf) - 1;
	}
	double p95 = (double)bc_hist_percentile(all, 95, 0, UINT64_MAX) / 1e6;
	snprintf(line + mid, sizeof(line) - mid, " eps: %.2f lat (ms, p95): %.3f err/s: %.2f%s",
		 n_all / dt, p95, e_all / dt, opsbuf);
	double t = (double)(now - x->t0) / 1e9;
	iv->t = t;
	iv->events_per_sec = n_all / dt;
	iv->p95_ms = p95;
	iv->errors_per_sec = e_all / dt;
	m->niv++;
	m->last_t = now;
	bc_meas_sample_mhz(m);
	if (!final)
		print_tick(m, x, round(t * 1000) / 1000, line);
}

static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, q = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / n : 0;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = n ? sqrt(q / n) : 0;	/* the threads are the whole population */
}

void bc_meas_latency(bench_ctx *x, unsigned k, bc_hist *h, uint64_t *count, bc_cr_latency *out)
{
	uint64_t cnt = 0, sum = 0, mn = UINT64_MAX, mx = 0;
	double sq = 0;
	memset(h, 0, sizeof(*h));
	for (unsigned i = 0; i < x->nthreads; i++) {
		const bc_opstat *s = &x->t[i]->ops[k];
		cnt += s->count;
		sum += s->lat_sum;
		sq += s->lat_sq;
		if (s->count && s->min < mn)
			mn = s->min;
		if (s->max > mx)
			mx = s->max;
		bc_hist_merge(h, &s->hist);
	}
	if (!cnt)
		mn = 0;
	double mean = cnt ? (double)sum / cnt : 0;
	double var = cnt > 1 ? (sq - (double)cnt * mean * mean) / (double)(cnt - 1) : 0;
	*out = (bc_cr_latency){ .set = 1, .min = (double)mn, .mean = mean, .max = (double)mx,
				.stddev = var > 0 ? sqrt(var) : 0.0, .npct = x->c->npct,
				.pct = bc_xcalloc(x->c->npct ? x->c->npct : 1, sizeof(bc_cr_pct)) };
	for (size_t i = 0; i < x->c->npct; i++)
		out->pct[i] = (bc_cr_pct){ bc_xasprintf("p%g", x->c->pct[i]),
					   (double)bc_hist_percentile(h, x->c->pct[i], mn, mx) };
	*count = cnt;
}

/* Error counts by kind over the threads; kinds past a thread's table fold
   into "other", whose first kind is named so nothing is silently lost. */
static void add_kind(bc_cr_op *o, const char *kind, uint64_t n)
{
	for (size_t i = 0; i < o->nkinds; i++)
		if (!strcmp(o->kinds[i].kind, kind)) {
			o->kinds[i].n += n;
			return;
		}
	o->kinds = bc_xrealloc(o->kinds, o->nkinds + 1, sizeof(*o->kinds));
	o->kinds[o->nkinds++] = (bc_cr_count){ bc_xstrdup(kind), n };
}

static void error_kinds(bench_ctx *x, unsigned k, bc_cr_op *o)
{
	uint64_t other = 0;
	const char *first = NULL;
	o->has_kinds = 1;
	for (unsigned i = 0; i < x->nthreads; i++) {
		for (unsigned j = 0; j < MAX_ERR_KINDS; j++) {
			const bc_errkind *ek = &x->t[i]->errk[j];
			if (ek->kind && ek->op == k)
				add_kind(o, ek->kind, ek->n);
		}
		other += x->t[i]->ops[k].other_errors;
		if (!first)
			first = x->t[i]->ops[k].other_first;
	}
	if (other) {
		add_kind(o, "other", other);
		o->folded = other;
		o->folded_first = bc_xstrdup(first ? first : "error");
	}
}

static void op_figures(bench_ctx *x, unsigned k, double secs, bc_hist *h, bc_cr_op *o)
{
	o->name = bc_xstrdup(x->ops[k]);
	bc_meas_latency(x, k, h, &o->count, &o->lat);
	if (o->count) {	/* kept, so hosts' and repeats' percentiles merge (docs/results.md) */
		bc_hist_code c;
		bc_hist_encode(h, &c);
		o->hist = bc_hist_code_text(&c);
		o->hist_count = c.total;
		bc_hist_code_free(&c);
	}
	for (unsigned i = 0; i < x->nthreads; i++) {
		o->bytes += x->t[i]->ops[k].bytes;
		o->errors += x->t[i]->ops[k].errors;
	}
	o->per_sec = secs > 0 ? o->count / secs : 0.0;
	error_kinds(x, k, o);
	for (unsigned d = 0; d < x->ndists; d++) {
		if (x->dists[d].op != k)
			continue;
		o->dists = bc_xrealloc(o->dists, o->ndists + 1, sizeof(*o->dists));
		bc_cr_dist *dd = &o->dists[o->ndists++];
		*dd = (bc_cr_dist){ .name = bc_xstrdup(x->dists[d].name) };
		bc_meas_latency(x, x->nops + d, h, &dd->count, &dd->lat);
	}
}

static void fairness(bench_ctx *x, bc_case_result *r)
{
	double *ev = bc_xcalloc(x->nthreads, sizeof(double));
	double *busy = bc_xcalloc(x->nthreads, sizeof(double));
	double em, esd, bm, bsd;
	for (unsigned i = 0; i < x->nthreads; i++)
		for (unsigned k = 0; k < x->nops; k++) {
			ev[i] += (double)x->t[i]->ops[k].count;
			busy[i] += (double)x->t[i]->ops[k].lat_sum / 1e9;
		}
	double emin = x->nthreads ? ev[0] : 0, emax = emin;
	for (unsigned i = 1; i < x->nthreads; i++) {
		emin = ev[i] < emin ? ev[i] : emin;
		emax = ev[i] > emax ? ev[i] : emax;
	}
	mean_sd(ev, x->nthreads, &em, &esd);
	mean_sd(busy, x->nthreads, &bm, &bsd);
	free(ev);
	free(busy);
	/* min and max show a starved thread, which oversubscription can make */
	r->fairness.set = 1;
	r->fairness.events_mean = em;
	r->fairness.events_stddev = esd;
	r->fairness.events_cv = em > 0 ? esd / em : 0.0;
	r->fairness.events_min = emin;
	r->fairness.events_max = emax;
	r->fairness.busy_mean_s = bm;
	r->fairness.busy_stddev_s = bsd;
}

static void stability(bc_meas *m, bc_case_result *r)
{
	size_t n = m->niv;
	double *v = bc_xcalloc(n ? n : 1, sizeof(double)), mean, sd;
	for (size_t i = 0; i < n; i++)
		v[i] = m->iv[i].events_per_sec;
	mean_sd(v, n, &mean, &sd);
	free(v);
	/* sample stddev over intervals: they are a sample of the system's behaviour */
	double cv = n > 1 && mean > 0 ? sd * sqrt((double)n / (double)(n - 1)) / mean : 0;
	r->stability.set = 1;
	r->stability.interval_cv = n > 1 ? cv : NAN;
	r->stability.intervals = (long)n;
}

static void open_loop(bench_ctx *x, bc_case_result *r)
{
	uint64_t late = 0, lag = 0;
	for (unsigned i = 0; i < x->nthreads; i++) {
		late += x->t[i]->late;
		if (x->t[i]->max_lag > lag)
			lag = x->t[i]->max_lag;
	}
	r->open_loop.set = 1;
	r->open_loop.rate = x->c->run.rate;
	bc_case_set_str(&r->open_loop.arrival, x->c->run.arrival_fixed ? "fixed" : "poisson");
	r->open_loop.late_starts = late;
	r->open_loop.max_lag_ms = (double)lag / 1e6;
	r->open_loop.max_queue = (uint64_t)(x->gap_ns > 0 ? (double)lag / x->gap_ns * x->nthreads : 0);
}

void bc_meas_finish(bc_meas *m, bench_ctx *x, bc_case_result *r)
{
	double secs = (double)(x->t1 - x->t0) / 1e9;
	uint64_t total = 0;
	r->ops = bc_xcalloc(x->nops ? x->nops : 1, sizeof(*r->ops));
	r->nops = x->nops;
	for (unsigned k = 0; k < x->nops; k++) {
		op_figures(x, k, secs, m->cur_hist, &r->ops[k]);
		total += r->ops[k].count;
	}
	pthread_mutex_lock(&x->lock);
	bc_case_set_metric(r, "events_per_sec", "events/s", secs > 0 ? total / secs : 0.0, 1);
	pthread_mutex_unlock(&x->lock);
	fairness(x, r);
	stability(m, r);
	if (x->gap_ns > 0)
		open_loop(x, r);
	if (m->mhz_n)
		r->cpu_mhz_mean = m->mhz_sum / m->mhz_n;
	cpu_figures(m, x, secs, total, r);
	r->intervals = m->iv;	/* moved: the result owns the series now */
	r->nintervals = m->niv;
	r->has_intervals = 1;
	m->iv = NULL;
	m->niv = m->civ = 0;
}
