/* The page of `benchcore report` (its command line: core/cli/report_cli.c):
   one self-contained HTML page (inline CSS and SVG, no script, no network)
   with, per module and params, the primary metric, fairness, latency
   percentiles and scaling efficiency against threads; the verdict tables
   from compare.c; the fingerprints side by side. Every string from a
   results file is escaped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "casesets.h"
#include "compare_print.h"
#include "hostdiff.h"
#include "options.h"
#include "refset_html.h"
#include "report_study.h"
#include "svg.h"
#include "grid.h"
#include "tables.h"
#include "util.h"

#define MAX_FILES	BC_CASES_MAX_FILES
#define MAX_PTS		256
#define MAX_PCT		16

/* One section of charts: a case (module and params) of each file, as the
   judge matched them (casesets.h); the page matches nothing itself. */
typedef bc_case_set skey;

/* One line of a chart: owns its arrays. */
typedef struct {
	double x[MAX_PTS], y[MAX_PTS], lo[MAX_PTS], hi[MAX_PTS];
	size_t n;
} line_buf;

static const char css[] =
"body{font-family:sans-serif;margin:24px;color:#222;max-width:1280px}"
"h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{margin-bottom:.2em}"
"table{border-collapse:collapse;margin:.6em 0;font-size:.9em;display:block;max-width:100%;overflow-x:auto}"
"td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}"
"th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}"
"tr.diff td{background:#fff3cd}tr.diff td:first-child{font-weight:bold}"
".win{color:#1a7f37;font-weight:bold}.loss{color:#c62828;font-weight:bold}"
".tie{color:#555}.inconclusive{color:#b26a00}.suspect{color:#8a4baf}"
"figure{display:inline-block;margin:8px 8px 8px 0;vertical-align:top}figcaption{font-size:.85em;color:#555}"
"svg.chart{font-size:12px}svg .title{font-weight:bold;font-size:13px}"
"svg .axis{font-size:12px}svg .tick,svg .legend{font-size:11px}"
".warn{color:#b26a00}.note{color:#555;font-size:.9em}";

static void esc(FILE *f, const char *s) { bc_html_escape(f, s); }
/* A system's label, isolated from the text around it (a label in another
   script direction cannot reorder the page). */
static void esc_label(FILE *f, const char *s)
{
	fputs("<bdi>", f);
	bc_html_escape(f, s);
	fputs("</bdi>", f);
}

static int same_key(const bc_rgroup *g, const skey *k, int i)
{
	return k->pk[i] && !strcmp(g->module, k->module) && !strcmp(g->params_key, k->pk[i]);
}

/* Mean and 95% CI of metric against threads, sorted by threads. */
static void sweep(const bc_results *r, int file, const skey *k, const char *metric, line_buf *b)
{
	b->n = 0;
	for (size_t g = 0; g < r->ngroups && b->n < MAX_PTS; g++) {
		const bc_rmetric *m;
		bc_summary s;
		if (!same_key(&r->groups[g], k, file) || !(m = bc_group_metric(&r->groups[g], metric)) || !m->n)
			continue;
		bc_stats_summary(m->values, m->n, &s);
		size_t i = b->n++;
		for (; i > 0 && b->x[i - 1] > r->groups[g].threads; i--) {
			b->x[i] = b->x[i - 1]; b->y[i] = b->y[i - 1];
			b->lo[i] = b->lo[i - 1]; b->hi[i] = b->hi[i - 1];
		}
		b->x[i] = (double)r->groups[g].threads;
		b->y[i] = s.mean;
		b->lo[i] = s.ci95_low;
		b->hi[i] = s.ci95_high;
	}
}

static const bc_rmetric *find_metric(bc_results *res, int n, const skey *k, const char *name)
{
	for (int i = 0; i < n; i++)
		for (size_t g = 0; g < res[i].ngroups; g++) {
			const bc_rmetric *m;
			if (same_key(&res[i].groups[g], k, i) && (m = bc_group_metric(&res[i].groups[g], name)))
				return m;
		}
	return NULL;
}

