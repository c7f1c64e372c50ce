/* The table of machine settings (mset.h): one row per kind, its check
   against this machine and the writes that set it, in the kernel's order
   (Documentation/admin-guide/pm/cpufreq.rst, intel_pstate.rst,
   amd-pstate.rst, mm/transhuge.rst, block/queue-sysfs.rst, cpu-hotplug).
   The CPU files live under bc_mcpu_root(), so a test lays out a fake
   driver's tree there and reads back every write. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mset.h"
#include "sysinfo.h"
#include "fsdev.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define MAX_CPUS 1024

static int is_bool(const char *t, int *v)
{
	if (!strcmp(t, "true") || !strcmp(t, "on") || !strcmp(t, "1"))
		return *v = 1, 1;
	if (!strcmp(t, "false") || !strcmp(t, "off") || !strcmp(t, "0"))
		return *v = 0, 1;
	return 0;
}

static int read_cpu(const char *rel, char *out, size_t n)
{
	char *p = bc_xasprintf("%s/%s", bc_mcpu_root(), rel);
	int rc = bc_mread(p, out, n);
	free(p);
	return rc;
}

/* The CPUs of the tree, ascending, and whether each is online (a CPU with
   no online file, cpu0 usually, always is). */
static size_t cpus_of(int *num, int *online)
{
	DIR *d = opendir(bc_mcpu_root());
	struct dirent *de;
	size_t n = 0;
	while (d && (de = readdir(d)) && n < MAX_CPUS) {
		char *end;
		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		long c = strtol(de->d_name + 3, &end, 10);
		if (*end)
			continue;
		size_t i = n++;
		while (i > 0 && num[i - 1] > c) {	/* insertion: a few CPUs */
			num[i] = num[i - 1];
			online[i] = online[i - 1];
			i--;
		}
		char rel[64], v[16];
		snprintf(rel, sizeof(rel), "cpu%ld/online", c);
		num[i] = (int)c;
		online[i] = read_cpu(rel, v, sizeof(v)) || strcmp(v, "0");
	}
	if (d)
		closedir(d);
	return n;
}

/* The CPUs a frequency or governor is written on: those online after
   online_cpus (the lowest-numbered keep), or online now. */
static size_t run_cpus(const bc_mctx *x, int *out)
{
	int num[MAX_CPUS], on[MAX_CPUS];
	size_t n = cpus_of(num, on), k = 0;
	for (size_t i = 0; i < n; i++)
		if (x->online_cpus ? (int)k < x->online_cpus : on[i])
			out[k++] = num[i];
	return k;
}

static int no_cpufreq(bc_err *e, const char *key)
{
	const char *hv = bc_sysinfo_hypervisor();
	bc_err_set(e, "%s: this machine exposes no cpufreq policy%s%s%s (%s/cpu0/cpufreq is absent): it cannot be "
		   "set here", key, strcmp(hv, "none") ? " (" : "", strcmp(hv, "none") ? hv : "",
		   strcmp(hv, "none") ? " guest)" : "", bc_mcpu_root());
	if (strcmp(hv, "none"))
		bc_err_detail(e, "A virtual machine's CPUs run at the host's clock; the hypervisor does not pass "
			      "frequency control to the guest.");
	bc_err_hint(e, "set it on the host, or on bare metal with a cpufreq driver loaded");
	return -1;
}

/* ---- smt, online_cpus ---- */

static int smt_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	(void)x;
	char v[64];
	int b;
	if (!is_bool(t, &b)) {
		bc_err_set(e, "smt: \"%s\" is not true or false", t);
		return -1;
	}
	if (read_cpu("smt/control", v, sizeof(v))) {
		bc_err_set(e, "smt: %s/smt/control is absent: this kernel cannot switch SMT", bc_mcpu_root());
		return -1;
	}
	if (!strcmp(v, "forceoff") || !strcmp(v, "notsupported") || !strcmp(v, "notimplemented")) {
		bc_err_set(e, "smt: %s/smt/control says \"%s\": SMT cannot be switched here", bc_mcpu_root(), v);
		bc_err_detail(e, "forceoff is set at boot (nosmt=force); notsupported: the CPUs have no SMT or "
			      "the hypervisor hides it.");
		return -1;
	}
	snprintf(out, n, "%s", b ? "on" : "off");
	return 0;
}

static int smt_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)x;
	(void)e;
	char *p = bc_xasprintf("%s/smt/control", bc_mcpu_root());
	bc_mwrites_add(ws, 'f', p, v, "smt");
	free(p);
	return 0;
}

