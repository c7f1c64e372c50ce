/* Text and CSV of case results (output.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "results.h"
#include "stats.h"
#include "util.h"

/* A module's figure for a person: two decimals in the usual range, else
   scientific notation (-1e308 is a 5-character number, not a 310-digit one). */
static const char *num(char *buf, size_t n, int width, double v)
{
	if (isfinite(v) && fabs(v) < 1e12)
		snprintf(buf, n, "%*.2f", width, v);
	else
		snprintf(buf, n, "%*.4g", width, v);
	return buf;
}

static void print_latency(FILE *f, const bc_cr_op *o)
{
	fprintf(f, "    %-10s %12.2f/s  count %-10llu errors %-6llu", o->name, o->per_sec,
		(unsigned long long)o->count, (unsigned long long)o->errors);
	if (o->bytes)
		fprintf(f, " %.2f MiB", (double)o->bytes / 1048576.0);
	fprintf(f, "\n    %-10s latency (ms):", "");
	const bc_cr_latency *l = &o->lat;
	static const char *const keys[] = { "min", "mean", "max" };
	const double vals[] = { l->min, l->mean, l->max };
	for (int i = 0; i < 3; i++)
		if (l->set && !isnan(vals[i]))
			fprintf(f, " %s %.3f", keys[i], vals[i] / 1e6);
	for (size_t i = 0; l->set && i < l->npct; i++)
		fprintf(f, " %s %.3f", l->pct[i].key, l->pct[i].ns / 1e6);
	fputc('\n', f);
}

static void text_line(FILE *f, const char *what, const char *text)
{
	char *p = bc_text_dup(text);
	fprintf(f, "    %s: %s\n", what, p);
	free(p);
}

void bc_print_case(FILE *f, const bc_case_result *c, const char *label)
{
	char nb[64];
	fprintf(f, "\n[case %lld] %s: %s\n", c->id, label, c->status);
	/* escaped when kept; again here for results read back from a file */
	if (c->reason)
		text_line(f, "reason", c->reason);
	/* detail and hint belong to a reason (an older file may hold them
	   for an ok case: nothing to explain there) */
	if (c->reason && c->error.set && c->error.detail)
		text_line(f, "detail", c->error.detail);
	if (c->reason && c->error.set && c->error.hint)
		text_line(f, "hint", c->error.hint);
	if (strcmp(c->status, "ok") && strcmp(c->status, "interrupted"))
		return;
	fprintf(f, "    measured %.2f s after %.2f s warmup\n", c->duration_s, c->warmup_s);
	for (size_t i = 0; i < c->nmetrics; i++)
		fprintf(f, "    %-24s %s %s\n", c->metrics[i].name, num(nb, sizeof(nb), 14, c->metrics[i].value),
			c->metrics[i].unit);
	for (size_t i = 0; i < c->nops; i++)
		if (c->ops[i].count || c->ops[i].errors)
			print_latency(f, &c->ops[i]);
	if (c->fairness.set) {
		fprintf(f, "    fairness: events/thread %.1f, stddev %.2f (cv %.2f%%)", c->fairness.events_mean,
			c->fairness.events_stddev, 100 * c->fairness.events_cv);
		if (c->threads > 1 && !isnan(c->fairness.events_min))
			fprintf(f, ", min %.0f max %.0f", c->fairness.events_min, c->fairness.events_max);
		fprintf(f, "; busy %.3f s, stddev %.3f s\n", c->fairness.busy_mean_s, c->fairness.busy_stddev_s);
	}
	if (c->cpu.set) {
		fprintf(f, "    cpu: user %.2f s, sys %.2f s (%.2f CPUs busy)", c->cpu.user_s, c->cpu.sys_s,
			isnan(c->cpu.utilization) ? 0.0 : c->cpu.utilization);
		if (!isnan(c->cpu.steal_pct))
			fprintf(f, "; steal %.1f%%", c->cpu.steal_pct);
		if (!isnan(c->cpu.other_pct))
			fprintf(f, "; other processes %.1f%%", c->cpu.other_pct);
		fputc('\n', f);
		if (!isnan(c->cpu.server_s)) {
			fprintf(f, "    server cpu: %.2f s", c->cpu.server_s);
			if (!isnan(c->cpu.server_pct))
				fprintf(f, " (%.1f%% of the machine)", c->cpu.server_pct);
			if (!isnan(c->cpu.server_us_per_op))
				fprintf(f, ", %.2f us per operation", c->cpu.server_us_per_op);
			fprintf(f, ": %s\n", c->cpu.servers ? c->cpu.servers : "");
		}
	}
	if (c->freq.set && !isnan(c->freq.measured_mhz)) {
		fprintf(f, "    clock: %.0f MHz measured on %ld CPU%s", c->freq.measured_mhz, c->freq.cpus,
			c->freq.cpus == 1 ? "" : "s");
		if (!isnan(c->freq.cpufreq_mhz))
			fprintf(f, "; cpufreq says %.0f MHz", c->freq.cpufreq_mhz);
		if (!isnan(c->freq.cpuinfo_mhz))
			fprintf(f, "; /proc/cpuinfo says %.0f MHz", c->freq.cpuinfo_mhz);
		fputc('\n', f);
	}
	if (c->stability.set && !isnan(c->stability.interval_cv))
		fprintf(f, "    stability: per-interval events/s cv %.2f%%\n", 100 * c->stability.interval_cv);
	if (c->open_loop.set)
		fprintf(f, "    open loop: rate %.1f/s (%s), late starts %llu, max lag %.3f ms, max queue %llu\n",
			c->open_loop.rate, c->open_loop.arrival ? c->open_loop.arrival : "",
			(unsigned long long)c->open_loop.late_starts, c->open_loop.max_lag_ms,
			(unsigned long long)c->open_loop.max_queue);
}

