/* Reader for result files: validate, then fold cases[] into groups.
   The rules: a field the reader needs and that has the wrong type is an
   error naming the field (the file is not what benchcore writes); a field
   that is absent is skipped (older writers, failed cases). Unknown fields
   are ignored, as docs/results.md promises. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "options.h"
#include "results.h"
#include "rundoc.h"
#include "stats.h"
#include "util.h"

/* Names and labels as read keep every printable character; control
   characters and direction overrides become visible escapes, so no file can
   forge or hide a line of compare's output or reverse report's page. */
static char *shown(const char *s)
{
	return bc_printable(s ? s : "");
}

/* A label as every view shows it: printable, and at most BC_LABEL_SHOWN
   bytes (cut at a character's start, an ellipsis after), since the tables,
   legends and headings each name it: a 200 KB label would be repeated in
   all of them. */
#define BC_LABEL_SHOWN	200
char *bc_label_shown(const char *s)
{
	char *p = shown(s);
	size_t cut = BC_LABEL_SHOWN;
	if (strlen(p) <= cut + 3)
		return p;
	while (cut > 0 && ((unsigned char)p[cut] & 0xC0) == 0x80)
		cut--;
	memcpy(p + cut, "\xe2\x80\xa6", 4);	/* U+2026 and the end */
	return p;
}

static void push_value(bc_rmetric *m, double v)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 4;
		m->values = bc_xrealloc(m->values, m->cap, sizeof(*m->values));
	}
	m->values[m->n++] = v;
}

static bc_rmetric *group_metric(bc_rgroup *g, const char *name, const char *unit,
				int hib, int kind)
{
	char *nm = shown(name);
	for (size_t i = 0; i < g->nmetrics; i++)
		if (strcmp(g->metrics[i].name, nm) == 0) {
			free(nm);
			return &g->metrics[i];
		}
	free(nm);
	if (g->nmetrics == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 8;
		g->metrics = bc_xrealloc(g->metrics, g->cap, sizeof(*g->metrics));
	}
	bc_rmetric *m = &g->metrics[g->nmetrics++];
	*m = (bc_rmetric){ .name = shown(name), .unit = shown(unit),
			   .higher_is_better = hib, .kind = kind, .compared = 1 };
	return m;
}

char *bc_params_text(json_t *params)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *k;
	json_t *v;
	int first = 1;

	if (!f)
		abort();
	json_object_foreach(params, k, v) {
		fprintf(f, "%s%s=", first ? "" : " ", k);
		first = 0;
		char *s = bc_json_text(v);	/* 0.2, not 0.20000000000000001 */
		fputs(s, f);
		free(s);
	}
	fclose(f);
	return buf;
}

/* The index key of a group: module, threads and params, in one string. */
static char *group_key(const char *module, const char *params_key, long threads)
{
	size_t n = strlen(module) + strlen(params_key) + 32;
	char *k = bc_xrealloc(NULL, n, 1);
	snprintf(k, n, "%s\n%ld\n%s", module, threads, params_key);
	return k;
}

static char *params_shown(json_t *params)
{
	char *t = bc_params_text(params), *p = shown(t);
	free(t);
	return p;
}

static bc_rgroup *find_or_add_group(bc_results *r, const char *module,
				    json_t *params, char *const *placement, long threads)
{
	char *key = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);

	if (!key)
		abort();
	if (!r->index)
		r->index = json_object();
	char *ik = group_key(module, key, threads);
	json_t *at = json_object_get(r->index, ik);
	if (at) {	/* a hash lookup: reading stays linear in the number of cases */
		free(ik);
		free(key);
		return &r->groups[json_integer_value(at)];
	}
	json_object_set_new(r->index, ik, json_integer((json_int_t)r->ngroups));
	free(ik);
	if (r->ngroups == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->groups = bc_xrealloc(r->groups, r->cap, sizeof(*r->groups));
	}
	bc_rgroup *g = &r->groups[r->ngroups++];
	*g = (bc_rgroup){ .module = shown(module), .params_key = key,
			  .params_text = params_shown(params), .threads = threads,
			  .thresholds = json_object(), .steal_max = -1, .other_max = -1,
			  .placement = json_array() };
	for (char *const *p = placement; p && *p; p++)
		json_array_append_new(g->placement, json_string(*p));
	return g;
}

