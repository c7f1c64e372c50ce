/* Statistics over repeats and significance tests. Pure functions: no state,
   no allocation visible to the caller, safe from any thread. */
#ifndef BC_STATS_H
#define BC_STATS_H
#include <stddef.h>

typedef struct bc_summary {
	size_t n;
	double mean, median, stddev, cv;	/* stddev: sample (n-1); 0 when n < 2; cv = stddev/mean */
	double ci95_low, ci95_high;		/* Student's t, n-1 degrees of freedom; = mean when n < 2 */
	double min, max;
} bc_summary;

void bc_stats_summary(const double *v, size_t n, bc_summary *out);

/* Standard normal CDF. */
double bc_normal_cdf(double z);

/* Two-sided tail of Student's t: P(|T| >= |t|) with df degrees of freedom
   (df > 0, need not be an integer: Welch). */
double bc_t_two_sided_p(double t, double df);

/* The t value with P(|T| >= t) = p (e.g. p = 0.05 gives the 97.5% quantile
   used for 95% confidence intervals). */
double bc_t_quantile_two_sided(double p, double df);

/* Regularized incomplete beta function I_x(a, b). */
double bc_betainc(double a, double b, double x);

typedef enum { BC_MWU_EXACT, BC_MWU_NORMAL } bc_mwu_method;

typedef struct bc_test_result {
	double stat;		/* MWU: U of the first sample (pairs a > b, ties 1/2); Welch: t */
	double df;		/* Welch only */
	double z;		/* MWU normal approximation only */
	double p;		/* two-sided */
	int method;		/* bc_mwu_method for MWU */
	int ties;		/* MWU: the samples share tied values */
} bc_test_result;

/* Mann-Whitney U, two-sided. Exact distribution when there are no ties and
   na + nb <= BC_MWU_EXACT_MAX, else the normal approximation with tie and
   continuity correction. Returns -1 (and p = 1) when a sample is empty. */
#define BC_MWU_EXACT_MAX 60
int bc_mwu(const double *a, size_t na, const double *b, size_t nb, bc_test_result *r);

/* Smallest two-sided p-value MWU can reach with sample sizes na, nb (no
   ties): 2 / C(na+nb, na), capped at 1. */
double bc_mwu_min_p(size_t na, size_t nb);

/* Smallest n such that two samples of n each can reach p <= alpha with MWU. */
size_t bc_mwu_needed_n(double alpha);

/* Welch's unequal-variance t test, two-sided. Returns -1 when a sample has
   fewer than 2 values. */
int bc_welch(const double *a, size_t na, const double *b, size_t nb, bc_test_result *r);

/* Multiple-comparison adjustment of m p-values: adj[i] is the adjusted
   p-value of p[i] (same order), capped at 1. NaN entries are not part of
   the family and stay NaN. BC_ADJ_BH: Benjamini-Hochberg step-up, controls
   the false discovery rate; BC_ADJ_HOLM: Holm step-down, controls the
   family-wise error rate; BC_ADJ_NONE copies p. p and adj may alias.
   Returns -1 (adj = p) only when out of memory. */
enum { BC_ADJ_NONE, BC_ADJ_BH, BC_ADJ_HOLM };
int bc_p_adjust(const double *p, double *adj, size_t m, int method);
#endif
