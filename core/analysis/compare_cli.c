/* `benchcore compare`: command line and the text, JSON and CSV forms of
   what compare.c decided, plus the scaling view of single files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "tables.h"
#include "util.h"

#define MAX_FILES	16
#define MAX_POINTS	256

static const char compare_help[] =
"usage: benchcore compare [OPTIONS] A.json B.json [C.json ...]\n"
"       benchcore compare [OPTIONS] --scaling A.json [B.json ...]\n"
"       benchcore compare [OPTIONS] A.json          (one file: the scaling view)\n"
"\n"
"Compares result files case by case. A is the baseline; every other file is\n"
"compared with A. Cases match when module, params and threads are equal; the\n"
"repeats (ok cases) of each side are the two samples. Compared per case:\n"
"every metric in cases[].metrics (its higher_is_better as declared),\n"
"fairness_events_stddev (fairness.events_stddev, lower is better),\n"
"interval_cv (stability.interval_cv, lower is better) and OP.p50_ms, OP.p99_ms\n"
"(ops.OP.latency_ns, lower is better).\n"
"\n"
"Verdict for B against A, per case and metric, decided in this order:\n"
"  inconclusive  too few repeats for the test to ever reach p < alpha\n"
"                (Welch: 2 on each side; Mann-Whitney U at alpha 0.05: 4)\n"
"  tie           the adjusted p >= alpha: every test of the comparison (all\n"
"                cases x metrics of B against A) is one family, adjusted with\n"
"                weighted Benjamini-Hochberg so that at most alpha of the\n"
"                verdicts are expected to be false discoveries (48 tests at\n"
"                alpha 0.05 would otherwise give 2-3 wins or losses by chance\n"
"                alone); headline metrics get half of the budget, the\n"
"                secondary ones the other half\n"
"  tie           |B/A - 1| below the metric's practical threshold, by kind:\n"
"                throughput 2% (--threshold), latency (mean, p50) 5%, tail\n"
"                (p90 and above) 15%, fairness and stability 50%; a module\n"
"                may declare its own per metric, --threshold-for beats both\n"
"  inconclusive  the difference is within the noise of the repeats: the 95%\n"
"                half-width of the difference of the means (about 1.5 times\n"
"                the larger CV at 5 repeats); says how many repeats would\n"
"                resolve it\n"
"  suspect       it would be a win or loss, but a case of either side ran\n"
"                while the hypervisor (cpu.steal_pct) or other processes\n"
"                (cpu.other_pct) took >= 5% of the machine's CPU: counted\n"
"                apart, never as a win or loss\n"
"  win / loss    otherwise, in B's favour / against it\n"
"The summary counts each module's headline metric (case.headline, e.g.\n"
"events_per_sec) apart from the secondary ones.\n"
"\n"
"Options:\n";

enum { F_JSON = 1, F_CSV, F_SCALING, F_HELP, F_TABLE, F_SUMMARY_TABLE, F_PER_GHZ, F_INDEX, F_BY,
       F_METRIC, F_FORMAT };
static const bc_flag compare_flags[] = {
	BC_CMP_FLAGS,
	{ "table", 0, NULL, F_TABLE, "a table of cases x files: each case's headline (or --metric), "
	  "mean ±95% interval, and every file's verdict against the first (the studies' tables)" },
	{ "by", 0, "MODULE.OPTION", F_BY, "with --table or --per-ghz: one row per value of the option, in "
	  "the order first met (e.g. --by redis.tests: tests x files)" },
	{ "metric", 0, "NAME", F_METRIC, "with --table or --per-ghz: this metric instead of each case's "
	  "headline (e.g. fairness_events_stddev, read.p99_ms)" },
	{ "summary-table", 0, NULL, F_SUMMARY_TABLE, "one row per module's headline, its fairness (stddev of "
	  "events per thread) and the mean latency of the op classes it records; per file: who wins, or tie "
	  "(the first study's closing table)" },
	{ "per-ghz", 0, NULL, F_PER_GHZ, "throughput per GHz of the clock measured during each case, and "
	  "for each file the ratio of throughputs against the ratio of clocks: proportional within 5% or not "
	  "(the frequency study's conclusion)" },
	{ "index", 0, NULL, F_INDEX, "a UnixBench-style index of every file against the first (100): per "
	  "module and overall, the geometric mean of the headline ratios, with a 95% interval and the cases "
	  "it covers" },
	{ "format", 0, "text|markdown|csv", F_FORMAT, "the form of --table, --summary-table, --per-ghz and "
	  "--index (default text)" },
	{ "json", 0, NULL, F_JSON, "JSON on stdout instead of text" },
	{ "csv", 0, NULL, F_CSV, "CSV on stdout, one line per case and metric" },
	{ "scaling", 0, NULL, F_SCALING, "for each file: speedup and efficiency of every higher-is-better "
	  "metric against the smallest thread count of each module and params (1 thread when run), "
	  "e.g. \"4 threads: 3.90x = 98% of linear\"" },
	{ "help", 'h', NULL, F_HELP, "this text" },
	{ NULL }
};

static const char compare_help_tail[] =
"\n"
"Warns when the host fingerprints differ in more than one field (host name,\n"
"current MHz, warnings and io.path are ignored) and lists the differences.\n"
"Exit status: 0 when the comparison was made (whatever the verdicts),\n"
"2 on a usage error or an unreadable or invalid results file.\n";

enum { FMT_TEXT, FMT_JSON, FMT_CSV };

/* A percentage: "2", "0.5%", 0..1000. */
static int parse_pct(const char *s, double *frac)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%") != 0) || !(v >= 0) || v > 1000)
		return -1;
	*frac = v / 100;
	return 0;
}

