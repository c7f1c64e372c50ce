/* Whether each case fits this machine (fit.h). */
#include <sys/resource.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "engine.h"
#include "fit.h"
#include "sysinfo.h"

#define NEEDS_TIMEOUT_MS 30000

int bc_disk_avail(const char *path, double *avail, const char **at)
{
	static char dir[4096];
	struct statvfs vfs;
	snprintf(dir, sizeof(dir), "%s", path && *path ? path : ".");
	while (statvfs(dir, &vfs) != 0) {
		char *sl = strrchr(dir, '/');
		if ((errno != ENOENT && errno != ENOTDIR) || !strcmp(dir, ".") || !strcmp(dir, "/"))
			return -1;
		if (!sl)
			snprintf(dir, sizeof(dir), ".");
		else if (sl == dir)
			dir[1] = '\0';
		else
			*sl = '\0';
	}
	*avail = (double)vfs.f_bavail * vfs.f_frsize;
	*at = dir;
	return 0;
}

int bc_mem_avail(bc_mem_room *r, bc_err *e)
{
	const char *hook = getenv("BENCHCORE_MEMAVAIL");
	uint64_t v;
	if (!hook || !*hook) {
		bc_sysinfo_mem_room(r);
		return 0;
	}
	memset(r, 0, sizeof(*r));
	if (bc_parse_size(hook, &v)) {
		char *sh = bc_printable(hook);
		bc_err_set(e, "BENCHCORE_MEMAVAIL=\"%s\" is not a size", sh);
		bc_err_detail(e, "It stands for the memory available to the run's cases (a test hook); "
			      "one that cannot be read would leave the memory check off unsaid.");
		bc_err_hint(e, "give bytes (209715200) or a size (200M), or unset it to measure the machine");
		free(sh);
		return -1;
	}
	r->avail = v;
	return 0;
}

/* ", 77.0 MiB available (...)": the figure and where it comes from. */
static void avail_text(const bc_mem_room *m, char *buf, size_t n)
{
	char a[32], l[32], u[32], c[32];
	bc_human_size((double)m->avail, a, sizeof(a));
	if (!m->limit) {
		snprintf(buf, n, "%s available", a);
		return;
	}
	snprintf(buf, n, "%s available (the cgroup %s: limit %s, %s in use, %s of it reclaimable page cache)", a,
		 m->cgroup, bc_human_size((double)m->limit, l, sizeof(l)), bc_human_size((double)m->usage, u, sizeof(u)),
		 bc_human_size((double)m->reclaimable, c, sizeof(c)));
}

/* In the child: open the module, write one bc_need per case to fd. */
static void needs_child(const bc_modplan *p, int fd)
{
	bc_err e;
	size_t nt = p->run.nthreads, stride = p->nopts ? p->nopts : 1;
	bc_val *vals = bc_xcalloc(stride, sizeof(*vals));
	dup2(2, 1);	/* a module's banner is not benchcore's stdout */
	if (bc_module_open((bc_module *)p->mod, &e))
		_exit(3);
	for (size_t pt = 0; pt < p->npoints; pt++) {
		bc_plan_point(p, pt, vals);
		for (size_t ti = 0; ti < nt; ti++) {
			bench_needs_v1 nd;
			bc_need out = { 0 };
			bc_case c = { .mod = p->mod, .vals = vals, .run = p->run, .threads = p->run.threads[ti] };
			bc_err ne;
			if (bc_case_needs(&c, &nd, &ne) != 0) {
				snprintf(out.err, sizeof(out.err), "%.*s", (int)sizeof(out.err) - 1, ne.msg);
				snprintf(out.err_detail, sizeof(out.err_detail), "%.*s", (int)sizeof(out.err_detail) - 1,
					 ne.detail);
				snprintf(out.err_hint, sizeof(out.err_hint), "%.*s", (int)sizeof(out.err_hint) - 1, ne.hint);
			} else {
				out.disk = nd.disk_bytes;
				out.memory = nd.memory_bytes;
				out.cpus = nd.cpus;
				/* 1.4: disk without a path is disk in the scratch directory */
				const char *at = nd.disk_path ? nd.disk_path :
						 nd.disk_bytes && p->mod->desc.abi_minor >= 4 ? bc_scratch_parent() : "";
				out.scratch = !nd.disk_path && nd.disk_bytes && p->mod->desc.abi_minor >= 4;
				snprintf(out.path, sizeof(out.path), "%s", at);
				snprintf(out.why, sizeof(out.why), "%s", nd.why ? nd.why : "");
			}
			if (bc_write_all(fd, (const char *)&out, sizeof(out)))
				_exit(4);
		}
	}
	_exit(0);
}

