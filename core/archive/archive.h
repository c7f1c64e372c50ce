/* The results archive: runs kept in SQLite (default) or PostgreSQL.
   This header is the archive's interface to the rest of the core
   (docs/archive.md: schema, migrations, references). A stored run is its
   results document as written, byte for byte, plus the rows queries need:
   one per run (runs) and one per case and metric (points, from
   bc_points_from_results). One bc_archive is one connection, used by one
   thread; strings it returns are malloc'd and the caller's. */
#ifndef BC_ARCHIVE_H
#define BC_ARCHIVE_H
#include <stddef.h>
#include "util.h"
#include "points.h"

/* The schema this benchcore writes and reads; an archive of a higher
   version is refused, naming both. */
#define BC_ARCHIVE_SCHEMA	2

typedef struct bc_archive bc_archive;

/* db: a file path, a PostgreSQL URL ("postgresql://..." / "postgres://...",
   the scheme in any case) or key=value connection string ("host=...
   dbname=...": its first word a name and "="), or NULL or "" for
   $BENCHCORE_DB, else the default file ($XDG_DATA_HOME/benchcore/results.db,
   else ~/.local/share/benchcore/results.db). write: create the archive (and
   the default file's directory) when missing, and bring an older schema up
   to date. NULL with e set; bc_archive_transient then says whether the
   cause may pass (a full disk, an I/O error) rather than stay (a newer
   schema, a symlink, a read-only file, a wrong URL). */
bc_archive *bc_archive_open(const char *db, int write, bc_err *e);
extern int bc_archive_transient;
void bc_archive_close(bc_archive *a);
/* What messages call it: the path, or the URL without its password. */
const char *bc_archive_name(const bc_archive *a);
/* The archive bc_archive_open(db) would open, as messages name it (malloc'd). */
char *bc_archive_shown(const char *db);
/* Whether db names a PostgreSQL archive (a URL or a key=value string). */
int bc_archive_is_url(const char *db);
/* text with every password in it masked ("***"): every PostgreSQL URL's
   and every password= in it, and conn's own password (conn: the archive's
   name as given, or NULL) wherever it appears, as written, percent-decoded
   or encoded; malloc'd. Every message that may hold a connection string
   goes through it (mask.c). */
char *bc_archive_mask(const char *text, const char *conn);
/* The same over an error's three parts, in place. */
void bc_archive_mask_err(bc_err *e, const char *conn);
/* The files of the archive db names (the SQLite file, its -wal and -shm;
   none for PostgreSQL): what a command's output must never replace.
   NULL-terminated, malloc'd (bc_strv_free). */
char **bc_archive_files(const char *db);

/* Adds one results document (the text as read; name for messages), in one
   transaction. Idempotent by run_id: the same document again is
   BC_AR_SAME; the same run further along (resumed: same started_at and
   host_id, the stored one partial, at least as many cases) replaces it;
   any other document under a stored run_id is refused naming it. A
   document without run_id (older files) gets one from its content. */
enum { BC_AR_ADDED = 1, BC_AR_SAME, BC_AR_REPLACED };
int bc_archive_add(bc_archive *a, const char *doc, size_t len, const char *name, int *what,
		   char run_id[64], bc_err *e);

/* db list: runs matching every non-NULL filter, oldest first. since: an
   ISO 8601 date or time, compared with started_at. */
typedef struct bc_archive_filter {
	const char *host, *label, *since, *module;
} bc_archive_filter;
typedef struct bc_archive_run {
	char *run_id, *started, *host, *label, *config, *version, *status;
	long ncases, planned;
} bc_archive_run;
int bc_archive_list(bc_archive *a, const bc_archive_filter *f, bc_archive_run **runs, size_t *n, bc_err *e);
void bc_archive_runs_free(bc_archive_run *runs, size_t n);

/* The stored document of run_id, exactly as it was added. */
int bc_archive_export(bc_archive *a, const char *run_id, char **doc, size_t *len, bc_err *e);

/* A reference (what follows "db:"): RUN_ID (or a unique prefix of at least
   8 of its hex digits), latest, latest@HOST, or LABEL (the newest run with
   that label; *others gets how many older ones carry it too). The
   document and its run_id. */
int bc_archive_resolve(bc_archive *a, const char *ref, char **doc, size_t *len, char run_id[64],
		       size_t *others, bc_err *e);

/* The points of every stored run matching q, in time order (started, then
   run_id), from the archive at db (a file path, "postgresql://..." or NULL
   for the default). A point's hostobj and info are its own references, but
   runs with the same host object (or module info) share one: read them,
   do not change them. 0, or -1 with the reason in e. */
int bc_archive_history_points(const char *db, const bc_history_query *q,
			      bc_hpoint **pts, size_t *n, bc_err *e);
#endif
