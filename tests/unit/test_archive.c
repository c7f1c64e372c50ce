/* The results archive (core/archive): runs added from the fixtures come back
   as the same points bc_points_from_results computes from the files, in time
   order, through both backends (BC_ARCHIVE_TEST_DB=postgresql://... names an
   empty PostgreSQL database: tests/integration/test_archive.sh starts one;
   else a SQLite file in a temp dir); the same document again is kept once, a
   forged run_id refused, a newer schema refused naming both versions, and a
   URL's password never shown. */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "archive.h"
#include "archive_int.h"
#include "results.h"

#define BC_STR_(x)	#x
#define BC_STR(x)	BC_STR_(x)

static char db[512];
static char tmpdir[64];

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static const char *const files[] = { "tests/fixtures/cmp-a.json", "tests/fixtures/cmp-slow.json",
				     "tests/fixtures/run-0.1.json", NULL };

/* the PostgreSQL database $var names, else a SQLite file in a new
   directory (dir, "" for PostgreSQL) */
static void db_for(const char *var, char dir[64], char *path, size_t size)
{
	const char *env = getenv(var);
	dir[0] = '\0';
	if (env && *env) {
		snprintf(path, size, "%s", env);
	} else {
		snprintf(dir, 64, "/tmp/bc-unit-archive.XXXXXX");
		assert_non_null(mkdtemp(dir));
		snprintf(path, size, "%s/results.db", dir);
	}
}

static int setup(void **state)
{
	(void)state;
	db_for("BC_ARCHIVE_TEST_DB", tmpdir, db, sizeof(db));
	bc_err e;
	bc_archive *a = bc_archive_open(db, 1, &e);
	if (!a)
		fprintf(stderr, "%s\n", e.msg);
	assert_non_null(a);
	for (const char *const *f = files; *f; f++) {
		size_t len;
		char *doc = slurp(*f, &len), id[64];
		int what = 0;
		assert_int_equal(bc_archive_add(a, doc, len, *f, &what, id, &e), 0);
		assert_int_equal(what, BC_AR_ADDED);
		free(doc);
	}
	bc_archive_close(a);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (tmpdir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		assert_int_equal(system(cmd), 0);
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const bc_results *x = a, *y = b;
	int c = strcmp(x->started_at, y->started_at);
	return c ? c : strcmp(x->run_id, y->run_id);
}

static void same_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		assert_true(isnan(a) && isnan(b));
	else
		assert_true(fabs(a - b) <= 1e-12 * fmax(1, fabs(a)));
}

/* The points from the files, the run_id each got in the archive. */
static void expected(const bc_history_query *q, bc_hpoint **pts, size_t *n)
{
	bc_results r[3];
	bc_err e;
	size_t k = 0;
	for (const char *const *f = files; *f; f++, k++) {
		size_t len;
		char *doc = slurp(*f, &len);
		assert_int_equal(bc_results_parse(doc, len, *f, &r[k], &e), 0);
		/* a file without run_id is keyed by its content's SHA-256 */
		bc_archive *a = bc_archive_open(db, 1, &e);
		int what;
		char id[64];
		assert_int_equal(bc_archive_add(a, doc, len, *f, &what, id, &e), 0);
		assert_int_equal(what, BC_AR_SAME);
		bc_archive_close(a);
		free(r[k].run_id);
		r[k].run_id = strdup(id);
		free(doc);
	}
	qsort(r, k, sizeof(r[0]), by_time);
	*pts = NULL;
	*n = 0;
	for (size_t i = 0; i < k; i++) {
		bc_points_from_results(&r[i], q, pts, n);
		bc_results_free(&r[i]);
	}
}

