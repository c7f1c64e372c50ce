/* benchcore: command line. Every flag lives in one table that drives both
 * parsing and --help, so the help cannot drift from what is accepted. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compare.h"
#include "config.h"
#include "engine.h"
#include "flags.h"
#include "loader.h"
#include "options.h"
#include "output.h"
#include "plan.h"
#include "run.h"
#include "serve_cli.h"
#include "service.h"
#include "settings.h"
#include "sysinfo.h"
#include "util.h"

extern volatile sig_atomic_t bc_signals;

enum { F_SUITE = 1, F_RUN = 2 };
enum { C_CONFIG = 1, C_OUTPUT, C_CSV, C_FORCE, C_ONLY, C_SKIP, C_LABEL, C_FORCE_MODULE, C_QUIET,
       C_MODPATH, C_SETTING = 1000 /* + index in bc_settings */ };

/* The flags of -c and run that are not run settings; the run settings'
   flags come from settings.c's table (see all_flags). */
static const bc_flag cli_flags[] = {
	{ "config", 'c', "FILE", C_CONFIG, "run the modules configured in FILE (libconfig syntax)", F_SUITE },
	{ "output", 'o', "OUT.json", C_OUTPUT, "write the results as JSON (schema benchcore/1)", F_SUITE | F_RUN },
	{ "csv", 0, "OUT.csv", C_CSV, "write one CSV row per case and metric", F_SUITE | F_RUN },
	{ "force", 0, NULL, C_FORCE, "overwrite existing result files (else a new name is chosen)", F_SUITE | F_RUN },
	{ "only", 0, "a,b", C_ONLY, "run only these modules of the config", F_SUITE },
	{ "skip", 0, "a,b", C_SKIP, "skip these modules of the config", F_SUITE },
	{ "label", 0, "NAME", C_LABEL, "name of this system in compare/report (default: host name)", F_SUITE | F_RUN },
	{ "force-module", 0, NULL, C_FORCE_MODULE, "run modules whose requirements are not met", F_SUITE | F_RUN },
	{ "quiet", 'q', NULL, C_QUIET, "no progress or interval lines on stderr", F_SUITE | F_RUN },
	{ "module-path", 0, "DIR", C_MODPATH, "search DIR for modules first (before module_path)", F_SUITE | F_RUN },
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
	for (const bc_setting *s = bc_settings; s->opt.name && n + 1 < 64; s++) {
		if (!s->flag)
			continue;
		if (s->flag_help)
			snprintf(help[n], sizeof(help[n]), "%s", s->flag_help);
		else if (!s->metavar)
			snprintf(help[n], sizeof(help[n]), "%s", s->opt.help);
		else
			snprintf(help[n], sizeof(help[n]), "%s (default %s)", s->opt.help,
				 s->opt.def ? s->opt.def : "none");
		tab[n] = (bc_flag){ s->flag, 0, s->metavar, C_SETTING + (int)(s - bc_settings), help[n], F_RUN };
		n++;
	}
	return tab;
}

typedef struct cli {
	const char *config, *out, *csv, *only, *skip, *label, *modpath;
	int force, force_module, quiet;
	bc_runset *rs;
} cli;

static void usage(FILE *f)
{
	fprintf(f, "benchcore %s: system benchmarks from one config file\n\n"
		"usage:\n"
		"  benchcore -c FILE [options]             run the modules configured in FILE\n"
		"  benchcore run MODULE [options] [key=value ...]\n"
		"                                          run one module ad hoc; key=a,b,c sweeps\n"
		"  benchcore list [--module-path DIR]      modules found, their ABI, and load errors\n"
		"  benchcore help MODULE [--markdown] [-c FILE]\n"
		"                                          a module's options (-c: the config's module_path)\n"
		"  benchcore help settings [--markdown]    benchcore's own settings (site.conf, flags)\n"
		"  benchcore sysinfo [--json]              this machine's fingerprint\n"
		"  benchcore compare A.json B.json [...]   verdicts: win / loss / tie / inconclusive\n"
		"  benchcore report A.json [...] -o F.html charts and verdicts in one HTML page\n"
		"  benchcore serve [options]               a module's server half, for runs from another machine\n"
		"  benchcore --help | --version\n\n", BC_VERSION);
	fprintf(f, "options of -c:\n");
	bc_flags_help(f, all_flags(), F_SUITE);
	fprintf(f, "\noptions of run (each run setting also goes in site.conf, see benchcore help settings):\n");
	bc_flags_help(f, all_flags(), F_RUN);
	fprintf(f, "\nExit status: 0 all cases ok, 1 some case failed, 2 usage, config or module error,\n"
		"130 interrupted (results so far are written). Modules are searched in module_path,\n"
		"$BENCHCORE_MODULE_PATH, the build tree, then %s.\n", BC_MODULEDIR);
}

