/* benchcore check-module FILE.so: a module author's check (PostgreSQL's
 * installcheck plays this part for extensions). The file goes through the
 * loader as on a site (trust, probe, contents: the same refusals), is
 * described, and runs through every phase under the same containment as a
 * run: once with its defaults at 1 and N threads, then once per bound of
 * each INT/SIZE/DOUBLE option, per choice of each ENUM and per value of
 * each BOOL, the other options at their defaults, with short windows. Then
 * one line per case: status, the seconds of each phase, peak memory, and the
 * reason or warnings. Exit 0 only when every case ran ok or was skipped
 * with a reason. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "case.h"
#include "cli.h"
#include "config.h"
#include "engine.h"
#include "flags.h"
#include "leftover.h"
#include "loader.h"
#include "options.h"
#include "rundoc.h"
#include "suite.h"
#include "util.h"

enum { K_TIME = 1, K_WARMUP, K_THREADS, K_PHASE, K_DEFAULTS, K_OUTPUT, K_VERBOSE, K_CONFIG, K_EXPECT, K_HELP };
/* A check's cases are short: a hang in a phase is a finding, not a minute's
   wait (a run's defaults give init and thread_init 60 s each). prepare, which
   may load data, gets PREPARE_TIMES the limit. */
#define PHASE_LIMIT_S 5.0
#define PREPARE_TIMES 12
/* check-module's --events run: a budget a batch-claiming loop would miss */
#define EVENTS_CHECK 25
/* ... and its warmup when the check's cases have none */
#define EVENTS_WARMUP 0.2
static const bc_flag check_flags[] = {
	{ "time", 0, "S", K_TIME, "measured seconds of each case (default 0.5)" },
	{ "warmup", 0, "S", K_WARMUP, "warmup seconds of each case (default 0.2)" },
	{ "threads", 0, "N", K_THREADS, "the second thread count of the defaults' cases (default 2, or the "
	  "module's min_cpus when more)" },
	{ "phase-timeout", 0, "S", K_PHASE, "seconds init, thread_init, finish, cleanup and destroy may each take, "
	  "and the window's grace, before the case is killed and failed (default 5); prepare may take 12 times that" },
	{ "defaults-only", 0, NULL, K_DEFAULTS, "run the defaults only, not each option at its bounds" },
	{ "output", 'o', "OUT.json", K_OUTPUT, "keep the results of the check (schema benchcore/1)" },
	{ "verbose", 'v', NULL, K_VERBOSE, "also the run's own text: the plan, every case's figures, its summary" },
	{ "config", 'c', "CONF", K_CONFIG, "a regression test: run this config's entries (all of this module) "
	  "instead of the bounds, then check --expect" },
	{ "expect", 0, "FILE", K_EXPECT, "with -c: invariants every case must meet, one a line: PATH OP VALUE "
	  "(status == ok, ops.insert.count > 0, info.rows == 1000); exit 1 when one does not hold" },
	{ "help", 'h', NULL, K_HELP, "this text" },
	{ NULL }
};

typedef struct check_args {
	double time_s, warmup_s, phase_s;
	unsigned threads;
	int defaults_only, verbose, help;
	const char *out, *config, *expect;
} check_args;

static int on_check_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	check_args *a = arg;
	double d;
	if (f->code == K_TIME || f->code == K_WARMUP || f->code == K_PHASE) {
		if (bc_parse_double(val, &d) || d < (f->code == K_WARMUP ? 0 : f->code == K_PHASE ? 0.1 : 0.01) ||
		    d > 3600) {
			bc_err_set(e, "--%s: \"%s\" is not a number of seconds in %s .. 3600", f->lng, val,
				   f->code == K_WARMUP ? "0" : f->code == K_PHASE ? "0.1" : "0.01");
			return -1;
		}
		*(f->code == K_TIME ? &a->time_s : f->code == K_WARMUP ? &a->warmup_s : &a->phase_s) = d;
	} else if (f->code == K_THREADS) {
		int64_t t;
		if (bc_parse_int64(val, &t) || t < 1 || t > 1024) {
			bc_err_set(e, "--threads: \"%s\" is not a thread count in 1 .. 1024", val);
			return -1;
		}
		a->threads = (unsigned)t;
	} else if (f->code == K_DEFAULTS) {
		a->defaults_only = 1;
	} else if (f->code == K_OUTPUT) {
		a->out = val;
	} else if (f->code == K_VERBOSE) {
		a->verbose = 1;
	} else if (f->code == K_CONFIG) {
		a->config = val;
	} else if (f->code == K_EXPECT) {
		a->expect = val;
	} else {
		a->help = 1;
	}
	return 0;
}

