/* The schedule: every module x point x threads x repeat. A module's cases
 * run in rounds by default (each case once, in a shuffled order, then again,
 * repeat times), so the repeats of a case sample the whole run and not one
 * minute of it; then the next module. Each case runs in a forked child by
 * default: it sends "P <phase>" lines and finally "J <json>" over a socket
 * pair, and "S <spec>" when its module asks for a private server, which the
 * runner starts (it outlives the case) and answers "OK" or "E <reason>".
 * The runner enforces a watchdog per phase (init_timeout, prepare_timeout,
 * thread_init_timeout + grace, warmup + grace, warmup + time + grace for the
 * measured window, a fixed limit for finish and cleanup) and turns a crash,
 * an exit or a hang into a failed case that names the phase. The first stop
 * request (Ctrl-C, SIGTERM) is forwarded to the case, which gets STOP_GRACE_S
 * to stop and report before it is killed. Each case runs in a process group
 * of its own and is the child subreaper of what its module starts; whatever
 * is left when it ends is killed (by the case, or by the runner, which is a
 * subreaper too, when the case itself died) and the case says so. Prepared data is made once per data point (the module's
 * data_options) and cleaned up after the last case that uses it, whatever
 * happened to that case. A module directory and the module's servers live
 * for all of its cases and are removed and stopped after its last one, on
 * every way out. Results are rewritten (atomically) after every case, so a
 * crash of benchcore itself or a second Ctrl-C loses at most one case. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "engine.h"
#include "identity.h"
#include "leftover.h"
#include "output.h"
#include "resume.h"
#include "steady.h"
#include "run.h"
#include "results.h"
#include "service.h"
#include "strays.h"
#include "sysinfo.h"

#define CLEANUP_LIMIT_S	120	/* a cleanup-only child; finish; cleanup */
#define STOP_GRACE_S	2	/* after a stop request, before the case is killed */
#define EVENTS_LIMIT_S	1800	/* a case bounded by events, not time, once measuring */

volatile sig_atomic_t bc_signals;

/* What a case's callbacks need from the runner and tell it back. */
typedef struct case_link {
	const char *module, *dir;	/* for private servers */
	int prepared;			/* the case got past prepare: its data point is ready */
	int cleaned;			/* the case ran the module's cleanup */
} case_link;

static void now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static uint32_t random_seed(void)
{
	uint32_t s;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
		s = (uint32_t)(bc_now_ns() ^ ((uint64_t)getpid() << 16));
	return s;
}

void bc_runner_init(bc_runner *r, const bc_config *cfg, json_t *config_json, const char *io_path)
{
	char ts[32], host[256] = "";
	now_iso(ts, sizeof(ts));
	gethostname(host, sizeof(host) - 1);
	r->cfg = cfg;
	r->next_id = 1;
	r->cases = NULL;
	r->ncases = r->ccases = 0;
	bc_results_init(&r->groups, "run");
	r->text = stdout;
	r->seed = cfg->run.seed_set ? cfg->run.seed : random_seed();
	char run_id[BC_ID_HEX], host_id[BC_ID_HEX];
	bc_run_id_new(run_id);
	bc_host_id(host_id);
	r->doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:o, s:o, s:{s:s, s:I}, s:[], s:[]}", "schema",
			   "benchcore/1", "benchcore_version", BC_VERSION, "run_id", run_id, "host_id", host_id,
			   "started_at", ts, "finished_at", ts,
			   "interrupted", 0, "label", cfg->label ? cfg->label : host,
			   "host", bc_sysinfo_host(io_path), "config", config_json, "schedule",
			   "repeat_order", cfg->run.back_to_back ? "back_to_back" : "rounds",
			   "seed", (json_int_t)r->seed, "cases", "groups");
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(json_object_get(r->doc, "host"), "warnings"), i, w)
		bc_warn("%s", json_string_value(w));	/* e.g. the governor: say it before measuring */
}
int bc_runner_resume(bc_runner *r, const char *path, const bc_modplan *plans, size_t n, bc_err *e)
{
	bc_resume *rs = bc_xcalloc(1, sizeof(*rs));
	if (bc_resume_open(path, json_object_get(r->doc, "config"), json_object_get(r->doc, "host"), plans, n,
			   rs, e)) {
		free(rs);
		return -1;
	}
	char ts[32], err[512];
	size_t i;
	json_t *c;
	now_iso(ts, sizeof(ts));
	/* the file ends as if the run had not stopped: its start, its order */
	json_object_set(r->doc, "started_at", json_object_get(rs->doc, "started_at"));
	if (json_is_string(json_object_get(rs->doc, "run_id")))	/* one run, resumed: one id */
		json_object_set(r->doc, "run_id", json_object_get(rs->doc, "run_id"));
	if (!r->cfg->run.seed_set) {
		r->seed = rs->seed;
		json_object_set_new(json_object_get(r->doc, "schedule"), "seed", json_integer(r->seed));
	}
	json_object_set_new(r->doc, "resumed", bc_resume_record(rs, ts));
	json_array_foreach(rs->kept, i, c) {
		bc_case_result cr;
		if (bc_case_from_json(c, i, &cr, err, sizeof(err))) {
			bc_err_set(e, "cannot resume from \"%s\": %s", path, err);
			bc_resume_free(rs);
			free(rs);
			return -1;
		}
		json_array_append(json_object_get(r->doc, "cases"), c);
		bc_results_add_case(&r->groups, &cr);
		bc_case_drop_intervals(&cr);
		if (r->ncases == r->ccases) {
			r->ccases = r->ccases ? 2 * r->ccases : 16;
			r->cases = bc_xrealloc(r->cases, r->ccases, sizeof(*r->cases));
		}
		r->cases[r->ncases++] = cr;
		if (!strcmp(cr.status, "failed"))
			r->failed = 1;
	}
	r->next_id = rs->max_id + 1;
	r->resume = rs;
	return 0;
}

