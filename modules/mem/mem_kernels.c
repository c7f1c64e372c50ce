/* Inner loops of the mem module; see mem_kernels.h for the contract. */
#include "mem_kernels.h"

/* 32 bytes, any alignment: a block may start anywhere when block_size is not
   a multiple of 32 and buffer_size holds several blocks. */
typedef uint64_t mem_v4 __attribute__((vector_size(32), aligned(1), may_alias));
typedef uint64_t mem_u64 __attribute__((aligned(1), may_alias));

/* Built twice and picked at load time by the CPU (GCC ifunc): with AVX2 a
   32-byte access is one instruction, without it two SSE2 ones. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MEM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MEM_CLONES
#endif

MEM_CLONES
uint64_t mem_seq_read_vec(const char *p, size_t len)
{
	/* Four independent accumulators: the XOR that keeps each load alive
	   must not become the bottleneck (one XOR chain = one load per cycle). */
	mem_v4 a = {0}, b = {0}, c = {0}, d = {0};
	size_t i = 0;

	for (; i + 128 <= len; i += 128) {
		a ^= *(const mem_v4 *)(p + i);
		b ^= *(const mem_v4 *)(p + i + 32);
		c ^= *(const mem_v4 *)(p + i + 64);
		d ^= *(const mem_v4 *)(p + i + 96);
	}
	for (; i + 32 <= len; i += 32)
		a ^= *(const mem_v4 *)(p + i);
	a ^= b ^ c ^ d;
	uint64_t r = a[0] ^ a[1] ^ a[2] ^ a[3];
	for (; i + 8 <= len; i += 8)
		r ^= *(const mem_u64 *)(p + i);
	for (; i < len; i++)
		r ^= (unsigned char)p[i];
	return r;
}

MEM_CLONES
void mem_seq_write_vec(char *p, size_t len, uint64_t val)
{
	/* Lanes differ, so the loop is not a byte pattern GCC could turn into
	   a memset call: we measure our stores, not the libc's strategy. */
	const mem_v4 v = {val, val + 1, val + 2, val + 3};
	size_t i = 0;

	for (; i + 128 <= len; i += 128) {
		*(mem_v4 *)(p + i) = v;
		*(mem_v4 *)(p + i + 32) = v;
		*(mem_v4 *)(p + i + 64) = v;
		*(mem_v4 *)(p + i + 96) = v;
	}
	for (; i + 32 <= len; i += 32)
		*(mem_v4 *)(p + i) = v;
	for (; i + 8 <= len; i += 8)
		*(mem_u64 *)(p + i) = val;
	for (; i < len; i++)
		p[i] = (char)val;
}

uint64_t mem_seq_read_word(const char *p, size_t len)
{
	/* A volatile load cannot be dropped even when its value is unused, so
	   no XOR chain throttles the loads (sysbench discards them the same
	   way). Unrolled by one cache line so the loop branch is not the limit. */
	const volatile mem_u64 *w = (const volatile mem_u64 *)p;
	size_t i = 0, n = len / 8;

	for (; i + 8 <= n; i += 8) {
		(void)w[i];
		(void)w[i + 1];
		(void)w[i + 2];
		(void)w[i + 3];
		(void)w[i + 4];
		(void)w[i + 5];
		(void)w[i + 6];
		(void)w[i + 7];
	}
	for (; i < n; i++)
		(void)w[i];
	for (i = n * 8; i < len; i++)
		(void)((const volatile char *)p)[i];
	return 0;
}

void mem_seq_write_word(char *p, size_t len, uint64_t val)
{
	volatile mem_u64 *w = (volatile mem_u64 *)p;
	size_t i = 0, n = len / 8;

	for (; i + 8 <= n; i += 8) {
		w[i] = val;
		w[i + 1] = val;
		w[i + 2] = val;
		w[i + 3] = val;
		w[i + 4] = val;
		w[i + 5] = val;
		w[i + 6] = val;
		w[i + 7] = val;
	}
	for (; i < n; i++)
		w[i] = val;
	for (i = n * 8; i < len; i++)
		((volatile char *)p)[i] = (char)val;
}

void mem_seq_copy_word(char *dst, const char *src, size_t len)
{
	size_t i = 0;

	for (; i + 8 <= len; i += 8)
		*(volatile mem_u64 *)(dst + i) = *(const volatile mem_u64 *)(src + i);
	for (; i < len; i++)
		((volatile char *)dst)[i] = ((const volatile char *)src)[i];
}

uint64_t mem_seq_none(size_t len)
{
	uint64_t r = 0;

	for (size_t i = 0; i + 8 <= len; i += 8) {
		/* An empty barrier per word: the loop runs, nothing is touched. */
		__asm__ volatile("" : "+r"(r));
		r += i;
	}
	return r;
}

/* splitmix64: the state advances by one add (a one-cycle dependency chain),
   the mixing is off the chain, so consecutive random accesses are
   independent and the memory system, not the generator, sets the pace. */
static inline size_t mem_rnd_index(uint64_t *s, size_t nwords)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z ^= z >> 27;
	return (size_t)(((unsigned __int128)z * nwords) >> 64);
}

uint64_t mem_rnd_read(const char *p, size_t nwords, size_t n, uint64_t *rng)
{
	const mem_u64 *w = (const mem_u64 *)p;
	uint64_t r = 0;

	for (size_t i = 0; i < n; i++)
		r ^= w[mem_rnd_index(rng, nwords)];
	return r;
}

void mem_rnd_write(char *p, size_t nwords, size_t n, uint64_t *rng)
{
	mem_u64 *w = (mem_u64 *)p;

	for (size_t i = 0; i < n; i++)
		w[mem_rnd_index(rng, nwords)] = i;
}

void mem_rnd_copy(char *dst, const char *src, size_t nwords, size_t n, uint64_t *rng)
{
	mem_u64 *d = (mem_u64 *)dst;
	const mem_u64 *s = (const mem_u64 *)src;

	for (size_t i = 0; i < n; i++) {
		size_t k = mem_rnd_index(rng, nwords);
		d[k] = s[k];
	}
}

uint64_t mem_rnd_none(size_t nwords, size_t n, uint64_t *rng)
{
	uint64_t r = 0;

	for (size_t i = 0; i < n; i++)
		r += mem_rnd_index(rng, nwords);
	return r;
}
