/*
 * benchcore SDK helper: buffers on transparent huge pages (mem's and io's
 * hugepages = true). Part of the SDK, installed beside module.h, for any
 * module whose buffers should not pay TLB misses a user did not ask for.
 *
 * Header-only (static inline): each module .so gets its own copy and stays
 * self-contained; nothing of benchcore is linked. Needs the C library's
 * mmap/madvise with MAP_ANONYMOUS: compile with -D_GNU_SOURCE (module.mk
 * does) or -D_DEFAULT_SOURCE; strict ISO C hides them and this header says so.
 * Any thread; no state.
 */
#ifndef BENCHCORE_HUGEPAGE_H
#define BENCHCORE_HUGEPAGE_H
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#ifndef MAP_ANONYMOUS
#error "benchcore/hugepage.h needs MAP_ANONYMOUS: compile with -D_GNU_SOURCE (or -D_DEFAULT_SOURCE)"
#endif

#define BENCH_HUGE_PAGE ((size_t)2 << 20)

/* Maps len bytes rounded up to whole 2 MiB pages, 2 MiB-aligned (over-mapped,
   the slack unmapped again) and advised MADV_HUGEPAGE, a hint the kernel may
   refuse. *map_len gets what to munmap. Returns MAP_FAILED on failure. */
static inline void *bench_thp_map(size_t len, size_t *map_len)
{
	size_t size = (len + BENCH_HUGE_PAGE - 1) / BENCH_HUGE_PAGE * BENCH_HUGE_PAGE;
	char *m = mmap(NULL, size + BENCH_HUGE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return MAP_FAILED;
	size_t lead = (BENCH_HUGE_PAGE - (uintptr_t)m % BENCH_HUGE_PAGE) % BENCH_HUGE_PAGE;
	if (lead)
		munmap(m, lead);
	if (BENCH_HUGE_PAGE > lead)
		munmap(m + lead + size, BENCH_HUGE_PAGE - lead);
#ifdef MADV_HUGEPAGE
	(void)madvise(m + lead, size, MADV_HUGEPAGE);
#endif
	*map_len = size;
	return m + lead;
}

/* Whether the mapping holding p has transparent huge pages now (from smaps). */
static inline int bench_thp_backed(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	int in = 0, huge = 0;
	uintptr_t a = (uintptr_t)p;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, kb;
		/* a mapping's header: "lo-hi perms ..."; its fields follow */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = a >= lo && a < hi;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			huge = kb > 0;
			break;
		}
	}
	fclose(f);
	return huge;
}
#endif
