/* Adding a run to the archive: one results document, validated by the one
 * reader (results.h), kept as written with its runs row, its modules and
 * its points, in one serialized write transaction. What decides whether a
 * document may go in is its run_id (docs/archive.md "Adding runs"). */
#include <ctype.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "archive_int.h"
#include "results.h"
#include "rundoc.h"

static void sha256_hex(const char *s, size_t n, char hex[65])
{
	unsigned char md[32];
	unsigned int len = 0;
	EVP_Digest(s, n, md, &len, EVP_sha256(), NULL);
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static int is_run_id(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
			return 0;
	return n == 32;
}

static const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

/* What a stored run says about itself, for the runs row. */
typedef struct doc_facts {
	char run_id[64], sha[65], stored_at[32];
	const char *started, *host, *host_id, *version, *status;
	char *config;
	long ncases, planned;
} doc_facts;

static int facts_of(const bc_rundoc *d, const bc_results *r, const char *doc, size_t len, const char *name,
		    doc_facts *f, bc_err *e)
{
	sha256_hex(doc, len, f->sha);
	const char *id = d->run_id;
	if (id && !is_run_id(id)) {
		char *sh = bc_printable(id);
		bc_err_set(e, "%s: its run_id \"%.80s\" is not one benchcore writes (32 lower-case hex digits)", name, sh);
		bc_err_detail(e, "The archive keys every run by it; a forged or edited one is not stored.");
		free(sh);
		return -1;
	}
	/* a file from before run_id: one from its content, the same every time */
	snprintf(f->run_id, sizeof(f->run_id), "%.32s", id ? id : f->sha);
	f->started = str_or(d->started_at, "");
	f->host = str_or(d->hostname, "");
	f->host_id = str_or(d->host_id, "");
	f->version = str_or(d->version, "");
	f->status = r->status ? r->status : r->interrupted ? "interrupted" : "complete";
	const char *cfile = str_or(d->config_file, "");
	const char *slash = strrchr(cfile, '/');
	f->config = bc_xstrdup(slash ? slash + 1 : cfile);
	f->ncases = (long)r->ncases;
	f->planned = r->planned;
	time_t now = time(NULL);
	struct tm tm;
	strftime(f->stored_at, sizeof(f->stored_at), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	return 0;
}

static void facts_free(doc_facts *f)
{
	free(f->config);
}

/* The stored row of a run_id, when there is one. */
typedef struct stored {
	int found;
	char *sha, *started, *host_id, *status;
	long ncases;
} stored;

static int stored_row(void *arg, char **col, int ncol)
{
	stored *s = arg;
	(void)ncol;
	s->found = 1;
	s->sha = bc_xstrdup(col[0] ? col[0] : "");
	s->started = bc_xstrdup(col[1] ? col[1] : "");
	s->host_id = bc_xstrdup(col[2] ? col[2] : "");
	s->status = bc_xstrdup(col[3] ? col[3] : "");
	s->ncases = col[4] ? atol(col[4]) : 0;
	return 1;
}

/* Whether the document f may take the stored row s's place: BC_AR_SAME,
   BC_AR_REPLACED, or -1 (refused, e names the run). */
static int judge(const stored *s, const doc_facts *f, const char *name, bc_err *e)
{
	if (!strcmp(s->sha, f->sha))
		return BC_AR_SAME;
	int same_run = !strcmp(s->started, f->started) && !strcmp(s->host_id, f->host_id);
	int partial = strcmp(s->status, "complete") != 0;
	if (same_run && partial && f->ncases >= s->ncases)
		return BC_AR_REPLACED;	/* the run resumed further (--resume) */
	bc_err_set(e, "%s: the archive holds another document under run_id %s", name, f->run_id);
	if (same_run && f->ncases < s->ncases)
		bc_err_detail(e, "The stored one is the same run further along (%ld cases, status %s); this "
			      "file has %ld.", s->ncases, s->status, f->ncases);
	else if (same_run)
		bc_err_detail(e, "The stored one is the same run, %s with %ld cases; a whole run is not replaced.",
			      s->status, s->ncases);
	else
		bc_err_detail(e, "The stored run started %s on host id %.12s...; this file's started %s on %.12s...: "
			      "a copied or forged run_id.", s->started, s->host_id, f->started, f->host_id);
	bc_err_hint(e, "benchcore db export %s shows the stored one", f->run_id);
	return -1;
}

static const char *const STORED_DOC_SQL = "SELECT document, zdoc FROM documents WHERE run_id = ?";

/* the stored text (NULL when its compressed form is damaged) */
static int doc_col(void *arg, char **col, int ncol)
{
	size_t len;
	bc_err e;
	(void)ncol;
	free(*(char **)arg);
	*(char **)arg = ar_doc_text(col[0], col[1], "", &len, &e);
	return 0;
}

/* cases by their id ("7": the case), to find each stored case at once */
static json_t *by_id(json_t *cases)
{
	json_t *m = json_object(), *c;
	size_t i;
	json_array_foreach(cases, i, c) {
		char k[32];
		snprintf(k, sizeof(k), "%lld", (long long)json_integer_value(json_object_get(c, "id")));
		json_object_set(m, k, c);
	}
	return m;
}

/* A resume replaces its stored partial run only when the new document
   keeps every case the stored one ended, unchanged (an interrupted case is
   measured again under a new id): what the same run_id, start and host id
   alone would let through is any document at all under a run's name. 0 when
   it does; -1 with e naming the first case that is not kept. */
static int resume_keeps(bc_archive *a, const doc_facts *f, const bc_rundoc *d, const char *name, bc_err *e)
{
	char *doc = NULL;
	bc_dbval id = DBT(f->run_id);
	if (ar_q(a, STORED_DOC_SQL, &id, 1, doc_col, &doc, e))
		return -1;
	json_error_t je;
	json_t *old = doc ? json_loads(doc, 0, &je) : NULL, *cases = by_id(d->cases), *c;
	free(doc);
	size_t i;
	int rc = old ? 0 : -1;
	json_array_foreach(json_object_get(old, "cases"), i, c) {
		const char *st = json_string_value(json_object_get(c, "status"));
		char k[32];
		snprintf(k, sizeof(k), "%lld", (long long)json_integer_value(json_object_get(c, "id")));
		if ((st && !strcmp(st, "interrupted")) || json_equal(json_object_get(cases, k), c))
			continue;
		char *mod = bc_printable(json_string_value(json_object_get(c, "module")) ?
					 json_string_value(json_object_get(c, "module")) : "?");
		bc_err_set(e, "%s: not the stored run %s resumed: its case %lld (%.80s) is not the stored one", name,
			   f->run_id, (long long)json_integer_value(json_object_get(c, "id")), mod);
		free(mod);
		bc_err_detail(e, "A resumed run keeps every case the interrupted one ended, as it was; this file "
			      "drops or changes one, so it does not replace the stored run.");
		bc_err_hint(e, "benchcore db export %s shows the stored one", f->run_id);
		rc = -1;
		break;
	}
	if (!old)
		bc_err_set(e, "%s: the stored run %s has no readable document to compare with", name, f->run_id);
	json_decref(old);
	json_decref(cases);
	return rc;
}

static const char *const FIND_SQL =
	"SELECT doc_sha256, started, host_id, status, ncases FROM runs WHERE run_id = ?";
/* a replaced run's rows; then the facts and series no run holds any more */
static const char *const DEL_POINTS_SQL = "DELETE FROM run_points WHERE rid IN (SELECT rid FROM runs WHERE run_id = ?)";
static const char *const DEL_FACTS_SQL = "DELETE FROM run_facts WHERE rid IN (SELECT rid FROM runs WHERE run_id = ?)";
static const char *const DEL_MODS_SQL = "DELETE FROM run_modules WHERE run_id = ?";
static const char *const DEL_DOC_SQL = "DELETE FROM documents WHERE run_id = ?";
static const char *const DEL_RUN_SQL = "DELETE FROM runs WHERE run_id = ?";
static const char *const UNHELD_FACTS_SQL =
	"DELETE FROM facts WHERE NOT EXISTS (SELECT 1 FROM run_facts h WHERE h.fact_id = facts.fact_id)";
static const char *const UNHELD_SERIES_SQL =
	"DELETE FROM series WHERE NOT EXISTS (SELECT 1 FROM run_points p WHERE p.series_id = series.series_id)";
/* host_json and info_json '': the run's are in facts (archive.c) */
static const char *const RUN_SQL =
	"INSERT INTO runs (run_id, started, host, host_id, label, benchcore_version, config_name, status, ncases, "
	"planned, doc_sha256, host_json, info_json, stored_at, rid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', ?, ?)";
/* the text itself only in rows of before (docz.c) */
static const char *const DOC_SQL = "INSERT INTO documents (run_id, document, zdoc) VALUES (?, '', ?)";
static const char *const MOD_SQL = "INSERT INTO run_modules (run_id, module) VALUES (?, ?)";
/* the next number of each kind, under the writers' lock (every write is
   serialized, so no two stores take the same) */
static const char *const NEXT_RID_SQL = "SELECT COALESCE(MAX(rid), 0) + 1 FROM runs";
static const char *const NEXT_FACT_SQL = "SELECT COALESCE(MAX(fact_id), 0) + 1 FROM facts";
static const char *const NEXT_SERIES_SQL = "SELECT COALESCE(MAX(series_id), 0) + 1 FROM series";
static const char *const FACT_FIND_SQL =
	"SELECT fact_id FROM facts WHERE digest = ? AND kind = ? AND key = ? AND value = ?";
static const char *const FACT_SQL = "INSERT INTO facts (fact_id, kind, key, value, digest) VALUES (?, ?, ?, ?, ?)";
static const char *const SERIES_OF_SQL =
	"SELECT series_id, params_key, params_text, threads, metric, unit, higher_is_better, headline, module_version "
	"FROM series WHERE module = ?";
static const char *const SERIES_SQL =
	"INSERT INTO series (series_id, module, params_key, params_text, threads, metric, unit, higher_is_better, "
	"headline, module_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

#define BATCH	32
/* "INSERT INTO t (...) VALUES (...), (...)" for k rows, made once per k
   (the SQLite backend keeps its statements by the text's address). */
typedef struct rows_sql {
	const char *head;	/* "INSERT INTO t (a, b) VALUES " */
	int ncol;
	char *sql[BATCH + 1];
} rows_sql;

static rows_sql run_facts_rows = { "INSERT INTO run_facts (rid, fact_id) VALUES ", 2, { 0 } };
static rows_sql points_rows = {
	"INSERT INTO run_points (rid, seq, series_id, mean, ci_low, ci_high, n) VALUES ", 7, { 0 } };

static const char *rows_sql_of(rows_sql *t, size_t k)
{
	if (!t->sql[k]) {
		size_t cap = strlen(t->head) + k * ((size_t)t->ncol * 3 + 4) + 1, l;
		char *s = bc_xmalloc(cap);
		l = (size_t)snprintf(s, cap, "%s", t->head);
		for (size_t r = 0; r < k; r++) {
			l += (size_t)snprintf(s + l, cap - l, "%s(", r ? ", " : "");
			for (int c = 0; c < t->ncol; c++)
				l += (size_t)snprintf(s + l, cap - l, "%s?", c ? ", " : "");
			l += (size_t)snprintf(s + l, cap - l, ")");
		}
		t->sql[k] = s;
	}
	return t->sql[k];
}

/* rows v[0 .. nrows * t->ncol), BATCH rows a statement */
static int insert_rows(bc_archive *a, rows_sql *t, const bc_dbval *v, size_t nrows, bc_err *e)
{
	for (size_t i = 0; i < nrows; i += BATCH) {
		size_t k = nrows - i < BATCH ? nrows - i : BATCH;
		if (ar_q(a, rows_sql_of(t, k), v + i * (size_t)t->ncol, k * (size_t)t->ncol, NULL, NULL, e))
			return -1;
	}
	return 0;
}

static int first_long(void *arg, char **col, int ncol)
{
	*(long long *)arg = ncol > 0 && col[0] ? atoll(col[0]) : 0;
	return 1;
}

static int next_id(bc_archive *a, const char *sql, long long *id, bc_err *e)
{
	*id = 0;
	return ar_q(a, sql, NULL, 0, first_long, id, e);
}

static bc_dbval real_or_null(double v)
{
	return v == v ? DBR(v) : DBT(NULL);
}

/* One run's host object and module info as facts: each top-level member
   found by its digest, else added; then the run's rows of run_facts. */
static int store_facts(bc_archive *a, long long rid, json_t *host, json_t *info, bc_err *e)
{
	json_t *objs[2] = { host, info };
	const char *kinds[2] = { "host", "info" };
	size_t n = json_object_size(host) + json_object_size(info), k = 0;
	bc_dbval *rows = bc_xcalloc(2 * n + 1, sizeof(*rows));
	long long next = 0;
	int rc = 0;
	for (int o = 0; o < 2 && !rc; o++) {
		const char *key;
		json_t *v;
		json_object_foreach(objs[o], key, v) {
			char *val = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY), hex[65];
			if (!val)
				val = bc_xstrdup("null");
			size_t kl = strlen(kinds[o]), ml = strlen(key), vl = strlen(val);
			/* kind, key and value apart (neither kind nor a key holds a NUL) */
			char *whole = bc_xmalloc(kl + ml + vl + 3);
			memcpy(whole, kinds[o], kl + 1);
			memcpy(whole + kl + 1, key, ml + 1);
			memcpy(whole + kl + ml + 2, val, vl + 1);
			sha256_hex(whole, kl + ml + vl + 2, hex);
			free(whole);
			long long id = 0;
			bc_dbval q[] = { DBT(hex), DBT(kinds[o]), DBT(key), DBT(val) };
			rc = ar_q(a, FACT_FIND_SQL, q, 4, first_long, &id, e);
			if (!rc && !id && !(rc = next ? 0 : next_id(a, NEXT_FACT_SQL, &next, e))) {
				id = next++;
				bc_dbval f[] = { DBI(id), DBT(kinds[o]), DBT(key), DBT(val), DBT(hex) };
				rc = ar_q(a, FACT_SQL, f, 5, NULL, NULL, e);
			}
			free(val);
			if (rc)
				break;
			rows[2 * k] = DBI(rid);
			rows[2 * k + 1] = DBI(id);
			k++;
		}
	}
	if (!rc)
		rc = insert_rows(a, &run_facts_rows, rows, k, e);
	free(rows);
	return rc ? -1 : 0;
}

/* a series' identity as one string: what it is found by in a store */
static char *series_key(const char *params_key, const char *params_text, long long threads, const char *metric,
			const char *unit, int hib, int headline, const char *module_version)
{
	json_t *k = json_pack("[s, s, I, s, s, i, i, s?]", params_key ? params_key : "",
			      params_text ? params_text : "", (json_int_t)threads, metric ? metric : "",
			      unit ? unit : "", hib, headline, module_version);
	char *s = json_dumps(k, JSON_COMPACT);
	json_decref(k);
	return s;
}

static int series_row(void *arg, char **col, int ncol)
{
	(void)ncol;
	char *k = series_key(col[1], col[2], col[3] ? atoll(col[3]) : 0, col[4], col[5], col[6] && atoi(col[6]),
			     col[7] && atoi(col[7]), col[8]);
	json_object_set_new(arg, k, json_integer(col[0] ? atoll(col[0]) : 0));
	free(k);
	return 0;
}

/* One run's points: each series found among its module's (read once a
   module), else added; then the run's rows of run_points. */
static int store_points(bc_archive *a, long long rid, const bc_hpoint *pts, size_t n, bc_err *e)
{
	json_t *modules = json_object();	/* module -> { series key -> series_id } */
	bc_dbval *rows = bc_xcalloc(7 * n + 1, sizeof(*rows));
	long long next = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const bc_hpoint *h = &pts[i];
		json_t *known = json_object_get(modules, h->module);
		if (!known) {
			known = json_object();
			json_object_set_new(modules, h->module, known);
			bc_dbval m = DBT(h->module);
			if ((rc = ar_q(a, SERIES_OF_SQL, &m, 1, series_row, known, e)))
				break;
		}
		char *k = series_key(h->params_key, h->params_text, h->threads, h->metric, h->unit, h->higher_is_better,
				     h->headline, h->module_version);
		long long id = json_integer_value(json_object_get(known, k));
		if (!id && !(rc = next ? 0 : next_id(a, NEXT_SERIES_SQL, &next, e))) {
			id = next++;
			bc_dbval sv[] = { DBI(id), DBT(h->module), DBT(h->params_key), DBT(h->params_text), DBI(h->threads),
					  DBT(h->metric), DBT(h->unit), DBI(h->higher_is_better), DBI(h->headline),
					  DBT(h->module_version) };
			rc = ar_q(a, SERIES_SQL, sv, 10, NULL, NULL, e);
			json_object_set_new(known, k, json_integer(id));
		}
		free(k);
		bc_dbval row[7] = { DBI(rid), DBI(i), DBI(id), real_or_null(h->mean), real_or_null(h->ci_low),
				    real_or_null(h->ci_high), DBI(h->n) };
		memcpy(&rows[7 * i], row, sizeof(row));
	}
	if (!rc)
		rc = insert_rows(a, &points_rows, rows, n, e);
	free(rows);
	json_decref(modules);
	return rc ? -1 : 0;
}