static void add_latency(bc_rgroup *g, const bc_cr_op *o)
{
	if (!o->count || !o->lat.set)
		return;	/* an op class that never ran has no latency */
	for (size_t i = 0; i < o->lat.npct; i++) {
		/* the whole name, however long: two ops never share a metric */
		char *name = bc_xasprintf("%s.%s_ms", o->name, o->lat.pct[i].key);
		bc_rmetric *m = group_metric(g, name, "ms", 0, BC_MK_LATENCY);
		free(name);
		if (!m->op) {
			m->op = shown(o->name);
			m->pct = bc_xstrdup(o->lat.pct[i].key);
			m->compared = strcmp(m->pct, "p50") == 0 || strcmp(m->pct, "p99") == 0;
		}
		push_value(m, o->lat.pct[i].ns / 1e6);
	}
	if (!isnan(o->lat.mean)) {
		/* the mean (fio's clat mean, the first study's io chart): kept for
		   compare --summary-table, not judged by default */
		char *name = bc_xasprintf("%s.mean_ms", o->name);
		bc_rmetric *m = group_metric(g, name, "ms", 0, BC_MK_LATENCY);
		free(name);
		if (!m->op) {
			m->op = shown(o->name);
			m->pct = bc_xstrdup("mean");
			m->compared = 0;
		}
		push_value(m, o->lat.mean / 1e6);
	}
}

static void add_interference(bc_rgroup *g, const bc_case_result *c)
{
	double share = c->cpu.interference_pct;
	if (isnan(share) && (!isnan(c->cpu.other_pct) || !isnan(c->cpu.steal_pct)))	/* an older file: */
		share = (isnan(c->cpu.other_pct) ? 0 : c->cpu.other_pct) +	/* the machine's */
			(isnan(c->cpu.steal_pct) ? 0 : c->cpu.steal_pct);
	if (isnan(share))
		return;
	if (g->ninterf == g->cinterf) {
		g->cinterf = g->cinterf ? 2 * g->cinterf : 4;
		g->interf_share = bc_xrealloc(g->interf_share, g->cinterf, sizeof(double));
		g->interf_use = bc_xrealloc(g->interf_use, g->cinterf, sizeof(double));
	}
	g->interf_share[g->ninterf] = fmin(1, share / 100);
	g->interf_use[g->ninterf++] = c->cpu.cpus_use;
}

/* ABI 1.1 fields that steer compare: the module's headline metric, its
   practical thresholds and how busy the machine was. */
static void add_verdict_fields(bc_rgroup *g, const bc_case_result *c)
{
	if (c->headline && *c->headline && !g->headline)
		g->headline = shown(c->headline);
	for (size_t i = 0; i < c->nthresholds; i++)
		if (!json_object_get(g->thresholds, c->thresholds[i].metric))
			json_object_set_new(g->thresholds, c->thresholds[i].metric,
					    json_real(c->thresholds[i].pct));
	if (!isnan(c->cpu.steal_pct) && c->cpu.steal_pct > g->steal_max)
		g->steal_max = c->cpu.steal_pct;
	if (!isnan(c->cpu.other_pct) && c->cpu.other_pct > g->other_max)
		g->other_max = c->cpu.other_pct;
	add_interference(g, c);
}

static void add_info(bc_results *r, const bc_case_result *c)
{
	for (size_t i = 0; i < c->ninfo; i++) {
		char key[512];
		snprintf(key, sizeof(key), "%s.%s", c->module, c->info[i].key);
		json_t *had = json_object_get(r->info, key);
		if (!had)
			json_object_set_new(r->info, key, json_string(c->info[i].value));
		else if (strcmp(json_string_value(had), c->info[i].value) != 0)
			json_object_set_new(r->info_varies, key, json_true());
	}
}

/* A merged file's case: the facts of the run it came from, counted. */
static void add_run_host(bc_results *r, const bc_case_result *c)
{
	const char *k;
	json_t *v;
	if (!c->run.set)
		return;
	r->nrun++;
	if (!r->run_host)
		r->run_host = json_object();
	json_object_foreach(c->run.host, k, v) {
		json_t *had = json_object_get(r->run_host, k);
		if (!had)
			json_object_set_new(r->run_host, k, json_pack("[O, i]", v, 1));
		else if (json_equal(json_array_get(had, 0), v))
			json_array_set_new(had, 1, json_integer(json_integer_value(json_array_get(had, 1)) + 1));
		else
			json_array_set_new(had, 1, json_integer(-1));	/* two values: varies */
	}
}

