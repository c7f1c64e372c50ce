/* The report's views that follow the studies (report.c calls
   bc_report_study): compare --table (with the module facts that differ),
   the index against the first file, a bar chart across a
   module's cases when every file ran it at one thread count (the frequency
   study's 19 tests, the cloud study's machines), each module's headline
   against its one swept numeric option (block size), the headline against
   the clock measured in each file and compare --per-ghz's table with its
   proportional verdict (the frequency study). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report_study.h"
#include "stats.h"
#include "svg.h"
#include "grid.h"
#include "tables.h"
#include "util.h"

#define MAX_FILES 16
#define MAX_CATS 64

static void esc(FILE *f, const char *s) { bc_html_escape(f, s); }

static void index_section(FILE *f, bc_results *res, int n, const bc_cmp_opts *o)
{
	fputs("<h3>Index</h3>\n<table><tr><th>file</th><th>module</th><th>index (first file = 100)</th>"
	      "<th>95% interval</th><th>cases</th><th>undecided (compare: inconclusive or suspect)</th></tr>\n", f);
	for (int i = 1; i < n && i < MAX_FILES; i++) {
		bc_cmp c;
		bc_index_part p[65];
		bc_compare_pair(&res[0], &res[i], o, &c);
		size_t np = bc_index_compute(&c, p, 65);
		for (size_t k = 0; k < np; k++) {
			fputs("<tr><td>", f);
			esc(f, res[i].label);
			fputs("</td><td>", f);
			esc(f, p[k].module ? p[k].module : "overall");
			fprintf(f, "</td><td class='num'>%.1f</td><td class='num'>%.1f .. %.1f</td>"
				"<td class='num'>%zu</td><td class='num'>%zu</td></tr>\n", p[k].index, p[k].low,
				p[k].high, p[k].cases, p[k].undecided);
		}
		bc_cmp_free(&c);
	}
	fputs("</table>\n<p class='note'>Per module: 100 &times; the geometric mean of its cases' headline "
	      "ratios against the first file (lower-is-better metrics turned: above 100 is better); overall: "
	      "the modules' geometric mean, each module weighing the same (UnixBench's way).</p>\n", f);
}

/* Every file ran module at one thread count, the same one. */
static long one_thread_count(bc_results *res, int n, const char *module)
{
	long t = 0;
	for (int i = 0; i < n; i++)
		for (size_t g = 0; g < res[i].ngroups; g++) {
			const bc_rgroup *gr = &res[i].groups[g];
			if (strcmp(gr->module, module))
				continue;
			if (t && gr->threads != t)
				return 0;
			t = gr->threads;
		}
	return t;
}

static void mean_ci(const bc_rmetric *m, double *y, double *lo, double *hi)
{
	bc_summary s;
	*y = *lo = *hi = NAN;
	if (!m || !m->n)
		return;
	bc_stats_summary(m->values, m->n, &s);
	*y = s.mean;
	if (s.n > 1) {
		*lo = s.ci95_low;
		*hi = s.ci95_high;
	}
}

