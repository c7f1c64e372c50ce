/* The change-point method (core/history/changepoint.c) on synthetic series
   whose noise comes from a seeded generator, so every figure is fixed: a 3%
   step is found where it is, flat series give change points at the rate
   docs/history.md states, and a 10,000-point series is timed (a figure
   printed for the record, not asserted: the machine may be loaded). */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "changepoint.h"

/* Gaussian noise from splitmix64 and Box-Muller: the test's own, so the
   series do not depend on the C library's rand(). */
static uint64_t rs;
static double uni(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return ((z ^ (z >> 31)) >> 11) * 0x1.0p-53 + 0x1.0p-54;
}
static double gauss(void)
{
	return sqrt(-2 * log(uni())) * cos(2 * M_PI * uni());
}

/* n points of level 1000 and noise sd (a fraction), a step of step
   (a fraction) from point at on (at >= n: none). */
static double *series(size_t n, double sd, size_t at, double step, uint64_t seed)
{
	double *y = malloc(n * sizeof(*y));
	rs = seed;
	for (size_t i = 0; i < n; i++)
		y[i] = 1000 * (1 + (i >= at ? step : 0)) * (1 + sd * gauss());
	return y;
}

static void test_step_found(void **st)
{
	(void)st;
	/* 40 runs at 1% noise, 3% slower from run 20 on */
	double *y = series(40, 0.01, 20, -0.03, 7);
	bc_cpoint *cp;
	size_t n = bc_changepoints(y, 40, NULL, &cp);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].at, 20);
	assert_true(cp[0].p <= BC_CP_ALPHA);
	assert_int_equal(cp[0].n_before, 20);
	assert_int_equal(cp[0].n_after, 20);
	assert_true(fabs(cp[0].change + 0.03) < 0.01);
	assert_true(cp[0].change_lo < -0.03 + 0.01 && cp[0].change_hi > -0.03 - 0.01);
	assert_true(cp[0].change_lo < cp[0].change && cp[0].change < cp[0].change_hi);
	free(cp);
	free(y);
	/* and in 50 other such series: always found, at the step or within three runs of it (of 1,000 such series: at it in 86%, within one run in 98%, within two in 99.7%) */
	size_t exact = 0;
	for (uint64_t s = 100; s < 150; s++) {
		y = series(40, 0.01, 20, -0.03, s);
		n = bc_changepoints(y, 40, NULL, &cp);
		assert_true(n >= 1);
		size_t best = 0;
		for (size_t i = 1; i < n; i++)
			if (fabs((double)cp[i].at - 20) < fabs((double)cp[best].at - 20))
				best = i;
		if (cp[best].at < 17 || cp[best].at > 23)
			printf("# seed %llu: %zu change points, nearest at %zu\n", (unsigned long long)s, n, cp[best].at);
		assert_true(cp[best].at >= 17 && cp[best].at <= 23);
		exact += cp[best].at == 20;
		free(cp);
		free(y);
	}
	assert_true(exact >= 40);
}

/* 200 flat series of 40 runs at 1% noise: the method's false alarms. At
   alpha 0.01 a flat series gets a change point with probability about
   0.01: 2 of 200 expected, 6 or more with probability 0.016 (binomial);
   the seeds are fixed, so the count is too. */
static void test_flat_series(void **st)
{
	(void)st;
	size_t alarms = 0;
	for (uint64_t s = 1; s <= 200; s++) {
		double *y = series(40, 0.01, 40, 0, 1000 + s);
		bc_cpoint *cp;
		size_t n = bc_changepoints(y, 40, NULL, &cp);
		alarms += n > 0;
		free(cp);
		free(y);
	}
	printf("# flat series with a change point: %zu of 200 (alpha %.2f: 2 expected)\n", alarms, BC_CP_ALPHA);
	assert_true(alarms <= 5);
}

static void test_edges(void **st)
{
	(void)st;
	const double flat[12] = { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 };
	const double nanv[8] = { 1, 1, 1, 1, NAN, 2, 2, 2 };
	bc_cpoint *cp = (bc_cpoint *)1;
	assert_int_equal(bc_changepoints(flat, 12, NULL, &cp), 0);
	assert_null(cp);
	assert_int_equal(bc_changepoints(flat, 5, NULL, &cp), 0);	/* fewer than 2 x 3 points */
	assert_int_equal(bc_changepoints(flat, 0, NULL, &cp), 0);
	assert_int_equal(bc_changepoints(nanv, 8, NULL, &cp), 0);
	/* one wild run among 40 is no change of level */
	double *y = series(40, 0.01, 40, 0, 77);
	y[1] = 3000;
	assert_int_equal(bc_changepoints(y, 40, NULL, &cp), 0);
	free(y);
	/* the best split of 1 1 1 4 4 4 4: after the third, statistic 3*4/7*9 */
	const double two[7] = { 1, 1, 1, 4, 4, 4, 4 };
	double stat;
	assert_int_equal(bc_cp_best_split(two, 7, 1, &stat), 3);
	assert_true(fabs(stat - 12.0 / 7 * 9) < 1e-9);
	assert_int_equal(bc_cp_best_split(two, 7, 4, &stat), 0);
}

/* Issue 48: a wild run at either end of a long flat series gave a change
   point beside it (the last 3 runs' mean moved, the permutations rarely put
   the wild run at an end): "change point at run 1998 ... -16.5%, 95%
   interval -88.5% .. +55.5%". A kept change needs its interval to exclude
   zero and the medians either side to have moved: none here. */
