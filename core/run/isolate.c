/* A case in a forked child (isolate.h). The child tells the runner each
 * phase and finally its report over a socket pair, and asks for a private
 * server when its module wants one, which the runner starts (it outlives
 * the case) and answers: the messages of channel.h, whose one decoder both
 * ends use; a message that does not decode fails the case, named. The
 * runner enforces a watchdog per phase (init_timeout, prepare_timeout,
 * thread_init_timeout + grace, warmup + grace, time + grace for the
 * measured window, cleanup_timeout or warmup + time + grace for each of
 * finish, cleanup and destroy) and turns a crash, an
 * exit, a hang or a lost channel into a failed case that names the phase.
 * The first stop request (Ctrl-C, SIGTERM) is forwarded to the case, and
 * everything still running, the case and any cleanup after it, gets
 * STOP_GRACE_S in all before it is killed. A signal the module sends its own
 * session is its fault, not a stop request. Each case runs in a session of
 * its own (its stdout a pipe the runner copies, escaped, to stderr: never
 * into benchcore's stdout) and is the child subreaper of what its module
 * starts; whatever is left when it ends is killed (by the case, or by the
 * runner, which is a subreaper too, when the case itself died) and the case
 * says so. What the module writes to stderr is copied too, escaped, while
 * benchcore's own messages and progress in the child keep the terminal
 * (bc_stderr). Main thread. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "channel.h"
#include "engine.h"
#include "isolate.h"
#include "service.h"
#include "reap.h"

#define LOST_STATUS	121	/* a case child whose report could not be sent */
#define LOST_WAIT_MS	1000	/* a channel closed without a report: how long the child may take to end */
#define STDOUT_LINES	200	/* lines of a case's stdout copied to stderr */
#define EVENTS_LIMIT_S	1800	/* a case bounded by events, not time, once measuring */
#define CHANNEL_MAX	((size_t)64 << 20)	/* bytes a case may send on its channel (take) */

static int child_fd = -1;
static pid_t child_runner;			/* the runner: the only one whose signal is a stop */
static volatile sig_atomic_t child_at = BC_PHASE_INIT;	/* the phase now (bc_phase; -1 unknown) */
static volatile sig_atomic_t child_self_sig;	/* a signal the module sent itself */
static volatile sig_atomic_t child_self_at;

/* In the case child. A stop request comes from the runner; a signal from a
   process of the case's own session (kill(0, SIGTERM), raise()) is the
   module's doing: the case stops and fails, nobody interrupted the run. */
static void child_on_signal(int sig, siginfo_t *si, void *u)
{
	(void)u;
	if (si->si_code == SI_USER && si->si_pid != child_runner && si->si_pid > 0 &&
	    getsid(si->si_pid) == getsid(0) && !child_self_sig) {
		child_self_sig = sig;
		child_self_at = child_at;
	}
	bc_stop_requested = 1;
}

static void child_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = child_on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART, like the runner's */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void child_phase(void *arg, const char *phase)
{
	(void)arg;
	int ph = bc_phase_parse(phase);
	child_at = ph;
	if (ph >= 0)	/* a runner gone away: nothing to tell */
		(void)bc_msg_send(child_fd, BC_MSG_PHASE, phase);
}