void bc_runner_free(bc_runner *r)
{
	if (r->resume) {
		bc_resume_free(r->resume);
		free(r->resume);
		r->resume = NULL;
	}
	json_decref(r->doc);
	r->doc = NULL;
	for (size_t i = 0; i < r->ncases; i++)
		bc_case_free(&r->cases[i]);
	free(r->cases);
	r->cases = NULL;
	r->ncases = r->ccases = 0;
	bc_results_free(&r->groups);
}

int bc_runner_write(bc_runner *r, int final)
{
	char ts[32];
	bc_err e;
	int rc = 0;
	now_iso(ts, sizeof(ts));
	json_object_set_new(r->doc, "finished_at", json_string(ts));
	json_object_set_new(r->doc, "interrupted", json_boolean(r->interrupted));
	/* groups[]: the cases grouped by the one rule compare and report use */
	bc_results_done(&r->groups);
	json_object_set_new(r->doc, "groups", bc_groups_json(&r->groups));
	if (r->out_json && !strcmp(r->out_json, "-")) {
		if (final) {	/* stdout takes one document, at the end */
			char *s = json_dumps(r->doc, JSON_INDENT(1));
			fputs(s, stdout);
			fputc('\n', stdout);
			free(s);
			rc = bc_stdout_done("run");
		}
	} else if (r->out_json) {
		char *s = json_dumps(r->doc, JSON_INDENT(1));
		if (bc_write_atomic(r->out_json, s, strlen(s), &e)) {
			bc_err_print(&e);
			rc = -1;
		}
		free(s);
	}
	if (r->out_csv) {
		char *s = bc_csv(r->cases, r->ncases);
		if (bc_write_atomic(r->out_csv, s, strlen(s), &e)) {
			bc_err_print(&e);
			rc = -1;
		}
		free(s);
	}
	return rc;
}

static size_t cases_of(const bc_modplan *p)
{
	return p->npoints * p->run.nthreads * p->run.repeat;
}

void bc_runner_show_plan(bc_runner *r, bc_modplan *plans, size_t n)
{
	size_t total = 0;
	double secs = 0;
	for (size_t i = 0; i < n; i++) {
		size_t c = cases_of(&plans[i]);
		total += c;
		secs += c * (plans[i].run.warmup_s + plans[i].run.time_s);
		bc_info("plan: %s: %zu point%s x %zu thread count%s x %u repeat%s = %zu case%s",
			plans[i].mod->desc.name, plans[i].npoints, plans[i].npoints == 1 ? "" : "s",
			plans[i].run.nthreads, plans[i].run.nthreads == 1 ? "" : "s", plans[i].run.repeat,
			plans[i].run.repeat == 1 ? "" : "s", c, c == 1 ? "" : "s");
	}
	size_t kept = r->resume ? json_array_size(r->resume->kept) : 0;
	if (kept) {
		double share = total ? (double)(total > kept ? total - kept : 0) / (double)total : 0;
		bc_info("plan: resuming %s: %zu case%s kept, %zu to run (%zu interrupted, run again); about %.0f s left",
			r->out_json ? r->out_json : "", kept, kept == 1 ? "" : "s", total > kept ? total - kept : 0,
			r->resume->interrupted, secs * share);
	}
	bc_info("plan: %zu case%s, about %.0f s of warmup and measurement (plus prepare time)",
		total, total == 1 ? "" : "s", secs);
	for (size_t i = 0; i < n; i++)
		if (plans[i].run.repeat > 1 && !plans[i].run.back_to_back) {
			bc_info("plan: repeats in rounds, shuffled with seed %u (seed = %u reproduces this order)",
				r->seed, r->seed);
			break;
		}
}

/* ------------------------------------------------------------ isolation */

static int child_fd = -1;

static void write_all(int fd, const char *s, size_t n)
{
	(void)bc_write_all(fd, s, n);	/* a runner gone away: nothing to tell */
}

static void child_phase(void *arg, const char *phase)
{
	(void)arg;
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "P %s\n", phase);
	write_all(child_fd, buf, (size_t)n);
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
	write_all(child_fd, "S ", 2);
	write_all(child_fd, s, strlen(s));
	write_all(child_fd, "\n", 1);
	free(s);
	size_t len = 0;
	for (;;) {	/* one short line: byte by byte, so nothing after it is consumed */
		ssize_t got = read(child_fd, line + len, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || line[len] == '\n' || ++len == sizeof(line) - 1)
			break;
	}
	line[len] = '\0';
	if (!strcmp(line, "OK"))
		return 0;
	json_t *m = strncmp(line, "E ", 2) ? NULL : json_loads(line + 2, JSON_DECODE_ANY, NULL);
	snprintf(err, n, "%s", json_is_string(m) ? json_string_value(m) : "private server: no answer from the runner");
	json_decref(m);
	return -1;
}

static void failed_case(const bc_case *c, const char *reason, bc_case_result *cr)
{
	bc_case_header(c, "failed", reason, cr);
}

/* The child's "J " line: at the start of a line, not inside another one. */
static const char *json_line(const char *buf)
{
	if (!strncmp(buf, "J ", 2))
		return buf;
	const char *j = strstr(buf, "\nJ ");
	return j ? j + 1 : NULL;
}