static int set_override(bc_cmp_opts *o, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0, i;
	double frac;

	if (!eq || len == 0 || len >= sizeof(o->over[0].name) || parse_pct(eq + 1, &frac) < 0) {
		snprintf(err, errlen, "--threshold-for %s: wants METRIC=PCT or KIND=PCT (KIND: "
			 "throughput, latency, tail, fairness), e.g. read.p99_ms=15", arg);
		return -1;
	}
	for (i = 0; i < o->nover; i++)	/* the last one given wins */
		if (strlen(o->over[i].name) == len && !strncmp(o->over[i].name, arg, len))
			break;
	if (i == BC_CMP_MAX_OVERRIDES) {
		snprintf(err, errlen, "--threshold-for %s: at most %d of them", arg,
			 BC_CMP_MAX_OVERRIDES);
		return -1;
	}
	memcpy(o->over[i].name, arg, len);
	o->over[i].name[len] = '\0';
	o->over[i].frac = frac;
	if (i == o->nover)
		o->nover++;
	return 0;
}

/* --match-ignore a,b: option names ([a-z0-9_]+), each kept once. */
static int add_ignore(bc_cmp_opts *o, const char *arg, char *err, size_t errlen)
{
	char **v = bc_split(arg, ',');
	int rc = 0;
	for (char **p = v; *p && !rc; p++) {
		size_t l = strlen(*p), dup = 0;
		if (!l || l >= sizeof(o->ignore[0]) || strspn(*p, "abcdefghijklmnopqrstuvwxyz0123456789_") != l) {
			snprintf(err, errlen, "--match-ignore %s: wants option names (lower case, digits, _), "
				 "e.g. server or path,socket", arg);
			rc = -1;
			break;
		}
		for (size_t i = 0; i < o->nignore; i++)
			dup |= !strcmp(o->ignore[i], *p);
		if (dup)
			continue;
		if (o->nignore == BC_CMP_MAX_OVERRIDES) {
			snprintf(err, errlen, "--match-ignore: at most %d options", BC_CMP_MAX_OVERRIDES);
			rc = -1;
			break;
		}
		snprintf(o->ignore[o->nignore++], sizeof(o->ignore[0]), "%s", *p);
	}
	bc_strv_free(v);
	return rc;
}

