/* history.h's page: one self-contained HTML file (inline CSS and SVG, no
   scripts), per series a chart of its means in time order with their 95%
   intervals and the change points marked (svg.c), and a table of the
   change points with the facts that changed at each. Written as report.c
   writes its page: built in memory, then renamed into place. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "history_html.h"
#include "svg.h"
#include "util.h"

static const char css[] =
"body{font-family:sans-serif;margin:24px;color:#222;max-width:1280px}"
"h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc;font-size:1.2em}"
"table{border-collapse:collapse;margin:.6em 0;font-size:.9em}"
"td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}"
"th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}"
"figure{display:inline-block;margin:8px 8px 8px 0}figcaption{font-size:.85em;color:#555}"
"svg.chart{font-size:12px}svg .title{font-weight:bold;font-size:13px}"
"svg .axis{font-size:12px}svg .tick,svg .legend{font-size:11px}.note{color:#555;font-size:.9em}";

static void esc(FILE *f, const char *s)
{
	char *p = bc_printable(s ? s : "");
	bc_html_escape(f, p);
	free(p);
}

static char *series_title(const bc_hseries *s)
{
	const bc_hpoint *p = s->run[0];
	return bc_xasprintf("%s: %s%s%s, %ld thread%s", *p->host ? p->host : "(no host name)", p->module,
			    *p->params_text ? " " : "", p->params_text, p->threads, p->threads == 1 ? "" : "s");
}

static void chart(FILE *f, const bc_hseries *s)
{
	double *x = bc_xcalloc(s->n, sizeof(*x)), *y = bc_xcalloc(s->n, sizeof(*y));
	double *lo = bc_xcalloc(s->n, sizeof(*lo)), *hi = bc_xcalloc(s->n, sizeof(*hi));
	double *mx = bc_xcalloc(s->nch + 1, sizeof(*mx));
	char **ml = bc_xcalloc(s->nch + 1, sizeof(*ml));
	for (size_t i = 0; i < s->n; i++) {
		x[i] = (double)(i + 1);
		y[i] = s->run[i]->mean;
		lo[i] = s->run[i]->ci_low;
		hi[i] = s->run[i]->ci_high;
	}
	for (size_t i = 0; i < s->nch; i++) {
		mx[i] = (double)s->ch[i].cp.at + 0.5;	/* between the runs either side */
		ml[i] = bc_xasprintf("%+.1f%%", s->ch[i].cp.change * 100);
	}
	char *title = series_title(s), *ylabel = bc_printable(s->run[0]->unit ? s->run[0]->unit : "");
	char *name = bc_printable(s->run[0]->metric);
	/* the level of each segment between change points, as a second line */
	size_t nl = s->nch ? 2 * (s->nch + 1) : 0;
	double *lx = bc_xcalloc(nl + 1, sizeof(*lx)), *ly = bc_xcalloc(nl + 1, sizeof(*ly));
	for (size_t i = 0; nl && i <= s->nch; i++) {
		size_t a = i ? s->ch[i - 1].cp.at : 0, b = i < s->nch ? s->ch[i].cp.at : s->n;
		lx[2 * i] = (double)a + 1;
		lx[2 * i + 1] = (double)b;
		ly[2 * i] = ly[2 * i + 1] = i < s->nch ? s->ch[i].cp.before : s->ch[i - 1].cp.after;
	}
	bc_series ser[2] = { { .name = name, .n = s->n, .x = x, .y = y, .ylo = lo, .yhi = hi },
			     { .name = "level", .n = nl, .x = lx, .y = ly } };
	bc_chart c = { .title = title, .xlabel = "run, in time order", .ylabel = ylabel,
		       .note = s->run[0]->higher_is_better ? "higher is better; dashed: change points; "
			       "level: the mean between them" : "lower is better; dashed: change points; "
			       "level: the mean between them",
		       .s = ser, .ns = s->nch ? 2 : 1, .marks = mx, .mark_labels = (const char *const *)ml,
		       .nmarks = s->nch, .zoom = 1, .linear_x = 1 };
	char *pt = bc_printable(title);
	c.title = pt;
	bc_svg_chart(f, &c);
	free(pt);
	for (size_t i = 0; i < s->nch; i++)
		free(ml[i]);
	free(lx), free(ly);
	free(ml), free(mx), free(x), free(y), free(lo), free(hi), free(title), free(ylabel), free(name);
}