/* module -> {param: true} for every param whose value differs between two
   of the module's cases (a sweep in one entry, or two entries of the
   module that set it differently; absent in one counts): what tells the
   summary's rows apart. One pass against each module's first case. */
static json_t *differing_params(const bc_case_result *cases, size_t n)
{
	json_t *first = json_object(), *diff = json_object();
	for (size_t i = 0; i < n; i++) {
		const char *mod = cases[i].module ? cases[i].module : "", *k;
		json_t *at = json_object_get(first, mod), *v, *d = json_object_get(diff, mod);
		if (!at) {
			json_object_set_new(first, mod, json_integer((json_int_t)i));
			json_object_set_new(diff, mod, json_object());
			continue;
		}
		json_t *ref = bc_case_key(&cases[json_integer_value(at)]), *own = bc_case_key(&cases[i]);
		json_object_foreach(own, k, v)
			if (!json_equal(v, json_object_get(ref, k)))
				json_object_set_new(d, k, json_true());
		json_object_foreach(ref, k, v)
			if (!json_object_get(own, k))
				json_object_set_new(d, k, json_true());
		json_decref(ref);
		json_decref(own);
	}
	json_decref(first);
	return diff;
}

/* "block_size=4096 rw=randread": c's params that differ among its module's cases. */
static char *row_label(const bc_case_result *c, json_t *diff)
{
	json_t *keys = json_object_get(diff, c->module ? c->module : ""), *shown = json_object(), *v;
	json_t *all = bc_case_key(c);
	const char *k;
	json_object_foreach(all, k, v)
		if (json_object_get(keys, k))
			json_object_set(shown, k, v);
	char *s = bc_params_text(shown);
	json_decref(shown);
	json_decref(all);
	return s;
}

