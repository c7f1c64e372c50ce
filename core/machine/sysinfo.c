/* Machine fingerprint: what a reader of a result needs to know to trust a
   comparison. Everything comes from /proc, /sys, /etc/os-release and the
   libraries themselves; nothing is run through a shell. Fields that cannot
   be read are left out rather than guessed. */
#include <ctype.h>
#include <dirent.h>
#include <gnu/libc-version.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "freq.h"
#include "sysinfo.h"
#include "sysinfo_int.h"
#include "util.h"

#ifndef BC_BUILD_CFLAGS
#define BC_BUILD_CFLAGS "unknown"
#endif

/* First line of a small file, trailing newline removed. */
int bc_si_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

void bc_si_set_str(json_t *o, const char *key, const char *v)
{
	if (v && *v)
		json_object_set_new(o, key, json_string(v));
}

static void set_file(json_t *o, const char *key, const char *path)
{
	char buf[4096];
	if (bc_si_read_line(path, buf, sizeof(buf)) == 0)
		bc_si_set_str(o, key, buf);
}

/* The word in brackets of "always [madvise] never" (THP, I/O scheduler). */
static int bracketed(const char *path, char *out, size_t len)
{
	char buf[512], *a, *b;

	if (bc_si_read_line(path, buf, sizeof(buf)) < 0 || !(a = strchr(buf, '[')) ||
	    !(b = strchr(a, ']')))
		return -1;
	*b = 0;
	snprintf(out, len, "%s", a + 1);
	return 0;
}

/* A file under the CPU sysfs tree (BENCHCORE_SYSFS_CPU in tests). */
int bc_si_read_cpu_file(const char *rel, char *buf, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", bc_sysinfo_cpu_root(), rel);
	return bc_si_read_line(path, buf, len);
}

static double read_khz(int cpu, const char *file)
{
	char path[128], buf[64];
	snprintf(path, sizeof(path), "cpu%d/cpufreq/%s", cpu, file);
	return bc_si_read_cpu_file(path, buf, sizeof(buf)) == 0 ? atof(buf) / 1000 : 0;
}

/* Mean "cpu MHz" of /proc/cpuinfo: x86 without cpufreq (most VMs). */
static double cpuinfo_mhz(void)
{
	FILE *f = bc_si_open_cpuinfo();
	char line[512];
	double sum = 0;
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');
		if (c && strncmp(line, "cpu MHz", 7) == 0) {
			sum += atof(c + 1);
			n++;
		}
	}
	fclose(f);
	return n ? sum / n : 0;
}

double bc_sysinfo_cpuinfo_mhz(void)
{
	return cpuinfo_mhz();
}

double bc_sysinfo_cpufreq_mhz(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	double sum = 0;
	int n = 0;
	for (int i = 0; i < ncpu && i < 4096; i++) {
		double v = read_khz(i, "scaling_cur_freq");
		if (v > 0) {
			sum += v;
			n++;
		}
	}
	return n ? sum / n : 0;
}

double bc_sysinfo_cpu_mhz(void)
{
	double v = bc_sysinfo_cpufreq_mhz();
	return v > 0 ? v : cpuinfo_mhz();
}

/* Sockets and physical cores from the topology of online CPUs. A VM may
   hide the topology: then only "threads" is written, never a guess. */
static void cpu_topology(json_t *h)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	long pkgs[256], cores[4096];
	int npk = 0, nco = 0;

	for (int i = 0; i < ncpu && i < 4096; i++) {
		char path[128], buf[32], buf2[32];
		snprintf(path, sizeof(path), "cpu%d/online", i);
		if (bc_si_read_cpu_file(path, buf, sizeof(buf)) == 0 && buf[0] == '0')
			continue;
		snprintf(path, sizeof(path), "cpu%d/topology/physical_package_id", i);
		if (bc_si_read_cpu_file(path, buf, sizeof(buf)) < 0) {
			npk = nco = 0;		/* partial topology: say nothing */
			break;
		}
		snprintf(path, sizeof(path), "cpu%d/topology/core_id", i);
		if (bc_si_read_cpu_file(path, buf2, sizeof(buf2)) < 0) {
			npk = nco = 0;
			break;
		}
		long pk = atol(buf), co = pk << 20 | atol(buf2);
		int seen = 0;
		for (int j = 0; j < npk && !seen; j++)
			seen = pkgs[j] == pk;
		if (!seen && npk < 256)
			pkgs[npk++] = pk;
		seen = 0;
		for (int j = 0; j < nco && !seen; j++)
			seen = cores[j] == co;
		if (!seen)
			cores[nco++] = co;
	}
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	if (npk)
		json_object_set_new(h, "sockets", json_integer(npk));
	if (nco)
		json_object_set_new(h, "cores", json_integer(nco));
	json_object_set_new(h, "threads", json_integer(threads));
	if (nco)
		json_object_set_new(h, "smt", json_boolean(threads > nco));
}