/* In the case child: asks the runner for the server and waits for its answer. */
static int child_start_server(void *arg, const bench_server_spec_v1 *spec, char *err, size_t n)
{
	(void)arg;
	json_t *j = bc_service_spec_json(spec);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL, line[4096];
	json_decref(j);
	if (!s) {
		snprintf(err, n, "private server \"%s\": its spec has a string that is not UTF-8", spec->name);
		return -1;
	}
	int sent = bc_msg_send(child_fd, BC_MSG_SERVER, s);
	free(s);
	size_t len = 0;
	int whole = 0;		/* the answer's newline came */
	while (sent == 0 && !whole && len < sizeof(line) - 1) {	/* byte by byte: nothing after it is consumed */
		ssize_t got = read(child_fd, line + len, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		whole = line[len] == '\n';
		len += !whole;
	}
	bc_msg m;
	const char *bad;
	if (whole && bc_msg_decode(line, len, &m, &bad) == 0) {
		if (m.kind == BC_MSG_SERVER_OK)
			return m.pid;
		if (m.kind == BC_MSG_SERVER_ERR) {
			snprintf(err, n, "%s", m.payload);
			return -1;
		}
	}
	snprintf(err, n, "private server: no answer from the runner");
	return -1;
}

static void failed_case(const bc_case *c, const char *reason, bc_case_result *cr)
{
	bc_case_header(c, "failed", reason, cr);
}

static void note_strays(const bc_case *c, bc_case_result *cr, unsigned n)
{
	if (!n)
		return;
	cr->strays_killed += n;
	char msg[200];
	snprintf(msg, sizeof(msg), "the case left %u process%s running (killed): a module must stop what it starts",
		 n, n == 1 ? "" : "es");
	bc_case_add_warning(cr, msg);
	/* said where the user looks, as the module's own warnings are; the case
	   stays ok (its figures were measured before), check-module fails it */
	if (!bc_case_warnings_later)
		bc_warn("%s: %s", c->mod->desc.name, msg);
}

/* The runner's view of a case child: what it said so far and the watchdog. */
typedef struct watch {
	char *buf;
	size_t len, cap, scan;		/* scan: start of the first line not handled yet */
	const char *phase;		/* bc_phase_where() of the phase now */
	double limit;
	uint64_t deadline;
	pid_t *keep;			/* the runner's children that are not the case's: servers */
	size_t nkeep;
	int reported;			/* the report came: buf[report..report + report_len) */
	size_t report, report_len;
	char bad[300];			/* the first message that is wrong, or "" */
	const char *bad_at;		/* the phase it came in */
	uint64_t began[BC_PHASE_N];	/* when each phase's message came; 0: never */
	uint64_t oom0;			/* OOM kills counted before the case (oom_kills()) */
	int oom_known;
} watch;

/* The channel's phases are the result's, one for one (prepared: the
   threads' thread_init). */
_Static_assert((int)BC_PHASE_PREPARED == (int)BC_PH_THREAD_INIT && (int)BC_PHASE_DESTROY == (int)BC_PH_DESTROY &&
	       (int)BC_PHASE_N == (int)BC_NPHASES, "channel phases and result phases differ");

/* A case that never reported (crashed, hung, killed): the seconds of the
   phases it went through, as the runner saw their messages come, the last
   one until now. init and prepare count only when their callback runs, as
   in the engine's own figures. */
static void runner_phases(const bc_case *c, const watch *w, bc_case_result *cr)
{
	uint64_t end = bc_now_ns();
	for (int ph = BC_PHASE_N - 1; ph >= 0; ph--) {
		if (!w->began[ph])
			continue;
		int ran = ph == BC_PHASE_INIT ? c->mod->desc.init != NULL :
			ph == BC_PHASE_PREPARE ? c->do_prepare && c->mod->desc.prepare : 1;
		if (ran && end >= w->began[ph]) {
			cr->phases.set = 1;
			cr->phases.s[ph] = (double)(end - w->began[ph]) / 1e9;
		}
		end = w->began[ph];
	}
}

/* The case's report, read by the one reader of case results; else the
   case failed saying why. */
static void read_report(const bc_case *c, const watch *w, bc_case_result *cr)
{
	json_error_t je;
	json_t *cj = json_loadb(w->buf + w->report, w->report_len, 0, &je);
	bc_err ce = { .msg = "not JSON" };
	char why[600];
	int rc = cj ? bc_case_from_json(cj, (size_t)c->id, cr, &ce) : -1;
	json_decref(cj);
	if (rc == 0)
		return;
	snprintf(why, sizeof(why), "the case's report is unreadable (%.399s)", ce.msg);
	failed_case(c, why, cr);
}

/* The number after "key " on a line of file (memory.events, vmstat). */
static int read_key_u64(const char *file, const char *key, uint64_t *v)
{
	char line[256];
	size_t k = strlen(key);
	int rc = -1;
	FILE *f = fopen(file, "re");
	while (f && rc && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, k) && line[k] == ' ')
			rc = sscanf(line + k, "%" SCNu64, v) == 1 ? 0 : -1;
	if (f)
		fclose(f);
	return rc;
}

