/* Text, CSV and repeat statistics from result objects (docs/results.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "results.h"
#include "stats.h"
#include "util.h"

#define JNUM(o, k) json_number_value(json_object_get((o), (k)))

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

static void print_latency(FILE *f, const char *op, json_t *oj)
{
	json_t *lat = json_object_get(oj, "latency_ns");
	const char *k;
	json_t *v;
	fprintf(f, "    %-10s %12.2f/s  count %-10lld errors %-6lld", op, JNUM(oj, "per_sec"),
		(long long)json_integer_value(json_object_get(oj, "count")),
		(long long)json_integer_value(json_object_get(oj, "errors")));
	if (json_integer_value(json_object_get(oj, "bytes")))
		fprintf(f, " %.2f MiB", (double)json_integer_value(json_object_get(oj, "bytes")) / 1048576.0);
	fprintf(f, "\n    %-10s latency (ms):", "");
	json_object_foreach(lat, k, v) {
		if (!strcmp(k, "stddev"))
			continue;
		fprintf(f, " %s %.3f", k, json_number_value(v) / 1e6);
	}
	fputc('\n', f);
}

void bc_print_case(FILE *f, json_t *cj, const char *label)
{
	char nb[64];
	const char *status = json_string_value(json_object_get(cj, "status"));
	json_t *reason = json_object_get(cj, "reason");
	fprintf(f, "\n[case %lld] %s: %s\n", (long long)json_integer_value(json_object_get(cj, "id")),
		label, status);
	if (json_is_string(reason))
		fprintf(f, "    reason: %s\n", json_string_value(reason));
	json_t *err = json_object_get(cj, "error");
	const char *detail = json_string_value(json_object_get(err, "detail"));
	const char *hint = json_string_value(json_object_get(err, "hint"));
	if (detail)
		fprintf(f, "    detail: %s\n", detail);
	if (hint)
		fprintf(f, "    hint: %s\n", hint);
	if (strcmp(status, "ok") && strcmp(status, "interrupted"))
		return;
	json_t *metrics = json_object_get(cj, "metrics"), *ops = json_object_get(cj, "ops");
	const char *k;
	json_t *v;
	fprintf(f, "    measured %.2f s after %.2f s warmup\n", JNUM(cj, "duration_s"), JNUM(cj, "warmup_s"));
	json_object_foreach(metrics, k, v)
		fprintf(f, "    %-24s %s %s\n", k, num(nb, sizeof(nb), 14, JNUM(v, "value")),
			json_string_value(json_object_get(v, "unit")));
	json_object_foreach(ops, k, v)
		if (json_integer_value(json_object_get(v, "count")) || json_integer_value(json_object_get(v, "errors")))
			print_latency(f, k, v);
	json_t *fr = json_object_get(cj, "fairness");
	fprintf(f, "    fairness: events/thread %.1f, stddev %.2f (cv %.2f%%)",
		JNUM(fr, "events_mean"), JNUM(fr, "events_stddev"), 100 * JNUM(fr, "events_cv"));
	if (json_integer_value(json_object_get(cj, "threads")) > 1 && json_object_get(fr, "events_min"))
		fprintf(f, ", min %.0f max %.0f", JNUM(fr, "events_min"), JNUM(fr, "events_max"));
	fprintf(f, "; busy %.3f s, stddev %.3f s\n", JNUM(fr, "busy_mean_s"), JNUM(fr, "busy_stddev_s"));
	json_t *cpu = json_object_get(cj, "cpu");
	if (cpu) {
		fprintf(f, "    cpu: user %.2f s, sys %.2f s (%.2f CPUs busy)", JNUM(cpu, "user_s"),
			JNUM(cpu, "sys_s"), JNUM(cpu, "utilization"));
		if (json_object_get(cpu, "steal_pct"))
			fprintf(f, "; steal %.1f%%", JNUM(cpu, "steal_pct"));
		fputc('\n', f);
	}
	json_t *st = json_object_get(json_object_get(cj, "stability"), "interval_cv");
	if (json_is_number(st))
		fprintf(f, "    stability: per-interval events/s cv %.2f%%\n", 100 * json_number_value(st));
	json_t *ol = json_object_get(cj, "open_loop");
	if (ol)
		fprintf(f, "    open loop: rate %.1f/s (%s), late starts %lld, max lag %.3f ms, max queue %lld\n",
			JNUM(ol, "rate"), json_string_value(json_object_get(ol, "arrival")),
			(long long)json_integer_value(json_object_get(ol, "late_starts")), JNUM(ol, "max_lag_ms"),
			(long long)json_integer_value(json_object_get(ol, "max_queue")));
}

void bc_print_summary(FILE *f, json_t *doc)
{
	char nb[64];
	json_t *cases = json_object_get(doc, "cases"), *cj;
	size_t i, ok = 0;
	bc_results r;
	char err[256];
	/* grouped as compare groups them: its primary metric is the summary's */
	bc_results_init(&r, "run");
	json_array_foreach(cases, i, cj)
		bc_results_add_case(&r, cj, i, err, sizeof(err));
	bc_results_done(&r);
	fprintf(f, "\nSummary\n%-5s %-8s %-34s %4s %4s %-11s %14s  %s\n", "case", "module", "point",
		"thr", "rep", "status", "events/s", "primary metric");
	json_array_foreach(cases, i, cj) {
		/* the swept parameters; files from before "point" existed: all of them */
		json_t *pt = json_object_get(cj, "point"), *params = json_object_get(cj, "params");
		char *p = json_is_string(pt) ? bc_xstrdup(json_string_value(pt)) : bc_params_text(params);
		json_t *m = json_object_get(cj, "metrics");
		char *pk = params ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		const bc_rgroup *g = bc_results_find(&r, json_string_value(json_object_get(cj, "module")),
						     pk ? pk : "{}", (long)json_integer_value(json_object_get(cj, "threads")));
		free(pk);
		const bc_rmetric *pm = g ? bc_primary_metric(g) : NULL;
		json_t *pv = pm ? json_object_get(m, pm->name) : NULL;
		if (strlen(p) > 34)
			strcpy(p + 31, "...");
		fprintf(f, "%-5lld %-8s %-34s %4lld %4lld %-11s %14.2f  ",
			(long long)json_integer_value(json_object_get(cj, "id")),
			json_string_value(json_object_get(cj, "module")), p,
			(long long)json_integer_value(json_object_get(cj, "threads")),
			(long long)json_integer_value(json_object_get(cj, "repeat")),
			json_string_value(json_object_get(cj, "status")),
			JNUM(json_object_get(m, "events_per_sec"), "value"));
		if (pv && strcmp(pm->name, "events_per_sec"))
			fprintf(f, "%s %s %s", pm->name, num(nb, sizeof(nb), 0, JNUM(pv, "value")),
				json_string_value(json_object_get(pv, "unit")));
		if (JNUM(cj, "error_rate") > 0)
			fprintf(f, "%serrors %.2f%%", pv && strcmp(pm->name, "events_per_sec") ? "  " : "",
				100 * JNUM(cj, "error_rate"));
		fputc('\n', f);
		ok += !strcmp(json_string_value(json_object_get(cj, "status")), "ok");
		free(p);
	}
	fprintf(f, "%zu of %zu cases ok\n", ok, json_array_size(cases));
	bc_results_free(&r);
}