/* A chart of metric against threads, one line per file; 0 when no file has
   a point. */
static int chart_vs_threads(FILE *f, bc_results *res, int n, const skey *k, const char *metric,
			    const char *title, const char *ylabel, const char *note, int errbars)
{
	line_buf *b = calloc(n, sizeof(*b));
	bc_series s[MAX_FILES];
	int any = 0;

	if (!b)
		abort();
	for (int i = 0; i < n; i++) {
		sweep(&res[i], i, k, metric, &b[i]);
		any |= b[i].n > 0;
		s[i] = (bc_series){ res[i].label, b[i].n, b[i].x, b[i].y,
				    errbars ? b[i].lo : NULL, errbars ? b[i].hi : NULL };
	}
	if (any)
		bc_svg_chart(f, &(bc_chart){ .title = title, .xlabel = "threads", .ylabel = ylabel,
					     .note = note, .s = s, .ns = (size_t)n });
	free(b);
	return any;
}

static void chart_primary(FILE *f, bc_results *res, int n, const skey *k)
{
	const bc_rgroup *g0 = NULL;
	char title[512], ylabel[256], note[256];

	for (int i = 0; i < n && !g0; i++)
		for (size_t g = 0; g < res[i].ngroups && !g0; g++)
			if (same_key(&res[i].groups[g], k, i))
				g0 = &res[i].groups[g];
	const bc_rmetric *m = g0 ? bc_primary_metric(g0) : NULL;
	if (!m)
		return;
	snprintf(title, sizeof(title), "%s vs threads", m->name);
	snprintf(ylabel, sizeof(ylabel), "%s%s%s%s", m->name, *m->unit ? " (" : "", m->unit,
		 *m->unit ? ")" : "");
	snprintf(note, sizeof(note), "%s is better; mean of the repeats, bars: 95%% confidence interval",
		 m->higher_is_better ? "higher" : "lower");
	chart_vs_threads(f, res, n, k, m->name, title, ylabel, note, 1);
}

static void chart_scaling(FILE *f, bc_results *res, int n, const skey *k)
{
	line_buf *b = calloc(n, sizeof(*b));
	bc_scale_point pts[MAX_PTS];
	bc_series s[MAX_FILES];
	const bc_rgroup *g0 = NULL;
	int any = 0;
	char title[512];

	if (!b)
		abort();
	for (int i = 0; i < n; i++) {
		for (size_t g = 0; g < res[i].ngroups && !g0; g++)
			if (same_key(&res[i].groups[g], k, i))
				g0 = &res[i].groups[g];
	}
	const bc_rmetric *m = g0 ? bc_primary_metric(g0) : NULL;
	for (int i = 0; m && i < n; i++) {
		size_t np = k->pk[i] ? bc_scaling(&res[i], k->module, k->pk[i], m->name, pts, MAX_PTS) : 0;
		for (size_t j = 0; j < np; j++) {
			b[i].x[j] = (double)pts[j].threads;
			b[i].y[j] = pts[j].efficiency * 100;
		}
		b[i].n = np;
		any |= np > 1;
		s[i] = (bc_series){ res[i].label, np, b[i].x, b[i].y, NULL, NULL };
	}
	if (any) {
		snprintf(title, sizeof(title), "scaling efficiency of %s", m->name);
		bc_svg_chart(f, &(bc_chart){ .title = title, .xlabel = "threads",
			.ylabel = "% of linear speedup", .note = "higher is better; 100% = linear "
			"(speedup against the smallest thread count divided by the thread ratio)",
			.has_ref = 1, .ref_y = 100, .ref_label = "linear", .s = s, .ns = (size_t)n });
	}
	free(b);
}

