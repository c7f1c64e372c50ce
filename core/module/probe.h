/* Probing module files without running their code in benchcore's process
 * (probe_run.c runs the children; probe.c is the description they send).
 *
 * dlopen runs a library's constructors (C __attribute__((constructor)), C++
 * static initialisers, those of every library it links), so benchcore never
 * opens a module just to describe it: a short-lived child opens the file,
 * reads its descriptor and sends a description (JSON) back over a pipe; the
 * parent turns it into a bc_module whose strings and tables it owns and
 * whose callbacks are stubs until bc_module_open() (in the process that runs
 * the case). A child that crashes, aborts, exits or hangs (timeout) is one
 * load error naming the file and what happened. Main thread only. */
#ifndef BC_PROBE_H
#define BC_PROBE_H
#include <stddef.h>
#include <jansson.h>
#include "loader.h"

#define BC_PROBE_TIMEOUT_S	5.0	/* $BENCHCORE_PROBE_TIMEOUT overrides */
#define BC_PROBE_TABLE_CAP	4096	/* entries before a table counts as unterminated */

typedef struct bc_probe {
	const char *path;		/* in: the file (already trust-checked) */
	int ok;				/* out: m is filled (and owned by the caller) */
	bc_module m;
	bc_err err;			/* out: why not */
} bc_probe;

/* Probes every file in a child of its own, several at once; each gets the
   timeout. Fills p[i].ok, p[i].m or p[i].err. */
void bc_probe_files(bc_probe *p, size_t n);

/* The description of descriptor d (child side): JSON text, malloc'd; NULL
   with e set when it cannot be described (a string that is not UTF-8, a
   table without its terminator). */
char *bc_probe_describe(const bench_module_v1 *d, bc_err *e);
/* d (struct_size bytes of the module's own minor) as this host reads it,
   described: the newer-minor check, options[] in this host's layout, then
   bc_probe_describe. The probe child's description, and the case
   process's to compare with it (bc_module_same). NULL with e set. */
char *bc_probe_describe_host(const char *path, const bench_module_v1 *d, bc_err *e);
/* The probe's description of m, as parsed (NULL for a module not made by
   bc_probe_parse); m owns it. */
const json_t *bc_probe_description(const bc_module *m);
/* In the process that opened m's file (bc_module_open): d, the descriptor
   its entry returned there, described as the probe described it and
   compared with the probe's description: every field of the descriptor,
   its options (name, type, default, help, bounds, flags, offset, choices),
   op classes, metrics, thresholds, data options, requirements and which
   callbacks are set. 0 when the same; -1 with e naming the first
   difference (same.c). */
int bc_module_same(const bc_module *m, const bench_module_v1 *d, bc_err *e);
/* Turns a description into m (parent side; any bytes: a fuzz target).
   path is used in messages. m owns everything; free with bc_module_free.
   -1: the description is a load error (e), -2: it is malformed (e). */
int bc_probe_parse(const char *text, size_t len, const char *path, bc_module *m, bc_err *e);

/* RUNPATH / RPATH entries of an ELF shared object held in buf (any bytes:
   a fuzz target). NULL-terminated vector, malloc'd (free with bc_strv_free):
   empty when it has none; NULL when buf is not a 64-bit ELF file. *kind gets
   "RUNPATH" or "RPATH". */
char **bc_elf_runpath(const unsigned char *buf, size_t n, const char **kind);

/* What the dynamic linker reads of an ELF shared object: its machine, its
   DT_NEEDED names, its DT_RUNPATH and DT_RPATH entries (NULL when it has
   none). All malloc'd; free with bc_elf_dyn_free (also after -1). */
typedef struct bc_elf_dyn {
	unsigned machine;		/* e_machine */
	char **needed;
	char **runpath;
	char **rpath;
} bc_elf_dyn;
/* 0, or -1 when buf is not a 64-bit ELF file or its dynamic section is
   broken (any bytes: a fuzz target). */
int bc_elf_dynamic(const unsigned char *buf, size_t n, bc_elf_dyn *out);
void bc_elf_dyn_free(bc_elf_dyn *d);
#endif
