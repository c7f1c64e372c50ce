/* A run, from a loaded config to the results (suite.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "runner.h"
#include "engine.h"
#include "leftover.h"
#include "loader.h"
#include "options.h"
#include "plan.h"
#include "schedule.h"
#include "service.h"
#include "mrun.h"
#include "fit.h"
#include "start_at.h"
#include "suite.h"
#include "sysinfo.h"
#include "util.h"

extern volatile sig_atomic_t bc_signals;

static void on_signal(int sig, siginfo_t *si, void *u)
{
	(void)u;
	/* isolate = false: a module in this process that signals it (kill(0,
	   ...), raise()) is not a stop request; schedule.c fails its case */
	if (bc_in_module && si && si->si_code == SI_USER && si->si_pid == getpid()) {
		if (!bc_self_signal)
			bc_self_signal = sig;
		return;
	}
	bc_stop_requested = 1;
	bc_signals++;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;	/* no SA_RESTART: sleeps and polls wake up */
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct sigaction old;
	/* a closed terminal or ssh session stops the run like SIGTERM, unless
	   benchcore was started under nohup */
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* An existing results file is never overwritten without --force. */
static char *unique_path(const char *path, int force)
{
	struct stat st;
	if (!path || force || stat(path, &st) != 0)
		return path ? bc_xstrdup(path) : NULL;
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		dot = path + strlen(path);
	for (int i = 1; i < 10000; i++) {
		char *p = bc_xasprintf("%.*s-%d%s", (int)(dot - path), path, i, dot);
		if (stat(p, &st) != 0) {
			bc_warn("%s exists; writing %s instead (use --force to overwrite)", path, p);
			return p;
		}
		free(p);
	}
	return bc_xstrdup(path);
}

/* A pipeline never reads a stale file: without --force, an existing output
   is refused before anything runs when stderr is no terminal or $CI is set
   (a script or a CI job would go on to read the old file); a person at a
   terminal gets the new name (unique_path) and the warning. 1 refused. */
static int stale_refused(const char *path, int force, int resume)
{
	struct stat st;
	const char *ci = getenv("CI");
	if (!path || force || resume || !strcmp(path, "-") || stat(path, &st) != 0)
		return 0;
	if (isatty(STDERR_FILENO) && !(ci && *ci))
		return 0;
	char *lock = bc_xasprintf("%s.lock", path);
	int locked = stat(lock, &st) == 0;	/* another run may be writing it: its lock says so */
	free(lock);
	if (locked)
		return 0;
	char *sh = bc_printable(path);
	fprintf(stderr, "benchcore: error: %s exists; nothing was run\n"
		"DETAIL: without a terminal (or with $CI set) an existing output is not renamed to a new name, "
		"so a script never goes on to read the previous run's file\n"
		"HINT: --force overwrites it; or remove it, or give another -o\n", sh);
	free(sh);
	return 1;
}

static int in_list(const char *list, const char *name)
{
	if (!list)
		return 0;
	char **v = bc_split(list, ',');
	int found = 0;
	for (char **p = v; *p; p++)
		found |= !strcmp(*p, name);
	bc_strv_free(v);
	return found;
}

/* A path as results can keep it: bytes that are not UTF-8 become '?'
   (static ring of buffers: valid until the next few calls). */
static const char *fixed(const char *path)
{
	static char ring[4][4096];
	static unsigned k;
	char *b = ring[k++ % 4];
	snprintf(b, sizeof(ring[0]), "%s", path);
	bc_utf8_fix(b);
	return b;
}

