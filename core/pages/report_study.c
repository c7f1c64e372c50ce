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

/* The metric a chart of group g shows: the one of names (--metric) g has,
   else its headline; NULL when it has none with values. */
static const bc_rmetric *chart_metric(const bc_rgroup *g, char **names)
{
	if (!names) {
		const bc_rmetric *m = bc_primary_metric(g);
		return m && m->n ? m : NULL;
	}
	for (size_t k = 0; names[k]; k++) {
		const bc_rmetric *m = bc_group_metric(g, names[k]);
		if (m && m->n)
			return m;
	}
	return NULL;
}

/* The distinct metric names the groups gs show (chart_metric), first met
   first: each gets its own chart, on its own unit's axis (dhrystone's
   loops/s and whetstone's MWIPS never share one). Returns how many. */
static size_t chart_metrics(const bc_rgroup **gs, size_t ng, char **names, const char **out, size_t max)
{
	size_t k = 0;
	for (size_t g = 0; g < ng; g++) {
		const bc_rmetric *m = chart_metric(gs[g], names);
		size_t j = 0;
		while (m && j < k && strcmp(out[j], m->name))
			j++;
		if (m && j == k && k < max)
			out[k++] = m->name;
	}
	return k;
}

/* The case in file i (0: res[0]'s own) that compare matched with gs. */
static const bc_rgroup *matched(bc_cmp *cmp, int i, const bc_rgroup *ga)
{
	if (!i)
		return ga;
	for (size_t r = 0; r < cmp[i].nrows; r++)
		if (cmp[i].rows[r].ga == ga)
			return cmp[i].rows[r].gb;
	return NULL;
}

/* One chart of metric over res[0]'s cases of module that have it, one bar
   per file. */
static void bars_of_metric(FILE *f, bc_results *res, int n, const char *module, const bc_rgroup **gs,
			   size_t ng, const char *metric, char **names, bc_cmp *cmp, const char *byopt)
{
	const char *cats[MAX_CATS];
	char *owned[MAX_CATS];
	const bc_rgroup *cg[MAX_CATS];
	static double y[MAX_FILES][MAX_CATS], lo[MAX_FILES][MAX_CATS], hi[MAX_FILES][MAX_CATS],
		x[MAX_FILES][MAX_CATS];
	bc_series s[MAX_FILES];
	size_t nc = 0;
	const bc_rmetric *h0 = NULL;
	for (size_t g = 0; g < ng && nc < MAX_CATS; g++) {
		const bc_rmetric *m = chart_metric(gs[g], names);
		if (!m || strcmp(m->name, metric))
			continue;
		h0 = h0 ? h0 : m;
		cg[nc] = gs[g];
		owned[nc] = bc_case_label(&res[0], gs[g], byopt);
		cats[nc] = *owned[nc] ? owned[nc] : module;
		nc++;
	}
	if (!nc)
		return;
	for (int i = 0; i < n && i < MAX_FILES; i++) {
		for (size_t c = 0; c < nc; c++) {
			const bc_rgroup *g = matched(cmp, i, cg[c]);
			x[i][c] = (double)c;
			mean_ci(g ? bc_group_metric(g, metric) : NULL, &y[i][c], &lo[i][c], &hi[i][c]);
		}
		s[i] = (bc_series){ res[i].label, nc, x[i], y[i], lo[i], hi[i] };
	}
	char title[256];
	snprintf(title, sizeof(title), "%s: %s of every case, one bar per file", module, metric);
	bc_svg_chart(f, &(bc_chart){ .title = title, .xlabel = "case", .ylabel = h0->unit,
		.note = h0->higher_is_better ? "higher is better; bars: 95% interval of the repeats" :
		"lower is better; bars: 95% interval of the repeats", .xcats = cats, .ncat = nc, .s = s,
		.ns = (size_t)(n < MAX_FILES ? n : MAX_FILES), .bars = 1 });
	for (size_t c = 0; c < nc; c++)
		free(owned[c]);
}

/* The headline (or --metric) of each of res[0]'s cases of module, one bar
   per file: a chart per metric. */