static void cpu_model(json_t *h)
{
	FILE *f = bc_si_open_cpuinfo();
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');
		if (!c || (strncmp(line, "model name", 10) && strncmp(line, "Processor", 9) &&
			   strncmp(line, "cpu model", 9)))
			continue;
		c++;
		while (isspace((unsigned char)*c))
			c++;
		c[strcspn(c, "\n")] = 0;
		bc_si_set_str(h, "cpu_model", c);
		break;
	}
	fclose(f);
	if (!json_object_get(h, "cpu_model"))
		bc_si_arm_model(h);	/* arm64: named from implementer and part */
}

static const char *boost_state(void)
{
	char buf[16];

	if (bc_si_read_cpu_file("cpufreq/boost", buf, sizeof(buf)) == 0)
		return buf[0] == '1' ? "on" : "off";
	if (bc_si_read_cpu_file("intel_pstate/no_turbo", buf, sizeof(buf)) == 0)
		return buf[0] == '1' ? "off" : "on";
	return "unknown";
}

static void cpu_freq(json_t *h)
{
	double cur = read_khz(0, "scaling_cur_freq");
	json_t *m = json_object();
	char buf[256];

	if (cur > 0) {
		json_object_set_new(m, "current", json_real(bc_sysinfo_cpu_mhz()));
		json_object_set_new(m, "min", json_real(read_khz(0, "cpuinfo_min_freq")));
		json_object_set_new(m, "max", json_real(read_khz(0, "cpuinfo_max_freq")));
		json_object_set_new(m, "source", json_string("cpufreq"));
		bc_si_freq_policy(m);
	} else if ((cur = cpuinfo_mhz()) > 0) {
		json_object_set_new(m, "current", json_real(cur));
		json_object_set_new(m, "source", json_string("cpuinfo"));
	}
	bc_freq_probe fp;
	if (bc_freq_probe_cpus(64, &fp) == 0) {
		/* what the cores really ran at (freq.c), beside what the kernel says */
		json_object_set_new(m, "measured", json_real(fp.mean_mhz));
		json_object_set_new(m, "measured_min", json_real(fp.min_mhz));
		json_object_set_new(m, "measured_max", json_real(fp.max_mhz));
		json_object_set_new(m, "measured_source", json_string("probe"));
		double hz, by_counter = bc_freq_probe_counter(&hz);
		if (by_counter > 0) {	/* arm64: the same chain by the generic timer */
			json_object_set_new(m, "measured_by_counter", json_real(by_counter));
			json_object_set_new(m, "counter_hz", json_real(hz));
		}
	}
	if (json_object_size(m))
		json_object_set_new(h, "cpu_mhz", m);
	else
		json_decref(m);
	if (bc_si_read_cpu_file("cpu0/cpufreq/scaling_driver", buf, sizeof(buf)) == 0)
		bc_si_set_str(h, "scaling_driver", buf);
	if (bc_si_read_cpu_file("cpu0/cpufreq/scaling_governor", buf, sizeof(buf)) == 0)
		bc_si_set_str(h, "governor", buf);
	json_object_set_new(h, "boost", json_string(boost_state()));
}

const char *bc_sysinfo_hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static const struct { const char *sig, *name; } known[] = {
		{ "KVMKVMKVM", "kvm" }, { "Microsoft Hv", "hyperv" }, { "VMwareVMware", "vmware" },
		{ "XenVMMXenVMM", "xen" }, { "TCGTCGTCGTCG", "qemu" }, { " lrpepyh  vr", "parallels" },
		{ "VBoxVBoxVBox", "virtualbox" }, { "ACRNACRNACRN", "acrn" }, { "bhyve bhyve ", "bhyve" },
	};
	unsigned a, b, c, d;
	static char sig[13];

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))
		return "none";
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strncmp(sig, known[i].sig, strlen(known[i].sig)) == 0)
			return known[i].name;
	return "unknown hypervisor";
