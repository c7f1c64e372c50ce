/* Interval reports and the measured figures of a case, read from the
 * workers' counters. The main thread runs all of this; workers are either
 * still writing (interval ticks: relaxed loads, counts only grow) or joined
 * (bc_meas_finish). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	m->intervals = json_array();
}

void bc_meas_free(bc_meas *m)
{
	free(m->prev_count);
	free(m->prev_bytes);
	free(m->prev_err);
	free(m->prev_hist);
	free(m->cur_hist);
	free(m->tmp_hist);
	json_decref(m->intervals);
}

void bc_meas_cpu(struct bc_cpu_snap *c)
{
	struct rusage ru;
	memset(c, 0, sizeof(*c));
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		c->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		c->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	/* "cpu user nice system idle iowait irq softirq steal ..." */
	FILE *f = fopen("/proc/stat", "re");
	unsigned long long v[8];
	if (f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			&v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			c->total += v[i];
		c->steal = v[7];
		c->busy = v[0] + v[1] + v[2] + v[5] + v[6];	/* user nice system irq softirq */
		c->have_stat = 1;
	}
	if (f)
		fclose(f);
}

/* The share of the machine's CPU time that processes other than this one
   used in the window: its busy ticks less our own CPU time. */
static double other_pct(const struct bc_cpu_snap *a, const struct bc_cpu_snap *b)
{
	double hz = (double)sysconf(_SC_CLK_TCK);
	double total = (double)(b->total - a->total);
	double own = (b->user_s - a->user_s + b->sys_s - a->sys_s) * (hz > 0 ? hz : 100);
	double other = (double)(b->busy - a->busy) - own;
	if (total <= 0 || other <= 0)
		return 0;
	return 100.0 * other / total;
}

/* What the window cost in CPU time, and what the hypervisor took (steal):
   rates divided by wall-clock time fall when a host preempts the guest,
   rates per CPU second (what some reference tools print) do not. */
static json_t *cpu_json(bc_meas *m, bench_ctx *x, double secs)
{
	const struct bc_cpu_snap *a = &m->cpu0, *b = &m->cpu1;
	json_t *o = json_pack("{s:f, s:f}", "user_s", b->user_s - a->user_s, "sys_s", b->sys_s - a->sys_s);
	if (secs > 0)
		json_object_set_new(o, "utilization", json_real((b->user_s - a->user_s + b->sys_s - a->sys_s) / secs));
	if (a->have_stat && b->have_stat && b->total > a->total) {
		double pct = 100.0 * (double)(b->steal - a->steal) / (double)(b->total - a->total);
		json_object_set_new(o, "steal_pct", json_real(pct));
		if (pct >= 5) {
			char w[256];
			snprintf(w, sizeof(w), "the hypervisor took %.1f%% of the machine's CPU time "
				 "(steal) during the measured window: rates per wall-clock second are "
				 "low by about that much and vary between runs", pct);
			bc_ctx_warn(x, w);
		}
		json_object_set_new(o, "other_pct", json_real(other_pct(a, b)));
		if (other_pct(a, b) >= 5) {
			char w[256];
			snprintf(w, sizeof(w), "other processes used %.1f%% of the machine's CPU time "
				 "during the measured window: this case competed with them, and a "
				 "comparison of it is suspect", other_pct(a, b));
			bc_ctx_warn(x, w);
		}
	}
	return o;
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
			fprintf(stderr, "\r\033[K[ %gs/%gs ] %s", t, c->run.time_s, line);
		else
			fprintf(stderr, "\r\033[K[ %gs ] %s", t, line);
		m->progress_open = 1;
	} else {
		fprintf(stderr, "[ %gs ] %s\n", t, line);
	}
}

void bc_meas_tick(bc_meas *m, bench_ctx *x, uint64_t now, int final)
{
	const bc_case *c = x->c;
	double dt = (double)(now - m->last_t) / 1e9, step = c->run.report_interval;
	bc_hist *all = &m->tmp_hist[1];
	if (final && m->progress_open) {
		fputc('\n', stderr);
		m->progress_open = 0;
	}
	if (step <= 0 || dt <= 0 || (final && dt < 0.25 * step))
		return;	/* a short remainder says nothing about stability */
	char line[1024];
	uint64_t n_all = 0, e_all = 0;
	size_t o = 0;
	json_t *ops = json_object();
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
		json_t *oj = json_pack("{s:f}", "per_sec", dc / dt);
		if (db)
			json_object_set_new(oj, "mib_per_sec", json_real(db / dt / 1048576.0));
		json_object_set_new(ops, x->ops[k], oj);
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
	json_array_append_new(m->intervals, json_pack("{s:f, s:f, s:f, s:f, s:o}", "t", t,
		"events_per_sec", n_all / dt, "p95_ms", p95, "errors_per_sec", e_all / dt, "ops", ops));
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

json_t *bc_meas_latency_json(bench_ctx *x, unsigned k, bc_hist *h, uint64_t *count)
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
	json_t *lat = json_pack("{s:I, s:f, s:I, s:f}", "min", (json_int_t)mn, "mean", mean,
				"max", (json_int_t)mx, "stddev", var > 0 ? sqrt(var) : 0.0);
	for (size_t i = 0; i < x->c->npct; i++) {
		char key[32];
		snprintf(key, sizeof(key), "p%g", x->c->pct[i]);
		json_object_set_new(lat, key, json_integer((json_int_t)bc_hist_percentile(h, x->c->pct[i], mn, mx)));
	}
	*count = cnt;
	return lat;
}

/* Error counts by kind over the threads; kinds past a thread's table fold
   into "other", whose first kind is named so nothing is silently lost. */