/* The first CPU of cpu's thread_siblings_list, or cpu itself. */
static int core_of(int cpu)
{
	char rel[96], v[256];
	snprintf(rel, sizeof(rel), "cpu%d/topology/thread_siblings_list", cpu);
	if (read_cpu(rel, v, sizeof(v)))
		return cpu;
	return atoi(v);
}

static int online_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	(void)x;
	int num[MAX_CPUS], on[MAX_CPUS];
	size_t nc = cpus_of(num, on);
	char *end;
	long k = strtol(t, &end, 10);
	if (*end || end == t || k < 1 || k > (long)nc) {
		bc_err_set(e, "online_cpus: \"%s\" is not a count of CPUs from 1 to %zu (the CPUs of %s)", t, nc,
			   bc_mcpu_root());
		return -1;
	}
	for (size_t i = (size_t)k; i < nc; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "%s/cpu%d/online", bc_mcpu_root(), num[i]);
		if (access(rel, F_OK)) {
			bc_err_set(e, "online_cpus = %ld: cpu%d cannot be taken offline (%s is absent)", k, num[i], rel);
			return -1;
		}
		/* SMT siblings go together: a kept CPU's sibling offline splits a core */
		for (size_t j = 0; j < (size_t)k; j++)
			if (core_of(num[j]) == core_of(num[i])) {
				bc_err_set(e, "online_cpus = %ld would split a core: cpu%d stays online, its SMT sibling "
					   "cpu%d would not", k, num[j], num[i]);
				bc_err_hint(e, "give a count that keeps whole cores, or smt = false");
				return -1;
			}
	}
	snprintf(out, n, "%ld", k);
	return 0;
}

static int online_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)x;
	(void)e;
	int num[MAX_CPUS], on[MAX_CPUS];
	size_t nc = cpus_of(num, on), k = (size_t)atoi(v);
	/* bring the kept ones up first, then the highest-numbered down */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = pass ? nc : 0; pass ? i-- > k : i < k; pass ? (void)0 : (void)i++) {
			char *p = bc_xasprintf("%s/cpu%d/online", bc_mcpu_root(), num[i]);
			if (!access(p, F_OK))
				bc_mwrites_add(ws, 'f', p, pass ? "0" : "1", "online_cpus");
			free(p);
		}
	return 0;
}

/* ---- governor, turbo, cpu_freq ---- */

static int has_word(const char *list, const char *w)
{
	size_t l = strlen(w);
	for (const char *p = list; (p = strstr(p, w)); p += l)
		if ((p == list || p[-1] == ' ') && (p[l] == ' ' || !p[l]))
			return 1;
	return 0;
}

static int gov_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	(void)x;
	char av[512];
	if (read_cpu("cpu0/cpufreq/scaling_available_governors", av, sizeof(av)))
		return no_cpufreq(e, "governor");
	if (!has_word(av, t)) {
		bc_err_set(e, "governor: \"%s\" is not one of this machine's governors: %s", t, av);
		bc_err_detail(e, "From %s/cpu0/cpufreq/scaling_available_governors.", bc_mcpu_root());
		return -1;
	}
	snprintf(out, n, "%s", t);
	return 0;
}

static void per_cpu(const bc_mctx *x, const char *file, const char *v, bc_mwrites *ws, const char *key)
{
	int cpus[MAX_CPUS];
	size_t n = run_cpus(x, cpus);
	for (size_t i = 0; i < n; i++) {
		char *p = bc_xasprintf("%s/cpu%d/cpufreq/%s", bc_mcpu_root(), cpus[i], file);
		if (!access(p, F_OK))
			bc_mwrites_add(ws, 'f', p, v, key);
		free(p);
	}
}

static int gov_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)e;
	per_cpu(x, "scaling_governor", v, ws, "governor");
	return 0;
}

/* Turbo's file, by driver: intel_pstate's no_turbo (inverted), the global
   cpufreq/boost (acpi-cpufreq, amd-pstate passive), or per policy boost
   (amd-pstate active). */
static int turbo_file(char *path, size_t n, int *inverted, int *per)
{
	const char *r = bc_mcpu_root();
	*per = *inverted = 0;
	snprintf(path, n, "%s/intel_pstate/no_turbo", r);
	if (!access(path, F_OK))
		return *inverted = 1, 0;
	snprintf(path, n, "%s/cpufreq/boost", r);
	if (!access(path, F_OK))
		return 0;
	snprintf(path, n, "%s/cpu0/cpufreq/boost", r);
	if (!access(path, F_OK))
		return *per = 1, 0;
	return -1;
}