/* a point from the archive against the file's: all but the run's versions */
static void same_point(const bc_hpoint *got, const bc_hpoint *want)
{
	assert_string_equal(got->started, want->started);
	assert_string_equal(got->host, want->host);
	assert_string_equal(got->label, want->label);
	assert_string_equal(got->module, want->module);
	assert_string_equal(got->params_key, want->params_key);
	assert_string_equal(got->params_text, want->params_text);
	assert_int_equal(got->threads, want->threads);
	assert_string_equal(got->metric, want->metric);
	assert_string_equal(got->unit, want->unit);
	assert_int_equal(got->higher_is_better, want->higher_is_better);
	assert_int_equal(got->headline, want->headline);
	assert_int_equal(got->n, want->n);
	same_double(got->mean, want->mean);
	same_double(got->ci_low, want->ci_low);
	same_double(got->ci_high, want->ci_high);
	assert_true(json_equal(got->hostobj, want->hostobj));
	assert_true(json_equal(got->info, want->info));
}

static void check_query(const bc_history_query *q, size_t want_min)
{
	bc_hpoint *got, *want;
	size_t ng, nw;
	bc_err e;
	assert_int_equal(bc_archive_history_points(db, q, &got, &ng, &e), 0);
	expected(q, &want, &nw);
	assert_int_equal(ng, nw);
	assert_true(ng >= want_min);
	for (size_t i = 0; i < ng; i++) {
		assert_string_equal(got[i].run_id, want[i].run_id);
		same_point(&got[i], &want[i]);
		/* the versions history names at a change point */
		assert_string_equal(got[i].version ? got[i].version : "-", want[i].version ? want[i].version : "-");
		assert_string_equal(got[i].module_version ? got[i].module_version : "-",
				    want[i].module_version ? want[i].module_version : "-");
	}
	bc_hpoints_free(got, ng);
	bc_hpoints_free(want, nw);
}

static void history_headline(void **state)
{
	(void)state;
	bc_history_query q = { .module = "cpu" };
	check_query(&q, 3);
}

static void history_metric_host_where(void **state)
{
	(void)state;
	bc_history_query q = { .module = "cpu", .metric = "event.p99_ms" };
	check_query(&q, 3);
	q.host = "db1";
	check_query(&q, 1);
	const char *where[] = { "max_prime=20000" };
	bc_history_query w = { .module = "cpu", .where = where, .nwhere = 1 };
	check_query(&w, 0);
	bc_history_query none = { .module = "nosuchmodule" };
	check_query(&none, 0);
}

static void add_refusals(void **state)
{
	(void)state;
	bc_err e;
	bc_archive *a = bc_archive_open(db, 1, &e);
	assert_non_null(a);
	size_t len;
	char *doc = slurp("tests/fixtures/cmp-a.json", &len), id[64];
	int what = 0;
	/* forged: a run_id that is not 32 hex digits */
	char *forged = malloc(len + 100);
	snprintf(forged, len + 100, "{\"run_id\": \"x' OR '1'='1\", %s", doc + 1);
	assert_int_equal(bc_archive_add(a, forged, strlen(forged), "forged.json", &what, id, &e), -1);
	assert_non_null(strstr(e.msg, "is not one benchcore writes"));
	/* another document under a stored run's id: refused, naming it */
	snprintf(forged, len + 100, "{\"run_id\": \"0123456789abcdef0123456789abcdef\", %s", doc + 1);
	assert_int_equal(bc_archive_add(a, forged, strlen(forged), "f1.json", &what, id, &e), 0);
	assert_int_equal(what, BC_AR_ADDED);
	char *other = slurp("tests/fixtures/cmp-slow.json", &len);
	char *dup = malloc(len + 100);
	snprintf(dup, len + 100, "{\"run_id\": \"0123456789abcdef0123456789abcdef\", %s", other + 1);
	assert_int_equal(bc_archive_add(a, dup, strlen(dup), "f2.json", &what, id, &e), -1);
	assert_non_null(strstr(e.msg, "0123456789abcdef0123456789abcdef"));
	/* a NUL inside: refused, not cut short */
	forged[10] = '\0';
	assert_int_equal(bc_archive_add(a, forged, len, "nul.json", &what, id, &e), -1);
	free(forged);
	free(dup);
	free(other);
	free(doc);
	bc_archive_close(a);
}

