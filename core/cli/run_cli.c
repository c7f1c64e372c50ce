/* benchcore -c FILE and benchcore run MODULE: their flags (a table, with the
 * run settings' flags from settings.c's table) and --help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "compare.h"
#include "report.h"
#include "config.h"
#include "flags.h"
#include "gate.h"
#include "leftover.h"
#include "loader.h"
#include "mset.h"
#include "settings.h"
#include "start_at.h"
#include "suite.h"
#include "util.h"

enum { F_SUITE = 1, F_RUN = 2 };
enum { C_CONFIG = 1, C_OUTPUT, C_CSV, C_FORCE, C_ONLY, C_SKIP, C_LABEL, C_FORCE_MODULE, C_QUIET,
       C_MODPATH, C_REPORT, C_RESUME, C_START_AT, C_BASELINE, C_BUSY, C_STORE, C_MACHINE, C_FAIL_ON, C_SETTING = 1000 /* + index in bc_settings */ };

/* The flags of -c and run that are not run settings; the run settings'
   flags come from settings.c's table (see all_flags). */
static const bc_flag cli_flags[] = {
	{ "config", 'c', "FILE", C_CONFIG, "run the modules configured in FILE (libconfig syntax)", F_SUITE },
	{ "output", 'o', "OUT.json", C_OUTPUT, "write the results as JSON (schema benchcore/1)", F_SUITE | F_RUN },
	{ "csv", 0, "OUT.csv", C_CSV, "write one CSV row per case and metric", F_SUITE | F_RUN },
	{ "resume", 0, NULL, C_RESUME, "continue the interrupted run in -o's file (Ctrl-C, a kill, a reboot): "
	  "cases that ended are kept, the rest run; refused when the config, benchcore, a module or the "
	  "machine changed", F_SUITE | F_RUN },
	{ "report", 0, "OUT.html", C_REPORT, "at the end, write the run's HTML report (benchcore report) from "
	  "the results file; needs -o", F_SUITE | F_RUN },
	{ "store", 0, "[=DB]", C_STORE, "when the run ends, add it to the results archive DB (a SQLite file or "
	  "postgresql://...; without =DB: the store setting's, else $BENCHCORE_DB, else the default "
	  "$XDG_DATA_HOME/benchcore/results.db); needs -o; a run that was not stored exits 3 (its results "
	  "file is kept; benchcore db add stores it later)", F_SUITE | F_RUN },
	{ "force", 0, NULL, C_FORCE, "overwrite existing result files (else, at a terminal, a new name is chosen; without one, or with "
	  "$CI set, an existing -o, --csv or --report file is refused before anything runs: exit 2)", F_SUITE | F_RUN },
	{ "only", 0, "a,b", C_ONLY, "run only these modules of the config", F_SUITE },
	{ "skip", 0, "a,b", C_SKIP, "skip these modules of the config", F_SUITE },
	{ "baseline", 0, "A.json", C_BASELINE, "repeat = auto: decide against this results file (the first "
	  "machine's run of the same config): a case stops repeating once its verdict against that file's case "
	  "is known, so a second machine runs as long as its comparison needs (overrides the config's "
	  "baseline)", F_SUITE | F_RUN },
	{ "fail-on", 0, "loss[,suspect][,inconclusive]", C_FAIL_ON, "the CI gate at the run's end: exit status 4 "
	  "when a headline row of this run against baseline (--baseline or the config's) has a verdict in the "
	  "list, as `benchcore compare --fail-on LIST BASELINE RESULTS` would say (a case without a partner "
	  "in baseline, or failed, fails too); the failing rows printed last; needs -o (overrides the "
	  "config's fail_on)", F_SUITE | F_RUN },
	{ "busy-threshold", 0, "PCT", C_BUSY, "the busy_threshold setting: interference (steal and other "
	  "processes on a case's CPUs, percent of their time) below it is not weighed by repeat = auto's "
	  "\"decided\" nor, when both files record the same, by compare (0 to 100; overrides the config's)",
	  F_SUITE | F_RUN },
	{ "machine", 0, "KEY=VALUE", C_MACHINE, "a machine setting (docs/machine.md: cpu_freq, governor, turbo, "
	  "smt, online_cpus, cpus, thp, thp_defrag, sysctl.NAME, io_scheduler, read_ahead_kb, nr_requests, "
	  "device), a,b a sweep; set before the cases, checked, restored after; needs root; repeatable; over "
	  "the file's top-level machine group (-c: also machine.KEY=a,b after the file); --machine none: the "
	  "file's machine groups left out", F_SUITE | F_RUN },
	{ "label", 0, "NAME", C_LABEL, "name of this system in compare/report (default: host name)", F_SUITE | F_RUN },
	{ "force-module", 0, NULL, C_FORCE_MODULE, "run modules whose requirements are not met", F_SUITE | F_RUN },
	{ "quiet", 'q', NULL, C_QUIET, "no progress or interval lines on stderr", F_SUITE | F_RUN },
	{ "module-path", 0, "DIR", C_MODPATH, "search DIR for modules first (before module_path)", F_SUITE | F_RUN },
	{ "start-at", 0, "TIME", C_START_AT, "wait until the wall-clock TIME before the first case, to start "
	  "several hosts together: 2026-12-01T10:00:00Z (ISO 8601; no zone: local time), a time of day "
	  "HH:MM[:SS][Z|+hh:mm] (its next occurrence, in that zone or local time), or epoch seconds "
	  "(@1796119200); a time more than 5 s past is refused; Ctrl-C while waiting exits 130 with no results",
	  F_SUITE | F_RUN },
	{ NULL }
};

