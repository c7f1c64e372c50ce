/*
 * Block stamps for verify = true, and the submission-latency histogram.
 *
 * Every 512-byte sector written with verify on carries its own file offset, a
 * write generation, pseudo-random filler derived from both, and a checksum
 * over the whole sector. A read checks each sector on its own, so the block
 * size used to read need not match the one used to write, and a sector that
 * landed at the wrong offset is caught as surely as a flipped bit.
 */
#include <errno.h>
#include <string.h>

#include "io.h"

#define IO_STAMP_MAGIC	0x6263696f7374616dull	/* "bciostam" */

struct io_stamp_hdr {
	uint64_t magic;
	uint64_t offset;
	uint64_t gen;
	uint64_t sum;		/* io_hash of the sector with sum = 0 */
};

static inline uint64_t io_rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* A fast non-cryptographic 64-bit hash over whole words plus a byte tail. */
uint64_t io_hash(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *c = p;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ull), w;

	for (; len >= 8; len -= 8, c += 8) {
		memcpy(&w, c, 8);
		h = io_rotl(h ^ (w * 0xff51afd7ed558ccdull), 29) * 0xc4ceb9fe1a85ec53ull;
	}
	for (; len; len--, c++)
		h = (h ^ *c) * 0x100000001b3ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static void io_stamp_sector(unsigned char *sec, uint64_t off, uint64_t gen)
{
	struct io_stamp_hdr hdr = { IO_STAMP_MAGIC, off, gen, 0 };
	uint64_t x = (off ^ io_rotl(gen, 32)) | 1;

	for (size_t i = sizeof(hdr); i < IO_SECTOR; i += 8) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;	/* xorshift64 */
		memcpy(sec + i, &x, 8);
	}
	memcpy(sec, &hdr, sizeof(hdr));
	hdr.sum = io_hash(sec, IO_SECTOR, 0);
	memcpy(sec, &hdr, sizeof(hdr));
}

void io_stamp(unsigned char *buf, uint64_t len, uint64_t off, uint64_t gen)
{
	for (uint64_t i = 0; i + IO_SECTOR <= len; i += IO_SECTOR)
		io_stamp_sector(buf + i, off + i, gen);
}

uint64_t io_check(const unsigned char *buf, uint64_t len, uint64_t off)
{
	unsigned char sec[IO_SECTOR];
	struct io_stamp_hdr hdr;

	for (uint64_t i = 0; i + IO_SECTOR <= len; i += IO_SECTOR) {
		memcpy(sec, buf + i, IO_SECTOR);
		memcpy(&hdr, sec, sizeof(hdr));
		uint64_t want = hdr.sum;
		hdr.sum = 0;
		memcpy(sec, &hdr, sizeof(hdr));
		if (hdr.magic != IO_STAMP_MAGIC || hdr.offset != off + i ||
		    io_hash(sec, IO_SECTOR, 0) != want)
			return off + i;
	}
	return UINT64_MAX;
}

/*
 * Histogram buckets: values below 128 ns are exact; above, each power of two
 * is split into 64 linear steps, so a bucket's midpoint is within 1/128 of any
 * value in it. Values beyond 2^42 ns (73 minutes) share the last bucket.
 */
static unsigned io_hist_index(uint64_t v)
{
	if (v < 128)
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	if (msb > 42)
		return IO_HIST_BUCKETS - 1;
	unsigned m = (unsigned)(v >> (msb - 6)) - 64u;
	return 128u + (msb - 7u) * 64u + m;
}

static uint64_t io_hist_mid(unsigned idx)
{
	if (idx < 128)
		return idx;
	unsigned msb = (idx - 128u) / 64u + 7u, m = (idx - 128u) % 64u + 64u;
	uint64_t lo = (uint64_t)m << (msb - 6), width = 1ull << (msb - 6);
	return lo + width / 2;
}

void io_hist_add(struct io_hist *h, uint64_t v)
{
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->b[io_hist_index(v)]++;
}

void io_hist_merge(struct io_hist *dst, const struct io_hist *src)
{
	if (!src->count)
		return;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (unsigned i = 0; i < IO_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

/* The value at percentile pct, kept inside [min, max]. */
uint64_t io_hist_pct(const struct io_hist *h, double pct)
{
	if (!h->count)
		return 0;
	uint64_t rank = (uint64_t)(pct / 100.0 * (double)h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0, v = h->max;
	for (unsigned i = 0; i < IO_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			v = io_hist_mid(i);
			break;
		}
	}
	return v < h->min ? h->min : v > h->max ? h->max : v;
}

/* A short static name for an errno, for record_error()'s kind. */
const char *io_errkind(int err)
{
	switch (err) {
	case EIO:	return "EIO";
	case ENOSPC:	return "ENOSPC";
	case EINVAL:	return "EINVAL";
	case EAGAIN:	return "EAGAIN";
	case EBADF:	return "EBADF";
	case EFAULT:	return "EFAULT";
	case EROFS:	return "EROFS";
	case EDQUOT:	return "EDQUOT";
	case ENXIO:	return "ENXIO";
	case ETIMEDOUT:	return "ETIMEDOUT";
	default:	return "error";
	}
}
