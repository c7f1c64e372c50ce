/* The config model (values/config_model.c), as values (no parser): a
 * module entry as given (bc_modconf) and the whole config (bc_config) with
 * its run settings (runset.h). site.conf's reader (libconfig) is
 * run/config.c, the table of settings values/settings.c. Main thread only. */
#ifndef BC_CONFIG_MODEL_H
#define BC_CONFIG_MODEL_H
#include <stddef.h>
#include "runset.h"
#include "util.h"

/* A module option as the user gave it: one value, or a list (a sweep). */
typedef struct bc_given {
	char *key;
	char **texts;			/* values as text, NULL-terminated */
	char *where;			/* "site.conf:12" or "command line" */
	char *set, *read;		/* a machine custom setting's commands; else NULL */
	double timeout;			/* their time limit in seconds (0: the default) */
	int flag;			/* given on the command line (run MODULE key=value, or
					   MODULE.key=value after -c): --scale keeps it as given */
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
	char *fail_on;			/* the fail_on setting: the gate's verdict list, or NULL */
	char **module_path;		/* NULL-terminated */
	char **summary_rows;		/* NULL-terminated, or NULL (settings.c) */
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
/* The option key as given to m, or NULL. */
bc_given *bc_modconf_given(bc_modconf *m, const char *key);
int bc_is_run_key(const char *key);
/* Adds (or replaces) key=a,b,c in a machine group; texts are taken. */
bc_given *bc_mconf_give(bc_mconf *m, const char *key, char **texts, const char *where);
void bc_mconf_free(bc_mconf *m);
void bc_config_free(bc_config *c);
#endif