/* Why an option keeps its default in the check, or NULL when it is varied. */
static const char *kept_why(const bench_module_v1 *d, const bench_option_v1 *o)
{
	if (o->flags & BENCH_OPT_SECRET)
		return "a secret: its value must be the site's";
	if (d->requires.disk_path_option && !strcmp(d->requires.disk_path_option, o->name))
		return "a path (requires.disk_path_option): it must name a real place";
	if (o->flags & BENCH_OPT_PLACEMENT)
		return "says where the workload runs (a server, socket or path): it must be a real one";
	if (o->type == BENCH_OPT_STRING)
		return "a string: no bounds to try, it may need a real path or server";
	if ((o->type == BENCH_OPT_INT || o->type == BENCH_OPT_SIZE || o->type == BENCH_OPT_DOUBLE) &&
	    !(o->min < o->max))
		return "no bounds declared (min < max)";
	return NULL;
}

static void print_description(const bc_module *m)
{
	const bench_module_v1 *d = &m->desc;
	char *sum = bc_printable(d->summary ? d->summary : ""), sz[32];
	printf("module %s %s (ABI %u.%u): %s\n  file: %s\n  sha256: %s\n  callbacks:", d->name,
	       d->version ? d->version : "-", d->abi_major, d->abi_minor, sum, m->path, m->sha256);
	free(sum);
	const void *cbs[] = { (void *)d->init, (void *)d->prepare, (void *)d->thread_init, (void *)d->event,
			      (void *)d->thread_run, (void *)d->thread_done, (void *)d->finish, (void *)d->cleanup,
			      (void *)d->destroy, (void *)d->serve };
	static const char *const names[] = { "init", "prepare", "thread_init", "event", "thread_run",
					     "thread_done", "finish", "cleanup", "destroy", "serve" };
	for (size_t i = 0; i < sizeof(cbs) / sizeof(*cbs); i++)
		if (cbs[i])
			printf(" %s", names[i]);
	printf("\n  op classes (%u):", m->nops);
	for (unsigned i = 0; i < m->nops && i < 8; i++)
		printf(" %s", m->ops[i]);
	printf("%s\n  metrics: events_per_sec", m->nops > 8 ? " ..." : "");
	for (const bench_metric_v1 *mt = d->metrics; mt && mt->name; mt++)
		printf(", %s", mt->name);
	printf("\n  requires:");
	if (d->requires.min_cpus)
		printf(" %u CPUs", d->requires.min_cpus);
	if (d->requires.min_memory)
		printf(" %s memory", bc_human_size((double)d->requires.min_memory, sz, sizeof(sz)));
	if (d->requires.min_disk)
		printf(" %s disk at option %s", bc_human_size((double)d->requires.min_disk, sz, sizeof(sz)),
		       d->requires.disk_path_option ? d->requires.disk_path_option : "?");
	if (d->requires.heavy)
		printf(" heavy");
	printf("%s\n", d->requires.min_cpus || d->requires.min_memory || d->requires.min_disk ||
	       d->requires.heavy ? "" : d->needs ? " what needs() computes for each case" : " nothing special");
	fflush(stdout);	/* needs() runs in a child */
	bc_print_needs(stdout, m, "  ");
	printf("  options:\n");
	for (const bench_option_v1 *o = d->options; o && o->name; o++) {
		const char *why = kept_why(d, o);
		char *help = bc_printable(o->help ? o->help : "");
		printf("    %-16s %-7s %s\n      %s%s\n", o->name, bc_opt_type_name(o->type), help,
		       why ? "kept at its default: " : "varied: ", why ? why :
		       o->type == BENCH_OPT_ENUM ? "each choice" : o->type == BENCH_OPT_BOOL ? "false, true" :
		       "its min and its max");
		free(help);
	}
}

