/*
 * Block stamps for verify = true, and short names for errno values.
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