/* cli_flags followed by one flag per run setting that has one. */
static const bc_flag *all_flags(void)
{
	static bc_flag tab[64];
	static char help[64][512];
	if (tab[0].lng)
		return tab;
	size_t n = 0;
	for (const bc_flag *f = cli_flags; f->lng; f++)
		tab[n++] = *f;
	bc_settings_flags(bc_settings, tab + n, help + n, 64 - 1 - n, C_SETTING, F_RUN | F_SUITE);
	return tab;
}

/* The command line's options; with -c, the run-setting flags are kept
   (defer) and applied after the file is read, over the file's top level and
   every module entry's own run settings: `-c site.conf --repeat 5` repeats
   every case 5 times, whatever the file says. */
typedef struct cli {
	bc_suite_opts o;
	int defer;
	size_t nover;
	struct { const bc_setting *s; const char *val, *flag; } over[64];
	const char *busy;	/* --busy-threshold, applied after the config file */
	const char *fail_on;	/* --fail-on LIST: over the config's fail_on */
	const char *store;	/* --store[=DB]: "" without a value */
	const char *machine[32];	/* --machine KEY=VALUE, in order */
	size_t nmachine;
} cli;

void bc_usage(FILE *f)
{
	fprintf(f, "benchcore %s: system benchmarks from one config file\n\n"
		"usage:\n"
		"  benchcore -c FILE [options] [MODULE.OPTION=VALUE ...]\n"
		"                                          run the modules configured in FILE; each\n"
		"                                          MODULE.OPTION=a,b sets (or sweeps) an option of\n"
		"                                          every entry of MODULE, checked as the file is\n"
		"  benchcore run MODULE [options] [key=value ...]\n"
		"                                          run one module ad hoc; key=a,b,c sweeps\n"
		"  benchcore list [--module-path DIR]      modules found, their ABI, and load errors\n"
		"  benchcore help MODULE [--markdown] [-c FILE]\n"
		"                                          a module's options (-c: the config's module_path)\n"
		"  benchcore help settings [--markdown]    benchcore's own settings (site.conf, flags)\n"
		"  benchcore help machine [--markdown]     the machine settings a run can sweep (docs/machine.md)\n"
		"  benchcore sysinfo [--json]              this machine's fingerprint\n"
		"  benchcore compare A.json B.json [...]   verdicts: win / loss / tie / inconclusive\n"
		"  benchcore report A.json [...] -o F.html charts and verdicts in one HTML page\n"
		"  benchcore db add|list|export [options] the results archive (db:RUN_ID, db:LABEL and\n"
		"                                          db:latest@HOST in compare and report)\n"
		"  benchcore merge A.json B.json -o C.json the parts of one system's run as one results file\n"
		"  benchcore serve [options]               a module's server half, for runs from another machine\n"
		"  benchcore clean [options]               remove the directories of runs that were killed\n"
		"  benchcore restore                       put back the machine settings of a run killed outright\n"
		"  benchcore check-module FILE.so [options]\n"
		"                                          a module author's check: load, describe, run every phase\n"
		"  benchcore history --module M [options] [A.json ...]\n"
		"                                          per host and case, the runs' means in time order and\n"
		"                                          their change points, named with what changed\n"
		"  benchcore --help | --version\n\n", BC_VERSION);
	fprintf(f, "options of -c (a run setting's flag overrides the file, module entries included):\n");
	bc_flags_help(f, all_flags(), F_SUITE);
	fprintf(f, "\noptions of run (each run setting also goes in site.conf, see benchcore help settings):\n");
	bc_flags_help(f, all_flags(), F_RUN);
	fprintf(f, "\nExit status: 0 all cases ok, 1 some case failed, 2 usage, config or module error,\n"
		"3 the results could not be written (or, with --store, not stored), 4 the fail_on gate against the\n"
		"baseline failed, 130 interrupted (results so far are written).\n"
		"Modules are searched in module_path, then (here, now):");
	/* the path this binary really uses: where it was installed, not where it was built for */
	char **dirs = bc_module_search_path(NULL);
	for (size_t i = 0; dirs[i]; i++)
		fprintf(f, "%s %s", i ? "," : "", dirs[i]);
	fprintf(f, ".\n");
	bc_strv_free(dirs);
}

