/* What compare.c decided, as text, JSON and CSV on any FILE *, plus the
   scaling view of single files: `benchcore compare` prints through these,
   and so does the fuzz target. The command line is core/cli/compare_cli.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare_print.h"
#include "hostdiff.h"
#include "util.h"

#define MAX_POINTS	256

/* A mean for people: one decimal from 100 up (6 significant digits past
   1e12: bc_fmt_fig; 1e300 is 1e+300, never 300 digits), 4 below 100. */
static void print_value(FILE *f, double v)
{
	if (isnan(v))
		fputs("n/a", f);
	else if (fabs(v) >= 100 || v == 0)
		fputs(bc_fmt_fig(v, 1, 0, (char[BC_DOUBLE_TEXT]){ 0 }, BC_DOUBLE_TEXT), f);
	else
		fprintf(f, "%.4g", v);
}

/* A change (a fraction) as a signed percentage, one decimal (bc_fmt_fig). Returns buf. */
static const char *pct_text(char *buf, size_t n, double x)
{
	char v[BC_DOUBLE_TEXT];
	snprintf(buf, n, "%s%%", bc_fmt_fig(x * 100, 1, 1, v, sizeof(v)));
	return buf;
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
	char p1[32], p2[32];
	if (isfinite(r->change))
		fprintf(f, "  %s", pct_text(p1, sizeof(p1), r->change));
	if (r->has_ci && isfinite(r->ci_lo))
		fprintf(f, " [%s .. %s]", pct_text(p1, sizeof(p1), r->ci_lo), pct_text(p2, sizeof(p2), r->ci_hi));
	fprintf(f, "  n=%zu/%zu", r->sa.n, r->sb.n);
	if (r->tested)
		fprintf(f, "  %s %s=%.4g p=%.4f p_adj=%.4f", bc_row_test_name(c, r),
			c->opts.test == BC_TEST_WELCH ? "t" : "U", r->test.stat, r->test.p, r->p_adj);
	fprintf(f, "  %s", bc_row_verdict(r));
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
		case BC_ITEM_TIE: fputs("tie (equivalent)", f); break;
		case BC_ITEM_SUSPECT: fputs(bc_suspect_word(it[i].suspect_win, it[i].suspect_loss), f); break;
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
	fprintf(f, "\nverdicts: [..] is the %g%% interval of B/A - 1; win/loss: significant and "
		"wholly beyond the threshold; tie (equivalent): wholly inside +-threshold; "
		"inconclusive: anything else; suspect win/loss: a would-be win or loss in the direction "
		"interference could cause (steal and other processes >= %g%% of the time of the hit side's "
		"CPUs) and no larger than it can explain\n", o->level * 100, c->opts.busy_pct);
	bc_cmp_matching_note(f, o);
	fputc('\n', f);
}

static void summary_part(FILE *f, const char *what, const size_t *v)
{
	fprintf(f, "%s %zu wins, %zu losses, %zu ties (equivalent), %zu inconclusive, %zu suspect",
		what, v[BC_V_WIN], v[BC_V_LOSS], v[BC_V_TIE], v[BC_V_INCONCLUSIVE], v[BC_V_SUSPECT]);
}

