/* The settings that govern a run, as values (no parser): the run settings
 * (bc_runset), a module entry as given (bc_modconf) and the whole config
 * (bc_config). site.conf's reader (libconfig) is run/config.c, the table of
 * settings values/settings.c. Main thread only. */
#ifndef BC_RUNSET_H
#define BC_RUNSET_H
#include <stddef.h>
#include <stdint.h>
#include "util.h"

#define BC_MAX_PCT 16

/* Run settings: global defaults, overridable per module and on the command line. */
/* Run settings a command-line flag gave: --scale leaves them as given (a flag
   overrides the file, and scale is a change of the file's values). */
enum { BC_UNSCALED_TIME = 1, BC_UNSCALED_WARMUP = 2, BC_UNSCALED_THREADS = 4 };

typedef struct bc_runset {
	unsigned threads[64];
	size_t nthreads;
	double time_s, warmup_s, report_interval, rate, grace, thread_init_timeout;
	double prepare_timeout;		/* prepare of one case */
	double init_timeout;		/* init of one case */
	double cleanup_timeout;		/* finish, cleanup, destroy each; 0 = warmup + time + grace */
	double max_error_rate;		/* share of operations that may fail (0 .. 1) */
	double scale;			/* 0 < scale <= 1: a quick try of a long study (plan.c) */
	unsigned unscaled;		/* BC_UNSCALED_*: given by a flag, so kept as given by scale */
	int repeat_auto;		/* repeat = "auto": rounds go on while a case is undecided */
	unsigned min_repeat, max_repeat;
	double time_budget;		/* repeat = auto: no new round after this many seconds (0: none) */
	int warmup_auto;		/* warmup = "auto": until the throughput is steady */
	double max_warmup;		/* warmup = auto: the longest warmup */
	double warmup_window;		/* warmup = auto: the seconds judged steady (BC_STEADY_WINDOW samples) */
	int profile_small;		/* profile = "small": heavy modules skipped, sizes fitted */
	uint64_t max_cases;		/* the plan's size that runs without confirmation */
	uint64_t events;
	unsigned repeat;
	int arrival_fixed, keep, isolate;
	int back_to_back;		/* repeat_order: 0 rounds (default), 1 back_to_back */
	int seed_set;			/* seed given; else the runner draws one (and records it) */
	uint32_t seed;			/* shuffles the order of a round's cases */
} bc_runset;

/* A module option as the user gave it: one value, or a list (a sweep). */
typedef struct bc_given {
	char *key;
	char **texts;			/* values as text, NULL-terminated */
	char *where;			/* "site.conf:12" or "command line" */
	char *set, *read;		/* a machine custom setting's commands; else NULL */
} bc_given;

/* A machine = { } group (docs/machine.md): keys as the machine kinds name
   them ("thp", "sysctl.vm.swappiness", "custom.NAME", "device"), a list a
   sweep. A module entry's own group replaces the top level's. */
typedef struct bc_mconf {
	int set;			/* a group was given here */
	bc_given *given;
	size_t ngiven;
} bc_mconf;

typedef struct bc_modconf {
	char *name;
	int enabled;
	char *where;
	bc_runset run;
	bc_given *given;
	size_t ngiven;
	bc_mconf machine;		/* its own machine group (set: replaces the top level's) */
} bc_modconf;

typedef struct bc_config {
	char *file;
	char *label, *output, *csv, *report, *baseline;
	char *store;			/* the store setting: an archive, or "default" */
	char **module_path;		/* NULL-terminated */
	double pct[BC_MAX_PCT];
	size_t npct;
	int skip_heavy;
	double busy_threshold;		/* percent (settings.c) */
	bc_runset run;
	bc_modconf *mods;
	size_t nmods;
	bc_mconf machine;		/* the top level's machine group */
} bc_config;

/* Every setting at its default (settings.c's table). */
void bc_config_defaults(bc_config *c);
/* Adds a module entry (for `benchcore run MODULE`). */
bc_modconf *bc_config_add_module(bc_config *c, const char *name, const char *where);
/* Adds key=a,b,c to a module entry. */
void bc_modconf_give(bc_modconf *m, const char *key, char **texts, const char *where);
int bc_is_run_key(const char *key);
/* Adds (or replaces) key=a,b,c in a machine group; texts are taken. */
bc_given *bc_mconf_give(bc_mconf *m, const char *key, char **texts, const char *where);
void bc_mconf_free(bc_mconf *m);
void bc_config_free(bc_config *c);
#endif