static int read_all(int fd, char *buf, size_t n, int ms)
{
	size_t got = 0;
	while (got < n) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int r = poll(&pf, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		ssize_t k = read(fd, buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

int bc_needs_eval(const bc_modplan *p, bc_need *out, bc_err *e)
{
	size_t cases = p->npoints * p->run.nthreads;
	memset(out, 0, cases * sizeof(*out));
	if (!p->mod->desc.needs || !cases)
		return 0;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		bc_err_set(e, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		bc_err_set(e, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);	/* killed as a group if it hangs */
		close(fds[0]);
		needs_child(p, fds[1]);
	}
	close(fds[1]);
	int rc = read_all(fds[0], (char *)out, cases * sizeof(*out), NEEDS_TIMEOUT_MS);
	close(fds[0]);
	if (rc)
		kill(-pid, SIGKILL);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (rc || !WIFEXITED(st) || WEXITSTATUS(st)) {
		bc_err_set(e, "needs() of module \"%s\": %s", p->mod->desc.name,
			   rc ? "no answer within 30 s, or the process died" : "the module could not be opened");
		return -1;
	}
	for (size_t i = 0; i < cases; i++) {	/* the child's texts, made safe */
		out[i].path[sizeof(out[i].path) - 1] = out[i].why[sizeof(out[i].why) - 1] = '\0';
		out[i].err[sizeof(out[i].err) - 1] = '\0';
		out[i].err_detail[sizeof(out[i].err_detail) - 1] = out[i].err_hint[sizeof(out[i].err_hint) - 1] = '\0';
		bc_utf8_fix(out[i].why);
		bc_utf8_fix(out[i].err);
		bc_utf8_fix(out[i].err_detail);
		bc_utf8_fix(out[i].err_hint);
		bc_utf8_fix(out[i].path);
	}
	return 0;
}

char *bc_needs_unmet(const bc_modplan *p, const bc_need *nd, const bc_mem_room *mem, double share)
{
	char a[32], b[4096 + 256];
	const char *name = p->mod->desc.name, *at;
	const char *why = nd->why[0] ? nd->why : NULL;
	double avail;
	if (nd->err[0])
		return bc_xasprintf("%s: %s", name, nd->err);
	if (nd->cpus) {
		unsigned usable = bc_sysinfo_usable_cpus(NULL, NULL);
		if (usable < nd->cpus)
			return bc_xasprintf("%s needs %u CPUs, this process may use %u", name, nd->cpus, usable);
	}
	if (nd->memory && mem->avail > 0 && (double)nd->memory > (double)mem->avail * share) {
		avail_text(mem, b, sizeof(b));
		return bc_xasprintf("%s needs %s of memory%s%s%s, %s%s", name,
				    bc_human_size((double)nd->memory, a, sizeof(a)), why ? " (" : "", why ? why : "",
				    why ? ")" : "", b, share < 1 ? " (a case may take half)" : "");
	}
	if (nd->disk && nd->path[0] && bc_disk_avail(nd->path, &avail, &at) == 0 &&
	    (double)nd->disk > avail * share)
		return bc_xasprintf("%s needs %s at %s%s%s%s, %s free%s%s%s", name,
				    bc_human_size((double)nd->disk, a, sizeof(a)), nd->path, why ? " (" : "",
				    why ? why : "", why ? ")" : "", bc_human_size(avail, b, sizeof(b)),
				    strcmp(at, nd->path) ? " at " : "", strcmp(at, nd->path) ? at : "",
				    share < 1 ? " (a case may take half)" : "");
	return NULL;
}

/* The case process's own resident memory before the module takes any:
   benchcore, its libraries, the module's code (about 6 MiB measured); a
   needs() declares what the workload takes beyond it. At least 16 MiB, and
   at least what this process (the runner the case was forked from, with the
   same libraries) peaked at: a sanitizer build's shadow memory and
   quarantine make the host's own share several times larger. */
static uint64_t host_rss(unsigned threads)
{
	struct rusage ru;
	uint64_t own = getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
	own = own > (16ull << 20) ? own : 16ull << 20;
#if defined(__SANITIZE_ADDRESS__)
	/* and ASan's per-thread allocator caches and its quarantine, which grow
	   in the case process with every thread and free (measured: a 1-thread
	   SQLite case 47 MiB against the runner's 36 MiB; the SDK's SQLite
	   example at 2 threads 116.2 MiB, over a flat 64 MiB's bound of about
	   116 in 2 of 4 runs of test_sdk under ASan) */
	own += (64ull + 32ull * threads) << 20;
#else
	(void)threads;
#endif
	return own;
}

void bc_needs_used(const bc_case *c, bc_case_result *cr, uint64_t disk_used)
{
	char a[32], b[32], msg[300];
	if (c->need_disk && disk_used > 2 * c->need_disk) {
		snprintf(msg, sizeof(msg), "needs() declared %s of disk in the scratch directory, the case wrote %s "
			 "there by the end of its window (more than twice)",
			 bc_human_size((double)c->need_disk, a, sizeof(a)), bc_human_size((double)disk_used, b, sizeof(b)));
		bc_case_add_warning(cr, msg);
		if (!bc_case_warnings_later)
			bc_warn("%s: %s", c->mod->desc.name, msg);
	}
	if (!c->need_memory || !cr->peak_rss_bytes || cr->peak_rss_bytes <= 2 * c->need_memory + host_rss(c->threads))
		return;
	snprintf(msg, sizeof(msg), "needs() declared %s of memory, the case's peak RSS was %s (more than twice: "
		 "the plan's check of this machine trusted the smaller figure)",
		 bc_human_size((double)c->need_memory, a, sizeof(a)),
		 bc_human_size((double)cr->peak_rss_bytes, b, sizeof(b)));
	bc_case_add_warning(cr, msg);
	if (!bc_case_warnings_later)
		bc_warn("%s: %s", c->mod->desc.name, msg);
}

void bc_needs_free(char **why, size_t n)
{
	for (size_t i = 0; why && i < n; i++)
		free(why[i]);
	free(why);
}

/* needs() refused the options of a case: the plan's error, as a bad option
   value's, naming the entry and the point. */
static int needs_refused(const bc_modplan *p, const bc_need *nd, size_t cases, bc_err *e)
{
	for (size_t i = 0; i < cases; i++) {
		if (!nd[i].err[0])
			continue;
		size_t nt = p->run.nthreads ? p->run.nthreads : 1;
		bc_val *vals = bc_xcalloc(p->nopts ? p->nopts : 1, sizeof(*vals));
		bc_plan_point(p, i / nt, vals);
		char *pt = bc_plan_point_label(p, vals);
		bc_err_set(e, "%s: module \"%s\"%s%s, threads = %u: %s", p->mc && p->mc->where ? p->mc->where :
			   "command line", p->mod->desc.name, pt && *pt ? " at " : "", pt ? pt : "",
			   p->run.threads[i % nt], nd[i].err);
		bc_err_detail(e, "%s", nd[i].err_detail[0] ? nd[i].err_detail : "its needs() refused these options");
		if (nd[i].err_hint[0])
			bc_err_hint(e, "%s", nd[i].err_hint);
		else
			bc_err_hint(e, "see benchcore help %s", p->mod->desc.name);
		free(pt);
		free(vals);
		return -1;
	}
	return 0;
}

/* The plan says what the module declared (its largest case), so a user and
   a test can hold it against what the case then takes. */
static void needs_say(const bc_modplan *p, const bc_need *nd, size_t cases)
{
	const bc_need *d = NULL, *m = NULL;
	for (size_t i = 0; i < cases; i++) {
		if (nd[i].disk && nd[i].path[0] && (!d || nd[i].disk > d->disk))
			d = &nd[i];
		if (nd[i].memory && (!m || nd[i].memory > m->memory))
			m = &nd[i];
	}
	if (!d && !m)
		return;
	char a[32], disk[1100] = "", mem[64] = "";
	const bc_need *w = d ? d : m;
	if (d)
		snprintf(disk, sizeof(disk), "%s at %s", bc_human_size((double)d->disk, a, sizeof(a)), d->path);
	if (m)
		snprintf(mem, sizeof(mem), "%s of memory", bc_human_size((double)m->memory, a, sizeof(a)));
	bc_info("plan: %s declares up to %s%s%s%s%s%s", p->mod->desc.name, disk, d && m ? " and " : "", mem,
		w->why[0] ? " (" : "", w->why, w->why[0] ? ")" : "");
}

int bc_needs_plan(bc_modplan *p, const bc_mem_room *mem, int profile_small, bc_err *e)
{
	size_t cases = p->npoints * p->run.nthreads;
	char said[1024] = "";
	bc_err err;
	p->need_skip = NULL;
	p->need_skipped = 0;
	if (!p->mod->desc.needs || !cases)
		return 0;
	bc_need *nd = bc_xcalloc(cases, sizeof(*nd));
	for (int round = 0; round < 16; round++) {
		if (bc_needs_eval(p, nd, &err)) {
			bc_warn("%s; its cases run unchecked", err.msg);
			break;
		}
		if (needs_refused(p, nd, cases, e)) {
			free(nd);
			return -1;
		}
		int fits = 1;
		for (size_t i = 0; i < cases && fits; i++) {
			char *w = bc_needs_unmet(p, &nd[i], mem, profile_small ? 0.5 : 1);
			fits = !w;
			free(w);
		}
		if (fits || !profile_small || !bc_plan_shrink(p, 0.5, 0, said, sizeof(said)))
			break;
	}
	if (said[0]) {
		said[strlen(said) - 1] = '\0';
		bc_notice("profile small, module %s:%s", p->mod->desc.name, said);
	}
	needs_say(p, nd, cases);
	char **why = bc_xcalloc(cases, sizeof(*why));
	free(p->need_mem);
	free(p->need_disk);
	bc_needs_free(p->need_path, p->need_path ? cases : 0);
	p->need_mem = bc_xcalloc(cases, sizeof(*p->need_mem));
	p->need_disk = bc_xcalloc(cases, sizeof(*p->need_disk));
	p->need_path = bc_xcalloc(cases, sizeof(*p->need_path));
	for (size_t i = 0; i < cases; i++) {
		if ((why[i] = bc_needs_unmet(p, &nd[i], mem, 1)))
			p->need_skipped++;
		p->need_mem[i] = nd[i].memory;
		p->need_disk[i] = nd[i].disk;
		if (nd[i].disk > p->disk_need)	/* machine.fs sizes its image from it */
			p->disk_need = nd[i].disk;
		/* "" when needs() put it in the scratch directory (no disk_path) */
		p->need_path[i] = bc_xstrdup(nd[i].scratch ? "" : nd[i].path);
	}
	p->need_skip = why;
	free(nd);
	return 0;
}
