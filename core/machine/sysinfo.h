/* Machine fingerprint (`benchcore sysinfo` and the "host" object of results).
   Called from the main thread only. */
#ifndef BC_SYSINFO_H
#define BC_SYSINFO_H
#include <jansson.h>
#include <stdint.h>

/* New JSON object with the fingerprint described in docs/results.md ("host").
   io_path: a path whose file system, mount options and I/O scheduler to
   describe, or NULL. Caller owns the reference. Never fails (fields it cannot
   read are left out). */
json_t *bc_sysinfo_host(const char *io_path);

/* Mean current frequency of the online CPUs in MHz, 0 when unknown. Cheap
   enough to call once per report interval. */
double bc_sysinfo_cpu_mhz(void);
/* cpufreq's mean scaling_cur_freq alone (0: no cpufreq), /proc/cpuinfo's
   mean "cpu MHz" alone (0: none): the kernel's two claims, kept beside the
   measured clock (freq.h). */
double bc_sysinfo_cpufreq_mhz(void);
double bc_sysinfo_cpuinfo_mhz(void);

/* CPUs this process may use: the affinity mask's count, lowered to the
   cgroup CPU quota rounded up (v2 cpu.max, v1 cfs_quota_us / period).
   *quota gets the quota in CPUs (0: none), *affinity the mask's count;
   either may be NULL. At least 1. */
unsigned bc_sysinfo_usable_cpus(double *quota, unsigned *affinity);
/* This process's cgroup memory limit in bytes, the least of its cgroup's
   and those above it (v2 memory.max, v1 memory.limit_in_bytes), 0 = none.
   Controllers are matched by whole name in /proc/self/cgroup and found
   through /proc/self/mountinfo (test hooks: BENCHCORE_PROC_SELF, a
   directory with those two files; BENCHCORE_CGROUP_DIR, one directory
   read as the cgroup itself). */
uint64_t bc_sysinfo_memory_limit(void);

/* Memory a new process may still take before reclaim of what others use,
   or the OOM killer, starts. */
typedef struct bc_mem_room {
	uint64_t avail;		/* the least of MemAvailable and each cgroup level's room;
				   0 = unknown */
	uint64_t memavailable;	/* /proc/meminfo MemAvailable (0: not there) */
	/* The cgroup level that leaves the least room, when it binds (limit 0:
	   MemAvailable binds): room = limit - (usage - reclaimable). */
	uint64_t limit, usage, reclaimable;
	char cgroup[4096];	/* that level's directory */
} bc_mem_room;
void bc_sysinfo_mem_room(bc_mem_room *r);

/* Caches (core/sysinfo_cache.c). Sources in order of trust: sysfs
   (BENCHCORE_SYSFS_CPU/cpu0/cache), CPUID, sysconf; a figure that fails
   bc_cache_plausible() counts as unknown. No state: any thread may call. */

/* Cache size of level (1..4, 0 = last level) in bytes per instance, 0 when
   unknown; *found_level gets the level answered (the last level, when 0 was
   asked, even if its size is unknown; 0 when no source knows of it) and
   *source "sysfs", "cpuid", "sysconf" or NULL (static strings). Either
   pointer may be NULL. Backs the host API's cache_size. */
uint64_t bc_sysinfo_cache(unsigned level, unsigned *found_level, const char **source);

/* One level's answer, for the fingerprint. */
typedef struct {
	unsigned level;
	int instr;			/* 1: the L1 instruction cache */
	int claimed;			/* some source describes this cache */
	uint64_t bytes;			/* 0: unknown */
	const char *source;		/* of bytes; NULL when unknown */
	uint64_t rejected;		/* first implausible figure, 0 if none */
	const char *rejected_source;
} bc_cache_info;

/* Every cache some source describes (L1d, L1i, L2, L3, L4 in that order),
   at most max; *llc = the last level claimed (0: none). Returns the count. */
int bc_sysinfo_caches(bc_cache_info *out, int max, unsigned *llc);

/* Whether bytes is believable for one instance of a level-`level` cache on
   a machine with ram bytes of memory and cpus logical CPUs (0: unknown,
   rule skipped). Pure; the rule is documented in docs/results.md. */
int bc_cache_plausible(unsigned level, uint64_t bytes, uint64_t ram, unsigned cpus);

/* Size in bytes of the cache one CPUID leaf-4 / 0x8000001D subleaf
   describes (0 when the subleaf ends the list); *level, *type ('d', 'i',
   'u', 0) from the same registers. Pure, for the unit tests. */
uint64_t bc_cpuid_cache_decode(uint32_t eax, uint32_t ebx, uint32_t ecx, unsigned *level,
			       char *type);

/* An ARM core's name from /proc/cpuinfo's "CPU implementer" and "CPU part"
   (lscpu's table: "HiSilicon Kunpeng-920 (TaiShan v110)", "ARM Neoverse-N1"),
   with " rVpR" when variant and revision are >= 0. An unknown pair is named
   by its numbers and returns -1; 0 when known. Pure, for the unit tests. */
int bc_arm_cpu_name(unsigned implementer, unsigned part, int variant, int revision, char *buf, size_t len);

/* Root of the CPU sysfs tree the fingerprint reads: $BENCHCORE_SYSFS_CPU
   (a test hook: an empty directory plays a VM that hides its topology) or
   /sys/devices/system/cpu. */
const char *bc_sysinfo_cpu_root(void);

/* The hypervisor this machine runs under ("kvm", "xen", ...), or "none". */
const char *bc_sysinfo_hypervisor(void);

/* The shared objects loaded in this process after the file at path (a
   module just opened: the libraries it brought in), "name file, ..." with
   links resolved ("libhiredis.so.1.1 /usr/lib/.../libhiredis.so.1.1.0");
   other benchcore modules left out. malloc'd; NULL when none or path is not
   loaded. Main thread. */
char *bc_loaded_after(const char *path);

#endif
