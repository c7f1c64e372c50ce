/* Stopping rules (steady.h). */
#include <math.h>
#include <stdint.h>
#include "stats.h"
#include "steady.h"

double bc_rel_halfwidth(const double *v, size_t n)
{
	bc_summary s;
	if (n < 2)
		return INFINITY;
	bc_stats_summary(v, n, &s);
	if (s.mean == 0 || !isfinite(s.mean))
		return INFINITY;
	return (s.ci95_high - s.mean) / fabs(s.mean);
}

int bc_precise(const double *v, size_t n, size_t min_n, double threshold, double fraction)
{
	return n >= min_n && n >= 2 && bc_rel_halfwidth(v, n) <= fraction * threshold;
}

size_t bc_repeats_for_precision(const double *v, size_t n, double threshold, double fraction, size_t limit)
{
	bc_summary s;
	if (n < 2 || !(threshold > 0) || !(fraction > 0))
		return SIZE_MAX;
	bc_stats_summary(v, n, &s);
	if (s.mean == 0 || !isfinite(s.mean) || !isfinite(s.stddev))
		return SIZE_MAX;
	double cv = s.stddev / fabs(s.mean), want = fraction * threshold;
	for (size_t m = n; m <= limit; m++)
		if (bc_t_quantile_two_sided(0.05, (double)(m - 1)) * cv / sqrt((double)m) <= want)
			return m;
	return SIZE_MAX;
}

/* The logs of v[0..n) summarised; 0 when a value is not a positive rate. */
static int log_summary(const double *v, size_t n, bc_summary *out)
{
	double l[4096];
	if (n > 4096)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return 0;
		l[i] = log(v[i]);
	}
	bc_stats_summary(l, n, out);
	return 1;
}

/* Welch's half-width at level for variances of the means va (na values)
   and vb (nb values). */
static double welch_half(double va, size_t na, double vb, size_t nb, double level)
{
	if (!(va + vb > 0))
		return 0;
	double df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	return bc_t_quantile_two_sided(1 - level, df) * sqrt(va + vb);
}

int bc_decided(const double *a, size_t na, const double *b, size_t nb, double threshold, double level,
	       size_t nb_as)
{
	bc_summary sa, sb;
	if (na < 2 || nb < 2 || nb_as < nb || !(threshold > 0 && threshold < 1) || !(level > 0 && level < 1) ||
	    !log_summary(a, na, &sa) || !log_summary(b, nb, &sb))
		return 0;
	double va = sa.stddev * sa.stddev / (double)na, vb = sb.stddev * sb.stddev / (double)nb_as;
	double d = sb.mean - sa.mean, up = log(1 + threshold), down = log(1 - threshold);
	double h = welch_half(va, na, vb, nb_as, level);
	double hb = welch_half(va, na, vb, nb_as, level > BC_BEYOND_LEVEL ? level : BC_BEYOND_LEVEL);
	return (d - h > down && d + h < up) || d - hb > up || d + hb < down;
}

void bc_steady_check(const double *v, size_t n, size_t window, double max_drift_pct,
		     double max_spread_pct, bc_steady *out)
{
	*out = (bc_steady){ .steady = 0, .drift_pct = INFINITY, .spread_pct = INFINITY };
	if (window < 2 || n < window)
		return;
	const double *w = v + (n - window);
	double mx = (double)(window - 1) / 2, my = 0, sxy = 0, sxx = 0, far = 0;
	for (size_t i = 0; i < window; i++)
		my += w[i];
	my /= (double)window;
	if (my == 0 || !isfinite(my))
		return;
	for (size_t i = 0; i < window; i++) {
		sxy += ((double)i - mx) * (w[i] - my);
		sxx += ((double)i - mx) * ((double)i - mx);
		if (fabs(w[i] - my) > far)
			far = fabs(w[i] - my);
	}
	out->drift_pct = fabs(sxy / sxx) * (double)(window - 1) / fabs(my) * 100;
	out->spread_pct = far / fabs(my) * 100;
	out->steady = out->drift_pct <= max_drift_pct && out->spread_pct <= max_spread_pct;
}

void bc_steady_counter(const double *t, const double *ev, size_t n, size_t window, double max_drift_pct,
		       double max_spread_pct, bc_steady *out, size_t *block)
{
	double r[64];
	*out = (bc_steady){ .steady = 0, .drift_pct = INFINITY, .spread_pct = INFINITY };
	*block = 1;
	if (window < 2 || window > 64)
		return;
	for (size_t b = 1; b <= n / window; b *= 2) {
		for (size_t j = 0; j < window; j++) {
			size_t hi = n - (window - 1 - j) * b, lo = hi - b;
			double dt = t[hi] - t[lo];
			r[j] = dt > 0 ? (ev[hi] - ev[lo]) / dt : 0;
		}
		bc_steady_check(r, window, window, max_drift_pct, max_spread_pct, out);
		*block = b;
		if (out->steady)
			return;
	}
}
