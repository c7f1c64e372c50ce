/* Log-linear latency histogram (HDR style), in nanoseconds.
 *
 * Values below 128 have a bucket each; above, every power of two is split into
 * 128 equal buckets, so a bucket is at most 1/128 of its lower bound wide and
 * the midpoint we report is within 0.4% of any value in it. The range is
 * 0 .. 2^44 ns (about 4.9 hours); larger values land in the last bucket.
 * A histogram is written by one thread; others may read it (relaxed loads)
 * for interval snapshots. Merging is bucket-wise addition.
 */
#ifndef BC_HIST_H
#define BC_HIST_H
#include <stdint.h>

#define BC_HIST_SUB_BITS	7
#define BC_HIST_SUB		(1u << BC_HIST_SUB_BITS)
#define BC_HIST_MAX_EXP		44
#define BC_HIST_BUCKETS		(BC_HIST_SUB + (BC_HIST_MAX_EXP - BC_HIST_SUB_BITS) * BC_HIST_SUB)

typedef struct bc_hist {
	uint64_t b[BC_HIST_BUCKETS];
} bc_hist;

static inline unsigned bc_hist_index(uint64_t v)
{
	if (v < BC_HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);
	if (e >= BC_HIST_MAX_EXP)
		return BC_HIST_BUCKETS - 1;
	unsigned sub = (unsigned)(v >> (e - BC_HIST_SUB_BITS)) - BC_HIST_SUB;
	return BC_HIST_SUB + (e - BC_HIST_SUB_BITS) * BC_HIST_SUB + sub;
}

/* Single writer: the store is atomic so a concurrent reader sees whole counts. */
static inline void bc_hist_add(bc_hist *h, uint64_t v)
{
	uint64_t *c = &h->b[bc_hist_index(v)];
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

uint64_t bc_hist_bucket_low(unsigned idx);
uint64_t bc_hist_bucket_mid(unsigned idx);
/* dst += src (src may be written concurrently: relaxed loads). */
void bc_hist_merge(bc_hist *dst, const bc_hist *src);
/* dst = a - b, bucket-wise (a is a later snapshot of the same counters as b). */
void bc_hist_diff(bc_hist *dst, const bc_hist *a, const bc_hist *b);
uint64_t bc_hist_total(const bc_hist *h);
/* The p-th percentile (0 < p <= 100): the midpoint of the bucket holding the
   value of rank ceil(p/100 * n), clamped to [min, max] (in the open-ended
   last bucket: max). 0 when empty. */
uint64_t bc_hist_percentile(const bc_hist *h, double p, uint64_t min, uint64_t max);
#endif
