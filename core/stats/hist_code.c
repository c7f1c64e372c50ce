/* The histogram's compact, mergeable encoding (hist.h, docs/results.md
 * "latency_hist"). A case's histogram is 4,864 buckets of which a few
 * hundred are used, so the buckets are written in order with the empty
 * ones as runs: zig-zag LEB128 varints (a count > 0 as itself, k empty
 * buckets as -k), the empty tail left out, base64 as text. The reader
 * (bc_hist_code_from_text) takes hostile text: every varint, bucket index
 * and sum is checked before it is used, and nothing is allocated past the
 * bounds a valid histogram has. */
#include <stdlib.h>
#include <string.h>
#include "hist.h"

static void put_byte(bc_hist_code *c, uint8_t b)
{
	if (c->len == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->buf = realloc(c->buf, c->cap);
		if (!c->buf)
			abort();	/* out of memory: as bc_xrealloc */
	}
	c->buf[c->len++] = b;
}

static void put_varint(bc_hist_code *c, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);	/* zig-zag: small magnitudes, few bytes */
	do {
		uint8_t b = z & 0x7f;
		z >>= 7;
		put_byte(c, (uint8_t)(b | (z ? 0x80 : 0)));
	} while (z);
}

void bc_hist_code_put(bc_hist_code *c, unsigned idx, uint64_t n)
{
	if (!n || idx < c->next || idx >= BC_HIST_BUCKETS)
		return;
	if (idx > c->next)
		put_varint(c, -(int64_t)(idx - c->next));
	put_varint(c, n > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n);
	c->next = idx + 1;
	c->total += n;
}

void bc_hist_encode(const bc_hist *h, bc_hist_code *c)
{
	*c = (bc_hist_code){ 0 };
	for (unsigned i = 0; i < BC_HIST_BUCKETS; i++)
		bc_hist_code_put(c, i, __atomic_load_n(&h->b[i], __ATOMIC_RELAXED));
}

void bc_hist_code_free(bc_hist_code *c)
{
	free(c->buf);
	*c = (bc_hist_code){ 0 };
}

/* ---------------------------------------------------------------- reading */

typedef struct {
	const uint8_t *p, *end;
	unsigned idx;		/* the next bucket */
	const char *why;
} hist_it;

static hist_it it_of(const bc_hist_code *c)
{
	return (hist_it){ c->buf, c->buf ? c->buf + c->len : NULL, 0, NULL };	/* NULL + 0 is undefined */
}

