/* The archive's PostgreSQL backend (libpq), for a team's or a fleet's
 * archive: the same schema and queries as SQLite's (db.h). Writers are
 * serialized by a transaction-scoped advisory lock, so the check-then-insert
 * of a store is as race-free as SQLite's BEGIN IMMEDIATE. The password of a
 * URL is never printed: messages name the URL masked, and libpq's own
 * messages are masked too (mask.c). */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "archive.h"
#include "db.h"

#define LOCK_KEY	"7206447415135430477"	/* "benchcore archive" as one advisory lock */

typedef struct pg_db {
	bc_db base;
	PGconn *c;
	char *conn;		/* the name as given: what messages are masked of */
} pg_db;

static void pg_error(pg_db *d, bc_err *e, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", what ? what : PQerrorMessage(d->c));
	msg[strcspn(msg, "\n")] = '\0';
	char *m = bc_archive_mask(msg, d->conn);	/* libpq's messages repeat the URL, or a token of it */
	bc_err_set(e, "results archive %s: %s", d->base.shown, m);
	free(m);
	if (strstr(msg, "No space left") || strstr(msg, "could not extend"))
		bc_err_hint(e, "free space on the database server (the run's results file is written either way)");
}

/* "?" -> "$n" outside quotes */
static char *numbered(const char *sql)
{
	size_t n = strlen(sql), k = 0, num = 0;
	char *out = bc_xmalloc(n * 4 + 1);
	int quote = 0;
	for (const char *p = sql; *p; p++) {
		if (*p == '\'')
			quote = !quote;
		if (*p == '?' && !quote)
			k += (size_t)sprintf(out + k, "$%zu", ++num);
		else
			out[k++] = *p;
	}
	out[k] = '\0';
	return out;
}

static int pq_query(bc_db *db, const char *sql, const bc_dbval *p, size_t np, bc_db_row_fn fn, void *arg,
		    bc_err *e)
{
	pg_db *d = (pg_db *)db;
	char *text = numbered(sql);
	const char **vals = bc_xcalloc(np + 1, sizeof(char *));
	char (*num)[40] = bc_xcalloc(np + 1, sizeof(*num));
	int *lens = bc_xcalloc(np + 1, sizeof(int)), *fmts = bc_xcalloc(np + 1, sizeof(int));
	for (size_t i = 0; i < np; i++) {
		if (p[i].kind == BC_DB_BLOB)	/* bytes as they are: a binary parameter */
			vals[i] = p[i].s, lens[i] = (int)p[i].n, fmts[i] = 1;
		else if (p[i].kind == BC_DB_INT)
			snprintf(num[i], sizeof(num[i]), "%lld", p[i].i), vals[i] = num[i];
		else if (p[i].kind == BC_DB_REAL)
			snprintf(num[i], sizeof(num[i]), "%.17g", p[i].d), vals[i] = num[i];
		else
			vals[i] = p[i].s;
	}
	PGresult *res = PQexecParams(d->c, text, (int)np, NULL, vals, lens, fmts, 0);
	int st = PQresultStatus(res), rc = 0;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		pg_error(d, e, PQresultErrorMessage(res));
		rc = -1;
	} else if (fn && st == PGRES_TUPLES_OK) {
		int nr = PQntuples(res), nc = PQnfields(res);
		char **col = bc_xcalloc((size_t)nc + 1, sizeof(char *));
		for (int r = 0; r < nr; r++) {
			for (int c = 0; c < nc; c++)
				col[c] = PQgetisnull(res, r, c) ? NULL : PQgetvalue(res, r, c);
			if (fn(arg, col, nc))
				break;
		}
		free(col);
	}
	PQclear(res);
	free(vals);
	free(lens);
	free(fmts);
	free(num);
	free(text);
	return rc;
}

/* Whoever holds the writers' lock: its backend's pid, what it calls itself
   (a storing benchcore names its run) and for how long it has held it. */
static const char *const HOLDER_SQL =
	"SELECT a.pid::text || coalesce(' (' || nullif(a.application_name, '') || ')', '') || "
	"coalesce(', in its transaction for ' || extract(epoch FROM now() - a.xact_start)::bigint || ' s', '') "
	"FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
	"AND l.classid::bigint = (" LOCK_KEY "::bigint >> 32) AND l.objid::bigint = (" LOCK_KEY "::bigint & 4294967295) "
	"AND l.objsubid = 1 AND l.pid <> pg_backend_pid()";

static int first_col(void *arg, char **col, int ncol)
{
	char **out = arg;
	free(*out);
	*out = ncol > 0 && col[0] ? bc_xstrdup(col[0]) : NULL;
	return 1;
}

