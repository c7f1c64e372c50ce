/* Histogram: percentiles against exact sorted data, range, merging; the
   compact encoding (round trip, merge, hostile text); percentiles merged
   across files against the union of their records. */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "results.h"

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

/* The exact p-th percentile of sorted v[0..n): the value of rank
   ceil(p/100 * n), the rank the histogram uses. */
static uint64_t exact_pct(const uint64_t *v, size_t n, double p)
{
	return v[bc_hist_rank(n, p) - 1];
}

static int within(uint64_t got, uint64_t exact)
{
	return fabs((double)got - (double)exact) <= 0.01 * (double)exact;
}

/* The bound over the whole range at the values where it is tightest: every
   power of two up to the top (2^0 .. 2^43), and each bucket's lowest and
   highest value, one at a time (no help from the min/max clamp) and all
   together (every 37th rank of the 9,726 values, sorted). */
static void test_bound_powers_and_edges(void **st)
{
	(void)st;
	bc_hist *h = calloc(1, sizeof(*h));
	for (unsigned e = 0; e < BC_HIST_MAX_EXP; e++) {
		uint64_t v = 1ull << e;
		unsigned i = bc_hist_index(v);
		h->b[i] = 3;
		for (double p = 1; p <= 100; p += 33)
			assert_true(within(bc_hist_percentile(h, p, 0, UINT64_MAX), v));
		h->b[i] = 0;
	}
	enum { NE = 2 * (BC_HIST_BUCKETS - 2) };
	uint64_t *v = malloc(NE * sizeof(*v));
	size_t n = 0;
	for (unsigned i = 1; i + 1 < BC_HIST_BUCKETS; i++) {
		uint64_t edge[2] = { bc_hist_bucket_low(i), bc_hist_bucket_low(i + 1) - 1 };
		for (int k = 0; k < 2; k++) {
			h->b[i] = 2;
			assert_true(within(bc_hist_percentile(h, 50, 0, UINT64_MAX), edge[k]));
			h->b[i] = 0;
			v[n++] = edge[k];
		}
	}
	assert_int_equal(n, NE);
	for (size_t k = 0; k < n; k++)
		bc_hist_add(h, v[k]);
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t r = 1; r <= n; r += 37) {
		double p = 100.0 * (double)r / (double)n;
		assert_true(within(bc_hist_percentile(h, p, v[0], v[n - 1]), exact_pct(v, n, p)));
	}
	free(v);
	free(h);
}

/* The last bucket is open: it starts 2^36 below 2^44 and holds everything
   above. Inside the range its values still meet the bound (the recorded
   maximum is reported, and the bucket is 1/128 wide); past 2^44 ns the
   figure is the maximum, whatever the rank. */
static void test_open_last_bucket(void **st)
{
	(void)st;
	bc_hist *h = calloc(1, sizeof(*h));
	uint64_t first = (1ull << 44) - (1ull << 36), top = (1ull << 44) - 1;
	assert_int_equal(bc_hist_index(first), BC_HIST_BUCKETS - 1);
	assert_int_equal(bc_hist_index(first - 1), BC_HIST_BUCKETS - 2);
	bc_hist_add(h, first);
	bc_hist_add(h, top);
	assert_int_equal(bc_hist_percentile(h, 100, first, top), top);
	assert_true(within(bc_hist_percentile(h, 50, first, top), first));
	bc_hist_add(h, UINT64_MAX);
	for (double p = 1; p <= 100; p += 33)
		assert_int_equal(bc_hist_percentile(h, p, first, UINT64_MAX), UINT64_MAX);
	free(h);
}

/* Every percentile is inside [min, max]: a lone value at either edge of
   each wide bucket is reported as itself, and a clamp narrower than the
   bucket wins over its midpoint. */
