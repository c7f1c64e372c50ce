/* Statistics over repeats: summaries with Student's t confidence intervals,
   Mann-Whitney U (exact and normal approximation) and Welch's t test.
   Benchmarks have few repeats (3..10), so the small-sample cases (exact U
   distribution, t quantiles for df 2..9) are the ones that matter. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void bc_stats_summary(const double *v, size_t n, bc_summary *out)
{
	double s = 0, ss = 0, *sorted;

	*out = (bc_summary){ .n = n };
	if (n == 0)
		return;
	out->min = out->max = v[0];
	for (size_t i = 0; i < n; i++) {
		s += v[i];
		if (v[i] < out->min)
			out->min = v[i];
		if (v[i] > out->max)
			out->max = v[i];
	}
	out->mean = s / n;
	sorted = bc_xmalloc(n * sizeof(*sorted));	/* never the mean for a median */
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	out->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	out->ci95_low = out->ci95_high = out->mean;
	if (n < 2)
		return;
	/* Two-pass variance: the values can be large (events/s ~ 1e6) with a
	   small spread, where the one-pass formula loses every digit. */
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	out->stddev = sqrt(ss / (n - 1));
	out->cv = out->mean != 0 ? out->stddev / fabs(out->mean) : 0;
	double h = bc_t_quantile_two_sided(0.05, (double)(n - 1)) * out->stddev / sqrt((double)n);
	out->ci95_low = out->mean - h;
	out->ci95_high = out->mean + h;
}