/* The headline of each of res[0]'s cases of module, one bar per file. */
static void bars_across_cases(FILE *f, bc_results *res, int n, const char *module, const bc_cmp_opts *o)
{
	size_t ng;
	const bc_rgroup **gs = bc_plan_groups(&res[0], module, &ng);
	const char *cats[MAX_CATS];
	char *owned[MAX_CATS];
	static double y[MAX_FILES][MAX_CATS], lo[MAX_FILES][MAX_CATS], hi[MAX_FILES][MAX_CATS],
		x[MAX_FILES][MAX_CATS];
	bc_series s[MAX_FILES];
	size_t nc = ng < MAX_CATS ? ng : MAX_CATS;
	const bc_rmetric *h0 = nc ? bc_primary_metric(gs[0]) : NULL;
	bc_cmp cmp[MAX_FILES];
	if (!nc || !h0 || nc < 2) {
		free(gs);
		return;
	}
	for (int i = 1; i < n && i < MAX_FILES; i++)
		bc_compare_pair(&res[0], &res[i], o, &cmp[i]);
	for (size_t c = 0; c < nc; c++) {
		owned[c] = bc_case_label(&res[0], gs[c], NULL);
		cats[c] = owned[c];
	}
	for (int i = 0; i < n && i < MAX_FILES; i++) {
		for (size_t c = 0; c < nc; c++) {
			const bc_rgroup *g = i ? NULL : gs[c];
			for (size_t r = 0; i && r < cmp[i].nrows && !g; r++)
				if (cmp[i].rows[r].ga == gs[c])
					g = cmp[i].rows[r].gb;	/* matched as compare matches */
			x[i][c] = (double)c;
			mean_ci(g ? bc_primary_metric(g) : NULL, &y[i][c], &lo[i][c], &hi[i][c]);
		}
		s[i] = (bc_series){ res[i].label, nc, x[i], y[i], lo[i], hi[i] };
	}
	char title[256];
	snprintf(title, sizeof(title), "%s: %s of every case, one bar per file", module, h0->name);
	bc_svg_chart(f, &(bc_chart){ .title = title, .xlabel = "case", .ylabel = h0->unit,
		.note = h0->higher_is_better ? "higher is better; bars: 95% interval of the repeats" :
		"lower is better; bars: 95% interval of the repeats", .xcats = cats, .ncat = nc, .s = s,
		.ns = (size_t)(n < MAX_FILES ? n : MAX_FILES), .bars = 1 });
	for (size_t c = 0; c < nc; c++)
		free(owned[c]);
	for (int i = 1; i < n && i < MAX_FILES; i++)
		bc_cmp_free(&cmp[i]);
	free(gs);
}

/* The one numeric param that varies among module's groups in r, or NULL. */
static const char *swept_number(const bc_results *r, const char *module)
{
	static char name[128];
	const char *found = NULL;
	json_t *first = NULL;
	for (size_t i = 0; i < r->ngroups; i++) {
		if (strcmp(r->groups[i].module, module))
			continue;
		json_t *p = json_loads(r->groups[i].params_key, 0, NULL);
		if (!first) {
			first = p;
			continue;
		}
		const char *k;
		json_t *v;
		json_object_foreach(p, k, v)
			if (!json_equal(v, json_object_get(first, k))) {
				if (!json_is_number(v) || (found && strcmp(found, k))) {
					json_decref(p);
					json_decref(first);
					return NULL;
				}
				snprintf(name, sizeof(name), "%s", k);
				found = name;
			}
		json_decref(p);
	}
	json_decref(first);
	return found;
}

/* module's headline against its swept option, one line per file, at each
   thread count the first file ran. */
static void chart_vs_option(FILE *f, bc_results *res, int n, const char *module)
{
	const char *opt = swept_number(&res[0], module);
	long threads[64];
	size_t nt = 0;
	if (!opt)
		return;
	for (size_t g = 0; g < res[0].ngroups; g++) {
		const bc_rgroup *gr = &res[0].groups[g];
		int seen = 0;
		for (size_t k = 0; k < nt; k++)
			seen |= threads[k] == gr->threads;
		if (!strcmp(gr->module, module) && !seen && nt < 64)
			threads[nt++] = gr->threads;
	}
	for (size_t t = 0; t < nt && t < 4; t++) {
		static double x[MAX_FILES][MAX_CATS], y[MAX_FILES][MAX_CATS], lo[MAX_FILES][MAX_CATS],
			hi[MAX_FILES][MAX_CATS];
		bc_series s[MAX_FILES];
		const char *unit = "", *metric = "";
		int hib = 1;
		for (int i = 0; i < n && i < MAX_FILES; i++) {
			size_t ng, k = 0;
			const bc_rgroup **gs = bc_plan_groups(&res[i], module, &ng);
			for (size_t g = 0; g < ng && k < MAX_CATS; g++) {
				if (gs[g]->threads != threads[t])
					continue;
				json_t *p = json_loads(gs[g]->params_key, 0, NULL);
				const bc_rmetric *m = bc_primary_metric(gs[g]);
				x[i][k] = json_number_value(json_object_get(p, opt));
				mean_ci(m, &y[i][k], &lo[i][k], &hi[i][k]);
				if (m && !*metric) {
					metric = m->name;
					unit = m->unit;
					hib = m->higher_is_better;
				}
				json_decref(p);
				k++;
			}
			s[i] = (bc_series){ res[i].label, k, x[i], y[i], lo[i], hi[i] };
			free(gs);
		}
		char title[256];
		snprintf(title, sizeof(title), "%s: %s against %s, %ld thread%s", module, metric, opt, threads[t],
			 threads[t] == 1 ? "" : "s");
		bc_svg_chart(f, &(bc_chart){ .title = title, .xlabel = opt, .ylabel = unit,
			.note = hib ? "higher is better" : "lower is better", .s = s,
			.ns = (size_t)(n < MAX_FILES ? n : MAX_FILES) });
	}
}