static void bars_across_cases(FILE *f, bc_results *res, int n, const char *module, const bc_cmp_opts *o,
			      char **names, const char *byopt)
{
	size_t ng;
	const bc_rgroup **gs = bc_plan_groups(&res[0], module, &ng);
	const char *ms[16];
	size_t nm = chart_metrics(gs, ng, names, ms, 16);
	bc_cmp cmp[MAX_FILES];
	if (ng < 2 || !nm) {
		free(gs);
		return;
	}
	for (int i = 1; i < n && i < MAX_FILES; i++)
		bc_compare_pair(&res[0], &res[i], o, &cmp[i]);
	for (size_t k = 0; k < nm; k++)
		bars_of_metric(f, res, n, module, gs, ng, ms[k], names, cmp, byopt);
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

/* The headline (or --metric) of each case of module against the clock
   measured in each file: a line per case, a point per file, a chart per
   metric (its own unit), the x axis from 0 so that a line through the
   origin, throughput proportional to the clock, can be seen. Needs two
   files that measured. */
static void clock_of_metric(FILE *f, bc_results *res, int n, const char *module, const bc_rgroup **gs,
			    size_t ng, const char *metric, char **names, bc_cmp *cmp, const char *byopt)
{
	static double x[MAX_CATS][MAX_FILES], y[MAX_CATS][MAX_FILES];
	bc_series s[MAX_CATS];
	char *owned[MAX_CATS];
	size_t nc = 0;
	int measured = 0;
	const bc_rmetric *h0 = NULL;
	for (size_t g = 0; g < ng && nc < MAX_CATS; g++) {
		const bc_rmetric *m = chart_metric(gs[g], names);
		if (!m || strcmp(m->name, metric))
			continue;
		h0 = h0 ? h0 : m;
		owned[nc] = bc_case_label(&res[0], gs[g], byopt);
		for (int i = 0; i < n && i < MAX_FILES; i++) {
			const bc_rgroup *gi = matched(cmp, i, gs[g]);
			double lo, hi;
			/* to 10 MHz: the axis shows the files' clocks, not the probe's noise */
			x[nc][i] = gi && gi->freq_n ? round(gi->freq_sum / (double)gi->freq_n / 10) / 100 : NAN;
			measured += !isnan(x[nc][i]) && nc == 0;
			mean_ci(gi ? bc_group_metric(gi, metric) : NULL, &y[nc][i], &lo, &hi);
		}
		s[nc] = (bc_series){ *owned[nc] ? owned[nc] : module, (size_t)(n < MAX_FILES ? n : MAX_FILES), x[nc],
				     y[nc], NULL, NULL };
		nc++;
	}
	if (measured >= 2 && nc) {
		char title[256];
		snprintf(title, sizeof(title), "%s: %s against the measured clock, one line per case", module,
			 metric);
		bc_svg_chart(f, &(bc_chart){ .title = title, .xlabel = "GHz measured during the case",
			.ylabel = h0->unit, .note = h0->higher_is_better ? "both axes from 0: a line through "
			"the origin is throughput proportional to the clock" : "both axes from 0: lower is "
			"better; a time proportional to the clock falls as 1/GHz", .s = s, .ns = nc,
			.xzero = 1 });
	}
	for (size_t c = 0; c < nc; c++)
		free(owned[c]);
}

static void chart_vs_clock(FILE *f, bc_results *res, int n, const char *module, const bc_cmp_opts *o,
			   char **names, const char *byopt)
{
	size_t ng;
	const bc_rgroup **gs = bc_plan_groups(&res[0], module, &ng);
	const char *ms[16];
	size_t nm = chart_metrics(gs, ng, names, ms, 16);
	bc_cmp cmp[MAX_FILES];
	for (int i = 1; i < n && i < MAX_FILES; i++)
		bc_compare_pair(&res[0], &res[i], o, &cmp[i]);
	for (size_t k = 0; k < nm; k++)
		clock_of_metric(f, res, n, module, gs, ng, ms[k], names, cmp, byopt);
	for (int i = 1; i < n && i < MAX_FILES; i++)
		bc_cmp_free(&cmp[i]);
	free(gs);
}

/* The studies' "500 x 8": per file, each module and params it ran at two
   thread counts or more, its headline (or --metric) per thread count as a
   value per thread times the threads, the speedup and its share of linear
   (compare --scaling's figures), a table the reader can quote. */
static void scaling_section(FILE *f, bc_results *res, int n, char **names)
{
	int any = 0;
	bc_scale_point pts[64];
	for (int i = 0; i < n && i < MAX_FILES; i++)
		for (size_t g = 0; g < res[i].ngroups; g++) {
			const bc_rgroup *gr = &res[i].groups[g];
			int seen = 0;
			for (size_t h = 0; h < g && !seen; h++)
				seen = !strcmp(res[i].groups[h].module, gr->module) &&
				       !strcmp(res[i].groups[h].params_key, gr->params_key);
			const bc_rmetric *m = seen ? NULL : chart_metric(gr, names);
			if (!m || !m->higher_is_better)
				continue;
			size_t np = bc_scaling(&res[i], gr->module, gr->params_key, m->name, pts, 64);
			if (np < 2)
				continue;
			if (!any++)
				fputs("<h3>Scaling with threads</h3>\n<table><tr><th>file</th><th>case</th><th>metric</th>"
				      "<th>threads</th><th>value</th><th>per thread &times; threads</th><th>speedup</th>"
				      "<th>of linear</th></tr>\n", f);
			for (size_t k = 0; k < np; k++) {
				fputs("<tr><td>", f);
				esc(f, res[i].label);
				fputs("</td><td>", f);
				esc(f, gr->module);
				fputs(" ", f);
				esc(f, gr->params_text);
				fputs("</td><td>", f);
				esc(f, m->name);
				fprintf(f, "</td><td class='num'>%ld</td><td class='num'>%.4g</td><td class='num'>%.4g "
					"&times; %ld</td><td class='num'>%.2fx</td><td class='num'>%.0f%%</td></tr>\n",
					pts[k].threads, pts[k].mean, pts[k].mean / (double)pts[k].threads, pts[k].threads,
					pts[k].speedup, pts[k].efficiency * 100);
			}
		}
	if (any)
		fputs("</table>\n<p class='note'>Each value: the mean over the repeats; per thread &times; threads: "
		      "the study's \"500 x 8\" (a value per thread that stays the same is linear scaling); speedup "
		      "and its share of linear against the smallest thread count the file ran (compare "
		      "--scaling).</p>\n", f);
}

/* The mean clock measured during a file's cases (GHz), NAN when none was. */
static double file_ghz(const bc_results *r)
{
	double sum = 0;
	size_t k = 0;
	for (size_t g = 0; g < r->ngroups; g++)
		if (r->groups[g].freq_n) {
			sum += r->groups[g].freq_sum / (double)r->groups[g].freq_n;
			k++;
		}
	return k ? sum / (double)k / 1000 : NAN;
}

/* Some file's measured clock differs from the first's by more than the
   probe wanders (2%): the files are a frequency study, and whether
   throughput follows the clock is a question the page should answer. */
static int clocks_differ(bc_results *res, int n)
{
	double a = file_ghz(&res[0]);
	for (int i = 1; i < n && isfinite(a) && a > 0; i++) {
		double b = file_ghz(&res[i]);
		if (isfinite(b) && fabs(b / a - 1) > 0.02)
			return 1;
	}
	return 0;
}

void bc_report_study(FILE *f, bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t)
{
	char **names = NULL;
	const char *byopt = t->by ? strchr(t->by, '.') + 1 : NULL;
	if (t->metric && bc_tab_metrics(t, res, n, &names) < 0)
		names = NULL;	/* refused before the page was begun (report_cli) */
	fputs("<h2>The studies' views</h2>\n<h3>Cases and systems</h3>\n", f);
	/* compare --table: each case's headline in every file, its verdict, and the module facts
	   that differ between the files (the OpenSSL version) */
	bc_table(f, res, n, o, t);
	if (n > 1) {
		index_section(f, res, n, o);
		/* compare --per-ghz: throughput per GHz and whether it is proportional to the clock,
		   when the files' clocks differ (a frequency study); else nobody asked */
		if (clocks_differ(res, n)) {
			fputs("<h3>Per GHz of the measured clock</h3>\n", f);
			bc_per_ghz(f, res, n, o, t);
		}
	}
	scaling_section(f, res, n, names);
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
			bars_across_cases(f, res, n, mod, o, names, byopt);
		chart_vs_option(f, res, n, mod);
		if (n > 1)
			chart_vs_clock(f, res, n, mod, o, names, byopt);
		fputs("</div>\n", f);
	}
	bc_strv_free(names);
}