static int insert_run(bc_archive *a, const doc_facts *f, const bc_results *r, const char *doc, bc_err *e)
{
	long long rid;
	if (next_id(a, NEXT_RID_SQL, &rid, e))
		return -1;
	bc_dbval p[] = { DBT(f->run_id), DBT(f->started), DBT(f->host), DBT(f->host_id), DBT(r->label),
			 DBT(f->version), DBT(f->config), DBT(f->status), DBI(f->ncases), DBI(f->planned),
			 DBT(f->sha), DBT(f->stored_at), DBI(rid) };
	unsigned char *z;
	size_t zlen;
	if (ar_doc_pack(doc, strlen(doc), &z, &zlen, e))
		return -1;
	bc_dbval d[] = { DBT(f->run_id), DBB(z, zlen) };
	int bad = ar_q(a, RUN_SQL, p, sizeof(p) / sizeof(p[0]), NULL, NULL, e) || ar_q(a, DOC_SQL, d, 2, NULL, NULL, e);
	free(z);
	if (bad || store_facts(a, rid, r->host, r->info, e))
		return -1;
	json_t *seen = json_object();
	int rc = 0;
	for (size_t i = 0; i < r->ngroups && !rc; i++) {
		const char *m = r->groups[i].module;
		if (json_object_get(seen, m))
			continue;
		json_object_set_new(seen, m, json_true());
		bc_dbval q[] = { DBT(f->run_id), DBT(m) };
		rc = ar_q(a, MOD_SQL, q, 2, NULL, NULL, e);
	}
	json_decref(seen);
	if (rc)
		return -1;
	bc_hpoint *pts = NULL;
	size_t n = 0;
	bc_points_from_results(r, NULL, &pts, &n);
	rc = store_points(a, rid, pts, n, e);
	bc_hpoints_free(pts, n);
	return rc;
}