/* OOM kills of processes of benchcore's memory cgroup (v2 memory.events,
   v1 memory.oom_control: both count the cgroup's descendants), else of the
   machine (/proc/vmstat); where: the cgroup's directory or "". 0, or -1 when
   no counter is readable. */
static int oom_kills(uint64_t *n, char *where, size_t len)
{
	char line[4096], path[4300];
	FILE *f = fopen("/proc/self/cgroup", "re");
	*where = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		const char *v2 = !strncmp(line, "0::", 3) ? line + 3 : NULL, *v1 = strstr(line, ":memory:");
		if (v2 && *v2)
			snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.events", strcmp(v2, "/") ? v2 : "");
		else if (v1)
			snprintf(path, sizeof(path), "/sys/fs/cgroup/memory%s/memory.oom_control",
				 strcmp(v1 + 8, "/") ? v1 + 8 : "");
		else
			continue;
		if (read_key_u64(path, "oom_kill", n) == 0) {
			snprintf(where, len, "%.*s", (int)(strrchr(path, '/') - path), path);
			fclose(f);
			return 0;
		}
	}
	if (f)
		fclose(f);
	return read_key_u64("/proc/vmstat", "oom_kill", n);
}

/* A case killed by SIGKILL while the OOM killer's count went up: said as
   such, with the cgroup and what the module's needs() declared. */
static void oom_reason(const bc_case *c, const watch *w, const char *phase, char *why, size_t n)
{
	uint64_t now;
	char where[4096], a[32], decl[80] = "";
	if (!w->oom_known || oom_kills(&now, where, sizeof(where)) || now <= w->oom0)
		return;
	char lim[64] = "", file[4200], text[64] = "";
	uint64_t bytes;
	FILE *f;
	/* the cgroup's limit: v2 memory.max, v1 memory.limit_in_bytes */
	for (int v = 0; *where && v < 2 && !lim[0]; v++) {
		snprintf(file, sizeof(file), "%s/%s", where, v ? "memory.limit_in_bytes" : "memory.max");
		if ((f = fopen(file, "re")) && fgets(text, sizeof(text), f) && sscanf(text, "%" SCNu64, &bytes) == 1 &&
		    bytes < (1ull << 60))
			snprintf(lim, sizeof(lim), ", limit %s", bc_human_size((double)bytes, a, sizeof(a)));
		if (f)
			fclose(f);
	}
	if (c->need_memory)
		snprintf(decl, sizeof(decl), "; its needs() declared %s of memory",
			 bc_human_size((double)c->need_memory, a, sizeof(a)));
	snprintf(why, n, "killed by the OOM killer in %s (%s%.400s%s)%s", phase,
		 *where ? "memory cgroup " : "the machine's", *where ? where : " memory", lim, decl);
}

