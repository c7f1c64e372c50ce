/* benchcore list and benchcore help: what modules there are, a module's
 * options (text or markdown: docs/modules.md), benchcore's settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "config.h"
#include "fit.h"
#include "flags.h"
#include "loader.h"
#include "options.h"
#include "settings.h"
#include "mset.h"
#include "util.h"

void bc_print_needs(FILE *f, const bc_module *m, const char *indent)
{
	if (!m->desc.needs)
		return;
	bc_config cfg;
	bc_modplan p;
	bc_err e;
	bc_need nd;
	char a[32];
	bc_config_defaults(&cfg);
	bc_modconf *mc = bc_config_add_module(&cfg, m->desc.name, "defaults");
	mc->run.nthreads = 1;
	mc->run.threads[0] = 1;
	if (bc_plan_module(mc, m, &p, &e) == 0) {
		p.npoints = 1;	/* the defaults' point */
		if (bc_needs_eval(&p, &nd, &e))
			fprintf(f, "%sneeds() at its defaults: not known (%s)\n", indent, e.msg);
		else if (nd.err[0])
			fprintf(f, "%sneeds() refuses its defaults: %s\n", indent, nd.err);
		else {
			fprintf(f, "%sneeds() at its defaults (1 thread):", indent);
			if (nd.memory)
				fprintf(f, " %s of memory;", bc_human_size((double)nd.memory, a, sizeof(a)));
			if (nd.disk)
				fprintf(f, " %s of disk at %s;", bc_human_size((double)nd.disk, a, sizeof(a)),
					nd.path[0] ? nd.path : "(no path)");
			if (nd.cpus)
				fprintf(f, " %u CPUs;", nd.cpus);
			if (!nd.memory && !nd.disk && !nd.cpus)
				fprintf(f, " nothing;");
			fprintf(f, " %s\n", nd.why[0] ? nd.why : "(no account given)");
		}
		bc_plan_free(&p);
	}
	bc_config_free(&cfg);
}

static void print_requirements(FILE *f, const bc_module *m)
{
	const bench_requirements_v1 *r = &m->desc.requires;
	char sz[32];
	fprintf(f, "    requires:");
	if (!r->min_memory && !r->min_disk && !r->min_cpus && !r->heavy && !r->service)
		fprintf(f, m->desc.needs ? " what needs() computes for each case" : " nothing special");
	if (r->min_cpus)
		fprintf(f, " %u CPUs;", r->min_cpus);
	if (r->min_memory)
		fprintf(f, " %s memory;", bc_human_size((double)r->min_memory, sz, sizeof(sz)));
	if (r->min_disk)
		fprintf(f, " %s disk at option %s;", bc_human_size((double)r->min_disk, sz, sizeof(sz)),
			r->disk_path_option ? r->disk_path_option : "?");
	if (r->service)
		fprintf(f, " service %s;", r->service);
	if (r->heavy)
		fprintf(f, " heavy (skipped with skip_heavy = true)");
	fputc('\n', f);
	bc_print_needs(f, m, "    ");
}

enum { L_MODPATH = 1, L_MARKDOWN, L_CONFIG, L_HELP };
static const bc_flag list_flags[] = {
	{ "module-path", 0, "DIR", L_MODPATH, "search DIR for modules first" },
	{ "config", 'c', "FILE", L_CONFIG, "search the module_path of this config file too" },
	{ "markdown", 0, NULL, L_MARKDOWN, "help: the options as a markdown table (docs/modules.md)", 2 },
	{ "help", 'h', NULL, L_HELP, "this text" },
	{ NULL }
};

typedef struct list_args {
	char *dirs[2];
	const char *config;
	int markdown, help;
} list_args;

static int on_list_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	list_args *a = arg;
	(void)e;
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

/* --module-path first, then the config's module_path (-c FILE: as a run of
   it would search); NULL after a bad config, said. */
static char **search_dirs(const list_args *a)
{
	bc_err e;
	char **dirs = a->dirs[0] ? bc_split(a->dirs[0], ':') : bc_xcalloc(1, sizeof(char *));
	if (a->config) {
		bc_config cfg;
		bc_config_defaults(&cfg);
		if (bc_config_load(&cfg, a->config, &e)) {
			bc_err_print(&e);
			bc_config_free(&cfg);
			bc_strv_free(dirs);
			return NULL;
		}
		size_t na = bc_strv_len(dirs), nb = bc_strv_len(cfg.module_path);
		dirs = bc_xrealloc(dirs, na + nb + 1, sizeof(char *));
		for (size_t i = 0; i <= nb; i++)
			dirs[na + i] = i < nb ? bc_xstrdup(cfg.module_path[i]) : NULL;
		bc_config_free(&cfg);
	}
	return dirs;
}

