/* What the archive's files share (archive.c, archive_store.c,
   archive_query.c): the connection and its backend. */
#ifndef BC_ARCHIVE_INT_H
#define BC_ARCHIVE_INT_H
#include "archive.h"
#include "db.h"

struct bc_archive {
	bc_db *db;
	int version;		/* the schema version found (0: an empty archive) */
};

/* Shorthands over the backend table. */
static inline int ar_q(bc_archive *a, const char *sql, const bc_dbval *p, size_t np, bc_db_row_fn fn,
		       void *arg, bc_err *e)
{
	return a->db->ops->query(a->db, sql, p, np, fn, arg, e);
}
/* A row callback that copies the first column (malloc'd) into *(char **)arg. */
int ar_first_text(void *arg, char **col, int ncol);
/* archive_store.c: run_parts and merged_into of every stored document that
   has merged_from (the migration to version 2), in the caller's write
   transaction. */
int ar_link_stored_parts(bc_archive *a, bc_err *e);
/* archive_query.c: a point from a row of (module, params_key, params_text,
   threads, metric, unit, higher_is_better, headline, mean, ci_low, ci_high,
   n, module_version); its run's fields are left NULL. */
void ar_hpoint_of_row(bc_hpoint *p, char **col);
/* archive.c: schema version 1's statements (NULL-terminated), as the last
   benchcore that wrote it (a6e399e) made an archive */
extern const char *const ar_schema_v1[];
/* archive_store.c: every run of a version 1 archive numbered (rid), its
   host_json and info_json moved to facts and its points to series and
   run_points (as a run stored now keeps them); the table points dropped.
   In the caller's write transaction. */
int ar_move_v1_rows(bc_archive *a, bc_err *e);
/* docz.c: a document deflated for documents.zdoc (malloc'd), or -1 with e. */
int ar_doc_pack(const char *doc, size_t len, unsigned char **z, size_t *zlen, bc_err *e);
/* A stored document's text from its row (document, zdoc as the backend
   returns it: NULL for a row stored uncompressed), exactly as added;
   malloc'd, or NULL with e naming run_id when zdoc is damaged. */
char *ar_doc_text(const char *text, const char *zhex, const char *run_id, size_t *len, bc_err *e);
#endif
