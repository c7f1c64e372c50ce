/* The archive's SQLite backend: one file, WAL (readers never wait for a
 * writer), a busy timeout (two runs storing at once take turns), BEGIN
 * IMMEDIATE for every write (one transaction per run: a run killed while
 * storing leaves nothing of itself), and no symlink followed. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "db.h"

#define BUSY_MS		60000	/* another writer's transaction: wait this long */
#define NCACHE		32

typedef struct sqlite_db {
	bc_db base;
	sqlite3 *h;
	struct { const char *sql; sqlite3_stmt *st; } cache[NCACHE];	/* by the SQL's address */
} sqlite_db;

static void db_error(sqlite_db *d, bc_err *e, const char *what)
{
	bc_err_set(e, "results archive %s: %s", d->base.shown, what ? what : sqlite3_errmsg(d->h));
	int rc = sqlite3_extended_errcode(d->h);
	if ((rc & 0xff) == SQLITE_FULL)
		bc_err_hint(e, "free space where it lies (the run's results file is written either way)");
	else if ((rc & 0xff) == SQLITE_READONLY)
		bc_err_hint(e, "make it writable, or store into another archive (--db FILE)");
	else if ((rc & 0xff) == SQLITE_BUSY)
		bc_err_hint(e, "another benchcore held it longer than %d s; try again", BUSY_MS / 1000);
}

static sqlite3_stmt *prepared(sqlite_db *d, const char *sql, bc_err *e)
{
	size_t i;
	for (i = 0; i < NCACHE && d->cache[i].sql; i++)
		if (d->cache[i].sql == sql) {
			sqlite3_reset(d->cache[i].st);
			sqlite3_clear_bindings(d->cache[i].st);
			return d->cache[i].st;
		}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v3(d->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		db_error(d, e, NULL);
		return NULL;
	}
	if (i < NCACHE)
		d->cache[i].sql = sql, d->cache[i].st = st;
	return st;
}

static int bind(sqlite3_stmt *st, const bc_dbval *p, size_t np)
{
	for (size_t i = 0; i < np; i++) {
		int c = (int)i + 1, rc;
		if (p[i].kind == BC_DB_INT)
			rc = sqlite3_bind_int64(st, c, p[i].i);
		else if (p[i].kind == BC_DB_REAL)
			rc = sqlite3_bind_double(st, c, p[i].d);
		else if (p[i].s)
			rc = sqlite3_bind_text(st, c, p[i].s, -1, SQLITE_TRANSIENT);
		else
			rc = sqlite3_bind_null(st, c);
		if (rc != SQLITE_OK)
			return -1;
	}
	return 0;
}

static int sq_query(bc_db *db, const char *sql, const bc_dbval *p, size_t np, bc_db_row_fn fn, void *arg,
		    bc_err *e)
{
	sqlite_db *d = (sqlite_db *)db;
	sqlite3_stmt *st = prepared(d, sql, e);
	int cached = 0, rc;
	if (!st)
		return -1;
	for (size_t i = 0; i < NCACHE; i++)
		cached |= d->cache[i].st == st;
	if (bind(st, p, np)) {
		db_error(d, e, NULL);
		rc = -1;
		goto out;
	}
	int ncol = sqlite3_column_count(st), s;
	char **col = bc_xcalloc((size_t)ncol + 1, sizeof(char *));
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < ncol; c++)
			col[c] = (char *)sqlite3_column_text(st, c);
		if (fn && fn(arg, col, ncol)) {
			s = SQLITE_DONE;
			break;
		}
	}
	free(col);
	rc = s == SQLITE_DONE ? 0 : -1;
	if (rc)
		db_error(d, e, NULL);
out:
	if (cached)
		sqlite3_reset(st);
	else
		sqlite3_finalize(st);
	return rc;
}