#else
	return access("/sys/hypervisor/type", R_OK) == 0 ? "xen" : "none";
#endif
}

static const char *container_kind(void)
{
	if (access("/.dockerenv", F_OK) == 0)
		return "docker";
	if (access("/run/.containerenv", F_OK) == 0)
		return "podman";
	FILE *f = fopen("/proc/1/environ", "re");
	static char val[64];
	char buf[8192];
	size_t n;
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (strncmp(buf + i, "container=", 10) == 0) {
			snprintf(val, sizeof(val), "%s", buf + i + 10);
			return val;
		}
	return "none";
}

static void memory(json_t *h)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	long long kb;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %lld kB", &kb) == 1) {
			json_object_set_new(h, "memory_bytes", json_integer(kb * 1024));
			break;
		}
	fclose(f);
}

static void os_release(json_t *h)
{
	FILE *f = fopen("/etc/os-release", "re");
	char line[512];

	if (!f)
		f = fopen("/usr/lib/os-release", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		static const struct { const char *key, *field; } map[] = {
			{ "PRETTY_NAME=", "os" }, { "NAME=", "os_name" }, { "VERSION_ID=", "os_version" },
			{ "VERSION_CODENAME=", "os_codename" },
		};
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
			size_t kl = strlen(map[i].key);
			if (strncmp(line, map[i].key, kl))
				continue;
			char *v = line + kl;
			v[strcspn(v, "\n")] = 0;
			size_t vl = strlen(v);
			if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
				v[vl - 1] = 0;
				v++;
			}
			bc_si_set_str(h, map[i].field, v);
		}
	}
	fclose(f);
}

FILE *bc_si_open_mountinfo(void)
{
	const char *p = getenv("BENCHCORE_PROC_MOUNTINFO"), *dir = getenv("BENCHCORE_PROC_SELF");
	char path[4096];
	snprintf(path, sizeof(path), "%s/mountinfo", dir && *dir ? dir : "/proc/self");
	return fopen(p && *p ? p : path, "re");
}

void bc_si_unescape(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && isdigit((unsigned char)s[2]) &&
		    isdigit((unsigned char)s[3])) {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/* The scheduler of the disk behind dev: partitions keep it in the parent. */
static void io_scheduler(json_t *io, dev_t dev)
{
	char path[PATH_MAX], sched[64];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/scheduler", major(dev), minor(dev));
	if (bracketed(path, sched, sizeof(sched)) < 0) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/scheduler",
			 major(dev), minor(dev));
		if (bracketed(path, sched, sizeof(sched)) < 0)
			return;
	}
	bc_si_set_str(io, "scheduler", sched);
}

/* The per-mount options ("rw,relatime") followed by the superblock's
   options not already there ("discard,errors=remount-ro"): the file system's
   own settings (discard matters to write benchmarks) live in the latter. */
static void merge_super(char *opts, size_t len, const char *after_dash)
{
	char super[2048];
	if (sscanf(after_dash, "%*s %*s %2047s", super) != 1)
		return;
	char **have = bc_split(opts, ','), **add = bc_split(super, ',');
	for (char **a = add; *a; a++) {
		int dup = 0;
		for (char **h = have; *h && !dup; h++)
			dup = !strcmp(*h, *a);
		size_t l = strlen(opts);
		if (!dup && l + strlen(*a) + 2 < len)
			snprintf(opts + l, len - l, ",%s", *a);
	}
	bc_strv_free(have);
	bc_strv_free(add);
}

/* The disk behind dev (a partition's parent holds the queue): model, size,
   rotational, queue depth. Left out where sysfs does not say (virtio,
   device mapper without a model). */