void bc_print_summary(FILE *f, const bc_case_result *cases, size_t n, const bc_results *groups)
{
	char nb[64];
	size_t ok = 0;
	json_t *diff = differing_params(cases, n);
	fprintf(f, "\nSummary\n%-5s %-8s %-34s %4s %4s %-11s %14s  %s\n", "case", "module", "point",
		"thr", "rep", "status", "events/s", "headline metric");
	for (size_t i = 0; i < n; i++) {
		const bc_case_result *c = &cases[i];
		/* every param that tells the module's rows apart: swept in an entry
		   or set differently by two entries (the plan's point has only the
		   former: three io entries would all read rw=...) */
		char *p = row_label(c, diff);
		json_t *ck = bc_case_key(c);
		char *pk = json_dumps(ck, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(ck);
		/* grouped as compare groups them: its primary metric is the summary's */
		const bc_rgroup *g = bc_results_find(groups, c->module, pk ? pk : "{}", c->threads);
		free(pk);
		const bc_rmetric *pm = g ? bc_primary_metric(g) : NULL;
		const bc_cr_metric *pv = pm ? bc_case_metric(c, pm->name) : NULL;
		const bc_cr_metric *eps = bc_case_metric(c, "events_per_sec");
		if (strlen(p) > 34)
			strcpy(p + 31, "...");
		fprintf(f, "%-5lld %-8s %-34s %4ld %4ld %-11s %14.2f  ", c->id, c->module, p, c->threads,
			c->repeat, c->status, eps ? eps->value : 0.0);
		/* the headline, named even when it is events_per_sec: the one
		   compare's summary, the report and the CSV use */
		int shown = pv != NULL;
		if (shown)
			fprintf(f, "%s %s %s", pm->name, num(nb, sizeof(nb), 0, pv->value), pv->unit);
		if (c->error_rate > 0)
			fprintf(f, "%serrors %.2f%%", shown ? "  " : "", 100 * c->error_rate);
		fputc('\n', f);
		ok += !strcmp(c->status, "ok");
		free(p);
	}
	json_decref(diff);
	fprintf(f, "%zu of %zu cases ok\n", ok, n);
}

static void csv_row(FILE *f, const bc_case_result *c, const char *params, const bc_cr_metric *m,
		    const char *headline)
{
	fprintf(f, "%lld,", c->id);
	bc_csv_cell(f, c->module);
	fputc(',', f);
	bc_csv_cell(f, params);
	fprintf(f, ",%ld,%ld,", c->threads, c->repeat);
	bc_csv_cell(f, c->status);
	fputc(',', f);
	bc_csv_cell(f, m ? m->name : "");
	if (m)
		fprintf(f, ",%.6g,", m->value);
	else
		fputs(",,", f);
	bc_csv_cell(f, m ? m->unit : "");
	fprintf(f, ",%s,%s\n", !m ? "" : m->higher_is_better ? "true" : "false",
		!m ? "" : headline && !strcmp(m->name, headline) ? "true" : "false");
}

/* The case's headline metric as its group (compare's grouping) names it. */
static const char *case_headline(const bc_case_result *c, const bc_results *groups)
{
	json_t *ck = bc_case_key(c);
	char *pk = json_dumps(ck, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(ck);
	const bc_rgroup *g = groups ? bc_results_find(groups, c->module, pk ? pk : "{}", c->threads) : NULL;
	const bc_rmetric *pm = g ? bc_primary_metric(g) : NULL;

	free(pk);
	return pm ? pm->name : NULL;
}

char *bc_csv(const bc_case_result *cases, size_t n, const bc_results *groups)
{
	static const char *head = "case,module,params,threads,repeat,status,metric,value,unit,"
				  "higher_is_better,headline\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	fputs(head, f);
	for (size_t i = 0; i < n; i++) {
		const bc_case_result *c = &cases[i];
		json_t *ck = bc_case_key(c);
		char *p = bc_params_text(ck);
		json_decref(ck);
		const char *hl = case_headline(c, groups);
		if (!c->nmetrics)	/* a failed or skipped case: one row, so it is seen */
			csv_row(f, c, p, NULL, hl);
		for (size_t k = 0; k < c->nmetrics; k++)
			csv_row(f, c, p, &c->metrics[k], hl);
		free(p);
	}
	fclose(f);
	return buf;
}