/* Largest thread count that every file with this key has, else -1. */
static long common_max_threads(bc_results *res, int n, const skey *k)
{
	long best = -1;

	for (int i = 0; i < n; i++)
		for (size_t g = 0; g < res[i].ngroups; g++) {
			const bc_rgroup *gr = &res[i].groups[g];
			if (!same_key(gr, k, i) || gr->threads <= best)
				continue;
			int all = 1;
			for (int j = 0; j < n && all; j++) {
				all = !k->pk[j] || bc_results_find(&res[j], k->module, k->pk[j], gr->threads);
			}
			if (all)
				best = gr->threads;
		}
	return best;
}

/* The fleet's percentiles: those of all the files' records of op at t
   threads together, read off their merged histograms (results.h
   bc_merged_pct), not a mean of per-host percentiles; when a file has no
   histograms (written before them) that is said, and the chart stands. */
static void merged_note(FILE *f, bc_results *res, int n, const skey *k, long t, const char *op,
			const char *const *cats, size_t nc)
{
	const bc_rgroup *g[MAX_FILES];
	int at[MAX_FILES];
	size_t ng = 0, bad = 0;
	double ms;

	for (int i = 0; i < n; i++)
		if (k->pk[i] && (g[ng] = bc_results_find(&res[i], k->module, k->pk[i], t)))
			at[ng++] = i;
	if (ng < 2 || !nc)
		return;
	fputs("<p class='note'>", f);
	esc(f, op);
	fprintf(f, " at %ld thread%s, ", t, t > 1 ? "s" : "");
	if (bc_merged_pct(g, ng, op, strtod(cats[0] + 1, NULL), &ms, &bad)) {
		fputs("no percentiles of all the files together: ", f);
		esc_label(f, res[at[bad]].label);
		fputs(" has no latency histograms to merge (a file from before them, or counts too large to "
		      "add); the chart shows each file's mean of its repeats' percentiles</p>\n", f);
		return;
	}
	fprintf(f, "all %zu files' records together (their latency histograms merged):", ng);
	for (size_t c = 0; c < nc; c++)
		if (!bc_merged_pct(g, ng, op, strtod(cats[c] + 1, NULL), &ms, &bad)) {
			fputs(c ? ", " : " ", f);
			esc(f, cats[c]);
			fprintf(f, " %.4g ms", ms);
		}
	fputs("</p>\n", f);
}

static void chart_latency(FILE *f, bc_results *res, int n, const skey *k)
{
	long t = common_max_threads(res, n, k);
	const bc_rgroup *g0 = NULL;

	for (int i = 0; i < n && !g0; i++)
		g0 = k->pk[i] ? bc_results_find(&res[i], k->module, k->pk[i], t) : NULL;
	if (!g0)
		return;
	for (size_t m = 0; m < g0->nmetrics; m++) {
		const bc_rmetric *lm = &g0->metrics[m];
		const char *cats[MAX_PCT];
		double x[MAX_FILES][MAX_PCT], y[MAX_FILES][MAX_PCT];
		bc_series s[MAX_FILES];
		size_t nc = 0;
		int first = 1;
		char title[512];
		if (lm->kind != BC_MK_LATENCY)
			continue;
		for (size_t j = 0; j < m && first; j++)	/* one chart per op class */
			first = !(g0->metrics[j].kind == BC_MK_LATENCY && !strcmp(g0->metrics[j].op, lm->op));
		if (!first)
			continue;
		for (size_t j = m; j < g0->nmetrics && nc < MAX_PCT; j++)
			if (g0->metrics[j].kind == BC_MK_LATENCY && !strcmp(g0->metrics[j].op, lm->op) &&
			    strcmp(g0->metrics[j].pct, "mean"))	/* a percentile chart */
				cats[nc++] = g0->metrics[j].pct;
		for (int i = 0; i < n; i++) {
			const bc_rgroup *g = k->pk[i] ? bc_results_find(&res[i], k->module, k->pk[i], t) : NULL;
			s[i] = (bc_series){ res[i].label, nc, x[i], y[i], NULL, NULL };
			for (size_t c = 0; c < nc; c++) {
				char name[512];
				const bc_rmetric *pm;
				bc_summary sum;
				snprintf(name, sizeof(name), "%s.%s_ms", lm->op, cats[c]);
				pm = g ? bc_group_metric(g, name) : NULL;
				x[i][c] = (double)c;
				y[i][c] = NAN;
				if (pm && pm->n) {
					bc_stats_summary(pm->values, pm->n, &sum);
					y[i][c] = sum.mean;
				}
			}
		}
		snprintf(title, sizeof(title), "latency percentiles of %s at %ld thread%s", lm->op, t,
			 t > 1 ? "s" : "");
		bc_svg_chart(f, &(bc_chart){ .title = title, .xlabel = "percentile",
			.ylabel = "latency (ms)", .note = "lower is better; mean of the repeats",
			.xcats = cats, .ncat = nc, .s = s, .ns = (size_t)n });
		merged_note(f, res, n, k, t, lm->op, cats, nc);
	}
}

