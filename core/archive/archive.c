/* The archive's connection and schema: which backend a name means, where
 * the default file lies, and the versioned schema with its migrations.
 * Migrations run in order, each in the same serialized write transaction
 * as the version row it moves, so two benchcores opening a new archive at
 * once create it once, and a killed migration leaves the old version. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "archive_int.h"

int bc_archive_transient;

int bc_db_wait_ms(void)
{
	const char *v = getenv("BENCHCORE_DB_WAIT");
	char *end;
	if (!v || !*v)
		return 60000;
	double s = strtod(v, &end);
	if (*end || !(s >= 0.1 && s <= 86400)) {
		bc_warn("BENCHCORE_DB_WAIT=\"%.40s\" is not a number of seconds from 0.1 to 86400: waiting 60 s", v);
		return 60000;
	}
	return (int)(s * 1000);
}

int ar_first_text(void *arg, char **col, int ncol)
{
	char **out = arg;
	free(*out);
	*out = ncol > 0 && col[0] ? bc_xstrdup(col[0]) : NULL;
	return 1;
}

/* The default file: $XDG_DATA_HOME/benchcore/results.db, else
   ~/.local/share/benchcore/results.db (NULL without a home). */
static char *default_path(void)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	if (x && x[0] == '/')
		return bc_xasprintf("%s/benchcore/results.db", x);
	if (home && home[0] == '/')
		return bc_xasprintf("%s/.local/share/benchcore/results.db", home);
	return NULL;
}

static const char *chosen(const char *db)
{
	if (db && *db)
		return db;
	const char *env = getenv("BENCHCORE_DB");
	return env && *env ? env : NULL;
}

char *bc_archive_shown(const char *db)
{
	const char *c = chosen(db);
	if (c)
		return bc_archive_mask(c, c);
	char *d = default_path();
	return d ? d : bc_xstrdup("(no default archive: HOME is not set)");
}

char **bc_archive_files(const char *db)
{
	const char *c = chosen(db);
	char **v = bc_xcalloc(4, sizeof(char *));
	if (bc_archive_is_url(c))
		return v;
	char *path = c ? bc_xstrdup(c) : default_path();
	if (path) {
		v[0] = path;
		v[1] = bc_xasprintf("%s-wal", path);
		v[2] = bc_xasprintf("%s-shm", path);
	}
	return v;
}

/* mkdir -p of the default file's directory, 0700 for what it makes. */
static void make_dirs(const char *file)
{
	char *p = bc_xstrdup(file);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			break;
		*s = '/';
	}
	free(p);
}

/* Schema version 1: the runs, their documents, the modules each ran, and one point per case
   and metric (history's rows, indexed by what it asks: module, metric,
   host, time). Types both backends read alike. */
const char *const ar_schema_v1[] = {
	"CREATE TABLE runs (run_id TEXT PRIMARY KEY, started TEXT NOT NULL, host TEXT NOT NULL, "
	"host_id TEXT NOT NULL, label TEXT NOT NULL, benchcore_version TEXT NOT NULL, config_name TEXT NOT NULL, "
	"status TEXT NOT NULL, ncases BIGINT NOT NULL, planned BIGINT NOT NULL, doc_sha256 TEXT NOT NULL, "
	"host_json TEXT NOT NULL, info_json TEXT NOT NULL, stored_at TEXT NOT NULL)",
	/* the documents apart: a run's row stays small, so reading runs (db list,
	   history's host facts) never walks a 200 KB document's pages */
	"CREATE TABLE documents (run_id TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE, "
	"document TEXT NOT NULL)",
	"CREATE INDEX runs_host_started ON runs (host, started)",
	"CREATE INDEX runs_label_started ON runs (label, started)",
	"CREATE INDEX runs_started ON runs (started)",
	"CREATE TABLE run_modules (run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE, "
	"module TEXT NOT NULL, PRIMARY KEY (run_id, module))",
	"CREATE INDEX run_modules_module ON run_modules (module)",
	"CREATE TABLE points (run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE, "
	"seq BIGINT NOT NULL, started TEXT NOT NULL, host TEXT NOT NULL, module TEXT NOT NULL, "
	"params_key TEXT NOT NULL, params_text TEXT NOT NULL, threads BIGINT NOT NULL, metric TEXT NOT NULL, "
	"unit TEXT NOT NULL, higher_is_better INTEGER NOT NULL, headline INTEGER NOT NULL, "
	"mean DOUBLE PRECISION, ci_low DOUBLE PRECISION, ci_high DOUBLE PRECISION, n BIGINT NOT NULL, "
	"module_version TEXT, PRIMARY KEY (run_id, seq))",
	"CREATE INDEX points_history ON points (module, metric, host, started)",
	"CREATE INDEX points_headline ON points (module, headline, host, started)",
	NULL
};