static json_t *config_json(const bc_config *cfg, bc_modplan *plans, size_t n)
{
	json_t *mods = json_array();
	for (size_t i = 0; i < n; i++) {
		const bc_runset *r = &plans[i].run;
		json_t *th = json_array(), *opts = json_object();
		for (size_t t = 0; t < r->nthreads; t++)
			json_array_append_new(th, json_integer(r->threads[t]));
		for (size_t k = 0; k < plans[i].nopts; k++) {
			json_t *vals = json_array();
			for (size_t j = 0; j < plans[i].nvals[k]; j++)
				json_array_append_new(vals, bc_val_json(&plans[i].mod->desc.options[k], &plans[i].vals[k][j]));
			json_object_set_new(opts, plans[i].mod->desc.options[k].name, vals);
		}
		/* repeat = auto and warmup = auto with their limits (absent when fixed):
		   what decides when a case stops, so a resume with other ones is refused */
		json_t *ra = r->repeat_auto ? json_pack("{s:i, s:i, s:f}", "min_repeat", (int)r->min_repeat,
							 "max_repeat", (int)r->max_repeat, "time_budget", r->time_budget)
					    : NULL;
		json_t *wa = r->warmup_auto ? json_pack("{s:f, s:f}", "max_warmup", r->max_warmup, "warmup_window",
							 r->warmup_window > 0 ? r->warmup_window : 2.0)
					    : NULL;
		json_array_append_new(mods, json_pack("{s:s, s:s, s:o, s:f, s:f, s:I, s:i, s:f, s:f, s:s, s:b, s:b, s:o, s:s, s:f, s:o?, s:o*, s:o*}",
			"name", plans[i].mod->desc.name, "path", fixed(plans[i].mod->path), "threads", th,
			"time", r->time_s, "warmup", r->warmup_s, "events", (json_int_t)r->events,
			"repeat", (json_int_t)r->repeat, "report_interval", r->report_interval,
			"rate", r->rate, "arrival", r->arrival_fixed ? "fixed" : "poisson",
			"keep", r->keep, "isolate", r->isolate, "options", opts,
			"repeat_order", r->back_to_back ? "back_to_back" : "rounds",
			"prepare_timeout", r->prepare_timeout, "seed", r->seed_set ? json_integer(r->seed) : NULL,
			"repeat_auto", ra, "warmup_auto", wa));
	}
	json_t *pct = json_array();
	for (size_t i = 0; i < cfg->npct; i++)
		json_array_append_new(pct, json_real(cfg->pct[i]));
	/* the baseline by name and content: a resume against a rewritten file
	   would decide its cases against other values */
	char sha[65];
	bc_err e;
	int have_sha = cfg->baseline && bc_file_sha256(cfg->baseline, sha, &e) == 0;
	json_t *rows = NULL;	/* summary_rows: recorded only when set (older files' configs unchanged) */
	for (size_t i = 0; cfg->summary_rows && cfg->summary_rows[i]; i++) {
		if (!rows)
			rows = json_array();
		json_array_append_new(rows, json_string(cfg->summary_rows[i]));
	}
	return json_pack("{s:s?, s:o, s:b, s:f, s:s*, s:s*, s:o, s:o*}", "file", cfg->file ? fixed(cfg->file) : NULL,
			 "percentiles", pct, "skip_heavy", cfg->skip_heavy, "busy_threshold", cfg->busy_threshold, "baseline", cfg->baseline ? fixed(cfg->baseline) : NULL,
			 "baseline_sha256", have_sha ? sha : NULL, "modules", mods, "summary_rows", rows);
}

/* The disk under test, for the fingerprint: the first value of the first
   module's declared disk_path_option (requires.disk_path_option) that names
   a place (oltp's datadir is empty unless given: its module directory). */
static const char *io_path_of(bc_modplan *plans, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *name = plans[i].mod->desc.requires.disk_path_option;
		const bench_option_v1 *o = name ? bc_opt_find(plans[i].mod->desc.options, name) : NULL;
		const char *v = o && o->type == BENCH_OPT_STRING ? plans[i].vals[o - plans[i].mod->desc.options][0].s : NULL;
		if (v && *v)
			return v;
	}
	return NULL;
}

/* The plan's size is said before anything runs; beyond max_cases it is
   refused (a typo in a sweep must not start a year of cases). */
