/* Cache detection: the plausibility rule on real and made-up figures, the
   CPUID decoder on registers read from real CPUs, and the lookup through
   fake sysfs trees (BENCHCORE_SYSFS_CPU) with CPUID/sysconf hidden or
   lying (BENCHCORE_NO_CPUID); cgroup quotas through scratch v1 and v2
   hierarchies (BENCHCORE_PROC_CGROUP, BENCHCORE_PROC_MOUNTINFO). */
#include "unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sysinfo.h"

#define KiB 1024ull
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)

static void test_plausible(void **st)
{
	(void)st;
	/* This VM: sysfs/CPUID L3 32 MiB, 2 vCPUs, 23.5 GiB. */
	assert_true(bc_cache_plausible(3, 32 * MiB, 23 * GiB, 2));
	assert_true(bc_cache_plausible(2, 512 * KiB, 23 * GiB, 2));
	assert_true(bc_cache_plausible(1, 32 * KiB, 23 * GiB, 2));
	/* Its glibc sysconf L3 (CPUID 0x80000006: the socket's total). */
	assert_false(bc_cache_plausible(3, 256 * MiB, 23 * GiB, 2));
	/* The Firecracker guest: sysconf L3 532676608 on 2 vCPUs,
	   whatever its memory; its L2 of 1 MiB is fine. */
	assert_false(bc_cache_plausible(3, 532676608, 64 * GiB, 2));
	assert_false(bc_cache_plausible(3, 532676608, 0, 2));
	assert_true(bc_cache_plausible(2, 1 * MiB, 2 * GiB, 2));
	/* Bare metal: Granite Rapids 504 MiB L3 on 256 threads; a 3D V-Cache
	   CCD (96 MiB) on a 16-thread desktop. */
	assert_true(bc_cache_plausible(3, 504 * MiB, 512 * GiB, 256));
	assert_true(bc_cache_plausible(3, 96 * MiB, 32 * GiB, 16));
	/* 64 MiB per CPU is the limit, inclusive. */
	assert_true(bc_cache_plausible(3, 128 * MiB, 64 * GiB, 2));
	assert_false(bc_cache_plausible(3, 128 * MiB + 1, 64 * GiB, 2));
	/* A quarter of RAM is the limit, inclusive. */
	assert_true(bc_cache_plausible(3, 32 * MiB, 128 * MiB, 2));
	assert_false(bc_cache_plausible(3, 32 * MiB, 128 * MiB - 4096, 2));
	/* Per-level caps hold even when RAM and CPUs are unknown. */
	assert_true(bc_cache_plausible(1, 1 * MiB, 0, 0));
	assert_false(bc_cache_plausible(1, 2 * MiB, 0, 0));
	assert_false(bc_cache_plausible(2, 128 * MiB, 0, 0));
	assert_true(bc_cache_plausible(3, 2 * GiB, 0, 0));
	assert_false(bc_cache_plausible(3, 2 * GiB + 1, 0, 0));
	/* Nonsense. */
	assert_false(bc_cache_plausible(3, 0, 0, 0));
	assert_false(bc_cache_plausible(1, 512, 0, 0));
	assert_false(bc_cache_plausible(0, 32 * KiB, 0, 0));
	assert_false(bc_cache_plausible(5, 32 * KiB, 0, 0));
}

