/* The archive's SQLite backend: one file, WAL (readers never wait for a
 * writer), a busy timeout (two runs storing at once take turns), BEGIN
 * IMMEDIATE for every write (one transaction per run: a run killed while
 * storing leaves nothing of itself), and no symlink as the file itself. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "db.h"
#include "trust.h"

#define NCACHE		64	/* a store alone uses about 30 (facts, series, points in batches) */

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
		bc_err_hint(e, "another benchcore held it longer than %g s; try again", bc_db_wait_ms() / 1000.0);
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
		else if (p[i].kind == BC_DB_BLOB)
			rc = sqlite3_bind_blob64(st, c, p[i].s, p[i].n, SQLITE_TRANSIENT);
		else if (p[i].s)
			rc = sqlite3_bind_text(st, c, p[i].s, -1, SQLITE_TRANSIENT);
		else
			rc = sqlite3_bind_null(st, c);
		if (rc != SQLITE_OK)
			return -1;
	}
	return 0;
}

/* A BLOB column as PostgreSQL prints a BYTEA ("\\x" then hex), so both
   backends hand rows the same text; *buf keeps it until the next row. */
static char *blob_hex(sqlite3_stmt *st, int c, char **buf)
{
	const unsigned char *b = sqlite3_column_blob(st, c);
	size_t n = (size_t)sqlite3_column_bytes(st, c);
	static const char digits[] = "0123456789abcdef";
	free(*buf);
	char *h = *buf = bc_xmalloc(2 * n + 3);
	h[0] = '\\', h[1] = 'x';
	for (size_t i = 0; i < n; i++)
		h[2 + 2 * i] = digits[b[i] >> 4], h[3 + 2 * i] = digits[b[i] & 15];
	h[2 + 2 * n] = '\0';
	return h;
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
	char **hex = bc_xcalloc((size_t)ncol + 1, sizeof(char *));
	char (*num)[32] = bc_xcalloc((size_t)ncol + 1, sizeof(*num));
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < ncol; c++) {
			int type = sqlite3_column_type(st, c);
			/* a double to the last bit, as PostgreSQL gives it (SQLite's
			   own text has 15 digits: a figure read back would differ) */
			if (type == SQLITE_FLOAT)
				snprintf(num[c], sizeof(num[c]), "%.17g", sqlite3_column_double(st, c)), col[c] = num[c];
			else
				col[c] = type == SQLITE_BLOB ? blob_hex(st, c, &hex[c]) : (char *)sqlite3_column_text(st, c);
		}
		if (fn && fn(arg, col, ncol)) {
			s = SQLITE_DONE;
			break;
		}
	}
	for (int c = 0; c < ncol; c++)
		free(hex[c]);
	free(hex);
	free(num);
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

/* An existing -wal or -shm beside the archive: SQLite reads a -wal's frames
   as the archive's own pages, so one planted there forges runs. It must be
   a regular file of the archive's owner (of ours when there is no archive
   yet) that nobody else may write. */