static int plan_too_large(const bc_config *cfg, bc_modplan *plans, size_t n)
{
	double cases = 0, secs = 0;
	for (size_t i = 0; i < n; i++) {
		double c = (double)plans[i].npoints * plans[i].run.nthreads * plans[i].run.repeat;
		cases += c;
		secs += c * (plans[i].run.warmup_s + plans[i].run.time_s);
	}
	if (cases <= (double)cfg->run.max_cases)
		return 0;
	bc_err e;
	bc_err_set(&e, "the plan has %.0f cases, about %.0f s (%.1f days) of warmup and measurement: more "
		   "than max_cases = %llu", cases, secs, secs / 86400, (unsigned long long)cfg->run.max_cases);
	if (cfg->file)
		bc_err_hint(&e, "check the lists in %s; to run it anyway, add max_cases = %.0f; to it", cfg->file,
			    cases);
	else
		bc_err_hint(&e, "check the lists; to run it anyway, give --max-cases %.0f", cases);
	bc_err_print(&e);
	return 1;
}

/* The output paths are checked before the first case: regular files (or
   new names) in directories benchcore can write, "-" for stdout, never the
   same file twice. */
static int outputs_ok(const char *out, const char *csv)
{
	bc_err why;
	struct stat a, b;
	const char *paths[2] = { out, csv };
	for (int i = 0; i < 2; i++)
		if (paths[i] && bc_output_ok(paths[i], NULL, &why)) {
			fprintf(stderr, "benchcore: error: %s %s\n", i ? "--csv" : "-o", why.msg);
			return 1;
		}
	if (out && csv && (!strcmp(out, csv) || (stat(out, &a) == 0 && stat(csv, &b) == 0 &&
						  a.st_dev == b.st_dev && a.st_ino == b.st_ino))) {
		fprintf(stderr, "benchcore: error: -o and --csv name the same file (%s): one would replace "
			"the other\n", out);
		return 1;
	}
	char *side = out ? bc_xasprintf("%s.intervals.jsonl", out) : NULL;
	int bad = side && strcmp(out, "-") && bc_output_ok(side, NULL, &why);
	free(side);
	if (bad) {
		fprintf(stderr, "benchcore: error: -o: the interval series file %s\n", why.msg);
		return 1;
	}
	if (csv && !strcmp(csv, "-")) {
		fprintf(stderr, "benchcore: error: --csv - is not supported: give a file\n");
		return 1;
	}
	return 0;
}

/* --only / --skip name modules: a name that is neither in the config nor
   installed is a typo (exit 2, the valid names listed); an installed module
   the config does not run cannot be picked by --only (said how to add it). */
static int filter_names_ok(const bc_config *cfg, const bc_modset *set, const char *flag,
			   const char *list)
{
	char **v = list ? bc_split(list, ',') : NULL;
	int bad = 0;
	for (char **p = v; p && *p && !bad; p++) {
		int in_cfg = 0;
		for (size_t i = 0; i < cfg->nmods; i++)
			in_cfg |= !strcmp(cfg->mods[i].name, *p);
		if (in_cfg)
			continue;
		char *safe = bc_printable(*p);
		bc_err e;
		if (bc_modset_find(set, *p)) {
			if (!strcmp(flag, "--skip"))
				bc_warn("--skip %s: the config does not run module \"%s\" anyway", safe, safe);
			else {
				bc_err_set(&e, "--only %s: module \"%s\" is installed but the config has no entry "
					   "for it", safe, safe);
				bc_err_hint(&e, "add { name = \"%s\"; } to modules, or run it alone with "
					    "'benchcore run %s'", safe, safe);
				bc_err_print(&e);
				bad = 1;
			}
		} else {
			char **names = bc_xcalloc(cfg->nmods + set->nmods + 1, sizeof(*names));
			for (size_t i = 0; i < cfg->nmods; i++)
				names[i] = cfg->mods[i].name;
			char *mine = bc_strv_join(names, ", ");
			for (size_t i = 0; i < set->nmods; i++)
				names[i] = (char *)set->mods[i].desc.name;
			names[set->nmods] = NULL;
			char *inst = bc_strv_join(names, ", ");
			bc_err_set(&e, "%s %s: no module of that name", flag, safe);
			bc_err_detail(&e, "the config's modules: %s; installed: %s", mine, inst);
			bc_err_print(&e);
			free(mine);
			free(inst);
			free(names);
			bad = 1;
		}
		free(safe);
	}
	bc_strv_free(v);
	return !bad;
}

