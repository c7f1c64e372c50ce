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
#include <stddef.h>
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
/* The rank (1..n) of the p-th percentile of n values: ceil(p/100 * n). */
uint64_t bc_hist_rank(uint64_t n, double p);
/* What a percentile reports of bucket idx: its midpoint, or max in the
   open-ended last bucket (before the clamp to [min, max]). */
uint64_t bc_hist_bucket_value(unsigned idx, uint64_t max);

/* The compact, mergeable encoding (hist_code.c; docs/results.md
 * "latency_hist"), after HdrHistogram's compressed form: the buckets in
 * index order as zig-zag LEB128 varints, a count > 0 as itself and a run of
 * k empty buckets as -k, the empty tail left out; as text, base64. A
 * bc_hist_code owns its bytes (free with bc_hist_code_free); one thread. A
 * count above INT64_MAX (no run records that many) is written as INT64_MAX. */
#define BC_HIST_ENCODING	"loglin-zigzag-leb128-base64"
#define BC_HIST_BYTES_MAX	(BC_HIST_BUCKETS * 10u)			/* every bucket a 10-byte count */
#define BC_HIST_TEXT_MAX	((BC_HIST_BYTES_MAX + 2) / 3 * 4)	/* its base64 */

typedef struct bc_hist_code {
	uint8_t *buf;
	size_t len, cap;
	unsigned next;		/* the bucket after the last one written */
	uint64_t total;		/* the sum of the counts */
} bc_hist_code;

/* Appends n (> 0) records in bucket idx (>= c->next, < BC_HIST_BUCKETS). */
void bc_hist_code_put(bc_hist_code *c, unsigned idx, uint64_t n);
/* c = the encoding of h (c zeroed or freed before). */
void bc_hist_encode(const bc_hist *h, bc_hist_code *c);
void bc_hist_code_free(bc_hist_code *c);
/* Base64 of c's bytes, malloc'd ("" when empty). */
char *bc_hist_code_text(const bc_hist_code *c);
/* Text (len characters) into c, checked: base64 of at most BC_HIST_TEXT_MAX
   characters, varints of at most 64 bits, buckets inside the layout, counts
   whose sum fits 64 bits. 0, or -1 with *why a short reason (c freed). */
int bc_hist_code_from_text(const char *text, size_t len, bc_hist_code *c, const char **why);
/* Bytes (as bc_hist_code_from_text checks them) into h (zeroed first). */
int bc_hist_decode(const bc_hist_code *c, bc_hist *h, const char **why);
/* dst = dst + src, bucket-wise, never through a whole bc_hist. -1 (dst
   unchanged) when a bucket's count would pass INT64_MAX or the total's
   UINT64_MAX. */
int bc_hist_code_merge(bc_hist_code *dst, const bc_hist_code *src);
/* bc_hist_percentile of the histogram c encodes (c checked). */
uint64_t bc_hist_code_percentile(const bc_hist_code *c, double p, uint64_t min, uint64_t max);
#endif