/* "cpu threads=2 events_per_sec -10.0% [-10.6% .. -9.4%] loss" */
static void print_largest(FILE *f, const bc_cmp *c)
{
	size_t idx[BC_CMP_LARGEST], n = bc_cmp_largest(c, idx, BC_CMP_LARGEST);

	if (!n)
		return;
	fprintf(f, "largest headline differences (%g%% interval of B/A - 1):\n", c->opts.level * 100);
	for (size_t i = 0; i < n; i++) {
		const bc_cmp_row *r = &c->rows[idx[i]];
		char p1[32], p2[32];
		fprintf(f, "  %-8s %s%sthreads=%ld %s %s", r->ga->module, r->ga->params_text,
			*r->ga->params_text ? " " : "", r->ga->threads, r->ma->name, pct_text(p1, sizeof(p1), r->change));
		if (r->has_ci && isfinite(r->ci_lo))
			fprintf(f, " [%s .. %s]", pct_text(p1, sizeof(p1), r->ci_lo), pct_text(p2, sizeof(p2), r->ci_hi));
		fprintf(f, " %s", bc_row_verdict(r));
		if (r->need_n)
			fprintf(f, " (needs %s%zu repeats)", r->need_n >= 1000 ? ">" : "~", r->need_n);
		fputc('\n', f);
	}
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
	char busy[160];
	bc_cmp_interference_cause(c, busy, sizeof(busy));
	bc_facts_explain(f, c->host_diff, c->a->host, c->b->host, busy);
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
	print_largest(f, c);
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
	json_object_set_new(j, "ci_level_pct", json_real(c->opts.level * 100));
	json_object_set_new(j, "ci_low_pct", r->has_ci ? num_or_null(r->ci_lo * 100) : json_null());
	json_object_set_new(j, "ci_high_pct", r->has_ci ? num_or_null(r->ci_hi * 100) : json_null());
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
	json_t *big = json_array();
	size_t idx[BC_CMP_LARGEST], nbig = bc_cmp_largest(c, idx, BC_CMP_LARGEST);
	for (size_t i = 0; i < nbig; i++) {
		const bc_cmp_row *r = &c->rows[idx[i]];
		json_t *params = json_loads(r->ga->params_key, 0, NULL);
		json_array_append_new(big, json_pack("{s:s, s:o, s:I, s:s, s:o, s:o, s:o, s:s}",
			"module", r->ga->module, "params", params ? params : json_object(),
			"threads", (json_int_t)r->ga->threads, "metric", r->ma->name,
			"change_pct", num_or_null(r->change * 100),
			"ci_low_pct", r->has_ci ? num_or_null(r->ci_lo * 100) : json_null(),
			"ci_high_pct", r->has_ci ? num_or_null(r->ci_hi * 100) : json_null(),
			"verdict", bc_verdict_name(r->verdict)));
	}
	json_object_set_new(sum, "largest_headline", big);
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
		fprintf(f, ",%s,%g,%d,%d,", bc_kind_name(r->kind), r->threshold * 100,
			r->headline, r->busy);
		if (r->has_ci && isfinite(r->ci_lo))
			fprintf(f, "%.6g,%.6g", r->ci_lo * 100, r->ci_hi * 100);
		else
			fputc(',', f);
		fprintf(f, ",%g,", c->opts.level * 100);
		if (r->need_n)
			fprintf(f, "%zu", r->need_n);
		fputc('\n', f);
	}
}

static const char csv_header[] =
	"baseline,candidate,module,params,threads,metric,unit,higher_is_better,"
	"a_n,a_mean,a_stddev,b_n,b_mean,b_stddev,ratio,test,statistic,p,verdict,reason,"
	"p_adj,kind,threshold_pct,headline,busy,ci_low_pct,ci_high_pct,ci_level_pct,needs_repeats\n";

/* Scaling view: every higher-is-better module metric of every (module,
   params) thread sweep. */