/* Mean CPU frequency during the cases: throughput of many workloads is
   proportional to it, so a difference here explains others. The clock
   measured around each window (cpu_freq.measured_mhz) where the file has
   it; else the kernel's claim (cpu_mhz_mean: on a VM often the nominal
   figure), said to be one. */
static void mhz_line(FILE *f, bc_results *res, int n, const skey *k)
{
	int any = 0;

	for (int i = 0; i < n; i++) {
		double meas = 0, claim = 0;
		size_t nmeas = 0, nclaim = 0;
		for (size_t g = 0; g < res[i].ngroups; g++)
			if (same_key(&res[i].groups[g], k, i)) {
				meas += res[i].groups[g].freq_sum;
				nmeas += res[i].groups[g].freq_n;
				claim += res[i].groups[g].cpu_mhz_sum;
				nclaim += res[i].groups[g].cpu_mhz_n;
			}
		if (!nmeas && !nclaim)
			continue;
		fputs(any ? ", " : "<p class='note'>mean CPU frequency during the cases: ", f);
		esc_label(f, res[i].label);
		if (nmeas)
			fprintf(f, " %.0f MHz <small>(measured: cpu_freq)</small>", meas / (double)nmeas);
		else
			fprintf(f, " %.0f MHz <small>(the kernel's claim, cpu_mhz_mean: not measured)</small>",
				claim / (double)nclaim);
		any = 1;
	}
	if (any)
		fputs("</p>\n", f);
}

/* A section's heading: the module and the first file's params; the files
   whose matched case has other params (placement, --match-ignore) named
   under it with theirs. */
static void section_heading(FILE *f, bc_results *res, int n, const skey *k)
{
	const char *pt = NULL;
	for (int i = 0; i < n && !pt; i++)
		pt = k->pt[i];
	fputs("<h3>", f);
	esc(f, k->module);
	fputs(" <small>", f);
	esc(f, pt && *pt ? pt : "(no parameters)");
	fputs("</small></h3>\n", f);
	int any = 0;
	for (int i = 0; i < n; i++) {
		if (!k->pt[i] || !strcmp(k->pt[i], pt))
			continue;
		fputs(any ? "; " : "<p class='note matched'>matched as compare matches cases (placement, "
		      "--match-ignore): ", f);
		esc_label(f, res[i].label);
		fputs(" ran it with ", f);
		esc(f, *k->pt[i] ? k->pt[i] : "(no parameters)");
		any = 1;
	}
	if (any)
		fputs("</p>\n", f);
}

static void module_sections(FILE *f, bc_results *res, int n, const bc_cmp_opts *o)
{
	skey *keys = bc_xcalloc(512, sizeof(*keys));
	size_t nk = bc_case_sets(res, n, o, keys, 512);

	for (size_t i = 0; i < nk; i++) {
		const skey *k = &keys[i];
		section_heading(f, res, n, k);
		mhz_line(f, res, n, k);
		fputs("<div class='charts'>\n", f);
		chart_primary(f, res, n, k);
		if (find_metric(res, n, k, "fairness_events_stddev"))
			chart_vs_threads(f, res, n, k, "fairness_events_stddev",
				"fairness: stddev of events across threads", "stddev of events per thread",
				"lower is better (threads got equal shares of the work)", 0);
		chart_latency(f, res, n, k);
		chart_scaling(f, res, n, k);
		fputs("</div>\n", f);
	}
	free(keys);
}