static int exec_plain(sqlite_db *d, const char *sql, bc_err *e)
{
	char *msg = NULL;
	if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		db_error(d, e, msg);
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int sq_begin(bc_db *db, bc_err *e)
{
	return exec_plain((sqlite_db *)db, "BEGIN IMMEDIATE", e);
}

static int sq_commit(bc_db *db, bc_err *e)
{
	sqlite_db *d = (sqlite_db *)db;
	if (exec_plain(d, "COMMIT", e)) {
		if (!sqlite3_get_autocommit(d->h))
			exec_plain(d, "ROLLBACK", &(bc_err){ .msg = "" });
		return -1;
	}
	return 0;
}

static void sq_rollback(bc_db *db)
{
	sqlite_db *d = (sqlite_db *)db;
	if (!sqlite3_get_autocommit(d->h))
		exec_plain(d, "ROLLBACK", &(bc_err){ .msg = "" });
}

static void sq_close(bc_db *db)
{
	sqlite_db *d = (sqlite_db *)db;
	for (size_t i = 0; i < NCACHE && d->cache[i].sql; i++)
		sqlite3_finalize(d->cache[i].st);
	sqlite3_close(d->h);
	free(d->base.shown);
	free(d);
}

static const bc_dbops sqlite_ops = {
	.name = "sqlite", .query = sq_query, .begin_write = sq_begin, .commit = sq_commit,
	.rollback = sq_rollback, .close = sq_close,
};

/* Where the archive may lie: not through a symlink, not a non-regular file,
   not in a directory anyone may write (another user could put a file, or
   its -wal, there first), and, to be written, not a file made read-only. */
static int path_ok(const char *path, int create, int readonly, bc_err *e)
{
	struct stat st;
	char *dup = bc_xstrdup(path), *dir = dirname(dup);
	int rc = -1;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			bc_err_set(e, "results archive %s is a symbolic link: refused", path);
		else if (!S_ISREG(st.st_mode))
			bc_err_set(e, "results archive %s is not a regular file", path);
		else if (!readonly && !(st.st_mode & S_IWUSR))
			bc_err_set(e, "results archive %s is read-only (mode %04o): not written", path,
				   (unsigned)(st.st_mode & 07777));
		else
			rc = 0;
	} else if (errno != ENOENT) {
		bc_err_set(e, "results archive %s: %s", path, strerror(errno));
	} else if (!create) {
		bc_err_set(e, "no results archive at %s", path);
		bc_err_hint(e, "store a run first (benchcore db add FILE.json, or --store on a run)");
	} else {
		rc = 0;
	}
	if (!rc && stat(dir, &st) == 0 && (st.st_mode & S_IWOTH)) {
		bc_err_set(e, "results archive %s: its directory %s is world-writable: refused", path, dir);
		bc_err_detail(e, "Another user could create the archive or its -wal and -shm files there first.");
		bc_err_hint(e, "keep the archive in a directory only you can write (the default is "
			       "$XDG_DATA_HOME/benchcore/results.db)");
		rc = -1;
	}
	free(dup);
	return rc;
}

static int setup(sqlite_db *d, bc_err *e)
{
	sqlite3_busy_timeout(d->h, BUSY_MS);
	sqlite3_extended_result_codes(d->h, 1);
	if (d->base.readonly)
		return exec_plain(d, "PRAGMA query_only = ON", e);
	if (sqlite3_db_readonly(d->h, "main") == 1) {
		bc_err_set(e, "results archive %s cannot be written (read-only file or file system)", d->base.shown);
		bc_err_hint(e, "make it writable, or store into another archive (--db FILE)");
		return -1;
	}
	/* WAL: stores and readers never block each other; FULL: a committed run
	   survives a power cut */
	return exec_plain(d, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", e);
}

bc_db *bc_db_sqlite_open(const char *path, int create, int readonly, bc_err *e)
{
	if (path_ok(path, create, readonly, e))
		return NULL;
	sqlite_db *d = bc_xcalloc(1, sizeof(*d));
	d->base.ops = &sqlite_ops;
	d->base.shown = bc_xstrdup(path);
	d->base.readonly = readonly;
	int flags = (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)) |
		    SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
	mode_t old = umask(077);	/* a new archive (and its -wal) is the user's alone */
	int rc = sqlite3_open_v2(path, &d->h, flags, NULL);
	umask(old);
	if (rc != SQLITE_OK || setup(d, e)) {
		if (rc != SQLITE_OK)
			db_error(d, e, d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc));
		sq_close(&d->base);
		return NULL;
	}
	return &d->base;
}
