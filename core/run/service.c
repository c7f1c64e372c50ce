/* Private servers: fork + exec in a process group of their own, a readiness
 * poll, a registry per (module, name), and stops that always end with the
 * whole group killed. See service.h for the contract. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "engine.h"
#include "service.h"
#include "reap.h"
#include "util.h"

#define DEFAULT_READY_S	30
#define STOP_WAIT_S	5
#define LOG_TAIL_LINES	10
#define MAX_EXTRA	8	/* processes a server left at start besides its leader */

extern volatile sig_atomic_t bc_signals;	/* schedule.c: 2 = a second Ctrl-C */

typedef struct svc {
	char *module, *name, *log, *argv0;
	pid_t pid;			/* also its process group */
	pid_t extra[MAX_EXTRA];		/* what it daemonized: orphans the runner (a subreaper)
					   adopted while it started; stopped with it */
	size_t nextra;
	int stop_signal;
	int exited;			/* seen exiting (not reaped yet: keeps the group id ours) */
} svc;

static svc *svcs;
static size_t nsvcs;
static pid_t owner;			/* the process that started them: only it stops them */

size_t bc_service_count(void)
{
	return owner == getpid() ? nsvcs : 0;
}

size_t bc_service_pids(pid_t *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; owner == getpid() && i < nsvcs; i++) {
		if (n < cap)
			out[n++] = svcs[i].pid;
		for (size_t k = 0; k < svcs[i].nextra && n < cap; k++)
			out[n++] = svcs[i].extra[k];
	}
	return n;
}

static svc *find(const char *module, const char *name)
{
	for (size_t i = 0; i < nsvcs; i++)
		if (!strcmp(svcs[i].module, module) && !strcmp(svcs[i].name, name))
			return &svcs[i];
	return NULL;
}

static void drop(svc *s)
{
	free(s->module);
	free(s->name);
	free(s->log);
	free(s->argv0);
	*s = svcs[--nsvcs];
}

/* ----------------------------------------------------------------- start */

/* In the forked child: never returns. */
static void server_child(const bench_server_spec_v1 *spec, const char *dir, int logfd, pid_t parent)
{
	static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* benchcore died before prctl: nobody would stop us */
		_exit(127);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);	/* an ignored SIGPIPE would survive exec */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul >= 0)
		dup2(nul, 0);
	dup2(logfd, 1);
	dup2(logfd, 2);
	for (const char *const *e = spec->env; e && *e; e++)
		putenv((char *)*e);
	const char *wd = spec->workdir ? spec->workdir : dir;
	if (chdir(wd) != 0) {
		dprintf(2, "benchcore: cannot enter the working directory %s: %s\n", wd, strerror(errno));
		_exit(127);
	}
	execvp(spec->argv[0], (char *const *)spec->argv);
	dprintf(2, "benchcore: cannot run %s: %s\n", spec->argv[0], strerror(errno));
	_exit(127);
}

static pid_t spawn(const bench_server_spec_v1 *spec, const char *dir, const char *log, bc_err *e)
{
	int logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (logfd < 0) {
		bc_err_set(e, "could not create its log %s: %s", log, strerror(errno));
		return -1;
	}
	pid_t parent = getpid();
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0)
		server_child(spec, dir, logfd, parent);
	close(logfd);
	if (pid < 0) {
		bc_err_set(e, "could not fork: %s", strerror(errno));
		return -1;
	}
	setpgid(pid, pid);	/* also here, so no stop can come before the group exists */
	return pid;
}