static void reap(const bc_case *c, pid_t pid, const char *buf, int timed_out, const char *phase,
		 double limit, bc_case_result *cr)
{
	int st = 0;
	siginfo_t si;
	/* ended (not reaped yet, so its group id is still reserved): what is
	   left in its process group goes too */
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	const char *j = json_line(buf);
	char why[600];
	if (j) {	/* the case's report, read by the one reader of case results */
		json_error_t je;
		json_t *cj = json_loads(j + 2, 0, &je);
		char err[400] = "not JSON";
		int rc = cj ? bc_case_from_json(cj, (size_t)c->id, cr, err, sizeof(err)) : -1;
		json_decref(cj);
		if (rc == 0)
			return;
		snprintf(why, sizeof(why), "the case's report is unreadable (%s)", err);
		failed_case(c, why, cr);
		return;
	}
	if (timed_out)
		snprintf(why, sizeof(why), "timed out after %g s in %s (killed)", limit, phase);
	else if (WIFSIGNALED(st))
		snprintf(why, sizeof(why), "crashed in %s: killed by signal %d (%s)", phase,
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st))
		snprintf(why, sizeof(why), "the case's process exited with status %d in %s before "
			 "reporting (a module must not call exit)", WEXITSTATUS(st), phase);
	else
		snprintf(why, sizeof(why), "the case's process ended unexpectedly in %s", phase);
	failed_case(c, why, cr);
}

static void note_strays(bc_case_result *cr, unsigned n)
{
	if (!n)
		return;
	cr->strays_killed += n;
	char msg[200];
	snprintf(msg, sizeof(msg), "the case left %u process%s running (killed): a module must stop what it starts",
		 n, n == 1 ? "" : "es");
	bc_case_add_warning(cr, msg);
}

/* The runner's view of a case child: what it said so far and the watchdog. */
typedef struct watch {
	char *buf;
	size_t len, cap, scan;		/* scan: start of the first line not handled yet */
	char phase[32];
	double limit;
	uint64_t deadline;
	pid_t *keep;			/* the runner's children that are not the case's: servers */
	size_t nkeep;
} watch;

/* An "S <spec>" line: start the server here, in the runner, and answer. */
static void serve(case_link *l, int fd, const char *js, size_t n, watch *w)
{
	char err[1024] = "";
	uint64_t t0 = bc_now_ns();
	json_t *j = json_loadb(js, n, 0, NULL);
	bench_server_spec_v1 *spec = j ? bc_service_spec_parse(j) : NULL;
	int rc = -1;
	if (spec)
		rc = bc_service_start(l->module, spec, l->dir, err, sizeof(err));
	else
		snprintf(err, sizeof(err), "private server: malformed request from the case's process");
	bc_service_spec_free(spec);
	json_decref(j);
	if (rc == 0) {
		write_all(fd, "OK\n", 3);
	} else {
		json_t *m = json_string(err);
		char *s = m ? json_dumps(m, JSON_ENCODE_ANY) : NULL;
		write_all(fd, "E ", 2);
		write_all(fd, s ? s : "\"private server did not start\"", s ? strlen(s) : 30);
		write_all(fd, "\n", 1);
		free(s);
		json_decref(m);
	}
	w->deadline += bc_now_ns() - t0;	/* waiting for a server is not the case's time */
}

static int is_line(const char *line, size_t n, const char *what)
{
	return n == strlen(what) && !memcmp(line, what, n);
}

/* Handles every complete line the child sent since the last call. */
static void handle_lines(const bc_case *c, case_link *l, int fd, watch *w)
{
	char *nl;
	while ((nl = memchr(w->buf + w->scan, '\n', w->len - w->scan))) {
		char *line = w->buf + w->scan;
		size_t n = (size_t)(nl - line);
		w->scan += n + 1;
		/* each phase gets its own bound, from when it starts */
		const char *ph = NULL;
		double lim = 0;
		if (is_line(line, n, "P measure")) {
			ph = "the measured window";
			lim = c->run.time_s > 0 ? c->run.time_s + c->run.grace : EVENTS_LIMIT_S;
		} else if (is_line(line, n, "P init")) {
			ph = "init", lim = c->run.init_timeout;
		} else if (is_line(line, n, "P prepare")) {
			ph = "prepare", lim = c->run.prepare_timeout;
		} else if (is_line(line, n, "P prepared")) {
			l->prepared = 1;
			ph = "thread_init", lim = c->run.thread_init_timeout + c->run.grace;
		} else if (is_line(line, n, "P warmup")) {
			ph = "warmup", lim = c->run.warmup_s + c->run.grace;
		} else if (is_line(line, n, "P finish")) {
			ph = "finish", lim = CLEANUP_LIMIT_S;
		} else if (is_line(line, n, "P cleanup")) {
			l->cleaned = 1;
			ph = "cleanup", lim = CLEANUP_LIMIT_S;
		} else if (n > 2 && !memcmp(line, "S ", 2)) {
			serve(l, fd, line + 2, n - 2, w);
			w->nkeep = bc_children_of(getpid(), w->keep, BC_MAX_KIDS);	/* its server is no stray */
		}
		if (ph) {
			snprintf(w->phase, sizeof(w->phase), "%s", ph);
			w->limit = lim;
			w->deadline = bc_now_ns() + (uint64_t)(lim * 1e9);
		}
	}
}

/* In the forked child: runs the case, reports, never returns. */
static void case_child(bc_case *c, int fd, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);	/* benchcore killed: the case goes with it */
	if (getppid() != parent)
		_exit(1);
	setpgid(0, 0);		/* Ctrl-C reaches the runner, which decides */
	prctl(PR_SET_CHILD_SUBREAPER, 1);	/* what the module starts stays ours */
	child_fd = fd;
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
	note_strays(&cr, bc_kill_strays(NULL, 0));
	json_t *cj = bc_case_to_json(&cr);	/* the one writer; the runner reads it back */
	char *s = json_dumps(cj, JSON_COMPACT);
	write_all(child_fd, "J ", 2);
	write_all(child_fd, s, strlen(s));
	write_all(child_fd, "\n", 1);
	_exit(0);
}

