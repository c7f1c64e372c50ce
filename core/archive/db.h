/* The archive's two backends (SQLite, PostgreSQL) behind one small table of
 * operations, so the schema, its migrations and every query are written once
 * (archive.c, archive_sql.c). SQL is written with "?" placeholders; the
 * PostgreSQL backend numbers them ($1, $2 ...). Every value is bound as a
 * parameter, never pasted into the text. Rows come back as text columns
 * (NULL stays NULL). One connection, one thread. */
#ifndef BC_ARCHIVE_DB_H
#define BC_ARCHIVE_DB_H
#include <stddef.h>
#include "util.h"

typedef struct bc_db bc_db;

/* A parameter: text (NULL: SQL NULL), an integer or double when the
   matching kind is set, or bytes (BC_DB_BLOB: s[0..n), a BYTEA column).
   A BYTEA column comes back as text in PostgreSQL's hex form ("\\x" and two
   hex digits a byte) from both backends. */
typedef struct bc_dbval {
	enum { BC_DB_TEXT, BC_DB_INT, BC_DB_REAL, BC_DB_BLOB } kind;
	const char *s;
	long long i;
	double d;
	size_t n;
} bc_dbval;

#define DBT(x)	((bc_dbval){ .kind = BC_DB_TEXT, .s = (x) })
#define DBI(x)	((bc_dbval){ .kind = BC_DB_INT, .i = (long long)(x) })
#define DBR(x)	((bc_dbval){ .kind = BC_DB_REAL, .d = (x) })
#define DBB(x, len)	((bc_dbval){ .kind = BC_DB_BLOB, .s = (const char *)(x), .n = (len) })

/* Called per row: col[0..ncol) (NULL for SQL NULL); nonzero stops. */
typedef int (*bc_db_row_fn)(void *arg, char **col, int ncol);

typedef struct bc_dbops {
	const char *name;	/* "sqlite", "postgresql" */
	/* One statement with parameters; rows to fn (may be NULL). 0, or -1
	   with e set (e->msg: the backend's reason). */
	int (*query)(bc_db *db, const char *sql, const bc_dbval *p, size_t np, bc_db_row_fn fn, void *arg,
		     bc_err *e);
	/* A write transaction, serialized against every other writer of the
	   archive (SQLite: BEGIN IMMEDIATE, waiting out the busy timeout;
	   PostgreSQL: BEGIN and a transaction-scoped advisory lock, tried
	   until bc_db_wait_ms, saying whom it waits for). */
	int (*begin_write)(bc_db *db, bc_err *e);
	int (*commit)(bc_db *db, bc_err *e);
	void (*rollback)(bc_db *db);
	void (*close)(bc_db *db);
} bc_dbops;

struct bc_db {
	const bc_dbops *ops;
	char *shown;		/* what messages call it: the path, or the URL without its password */
	int readonly;
	char writing[72];	/* the run_id a write transaction stores ("": none), for waiters */
};

/* How long a writer waits for another one holding the archive before it
   gives up (a store then fails, its results file kept): 60 s, or
   $BENCHCORE_DB_WAIT seconds (0.1 to 86400; tests use a short one). */
int bc_db_wait_ms(void);

/* Opens a SQLite file (WAL, busy timeout, the file itself no symlink, its
   directories trusted, an existing -wal/-shm the archive's own); create:
   make it (and its directory, 0700) when missing. NULL with e set. */
bc_db *bc_db_sqlite_open(const char *path, int create, int readonly, bc_err *e);
/* Connects to a PostgreSQL URL (postgresql:// or postgres://). */
bc_db *bc_db_pg_open(const char *url, bc_err *e);
/* mask.c: what libpq is given for a URL or key=value string: the scheme
   in lower case, the URL's user name and password with raw "/", "?", "#",
   "[", "]", "@" and spaces percent-encoded (libpq's parser would end the
   user information at the first "/"); malloc'd. */
char *bc_db_pg_conninfo(const char *conn);
/* s with those characters percent-encoded (malloc'd). */
char *bc_db_pg_encode(const char *s);
#endif