static const char *const PART_SQL = "INSERT INTO run_parts (run_id, part_id) VALUES (?, ?)";
static const char *const MERGED_SQL = "UPDATE runs SET merged_into = ? WHERE run_id = ?";
static const char *const WHOLE_SQL = "SELECT run_id FROM run_parts WHERE part_id = ? ORDER BY run_id LIMIT 1";

/* A merged run replaces its parts (docs/archive.md "Merged runs"): each
   run_id of its merged_from is recorded as its part, and a stored part is
   marked merged into it; a run stored after the merged run it is a part of
   is marked at once. A merged_from entry without a run_id of benchcore's
   form (older parts) names no run. */
static int link_parts(bc_archive *a, const char *run_id, const bc_rundoc *d, bc_err *e)
{
	json_t *seen = json_object();
	int rc = 0;
	for (size_t i = 0; i < d->nparts; i++) {
		const char *part = d->parts[i].run_id;
		if (!part || !is_run_id(part) || !strcmp(part, run_id) || json_object_get(seen, part))
			continue;
		json_object_set_new(seen, part, json_true());
		bc_dbval p[] = { DBT(run_id), DBT(part) };
		if ((rc = ar_q(a, PART_SQL, p, 2, NULL, NULL, e) || ar_q(a, MERGED_SQL, p, 2, NULL, NULL, e)))
			break;
	}
	json_decref(seen);
	char *whole = NULL;
	bc_dbval id = DBT(run_id);
	if (!rc && !(rc = ar_q(a, WHOLE_SQL, &id, 1, ar_first_text, &whole, e)) && whole) {
		bc_dbval p[] = { DBT(whole), DBT(run_id) };
		rc = ar_q(a, MERGED_SQL, p, 2, NULL, NULL, e);
	}
	free(whole);
	return rc ? -1 : 0;
}