/* Worker threads beyond the CPUs this process may use (affinity, cgroup
   quota) share a CPU: a thread sweep past that point measures time slicing. */
static void warn_threads(const bc_modplan *plans, size_t n)
{
	double quota;
	unsigned aff, usable = bc_sysinfo_usable_cpus(&quota, &aff), most = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < plans[i].run.nthreads; j++)
			if (plans[i].run.threads[j] > most)
				most = plans[i].run.threads[j];
	if (most > usable)
		bc_warn("the plan runs up to %u worker threads but this process may use %u CPU%s (%s): "
			"threads beyond %u share a CPU", most, usable, usable == 1 ? "" : "s",
			quota > 0 && usable < aff ? "cgroup CPU quota" : "CPU affinity", usable);
}

/* --report (or report = ...): made from the results file, so it needs one;
   a path that can be written and is neither results file. */
static int report_ok(const char *rep, const char *out, const char *csv)
{
	bc_err why;
	if (!rep)
		return 0;
	if (!out || !strcmp(out, "-")) {
		fprintf(stderr, "benchcore: error: --report: the report is made from the results file: give "
			"-o FILE.json too\n");
		return 1;
	}
	if (!strcmp(rep, "-") || bc_output_ok(rep, NULL, &why)) {
		fprintf(stderr, "benchcore: error: --report %s\n", strcmp(rep, "-") ? why.msg : "-: give a file");
		return 1;
	}
	if (!strcmp(rep, out) || (csv && !strcmp(rep, csv))) {
		fprintf(stderr, "benchcore: error: --report names the same file as %s (%s)\n",
			!strcmp(rep, out) ? "-o" : "--csv", rep);
		return 1;
	}
	return 0;
}

/* A directory the user named (module_path, --module-path,
   $BENCHCORE_MODULE_PATH) that is not there loads nothing: said, not
   ignored, since a typo there makes a module "not found" or, worse, lets
   one of the same name later on the path run instead. */
static void warn_missing_dirs(char *const *dirs)
{
	struct stat st;
	for (size_t i = 0; dirs && dirs[i]; i++)
		if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
			bc_warn("module_path entry \"%s\" %s: no modules are loaded from it", dirs[i],
				stat(dirs[i], &st) != 0 ? "does not exist" : "is not a directory");
}

/* A run that stops before its first case: the baseline read, the results
   file's lock and the output paths let go. */
static void drop_run(bc_results *base, char *out, char *csv, int lock)
{
	if (base) {
		bc_results_free(base);
		free(base);
	}
	bc_unlock_output(out, lock);
	free(out);
	free(csv);
}

