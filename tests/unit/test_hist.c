/* Histogram: percentiles against exact sorted data, range, merging. */
#include "unit.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Values spread over 1 ns .. 1 h on a log scale: every percentile of the
   histogram is within 1% of the exact one from sorted data. */
static void test_error_bound(void **st)
{
	(void)st;
	enum { N = 200000 };
	static const double pct[] = { 1, 10, 50, 90, 95, 99, 99.9, 99.99, 100 };
	uint64_t *v = malloc(N * sizeof(*v)), mn = UINT64_MAX, mx = 0;
	bc_hist *h = calloc(1, sizeof(*h));
	for (int i = 0; i < N; i++) {
		double e = (double)(next() % 1000000) / 1000000.0 * log(3.6e12);
		v[i] = (uint64_t)exp(e) + 1;
		bc_hist_add(h, v[i]);
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
		size_t rank = (size_t)ceil(pct[k] / 100 * N);
		uint64_t exact = v[rank - 1], got = bc_hist_percentile(h, pct[k], mn, mx);
		double err = fabs((double)got - (double)exact) / (double)exact;
		assert_true(err <= 0.01);
		assert_true(got >= mn && got <= mx);
	}
	assert_int_equal(bc_hist_total(h), N);
	free(v);
	free(h);
}

static void test_small_values_exact(void **st)
{
	(void)st;
	bc_hist *h = calloc(1, sizeof(*h));
	for (uint64_t i = 1; i <= 100; i++)
		bc_hist_add(h, i);
	assert_int_equal(bc_hist_percentile(h, 50, 1, 100), 50);
	assert_int_equal(bc_hist_percentile(h, 99, 1, 100), 99);
	assert_int_equal(bc_hist_percentile(h, 100, 1, 100), 100);
	free(h);
}

/* Percentiles never fall outside [min, max], even in a wide bucket. */
static void test_clamped(void **st)
{
	(void)st;
	bc_hist *h = calloc(1, sizeof(*h));
	bc_hist_add(h, 1000000007);
	uint64_t p = bc_hist_percentile(h, 50, 1000000007, 1000000007);
	assert_int_equal(p, 1000000007);
	free(h);
}

static void test_range_and_buckets(void **st)
{
	(void)st;
	/* every bucket's width is at most 1/128 of its lower bound */
	for (unsigned i = BC_HIST_SUB; i + 1 < BC_HIST_BUCKETS; i++) {
		uint64_t lo = bc_hist_bucket_low(i), hi = bc_hist_bucket_low(i + 1);
		assert_true(hi > lo);
		assert_true((double)(hi - lo) / (double)lo <= 1.0 / 128 + 1e-12);
		assert_int_equal(bc_hist_index(lo), i);
		assert_int_equal(bc_hist_index(hi - 1), i);
	}
	/* 1 hour is inside the range; far beyond lands in the last bucket */
	assert_true(bc_hist_index(3600ull * 1000000000ull) < BC_HIST_BUCKETS - 1);
	assert_int_equal(bc_hist_index(UINT64_MAX), BC_HIST_BUCKETS - 1);
}

static void test_merge_and_diff(void **st)
{
	(void)st;
	bc_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)), *m = calloc(1, sizeof(*m));
	bc_hist *d = calloc(1, sizeof(*d));
	for (uint64_t i = 0; i < 1000; i++) {
		bc_hist_add(a, i * 1000);
		bc_hist_add(b, i * 7 + 5);
	}
	bc_hist_merge(m, a);
	bc_hist_merge(m, b);
	assert_int_equal(bc_hist_total(m), 2000);
	bc_hist_diff(d, m, a);
	assert_memory_equal(d, b, sizeof(*b));
	free(a);
	free(b);
	free(m);
	free(d);
}

/* The bound the README promises (<= 1%), proved over the whole range rather
   than sampled: every value a bucket holds, its lowest and its highest, is
   within 1% of the midpoint the percentile reports (the width is at most
   1/128 of the lower bound, so the midpoint is within 1/256). */