static void changes_table(FILE *f, const bc_hseries *s)
{
	if (!s->nch) {
		fprintf(f, "<p class='note'>%s</p>\n", s->tested ? "No change point." :
			"Too few runs to look for change points.");
		return;
	}
	fputs("<table><tr><th>run</th><th>started</th><th>run_id</th><th>before</th><th>after</th>"
	      "<th>change (95% interval)</th><th>p</th><th>what changed then</th></tr>\n", f);
	for (size_t i = 0; i < s->nch; i++) {
		const bc_hchange *c = &s->ch[i];
		const bc_hpoint *p = s->run[c->cp.at];
		fprintf(f, "<tr><td class='num'>%zu</td><td>", c->cp.at + 1);
		esc(f, p->started);
		fputs("</td><td>", f);
		esc(f, p->run_id);
		fprintf(f, "</td><td class='num'>%.6g</td><td class='num'>%.6g</td><td class='num'>%+.1f%%",
			c->cp.before, c->cp.after, c->cp.change * 100);
		if (isfinite(c->cp.change_lo))
			fprintf(f, " (%+.1f%% .. %+.1f%%)", c->cp.change_lo * 100, c->cp.change_hi * 100);
		fprintf(f, "</td><td class='num'>%.3f</td><td>", c->cp.p);
		if (!c->facts)
			fputs("no fact changed: the software or the machine's neighbours", f);
		if (c->facts && c->facts_at != c->cp.at)
			fprintf(f, "at run %zu: ", c->facts_at + 1);
		for (size_t k = 0; k < c->nfacts; k++) {
			fputs(k ? "<br>" : "", f);
			esc(f, c->facts[k]);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int bc_history_html(FILE *f, const bc_history *h, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>", f);
	esc(f, title);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>", css);
	esc(f, title);
	fprintf(f, "</h1>\n<p class='note'>%zu runs, %zu series, %zu change points. Change points: binary "
		"segmentation on the shift of the mean, each split's permutation test (exact up to %d runs, else at "
		"most %u permutations; alpha %g, at least %zu runs a side; docs/history.md). Bars: each run's 95%% "
		"interval.</p>\n", h->nruns, h->nseries, bc_history_changes(h), BC_CP_EXACT_MAX, h->cp.perms,
		h->cp.alpha, h->cp.min_seg);
	for (size_t i = 0; i < h->nseries; i++) {
		const bc_hseries *s = &h->series[i];
		char *t = series_title(s);
		fputs("<h2>", f);
		esc(f, t);
		fputs(": ", f);
		esc(f, s->run[0]->metric);
		fprintf(f, ", %zu runs</h2>\n", s->n);
		free(t);
		chart(f, s);
		changes_table(f, s);
	}
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}

int bc_history_html_output(const char *path, const bc_history *h, const char *title)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bc_err e;
	int rc;
	if (!f) {
		fprintf(stderr, "benchcore history: --html %s: out of memory\n", path);
		return -1;
	}
	rc = bc_history_html(f, h, title);
	if (fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		fprintf(stderr, "benchcore history: --html %s: the page could not be built\n", path);
	else if (!strcmp(path, "-"))
		rc = fwrite(buf, 1, len, stdout) != len || bc_stdout_done("history") ? -1 : 0;
	else if (bc_write_atomic(path, buf, len, &e) < 0) {
		fprintf(stderr, "benchcore history: --html %s: not written: %s\n", path, e.msg);
		rc = -1;
	}
	free(buf);
	return rc;
}