/* Loads modules, plans every enabled entry, runs. */
int bc_run_suite(bc_config *cfg, bc_suite_opts *c)
{
	bc_modset set;
	bc_err e;
	int rc = 2;
	size_t n = 0;
	struct bc_mrun *mrun = NULL;
	bc_modplan *plans = bc_xcalloc(cfg->nmods ? cfg->nmods : 1, sizeof(*plans));
	/* first, before the modules are probed and the machine is changed: a
	   signal from now on is a stop request, never the default death (which
	   would leave machine settings for the journal) nor, in a background
	   job whose shell ignores SIGINT, lost. The runner then writes what ran
	   (nothing, if it came before the first case) and ends with 130. */
	install_signals();
	char **extra = c->modpath ? bc_split(c->modpath, ':') : NULL;
	if (extra) {
		size_t a = bc_strv_len(extra), b = bc_strv_len(cfg->module_path);
		char **all = bc_xcalloc(a + b + 1, sizeof(char *));
		for (size_t i = 0; i < a; i++)
			all[i] = bc_xstrdup(extra[i]);
		for (size_t i = 0; i < b; i++)
			all[a + i] = bc_xstrdup(cfg->module_path[i]);
		bc_strv_free(cfg->module_path);
		bc_strv_free(extra);
		cfg->module_path = all;
	}
	if (c->module) {
		memset(&set, 0, sizeof(set));
	} else {
		warn_missing_dirs(cfg->module_path);
		const char *env = getenv("BENCHCORE_MODULE_PATH");
		char **envdirs = env && *env ? bc_split(env, ':') : NULL;
		warn_missing_dirs(envdirs);
		bc_strv_free(envdirs);
		bc_modset_load(&set, bc_module_search_path(cfg->module_path));
	}
	if (!filter_names_ok(cfg, &set, "--only", c->only) || !filter_names_ok(cfg, &set, "--skip", c->skip))
		goto out;
	for (size_t i = 0; i < cfg->nmods; i++) {
		bc_modconf *mc = &cfg->mods[i];
		if (!mc->enabled || (c->only && !in_list(c->only, mc->name)) || in_list(c->skip, mc->name))
			continue;
		const bc_module *m = !c->module ? bc_modset_find(&set, mc->name) :
				     !strcmp(c->module->desc.name, mc->name) ? c->module : NULL;
		if (!m) {
			bc_modset_missing(&set, mc->name, &e);
			char *msg = bc_xasprintf("%s: %s", mc->where, e.msg);
			snprintf(e.msg, sizeof(e.msg), "%s", msg);	/* the entry's file:line first */
			free(msg);
			bc_err_print(&e);
			goto out;
		}
		if (bc_plan_module(mc, m, &plans[n], &e)) {
			bc_err_print(&e);
			goto out;
		}
		n++;
		if (bc_plan_machine(&plans[n - 1], &cfg->machine, &e)) {
			bc_err_print(&e);	/* nothing changed yet: exit 2 */
			goto out;
		}
	}
	if (n == 0) {
		fprintf(stderr, "benchcore: error: nothing to run: every module is disabled or filtered out\n");
		goto out;
	}
	for (size_t i = 0; i < set.nfails; i++)
		bc_warn("ignoring %s: %s", set.fails[i].path, set.fails[i].err.msg);
	if (c->label) {
		free(cfg->label);
		cfg->label = bc_xstrdup(c->label);
	}
	if (c->baseline) {
		free(cfg->baseline);
		cfg->baseline = bc_xstrdup(c->baseline);
	}
	bc_mem_room mem;
	if (bc_mem_avail(&mem, &e)) {
		bc_err_print(&e);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {	/* needs() against this machine; profile = small fits sizes */
		bc_modplan *p = &plans[i];
		if (p->mod->desc.requires.heavy && (cfg->skip_heavy || p->run.profile_small)) {
			/* skipped in the plan, so nothing of it is fitted or counted as run */
			p->skip_all = bc_xasprintf("%s is marked heavy and %s", p->mod->desc.name,
						   cfg->skip_heavy ? "skip_heavy = true" : "profile = \"small\"");
			continue;
		}
		if (bc_needs_plan(p, &mem, p->run.profile_small, &e)) {
			bc_err_print(&e);	/* options that make no sense together: nothing runs */
			goto out;
		}
	}
	if (plan_too_large(cfg, plans, n))
		goto out;
	/* before the machine is changed or anything runs */
	if (stale_refused(c->out ? c->out : cfg->output, c->force, c->resume) ||
	    stale_refused(c->csv ? c->csv : cfg->csv, c->force, 0) ||
	    stale_refused(c->report ? c->report : cfg->report, c->force, 0))
		goto out;
	char other[512];
	if (bc_mrun_begin(&mrun, plans, n, other, sizeof(other)))
		goto out;
	bc_runner r;
	memset(&r, 0, sizeof(r));
	const char *want_out = c->out ? c->out : cfg->output, *want_csv = c->csv ? c->csv : cfg->csv;
	const char *want_rep = c->report ? c->report : cfg->report;
	if (outputs_ok(want_out, want_csv) || report_ok(want_rep, want_out, want_csv))
		goto out;
	if (c->resume && (!want_out || !strcmp(want_out, "-"))) {
		fprintf(stderr, "benchcore: error: --resume continues the run whose results file -o names: give -o "
			"FILE.json\n");
		goto out;
	}
	/* resuming writes on in the same file; a new run never overwrites one */
	char *out = c->resume ? bc_xstrdup(want_out) : unique_path(want_out, c->force);
	char *csv = unique_path(want_csv, c->force);
	int lock = -1;
	if (out && strcmp(out, "-") && (lock = bc_lock_output(out, &e)) < 0) {
		bc_err_print(&e);
		free(out);
		free(csv);
		goto out;
	}
	/* what a run killed outright while writing left beside its files */
	bc_sweep_temps(out, 1);
	if (want_out && out && strcmp(want_out, out))
		bc_sweep_temps(want_out, 0);
	bc_sweep_temps(csv, 0);
	bc_results *base = NULL;
	if (cfg->baseline) {
		bc_err why;
		base = bc_xcalloc(1, sizeof(*base));
		if (bc_results_load(cfg->baseline, base, &why)) {
			char *sh = bc_printable(cfg->baseline);
			fprintf(stderr, "benchcore: error: baseline \"%s\": %s\n", sh, why.msg);
			free(sh);
			free(base);
			drop_run(NULL, out, csv, lock);
			goto out;
		}
		size_t autos = 0;
		for (size_t i = 0; i < n; i++)
			autos += plans[i].run.repeat_auto != 0;
		if (!autos && !c->gate)
			bc_warn("baseline is only used by repeat = \"auto\" (a case stops once decided against it); "
				"with a fixed repeat every case runs its repeats and the baseline changes nothing");
	}
	/* after every check (a bad config fails now, not at TIME), before the
	   fingerprint and started_at (they describe the run, not the wait) */
	if (c->start_at && (rc = bc_start_at_wait(c->start_epoch, c->start_at)) != 0) {
		drop_run(base, out, csv, lock);
		goto out;
	}
	bc_runner_init(&r, cfg, config_json(cfg, plans, n), io_path_of(plans, n));
	r.mrun = mrun;
	json_t *sweep = json_object();	/* each swept machine setting's values, as configured (compare --split's order) */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < plans[i].nmdims; k++) {
			const bc_mdim *d = &plans[i].mdims[k];
			if (d->nvals < 2 || json_object_get(sweep, d->key))
				continue;
			json_t *a = json_array();
			for (size_t v = 0; v < d->nvals; v++)
				json_array_append_new(a, json_string(d->texts[v]));
			json_object_set_new(sweep, d->key, a);
		}
	if (json_object_size(sweep))
		bc_rundoc_set(&r.doc, "machine_sweep", json_incref(sweep));
	json_decref(sweep);
	if (*other)	/* the fingerprint says whose settings the machine ran under */
		json_object_set_new(r.doc.host, "other_run_settings", json_string(other));
	r.baseline = base;
	if (c->resume && bc_runner_resume(&r, out, plans, n, &e)) {
		bc_err_print(&e);
		bc_runner_free(&r);
		drop_run(base, out, csv, lock);
		goto out;
	}
	r.out_json = out;
	r.out_csv = csv;
	r.lock_fd = lock;
	if (out && !strcmp(out, "-"))
		r.text = stderr;	/* stdout carries the JSON */
	r.force_module = c->force_module;
	r.progress = c->quiet ? 0 : isatty(2) ? 2 : 1;
	bc_runner_show_plan(&r, plans, n);
	warn_threads(plans, n);
	rc = bc_runner_run(&r, plans, n);
	bc_service_stop_all();	/* the runner stops them already: this is the backstop */
	bc_runner_free(&r);
	if (base) {
		bc_results_free(base);
		free(base);
	}
	bc_unlock_output(out, lock);
	if ((want_rep || c->store || c->gate) && rc != 3) {
		c->done_json = out;
		out = NULL;
		c->done_report = want_rep ? unique_path(want_rep, c->force) : NULL;
	}
	free(out);
	free(csv);
out:
	bc_mrun_end(mrun);	/* every original back, on every way out */
	for (size_t i = 0; i < n; i++)
		bc_plan_free(&plans[i]);
	free(plans);
	bc_modset_free(&set);
	return rc;
}