int bc_cmd_list(int argc, char **argv)
{
	bc_modset set;
	list_args a = { { NULL, NULL }, NULL, 0, 0 };
	char **rest;
	int rc = list_help_flags("list", 1, argc, argv, &a, &rest, 0, "benchcore list [--module-path DIR] [-c FILE]");
	if (rc)
		return rc < 0 ? 0 : rc;
	free(rest);
	char **dirs = search_dirs(&a);
	if (!dirs)
		return 2;
	bc_modset_load(&set, bc_module_search_path(dirs));
	bc_strv_free(dirs);
	printf("%-10s %-8s %-5s %-44s %s\n", "module", "version", "ABI", "path", "summary");
	for (size_t i = 0; i < set.nmods; i++) {
		const bench_module_v1 *d = &set.mods[i].desc;
		char abi[16];
		snprintf(abi, sizeof(abi), "%u.%u", d->abi_major, d->abi_minor);
		char *path = bc_printable(set.mods[i].path);	/* a file name can hold escapes too */
		printf("%-10s %-8s %-5s %-44s %s\n", d->name, d->version ? d->version : "-", abi,
		       path, d->summary ? d->summary : "");
		free(path);
		print_requirements(stdout, &set.mods[i]);
		if (set.mods[i].shadows)	/* a module name two files claim: say which one runs */
			printf("    SHADOWS: %s (also named \"%s\"; the file above comes first on the search path and is used)\n",
			       set.mods[i].shadows, d->name);
	}
	if (set.nfails)
		printf("\nnot loaded:\n");
	for (size_t i = 0; i < set.nfails; i++) {
		char *stem = bc_printable(set.fails[i].stem), *path = bc_printable(set.fails[i].path),
		     *msg = bc_printable(set.fails[i].err.msg);
		printf("%-10s %s%s\n    %s\n", stem, path, set.fails[i].is_dir ? ": not searched (none of its "
		       "modules is loaded)" : "", msg);
		free(stem);
		free(path);
		free(msg);
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
			bc_format_size(bc_size_bound(o->min), a, sizeof(a));
			bc_format_size(bc_size_bound(o->max), b, sizeof(b));
			snprintf(extra, sizeof(extra), " Range: %s .. %s.", a, b);
		} else {
			snprintf(extra, sizeof(extra), " Range: %g .. %g.", o->min, o->max);
		}
	}
	const char *def = o->def ? o->def : (o->type == BENCH_OPT_ENUM ? o->choices[0] : "");
	if (o->flags & BENCH_OPT_SWEEP_DEFAULT)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 " The default is a sweep: one case per item.");
	/* ABI 1.3 flags: where the workload runs (not matched across machines),
	   and what the host may scale down */
	const char *where = (o->flags & BENCH_OPT_PLACEMENT) ? " (placement)" : "";
	const char *scales = (o->flags & BENCH_OPT_SCALES) ? " (scales)" : "";
	/* the help is a sentence: what follows it starts after its full stop */
	const char *help = o->help ? o->help : "", *stop = *extra || (md && (o->flags & BENCH_OPT_NOSWEEP)) ?
		bc_full_stop(help) : "";
	if (md)
		fprintf(f, "| `%s` | %s | `%s` | %s%s%s%s%s%s |\n", o->name, bc_opt_type_name(o->type), def,
			help, stop, extra, (o->flags & BENCH_OPT_NOSWEEP) ? " Not sweepable." : "", where, scales);
	else
		fprintf(f, "  %-16s %-7s %-12s %s%s%s%s%s%s\n", o->name, bc_opt_type_name(o->type),
			*def ? def : "\"\"", help, stop, extra,
			(o->flags & BENCH_OPT_SECRET) ? " (secret: never shown)" : "", where, scales);
}

/* help's words: MODULE [--markdown] [--module-path DIR] [-c FILE]; the
   config's module_path is searched too, as a run of it would. */
/* benchcore help machine: the machine settings' table (core/machine/mkinds.c),
   docs/machine.md's key table, the man page's section and --machine's keys. */
static void machine_doc(int md)
{
	if (md) {
		printf("### Machine settings (`machine = { ... }`, `--machine KEY=VALUE`)\n\n"
		       "| key | values | what | writes |\n|---|---|---|---|\n");
		for (const bc_mkind *k = bc_mkinds; k->key; k++) {
			char mv[128];	/* a table cell holds no bar */
			size_t o = 0;
			for (const char *c = k->metavar; *c && o + 3 < sizeof(mv); c++)
				o += (size_t)(*c == '|' ? snprintf(mv + o, sizeof(mv) - o, ", ") :
					      snprintf(mv + o, sizeof(mv) - o, "%c", *c));
			printf("| `%s` | %s | %s | %s |\n", k->key, mv, k->help, k->files);
		}
		printf("| `device` | /dev/NAME | the block device of io_scheduler, read_ahead_kb and nr_requests "
		       "(default: the one under the module's path) | (none) |\n");
		return;
	}
	printf("machine settings (site.conf: machine = { KEY = VALUE or [a, b]; }, a list a sweep; "
	       "benchcore run --machine KEY=a,b; -c FILE machine.KEY=a,b); root needed:\n");
	for (const bc_mkind *k = bc_mkinds; k->key; k++)
		printf("  %-14s %s\n  %-14s %s\n  %-14s writes: %s\n", k->key, k->metavar, "", k->help, "", k->files);
	printf("  %-14s /dev/NAME\n  %-14s the device of io_scheduler, read_ahead_kb, nr_requests\n", "device", "");
}

int bc_cmd_help(int argc, char **argv)
{
	list_args a = { { NULL, NULL }, NULL, 0, 0 };
	char **rest;
	int rc = list_help_flags("help", 2, argc, argv, &a, &rest, 1,
				 "benchcore help MODULE|settings|machine [--markdown] [--module-path DIR] [-c FILE]");
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!rest[0]) {
		free(rest);
		bc_usage(stdout);
		return 0;
	}
	const char *name = rest[0];
	free(rest);
	int md = a.markdown;
	if (!strcmp(name, "settings")) {
		bc_settings_doc(stdout, md);
		return 0;
	}
	if (!strcmp(name, "machine")) {
		machine_doc(md);
		return 0;
	}
	bc_modset set;
	bc_err e;
	char **dirs = search_dirs(&a);
	if (!dirs)
		return 2;
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
		print_requirements(stdout, m);
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

