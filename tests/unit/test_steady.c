/* The stopping rules of long studies (core/stats/steady.c) on synthetic
   series: steady after a ramp, never steady (a drift, or noise), precise
   enough after enough repeats of a tight case, never for a noisy one. */
#include "unit.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "steady.h"

/* Deterministic noise: uniform in [-1, 1] from a small LCG. */
static double noise(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return ((*s >> 8) & 0xffff) / 32767.5 - 1;
}

static void test_steady_after_ramp(void **st)
{
	double v[40];
	unsigned s = 7;
	bc_steady r;
	int first = -1;
	(void)st;
	/* a cache warming up: 50% of the final rate rising to 100% over 10
	   intervals, then flat with 1% noise */
	for (int i = 0; i < 40; i++)
		v[i] = 1000 * (i < 10 ? 0.5 + 0.05 * i : 1) * (1 + 0.01 * noise(&s));
	for (size_t n = 1; n <= 40; n++) {
		bc_steady_check(v, n, BC_STEADY_WINDOW, BC_STEADY_DRIFT_PCT, BC_STEADY_SPREAD_PCT, &r);
		if (r.steady && first < 0)
			first = (int)n;
	}
	/* not while the ramp is in the window (the last ramp value is i = 9) */
	assert_true(first >= 10 + BC_STEADY_WINDOW - 1);
	assert_true(first <= 10 + BC_STEADY_WINDOW + 1);
	bc_steady_check(v, 40, BC_STEADY_WINDOW, BC_STEADY_DRIFT_PCT, BC_STEADY_SPREAD_PCT, &r);
	assert_true(r.steady && r.drift_pct < 2 && r.spread_pct < 2);
}

static void test_never_steady_drift(void **st)
{
	double v[60];
	bc_steady r;
	(void)st;
	/* a file system filling up: 1% slower every interval, no noise */
	for (int i = 0; i < 60; i++)
		v[i] = 1000 * pow(0.99, i);
	for (size_t n = 1; n <= 60; n++) {
		bc_steady_check(v, n, BC_STEADY_WINDOW, BC_STEADY_DRIFT_PCT, BC_STEADY_SPREAD_PCT, &r);
		assert_false(r.steady);
	}
	/* 4 steps of 1% across the window */
	assert_true(fabs(r.drift_pct - 4) < 0.2);
}

static void test_never_steady_noise(void **st)
{
	double v[60];
	unsigned s = 3;
	bc_steady r;
	int steady = 0;
	(void)st;
	/* a shared machine: intervals alternately 15..30% above and below a
	   flat mean */
	for (int i = 0; i < 60; i++)
		v[i] = 1000 * (1 + (i % 2 ? -1 : 1) * (0.15 + 0.15 * fabs(noise(&s))));
	for (size_t n = 1; n <= 60; n++) {
		bc_steady_check(v, n, BC_STEADY_WINDOW, BC_STEADY_DRIFT_PCT, BC_STEADY_SPREAD_PCT, &r);
		steady += r.steady;
	}
	assert_int_equal(steady, 0);
}

static void test_steady_edges(void **st)
{
	const double zero[5] = { 0 }, flat[5] = { 5, 5, 5, 5, 5 };
	bc_steady r;
	(void)st;
	bc_steady_check(flat, 4, 5, 2, 10, &r);
	assert_false(r.steady);		/* fewer values than the window */
	bc_steady_check(flat, 5, 5, 2, 10, &r);
	assert_true(r.steady && r.drift_pct == 0 && r.spread_pct == 0);
	bc_steady_check(zero, 5, 5, 2, 10, &r);
	assert_false(r.steady);		/* nothing done is not a steady state */
}

/* Cumulative seconds and events of n steps of 0.4 s at rates v[0..n). */
static void cumulate(const double *v, size_t n, double *t, double *ev)
{
	t[0] = ev[0] = 0;
	for (size_t i = 0; i < n; i++) {
		t[i + 1] = t[i] + 0.4;
		ev[i + 1] = ev[i] + v[i] * 0.4;
	}
}

/* The first step count at which the counter of rates v[0..n) is steady
   (0: never), with its judgement and block; step_too: assert that no step
   count is steady step by step before it. */