int bc_usage_error(const char *fmt, const char *a)
{
	bc_err e;
	bc_err_set(&e, fmt, a);
	bc_err_hint(&e, "see benchcore --help");
	bc_err_print(&e);
	return 2;
}

/* A run setting the command line gave stays as given under --scale. */
static void mark_unscaled(const bc_setting *s, bc_runset *rs)
{
	if (!strcmp(s->opt.name, "time"))
		rs->unscaled |= BC_UNSCALED_TIME;
	else if (!strcmp(s->opt.name, "warmup"))
		rs->unscaled |= BC_UNSCALED_WARMUP;
	else if (!strcmp(s->opt.name, "threads"))
		rs->unscaled |= BC_UNSCALED_THREADS;
}

/* Stores a run-setting flag's value into rs; 0, or -1 after printing why. */
static int set_flag(const bc_setting *s, const char *flag, const char *val, bc_runset *rs)
{
	char *where = bc_xasprintf("command line (--%s)", flag);
	/* a list only where the setting takes one (--threads 1,2,4) */
	char *one[2] = { (char *)(val ? val : s->flag_value), NULL };
	char **texts = s->store == BC_ST_THREADS ? bc_split(val, ',') : one;
	bc_err e;
	int bad = bc_setting_set(s, rs, texts, where, &e);
	if (texts != one)
		bc_strv_free(texts);
	free(where);
	if (bad)
		bc_err_print(&e);
	else
		mark_unscaled(s, rs);
	return bad ? -1 : 0;
}

static int on_flag(void *arg, const bc_flag *f, const char *val, bc_err *err)
{
	cli *cl = arg;
	bc_suite_opts *c = &cl->o;
	switch (f->code) {
	case C_CONFIG: c->config = val; return 0;
	case C_OUTPUT: c->out = val; return 0;
	case C_CSV: c->csv = val; return 0;
	case C_REPORT: c->report = val; return 0;
	case C_RESUME: c->resume = 1; return 0;
	case C_FORCE: c->force = 1; return 0;
	case C_ONLY: c->only = val; return 0;
	case C_SKIP: c->skip = val; return 0;
	case C_BASELINE: c->baseline = val; return 0;
	case C_FAIL_ON: cl->fail_on = val; return 0;
	case C_BUSY: cl->busy = val; return 0;
	case C_STORE: cl->store = val ? val : ""; return 0;
	case C_MACHINE:
		if (cl->nmachine == sizeof(cl->machine) / sizeof(cl->machine[0])) {
			bc_err_set(err, "too many --machine flags");
			return -1;
		}
		cl->machine[cl->nmachine++] = val;
		return 0;
	case C_LABEL:
		if (!bc_utf8_valid(val)) {
			bc_err_set(err, "--label: not valid UTF-8 text (results keep the label as UTF-8)");
			return -1;
		}
		c->label = val;
		return 0;
	case C_FORCE_MODULE: c->force_module = 1; return 0;
	case C_QUIET: c->quiet = 1; return 0;
	case C_MODPATH: c->modpath = val; return 0;
	case C_START_AT: {
		bc_err e;
		if (bc_start_at_parse(val, &c->start_epoch, &e)) {
			bc_err_print(&e);
			err->msg[0] = '\0';
			return -1;
		}
		c->start_at = val;
		return 0;
	}
	}
	const bc_setting *s = &bc_settings[f->code - C_SETTING];
	/* checked now (a bad value is a usage error before the file is read) */
	if (set_flag(s, f->lng, val, c->rs)) {
		err->msg[0] = '\0';
		return -1;
	}
	if (cl->defer) {
		if (cl->nover == sizeof(cl->over) / sizeof(cl->over[0])) {
			bc_err_set(err, "too many run-setting flags");
			return -1;
		}
		cl->over[cl->nover].s = s;
		cl->over[cl->nover].val = val;
		cl->over[cl->nover++].flag = f->lng;
	}
	return 0;
}