static json_t *error_kinds_json(bench_ctx *x, unsigned k, json_t *oj)
{
	json_t *kinds = json_object();
	uint64_t other = 0;
	const char *first = NULL;
	for (unsigned i = 0; i < x->nthreads; i++) {
		for (unsigned j = 0; j < MAX_ERR_KINDS; j++) {
			const bc_errkind *ek = &x->t[i]->errk[j];
			if (ek->kind && ek->op == k) {
				json_t *prev = json_object_get(kinds, ek->kind);
				json_object_set_new(kinds, ek->kind,
					json_integer((prev ? json_integer_value(prev) : 0) + (json_int_t)ek->n));
			}
		}
		other += x->t[i]->ops[k].other_errors;
		if (!first)
			first = x->t[i]->ops[k].other_first;
	}
	if (other) {
		json_t *prev = json_object_get(kinds, "other");
		json_object_set_new(kinds, "other", json_integer((prev ? json_integer_value(prev) : 0) +
								 (json_int_t)other));
		json_object_set_new(oj, "error_kinds_folded", json_pack("{s:I, s:s}", "count",
			(json_int_t)other, "first_kind", first ? first : "error"));
	}
	return kinds;
}

static json_t *op_json(bench_ctx *x, unsigned k, double secs, bc_hist *h)
{
	uint64_t cnt = 0, by = 0, er = 0;
	json_t *lat = bc_meas_latency_json(x, k, h, &cnt);
	for (unsigned i = 0; i < x->nthreads; i++) {
		by += x->t[i]->ops[k].bytes;
		er += x->t[i]->ops[k].errors;
	}
	json_t *oj = json_pack("{s:I, s:I, s:I, s:f, s:o}", "count", (json_int_t)cnt, "errors",
			       (json_int_t)er, "bytes", (json_int_t)by, "per_sec",
			       secs > 0 ? cnt / secs : 0.0, "latency_ns", lat);
	json_object_set_new(oj, "error_kinds", error_kinds_json(x, k, oj));
	json_t *dists = NULL;
	for (unsigned d = 0; d < x->ndists; d++) {
		if (x->dists[d].op != k)
			continue;
		uint64_t n;
		json_t *dl = bc_meas_latency_json(x, x->nops + d, h, &n);
		if (!dists)
			dists = json_object();
		json_object_set_new(dists, x->dists[d].name, json_pack("{s:I, s:o}", "count",
			(json_int_t)n, "latency_ns", dl));
	}
	if (dists)
		json_object_set_new(oj, "dists", dists);
	return oj;
}

static json_t *fairness_json(bench_ctx *x)
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
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "events_mean", em, "events_stddev", esd,
			 "events_cv", em > 0 ? esd / em : 0.0, "events_min", emin, "events_max", emax,
			 "busy_mean_s", bm, "busy_stddev_s", bsd);
}

static json_t *stability_json(bc_meas *m)
{
	size_t n = json_array_size(m->intervals);
	double *v = bc_xcalloc(n, sizeof(double)), mean, sd;
	for (size_t i = 0; i < n; i++)
		v[i] = json_real_value(json_object_get(json_array_get(m->intervals, i), "events_per_sec"));
	mean_sd(v, n, &mean, &sd);
	free(v);
	/* sample stddev over intervals: they are a sample of the system's behaviour */
	double cv = n > 1 && mean > 0 ? sd * sqrt((double)n / (double)(n - 1)) / mean : 0;
	return n > 1 ? json_pack("{s:f, s:i}", "interval_cv", cv, "intervals", (json_int_t)n)
		     : json_pack("{s:n, s:i}", "interval_cv", "intervals", (json_int_t)n);
}

static json_t *open_loop_json(bench_ctx *x)
{
	uint64_t late = 0, lag = 0;
	for (unsigned i = 0; i < x->nthreads; i++) {
		late += x->t[i]->late;
		if (x->t[i]->max_lag > lag)
			lag = x->t[i]->max_lag;
	}
	return json_pack("{s:f, s:s, s:I, s:f, s:I}", "rate", x->c->run.rate, "arrival",
			 x->c->run.arrival_fixed ? "fixed" : "poisson", "late_starts", (json_int_t)late,
			 "max_lag_ms", (double)lag / 1e6, "max_queue",
			 (json_int_t)(x->gap_ns > 0 ? (double)lag / x->gap_ns * x->nthreads : 0));
}

void bc_meas_finish(bc_meas *m, bench_ctx *x, json_t *cj)
{
	double secs = (double)(x->t1 - x->t0) / 1e9;
	json_t *ops = json_object();
	uint64_t total = 0;
	for (unsigned k = 0; k < x->nops; k++) {
		json_t *oj = op_json(x, k, secs, m->cur_hist);
		total += (uint64_t)json_integer_value(json_object_get(oj, "count"));
		json_object_set_new(ops, x->ops[k], oj);
	}
	json_object_set_new(cj, "ops", ops);
	json_object_set_new(x->metrics, "events_per_sec", json_pack("{s:f, s:s, s:b}", "value",
		secs > 0 ? total / secs : 0.0, "unit", "events/s", "higher_is_better", 1));
	json_object_set_new(cj, "fairness", fairness_json(x));
	json_object_set_new(cj, "stability", stability_json(m));
	if (x->gap_ns > 0)
		json_object_set_new(cj, "open_loop", open_loop_json(x));
	if (m->mhz_n)
		json_object_set_new(cj, "cpu_mhz_mean", json_real(m->mhz_sum / m->mhz_n));
	json_object_set_new(cj, "cpu", cpu_json(m, x, secs));
	json_object_set(cj, "intervals", m->intervals);
}