static void test_bound_every_bucket(void **st)
{
	(void)st;
	double worst = 0;
	for (unsigned i = 1; i + 1 < BC_HIST_BUCKETS; i++) {
		uint64_t lo = bc_hist_bucket_low(i), hi = bc_hist_bucket_low(i + 1) - 1, mid = bc_hist_bucket_mid(i);
		assert_true(mid >= lo && mid <= hi);
		double e_lo = (double)(mid - lo) / (double)lo, e_hi = (double)(hi - mid) / (double)hi;
		worst = fmax(worst, fmax(e_lo, e_hi));
	}
	assert_true(worst <= 1.0 / 256 + 1e-12);
	assert_true(worst > 0);		/* the buckets above 128 ns do have a width */
	/* below 128 ns a bucket is one value: exact */
	for (unsigned i = 0; i < BC_HIST_SUB; i++)
		assert_int_equal(bc_hist_bucket_mid(i), i);
	/* the last regular bucket ends where the range does: 2^44 ns, ~4.9 h */
	assert_int_equal(bc_hist_bucket_low(BC_HIST_BUCKETS - 1), (1ull << 43) + (127ull << 36));
}

/* One value, anywhere from 1 ns to 4.8 hours (and its neighbours): every
   percentile of it is within 1%, with no help from the min/max clamp. */
static void test_bound_single_values(void **st)
{
	(void)st;
	bc_hist *h = calloc(1, sizeof(*h));
	unsigned n = 0;
	for (uint64_t v = 1; v < 4800ull * 3600 * 1000000; v = v * 3 / 2 + 1) {
		for (int d = -1; d <= 1; d++) {
			uint64_t x = v + (uint64_t)d;
			if (x == 0)
				continue;
			memset(h, 0, sizeof(*h));
			bc_hist_add(h, x);
			bc_hist_add(h, x);
			for (double p = 1; p <= 100; p += 49.5) {
				uint64_t got = bc_hist_percentile(h, p, 0, UINT64_MAX);
				assert_true(fabs((double)got - (double)x) <= 0.01 * (double)x);
			}
			n++;
		}
	}
	assert_true(n > 200);
	free(h);
}

/* A narrow distribution in each decade from nanoseconds to hours (where the
   exact percentile sits at a bucket's edge as often as in its middle): each
   percentile within 1% of the exact one from sorted data. */
static void test_bound_each_decade(void **st)
{
	(void)st;
	enum { N = 20000 };
	static const double pct[] = { 0.1, 1, 25, 50, 75, 90, 99, 99.9, 99.99, 100 };
	uint64_t *v = malloc(N * sizeof(*v));
	bc_hist *h = malloc(sizeof(*h));
	for (double lo = 1; lo < 1.6e13; lo *= 10) {
		memset(h, 0, sizeof(*h));
		uint64_t mn = UINT64_MAX, mx = 0;
		for (int i = 0; i < N; i++) {
			double f = (double)(next() % 1000000) / 1000000.0;
			v[i] = (uint64_t)(lo * (1 + 9 * f * f)) + 1;
			if (v[i] >= 1ull << 44)
				v[i] = (1ull << 44) - 1;
			bc_hist_add(h, v[i]);
			mn = v[i] < mn ? v[i] : mn;
			mx = v[i] > mx ? v[i] : mx;
		}
		qsort(v, N, sizeof(*v), cmp_u64);
		for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
			size_t rank = (size_t)ceil(pct[k] / 100 * N);
			uint64_t exact = v[rank - 1], got = bc_hist_percentile(h, pct[k], mn, mx);
			assert_true(fabs((double)got - (double)exact) <= 0.01 * (double)exact);
		}
	}
	free(v);
	free(h);
}

/* Past the range (> 2^44 ns) the last bucket is open-ended: the percentile
   is the recorded maximum (the clamp), never a made-up figure; a percentile
   of a histogram that holds both ends stays exact at the low end. */
static void test_beyond_range(void **st)
{
	(void)st;
	bc_hist *h = calloc(1, sizeof(*h));
	uint64_t huge = 30ull * 3600 * 1000000000;	/* 30 hours */
	bc_hist_add(h, 3);
	bc_hist_add(h, huge);
	assert_int_equal(bc_hist_percentile(h, 100, 3, huge), huge);
	assert_int_equal(bc_hist_percentile(h, 50, 3, huge), 3);
	assert_int_equal(bc_hist_percentile(h, 0.001, 3, huge), 3);
	memset(h, 0, sizeof(*h));
	assert_int_equal(bc_hist_percentile(h, 50, 0, 0), 0);	/* empty */
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_bound),
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_clamped),
		cmocka_unit_test(test_range_and_buckets),
		cmocka_unit_test(test_merge_and_diff),
		cmocka_unit_test(test_bound_every_bucket),
		cmocka_unit_test(test_bound_single_values),
		cmocka_unit_test(test_bound_each_decade),
		cmocka_unit_test(test_beyond_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
