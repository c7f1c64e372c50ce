/* Running module probes (probe.h): a child per file opens it, describes its
   descriptor (probe.c's format) and writes the description to a pipe; the
   parent runs several at once, each under its timeout, and turns what came
   back, or how the child ended (a crash, an exit, a hang), into a bc_module
   or a load error. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "probe.h"
#include "reap.h"
#include "util.h"

#define DESC_CAP	(8u << 20)	/* bytes of description accepted */
#define PROBES_AT_ONCE	8

/* ------------------------------------------------------- child: probe */

static int probe_fd = -1;

static void send_all(const char *s)
{
	(void)bc_write_all(probe_fd, s, strlen(s));
}

/* The probe ends: whatever the constructors started (a setsid daemon, a
   double fork) came to it, a subreaper, and goes with it. */
static void probe_exit(void)
{
	bc_kill_strays(NULL, 0);
	_exit(0);
}

static void send_error(const bc_err *e)
{
	json_t *j = json_pack("{s:{s:s?, s:s?, s:s?}}", "error", "msg", e->msg, "detail",
			      e->detail[0] ? e->detail : NULL, "hint", e->hint[0] ? e->hint : NULL);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	send_all(s ? s : "{\"error\":{\"msg\":\"the module's load error is not valid UTF-8\"}}");
	probe_exit();
}

typedef struct objlist {
	char **v;
	size_t n;
} objlist;

static int collect_obj(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	objlist *l = arg;
	if (info->dlpi_name && info->dlpi_name[0] && l->n < BC_PROBE_TABLE_CAP) {
		l->v = bc_xrealloc(l->v, l->n + 1, sizeof(char *));
		l->v[l->n++] = bc_xstrdup(info->dlpi_name);
	}
	return 0;
}

static int in_list(const objlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] && !strcmp(l->v[i], s))
			return 1;
	return 0;
}

/* The libraries the module brought in (for the parent's trust check). */
static json_t *new_libs(const objlist *before, const char *self)
{
	objlist after = { 0 };
	char real[PATH_MAX], me[PATH_MAX];
	dl_iterate_phdr(collect_obj, &after);
	json_t *a = json_array();
	if (!realpath(self, me))
		snprintf(me, sizeof(me), "%s", self);
	for (size_t i = 0; i < after.n; i++)
		if (after.v[i] && !in_list(before, after.v[i]) && realpath(after.v[i], real) && strcmp(real, me)) {
			json_t *s = json_string(real);
			if (s)
				json_array_append_new(a, s);
		}
	return a;
}

static void probe_child(const char *path)
{
	bc_err e;
	objlist before = { 0 };
	dl_iterate_phdr(collect_obj, &before);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		bc_err_set(&e, "could not load module \"%s\"", path);
		bc_err_detail(&e, "%s", dlerror());
		bc_err_hint(&e, "check its dependencies with: ldd %s", path);
		send_error(&e);
	}
	const bench_module_v1 *(*entry)(void);
	*(void **)&entry = dlsym(h, BENCH_ENTRY_SYMBOL);
	if (!entry) {
		bc_err_set(&e, "invalid module \"%s\": no %s symbol", path, BENCH_ENTRY_SYMBOL);
		bc_err_detail(&e, "Every benchcore module exports one entry function.");
		bc_err_hint(&e, "define it with BENCH_MODULE(descriptor) from <benchcore/module.h>; is this a benchcore module?");
		send_error(&e);
	}
	const bench_module_v1 *d = entry();
	if (!d) {
		bc_err_set(&e, "invalid module \"%s\": its entry function returned NULL", path);
		bc_err_detail(&e, "%s() must return the address of the module's descriptor.", BENCH_ENTRY_SYMBOL);
		bc_err_hint(&e, "define the entry with BENCH_MODULE(descriptor); a descriptor is a static const bench_module_v1");
		send_error(&e);
	}
	char *s = NULL;
	if (bc_module_check_header(path, d, &e) || !(s = bc_probe_describe_host(path, d, &e)))
		send_error(&e);
	json_t *root = json_loads(s, 0, NULL);
	json_object_set_new(root, "libs", new_libs(&before, path));
	char *out = json_dumps(root, JSON_COMPACT);
	send_all(out ? out : s);
	probe_exit();
}

/* ------------------------------------------------------- parent: run */