/* A number as the config would write it. */
static char *num_text(const bench_option_v1 *o, double v)
{
	char buf[BC_DOUBLE_TEXT];
	return o->type == BENCH_OPT_DOUBLE ? bc_xstrdup(bc_fmt_double(v, buf, sizeof(buf))) : bc_xasprintf("%.0f", v);
}

/* Is candidate (ENUM: choice index, BOOL: 0/1, else the number) the
   option's default? Its case would repeat the defaults' case. */
static int is_default(const bench_option_v1 *o, double candidate)
{
	bc_err err;
	size_t n = 0;
	bc_val *defs = bc_val_defaults(o, &n, &err);
	int same = n == 1 && (o->type == BENCH_OPT_ENUM || o->type == BENCH_OPT_BOOL ? (double)defs[0].i == candidate
			      : defs[0].d == candidate);
	for (size_t i = 0; i < n; i++)
		bc_val_free(&defs[i]);
	free(defs);
	return same;
}

static void add_entry(bc_config *cfg, const char *name, const char *key, char *value)
{
	bc_modconf *mc = bc_config_add_module(cfg, name, "check-module");
	mc->run.nthreads = 1;
	mc->run.threads[0] = 1;
	if (key) {
		char **v = bc_xcalloc(2, sizeof(char *));
		v[0] = value;
		bc_modconf_give(mc, key, v, "check-module");
	}
}

/* The defaults at 1 and N threads, then each varied option's values. */
static void plan_check(bc_config *cfg, const bc_module *m, const check_args *a)
{
	const bench_module_v1 *d = &m->desc;
	unsigned n = a->threads ? a->threads : d->requires.min_cpus > 2 ? d->requires.min_cpus : 2;
	bc_modconf *mc = bc_config_add_module(cfg, d->name, "check-module");
	mc->run.nthreads = n > 1 ? 2 : 1;
	mc->run.threads[0] = 1;
	mc->run.threads[1] = n;
	for (const bench_option_v1 *o = d->options; !a->defaults_only && o && o->name; o++) {
		if (kept_why(d, o))
			continue;
		if (o->type == BENCH_OPT_ENUM) {
			for (const char *const *c = o->choices; *c; c++)
				if (!is_default(o, (double)(c - o->choices)))
					add_entry(cfg, d->name, o->name, bc_xstrdup(*c));
		} else if (o->type == BENCH_OPT_BOOL) {
			for (int b = 0; b < 2; b++)
				if (!is_default(o, b))
					add_entry(cfg, d->name, o->name, bc_xstrdup(b ? "true" : "false"));
		} else {
			if (!is_default(o, o->min))
				add_entry(cfg, d->name, o->name, num_text(o, o->min));
			if (!is_default(o, o->max))
				add_entry(cfg, d->name, o->name, num_text(o, o->max));
		}
	}
}

/* "words=64" for the options of a case that are not at their default. */
static char *what_of(const bc_module *m, const bc_case_result *r)
{
	char *out = bc_xstrdup("");
	for (const bench_option_v1 *o = m->desc.options; o && o->name; o++) {
		json_t *v = json_object_get(r->params, o->name);
		size_t nd = 0;
		bc_err err;
		bc_val *defs = bc_val_defaults(o, &nd, &err);
		int dflt = 0;
		for (size_t i = 0; i < nd; i++) {
			json_t *dj = bc_val_json(o, &defs[i]);
			dflt |= json_equal(dj, v);
			json_decref(dj);
			bc_val_free(&defs[i]);
		}
		free(defs);
		if (dflt || !v)
			continue;
		char *t = json_is_string(v) ? bc_printable(json_string_value(v)) : bc_json_text(v);
		char *n = bc_xasprintf("%s%s%s=%s", out, *out ? " " : "", o->name, t ? t : "?");
		free(t);
		free(out);
		out = n;
	}
	if (!*out) {
		free(out);
		out = bc_xstrdup("defaults");
	}
	return out;
}

static char *fails;	/* the failed cases' lines for the verdict (main thread) */