/* history rebuilds host objects member by member: keys and values that look
   like JSON's own punctuation, escapes and nesting come back equal */
static void odd_host_object(void **state)
{
	(void)state;
	size_t len;
	char *doc = slurp("tests/fixtures/cmp-a.json", &len), id[64];
	json_t *root = json_loadb(doc, len, 0, NULL);
	json_t *host = json_object_get(root, "host");
	json_object_set_new(host, "hostname", json_string("odd\"host"));
	json_object_set_new(host, "we\"ird,key:", json_string("va}l,ue\\\"]"));
	json_object_set_new(host, "nested", json_pack("{s:[i, {s:s}], s:{}}", "a", 1, "b", "]},", "e"));
	json_object_set_new(host, "uni", json_string("\xc3\xa9\x01\xe2\x82\xac"));
	json_object_set_new(root, "run_id", json_string("fedcba9876543210fedcba9876543210"));
	char *text = json_dumps(root, JSON_INDENT(1));
	bc_err e;
	bc_archive *a = bc_archive_open(db, 1, &e);
	int what;
	assert_int_equal(bc_archive_add(a, text, strlen(text), "odd.json", &what, id, &e), 0);
	bc_archive_close(a);
	bc_history_query q = { .module = "cpu", .host = "odd\"host" };
	bc_hpoint *p;
	size_t n;
	assert_int_equal(bc_archive_history_points(db, &q, &p, &n, &e), 0);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++)
		assert_true(json_equal(p[i].hostobj, host));
	bc_hpoints_free(p, n);
	free(text);
	json_decref(root);
	free(doc);
}

static int count_row(void *arg, char **col, int ncol)
{
	*(long *)arg = ncol > 0 && col[0] ? atol(col[0]) : -1;
	return 1;
}

static long count(bc_archive *a, const char *sql, const char *param)
{
	long n = -1;
	bc_err e;
	bc_dbval p = DBT(param);
	if (ar_q(a, sql, &p, param ? 1 : 0, count_row, &n, &e))
		fprintf(stderr, "%s: %s\n", sql, e.msg);
	return n;
}

/* cmp-a.json as another run: its run_id, interrupted or not, one host member set */
static char *variant(const char *run_id, int interrupted, const char *key, const char *value)
{
	size_t len;
	char *doc = slurp("tests/fixtures/cmp-a.json", &len);
	json_t *root = json_loadb(doc, len, 0, NULL);
	json_object_set_new(root, "run_id", json_string(run_id));
	json_object_set_new(root, "interrupted", json_boolean(interrupted));
	if (key)
		json_object_set_new(json_object_get(root, "host"), key, json_string(value));
	char *text = json_dumps(root, JSON_INDENT(1));
	json_decref(root);
	free(doc);
	return text;
}

#define RUN_FACTS_OF "SELECT count(*) FROM run_facts WHERE rid = (SELECT rid FROM runs WHERE run_id = ?)"
#define UNHELD "SELECT count(*) FROM facts f WHERE NOT EXISTS (SELECT 1 FROM run_facts h WHERE h.fact_id = f.fact_id)"

/* two runs of one host hold one set of facts: the second adds no fact
   rows, only its own run_facts rows, the same ones as the first */