int bc_cmp_option(bc_cmp_opts *o, int code, const char *arg, char *err, size_t errlen)
{
	char *end;

	switch (code) {
	case BC_OPT_THRESHOLD:
		if (parse_pct(arg, &o->kind_threshold[BC_KIND_THROUGHPUT]) == 0)
			return 0;
		snprintf(err, errlen, "--threshold %s: wants a percentage from 0 to 1000, "
			 "e.g. 2 or 0.5%%", arg);
		return -1;
	case BC_OPT_THRESHOLD_FOR:
		return set_override(o, arg, err, errlen);
	case BC_OPT_ALPHA:
		o->alpha = strtod(arg, &end);
		if (end != arg && !*end && o->alpha > 0 && o->alpha < 1)
			return 0;
		snprintf(err, errlen, "--alpha %s: wants a number between 0 and 1", arg);
		return -1;
	case BC_OPT_TEST:
		if (!strcmp(arg, "mwu") || !strcmp(arg, "welch")) {
			o->test = strcmp(arg, "welch") == 0 ? BC_TEST_WELCH : BC_TEST_MWU;
			return 0;
		}
		snprintf(err, errlen, "--test %s: wants welch or mwu", arg);
		return -1;
	case BC_OPT_ADJUST:
		if (!strcmp(arg, "bh") || !strcmp(arg, "holm") || !strcmp(arg, "none")) {
			o->adjust = !strcmp(arg, "bh") ? BC_ADJ_BH : !strcmp(arg, "holm") ?
				    BC_ADJ_HOLM : BC_ADJ_NONE;
			return 0;
		}
		snprintf(err, errlen, "--adjust %s: wants bh, holm or none", arg);
		return -1;
	case BC_OPT_MATCH_IGNORE:
		return add_ignore(o, arg, err, errlen);
	}
	snprintf(err, errlen, "unknown option");
	return -1;
}

static void print_value(FILE *f, double v)
{
	if (isnan(v))
		fputs("n/a", f);
	else if (fabs(v) >= 100 || v == 0)
		fprintf(f, "%.1f", v);
	else
		fprintf(f, "%.4g", v);
}

static void print_host_diff(FILE *f, json_t *diff)
{
	size_t i;
	json_t *d;

	if (json_array_size(diff) <= 1)
		return;
	fprintf(f, "warning: the fingerprints differ in %zu fields, not just the one being "
		"compared:\n", json_array_size(diff));
	const char *kind = "";
	json_array_foreach(diff, i, d) {
		json_t *a = json_object_get(d, "a"), *b = json_object_get(d, "b");
		const char *k = json_string_value(json_object_get(d, "kind"));
		if (k && strcmp(k, kind)) {
			fputs(strcmp(k, "host") ? " the modules (versions, settings they recorded):\n" :
			      " the machine:\n", f);
			kind = k;
		}
		char *fs = bc_printable(json_string_value(json_object_get(d, "field")));
		char *as = bc_printable(json_is_string(a) ? json_string_value(a) : "(absent)");
		char *bs = bc_printable(json_is_string(b) ? json_string_value(b) : "(absent)");
		fprintf(f, "  %-24s A: %s\n  %-24s B: %s\n", fs, as, "", bs);
		free(fs);
		free(as);
		free(bs);
	}
	fputc('\n', f);
}

static void print_row(FILE *f, const bc_cmp *c, const bc_cmp_row *r)
{
	fprintf(f, "  %7ld  %-26s %s ", r->ga->threads, r->ma->name,
		r->ma->higher_is_better ? "^" : "v");
	print_value(f, r->sa.mean);
	fputs(" -> ", f);
	print_value(f, r->sb.mean);
	if (*r->ma->unit)
		fprintf(f, " %s", r->ma->unit);
	if (isfinite(r->change))
		fprintf(f, "  %+.1f%%", r->change * 100);
	fprintf(f, "  n=%zu/%zu", r->sa.n, r->sb.n);
	if (r->tested)
		fprintf(f, "  %s %s=%.4g p=%.4f p_adj=%.4f", bc_row_test_name(c, r),
			c->opts.test == BC_TEST_WELCH ? "t" : "U", r->test.stat, r->test.p, r->p_adj);
	fprintf(f, "  %s", bc_verdict_name(r->verdict));
	if (*r->reason)
		fprintf(f, " (%s)", r->reason);
	fputc('\n', f);
}