/* Prints one case's line; 1 when it passed. */
static int print_case(const bc_module *m, const bc_case_result *r)
{
	char *what = what_of(m, r), mem[32] = "-";
	if (r->peak_rss_bytes)
		bc_human_size((double)r->peak_rss_bytes, mem, sizeof(mem));
	/* a case that left processes running is no pass, whatever its status:
	   on a site they would outlive the run (the runner kills them) */
	int ok = (!strcmp(r->status, "ok") || (!strcmp(r->status, "skipped") && r->reason && *r->reason)) &&
		 !r->strays_killed;
	/* a needs() that declared less than half of what the case took lets a
	   site's plan run it where it does not fit (run/fit.c warns) */
	const char *lied = NULL;
	for (size_t i = 0; i < r->nwarnings && !lied; i++)
		if (!strncmp(r->warnings[i], "needs() declared ", 17))
			lied = r->warnings[i];
	ok &= !lied;
	printf("%-5lld %-26s %4ld %-5s %-11s", r->id, what, r->threads, ok ? "PASS" : "FAIL", r->status);
	for (int i = 0; i < BC_NPHASES; i++) {
		if (r->phases.set && r->phases.s[i] == r->phases.s[i])
			printf(" %8.3f", r->phases.s[i]);
		else
			printf(" %8s", "-");
	}
	printf(" %10s\n", mem);
	char *p = r->reason ? bc_printable(r->reason) : NULL;
	if (p)
		printf("      reason: %s\n", p);
	if (!ok) {
		char *strays = r->strays_killed ? bc_xasprintf("%sleft %llu process%s running (killed): a module "
							       "must stop what it starts", p ? "; " : "",
							       (unsigned long long)r->strays_killed,
							       r->strays_killed == 1 ? "" : "es") : bc_xstrdup("");
		char *f = bc_xasprintf("%s  case %lld (%s, %ld thread%s): %s%s%s%s\n", fails ? fails : "", r->id, what,
				       r->threads, r->threads == 1 ? "" : "s", p ? p : "", strays,
				       lied && (p || *strays) ? "; " : "", lied ? lied : "");
		free(fails);
		fails = f;
		free(strays);
	}
	free(p);
	for (size_t i = 0; i < r->nwarnings; i++) {
		char *wp = bc_printable(r->warnings[i]);
		printf("      warning: %s\n", wp);
		free(wp);
	}
	free(what);
	return ok;
}

/* The check's results, read back with the one case reader. */
static int report(const bc_module *m, const char *path, int run_rc)
{
	bc_rundoc doc;
	bc_err le;
	bc_rundoc_load(path, &doc, &le);	/* unreadable or absent: no case, said below */
	json_t *cases = doc.cases;
	int bad = run_rc != 0 && run_rc != 1;
	size_t n = json_array_size(cases), npass = 0, nran = 0, nfailed = 0;
	printf("\ncheck-module %s: %zu case%s\n%-5s %-26s %4s %-5s %-11s", m->desc.name, n, n == 1 ? "" : "s",
	       "case", "options", "thr", "check", "status");
	static const char *const heads[BC_NPHASES] = { "init", "prepare", "thr_init", "warmup", "measure",
						       "finish", "cleanup", "destroy" };
	for (int i = 0; i < BC_NPHASES; i++)
		printf(" %8s", heads[i]);
	printf(" %10s\n", "peak mem");
	for (size_t i = 0; i < n; i++) {
		bc_case_result r;
		bc_err err;
		if (bc_case_from_json(json_array_get(cases, i), i, &r, &err)) {
			printf("      unreadable case: %s\n", err.msg);
			bad = 1;
			continue;
		}
		int ok = print_case(m, &r);
		bad |= !ok;
		npass += (size_t)ok;
		nran += !strcmp(r.status, "ok");
		nfailed += !strcmp(r.status, "failed");
		bc_case_free(&r);
	}
	bc_rundoc_free(&doc);
	/* skips with reasons are fine beside cases that ran; a check in which
	   nothing ran checked nothing */
	int none_ran = n && !nran && run_rc != 130;
	if (!n || none_ran)
		bad = 1;
	printf("%s: %zu of %zu cases passed (ok, or skipped with a reason)%s\n%s", bad ? "FAIL" : "PASS", npass, n,
	       run_rc == 130 ? "; interrupted" : "", fails ? fails : "");
	if (none_ran && nfailed == n)
		printf("  every case failed (%zu of %zu): none ran to its end, so nothing was checked (the errors above "
		       "say why)\n", nfailed, n);
	else if (none_ran && nfailed)
		printf("  no case ran to its end: %zu of %zu failed, the others were skipped (the reasons above say "
		       "why)\n", nfailed, n);
	else if (none_ran)
		printf("  every case was skipped: nothing ran, so nothing was checked (the reasons above say why; "
		       "run the check where the module's requirements are met)\n");
	free(fails);
	fails = NULL;
	return bad ? (run_rc == 130 ? 130 : run_rc == 3 ? 3 : run_rc == 2 ? 2 : 1) : 0;
}