static void test_cpuid_decode(void **st)
{
	unsigned level;
	char type;
	(void)st;
	/* AMD EPYC (Zen 3) leaf 0x8000001D, subleaves 0..4, read on this VM. */
	assert_int_equal(bc_cpuid_cache_decode(0x121, 0x1c0003f, 0x3f, &level, &type), 32 * KiB);
	assert_int_equal(level, 1);
	assert_int_equal(type, 'd');
	assert_int_equal(bc_cpuid_cache_decode(0x122, 0x1c0003f, 0x3f, &level, &type), 32 * KiB);
	assert_int_equal(type, 'i');
	assert_int_equal(bc_cpuid_cache_decode(0x143, 0x1c0003f, 0x3ff, &level, &type), 512 * KiB);
	assert_int_equal(level, 2);
	assert_int_equal(type, 'u');
	assert_int_equal(bc_cpuid_cache_decode(0x4163, 0x3c0003f, 0x7fff, &level, &type), 32 * MiB);
	assert_int_equal(level, 3);
	assert_int_equal(bc_cpuid_cache_decode(0, 0, 0, &level, &type), 0);
	assert_int_equal(type, 0);
	/* Intel leaf 4, an L3 of 11 ways x 64 B x 12288 sets, 2 partitions. */
	assert_int_equal(bc_cpuid_cache_decode(0x163, (10u << 22) | (1u << 12) | 63, 12287,
					       &level, &type), 11ull * 2 * 64 * 12288);
	assert_int_equal(level, 3);
	assert_int_equal(type, 'u');
}

/* A fake cpu0/cache tree: each entry "level type size". */
static char root[64];

static void put(const char *dir, const char *file, const char *val)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", val);
	fclose(f);
}