/* Schema version 2 (one step: both came in the same release): tags on runs
   (db tag RUN_ID baseline; db:baseline@HOST), one run per tag and host, gone
   with the run; compressed documents (zdoc); and a merged run replaces its
   parts. run_parts holds each stored merged run's merged_from run_ids
   (whether the parts are stored or not, so a part stored later is known as
   one), and a part's runs row names the run it was merged into: list,
   latest, LABEL and history leave such runs out; the part's own document
   stays, exported by its run_id. */
static const char *const schema_v2[] = {
	"CREATE TABLE run_tags (tag TEXT NOT NULL, host TEXT NOT NULL, "
	"run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE, tagged_at TEXT NOT NULL, "
	"PRIMARY KEY (tag, host))",
	"CREATE INDEX run_tags_run ON run_tags (run_id)",
	"ALTER TABLE runs ADD COLUMN merged_into TEXT",
	"CREATE TABLE run_parts (run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE, "
	"part_id TEXT NOT NULL, PRIMARY KEY (run_id, part_id))",
	"CREATE INDEX run_parts_part ON run_parts (part_id)",
	/* documents stored from version 2 on are deflated (docz.c): zdoc holds
	   them and document is empty; rows of before keep their text */
	"ALTER TABLE documents ADD COLUMN zdoc BYTEA",
	/* what a run repeats of the runs before it is stored once (issues 51
	   and 53). rid: a run's number (1, 2 ... in storing order), so that a
	   row of its facts or points holds 4 bytes, not the run_id's 32. */
	"ALTER TABLE runs ADD COLUMN rid INTEGER",
	"CREATE UNIQUE INDEX runs_rid ON runs (rid)",
	/* The host object's and the module info's top-level members, each
	   distinct one once: kind 'host' or 'info', its key, its value as
	   compact JSON (keys sorted). digest: SHA-256 of kind, key and value,
	   the key looked up by (a B-tree entry of PostgreSQL holds at most
	   2704 bytes, less than a long member's value). runs.host_json and
	   info_json are '' from version 2 on: not here, in facts ('{}' would
	   say the run had no host facts). */
	"CREATE TABLE facts (fact_id INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL, "
	"value TEXT NOT NULL, digest TEXT NOT NULL UNIQUE)",
	"CREATE TABLE run_facts (rid INTEGER NOT NULL REFERENCES runs (rid) ON DELETE CASCADE, "
	"fact_id INTEGER NOT NULL, PRIMARY KEY (rid, fact_id))",
	"CREATE INDEX run_facts_fact ON run_facts (fact_id)",	/* a fact no run holds is removed */
	/* What a point measures, once: a group's module, params and threads,
	   and a metric (history's query asks it by module and metric, or each
	   group's headline); a run's points are its figures in that series.
	   Version 1's points repeated all of it, the run's start and host too,
	   in every row and two indexes: most of a run's bytes. */
	"CREATE TABLE series (series_id INTEGER PRIMARY KEY, module TEXT NOT NULL, params_key TEXT NOT NULL, "
	"params_text TEXT NOT NULL, threads BIGINT NOT NULL, metric TEXT NOT NULL, unit TEXT NOT NULL, "
	"higher_is_better INTEGER NOT NULL, headline INTEGER NOT NULL, module_version TEXT)",
	"CREATE INDEX series_module ON series (module, metric)",
	"CREATE TABLE run_points (rid INTEGER NOT NULL REFERENCES runs (rid) ON DELETE CASCADE, "
	"seq INTEGER NOT NULL, series_id INTEGER NOT NULL, mean DOUBLE PRECISION, ci_low DOUBLE PRECISION, "
	"ci_high DOUBLE PRECISION, n BIGINT NOT NULL, PRIMARY KEY (rid, seq))",
	/* with rid: the runs holding a series are read from the index alone */
	"CREATE INDEX run_points_series ON run_points (series_id, rid)",
	NULL
};