static char *results_path(const check_args *a, char **tmpdir)
{
	*tmpdir = NULL;
	if (a->out)
		return bc_xstrdup(a->out);
	const char *base = getenv("TMPDIR");
	bc_err e;
	if (bc_tmpdir_check(&e)) {
		bc_err_print(&e);
		return NULL;
	}
	char *t = bc_xasprintf("%s/benchcore-check.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(t)) {
		fprintf(stderr, "benchcore check-module: error: could not create a temp dir %s: %s\n", t,
			strerror(errno));
		free(t);
		return NULL;
	}
	/* like a run's directories: a check killed outright leaves it to the
	   next run's sweep or `benchcore clean` */
	bc_owner_mark(t);
	*tmpdir = t;
	return bc_xasprintf("%s/check.json", t);
}

/* The run's own text (plan, figures, summary) only with --verbose: the
   check's table says what an author needs; warnings and errors go to
   stderr either way. */
static int quiet_suite(bc_config *cfg, bc_suite_opts *so, const check_args *a)
{
	fflush(stdout);
	int saved = a->verbose ? -1 : dup(1), devnull = saved < 0 ? -1 : open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull >= 0)
		dup2(devnull, 1);
	int rc = bc_run_suite(cfg, so);
	fflush(stdout);
	if (devnull >= 0) {
		dup2(saved, 1);
		close(devnull);
	}
	if (saved >= 0)
		close(saved);
	return rc;
}

/* The case of an --events run, read back: 0, or -1 (said why). */
static int events_case(const char *path, bc_case_result *r)
{
	bc_rundoc doc;
	bc_err err;
	int rc = bc_rundoc_load(path, &doc, &err) == 0 && json_array_size(doc.cases) == 1 &&
		 bc_case_from_json(json_array_get(doc.cases, 0), 0, r, &err) == 0 ? 0 : -1;
	bc_rundoc_free(&doc);
	if (rc)
		printf("FAIL: --events %d: no readable case\n", EVENTS_CHECK);
	return rc;
}

/* --events N must run N operations: a loop that takes an event with
   should_stop() and then claims its batch runs fewer (sys did: 100 -> 92),
   one that takes one event a batch runs more (mem did), and one whose batch
   begun in warmup enters the window uncharged ran more (sys getpid: 114k
   for 100k). The defaults at 1 thread without a warmup, then at the check's
   second thread count after its warmup; the window long enough for N to end
   it. 1 on a failure, 0 when it ran N or could not tell (said). */