static void test_clamp_every_bucket(void **st)
{
	(void)st;
	bc_hist *h = calloc(1, sizeof(*h));
	for (unsigned i = BC_HIST_SUB; i + 1 < BC_HIST_BUCKETS; i++) {
		uint64_t lo = bc_hist_bucket_low(i), hi = bc_hist_bucket_low(i + 1) - 1;
		h->b[i] = 1;
		assert_int_equal(bc_hist_percentile(h, 50, lo, lo), lo);
		assert_int_equal(bc_hist_percentile(h, 100, hi, hi), hi);
		uint64_t got = bc_hist_percentile(h, 99, lo, hi);
		assert_true(got >= lo && got <= hi);
		h->b[i] = 0;
	}
	free(h);
}

/* encode -> text -> checked read -> decode gives the histogram back. */
static void round_trip(const bc_hist *h)
{
	bc_hist_code c, back;
	const char *why = NULL;
	bc_hist *d = calloc(1, sizeof(*d));
	bc_hist_encode(h, &c);
	char *text = bc_hist_code_text(&c);
	assert_true(strlen(text) <= BC_HIST_TEXT_MAX);
	assert_int_equal(bc_hist_code_from_text(text, strlen(text), &back, &why), 0);
	assert_int_equal(back.total, bc_hist_total(h));
	assert_int_equal(back.len, c.len);
	assert_memory_equal(back.buf ? back.buf : (uint8_t *)"", c.buf ? c.buf : (uint8_t *)"", c.len);
	assert_int_equal(bc_hist_decode(&back, d, &why), 0);
	assert_memory_equal(d, h, sizeof(*h));
	free(text);
	free(d);
	bc_hist_code_free(&c);
	bc_hist_code_free(&back);
}

static void test_code_round_trip(void **st)
{
	(void)st;
	bc_hist *h = calloc(1, sizeof(*h));
	bc_hist_code c;
	round_trip(h);				/* empty: no bytes, "" */
	bc_hist_encode(h, &c);
	assert_int_equal(c.len, 0);
	char *t = bc_hist_code_text(&c);
	assert_string_equal(t, "");
	free(t);
	static const uint64_t one[] = { 0, 1, 127, 128, 1000, 1ull << 30, (1ull << 44) - 1, UINT64_MAX };
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {	/* a single value */
		memset(h, 0, sizeof(*h));
		bc_hist_add(h, one[i]);
		round_trip(h);
	}
	for (unsigned i = 0; i < BC_HIST_BUCKETS; i++)	/* every bucket, counts of every size */
		h->b[i] = i % 7 == 0 ? (uint64_t)INT64_MAX / BC_HIST_BUCKETS : next() % 100000 + 1;
	round_trip(h);
	bc_hist_encode(h, &c);
	assert_true(c.len <= BC_HIST_BYTES_MAX);
	bc_hist_code_free(&c);
	memset(h, 0, sizeof(*h));		/* sparse: runs of empty buckets */
	for (unsigned i = 3; i < BC_HIST_BUCKETS; i += 97)
		h->b[i] = i;
	round_trip(h);
	free(h);
}

/* A random histogram of n values spread over 10^lo .. 10^hi ns. */
static void fill(bc_hist *h, size_t n, double lo, double hi, uint64_t *keep)
{
	for (size_t i = 0; i < n; i++) {
		double e = lo + (hi - lo) * (double)(next() % 1000000) / 1e6;
		uint64_t v = (uint64_t)pow(10, e);
		bc_hist_add(h, v);
		if (keep)
			keep[i] = v;
	}
}