static void fake_tree(const char *const *idx)
{
	char dir[256];
	snprintf(root, sizeof(root), "/tmp/bc-unit-sysfs.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/cpu0", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/cpu0/cache", root);
	mkdir(dir, 0755);
	for (int i = 0; idx && idx[i]; i++) {
		char level[8], type[32], size[32];
		assert_int_equal(sscanf(idx[i], "%7s %31s %31s", level, type, size), 3);
		snprintf(dir, sizeof(dir), "%s/cpu0/cache/index%d", root, i);
		mkdir(dir, 0755);
		put(dir, "level", level);
		put(dir, "type", type);
		put(dir, "size", size);
	}
	setenv("BENCHCORE_SYSFS_CPU", root, 1);
}

static void rm_tree(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	unsetenv("BENCHCORE_SYSFS_CPU");
	unsetenv("BENCHCORE_NO_CPUID");
}

static void test_sysfs_tree(void **st)
{
	static const char *const zen[] = { "1 Data 32K", "1 Instruction 64K", "2 Unified 512K",
					   "3 Unified 32768K", NULL };
	unsigned lvl = 9;
	const char *src = "x";
	(void)st;
	fake_tree(zen);
	setenv("BENCHCORE_NO_CPUID", "1", 1);
	assert_int_equal(bc_sysinfo_cache(0, &lvl, &src), 32 * MiB);
	assert_int_equal(lvl, 3);
	assert_string_equal(src, "sysfs");
	assert_int_equal(bc_sysinfo_cache(1, &lvl, &src), 32 * KiB);	/* data, not instruction */
	assert_int_equal(lvl, 1);
	assert_int_equal(bc_sysinfo_cache(2, NULL, NULL), 512 * KiB);
	assert_int_equal(bc_sysinfo_cache(4, &lvl, &src), 0);
	assert_int_equal(lvl, 0);
	assert_null(src);
	assert_int_equal(bc_sysinfo_cache(7, &lvl, &src), 0);

	bc_cache_info c[8];
	unsigned llc;
	assert_int_equal(bc_sysinfo_caches(c, 8, &llc), 4);
	assert_int_equal(llc, 3);
	assert_true(c[0].level == 1 && !c[0].instr && c[0].bytes == 32 * KiB);
	assert_true(c[1].level == 1 && c[1].instr && c[1].bytes == 64 * KiB);
	assert_true(c[3].level == 3 && c[3].bytes == 32 * MiB && c[3].rejected == 0);
	rm_tree();
}

/* The machine: no sysfs cache directory, CPUID silent, sysconf's
   L3 made up. The last level is still L3, its size unknown: not the L2.
   (Its 532676608 is implausible on 2 CPUs, not on 8: the figure here must
   be implausible on whatever machine runs the test.) */
static void test_hidden_and_lying(void **st)
{
	static const char *const l2only[] = { "1 Data 32K", "2 Unified 1M", NULL };
	unsigned lvl = 9;
	const char *src = "x";
	bc_cache_info c[8];
	unsigned llc;
	(void)st;
	fake_tree(NULL);
	setenv("BENCHCORE_NO_CPUID", "1", 1);
	assert_int_equal(bc_sysinfo_cache(0, &lvl, &src), 0);
	assert_int_equal(lvl, 0);
	assert_null(src);
	assert_int_equal(bc_sysinfo_caches(c, 8, &llc), 0);
	assert_int_equal(llc, 0);
	rm_tree();

	fake_tree(l2only);
	setenv("BENCHCORE_NO_CPUID", "4398046511104", 1);	/* 4 TiB */
	assert_int_equal(bc_sysinfo_cache(0, &lvl, &src), 0);
	assert_int_equal(lvl, 3);
	assert_null(src);
	assert_int_equal(bc_sysinfo_cache(2, &lvl, &src), 1 * MiB);
	assert_string_equal(src, "sysfs");
	assert_int_equal(bc_sysinfo_caches(c, 8, &llc), 3);
	assert_int_equal(llc, 3);
	assert_true(c[2].level == 3 && c[2].bytes == 0 && c[2].source == NULL);
	assert_int_equal(c[2].rejected, 4096 * GiB);
	assert_string_equal(c[2].rejected_source, "sysconf");
	rm_tree();
}

/* An implausible sysfs figure falls through to the next source. */
static void test_fallthrough(void **st)
{
	static const char *const bogus[] = { "1 Data 32K", "3 Unified 1073741824K", NULL };
	unsigned lvl;
	const char *src;
	(void)st;
	fake_tree(bogus);
	setenv("BENCHCORE_NO_CPUID", "16777216", 1);
	assert_int_equal(bc_sysinfo_cache(0, &lvl, &src), 16 * MiB);
	assert_int_equal(lvl, 3);
	assert_string_equal(src, "sysconf");
	bc_cache_info c[8];
	unsigned llc;
	assert_int_equal(bc_sysinfo_caches(c, 8, &llc), 2);
	assert_int_equal(c[1].rejected, 1024 * GiB);
	assert_string_equal(c[1].rejected_source, "sysfs");
	assert_string_equal(c[1].source, "sysconf");
	rm_tree();
}

/* cgroup quotas through real hierarchies laid out in a scratch directory:
   /proc/self/cgroup (BENCHCORE_PROC_CGROUP) says where the process is,
   mountinfo (BENCHCORE_PROC_MOUNTINFO) where each hierarchy is mounted. */
static char cg[64];

static void cg_file(const char *rel, const char *val)
{
	char path[512], cmd[600];
	snprintf(path, sizeof(path), "%s/%s", cg, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", val);
	fclose(f);
}

/* mountinfo lines "ROOT MOUNTPOINT FSTYPE SUPER", mount points under cg */
static void cg_mounts(const char *const *m)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/mountinfo", cg);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n");
	for (int i = 0; m[i]; i++) {
		char mroot[128], mp[128], fstype[32], super[128];
		assert_int_equal(sscanf(m[i], "%127s %127s %31s %127s", mroot, mp, fstype, super), 4);
		fprintf(f, "%d 31 0:%d %s %s/%s rw,nosuid,nodev shared:%d - %s %s %s\n", 40 + i, 29 + i, mroot, cg,
			mp, 10 + i, fstype, fstype, super);
	}
	fclose(f);
	setenv("BENCHCORE_PROC_MOUNTINFO", path, 1);
	snprintf(path, sizeof(path), "%s/cgroup", cg);
	setenv("BENCHCORE_PROC_CGROUP", path, 1);
}

static double quota(unsigned *usable)
{
	double q = -1;
	unsigned aff;
	*usable = bc_sysinfo_usable_cpus(&q, &aff);
	return q;
}