static int events_pass(const bc_module *m, const check_args *a, const char *dir, double warmup, unsigned threads)
{
	bc_config cfg;
	bc_config_defaults(&cfg);
	cfg.run.warmup_s = warmup;
	cfg.run.time_s = a->time_s * 4 > 2 ? a->time_s * 4 : 2;
	cfg.run.events = EVENTS_CHECK;
	cfg.run.report_interval = 0;
	cfg.run.init_timeout = cfg.run.thread_init_timeout = cfg.run.grace = a->phase_s;
	cfg.run.cleanup_timeout = a->phase_s;
	cfg.run.prepare_timeout = a->phase_s * PREPARE_TIMES;
	add_entry(&cfg, m->desc.name, NULL, NULL);
	cfg.mods[0].run.threads[0] = threads;
	char *out = bc_xasprintf("%s/events-%u.json", dir, threads);
	char how[64];
	snprintf(how, sizeof(how), "--events %d (%u thread%s, warmup %g s)", EVENTS_CHECK, threads,
		 threads == 1 ? "" : "s", warmup);
	bc_suite_opts so = { .out = out, .force = 1, .quiet = 1, .module = m };
	int rc = quiet_suite(&cfg, &so, a), bad = 0;
	bc_case_result r;
	if (rc != 0 && rc != 1) {
		printf("FAIL: %s: the run ended with status %d\n", how, rc);
		bad = 1;
	} else if (events_case(out, &r) == 0) {
		uint64_t n = 0;
		for (size_t i = 0; i < r.nops; i++)
			n += r.ops[i].count + r.ops[i].errors;
		if (strcmp(r.status, "ok"))
			printf("%s: not checked, the case was %s\n", how, r.status);
		else if (n == EVENTS_CHECK)
			printf("PASS: %s ran %d operations\n", how, EVENTS_CHECK);
		else if (n < EVENTS_CHECK && r.duration_s >= cfg.run.time_s * 0.9)
			printf("%s: not checked, %llu operations filled the %g s window\n", how,
			       (unsigned long long)n, cfg.run.time_s);
		else {
			printf("FAIL: %s ran %llu operations: a loop must stop on stopping() and take its "
			       "events with claim(t, n), n the operations it will record (should_stop() takes one "
			       "of its own); a batch begun in warmup is recorded only with its events claimed (or "
			       "left out: measuring() before claim())\n", how, (unsigned long long)n);
			bad = 1;
		}
		bc_case_free(&r);
	} else {
		bad = 1;
	}
	free(out);
	bc_config_free(&cfg);
	return bad;
}

static int events_check(const bc_module *m, const check_args *a, const char *dir)
{
	const bench_module_v1 *d = &m->desc;
	unsigned n = a->threads ? a->threads : d->requires.min_cpus > 2 ? d->requires.min_cpus : 2;
	int bad = events_pass(m, a, dir, 0, 1);
	/* with a warmup even when the check's cases have none (--warmup 0):
	   what ends in the window after it is the point */
	bad |= events_pass(m, a, dir, a->warmup_s > 0 ? a->warmup_s : EVENTS_WARMUP, n);
	return bad;
}

/* check-module -c CONF: the config's entries, each of this module (its
   short phase limits kept); 0, or -1 said. */
static int regress_config(bc_config *cfg, const bc_module *m, const check_args *a)
{
	bc_err e;
	bc_config_free(cfg);
	bc_config_defaults(cfg);
	if (bc_config_load(cfg, a->config, &e)) {
		bc_err_print(&e);
		bc_config_free(cfg);
		return -1;
	}
	for (size_t i = 0; i < cfg->nmods; i++) {
		bc_modconf *mc = &cfg->mods[i];
		if (strcmp(mc->name, m->desc.name)) {
			fprintf(stderr, "benchcore check-module: error: %s: entry \"%s\" is not module \"%s\"\n",
				mc->where ? mc->where : a->config, mc->name, m->desc.name);
			bc_config_free(cfg);
			return -1;
		}
		mc->run.init_timeout = mc->run.thread_init_timeout = mc->run.grace = a->phase_s;
		mc->run.cleanup_timeout = a->phase_s;
	}
	return 0;
}

