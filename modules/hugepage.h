/* Transparent-huge-page buffers, shared by the modules of this tree (mem,
 * io); header-only, so each module .so keeps its own copy and stays
 * self-contained. Not part of the SDK. */
#ifndef BC_MODULES_HUGEPAGE_H
#define BC_MODULES_HUGEPAGE_H
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#define MOD_HUGE_PAGE ((size_t)2 << 20)

/* Maps len bytes rounded up to whole 2 MiB pages, 2 MiB-aligned (over-mapped,
   the slack unmapped again) and advised MADV_HUGEPAGE, a hint the kernel may
   refuse. *map_len gets what to munmap. Returns MAP_FAILED on failure. */
static inline void *mod_thp_map(size_t len, size_t *map_len)
{
	size_t size = (len + MOD_HUGE_PAGE - 1) / MOD_HUGE_PAGE * MOD_HUGE_PAGE;
	char *m = mmap(NULL, size + MOD_HUGE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return MAP_FAILED;
	size_t lead = (MOD_HUGE_PAGE - (uintptr_t)m % MOD_HUGE_PAGE) % MOD_HUGE_PAGE;
	if (lead)
		munmap(m, lead);
	if (MOD_HUGE_PAGE > lead)
		munmap(m + lead + size, MOD_HUGE_PAGE - lead);
	(void)madvise(m + lead, size, MADV_HUGEPAGE);
	*map_len = size;
	return m + lead;
}

/* Whether the mapping holding p has transparent huge pages now (from smaps). */
static inline int mod_thp_backed(const void *p)
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