/* machine.KEY=a,b (after -c) or --machine KEY=a,b: into the top level's
   machine group and every entry's own (the command line wins). 0, or 2. */
static int give_machine(bc_config *cfg, const char *kv, const char *where)
{
	const char *eq = strchr(kv, '=');
	char names[512];
	if (!strcmp(kv, "none")) {	/* a study's settings left out (a VM that cannot set them) */
		bc_mconf_free(&cfg->machine);
		for (size_t m = 0; m < cfg->nmods; m++)
			bc_mconf_free(&cfg->mods[m].machine);
		return 0;
	}
	if (!eq || eq == kv || !eq[1])
		return bc_usage_error("%s: expected KEY=VALUE (thp=never, sysctl.vm.swappiness=10)", where);
	char *key = strndup(kv, (size_t)(eq - kv));
	const bc_mkind *k = bc_mkind_find(key);
	if ((!k && strcmp(key, "device")) || (k && !strcmp(k->key, "custom"))) {
		bc_err e;
		bc_mkind_names(names, sizeof(names));
		bc_err_set(&e, "%s: unknown machine setting \"%s\"", where, key);
		bc_err_detail(&e, "The command line takes: %s (sysctl.NAME), device; custom only in the file.", names);
		bc_err_print(&e);
		free(key);
		return 2;
	}
	bc_mconf_give(&cfg->machine, key, bc_split(eq + 1, ','), where);
	for (size_t m = 0; m < cfg->nmods; m++)
		if (cfg->mods[m].machine.set)
			bc_mconf_give(&cfg->mods[m].machine, key, bc_split(eq + 1, ','), where);
	free(key);
	return 0;
}

/* -c: the kept run-setting flags over the file's top level and entries. */
static int apply_overrides(const cli *cl, bc_config *cfg)
{
	for (size_t i = 0; i < cl->nmachine; i++)
		if (give_machine(cfg, cl->machine[i], "command line (--machine)"))
			return -1;
	if (cl->busy) {	/* a global setting: checked by its table row */
		char *v[] = { (char *)cl->busy, NULL };
		bc_err e;
		if (bc_setting_set(bc_setting_find("busy_threshold"), cfg, v, "--busy-threshold", &e)) {
			bc_err_print(&e);
			return -1;
		}
	}
	for (size_t i = 0; i < cl->nover; i++) {
		const bc_setting *s = cl->over[i].s;
		if (set_flag(s, cl->over[i].flag, cl->over[i].val, &cfg->run))
			return -1;
		for (size_t m = 0; m < cfg->nmods; m++)
			if (set_flag(s, cl->over[i].flag, cl->over[i].val, &cfg->mods[m].run))
				return -1;
	}
	return 0;
}

/* Parses flags of scope into c (and run settings into rs); collects other
   words into rest. Returns 0, or 2 on a usage error. */
static int parse_flags(int argc, char **argv, int scope, cli *c, bc_runset *rs, char ***rest)
{
	c->o.rs = rs;
	c->defer = scope == F_SUITE;
	return bc_flags_parse("", all_flags(), (unsigned)scope, argc, argv, on_flag, c, rest);
}

/* The run's report, once its results file is final: the run's exit code,
   or 3 when the report could not be written. */
static int finish_report(bc_suite_opts *o, int rc)
{
	if (o->done_json && o->done_report) {
		if (bc_report_file(o->done_report, o->done_json, "benchcore run") == 0)
			fprintf(stderr, "report: %s\n", o->done_report);
		else if (rc != 130)
			rc = 3;
	}
	free(o->done_json);
	free(o->done_report);
	o->done_json = o->done_report = NULL;
	return rc;
}