/* Runs the planned cases through the normal runner, then reports. */
static int run_check(const bc_module *m, const check_args *a)
{
	bc_config cfg;
	bc_config_defaults(&cfg);
	cfg.run.time_s = a->time_s;
	cfg.run.warmup_s = a->warmup_s;
	cfg.run.report_interval = 0;
	cfg.run.init_timeout = cfg.run.thread_init_timeout = cfg.run.grace = a->phase_s;
	cfg.run.cleanup_timeout = a->phase_s;	/* finish, cleanup and destroy each */
	cfg.run.prepare_timeout = a->phase_s * PREPARE_TIMES;
	if (a->config) {
		if (regress_config(&cfg, m, a))
			return 2;
	} else {
		plan_check(&cfg, m, a);
	}
	char *tmp, *out = results_path(a, &tmp);
	if (!out) {
		bc_config_free(&cfg);
		return 2;
	}
	bc_suite_opts so = { .out = out, .force = a->out ? 0 : 1, .quiet = 1, .module = m };
	bc_quiet = 1;
	bc_case_warnings_later = 1;	/* each under its case in the table: once, not also on stderr */
	printf("\nrunning %zu entr%s (time %g s, warmup %g s, phases %g s, prepare %g s) under the run's "
	       "containment:\n", cfg.nmods, cfg.nmods == 1 ? "y" : "ies", a->time_s, a->warmup_s, a->phase_s,
	       cfg.run.prepare_timeout);
	fflush(stdout);
	int rc = quiet_suite(&cfg, &so, a);
	struct stat st;
	rc = stat(out, &st) == 0 ? report(m, out, rc) : rc ? rc : 1;
	if (a->expect && stat(out, &st) == 0 && (rc == 0 || rc == 1)) {
		int x = bc_expect_check(a->expect, out);
		rc = x < 0 ? 2 : x > 0 ? 1 : rc;
	}
	char *dir = tmp ? bc_xstrdup(tmp) : NULL;
	if (!dir) {	/* -o OUT.json: the events run beside it, in a directory of its own */
		char *t = bc_xasprintf("%s/benchcore-check.XXXXXX", bc_scratch_parent());
		if (mkdtemp(t) && (bc_owner_mark(t), 1))
			dir = t;
		else
			free(t);
	}
	if (!a->config && (rc == 0 || rc == 1) && dir && events_check(m, a, dir) && rc == 0)
		rc = 1;
	if (dir && !tmp) {
		bc_rmtree(dir);
		free(dir);
	} else {
		free(dir);
	}
	if (tmp) {
		bc_rmtree(tmp);
		free(tmp);
	}
	free(out);
	bc_config_free(&cfg);
	return rc;
}

int bc_cmd_check_module(int argc, char **argv)
{
	check_args a = { .time_s = 0.5, .warmup_s = 0.2, .phase_s = PHASE_LIMIT_S };
	char **rest;
	if (bc_flags_parse("check-module", check_flags, 0, argc - 1, argv + 1, on_check_flag, &a, &rest))
		return 2;
	if (a.help) {
		printf("usage: benchcore check-module FILE.so [options]\n\n"
		       "Loads FILE.so as a run would (the same trust checks and probe), describes it, and runs it\n"
		       "through every phase: its defaults at 1 and N threads, then each INT/SIZE/DOUBLE option\n"
		       "at its min and max, each ENUM choice and each BOOL value (other options at their\n"
		       "defaults). Prints each case's status, phase times and peak memory. Its limits are\n"
		       "short: 5 s for each phase (prepare 60 s), not a run's 60 s (--phase-timeout).\n"
		       "A case fails when it failed, crashed, hung or left processes running.\n"
		       "Exit status: 0 every case ok or skipped with a reason, 1 a case failed, 2 the module\n"
		       "was refused or a usage error.\n\nOptions:\n");
		bc_flags_help(stdout, check_flags, 0);
		free(rest);
		return 0;
	}
	if (a.expect && !a.config) {
		fprintf(stderr, "benchcore check-module: --expect needs -c CONF (the config whose cases it checks)\n");
		free(rest);
		return 2;
	}
	if (bc_strv_len(rest) != 1) {
		fprintf(stderr, "benchcore check-module: %s\nTry 'benchcore check-module --help'.\n",
			rest[0] ? "give one module file" : "which module file? usage: benchcore check-module FILE.so");
		free(rest);
		return 2;
	}
	const char *file = rest[0];
	free(rest);
	struct stat st;
	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "benchcore check-module: error: \"%s\" %s\n", file,
			stat(file, &st) != 0 ? strerror(errno) : "is not a regular file");
		return 2;
	}
	bc_module m;
	bc_err e;
	if (bc_module_load(file, &m, &e)) {
		printf("REFUSED: %s is not loaded, as a site would not load it\n", file);
		fflush(stdout);
		bc_err_print(&e);
		return 2;
	}
	print_description(&m);
	int rc = run_check(&m, &a);
	bc_module_free(&m);
	return rc;
}
