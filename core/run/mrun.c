/* Machine settings while a run runs (mrun.h). */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mrun.h"
#include "mset.h"
#include "service.h"
#include "fsdev.h"

typedef struct bc_mrun {
	bc_mstate st;
	cpu_set_t aff;		/* benchcore's affinity as found (the cpus setting changes it) */
	int have_aff, aff_changed;
	const bc_modplan *p;	/* the combination applied now: p's point pt (p NULL: originals) */
	size_t combo;
	int applied;
	bc_fs *fs;		/* machine.fs: the file system mounted now, and its spec */
	bc_fs_spec fs_spec;
	unsigned fs_made;	/* file systems made so far */
	uint64_t thp_change_ns;	/* CLOCK_BOOTTIME of the last change of a THP file (0: none) */
} bc_mrun;

static bc_mrun *live;	/* for the atexit backstop */

/* CLOCK_BOOTTIME in ns: the clock of /proc/PID/stat's start time. */
static uint64_t boot_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static pid_t owner;	/* the runner: a case child that calls exit() inherits the handler */

static void at_exit(void)
{
	if (live && getpid() == owner)
		bc_mrun_end(live);
}

int bc_mrun_begin(bc_mrun **out, const bc_modplan *plans, size_t n, char *other, size_t on)
{
	int any = 0;
	*out = NULL;
	other[0] = '\0';
	for (size_t i = 0; i < n; i++)
		any |= plans[i].nmdims > 0;
	if (!any) {
		bc_mcounts c = { 0 };
		if (bc_mstate_holder(other, on))
			bc_warn("another run's machine settings are applied (%s): this run measures the machine as that "
				"run set it (its fingerprint says so)", other);
		else if (geteuid() == 0 && bc_mstate_recover(stderr, &c) >= 0 && c.restored)
			bc_info("restored %d machine setting%s a benchcore run killed outright had changed", c.restored,
				c.restored == 1 ? "" : "s");
		if (c.refused)
			bc_warn("nothing was restored from the journal refused above; this run changes no machine setting "
				"and goes on (a run that changes settings would be refused)");
		return 0;
	}
	bc_mrun *m = bc_xcalloc(1, sizeof(*m));
	bc_err e;
	m->st.lock_fd = -1;
	if (bc_mstate_begin(&m->st, &e)) {
		bc_err_print(&e);
		free(m);
		return -1;
	}
	m->have_aff = sched_getaffinity(0, sizeof(m->aff), &m->aff) == 0;
	live = m;
	owner = getpid();
	static int registered;
	if (!registered++)
		atexit(at_exit);
	*out = m;
	return 0;
}

static int same_combo(const bc_mrun *m, const bc_modplan *p, size_t pt)
{
	if (!m->applied || m->p != p)
		return m->applied && !m->p && !p->nmdims;
	return !p->nmdims || m->combo == pt / p->optpoints;
}

/* The cpus setting: benchcore's own affinity, which cases and servers inherit. */
static int set_affinity(bc_mrun *m, const char *cpus, char *why, size_t n)
{
	cpu_set_t s;
	if (!cpus) {
		if (m->aff_changed && m->have_aff)
			sched_setaffinity(0, sizeof(m->aff), &m->aff);
		m->aff_changed = 0;
		return 0;
	}
	unsigned char *set = bc_mcpu_list_parse(cpus);
	CPU_ZERO(&s);
	for (int c = 0; set && c < BC_MCPU_MAX && c < CPU_SETSIZE; c++)
		if (set[c])
			CPU_SET(c, &s);
	free(set);
	if (sched_setaffinity(0, sizeof(s), &s)) {
		snprintf(why, n, "cpus = \"%s\": sched_setaffinity: %s", cpus, strerror(errno));
		return -1;
	}
	m->aff_changed = 1;
	return 0;
}

/* The fs record goes in the journal before each thing is made. */
static int fs_journal(void *ctx, const char *text)
{
	bc_mrun *m = ctx;
	char *f[] = { "fs", (char *)text, NULL };
	bc_err e;
	if (bc_mstate_record(&m->st, f, &e)) {
		bc_err_print(&e);
		return -1;
	}
	return 0;
}

static int fs_down(bc_mrun *m, char *why, size_t n)
{
	bc_err e;
	int rc = bc_fs_teardown(m->fs, &e);
	m->fs = NULL;
	if (rc && why)
		snprintf(why, n, "%s", e.msg);
	return rc;
}

/* machine.fs: the point's file system, made when it differs from the one
   mounted (which is torn down first); kept across modules that ask for
   the same. */