static void disk_facts(json_t *io, dev_t dev)
{
	static const char *const ups[] = { "", "/.." };
	char base[PATH_MAX], path[PATH_MAX + 64], buf[256];
	json_t *d = json_object();

	for (size_t u = 0; u < 2; u++) {
		snprintf(base, sizeof(base), "/sys/dev/block/%u:%u%s", major(dev), minor(dev), ups[u]);
		snprintf(path, sizeof(path), "%s/queue/rotational", base);
		if (bc_si_read_line(path, buf, sizeof(buf)) < 0)
			continue;
		json_object_set_new(d, "rotational", json_boolean(buf[0] == '1'));
		snprintf(path, sizeof(path), "%s/device/model", base);
		if (bc_si_read_line(path, buf, sizeof(buf)) == 0) {
			for (size_t l = strlen(buf); l && buf[l - 1] == ' '; l--)
				buf[l - 1] = 0;
			bc_si_set_str(d, "model", buf);
		}
		snprintf(path, sizeof(path), "%s/size", base);
		if (bc_si_read_line(path, buf, sizeof(buf)) == 0)
			json_object_set_new(d, "size_bytes", json_integer(atoll(buf) * 512));
		snprintf(path, sizeof(path), "%s/queue/nr_requests", base);
		if (bc_si_read_line(path, buf, sizeof(buf)) == 0)
			json_object_set_new(d, "queue_depth", json_integer(atoll(buf)));
		if (realpath(base, path)) {
			const char *name = strrchr(path, '/');
			bc_si_set_str(d, "name", name ? name + 1 : path);
		}
		break;
	}
	if (json_object_size(d))
		json_object_set_new(io, "disk", d);
	else
		json_decref(d);
}

/* File system of io_path: the mountinfo entry with the longest mount point
   that prefixes the real path (the device number is ambiguous for btrfs
   subvolumes and bind mounts). */
static void io_target(json_t *h, const char *io_path)
{
	char real[PATH_MAX], line[8192], best[8192] = "";
	size_t bestlen = 0;
	struct stat st;
	FILE *f;

	if (!realpath(io_path, real) || stat(real, &st) < 0 ||
	    !(f = bc_si_open_mountinfo()))
		return;
	while (fgets(line, sizeof(line), f)) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		bc_si_unescape(mp);
		size_t l = strlen(mp);
		int under = strncmp(real, mp, l) == 0 && (real[l] == '/' || real[l] == 0 || l == 1);
		if (under && l >= bestlen) {
			bestlen = l;
			snprintf(best, sizeof(best), "%s", line);
		}
	}
	fclose(f);
	json_t *io = json_object();
	bc_si_set_str(io, "path", real);
	char mp[4096], opts[2048], fstype[256], src[1024], super[2048];
	char *dash = strstr(best, " - ");
	if (dash && sscanf(best, "%*s %*s %*s %*s %4095s %2047s", mp, opts) == 2 &&
	    sscanf(dash + 3, "%255s %1023s %2047s", fstype, src, super) >= 2) {
		bc_si_unescape(mp);
		bc_si_unescape(src);
		bc_si_set_str(io, "mount_point", mp);
		bc_si_set_str(io, "fs_type", fstype);
		merge_super(opts, sizeof(opts), dash + 3);
		bc_si_set_str(io, "mount_options", opts);
		bc_si_set_str(io, "device", src);
	}
	io_scheduler(io, st.st_dev);
	disk_facts(io, st.st_dev);
	json_object_set_new(h, "io", io);
}

/* "caches": {"L1d": {bytes, source}, "L1i", "L2", "L3"}: every level some
   source describes. A level whose size is unknown has source "unknown";
   an implausible figure is kept as rejected_bytes / rejected_source. */
static void caches(json_t *h)
{
	bc_cache_info c[8];
	unsigned llc;
	int n = bc_sysinfo_caches(c, 8, &llc);
	json_t *o = json_object();

	for (int i = 0; i < n; i++) {
		char name[8];
		json_t *e = json_object();
		snprintf(name, sizeof(name), "L%u%s", c[i].level,
			 c[i].level == 1 ? (c[i].instr ? "i" : "d") : "");
		if (c[i].bytes)
			json_object_set_new(e, "bytes", json_integer((json_int_t)c[i].bytes));
		json_object_set_new(e, "source", json_string(c[i].bytes ? c[i].source : "unknown"));
		if (c[i].rejected) {
			json_object_set_new(e, "rejected_bytes", json_integer((json_int_t)c[i].rejected));
			json_object_set_new(e, "rejected_source", json_string(c[i].rejected_source));
		}
		json_object_set_new(o, name, e);
	}
	if (n)
		json_object_set_new(h, "caches", o);
	else
		json_decref(o);
}