typedef struct merged_docs {
	char **id, **doc;
	size_t n;
} merged_docs;

static int merged_doc_row(void *arg, char **col, int ncol)
{
	merged_docs *m = arg;
	(void)ncol;
	m->id = bc_xrealloc(m->id, m->n + 1, sizeof(char *));
	m->doc = bc_xrealloc(m->doc, m->n + 1, sizeof(char *));
	m->id[m->n] = bc_xstrdup(col[0] ? col[0] : "");
	m->doc[m->n++] = bc_xstrdup(col[1] ? col[1] : "");
	return 0;
}

int ar_link_stored_parts(bc_archive *a, bc_err *e)
{
	merged_docs m = { 0 };
	int rc = ar_q(a, "SELECT run_id, document FROM documents WHERE document LIKE '%merged_from%'",
		      NULL, 0, merged_doc_row, &m, e);
	for (size_t i = 0; i < m.n; i++) {
		bc_rundoc d;
		bc_err ignored;	/* a stored document that does not read has no parts to link */
		if (!rc && !bc_rundoc_read(m.doc[i], strlen(m.doc[i]), m.id[i], &d, &ignored)) {
			rc = link_parts(a, m.id[i], &d, e);
			bc_rundoc_free(&d);
		}
		free(m.id[i]);
		free(m.doc[i]);
	}
	free(m.id);
	free(m.doc);
	return rc;
}