static int turbo_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	(void)x;
	char p[512], v[32];
	int b, inv, per;
	if (!is_bool(t, &b)) {
		bc_err_set(e, "turbo: \"%s\" is not true or false", t);
		return -1;
	}
	if (turbo_file(p, sizeof(p), &inv, &per)) {
		if (read_cpu("cpu0/cpufreq/scaling_driver", v, sizeof(v)))
			return no_cpufreq(e, "turbo");
		bc_err_set(e, "turbo: the cpufreq driver \"%s\" offers no turbo switch (no intel_pstate/no_turbo, "
			   "cpufreq/boost or policy boost under %s)", v, bc_mcpu_root());
		return -1;
	}
	snprintf(out, n, "%s", b ? "true" : "false");
	return 0;
}

static int turbo_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)e;
	char p[512];
	int inv, per, on = !strcmp(v, "true");
	if (turbo_file(p, sizeof(p), &inv, &per))
		return 0;
	if (per)
		per_cpu(x, "boost", on ? "1" : "0", ws, "turbo");
	else
		bc_mwrites_add(ws, 'f', p, (on ^ inv) ? "1" : "0", "turbo");
	return 0;
}

static int freq_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	(void)x;
	char lo[32], hi[32], av[1024];
	unsigned long long k;
	if (read_cpu("cpu0/cpufreq/cpuinfo_min_freq", lo, sizeof(lo)) ||
	    read_cpu("cpu0/cpufreq/cpuinfo_max_freq", hi, sizeof(hi)))
		return no_cpufreq(e, "cpu_freq");
	if (!strcmp(t, "max") || !strcmp(t, "min")) {
		snprintf(out, n, "%s", !strcmp(t, "max") ? hi : lo);
		return 0;
	}
	if (bc_mfreq_parse(t, &k)) {
		bc_err_set(e, "cpu_freq: \"%s\" is not a frequency (2.6GHz, 800MHz, 2600000kHz, max, min)", t);
		return -1;
	}
	unsigned long long l = strtoull(lo, NULL, 10), h = strtoull(hi, NULL, 10);
	if (k < l || k > h) {
		bc_err_set(e, "cpu_freq: %s is outside this machine's range, %.3f to %.3f GHz", t, (double)l / 1e6,
			   (double)h / 1e6);
		bc_err_detail(e, "From %s/cpu0/cpufreq/cpuinfo_min_freq and cpuinfo_max_freq.", bc_mcpu_root());
		return -1;
	}
	char ks[32];
	snprintf(ks, sizeof(ks), "%llu", k);
	if (!read_cpu("cpu0/cpufreq/scaling_available_frequencies", av, sizeof(av)) && *av && !has_word(av, ks)) {
		bc_err_set(e, "cpu_freq: %s (%s kHz) is not one of the frequencies this driver offers: %s kHz", t,
			   ks, av);
		return -1;
	}
	snprintf(out, n, "%s", ks);
	return 0;
}

/* scaling_min_freq and scaling_max_freq both to v, in the order that keeps
   min <= max at every step; scaling_setspeed too where the governor is
   userspace (acpi-cpufreq's way of holding one frequency). */
static int freq_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)e;
	int cpus[MAX_CPUS];
	size_t n = run_cpus(x, cpus);
	unsigned long long k = strtoull(v, NULL, 10);
	for (size_t i = 0; i < n; i++) {
		char rel[128], cur[32], gov[64];
		snprintf(rel, sizeof(rel), "cpu%d/cpufreq/scaling_max_freq", cpus[i]);
		if (read_cpu(rel, cur, sizeof(cur)))
			continue;
		int up = k > strtoull(cur, NULL, 10);
		for (int j = 0; j < 2; j++) {
			char *p = bc_xasprintf("%s/cpu%d/cpufreq/scaling_%s_freq", bc_mcpu_root(), cpus[i],
					       (j == 0) == up ? "max" : "min");
			bc_mwrites_add(ws, 'f', p, v, "cpu_freq");
			free(p);
		}
		snprintf(rel, sizeof(rel), "cpu%d/cpufreq/scaling_governor", cpus[i]);
		const char *want = NULL;
		for (size_t w = 0; w < ws->n; w++)	/* a governor of the same combination */
			if (!strcmp(ws->w[w].key, "governor") && strstr(ws->w[w].path, rel))
				want = ws->w[w].value;
		if (!want && !read_cpu(rel, gov, sizeof(gov)))
			want = gov;
		if (want && !strcmp(want, "userspace")) {
			char *p = bc_xasprintf("%s/cpu%d/cpufreq/scaling_setspeed", bc_mcpu_root(), cpus[i]);
			if (!access(p, F_OK))
				bc_mwrites_add(ws, 'f', p, v, "cpu_freq");
			free(p);
		}
	}
	return 0;
}