/* 1 when the readiness address accepts a connection. */
static int probe(const bench_server_spec_v1 *spec)
{
	int fd, ok;
	if (spec->ready_unix) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", spec->ready_unix);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	} else {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)spec->ready_port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

static void ready_what(const bench_server_spec_v1 *spec, char *buf, size_t n)
{
	if (spec->ready_unix)
		snprintf(buf, n, "unix socket %s", spec->ready_unix);
	else
		snprintf(buf, n, "127.0.0.1:%d", spec->ready_port);
}

/* The runner's children now that were not before and are not the leader:
   what a server daemonized (its orphans come to the runner, a subreaper). */
static size_t adopted(const pid_t *before, size_t nbefore, pid_t leader, pid_t *out, size_t cap)
{
	pid_t kids[BC_MAX_KIDS];
	size_t n = bc_children_of(getpid(), kids, BC_MAX_KIDS), k = 0;
	for (size_t i = 0; i < n && k < cap; i++) {
		int old = kids[i] == leader;
		for (size_t j = 0; j < nbefore && !old; j++)
			old = before[j] == kids[i];
		if (!old)
			out[k++] = kids[i];
	}
	return k;
}

/* root's descendants (children, their children, ...), at most cap: what a
   leader that is still running has started, before it may exit and leave
   them (a daemon after its fork) to the runner. */
static size_t descendants(pid_t root, pid_t *out, size_t cap)
{
	size_t n = 0;
	pid_t kids[BC_MAX_KIDS];
	for (size_t at = 0, k; ; at++) {
		pid_t p = at == 0 ? root : out[at - 1];
		size_t nk = bc_children_of(p, kids, BC_MAX_KIDS);
		for (k = 0; k < nk && n < cap; k++)
			out[n++] = kids[k];
		if (at >= n)
			break;
	}
	return n;
}

/* Polls the readiness check. 0 ready; -1 with e set (*reaped when the
   process already exited and was waited for). A leader that exits 0 while
   a process it started lives on has daemonized (redis-server --daemonize
   yes): the wait goes on for that one. */
static int wait_ready(const bench_server_spec_v1 *spec, pid_t pid, const pid_t *before, size_t nbefore,
		      int *reaped, bc_err *e)
{
	double limit = spec->ready_timeout_s > 0 ? spec->ready_timeout_s : DEFAULT_READY_S;
	uint64_t deadline = bc_now_ns() + (uint64_t)(limit * 1e9);
	char what[160];
	ready_what(spec, what, sizeof(what));
	for (;;) {
		int st = 0;
		pid_t one;
		if (!*reaped && waitpid(pid, &st, WNOHANG) == pid) {
			*reaped = 1;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && adopted(before, nbefore, pid, &one, 1))
				continue;	/* daemonized */
			if (WIFSIGNALED(st))
				bc_err_set(e, "it was killed by signal %d before it was ready", WTERMSIG(st));
			else
				bc_err_set(e, "it exited with status %d before it was ready", WEXITSTATUS(st));
			return -1;
		}
		if (probe(spec))
			return 0;
		if (bc_stop_requested) {
			bc_err_set(e, "interrupted while waiting for it to be ready");
			return -1;
		}
		if (bc_now_ns() >= deadline) {
			bc_err_set(e, "it was not ready within %g s (nothing accepted a connection on %s)",
				   limit, what);
			return -1;
		}
		bc_sleep_until(bc_now_ns() + 20000000u);
	}
}

/* Appends the last lines of the log to err, as many as fit. */
static void add_log_tail(const char *log, char *err, size_t n)
{
	char buf[4096];
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	off_t end = lseek(fd, 0, SEEK_END), from = end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0;
	ssize_t got = pread(fd, buf, sizeof(buf) - 1, from);
	close(fd);
	size_t len = strlen(err);
	if (got <= 0) {
		snprintf(err + len, n - len, "; its log is empty");
		return;
	}
	buf[got] = '\0';
	while (got > 0 && buf[got - 1] == '\n')
		buf[--got] = '\0';
	/* start at the LOG_TAIL_LINES-th newline from the end, then drop whole
	   lines from the front until the rest fits */
	char *p = buf + got;
	for (int lines = 0; p > buf && lines < LOG_TAIL_LINES; )
		if (*--p == '\n' && ++lines == LOG_TAIL_LINES)
			p++;
	size_t frame = 64 + 7 * (LOG_TAIL_LINES + 1);	/* the text around the lines */
	if (len + frame + 32 >= n)
		return;
	size_t room = n - len - frame;
	while (strlen(p) > room && strchr(p, '\n'))
		p = strchr(p, '\n') + 1;
	if (strlen(p) > room)
		p += strlen(p) - room;
	/* the lines themselves, not the log's path: it lies in the module
	   directory, which is removed at the end of the run */
	len += (size_t)snprintf(err + len, n - len, "; last lines of its log:");
	/* one "| " line each, under the reason; bytes that are not printable
	   ASCII become '?', so the reason stays valid JSON text */
	for (int bol = 1; *p && len + 8 < n; p++) {
		if (bol) {
			memcpy(err + len, "\n    | ", 7);
			len += 7;
		}
		bol = *p == '\n';
		if (!bol)
			err[len++] = (*p >= 32 && *p < 127) || *p == '\t' ? *p : '?';
	}
	err[len] = '\0';
}