static int usage_error(const char *fmt, const char *a)
{
	fprintf(stderr, "benchcore: error: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, "\nHINT: see benchcore --help\n");
	return 2;
}

static int on_flag(void *arg, const bc_flag *f, const char *val, char *err, size_t n)
{
	cli *c = arg;
	switch (f->code) {
	case C_CONFIG: c->config = val; return 0;
	case C_OUTPUT: c->out = val; return 0;
	case C_CSV: c->csv = val; return 0;
	case C_FORCE: c->force = 1; return 0;
	case C_ONLY: c->only = val; return 0;
	case C_SKIP: c->skip = val; return 0;
	case C_LABEL:
		if (!bc_utf8_valid(val)) {
			snprintf(err, n, "--label: not valid UTF-8 text (results keep the label as UTF-8)");
			return -1;
		}
		c->label = val;
		return 0;
	case C_FORCE_MODULE: c->force_module = 1; return 0;
	case C_QUIET: c->quiet = 1; return 0;
	case C_MODPATH: c->modpath = val; return 0;
	}
	const bc_setting *s = &bc_settings[f->code - C_SETTING];
	char *where = bc_xasprintf("command line (--%s)", f->lng);
	/* a list only where the setting takes one (--threads 1,2,4) */
	char *one[2] = { (char *)(val ? val : s->flag_value), NULL };
	char **texts = s->store == BC_ST_THREADS ? bc_split(val, ',') : one;
	bc_err e;
	int bad = bc_setting_set(s, c->rs, texts, where, &e);
	(void)n;
	if (texts != one)
		bc_strv_free(texts);
	free(where);
	if (bad) {
		bc_err_print(&e);
		err[0] = '\0';
		return -1;
	}
	return 0;
}

/* Parses flags of scope into c (and run settings into rs); collects other
   words into rest. Returns 0, or 2 on a usage error. */
static int parse_flags(int argc, char **argv, int scope, cli *c, bc_runset *rs, char ***rest)
{
	c->rs = rs;
	return bc_flags_parse("", all_flags(), (unsigned)scope, argc, argv, on_flag, c, rest);
}

static void on_signal(int sig)
{
	(void)sig;
	bc_stop_requested = 1;
	bc_signals++;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: sleeps and polls wake up */
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
		json_array_append_new(mods, json_pack("{s:s, s:s, s:o, s:f, s:f, s:I, s:i, s:f, s:f, s:s, s:b, s:b, s:o, s:s, s:f, s:o?}",
			"name", plans[i].mod->desc.name, "path", fixed(plans[i].mod->path), "threads", th,
			"time", r->time_s, "warmup", r->warmup_s, "events", (json_int_t)r->events,
			"repeat", (json_int_t)r->repeat, "report_interval", r->report_interval,
			"rate", r->rate, "arrival", r->arrival_fixed ? "fixed" : "poisson",
			"keep", r->keep, "isolate", r->isolate, "options", opts,
			"repeat_order", r->back_to_back ? "back_to_back" : "rounds",
			"prepare_timeout", r->prepare_timeout, "seed", r->seed_set ? json_integer(r->seed) : NULL));
	}
	json_t *pct = json_array();
	for (size_t i = 0; i < cfg->npct; i++)
		json_array_append_new(pct, json_real(cfg->pct[i]));
	return json_pack("{s:s?, s:o, s:b, s:o}", "file", cfg->file ? fixed(cfg->file) : NULL, "percentiles", pct,
			 "skip_heavy", cfg->skip_heavy, "modules", mods);
}

/* The disk under test, for the fingerprint: the first value of the first
   module's declared disk_path_option (requires.disk_path_option). */
