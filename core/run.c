/* The schedule: every module x point x threads x repeat, each case in a
 * forked child by default. The child sends "P <phase>" lines and finally
 * "J <json>" over a pipe; the parent enforces a watchdog (warmup + time +
 * grace once measuring starts) and turns a crash, an exit or a hang into a
 * failed case. Results are rewritten (atomically) after every case, so a
 * crash of benchcore itself or a second Ctrl-C loses at most one case. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "engine.h"
#include "output.h"
#include "run.h"
#include "sysinfo.h"

#define PREPARE_LIMIT_S 1800	/* init + prepare of one case */

volatile sig_atomic_t bc_signals;

static void now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void bc_runner_init(bc_runner *r, const bc_config *cfg, json_t *config_json, const char *io_path)
{
	char ts[32], host[256] = "";
	now_iso(ts, sizeof(ts));
	gethostname(host, sizeof(host) - 1);
	r->cfg = cfg;
	r->next_id = 1;
	r->doc = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:o, s:o, s:[], s:[]}", "schema", "benchcore/1",
			   "benchcore_version", BC_VERSION, "started_at", ts, "finished_at", ts,
			   "interrupted", 0, "label", cfg->label ? cfg->label : host,
			   "host", bc_sysinfo_host(io_path), "config", config_json, "cases", "groups");
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(json_object_get(r->doc, "host"), "warnings"), i, w)
		bc_warn("%s", json_string_value(w));	/* e.g. the governor: say it before measuring */
}

void bc_runner_free(bc_runner *r)
{
	json_decref(r->doc);
	r->doc = NULL;
}

int bc_runner_write(bc_runner *r)
{
	char ts[32];
	bc_err e;
	int rc = 0;
	now_iso(ts, sizeof(ts));
	json_object_set_new(r->doc, "finished_at", json_string(ts));
	json_object_set_new(r->doc, "interrupted", json_boolean(r->interrupted));
	json_object_set_new(r->doc, "groups", bc_groups(json_object_get(r->doc, "cases")));
	if (r->out_json) {
		char *s = json_dumps(r->doc, JSON_INDENT(1));
		if (bc_write_atomic(r->out_json, s, strlen(s), &e)) {
			bc_err_print(&e);
			rc = -1;
		}
		free(s);
	}
	if (r->out_csv) {
		char *s = bc_csv(r->doc);
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
	(void)r;
	for (size_t i = 0; i < n; i++) {
		size_t c = cases_of(&plans[i]);
		total += c;
		secs += c * (plans[i].run.warmup_s + plans[i].run.time_s);
		bc_info("plan: %s: %zu point%s x %zu thread count%s x %u repeat%s = %zu case%s",
			plans[i].mod->desc.name, plans[i].npoints, plans[i].npoints == 1 ? "" : "s",
			plans[i].run.nthreads, plans[i].run.nthreads == 1 ? "" : "s", plans[i].run.repeat,
			plans[i].run.repeat == 1 ? "" : "s", c, c == 1 ? "" : "s");
	}
	bc_info("plan: %zu case%s, about %.0f s of warmup and measurement (plus prepare time)",
		total, total == 1 ? "" : "s", secs);
}

/* ------------------------------------------------------------ isolation */

static int child_fd = -1;

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void child_phase(void *arg, const char *phase)
{
	(void)arg;
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "P %s\n", phase);
	write_all(child_fd, buf, (size_t)n);
}

static json_t *failed_case(const bc_case *c, const char *reason)
{
	json_t *params = json_object();
	const bench_option_v1 *o = c->mod->desc.options;
	for (size_t i = 0; o && o[i].name; i++)
		json_object_set_new(params, o[i].name, bc_val_json(&o[i], &c->vals[i]));
	return json_pack("{s:i, s:s, s:s, s:o, s:i, s:i, s:s, s:s, s:f, s:f, s:{}, s:{}, s:{}}",
			 "id", (json_int_t)c->id, "module", c->mod->desc.name, "module_version",
			 c->mod->desc.version ? c->mod->desc.version : "", "params", params,
			 "threads", (json_int_t)c->threads, "repeat", (json_int_t)c->repeat,
			 "status", "failed", "reason", reason, "duration_s", 0.0, "warmup_s",
			 c->run.warmup_s, "metrics", "ops", "info");
}

