/* Statistics against known values. Expected numbers come from tables of
   Student's t and from python3 (math only): exact U p-values by enumerating
   every split of the pooled sample, the normal approximation by its formula,
   Welch's p by numerically integrating the t density. */
#include "unit.h"
#include <math.h>
#include <string.h>
#include "stats.h"

#define near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_summary(void **st)
{
	const double v[] = { 14, 10, 12 };
	bc_summary s;
	(void)st;
	bc_stats_summary(v, 3, &s);
	assert_int_equal(s.n, 3);
	near(s.mean, 12, 1e-12);
	near(s.median, 12, 1e-12);
	near(s.stddev, 2, 1e-12);
	near(s.cv, 2.0 / 12, 1e-12);
	near(s.min, 10, 0);
	near(s.max, 14, 0);
	/* t(0.975, 2) = 4.302652730; half width 4.30265273 * 2 / sqrt(3) */
	near(s.ci95_low, 12 - 4.968275, 1e-5);
	near(s.ci95_high, 12 + 4.968275, 1e-5);
}

static void test_summary_edge(void **st)
{
	const double one[] = { 5 }, even[] = { 4, 1, 3, 2 };
	const double big[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	bc_summary s;
	(void)st;
	bc_stats_summary(one, 1, &s);
	near(s.mean, 5, 0);
	near(s.stddev, 0, 0);
	near(s.ci95_low, 5, 0);
	near(s.ci95_high, 5, 0);
	bc_stats_summary(even, 4, &s);
	near(s.median, 2.5, 1e-12);
	bc_stats_summary(big, 3, &s);	/* no cancellation in the variance */
	near(s.stddev, 1, 1e-6);
	bc_stats_summary(NULL, 0, &s);
	assert_int_equal(s.n, 0);
}

static void test_t_quantiles(void **st)
{
	(void)st;
	near(bc_t_quantile_two_sided(0.05, 1), 12.7062047, 1e-5);
	near(bc_t_quantile_two_sided(0.05, 2), 4.30265273, 1e-6);
	near(bc_t_quantile_two_sided(0.05, 4), 2.77644511, 1e-6);
	near(bc_t_quantile_two_sided(0.05, 9), 2.26215716, 1e-6);
	near(bc_t_quantile_two_sided(0.05, 30), 2.04227246, 1e-6);
	near(bc_t_quantile_two_sided(0.01, 5), 4.03214298, 1e-6);
	near(bc_t_quantile_two_sided(0.05, 1e6), 1.95996, 1e-4);
	near(bc_t_two_sided_p(2.77644511, 4), 0.05, 1e-7);
	near(bc_t_two_sided_p(0, 7), 1, 1e-12);
	near(bc_normal_cdf(1.959963985), 0.975, 1e-9);
}

static void test_mwu_exact(void **st)
{
	const double a[] = { 1, 2, 3, 4 }, b[] = { 5, 6, 7, 8 };
	const double c[] = { 1.1, 2.5, 3.3, 4.2, 5.9 }, d[] = { 2.0, 6.1, 7.4, 8.8, 3.9 };
	const double e[] = { 10, 12, 14, 11, 13 }, f[] = { 9, 15, 16, 17, 18, 19 };
	bc_test_result r;
	(void)st;
	assert_int_equal(bc_mwu(a, 4, b, 4, &r), 0);
	assert_int_equal(r.method, BC_MWU_EXACT);
	near(r.stat, 0, 0);
	near(r.p, 2.0 / 70, 1e-12);		/* 0.028571 */
	assert_int_equal(bc_mwu(b, 4, a, 4, &r), 0);
	near(r.stat, 16, 0);
	near(r.p, 2.0 / 70, 1e-12);
	assert_int_equal(bc_mwu(c, 5, d, 5, &r), 0);
	near(r.stat, 6, 0);
	near(r.p, 0.2222222222, 1e-9);
	assert_int_equal(bc_mwu(e, 5, f, 6, &r), 0);
	near(r.stat, 5, 0);
	near(r.p, 0.0822510823, 1e-9);
	assert_int_equal(bc_mwu(a, 3, b, 3, &r), 0);	/* n = 3: at best 0.1 */
	near(r.p, 0.1, 1e-12);
}

static void test_mwu_normal_ties(void **st)
{
	const double a[] = { 1, 2, 2, 3, 4 }, b[] = { 2, 3, 4, 4, 5, 6 };
	const double c[] = { 5, 5, 5, 6 }, d[] = { 5, 7, 7, 8 };
	const double same[] = { 3, 3, 3 };
	bc_test_result r;
	(void)st;
	assert_int_equal(bc_mwu(a, 5, b, 6, &r), 0);
	assert_int_equal(r.method, BC_MWU_NORMAL);
	assert_true(r.ties);
	near(r.stat, 5.5, 1e-12);
	near(fabs(r.z), 1.6778456058, 1e-8);
	near(r.p, 0.0933772436, 1e-8);
	assert_int_equal(bc_mwu(c, 4, d, 4, &r), 0);
	near(r.stat, 2.5, 1e-12);
	near(r.p, 0.1215479563, 1e-8);
	assert_int_equal(bc_mwu(same, 3, same, 3, &r), 0);
	near(r.p, 1, 0);
	assert_int_equal(bc_mwu(a, 0, b, 6, &r), -1);
}

static void test_mwu_bounds(void **st)
{
	(void)st;
	near(bc_mwu_min_p(3, 3), 0.1, 1e-12);
	near(bc_mwu_min_p(4, 4), 2.0 / 70, 1e-12);
	near(bc_mwu_min_p(2, 2), 1.0 / 3, 1e-12);
	near(bc_mwu_min_p(1, 1), 1, 0);
	assert_int_equal(bc_mwu_needed_n(0.05), 4);
	assert_int_equal(bc_mwu_needed_n(0.01), 5);	/* 2/252 = 0.0079 */
}

static void test_mwu_large_exact(void **st)
{
	double a[30], b[30];
	bc_test_result r;
	(void)st;
	for (int i = 0; i < 30; i++) {
		a[i] = i * 2;		/* interleaved: U = 435 = mean - 15 */
		b[i] = i * 2 + 1;
	}
	assert_int_equal(bc_mwu(a, 30, b, 30, &r), 0);
	assert_int_equal(r.method, BC_MWU_EXACT);
	near(r.stat, 435, 0);
	/* normal approximation of the same: z = 14.5/sqrt(4575) -> p ~ 0.830 */
	assert_true(r.p > 0.80 && r.p < 0.86);
}

static void test_welch(void **st)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10 };
	const double k[] = { 7, 7, 7 }, l[] = { 8, 8, 8 };
	bc_test_result r;
	(void)st;
	assert_int_equal(bc_welch(a, 5, b, 5, &r), 0);
	near(r.stat, -1.8973665961, 1e-9);
	near(r.df, 5.8823529412, 1e-9);
	near(r.p, 0.1075311949, 1e-7);
	assert_int_equal(bc_welch(k, 3, l, 3, &r), 0);
	near(r.p, 0, 0);
	assert_int_equal(bc_welch(k, 3, k, 3, &r), 0);
	near(r.p, 1, 0);
	assert_int_equal(bc_welch(a, 1, b, 5, &r), -1);
}