/* The next varint: 1 and *v, 0 at the end, -1 malformed. */
static int get_varint(hist_it *it, int64_t *v)
{
	uint64_t z = 0;
	if (it->p == it->end)
		return 0;
	for (unsigned shift = 0;; shift += 7) {
		if (it->p == it->end) {
			it->why = "a varint cut short";
			return -1;
		}
		uint8_t b = *it->p++;
		if (shift == 63 && b > 1) {
			it->why = "a varint longer than 64 bits";
			return -1;
		}
		z |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	*v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	return 1;
}

/* The next used bucket: 1 with *idx and *n (> 0), 0 at the end, -1 malformed. */
static int next_bucket(hist_it *it, unsigned *idx, uint64_t *n)
{
	int64_t v;
	int rc;
	while ((rc = get_varint(it, &v)) > 0) {
		if (v == 0) {
			it->why = "a count of 0 (an empty bucket is written as a run)";
			return -1;
		}
		uint64_t k = v < 0 ? (uint64_t)-(v + 1) + 1 : 1;	/* -INT64_MIN without overflow */
		if (k > BC_HIST_BUCKETS - it->idx) {
			it->why = "buckets past the layout's last (2^44 ns)";
			return -1;
		}
		if (v < 0) {
			it->idx += (unsigned)k;
			continue;
		}
		*idx = it->idx++;
		*n = (uint64_t)v;
		return 1;
	}
	return rc;
}

/* Walks c's buckets: each one to fn (when not NULL); the total checked. */
static int walk(const bc_hist_code *c, void (*fn)(void *, unsigned, uint64_t), void *arg,
		uint64_t *total, const char **why)
{
	hist_it it = it_of(c);
	unsigned idx;
	uint64_t n, sum = 0;
	int rc;
	while ((rc = next_bucket(&it, &idx, &n)) > 0) {
		if (n > UINT64_MAX - sum) {
			*why = "counts whose sum passes 2^64";
			return -1;
		}
		sum += n;
		if (fn)
			fn(arg, idx, n);
	}
	if (rc < 0) {
		*why = it.why;
		return -1;
	}
	*total = sum;
	return 0;
}

static int b64_value(unsigned char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* Strict base64 (RFC 4648, padded): -1 on any other character or length. */
static int b64_decode(const char *t, size_t len, bc_hist_code *c, const char **why)
{
	if (len % 4) {
		*why = "base64 whose length is not a multiple of 4";
		return -1;
	}
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;
		for (int j = 0; j < 4; j++) {
			int last = i + 4 == len;
			if (last && j >= 2 && t[i + j] == '=' && (j == 3 || t[i + 3] == '=')) {
				v[j] = 0;
				pad++;
			} else if ((v[j] = b64_value((unsigned char)t[i + j])) < 0) {
				*why = "a character that is not base64";
				return -1;
			}
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
		put_byte(c, (uint8_t)(w >> 16));
		if (pad < 2)
			put_byte(c, (uint8_t)(w >> 8));
		if (pad < 1)
			put_byte(c, (uint8_t)w);
	}
	return 0;
}

int bc_hist_code_from_text(const char *text, size_t len, bc_hist_code *c, const char **why)
{
	*c = (bc_hist_code){ 0 };
	if (len > BC_HIST_TEXT_MAX) {
		*why = "longer than any histogram of this layout";
		return -1;
	}
	uint64_t total;
	if (b64_decode(text, len, c, why) < 0 || walk(c, NULL, NULL, &total, why) < 0) {
		bc_hist_code_free(c);
		return -1;
	}
	c->total = total;
	c->next = BC_HIST_BUCKETS;	/* complete: put() adds nothing more */
	return 0;
}

char *bc_hist_code_text(const bc_hist_code *c)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *t = malloc((c->len + 2) / 3 * 4 + 1), *o = t;
	if (!t)
		abort();
	for (size_t i = 0; i < c->len; i += 3) {
		size_t left = c->len - i;
		uint32_t w = (uint32_t)c->buf[i] << 16 | (left > 1 ? (uint32_t)c->buf[i + 1] << 8 : 0) |
			     (left > 2 ? c->buf[i + 2] : 0);
		*o++ = abc[w >> 18 & 63];
		*o++ = abc[w >> 12 & 63];
		*o++ = left > 1 ? abc[w >> 6 & 63] : '=';
		*o++ = left > 2 ? abc[w & 63] : '=';
	}
	*o = '\0';
	return t;
}

static void set_bucket(void *arg, unsigned idx, uint64_t n)
{
	((bc_hist *)arg)->b[idx] = n;
}

int bc_hist_decode(const bc_hist_code *c, bc_hist *h, const char **why)
{
	uint64_t total;
	memset(h, 0, sizeof(*h));
	return walk(c, set_bucket, h, &total, why);
}

int bc_hist_code_merge(bc_hist_code *dst, const bc_hist_code *src)
{
	hist_it a = it_of(dst), b = it_of(src);
	unsigned ia = 0, ib = 0;
	uint64_t na = 0, nb = 0;
	int ha = next_bucket(&a, &ia, &na), hb = next_bucket(&b, &ib, &nb);
	bc_hist_code out = { 0 };
	while (ha > 0 || hb > 0) {
		unsigned idx = ha > 0 && (hb <= 0 || ia <= ib) ? ia : ib;
		uint64_t n = 0, add = 0;
		if (ha > 0 && ia == idx) {
			n = na;
			ha = next_bucket(&a, &ia, &na);
		}
		if (hb > 0 && ib == idx) {
			add = nb;
			hb = next_bucket(&b, &ib, &nb);
		}
		if (add > (uint64_t)INT64_MAX - n || n + add > UINT64_MAX - out.total) {
			bc_hist_code_free(&out);
			return -1;
		}
		bc_hist_code_put(&out, idx, n + add);
	}
	if (ha < 0 || hb < 0) {	/* unchecked bytes: never merged into a lie */
		bc_hist_code_free(&out);
		return -1;
	}
	bc_hist_code_free(dst);
	*dst = out;
	return 0;
}

uint64_t bc_hist_code_percentile(const bc_hist_code *c, double p, uint64_t min, uint64_t max)
{
	hist_it it = it_of(c);
	unsigned idx;
	uint64_t n, seen = 0, v = max;
	if (!c->total)
		return 0;
	uint64_t rank = bc_hist_rank(c->total, p);
	while (next_bucket(&it, &idx, &n) > 0) {
		seen += n;
		if (seen >= rank) {
			v = bc_hist_bucket_value(idx, max);
			break;
		}
	}
	return v < min ? min : v > max ? max : v;
}