static void num_cell(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "<td class='num'>%.4g</td>", v);
	else
		fputs("<td class='num'>n/a</td>", f);
}

static void verdict_table(FILE *f, const bc_cmp *c)
{
	fputs("<table><tr><th>module</th><th>params</th><th>threads</th><th>metric</th>"
	      "<th>better</th><th>A mean</th><th>B mean</th><th>change</th><th>n A/B</th>"
	      "<th>interval</th><th>test</th><th>p</th><th>p adj</th><th>threshold</th>"
	      "<th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const bc_cmp_row *r = &c->rows[i];
		fputs("<tr><td>", f);
		esc(f, r->ga->module);
		fputs("</td><td>", f);
		esc(f, r->ga->params_text);
		fprintf(f, "</td><td class='num'>%ld</td><td>", r->ga->threads);
		esc(f, r->ma->name);
		if (*r->ma->unit) {
			fputs(" (", f);
			esc(f, r->ma->unit);
			fputc(')', f);
		}
		fprintf(f, "</td><td>%s</td>", r->ma->higher_is_better ? "higher" : "lower");
		num_cell(f, r->sa.mean);
		num_cell(f, r->sb.mean);
		if (isfinite(r->change))
			fprintf(f, "<td class='num'>%+.1f%%</td>", r->change * 100);
		else
			fputs("<td class='num'>n/a</td>", f);
		fprintf(f, "<td class='num'>%zu/%zu</td>", r->sa.n, r->sb.n);
		if (r->has_ci && isfinite(r->ci_lo))
			fprintf(f, "<td class='num'>%+.1f%% .. %+.1f%%</td>", r->ci_lo * 100,
				r->ci_hi * 100);
		else
			fputs("<td></td>", f);
		fprintf(f, "<td>%s</td>", bc_row_test_name(c, r));
		if (r->tested)
			fprintf(f, "<td class='num'>%.4f</td><td class='num'>%.4f</td>", r->test.p, r->p_adj);
		else
			fputs("<td></td><td></td>", f);
		fprintf(f, "<td class='num'>%g%% <small>%s</small></td>", r->threshold * 100,
			bc_kind_name(r->kind));
		fprintf(f, "<td class='%s'>%s%s", bc_verdict_name(r->verdict),
			bc_row_verdict(r), r->headline ? " <small>(headline)</small>" : "");
		if (*r->reason) {
			fputs(" <small>(", f);
			esc(f, r->reason);
			fputs(")</small>", f);
		}
		if (r->ga->unsteady || r->gb->unsteady)	/* warmup = auto that ran to max_warmup */
			fprintf(f, " <small class='warn'>(warmup never steady in %zu case(s) of A, %zu of B)</small>",
				r->ga->unsteady, r->gb->unsteady);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The summary's second half: the largest headline differences, each with
   its interval, so a large noisy one and a small certain one differ. */
static void largest_note(FILE *f, const bc_cmp *c)
{
	size_t idx[BC_CMP_LARGEST], n = bc_cmp_largest(c, idx, BC_CMP_LARGEST);

	if (!n)
		return;
	fprintf(f, "<p class='note'>Largest headline differences (%g%% interval of B/A &minus; 1):",
		c->opts.level * 100);
	for (size_t i = 0; i < n; i++) {
		const bc_cmp_row *r = &c->rows[idx[i]];
		fputs(i ? "; " : " ", f);
		esc(f, r->ga->module);
		fputc(' ', f);
		esc(f, r->ga->params_text);
		fprintf(f, " threads=%ld ", r->ga->threads);
		esc(f, r->ma->name);
		fprintf(f, " %+.1f%%", r->change * 100);
		if (r->has_ci && isfinite(r->ci_lo))
			fprintf(f, " [%+.1f%% .. %+.1f%%]", r->ci_lo * 100, r->ci_hi * 100);
		fprintf(f, " <span class='%s'>%s</span>", bc_verdict_name(r->verdict),
			bc_row_verdict(r));
		if (r->need_n)
			fprintf(f, " (needs %s%zu repeats)", r->need_n >= 1000 ? "&gt;" : "~", r->need_n);
	}
	fputs("</p>\n", f);
}

static void item_table(FILE *f, const bc_cmp *c)
{
	size_t n;
	bc_cmp_item *it = bc_cmp_items(c, &n);

	fputs("<h3>", f);
	esc_label(f, c->b->label);
	fputs(" vs ", f);
	esc_label(f, c->a->label);
	fputs(": ", f);
	bc_cmp_summary_text(f, c);
	fputs("</h3>\n", f);
	largest_note(f, c);
	if (json_array_size(c->host_diff) > 1)
		fprintf(f, "<p class='warn'>The fingerprints differ in %zu fields, not only in the "
			"thing compared: see the highlighted rows under Machines.</p>\n",
			json_array_size(c->host_diff));
	fputs("<table><tr><th>module</th><th>metric</th><th>result</th><th>wins</th>"
	      "<th>losses</th><th>ties (equivalent)</th><th>inconclusive</th><th>suspect</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		static const char *const cls[] = { "win", "loss", "tie", "tie", "inconclusive",
						   "suspect" };
		static const char *const word[] = { "", "", "mixed", "tie", "inconclusive",
						    "suspect" };
		fputs("<tr><td>", f);
		esc(f, it[i].module);
		fputs("</td><td>", f);
		esc(f, it[i].metric);
		fprintf(f, "</td><td class='%s'>", cls[it[i].result]);
		if (it[i].result == BC_ITEM_B_WINS || it[i].result == BC_ITEM_A_WINS) {
			esc_label(f, it[i].result == BC_ITEM_B_WINS ? c->b->label : c->a->label);
			fputs(" wins", f);
		} else {
			fputs(it[i].result == BC_ITEM_SUSPECT ?
			      bc_suspect_word(it[i].suspect_win, it[i].suspect_loss) : word[it[i].result], f);
		}
		fputs("</td>", f);
		for (int v = 0; v < BC_V_N; v++)
			fprintf(f, "<td class='num'>%zu</td>", it[i].count[v]);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	free(it);
}

/* How verdicts are decided, as compare --help says it. */
static void method_note(FILE *f, bc_results *res, const bc_cmp_opts *o)
{
	fprintf(f, "<p class='note'>Each file against the first (A = ");
	esc_label(f, res[0].label);
	fprintf(f, "). %s, two-sided; p adjusted over all tests of a comparison (%s), "
		"&alpha; = %g. Practical thresholds:", o->test == BC_TEST_WELCH ?
		"Welch's t test (on the logs of the values when all are positive)" :
		"Mann-Whitney U (exact distribution without ties, else normal approximation)",
		o->adjust == BC_ADJ_BH ? "Benjamini-Hochberg" : o->adjust == BC_ADJ_HOLM ? "Holm" :
		"none", o->alpha);
	for (int k = 0; k < BC_KIND_N; k++)
		fprintf(f, "%s %s %g%%", k ? "," : "", bc_kind_name(k), o->kind_threshold[k] * 100);
	for (size_t i = 0; i < o->nover; i++) {
		fputs(", ", f);
		esc(f, o->over[i].name);
		fprintf(f, " %g%%", o->over[i].frac * 100);
	}
	fprintf(f, " (a module may declare its own). Each verdict is decided by the %g%% "
		"confidence interval of the ratio B/A (Welch-type, on the logs of the values): "
		"<b>win / loss</b>: the difference is significant after the false-discovery "
		"adjustment and its interval lies wholly beyond the practical threshold on one side; "
		"<b>tie (equivalent)</b>: the interval lies wholly inside &plusmn;threshold (two "
		"one-sided tests; at least %d repeats a side): the two are the same, not merely "
		"indistinguishable; <b>inconclusive</b>: anything else, with the number of repeats "
		"that would likely resolve it; <b>suspect win / loss</b>: would be a win or loss in the "
		"direction interference could cause (steal and other processes took &ge; %g%% of the "
		"time of the CPUs a case of the slower side could run on), and no larger than that "
		"interference can explain (the run's own servers are cpu.server_pct, not other "
		"processes); a larger difference, or one the other way, stands. Headline: each module's declared "
		"headline metric.</p>\n", o->level * 100, BC_TIE_MIN_N, o->busy_pct);
	fputs("<p class='note'>", f);
	bc_cmp_matching_note(f, o);	/* option names: [a-z0-9_], nothing to escape */
	fputs("</p>\n", f);
}

/* detail = 0: the summaries per module and metric; 1: every row. */
static void verdicts(FILE *f, bc_results *res, int n, const bc_cmp_opts *o, int detail, const bc_tab_opts *t)
{
	fputs(detail ? "<h2>Verdicts per case</h2>\n" : "<h2>Verdicts</h2>\n", f);
	if (n < 2) {
		fputs("<p class='note'>One file: nothing to compare. Give two or more result files "
		      "to get verdicts.</p>\n", f);
		return;
	}
	if (!detail)
		method_note(f, res, o);
	for (int i = 1; i < n; i++) {
		bc_cmp c;
		bc_compare_pair(&res[0], &res[i], o, &c);
		if (detail) {
			fputs("<h3>", f);
			esc_label(f, res[i].label);
			fputs(" vs ", f);
			esc_label(f, res[0].label);
			fputs("</h3>\n", f);
			verdict_table(f, &c);
		} else {
			item_table(f, &c);
		}
		bc_cmp_free(&c);
	}
	if (!detail) {	/* compare --summary-table: the first study's closing table */
		fputs("<h3>Summary per module</h3>\n", f);
		bc_summary_table(f, res, n, o, t);
	}
}

/* Fingerprints side by side: one row per flattened host field, one column
   per file; rows whose values differ (absent counts) are highlighted, except
   fields that always differ (host name, current MHz). */
static void fingerprints(FILE *f, bc_results *res, int n)
{
	json_t *flat[MAX_FILES], *keys = json_object(), *v;
	const char *k;

	fputs("<h2>Machines</h2>\n<table><tr><th>field</th>", f);
	for (int i = 0; i < n; i++) {
		flat[i] = bc_facts(&res[i]);
		json_object_del(flat[i], "warnings");
		json_object_update_missing(keys, flat[i]);
		fputs("<th>", f);
		esc_label(f, res[i].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	json_object_foreach(keys, k, v) {
		int differs = 0;
		for (int i = 1; i < n; i++) {
			json_t *a = json_object_get(flat[0], k), *b = json_object_get(flat[i], k);
			differs |= !a || !b || !json_equal(a, b);
		}
		differs &= !bc_host_field_ignored(k);
		fprintf(f, "<tr%s><td>", differs && n > 1 ? " class='diff'" : "");
		esc(f, k);
		fputs("</td>", f);
		for (int i = 0; i < n; i++) {
			json_t *x = json_object_get(flat[i], k);
			fputs("<td>", f);
			if (json_is_string(x))
				esc(f, json_string_value(x));
			else if (x) {
				char *s = bc_json_text(x);
				esc(f, s);
				free(s);
			} else {
				fputs("<i>absent</i>", f);
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	for (int i = 0; i < n; i++) {
		size_t j;
		json_t *w;
		json_array_foreach(json_object_get(res[i].host, "warnings"), j, w) {
			if (!json_is_string(w))
				continue;
			fputs("<p class='warn'>", f);
			esc_label(f, res[i].label);
			fputs(": ", f);
			esc(f, json_string_value(w));
			fputs("</p>\n", f);
		}
		json_decref(flat[i]);
	}
	json_decref(keys);
}

static void header(FILE *f, bc_results *res, int n, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n"
	      "<meta name='generator' content='benchcore " BC_VERSION "'>\n<title>", f);
	esc(f, title);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>", css);
	esc(f, title);
	fputs("</h1>\n<table><tr><th>system</th><th>file</th><th>started</th><th>cases</th></tr>\n", f);
	for (int i = 0; i < n; i++) {
		fputs("<tr><td>", f);
		esc_label(f, res[i].label);
		fputs("</td><td>", f);
		esc(f, res[i].path);
		fputs("</td><td>", f);
		esc(f, res[i].started_at ? res[i].started_at : "");
		size_t unsteady = 0;
		for (size_t j = 0; j < res[i].ngroups; j++)
			unsteady += res[i].groups[j].unsteady;
		long of;
		const char *partial = bc_results_partial(&res[i], &of);
		fprintf(f, "</td><td>%zu ok, %zu failed, %zu other", res[i].nok, res[i].nfailed,
			res[i].ncases - res[i].nok - res[i].nfailed);
		if (partial && of >= 0)
			fprintf(f, " <span class='warn'>(partial: %zu of %ld cases; %s)</span>", res[i].ncases, of, partial);
		else if (partial)
			fprintf(f, " <span class='warn'>(partial: %s)</span>", partial);
		if (unsteady)
			fprintf(f, " <span class='warn'>(%zu whose warmup never became steady)</span>", unsteady);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int bc_report_write(FILE *f, bc_results *res, int n, const bc_cmp_opts *o, const char *title,
		    const bc_refset_ask *index, const bc_tab_opts *view)
{
	bc_tab_opts t = view ? *view : (bc_tab_opts){ 0 };
	t.format = BC_TAB_HTML;
	header(f, res, n, title);
	verdicts(f, res, n, o, 0, &t);
	if (index)
		bc_refset_html(f, index->name, index->dirs, res, n, o);
	fputs("<h2>Charts</h2>\n<p class='note'>One line per system. Charts against threads "
	      "show the mean over the repeats.</p>\n", f);
	module_sections(f, res, n, o);
	bc_report_study(f, res, n, o, &t);
	fingerprints(f, res, n);
	if (n > 1)
		verdicts(f, res, n, o, 1, &t);
	fputs("<p class='note'>Generated by benchcore " BC_VERSION ".</p>\n</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}

/* The page goes to memory first, then to path by util's one atomic write
   (a temporary file renamed into place), or to stdout for "-". */
int bc_report_output(const char *path, bc_results *res, int n, const bc_cmp_opts *o, const char *title,
		     const bc_refset_ask *index, const bc_tab_opts *view)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bc_err e;
	int rc;

	if (!f)
		return -1;
	rc = bc_report_write(f, res, n, o, title, index, view);
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && strcmp(path, "-") == 0)
		rc = fwrite(buf, 1, len, stdout) != len || bc_stdout_done("report") ? -2 : 0;
	else if (rc == 0 && bc_write_atomic(path, buf, len, &e) < 0) {
		fprintf(stderr, "benchcore report: %s\n", e.msg);
		rc = -2;
	}
	free(buf);
	return rc;
}

int bc_report_file(const char *path, const char *json_path, const char *title)
{
	bc_results r;
	bc_err err;
	if (bc_results_load(json_path, &r, &err) < 0) {
		fprintf(stderr, "benchcore: error: report: %s: %s\n", json_path, err.msg);
		return -1;
	}
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	int rc = bc_report_output(path, &r, 1, &o, title, NULL, NULL);
	if (rc == -1)
		fprintf(stderr, "benchcore: error: report: could not write %s\n", path);
	bc_results_free(&r);
	return rc ? -1 : 0;
}

