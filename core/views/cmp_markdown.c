/* compare --format markdown (gate.h): the comparison as a page for a merge
   request's comment or $GITHUB_STEP_SUMMARY. Per file pair: one line of
   counts, the headline table (losses first, then suspect, inconclusive,
   wins, ties), the secondary rows that are not ties, the cases without a
   partner, the machines' differences. No links, no HTML: text a CI page
   shows as it is. Every cell is escaped for a Markdown table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate.h"
#include "util.h"

/* A table cell: | and the characters Markdown reads as markup escaped,
   newlines as spaces. */
static void md_cell(FILE *f, const char *s)
{
	char *t = bc_text_dup(s ? s : "");
	for (const char *p = t; *p; p++) {
		if (strchr("|\\`*_[]<>#!~", *p))
			fputc('\\', f);
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
	}
	free(t);
}

static const char *pct(char *buf, size_t n, double x)
{
	char v[BC_DOUBLE_TEXT];
	snprintf(buf, n, "%s%%", bc_fmt_fig(x * 100, 1, 1, v, sizeof(v)));
	return buf;
}

/* Losses first: the order a reviewer reads. */
static int rank(const bc_cmp_row *r)
{
	switch (r->verdict) {
	case BC_V_LOSS: return 0;
	case BC_V_SUSPECT: return r->direction == BC_V_LOSS ? 1 : 4;
	case BC_V_INCONCLUSIVE: return 2;
	case BC_V_WIN: return 3;
	}
	return 5;
}

static void row(FILE *f, const bc_cmp *c, const bc_cmp_row *r, const bc_gate_opts *g)
{
	char p1[32], p2[32];
	fputs("| ", f);
	md_cell(f, r->ga->module);
	fputs(" | ", f);
	md_cell(f, r->ga->params_text);
	fprintf(f, " | %ld | ", r->ga->threads);
	md_cell(f, r->ma->name);
	fputs(" | ", f);
	if (isfinite(r->change))
		fputs(pct(p1, sizeof(p1), r->change), f);
	fputs(" | ", f);
	if (r->has_ci && isfinite(r->ci_lo))
		fprintf(f, "%s .. %s", pct(p1, sizeof(p1), r->ci_lo), pct(p2, sizeof(p2), r->ci_hi));
	fprintf(f, " | %g%% | %zu/%zu | ", r->threshold * 100, r->sa.n, r->sb.n);
	fputs(r->verdict == BC_V_LOSS ? "**loss**" : bc_row_verdict(r), f);
	if (bc_gate_row_fails(g, r))
		fputs(" (fails the gate)", f);
	fputs(" |\n", f);
	(void)c;
}

static void table(FILE *f, const bc_cmp *c, const bc_gate_opts *g, int headline)
{
	size_t shown = 0;
	for (int k = 0; k <= 5; k++)
		for (size_t i = 0; i < c->nrows; i++) {
			const bc_cmp_row *r = &c->rows[i];
			if (r->headline != headline || rank(r) != k || (!headline && r->verdict == BC_V_TIE))
				continue;
			if (!shown++)
				fprintf(f, "| module | params | threads | metric | change | %g%% interval | threshold | "
					"repeats A/B | verdict |\n|---|---|---:|---|---:|---|---:|---:|---|\n",
					c->opts.level * 100);
			row(f, c, r, g);
		}
	if (!shown)
		fputs(headline ? "No case of B matches a case of A.\n" : "All of them ties (equivalent).\n", f);
}

static void pair(FILE *f, const bc_cmp *c, const bc_gate_opts *g)
{
	const size_t *h = c->count_head;
	fputs("### ", f);
	md_cell(f, c->b->label);
	fputs(" against ", f);
	md_cell(f, c->a->label);
	fprintf(f, "\n\nHeadline: %zu loss%s, %zu win%s, %zu tie%s (equivalent), %zu inconclusive, %zu suspect.\n\n",
		h[BC_V_LOSS], h[BC_V_LOSS] == 1 ? "" : "es", h[BC_V_WIN], h[BC_V_WIN] == 1 ? "" : "s",
		h[BC_V_TIE], h[BC_V_TIE] == 1 ? "" : "s", h[BC_V_INCONCLUSIVE], h[BC_V_SUSPECT]);
	table(f, c, g, 1);
	const size_t *s = c->count_sec;
	if (c->nrows) {
		fprintf(f, "\n#### Secondary metrics (%zu loss%s, %zu win%s, %zu inconclusive, %zu suspect; ties "
			"left out)\n\n", s[BC_V_LOSS], s[BC_V_LOSS] == 1 ? "" : "es", s[BC_V_WIN],
			s[BC_V_WIN] == 1 ? "" : "s", s[BC_V_INCONCLUSIVE], s[BC_V_SUSPECT]);
		table(f, c, g, 0);
	}
	if (c->nonly_a || c->nonly_b) {
		fputs("\n#### Cases without a partner\n\n", f);
		for (size_t i = 0; i < c->nonly_a + c->nonly_b; i++) {
			const bc_rgroup *gr = i < c->nonly_a ? c->only_a[i] : c->only_b[i - c->nonly_a];
			fprintf(f, "- only in %s: ", i < c->nonly_a ? "A" : "B");
			md_cell(f, gr->module);
			fputc(' ', f);
			md_cell(f, gr->params_text);
			fprintf(f, " threads=%ld\n", gr->threads);
		}
	}
	if (json_array_size(c->host_diff)) {
		size_t i;
		json_t *d;
		fputs("\n#### The machines' differences\n\n| fact | A | B |\n|---|---|---|\n", f);
		json_array_foreach(c->host_diff, i, d) {
			json_t *a = json_object_get(d, "a"), *b = json_object_get(d, "b");
			fputs("| ", f);
			md_cell(f, json_string_value(json_object_get(d, "field")));
			fputs(" | ", f);
			md_cell(f, json_is_string(a) ? json_string_value(a) : "(absent)");
			fputs(" | ", f);
			md_cell(f, json_is_string(b) ? json_string_value(b) : "(absent)");
			fputs(" |\n", f);
		}
	}
	fputc('\n', f);
}

void bc_compare_markdown(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_gate_opts *g)
{
	fputs("## benchcore compare\n\n", f);
	fputs("Baseline A: ", f);
	md_cell(f, res[0].label);
	fprintf(f, ". Verdicts from the %g%% interval of B/A - 1 against each metric's threshold, p adjusted "
		"over all rows of a pair (alpha %g); suspect: a difference interference on the machine could "
		"explain.\n\n", o->level * 100, o->alpha);
	for (int i = 1; i < n; i++) {
		bc_cmp c;
		bc_compare_pair(&res[0], &res[i], o, &c);
		pair(f, &c, g);
		bc_cmp_free(&c);
	}
}