static int fs_step(bc_mrun *m, const bc_modplan *p, size_t pt, FILE *text, char *why, size_t n)
{
	bc_fs_spec s;
	int want = p->nmdims && bc_plan_fsspec(p, pt, &s);
	if (m->fs && (!want || memcmp(&s, &m->fs_spec, sizeof(s)))) {
		bc_service_stop_all();	/* a private server's files are on it (oltp's datadir) */
		if (fs_down(m, why, n))
			return -1;
	}
	if (!want || m->fs)
		return 0;
	bc_err e;
	if (bc_fs_apply(&s, 0, fs_journal, m, &m->fs, &e)) {
		snprintf(why, n, "%s%s%s", e.msg, e.detail[0] ? ": " : "", e.detail);
		return -1;
	}
	m->fs_spec = s;
	m->fs_made++;
	const bc_fs_record *r = bc_fs_rec(m->fs);
	if (text && !bc_quiet)
		fprintf(text, "    machine: %s made on %s (mkfs %.2f s, mount %.2f s), mounted on %s\n", r->type,
			r->device, r->make_s, r->mount_s, r->mount_point);
	return 0;
}

int bc_mrun_apply(bc_mrun *m, const bc_modplan *p, size_t pt, FILE *text, char *why, size_t n)
{
	if (!m || same_combo(m, p, pt))
		return 0;
	bc_mwrites ws = { 0 };
	bc_err e;
	int changed = 0, rc = 0, restart = 0;
	uint64_t t0 = bc_now_ns();
	if (p->nmdims && bc_plan_mwrites(p, pt, &ws, &e)) {
		snprintf(why, n, "machine settings: %s", e.msg);
		bc_mwrites_free(&ws);
		return -1;
	}
	if (bc_mstate_apply(&m->st, &ws, &changed, &e)) {
		snprintf(why, n, "machine settings: %s", e.msg);
		rc = -1;
	}
	if (!rc)
		rc = set_affinity(m, p->nmdims ? bc_plan_mvalue(p, pt, "cpus") : NULL, why, n);
	if (!rc)
		rc = fs_step(m, p, pt, text, why, n);
	for (size_t i = 0; i < p->nmdims; i++)
		restart |= (p->mdims[i].kind->flags & BC_MKF_RESTART) != 0;
	if (changed && (restart || (m->p && m->p != p))) {
		bc_service_stop_all();	/* THP affects new allocations: servers start again under it */
		m->thp_change_ns = boot_ns();
	}
	m->applied = !rc;
	m->p = p->nmdims ? p : NULL;
	m->combo = p->optpoints ? pt / p->optpoints : 0;
	if (changed && text && !bc_quiet) {
		char *l = p->nmdims ? bc_plan_mlabel(p, pt) : bc_xstrdup("");
		fprintf(text, "    machine: %s%s (%zu file%s, %.1f ms)\n", p->nmdims ? (*l ? l : "settings applied") :
			"originals restored", rc ? ": failed" : "", ws.n, ws.n == 1 ? "" : "s",
			(double)(bc_now_ns() - t0) / 1e6);
		free(l);
	}
	bc_mwrites_free(&ws);
	return rc;
}

static void add_why(char **acc, const char *fmt, double a, double b, const char *key)
{
	char one[256];
	snprintf(one, sizeof(one), fmt, key, a, b);
	char *t = bc_xasprintf("%s%s%s", *acc ? *acc : "", *acc ? "; " : "", one);
	free(*acc);
	*acc = t;
}

void bc_mrun_verify(const bc_modplan *p, size_t pt, bc_case_result *cr)
{
	if (!p->nmdims)
		return;
	json_decref(cr->machine);
	cr->machine = bc_plan_mjson(p, pt);
	bc_fs_spec s;
	if (live && live->fs && bc_plan_fsspec(p, pt, &s)) {
		bc_err e;
		json_decref(cr->fs);
		cr->fs = bc_fs_record_json(bc_fs_rec(live->fs));
		if (!bc_fs_rec(live->fs)->o_direct)	/* a module's direct I/O fails there: said with the case */
			bc_case_add_warning(cr, bc_fs_rec(live->fs)->o_direct_refused);
		if (bc_fs_verify(live->fs, &e)) {
			free(cr->setting_not_in_effect);
			cr->setting_not_in_effect = bc_xstrdup(e.msg);
			bc_case_add_warning(cr, e.msg);
		}
	}
	if (strcmp(cr->status ? cr->status : "", "ok"))
		return;
	char *why = NULL, cur[256];
	const char *oc = bc_plan_mvalue(p, pt, "online_cpus"), *cpus = bc_plan_mvalue(p, pt, "cpus");
	const char *f = bc_plan_mvalue(p, pt, "cpu_freq");
	long want = 0;
	if (cpus) {
		unsigned char *set = bc_mcpu_list_parse(cpus);
		for (int c = 0; set && c < BC_MCPU_MAX; c++)
			want += set[c] && (!oc || c < atoi(oc));
		free(set);
	} else if (oc) {
		want = atol(oc);
	}
	if (want && cr->cpu.cpus_n > 0 && cr->cpu.cpus_n != want)
		add_why(&why, "%s: the case could run on %.0f CPUs, not %.0f", (double)cr->cpu.cpus_n, (double)want,
			cpus ? "cpus" : "online_cpus");
	if (f && isfinite(cr->freq.measured_mhz)) {
		double asked = strtod(f, NULL) / 1e3;
		if (fabs(cr->freq.measured_mhz - asked) > 0.05 * asked)
			add_why(&why, "%s: asked %.0f MHz, measured %.0f MHz", asked, cr->freq.measured_mhz, "cpu_freq");
	}
	static const char *const thp[][2] = { { "thp", "/sys/kernel/mm/transparent_hugepage/enabled" },
					      { "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag" } };
	for (size_t i = 0; i < 2; i++) {
		const char *v = bc_plan_mvalue(p, pt, thp[i][0]);
		if (v && (bc_mread(thp[i][1], cur, sizeof(cur)) || strcmp(cur, v))) {
			char *t = bc_xasprintf("%s%s%s: %s reads \"%s\", not \"%s\"", why ? why : "", why ? "; " : "",
					       thp[i][0], thp[i][1], cur, v);
			free(why);
			why = t;
		}
	}
	const char *thpv = bc_plan_mvalue(p, pt, "thp");
	if (thpv && live) {
		pid_t pids[64];
		size_t np = bc_service_pids(pids, 64);
		json_decref(cr->thp_servers);
		cr->thp_servers = np ? json_array() : NULL;
		for (size_t i = 0; i < np; i++) {
			char *w = NULL;
			json_array_append_new(cr->thp_servers, bc_mrun_server_thp(pids[i], live->thp_change_ns, thpv, &w));
			if (w) {
				char *t = bc_xasprintf("%s%s%s", why ? why : "", why ? "; " : "", w);
				free(why);
				free(w);
				why = t;
			}
		}
	}
	if (why) {
		free(cr->setting_not_in_effect);
		cr->setting_not_in_effect = why;
		char *w = bc_xasprintf("setting_not_in_effect: %s", why);
		bc_case_add_warning(cr, w);
		free(w);
	}
}

