/* The fingerprint's facts about what the CPU is and how much of the machine
   this process may use: CPU identity and the feature flags that change
   results, microcode, NUMA nodes, the kernel's mitigations, usable CPUs
   (affinity and cgroup quota) and the memory limit. Two runs of one binary on
   "the same" machine differ most often in exactly these (a new microcode or
   kernel turning a mitigation on, a container quota), so they are recorded
   rather than guessed. Test hooks (docs/results.md): BENCHCORE_PROC_CPUINFO,
   BENCHCORE_SYSFS_NODE, BENCHCORE_CGROUP_DIR, BENCHCORE_PROC_CGROUP,
   BENCHCORE_PROC_MOUNTINFO; vulnerabilities come from the CPU sysfs root
   (BENCHCORE_SYSFS_CPU). */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sysinfo.h"
#include "sysinfo_int.h"

/* Flags whose presence changes what a benchmark measures: vector width
   (mem copy kernels, sha/aes in rsa), crypto instructions (openssl), and
   the hypervisor bit. Kept short so two fingerprints differ meaningfully. */
static const char *const result_flags[] = {
	"sse4_2", "avx", "avx2", "avx512f", "avx512bw", "avx512vl", "aes", "vaes", "pclmulqdq",
	"sha_ni", "rdrand", "bmi2", "adx", "erms", "fsrm", "hypervisor",
	/* arm64: SIMD and its dot product, scalable vectors, LSE atomics, crypto, crc */
	"asimd", "asimddp", "sve", "sve2", "atomics", "sha2", "sha3", "sha512", "pmull", "crc32",
	"i8mm", "bf16",
	NULL
};

FILE *bc_si_open_cpuinfo(void)
{
	const char *p = getenv("BENCHCORE_PROC_CPUINFO");
	return fopen(p && *p ? p : "/proc/cpuinfo", "re");
}

static const char *field_value(char *line, const char *key)
{
	size_t k = strlen(key);
	if (strncmp(line, key, k) != 0 || (line[k] != ' ' && line[k] != '\t' && line[k] != ':'))
		return NULL;
	char *c = strchr(line + k, ':');
	if (!c)
		return NULL;
	for (c++; isspace((unsigned char)*c); c++)
		;
	c[strcspn(c, "\n")] = 0;
	return c;
}

static void flags_of(json_t *id, const char *list)
{
	json_t *a = json_array();
	for (const char *const *f = result_flags; *f; f++) {
		size_t n = strlen(*f);
		for (const char *p = list; (p = strstr(p, *f)); p += n)
			if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) {
				json_array_append_new(a, json_string(*f));
				break;
			}
	}
	json_object_set_new(id, "flags", a);
}

/* From the first processor's block of /proc/cpuinfo (x86 and arm64 names). */
void bc_si_cpu_identity(json_t *h)
{
	static const struct { const char *key, *name; int num; } rows[] = {
		{ "vendor_id", "vendor", 0 }, { "CPU implementer", "vendor", 0 },
		{ "cpu family", "family", 1 }, { "CPU architecture", "family", 1 },
		{ "model", "model", 1 }, { "CPU part", "model", 0 },
		{ "stepping", "stepping", 1 }, { "CPU revision", "stepping", 1 },
		{ "CPU variant", "variant", 0 },
		{ "microcode", "microcode", 0 },
	};
	FILE *f = bc_si_open_cpuinfo();
	char line[8192];
	json_t *id = json_object();
	int have_flags = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '\n' && json_object_size(id))
			break;			/* the first processor is enough */
		const char *v;
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			if ((v = field_value(line, rows[i].key)) && *v && !json_object_get(id, rows[i].name)) {
				char *end;
				long long n = strtoll(v, &end, 0);
				json_object_set_new(id, rows[i].name, rows[i].num && !*end ? json_integer(n)
							  : json_string(v));
			}
		if (!have_flags && ((v = field_value(line, "flags")) || (v = field_value(line, "Features")))) {
			flags_of(id, v);
			have_flags = 1;
		}
	}
	if (f)
		fclose(f);
	if (json_object_size(id))
		json_object_set_new(h, "cpu_id", id);
	else
		json_decref(id);
}

/* "mitigations": {name: the kernel's sentence} from .../cpu/vulnerabilities. */
static void mitigations(json_t *h)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/vulnerabilities", bc_sysinfo_cpu_root());
	DIR *d = opendir(dir);
	struct dirent *e;
	json_t *m = json_object();

	while (d && (e = readdir(d))) {
		char rel[512], buf[512];
		if (e->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "vulnerabilities/%s", e->d_name);
		if (bc_si_read_cpu_file(rel, buf, sizeof(buf)) == 0)
			bc_si_set_str(m, e->d_name, buf);
	}
	if (d)
		closedir(d);
	if (json_object_size(m))
		json_object_set_new(h, "mitigations", m);
	else
		json_decref(m);
}

