/* Placeholder until the archive's backends land: no archive in this build. */
#include "archive.h"

int bc_archive_history_points(const char *db, const bc_history_query *q,
			      bc_hpoint **pts, size_t *n, bc_err *e)
{
	(void)db;
	(void)q;
	*pts = NULL;
	*n = 0;
	bc_err_set(e, "no results archive in this build");
	return -1;
}