/* The run facts every case holds alike are the file's; the others vary. */
static void lift_run_host(bc_results *r)
{
	const char *k;
	json_t *v;
	if (!r->run_host)
		return;
	json_t *host = json_deep_copy(r->host);
	json_object_foreach(r->run_host, k, v) {
		if (json_integer_value(json_array_get(v, 1)) == (json_int_t)r->nrun && r->nrun == r->ncases &&
		    !json_object_get(host, k)) {
			json_object_set(host, k, json_array_get(v, 0));
			continue;
		}
		if (!r->host_varies)
			r->host_varies = json_object();
		json_object_set_new(r->host_varies, k, json_true());
	}
	json_decref(r->host);
	r->host = host;
	json_decref(r->run_host);
	r->run_host = NULL;
}

void bc_results_add_case(bc_results *r, const bc_case_result *c)
{
	r->ncases++;
	add_run_host(r, c);
	if (strcmp(c->status, "ok") != 0) {
		r->nfailed += strcmp(c->status, "failed") == 0;
		return;
	}
	if (c->setting_not_in_effect)
		return;	/* its setting did not take: no group credits it */
	r->nok++;
	/* the machine settings a case ran under tell groups apart as params do
	   ("machine.thp" beside the options; compare --split takes them apart) */
	json_t *key = bc_case_key(c);
	bc_rgroup *g = find_or_add_group(r, c->module, key, c->placement, c->threads);
	json_decref(key);
	if (c->run.host && !g->run_host)
		g->run_host = json_incref(c->run.host);
	g->repeats++;
	if (!g->module_version && c->module_version && *c->module_version)
		g->module_version = shown(c->module_version);
	for (size_t i = 0; i < c->nmetrics; i++)
		push_value(group_metric(g, c->metrics[i].name, c->metrics[i].unit,
					c->metrics[i].higher_is_better, BC_MK_METRIC), c->metrics[i].value);
	if (c->fairness.set)
		push_value(group_metric(g, "fairness_events_stddev", "events", 0, BC_MK_FAIRNESS),
			   c->fairness.events_stddev);
	if (c->stability.set && !isnan(c->stability.interval_cv))
		push_value(group_metric(g, "interval_cv", "", 0, BC_MK_STABILITY), c->stability.interval_cv);
	for (size_t i = 0; i < c->nops; i++)
		add_latency(g, &c->ops[i]);
	bc_group_add_hists(g, c);
	add_verdict_fields(g, c);
	if (!isnan(c->cpu_mhz_mean) && c->cpu_mhz_mean > 0) {
		g->cpu_mhz_sum += c->cpu_mhz_mean;
		g->cpu_mhz_n++;
	}
	g->unsteady += c->warmup_steady == 0;
	if (c->freq.set && !isnan(c->freq.measured_mhz) && c->freq.measured_mhz > 0) {
		g->freq_sum += c->freq.measured_mhz;
		g->freq_n++;
	}
	add_info(r, c);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* A metric no measurement gives: every module metric is a throughput
   (higher is better) or a latency or cost (lower is better), and neither is
   below 0 (the case reader already refuses what is not a finite number, and
   op classes' rates and latencies below 0). A file that holds one was not
   written by a run: compared, it would make a win or a loss of nothing. */
static int impossible_metric(const bc_case_result *c, size_t i, bc_err *e)
{
	for (size_t k = 0; k < c->nmetrics; k++) {
		const bc_cr_metric *m = &c->metrics[k];
		if (m->value >= 0)
			continue;
		char v[BC_DOUBLE_TEXT];
		bc_err_set(e, "cases[%zu] (case %lld, %s, %ld thread%s): metric %s is %s, which no measurement gives",
			   i, c->id, c->module ? c->module : "?", c->threads, c->threads == 1 ? "" : "s", m->name,
			   bc_fmt_double(m->value, v, sizeof(v)));
		bc_err_detail(e, "A %s cannot be negative.", m->higher_is_better ? "throughput (higher is better)" :
			      "latency or cost (lower is better)");
		bc_err_hint(e, "this file was not written by a benchcore run as it is: compare the run's own file");
		return -1;
	}
	return 0;
}

/* A throughput no ok case gives: its headline (the one rule,
   bc_headline_pick) at 0 when higher is better. The judge divides by the
   first file's figures: a baseline of 0 makes any figure a win, so a real
   loss would pass a gate. A case that counted operations in its window has
   a throughput above 0; one that counted none (a loaded machine can hold a
   single operation past a short window: benchcore writes such a case ok, at
   0) is what it says, and its own run's file must stay readable. */
static int zero_headline(const bc_case_result *c, size_t i, bc_err *e)
{
	uint64_t counted = 0;
	for (size_t k = 0; k < c->nops; k++)
		counted += c->ops[k].count;
	if (strcmp(c->status, "ok") || !c->nmetrics || !counted)
		return 0;
	bc_headline_cand *cand = bc_xcalloc(c->nmetrics, sizeof(*cand));
	for (size_t k = 0; k < c->nmetrics; k++)
		cand[k] = (bc_headline_cand){ c->metrics[k].name, c->metrics[k].higher_is_better };
	long k = bc_headline_pick(c->headline ? c->headline : "events_per_sec", cand, c->nmetrics);
	free(cand);
	const bc_cr_metric *m = k >= 0 ? &c->metrics[k] : NULL;
	if (!m || !m->higher_is_better || m->value != 0)
		return 0;
	bc_err_set(e, "cases[%zu] (case %lld, %s, %ld thread%s): metrics.%s.value is 0, the headline of an ok case",
		   i, c->id, c->module ? c->module : "?", c->threads, c->threads == 1 ? "" : "s", m->name);
	bc_err_detail(e, "Its window counted %llu operation%s, so its throughput is not 0; a throughput of 0 "
		      "compared as the baseline would make any figure a win.", (unsigned long long)counted,
		      counted == 1 ? "" : "s");
	bc_err_hint(e, "this file was not written by a benchcore run as it is: compare the run's own file");
	return -1;
}

/* A case id given twice, or an ok case (module, params and machine
   settings, threads, repeat) given twice under other ids: a run measures
   each once, and a copy would count in every statistic twice (n=6 where 3
   ran, a narrower interval). seen maps each id and key to its cases[]
   index. A failed case beside an ok one of the same key counts in no
   statistic: left alone. Two ok cases of one key without a repeat number
   are two copies too (a run writes it, from 1). */
static int given_twice(const bc_case_result *c, size_t i, json_t *seen, bc_err *e)
{
	char id[48];
	snprintf(id, sizeof(id), "id %lld", c->id);
	json_t *had = c->id ? json_object_get(seen, id) : NULL;	/* 0: absent (a run numbers from 1) */
	if (had) {
		bc_err_set(e, "cases[%zu].id: %lld is also the id of cases[%lld]", i, c->id,
			   (long long)json_integer_value(had));
		bc_err_detail(e, "A run gives each case its own id.");
		bc_err_hint(e, "this file was not written by a benchcore run as it is: compare the run's own file");
		return -1;
	}
	json_object_set_new(seen, id, json_integer((json_int_t)i));
	if (strcmp(c->status, "ok"))
		return 0;
	json_t *key = bc_case_key(c);
	char *ks = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
	char *k = bc_xasprintf("case %s %ld %ld %s", c->module ? c->module : "", c->threads, c->repeat, ks ? ks : "");
	json_decref(key);
	free(ks);
	had = json_object_get(seen, k);
	if (had) {
		char *shown = bc_printable(c->module ? c->module : "?");
		bc_err_set(e, "cases[%zu] (case %lld, %s, %ld thread%s, repeat %ld): the same case as cases[%lld] "
			   "(module, params, threads and repeat), given twice", i, c->id, shown, c->threads,
			   c->threads == 1 ? "" : "s", c->repeat, (long long)json_integer_value(had));
		bc_err_detail(e, "A run measures each case once: a second copy would count in every statistic "
			      "twice.");
		bc_err_hint(e, "this file was not written by a benchcore run as it is: compare the run's own file");
		free(shown);
		free(k);
		return -1;
	}
	json_object_set_new(seen, k, json_integer((json_int_t)i));
	free(k);
	return 0;
}

/* The grouped form of a document the run document's reader read (its
   header checked there). */
static int read_top(bc_results *r, const bc_rundoc *d, bc_err *e)
{
	json_t *cases = d->cases, *c, *seen = json_object();
	size_t i;

	r->host = d->host ? json_incref(d->host) : json_object();
	r->config = d->config ? json_incref(d->config) : json_object();
	if (d->label && *d->label)
		r->label = bc_label_shown(d->label);
	else if (d->hostname)
		r->label = bc_label_shown(d->hostname);
	else
		r->label = shown(base_name(r->path));
	if (d->started_at)
		r->started_at = bc_xstrdup(d->started_at);
	if (d->run_id)
		r->run_id = shown(d->run_id);
	if (d->version)
		r->version = shown(d->version);
	r->interrupted = d->interrupted;
	if (d->status)
		r->status = bc_xstrdup(d->status);
	r->planned = d->planned;
	json_array_foreach(cases, i, c) {
		bc_case_result cr;	/* the one reader of a case: every field checked */
		if (bc_case_from_json(c, i, &cr, e) < 0) {
			json_decref(seen);
			return -1;
		}
		if (impossible_metric(&cr, i, e) || zero_headline(&cr, i, e) || given_twice(&cr, i, seen, e)) {
			bc_case_free(&cr);
			json_decref(seen);
			return -1;
		}
		bc_results_add_case(r, &cr);
		bc_case_free(&cr);
	}
	json_decref(seen);
	bc_results_done(r);
	return 0;
}

void bc_results_init(bc_results *r, const char *name)
{
	*r = (bc_results){ .path = bc_xstrdup(name), .info = json_object(), .info_varies = json_object(),
			   .host = json_object(), .planned = -1,
			   .label = bc_xstrdup(name) };
}

void bc_results_done(bc_results *r)
{
	lift_run_host(r);
	for (size_t i = 0; i < r->ngroups; i++)
		if (!r->groups[i].headline)
			r->groups[i].headline = bc_xstrdup("events_per_sec");
}

int bc_threshold_kind(const bc_rmetric *m)
{
	switch (m->kind) {
	case BC_MK_FAIRNESS:
	case BC_MK_STABILITY:
		return BC_KIND_FAIRNESS;
	case BC_MK_LATENCY:
		return m->pct && strtod(m->pct + 1, NULL) > 50 ? BC_KIND_TAIL : BC_KIND_LATENCY;
	default:
		if (m->higher_is_better)
			return BC_KIND_THROUGHPUT;
		return strstr(m->name, "p9") ? BC_KIND_TAIL : BC_KIND_LATENCY;
	}
}

double bc_metric_threshold(const bc_rgroup *g, const bc_rmetric *m)
{
	static const double dflt[BC_KIND_N] = BC_KIND_THRESHOLDS;
	json_t *decl = json_object_get(g->thresholds, m->name);
	return json_is_number(decl) ? json_number_value(decl) / 100 : dflt[bc_threshold_kind(m)];
}

const bc_rmetric *bc_primary_metric(const bc_rgroup *g)
{
	/* the case's headline (the engine applied the rule to what it
	   reported); files from before it, or whose cases said events_per_sec
	   for a module with metrics of its own: the same rule, here */
	bc_headline_cand *c = bc_xcalloc(g->nmetrics + 1, sizeof(*c));
	const bc_rmetric **at = bc_xcalloc(g->nmetrics + 1, sizeof(*at));
	size_t n = 0;
	for (size_t i = 0; i < g->nmetrics; i++)
		if (g->metrics[i].kind == BC_MK_METRIC) {
			c[n] = (bc_headline_cand){ g->metrics[i].name, g->metrics[i].higher_is_better };
			at[n++] = &g->metrics[i];
		}
	long k = bc_headline_pick(g->headline, c, n);
	const bc_rmetric *m = k >= 0 ? at[k] : g->nmetrics ? &g->metrics[0] : NULL;
	free(c);
	free(at);
	return m;
}

json_t *bc_groups_json(const bc_results *r)
{
	json_t *out = json_array();
	for (size_t i = 0; i < r->ngroups; i++) {
		const bc_rgroup *g = &r->groups[i];
		json_t *params = json_loads(g->params_key, 0, NULL), *metrics = json_object();
		for (size_t j = 0; j < g->nmetrics; j++) {
			const bc_rmetric *m = &g->metrics[j];
			bc_summary st;
			if (!m->compared || !m->n)
				continue;	/* the metrics compare judges: latency only p50, p99 */
			json_t *vals = json_array();
			for (size_t k = 0; k < m->n; k++)
				json_array_append_new(vals, json_real(m->values[k]));
			bc_stats_summary(m->values, m->n, &st);
			json_t *mj = json_pack("{s:s, s:b, s:o, s:f, s:f, s:f, s:f, s:f, s:f}",
				"unit", m->unit, "higher_is_better", m->higher_is_better, "values", vals,
				"mean", st.mean, "median", st.median, "stddev", st.stddev, "cv", st.cv,
				"ci95_low", st.ci95_low, "ci95_high", st.ci95_high);
			double ms;
			size_t bad;
			/* the percentile of all the repeats' records, when every repeat kept its histogram */
			if (m->kind == BC_MK_LATENCY && m->pct[0] == 'p' &&
			    !bc_merged_pct(&g, 1, m->op, strtod(m->pct + 1, NULL), &ms, &bad))
				json_object_set_new(mj, "merged", json_real(ms));
			json_object_set_new(metrics, m->name, mj);
		}
		json_array_append_new(out, json_pack("{s:s, s:o, s:I, s:I, s:s, s:o}", "module", g->module,
			"params", params ? params : json_object(), "threads", (json_int_t)g->threads,
			"repeats", (json_int_t)g->repeats, "headline", bc_primary_metric(g) ?
			bc_primary_metric(g)->name : "events_per_sec", "metrics", metrics));
	}
	return out;
}

int bc_results_from_doc(bc_rundoc *d, const char *name, bc_results *r, bc_err *e)
{
	*r = (bc_results){ .path = bc_xstrdup(name), .info = json_object(), .info_varies = json_object() };
	int rc = read_top(r, d, e);
	bc_rundoc_free(d);
	if (rc < 0)
		bc_results_free(r);
	return rc;
}

int bc_results_parse(const char *buf, size_t len, const char *name,
		     bc_results *r, bc_err *e)
{
	bc_rundoc d;
	*r = (bc_results){ 0 };
	if (bc_rundoc_read(buf, len, name, &d, e))
		return -1;
	return bc_results_from_doc(&d, name, r, e);
}

static struct {
	const char *prefix;
	bc_results_ref_fn fn;
} ref_loader;

void bc_results_set_ref_loader(const char *prefix, bc_results_ref_fn fn)
{
	ref_loader.prefix = prefix;
	ref_loader.fn = fn;
}

/* A reference to a stored run (ref_loader's prefix): its document from there. */
static int load_ref(const char *ref, bc_results *r, bc_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	*r = (bc_results){ 0 };
	if (ref_loader.fn(ref, &buf, &len, e) < 0)
		return -1;
	/* the run's name in every view: the reference as typed, printable (a
	   label's control character referred to raw is not echoed raw) */
	char *name = bc_printable(ref);
	int rc = bc_results_parse(buf, len, name, r, e);
	free(name);
	free(buf);
	return rc;
}

int bc_results_load(const char *path, bc_results *r, bc_err *e)
{
	if (!strncmp(path, "split:", 6))
		return bc_split_load(path, r, e);
	if (ref_loader.fn && !strncmp(path, ref_loader.prefix, strlen(ref_loader.prefix)))
		return load_ref(path, r, e);
	bc_rundoc d;
	*r = (bc_results){ 0 };
	if (bc_rundoc_load(path, &d, e))
		return -1;
	return bc_results_from_doc(&d, path, r, e);
}

void bc_results_free(bc_results *r)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		bc_rgroup *g = &r->groups[i];
		for (size_t j = 0; j < g->nmetrics; j++) {
			free(g->metrics[j].name);
			free(g->metrics[j].unit);
			free(g->metrics[j].op);
			free(g->metrics[j].pct);
			free(g->metrics[j].values);
		}
		free(g->metrics);
		bc_group_free_hists(g);
		free(g->headline);
		free(g->interf_share);
		free(g->interf_use);
		json_decref(g->thresholds);
		json_decref(g->run_host);
		free(g->module);
		free(g->module_version);
		free(g->params_key);
		json_decref(g->placement);
		free(g->params_text);
	}
	free(r->groups);
	free(r->path);
	free(r->label);
	free(r->started_at);
	free(r->run_id);
	free(r->version);
	free(r->status);
	json_decref(r->host);
	json_decref(r->config);
	json_decref(r->info);
	json_decref(r->info_varies);
	json_decref(r->host_varies);
	json_decref(r->run_host);
	json_decref(r->index);
	*r = (bc_results){ 0 };
}