/* A file name for the log from the spec's name. */
static char *log_path(const char *dir, const char *name)
{
	char *log = bc_xasprintf("%s/%s.log", dir, name), *base = log + strlen(dir) + 1;
	for (char *c = base; *c && c < log + strlen(log) - 4; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '-' || *c == '_' || *c == '.'))
			*c = '_';
	return log;
}

static int check_spec(const bench_server_spec_v1 *spec, const char *dir, bc_err *e)
{
	if (!spec || !spec->name || !*spec->name || !spec->argv || !spec->argv[0]) {
		bc_err_set(e, "a server spec needs a name and argv");
		return -1;
	}
	if (!spec->ready_unix && spec->ready_port <= 0) {
		bc_err_set(e, "private server \"%s\": its spec has no readiness check (ready_unix or ready_port)",
			   spec->name);
		return -1;
	}
	if (spec->ready_unix && strlen(spec->ready_unix) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		bc_err_set(e, "private server \"%s\": the socket path %s is too long for a unix socket",
			   spec->name, spec->ready_unix);
		return -1;
	}
	if (spec->ready_port > 65535) {
		bc_err_set(e, "private server \"%s\": ready_port %d is not a TCP port", spec->name, spec->ready_port);
		return -1;
	}
	if (!dir) {
		bc_err_set(e, "private server \"%s\": the module has no directory for its log", spec->name);
		return -1;
	}
	if (owner && owner != getpid()) {
		bc_err_set(e, "private server \"%s\": only the runner process starts servers", spec->name);
		return -1;
	}
	return 0;
}

/* A registered server that has exited meanwhile is dropped (its group killed);
   one whose leader exited 0 after it was ready while a process it started
   lives on daemonized late: that process is the server now. */
static int still_running(svc *s)
{
	int st;
	if (waitpid(s->pid, &st, WNOHANG) != s->pid)
		return 1;
	for (size_t k = 0; WIFEXITED(st) && WEXITSTATUS(st) == 0 && k < s->nextra; k++)
		if (kill(s->extra[k], 0) == 0) {
			s->pid = s->extra[k];
			s->extra[k] = s->extra[--s->nextra];
			return 1;
		}
	kill(-s->pid, SIGKILL);	/* whatever it left in its group */
	char tail[1024] = "";
	add_log_tail(s->log, tail, sizeof(tail));
	bc_warn("%s: private server \"%s\" (pid %d) had exited; starting it again%s", s->module, s->name,
		(int)s->pid, tail);
	drop(s);
	return 0;
}

