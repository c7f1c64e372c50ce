/* Cache sizes for the fingerprint and for modules (host API cache_size).

   Three sources, most trusted first: the kernel's sysfs view
   (cpuN/cache/indexM), CPUID's deterministic cache parameters (Intel leaf 4,
   AMD leaf 0x8000001D), and glibc's sysconf (which on AMD reads the legacy
   leaf 0x80000006: a whole socket's L3, not the instance a CPU uses).
   Virtual machines hide or invent these: a Firecracker guest may have no
   sysfs cache directory at all while sysconf answers a 508 MiB L3 on two
   vCPUs. So every figure passes bc_cache_plausible() before it is used, and
   an answer says which source it came from.

   Nothing here keeps state: every call reads the sources again, so any
   thread may call it (the host API promises that). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "sysinfo.h"

#define KIB		1024ull
#define MIB		(1024ull * KIB)
#define GIB		(1024ull * MIB)
#define CACHE_MAX	16		/* descriptions per source */

/* Largest plausible share of one cache per logical CPU of this machine.
   Bare metal stays far below: AMD's 3D V-Cache parts have 96 MiB per 8
   cores (12 MiB each), Intel's largest L3 ~4 MiB per core. Only a small VM
   sees more, and then it is either a socket's total passed through by the
   hypervisor (this kind of VM: sysconf 256 MiB on 2 vCPUs, the real
   instance 32 MiB) or a cache shared with CPUs it does not own, whose size
   says nothing about what its buffers will find there. */
#define CACHE_MAX_PER_CPU	(64 * MIB)

enum { SRC_SYSFS, SRC_CPUID, SRC_SYSCONF, SRC_N };
static const char *const src_names[SRC_N] = { "sysfs", "cpuid", "sysconf" };

/* One cache as one source describes it (bytes per instance). */
struct cache_desc {
	unsigned level;
	char type;		/* 'd' data, 'i' instruction, 'u' unified */
	uint64_t bytes;
};

struct cache_view {
	struct cache_desc d[SRC_N][CACHE_MAX];
	int n[SRC_N];
	uint64_t ram;
	unsigned cpus;
};

const char *bc_sysinfo_cpu_root(void)
{
	const char *r = getenv("BENCHCORE_SYSFS_CPU");
	return r && *r ? r : "/sys/devices/system/cpu";
}

int bc_cache_plausible(unsigned level, uint64_t bytes, uint64_t ram, unsigned cpus)
{
	/* Per instance: L1 is tens of KiB, the largest L2 (IBM Telum) 32 MiB,
	   the largest L3 instance (Intel Granite Rapids) about 504 MiB. */
	static const uint64_t cap[] = { 0, 1 * MIB, 64 * MIB, 2 * GIB, 4 * GIB };

	if (level < 1 || level > 4 || bytes < 1 * KIB || bytes > cap[level])
		return 0;
	/* A cache bigger than a quarter of RAM leaves a memory benchmark no
	   room to measure memory, and no real machine is built that way. */
	if (ram && bytes > ram / 4)
		return 0;
	if (cpus && bytes > CACHE_MAX_PER_CPU * cpus)
		return 0;
	return 1;
}

uint64_t bc_cpuid_cache_decode(uint32_t eax, uint32_t ebx, uint32_t ecx, unsigned *level,
			       char *type)
{
	/* Same layout in Intel leaf 4 and AMD leaf 0x8000001D. */
	static const char types[] = { 0, 'd', 'i', 'u' };
	unsigned t = eax & 0x1f;
	uint64_t line = (ebx & 0xfff) + 1, parts = ((ebx >> 12) & 0x3ff) + 1;
	uint64_t ways = ((ebx >> 22) & 0x3ff) + 1, sets = (uint64_t)ecx + 1;

	*level = (eax >> 5) & 7;
	*type = t < 4 ? types[t] : 0;
	return *type ? line * parts * ways * sets : 0;
}

static void add(struct cache_view *v, int src, unsigned level, char type, uint64_t bytes)
{
	if (level >= 1 && level <= 4 && type && bytes && v->n[src] < CACHE_MAX)
		v->d[src][v->n[src]++] = (struct cache_desc){ level, type, bytes };
}

/* "32K", "32768K", "1M", "512": the format of sysfs cache sizes. */
static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	switch (*end) {
	case 'K': return v * KIB;
	case 'M': return v * MIB;
	case 'G': return v * GIB;
	default: return end == s ? 0 : v;
	}
}

static int read_word(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(f = fopen(path, "re")))
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[ok ? strcspn(buf, "\n") : 0] = 0;
	return ok ? 0 : -1;
}

static void read_sysfs(struct cache_view *v)
{
	const char *root = bc_sysinfo_cpu_root();

	for (int i = 0; i < CACHE_MAX; i++) {
		char dir[4096], type[32], level[16], size[32];
		snprintf(dir, sizeof(dir), "%s/cpu0/cache/index%d", root, i);
		if (read_word(dir, "type", type, sizeof(type)) < 0)
			break;
		if (read_word(dir, "level", level, sizeof(level)) < 0 ||
		    read_word(dir, "size", size, sizeof(size)) < 0)
			continue;
		char t = strcmp(type, "Data") == 0 ? 'd' : strcmp(type, "Instruction") == 0 ? 'i' :
			 strcmp(type, "Unified") == 0 ? 'u' : 0;
		add(v, SRC_SYSFS, (unsigned)atoi(level), t, parse_size(size));
	}
}