static const char *io_path_of(bc_modplan *plans, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *name = plans[i].mod->desc.requires.disk_path_option;
		const bench_option_v1 *o = name ? bc_opt_find(plans[i].mod->desc.options, name) : NULL;
		if (o && o->type == BENCH_OPT_STRING)
			return plans[i].vals[o - plans[i].mod->desc.options][0].s;
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
	fprintf(stderr, "benchcore: error: the plan has %.0f cases, about %.0f s (%.1f days) of warmup and "
		"measurement: more than max_cases = %llu\n", cases, secs, secs / 86400,
		(unsigned long long)cfg->run.max_cases);
	fprintf(stderr, "HINT: check the lists in the config; to run it anyway, give --max-cases %.0f "
		"(or max_cases in site.conf)\n", cases);
	return 1;
}

/* The output paths are checked before the first case: regular files (or
   new names) in directories benchcore can write, "-" for stdout, never the
   same file twice. */
static int outputs_ok(const char *out, const char *csv)
{
	char why[512];
	struct stat a, b;
	const char *paths[2] = { out, csv };
	for (int i = 0; i < 2; i++)
		if (paths[i] && bc_output_ok(paths[i], NULL, why, sizeof(why))) {
			fprintf(stderr, "benchcore: error: %s %s\n", i ? "--csv" : "-o", why);
			return 1;
		}
	if (out && csv && (!strcmp(out, csv) || (stat(out, &a) == 0 && stat(csv, &b) == 0 &&
						  a.st_dev == b.st_dev && a.st_ino == b.st_ino))) {
		fprintf(stderr, "benchcore: error: -o and --csv name the same file (%s): one would replace "
			"the other\n", out);
		return 1;
	}
	if (csv && !strcmp(csv, "-")) {
		fprintf(stderr, "benchcore: error: --csv - is not supported: give a file\n");
		return 1;
	}
	return 0;
}

