/* history.h's outputs: text for people, CSV (one row per run and case) and
   markdown, and the HTML page that draws each series with its intervals
   and change points (svg.c). Every string from a results file or the
   archive is printed escaped (bc_printable, bc_csv_cell, HTML escaping). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "history_print.h"
#include "mdtext.h"
#include "util.h"

#define NO_FACT "no fact changed: the software or the machine's neighbours"

/* Decimals that show a series' means to 5 significant digits. */
static int decimals(const bc_hseries *s)
{
	double m = 0;
	for (size_t i = 0; i < s->n; i++)
		m = fmax(m, fabs(s->run[i]->mean));
	int d = m > 0 ? 4 - (int)floor(log10(m)) : 2;
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

static void put(FILE *f, const char *s)
{
	char *p = bc_printable(s ? s : "");
	fputs(p, f);
	free(p);
}

static int width(const char *s)
{
	char *p = bc_printable(s ? s : "");
	int w = (int)strlen(p);
	free(p);
	return w;
}

static void put_pad(FILE *f, const char *s, int w)
{
	char *p = bc_printable(s ? s : "");
	fprintf(f, "%-*s", w, p);
	free(p);
}

/* "db1: cpu cpu_max_prime=10000, 1 thread: events_per_sec (events/s, higher is better)" */
/* The text and markdown put user strings through their own out. */
typedef void (*put_fn)(FILE *f, const char *s);

static void heading(FILE *f, const bc_hseries *s, put_fn out)
{
	const bc_hpoint *p = s->run[0];
	out(f, *p->host ? p->host : "(no host name)");
	fputs(": ", f);
	out(f, p->module);
	if (p->params_text && *p->params_text) {
		fputc(' ', f);
		out(f, p->params_text);
	}
	fprintf(f, ", %ld thread%s: ", p->threads, p->threads == 1 ? "" : "s");
	out(f, p->metric);
	fputs(" (", f);
	if (p->unit && *p->unit) {
		out(f, p->unit);
		fputs(", ", f);
	}
	fprintf(f, "%s is better)", p->higher_is_better ? "higher" : "lower");
}

static void fmt_pct(double v, char *buf, size_t n)
{
	if (isfinite(v))
		snprintf(buf, n, "%+.1f%%", v * 100);
	else
		snprintf(buf, n, "?");
}

/* "1000.1 -> 970.2 events/s (-3.0%, 95% interval -3.6% .. -2.4%; p = 0.001;
   12 runs before, 12 after)" */
static void change_text(FILE *f, const bc_hseries *s, const bc_hchange *c, int dec, put_fn out)
{
	char a[BC_DOUBLE_TEXT], b[BC_DOUBLE_TEXT], ch[32], lo[32], hi[32];
	fmt_pct(c->cp.change, ch, sizeof(ch));
	fprintf(f, "%s -> %s", bc_fmt_fig(c->cp.before, dec, 0, a, sizeof(a)),
		bc_fmt_fig(c->cp.after, dec, 0, b, sizeof(b)));
	if (*s->run[0]->unit) {
		fputc(' ', f);
		out(f, s->run[0]->unit);
	}
	fprintf(f, " (%s", ch);
	if (isfinite(c->cp.change_lo)) {
		fmt_pct(c->cp.change_lo, lo, sizeof(lo));
		fmt_pct(c->cp.change_hi, hi, sizeof(hi));
		fprintf(f, ", 95%% interval %s .. %s", lo, hi);
	}
	fprintf(f, "; p = %.2g; %zu run%s before, %zu after)", c->cp.p, c->cp.n_before,
		c->cp.n_before == 1 ? "" : "s", c->cp.n_after);
}

/* "at run 12 (1 run before the change point)" when the facts changed
   beside it, else nothing. */
static void facts_where(FILE *f, const bc_hchange *c)
{
	if (c->facts_at == c->cp.at)
		return;
	size_t d = c->facts_at > c->cp.at ? c->facts_at - c->cp.at : c->cp.at - c->facts_at;
	fprintf(f, " (at run %zu, %zu run%s %s the change point)", c->facts_at + 1, d, d == 1 ? "" : "s",
		c->facts_at > c->cp.at ? "after" : "before");
}

static void text_changes(FILE *f, const bc_hseries *s, int dec)
{
	for (size_t i = 0; i < s->nch; i++) {
		const bc_hchange *c = &s->ch[i];
		const bc_hpoint *p = s->run[c->cp.at];
		fprintf(f, "  change point at run %zu (", c->cp.at + 1);
		put(f, *p->started ? p->started : "no start time");
		fputs("): ", f);
		change_text(f, s, c, dec, put);
		fputc('\n', f);
		if (!c->facts) {
			fputs("    " NO_FACT "\n", f);
			continue;
		}
		fputs("    what changed then", f);
		facts_where(f, c);
		fputs(":\n", f);
		for (size_t k = 0; k < c->nfacts; k++)
			fprintf(f, "      %s\n", c->facts[k]);
	}
}

static void text_series(FILE *f, const bc_history *h, const bc_hseries *s)
{
	int dec = decimals(s), ws = 7, wr = 6, wl = 5, wm = 4;
	char m[BC_DOUBLE_TEXT], lo[BC_DOUBLE_TEXT], hi[BC_DOUBLE_TEXT];
	for (size_t i = 0; i < s->n; i++) {
		const bc_hpoint *p = s->run[i];
		ws = ws > width(p->started) ? ws : width(p->started);
		wr = wr > width(p->run_id) ? wr : width(p->run_id);
		wl = wl > width(p->label) ? wl : width(p->label);
		int w = (int)strlen(bc_fmt_fig(p->mean, dec, 0, m, sizeof(m)));
		wm = wm > w ? wm : w;
	}
	fputc('\n', f);
	heading(f, s, put);
	fprintf(f, ", %zu run%s\n", s->n, s->n == 1 ? "" : "s");
	fprintf(f, "    run  %-*s  %-*s  %-*s  %*s  95%% interval\n", ws, "started", wr, "run_id", wl, "label",
		wm, "mean");
	for (size_t i = 0; i < s->n; i++) {
		const bc_hpoint *p = s->run[i];
		long c = bc_history_change_at(s, i);
		fprintf(f, "%s %4zu  ", c >= 0 ? " >" : "  ", i + 1);
		put_pad(f, p->started, ws);
		fputs("  ", f);
		put_pad(f, p->run_id, wr);
		fputs("  ", f);
		put_pad(f, p->label, wl);
		fprintf(f, "  %*s  %s .. %s", wm, bc_fmt_fig(p->mean, dec, 0, m, sizeof(m)),
			bc_fmt_fig(p->ci_low, dec, 0, lo, sizeof(lo)), bc_fmt_fig(p->ci_high, dec, 0, hi, sizeof(hi)));
		if (c >= 0) {
			char ch[32];
			fmt_pct(s->ch[c].cp.change, ch, sizeof(ch));
			fprintf(f, "  <- change point: %s", ch);
		}
		fputc('\n', f);
	}
	if (!s->tested)
		fprintf(f, "  not tested for change points: %zu run%s, the method needs %zu (%zu a side)\n", s->n,
			s->n == 1 ? "" : "s", 2 * h->cp.min_seg, h->cp.min_seg);
	else if (!s->nch && s->n < bc_cp_min_runs(h->cp.alpha, h->cp.min_seg, h->cp.perms))
		fprintf(f, "  no change point can be shown yet: the smallest p %zu runs can give is %.3g, above alpha "
			"%g; it takes %zu runs\n", s->n, bc_cp_min_p(s->n, h->cp.min_seg, h->cp.perms), h->cp.alpha,
			bc_cp_min_runs(h->cp.alpha, h->cp.min_seg, h->cp.perms));
	else if (!s->nch)
		fprintf(f, "  no change point (no split's p <= %g)\n", h->cp.alpha);
	text_changes(f, s, dec);
}

static void method_line(FILE *f, const bc_history *h)
{
	fprintf(f, "change points: binary segmentation on the shift of the mean, each split's permutation test "
		"(exact up to %d runs, else at most %u permutations; alpha %g, at least %zu runs a side; "
		"docs/history.md)\n", BC_CP_EXACT_MAX, h->cp.perms, h->cp.alpha, h->cp.min_seg);
}

static void print_text(FILE *f, const bc_history *h)
{
	size_t nch = bc_history_changes(h);
	fprintf(f, "history: %zu run%s, %zu series (host, case, metric), %zu change point%s\n", h->nruns,
		h->nruns == 1 ? "" : "s", h->nseries, nch, nch == 1 ? "" : "s");
	method_line(f, h);
	if (h->dropped)
		fprintf(f, "left out: %zu point%s (a run given twice, or a mean that is not a number)\n",
			h->dropped, h->dropped == 1 ? "" : "s");
	for (size_t i = 0; i < h->nseries; i++)
		text_series(f, h, &h->series[i]);
}

/* A text cell: printable (a terminal escape in a host name is no data), then
   bc_csv_cell's quoting and formula guard. */
static void csv_text(FILE *f, const char *s)
{
	char *p = bc_printable(s ? s : "");
	bc_csv_cell(f, p);
	free(p);
}

static void csv_num(FILE *f, double v)
{
	char b[BC_DOUBLE_TEXT];
	fprintf(f, ",%s", isfinite(v) ? bc_fmt_double(v, b, sizeof(b)) : "");
}

static void csv_facts(FILE *f, const bc_hchange *c)
{
	if (!c->facts) {
		bc_csv_cell(f, NO_FACT);
		return;
	}
	char *j = bc_strv_join(c->facts, "; ");
	bc_csv_cell(f, j);	/* the facts are printable already */
	free(j);
}

static void print_csv(FILE *f, const bc_history *h)
{
	fputs("host,module,params,threads,metric,unit,run,run_id,started,label,mean,ci_low,ci_high,n,"
	      "change_point,change,change_low,change_high,p,changed,changed_at_run\n", f);
	for (size_t i = 0; i < h->nseries; i++) {
		const bc_hseries *s = &h->series[i];
		for (size_t k = 0; k < s->n; k++) {
			const bc_hpoint *p = s->run[k];
			long c = bc_history_change_at(s, k);
			const char *cells[] = { p->host, p->module, p->params_text };
			for (int j = 0; j < 3; j++) {
				if (j)
					fputc(',', f);
				csv_text(f, cells[j]);
			}
			fprintf(f, ",%ld,", p->threads);
			csv_text(f, p->metric);
			fputc(',', f);
			csv_text(f, p->unit);
			fprintf(f, ",%zu,", k + 1);
			csv_text(f, p->run_id);
			fputc(',', f);
			csv_text(f, p->started);
			fputc(',', f);
			csv_text(f, p->label);
			csv_num(f, p->mean);
			csv_num(f, p->ci_low);
			csv_num(f, p->ci_high);
			fprintf(f, ",%zu,%d", p->n, c >= 0);
			if (c < 0) {
				fputs(",,,,,,\n", f);
				continue;
			}
			const bc_hchange *ch = &s->ch[c];
			csv_num(f, ch->cp.change);
			csv_num(f, ch->cp.change_lo);
			csv_num(f, ch->cp.change_hi);
			csv_num(f, ch->cp.p);
			fputc(',', f);
			csv_facts(f, ch);
			fprintf(f, ",%zu\n", ch->facts_at + 1);
		}
	}
}

/* A user's string in markdown: mdtext.c's, shared with the gates' lines. */
static void md(FILE *f, const char *s)
{
	bc_md_text(f, s);
}

static void md_series(FILE *f, const bc_hseries *s)
{
	int dec = decimals(s);
	char m[BC_DOUBLE_TEXT], lo[BC_DOUBLE_TEXT], hi[BC_DOUBLE_TEXT], ch[32];
	fputs("\n### ", f);
	heading(f, s, md);
	fputs("\n\n| run | started | run_id | label | mean | 95% interval | change point |\n"
	      "|---:|---|---|---|---:|---|---|\n", f);
	for (size_t k = 0; k < s->n; k++) {
		const bc_hpoint *p = s->run[k];
		long c = bc_history_change_at(s, k);
		fprintf(f, "| %zu | ", k + 1);
		md(f, p->started);
		fputs(" | ", f);
		md(f, p->run_id);
		fputs(" | ", f);
		md(f, p->label);
		fprintf(f, " | %s | %s .. %s | ", bc_fmt_fig(p->mean, dec, 0, m, sizeof(m)),
			bc_fmt_fig(p->ci_low, dec, 0, lo, sizeof(lo)), bc_fmt_fig(p->ci_high, dec, 0, hi, sizeof(hi)));
		if (c >= 0) {
			fmt_pct(s->ch[c].cp.change, ch, sizeof(ch));
			fprintf(f, "**%s** (p = %.2g)", ch, s->ch[c].cp.p);
		}
		fputs(" |\n", f);
	}
	if (s->nch)
		fputc('\n', f);
	for (size_t i = 0; i < s->nch; i++) {
		const bc_hchange *c = &s->ch[i];
		fprintf(f, "- change point at run %zu: ", c->cp.at + 1);
		change_text(f, s, c, dec, md);
		if (!c->facts) {
			fputs("; " NO_FACT "\n", f);
			continue;
		}
		fputs("; what changed then", f);
		facts_where(f, c);
		fputs(": ", f);
		for (size_t k = 0; k < c->nfacts; k++) {
			fputs(k ? "; " : "", f);
			md(f, c->facts[k]);
		}
		fputc('\n', f);
	}
}

void bc_history_print(FILE *f, const bc_history *h, int fmt)
{
	if (fmt == BC_HIST_CSV) {
		print_csv(f, h);
		return;
	}
	if (fmt == BC_HIST_TEXT) {
		print_text(f, h);
		return;
	}
	size_t nch = bc_history_changes(h);
	fprintf(f, "## History\n\n%zu run%s, %zu series (host, case, metric), %zu change point%s.\n", h->nruns,
		h->nruns == 1 ? "" : "s", h->nseries, nch, nch == 1 ? "" : "s");
	method_line(f, h);
	for (size_t i = 0; i < h->nseries; i++)
		md_series(f, &h->series[i]);
}