/* fail_on's list read and what the gate needs checked before anything runs:
   0, or 2 after saying why. */
static int gate_check(const char *list, const char *baseline, const char *out, bc_gate_opts *g)
{
	char *sh = bc_printable(list);
	int rc = 0;
	if (bc_gate_parse(list, &g->fail_on) || !g->fail_on) {
		fprintf(stderr, "benchcore: error: fail_on \"%s\": a list of loss, suspect and inconclusive "
			"(e.g. loss or loss,suspect)\n", sh);
		rc = 2;
	} else if (!baseline) {
		fprintf(stderr, "benchcore: error: fail_on \"%s\" judges this run against a baseline: give "
			"--baseline FILE or the config's baseline (a results file, or db:REF as compare reads)\n", sh);
		rc = 2;
	} else if (!out || !strcmp(out, "-")) {
		fprintf(stderr, "benchcore: error: fail_on \"%s\" reads the run's results file at its end: give "
			"-o FILE.json (not -)\n", sh);
		rc = 2;
	}
	free(sh);
	return rc;
}

/* The gate of fail_on: the run's results (json) against baseline, judged as
   compare --fail-on judges them, the failing rows and the closing line on
   stdout; 4 when it failed and the run was otherwise ok, else rc. */
static int run_gate(const char *baseline, const char *json, const bc_gate_opts *g, int rc)
{
	bc_results res[2];
	char *files[] = { (char *)baseline, (char *)json, NULL };
	if (bc_load_all("run", files, 2, res) < 0)
		return rc ? rc : 2;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	size_t failed = bc_gate_print(stdout, res, 2, &o, g);
	fflush(stdout);
	bc_results_free(&res[0]);
	bc_results_free(&res[1]);
	return failed && rc == 0 ? 4 : rc;
}

/* The run, stored into the archive at its end when --store or the store
   setting asks (the archive is checked first: a run is not made for an
   archive that refuses it), then its report. */
static int run_and_finish(cli *c, bc_config *cfg)
{
	int rc;
	bc_err e;
	if (bc_tmpdir_check(&e)) {	/* a run's private directories are made there */
		bc_err_print(&e);
		return 2;
	}
	c->o.store = c->store || cfg->store;
	const char *out = c->o.out ? c->o.out : cfg->output;
	bc_gate_opts gate = { 0 };
	const char *fail_on = c->fail_on ? c->fail_on : cfg->fail_on;
	if (fail_on && (rc = gate_check(fail_on, c->o.baseline ? c->o.baseline : cfg->baseline, out, &gate)) != 0)
		return rc;
	c->o.gate = gate.fail_on != 0;
	if (c->o.store && (rc = bc_store_check(c->store, cfg->store, out)) != 0)
		return rc;
	rc = bc_run_suite(cfg, &c->o);
	if (c->o.store)
		rc = bc_store_run(c->store, cfg->store, c->o.done_json, rc);
	if (gate.fail_on && c->o.done_json && (rc == 0 || rc == 1))
		rc = run_gate(cfg->baseline, c->o.done_json, &gate, rc);
	return finish_report(&c->o, rc);
}

/* -c FILE MODULE.OPTION=VALUE ...: one study file for every system. The value
   goes into every entry of that module as if the file had said it (a list
   "a,b" is a sweep), and the plan checks it as it checks the file's. */