static json_t *reap(const bc_case *c, pid_t pid, const char *buf, int timed_out, const char *phase, double limit)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	const char *j = strstr(buf, "J ");
	if (j && (j == buf || j[-1] == '\n')) {
		json_error_t je;
		json_t *cj = json_loads(j + 2, 0, &je);
		if (cj)
			return cj;
	}
	char why[256];
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
	return failed_case(c, why);
}

/* Runs c in a child; *crashed is set when it did not report normally. */
static json_t *run_isolated(bc_case *c, int *crashed)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return failed_case(c, "could not create a pipe");
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return failed_case(c, "could not fork");
	}
	if (pid == 0) {
		close(fds[0]);
		child_fd = fds[1];
		c->on_phase = child_phase;
		json_t *cj = bc_case_run(c);
		char *s = json_dumps(cj, JSON_COMPACT);
		write_all(child_fd, "J ", 2);
		write_all(child_fd, s, strlen(s));
		write_all(child_fd, "\n", 1);
		_exit(0);
	}
	close(fds[1]);
	size_t len = 0, cap = 65536;
	char *buf = bc_xcalloc(cap, 1), phase[32] = "init";
	double limit = c->cleanup_only ? 120 : PREPARE_LIMIT_S;
	uint64_t deadline = bc_now_ns() + (uint64_t)(limit * 1e9);
	int timed_out = 0, forwarded = 0;
	for (;;) {
		if (c->cleanup_only) {
			/* cleanup is short and must not be cut short by a signal */
		} else if (bc_stop_requested && !forwarded) {
			kill(pid, SIGINT);	/* the child stops cleanly and still reports */
			forwarded = 1;
		}
		if (bc_signals >= 2 && !c->cleanup_only) {
			kill(pid, SIGKILL);
			break;
		}
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		uint64_t now = bc_now_ns();
		if (now >= deadline) {
			kill(pid, SIGKILL);
			timed_out = 1;
			break;
		}
		uint64_t wait_ms = (deadline - now) / 1000000u;
		int pr = poll(&pfd, 1, wait_ms > 200 ? 200 : (int)wait_ms + 1);
		if (pr <= 0)
			continue;
		if (len + 4096 > cap)
			buf = realloc(buf, cap *= 2);
		ssize_t n = read(fds[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		char *p = strstr(buf, "P measure\n");
		if (p && strcmp(phase, "the measured window")) {
			snprintf(phase, sizeof(phase), "the measured window");
			limit = c->run.time_s > 0 ? c->run.warmup_s + c->run.time_s + c->run.grace : PREPARE_LIMIT_S;
			deadline = bc_now_ns() + (uint64_t)(limit * 1e9);
		} else if (strstr(buf, "P prepare\n") && !strcmp(phase, "init")) {
			snprintf(phase, sizeof(phase), "init/prepare");
		}
	}
	close(fds[0]);
	json_t *cj = reap(c, pid, buf, timed_out, phase, limit);
	*crashed = !strstr(buf, "\nJ ") && strncmp(buf, "J ", 2);
	free(buf);
	return cj;
}

/* ---------------------------------------------------------- requirements */

static int unmet(const bc_modplan *p, const bc_val *point, char *why, size_t n)
{
	const bench_requirements_v1 *rq = &p->mod->desc.requires;
	struct sysinfo si;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (rq->min_cpus && cpus > 0 && (uint32_t)cpus < rq->min_cpus) {
		snprintf(why, n, "%s needs %u CPUs, this machine has %ld", p->mod->desc.name, rq->min_cpus, cpus);
		return 1;
	}
	if (rq->min_memory && sysinfo(&si) == 0) {
		double avail = (double)(si.freeram + si.bufferram) * si.mem_unit;
		if (avail < (double)rq->min_memory) {
			snprintf(why, n, "%s needs %.1f GiB free memory, this machine has %.1f GiB",
				 p->mod->desc.name, rq->min_memory / 1073741824.0, avail / 1073741824.0);
			return 1;
		}
	}
	const bench_option_v1 *o = rq->disk_path_option ? bc_opt_find(p->mod->desc.options, rq->disk_path_option) : NULL;
	struct statvfs vfs;
	if (rq->min_disk && o && point[o - p->mod->desc.options].s &&
	    statvfs(point[o - p->mod->desc.options].s, &vfs) == 0) {
		double avail = (double)vfs.f_bavail * vfs.f_frsize;
		if (avail < (double)rq->min_disk) {
			snprintf(why, n, "%s needs %.1f GiB free at %s, it has %.1f GiB", p->mod->desc.name,
				 rq->min_disk / 1073741824.0, point[o - p->mod->desc.options].s, avail / 1073741824.0);
			return 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------- schedule */

static void record(bc_runner *r, json_t *cj, const char *label, const char *point)
{
	/* the swept parameters as written: what tells this case from its siblings */
	json_object_set_new(cj, "point", json_string(point));
	const char *st = json_string_value(json_object_get(cj, "status"));
	if (!strcmp(st, "failed"))
		r->failed = 1;
	if (!strcmp(st, "interrupted"))
		r->interrupted = 1;
	bc_print_case(stdout, cj, label);
	fflush(stdout);
	json_array_append_new(json_object_get(r->doc, "cases"), cj);
	bc_runner_write(r);
}

static void run_case(bc_runner *r, const bc_modplan *p, bc_case *c, const char *label,
		     const char *point, int isolate)
{
	int crashed = 0;
	json_t *cj = isolate ? run_isolated(c, &crashed) : bc_case_run(c);
	record(r, cj, label, point);
	if (crashed && p->mod->desc.cleanup && !c->run.keep) {
		/* the module died holding what it prepared: let a fresh process remove it */
		bc_case cc = *c;
		cc.cleanup_only = 1;
		cc.progress = 0;
		json_decref(run_isolated(&cc, &crashed));
	}
}

static void run_point(bc_runner *r, const bc_modplan *p, bc_val *point)
{
	char *plabel = bc_plan_point_label(p, point), why[256];
	int skip = unmet(p, point, why, sizeof(why)) && !r->force_module;
	if (!skip && r->cfg->skip_heavy && p->mod->desc.requires.heavy) {
		snprintf(why, sizeof(why), "%s is marked heavy and skip_heavy = true", p->mod->desc.name);
		skip = 1;
	}
	for (size_t ti = 0; ti < p->run.nthreads && !bc_stop_requested; ti++)
		for (unsigned rep = 1; rep <= p->run.repeat && !bc_stop_requested; rep++) {
			bc_case c = {
				.mod = p->mod, .vals = point, .run = p->run, .threads = p->run.threads[ti],
				.id = r->next_id++, .repeat = rep, .pct = r->cfg->pct, .npct = r->cfg->npct,
				.progress = r->progress, .do_prepare = 1,
				.do_cleanup = ti + 1 == p->run.nthreads && rep == p->run.repeat,
			};
			char *label = bc_xasprintf("%s%s%s threads=%u repeat %u/%u", p->mod->desc.name,
						   *plabel ? " " : "", plabel, c.threads, rep, p->run.repeat);
			if (skip) {
				json_t *cj = failed_case(&c, why);
				json_object_set_new(cj, "status", json_string("skipped"));
				record(r, cj, label, plabel);
				free(label);
				continue;
			}
			const char *tmpdir = getenv("TMPDIR");
			char *tmpl = bc_xasprintf("%s/benchcore.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
			c.scratch = mkdtemp(tmpl);
			if (!c.scratch) {
				char *why2 = bc_xasprintf("could not create a scratch directory %s: %s", tmpl, strerror(errno));
				record(r, failed_case(&c, why2), label, plabel);
				free(why2);
			} else {
				run_case(r, p, &c, label, plabel, p->run.isolate);
				bc_rmtree(c.scratch);
			}
			free(tmpl);
			free(label);
		}
	free(plabel);
}

int bc_runner_run(bc_runner *r, bc_modplan *plans, size_t n)
{
	for (size_t i = 0; i < n && !bc_stop_requested; i++) {
		bc_val *point = bc_xcalloc(plans[i].nopts ? plans[i].nopts : 1, sizeof(bc_val));
		for (size_t pi = 0; pi < plans[i].npoints && !bc_stop_requested; pi++) {
			bc_plan_point(&plans[i], pi, point);
			run_point(r, &plans[i], point);
		}
		free(point);
	}
	if (bc_stop_requested)
		r->interrupted = 1;
	bc_runner_write(r);
	bc_print_summary(stdout, r->doc);
	if (r->out_json)
		bc_info("results written to %s", r->out_json);
	if (r->interrupted)
		return 130;
	return r->failed ? 1 : 0;
}