int bc_service_start(const char *module, const bench_server_spec_v1 *spec, const char *dir,
		     bc_err *e)
{
	if (check_spec(spec, dir, e))
		return -1;
	svc *s = find(module, spec->name);
	if (s && still_running(s))
		return 0;
	char *log = log_path(dir, spec->name);
	bc_err why = { .msg = "" };
	int reaped = 0;
	static int subreaper;
	if (!subreaper)	/* what a server daemonizes comes to us, not to init */
		subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
	pid_t before[BC_MAX_KIDS], extra[MAX_EXTRA];
	size_t nbefore = bc_children_of(getpid(), before, BC_MAX_KIDS);
	pid_t pid = spawn(spec, dir, log, &why);
	if (pid > 0 && wait_ready(spec, pid, before, nbefore, &reaped, &why) == 0) {
		if (!owner) {
			owner = getpid();
			atexit(bc_service_stop_all);	/* exit paths that skip the runner's own stop */
		}
		/* what the leader runs besides itself (a daemon ready before its
		   parent has exited), then the orphans it left: in that order, so
		   a leader exiting between the two looks leaves its daemon in one
		   (adopted first missed it: still the leader's child then, none of
		   the leader's a moment later, and a second case started a second
		   daemon); one seen in both is kept once */
		size_t nx = reaped ? 0 : descendants(pid, extra, MAX_EXTRA), k = 0;
		pid_t orph[MAX_EXTRA];
		size_t no = adopted(before, nbefore, pid, orph, MAX_EXTRA);
		for (size_t i = 0; i < no && nx < MAX_EXTRA; i++) {
			size_t j = 0;
			while (j < nx && extra[j] != orph[i])
				j++;
			if (j == nx)
				extra[nx++] = orph[i];
		}
		svcs = bc_xrealloc(svcs, nsvcs + 1, sizeof(*svcs));
		svc *s2 = &svcs[nsvcs++];
		*s2 = (svc){ bc_xstrdup(module), bc_xstrdup(spec->name), log, bc_xstrdup(spec->argv[0]), pid,
			     { 0 }, 0, spec->stop_signal > 0 ? spec->stop_signal : SIGTERM, 0 };
		if (reaped && nx)	/* daemonized: the leader is gone, its daemon is the server */
			s2->pid = extra[k++];
		for (; k < nx; k++)
			s2->extra[s2->nextra++] = extra[k];
		return 0;
	}
	if (pid > 0) {
		kill(-pid, SIGKILL);
		if (!reaped)
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		bc_kill_strays(before, nbefore);	/* what it daemonized before it failed */
	}
	bc_err_set(e, "private server \"%s\" (%s) did not start: %s", spec->name, spec->argv[0], why.msg);
	if (pid > 0)	/* in the message: it goes back to the module as one text */
		add_log_tail(log, e->msg, sizeof(e->msg));
	free(log);
	return -1;
}

int bc_service_pid(const char *module, const char *name)
{
	svc *s = owner == getpid() ? find(module, name) : NULL;
	return s ? (int)s->pid : 0;
}

/* ------------------------------------------------------------------ stop */

/* What the stopped servers started in sessions of their own (a setsid
   helper) outlived their groups and came to the runner, a subreaper: every
   child that is not a server still registered goes too. Called between
   modules, when no case runs. */
static void reap_orphans(const char *module)
{
	pid_t keep[BC_MAX_KIDS];
	size_t nkeep = 0;
	for (size_t i = 0; i < nsvcs && nkeep + MAX_EXTRA + 1 < BC_MAX_KIDS; i++) {
		keep[nkeep++] = svcs[i].pid;
		for (size_t k = 0; k < svcs[i].nextra; k++)
			keep[nkeep++] = svcs[i].extra[k];
	}
	unsigned n = bc_kill_strays(keep, nkeep);
	if (n)
		bc_warn("%s: private servers left %u process%s running after they stopped (killed)",
			module ? module : "benchcore", n, n == 1 ? "" : "es");
}

/* Stops the servers of module (NULL: all): a polite signal to every group
   at once, a shared wait for the leaders, then SIGKILL to each group, so
   nothing they forked stays behind. */