static int apply_module_override(bc_config *cfg, const char *word)
{
	const char *dot = strchr(word, '.'), *eq = strchr(word, '=');
	if (!strncmp(word, "machine.", 8))
		return give_machine(cfg, word + 8, "command line (machine.)");
	if (!dot || !eq || dot > eq || dot == word || eq == dot + 1)
		return bc_usage_error("unexpected argument \"%s\" (after -c FILE: MODULE.OPTION=VALUE)", word);
	char *mod = strndup(word, (size_t)(dot - word)), *key = strndup(dot + 1, (size_t)(eq - dot - 1));
	char *where = bc_xasprintf("command line (%s.%s)", mod, key);
	const bc_setting *st = bc_setting_find(key);
	int found = 0, rc = 0;
	for (size_t m = 0; m < cfg->nmods && !rc; m++) {
		bc_modconf *mc = &cfg->mods[m];
		if (strcmp(mc->name, mod))
			continue;
		found = 1;
		char **texts = bc_split(eq + 1, ',');
		bc_err e;
		if (st && st->scope == BC_SCOPE_GLOBAL) {
			bc_err_set(&e, "%s: \"%s\" is a global setting, not one of a module entry", where, key);
			bc_err_hint(&e, "give it as its flag (benchcore help settings)");
			rc = -1;
		} else if (st && (st->scope == BC_SCOPE_RUN || st->store != BC_ST_NONE)) {
			void *base = st->scope == BC_SCOPE_RUN ? (void *)&mc->run : (void *)mc;
			rc = bc_setting_set(st, base, texts, where, &e);
			if (!rc && st->scope == BC_SCOPE_RUN)
				mark_unscaled(st, &mc->run);
		} else if (st) {
			bc_err_set(&e, "%s: \"%s\" cannot be changed from the command line", where, key);
			rc = -1;
		} else {
			bc_modconf_give(mc, key, texts, where);
			bc_modconf_given(mc, key)->flag = 1;	/* --scale keeps it */
			texts = NULL;
		}
		bc_strv_free(texts);
		if (rc)
			bc_err_print(&e);
	}
	if (!found && !rc) {
		bc_err e;
		char names[512] = "";
		size_t l = 0;
		for (size_t m = 0; m < cfg->nmods && l + 1 < sizeof(names); m++)
			l += (size_t)snprintf(names + l, sizeof(names) - l, "%s%s", m ? ", " : "", cfg->mods[m].name);
		bc_err_set(&e, "%s: %s has no entry for module \"%s\"", where, cfg->file, mod);
		bc_err_detail(&e, "Its module entries: %s.", cfg->nmods ? names : "none");
		bc_err_print(&e);
		rc = -1;
	}
	free(mod);
	free(key);
	free(where);
	return rc ? 2 : 0;
}

int bc_cmd_suite(int argc, char **argv)
{
	cli c = { 0 };
	bc_config cfg;
	bc_runset scratch;
	bc_err e;
	char **rest;
	bc_config_defaults(&cfg);
	scratch = cfg.run;	/* flags are checked here, applied after the file */
	int rc = parse_flags(argc, argv, F_SUITE, &c, &scratch, &rest);
	if (!rc && !c.o.config)
		rc = bc_usage_error("%s", "no config file given (-c FILE)");
	bc_quiet = c.o.quiet;
	if (!rc && bc_config_load(&cfg, c.o.config, &e)) {
		bc_err_print(&e);
		rc = 2;
	}
	if (!rc && apply_overrides(&c, &cfg))
		rc = 2;
	for (char **w = rest; !rc && *w; w++)
		rc = apply_module_override(&cfg, *w);
	if (!rc)
		rc = run_and_finish(&c, &cfg);
	free(rest);
	bc_config_free(&cfg);
	return rc;
}

int bc_cmd_run(int argc, char **argv)
{
	cli c = { 0 };
	bc_config cfg;
	char **rest;
	bc_config_defaults(&cfg);
	int rc = parse_flags(argc, argv, F_RUN, &c, &cfg.run, &rest);
	bc_quiet = c.o.quiet;
	if (!rc && !rest[0])
		rc = bc_usage_error("%s", "which module? usage: benchcore run MODULE [options] [key=value ...]");
	if (!rc) {
		bc_modconf *m = bc_config_add_module(&cfg, rest[0], "command line");
		for (char **p = rest + 1; *p && !rc; p++) {
			char *eq = strchr(*p, '=');
			if (!eq || eq == *p) {
				rc = bc_usage_error("expected key=value, got \"%s\"", *p);
				break;
			}
			char *key = strndup(*p, (size_t)(eq - *p)), *where = bc_xasprintf("command line (%s)", key);
			bc_modconf_give(m, key, bc_split(eq + 1, ','), where);
			bc_modconf_given(m, key)->flag = 1;	/* --scale keeps it */
			free(key);
			free(where);
		}
	}
	if (!rc && apply_overrides(&c, &cfg))	/* --busy-threshold */
		rc = 2;
	if (!rc)
		rc = run_and_finish(&c, &cfg);
	free(rest);
	bc_config_free(&cfg);
	return rc;
}