static int side_file_ok(const char *path, const char *suffix, const struct stat *db, bc_err *e)
{
	char *side = bc_xasprintf("%s%s", path, suffix);
	struct stat st;
	uid_t owner = db ? db->st_uid : geteuid();
	int rc = 0;
	if (lstat(side, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != owner ||
				      (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		bc_err_set(e, "results archive %s: its %s file %s is not the archive's own: refused", path, suffix + 1,
			   side);
		bc_err_detail(e, "It is %s owned by uid %u (mode %04o); the archive%s is owner uid %u's. SQLite would "
			      "read it as part of the archive.", S_ISREG(st.st_mode) ? "a file" : S_ISLNK(st.st_mode) ?
			      "a symbolic link" : "not a regular file", (unsigned)st.st_uid,
			      (unsigned)(st.st_mode & 07777), db ? "" : " (not made yet)", (unsigned)owner);
		bc_err_hint(e, "remove %s if nobody should have written it (the archive's committed runs are in "
			    "the archive itself once a writer has checkpointed)", side);
		rc = -1;
	}
	free(side);
	return rc;
}

/* Where the archive may lie: not a symlink itself (its parent directories
   may be links: the trust walk judges who owns them), not a non-regular
   file, not in a directory anybody else may write, sticky or not, nor
   under one they may rename (another user could put a file, or its -wal,
   there first), and, to be written, not a file made read-only. A reader
   may read another user's archive: then only write bits are judged. */
static int path_ok(const char *path, int create, int readonly, bc_err *e)
{
	struct stat st;
	char *dup = bc_xstrdup(path), *dir = dirname(dup);
	int rc = -1, have = 0;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			bc_err_set(e, "results archive %s is a symbolic link: refused", path);
		else if (!S_ISREG(st.st_mode))
			bc_err_set(e, "results archive %s is not a regular file", path);
		else if (!readonly && !(st.st_mode & S_IWUSR))
			bc_err_set(e, "results archive %s is read-only (mode %04o): not written", path,
				   (unsigned)(st.st_mode & 07777));
		else
			rc = 0, have = 1;
	} else if (errno != ENOENT) {
		bc_err_set(e, "results archive %s: %s", path, strerror(errno));
	} else if (!create) {
		bc_err_set(e, "no results archive at %s", path);
		bc_err_hint(e, "store a run first (benchcore db add FILE.json, or --store on a run)");
	} else {
		rc = 0;
	}
	bc_err sub;
	if (!rc && bc_trust_walk(dir, dir, BC_TRUST_USE | (readonly ? BC_TRUST_ANY_OWNER : 0), "directory", &sub)) {
		bc_err_set(e, "results archive %s: %s", path, sub.msg);
		bc_err_detail(e, "Another user could create the archive or its -wal and -shm files there first, or "
			      "replace them.");
		bc_err_hint(e, "keep the archive in a directory only you can write (the default is "
			       "$XDG_DATA_HOME/benchcore/results.db)%s%s", sub.hint[0] ? "; " : "", sub.hint);
		rc = -1;
	}
	if (!rc && (side_file_ok(path, "-wal", have ? &st : NULL, e) ||
		    side_file_ok(path, "-shm", have ? &st : NULL, e)))
		rc = -1;
	free(dup);
	return rc;
}

static int setup(sqlite_db *d, bc_err *e)
{
	sqlite3_busy_timeout(d->h, bc_db_wait_ms());
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

/* The file SQLite opened is the one judged: held open without following a
   link (O_NOFOLLOW: a symlink in the last component is refused, links in
   the directories above are the trust walk's), then compared with what
   the path names once SQLite has it. */
static int same_file(const char *path, int held, bc_err *e)
{
	struct stat a, b;
	if (lstat(path, &b) == 0 && S_ISREG(b.st_mode) &&
	    (held < 0 || (fstat(held, &a) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)))
		return 0;
	bc_err_set(e, "results archive %s was replaced while it was being opened: refused", path);
	return -1;
}

bc_db *bc_db_sqlite_open(const char *path, int create, int readonly, bc_err *e)
{
	if (path_ok(path, create, readonly, e))
		return NULL;
	int held = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (held < 0 && errno != ENOENT) {
		bc_err_set(e, "results archive %s: %s", path, errno == ELOOP ? "a symbolic link: refused" :
			   strerror(errno));
		return NULL;
	}
	sqlite_db *d = bc_xcalloc(1, sizeof(*d));
	d->base.ops = &sqlite_ops;
	d->base.shown = bc_xstrdup(path);
	d->base.readonly = readonly;
	int flags = (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)) |
		    SQLITE_OPEN_NOMUTEX;
	mode_t old = umask(077);	/* a new archive (and its -wal) is the user's alone */
	int rc = sqlite3_open_v2(path, &d->h, flags, NULL);
	umask(old);
	/* open_v2 neither reads nor locks the file; closing ours after that
	   and before setup's first read drops no lock of SQLite's (POSIX locks
	   go with any descriptor of the file a process closes) */
	int moved = rc == SQLITE_OK && same_file(path, held, e);
	if (held >= 0)
		close(held);
	if (rc != SQLITE_OK || moved || setup(d, e)) {
		if (rc != SQLITE_OK)
			db_error(d, e, d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc));
		sq_close(&d->base);
		return NULL;
	}
	return &d->base;
}