static void stop_matching(const char *module)
{
	if (!nsvcs || owner != getpid())
		return;
	int any = 0;
	for (size_t i = 0; i < nsvcs; i++)
		if (!module || !strcmp(svcs[i].module, module)) {
			if (kill(-svcs[i].pid, svcs[i].stop_signal) != 0)
				kill(svcs[i].pid, svcs[i].stop_signal);	/* no group after all */
			for (size_t k = 0; k < svcs[i].nextra; k++)
				if (kill(-svcs[i].extra[k], svcs[i].stop_signal) != 0)
					kill(svcs[i].extra[k], svcs[i].stop_signal);
			any = 1;
		}
	if (!any)
		return;
	uint64_t deadline = bc_now_ns() + (uint64_t)STOP_WAIT_S * 1000000000u;
	for (;;) {
		int waiting = 0;
		for (size_t i = 0; i < nsvcs; i++) {
			siginfo_t si = { 0 };
			if ((module && strcmp(svcs[i].module, module)) || svcs[i].exited)
				continue;
			/* WNOWAIT: the zombie keeps its pid, so the group id cannot be reused */
			if (waitid(P_PID, (id_t)svcs[i].pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
				svcs[i].exited = 1;
			else
				waiting = 1;
		}
		if (!waiting || bc_now_ns() >= deadline || bc_signals >= 2)
			break;
		bc_sleep_until(bc_now_ns() + 20000000u);
	}
	for (size_t i = 0; i < nsvcs; ) {
		svc *s = &svcs[i];
		if (module && strcmp(s->module, module)) {
			i++;
			continue;
		}
		if (!s->exited)
			bc_warn("%s: private server \"%s\" (pid %d) did not stop on signal %d%s: killed",
				s->module, s->name, (int)s->pid, s->stop_signal,
				bc_signals >= 2 ? " before the second interrupt" : " within 5 s");
		kill(-s->pid, SIGKILL);
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
		for (size_t k = 0; k < s->nextra; k++) {
			kill(-s->extra[k], SIGKILL);
			kill(s->extra[k], SIGKILL);
			while (waitpid(s->extra[k], NULL, 0) < 0 && errno == EINTR)
				;
		}
		drop(s);
	}
	reap_orphans(module);
}

void bc_service_stop_module(const char *module)
{
	stop_matching(module);
}

void bc_service_stop_all(void)
{
	stop_matching(NULL);
	if (!nsvcs && owner == getpid()) {
		free(svcs);
		svcs = NULL;
	}
}

/* ------------------------------------------------------------------ JSON */

static json_t *strv_json(const char *const *v)
{
	json_t *a = json_array();
	for (; v && *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

json_t *bc_service_spec_json(const bench_server_spec_v1 *spec)
{
	return json_pack("{s:s, s:o, s:o, s:s?, s:i, s:f, s:s?, s:i}", "name", spec->name,
			 "argv", strv_json(spec->argv), "env", strv_json(spec->env),
			 "ready_unix", spec->ready_unix, "ready_port", spec->ready_port,
			 "ready_timeout_s", spec->ready_timeout_s, "workdir", spec->workdir,
			 "stop_signal", spec->stop_signal);
}

typedef struct spec_box {
	bench_server_spec_v1 spec;	/* first: the box is freed through it */
	const char **argv, **env;
} spec_box;

static const char **json_strv(json_t *a)
{
	size_t n = json_array_size(a);
	const char **v = bc_xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = json_string_value(json_array_get(a, i))))
			v[i] = "";
	return v;
}

bench_server_spec_v1 *bc_service_spec_parse(json_t *j)
{
	const char *name = json_string_value(json_object_get(j, "name"));
	json_t *argv = json_object_get(j, "argv");
	if (!name || !json_array_size(argv))
		return NULL;
	spec_box *b = bc_xcalloc(1, sizeof(*b));
	b->argv = json_strv(argv);
	b->env = json_strv(json_object_get(j, "env"));
	b->spec = (bench_server_spec_v1){
		.name = name, .argv = b->argv, .env = b->env,
		.ready_unix = json_string_value(json_object_get(j, "ready_unix")),
		.ready_port = (int)json_integer_value(json_object_get(j, "ready_port")),
		.ready_timeout_s = json_number_value(json_object_get(j, "ready_timeout_s")),
		.workdir = json_string_value(json_object_get(j, "workdir")),
		.stop_signal = (int)json_integer_value(json_object_get(j, "stop_signal")),
	};
	return &b->spec;
}

void bc_service_spec_free(bench_server_spec_v1 *spec)
{
	spec_box *b = (spec_box *)spec;
	if (!b)
		return;
	free(b->argv);
	free(b->env);
	free(b);
}
