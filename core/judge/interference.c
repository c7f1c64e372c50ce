/* compare's interference rule (issue 38; docs/results.md "Interference"):
   where a case ran, steal and other processes took a share of its CPUs'
   time; that can only slow the side it hit, and by no more than a bound.
   compare.c asks two things of it: each side's share and bound for a row,
   and whether a would-be win or loss is explained by them. */
#include <math.h>
#include <stdio.h>
#include "interference.h"

double bc_interference_bound(const double *share, const double *use, size_t n, double busy)
{
	double sum = 0;
	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		double sh = share[i], f = 0;
		if (sh >= busy && sh >= 1)
			return INFINITY;
		if (sh >= busy && sh > 0) {
			double c = isnan(use[i]) ? 1 : fmin(1, use[i] / (1 - sh));
			f = c * sh / (1 - sh);
		}
		sum += log1p(f);
	}
	return expm1(sum / (double)n);
}

/* One side's interference: its mean share (percent), the slowdown it can
   cause the row's metric, the largest share seen into *max_pct. A tail
   percentile or a fairness figure has no such bound: one preempted
   request waits a whole time slice, one starved thread skews fairness. */
static void side_interference(const bc_cmp_opts *o, const bc_rgroup *g, int kind, double *share,
			      double *bound, double *max_pct)
{
	double sum = 0;
	*share = -1;
	*bound = bc_interference_bound(g->interf_share, g->interf_use, g->ninterf, o->busy_pct / 100);
	if (isnan(*bound)) {
		*bound = 0;
		return;
	}
	for (size_t i = 0; i < g->ninterf; i++) {
		sum += g->interf_share[i];
		*max_pct = fmax(*max_pct, 100 * g->interf_share[i]);
	}
	*share = 100 * sum / (double)g->ninterf;
	if (*bound > 0 && (kind == BC_KIND_TAIL || kind == BC_KIND_FAIRNESS))
		*bound = INFINITY;
}

void bc_row_interference(const bc_cmp_opts *o, bc_cmp_row *r)
{
	side_interference(o, r->ga, r->kind, &r->share_a, &r->bound_a, &r->busy_pct);
	side_interference(o, r->gb, r->kind, &r->share_b, &r->bound_b, &r->busy_pct);
	r->busy = r->busy_pct >= o->busy_pct;
}

/* A win or loss (r->direction set): did interference cause it? Only the
   side it hit is slowed: a loss can come from B's, a win from A's. The
   interval's end nearest to no change, moved back by that side's bound
   (rates up by 1 + bound, times down), must still clear the threshold;
   else suspect. Either way the reason names what there was. */
int bc_interference_explains(const bc_cmp_opts *o, bc_cmp_row *r)
{
	int loss = r->direction == BC_V_LOSS, hib = r->ma->higher_is_better;
	double bound = loss ? r->bound_b : r->bound_a, share = loss ? r->share_b : r->share_a;
	double other = loss ? r->share_a : r->share_b, t = r->threshold, m = 1 + bound, near, moved;
	const char *hit = loss ? "B" : "A", *oth = loss ? "A" : "B";
	/* the near end: for a rate loss ci_hi (< -t), a rate win ci_lo (> t); times the reverse */
	near = (loss == hib) ? r->ci_hi : r->ci_lo;
	/* interference on the hit side made its rate lower (its time higher) by up to m */
	moved = (loss == hib) ? (1 + near) * m - 1 : (1 + near) / m - 1;
	int explains = bound > 0 && (isinf(bound) || (near < 0 ? moved >= -t : moved <= t));
	size_t n = 0;
	char *w = r->reason;
	if (explains) {
		n = (size_t)snprintf(w, sizeof(r->reason), "%s in the direction interference could cause: "
				     "steal and other processes took %.0f%% of %s's CPUs, enough to ",
				     bc_verdict_name(r->direction), share, hit);
		if (isinf(bound))
			snprintf(w + n, sizeof(r->reason) - n, "explain any %s difference", bc_kind_name(r->kind));
		else
			snprintf(w + n, sizeof(r->reason) - n, "make it up to %.1f%% slower (time per unit "
				 "of work)", bound * 100);
		return 1;
	}
	if (share >= o->busy_pct)
		n = (size_t)snprintf(w, sizeof(r->reason), "stands: the %.0f%% interference on %s's CPUs "
				     "can make it at most %.1f%% slower", share, hit, bound * 100);
	if (other >= o->busy_pct && n < sizeof(r->reason))
		n += (size_t)snprintf(w + n, sizeof(r->reason) - n, "%sstands: the %.0f%% interference on "
				      "%s's CPUs only narrows it", n ? "; " : "", other, oth);
	double beside = fmax(r->ga->other_max, r->gb->other_max);
	if (n < sizeof(r->reason) && beside >= o->busy_pct && share < o->busy_pct && other < o->busy_pct)
		snprintf(w + n, sizeof(r->reason) - n, "%sran beside load on other CPUs (up to %.0f%% of the "
			 "machine): a memory-bound case shares bandwidth and caches with it", n ? "; " : "",
			 beside);
	return 0;
}
