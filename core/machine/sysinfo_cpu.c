/* The fingerprint's facts about what the CPU is and how much of the machine
   this process may use: CPU identity and the feature flags that change
   results, microcode, NUMA nodes, the kernel's mitigations, usable CPUs
   (affinity and cgroup quota) and the memory limit; and the memory a case
   may still take (limit less usage, for needs()). Two runs of one binary on
   "the same" machine differ most often in exactly these (a new microcode or
   kernel turning a mitigation on, a container quota), so they are recorded
   rather than guessed. Test hooks (docs/results.md): BENCHCORE_PROC_CPUINFO,
   BENCHCORE_SYSFS_NODE, BENCHCORE_CGROUP_DIR, BENCHCORE_PROC_SELF (or, file by
   file, BENCHCORE_PROC_CGROUP and BENCHCORE_PROC_MOUNTINFO); vulnerabilities
   come from the CPU sysfs root (BENCHCORE_SYSFS_CPU). */
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

/* ------------------------------------------------------------- cgroups */

/* The test hooks for /proc/self's cgroup and mountinfo: the file's own
   ($BENCHCORE_PROC_CGROUP, $BENCHCORE_PROC_MOUNTINFO), else a directory
   holding both ($BENCHCORE_PROC_SELF), else /proc/self/file. */
static const char *proc_self(const char *file, char *buf, size_t len)
{
	const char *own = getenv(!strcmp(file, "cgroup") ? "BENCHCORE_PROC_CGROUP" : "BENCHCORE_PROC_MOUNTINFO");
	const char *root = getenv("BENCHCORE_PROC_SELF");
	if (own && *own)
		snprintf(buf, len, "%s", own);
	else
		snprintf(buf, len, "%s/%s", root && *root ? root : "/proc/self", file);
	return buf;
}

/* 1 when the comma-separated list holds name whole: "cpu" is not in
   "cpuset" nor in "cpuacct", but is in "cpu,cpuacct". */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, name, n))
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

/* This process's cgroup path in the hierarchy of controller ctl ("" = the
   unified v2 one: the line with an empty controller list). 0, or -1. */