char *bc_csv(json_t *doc)
{
	static const char *head = "case,module,params,threads,repeat,status,metric,value,unit,higher_is_better\n";
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	json_t *cj;
	if (!f)
		abort();
	fputs(head, f);
	json_array_foreach(json_object_get(doc, "cases"), i, cj) {
		char *p = bc_params_text(json_object_get(cj, "params"));
		const char *k;
		json_t *m, *ms = json_object_get(cj, "metrics"), *none = NULL;
		if (!json_object_size(ms))	/* a failed or skipped case: one row, so it is seen */
			ms = none = json_pack("{s:{s:s}}", "", "unit", "");
		json_object_foreach(ms, k, m) {
			fprintf(f, "%lld,", (long long)json_integer_value(json_object_get(cj, "id")));
			bc_csv_cell(f, json_string_value(json_object_get(cj, "module")));
			fputc(',', f);
			bc_csv_cell(f, p);
			fprintf(f, ",%lld,%lld,", (long long)json_integer_value(json_object_get(cj, "threads")),
				(long long)json_integer_value(json_object_get(cj, "repeat")));
			bc_csv_cell(f, json_string_value(json_object_get(cj, "status")));
			fputc(',', f);
			bc_csv_cell(f, k);
			if (none)
				fputs(",,", f);
			else
				fprintf(f, ",%.6g,", JNUM(m, "value"));
			bc_csv_cell(f, json_string_value(json_object_get(m, "unit")));
			fprintf(f, ",%s\n", none ? "" : json_is_true(json_object_get(m, "higher_is_better")) ? "true" : "false");
		}
		json_decref(none);
		free(p);
	}
	fclose(f);
	return buf;
}