/* "numa": [{node, cpus, memory_bytes}] from /sys/devices/system/node. */
static void numa(json_t *h)
{
	const char *root = getenv("BENCHCORE_SYSFS_NODE");
	if (!root || !*root)
		root = "/sys/devices/system/node";
	DIR *d = opendir(root);
	struct dirent *e;
	json_t *a = json_array();

	while (d && (e = readdir(d))) {
		char *end, path[4096], buf[1024];
		long n;
		if (strncmp(e->d_name, "node", 4) != 0 || !isdigit((unsigned char)e->d_name[4]))
			continue;
		n = strtol(e->d_name + 4, &end, 10);
		if (*end)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "node", json_integer(n));
		snprintf(path, sizeof(path), "%s/%s/cpulist", root, e->d_name);
		if (bc_si_read_line(path, buf, sizeof(buf)) == 0)
			bc_si_set_str(o, "cpus", buf);
		snprintf(path, sizeof(path), "%s/%s/meminfo", root, e->d_name);
		FILE *f = fopen(path, "re");
		long long kb;
		while (f && fgets(buf, sizeof(buf), f))
			if (sscanf(buf, "Node %*d MemTotal: %lld kB", &kb) == 1)
				json_object_set_new(o, "memory_bytes", json_integer(kb * 1024));
		if (f)
			fclose(f);
		json_array_append_new(a, o);
	}
	if (d)
		closedir(d);
	if (json_array_size(a))
		json_object_set_new(h, "numa", a);
	else
		json_decref(a);
}

/* 1 when the comma-separated list holds name as a whole entry: "cpu" is
   in "cpu,cpuacct", never in "cpuset". */