/* Values worked by hand from the definitions (R's p.adjust agrees):
   sorted p 0.005, 0.01, 0.03, 0.04 with m = 4 (the NaN is not a test).
   BH: 0.04*4/4, min(0.03*4/3, .04), 0.01*4/2, min(0.005*4, .02).
   Holm: 0.005*4, 0.01*3, 0.03*2, max(0.04*1, .06). */
static void test_p_adjust(void **st)
{
	const double p[] = { 0.01, 0.04, NAN, 0.03, 0.005 };
	const double bh[] = { 0.02, 0.04, NAN, 0.04, 0.02 }, holm[] = { 0.03, 0.06, NAN, 0.06, 0.02 };
	const double big[] = { 0.5, 0.9 };
	double q[5];
	(void)st;
	assert_int_equal(bc_p_adjust(p, q, 5, BC_ADJ_BH), 0);
	for (int i = 0; i < 5; i++)
		assert_true(i == 2 ? isnan(q[i]) : fabs(q[i] - bh[i]) < 1e-15);
	bc_p_adjust(p, q, 5, BC_ADJ_HOLM);
	for (int i = 0; i < 5; i++)
		assert_true(i == 2 ? isnan(q[i]) : fabs(q[i] - holm[i]) < 1e-15);
	bc_p_adjust(p, q, 5, BC_ADJ_NONE);
	near(q[1], 0.04, 0);
	bc_p_adjust(big, q, 2, BC_ADJ_HOLM);	/* capped at 1 */
	near(q[0], 1, 0);
	near(q[1], 1, 0);
	memcpy(q, p, sizeof(p));	/* in place */
	bc_p_adjust(q, q, 5, BC_ADJ_BH);
	near(q[4], 0.02, 1e-15);
	assert_int_equal(bc_p_adjust(p, q, 0, BC_ADJ_BH), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_summary_edge),
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_mwu_exact),
		cmocka_unit_test(test_mwu_normal_ties),
		cmocka_unit_test(test_mwu_bounds),
		cmocka_unit_test(test_mwu_large_exact),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_p_adjust),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