/* Has the child ended? Seen without reaping it. */
static int child_ended(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Reads what the child sent; -1 at EOF or error, 0 when nothing is there. */
static int take(int fd, watch *w)
{
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

/* Runs c in a child into cr; *crashed is set when it did not report normally. */
static void run_isolated(bc_case *c, case_link *l, int *crashed, bc_case_result *cr)
{
	static int subreaper;
	int fds[2];
	if (!subreaper)	/* orphans of a case that died come to the runner, not to init */
		subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
		failed_case(c, "could not create a socket pair", cr);
		return;
	}
	watch w = { .cap = 65536, .phase = "init" };
	w.keep = bc_xcalloc(BC_MAX_KIDS, sizeof(pid_t));
	w.nkeep = bc_children_of(getpid(), w.keep, BC_MAX_KIDS);	/* the servers running now */
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free(w.keep);
		failed_case(c, "could not fork", cr);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		case_child(c, fds[1], parent);
	}
	setpgid(pid, pid);	/* also here: no signal can come before the group exists */
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	w.buf = bc_xcalloc(w.cap, 1);
	w.limit = c->cleanup_only ? CLEANUP_LIMIT_S : c->run.init_timeout;
	w.deadline = bc_now_ns() + (uint64_t)(w.limit * 1e9);
	int timed_out = 0, forwarded = 0, stop_killed = 0;
	uint64_t stop_by = 0;
	for (;;) {
		uint64_t now = bc_now_ns();
		if (c->cleanup_only) {
			/* cleanup is short and must not be cut short by a signal */
		} else if (bc_stop_requested && !forwarded) {
			kill(pid, SIGINT);	/* the child stops cleanly and still reports */
			forwarded = 1;
			stop_by = now + STOP_GRACE_S * 1000000000ull;
			bc_warn("stopping: the case in %s has %d s to stop", w.phase, STOP_GRACE_S);
		}
		if (!c->cleanup_only && (bc_signals >= 2 ||
		    (forwarded && now >= stop_by && strcmp(w.phase, "cleanup")))) {
			kill(pid, SIGKILL);	/* a second signal, or the case ignored the first */
			stop_killed = 1;
			break;
		}
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		if (now >= w.deadline) {
			kill(pid, SIGKILL);
			timed_out = 1;
			break;
		}
		uint64_t wait_ms = (w.deadline - now) / 1000000u;
		int pr = poll(&pfd, 1, wait_ms > 200 ? 200 : (int)wait_ms + 1), got = 0;
		if (pr > 0 && (got = take(fds[0], &w)) < 0)
			break;
		if (got > 0) {
			handle_lines(c, l, fds[0], &w);
		} else if (child_ended(pid)) {
			/* ended, but something it started holds the socket open */
			while (take(fds[0], &w) > 0)
				;
			handle_lines(c, l, fds[0], &w);
			break;
		}
	}
	close(fds[0]);
	reap(c, pid, w.buf, timed_out, w.phase, w.limit, cr);
	*crashed = !json_line(w.buf);
	if (stop_killed && *crashed) {
		char why[200];
		snprintf(why, sizeof(why), "interrupted in %s: the case did not stop within %d s of the stop "
			 "request (killed)", w.phase, STOP_GRACE_S);
		bc_case_set_str(&cr->status, "interrupted");
		bc_case_set_str(&cr->reason, why);
	}
	note_strays(cr, bc_kill_strays(w.keep, w.nkeep));
	free(w.keep);
	free(w.buf);
}

/* In this process (isolate = false): the module is opened here (once), and
   the same callbacks run without a channel. */
static void run_here(bc_case *c, bc_case_result *cr)
{
	bc_err e;
	if (bc_module_open((bc_module *)c->mod, &e)) {
		char why[1200];
		snprintf(why, sizeof(why), "load: %s", e.msg);
		failed_case(c, why, cr);
		return;
	}
	bc_case_run(c, cr);
}

/* A case, isolated in a child process or here. */
static void run_one(bc_case *c, case_link *l, int isolate, int *crashed, bc_case_result *cr)
{
	*crashed = 0;
	if (isolate)
		run_isolated(c, l, crashed, cr);
	else
		run_here(c, cr);
}

static void local_phase(void *arg, const char *phase)
{
	case_link *l = arg;
	if (!strcmp(phase, "prepared"))
		l->prepared = 1;
	else if (!strcmp(phase, "cleanup"))
		l->cleaned = 1;
}

static int local_start_server(void *arg, const bench_server_spec_v1 *spec, char *err, size_t n)
{
	case_link *l = arg;
	return bc_service_start(l->module, spec, l->dir, err, n);
}

/* ---------------------------------------------------------- requirements */

/* Free space for a path that may not exist yet (prepare creates it): that
   of its nearest existing parent, where it will be made. *at gets the
   directory measured (static storage: main thread only). */