/* The last-level cache's warning, when its size is not known. */
static void cache_warning(json_t *h, json_t *w)
{
	json_t *o = json_object_get(h, "caches"), *llc = NULL, *e;
	const char *k, *name = NULL;
	char buf[256], sz[32];

	json_object_foreach(o, k, e)
		if (strcmp(k, "L1i") != 0) {
			llc = e;	/* levels are written in ascending order */
			name = k;
		}
	if (!llc) {
		json_array_append_new(w, json_string("no cache sizes visible (sysfs, CPUID and "
			"sysconf are silent): a memory benchmark cannot tell when a buffer fits in a cache"));
		return;
	}
	if (json_object_get(llc, "bytes"))
		return;
	if (json_object_get(llc, "rejected_bytes")) {
		bc_format_size((uint64_t)json_integer_value(json_object_get(llc, "rejected_bytes")), sz,
			  sizeof(sz));
		snprintf(buf, sizeof(buf), "%s size unknown: %s says %s, implausible for this "
			 "machine (a hypervisor's figure); a memory benchmark cannot tell when a buffer fits in it",
			 name, json_string_value(json_object_get(llc, "rejected_source")), sz);
	} else {
		snprintf(buf, sizeof(buf), "%s size unknown: a memory benchmark cannot tell when a buffer fits "
			 "in it", name);
	}
	json_array_append_new(w, json_string(buf));
}

static void warnings(json_t *h)
{
	json_t *w = json_array();
	const char *gov = json_string_value(json_object_get(h, "governor"));
	const char *boost = json_string_value(json_object_get(h, "boost"));
	char buf[256];

	double fmin = json_real_value(json_object_get(json_object_get(h, "cpu_mhz"), "min"));
	double fmax = json_real_value(json_object_get(json_object_get(h, "cpu_mhz"), "max"));
	int fixed = gov && (!strcmp(gov, "userspace") || (fmin > 0 && fmin == fmax));
	if (fixed) {
		;	/* a frequency set by hand (cpupower frequency-set): exactly what a frequency study wants */
	} else if (gov && strcmp(gov, "performance") != 0) {
		snprintf(buf, sizeof(buf), "cpufreq governor is '%s', not 'performance': the frequency "
			 "follows the load and results vary", gov);
		json_array_append_new(w, json_string(buf));
	} else if (!gov) {
		json_array_append_new(w, json_string("no cpufreq governor visible (virtual machine or "
			"no driver): the frequency is not under this system's control"));
	}
	if (boost && strcmp(boost, "on") == 0)
		json_array_append_new(w, json_string("turbo/boost is on: the frequency depends on "
			"temperature and on how many cores are busy, which skews thread sweeps"));
	else if (boost && strcmp(boost, "unknown") == 0)
		json_array_append_new(w, json_string("turbo/boost state unknown: it may change results"));
	cache_warning(h, w);
	json_object_set_new(h, "warnings", w);
}

json_t *bc_sysinfo_host(const char *io_path)
{
	struct utsname u;
	json_t *h = json_object();
	char buf[256];

	if (uname(&u) == 0) {
		bc_si_set_str(h, "hostname", u.nodename);
		bc_si_set_str(h, "kernel", u.release);
		bc_si_set_str(h, "arch", u.machine);
	}
	cpu_model(h);
	bc_si_cpu_identity(h);
	cpu_topology(h);
	bc_si_limits(h);
	cpu_freq(h);
	caches(h);
	bc_si_set_str(h, "virtualization", bc_sysinfo_hypervisor());
	bc_si_set_str(h, "container", container_kind());
	memory(h);
	set_file(h, "kernel_cmdline", "/proc/cmdline");
	os_release(h);
	bc_si_set_str(h, "libc", gnu_get_libc_version());
	if (bracketed("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) == 0)
		bc_si_set_str(h, "thp", buf);
#ifdef __clang__
	bc_si_set_str(h, "compiler", "clang " __clang_version__);
#else
	bc_si_set_str(h, "compiler", "gcc " __VERSION__);
#endif
	bc_si_set_str(h, "cflags", BC_BUILD_CFLAGS);
	bc_si_libraries(h);
	bc_si_loaded(h);
	if (io_path)
		io_target(h, io_path);
	warnings(h);
	return h;
}

