/* report --index SET: the reference set's section of the HTML page, from
 * the same model compare --index SET prints (bc_refset_model): per file
 * UnixBench's table (test, baseline, result, index, the 95% interval over
 * the repeats) and its score, the tests missing named, then each file's
 * score against the first's with the ratio, its interval and compare's
 * verdict. Main thread only. */
#include <stdio.h>
#include <string.h>
#include "refset_html.h"
#include "svg.h"

static void esc(FILE *f, const char *s) { bc_html_escape(f, s ? s : ""); }

static const char *jstr(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "";
}

static double jnum(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

static void html_table(FILE *f, json_t *doc, json_t *file, json_t *tab)
{
	long copies = (long)json_integer_value(json_object_get(tab, "copies"));
	size_t k;
	json_t *t;
	fputs("<h3>", f);
	esc(f, jstr(file, "label"));
	fprintf(f, ", %ld cop%s</h3>\n<table><tr><th>", copies, copies == 1 ? "y" : "ies");
	esc(f, jstr(doc, "header"));
	fputs("</th><th>baseline</th><th>result</th><th>unit</th><th>index</th><th>95% interval</th></tr>\n", f);
	json_array_foreach(json_object_get(tab, "tests"), k, t) {
		fputs("<tr><td>", f);
		esc(f, jstr(t, "title"));
		fprintf(f, "</td><td class='num'>%.1f</td><td class='num'>%.1f</td><td>", jnum(t, "baseline"),
			jnum(t, "result"));
		esc(f, jstr(t, "unit"));
		fprintf(f, "</td><td class='num'>%.1f</td>", jnum(t, "index"));
		if (json_is_number(json_object_get(t, "ci95_pct")))
			fprintf(f, "<td class='num'>&plusmn;%.1f%%</td></tr>\n", jnum(t, "ci95_pct"));
		else
			fputs("<td class='num'>n/a (one repeat)</td></tr>\n", f);
	}
	fputs("<tr><th>", f);
	esc(f, jstr(doc, "score_name"));
	fprintf(f, "</th><td></td><td></td><td></td><th class='num'>%.1f</th><td></td></tr>\n</table>\n",
		jnum(tab, "score"));
	if (!json_array_size(json_object_get(tab, "missing")))
		return;
	fprintf(f, "<p class='note'>Not in the results (the score is over the %lld tests present): ",
		(long long)json_integer_value(json_object_get(tab, "present")));
	json_array_foreach(json_object_get(tab, "missing"), k, t) {
		fputs(k ? "; " : "", f);
		esc(f, jstr(t, "title"));
		fputs(" (<code>", f);
		esc(f, jstr(t, "module"));
		fputc(' ', f);
		esc(f, jstr(t, "params"));
		fputs("</code>)", f);
	}
	fputs("</p>\n", f);
}

static void html_comparisons(FILE *f, json_t *doc)
{
	size_t k;
	json_t *c;
	if (!json_array_size(json_object_get(doc, "comparisons")))
		return;
	fputs("<h3>Scores against the first file</h3>\n<table><tr><th>file</th><th>copies</th><th>score</th>"
	      "<th>first file's</th><th>ratio</th><th>interval</th><th>tests</th><th>verdict</th></tr>\n", f);
	json_array_foreach(json_object_get(doc, "comparisons"), k, c) {
		const char *v = jstr(c, "verdict");
		fputs("<tr><td>", f);
		esc(f, jstr(c, "candidate"));
		fprintf(f, "</td><td class='num'>%lld</td><td class='num'>%.1f</td><td class='num'>%.1f</td>",
			(long long)json_integer_value(json_object_get(c, "copies")), jnum(c, "score_b"), jnum(c, "score_a"));
		if (!*v) {
			fputs("<td colspan='4'>no test in both</td></tr>\n", f);
			continue;
		}
		fprintf(f, "<td class='num'>%.3f</td>", jnum(c, "ratio"));
		if (json_is_number(json_object_get(c, "low")))
			fprintf(f, "<td class='num'>%.3f .. %.3f (%.0f%%)</td>", jnum(c, "low"), jnum(c, "high"),
				100 * jnum(c, "level"));
		else
			fputs("<td class='num'>n/a</td>", f);
		fprintf(f, "<td class='num'>%lld</td><td class='%s'>", (long long)json_integer_value(json_object_get(c, "tests")),
			!strncmp(v, "suspect", 7) ? "suspect" : v);
		esc(f, v);
		if (*jstr(c, "reason")) {
			fputs(": ", f);
			esc(f, jstr(c, "reason"));
		}
		if (!json_is_true(json_object_get(c, "same_tests")))
			fputs(" (the two scores cover different tests: the ratio is over those both have)", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<p class='note'>The ratio is the geometric mean of the ratios of the tests both files "
	      "have, each as compare estimates it; its interval is drawn from their repeats at compare's level, "
	      "and the verdict is compare's rule for one metric (win or loss: significant and beyond the "
	      "throughput threshold; tie: within it).</p>\n", f);
}

void bc_refset_html(FILE *f, const char *name, char *const *dirs, const bc_results *res, int n,
		    const bc_cmp_opts *o)
{
	bc_err e;
	json_t *doc = bc_refset_model(name, dirs, res, n, o, &e), *file, *tab;
	size_t i, k;
	fputs("<h2>", f);
	esc(f, doc ? jstr(doc, "title") : name);
	fputs("</h2>\n", f);
	if (!doc) {
		fputs("<p class='warn'>", f);
		esc(f, e.msg);
		fputs("</p>\n", f);
		return;
	}
	fputs("<p class='note'>", f);
	esc(f, jstr(doc, "source"));
	fputs(" (", f);
	esc(f, jstr(doc, "path"));
	fputs(")</p>\n", f);
	json_array_foreach(json_object_get(doc, "files"), i, file) {
		if (!json_array_size(json_object_get(file, "tables"))) {
			fputs("<p class='warn'>", f);
			esc(f, jstr(file, "label"));
			fputs(": none of the set's tests</p>\n", f);
		}
		json_array_foreach(json_object_get(file, "tables"), k, tab)
			html_table(f, doc, file, tab);
	}
	html_comparisons(f, doc);
	json_decref(doc);
}
