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

/* The exact p of a segment of n <= BC_CP_EXACT_MAX centred points c: the
   share of its n! orderings whose best split scores at least bar. The best
   split's statistic at k depends only on which points come first (their
   sum), so an ordering reaches bar when one of its prefixes of an allowed
   size does; g[A], the orderings of the set A (as the first |A| points)
   that have such a prefix, is |A|! when A itself is one, else the sum of
   g[A without x] over its last point x. 2^n sets, n additions each. */
static double exact_p(const double *c, const double *w, size_t n, size_t min_seg, double bar)
{
	size_t full = ((size_t)1 << n) - 1;
	double *sum = bc_xcalloc(full + 1, sizeof(*sum)), *g = bc_xcalloc(full + 1, sizeof(*g));
	double fact[BC_CP_EXACT_MAX + 1];
	fact[0] = 1;
	for (size_t i = 1; i <= n; i++)
		fact[i] = fact[i - 1] * (double)i;
	for (size_t A = 1; A <= full; A++) {
		size_t k = (size_t)__builtin_popcountll((unsigned long long)A);
		sum[A] = sum[A & (A - 1)] + c[__builtin_ctzll((unsigned long long)A)];
		if (k >= min_seg && k + min_seg <= n && sum[A] * sum[A] * w[k] >= bar) {
			g[A] = fact[k];
			continue;
		}
		double t = 0;
		for (size_t B = A; B; B &= B - 1)
			t += g[A & ~(B & -B)];
		g[A] = t;
	}
	double p = g[full] / fact[n];
	free(sum);
	free(g);
	return p;
}

/* Wilson's interval of a proportion x / r at z. */
static void wilson(double x, double r, double z, double *lo, double *hi)
{
	double ph = x / r, z2 = z * z, d = 1 + z2 / r;
	double mid = (ph + z2 / (2 * r)) / d, half = z * sqrt(ph * (1 - ph) / r + z2 / (4 * r * r)) / d;
	*lo = mid - half;
	*hi = mid + half;
}

/* The sequential rule of a longer segment: permutations in rounds of 25,
   50, 100, ... up to o->perms; after each round, the 99.99% Wilson
   interval of p (z 3.89: at most 13 rounds, so about 0.1% of tests end on
   the wrong side of alpha) decides when it lies wholly above alpha (no
   change) or wholly below (a change). At o->perms, p itself decides: only a
   p within Monte Carlo error of alpha there (0.0097 .. 0.0103 for alpha
   0.01 at 99,999) can come out either way with another seed. A segment
   with no change stops after 25 or 50, a clear change after 1,600. */
#define SEQ_FIRST 25
#define SEQ_Z 3.89
static int seq_test(double *c, const double *w, size_t n, const bc_cp_opts *o, double bar, uint64_t s,
		    double *p, unsigned *drawn)
{
	unsigned beat = 0, r = 0, look = SEQ_FIRST < o->perms ? SEQ_FIRST : o->perms;
	size_t k;
	int change;
	for (;;) {
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = below(&s, i + 1);
			double t = c[i];
			c[i] = c[j];
			c[j] = t;
		}
		beat += scan(c, w, n, o->min_seg, &k) >= bar;
		if (++r < look)
			continue;
		double lo, hi;
		wilson(beat, r, SEQ_Z, &lo, &hi);
		if (lo > o->alpha || hi < o->alpha || r >= o->perms) {
			change = hi < o->alpha || (lo <= o->alpha && (beat + 1.0) / (r + 1.0) <= o->alpha);
			break;
		}
		look = look > o->perms / 2 ? o->perms : 2 * look;
	}
	*p = (beat + 1.0) / (r + 1.0);
	*drawn = r;
	return change;
}

/* Tests the segment y[a..b): 1 and its split in *at, p in *p (and the
   permutations drawn, 0 when exact), when the best split's p <= alpha. */
static int test_segment(const double *y, size_t a, size_t b, const bc_cp_opts *o,
			size_t *at, double *p, double *stat, unsigned *drawn)
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
	int change;
	if (n <= BC_CP_EXACT_MAX) {
		*p = exact_p(c, w, n, o->min_seg, bar);
		*drawn = 0;
		change = *p <= o->alpha * (1 + 1e-12);
	} else {
		uint64_t s = o->seed ^ ((uint64_t)a * 0xd1b54a32d192ed03ull) ^ ((uint64_t)b * 0x8cb92ba72f3d8dd7ull);
		change = seq_test(c, w, n, o, bar, s, p, drawn);
	}
	free(c);
	free(w);
	*stat = obs;
	return change;
}

