/*
 * The inner loops of the mem module: one call touches one block.
 *
 * Kept apart from mem.c so the hot code is small and easy to read in a
 * disassembler. Every function is pure with respect to the module state: it
 * works on the pointers it is given and returns a value the caller folds into
 * a per-thread sink, so the compiler can neither drop the loads nor the
 * stores (the buffers are heap memory that escapes, the sink is stored).
 * Called only from the worker thread that owns the block's cursor.
 */
#ifndef MEM_KERNELS_H
#define MEM_KERNELS_H
#include <stddef.h>
#include <stdint.h>

/* Sequential pass with 32-byte vector accesses (AVX2 when the CPU has it,
   two SSE2 accesses otherwise), then 8-byte words, then bytes for any tail. */
uint64_t mem_seq_read_vec(const char *p, size_t len);
void mem_seq_write_vec(char *p, size_t len, uint64_t val);
/* Sequential pass with one 8-byte volatile access per word: the access
   pattern of sysbench memory (width=word). */
uint64_t mem_seq_read_word(const char *p, size_t len);
void mem_seq_write_word(char *p, size_t len, uint64_t val);
void mem_seq_copy_word(char *dst, const char *src, size_t len);
/* A loop over the block's words that touches no memory (oper=none). */
uint64_t mem_seq_none(size_t len);

/* n random 8-byte word accesses among nwords words of p; *rng is the
   thread's generator state. */
uint64_t mem_rnd_read(const char *p, size_t nwords, size_t n, uint64_t *rng);
void mem_rnd_write(char *p, size_t nwords, size_t n, uint64_t *rng);
void mem_rnd_copy(char *dst, const char *src, size_t nwords, size_t n, uint64_t *rng);
uint64_t mem_rnd_none(size_t nwords, size_t n, uint64_t *rng);

#endif
