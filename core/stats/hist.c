/* Log-linear histogram: bucket bounds, merging and percentiles. */
#include <math.h>
#include "hist.h"

uint64_t bc_hist_bucket_low(unsigned idx)
{
	if (idx < BC_HIST_SUB)
		return idx;
	unsigned k = idx - BC_HIST_SUB;
	unsigned e = k / BC_HIST_SUB + BC_HIST_SUB_BITS;
	uint64_t sub = BC_HIST_SUB + k % BC_HIST_SUB;
	return sub << (e - BC_HIST_SUB_BITS);
}

uint64_t bc_hist_bucket_mid(unsigned idx)
{
	if (idx < BC_HIST_SUB)
		return idx;
	unsigned e = (idx - BC_HIST_SUB) / BC_HIST_SUB + BC_HIST_SUB_BITS;
	uint64_t width = 1ull << (e - BC_HIST_SUB_BITS);
	return bc_hist_bucket_low(idx) + (width - 1) / 2;
}

void bc_hist_merge(bc_hist *dst, const bc_hist *src)
{
	for (unsigned i = 0; i < BC_HIST_BUCKETS; i++)
		dst->b[i] += __atomic_load_n(&src->b[i], __ATOMIC_RELAXED);
}

void bc_hist_diff(bc_hist *dst, const bc_hist *a, const bc_hist *b)
{
	for (unsigned i = 0; i < BC_HIST_BUCKETS; i++)
		dst->b[i] = a->b[i] >= b->b[i] ? a->b[i] - b->b[i] : 0;
}

uint64_t bc_hist_total(const bc_hist *h)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < BC_HIST_BUCKETS; i++)
		n += h->b[i];
	return n;
}

uint64_t bc_hist_rank(uint64_t n, double p)
{
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return rank;
}

uint64_t bc_hist_bucket_value(unsigned idx, uint64_t max)
{
	/* the last bucket is open-ended (everything past 2^44 ns): its
	   midpoint says nothing, the recorded maximum is in it */
	return idx == BC_HIST_BUCKETS - 1 ? max : bc_hist_bucket_mid(idx);
}

uint64_t bc_hist_percentile(const bc_hist *h, double p, uint64_t min, uint64_t max)
{
	uint64_t n = bc_hist_total(h);
	if (n == 0)
		return 0;
	uint64_t rank = bc_hist_rank(n, p);
	uint64_t seen = 0, v = max;
	for (unsigned i = 0; i < BC_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			v = bc_hist_bucket_value(i, max);
			break;
		}
	}
	if (v < min)
		v = min;
	if (v > max)
		v = max;
	return v;
}