/* BENCHCORE_NO_CPUID (a test hook, docs/results.md): "1" hides CPUID and
   sysconf; a number of bytes also hides them, except that sysconf's L3
   answers that number, as a hypervisor that invents one would. */
static uint64_t no_cpuid(int *set)
{
	const char *e = getenv("BENCHCORE_NO_CPUID");

	*set = e && *e && strcmp(e, "0") != 0;
	return *set ? strtoull(e, NULL, 10) : 0;
}

static void read_cpuid(struct cache_view *v)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d, leaf = 4;

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	/* "AuthenticAMD" and "HygonGenuine" describe caches in 0x8000001D,
	   when the topology extensions bit says the leaf is there. */
	if (c == 0x444d4163 || c == 0x656e6975) {
		if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(c & (1u << 22)))
			return;
		leaf = 0x8000001d;
	}
	for (unsigned i = 0; i < CACHE_MAX; i++) {
		unsigned level;
		char type;
		if (!__get_cpuid_count(leaf, i, &a, &b, &c, &d))
			return;
		uint64_t bytes = bc_cpuid_cache_decode(a, b, c, &level, &type);
		if (!type)
			return;
		add(v, SRC_CPUID, level, type, bytes);
	}
#else
	(void)v;
#endif
}

static void read_sysconf(struct cache_view *v, uint64_t fake_l3)
{
	static const struct { int name; unsigned level; char type; } q[] = {
		{ _SC_LEVEL1_DCACHE_SIZE, 1, 'd' }, { _SC_LEVEL1_ICACHE_SIZE, 1, 'i' },
		{ _SC_LEVEL2_CACHE_SIZE, 2, 'u' }, { _SC_LEVEL3_CACHE_SIZE, 3, 'u' },
		{ _SC_LEVEL4_CACHE_SIZE, 4, 'u' },
	};

	if (fake_l3) {
		add(v, SRC_SYSCONF, 3, 'u', fake_l3);
		return;
	}
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		long r = sysconf(q[i].name);
		if (r > 0)
			add(v, SRC_SYSCONF, q[i].level, q[i].type, (uint64_t)r);
	}
}

static void view_read(struct cache_view *v)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int hidden;
	uint64_t fake = no_cpuid(&hidden);

	memset(v, 0, sizeof(*v));
	v->ram = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
	v->cpus = cpus > 0 ? (unsigned)cpus : 0;
	read_sysfs(v);
	if (!hidden) {
		read_cpuid(v);
		read_sysconf(v, 0);
	} else if (fake > 1) {
		read_sysconf(v, fake);
	}
}

/* The answer for one level and kind (instr: instruction cache, else data
   or unified): the first source, in order of trust, whose figure is
   plausible; the first implausible figure is kept to be reported. */
static void lookup(const struct cache_view *v, unsigned level, int instr, bc_cache_info *out)
{
	memset(out, 0, sizeof(*out));
	out->level = level;
	for (int s = 0; s < SRC_N; s++) {
		uint64_t best = 0;
		for (int i = 0; i < v->n[s]; i++) {
			const struct cache_desc *d = &v->d[s][i];
			if (d->level == level && (d->type == 'i') == !!instr && d->bytes > best)
				best = d->bytes;
		}
		if (!best)
			continue;
		out->claimed = 1;
		if (bc_cache_plausible(level, best, v->ram, v->cpus)) {
			out->bytes = best;
			out->source = src_names[s];
			return;
		}
		if (!out->rejected) {
			out->rejected = best;
			out->rejected_source = src_names[s];
		}
	}
}

/* Highest data/unified level any source claims, plausible or not: an L3
   whose size is made up is still an L3, so the L2 is not the last level. */
static unsigned last_level(const struct cache_view *v)
{
	unsigned lvl = 0;

	for (int s = 0; s < SRC_N; s++)
		for (int i = 0; i < v->n[s]; i++)
			if (v->d[s][i].type != 'i' && v->d[s][i].level > lvl)
				lvl = v->d[s][i].level;
	return lvl;
}

int bc_sysinfo_caches(bc_cache_info *out, int max, unsigned *llc)
{
	struct cache_view v;
	int n = 0;

	view_read(&v);
	*llc = last_level(&v);
	for (unsigned level = 1; level <= 4; level++)
		for (int instr = 0; instr <= (level == 1) && n < max; instr++) {
			lookup(&v, level, instr, &out[n]);
			out[n].instr = instr;
			if (out[n].claimed)
				n++;
		}
	return n;
}

uint64_t bc_sysinfo_cache(unsigned level, unsigned *found_level, const char **source)
{
	struct cache_view v;
	bc_cache_info ans = { 0 };

	if (level <= 4) {
		view_read(&v);
		lookup(&v, level ? level : last_level(&v), 0, &ans);
	}
	if (found_level)
		*found_level = ans.claimed ? ans.level : 0;
	if (source)
		*source = ans.source;
	return ans.bytes;
}
