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
#include "loader.h"
#include "options.h"
#include "output.h"
#include "plan.h"
#include "run.h"
#include "serve_cli.h"
#include "service.h"
#include "sysinfo.h"
#include "util.h"

extern volatile sig_atomic_t bc_signals;

enum { F_SUITE = 1, F_RUN = 2 };

typedef struct cliopt {
	const char *lng;
	char shrt;
	const char *arg;	/* NULL: a flag without value */
	int scope;		/* F_SUITE, F_RUN */
	const char *help;
} cliopt;

static const cliopt cli_opts[] = {
	{ "config", 'c', "FILE", F_SUITE, "run the modules configured in FILE (libconfig syntax)" },
	{ "output", 'o', "OUT.json", F_SUITE | F_RUN, "write the results as JSON (schema benchcore/1)" },
	{ "csv", 0, "OUT.csv", F_SUITE | F_RUN, "write one CSV row per case and metric" },
	{ "force", 0, NULL, F_SUITE | F_RUN, "overwrite existing result files (else a new name is chosen)" },
	{ "only", 0, "a,b", F_SUITE, "run only these modules of the config" },
	{ "skip", 0, "a,b", F_SUITE, "skip these modules of the config" },
	{ "label", 0, "NAME", F_SUITE | F_RUN, "name of this system in compare/report (default: host name)" },
	{ "force-module", 0, NULL, F_SUITE | F_RUN, "run modules whose requirements are not met" },
	{ "quiet", 'q', NULL, F_SUITE | F_RUN, "no progress or interval lines on stderr" },
	{ "threads", 0, "1,2,4", F_RUN, "thread counts to sweep (default 1)" },
	{ "time", 0, "S", F_RUN, "measured seconds per case (default 10; 0 = until --events)" },
	{ "warmup", 0, "S", F_RUN, "warm-up seconds before measuring (default 1)" },
	{ "events", 0, "N", F_RUN, "stop after N events (default 0 = no limit)" },
	{ "repeat", 0, "N", F_RUN, "repeats of every case (default 1)" },
	{ "report-interval", 0, "S", F_RUN, "seconds between interval reports (default 1; 0 = off)" },
	{ "rate", 0, "N", F_RUN, "open loop: N events/s in total (default 0 = closed loop)" },
	{ "arrival", 0, "poisson|fixed", F_RUN, "open-loop arrivals (default poisson)" },
	{ "grace", 0, "S", F_RUN, "a case running past warmup + time + S seconds is killed (default 10)" },
	{ "thread-init-timeout", 0, "S", F_RUN, "fail a case whose threads take longer to start (default 60)" },
	{ "prepare-timeout", 0, "S", F_RUN, "a case whose init + prepare take longer is killed (default 1800)" },
	{ "repeat-order", 0, "ORDER", F_RUN, "rounds (default: every case once, shuffled, then again) or back_to_back" },
	{ "seed", 0, "N", F_RUN, "seed of the shuffled order within rounds (default random, recorded)" },
	{ "keep", 0, NULL, F_RUN, "keep prepared data (no cleanup)" },
	{ "no-isolate", 0, NULL, F_RUN, "run cases in this process instead of a child per case" },
	{ "module-path", 0, "DIR", F_SUITE | F_RUN, "search DIR for modules first (before module_path)" },
	{ NULL, 0, NULL, 0, NULL }
};

typedef struct cli {
	const char *config, *out, *csv, *only, *skip, *label, *modpath;
	int force, force_module, quiet;
} cli;

