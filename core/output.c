/* Text, CSV and repeat statistics from result objects (docs/results.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "stats.h"
#include "util.h"

#define JNUM(o, k) json_number_value(json_object_get((o), (k)))

char *bc_params_text(json_t *params, json_t *only)
{
	const char *k;
	json_t *v;
	size_t cap = 128, len = 0;
	char *s = bc_xcalloc(cap, 1);
	json_object_foreach(params, k, v) {
		if (only && !json_object_get(only, k))
			continue;
		char *t = json_is_string(v) ? bc_xstrdup(json_string_value(v))
					    : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		size_t need = strlen(k) + strlen(t) + 3;
		if (len + need >= cap) {
			cap = (len + need) * 2;
			s = realloc(s, cap);
		}
		len += (size_t)sprintf(s + len, "%s%s=%s", len ? " " : "", k, t);
		free(t);
	}
	return s;
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
		fprintf(f, "    %-24s %14.2f %s\n", k, JNUM(v, "value"),
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

/* The module's own first metric, else events_per_sec. */
static const char *primary_metric(json_t *metrics)
{
	const char *k;
	json_t *v;
	json_object_foreach(metrics, k, v)
		if (strcmp(k, "events_per_sec"))
			return k;
	return "events_per_sec";
}

void bc_print_summary(FILE *f, json_t *doc)
{
	json_t *cases = json_object_get(doc, "cases"), *cj;
	size_t i, ok = 0;
	fprintf(f, "\nSummary\n%-5s %-8s %-34s %4s %4s %-11s %14s  %s\n", "case", "module", "point",
		"thr", "rep", "status", "events/s", "primary metric");
	json_array_foreach(cases, i, cj) {
		/* the swept parameters; files from before "point" existed: all of them */
		json_t *pt = json_object_get(cj, "point");
		char *p = json_is_string(pt) ? bc_xstrdup(json_string_value(pt))
					     : bc_params_text(json_object_get(cj, "params"), NULL);
		json_t *m = json_object_get(cj, "metrics");
		const char *pm = primary_metric(m);
		json_t *pv = json_object_get(m, pm);
		if (strlen(p) > 34)
			strcpy(p + 31, "...");
		fprintf(f, "%-5lld %-8s %-34s %4lld %4lld %-11s %14.2f  ",
			(long long)json_integer_value(json_object_get(cj, "id")),
			json_string_value(json_object_get(cj, "module")), p,
			(long long)json_integer_value(json_object_get(cj, "threads")),
			(long long)json_integer_value(json_object_get(cj, "repeat")),
			json_string_value(json_object_get(cj, "status")),
			JNUM(json_object_get(m, "events_per_sec"), "value"));
		if (pv && strcmp(pm, "events_per_sec"))
			fprintf(f, "%s %.2f %s", pm, JNUM(pv, "value"), json_string_value(json_object_get(pv, "unit")));
		if (JNUM(cj, "error_rate") > 0)
			fprintf(f, "%serrors %.2f%%", pv && strcmp(pm, "events_per_sec") ? "  " : "", 100 * JNUM(cj, "error_rate"));
		fputc('\n', f);
		ok += !strcmp(json_string_value(json_object_get(cj, "status")), "ok");
		free(p);
	}
	fprintf(f, "%zu of %zu cases ok\n", ok, json_array_size(cases));
}

static void csv_field(char **s, size_t *len, size_t *cap, const char *v, int last)
{
	size_t need = strlen(v) * 2 + 4;
	if (*len + need >= *cap) {
		*cap = (*len + need) * 2;
		*s = realloc(*s, *cap);
	}
	int quote = strpbrk(v, ",\"\n") != NULL;
	if (quote)
		(*s)[(*len)++] = '"';
	for (const char *p = v; *p; p++) {
		if (*p == '"')
			(*s)[(*len)++] = '"';
		(*s)[(*len)++] = *p;
	}
	if (quote)
		(*s)[(*len)++] = '"';
	(*s)[(*len)++] = last ? '\n' : ',';
	(*s)[*len] = '\0';
}