/* Under the write lock: what is stored under the run_id decides. */
static int add_locked(bc_archive *a, const doc_facts *f, const bc_results *r, const bc_rundoc *d, const char *doc,
		      const char *name, bc_err *e)
{
	stored s = { 0 };
	bc_dbval id = DBT(f->run_id);
	int what = BC_AR_ADDED;
	if (ar_q(a, FIND_SQL, &id, 1, stored_row, &s, e))
		return -1;
	if (s.found)
		what = judge(&s, f, name, e);
	free(s.sha);
	free(s.started);
	free(s.host_id);
	free(s.status);
	if (what == BC_AR_REPLACED && resume_keeps(a, f, d, name, e))
		return -1;
	if (what == BC_AR_REPLACED &&
	    (ar_q(a, DEL_POINTS_SQL, &id, 1, NULL, NULL, e) || ar_q(a, DEL_FACTS_SQL, &id, 1, NULL, NULL, e) ||
	     ar_q(a, DEL_MODS_SQL, &id, 1, NULL, NULL, e) || ar_q(a, DEL_DOC_SQL, &id, 1, NULL, NULL, e) ||
	     ar_q(a, DEL_RUN_SQL, &id, 1, NULL, NULL, e)))
		return -1;
	if ((what == BC_AR_ADDED || what == BC_AR_REPLACED) &&
	    (insert_run(a, f, r, doc, e) || link_parts(a, f->run_id, d, e)))
		return -1;
	/* the replaced run's facts and series that the new one does not hold
	   too (it found the others and kept their ids) */
	if (what == BC_AR_REPLACED && (ar_q(a, UNHELD_FACTS_SQL, NULL, 0, NULL, NULL, e) ||
				       ar_q(a, UNHELD_SERIES_SQL, NULL, 0, NULL, NULL, e)))
		return -1;
	return what;
}