static void reap(const bc_case *c, pid_t pid, const watch *w, int timed_out, int lost, bc_case_result *cr)
{
	int st = 0;
	siginfo_t si;
	struct rusage ru = { 0 };
	/* ended (not reaped yet, so its group id is still reserved): what is
	   left in its process group goes too */
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	char why[600];
	const char *phase = w->phase;
	if (w->bad[0]) {	/* whatever it reported: its channel lied */
		snprintf(why, sizeof(why), "the case's process sent benchcore %s on its channel in %s (a module "
			 "must not write to descriptors it did not open)", w->bad, w->bad_at);
	} else if (w->reported) {
		read_report(c, w, cr);
		return;
	} else if (timed_out) {
		snprintf(why, sizeof(why), "timed out after %g s in %s (killed)", w->limit, phase);
	} else if (lost || (WIFEXITED(st) && WEXITSTATUS(st) == LOST_STATUS)) {
		snprintf(why, sizeof(why), "lost contact with the case's process in %s: its channel to benchcore "
			 "was closed before it reported%s (a module must not close descriptors it did not open)",
			 phase, lost ? ", and it did not end (killed)" : "");
	} else if (WIFSIGNALED(st)) {
		snprintf(why, sizeof(why), "crashed in %s: killed by signal %d (%s)", phase,
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
		if (WTERMSIG(st) == SIGKILL)
			oom_reason(c, w, phase, why, sizeof(why));
	} else if (WIFEXITED(st)) {
		snprintf(why, sizeof(why), "the case's process exited with status %d in %s before "
			 "reporting (a module must not call exit)", WEXITSTATUS(st), phase);
	} else {
		snprintf(why, sizeof(why), "the case's process ended unexpectedly in %s", phase);
	}
	failed_case(c, why, cr);
	runner_phases(c, w, cr);
	/* its peak memory all the same: what it took when it was killed */
	cr->peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024;
}

/* A server request: start the server here, in the runner, and answer. */
static void serve(case_link *l, int fd, const char *js, watch *w)
{
	bc_err err = { .msg = "" };
	uint64_t t0 = bc_now_ns();
	json_t *j = json_loads(js, 0, NULL);
	bench_server_spec_v1 *spec = j ? bc_service_spec_parse(j) : NULL;
	int rc = -1, pid = 0;
	if (spec)
		rc = bc_service_start(l->module, spec, l->dir, &err);
	else
		bc_err_set(&err, "private server: malformed request from the case's process");
	if (rc == 0)	/* told to the case, which declares it (its CPU is the workload's) */
		pid = bc_service_pid(l->module, spec->name);
	bc_service_spec_free(spec);
	json_decref(j);
	char ok[32];
	snprintf(ok, sizeof(ok), "%d", pid);
	/* a case gone away: nothing to tell */
	(void)bc_msg_send(fd, rc == 0 ? BC_MSG_SERVER_OK : BC_MSG_SERVER_ERR, rc == 0 ? ok : err.msg);
	w->deadline += bc_now_ns() - t0;	/* waiting for a server is not the case's time */
}

static uint64_t du_total;	/* nftw has no argument: main thread only */

static int du_add(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path, (void)flag, (void)ftw;
	du_total += (uint64_t)st->st_blocks * 512;
	return 0;
}

/* What the case wrote in its scratch directory by the end of its window,
   for a needs() that declared its disk there (no disk_path): compared with
   it after the case (run/fit.c bc_needs_used). A path elsewhere is not
   measured: the drop of its free space would count other processes' files. */
static void disk_used(const bc_case *c, case_link *l)
{
	du_total = 0;
	if (c->scratch)
		(void)nftw(c->scratch, du_add, 16, FTW_PHYS);
	l->disk_used = du_total;
}

/* The watchdog's bound for phase ph, from when it starts; and what the
   runner learns from it about the case's data point. */
static double phase_limit(const bc_case *c, case_link *l, bc_phase ph)
{
	double end = c->run.cleanup_timeout > 0 ? c->run.cleanup_timeout :
		c->run.warmup_s + (c->run.time_s > 0 ? c->run.time_s : 60) + c->run.grace;
	switch (ph) {
	case BC_PHASE_INIT:
		return c->run.init_timeout;
	case BC_PHASE_PREPARE:
		l->prepare_started = c->do_prepare;
		return c->run.prepare_timeout;
	case BC_PHASE_PREPARED:
		l->prepared = 1;
		return c->run.thread_init_timeout + c->run.grace;
	case BC_PHASE_WARMUP:
		return c->run.warmup_s + c->run.grace;
	case BC_PHASE_MEASURE:
		return c->run.time_s > 0 ? c->run.time_s + c->run.grace : EVENTS_LIMIT_S;
	case BC_PHASE_CLEANUP:
		l->cleaned = 1;
		return end;
	case BC_PHASE_FINISH:
		if (c->need_disk && c->need_path && !*c->need_path)
			disk_used(c, l);
		return end;
	default:	/* finish, destroy */
		return end;
	}
}

/* The first message that is wrong, quoted (escaped, cut short). */
static void note_bad(watch *w, const char *what, const char *line, size_t n)
{
	if (w->bad[0])
		return;
	char head[41];
	size_t k = n < 40 ? n : 40;
	for (size_t i = 0; i < k; i++)
		head[i] = line[i] ? line[i] : '?';
	head[k] = '\0';
	char *q = bc_text_dup(head);	/* whatever it is, it reaches the results escaped */
	snprintf(w->bad, sizeof(w->bad), "%s (\"%s%s\")", what, q, n > 40 ? "..." : "");
	w->bad_at = w->phase;
	free(q);
}

/* One message from the child; line[n] is its newline's place. */
static void handle_msg(const bc_case *c, case_link *l, int fd, watch *w, char *line, size_t n)
{
	bc_msg m;
	const char *why;
	if (bc_msg_decode(line, n, &m, &why) != 0) {
		note_bad(w, why, line, n);
		return;
	}
	if (w->reported) {	/* the report is the last thing a case sends */
		note_bad(w, "a message after its report", line, n);
		return;
	}
	switch (m.kind) {
	case BC_MSG_PHASE:
		w->began[m.phase] = bc_now_ns();
		w->limit = phase_limit(c, l, m.phase);
		w->phase = bc_phase_where(m.phase);
		w->deadline = bc_now_ns() + (uint64_t)(w->limit * 1e9);
		break;
	case BC_MSG_RESULT:
		w->reported = 1;
		w->report = (size_t)(m.payload - w->buf);
		w->report_len = m.len;
		break;
	case BC_MSG_SERVER:
		serve(l, fd, m.payload, w);
		w->nkeep = bc_children_of(getpid(), w->keep, BC_MAX_KIDS);	/* its server is no stray */
		break;
	default:
		note_bad(w, "a message only benchcore's runner sends", line, n);
	}
}

/* Handles every complete line the child sent since the last call; at_end
   (the channel is over): a last report without its newline too. */
static void handle_lines(const bc_case *c, case_link *l, int fd, watch *w, int at_end)
{
	char *nl;
	while ((nl = memchr(w->buf + w->scan, '\n', w->len - w->scan))) {
		char *line = w->buf + w->scan;
		w->scan += (size_t)(nl - line) + 1;
		handle_msg(c, l, fd, w, line, (size_t)(nl - line));
	}
	bc_msg m;
	const char *why;
	char *line = w->buf + w->scan;
	/* a report whose newline never came still counts, as it did before
	   messages were typed; anything else cut short is what a crash or a
	   kill mid-write leaves: the crash is the reason, not the message.
	   buf[len] is a NUL: writable. */
	if (at_end && w->scan < w->len && !w->reported && !bc_msg_decode(line, w->len - w->scan, &m, &why) &&
	    m.kind == BC_MSG_RESULT) {
		w->reported = 1;
		w->report = (size_t)(m.payload - w->buf);
		w->report_len = m.len;
	}
	if (at_end)
		w->scan = w->len;
}

/* The module signalled its own process group or itself: failed, named. */
static void self_signalled(bc_case_result *cr)
{
	char why[300];
	const char *at = bc_phase_where((bc_phase)child_self_at);
	snprintf(why, sizeof(why), "the module sent signal %d (%s) to its own process group or process in %s "
		 "(kill(0, ...)?); nobody asked benchcore to stop, so the case failed: a module never signals "
		 "benchcore's processes", (int)child_self_sig, strsignal((int)child_self_sig), at);
	bc_case_set_str(&cr->status, "failed");
	bc_case_set_str(&cr->reason, why);
}

/* The descriptors between the runner and a case child: [0] the runner's
   end, [1] the child's. */
typedef struct chan {
	int sock[2];			/* phases, server requests, the report */
	int out[2], err[2];		/* the child's stdout and stderr */
} chan;

static int open_chan(chan *ch)
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ch->sock) != 0)
		return -1;
	if (pipe2(ch->out, O_CLOEXEC) == 0) {
		if (pipe2(ch->err, O_CLOEXEC) == 0)
			return 0;
		close(ch->out[0]);
		close(ch->out[1]);
	}
	close(ch->sock[0]);
	close(ch->sock[1]);
	return -1;
}