const bc_rgroup *bc_results_find(const bc_results *r, const char *module,
				 const char *params_key, long threads)
{
	if (!r->index) {	/* a set built by hand (tests): no index to ask */
		for (size_t i = 0; i < r->ngroups; i++)
			if (r->groups[i].threads == threads && !strcmp(r->groups[i].module, module) &&
			    !strcmp(r->groups[i].params_key, params_key))
				return &r->groups[i];
		return NULL;
	}
	char *ik = group_key(module, params_key, threads);
	json_t *at = json_object_get(r->index, ik);
	free(ik);
	return at ? &r->groups[json_integer_value(at)] : NULL;
}

/* g's params without its placement params and the ignored names. */
static json_t *reduced(const bc_rgroup *g, char *const *ignore)
{
	json_t *p = json_loads(g->params_key, 0, NULL), *e;
	size_t i;
	if (!p)
		return json_object();
	json_array_foreach(g->placement, i, e)
		json_object_del(p, json_string_value(e));
	for (char *const *n = ignore; n && *n; n++)
		json_object_del(p, *n);
	return p;
}

/* How many groups of r agree with want (module, threads, reduced params);
   *one gets the last of them. */
static size_t agreeing(const bc_results *r, const bc_rgroup *want, json_t *wp, char *const *ignore,
		       const bc_rgroup **one)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ngroups; i++) {
		const bc_rgroup *h = &r->groups[i];
		if (h->threads != want->threads || strcmp(h->module, want->module))
			continue;
		json_t *hp = reduced(h, ignore);
		if (json_equal(hp, wp)) {
			n++;
			*one = h;
		}
		json_decref(hp);
	}
	return n;
}

