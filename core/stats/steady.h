/* The stopping rules of long studies (repeat = "auto", warmup = "auto").
   Pure functions over a series of values: no state, any thread.

   repeat = auto: a case has enough repeats when the 95% interval of its
   headline's mean is narrow against the practical threshold compare will
   judge it by: half-width <= BC_PRECISE_FRACTION x threshold, relative to
   the mean: the mean is known to within the threshold. The 80% interval
   compare draws of the ratio of two such means is then about 0.5 (3
   repeats) to 0.9 (many) x threshold wide on each side, and a second
   machine with a baseline goes on only as long as its own comparison
   needs (bc_decided). Simulated at the spreads bench/auto.sh met (0.5 to 6%
   between repeats of a 10 s case), three quarters of the threshold cost
   the pair 10-15% more repeats for no more ties.

   warmup = auto: the headline is steady when, over the last `window`
   values (rates over warmup_window / window seconds each, or over blocks
   of 2, 4, ... such steps: bc_steady_counter), the least-squares line
   drifts by at most max_drift_pct of the mean across the window and every
   value lies within max_spread_pct of the mean (fio's steadystate:
   iops_slope and iops). */
#ifndef BC_STEADY_H
#define BC_STEADY_H
#include <stddef.h>

#define BC_PRECISE_FRACTION	1.0
#define BC_STEADY_DRIFT_PCT	2.0	/* drift of the fitted line over the window */
#define BC_STEADY_SPREAD_PCT	10.0	/* largest distance of a value from the mean */
#define BC_STEADY_WINDOW	5	/* interval values in the window */

/* Relative half-width of the 95% interval of the mean of v[0..n), or
   INFINITY when n < 2 or the mean is 0. */
double bc_rel_halfwidth(const double *v, size_t n);
/* 1 when n >= min_n and bc_rel_halfwidth(v, n) <= fraction x threshold
   (threshold a fraction: 0.02 for 2%). */
int bc_precise(const double *v, size_t n, size_t min_n, double threshold, double fraction);

/* The repeats v's headline would need, at its spread so far, for
   bc_precise at (threshold, fraction): the smallest m >= n whose 95%
   half-width t(m-1) x cv / sqrt(m) is within it, SIZE_MAX beyond limit
   or when n < 2. repeat = auto calls a case futile, and
   stops it, when this is over BC_FUTILE_FACTOR x max_repeat: the spread of
   three values is itself uncertain (its 80% range is about 0.5 .. 1.5 x the
   truth), so only a case far out of reach is given up. */
#define BC_FUTILE_FACTOR	2
size_t bc_repeats_for_precision(const double *v, size_t n, double threshold, double fraction, size_t limit);

/* The confidence of the interval of B/A that compare's verdicts use by
   default (compare --level); repeat = auto decides against a baseline at it. */
#define BC_VERDICT_LEVEL	0.80

/* With a baseline (repeat = auto, baseline = "A.json"): 1 when the
   interval of log(B/A) (Welch, on the logs) already lies wholly inside
   +-threshold at level (a tie compare can defend) or wholly beyond it on
   one side at BC_BEYOND_LEVEL or level if higher (a win or loss: compare
   also wants its test, so an 80% interval that strays past the threshold
   by chance is no reason to stop): more repeats would not change the
   verdict's kind. nb_as: judge it as if b had nb_as values at its spread so
   far (nb_as = nb: now; larger: whether more repeats could ever decide it).
   Values must be > 0; fewer than 2 on a side is undecided. */
#define BC_BEYOND_LEVEL	0.95
int bc_decided(const double *a, size_t na, const double *b, size_t nb, double threshold, double level,
	       size_t nb_as);

typedef struct bc_steady {
	int steady;
	double drift_pct;	/* |slope| x (window - 1) / |mean| x 100 */
	double spread_pct;	/* max |v - mean| / |mean| x 100 */
} bc_steady;

/* Judges the last window values of v[0..n) (not steady while n < window). */
void bc_steady_check(const double *v, size_t n, size_t window, double max_drift_pct,
		     double max_spread_pct, bc_steady *out);

/* warmup = auto over a counter: t[0..n] seconds and ev[0..n] events, both
   cumulative at the ends of n steps (t[0] = ev[0] = 0). The last window
   rates, each over a block of b steps, are judged by bc_steady_check for
   b = 1, 2, 4, ... while window x b steps fit: steady at the first b that
   is. A bursty workload (TPC-C's rate over 0.4 s swings by +-40%) can never
   look steady over short steps however long it runs; over longer blocks
   its noise averages out while a ramp stays a ramp (a drift over a longer
   window is no smaller). *block: the b that decided (or the coarsest
   judged); out: that judgement. */
void bc_steady_counter(const double *t, const double *ev, size_t n, size_t window, double max_drift_pct,
		       double max_spread_pct, bc_steady *out, size_t *block);
#endif