/* ---- thp, thp_defrag, sysctl ---- */

static int choice_check(const char *key, const char *file, const char *t, char *out, size_t n, bc_err *e)
{
	char raw[512];
	FILE *f = fopen(file, "re");
	size_t r = f ? fread(raw, 1, sizeof(raw) - 1, f) : 0;
	if (f)
		fclose(f);
	if (!f) {
		bc_err_set(e, "%s: %s is absent: this kernel has no such setting", key, file);
		return -1;
	}
	raw[r] = '\0';
	raw[strcspn(raw, "\n")] = '\0';
	char words[512];
	size_t o = 0;
	for (const char *p = raw; *p && o + 1 < sizeof(words); p++)	/* the choices without brackets */
		if (*p != '[' && *p != ']')
			words[o++] = *p;
	words[o] = '\0';
	if (!has_word(words, t)) {
		bc_err_set(e, "%s: \"%s\" is not one of %s's choices: %s", key, t, file, words);
		return -1;
	}
	snprintf(out, n, "%s", t);
	return 0;
}

static int thp_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	(void)x;
	return choice_check("thp", THP_DIR "/enabled", t, out, n, e);
}

static int thp_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)x;
	(void)e;
	bc_mwrites_add(ws, 'f', THP_DIR "/enabled", v, "thp");
	return 0;
}

static int defrag_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	(void)x;
	return choice_check("thp_defrag", THP_DIR "/defrag", t, out, n, e);
}

static int defrag_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)x;
	(void)e;
	bc_mwrites_add(ws, 'f', THP_DIR "/defrag", v, "thp_defrag");
	return 0;
}

/* /proc/sys/vm/swappiness from vm.swappiness; NULL when the name could
   leave /proc/sys (a ".." or a slash). */
static char *sysctl_path(const char *name)
{
	if (!name || !*name || strstr(name, "..") || strchr(name, '/') || name[0] == '.')
		return NULL;
	char *p = bc_xasprintf("/proc/sys/%s", name);
	for (char *c = p + 10; *c; c++)
		if (*c == '.')
			*c = '/';
	return p;
}

static int sysctl_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	char *p = sysctl_path(x->sub);
	if (!p || access(p, W_OK)) {
		bc_err_set(e, "sysctl \"%s\": %s", x->sub ? x->sub : "", !p ? "not a sysctl name (vm.swappiness)" :
			   errno == ENOENT ? "no such sysctl on this kernel" : "not writable here");
		if (p)
			bc_err_detail(e, "%s: %s.", p, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	if (!*t || strchr(t, '\n')) {
		bc_err_set(e, "sysctl \"%s\": a value is one line of text", x->sub);
		return -1;
	}
	snprintf(out, n, "%s", t);
	return 0;
}

static int sysctl_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)e;
	char *p = sysctl_path(x->sub);
	bc_mwrites_add(ws, 'f', p, v, "sysctl");
	free(p);
	return 0;
}

/* ---- the device under a module's path ---- */

/* The queue files of x's device: its own, or its members' for a stacked
   device (dm, md: the slaves), where the scheduler really runs. */
static size_t queues(const bc_mctx *x, char **out, size_t most)
{
	size_t n = 0;
	char *sl = bc_xasprintf("%s/slaves", x->device);
	DIR *d = opendir(sl);
	struct dirent *de;
	while (d && (de = readdir(d)) && n < most)
		if (de->d_name[0] != '.')
			out[n++] = bc_xasprintf("%s/%s/queue", sl, de->d_name);
	if (d)
		closedir(d);
	free(sl);
	if (!n)
		out[n++] = bc_xasprintf("%s/queue", x->device);
	return n;
}