/* The headline of each case of module against the clock measured in each
   file: a line per case, a point per file. Needs two files that measured. */
static void chart_vs_clock(FILE *f, bc_results *res, int n, const char *module, const bc_cmp_opts *o)
{
	size_t ng;
	const bc_rgroup **gs = bc_plan_groups(&res[0], module, &ng);
	static double x[MAX_CATS][MAX_FILES], y[MAX_CATS][MAX_FILES];
	bc_series s[MAX_CATS];
	char *names[MAX_CATS];
	size_t nc = ng < MAX_CATS ? ng : MAX_CATS;
	int measured = 0;
	bc_cmp cmp[MAX_FILES];
	for (int i = 1; i < n && i < MAX_FILES; i++)
		bc_compare_pair(&res[0], &res[i], o, &cmp[i]);
	for (size_t c = 0; c < nc; c++) {
		names[c] = bc_case_label(&res[0], gs[c], NULL);
		for (int i = 0; i < n && i < MAX_FILES; i++) {
			const bc_rgroup *g = i ? NULL : gs[c];
			for (size_t r = 0; i && r < cmp[i].nrows && !g; r++)
				if (cmp[i].rows[r].ga == gs[c])
					g = cmp[i].rows[r].gb;
			double lo, hi;
			/* to 10 MHz: the axis shows the files' clocks, not the probe's noise */
			x[c][i] = g && g->freq_n ? round(g->freq_sum / (double)g->freq_n / 10) / 100 : NAN;
			measured += !isnan(x[c][i]) && c == 0;
			mean_ci(g ? bc_primary_metric(g) : NULL, &y[c][i], &lo, &hi);
		}
		s[c] = (bc_series){ *names[c] ? names[c] : module, (size_t)(n < MAX_FILES ? n : MAX_FILES), x[c],
				    y[c], NULL, NULL };
	}
	if (measured >= 2 && nc) {
		const bc_rmetric *h0 = bc_primary_metric(gs[0]);
		char title[256];
		snprintf(title, sizeof(title), "%s: %s against the measured clock, one line per case", module,
			 h0 ? h0->name : "headline");
		bc_svg_chart(f, &(bc_chart){ .title = title, .xlabel = "GHz measured during the case",
			.ylabel = h0 ? h0->unit : "", .note = "a straight line through 0 is throughput "
			"proportional to the clock", .s = s, .ns = nc });
	}
	for (size_t c = 0; c < nc; c++)
		free(names[c]);
	for (int i = 1; i < n && i < MAX_FILES; i++)
		bc_cmp_free(&cmp[i]);
	free(gs);
}

void bc_report_study(FILE *f, bc_results *res, int n, const bc_cmp_opts *o)
{
	fputs("<h2>The studies' views</h2>\n<h3>Cases and systems</h3>\n", f);
	/* compare --table: each case's headline in every file, its verdict, and the module facts
	   that differ between the files (the OpenSSL version) */
	bc_table(f, res, n, o, &(bc_tab_opts){ .format = BC_TAB_HTML });
	if (n > 1) {
		index_section(f, res, n, o);
		/* compare --per-ghz: throughput per GHz and whether it is proportional to the clock */
		fputs("<h3>Per GHz of the measured clock</h3>\n", f);
		bc_per_ghz(f, res, n, o, &(bc_tab_opts){ .format = BC_TAB_HTML });
	}
	for (size_t g = 0; g < res[0].ngroups; g++) {
		const char *mod = res[0].groups[g].module;
		int first = 1;
		for (size_t h = 0; h < g && first; h++)
			first = strcmp(res[0].groups[h].module, mod) != 0;
		if (!first)
			continue;
		fputs("<h3>", f);
		esc(f, mod);
		fputs("</h3>\n<div class='charts'>\n", f);
		if (one_thread_count(res, n, mod))
			bars_across_cases(f, res, n, mod, o);
		chart_vs_option(f, res, n, mod);
		if (n > 1)
			chart_vs_clock(f, res, n, mod, o);
		fputs("</div>\n", f);
	}
}
