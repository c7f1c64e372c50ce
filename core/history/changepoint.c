/* Change points by binary segmentation and a permutation test
   (changepoint.h; the method and its figures: docs/history.md).

   The statistic of a split of n points into n_l and n_r is
   n_l n_r / n (mean_l - mean_r)^2: E-Divisive's energy statistic with
   exponent 2, which for one dimension is the difference of the means
   weighted by the sizes (Matteson & James 2014, section 2). With the points
   centred on their mean and S_k the sum of the first k, it is
   n S_k^2 / (k (n - k)): every split of a segment in one pass. The best
   split is judged against the best split of the same points in random
   order, so the test needs no model of the noise (a p from its own
   data, whatever their distribution) and the scan over every split is
   paid for: the permuted series are scanned the same way. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "changepoint.h"
#include "stats.h"
#include "util.h"

/* splitmix64 (Steele, Lea & Flood 2014): small, fast, and seeded by the
   segment's bounds, so one segment's permutations do not depend on the
   order the segments were tested in. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform index below n (n < 2^32): Lemire's multiply-shift; its bias,
   under n / 2^32, is far below the test's own Monte Carlo error. */
static size_t below(uint64_t *s, size_t n)
{
	return (size_t)(((mix(s) >> 32) * (uint64_t)n) >> 32);
}

/* The largest n S_k^2 / (k (n - k)) over min_seg <= k <= n - min_seg of
   centred points c, w[k] holding n / (k (n - k)); *at its k. */
static double scan(const double *c, const double *w, size_t n, size_t min_seg, size_t *at)
{
	double s = 0, best = -1;
	size_t k;
	for (k = 1; k < min_seg; k++)
		s += c[k - 1];
	for (; k + min_seg <= n; k++) {
		s += c[k - 1];
		double st = s * s * w[k];
		if (st > best) {
			best = st;
			*at = k;
		}
	}
	return best;
}

size_t bc_cp_best_split(const double *y, size_t n, size_t min_seg, double *stat)
{
	size_t at = 0;
	*stat = 0;
	if (min_seg < 1)
		min_seg = 1;
	if (n < 2 * min_seg)
		return 0;
	double mean = 0, *c = bc_xcalloc(n, sizeof(*c)), *w = bc_xcalloc(n + 1, sizeof(*w));
	for (size_t i = 0; i < n; i++)
		mean += y[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		c[i] = y[i] - mean;
	for (size_t k = 1; k < n; k++)
		w[k] = (double)n / ((double)k * (double)(n - k));
	*stat = scan(c, w, n, min_seg, &at);
	free(c);
	free(w);
	return at;
}

/* Tests the segment y[a..b): 1 and its split in *at, p in *p, when the
   best split's statistic is beaten by at most alpha of the permutations.
   Stops as soon as enough have beaten it that it cannot be (most segments
   without a change stop within a few dozen permutations). */
static int test_segment(const double *y, size_t a, size_t b, const bc_cp_opts *o,
			size_t *at, double *p, double *stat)
{
	size_t n = b - a, k;
	double mean = 0, *c = bc_xcalloc(n, sizeof(*c)), *w = bc_xcalloc(n + 1, sizeof(*w));
	for (size_t i = 0; i < n; i++)
		mean += y[a + i] / (double)n;
	for (size_t i = 0; i < n; i++)
		c[i] = y[a + i] - mean;
	for (k = 1; k < n; k++)
		w[k] = (double)n / ((double)k * (double)(n - k));
	double obs = scan(c, w, n, o->min_seg, at);
	/* ties within rounding count as beating it: a flat series is no change */
	double bar = obs * (1 - 1e-9);
	uint64_t s = o->seed ^ ((uint64_t)a * 0xd1b54a32d192ed03ull) ^ ((uint64_t)b * 0x8cb92ba72f3d8dd7ull);
	unsigned beat = 0, r;
	double limit = o->alpha * (o->perms + 1.0) - 1;	/* beat > limit: p > alpha */
	for (r = 0; r < o->perms && beat <= limit; r++) {
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = below(&s, i + 1);
			double t = c[i];
			c[i] = c[j];
			c[j] = t;
		}
		beat += scan(c, w, n, o->min_seg, &k) >= bar;
	}
	free(c);
	free(w);
	*p = (beat + 1.0) / (o->perms + 1.0);
	*stat = obs;
	return beat <= limit && *p <= o->alpha;
}