static void close_side(chan *ch, int side)
{
	close(ch->sock[side]);
	close(ch->out[side]);
	close(ch->err[side]);
}

/* In the child: fd 1 and 2 become the pipes; benchcore's own messages go
   to a copy of the real stderr. */
static void child_fds(chan *ch)
{
	int term = fcntl(2, F_DUPFD_CLOEXEC, 3);
	FILE *t = term >= 0 ? fdopen(term, "w") : NULL;
	if (t) {
		setvbuf(t, NULL, _IONBF, 0);	/* progress lines end in \r, not \n */
		bc_stderr_set(t);
		dup2(ch->err[1], 2);
	} else if (term >= 0) {
		close(term);
	}
	dup2(ch->out[1], 1);	/* a banner never reaches benchcore's stdout (-o - is JSON) */
	close(ch->out[1]);
	close(ch->err[1]);
}

/* In the forked child: runs the case, reports, never returns. */
static void case_child(bc_case *c, chan *ch, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);	/* benchcore killed: the case goes with it */
	if (getppid() != parent)
		_exit(1);
	setsid();		/* a session of its own: Ctrl-C reaches the runner, which decides,
				   and kill(0, ...) reaches only the case */
	prctl(PR_SET_CHILD_SUBREAPER, 1);	/* what the module starts stays ours */
	child_runner = parent;
	child_signals();
	child_fds(ch);
	child_fd = ch->sock[1];
	c->on_phase = child_phase;
	c->start_server = child_start_server;
	/* the module is opened here, never in the runner: its constructors run
	   in the case's process */
	bc_module mod = *c->mod;
	bc_err e;
	bc_case_result cr;
	if (bc_module_open(&mod, &e)) {
		char why[1200];
		snprintf(why, sizeof(why), "load: %s", e.msg);
		failed_case(c, why, &cr);
	} else {
		c->mod = &mod;
		bc_case_run(c, &cr);
	}
	note_strays(c, &cr, bc_kill_strays(NULL, 0));
	if (child_self_sig)
		self_signalled(&cr);
	json_t *cj = bc_case_to_json(&cr);	/* the one writer; the runner reads it back */
	char *s = json_dumps(cj, JSON_COMPACT);
	fflush(stdout);
	/* a module that closed benchcore's descriptors: the runner says so */
	if (bc_msg_send(child_fd, BC_MSG_RESULT, s ? s : ""))
		_exit(LOST_STATUS);
	_exit(0);
}