static int disk_avail(const char *path, double *avail, const char **at)
{
	static char dir[4096];
	struct statvfs vfs;
	snprintf(dir, sizeof(dir), "%s", *path ? path : ".");
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

static int unmet(const bc_modplan *p, const bc_val *point, char *why, size_t n)
{
	const bench_requirements_v1 *rq = &p->mod->desc.requires;
	struct sysinfo si;
	char need[32], have[32];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (rq->min_cpus && cpus > 0 && (uint32_t)cpus < rq->min_cpus) {
		snprintf(why, n, "%s needs %u CPUs, this machine has %ld", p->mod->desc.name, rq->min_cpus, cpus);
		return 1;
	}
	if (rq->min_memory && sysinfo(&si) == 0) {
		double avail = (double)(si.freeram + si.bufferram) * si.mem_unit;
		if (avail < (double)rq->min_memory) {
			snprintf(why, n, "%s needs %s free memory, this machine has %s", p->mod->desc.name,
				 bc_human_size((double)rq->min_memory, need, sizeof(need)),
				 bc_human_size(avail, have, sizeof(have)));
			return 1;
		}
	}
	const bench_option_v1 *o = rq->disk_path_option ? bc_opt_find(p->mod->desc.options, rq->disk_path_option) : NULL;
	const char *path = o ? point[o - p->mod->desc.options].s : NULL, *at;
	double avail;
	if (rq->min_disk && path && disk_avail(path, &avail, &at) == 0 && avail < (double)rq->min_disk) {
		int same = !strcmp(at, path);
		char *w = bc_xasprintf("%s needs %s free at %s, it has %s%s%s%s", p->mod->desc.name,
				       bc_human_size((double)rq->min_disk, need, sizeof(need)), path,
				       bc_human_size(avail, have, sizeof(have)), same ? "" : " (measured at ",
				       same ? "" : at, same ? "" : ", the nearest existing directory)");
		snprintf(why, n, "%s", w);
		free(w);
		return 1;
	}
	return 0;
}


/* ------------------------------------------------------------- schedule */

typedef struct slot {
	size_t point, ti;		/* index of the point and of the thread count */
	unsigned rep;			/* the repeat, which is also the round */
} slot;

typedef struct datapt {
	size_t last;			/* schedule index of its last case */
	int prepared;			/* its data is there: later cases skip prepare */
	int dirty;			/* a prepare ran since the last cleanup: cleanup is owed */
} datapt;

/* One module's run: its points, their data points, the order of its cases. */
typedef struct modrun {
	const bc_modplan *p;
	bc_val *vals;			/* npoints x nopts, pointing into the plan */
	size_t *dp;			/* each point's data point */
	datapt *dps;
	size_t ndp;
	char **skip;			/* each point: why its cases are skipped, or NULL */
	char **labels;			/* each point: its swept options */
	slot *sched;
	size_t nsched;
	const char **stopped;		/* repeat = auto, per point x thread count: why no more
					   rounds run (static strings), or NULL */
	int reuse;			/* data_options declared: prepare once per data point */
	char *dir;			/* module_dir, for all of its cases */
	case_link link;
} modrun;

static size_t stride(const bc_modplan *p)
{
	return p->nopts ? p->nopts : 1;
}

static char *make_tmpdir(const char *what, char **why)
{
	const char *tmpdir = getenv("TMPDIR");
	char *tmpl = bc_xasprintf("%s/benchcore%s.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp", what);
	if (mkdtemp(tmpl)) {
		/* the record lets a later run remove it if this one is killed
		   outright; without it the directory is only never cleaned by others */
		bc_owner_mark(tmpl);
		return tmpl;
	}
	*why = bc_xasprintf("could not create a directory %s: %s", tmpl, strerror(errno));
	free(tmpl);
	return NULL;
}

static char *skip_reason(bc_runner *r, const bc_modplan *p, const bc_val *point)
{
	char why[256];
	if (unmet(p, point, why, sizeof(why)) && !r->force_module)
		return bc_xstrdup(why);
	if (r->cfg->skip_heavy && p->mod->desc.requires.heavy)
		return bc_xasprintf("%s is marked heavy and skip_heavy = true", p->mod->desc.name);
	return NULL;
}

/* The options that shape the prepared data: the module's data_options, or
   all of them when it declares none (each point prepares for itself, as
   in ABI 1.0). */
static unsigned char *data_mask(const bc_modplan *p, int *reuse)
{
	const bench_module_v1 *d = &p->mod->desc;
	unsigned char *mask = bc_xcalloc(stride(p), 1);
	*reuse = d->data_options != NULL;
	for (size_t k = 0; k < p->nopts; k++)
		mask[k] = !*reuse;
	for (const char *const *n = d->data_options; n && *n; n++) {
		const bench_option_v1 *o = bc_opt_find(d->options, *n);
		if (o)
			mask[o - d->options] = 1;
		else
			bc_warn("%s: data_options names \"%s\", which is not one of its options (ignored)", d->name, *n);
	}
	return mask;
}

static int same_val(const bc_val *a, const bc_val *b)
{
	return a->i == b->i && a->d == b->d && !strcmp(a->s ? a->s : "", b->s ? b->s : "");
}

/* Numbers the distinct data points; points with equal data options share one. */
static void find_data_points(modrun *m)
{
	const bc_modplan *p = m->p;
	unsigned char *mask = data_mask(p, &m->reuse);
	m->dp = bc_xcalloc(p->npoints ? p->npoints : 1, sizeof(*m->dp));
	for (size_t i = 0; i < p->npoints; i++) {
		size_t j = 0;
		for (; j < i; j++) {
			size_t k = 0;
			while (k < p->nopts && (!mask[k] || same_val(&m->vals[i * stride(p) + k], &m->vals[j * stride(p) + k])))
				k++;
			if (k == p->nopts)
				break;
		}
		m->dp[i] = j < i ? m->dp[j] : m->ndp++;
	}
	m->dps = bc_xcalloc(m->ndp ? m->ndp : 1, sizeof(*m->dps));
	free(mask);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Rounds: every (point, threads) once in a shuffled order, repeat times (one
   round needs no shuffle: there are no repeats to spread). back_to_back:
   each case's repeats one after another, in plan order. */
static void build_schedule(modrun *m, uint32_t seed)
{
	const bc_modplan *p = m->p;
	size_t per = p->npoints * p->run.nthreads, k = 0;
	m->nsched = per * p->run.repeat;
	m->sched = bc_xcalloc(m->nsched ? m->nsched : 1, sizeof(*m->sched));
	if (p->run.back_to_back) {
		for (size_t pt = 0; pt < p->npoints; pt++)
			for (size_t ti = 0; ti < p->run.nthreads; ti++)
				for (unsigned rep = 1; rep <= p->run.repeat; rep++)
					m->sched[k++] = (slot){ pt, ti, rep };
	} else {
		/* the module's own stream: its order does not depend on other modules */
		uint64_t st = (uint64_t)seed << 32;
		for (const char *c = p->mod->desc.name; *c; c++)
			st = (st ^ (unsigned char)*c) * 0x100000001b3ull;
		for (unsigned rep = 1; rep <= p->run.repeat; rep++) {
			slot *round = m->sched + k;
			for (size_t pt = 0; pt < p->npoints; pt++)
				for (size_t ti = 0; ti < p->run.nthreads; ti++)
					m->sched[k++] = (slot){ pt, ti, rep };
			for (size_t i = per; p->run.repeat > 1 && i > 1; i--) {	/* Fisher-Yates */
				size_t j = (size_t)(splitmix(&st) % i);
				slot t = round[i - 1];
				round[i - 1] = round[j];
				round[j] = t;
			}
		}
	}
	for (size_t i = 0; i < m->nsched; i++)
		m->dps[m->dp[m->sched[i].point]].last = i;
}

static void modrun_init(modrun *m, bc_runner *r, const bc_modplan *p)
{
	memset(m, 0, sizeof(*m));
	m->p = p;
	m->vals = bc_xcalloc(p->npoints * stride(p) + 1, sizeof(*m->vals));
	m->skip = bc_xcalloc(p->npoints + 1, sizeof(*m->skip));
	m->labels = bc_xcalloc(p->npoints + 1, sizeof(*m->labels));
	for (size_t pt = 0; pt < p->npoints; pt++) {
		bc_val *v = m->vals + pt * stride(p);
		bc_plan_point(p, pt, v);
		m->labels[pt] = bc_plan_point_label(p, v);
		m->skip[pt] = skip_reason(r, p, v);
	}
	find_data_points(m);
	build_schedule(m, p->run.seed_set ? p->run.seed : r->seed);
	m->stopped = bc_xcalloc(p->npoints * p->run.nthreads + 1, sizeof(*m->stopped));
	char *why = NULL;
	size_t n = strlen(p->mod->desc.name) + 2;
	char *tag = bc_xasprintf("-%.*s", (int)(n > 24 ? 22 : n - 2), p->mod->desc.name);
	if (!(m->dir = make_tmpdir(tag, &why))) {	/* module_dir() then falls back to scratch_dir() */
		bc_warn("%s: %s", p->mod->desc.name, why);
		free(why);
	}
	free(tag);
	if (p->mod->shadows)
		bc_warn("module \"%s\" is %s; %s also call%s itself \"%s\" and is not used (it comes later on the search path)",
			p->mod->desc.name, p->mod->path, p->mod->shadows, strchr(p->mod->shadows, ',') ? "" : "s",
			p->mod->desc.name);
	m->link.module = p->mod->desc.name;
	m->link.dir = m->dir;
}

static void modrun_free(modrun *m)
{
	for (size_t pt = 0; pt < m->p->npoints; pt++) {
		free(m->labels[pt]);
		free(m->skip[pt]);
	}
	free(m->labels);
	free(m->stopped);
	free(m->skip);
	free(m->vals);
	free(m->dp);
	free(m->dps);
	free(m->sched);
	free(m->dir);
}

/* A long case's interval series goes to OUT.intervals.jsonl (one line per
   case, written and synced as the case ends) instead of staying in memory
   and in every rewrite of OUT: a 1800-interval case is ~3 MB of JSON. The
   case keeps intervals_file and intervals_count; short series stay inline. */
#define INLINE_INTERVALS 300

static void spill_intervals(bc_runner *r, bc_case_result *cr)
{
	if (!r->out_json || !strcmp(r->out_json, "-") || cr->nintervals <= INLINE_INTERVALS)
		return;
	json_t *iv = bc_case_intervals_json(cr);
	char *path = bc_xasprintf("%s.intervals.jsonl", r->out_json);
	/* the first case of this run starts the file afresh: a series of an
	   earlier run under this name is not this run's */
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (r->spilled ? 0 : O_TRUNC),
		      0644);
	r->spilled = 1;
	json_t *line = json_pack("{s:I, s:o}", "case", (json_int_t)cr->id, "intervals", iv);
	char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
	int ok = fd >= 0 && text;
	if (ok) {
		size_t len = strlen(text), off = 0;
		while (ok && off < len) {
			ssize_t w = write(fd, text + off, len - off);
			ok = w > 0 || (w < 0 && errno == EINTR);
			off += w > 0 ? (size_t)w : 0;
		}
		ok = ok && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
	}
	if (ok) {
		const char *base = strrchr(path, '/');
		bc_case_set_str(&cr->intervals_file, base ? base + 1 : path);
		cr->intervals_count = (long)cr->nintervals;
		bc_case_drop_intervals(cr);
	} else {
		bc_warn("could not write %s (%s): the intervals stay in %s", path, strerror(errno), r->out_json);
	}
	if (fd >= 0)
		close(fd);
	free(text);
	json_decref(line);
	free(path);
}

/* A case is done: printed, kept (the struct moves into r->cases), grouped,
   written with every earlier one. */
static void record(bc_runner *r, bc_case_result *cr, const char *label, const char *point, unsigned round)
{
	/* the swept parameters as written: what tells this case from its siblings */
	bc_case_set_str(&cr->point, point);
	cr->round = round;
	if (!strcmp(cr->status, "failed"))
		r->failed = 1;
	if (!strcmp(cr->status, "interrupted"))
		r->interrupted = 1;
	bc_print_case(r->text, cr, label);
	fflush(r->text);
	spill_intervals(r, cr);
	json_array_append_new(json_object_get(r->doc, "cases"), bc_case_to_json(cr));
	bc_results_add_case(&r->groups, cr);
	bc_case_drop_intervals(cr);	/* in the document now; the summary and CSV do not need them */
	if (r->ncases == r->ccases) {
		r->ccases = r->ccases ? 2 * r->ccases : 16;
		r->cases = bc_xrealloc(r->cases, r->ccases, sizeof(*r->cases));
	}
	r->cases[r->ncases++] = *cr;
	memset(cr, 0, sizeof(*cr));
	r->write_failed = bc_runner_write(r, 0) != 0;
}

/* Runs init + cleanup of the module for data point d in a fresh process (or
   this one, isolate = false), like case c; nothing is measured. */
static void cleanup_data(modrun *m, const bc_case *c, datapt *d)
{
	if (d->dirty && m->p->mod->desc.cleanup && !m->p->run.keep) {
		bc_case cc = *c;
		int crashed;
		bc_case_result cr;
		cc.cleanup_only = 1;
		cc.progress = 0;
		run_one(&cc, &m->link, m->p->run.isolate, &crashed, &cr);
		bc_case_free(&cr);
	}
	d->dirty = d->prepared = 0;
}

static bc_case case_of(bc_runner *r, modrun *m, size_t i)
{
	const bc_modplan *p = m->p;
	const slot *s = &m->sched[i];
	const datapt *d = &m->dps[m->dp[s->point]];
	return (bc_case){
		.mod = p->mod, .vals = m->vals + s->point * stride(p), .run = p->run,
		.threads = p->run.threads[s->ti], .repeat = s->rep, .pct = r->cfg->pct,
		.npct = r->cfg->npct, .progress = r->progress, .module_dir = m->dir,
		.do_prepare = !m->reuse || !d->prepared, .do_cleanup = i == d->last,
		.on_phase = local_phase, .start_server = local_start_server, .arg = &m->link,
	};
}

static void run_case(bc_runner *r, modrun *m, bc_case *c, const char *label, const slot *s)
{
	datapt *d = &m->dps[m->dp[s->point]];
	char *why = NULL, *scratch = make_tmpdir("", &why);
	bc_case_result cr;
	if (!scratch) {
		failed_case(c, why, &cr);
		record(r, &cr, label, m->labels[s->point], s->rep);
		free(why);
		return;
	}
	c->scratch = scratch;
	int crashed = 0;
	m->link.prepared = m->link.cleaned = 0;
	run_one(c, &m->link, m->p->run.isolate, &crashed, &cr);
	if (c->do_prepare)
		d->dirty = 1;
	if (m->link.prepared)
		d->prepared = 1;
	else if (c->do_prepare)
		d->prepared = 0;	/* prepare failed or never ran: the next case tries again */
	if (m->link.cleaned)
		d->prepared = d->dirty = 0;
	record(r, &cr, label, m->labels[s->point], s->rep);
	if (crashed) {
		/* the module died holding what it prepared: a fresh process removes
		   it, and the next case of this data point prepares again */
		d->dirty = 1;
		cleanup_data(m, c, d);
	}
	bc_rmtree(scratch);
	free(scratch);
}

/* repeat = auto: the practical threshold of group g's headline m, as
   compare would judge it: the module's declaration, else 2%. */
static double auto_threshold(const bc_rgroup *g, const bc_rmetric *m)
{
	json_t *t = json_object_get(g->thresholds, m->name);
	return json_is_number(t) && json_number_value(t) > 0 ? json_number_value(t) / 100 : 0.02;
}

/* repeat = auto: why the case of slot s (c) need not run, or NULL. */
static const char *auto_stop(bc_runner *r, modrun *m, const slot *s, const bc_case *c)
{
	const bc_modplan *p = m->p;
	size_t k = s->point * p->run.nthreads + s->ti;
	if (!p->run.repeat_auto || s->rep <= p->run.min_repeat)
		return NULL;
	if (m->stopped[k])
		return m->stopped[k];
	if (p->run.time_budget > 0 && (double)(bc_now_ns() - r->t0) / 1e9 > p->run.time_budget)
		return "budget";
	bc_case_result h;
	bc_case_header(c, "ok", NULL, &h);
	char *key = json_dumps(h.params, JSON_COMPACT | JSON_SORT_KEYS);
	const bc_rgroup *g = key ? bc_results_find(&r->groups, p->mod->desc.name, key, (long)c->threads) : NULL;
	const bc_rgroup *gb = key && r->baseline ? bc_results_find(r->baseline, p->mod->desc.name, key,
								     (long)c->threads) : NULL;
	free(key);
	bc_case_free(&h);
	const bc_rmetric *hm = g ? bc_primary_metric(g) : NULL;
	if (!hm)
		return NULL;	/* no ok repeat yet: nothing known */
	double thr = auto_threshold(g, hm);
	const bc_rmetric *bm = gb ? bc_group_metric(gb, hm->name) : NULL;
	if (bm && bm->n >= 2)	/* decided against the baseline's case */
		return bc_decided(bm->values, bm->n, hm->values, hm->n, thr) ? "decided" : NULL;
	return bc_precise(hm->values, hm->n, p->run.min_repeat, thr, BC_PRECISE_FRACTION) ? "precise" : NULL;
}

/* The last case run of point x thread count of m records why its repeats
   stopped (in the struct and in the document written so far). */
static void mark_stop(bc_runner *r, modrun *m, size_t pt, size_t ti, const char *why)
{
	const bc_modplan *p = m->p;
	m->stopped[pt * p->run.nthreads + ti] = why;
	bc_case_result h;
	bc_case c = { .mod = p->mod, .vals = m->vals + pt * stride(p), .threads = p->run.threads[ti] };
	bc_case_header(&c, "ok", NULL, &h);
	json_t *cases = json_object_get(r->doc, "cases");
	for (size_t i = r->ncases; i-- > 0;) {
		bc_case_result *cr = &r->cases[i];
		if (cr->threads != (long)c.threads || strcmp(cr->module, p->mod->desc.name) ||
		    !json_equal(cr->params, h.params))
			continue;
		bc_case_set_str(&cr->repeat_stop, why);
		json_object_set_new(json_array_get(cases, i), "repeat_stop", json_string(why));
		break;
	}
	bc_case_free(&h);
}

static void run_slot(bc_runner *r, modrun *m, size_t i)
{
	const bc_modplan *p = m->p;
	const slot *s = &m->sched[i];
	const char *pl = m->labels[s->point];
	bc_case c = case_of(r, m, i);
	const char *stop = auto_stop(r, m, s, &c);
	if (stop) {
		if (!m->stopped[s->point * p->run.nthreads + s->ti])
			mark_stop(r, m, s->point, s->ti, stop);
		return;
	}
	if (r->resume) {	/* a case the interrupted run finished: kept, not run */
		bc_case_result h;
		bc_case_header(&c, "ok", NULL, &h);
		int kept = bc_resume_has(r->resume, p->mod->desc.name, h.params, (long)c.threads, (long)s->rep);
		bc_case_free(&h);
		if (kept)
			return;
	}
	c.id = r->next_id++;
	char *label = bc_xasprintf("%s%s%s threads=%u %s %u/%u", p->mod->desc.name, *pl ? " " : "", pl,
				   c.threads, p->run.back_to_back ? "repeat" : "round", s->rep, p->run.repeat);
	if (m->skip[s->point]) {
		bc_case_result cr;
		bc_case_header(&c, "skipped", m->skip[s->point], &cr);
		record(r, &cr, label, pl, s->rep);
	} else {
		run_case(r, m, &c, label, s);
	}
	free(label);
}

/* Cleanup still owed for data point k (its last case did not clean up, or
   the run stops early): like that last case, in a scratch dir of its own. */
static void settle(bc_runner *r, modrun *m, size_t k)
{
	datapt *d = &m->dps[k];
	char *why = NULL, *scratch;
	if (!d->dirty)
		return;
	if (!(scratch = make_tmpdir("", &why))) {
		bc_warn("%s: cleanup skipped: %s", m->p->mod->desc.name, why);
		free(why);
		return;
	}
	bc_case c = case_of(r, m, d->last);
	c.scratch = scratch;
	cleanup_data(m, &c, d);
	bc_rmtree(scratch);
	free(scratch);
}

/* All of a module's cases; then what it leaves is removed, on every way out. */
static void run_module(bc_runner *r, const bc_modplan *p)
{
	modrun m;
	modrun_init(&m, r, p);
	for (size_t i = 0; i < m.nsched && !bc_stop_requested; i++) {
		run_slot(r, &m, i);
		size_t k = m.dp[m.sched[i].point];
		if (i == m.dps[k].last)
			settle(r, &m, k);
	}
	for (size_t k = 0; k < m.ndp; k++)	/* interrupted: data points not finished */
		settle(r, &m, k);
	for (size_t pt = 0; p->run.repeat_auto && !bc_stop_requested && pt < p->npoints; pt++)
		for (size_t ti = 0; ti < p->run.nthreads; ti++)
			if (!m.stopped[pt * p->run.nthreads + ti] && !m.skip[pt])
				mark_stop(r, &m, pt, ti, "max_repeat");
	if (p->run.repeat_auto)
		r->write_failed = bc_runner_write(r, 0) != 0;
	bc_service_stop_module(p->mod->desc.name);
	if (m.dir)
		bc_rmtree(m.dir);
	modrun_free(&m);
}

int bc_runner_run(bc_runner *r, bc_modplan *plans, size_t n)
{
	r->t0 = bc_now_ns();
	/* what runs killed outright left (their owner is gone): see leftover.h */
	bc_clean_leftovers(bc_leftover_parent(), 0, 0);
	for (size_t i = 0; i < n && !bc_stop_requested; i++)
		run_module(r, &plans[i]);
	bc_service_stop_all();
	if (bc_stop_requested)
		r->interrupted = 1;
	r->write_failed = bc_runner_write(r, 1) != 0;
	bc_results_done(&r->groups);
	bc_print_summary(r->text, r->cases, r->ncases, &r->groups);
	if (r->write_failed) {
		/* never "written" when it was not: the reason is printed above */
		fprintf(stderr, "benchcore: error: the results were NOT saved%s%s%s\n",
			r->out_json ? " to " : "", r->out_json ? r->out_json : "",
			r->out_csv ? " (or the CSV)" : "");
		return 3;
	}
	if (r->out_json && strcmp(r->out_json, "-"))
		bc_info("results written to %s", r->out_json);
	if (r->interrupted)
		return 130;
	return r->failed ? 1 : 0;
}