static int has_entry(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

/* This process's path in the hierarchy of v1 controller ctl, or in the
   unified (v2) one for ctl "": /proc/self/cgroup ($BENCHCORE_PROC_CGROUP),
   "ID:CONTROLLERS:PATH" a line. */
static int cgroup_path(const char *ctl, char *out, size_t len)
{
	const char *hook = getenv("BENCHCORE_PROC_CGROUP");
	FILE *f = fopen(hook && *hook ? hook : "/proc/self/cgroup", "re");
	char line[4096];
	int found = -1;
	while (f && found < 0 && fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		b[1 + strcspn(b + 1, "\n")] = 0;
		const char *list = a + 1;
		if (*ctl ? has_entry(list, ctl) : (*list == 0 && !strncmp(line, "0:", 2))) {
			snprintf(out, len, "%s", b + 1);
			found = 0;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* Where that hierarchy is mounted (mountinfo, bc_si_open_mountinfo): v1, a
   "cgroup" mount with ctl among its super options; v2, a "cgroup2" mount.
   Of several (bind mounts), the one whose root holds path, the longest. */
static int cgroup_mount(const char *ctl, const char *path, char *mp, size_t mplen, char *root, size_t rootlen)
{
	FILE *f = bc_si_open_mountinfo();
	char line[8192];
	size_t best = 0;
	int found = -1;
	while (f && fgets(line, sizeof(line), f)) {
		char r[4096], m[4096], fstype[64], super[2048] = "";
		char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
		    sscanf(dash + 3, "%63s %*s %2047s", fstype, super) < 1)
			continue;
		if (*ctl ? strcmp(fstype, "cgroup") || !has_entry(super, ctl) : strcmp(fstype, "cgroup2"))
			continue;
		bc_si_unescape(r);
		bc_si_unescape(m);
		size_t rl = strcmp(r, "/") ? strlen(r) : 0;
		int holds = !strncmp(path, r, rl) && (path[rl] == '/' || path[rl] == '\0');
		if (found < 0 || (holds && rl + 1 > best)) {
			best = holds ? rl + 1 : 0;
			snprintf(mp, mplen, "%s", m);
			snprintf(root, rootlen, "%s", rl ? r : "");
			found = 0;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The directory of this process's cgroup for controller ctl ("" = v2) and
   the mount point above it (*top), or $BENCHCORE_CGROUP_DIR for both (one
   directory holding either version's files). */
static int cgroup_dir(const char *ctl, char *out, size_t len, char *top, size_t toplen)
{
	const char *hook = getenv("BENCHCORE_CGROUP_DIR");
	char path[4096], root[4096];
	if (hook && *hook) {
		snprintf(out, len, "%s", hook);
		snprintf(top, toplen, "%s", hook);
		return 0;
	}
	if (cgroup_path(ctl, path, sizeof(path)) || cgroup_mount(ctl, path, top, toplen, root, sizeof(root)))
		return -1;
	/* the path is from the hierarchy's root, the mount shows it from root */
	size_t rl = strlen(root);
	const char *rel = rl && !strncmp(path, root, rl) && (path[rl] == '/' || !path[rl]) ? path + rl : path;
	snprintf(out, len, "%s%s", top, strcmp(rel, "/") ? rel : "");
	return access(out, R_OK) == 0 ? 0 : -1;
}

static int read_in(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4096 + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return bc_si_read_line(path, buf, len);
}

/* The quota (CPUs) set in one cgroup directory, 0 = none: v2 cpu.max
   ("max 100000" is none), v1 cpu.cfs_quota_us / cpu.cfs_period_us (-1). */
static double quota_in(const char *dir, int v2)
{
	char buf[128], per[128];
	long long q, p;
	if (v2)
		return read_in(dir, "cpu.max", buf, sizeof(buf)) == 0 && sscanf(buf, "%lld %lld", &q, &p) == 2 &&
		       q > 0 && p > 0 ? (double)q / p : 0;
	return read_in(dir, "cpu.cfs_quota_us", buf, sizeof(buf)) == 0 && (q = atoll(buf)) > 0 &&
	       read_in(dir, "cpu.cfs_period_us", per, sizeof(per)) == 0 && (p = atoll(per)) > 0 ? (double)q / p : 0;
}

/* The smallest quota of the cgroup and every one above it up to the mount
   point: a parent's quota limits its children (a container's, a slice's). */
static double quota_up(char *dir, const char *top, int v2)
{
	double q = 0;
	size_t tl = strlen(top);
	for (;;) {
		double here = quota_in(dir, v2);
		if (here > 0 && (q == 0 || here < q))
			q = here;
		char *sl = strrchr(dir, '/');
		if (strlen(dir) <= tl || !sl || (size_t)(sl - dir) < tl)
			return q;
		*sl = '\0';
	}
}

/* CPUs the cgroup quota allows (v2 and v1 both read: on a hybrid system
   the cpu controller is in one of them), 0 = no quota. */
static double cpu_quota(void)
{
	char dir[4096], top[4096];
	double q2 = cgroup_dir("", dir, sizeof(dir), top, sizeof(top)) == 0 ? quota_up(dir, top, 1) : 0;
	double q1 = cgroup_dir("cpu", dir, sizeof(dir), top, sizeof(top)) == 0 ? quota_up(dir, top, 0) : 0;
	return q1 > 0 && (q2 == 0 || q1 < q2) ? q1 : q2;
}

/* The memory limit of this cgroup in bytes, 0 = none (v1's "no limit" is a
   page-rounded LLONG_MAX: anything beyond 2^60 counts as none). */
static long long memory_limit(void)
{
	char dir[4096], top[4096], buf[128];
	long long v = 0;
	if (cgroup_dir("", dir, sizeof(dir), top, sizeof(top)) == 0 &&
	    read_in(dir, "memory.max", buf, sizeof(buf)) == 0)
		v = strcmp(buf, "max") ? atoll(buf) : 0;
	else if (cgroup_dir("memory", dir, sizeof(dir), top, sizeof(top)) == 0 &&
		 read_in(dir, "memory.limit_in_bytes", buf, sizeof(buf)) == 0)
		v = atoll(buf);
	return v > 0 && v < (1LL << 60) ? v : 0;
}

uint64_t bc_sysinfo_memory_limit(void)
{
	return (uint64_t)memory_limit();
}

unsigned bc_sysinfo_usable_cpus(double *quota_out, unsigned *affinity_out)
{
	cpu_set_t set;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned aff = sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set)
								   : (unsigned)(online > 0 ? online : 1);
	double q = cpu_quota();
	unsigned n = aff;
	if (q > 0 && (unsigned)ceil(q) < n)
		n = (unsigned)ceil(q);
	if (quota_out)
		*quota_out = q;
	if (affinity_out)
		*affinity_out = aff;
	return n ? n : 1;
}

void bc_si_limits(json_t *h)
{
	double q;
	unsigned aff, n = bc_sysinfo_usable_cpus(&q, &aff);
	json_t *u = json_object();
	json_object_set_new(u, "count", json_integer(n));
	json_object_set_new(u, "affinity", json_integer(aff));
	if (q > 0)
		json_object_set_new(u, "quota", json_real(q));
	json_object_set_new(u, "source", json_string(q > 0 && ceil(q) < aff ? "cgroup quota" : "affinity"));
	json_object_set_new(h, "usable_cpus", u);
	long long m = memory_limit();
	if (m)
		json_object_set_new(h, "memory_limit_bytes", json_integer(m));
	mitigations(h);
	numa(h);
}