static int got_lock(void *arg, char **col, int ncol)
{
	*(int *)arg = ncol > 0 && col[0] && col[0][0] == 't';
	return 1;
}

/* Tries the lock until the wait is over, saying once whom it waits for. */
static int pq_lock(pg_db *d, bc_err *e)
{
	long long waited = 0, limit = bc_db_wait_ms();
	char *holder = NULL;
	for (;;) {
		int got = 0;
		if (pq_query(&d->base, "SELECT pg_try_advisory_xact_lock(" LOCK_KEY ")", NULL, 0, got_lock, &got, e))
			break;
		if (got) {
			free(holder);
			return 0;
		}
		if (!waited) {
			pq_query(&d->base, HOLDER_SQL, NULL, 0, first_col, &holder, &(bc_err){ .msg = "" });
			fprintf(bc_stderr(), "benchcore: waiting for another writer of results archive %s (backend %s) "
				"to finish, at most %g s\n", d->base.shown, holder ? holder : "unknown", limit / 1000.0);
		}
		if (waited >= limit) {
			bc_err_set(e, "results archive %s is locked: another writer held it longer than %g s: gave up",
				   d->base.shown, limit / 1000.0);
			bc_err_detail(e, "Backend %s holds the writers' lock.", holder ? holder : "(unknown)");
			bc_err_hint(e, "if that writer is stalled (stopped, hung), end it (SELECT pg_terminate_backend(PID) "
				    "as its owner or a superuser); then try again");
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000000L }, NULL);
		waited += 100;
	}
	free(holder);
	return -1;
}

static int pq_begin(bc_db *db, bc_err *e)
{
	pg_db *d = (pg_db *)db;
	bc_dbval who = DBT(db->writing[0] ? db->writing : NULL);
	if (pq_query(db, "BEGIN", NULL, 0, NULL, NULL, e))
		return -1;
	/* a waiter sees which run this writer stores (until the transaction ends) */
	if ((db->writing[0] && pq_query(db, "SELECT set_config('application_name', 'benchcore storing run ' || ?, true)",
				       &who, 1, NULL, NULL, e)) || pq_lock(d, e)) {
		pq_query(db, "ROLLBACK", NULL, 0, NULL, NULL, &(bc_err){ .msg = "" });
		return -1;
	}
	return 0;
}

static int pq_commit(bc_db *db, bc_err *e)
{
	if (pq_query(db, "COMMIT", NULL, 0, NULL, NULL, e)) {
		pq_query(db, "ROLLBACK", NULL, 0, NULL, NULL, &(bc_err){ .msg = "" });
		return -1;
	}
	return 0;
}

static void pq_rollback(bc_db *db)
{
	pq_query(db, "ROLLBACK", NULL, 0, NULL, NULL, &(bc_err){ .msg = "" });
}

static void pq_close(bc_db *db)
{
	pg_db *d = (pg_db *)db;
	PQfinish(d->c);
	free(d->conn);
	free(d->base.shown);
	free(d);
}

static const bc_dbops pg_ops = {
	.name = "postgresql", .query = pq_query, .begin_write = pq_begin, .commit = pq_commit,
	.rollback = pq_rollback, .close = pq_close,
};

static void quiet_notices(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;	/* CREATE ... IF NOT EXISTS says "already exists, skipping" */
}

bc_db *bc_db_pg_open(const char *url, bc_err *e)
{
	pg_db *d = bc_xcalloc(1, sizeof(*d));
	d->base.ops = &pg_ops;
	d->base.shown = bc_archive_mask(url, url);
	d->conn = bc_xstrdup(url);
	char *given = bc_db_pg_conninfo(url);
	const char *keys[] = { "dbname", "connect_timeout", "application_name", NULL };
	const char *vals[] = { given, "10", "benchcore", NULL };
	d->c = PQconnectdbParams(keys, vals, 1);
	free(given);
	if (!d->c || PQstatus(d->c) != CONNECTION_OK) {
		if (d->c)
			pg_error(d, e, NULL);
		else
			bc_err_set(e, "results archive %s: out of memory", d->base.shown);
		bc_err_hint(e, "check the URL, that the server runs and that this user may connect");
		pq_close(&d->base);
		return NULL;
	}
	PQsetNoticeProcessor(d->c, quiet_notices, NULL);
	if (pq_query(&d->base, "SET client_min_messages = warning", NULL, 0, NULL, NULL, e)) {
		pq_close(&d->base);
		return NULL;
	}
	return &d->base;
}
