/* The run document (issue 51): a results file's header as typed fields, read
   in one place and written in one place. The facts every consumer of a whole
   document asks for (its run_id, start and end, label, host id and name, the
   config file's name, status, interrupted, cases_planned, the parts of a
   merged run) are fields here, checked once by bc_rundoc_read; the members
   benchcore has no type for yet (host, config, schedule, cases, groups) stay
   the document's own JSON, borrowed from it.

   One reader: every whole results document is read here (bc_rundoc_load of
   a file, bc_rundoc_read of a buffer): compare, report, history and the
   index read the grouped form (results.h) made from it, and merge, --resume,
   the archive's store and check-module read it as it is. One set of
   messages, none naming the file: every caller says which file it read.
   One writer: the runner makes a new run's header with bc_rundoc_new (its
   members in benchcore's order) and writes it with its cases' texts
   spliced in (bc_rundoc_pieces: a case kept as its text, not its tree);
   bc_rundoc_write, merge's and the round trip's, is the same layout with
   the document's own cases made into those texts.

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
#include <sys/uio.h>
#include <jansson.h>
#include "util.h"

#define BC_RUNDOC_MAX	(256u << 20)	/* the largest results file read */

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

/* The document in buf[0..len): 0, or -1 with e saying what is wrong (not
   JSON, a key given twice, a NUL byte, not an object, a schema other than
   benchcore/1, no cases array, a header member of the wrong type, named)
   and d empty. name is the caller's for its own messages: e does not hold
   it. */
int bc_rundoc_read(const char *buf, size_t len, const char *name, bc_rundoc *d, bc_err *e);
/* The same of the regular file at path (at most BC_RUNDOC_MAX bytes). */
int bc_rundoc_load(const char *path, bc_rundoc *d, bc_err *e);
/* The same over a tree already made (merge's): takes the reference to root
   (freed with d, or at once on failure). */
int bc_rundoc_take(json_t *root, const char *name, bc_rundoc *d, bc_err *e);

/* A new run's document, status "running" and interrupted until its last
   write: schema, benchcore_version, run_id, host_id, started_at, status,
   interrupted, label, host, config, schedule, cases (empty) and groups
   (empty), in that order (benchcore's); host, config and schedule taken. */
void bc_rundoc_new(bc_rundoc *d, const char *run_id, const char *host_id, const char *started_at,
		   const char *label, json_t *host, json_t *config, json_t *schedule);
/* Member key set to v (taken; NULL: removed), in its place when the
   document has it, else after the others; a typed field of that member
   follows it (the other fields are left as they are). */
void bc_rundoc_set(bc_rundoc *d, const char *key, json_t *v);

/* A case's JSON as the document holds it: its JSON_INDENT(1) text, each
   line moved two columns right (its depth in {"cases": [...]}); malloc'd. */
char *bc_rundoc_case_text(json_t *c);
/* The document's text as pieces to write in order (*n of them; free the
   array and *head): the header laid out as benchcore writes a results file
   (JSON_INDENT(1), members in their order, the typed fields as they are
   now), its cases array made of texts[0..ncases) (bc_rundoc_case_text) and
   not of the document's own cases: byte for byte the dump of one tree
   holding them all. */
struct iovec *bc_rundoc_pieces(const bc_rundoc *d, char *const *texts, size_t ncases, char **head, size_t *n);
/* The whole text (pieces of the document's own cases); malloc'd. */
char *bc_rundoc_write(const bc_rundoc *d, size_t *len);
void bc_rundoc_free(bc_rundoc *d);
#endif
