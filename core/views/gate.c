/* compare --fail-on (gate.h): which rows fail the gate and the lines that
   say so. The verdicts are the judge's (compare.c); this only reads them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate.h"
#include "mdtext.h"
#include "util.h"

static const struct { const char *name; unsigned bit; } words[] = {
	{ "loss", BC_GATE_LOSS }, { "suspect", BC_GATE_SUSPECT }, { "inconclusive", BC_GATE_INCONCLUSIVE },
};

int bc_gate_parse(const char *list, unsigned *bits)
{
	char **v = bc_split(list, ',');
	unsigned b = 0;
	int rc = 0;
	for (char **p = v; *p && !rc; p++) {
		size_t k = 0;
		while (k < sizeof(words) / sizeof(words[0]) && strcmp(words[k].name, *p))
			k++;
		if (k == sizeof(words) / sizeof(words[0]))
			rc = -1;
		else
			b |= words[k].bit;
	}
	bc_strv_free(v);
	if (!rc && !b)
		rc = -1;
	if (!rc)
		*bits = b;
	return rc;
}

const char *bc_gate_text(unsigned bits, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (bits & words[k].bit && at < n)
			at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "", words[k].name);
	return buf;
}

int bc_gate_row_gated(const bc_gate_opts *g, const bc_cmp_row *r)
{
	if (r->headline || g->all_metrics)
		return 1;
	size_t len = strlen(r->ma->name);
	for (size_t i = 0; i < g->nmetrics; i++)	/* each a name or a,b */
		for (const char *p = g->metrics[i]; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
			if (!strncmp(p, r->ma->name, len) && (p[len] == ',' || !p[len]))
				return 1;
	return 0;
}

int bc_gate_row_fails(const bc_gate_opts *g, const bc_cmp_row *r)
{
	if (!g->fail_on || !bc_gate_row_gated(g, r))
		return 0;
	switch (r->verdict) {
	case BC_V_LOSS: return !!(g->fail_on & BC_GATE_LOSS);
	case BC_V_SUSPECT: return r->direction == BC_V_LOSS && (g->fail_on & BC_GATE_SUSPECT);
	case BC_V_INCONCLUSIVE: return !!(g->fail_on & BC_GATE_INCONCLUSIVE);
	}
	return 0;
}

size_t bc_gate_missing(const bc_gate_opts *g, const bc_cmp *c)
{
	if (g->allow_missing)
		return 0;
	return c->nonly_b + (c->b->nfailed > 0) + (c->b->interrupted || (c->b->status &&
		strcmp(c->b->status, "complete")));
}

static const char *pct(char *buf, size_t n, double x)
{
	char v[BC_DOUBLE_TEXT];
	snprintf(buf, n, "%s%%", bc_fmt_fig(x * 100, 1, 1, v, sizeof(v)));
	return buf;
}

/* "FAIL loss: cpu max_prime=20000 threads=1 events_per_sec ratio 0.501
   [-50.3% .. -49.5%] threshold 2% (B against A)" */
static void fail_line(FILE *f, const bc_cmp *c, const bc_cmp_row *r)
{
	char p1[32], p2[32];
	char *mod = bc_printable(r->ga->module), *par = bc_printable(r->ga->params_text);
	char *met = bc_printable(r->ma->name), *la = bc_printable(c->a->label), *lb = bc_printable(c->b->label);
	fprintf(f, "FAIL %s: %s %s%sthreads=%ld %s ratio ", bc_row_verdict(r), mod, par, *par ? " " : "",
		r->ga->threads, met);
	if (isfinite(r->ratio))
		fprintf(f, "%.4g", r->ratio);
	else
		fputs("n/a", f);
	if (r->has_ci && isfinite(r->ci_lo))
		fprintf(f, " [%s .. %s] (%g%% interval)", pct(p1, sizeof(p1), r->ci_lo),
			pct(p2, sizeof(p2), r->ci_hi), c->opts.level * 100);
	else
		fputs(" [no interval]", f);
	fprintf(f, " threshold %g%% (%s) n=%zu/%zu, %s against %s\n", r->threshold * 100, r->threshold_src,
		r->sa.n, r->sb.n, lb, la);
	free(mod); free(par); free(met); free(la); free(lb);
}

static void missing_lines(FILE *f, const bc_cmp *c)
{
	char *lb = bc_printable(c->b->label), *la = bc_printable(c->a->label);
	for (size_t i = 0; i < c->nonly_b; i++) {
		const bc_rgroup *gb = c->only_b[i];
		char *mod = bc_printable(gb->module), *par = bc_printable(gb->params_text);
		fprintf(f, "FAIL missing: %s %s%sthreads=%ld of %s has no case in %s to compare with "
			"(--allow-missing lets it pass)\n", mod, par, *par ? " " : "", gb->threads, lb, la);
		free(mod);
		free(par);
	}
	if (c->b->nfailed)
		fprintf(f, "FAIL not ok: %zu of %zu cases of %s failed (--allow-missing lets it pass)\n",
			c->b->nfailed, c->b->ncases, lb);
	if (c->b->interrupted || (c->b->status && strcmp(c->b->status, "complete"))) {
		char *st = bc_printable(c->b->status ? c->b->status : "interrupted");
		fprintf(f, "FAIL not ok: %s is %s, not complete (--allow-missing lets it pass)\n", lb, st);
		free(st);
	}
	free(lb);
	free(la);
}

/* The lines as Markdown after compare's page: labels, hosts and params
   are a user's strings (HTML, links, emphasis): each line goes through
   bc_md_text, a failing line as a list item, the closing line a paragraph. */
static void as_markdown(FILE *f, char *text)
{
	char *save = NULL;
	fputs("\n#### Gate\n\n", f);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int item = !strncmp(l, "FAIL ", 5);
		fputs(item ? "- " : "\n", f);
		bc_md_text(f, l);
		fputc('\n', f);
	}
}

static size_t gate_lines(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_gate_opts *g);

size_t bc_gate_print(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_gate_opts *g)
{
	if (!g->markdown)
		return gate_lines(f, res, n, o, g);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return gate_lines(stderr, res, n, o, g);	/* never unescaped on the page */
	size_t fails = gate_lines(m, res, n, o, g);
	fclose(m);
	as_markdown(f, text);
	free(text);
	return fails;
}

static size_t gate_lines(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_gate_opts *g)
{
	size_t fails = 0, rows = 0;
	char list[64];
	for (int i = 1; i < n; i++) {
		bc_cmp c;
		bc_compare_pair(&res[0], &res[i], o, &c);
		for (size_t k = 0; k < c.nrows; k++) {
			rows += bc_gate_row_gated(g, &c.rows[k]);
			if (bc_gate_row_fails(g, &c.rows[k])) {
				if (!fails)
					fputc('\n', f);
				fail_line(f, &c, &c.rows[k]);
				fails++;
			}
		}
		size_t miss = bc_gate_missing(g, &c);
		if (miss && !fails)
			fputc('\n', f);
		if (miss)
			missing_lines(f, &c);
		fails += miss;
		bc_cmp_free(&c);
	}
	bc_gate_text(g->fail_on, list, sizeof(list));
	if (fails)
		fprintf(f, "gate: FAILED (--fail-on %s): %zu failure%s over %zu gated row%s (exit status 4)\n",
			list, fails, fails == 1 ? "" : "s", rows, rows == 1 ? "" : "s");
	else
		fprintf(f, "\ngate: passed (--fail-on %s): no failure over %zu gated row%s\n", list, rows,
			rows == 1 ? "" : "s");
	return fails;
}