/* merge(encode(a), encode(b)) == encode(merge(a, b)), byte for byte. */
static void test_code_merge(void **st)
{
	(void)st;
	bc_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	for (int round = 0; round < 20; round++) {
		memset(a, 0, sizeof(*a));
		memset(b, 0, sizeof(*b));
		fill(a, (size_t)(round % 5) * 1000, 2, 4 + round % 4, NULL);	/* round 0: a is empty */
		fill(b, 3000, 1 + round % 3, 9, NULL);
		bc_hist_code ca, cb, cm;
		bc_hist_encode(a, &ca);
		bc_hist_encode(b, &cb);
		assert_int_equal(bc_hist_code_merge(&ca, &cb), 0);
		bc_hist_merge(a, b);
		bc_hist_encode(a, &cm);
		assert_int_equal(ca.len, cm.len);
		assert_memory_equal(ca.buf, cm.buf, cm.len);
		assert_int_equal(ca.total, cm.total);
		bc_hist_code_free(&ca);
		bc_hist_code_free(&cb);
		bc_hist_code_free(&cm);
	}
	/* a bucket's sum past INT64_MAX: refused, dst kept */
	memset(a, 0, sizeof(*a));
	a->b[200] = (uint64_t)INT64_MAX - 1;
	bc_hist_code ca, cb;
	bc_hist_encode(a, &ca);
	bc_hist_encode(a, &cb);
	size_t len = ca.len;
	assert_int_equal(bc_hist_code_merge(&ca, &cb), -1);
	assert_int_equal(ca.len, len);
	assert_int_equal(ca.total, (uint64_t)INT64_MAX - 1);
	bc_hist_code_free(&ca);
	bc_hist_code_free(&cb);
	free(a);
	free(b);
}

/* Three hosts, three distributions (a fast one, a slow one, one with a long
   tail): each percentile of their merged histograms is within 1% of the
   exact percentile of the union of their records; the mean of the hosts'
   p99s, what a fleet view averaged before, is not. */
static void test_merged_is_union(void **st)
{
	(void)st;
	enum { H = 3, N = 40000 };
	static const double lo[H] = { 4, 5, 4 }, hi[H] = { 5, 6, 8 };
	static const double pct[] = { 1, 50, 90, 99, 99.9, 100 };
	uint64_t *all = malloc(H * N * sizeof(*all));
	bc_hist *h = calloc(1, sizeof(*h));
	bc_hist_code merged = { 0 };
	double p99[H], mean_p99 = 0;
	for (int k = 0; k < H; k++) {
		memset(h, 0, sizeof(*h));
		fill(h, N, lo[k], hi[k], all + (size_t)k * N);
		qsort(all + (size_t)k * N, N, sizeof(*all), cmp_u64);
		p99[k] = (double)bc_hist_percentile(h, 99, all[(size_t)k * N], all[(size_t)k * N + N - 1]);
		mean_p99 += p99[k] / H;
		bc_hist_code c;
		bc_hist_encode(h, &c);
		assert_int_equal(bc_hist_code_merge(&merged, &c), 0);
		bc_hist_code_free(&c);
	}
	qsort(all, H * N, sizeof(*all), cmp_u64);
	assert_int_equal(merged.total, H * N);
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		uint64_t exact = exact_pct(all, H * N, pct[i]);
		assert_true(within(bc_hist_code_percentile(&merged, pct[i], all[0], all[H * N - 1]), exact));
	}
	double union99 = (double)exact_pct(all, H * N, 99);
	assert_true(fabs(mean_p99 - union99) > 0.2 * union99);	/* the old way: wrong by more than 20% */
	free(all);
	free(h);
	bc_hist_code_free(&merged);
}