static int cgroup_path(const char *ctl, char *out, size_t len)
{
	char p[4096], line[4096];
	FILE *f = fopen(proc_self("cgroup", p, sizeof(p)), "re");
	int found = -1;
	while (f && found < 0 && fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b++ = 0;
		b[strcspn(b, "\n")] = 0;
		if (*ctl ? in_list(a + 1, ctl) : !a[1]) {
			snprintf(out, len, "%s", b);
			found = 0;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The directory of cgroup path in ctl's hierarchy: a mount of it (v1
   "cgroup" with ctl among its options, whole; "" = "cgroup2") whose root
   holds path, and path below that root. *top: the mount point's length
   (the cgroups above it are not visible here). 0, or -1. */
static int cgroup_mount(const char *ctl, const char *path, char *out, size_t len, size_t *top)
{
	char p[4096], line[8192], root[4096], mnt[4096], fs[64], opts[2048];
	FILE *f = fopen(proc_self("mountinfo", p, sizeof(p)), "re");
	int found = -1;
	while (f && found < 0 && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");	/* after the optional fields */
		if (!sep || sscanf(sep + 3, "%63s %*s %2047s", fs, opts) != 2)
			continue;
		if (*ctl ? strcmp(fs, "cgroup") || !in_list(opts, ctl) : strcmp(fs, "cgroup2") != 0)
			continue;
		*sep = 0;
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
			continue;
		bc_si_unescape(root);
		bc_si_unescape(mnt);
		size_t rl = strcmp(root, "/") ? strlen(root) : 0;
		if (strncmp(path, root, rl) || (path[rl] && path[rl] != '/'))
			continue;	/* another part of the hierarchy is mounted there */
		if ((size_t)snprintf(out, len, "%s%s", mnt, strcmp(path + rl, "/") ? path + rl : "") >= len)
			continue;
		*top = strlen(mnt);
		found = 0;
	}
	if (f)
		fclose(f);
	return found;
}

/* The directory of this process's cgroup for controller ctl ("" = v2), and
   in *top the length of the part above which nothing is visible; or
   $BENCHCORE_CGROUP_DIR (one directory holding either version's files,
   nothing above it). 0, or -1 when there is none. */
static int cgroup_dir(const char *ctl, char *out, size_t len, size_t *top)
{
	const char *hook = getenv("BENCHCORE_CGROUP_DIR");
	char path[4096];
	size_t t;
	if (hook && *hook) {
		snprintf(out, len, "%s", hook);
		t = strlen(out);
	} else if (cgroup_path(ctl, path, sizeof(path)) || cgroup_mount(ctl, path, out, len, &t) ||
		   access(out, R_OK)) {
		return -1;
	}
	if (top)
		*top = t;
	return 0;
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
   point (the first top bytes of dir): a parent's quota limits its children
   (a container's, a slice's). */
static double quota_up(char *dir, size_t top, int v2)
{
	double q = 0;
	for (;;) {
		double here = quota_in(dir, v2);
		if (here > 0 && (q == 0 || here < q))
			q = here;
		char *sl = strrchr(dir, '/');
		if (strlen(dir) <= top || !sl || (size_t)(sl - dir) < top)
			return q;
		*sl = '\0';
	}
}

/* CPUs the cgroup quota allows (v2 and v1 both read: on a hybrid system
   the cpu controller is in one of them), 0 = no quota. */
static double cpu_quota(void)
{
	char dir[4096];
	size_t top;
	double q2 = cgroup_dir("", dir, sizeof(dir), &top) == 0 ? quota_up(dir, top, 1) : 0;
	double q1 = cgroup_dir("cpu", dir, sizeof(dir), &top) == 0 ? quota_up(dir, top, 0) : 0;
	return q1 > 0 && (q2 == 0 || q1 < q2) ? q1 : q2;
}

/* The value of key in dir's memory.stat, or -1. */
static long long stat_in(const char *dir, const char *key)
{
	char path[4096 + 64], line[256];
	long long v = -1, x;
	size_t n = strlen(key);
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	FILE *f = fopen(path, "re");
	while (f && v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ' ' && sscanf(line + n, "%lld", &x) == 1 && x >= 0)
			v = x;
	if (f)
		fclose(f);
	return v;
}

/* The file names of one version's memory controller. Reclaimable: what of
   the usage the kernel takes back before it OOM-kills, counted as the
   kubelet's working set counts it (usage less inactive file pages; v1's
   total_ figure because its usage_in_bytes includes the children too).
   Active file pages are left counted as used on purpose: the kernel
   protects them (they were read twice lately), and taking them back means
   evicting someone's working set and thrashing it, which is the harm the
   check exists to avoid; skipping a case that would have fitted costs a
   --force-module, letting in one that did not costs a bystander. */
static const struct memfiles {
	const char *ctl, *limit, *usage, *reclaim;
} mem_v[] = {
	{ "", "memory.max", "memory.current", "inactive_file" },
	{ "memory", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file" },
};

/* One level of the hierarchy: 1 when it has a limit (v1's "no limit" is a
   page-rounded LLONG_MAX: anything beyond 2^60 counts as none). */
static int mem_level(const struct memfiles *v, const char *dir, bc_mem_room *lv)
{
	char buf[128];
	long long lim, use = 0, rec;
	if (read_in(dir, v->limit, buf, sizeof(buf)) || !strcmp(buf, "max") || (lim = atoll(buf)) <= 0 ||
	    lim >= (1LL << 60))
		return 0;
	if (read_in(dir, v->usage, buf, sizeof(buf)) == 0 && atoll(buf) > 0)
		use = atoll(buf);
	rec = stat_in(dir, v->reclaim);
	*lv = (bc_mem_room){ .limit = (uint64_t)lim, .usage = (uint64_t)use };
	lv->reclaimable = rec > 0 ? (uint64_t)(rec < use ? rec : use) : 0;
	lv->avail = lv->usage - lv->reclaimable >= lv->limit ? 0 : lv->limit - (lv->usage - lv->reclaimable);
	snprintf(lv->cgroup, sizeof(lv->cgroup), "%s", dir);
	return 1;
}

/* Every level with a limit, this process's cgroup and those above it, of
   both versions (a hybrid machine has the controller in one of them): the
   least room into *r (r->limit 0: no limit anywhere), the least limit
   returned. */
static uint64_t mem_levels(bc_mem_room *r)
{
	uint64_t least = 0;
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < sizeof(mem_v) / sizeof(mem_v[0]); i++) {
		char dir[4096];
		size_t top;
		if (cgroup_dir(mem_v[i].ctl, dir, sizeof(dir), &top))
			continue;
		for (;;) {
			bc_mem_room lv;
			if (mem_level(&mem_v[i], dir, &lv)) {
				if (!r->limit || lv.avail < r->avail)
					*r = lv;
				if (!least || lv.limit < least)
					least = lv.limit;
			}
			char *sl = strrchr(dir, '/');
			if (strlen(dir) <= top || !sl || (size_t)(sl - dir) < top)
				break;
			*sl = 0;
		}
	}
	return least;
}

/* The memory limit of this cgroup or one above it, the least; 0 = none. */
static long long memory_limit(void)
{
	bc_mem_room r;
	return (long long)mem_levels(&r);
}

uint64_t bc_sysinfo_memory_limit(void)
{
	return (uint64_t)memory_limit();
}

void bc_sysinfo_mem_room(bc_mem_room *r)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	long long kb;
	uint64_t ma = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1 && kb > 0)
			ma = (uint64_t)kb * 1024;
	if (f)
		fclose(f);
	mem_levels(r);
	r->memavailable = ma;
	if (!r->limit || (ma && ma < r->avail)) {	/* the machine binds, not a cgroup */
		r->avail = ma;
		r->limit = r->usage = r->reclaimable = 0;
		r->cgroup[0] = 0;
	}
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