double bc_cp_test_p(const double *y, size_t n, const bc_cp_opts *o, unsigned *perms)
{
	bc_cp_opts d = BC_CP_OPTS_DEFAULT, use = o ? *o : d;
	size_t at;
	double p = 1, stat;
	*perms = 0;
	if (!use.min_seg)
		use.min_seg = 1;
	if (n >= 2 * use.min_seg)
		test_segment(y, 0, n, &use, &at, &p, &stat, perms);
	return p;
}

/* C(n, k) as a double (exact to 2^53). */
static double choose(size_t n, size_t k)
{
	double r = 1;
	if (k > n - k)
		k = n - k;
	for (size_t i = 1; i <= k; i++)
		r = r * (double)(n - k + i) / (double)i;
	return r;
}

double bc_cp_min_p(size_t n, size_t min_seg, unsigned perms)
{
	if (!min_seg)
		min_seg = 1;
	if (n < 2 * min_seg)
		return 1;
	double p = 2 / choose(n, n / 2);
	return n <= BC_CP_EXACT_MAX || p >= 1.0 / (perms + 1.0) ? p : 1.0 / (perms + 1.0);
}

size_t bc_cp_min_runs(double alpha, size_t min_seg, unsigned perms)
{
	for (size_t n = 2 * (min_seg ? min_seg : 1); n <= 1000; n++)
		if (bc_cp_min_p(n, min_seg, perms) <= alpha * (1 + 1e-12))
			return n;
	return 0;
}