/* migrations[v] takes an archive from version v to v + 1 */
static const char *const *const migrations[BC_ARCHIVE_SCHEMA] = { ar_schema_v1, schema_v2 };

static const char *const META_SQL = "CREATE TABLE IF NOT EXISTS bc_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)";
static const char *const VERSION_SQL = "SELECT value FROM bc_meta WHERE key = 'schema_version'";
static const char *const WRITER_SQL = "SELECT value FROM bc_meta WHERE key = 'written_by'";
static const char *const SET_META_SQL = "DELETE FROM bc_meta WHERE key = ?";
static const char *const PUT_META_SQL = "INSERT INTO bc_meta (key, value) VALUES (?, ?)";

static int put_meta(bc_archive *a, const char *k, const char *v, bc_err *e)
{
	bc_dbval p[2] = { DBT(k), DBT(v) };
	return ar_q(a, SET_META_SQL, p, 1, NULL, NULL, e) || ar_q(a, PUT_META_SQL, p, 2, NULL, NULL, e) ? -1 : 0;
}

/* The version row; 0 when there is none (a new archive). */
static int read_version(bc_archive *a, int *v, bc_err *e)
{
	char *text = NULL, *end;
	if (ar_q(a, VERSION_SQL, NULL, 0, ar_first_text, &text, e))
		return -1;
	*v = 0;
	if (text) {
		long l = strtol(text, &end, 10);
		if (end == text || *end || l < 1 || l > 1000000) {
			bc_err_set(e, "results archive %s: its schema_version row reads \"%.40s\"", a->db->shown, text);
			free(text);
			return -1;
		}
		*v = (int)l;
	}
	free(text);
	return 0;
}

static int refuse_newer(bc_archive *a, int v, bc_err *e)
{
	char *by = NULL;
	ar_q(a, WRITER_SQL, NULL, 0, ar_first_text, &by, &(bc_err){ .msg = "" });
	char *shown = bc_printable(by ? by : "a newer benchcore");
	bc_err_set(e, "results archive %s has schema version %d; this benchcore (%s) knows up to version %d",
		   a->db->shown, v, BC_VERSION, BC_ARCHIVE_SCHEMA);
	bc_err_detail(e, "It was last brought up to date by %s. Nothing was read from it or written to it.",
		      shown);
	bc_err_hint(e, "use that benchcore (or newer) with this archive, or another archive (--db FILE)");
	free(shown);
	free(by);
	return -1;
}

/* In one write transaction: the meta table, then every migration from the
   version found (read again under the lock) up to BC_ARCHIVE_SCHEMA. */