/* The write transaction, naming the run it stores to whoever waits for it. */
static int begin_store(bc_archive *a, const char *run_id, bc_err *e)
{
	snprintf(a->db->writing, sizeof(a->db->writing), "%s", run_id);
	return a->db->ops->begin_write(a->db, e);
}

int bc_archive_add(bc_archive *a, const char *doc, size_t len, const char *name, int *what,
		   char run_id[64], bc_err *e)
{
	bc_results r;
	bc_rundoc d;
	if (strlen(doc) != len) {
		bc_err_set(e, "%s: not a results file (it holds a NUL byte)", name);
		return -1;
	}
	if (bc_results_parse(doc, len, name, &r, e) < 0)
		return -1;
	if (bc_rundoc_read(doc, len, name, &d, e)) {
		bc_results_free(&r);
		return -1;
	}
	doc_facts f = { 0 };
	int rc = -1;
	if (facts_of(&d, &r, doc, len, name, &f, e) == 0 && begin_store(a, f.run_id, e) == 0) {
		rc = add_locked(a, &f, &r, &d, doc, name, e);
		if (rc == BC_AR_SAME || rc < 0)
			a->db->ops->rollback(a->db);
		else if (a->db->ops->commit(a->db, e))
			rc = -1;
	}
	if (rc > 0) {
		*what = rc;
		snprintf(run_id, 64, "%s", f.run_id);
		rc = 0;
	}
	facts_free(&f);
	bc_rundoc_free(&d);
	bc_results_free(&r);
	return rc;
}