/* Has the child ended? Seen without reaping it. */
static int child_ended(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Reads what the child sent; -1 at EOF or error, 0 when nothing is there,
   -2 once it sent more than CHANNEL_MAX bytes (a report is a few MiB at
   most: intervals of a long case): a case flooding its channel is killed
   instead of growing the runner without bound. */
static int take(int fd, watch *w)
{
	if (w->len >= CHANNEL_MAX) {
		note_bad(w, "more than 64 MiB", w->buf + w->scan, w->len - w->scan);
		return -2;
	}
	if (w->len + 4096 > w->cap)
		w->buf = bc_xrealloc(w->buf, w->cap *= 2, 1);
	ssize_t n = read(fd, w->buf + w->len, w->cap - w->len - 1);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	w->len += (size_t)n;
	w->buf[w->len] = '\0';
	return 1;
}

/* A case's stdout or stderr, copied line by line to benchcore's stderr,
   escaped: a constructor's banner must not break `-o -` JSON, a module's
   stderr must not reach the terminal raw. */
typedef struct relay {
	int fd;				/* -1 once at EOF */
	const char *module, *what;	/* "printed", "wrote to stderr" */
	char line[1024];
	size_t len;
	unsigned lines;
} relay;

static void relay_emit(relay *o)
{
	o->line[o->len] = '\0';
	if (o->lines < STDOUT_LINES) {
		char *p = bc_text_dup(o->line);
		fprintf(stderr, "benchcore: %s: %s: %s\n", o->module, o->what, p);
		free(p);
	} else if (o->lines == STDOUT_LINES) {
		fprintf(stderr, "benchcore: %s: %s more than %d lines; the rest is not shown "
			"(a module never prints: it logs through the host API)\n", o->module, o->what, STDOUT_LINES);
	}
	o->lines++;
	o->len = 0;
}

/* Copies what is there; at_end: the case is over, a partial line too. */
static void relay_read(relay *o, int at_end)
{
	char buf[4096];
	while (o->fd >= 0) {
		ssize_t n = read(o->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && !at_end)
			return;
		if (n <= 0) {	/* EOF, or nothing more while the case is over (a stray holds it) */
			close(o->fd);
			o->fd = -1;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				relay_emit(o);
				continue;
			}
			if (o->len == sizeof(o->line) - 1)
				relay_emit(o);
			o->line[o->len++] = buf[i];
		}
	}
	if (o->len)
		relay_emit(o);
}