/* Loads modules, plans every enabled entry, runs. */
static int run_config(bc_config *cfg, cli *c)
{
	bc_modset set;
	bc_err e;
	int rc = 2;
	size_t n = 0;
	bc_modplan *plans = bc_xcalloc(cfg->nmods ? cfg->nmods : 1, sizeof(*plans));
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
	bc_modset_load(&set, bc_module_search_path(cfg->module_path));
	for (size_t i = 0; i < cfg->nmods; i++) {
		bc_modconf *mc = &cfg->mods[i];
		if (!mc->enabled || (c->only && !in_list(c->only, mc->name)) || in_list(c->skip, mc->name))
			continue;
		const bc_module *m = bc_modset_find(&set, mc->name);
		if (!m) {
			bc_modset_missing(&set, mc->name, &e);
			fprintf(stderr, "benchcore: error: %s: %s\n", mc->where, e.msg);
			if (e.detail[0])
				fprintf(stderr, "DETAIL: %s\n", e.detail);
			if (e.hint[0])
				fprintf(stderr, "HINT: %s\n", e.hint);
			goto out;
		}
		if (bc_plan_module(mc, m, &plans[n], &e)) {
			bc_err_print(&e);
			goto out;
		}
		n++;
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
	if (plan_too_large(cfg, plans, n))
		goto out;
	bc_runner r;
	memset(&r, 0, sizeof(r));
	const char *want_out = c->out ? c->out : cfg->output, *want_csv = c->csv ? c->csv : cfg->csv;
	if (outputs_ok(want_out, want_csv))
		goto out;
	char *out = unique_path(want_out, c->force);
	char *csv = unique_path(want_csv, c->force);
	int lock = -1;
	if (out && strcmp(out, "-") && (lock = bc_lock_output(out, &e)) < 0) {
		bc_err_print(&e);
		free(out);
		free(csv);
		goto out;
	}
	bc_runner_init(&r, cfg, config_json(cfg, plans, n), io_path_of(plans, n));
	r.out_json = out;
	r.out_csv = csv;
	if (out && !strcmp(out, "-"))
		r.text = stderr;	/* stdout carries the JSON */
	r.force_module = c->force_module;
	r.progress = c->quiet ? 0 : isatty(2) ? 2 : 1;
	bc_runner_show_plan(&r, plans, n);
	install_signals();
	rc = bc_runner_run(&r, plans, n);
	bc_service_stop_all();	/* the runner stops them already: this is the backstop */
	bc_runner_free(&r);
	bc_unlock_output(out, lock);
	free(out);
	free(csv);
out:
	for (size_t i = 0; i < n; i++)
		bc_plan_free(&plans[i]);
	free(plans);
	bc_modset_free(&set);
	return rc;
}

static int cmd_suite(int argc, char **argv)
{
	cli c = { 0 };
	bc_config cfg;
	bc_err e;
	char **rest;
	bc_config_init(&cfg);
	int rc = parse_flags(argc, argv, F_SUITE, &c, &cfg.run, &rest);
	if (!rc && rest[0])
		rc = usage_error("unexpected argument \"%s\"", rest[0]);
	if (!rc && !c.config)
		rc = usage_error("%s", "no config file given (-c FILE)");
	bc_quiet = c.quiet;
	if (!rc && bc_config_load(&cfg, c.config, &e)) {
		bc_err_print(&e);
		rc = 2;
	}
	if (!rc)
		rc = run_config(&cfg, &c);
	free(rest);
	bc_config_free(&cfg);
	return rc;
}

static int cmd_run(int argc, char **argv)
{
	cli c = { 0 };
	bc_config cfg;
	char **rest;
	bc_config_init(&cfg);
	int rc = parse_flags(argc, argv, F_RUN, &c, &cfg.run, &rest);
	bc_quiet = c.quiet;
	if (!rc && !rest[0])
		rc = usage_error("%s", "which module? usage: benchcore run MODULE [options] [key=value ...]");
	if (!rc) {
		bc_modconf *m = bc_config_add_module(&cfg, rest[0], "command line");
		for (char **p = rest + 1; *p && !rc; p++) {
			char *eq = strchr(*p, '=');
			if (!eq || eq == *p) {
				rc = usage_error("expected key=value, got \"%s\"", *p);
				break;
			}
			char *key = strndup(*p, (size_t)(eq - *p)), *where = bc_xasprintf("command line (%s)", key);
			bc_modconf_give(m, key, bc_split(eq + 1, ','), where);
			free(key);
			free(where);
		}
	}
	if (!rc)
		rc = run_config(&cfg, &c);
	free(rest);
	bc_config_free(&cfg);
	return rc;
}

static void print_requirements(FILE *f, const bench_requirements_v1 *r)
{
	fprintf(f, "    requires:");
	if (!r->min_memory && !r->min_disk && !r->min_cpus && !r->heavy && !r->service)
		fprintf(f, " nothing special");
	if (r->min_cpus)
		fprintf(f, " %u CPUs;", r->min_cpus);
	if (r->min_memory)
		fprintf(f, " %.1f GiB memory;", r->min_memory / 1073741824.0);
	if (r->min_disk)
		fprintf(f, " %.1f GiB disk at option %s;", r->min_disk / 1073741824.0,
			r->disk_path_option ? r->disk_path_option : "?");
	if (r->service)
		fprintf(f, " service %s;", r->service);
	if (r->heavy)
		fprintf(f, " heavy (skipped with skip_heavy = true)");
	fputc('\n', f);
}

enum { L_MODPATH = 1, L_MARKDOWN, L_CONFIG, L_HELP };
static const bc_flag list_flags[] = {
	{ "module-path", 0, "DIR", L_MODPATH, "search DIR for modules first" },
	{ "config", 'c', "FILE", L_CONFIG, "help: search the module_path of this config file too", 2 },
	{ "markdown", 0, NULL, L_MARKDOWN, "help: the options as a markdown table (docs/modules.md)", 2 },
	{ "help", 'h', NULL, L_HELP, "this text" },
	{ NULL }
};

typedef struct list_args {
	char *dirs[2];
	const char *config;
	int markdown, help;
} list_args;

static int on_list_flag(void *arg, const bc_flag *f, const char *val, char *err, size_t n)
{
	list_args *a = arg;
	(void)err, (void)n;
	if (f->code == L_MODPATH)
		a->dirs[0] = (char *)val;
	else if (f->code == L_CONFIG)
		a->config = val;
	else if (f->code == L_MARKDOWN)
		a->markdown = 1;
	else
		a->help = 1;
	return 0;
}

/* Flags of list (scope 1) and help (scope 2); 0 with the words in *rest,
   or 2 after a usage error; -1 after printing --help. */
static int list_help_flags(const char *cmd, unsigned scope, int argc, char **argv, list_args *a,
			   char ***rest, size_t max_words, const char *usage_line)
{
	if (bc_flags_parse(cmd, list_flags, scope, argc - 1, argv + 1, on_list_flag, a, rest))
		return 2;
	if (a->help) {
		printf("usage: %s\n\nOptions:\n", usage_line);
		bc_flags_help(stdout, list_flags, scope);
		free(*rest);
		return -1;
	}
	if (bc_strv_len(*rest) > max_words) {
		fprintf(stderr, "benchcore %s: unexpected argument \"%s\"\nTry 'benchcore %s --help'.\n", cmd,
			(*rest)[max_words], cmd);
		free(*rest);
		return 2;
	}
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	bc_modset set;
	list_args a = { { NULL, NULL }, NULL, 0, 0 };
	char **rest;
	int rc = list_help_flags("list", 1, argc, argv, &a, &rest, 0, "benchcore list [--module-path DIR]");
	if (rc)
		return rc < 0 ? 0 : rc;
	free(rest);
	bc_modset_load(&set, bc_module_search_path(a.dirs[0] ? a.dirs : NULL));
	printf("%-10s %-8s %-5s %-44s %s\n", "module", "version", "ABI", "path", "summary");
	for (size_t i = 0; i < set.nmods; i++) {
		const bench_module_v1 *d = &set.mods[i].desc;
		char abi[16];
		snprintf(abi, sizeof(abi), "%u.%u", d->abi_major, d->abi_minor);
		printf("%-10s %-8s %-5s %-44s %s\n", d->name, d->version ? d->version : "-", abi,
		       set.mods[i].path, d->summary ? d->summary : "");
		print_requirements(stdout, &d->requires);
		if (set.mods[i].shadows)	/* a module name two files claim: say which one runs */
			printf("    SHADOWS: %s (also named \"%s\"; the file above comes first on the search path and is used)\n",
			       set.mods[i].shadows, d->name);
	}
	if (set.nfails)
		printf("\nnot loaded:\n");
	for (size_t i = 0; i < set.nfails; i++) {
		printf("%-10s %s\n    %s\n", set.fails[i].stem, set.fails[i].path, set.fails[i].err.msg);
		if (set.fails[i].err.detail[0])
			printf("    DETAIL: %s\n", set.fails[i].err.detail);
		if (set.fails[i].err.hint[0])
			printf("    HINT: %s\n", set.fails[i].err.hint);
	}
	printf("\nsearch path:");
	for (size_t i = 0; set.dirs[i]; i++)
		printf(" %s", set.dirs[i]);
	printf("\n");
	bc_modset_free(&set);
	return 0;
}

static void option_line(FILE *f, const bench_option_v1 *o, int md)
{
	char extra[512] = "", ch[400];
	if (o->type == BENCH_OPT_ENUM) {
		bc_choices_text(o, ch, sizeof(ch));
		snprintf(extra, sizeof(extra), " Choices: %s.", ch);
	} else if (o->flags & BENCH_OPT_LIST) {
		if (o->choices)
			bc_choices_text(o, ch, sizeof(ch));
		snprintf(extra, sizeof(extra), " A list (a,b,c), not a sweep%s%s.", o->choices ? "; items: " : "",
			 o->choices ? ch : "");
	} else if (o->min < o->max) {
		if (o->type == BENCH_OPT_SIZE) {
			char a[32], b[32];
			bc_format_size((uint64_t)o->min, a, sizeof(a));
			bc_format_size((uint64_t)o->max, b, sizeof(b));
			snprintf(extra, sizeof(extra), " Range: %s .. %s.", a, b);
		} else {
			snprintf(extra, sizeof(extra), " Range: %g .. %g.", o->min, o->max);
		}
	}
	const char *def = o->def ? o->def : (o->type == BENCH_OPT_ENUM ? o->choices[0] : "");
	if (o->flags & BENCH_OPT_SWEEP_DEFAULT)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 " The default is a sweep: one case per item.");
	if (md)
		fprintf(f, "| `%s` | %s | `%s` | %s%s%s |\n", o->name, bc_opt_type_name(o->type), def,
			o->help ? o->help : "", extra, (o->flags & BENCH_OPT_NOSWEEP) ? " Not sweepable." : "");
	else
		fprintf(f, "  %-16s %-7s %-12s %s%s%s\n", o->name, bc_opt_type_name(o->type),
			*def ? def : "\"\"", o->help ? o->help : "", extra,
			(o->flags & BENCH_OPT_SECRET) ? " (secret: never shown)" : "");
}