const bc_rgroup *bc_results_match(const bc_results *r, const bc_results *gfile, const bc_rgroup *g,
				  char *const *ignore)
{
	const bc_rgroup *exact = bc_results_find(r, g->module, g->params_key, g->threads), *hit = NULL,
			*self = NULL;
	if (exact || (!json_array_size(g->placement) && !(ignore && *ignore)))
		return exact;
	json_t *gp = reduced(g, ignore);
	size_t there = agreeing(r, g, gp, ignore, &hit), here = agreeing(gfile, g, gp, ignore, &self);
	json_decref(gp);
	return there == 1 && here == 1 ? hit : NULL;
}

const bc_rmetric *bc_group_metric(const bc_rgroup *g, const char *name)
{
	for (size_t i = 0; i < g->nmetrics; i++)
		if (strcmp(g->metrics[i].name, name) == 0)
			return &g->metrics[i];
	return NULL;
}

const char *bc_results_partial(const bc_results *r, long *of)
{
	*of = r->planned;
	if (r->status && !strcmp(r->status, "complete"))
		return NULL;
	if (r->status && !strcmp(r->status, "running"))
		return "its run was still going when it was written, or was killed outright (SIGKILL, "
		       "the OOM killer, a power cut)";
	if (r->status && !strcmp(r->status, "stopped"))
		return "its run stopped early (a module exited in benchcore's process)";
	if (r->interrupted || (r->status && *r->status))
		return "its run was interrupted";
	return NULL;	/* a file from before status, not interrupted */
}

int bc_load_all(const char *cmd, char **files, int n, bc_results *res)
{
	bc_err e = { .msg = "" };
	long of;

	for (int i = 0; i < n; i++) {
		if (bc_results_load(files[i], &res[i], &e) < 0) {
			char *name = bc_printable(files[i]);	/* a db:LABEL's control characters too */
			fprintf(stderr, "benchcore %s: %s: %s\n", cmd, name, e.msg);
			free(name);
			if (e.detail[0])
				fprintf(stderr, "DETAIL: %s\n", e.detail);
			if (e.hint[0])
				fprintf(stderr, "HINT: %s\n", e.hint);
			for (int j = 0; j < i; j++)
				bc_results_free(&res[j]);
			return -1;
		}
		const char *why = bc_results_partial(&res[i], &of);
		char *shown = why ? bc_printable(files[i]) : NULL;
		if (why && of >= 0)
			fprintf(stderr, "benchcore %s: warning: %s is partial: %zu of %ld cases (%s)\n", cmd, shown,
				res[i].ncases, of, why);
		else if (why)
			fprintf(stderr, "benchcore %s: warning: %s is partial: %zu cases (%s)\n", cmd, shown,
				res[i].ncases, why);
		free(shown);
	}
	return 0;
}