/* The migration to version 2: version 1's rows as a run stored now keeps
   them (the same functions write both). */
typedef struct v1_runs {
	char **id, **host, **info;
	size_t n;
} v1_runs;

static int v1_run_row(void *arg, char **col, int ncol)
{
	v1_runs *v = arg;
	(void)ncol;
	v->id = bc_xrealloc(v->id, v->n + 1, sizeof(char *));
	v->host = bc_xrealloc(v->host, v->n + 1, sizeof(char *));
	v->info = bc_xrealloc(v->info, v->n + 1, sizeof(char *));
	v->id[v->n] = bc_xstrdup(col[0] ? col[0] : "");
	v->host[v->n] = bc_xstrdup(col[1] ? col[1] : "");
	v->info[v->n++] = bc_xstrdup(col[2] ? col[2] : "");
	return 0;
}

typedef struct v1_points {
	bc_hpoint *v;
	size_t n;
} v1_points;

static int v1_point_row(void *arg, char **col, int ncol)
{
	v1_points *acc = arg;
	(void)ncol;
	acc->v = bc_xrealloc(acc->v, acc->n + 1, sizeof(*acc->v));
	ar_hpoint_of_row(&acc->v[acc->n++], col);
	return 0;
}

/* a stored object's text as an object (one that does not read: none, as
   history read it before) */
static json_t *object_of(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		o = json_object();
	}
	return o;
}

static const char *const V1_RUNS_SQL = "SELECT run_id, host_json, info_json FROM runs ORDER BY started, run_id";
static const char *const V1_POINTS_SQL =
	"SELECT module, params_key, params_text, threads, metric, unit, higher_is_better, headline, mean, ci_low, "
	"ci_high, n, module_version FROM points WHERE run_id = ? ORDER BY seq";
static const char *const V1_RID_SQL = "UPDATE runs SET rid = ?, host_json = '', info_json = '' WHERE run_id = ?";

int ar_move_v1_rows(bc_archive *a, bc_err *e)
{
	v1_runs v = { 0 };
	int rc = ar_q(a, V1_RUNS_SQL, NULL, 0, v1_run_row, &v, e);
	for (size_t i = 0; i < v.n; i++) {
		if (!rc) {
			v1_points p = { 0 };
			bc_dbval id = DBT(v.id[i]), q[] = { DBI(i + 1), DBT(v.id[i]) };
			json_t *host = object_of(v.host[i]), *info = object_of(v.info[i]);
			rc = ar_q(a, V1_RID_SQL, q, 2, NULL, NULL, e) || store_facts(a, (long long)i + 1, host, info, e) ||
			     ar_q(a, V1_POINTS_SQL, &id, 1, v1_point_row, &p, e) ||
			     store_points(a, (long long)i + 1, p.v, p.n, e);
			json_decref(host);
			json_decref(info);
			bc_hpoints_free(p.v, p.n);
		}
		free(v.id[i]);
		free(v.host[i]);
		free(v.info[i]);
	}
	free(v.id);
	free(v.host);
	free(v.info);
	/* its rows are in run_points and series now (its indexes go with it) */
	if (!rc)
		rc = ar_q(a, "DROP TABLE points", NULL, 0, NULL, NULL, e);
	return rc ? -1 : 0;
}