/* "module metric: B wins / A wins / tie / mixed" over all params and threads. */
static void print_items(FILE *f, const bc_cmp *c)
{
	size_t n;
	bc_cmp_item *it = bc_cmp_items(c, &n);

	for (size_t i = 0; i < n; i++) {
		const size_t *v = it[i].count;
		fprintf(f, "  %-8s %-26s ", it[i].module, it[i].metric);
		switch (it[i].result) {
		case BC_ITEM_B_WINS: fprintf(f, "%s wins", c->b->label); break;
		case BC_ITEM_A_WINS: fprintf(f, "%s wins", c->a->label); break;
		case BC_ITEM_MIXED: fputs("mixed", f); break;
		case BC_ITEM_TIE: fputs("tie", f); break;
		case BC_ITEM_SUSPECT: fputs("suspect", f); break;
		default: fputs("inconclusive", f);
		}
		fprintf(f, " (%zu win, %zu loss, %zu tie, %zu inconclusive, %zu suspect)\n",
			v[BC_V_WIN], v[BC_V_LOSS], v[BC_V_TIE], v[BC_V_INCONCLUSIVE], v[BC_V_SUSPECT]);
	}
	free(it);
}

static const char *adjust_name(int adjust)
{
	return adjust == BC_ADJ_BH ? "Benjamini-Hochberg" : adjust == BC_ADJ_HOLM ? "Holm" : "none";
}

/* How the verdicts below were decided, in two lines. */
static void print_method(FILE *f, const bc_cmp *c)
{
	const bc_cmp_opts *o = &c->opts;

	if (o->test == BC_TEST_WELCH)
		fputs("test: Welch's t, two-sided (welch-log: on the logs of the values)", f);
	else
		fputs("test: Mann-Whitney U, two-sided (mwu-exact: exact distribution; "
		      "mwu-normal: normal approximation with tie correction)", f);
	fprintf(f, ", alpha %g on p adjusted over %zu tests (%s)\n", o->alpha, c->ntested,
		adjust_name(o->adjust));
	fputs("thresholds:", f);
	for (int k = 0; k < BC_KIND_N; k++)
		fprintf(f, "%s %s %g%%", k ? "," : "", bc_kind_name(k), o->kind_threshold[k] * 100);
	for (size_t i = 0; i < o->nover; i++)
		fprintf(f, ", %s %g%%", o->over[i].name, o->over[i].frac * 100);
	fprintf(f, "; noisy differences are inconclusive; steal or other >= %g%% makes a "
		"verdict suspect\n", o->busy_pct);
	bc_cmp_matching_note(f, o);
	fputc('\n', f);
}

static void summary_part(FILE *f, const char *what, const size_t *v)
{
	fprintf(f, "%s %zu wins, %zu losses, %zu ties, %zu inconclusive, %zu suspect", what,
		v[BC_V_WIN], v[BC_V_LOSS], v[BC_V_TIE], v[BC_V_INCONCLUSIVE], v[BC_V_SUSPECT]);
}

void bc_cmp_summary_text(FILE *f, const bc_cmp *c)
{
	summary_part(f, "headline", c->count_head);
	summary_part(f, "; secondary", c->count_sec);
}