static json_t *scaling_one(FILE *f, const bc_results *r, int fmt)
{
	json_t *out = json_array();
	bc_scale_point pts[MAX_POINTS];

	if (fmt == BC_FMT_TEXT)
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
			if (fmt == BC_FMT_TEXT)
				fprintf(f, "%s %s  %s (%s), base %ld thread%s:\n", g->module, g->params_text,
					met->name, met->unit, pts[0].threads, pts[0].threads > 1 ? "s" : "");
			for (size_t k = 0; k < n; k++) {
				if (fmt == BC_FMT_TEXT) {
					fprintf(f, "  %4ld threads: ", pts[k].threads);
					print_value(f, pts[k].mean);
					fprintf(f, " = %.2fx = %.0f%% of linear (", pts[k].speedup,
						pts[k].efficiency * 100);
					print_value(f, pts[k].mean / (double)pts[k].threads);	/* "500 x 8" */
					fprintf(f, " x %ld)\n", pts[k].threads);
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

void bc_scaling_print(FILE *f, const bc_results *res, int nres, int fmt)
{
	json_t *all = json_array();

	if (fmt == BC_FMT_CSV)
		fprintf(f, "file,label,module,params,metric,unit,threads,mean,speedup,efficiency\n");
	for (int i = 0; i < nres; i++) {
		json_t *s = scaling_one(f, &res[i], fmt), *e, *p;
		size_t k, q;
		if (fmt == BC_FMT_CSV)
			json_array_foreach(json_object_get(s, "scaling"), k, e) {
				json_array_foreach(json_object_get(e, "points"), q, p) {
					char *pk = json_dumps(json_object_get(e, "params"), JSON_COMPACT | JSON_SORT_KEYS);
					bc_csv_cell(f, res[i].path); fputc(',', f);
					bc_csv_cell(f, res[i].label); fputc(',', f);
					bc_csv_cell(f, json_string_value(json_object_get(e, "module"))); fputc(',', f);
					bc_csv_cell(f, pk ? pk : ""); fputc(',', f);
					bc_csv_cell(f, json_string_value(json_object_get(e, "metric"))); fputc(',', f);
					bc_csv_cell(f, json_string_value(json_object_get(e, "unit")));
					fprintf(f, ",%lld,%.17g,%.6g,%.6g\n",
					       (long long)json_integer_value(json_object_get(p, "threads")),
					       json_number_value(json_object_get(p, "mean")),
					       json_number_value(json_object_get(p, "speedup")),
					       json_number_value(json_object_get(p, "efficiency")));
					free(pk);
				}
			}
		else if (fmt == BC_FMT_TEXT && i + 1 < nres)
			fputc('\n', f);
		json_array_append_new(all, s);
	}
	if (fmt == BC_FMT_JSON) {
		json_dumpf(all, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		fputc('\n', f);
	}
	json_decref(all);
}

void bc_compare_print(FILE *f, const bc_results *res, int nres, const bc_cmp_opts *o, int fmt)
{
	json_t *all = json_array();

	if (fmt == BC_FMT_CSV)
		fputs(csv_header, f);
	for (int i = 1; i < nres; i++) {
		bc_cmp c;
		bc_compare_pair(&res[0], &res[i], o, &c);
		if (fmt == BC_FMT_TEXT) {
			if (i > 1)
				fputs("\n\n", f);
			bc_compare_print_text(f, &c);
		} else if (fmt == BC_FMT_CSV) {
			bc_compare_print_csv(f, &c);
		} else {
			json_array_append_new(all, bc_compare_json(&c));
		}
		bc_cmp_free(&c);
	}
	if (fmt == BC_FMT_JSON) {
		json_t *th = json_object();
		for (int k = 0; k < BC_KIND_N; k++)
			json_object_set_new(th, bc_kind_name(k), json_real(o->kind_threshold[k] * 100));
		for (size_t k = 0; k < o->nover; k++)
			json_object_set_new(th, o->over[k].name, json_real(o->over[k].frac * 100));
		json_t *doc = json_pack("{s:s, s:{s:s, s:s}, s:s, s:s, s:f, s:f, s:o, s:f, s:f, s:o}",
			"schema", "benchcore-compare/1",
			"baseline", "file", res[0].path, "label", res[0].label,
			"test", o->test == BC_TEST_WELCH ? "welch" : "mann-whitney-u",
			"adjust", o->adjust == BC_ADJ_BH ? "bh" : o->adjust == BC_ADJ_HOLM ? "holm" : "none",
			"alpha", o->alpha, "threshold", o->kind_threshold[BC_KIND_THROUGHPUT],
			"thresholds_pct", th, "busy_pct", o->busy_pct, "level_pct", o->level * 100,
			"comparisons", all);
		json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		fputc('\n', f);
		json_decref(doc);
	} else {
		json_decref(all);
	}
}