uint64_t bc_stop_deadline(void)
{
	static uint64_t at;
	if (bc_stop_requested && !at)
		at = bc_now_ns() + STOP_GRACE_S * 1000000000ull;
	return at;
}

/* The channel closed with no report: the child has a moment to end (a
   crash); 1 when it did not (it closed benchcore's descriptor) and was killed. */
static int lost_child(pid_t pid)
{
	uint64_t until = bc_now_ns() + LOST_WAIT_MS * 1000000ull;
	while (!child_ended(pid)) {
		if (bc_now_ns() >= until) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			return 1;
		}
		bc_sleep_until(bc_now_ns() + 10000000u);
	}
	return 0;
}

enum { END_REPORTED, END_TIMEOUT, END_STOPPED, END_EOF };

/* The runner's side of a case child until it ends, times out or is stopped. */
static int watch_child(bc_case *c, case_link *l, pid_t pid, int fd, relay o[2], watch *w)
{
	int forwarded = 0;
	for (;;) {
		uint64_t now = bc_now_ns(), stop_at = bc_stop_deadline();
		if (stop_at && !forwarded) {
			kill(pid, SIGINT);	/* the child stops cleanly and still reports */
			forwarded = 1;
			if (now < stop_at)
				bc_warn("stopping: the case in %s has %.1f s to stop", w->phase, (double)(stop_at - now) / 1e9);
		}
		/* a second signal kills a case at once, but a cleanup that only removes
		   what was prepared keeps the first signal's grace: the data files must
		   not stay behind (test_interrupt) */
		if ((bc_signals >= 2 && !c->cleanup_only) || (stop_at && now >= stop_at)) {
			kill(pid, SIGKILL);	/* a second signal, or the case ignored the first: any phase */
			return END_STOPPED;
		}
		if (now >= w->deadline) {
			kill(pid, SIGKILL);
			return END_TIMEOUT;
		}
		struct pollfd pfd[3] = { { .fd = fd, .events = POLLIN }, { .fd = o[0].fd, .events = POLLIN },
					 { .fd = o[1].fd, .events = POLLIN } };
		uint64_t wait_ms = (w->deadline - now) / 1000000u;
		int pr = poll(pfd, 3, wait_ms > 200 ? 200 : (int)wait_ms + 1), got = 0;
		for (int i = 0; i < 2; i++)
			if (pr > 0 && pfd[i + 1].revents)
				relay_read(&o[i], 0);
		if (pr > 0 && pfd[0].revents && (got = take(fd, w)) < 0) {
			if (got == -2)
				kill(pid, SIGKILL);
			return END_EOF;
		}
		if (got > 0) {
			handle_lines(c, l, fd, w, 0);
		} else if (child_ended(pid)) {
			/* ended, but something it started holds the socket open */
			while (take(fd, w) > 0)	/* bounded: -2 past CHANNEL_MAX */
				;
			handle_lines(c, l, fd, w, 1);
			return END_REPORTED;
		}
	}
}