/* Hostile text: a clear reason each, never a crash or a count that lies. */
static void test_code_hostile(void **st)
{
	(void)st;
	static const struct { const char *text, *why; } bad[] = {
		{ "abc", "multiple of 4" },			/* length */
		{ "ab!d", "not base64" },			/* alphabet */
		{ "=AAA", "not base64" },			/* padding first */
		{ "gA==", "cut short" },			/* 0x80: a continuation with nothing after */
		{ "////////////Ag==", "64 bits" },		/* nine 0xff, then 2: bit 64 */
		{ "AA==", "a count of 0" },			/* zig-zag 0 */
		{ "AA==AAAA", "not base64" },			/* padding inside */
		{ "j04=", "past the layout" },			/* a run of 5000 empty buckets */
		{ "/UsCAg==", "past the layout" },		/* a run of 4863, then two counts */
		{ "/v//////////Af7//////////wH+//////////8B", "passes 2^64" },	/* 3 x INT64_MAX */
	};
	bc_hist_code c;
	const char *why;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		int rc = bc_hist_code_from_text(bad[i].text, strlen(bad[i].text), &c, &why);
		if (rc == 0)
			printf("accepted: %s\n", bad[i].text);
		assert_int_equal(rc, -1);
		assert_non_null(why);
		if (!strstr(why, bad[i].why))
			printf("%s: %s\n", bad[i].text, why);
		assert_non_null(strstr(why, bad[i].why));
		assert_null(c.buf);
	}
	char *big = malloc(BC_HIST_TEXT_MAX + 5);
	memset(big, 'A', BC_HIST_TEXT_MAX + 4);
	why = NULL;
	assert_int_equal(bc_hist_code_from_text(big, BC_HIST_TEXT_MAX + 4, &c, &why), -1);
	assert_non_null(strstr(why, "longer"));
	free(big);
}

/* A case object of module "m" at 1 thread whose op class "read" holds
   n records of v ns; with_hist: its latency_hist too. */
static json_t *case_json(long repeat, uint64_t n, uint64_t v, int with_hist)
{
	bc_hist *h = calloc(1, sizeof(*h));
	h->b[bc_hist_index(v)] = n;
	json_t *lat = json_pack("{s:I, s:I, s:I, s:I}", "min", (json_int_t)v, "max", (json_int_t)v,
				"p50", (json_int_t)v, "p99", (json_int_t)v);
	json_t *op = json_pack("{s:I, s:o}", "count", (json_int_t)n, "latency_ns", lat);
	if (with_hist) {
		bc_hist_code c;
		bc_hist_encode(h, &c);
		char *t = bc_hist_code_text(&c);
		json_object_set_new(op, "latency_hist", json_pack("{s:s, s:i, s:i, s:I, s:s}", "encoding",
			BC_HIST_ENCODING, "sub_bucket_bits", BC_HIST_SUB_BITS, "max_exponent", BC_HIST_MAX_EXP,
			"count", (json_int_t)c.total, "data", t));
		free(t);
		bc_hist_code_free(&c);
	}
	free(h);
	return json_pack("{s:s, s:s, s:i, s:i, s:{}, s:{s:o}}", "module", "m", "status", "ok", "threads", 1,
			 "repeat", (int)repeat, "metrics", "ops", "read", op);
}

/* The one reader keeps latency_hist as written and the writer writes it
   back; a hostile one is an error that names the field, never a crash. */
static void test_case_latency_hist(void **st)
{
	(void)st;
	bc_err e = { .msg = "" };
	bc_case_result r;
	json_t *c = case_json(1, 5, 1000, 1);
	assert_int_equal(bc_case_from_json(c, 0, &r, &e), 0);
	assert_non_null(r.ops[0].hist);
	assert_int_equal(r.ops[0].hist_count, 5);
	json_t *back = bc_case_to_json(&r);
	assert_true(json_equal(json_object_get(json_object_get(json_object_get(back, "ops"), "read"), "latency_hist"),
			       json_object_get(json_object_get(json_object_get(c, "ops"), "read"), "latency_hist")));
	json_decref(back);
	bc_case_free(&r);
	static const struct { const char *key, *msg; } bad[] = {
		{ "encoding", "latency_hist.encoding" },
		{ "sub_bucket_bits", "sub-bucket bits" },
		{ "max_exponent", "sub-bucket bits" },
		{ "count", "count says" },
		{ "data", "latency_hist.data: not a histogram" },
	};
	json_t *vals[] = { json_string("hdr-v2"), json_integer(8), json_integer(62), json_integer(6),
			   json_string("####") };
	json_t *cc = json_deep_copy(c);		/* a layout not said */
	json_object_del(json_object_get(json_object_get(json_object_get(cc, "ops"), "read"), "latency_hist"),
			"max_exponent");
	assert_int_equal(bc_case_from_json(cc, 3, &r, &e), -1);
	assert_non_null(strstr(e.msg, "cases[3].ops.read.latency_hist: wants sub_bucket_bits and max_exponent"));
	json_decref(cc);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cc = json_deep_copy(c);
		json_t *h = json_object_get(json_object_get(json_object_get(cc, "ops"), "read"), "latency_hist");
		json_object_set_new(h, bad[i].key, vals[i]);
		e.msg[0] = '\0';
		assert_int_equal(bc_case_from_json(cc, 3, &r, &e), -1);
		if (!strstr(e.msg, bad[i].msg))
			printf("%s\n", e.msg);
		assert_non_null(strstr(e.msg, "cases[3].ops.read.latency_hist"));
		assert_non_null(strstr(e.msg, bad[i].msg));
		json_decref(cc);
	}
	json_decref(c);
}