static void test_cgroup_quota(void **st)
{
	(void)st;
	unsigned n, aff;
	bc_sysinfo_usable_cpus(NULL, &aff);
	snprintf(cg, sizeof(cg), "/tmp/bc-unit-cgroup.XXXXXX");
	assert_non_null(mkdtemp(cg));
	unsetenv("BENCHCORE_CGROUP_DIR");
	/* v1, cpuset listed before cpu, cpu mounted with cpuacct: the quota of
	   the cpu hierarchy's own path, half a CPU */
	static const char *const v1[] = { "/ fs/cpu,cpuacct cgroup rw,cpu,cpuacct", "/ fs/cpuset cgroup rw,cpuset",
					  "/ fs/memory cgroup rw,memory", "/ fs/unified cgroup2 rw", NULL };
	cg_mounts(v1);
	cg_file("cgroup", "12:pids:/\n4:memory:/bench\n3:cpuset:/\n2:cpu,cpuacct:/bench/case\n1:name=systemd:/\n0::/");
	cg_file("fs/cpuset/cpu.cfs_quota_us", "300000");	/* never read: cpuset is not cpu */
	cg_file("fs/cpuset/cpu.cfs_period_us", "100000");
	cg_file("fs/cpu,cpuacct/cpu.cfs_quota_us", "-1");
	cg_file("fs/cpu,cpuacct/cpu.cfs_period_us", "100000");
	cg_file("fs/cpu,cpuacct/bench/case/cpu.cfs_quota_us", "50000");
	cg_file("fs/cpu,cpuacct/bench/case/cpu.cfs_period_us", "100000");
	cg_file("fs/memory/bench/memory.limit_in_bytes", "536870912");
	cg_file("fs/unified/cgroup.procs", "");
	assert_true(quota(&n) == 0.5);
	assert_int_equal(n, 1);
	assert_int_equal(bc_sysinfo_memory_limit(), 536870912);
	/* a parent's smaller quota limits the child */
	cg_file("fs/cpu,cpuacct/bench/cpu.cfs_quota_us", "25000");
	cg_file("fs/cpu,cpuacct/bench/cpu.cfs_period_us", "100000");
	assert_true(quota(&n) == 0.25);
	/* the process in cpuset's path only: no quota (the old strstr read this) */
	cg_file("cgroup", "3:cpuset:/bench/case\n2:cpu,cpuacct:/\n0::/");
	assert_true(quota(&n) == 0);
	assert_int_equal(n, aff);
	/* a mount of part of the hierarchy (a container's view): its root is
	   taken off the path */
	static const char *const part[] = { "/bench fs/ctr cgroup rw,cpuacct,cpu", NULL };
	cg_mounts(part);
	cg_file("cgroup", "2:cpuacct,cpu:/bench/case");
	cg_file("fs/ctr/case/cpu.cfs_quota_us", "150000");
	cg_file("fs/ctr/case/cpu.cfs_period_us", "100000");
	assert_true(quota(&n) == 1.5);
	/* v2: cpu.max of the cgroup and of its parents ("max" is none) */
	static const char *const v2[] = { "/ fs/v2 cgroup2 rw,nsdelegate", NULL };
	cg_mounts(v2);
	cg_file("cgroup", "0::/user.slice/bench");
	cg_file("fs/v2/user.slice/cpu.max", "max 100000");
	cg_file("fs/v2/user.slice/bench/cpu.max", "50000 100000");
	cg_file("fs/v2/user.slice/bench/memory.max", "1073741824");
	assert_true(quota(&n) == 0.5);
	assert_int_equal(bc_sysinfo_memory_limit(), 1073741824);
	cg_file("fs/v2/user.slice/cpu.max", "20000 100000");
	assert_true(quota(&n) == 0.2);
	cg_file("fs/v2/user.slice/cpu.max", "max 100000");
	cg_file("fs/v2/user.slice/bench/cpu.max", "max 100000");
	assert_true(quota(&n) == 0);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cg);
	assert_int_equal(system(cmd), 0);
	unsetenv("BENCHCORE_PROC_MOUNTINFO");
	unsetenv("BENCHCORE_PROC_CGROUP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plausible),
		cmocka_unit_test(test_cpuid_decode),
		cmocka_unit_test(test_sysfs_tree),
		cmocka_unit_test(test_hidden_and_lying),
		cmocka_unit_test(test_fallthrough),
		cmocka_unit_test(test_cgroup_quota),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