char *bc_csv(json_t *doc)
{
	static const char *head[] = { "case", "module", "params", "threads", "repeat", "status",
				      "metric", "value", "unit", "higher_is_better" };
	size_t len = 0, cap = 4096, i;
	char *s = bc_xcalloc(cap, 1), num[64];
	json_t *cj;
	for (size_t h = 0; h < 10; h++)
		csv_field(&s, &len, &cap, head[h], h == 9);
	json_array_foreach(json_object_get(doc, "cases"), i, cj) {
		char *p = bc_params_text(json_object_get(cj, "params"), NULL);
		const char *k;
		json_t *m, *ms = json_object_get(cj, "metrics"), *none = NULL;
		if (!json_object_size(ms))	/* a failed or skipped case: one row, so it is seen */
			ms = none = json_pack("{s:{s:s}}", "", "unit", "");
		json_object_foreach(ms, k, m) {
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(json_object_get(cj, "id")));
			csv_field(&s, &len, &cap, num, 0);
			csv_field(&s, &len, &cap, json_string_value(json_object_get(cj, "module")), 0);
			csv_field(&s, &len, &cap, p, 0);
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(json_object_get(cj, "threads")));
			csv_field(&s, &len, &cap, num, 0);
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(json_object_get(cj, "repeat")));
			csv_field(&s, &len, &cap, num, 0);
			csv_field(&s, &len, &cap, json_string_value(json_object_get(cj, "status")), 0);
			csv_field(&s, &len, &cap, k, 0);
			snprintf(num, sizeof(num), "%.6g", JNUM(m, "value"));
			csv_field(&s, &len, &cap, none ? "" : num, 0);
			csv_field(&s, &len, &cap, json_string_value(json_object_get(m, "unit")), 0);
			csv_field(&s, &len, &cap, none ? "" : json_is_true(json_object_get(m, "higher_is_better")) ? "true" : "false", 1);
		}
		json_decref(none);
		free(p);
	}
	return s;
}

static void group_add(json_t *metrics, const char *name, const char *unit, int hib, double v)
{
	json_t *g = json_object_get(metrics, name);
	if (!g) {
		g = json_pack("{s:s, s:b, s:[]}", "unit", unit, "higher_is_better", hib, "values");
		json_object_set_new(metrics, name, g);
	}
	json_array_append_new(json_object_get(g, "values"), json_real(v));
}

static void group_collect(json_t *metrics, json_t *cj)
{
	const char *k;
	json_t *m;
	json_object_foreach(json_object_get(cj, "metrics"), k, m)
		group_add(metrics, k, json_string_value(json_object_get(m, "unit")),
			  json_is_true(json_object_get(m, "higher_is_better")), JNUM(m, "value"));
	group_add(metrics, "fairness_events_stddev", "events", 0,
		  JNUM(json_object_get(cj, "fairness"), "events_stddev"));
	json_t *cv = json_object_get(json_object_get(cj, "stability"), "interval_cv");
	if (json_is_number(cv))
		group_add(metrics, "interval_cv", "ratio", 0, json_number_value(cv));
	json_object_foreach(json_object_get(cj, "ops"), k, m) {
		json_t *lat = json_object_get(m, "latency_ns");
		if (json_integer_value(json_object_get(m, "count"))) {
			group_add(metrics, "p50_ms", "ms", 0, JNUM(lat, "p50") / 1e6);
			group_add(metrics, "p99_ms", "ms", 0, JNUM(lat, "p99") / 1e6);
		}
		break;	/* op class 0 only */
	}
}

static void group_stats(json_t *metrics)
{
	const char *k;
	json_t *g;
	json_object_foreach(metrics, k, g) {
		json_t *vals = json_object_get(g, "values");
		size_t n = json_array_size(vals);
		double *v = bc_xcalloc(n, sizeof(double));
		for (size_t i = 0; i < n; i++)
			v[i] = json_number_value(json_array_get(vals, i));
		bc_summary s;
		bc_stats_summary(v, n, &s);
		free(v);
		json_object_set_new(g, "mean", json_real(s.mean));
		json_object_set_new(g, "median", json_real(s.median));
		json_object_set_new(g, "stddev", json_real(s.stddev));
		json_object_set_new(g, "cv", json_real(s.cv));
		json_object_set_new(g, "ci95_low", json_real(s.ci95_low));
		json_object_set_new(g, "ci95_high", json_real(s.ci95_high));
	}
}

json_t *bc_groups(json_t *cases)
{
	json_t *groups = json_array(), *index = json_object(), *cj;
	size_t i;
	json_array_foreach(cases, i, cj) {
		if (strcmp(json_string_value(json_object_get(cj, "status")), "ok"))
			continue;
		char *p = json_dumps(json_object_get(cj, "params"), JSON_SORT_KEYS | JSON_COMPACT);
		char *key = bc_xasprintf("%s|%s|%lld", json_string_value(json_object_get(cj, "module")), p,
					 (long long)json_integer_value(json_object_get(cj, "threads")));
		json_t *g = json_object_get(index, key);
		if (!g) {
			g = json_pack("{s:O, s:O, s:O, s:i, s:{}}", "module", json_object_get(cj, "module"),
				      "params", json_object_get(cj, "params"), "threads",
				      json_object_get(cj, "threads"), "repeats", 0, "metrics");
			json_object_set_new(index, key, g);
			json_array_append(groups, g);
		}
		json_object_set_new(g, "repeats", json_integer(json_integer_value(json_object_get(g, "repeats")) + 1));
		group_collect(json_object_get(g, "metrics"), cj);
		free(p);
		free(key);
	}
	json_array_foreach(groups, i, cj)
		group_stats(json_object_get(cj, "metrics"));
	json_decref(index);
	return groups;
}