static void test_wild_run_at_an_end(void **st)
{
	(void)st;
	bc_cpoint *cp = (bc_cpoint *)1;
	double *y = series(2000, 0.01, 2000, 0, 5);
	y[1999] *= 0.5;
	assert_int_equal(bc_changepoints(y, 2000, NULL, &cp), 0);
	assert_null(cp);
	free(y);
	for (uint64_t s = 6; s < 9; s++) {
		y = series(2000, 0.01, 2000, 0, s);
		y[0] *= s == 7 ? 0.5 : 1.5;	/* an odd first run, up or down */
		assert_int_equal(bc_changepoints(y, 2000, NULL, &cp), 0);
		free(y);
	}
	/* a real step is still found beside a wild last run */
	y = series(200, 0.01, 100, -0.03, 9);
	y[199] *= 0.5;
	size_t n = bc_changepoints(y, 200, NULL, &cp);
	assert_int_equal(n, 1);
	assert_true(cp[0].at >= 98 && cp[0].at <= 102);
	assert_true(cp[0].change_hi < 0);
	free(cp);
	free(y);
}

/* A noise-free series: a step of 1e-9 of the level is no change (it was
   reported as "+0.0%"), one of 2% is, exactly; a level of 0 that moves is
   kept though it has no relative change. */
static void test_noise_free(void **st)
{
	(void)st;
	double y[100];
	bc_cpoint *cp;
	for (size_t i = 0; i < 100; i++)
		y[i] = 1000 * (i >= 50 ? 1 + 1e-9 : 1);
	assert_int_equal(bc_changepoints(y, 100, NULL, &cp), 0);
	for (size_t i = 0; i < 100; i++)
		y[i] = i >= 50 ? 1 + 1e-9 : 1;
	assert_int_equal(bc_changepoints(y, 100, NULL, &cp), 0);
	for (size_t i = 0; i < 100; i++)
		y[i] = 1000 * (i >= 50 ? 1.02 : 1);
	assert_int_equal(bc_changepoints(y, 100, NULL, &cp), 1);
	assert_int_equal(cp[0].at, 50);
	assert_true(fabs(cp[0].change - 0.02) < 1e-12);
	free(cp);
	for (size_t i = 0; i < 100; i++)
		y[i] = i >= 50 ? 5 : 0;
	assert_int_equal(bc_changepoints(y, 100, NULL, &cp), 1);
	assert_int_equal(cp[0].at, 50);
	assert_true(isnan(cp[0].change));
	free(cp);
	/* the least change follows the options: 1e-9 kept when asked for */
	bc_cp_opts o = BC_CP_OPTS_DEFAULT;
	o.min_change = 0;
	for (size_t i = 0; i < 100; i++)
		y[i] = 1000 * (i >= 50 ? 1 + 1e-9 : 1);
	assert_int_equal(bc_changepoints(y, 100, &o, &cp), 1);
	free(cp);
}

/* Half the series' noise is the least change: 0.3 sigma over 5,000 runs a
   side is beyond doubt (p 0.001) but smaller than the noise lets one
   reading show, so it is not kept; a 1-sigma step is. */
static void test_least_change(void **st)
{
	(void)st;
	bc_cpoint *cp;
	double *y = series(10000, 0.01, 5000, 0.003, 21);
	assert_int_equal(bc_changepoints(y, 10000, NULL, &cp), 0);
	free(y);
	bc_cp_opts o = BC_CP_OPTS_DEFAULT;
	o.min_noise = 0;
	y = series(10000, 0.01, 5000, 0.003, 21);
	assert_true(bc_changepoints(y, 10000, &o, &cp) >= 1);
	free(cp);
	free(y);
	y = series(10000, 0.01, 5000, 0.01, 21);
	assert_true(bc_changepoints(y, 10000, NULL, &cp) >= 1);
	free(cp);
	free(y);
}

static void test_two_steps_and_seed(void **st)
{
	(void)st;
	/* 60 runs: +5% at 20, back down 5% at 40 */
	double *y = series(60, 0.01, 60, 0, 3);
	for (size_t i = 20; i < 40; i++)
		y[i] *= 1.05;
	bc_cpoint *a, *b;
	size_t na = bc_changepoints(y, 60, NULL, &a);
	assert_int_equal(na, 2);
	assert_int_equal(a[0].at, 20);
	assert_int_equal(a[1].at, 40);
	assert_true(a[0].change > 0.03 && a[1].change < -0.03);
	assert_int_equal(a[0].n_after, 20);
	assert_int_equal(a[1].n_before, 20);
	/* the same series, the same answer: the permutations are seeded */
	size_t nb = bc_changepoints(y, 60, NULL, &b);
	assert_int_equal(nb, na);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].at, b[i].at);
		assert_true(a[i].p == b[i].p);
	}
	free(a);
	free(b);
	free(y);
}

static double secs(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);	/* CPU time: the machine may be loaded */
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A figure for docs/history.md: 10,000 runs, flat, and with two steps. */
static void test_ten_thousand(void **st)
{
	(void)st;
	double *y = series(10000, 0.01, 10000, 0, 11);
	bc_cpoint *cp;
	double t0 = secs();
	size_t n0 = bc_changepoints(y, 10000, NULL, &cp);
	double t1 = secs();
	free(cp);
	for (size_t i = 3000; i < 10000; i++)
		y[i] *= i < 7000 ? 0.97 : 1.02;
	size_t n1 = bc_changepoints(y, 10000, NULL, &cp);
	double t2 = secs();
	printf("# 10,000 runs: flat %.3f CPU s (%zu change points), two steps %.3f CPU s (%zu change points)\n",
	       t1 - t0, n0, t2 - t1, n1);
	assert_true(n1 >= 2);
	free(cp);
	free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_found),
		cmocka_unit_test(test_flat_series),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_wild_run_at_an_end),
		cmocka_unit_test(test_noise_free),
		cmocka_unit_test(test_least_change),
		cmocka_unit_test(test_two_steps_and_seed),
		cmocka_unit_test(test_ten_thousand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