/* groups[]: a latency percentile of the repeats' merged histogram
   (merged) beside the mean of theirs; none when a repeat has no
   histogram (a file from before them). */
static void test_group_merged(void **st)
{
	(void)st;
	bc_err e = { .msg = "" };
	for (int old = 0; old < 2; old++) {
		bc_results res;
		bc_results_init(&res, "t");
		/* repeat 1: 990 records of 10 us; repeat 2: 990 of 10 us and 15 of 2 ms (its p99) */
		json_t *c1 = case_json(1, 990, 10000, 1), *c2 = case_json(2, 990, 10000, !old);
		json_t *op2 = json_object_get(json_object_get(c2, "ops"), "read");
		json_object_set_new(json_object_get(op2, "latency_ns"), "p99", json_integer(2000000));
		json_object_set_new(json_object_get(op2, "latency_ns"), "max", json_integer(2000000));
		json_object_set_new(op2, "count", json_integer(1005));
		if (!old) {
			bc_hist *h = calloc(1, sizeof(*h));
			h->b[bc_hist_index(10000)] = 990;
			h->b[bc_hist_index(2000000)] = 15;
			bc_hist_code c;
			bc_hist_encode(h, &c);
			char *t = bc_hist_code_text(&c);
			json_t *lh = json_object_get(op2, "latency_hist");
			json_object_set_new(lh, "data", json_string(t));
			json_object_set_new(lh, "count", json_integer(1005));
			free(t);
			free(h);
			bc_hist_code_free(&c);
		}
		json_t *cs[2] = { c1, c2 };
		for (int k = 0; k < 2; k++) {
			bc_case_result r;
			assert_int_equal(bc_case_from_json(cs[k], (size_t)k, &r, &e), 0);
			bc_results_add_case(&res, &r);
			bc_case_free(&r);
			json_decref(cs[k]);
		}
		bc_results_done(&res);
		json_t *g = bc_groups_json(&res);
		json_t *m = json_object_get(json_object_get(json_array_get(g, 0), "metrics"), "read.p99_ms");
		assert_non_null(m);
		/* the mean of the repeats' p99s: (0.01 + 2) / 2 ms, a latency no record had */
		assert_true(fabs(json_real_value(json_object_get(m, "mean")) - 1.005) < 1e-9);
		if (old) {
			assert_null(json_object_get(m, "merged"));
		} else {
			/* 1995 records, the 1976th is 10 us: the union's p99 */
			double merged = json_real_value(json_object_get(m, "merged"));
			assert_true(fabs(merged - 0.01) <= 0.01 * 0.01);
		}
		json_decref(g);
		bc_results_free(&res);
	}
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
		cmocka_unit_test(test_bound_powers_and_edges),
		cmocka_unit_test(test_open_last_bucket),
		cmocka_unit_test(test_clamp_every_bucket),
		cmocka_unit_test(test_code_round_trip),
		cmocka_unit_test(test_code_merge),
		cmocka_unit_test(test_merged_is_union),
		cmocka_unit_test(test_code_hostile),
		cmocka_unit_test(test_case_latency_hist),
		cmocka_unit_test(test_group_merged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