static size_t first_counter_steady(const double *v, size_t n, bc_steady *r, size_t *block, int step_too)
{
	double t[301], ev[301];
	bc_steady one;
	cumulate(v, n, t, ev);
	for (size_t k = 1; k <= n; k++) {
		if (step_too) {
			bc_steady_check(v, k, BC_STEADY_WINDOW, BC_STEADY_DRIFT_PCT, BC_STEADY_SPREAD_PCT, &one);
			assert_false(one.steady);
		}
		bc_steady_counter(t, ev, k, BC_STEADY_WINDOW, BC_STEADY_DRIFT_PCT, BC_STEADY_SPREAD_PCT, r, block);
		if (r->steady)
			return k;
	}
	return 0;
}

/* TPC-C's rate over 0.4 s swings by +-40% around a flat mean: never steady
   step by step, steady over blocks of steps once its noise averages out */
static void test_counter_bursty(void **st)
{
	double v[200];
	unsigned s = 5;
	size_t block = 0, first;
	bc_steady r;
	(void)st;
	for (int i = 0; i < 200; i++)
		v[i] = 2000 * (1 + 0.4 * noise(&s));
	first = first_counter_steady(v, 200, &r, &block, 1);
	assert_true(first > 0);
	assert_true(block >= 4);	/* blocks of 1.6 s or longer */
	assert_true(first >= block * BC_STEADY_WINDOW);
	assert_true(r.drift_pct <= BC_STEADY_DRIFT_PCT && r.spread_pct <= BC_STEADY_SPREAD_PCT);
}

/* A drift of 1% a step stays a drift over blocks (a longer window shows
   more of it); a ramp with bursts on it is steady only once the blocks
   that decide hold none of the ramp */
static void test_counter_drift_and_ramp(void **st)
{
	double v[300], t[301], ev[301];
	unsigned s = 9;
	size_t block = 0, first;
	bc_steady r;
	(void)st;
	for (int i = 0; i < 300; i++)
		v[i] = 1000 * pow(0.99, i);
	assert_int_equal(first_counter_steady(v, 300, &r, &block, 0), 0);
	/* a buffer pool warming: half the rate rising to all of it over 40
	   steps (16 s), then flat with +-30% bursts */
	for (int i = 0; i < 300; i++)
		v[i] = 2000 * (i < 40 ? 0.5 + 0.5 * i / 40.0 : 1) * (1 + 0.3 * noise(&s));
	first = first_counter_steady(v, 300, &r, &block, 0);
	assert_true(first > 0);
	/* the blocks that decided start after the ramp's last step, near enough */
	assert_true(first - block * BC_STEADY_WINDOW >= 36);
	size_t one = 1;
	cumulate(v, 300, t, ev);
	bc_steady_counter(t, ev, 3, BC_STEADY_WINDOW, BC_STEADY_DRIFT_PCT, BC_STEADY_SPREAD_PCT, &r, &one);
	assert_false(r.steady);		/* fewer steps than the window */
}

static void test_precise(void **st)
{
	double tight[20], noisy[20];
	unsigned s = 11;
	size_t stop_tight = 0, stop_noisy = 0;
	(void)st;
	for (int i = 0; i < 20; i++) {
		tight[i] = 1000 * (1 + 0.005 * noise(&s));	/* CV ~0.3% */
		noisy[i] = 1000 * (1 + 0.2 * noise(&s));	/* CV ~12% */
	}
	for (size_t n = 1; n <= 20; n++) {
		if (!stop_tight && bc_precise(tight, n, 3, 0.02, BC_PRECISE_FRACTION))
			stop_tight = n;
		if (!stop_noisy && bc_precise(noisy, n, 3, 0.02, BC_PRECISE_FRACTION))
			stop_noisy = n;
	}
	assert_int_equal(stop_tight, 3);	/* the minimum, then it stops */
	assert_int_equal(stop_noisy, 0);	/* 20 repeats do not pin 12% noise to +-1% */
	assert_true(isinf(bc_rel_halfwidth(tight, 1)));
	/* 3 values 99, 100, 101: half-width t(0.975, 2) x 1 / sqrt(3) = 2.484 -> 2.484% */
	const double three[] = { 99, 100, 101 };
	assert_true(fabs(bc_rel_halfwidth(three, 3) - 0.024841) < 1e-5);
	assert_false(bc_precise(three, 3, 3, 0.02, BC_PRECISE_FRACTION));
	assert_true(bc_precise(three, 3, 3, 0.05, BC_PRECISE_FRACTION));
	assert_false(bc_precise(three, 3, 5, 0.05, BC_PRECISE_FRACTION));	/* min_repeat */
}