static void facts_shared(void **state)
{
	(void)state;
	bc_err e;
	bc_archive *a = bc_archive_open(db, 1, &e);
	assert_non_null(a);
	char *one = variant("11111111111111111111111111111111", 0, NULL, NULL);
	char *two = variant("22222222222222222222222222222222", 0, NULL, NULL), id[64];
	int what;
	assert_int_equal(bc_archive_add(a, one, strlen(one), "one.json", &what, id, &e), 0);
	long facts = count(a, "SELECT count(*) FROM facts", NULL);
	long series = count(a, "SELECT count(*) FROM series", NULL);
	assert_int_equal(bc_archive_add(a, two, strlen(two), "two.json", &what, id, &e), 0);
	assert_int_equal(what, BC_AR_ADDED);
	assert_int_equal(count(a, "SELECT count(*) FROM facts", NULL), facts);
	assert_int_equal(count(a, "SELECT count(*) FROM series", NULL), series);
	json_t *root = json_loads(one, 0, NULL);
	bc_results r;
	assert_int_equal(bc_results_parse(one, strlen(one), "one.json", &r, &e), 0);
	long members = (long)(json_object_size(r.host) + json_object_size(r.info));
	assert_true(members > 10);
	assert_int_equal(count(a, RUN_FACTS_OF, "11111111111111111111111111111111"), members);
	assert_int_equal(count(a, RUN_FACTS_OF, "22222222222222222222222222222222"), members);
	/* the same fact rows: none that one holds and two does not */
	assert_int_equal(count(a, "SELECT count(*) FROM run_facts h JOIN runs r ON r.rid = h.rid WHERE r.run_id = ? "
			      "AND h.fact_id NOT IN (SELECT fact_id FROM run_facts WHERE rid = (SELECT rid FROM runs "
			      "WHERE run_id = '22222222222222222222222222222222'))", "11111111111111111111111111111111"), 0);
	/* runs.host_json and info_json stay empty: the facts are the run's */
	assert_int_equal(count(a, "SELECT count(*) FROM runs WHERE host_json <> '' OR info_json <> ''", NULL), 0);
	bc_archive_close(a);
	/* history gives both runs the file's host object and module info */
	bc_history_query q = { .module = "cpu", .host = json_string_value(json_object_get(r.host, "hostname")) };
	bc_hpoint *p;
	size_t n, seen = 0;
	assert_int_equal(bc_archive_history_points(db, &q, &p, &n, &e), 0);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(p[i].run_id, "11111111111111111111111111111111") &&
		    strcmp(p[i].run_id, "22222222222222222222222222222222"))
			continue;
		assert_true(json_equal(p[i].hostobj, r.host));
		assert_true(json_equal(p[i].info, r.info));
		seen++;
	}
	assert_true(seen >= 2);
	bc_hpoints_free(p, n);
	bc_results_free(&r);
	json_decref(root);
	free(one);
	free(two);
}

/* a partial run replaced by the same run resumed: the fact only the old
   one held is gone, the new one's is there, and no fact is left that no
   run holds */
static void replaced_run_facts(void **state)
{
	(void)state;
	bc_err e;
	bc_archive *a = bc_archive_open(db, 1, &e);
	assert_non_null(a);
	const char *rid = "33333333333333333333333333333333";
	char *partial = variant(rid, 1, "bc_test_fact", "only the interrupted run's");
	char *whole = variant(rid, 0, "bc_test_fact", "the resumed run's"), id[64];
	int what;
	assert_int_equal(bc_archive_add(a, partial, strlen(partial), "partial.json", &what, id, &e), 0);
	assert_int_equal(what, BC_AR_ADDED);
	assert_int_equal(count(a, "SELECT count(*) FROM facts WHERE key = 'bc_test_fact' AND value = ?",
			       "\"only the interrupted run's\""), 1);
	assert_int_equal(bc_archive_add(a, whole, strlen(whole), "whole.json", &what, id, &e), 0);
	assert_int_equal(what, BC_AR_REPLACED);
	assert_int_equal(count(a, "SELECT count(*) FROM facts WHERE key = 'bc_test_fact' AND value = ?",
			       "\"only the interrupted run's\""), 0);
	assert_int_equal(count(a, "SELECT count(*) FROM facts WHERE key = 'bc_test_fact' AND value = ?",
			       "\"the resumed run's\""), 1);
	assert_int_equal(count(a, UNHELD, NULL), 0);
	assert_int_equal(count(a, "SELECT count(*) FROM series s WHERE NOT EXISTS (SELECT 1 FROM run_points p "
			       "WHERE p.series_id = s.series_id)", NULL), 0);
	assert_int_equal(count(a, RUN_FACTS_OF, rid), count(a, RUN_FACTS_OF, "11111111111111111111111111111111") + 1);
	free(partial);
	free(whole);
	bc_archive_close(a);
}