void bc_compare_print_text(FILE *f, const bc_cmp *c)
{
	const char *mod = NULL, *par = NULL;

	fprintf(f, "A: %s (%s)\nB: %s (%s)\n", c->a->label, c->a->path, c->b->label, c->b->path);
	bc_cmp_explain(f, c);
	print_method(f, c);
	print_host_diff(f, c->host_diff);
	const bc_rgroup *last_ga = NULL;
	for (size_t i = 0; i < c->nrows; i++) {
		const bc_cmp_row *r = &c->rows[i];
		if (!mod || strcmp(mod, r->ga->module) || strcmp(par, r->ga->params_key)) {
			mod = r->ga->module;
			par = r->ga->params_key;
			fprintf(f, "%s %s\n  threads  metric (^ higher / v lower is better): A -> B\n",
				mod, r->ga->params_text);
		}
		if (r->ga != last_ga && (r->ga->unsteady || r->gb->unsteady))
			fprintf(f, "  %7ld  warmup never steady in %zu case(s) of A, %zu of B: the numbers may still "
				"have been moving\n", r->ga->threads, r->ga->unsteady, r->gb->unsteady);
		last_ga = r->ga;
		print_row(f, c, r);
	}
	for (size_t i = 0; i < c->nonly_a; i++)
		fprintf(f, "only in A: %s %s threads=%ld\n", c->only_a[i]->module,
			c->only_a[i]->params_text, c->only_a[i]->threads);
	for (size_t i = 0; i < c->nonly_b; i++)
		fprintf(f, "only in B: %s %s threads=%ld\n", c->only_b[i]->module,
			c->only_b[i]->params_text, c->only_b[i]->threads);
	if (c->nrows == 0)
		fputs("no case of B matches a case of A: module, params and threads must all be equal\n", f);
	fprintf(f, "\nsummary, %s against %s:\n", c->b->label, c->a->label);
	print_items(f, c);
	fprintf(f, "%s: ", c->b->label);
	bc_cmp_summary_text(f, c);
	fprintf(f, " (over %zu case x metric comparisons)\n", c->nrows);
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *row_json(const bc_cmp *c, const bc_cmp_row *r)
{
	json_t *params = json_loads(r->ga->params_key, 0, NULL);
	json_t *j = json_pack("{s:s, s:o, s:I, s:s, s:s, s:b, s:I, s:o, s:o, s:I, s:o, s:o,"
			      " s:o, s:o, s:s, s:s}",
		"module", r->ga->module, "params", params ? params : json_object(),
		"threads", (json_int_t)r->ga->threads, "metric", r->ma->name,
		"unit", r->ma->unit, "higher_is_better", r->ma->higher_is_better,
		"a_n", (json_int_t)r->sa.n, "a_mean", num_or_null(r->sa.mean),
		"a_stddev", num_or_null(r->sa.stddev),
		"b_n", (json_int_t)r->sb.n, "b_mean", num_or_null(r->sb.mean),
		"b_stddev", num_or_null(r->sb.stddev),
		"ratio", num_or_null(r->ratio), "change_pct", num_or_null(r->change * 100),
		"test", bc_row_test_name(c, r), "verdict", bc_verdict_name(r->verdict));
	json_object_set_new(j, "headline", json_boolean(r->headline));
	json_object_set_new(j, "kind", json_string(bc_kind_name(r->kind)));
	json_object_set_new(j, "threshold_pct", num_or_null(r->threshold * 100));
	json_object_set_new(j, "threshold_source", json_string(r->threshold_src));
	json_object_set_new(j, "noise_pct", num_or_null(r->noise * 100));
	json_object_set_new(j, "busy", json_boolean(r->busy));
	json_object_set_new(j, "busy_pct", r->busy_pct >= 0 ? json_real(r->busy_pct) : json_null());
	if (r->need_n)
		json_object_set_new(j, "needs_repeats", json_integer((json_int_t)r->need_n));
	if (r->verdict == BC_V_SUSPECT)
		json_object_set_new(j, "direction", json_string(bc_verdict_name(r->direction)));
	if (r->tested) {
		json_object_set_new(j, "statistic", num_or_null(r->test.stat));
		json_object_set_new(j, "p", json_real(r->test.p));
		json_object_set_new(j, "p_adj", json_real(r->p_adj));
		if (c->opts.test == BC_TEST_WELCH)
			json_object_set_new(j, "df", num_or_null(r->test.df));
		else if (r->test.method == BC_MWU_NORMAL)
			json_object_set_new(j, "z", json_real(r->test.z));
	}
	json_object_set_new(j, "reason", *r->reason ? json_string(r->reason) : json_null());
	return j;
}

static json_t *groups_json(const bc_rgroup *const *g, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *params = json_loads(g[i]->params_key, 0, NULL);
		json_array_append_new(a, json_pack("{s:s, s:o, s:I}", "module", g[i]->module,
			"params", params ? params : json_object(), "threads", (json_int_t)g[i]->threads));
	}
	return a;
}

static json_t *counts_json(const size_t *v)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "wins", (json_int_t)v[BC_V_WIN],
		"losses", (json_int_t)v[BC_V_LOSS], "ties", (json_int_t)v[BC_V_TIE],
		"inconclusive", (json_int_t)v[BC_V_INCONCLUSIVE], "suspect", (json_int_t)v[BC_V_SUSPECT]);
}