static int by_at(const void *x, const void *y)
{
	const bc_cpoint *a = x, *b = y;
	return (a->at > b->at) - (a->at < b->at);
}

static void moments(const double *y, size_t a, size_t b, double *mean, double *var)
{
	size_t n = b - a;
	double m = 0, v = 0;
	for (size_t i = a; i < b; i++)
		m += y[i] / (double)n;
	for (size_t i = a; i < b; i++)
		v += (y[i] - m) * (y[i] - m);
	*mean = m;
	*var = n > 1 ? v / (double)(n - 1) : NAN;
}

/* The segments either side of each change point, their means, and the
   change's Welch interval. */
static void describe(const double *y, size_t n, bc_cpoint *cp, size_t ncp)
{
	for (size_t i = 0; i < ncp; i++) {
		size_t a = i ? cp[i - 1].at : 0, m = cp[i].at, b = i + 1 < ncp ? cp[i + 1].at : n;
		double ma, va, mb, vb;
		moments(y, a, m, &ma, &va);
		moments(y, m, b, &mb, &vb);
		cp[i].n_before = m - a;
		cp[i].n_after = b - m;
		cp[i].before = ma;
		cp[i].after = mb;
		cp[i].change = ma != 0 ? mb / ma - 1 : NAN;
		cp[i].change_lo = cp[i].change_hi = NAN;
		if (isnan(va) || isnan(vb) || ma == 0)
			continue;
		double qa = va / (double)(m - a), qb = vb / (double)(b - m), se = sqrt(qa + qb);
		double df = se > 0 ? (qa + qb) * (qa + qb) /
			(qa * qa / (double)(m - a - 1) + qb * qb / (double)(b - m - 1)) : 1;
		double t = se > 0 ? bc_t_quantile_two_sided(0.05, df) : 0;
		cp[i].change_lo = (mb - ma - t * se) / fabs(ma);
		cp[i].change_hi = (mb - ma + t * se) / fabs(ma);
	}
}

size_t bc_changepoints(const double *y, size_t n, const bc_cp_opts *o, bc_cpoint **out)
{
	bc_cp_opts d = BC_CP_OPTS_DEFAULT;
	o = o ? o : &d;
	bc_cp_opts use = *o;
	use.min_seg = o->min_seg ? o->min_seg : 1;
	*out = NULL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(y[i]))
			return 0;
	/* segments still to test, as [a, b) pairs: at most one per point */
	size_t *todo = bc_xcalloc(2 * n + 2, sizeof(*todo)), ntodo = 0, ncp = 0;
	bc_cpoint *cp = NULL;
	todo[ntodo++] = 0;
	todo[ntodo++] = n;
	while (ntodo) {
		size_t b = todo[--ntodo], a = todo[--ntodo], at;
		double p, stat;
		if (b - a < 2 * use.min_seg || !test_segment(y, a, b, &use, &at, &p, &stat))
			continue;
		cp = bc_xrealloc(cp, ncp + 1, sizeof(*cp));
		cp[ncp++] = (bc_cpoint){ .at = a + at, .p = p, .stat = stat };
		todo[ntodo++] = a;
		todo[ntodo++] = a + at;
		todo[ntodo++] = a + at;
		todo[ntodo++] = b;
	}
	free(todo);
	if (ncp) {
		qsort(cp, ncp, sizeof(*cp), by_at);
		describe(y, n, cp, ncp);
	}
	*out = cp;
	return ncp;
}