double bc_normal_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Continued fraction for I_x(a,b), modified Lentz's method. Converges fast
   for x < (a+1)/(a+b+2); the caller uses the symmetry otherwise. */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 400; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double bc_betainc(double a, double b, double x)
{
	if (!(x > 0))
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double bc_t_two_sided_p(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return 1;
	if (isinf(t))
		return 0;
	return bc_betainc(df / 2, 0.5, df / (df + t * t));
}

double bc_t_quantile_two_sided(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(p > 0) || !(df > 0))
		return INFINITY;
	if (p >= 1)
		return 0;
	while (bc_t_two_sided_p(hi, df) > p && hi < 1e12)
		hi *= 2;
	/* The tail is monotonic in t: bisection to double precision is
	   ~100 steps of a cheap function, simpler than Newton's corner cases. */
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (bc_t_two_sided_p(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Number of orderings of na "a" and nb "b" values with U = u, for all u,
   divided by C(na+nb, na): the exact null distribution of U. Built column by
   column from c(i,j,u) = c(i-1,j,u-j) + c(i,j-1,u): the largest value is
   either an a (beating all j b's) or a b (beating nothing). */
static double *mwu_exact_pmf(size_t na, size_t nb)
{
	size_t len = na * nb + 1;
	double *c = calloc((na + 1) * len, sizeof(*c)), *pmf;

	if (!c)
		return NULL;
	for (size_t i = 0; i <= na; i++)
		c[i * len] = 1;		/* j = 0: U is always 0 */
	for (size_t j = 1; j <= nb; j++)
		for (size_t i = 1; i <= na; i++)
			for (size_t u = len; u-- > j;)
				c[i * len + u] += c[(i - 1) * len + u - j];
	/* In place: row i holds column j-1 until it is updated; row i-1,
	   updated first (ascending i), already holds column j. */
	pmf = malloc(len * sizeof(*pmf));
	if (pmf) {
		double tot = 0;
		for (size_t u = 0; u < len; u++)
			tot += c[na * len + u];
		for (size_t u = 0; u < len; u++)
			pmf[u] = c[na * len + u] / tot;
	}
	free(c);
	return pmf;
}

typedef struct { double v; int grp; } mwu_item;

static int cmp_item(const void *a, const void *b)
{
	return cmp_double(&((const mwu_item *)a)->v, &((const mwu_item *)b)->v);
}

/* U of sample a from mid-ranks; also the tie term sum(t^3 - t). */
static int mwu_rank(const double *a, size_t na, const double *b, size_t nb,
		    double *u, double *tie_term)
{
	size_t n = na + nb;
	mwu_item *it = malloc(n * sizeof(*it));
	double ra = 0;

	if (!it)
		return -1;
	for (size_t i = 0; i < na; i++)
		it[i] = (mwu_item){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		it[na + i] = (mwu_item){ b[i], 1 };
	qsort(it, n, sizeof(*it), cmp_item);
	*tie_term = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && it[j + 1].v == it[i].v)
			j++;
		double t = (double)(j - i + 1), rank = (i + j) / 2.0 + 1;
		for (size_t k = i; k <= j; k++)
			if (it[k].grp == 0)
				ra += rank;
		*tie_term += t * t * t - t;
		i = j + 1;
	}
	free(it);
	*u = ra - na * (na + 1) / 2.0;
	return 0;
}

int bc_mwu(const double *a, size_t na, const double *b, size_t nb, bc_test_result *r)
{
	double u, tie_term, mu = na * (double)nb / 2;
	size_t n = na + nb;

	*r = (bc_test_result){ .p = 1 };
	if (na == 0 || nb == 0 || mwu_rank(a, na, b, nb, &u, &tie_term) < 0)
		return -1;
	r->stat = u;
	r->ties = tie_term > 0;
	if (!r->ties && n <= BC_MWU_EXACT_MAX) {
		double *pmf = mwu_exact_pmf(na, nb), lo = 0, hi = 0;
		if (pmf) {
			size_t k = (size_t)u;	/* integral without ties */
			for (size_t i = 0; i <= na * nb; i++) {
				if (i <= k)
					lo += pmf[i];
				if (i >= k)
					hi += pmf[i];
			}
			free(pmf);
			r->method = BC_MWU_EXACT;
			r->p = fmin(1, 2 * fmin(lo, hi));
			return 0;
		}
	}
	r->method = BC_MWU_NORMAL;
	double var = na * (double)nb / 12 * ((n + 1) - tie_term / ((double)n * (n - 1)));
	if (!(var > 0))
		return 0;	/* every value tied: no evidence of a difference */
	double d = fmax(0, fabs(u - mu) - 0.5);
	r->z = (u > mu ? d : -d) / sqrt(var);
	r->p = fmin(1, erfc(fabs(r->z) / M_SQRT2));
	return 0;
}

double bc_mwu_min_p(size_t na, size_t nb)
{
	double c = 1;	/* C(na+nb, na), in doubles: exact enough for a bound */

	if (na == 0 || nb == 0)
		return 1;
	for (size_t i = 1; i <= na; i++)
		c = c * (nb + i) / i;
	return fmin(1, 2 / c);
}

size_t bc_mwu_needed_n(double alpha)
{
	size_t n = 1;

	while (n < 1000 && bc_mwu_min_p(n, n) > alpha)
		n++;
	return n;
}

int bc_welch(const double *a, size_t na, const double *b, size_t nb, bc_test_result *r)
{
	bc_summary sa, sb;

	*r = (bc_test_result){ .p = 1 };
	if (na < 2 || nb < 2)
		return -1;
	bc_stats_summary(a, na, &sa);
	bc_stats_summary(b, nb, &sb);
	double va = sa.stddev * sa.stddev / na, vb = sb.stddev * sb.stddev / nb;
	if (va + vb == 0) {
		/* No spread at all: identical means are a tie, different ones
		   are as significant as a difference can be. */
		r->p = sa.mean == sb.mean ? 1 : 0;
		r->stat = sa.mean == sb.mean ? 0 : copysign(INFINITY, sa.mean - sb.mean);
		r->df = na + nb - 2;
		return 0;
	}
	r->stat = (sa.mean - sb.mean) / sqrt(va + vb);
	r->df = (va + vb) * (va + vb) /
		(va * va / (na - 1) + vb * vb / (nb - 1));
	r->p = bc_t_two_sided_p(r->stat, r->df);
	return 0;
}

typedef struct { double p; size_t i; } p_item;

static int cmp_p(const void *a, const void *b)
{
	const p_item *x = a, *y = b;
	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);	/* stable: equal p, same order */
}

int bc_p_adjust(const double *p, double *adj, size_t m, int method)
{
	p_item *it = malloc((m ? m : 1) * sizeof(*it));
	size_t k = 0;

	if (!it) {
		if (adj != p)
			memmove(adj, p, m * sizeof(*adj));
		return -1;
	}
	for (size_t i = 0; i < m; i++)
		if (!isnan(p[i]))
			it[k++] = (p_item){ p[i], i };
	if (adj != p)
		memmove(adj, p, m * sizeof(*adj));
	qsort(it, k, sizeof(*it), cmp_p);
	if (method == BC_ADJ_BH) {
		/* q_(j) = min over l >= j of p_(l) * k / l: walk from the largest. */
		double run = 1;
		for (size_t j = k; j-- > 0;) {
			run = fmin(run, it[j].p * (double)k / (double)(j + 1));
			adj[it[j].i] = fmin(1, run);
		}
	} else if (method == BC_ADJ_HOLM) {
		/* q_(j) = max over l <= j of p_(l) * (k - l + 1), 1-based l. */
		double run = 0;
		for (size_t j = 0; j < k; j++) {
			run = fmax(run, it[j].p * (double)(k - j));
			adj[it[j].i] = fmin(1, run);
		}
	}
	free(it);
	return 0;
}