static int migrate(bc_archive *a, bc_err *e)
{
	int v;
	if (a->db->ops->begin_write(a->db, e))
		return -1;
	if (ar_q(a, META_SQL, NULL, 0, NULL, NULL, e) || read_version(a, &v, e))
		goto fail;
	if (v > BC_ARCHIVE_SCHEMA) {
		refuse_newer(a, v, e);
		goto fail;
	}
	for (int from = v; from < BC_ARCHIVE_SCHEMA; from++) {
		for (const char *const *s = migrations[from]; *s; s++)
			if (ar_q(a, *s, NULL, 0, NULL, NULL, e))
				goto fail;
		/* the merged runs stored before version 2 replace their parts too;
		   the rows of version 1 move to facts, series and run_points */
		if (from == 1 && (ar_link_stored_parts(a, e) || ar_move_v1_rows(a, e)))
			goto fail;
	}
	if (v < BC_ARCHIVE_SCHEMA) {
		char num[16];
		snprintf(num, sizeof(num), "%d", BC_ARCHIVE_SCHEMA);
		if (put_meta(a, "schema_version", num, e) || put_meta(a, "written_by", "benchcore " BC_VERSION, e))
			goto fail;
	}
	if (a->db->ops->commit(a->db, e))
		return -1;
	a->version = BC_ARCHIVE_SCHEMA;
	return 0;
fail:
	a->db->ops->rollback(a->db);
	return -1;
}

static int has_meta(void *arg, char **col, int ncol)
{
	*(int *)arg = ncol > 0 && col[0] && atoi(col[0]) > 0;
	return 1;
}

/* Reading: the version found, refused when newer; an archive without one
   (a new PostgreSQL database) reads as empty. */
static int check_read(bc_archive *a, bc_err *e)
{
	int have = 0;
	const char *sql = !strcmp(a->db->ops->name, "sqlite") ?
		"SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bc_meta'" :
		"SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = 'bc_meta' AND schemaname = current_schema()";
	if (ar_q(a, sql, NULL, 0, has_meta, &have, e))
		return -1;
	a->version = 0;
	if (have && read_version(a, &a->version, e))
		return -1;
	if (a->version > BC_ARCHIVE_SCHEMA)
		return refuse_newer(a, a->version, e);
	return 0;
}

bc_archive *bc_archive_open(const char *db, int write, bc_err *e)
{
	const char *c = chosen(db);
	char *def = c ? NULL : default_path();
	bc_archive_transient = 0;
	if (!c && !def) {
		bc_err_set(e, "no results archive given and no default one (HOME is not set)");
		bc_err_hint(e, "give --db FILE (or postgresql://...), or set BENCHCORE_DB");
		return NULL;
	}
	if (def && write)
		make_dirs(def);
	bc_db *h = bc_archive_is_url(c) ? bc_db_pg_open(c, e) : bc_db_sqlite_open(c ? c : def, write, !write, e);
	free(def);
	bc_archive *a = NULL;
	if (h) {
		a = bc_xcalloc(1, sizeof(*a));
		a->db = h;
	}
	/* a writer brings the schema up to date under the writers' lock; one
	   already up to date takes no lock to open (a stalled writer then
	   holds up only stores, each for the bounded wait) */
	/* a reader of an older archive brings it up to date first (a migration
	   only adds), so every query is written for the current schema; one
	   who may not write it is told so */
	int bad = !h || check_read(a, e);
	if (!bad && !write && a->version && a->version < BC_ARCHIVE_SCHEMA) {
		bc_archive_close(a);
		a = bc_archive_open(db, 1, e);
		if (!a)
			bc_err_detail(e, "The archive has an older schema, brought up to date by the first benchcore "
				      "that may write it (benchcore db list by its owner).");
		return a;
	}
	if (bad || (write && a->version < BC_ARCHIVE_SCHEMA && migrate(a, e))) {
		bc_archive_transient = strstr(e->msg, "full") || strstr(e->msg, "I/O") || strstr(e->msg, "locked");
		bc_archive_close(a);
		if (c)	/* whatever said it (benchcore, libpq), no password is printed */
			bc_archive_mask_err(e, c);
		return NULL;
	}
	return a;
}

void bc_archive_close(bc_archive *a)
{
	if (!a)
		return;
	a->db->ops->close(a->db);
	free(a);
}

const char *bc_archive_name(const bc_archive *a)
{
	return a->db->shown;
}