json_t *bc_compare_json(const bc_cmp *c)
{
	json_t *rows = json_array(), *sum = counts_json(c->count);

	for (size_t i = 0; i < c->nrows; i++)
		json_array_append_new(rows, row_json(c, &c->rows[i]));
	json_object_set_new(sum, "headline", counts_json(c->count_head));
	json_object_set_new(sum, "secondary", counts_json(c->count_sec));
	json_object_set_new(sum, "tests", json_integer((json_int_t)c->ntested));
	return json_pack("{s:s, s:s, s:s, s:O, s:o, s:o, s:o, s:o}",
		"file", c->b->path, "label", c->b->label,
		"baseline", c->a->label, "host_differences", c->host_diff, "rows", rows,
		"only_in_a", groups_json(c->only_a, c->nonly_a),
		"only_in_b", groups_json(c->only_b, c->nonly_b), "summary", sum);
}

void bc_compare_print_csv(FILE *f, const bc_cmp *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const bc_cmp_row *r = &c->rows[i];
		const char *text[] = { c->a->label, c->b->label, r->ga->module, r->ga->params_text };
		for (int k = 0; k < 4; k++) {
			bc_csv_cell(f, text[k]);
			fputc(',', f);
		}
		fprintf(f, "%ld,", r->ga->threads);
		bc_csv_cell(f, r->ma->name);
		fputc(',', f);
		bc_csv_cell(f, r->ma->unit);
		fprintf(f, ",%d,%zu,%.17g,%.17g,%zu,%.17g,%.17g,", r->ma->higher_is_better,
			r->sa.n, r->sa.mean, r->sa.stddev, r->sb.n, r->sb.mean, r->sb.stddev);
		if (isfinite(r->ratio))
			fprintf(f, "%.6g", r->ratio);
		fprintf(f, ",%s,", bc_row_test_name(c, r));
		if (r->tested)
			fprintf(f, "%.6g,%.6g", r->test.stat, r->test.p);
		else
			fputc(',', f);
		fprintf(f, ",%s,", bc_verdict_name(r->verdict));
		bc_csv_cell(f, r->reason);
		fputc(',', f);
		if (r->tested)
			fprintf(f, "%.6g", r->p_adj);
		fprintf(f, ",%s,%g,%d,%d\n", bc_kind_name(r->kind), r->threshold * 100,
			r->headline, r->busy);
	}
}

static const char csv_header[] =
	"baseline,candidate,module,params,threads,metric,unit,higher_is_better,"
	"a_n,a_mean,a_stddev,b_n,b_mean,b_stddev,ratio,test,statistic,p,verdict,reason,"
	"p_adj,kind,threshold_pct,headline,busy\n";

/* Scaling view: every higher-is-better module metric of every (module,
   params) thread sweep. */
static json_t *scaling_one(FILE *f, const bc_results *r, int fmt)
{
	json_t *out = json_array();
	bc_scale_point pts[MAX_POINTS];

	if (fmt == FMT_TEXT)
		fprintf(f, "scaling of %s (%s): speedup against the smallest thread count\n",
			r->label, r->path);
	for (size_t i = 0; i < r->ngroups; i++) {
		const bc_rgroup *g = &r->groups[i];
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(r->groups[j].module, g->module) &&
			       !strcmp(r->groups[j].params_key, g->params_key);
		for (size_t m = 0; !seen && m < g->nmetrics; m++) {
			const bc_rmetric *met = &g->metrics[m];
			if (met->kind != BC_MK_METRIC || !met->higher_is_better)
				continue;
			size_t n = bc_scaling(r, g->module, g->params_key, met->name, pts, MAX_POINTS);
			json_t *jp = json_array();
			if (fmt == FMT_TEXT)
				fprintf(f, "%s %s  %s (%s), base %ld thread%s:\n", g->module, g->params_text,
					met->name, met->unit, pts[0].threads, pts[0].threads > 1 ? "s" : "");
			for (size_t k = 0; k < n; k++) {
				if (fmt == FMT_TEXT) {
					fprintf(f, "  %4ld threads: ", pts[k].threads);
					print_value(f, pts[k].mean);
					fprintf(f, " = %.2fx = %.0f%% of linear\n", pts[k].speedup,
						pts[k].efficiency * 100);
				}
				json_array_append_new(jp, json_pack("{s:I, s:o, s:o, s:o}",
					"threads", (json_int_t)pts[k].threads, "mean", num_or_null(pts[k].mean),
					"speedup", num_or_null(pts[k].speedup),
					"efficiency", num_or_null(pts[k].efficiency)));
			}
			json_t *params = json_loads(g->params_key, 0, NULL);
			json_array_append_new(out, json_pack("{s:s, s:o, s:s, s:s, s:o}",
				"module", g->module, "params", params ? params : json_object(),
				"metric", met->name, "unit", met->unit, "points", jp));
		}
	}
	return json_pack("{s:s, s:s, s:o}", "file", r->path, "label", r->label, "scaling", out);
}