size_t bc_cp_runs_after(double alpha, size_t before, size_t min_seg)
{
	if (!min_seg)
		min_seg = 1;
	if (before < min_seg)
		return 0;
	for (size_t r = min_seg; r <= 1000; r++)
		if (2 / choose(before + r, r) <= alpha * (1 + 1e-12))
			return r;
	return 0;
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

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median(const double *y, size_t n)
{
	double *c = bc_xcalloc(n, sizeof(*c)), m;
	memcpy(c, y, n * sizeof(*c));
	qsort(c, n, sizeof(*c), by_value);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

/* The series' noise between runs, as a standard deviation: the median of
   the differences of neighbouring runs, |y[i+1] - y[i]|, over 0.6745
   sqrt(2) (a normal's). A step moves one difference and a wild run two, so
   neither inflates it, as the spread of the whole series would. */
static double noise_of(const double *y, size_t n)
{
	if (n < 2)
		return 0;
	double *d = bc_xcalloc(n - 1, sizeof(*d)), m;
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = fabs(y[i + 1] - y[i]);
	m = median(d, n - 1);
	free(d);
	return m / (0.6744897501960817 * M_SQRT2);
}

/* cp->at = m between the segments y[a..m) and y[m..b): their sizes, means,
   and the change's Welch interval (NAN when a side has one point); the
   difference's interval in *dlo, *dhi, absolute (a level of 0 has no
   relative change, but can still move). */
static void measure(const double *y, size_t a, size_t m, size_t b, bc_cpoint *cp, double *dlo, double *dhi)
{
	double ma, va, mb, vb;
	moments(y, a, m, &ma, &va);
	moments(y, m, b, &mb, &vb);
	cp->n_before = m - a;
	cp->n_after = b - m;
	cp->before = ma;
	cp->after = mb;
	cp->change = ma != 0 ? mb / ma - 1 : NAN;
	cp->change_lo = cp->change_hi = *dlo = *dhi = NAN;
	if (isnan(va) || isnan(vb))
		return;
	double qa = va / (double)(m - a), qb = vb / (double)(b - m), se = sqrt(qa + qb);
	double df = se > 0 ? (qa + qb) * (qa + qb) /
		(qa * qa / (double)(m - a - 1) + qb * qb / (double)(b - m - 1)) : 1;
	double t = se > 0 ? bc_t_quantile_two_sided(0.05, df) : 0;
	*dlo = mb - ma - t * se;
	*dhi = mb - ma + t * se;
	if (ma != 0) {
		cp->change_lo = *dlo / fabs(ma);
		cp->change_hi = *dhi / fabs(ma);
	}
}

/* Whether the split of y[a..b) at m is a change of level, beyond the
   permutation test's "the order matters": its 95% interval excludes zero;
   the means moved by at least the least change (o->min_change of the
   level, and o->min_noise of the series' noise between runs, sd); and the
   medians moved the same way by as much, so most runs of each side moved:
   one wild run beside a split (at a series' end, where a side has few
   runs) moves its side's mean, not its median. */
static int holds(const double *y, size_t a, size_t m, size_t b, double sd, const bc_cp_opts *o)
{
	bc_cpoint c;
	double lo, hi;
	measure(y, a, m, b, &c, &lo, &hi);
	if (!(lo > 0 || hi < 0))	/* NAN too: one run a side */
		return 0;
	double least = fmax(o->min_change * fabs(c.before), o->min_noise * sd);
	double d = c.after - c.before, dm = median(y + m, b - m) - median(y + a, m - a);
	return fabs(d) >= least && fabs(d) > 0 && d * dm > 0 && fabs(dm) >= least;
}

/* The segments either side of each change point, their means, and the
   change's Welch interval. */
static void describe(const double *y, size_t n, bc_cpoint *cp, size_t ncp)
{
	for (size_t i = 0; i < ncp; i++) {
		double lo, hi;
		measure(y, i ? cp[i - 1].at : 0, cp[i].at, i + 1 < ncp ? cp[i + 1].at : n, &cp[i], &lo, &hi);
	}
}

/* Binary segmentation tests each split against its own segment; once the
   change points are found the segments are the runs between them, which a
   change point's test never saw whole. One that does not hold between its
   neighbours (holds()) is dropped, the weakest first (largest p, then
   smallest statistic), and the rest described again. */
static size_t prune(const double *y, size_t n, bc_cpoint *cp, size_t ncp, double sd, const bc_cp_opts *o)
{
	for (;;) {
		describe(y, n, cp, ncp);
		size_t worst = ncp;
		for (size_t i = 0; i < ncp; i++) {
			size_t a = i ? cp[i - 1].at : 0, b = i + 1 < ncp ? cp[i + 1].at : n;
			if (holds(y, a, cp[i].at, b, sd, o))
				continue;
			if (worst == ncp || cp[i].p > cp[worst].p ||
			    (cp[i].p == cp[worst].p && cp[i].stat < cp[worst].stat))
				worst = i;
		}
		if (worst == ncp)
			return ncp;
		memmove(&cp[worst], &cp[worst + 1], (ncp - worst - 1) * sizeof(*cp));
		ncp--;
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
	double sd = noise_of(y, n);
	/* segments still to test, as [a, b) pairs: at most one per point */
	size_t *todo = bc_xcalloc(2 * n + 2, sizeof(*todo)), ntodo = 0, ncp = 0;
	bc_cpoint *cp = NULL;
	todo[ntodo++] = 0;
	todo[ntodo++] = n;
	while (ntodo) {
		size_t b = todo[--ntodo], a = todo[--ntodo], at;
		double p, stat;
		unsigned drawn;
		if (b - a < 2 * use.min_seg || !test_segment(y, a, b, &use, &at, &p, &stat, &drawn))
			continue;
		/* a split that is no change of level (one wild run beside it) is
		   not kept, but its sides are still tested: it may hide a step */
		if (holds(y, a, a + at, b, sd, &use)) {
			cp = bc_xrealloc(cp, ncp + 1, sizeof(*cp));
			cp[ncp++] = (bc_cpoint){ .at = a + at, .p = p, .perms = drawn, .stat = stat };
		}
		todo[ntodo++] = a;
		todo[ntodo++] = a + at;
		todo[ntodo++] = a + at;
		todo[ntodo++] = b;
	}
	free(todo);
	if (ncp) {
		qsort(cp, ncp, sizeof(*cp), by_at);
		ncp = prune(y, n, cp, ncp, sd, &use);
	}
	if (!ncp) {
		free(cp);
		cp = NULL;
	}
	*out = cp;
	return ncp;
}