/* Killed after a stop request, before it reported: interrupted, not failed. */
static void stopped_case(const char *phase, bc_case_result *cr)
{
	char why[200];
	snprintf(why, sizeof(why), "interrupted in %s: the case did not stop within %d s of the stop request (killed)",
		 phase, STOP_GRACE_S);
	bc_case_set_str(&cr->status, "interrupted");
	bc_case_set_str(&cr->reason, why);
}

void bc_run_isolated(bc_case *c, case_link *l, int *crashed, bc_case_result *cr)
{
	static int subreaper;
	chan ch;
	if (!subreaper)	/* orphans of a case that died come to the runner, not to init */
		subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
	if (open_chan(&ch) != 0) {
		failed_case(c, "could not create the case's socket pair and pipes", cr);
		return;
	}
	watch w = { .cap = 65536, .phase = "init" };
	w.keep = bc_xcalloc(BC_MAX_KIDS, sizeof(pid_t));
	w.nkeep = bc_children_of(getpid(), w.keep, BC_MAX_KIDS);	/* the servers running now */
	char cg[4096];
	w.oom_known = oom_kills(&w.oom0, cg, sizeof(cg)) == 0;
	l->disk_used = 0;
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		close_side(&ch, 0);
		case_child(c, &ch, parent);
	}
	close_side(&ch, 1);
	if (pid < 0) {
		close_side(&ch, 0);
		free(w.keep);
		failed_case(c, "could not fork", cr);
		return;
	}
	/* no setpgid here: the child makes its own session (setsid fails for a
	   group leader); until then a kill of its group misses, so it gets its own */
	int fd = ch.sock[0];
	fcntl(fd, F_SETFL, O_NONBLOCK);
	fcntl(ch.out[0], F_SETFL, O_NONBLOCK);
	fcntl(ch.err[0], F_SETFL, O_NONBLOCK);
	relay o[2] = { { .fd = ch.out[0], .module = c->mod->desc.name, .what = "printed" },
		       { .fd = ch.err[0], .module = c->mod->desc.name, .what = "wrote to stderr" } };
	w.buf = bc_xcalloc(w.cap, 1);
	w.limit = c->run.init_timeout;	/* a cleanup-only child starts with init too */
	w.deadline = bc_now_ns() + (uint64_t)(w.limit * 1e9);
	int end = watch_child(c, l, pid, fd, o, &w), lost = 0;
	if (end == END_EOF)	/* what came before the end, a last line without its newline too */
		handle_lines(c, l, fd, &w, 1);
	if (end == END_EOF && !w.reported)
		lost = lost_child(pid);
	close(fd);
	relay_read(&o[0], 1);
	relay_read(&o[1], 1);
	reap(c, pid, &w, end == END_TIMEOUT, lost, cr);
	*crashed = !w.reported;
	l->timed_out = end == END_TIMEOUT;
	if (end == END_STOPPED && *crashed)
		stopped_case(w.phase, cr);
	/* the servers' processes too: a daemon adopted only after its server
	   was ready is no stray of this case */
	w.nkeep += bc_service_pids(w.keep + w.nkeep, BC_MAX_KIDS - w.nkeep);
	note_strays(c, cr, bc_kill_strays(w.keep, w.nkeep));
	free(w.keep);
	free(w.buf);
}