/* repeat = auto's futility: the repeats a spread needs for 3/4 of 2% (1.5%) */
static void test_repeats_needed(void **st)
{
	(void)st;
	const double one[] = { 99, 100, 101 }, wide[] = { 80, 120, 100 }, flat[] = { 5, 5, 5 };
	/* cv 1%: t(3) x 1% / 2 = 1.59% > 1.5%; t(4) x 1% / sqrt(5) = 1.24%: five */
	assert_int_equal(bc_repeats_for_precision(one, 3, 0.02, 0.75, 40), 5);
	assert_true(bc_repeats_for_precision(one, 3, 0.02, 0.75, 4) == SIZE_MAX);	/* beyond the limit */
	assert_true(bc_repeats_for_precision(wide, 3, 0.02, 0.75, 40) == SIZE_MAX);	/* cv 20%: ~700 */
	assert_int_equal(bc_repeats_for_precision(flat, 3, 0.02, 0.75, 40), 3);	/* precise already */
	assert_true(bc_repeats_for_precision(one, 1, 0.02, 0.75, 40) == SIZE_MAX);	/* no spread yet */
}

static void test_decided(void **st)
{
	const double a[] = { 100, 101, 99, 100, 100.5 }, same[] = { 100.2, 99.8, 100.1, 99.9, 100 };
	const double faster[] = { 110, 111, 109, 110, 110.5 }, noisy[] = { 80, 120, 95, 105, 100 };
	const double neg[] = { -1, 100 };
	(void)st;
	assert_true(bc_decided(a, 5, same, 5, 0.02, 0.95, 5));		/* a tie: inside +-2% */
	assert_true(bc_decided(a, 5, faster, 5, 0.02, 0.95, 5));	/* +10%: beyond +2% */
	assert_false(bc_decided(a, 5, noisy, 5, 0.02, 0.95, 5));	/* +-20% noise: could be either */
	assert_false(bc_decided(a, 1, same, 5, 0.02, 0.95, 5));		/* one value: nothing known */
	assert_false(bc_decided(a, 2, neg, 2, 0.02, 0.95, 2));		/* not a positive rate */
	/* +4% at 0.5% noise: beyond 2% once the interval is narrow enough (5
	   repeats a side), not at 2 (t(0.975, ~1) is 12.7) */
	const double near2[] = { 104, 104.5, 103.5, 104, 104.2 };
	assert_true(bc_decided(a, 5, near2, 5, 0.02, 0.95, 5));
	assert_false(bc_decided(a, 2, near2, 2, 0.02, 0.95, 2));
	/* +-20% noise: undecided now, and still at 40 repeats of that spread (futile) */
	assert_false(bc_decided(a, 5, noisy, 5, 0.02, 0.80, 40));
	/* +2% exactly at 0.5% noise: no number of repeats tells it from the threshold */
	const double at2[] = { 102, 103.01, 100.99, 102, 102.5 };
	assert_false(bc_decided(a, 5, at2, 5, 0.02, 0.80, 1000));
	/* +1.5% at 0.8% noise: undecided at 3, a tie once there are 20 like them */
	const double tie3[] = { 101.5, 102.3, 100.7 };
	assert_false(bc_decided(a, 5, tie3, 3, 0.02, 0.80, 3));
	assert_true(bc_decided(a, 5, tie3, 3, 0.02, 0.80, 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_after_ramp),
		cmocka_unit_test(test_never_steady_drift),
		cmocka_unit_test(test_never_steady_noise),
		cmocka_unit_test(test_steady_edges),
		cmocka_unit_test(test_counter_bursty),
		cmocka_unit_test(test_counter_drift_and_ramp),
		cmocka_unit_test(test_precise),
		cmocka_unit_test(test_decided),
		cmocka_unit_test(test_repeats_needed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