typedef struct active {
	bc_probe *p;
	pid_t pid;
	int out, err;			/* read ends; -1 at EOF */
	char *buf;
	size_t len, cap;
	char tail[512];			/* the last bytes it printed */
	size_t tlen;
	uint64_t deadline;
	int too_big;
} active;

static double probe_timeout(void)
{
	const char *s = getenv("BENCHCORE_PROBE_TIMEOUT");
	double t;
	if (s && !bc_parse_double(s, &t) && t > 0 && t <= 3600)
		return t;
	return BC_PROBE_TIMEOUT_S;
}

static int start_probe(active *a, bc_probe *p, double timeout)
{
	int out[2], err[2];
	memset(a, 0, sizeof(*a));
	a->p = p;
	if (pipe2(out, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) != 0) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		setsid();	/* a session of its own: what it starts is killed with it, and
				   kill(0, ...) in a constructor reaches only the probe */
		prctl(PR_SET_CHILD_SUBREAPER, 1);	/* a daemon it starts stays its child */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(err[1], 1);	/* its prints never reach benchcore's stdout */
		dup2(err[1], 2);
		probe_fd = out[1];
		probe_child(p->path);
		_exit(0);
	}
	close(out[1]);
	close(err[1]);
	if (pid < 0) {
		close(out[0]);
		close(err[0]);
		return -1;
	}
	/* no setpgid here: setsid in the child would fail for a group leader */
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	a->pid = pid;
	a->out = out[0];
	a->err = err[0];
	a->cap = 65536;
	a->buf = bc_xmalloc(a->cap);
	a->deadline = bc_now_ns() + (uint64_t)(timeout * 1e9);
	return 0;
}