static int run_scaling(bc_results *res, int nres, int fmt)
{
	json_t *all = json_array();

	if (fmt == FMT_CSV)
		printf("file,label,module,params,metric,unit,threads,mean,speedup,efficiency\n");
	for (int i = 0; i < nres; i++) {
		json_t *s = scaling_one(stdout, &res[i], fmt), *e, *p;
		size_t k, q;
		if (fmt == FMT_CSV)
			json_array_foreach(json_object_get(s, "scaling"), k, e) {
				json_array_foreach(json_object_get(e, "points"), q, p) {
					char *pk = json_dumps(json_object_get(e, "params"), JSON_COMPACT | JSON_SORT_KEYS);
					bc_csv_cell(stdout, res[i].path); putchar(',');
					bc_csv_cell(stdout, res[i].label); putchar(',');
					bc_csv_cell(stdout, json_string_value(json_object_get(e, "module"))); putchar(',');
					bc_csv_cell(stdout, pk ? pk : ""); putchar(',');
					bc_csv_cell(stdout, json_string_value(json_object_get(e, "metric"))); putchar(',');
					bc_csv_cell(stdout, json_string_value(json_object_get(e, "unit")));
					printf(",%lld,%.17g,%.6g,%.6g\n",
					       (long long)json_integer_value(json_object_get(p, "threads")),
					       json_number_value(json_object_get(p, "mean")),
					       json_number_value(json_object_get(p, "speedup")),
					       json_number_value(json_object_get(p, "efficiency")));
					free(pk);
				}
			}
		else if (fmt == FMT_TEXT && i + 1 < nres)
			putchar('\n');
		json_array_append_new(all, s);
	}
	if (fmt == FMT_JSON) {
		json_dumpf(all, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		putchar('\n');
	}
	json_decref(all);
	return 0;
}

static int run_compare(bc_results *res, int nres, const bc_cmp_opts *o, int fmt)
{
	json_t *all = json_array();

	if (fmt == FMT_CSV)
		fputs(csv_header, stdout);
	for (int i = 1; i < nres; i++) {
		bc_cmp c;
		bc_compare_pair(&res[0], &res[i], o, &c);
		if (fmt == FMT_TEXT) {
			if (i > 1)
				puts("\n");
			bc_compare_print_text(stdout, &c);
		} else if (fmt == FMT_CSV) {
			bc_compare_print_csv(stdout, &c);
		} else {
			json_array_append_new(all, bc_compare_json(&c));
		}
		bc_cmp_free(&c);
	}
	if (fmt == FMT_JSON) {
		json_t *th = json_object();
		for (int k = 0; k < BC_KIND_N; k++)
			json_object_set_new(th, bc_kind_name(k), json_real(o->kind_threshold[k] * 100));
		for (size_t k = 0; k < o->nover; k++)
			json_object_set_new(th, o->over[k].name, json_real(o->over[k].frac * 100));
		json_t *doc = json_pack("{s:s, s:{s:s, s:s}, s:s, s:s, s:f, s:f, s:o, s:f, s:o}",
			"schema", "benchcore-compare/1",
			"baseline", "file", res[0].path, "label", res[0].label,
			"test", o->test == BC_TEST_WELCH ? "welch" : "mann-whitney-u",
			"adjust", o->adjust == BC_ADJ_BH ? "bh" : o->adjust == BC_ADJ_HOLM ? "holm" : "none",
			"alpha", o->alpha, "threshold", o->kind_threshold[BC_KIND_THROUGHPUT],
			"thresholds_pct", th, "busy_pct", o->busy_pct, "comparisons", all);
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		putchar('\n');
		json_decref(doc);
	} else {
		json_decref(all);
	}
	return 0;
}

typedef struct compare_args {
	bc_cmp_opts o;
	int fmt, scaling, help;
	int view;		/* F_TABLE, F_SUMMARY_TABLE, F_PER_GHZ, F_INDEX or 0 */
	bc_tab_opts tab;
} compare_args;

static int on_compare_flag(void *arg, const bc_flag *f, const char *val, char *err, size_t n)
{
	compare_args *a = arg;
	switch (f->code) {
	case F_JSON: a->fmt = FMT_JSON; return 0;
	case F_CSV: a->fmt = FMT_CSV; return 0;
	case F_SCALING: a->scaling = 1; return 0;
	case F_HELP: a->help = 1; return 0;
	case F_TABLE: case F_SUMMARY_TABLE: case F_PER_GHZ: case F_INDEX:
		if (a->view && a->view != f->code) {
			snprintf(err, n, "--%s: give one of --table, --summary-table, --per-ghz and --index", f->lng);
			return -1;
		}
		a->view = f->code;
		return 0;
	case F_BY:
		if (!strchr(val, '.')) {
			snprintf(err, n, "--by %s: wants MODULE.OPTION, e.g. redis.tests", val);
			return -1;
		}
		a->tab.by = val;
		return 0;
	case F_METRIC: a->tab.metric = val; return 0;
	case F_FORMAT:
		a->tab.format = !strcmp(val, "text") ? BC_TAB_TEXT : !strcmp(val, "markdown") ? BC_TAB_MARKDOWN :
				!strcmp(val, "csv") ? BC_TAB_CSV : -1;
		if (a->tab.format < 0) {
			snprintf(err, n, "--format %s: wants text, markdown or csv", val);
			return -1;
		}
		return 0;
	}
	return bc_cmp_option(&a->o, f->code, val, err, n);
}

/* --table, --summary-table, --per-ghz, --index (tables.c). */
static int run_view(const compare_args *a, bc_results *res, int n)
{
	if (n < 2 && a->view != F_TABLE) {
		fprintf(stderr, "benchcore compare: --%s wants two or more result files (the first is the "
			"baseline)\n", a->view == F_SUMMARY_TABLE ? "summary-table" : a->view == F_PER_GHZ ?
			"per-ghz" : "index");
		return 2;
	}
	switch (a->view) {
	case F_TABLE: return bc_table(stdout, res, n, &a->o, &a->tab);
	case F_SUMMARY_TABLE: return bc_summary_table(stdout, res, n, &a->o, &a->tab);
	case F_PER_GHZ: return bc_per_ghz(stdout, res, n, &a->o, &a->tab);
	default: return bc_index(stdout, res, n, &a->o, &a->tab);
	}
}

int bc_cmd_compare(int argc, char **argv)
{
	compare_args a = { .o = BC_CMP_OPTS_DEFAULT, .fmt = FMT_TEXT };
	bc_results res[MAX_FILES];
	char **files;
	int nfiles, rc;

	if (bc_flags_parse("compare", compare_flags, 0, argc - 1, argv + 1, on_compare_flag, &a, &files))
		return 2;
	if (a.help) {
		fputs(compare_help, stdout);
		bc_flags_help(stdout, compare_flags, 0);
		fputs(compare_help_tail, stdout);
		free(files);
		return 0;
	}
	nfiles = (int)bc_strv_len(files);
	if (nfiles < 1 || nfiles > MAX_FILES) {
		fprintf(stderr, "benchcore compare: wants 1 to %d result files (got %d)\n"
			"Try 'benchcore compare --help'.\n", MAX_FILES, nfiles);
		free(files);
		return 2;
	}
	if (bc_load_all("compare", files, nfiles, res) < 0) {
		free(files);
		return 2;
	}
	if (a.view)
		rc = run_view(&a, res, nfiles);
	else
		rc = a.scaling || nfiles == 1 ? run_scaling(res, nfiles, a.fmt) : run_compare(res, nfiles, &a.o, a.fmt);
	if (bc_stdout_done("compare"))
		rc = 2;
	for (int i = 0; i < nfiles; i++)
		bc_results_free(&res[i]);
	free(files);
	return rc;
}
