/* The latency of a group's repeats, merged (results.h, docs/results.md
 * "Merged percentiles"). Each ok case brings its op classes' histograms
 * (ops.OP.latency_hist, checked by the case reader); a group keeps their
 * bucket-wise sum in the compact encoding (a few hundred bytes, not the
 * 38 KB of a whole histogram) with the least min and the largest max, so
 * the percentile of all the records of several repeats, files or hosts is
 * read off one histogram. A repeat without a histogram (a file from before
 * them) marks the op class: its figures stay the mean of the repeats'. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "results.h"
#include "util.h"

static bc_rhist *hist_of(bc_rgroup *g, const char *op)
{
	char *name = bc_printable(op);
	for (size_t i = 0; i < g->nhists; i++)
		if (!strcmp(g->hists[i].op, name)) {
			free(name);
			return &g->hists[i];
		}
	if (g->nhists == g->chists) {
		g->chists = g->chists ? 2 * g->chists : 4;
		g->hists = bc_xrealloc(g->hists, g->chists, sizeof(*g->hists));
	}
	bc_rhist *h = &g->hists[g->nhists++];
	*h = (bc_rhist){ .op = name, .min = INFINITY, .max = -INFINITY };
	return h;
}

static void add_one(bc_rhist *h, const bc_cr_op *o)
{
	bc_hist_code c;
	const char *why;
	if (!o->hist || bc_hist_code_from_text(o->hist, strlen(o->hist), &c, &why) < 0) {
		h->missing++;
		return;
	}
	if (bc_hist_code_merge(&h->code, &c) < 0) {
		h->missing++;	/* counts past 2^63: no figure rather than a wrong one */
	} else {
		h->parts++;
		/* the clamp: a merged percentile never leaves the records' range */
		h->min = fmin(h->min, isnan(o->lat.min) ? 0 : o->lat.min);
		h->max = fmax(h->max, isnan(o->lat.max) ? INFINITY : o->lat.max);
	}
	bc_hist_code_free(&c);
}

void bc_group_add_hists(bc_rgroup *g, const bc_case_result *c)
{
	for (size_t i = 0; i < c->nops; i++)
		if (c->ops[i].count && c->ops[i].lat.set)	/* as its latency metrics */
			add_one(hist_of(g, c->ops[i].name), &c->ops[i]);
}

void bc_group_free_hists(bc_rgroup *g)
{
	for (size_t i = 0; i < g->nhists; i++) {
		free(g->hists[i].op);
		bc_hist_code_free(&g->hists[i].code);
	}
	free(g->hists);
	g->hists = NULL;
	g->nhists = g->chists = 0;
}

const bc_rhist *bc_group_hist(const bc_rgroup *g, const char *op)
{
	for (size_t i = 0; i < g->nhists; i++)
		if (!strcmp(g->hists[i].op, op))
			return &g->hists[i];
	return NULL;
}

static uint64_t ns_bound(double v)
{
	return v <= 0 ? 0 : v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

int bc_merged_pct(const bc_rgroup *const *g, size_t n, const char *op, double pct, double *ms, size_t *bad)
{
	bc_hist_code all = { 0 };
	double mn = INFINITY, mx = -INFINITY;
	int rc = 0;
	*bad = 0;
	if (!n || !(pct > 0 && pct <= 100))
		return -1;
	for (size_t i = 0; i < n && !rc; i++) {
		const bc_rhist *h = g[i] ? bc_group_hist(g[i], op) : NULL;
		if (!h || h->missing || !h->parts || bc_hist_code_merge(&all, &h->code) < 0) {
			*bad = i;
			rc = -1;
			break;
		}
		mn = fmin(mn, h->min);
		mx = fmax(mx, h->max);
	}
	if (!rc)
		*ms = (double)bc_hist_code_percentile(&all, pct, ns_bound(mn), ns_bound(mx)) / 1e6;
	bc_hist_code_free(&all);
	return rc;
}