/* Reads what is there; 1 when both pipes are at EOF. */
static int drain(active *a)
{
	char tmp[4096];
	ssize_t n = -1;	/* no EOF seen (gcc 14 at -O1 cannot tell the pipes' tests apart) */
	while (a->out >= 0 && (n = read(a->out, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (a->len + (size_t)n > DESC_CAP) {
			a->too_big = 1;
			continue;
		}
		while (a->len + (size_t)n + 1 > a->cap)
			a->buf = bc_xrealloc(a->buf, a->cap *= 2, 1);
		memcpy(a->buf + a->len, tmp, (size_t)n);
		a->len += (size_t)n;
	}
	if (a->out >= 0 && n == 0) {
		close(a->out);
		a->out = -1;
	}
	while (a->err >= 0 && (n = read(a->err, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {	/* keep the last bytes */
			if (a->tlen == sizeof(a->tail) - 1) {
				memmove(a->tail, a->tail + 256, a->tlen - 256);
				a->tlen -= 256;
			}
			a->tail[a->tlen++] = tmp[i];
		}
	}
	if (a->err >= 0 && n == 0) {
		close(a->err);
		a->err = -1;
	}
	return a->out < 0 && a->err < 0;
}

/* The last line the probe printed, for the detail. */
static const char *last_line(active *a)
{
	a->tail[a->tlen] = '\0';
	while (a->tlen && (a->tail[a->tlen - 1] == '\n' || a->tail[a->tlen - 1] == '\r'))
		a->tail[--a->tlen] = '\0';
	char *nl = strrchr(a->tail, '\n');
	char *s = nl ? nl + 1 : a->tail;
	for (char *c = s; *c; c++)
		if ((unsigned char)*c < 32)
			*c = ' ';
	return s;
}

static void finish_probe(active *a, int st, int timed_out, double timeout)
{
	bc_probe *p = a->p;
	const char *path = p->path, *said = last_line(a);
	char printed[600] = "";
	if (*said)
		snprintf(printed, sizeof(printed), " Its last output: \"%.500s\".", said);
	/* a whole description (or load error) is the answer, whatever the exit
	   status: the child wrote it last (under valgrind it exits 99 on leaks) */
	int parsed = !timed_out && !a->too_big && a->len ? bc_probe_parse(a->buf, a->len, path, &p->m, &p->err) : -2;
	if (parsed == 0) {
		p->ok = 1;
		return;
	}
	if (parsed == -1)
		return;
	memset(&p->m, 0, sizeof(p->m));
	if (timed_out) {
		bc_err_set(&p->err, "could not load module \"%s\": loading it did not finish within %g s (killed)",
			   path, timeout);
		bc_err_detail(&p->err, "A constructor of the module or of a library it links hangs; it ran in a "
			      "probe process, never in benchcore's.%s", printed);
		bc_err_hint(&p->err, "find what the constructor waits for (gdb --args benchcore list); "
			    "BENCHCORE_PROBE_TIMEOUT sets the limit in seconds");
	} else if (WIFSIGNALED(st)) {
		bc_err_set(&p->err, "could not load module \"%s\": it crashed while loading (signal %d, %s)", path,
			   WTERMSIG(st), strsignal(WTERMSIG(st)));
		bc_err_detail(&p->err, "A constructor of the module or of a library it links, or its entry "
			      "function, failed; it ran in a probe process, never in benchcore's.%s", printed);
		bc_err_hint(&p->err, "run its constructors under a debugger: gdb --args benchcore list");
	} else if (a->too_big) {
		bc_err_set(&p->err, "invalid module \"%s\": its description is larger than %u bytes", path, DESC_CAP);
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || a->len == 0 || parsed == -2) {
		bc_err_set(&p->err, "could not load module \"%s\": it exited with status %d while loading", path,
			   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		bc_err_detail(&p->err, "A constructor of the module or of a library it links, or its entry "
			      "function, called exit(); a module never exits.%s", printed);
		bc_err_hint(&p->err, "remove the exit() from the module's constructors");
		if (parsed == -2 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && a->len)
			bc_probe_parse(a->buf, a->len, path, &p->m, &p->err);	/* the malformed message */
	}
}

/* Reaps a probe that exited (st set) or ran out of time, and whatever it
   started (its process group), then judges what it sent. */
static void end_probe(active *a, int timed_out, double timeout)
{
	int st = 0;
	kill(-a->pid, SIGKILL);	/* the child is a zombie or stuck: its group goes */
	if (timed_out)
		kill(a->pid, SIGKILL);
	while (waitpid(a->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!timed_out)
		drain(a);
	if (a->out >= 0)
		close(a->out);
	if (a->err >= 0)
		close(a->err);
	finish_probe(a, st, timed_out, timeout);
	free(a->buf);
}

/* Has it exited? Seen without reaping, so its pid (and process group) stay
   reserved until its group is killed. */
static int exited(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

void bc_probe_files(bc_probe *p, size_t n)
{
	double timeout = probe_timeout();
	active act[PROBES_AT_ONCE];
	size_t nact = 0, next = 0;
	/* a probe killed at its timeout leaves its orphans to benchcore (a
	   subreaper), which kills them below; its children before stay */
	pid_t *keep = bc_xcalloc(BC_MAX_KIDS, sizeof(pid_t));
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	size_t nkeep = bc_children_of(getpid(), keep, BC_MAX_KIDS);
	while (next < n || nact) {
		while (next < n && nact < PROBES_AT_ONCE) {
			memset(&p[next].m, 0, sizeof(p[next].m));
			p[next].ok = 0;
			if (start_probe(&act[nact], &p[next], timeout)) {
				bc_err_set(&p[next].err, "could not load module \"%s\": could not start a probe process: %s",
					   p[next].path, strerror(errno));
			} else {
				nact++;
			}
			next++;
		}
		struct pollfd pf[2 * PROBES_AT_ONCE];
		int np = 0;
		uint64_t now = bc_now_ns(), first = UINT64_MAX;
		for (size_t i = 0; i < nact; i++) {
			if (act[i].out >= 0)
				pf[np++] = (struct pollfd){ .fd = act[i].out, .events = POLLIN };
			if (act[i].err >= 0)
				pf[np++] = (struct pollfd){ .fd = act[i].err, .events = POLLIN };
			if (act[i].deadline < first)
				first = act[i].deadline;
		}
		uint64_t wait_ms = first > now ? (first - now) / 1000000u + 1 : 0, cap = np ? 100 : 5;
		poll(pf, (nfds_t)np, (int)(wait_ms > cap ? cap : wait_ms));
		now = bc_now_ns();
		for (size_t i = 0; i < nact;) {
			drain(&act[i]);
			int done = exited(act[i].pid);
			if (done || now >= act[i].deadline) {
				end_probe(&act[i], !done, timeout);
				act[i] = act[--nact];
			} else {
				i++;
			}
		}
	}
	bc_kill_strays(keep, nkeep);
	free(keep);
}
