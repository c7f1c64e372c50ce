/* The archive's PostgreSQL backend (libpq), for a team's or a fleet's
 * archive: the same schema and queries as SQLite's (db.h). Writers are
 * serialized by a transaction-scoped advisory lock, so the check-then-insert
 * of a store is as race-free as SQLite's BEGIN IMMEDIATE. The password of a
 * URL is never printed: messages name the URL redacted. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db.h"

#define LOCK_KEY	"7206447415135430477"	/* "benchcore archive" as one advisory lock */

typedef struct pg_db {
	bc_db base;
	PGconn *c;
} pg_db;

char *bc_db_redact_url(const char *url)
{
	char *out = bc_xstrdup(url);
	char *scheme = strstr(out, "://");
	if (scheme) {
		char *auth = scheme + 3, *end = auth + strcspn(auth, "/?#"), *at = NULL;
		for (char *p = auth; p < end; p++)
			if (*p == '@')
				at = p;
		char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
		if (colon) {
			char *r = bc_xasprintf("%.*s:***%s", (int)(colon - out), out, at);
			free(out);
			out = r;
		}
	}
	for (char *p = out; (p = strstr(p, "password=")) != NULL; ) {	/* ?password=... */
		if (p > out && p[-1] != '?' && p[-1] != '&' && p[-1] != ' ') {
			p++;
			continue;
		}
		char *v = p + 9, *end = v + strcspn(v, "&# ");
		char *r = bc_xasprintf("%.*s***%s", (int)(v - out), out, end);
		p = r + (v - out) + 3;
		free(out);
		out = r;
	}
	return out;
}

static void pg_error(pg_db *d, bc_err *e, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", what ? what : PQerrorMessage(d->c));
	msg[strcspn(msg, "\n")] = '\0';
	bc_err_set(e, "results archive %s: %s", d->base.shown, msg);
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
	for (size_t i = 0; i < np; i++) {
		if (p[i].kind == BC_DB_INT)
			snprintf(num[i], sizeof(num[i]), "%lld", p[i].i), vals[i] = num[i];
		else if (p[i].kind == BC_DB_REAL)
			snprintf(num[i], sizeof(num[i]), "%.17g", p[i].d), vals[i] = num[i];
		else
			vals[i] = p[i].s;
	}
	PGresult *res = PQexecParams(d->c, text, (int)np, NULL, vals, NULL, NULL, 0);
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
	free(num);
	free(text);
	return rc;
}

static int pq_begin(bc_db *db, bc_err *e)
{
	if (pq_query(db, "BEGIN", NULL, 0, NULL, NULL, e))
		return -1;
	if (pq_query(db, "SELECT pg_advisory_xact_lock(" LOCK_KEY ")", NULL, 0, NULL, NULL, e)) {
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
	d->base.shown = bc_db_redact_url(url);
	const char *keys[] = { "dbname", "connect_timeout", "application_name", NULL };
	const char *vals[] = { url, "10", "benchcore", NULL };
	d->c = PQconnectdbParams(keys, vals, 1);
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
