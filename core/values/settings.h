/* The settings of benchcore itself (site.conf's top level, a module entry's
 * run settings, `benchcore serve`'s serve = { } group, the matching
 * command-line flags) as rows of the option
 * table type modules use (bench_option_v1: name, type, default, help,
 * choices, bounds), plus where each value lands. One table drives the
 * defaults, the checks (the same bc_val_parse modules' options go through),
 * site.conf, `benchcore run --flag`, --help and docs/settings.md.
 * Main thread only. */
#ifndef BC_SETTINGS_H
#define BC_SETTINGS_H
#include <stddef.h>
#include <stdio.h>
#include <benchcore/module.h>
#include "flags.h"
#include "options.h"
#include "util.h"

struct bc_config;

/* Where a setting may be written. */
enum {
	BC_SCOPE_GLOBAL = 1,	/* site.conf top level only (label, percentiles, ...) */
	BC_SCOPE_RUN = 2,	/* top level, a module entry, and `run --flag` */
	BC_SCOPE_ENTRY = 3,	/* a module entry only (name, enabled) */
	BC_SCOPE_SERVE = 4	/* serve = { } and `benchcore serve --flag` (bc_serve_settings) */
};

/* How the checked value is kept. */
typedef enum {
	BC_ST_NONE,		/* read elsewhere (name, modules) */
	BC_ST_BOOL,		/* int */
	BC_ST_DOUBLE,		/* double */
	BC_ST_U64,		/* uint64_t */
	BC_ST_UNSIGNED,		/* unsigned */
	BC_ST_CHOICE,		/* int: index in choices[] */
	BC_ST_SEED,		/* uint32_t, and seed_set = 1 */
	BC_ST_THREADS,		/* threads[] and nthreads: a list is a sweep */
	BC_ST_STRING,		/* char * (malloc'd, replaces the old value) */
	BC_ST_STRV,		/* char ** (NULL-terminated list of strings) */
	BC_ST_PCTS		/* pct[] and npct: a list of numbers */
} bc_store;

typedef struct bc_setting {
	bench_option_v1 opt;	/* the row: name, type, default, help, choices, bounds */
	int scope;		/* BC_SCOPE_* */
	bc_store store;
	size_t offset;		/* in bc_runset (BC_SCOPE_RUN), bc_config (BC_SCOPE_GLOBAL) or
				   bc_serveset (BC_SCOPE_SERVE) */
	const char *flag;	/* the command's flag ("report-interval"), NULL: config only */
	const char *metavar;	/* the flag's value ("S", "1,2,4"); NULL: a flag without value */
	const char *flag_value;	/* the value a flag without value stands for ("true") */
	const char *flag_help;	/* when the flag reads differently from the setting (--no-isolate) */
	/* A rule beyond type and bounds, or NULL: 0, or -1 with e set. */
	int (*check)(const bc_val *v, bc_err *e);
	/* Nonzero: the setting also takes "auto", which sets the int at this
	   offset of the base to 1 (and a number sets it to 0). */
	size_t auto_offset;
} bc_setting;

extern const bc_setting bc_settings[];

/* `benchcore serve`'s settings (its own table: a module entry or the top
   level never takes them). */
typedef struct bc_serveset {
	char *module, *bind;		/* module NULL: the only one with a serve hook */
	unsigned port;
	int port_auto;			/* port = auto: the module's serve_port */
	int once;
	unsigned max_clients, max_threads;
	double idle_timeout, max_duration;
	uint64_t max_memory;
} bc_serveset;

extern const bc_setting bc_serve_settings[];

/* The row called name (site.conf spelling), or NULL. */
const bc_setting *bc_setting_find(const char *name);
/* The row of bc_serve_settings called name, or NULL. */
const bc_setting *bc_serve_setting_find(const char *name);
/* The row whose flag is flag (without "--"), or NULL. */
const bc_setting *bc_setting_by_flag(const char *flag);
/* Checks text (a list "1,2,4" where the store takes one) against the row
   and stores it at base + offset. base is a bc_runset for BC_SCOPE_RUN, a
   bc_config for BC_SCOPE_GLOBAL, a bc_serveset for BC_SCOPE_SERVE. where names the source ("site.conf:3",
   "command line (--time)"). 0, or -1 with e set. */
int bc_setting_set(const bc_setting *s, void *base, char *const *texts, const char *where,
		   bc_err *e);
/* Every setting at its default (the table's def), into c. */
void bc_settings_defaults(struct bc_config *c);
/* Every serve setting at its default, into s; bc_serveset_free frees it. */
void bc_serveset_defaults(bc_serveset *s);
void bc_serveset_free(bc_serveset *s);
/* One flag row per row of tab that has a flag, into out (at most cap), its
   code code0 + the row's index in tab, its help the row's (with "(default
   X)" when it takes a value and has a default) in help[]; scope is the
   flags' scope mask. Returns how many. */
size_t bc_settings_flags(const bc_setting *tab, bc_flag *out, char (*help)[512], size_t cap, int code0,
			 unsigned scope);
/* "label, module_path, ..." of the rows whose scope is a or b. */
void bc_settings_names(char *buf, size_t n, int scope_a, int scope_b);
/* The settings table as markdown (docs/settings.md) or as text. */
void bc_settings_doc(FILE *f, int markdown);
#endif
