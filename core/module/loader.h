/* Finding (modset.c), checking and opening (loader.c) modules: .so files
   speaking bench_module_v1.
   Finding and checking never run a module's code in this process: each file
   is described by a probe child (probe.h). bc_module_open() dlopens a module
   in the process that runs its case. Main thread only. Opened modules are
   never unloaded. */
#ifndef BC_LOADER_H
#define BC_LOADER_H
#include <stddef.h>
#include "benchcore/module.h"
#include "util.h"
#include "trust.h"


typedef struct bc_module {
	bench_module_v1 desc;		/* as described by the probe: tables owned by meta,
					   callbacks are stubs until bc_module_open() */
	char *path;
	unsigned nops;
	const char *ops[BENCH_MAX_OP_CLASSES + 1];	/* the static op classes */
	char sha256[65];		/* of the file when it was checked (hex) */
	char *shadows;			/* files later on the path naming the same module, or NULL */
	const char **libs;		/* libraries it brought into the probe (real paths) */
	void *meta;			/* owns the description (probe.c) */
	void *handle;			/* dlopen handle once opened in this process */
} bc_module;

typedef struct bc_loadfail {
	char *path;
	char *stem;			/* file name without .so: the module it claims to be */
	char dup[72];			/* for a duplicate: the module name both files claim */
	int is_dir;			/* a search-path directory refused whole (path: the directory) */
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
/* Checks and describes one file (trust, RUNPATH, probe, contents); free
   with bc_module_free. Runs none of its code in this process. */
int bc_module_load(const char *path, bc_module *m, bc_err *e);
/* bc_module_load's two halves, for bc_modset_load, which probes many files
   at once between them: before any of the file's code runs (trust of it,
   its directories, RUNPATH, the libraries it would load; its sha256 into
   sha), and after its probe filled m (the libraries it pulled in, the
   descriptor's header and contents). 0, or -1 with e set. */
int bc_module_pre_checks(const char *path, char sha[65], bc_err *e);
int bc_module_post_checks(const char *path, bc_module *m, bc_err *e);
/* dlopens a described module in this process (the case's) and puts its real
   callbacks in m->desc; refuses a file changed since it was checked. */
int bc_module_open(bc_module *m, bc_err *e);
void bc_module_free(bc_module *m);
/* The checks of the descriptor's fixed header (magic, ABI major, size). */
int bc_module_check_header(const char *path, const bench_module_v1 *d, bc_err *e);
/* The checks of the contents (names, callbacks, tables); fills m->ops. */
int bc_module_check(const char *path, bc_module *m, bc_err *e);
/* sha256 of a file as hex. */
int bc_file_sha256(const char *path, char hex[65], bc_err *e);
/* Loads every *.so in dirs. A name already loaded from an earlier directory
   shadows later ones; two files of one name in one directory is an error. */
void bc_modset_load(bc_modset *set, char **dirs);
const bc_module *bc_modset_find(const bc_modset *set, const char *name);
/* The load failure that explains why name is missing, if any. */
const bc_loadfail *bc_modset_fail_for(const bc_modset *set, const char *name);
/* Error for a name that is not loaded: lists where it looked and what exists. */
void bc_modset_missing(const bc_modset *set, const char *name, bc_err *e);
void bc_modset_free(bc_modset *set);
/* Checks that path (its real path) and every directory above it belong to
   root or to us and that others cannot write there (directories above the
   module's own may be sticky, like /tmp), as sudo and OpenSSH do. */
int bc_check_trust(const char *path, int is_dir, bc_err *e);
/* The same for any file or directory (what: "library", "directory"):
   bc_trust_walk (trust.h). */
/* Every library the module at path would bring in (DT_NEEDED, resolved
   recursively as ld.so would) and every directory searched for them is
   trusted; checked from the files, before any of their code runs (deps.c). */
int bc_check_deps(const char *path, bc_err *e);
/* A RUNPATH/RPATH entry with $ORIGIN (${ORIGIN}) replaced by origin; any
   other $TOKEN cuts it to the directory before it (deps.c). malloc'd. */
char *bc_origin_expand(const char *entry, const char *origin);
#endif
