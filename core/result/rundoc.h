/* The run document (issue 51): a results file's header as typed fields, read
   in one place and written in one place. The facts every consumer of a whole
   document asks for (its run_id, start and end, label, host id and name, the
   config file's name, status, interrupted, cases_planned, the parts of a
   merged run) are fields here, checked once by bc_rundoc_read; the members
   benchcore has no type for yet (host, config, schedule, cases, groups) stay
   the document's own JSON, borrowed from it. The archive's store and merge
   read documents through it; compare and report read the grouped form
   (results.h), which is built from the same cases.

   Round trip (tests/unit/test_rundoc.c): bc_rundoc_write of what
   bc_rundoc_read made gives back the bytes of a file today's benchcore wrote
   (its members in their order, jansson's layout, reals in 17 digits); any
   other valid file (python's layout, an older benchcore's shortest reals)
   comes back as the same JSON (equal values, the same member order) in
   benchcore's layout, and writing that again changes nothing. One bc_rundoc is its
   caller's; not thread-safe. */
#ifndef BC_RUNDOC_H
#define BC_RUNDOC_H
#include <stddef.h>
#include <jansson.h>
#include "util.h"

typedef struct bc_rundoc_part {	/* merged_from[i] */
	const char *file;
	const char *run_id;	/* NULL when the part had none (older files) */
} bc_rundoc_part;

typedef struct bc_rundoc {
	json_t *root;		/* the document; the strings below are its own */
	const char *schema;	/* "benchcore/1" */
	const char *run_id, *host_id, *started_at, *finished_at, *label, *version, *status;
				/* each NULL when absent (older files) */
	const char *hostname;	/* host.hostname, or NULL */
	const char *config_file;/* config.file, or NULL */
	int interrupted;
	long planned;		/* cases_planned, or -1 */
	json_t *host, *config;	/* objects, or NULL when absent */
	json_t *cases;		/* the cases array, as written */
	bc_rundoc_part *parts;	/* merged_from, in its order */
	size_t nparts;
} bc_rundoc;

/* The document in buf[0..len) (name for messages): 0, or -1 with e saying
   which member is wrong (a header member of the wrong type, a NUL byte, not
   an object) and d empty. */
int bc_rundoc_read(const char *buf, size_t len, const char *name, bc_rundoc *d, bc_err *e);
/* The same over a tree already made (merge's): takes the reference to root
   (freed with d, or at once on failure). */
int bc_rundoc_take(json_t *root, const char *name, bc_rundoc *d, bc_err *e);
/* The document's text as benchcore writes a results file (JSON_INDENT(1),
   members in order), with the typed fields as they are now; malloc'd. */
char *bc_rundoc_write(const bc_rundoc *d, size_t *len);
void bc_rundoc_free(bc_rundoc *d);
#endif