static int dev_check(const char *key, const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	char *q[64];
	if (!x->device) {
		bc_err_set(e, "%s: no block device found under the module's path", key);
		bc_err_hint(e, "the module needs a path on a block device, or give machine's device = \"/dev/...\"");
		return -1;
	}
	size_t nq = queues(x, q, 64);
	int rc = 0;
	for (size_t i = 0; i < nq && !rc; i++) {
		char *f = bc_xasprintf("%s/%s", q[i], key[0] == 'i' ? "scheduler" : key);
		if (key[0] == 'i') {
			rc = choice_check(key, f, t, out, n, e);
		} else {
			char *end;
			long v = strtol(t, &end, 10);
			if (*end || end == t || v < (key[0] == 'r' ? 0 : 4) || v > 1L << 24) {
				bc_err_set(e, "%s: \"%s\" is not a count from %d to %ld", key, t, key[0] == 'r' ? 0 : 4,
					   1L << 24);
				rc = -1;
			} else if (access(f, W_OK)) {
				bc_err_set(e, "%s: %s: %s", key, f, strerror(errno));
				rc = -1;
			}
			snprintf(out, n, "%ld", v);
		}
		free(f);
	}
	for (size_t i = 0; i < nq; i++)
		free(q[i]);
	return rc;
}

static void dev_plan(const char *key, const bc_mctx *x, const char *v, bc_mwrites *ws)
{
	char *q[64];
	size_t nq = queues(x, q, 64);
	for (size_t i = 0; i < nq; i++) {
		char *f = bc_xasprintf("%s/%s", q[i], key[0] == 'i' ? "scheduler" : key);
		bc_mwrites_add(ws, 'f', f, v, key);
		free(f);
		free(q[i]);
	}
}

#define DEVICE_KIND(fn, key)									\
	static int fn##_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)	\
	{ return dev_check(key, x, t, out, n, e); }						\
	static int fn##_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)	\
	{ (void)e; dev_plan(key, x, v, ws); return 0; }
DEVICE_KIND(iosched, "io_scheduler")
DEVICE_KIND(readahead, "read_ahead_kb")
DEVICE_KIND(nrreq, "nr_requests")

/* ---- cpus, custom ---- */

static int cpus_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	int num[MAX_CPUS], on[MAX_CPUS];
	size_t nc = cpus_of(num, on);
	unsigned char *set = bc_mcpu_list_parse(t);
	if (!set) {
		bc_err_set(e, "cpus: \"%s\" is not a CPU list (\"0\", \"0-3,6\")", t);
		return -1;
	}
	for (int c = 0; c < BC_MCPU_MAX; c++) {
		int ok = 0;
		for (size_t i = 0; set[c] && i < nc; i++)
			ok |= num[i] == c && (on[i] || (x->online_cpus && (int)i < x->online_cpus));
		if (set[c] && !ok) {
			bc_err_set(e, "cpus: CPU %d of \"%s\" is not online here", c, t);
			free(set);
			return -1;
		}
	}
	free(set);
	snprintf(out, n, "%s", t);
	return 0;
}

static int cpus_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)x;
	(void)v;
	(void)ws;
	(void)e;
	return 0;	/* benchcore's own affinity (the runner sets it), nothing written */
}

static int custom_check(const bc_mctx *x, const char *t, char *out, size_t n, bc_err *e)
{
	char cur[256];
	if (!x->custom_set || !x->custom_read) {
		bc_err_set(e, "custom \"%s\": set and read commands are both needed", x->sub ? x->sub : "");
		return -1;
	}
	if (bc_mcommand(x->custom_read, NULL, x->custom_timeout, cur, sizeof(cur))) {
		bc_err_set(e, "custom \"%s\": its read command failed: %s", x->sub, cur);
		return -1;
	}
	snprintf(out, n, "%s", t);
	return 0;
}

static int custom_plan(const bc_mctx *x, const char *v, bc_mwrites *ws, bc_err *e)
{
	(void)e;
	bc_mwrites_add(ws, 'c', x->sub, v, "custom");
	ws->w[ws->n - 1].set = bc_xstrdup(x->custom_set);
	ws->w[ws->n - 1].read = bc_xstrdup(x->custom_read);
	ws->w[ws->n - 1].timeout = x->custom_timeout;
	return 0;
}