/* help's words: MODULE [--markdown] [--module-path DIR] [-c FILE]; the
   config's module_path is searched too, as a run of it would. */
static int cmd_help(int argc, char **argv)
{
	list_args a = { { NULL, NULL }, NULL, 0, 0 };
	char **rest;
	int rc = list_help_flags("help", 2, argc, argv, &a, &rest, 1,
				 "benchcore help MODULE|settings [--markdown] [--module-path DIR] [-c FILE]");
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!rest[0]) {
		free(rest);
		usage(stdout);
		return 0;
	}
	const char *name = rest[0];
	free(rest);
	int md = a.markdown;
	if (!strcmp(name, "settings")) {
		bc_settings_doc(stdout, md);
		return 0;
	}
	bc_modset set;
	bc_err e;
	/* --module-path first, then the config's module_path */
	char **dirs = a.dirs[0] ? bc_split(a.dirs[0], ':') : bc_xcalloc(1, sizeof(char *));
	if (a.config) {
		bc_config cfg;
		bc_config_init(&cfg);
		if (bc_config_load(&cfg, a.config, &e)) {
			bc_err_print(&e);
			bc_config_free(&cfg);
			bc_strv_free(dirs);
			return 2;
		}
		size_t na = bc_strv_len(dirs), nb = bc_strv_len(cfg.module_path);
		dirs = realloc(dirs, (na + nb + 1) * sizeof(char *));
		for (size_t i = 0; i <= nb; i++)
			dirs[na + i] = i < nb ? bc_xstrdup(cfg.module_path[i]) : NULL;
		bc_config_free(&cfg);
	}
	bc_modset_load(&set, bc_module_search_path(dirs));
	bc_strv_free(dirs);
	const bc_module *m = bc_modset_find(&set, name);
	if (!m) {
		bc_modset_missing(&set, name, &e);
		bc_err_print(&e);
		bc_modset_free(&set);
		return 2;
	}
	const bench_module_v1 *d = &m->desc;
	if (md) {
		printf("| option | type | default | description |\n|---|---|---|---|\n");
	} else {
		printf("%s %s: %s\n  file: %s (ABI %u.%u)\n  op classes:", d->name, d->version ? d->version : "",
		       d->summary ? d->summary : "", m->path, d->abi_major, d->abi_minor);
		for (unsigned i = 0; i < m->nops; i++)
			printf(" %s", m->ops[i]);
		printf("\n  metrics: events_per_sec (events/s)");
		for (const bench_metric_v1 *mt = d->metrics; mt && mt->name; mt++)
			printf(", %s (%s, %s is better)", mt->name, mt->unit ? mt->unit : "",
			       mt->higher_is_better ? "higher" : "lower");
		printf("\n");
		print_requirements(stdout, &d->requires);
		printf("\noptions (give a list, or key=a,b,c on the command line, to sweep):\n");
		printf("  %-16s %-7s %-12s %s\n", "name", "type", "default", "description");
	}
	for (const bench_option_v1 *o = d->options; o && o->name; o++)
		option_line(stdout, o, md);
	if (!md) {
		char run[512];
		bc_settings_names(run, sizeof(run), BC_SCOPE_RUN, BC_SCOPE_RUN);
		printf("\nrun settings (any module, see benchcore help settings): %s\n", run);
	}
	bc_modset_free(&set);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return usage(stdout), 0;
	if (!strcmp(cmd, "--version")) {
		printf("benchcore %s (module ABI %d.%d)\n", BC_VERSION, BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(cmd, "sysinfo"))
		return bc_cmd_sysinfo(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return bc_cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "serve"))
		return bc_cmd_serve(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return bc_cmd_report(argc - 1, argv + 1);
	if (cmd[0] == '-')
		return cmd_suite(argc - 1, argv + 1);
	return usage_error("unknown command \"%s\"", cmd);
}