static void usage(FILE *f)
{
	fprintf(f, "benchcore %s: system benchmarks from one config file\n\n"
		"usage:\n"
		"  benchcore -c FILE [options]             run the modules configured in FILE\n"
		"  benchcore run MODULE [options] [key=value ...]\n"
		"                                          run one module ad hoc; key=a,b,c sweeps\n"
		"  benchcore list                          modules found, their ABI, and load errors\n"
		"  benchcore help MODULE [--markdown]      a module's options\n"
		"  benchcore sysinfo [--json]              this machine's fingerprint\n"
		"  benchcore compare A.json B.json [...]   verdicts: win / loss / tie / inconclusive\n"
		"  benchcore report A.json [...] -o F.html charts and verdicts in one HTML page\n"
		"  benchcore serve [options]               a module's server half, for runs from another machine\n"
		"  benchcore --help | --version\n\n", BC_VERSION);
	for (int scope = F_SUITE; scope <= F_RUN; scope <<= 1) {
		fprintf(f, "%s:\n", scope == F_SUITE ? "options of -c" : "options of run");
		for (const cliopt *o = cli_opts; o->lng; o++) {
			if (!(o->scope & scope))
				continue;
			char left[64];
			snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->shrt ? "-" : "", o->shrt ? o->shrt : ' ',
				 o->shrt ? ", " : "  ", o->lng, o->arg ? " " : "", o->arg ? o->arg : "");
			fprintf(f, "  %-30s %s\n", o->shrt ? left : left + 1, o->help);
		}
		fputc('\n', f);
	}
	fprintf(f, "Exit status: 0 all cases ok, 1 some case failed, 2 usage, config or module error,\n"
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

/* Parses flags of scope into c (and run settings into rs); collects other
   words into rest. Returns 0, or 2 on a usage error. */
static int parse_flags(int argc, char **argv, int scope, cli *c, bc_runset *rs, char ***rest)
{
	size_t nrest = 0;
	*rest = bc_xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const cliopt *o = NULL;
		if (a[0] != '-' || !a[1]) {
			(*rest)[nrest++] = argv[i];
			continue;
		}
		for (const cliopt *p = cli_opts; p->lng && !o; p++) {
			size_t l = strlen(p->lng);
			if (a[1] == '-' && !strncmp(a + 2, p->lng, l) && (a[2 + l] == '\0' || a[2 + l] == '='))
				o = p, val = a[2 + l] == '=' ? a + 3 + l : NULL;
			else if (a[1] != '-' && p->shrt && a[1] == p->shrt)
				o = p, val = a[2] ? a + 2 : NULL;
		}
		if (!o || !(o->scope & scope))
			return usage_error("unknown option \"%s\"", a);
		if (o->arg && !val) {
			if (i + 1 >= argc)
				return usage_error("option \"%s\" needs a value", a);
			val = argv[++i];
		}
		if (!o->arg && val)
			return usage_error("option \"%s\" takes no value", a);
		const char *n = o->lng;
		bc_err e;
		if (!strcmp(n, "config")) c->config = val;
		else if (!strcmp(n, "output")) c->out = val;
		else if (!strcmp(n, "csv")) c->csv = val;
		else if (!strcmp(n, "force")) c->force = 1;
		else if (!strcmp(n, "only")) c->only = val;
		else if (!strcmp(n, "skip")) c->skip = val;
		else if (!strcmp(n, "label")) c->label = val;
		else if (!strcmp(n, "force-module")) c->force_module = 1;
		else if (!strcmp(n, "quiet")) c->quiet = 1;
		else if (!strcmp(n, "module-path")) c->modpath = val;
		else if (!strcmp(n, "keep")) rs->keep = 1;
		else if (!strcmp(n, "no-isolate")) rs->isolate = 0;
		else {
			char key[32];
			snprintf(key, sizeof(key), "%s", n);
			for (char *p = key; *p; p++)
				if (*p == '-')
					*p = '_';
			char *where = bc_xasprintf("command line (--%s)", n);
			int bad = bc_runset_set(rs, key, val, where, &e);
			free(where);
			if (bad) {
				bc_err_print(&e);
				return 2;
			}
		}
	}
	return 0;
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
			"name", plans[i].mod->desc.name, "path", plans[i].mod->path, "threads", th,
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
	return json_pack("{s:s?, s:o, s:b, s:o}", "file", cfg->file, "percentiles", pct,
			 "skip_heavy", cfg->skip_heavy, "modules", mods);
}

/* The io target, for the fingerprint: the first module option named path. */
static const char *io_path_of(bc_modplan *plans, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const bench_option_v1 *o = bc_opt_find(plans[i].mod->desc.options, "path");
		if (o && o->type == BENCH_OPT_STRING)
			return plans[i].vals[o - plans[i].mod->desc.options][0].s;
	}
	return NULL;
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
	bc_runner r;
	memset(&r, 0, sizeof(r));
	char *out = unique_path(c->out ? c->out : cfg->output, c->force);
	char *csv = unique_path(c->csv ? c->csv : cfg->csv, c->force);
	bc_runner_init(&r, cfg, config_json(cfg, plans, n), io_path_of(plans, n));
	r.out_json = out;
	r.out_csv = csv;
	r.force_module = c->force_module;
	r.progress = c->quiet ? 0 : isatty(2) ? 2 : 1;
	bc_runner_show_plan(&r, plans, n);
	install_signals();
	rc = bc_runner_run(&r, plans, n);
	bc_service_stop_all();	/* the runner stops them already: this is the backstop */
	bc_runner_free(&r);
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

static int cmd_list(int argc, char **argv)
{
	bc_modset set;
	char *dirs[2] = { NULL, NULL };
	if (argc > 1 && !strcmp(argv[1], "--module-path") && argc > 2)
		dirs[0] = argv[2];
	bc_modset_load(&set, bc_module_search_path(dirs[0] ? dirs : NULL));
	printf("%-10s %-8s %-5s %-44s %s\n", "module", "version", "ABI", "path", "summary");
	for (size_t i = 0; i < set.nmods; i++) {
		const bench_module_v1 *d = &set.mods[i].desc;
		char abi[16];
		snprintf(abi, sizeof(abi), "%u.%u", d->abi_major, d->abi_minor);
		printf("%-10s %-8s %-5s %-44s %s\n", d->name, d->version ? d->version : "-", abi,
		       set.mods[i].path, d->summary ? d->summary : "");
		print_requirements(stdout, &d->requires);
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

static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	int md = argc > 2 && !strcmp(argv[2], "--markdown");
	bc_modset set;
	bc_err e;
	bc_modset_load(&set, bc_module_search_path(NULL));
	const bc_module *m = bc_modset_find(&set, argv[1]);
	if (!m) {
		bc_modset_missing(&set, argv[1], &e);
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
		printf("\nrun settings (any module, see benchcore --help):");
		for (const bc_keydoc *k = bc_config_keys; k->name; k++)
			if (k->scope >= 2 && strcmp(k->name, "name"))
				printf(" %s", k->name);
		printf("\n");
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