/* A field of /proc/PID/FILE's "Key: value" lines as a number; -1 when absent. */
static long long proc_field(pid_t pid, const char *file, const char *key)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, file);
	FILE *f = fopen(path, "re");
	long long v = -1;
	size_t kl = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/* The process's start, CLOCK_BOOTTIME ns (/proc/PID/stat's 22nd field), or 0. */
static uint64_t start_ns(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "re");
	size_t r = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[r] = '\0';
	const char *p = strrchr(buf, ')');	/* after the command name, which may hold blanks */
	unsigned long long ticks = 0;
	for (int field = 2; p && *p && field < 22; p++)
		field += *p == ' ';
	if (!p || sscanf(p, "%llu", &ticks) != 1)
		return 0;
	long hz = sysconf(_SC_CLK_TCK);
	return ticks * (1000000000ull / (unsigned long long)(hz > 0 ? hz : 100));
}

json_t *bc_mrun_server_thp(pid_t pid, uint64_t change_ns, const char *thp, char **why)
{
	char comm[64] = "", path[64];
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	FILE *f = fopen(path, "re");
	if (f && fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = '\0';
	if (f)
		fclose(f);
	long long huge = proc_field(pid, "smaps_rollup", "AnonHugePages");
	long long on = proc_field(pid, "status", "THP_enabled");
	uint64_t st = start_ns(pid);
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t tick = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	/* the start time counts in ticks: started in the tick of the change is after it */
	int after = !change_ns || (st && st + tick >= change_ns);
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(comm));
	json_object_set_new(o, "pid", json_integer(pid));
	if (huge >= 0)
		json_object_set_new(o, "anon_huge_kb", json_integer(huge));
	if (on >= 0)
		json_object_set_new(o, "thp_enabled", json_boolean(on));
	json_object_set_new(o, "started_after_change", json_boolean(after));
	*why = NULL;
	if (!after)
		*why = bc_xasprintf("thp: the private server %s (pid %ld) started before THP was set to %s: its memory "
				    "was allocated under the setting before", comm, (long)pid, thp);
	else if (!strcmp(thp, "never") && huge > 0)
		*why = bc_xasprintf("thp: never, but the private server %s (pid %ld) holds %lld kB of AnonHugePages "
				    "(/proc/%ld/smaps_rollup)", comm, (long)pid, huge, (long)pid);
	else if (strcmp(thp, "never") && on == 0)
		*why = bc_xasprintf("thp: %s, but the private server %s (pid %ld) turned THP off for itself "
				    "(THP_enabled: 0 in /proc/%ld/status: prctl PR_SET_THP_DISABLE, as redis-server's "
				    "disable-thp does)", thp, comm, (long)pid, (long)pid);
	return o;
}

unsigned bc_mrun_fs_made(const bc_mrun *m)
{
	return m ? m->fs_made : 0;
}

const char *bc_mrun_fs_dir(const bc_mrun *m)
{
	return m && m->fs ? bc_fs_dir(m->fs) : NULL;
}

void bc_mrun_end(bc_mrun *m)
{
	if (!m)
		return;
	set_affinity(m, NULL, NULL, 0);
	char why[1024];
	if (m->fs)
		bc_service_stop_all();	/* before the unmount: their files are there */
	if (m->fs && fs_down(m, why, sizeof(why)))
		bc_warn("machine.fs: %s (benchcore restore tries again)", why);
	bc_mstate_end(&m->st);
	if (live == m)
		live = NULL;
	free(m);
}