/* An archive of version 1 as a6e399e's benchcore (the last release of
   it) made one: its schema, and each fixture stored as it stored a run
   (the host object and module info as JSON text in runs, every point with
   the run's start and host). Opened, it is brought up to version 2: the
   same history, host objects and module info included, comes out. In
   BC_ARCHIVE_TEST_DB_V1 (an empty PostgreSQL database) when given, else a
   SQLite file. */
static const char *const v1_meta[] = {
	"CREATE TABLE bc_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
	"INSERT INTO bc_meta (key, value) VALUES ('schema_version', '1')",
	"INSERT INTO bc_meta (key, value) VALUES ('written_by', 'benchcore 0.1.0')",
	NULL
};

static bc_dbval real_or_null(double v)
{
	return v == v ? DBR(v) : DBT(NULL);
}

static void v1_store(bc_archive *a, const char *doc, size_t len, const char *name, const char *run_id)
{
	bc_results r;
	bc_err e;
	assert_int_equal(bc_results_parse(doc, len, name, &r, &e), 0);
	char *host = json_dumps(r.host, JSON_COMPACT | JSON_SORT_KEYS);
	char *info = json_dumps(r.info, JSON_COMPACT | JSON_SORT_KEYS);
	const char *hn = json_string_value(json_object_get(r.host, "hostname"));
	bc_dbval run[] = { DBT(run_id), DBT(r.started_at), DBT(hn ? hn : ""), DBT(""), DBT(r.label),
			   DBT("0.1.0"), DBT("x.conf"), DBT("complete"), DBI(r.ncases), DBI(r.planned), DBT("0"),
			   DBT(host), DBT(info), DBT("2026-12-01T00:00:00Z") };
	assert_int_equal(ar_q(a, "INSERT INTO runs (run_id, started, host, host_id, label, benchcore_version, "
			      "config_name, status, ncases, planned, doc_sha256, host_json, info_json, stored_at) "
			      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", run, 14, NULL, NULL, &e), 0);
	bc_dbval d[] = { DBT(run_id), DBT(doc) };
	assert_int_equal(ar_q(a, "INSERT INTO documents (run_id, document) VALUES (?, ?)", d, 2, NULL, NULL, &e), 0);
	bc_dbval m[] = { DBT(run_id), DBT("cpu") };
	assert_int_equal(ar_q(a, "INSERT INTO run_modules (run_id, module) VALUES (?, ?)", m, 2, NULL, NULL, &e), 0);
	bc_hpoint *pts = NULL;
	size_t n = 0;
	bc_points_from_results(&r, NULL, &pts, &n);
	for (size_t i = 0; i < n; i++) {
		bc_hpoint *h = &pts[i];
		bc_dbval row[] = { DBT(run_id), DBI(i), DBT(r.started_at), DBT(hn ? hn : ""), DBT(h->module),
				   DBT(h->params_key), DBT(h->params_text), DBI(h->threads), DBT(h->metric),
				   DBT(h->unit), DBI(h->higher_is_better), DBI(h->headline), real_or_null(h->mean),
				   real_or_null(h->ci_low), real_or_null(h->ci_high), DBI(h->n),
				   DBT(h->module_version) };
		assert_int_equal(ar_q(a, "INSERT INTO points (run_id, seq, started, host, module, params_key, "
				      "params_text, threads, metric, unit, higher_is_better, headline, mean, ci_low, "
				      "ci_high, n, module_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
				      "?, ?)", row, 17, NULL, NULL, &e), 0);
	}
	bc_hpoints_free(pts, n);
	free(host);
	free(info);
	bc_results_free(&r);
}

static void v1_migrated(void **state)
{
	(void)state;
	char dir[64], path[512];
	db_for("BC_ARCHIVE_TEST_DB_V1", dir, path, sizeof(path));
	bc_err e;
	bc_archive *a = bc_xcalloc(1, sizeof(*a));
	a->db = dir[0] ? bc_db_sqlite_open(path, 1, 0, &e) : bc_db_pg_open(path, &e);
	assert_non_null(a->db);
	for (const char *const *q = ar_schema_v1; *q; q++)
		assert_int_equal(ar_q(a, *q, NULL, 0, NULL, NULL, &e), 0);
	for (const char *const *q = v1_meta; *q; q++)
		assert_int_equal(ar_q(a, *q, NULL, 0, NULL, NULL, &e), 0);
	/* the fixtures, under run_ids of their own */
	const char *run_ids[] = { "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2",
				  "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3" };
	size_t k = 0;
	for (const char *const *f = files; *f; f++, k++) {
		size_t len;
		char *doc = slurp(*f, &len);
		v1_store(a, doc, len, *f, run_ids[k]);
		free(doc);
	}
	bc_archive_close(a);
	bc_history_query q = { .module = "cpu", .metric = "event.p99_ms" };
	bc_hpoint *got;
	size_t ng;
	assert_int_equal(bc_archive_history_points(path, &q, &got, &ng, &e), 0);
	/* every point as the files give it, its host object and module info too */
	bc_results r[3];
	bc_hpoint *want = NULL;
	size_t nw = 0;
	for (size_t j = 0; j < 3; j++) {
		size_t len, from = nw;
		char *doc = slurp(files[j], &len);
		assert_int_equal(bc_results_parse(doc, len, files[j], &r[j], &e), 0);
		bc_points_from_results(&r[j], &q, &want, &nw);
		for (size_t i = from; i < nw; i++) {
			free(want[i].run_id);
			want[i].run_id = strdup(run_ids[j]);
		}
		free(doc);
	}
	assert_int_equal(ng, nw);
	assert_true(ng >= 3);
	for (size_t i = 0; i < ng; i++) {
		size_t w;
		for (w = 0; w < nw; w++)
			if (!strcmp(got[i].run_id, want[w].run_id) && !strcmp(got[i].params_key, want[w].params_key) &&
			    got[i].threads == want[w].threads)
				break;
		assert_true(w < nw);
		same_point(&got[i], &want[w]);
	}
	bc_hpoints_free(want, nw);
	for (size_t j = 0; j < 3; j++)
		bc_results_free(&r[j]);
	bc_hpoints_free(got, ng);
	a = bc_archive_open(path, 0, &e);
	assert_non_null(a);
	assert_int_equal(count(a, "SELECT count(*) FROM runs WHERE rid IS NULL OR host_json <> '' OR info_json <> ''",
			       NULL), 0);
	assert_true(count(a, "SELECT count(*) FROM facts", NULL) > 10);
	assert_int_equal(count(a, UNHELD, NULL), 0);
	bc_archive_close(a);
	if (dir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

static void newer_schema(void **state)
{
	(void)state;
	bc_err e;
	bc_archive *a = bc_archive_open(db, 1, &e);
	bc_dbval v = DBT("99");
	assert_int_equal(ar_q(a, "UPDATE bc_meta SET value = ? WHERE key = 'schema_version'", &v, 1, NULL, NULL, &e), 0);
	bc_archive_close(a);
	for (int write = 0; write < 2; write++) {
		assert_null(bc_archive_open(db, write, &e));
		assert_non_null(strstr(e.msg, "schema version 99"));
		assert_non_null(strstr(e.msg, "knows up to version " BC_STR(BC_ARCHIVE_SCHEMA)));
		assert_non_null(strstr(e.msg, BC_VERSION));
	}
	bc_hpoint *p;
	size_t n;
	bc_history_query q = { .module = "cpu" };
	assert_int_equal(bc_archive_history_points(db, &q, &p, &n, &e), -1);
	/* back to the current version through the backend itself */
	a = bc_xcalloc(1, sizeof(*a));
	a->db = strncmp(db, "postgres", 8) ? bc_db_sqlite_open(db, 0, 0, &e) : bc_db_pg_open(db, &e);
	assert_non_null(a->db);
	v = DBT(BC_STR(BC_ARCHIVE_SCHEMA));
	assert_int_equal(ar_q(a, "UPDATE bc_meta SET value = ? WHERE key = 'schema_version'", &v, 1, NULL, NULL, &e), 0);
	bc_archive_close(a);
	a = bc_archive_open(db, 0, &e);
	assert_non_null(a);
	bc_archive_close(a);
}

static void redaction(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{ "postgresql://bc:s3cret@db.example/bench", "postgresql://bc:***@db.example/bench" },
		{ "postgres://u:p%40ss@h:5433/d?sslmode=require", "postgres://u:***@h:5433/d?sslmode=require" },
		{ "postgresql://bc@/x?host=/run/pg&password=hunter2", "postgresql://bc@/x?host=/run/pg&password=***" },
		{ "postgresql://a:b@c@h/d", "postgresql://a:***@h/d" },
		{ "postgresql:///d?password=x&user=u", "postgresql:///d?password=***&user=u" },
		{ "postgresql://h/d", "postgresql://h/d" },
		/* issue 48: a raw "/" in the password, the scheme in capitals, key=value strings */
		{ "postgresql://bench:pa/ss@localhost/bench", "postgresql://bench:***@localhost/bench" },
		{ "POSTGRESQL://bench:Hunter22@localhost/bench", "POSTGRESQL://bench:***@localhost/bench" },
		{ "host=/run/pg dbname=bench password=Hunter22 user=bench",
		  "host=/run/pg dbname=bench password=*** user=bench" },
		{ "host=h password = 'two words\\' here' dbname=d", "host=h password = *** dbname=d" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *r = bc_archive_mask(cases[i][0], cases[i][0]);
		assert_string_equal(r, cases[i][1]);
		free(r);
	}
	/* libpq's messages repeat a token of the URL: masked by the password itself */
	const char *conn = "postgresql://bench:Sec%zzret@localhost/bench";
	char *m = bc_archive_mask("invalid percent-encoded token: \"Sec%zzret\"", conn);
	assert_string_equal(m, "invalid percent-encoded token: \"***\"");
	free(m);
	m = bc_archive_mask("x in URI: \"postgresql://bench:Hunter22@[badhost/bench\"", NULL);
	assert_string_equal(m, "x in URI: \"postgresql://bench:***@[badhost/bench\"");
	free(m);
	m = bc_archive_mask("token \"pa%2Fss2\" and pa/ss2", "postgresql://u:pa/ss2@h/d");
	assert_string_equal(m, "token \"***\" and ***");
	free(m);
	m = bc_archive_mask("in URI: \"postgresql://u:two wordsX@h/d\"", "postgresql://u:two wordsX@h/d");
	assert_string_equal(m, "in URI: \"postgresql://u:***@h/d\"");
	free(m);
	m = bc_archive_mask("invalid URI query parameter: \"pasword\" = HuntEr22", "postgresql://h/d?pasword=HuntEr22");
	assert_string_equal(m, "invalid URI query parameter: \"pasword\" = ***");
	free(m);
	assert_true(bc_archive_is_url("POSTGRES://h/d"));
	assert_true(bc_archive_is_url(" host=/tmp dbname=x"));
	assert_false(bc_archive_is_url("/tmp/host=x.db"));
	assert_false(bc_archive_is_url("results.db"));
	char *c = bc_db_pg_conninfo("POSTGRESQL://bench:pa/ss@localhost/bench");
	assert_string_equal(c, "postgresql://bench:pa%2Fss@localhost/bench");
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(history_headline),
		cmocka_unit_test(history_metric_host_where),
		cmocka_unit_test(add_refusals),
		cmocka_unit_test(odd_host_object),
		cmocka_unit_test(facts_shared),
		cmocka_unit_test(replaced_run_facts),
		cmocka_unit_test(v1_migrated),
		cmocka_unit_test(newer_schema),
		cmocka_unit_test(redaction),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
