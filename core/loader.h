/* Finding, loading and checking modules (.so files speaking bench_module_v1).
   Main thread only. Loaded modules are never unloaded while benchcore runs. */
#ifndef BC_LOADER_H
#define BC_LOADER_H
#include <stddef.h>
#include "benchcore/module.h"
#include "util.h"


typedef struct bc_module {
	bench_module_v1 desc;		/* copy; fields past the module's struct_size are zero */
	char *path;
	unsigned nops;
	const char *ops[BENCH_MAX_OP_CLASSES + 1];	/* the static op classes */
} bc_module;

typedef struct bc_loadfail {
	char *path;
	char *stem;			/* file name without .so: the module it claims to be */
	char dup[72];			/* for a duplicate: the module name both files claim */
	bc_err err;
} bc_loadfail;

typedef struct bc_modset {
	bc_module *mods;
	size_t nmods;
	bc_loadfail *fails;
	size_t nfails;
	char **dirs;			/* the search path used, in order */
} bc_modset;

/* The search path: config dirs, $BENCHCORE_MODULE_PATH, the in-tree build dir
   (when this binary runs from a build tree), the install dir. */
char **bc_module_search_path(char *const *config_dirs);
/* Loads and checks one file. */
int bc_module_load(const char *path, bc_module *m, bc_err *e);
/* Loads every *.so in dirs. A name already loaded from an earlier directory
   shadows later ones; two files of one name in one directory is an error. */
void bc_modset_load(bc_modset *set, char **dirs);
const bc_module *bc_modset_find(const bc_modset *set, const char *name);
/* The load failure that explains why name is missing, if any. */
const bc_loadfail *bc_modset_fail_for(const bc_modset *set, const char *name);
/* Error for a name that is not loaded: lists where it looked and what exists. */
void bc_modset_missing(const bc_modset *set, const char *name, bc_err *e);
void bc_modset_free(bc_modset *set);
/* Checks that path is not writable by group/others and owned by root or us. */
int bc_check_trust(const char *path, int is_dir, bc_err *e);
#endif