const bc_mkind bc_mkinds[] = {
	{ "smt", "true|false", "simultaneous multithreading on or off", "smt/control", 10, 0, smt_check, smt_plan },
	{ "online_cpus", "N", "CPUs left online: the highest-numbered are hot-unplugged (never cpu0, SMT siblings "
	  "together)", "cpuN/online", 20, 0, online_check, online_plan },
	{ "governor", "NAME", "the cpufreq governor, on every CPU the run uses (one of scaling_available_governors)",
	  "cpuN/cpufreq/scaling_governor", 30, BC_MKF_FREQ, gov_check, gov_plan },
	{ "turbo", "true|false", "turbo/boost frequencies allowed (set after the governor)",
	  "intel_pstate/no_turbo, cpufreq/boost or cpuN/cpufreq/boost", 40, BC_MKF_FREQ, turbo_check, turbo_plan },
	{ "cpu_freq", "FREQ|max|min", "the CPU clock (2.6GHz, 800MHz): min and max frequency both set to it, in the "
	  "order keeping min <= max; checked against each case's measured clock",
	  "cpuN/cpufreq/scaling_min_freq, scaling_max_freq, scaling_setspeed", 50, BC_MKF_FREQ, freq_check, freq_plan },
	{ "thp", "always|madvise|never", "transparent huge pages (new allocations: private servers restart)",
	  THP_DIR "/enabled", 60, BC_MKF_RESTART, thp_check, thp_plan },
	{ "thp_defrag", "always|defer|defer+madvise|madvise|never", "THP defragmentation",
	  THP_DIR "/defrag", 61, BC_MKF_RESTART, defrag_check, defrag_plan },
	{ "sysctl", "{ name = \"vm.swappiness\"; value = 10; }", "kernel parameters by sysctl name (KEY sysctl.NAME on the command line)", "/proc/sys/NAME", 70,
	  BC_MKF_SUB, sysctl_check, sysctl_plan },
	{ "fs", "ext4|xfs|btrfs", "the file system under test, made and mounted by the run; every module's "
	  "files go there (docs/fs.md)", "(none: mkfs, mount)", 75, 0, bc_fs_kind_check, bc_fs_no_writes },
	{ "fs_device", "image:DIR:SIZE|DEVICE", "where fs is made: a sparse image in DIR on a loop device (the "
	  "default: the module's path, 4G), or a block device by /dev/disk/by-id/... (with wipe_device)",
	  "(none)", 76, 0, bc_fs_device_check, bc_fs_no_writes },
	{ "wipe_device", "DEVICE", "the same device as fs_device: everything on it may be lost", "(none)", 77, 0,
	  bc_fs_text_check, bc_fs_no_writes },
	{ "mkfs_options", "OPTIONS", "mkfs's own options (split on blanks, no shell)", "(none)", 78, 0,
	  bc_fs_text_check, bc_fs_no_writes },
	{ "mount_options", "OPTIONS", "mount -o OPTIONS (\"defaults\": none)", "(none)", 79, 0, bc_fs_mount_kcheck,
	  bc_fs_no_writes },
	{ "io_scheduler", "NAME", "the I/O scheduler of the device under the module's path (its members when "
	  "stacked)", "/sys/dev/block/M:N/queue/scheduler", 80, BC_MKF_DEVICE, iosched_check, iosched_plan },
	{ "read_ahead_kb", "KB", "read-ahead of that device", "/sys/dev/block/M:N/queue/read_ahead_kb", 81,
	  BC_MKF_DEVICE, readahead_check, readahead_plan },
	{ "nr_requests", "N", "queue depth of that device", "/sys/dev/block/M:N/queue/nr_requests", 82,
	  BC_MKF_DEVICE, nrreq_check, nrreq_plan },
	{ "cpus", "LIST", "the CPUs the cases may use (\"0\", \"0-3\"): benchcore's affinity, inherited by cases "
	  "and private servers", "(none: sched_setaffinity)", 90, BC_MKF_PROCESS, cpus_check, cpus_plan },
	{ "custom", "{ name; set; read; values; timeout; }", "a setting benchcore does not know: set = \"CMD {value}\" "
	  "(the value passed as an argument, never parsed by the shell), read = \"CMD\", each killed after timeout "
	  "seconds (30)", "(the commands given)",
	  100, BC_MKF_SUB, custom_check, custom_plan },
	{ NULL }
};

const bc_mkind *bc_mkind_find(const char *key)
{
	size_t l = strcspn(key, ".");
	for (const bc_mkind *k = bc_mkinds; k->key; k++)
		if (strlen(k->key) == l && !strncmp(k->key, key, l))
			return (k->flags & BC_MKF_SUB) ? (key[l] ? k : NULL) : (key[l] ? NULL : k);
	return NULL;
}

void bc_mkind_names(char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const bc_mkind *k = bc_mkinds; k->key && o < n; k++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", k->key);
}
