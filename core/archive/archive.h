/* The results archive: runs kept in SQLite (default) or PostgreSQL.
   This header is the archive's interface to the rest of the core. */
#ifndef BC_ARCHIVE_H
#define BC_ARCHIVE_H
#include <stddef.h>
#include "util.h"
#include "points.h"

/* The points of every stored run matching q, in time order (started, then
   run_id), from the archive at db (a file path, "postgresql://..." or NULL
   for the default). 0, or -1 with the reason in e. */
int bc_archive_history_points(const char *db, const bc_history_query *q,
			      bc_hpoint **pts, size_t *n, bc_err *e);
#endif
