/* Reading the archive: the runs list, a run's document, the references
 * compare and report take (db:...), and history's points. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "archive_int.h"
#include "results.h"

/* NULL-or-equal filters: one statement whatever is given (CAST: PostgreSQL
   must know a parameter's type even when it is NULL). */
#define OPT_EQ(col)	"(CAST(? AS TEXT) IS NULL OR " col " = ?)"

static const char *const LIST_SQL =
	"SELECT run_id, started, host, label, config_name, benchcore_version, status, ncases, planned FROM runs "
	"WHERE merged_into IS NULL AND " OPT_EQ("host") " AND " OPT_EQ("label") " AND (CAST(? AS TEXT) IS NULL OR started >= ?) "
	"AND (CAST(? AS TEXT) IS NULL OR run_id IN (SELECT run_id FROM run_modules WHERE module = ?)) "
	"ORDER BY started, run_id";

typedef struct runs_acc {
	bc_archive_run *v;
	size_t n;
} runs_acc;

static char *dup0(const char *s)
{
	return bc_xstrdup(s ? s : "");
}

static int run_row(void *arg, char **col, int ncol)
{
	runs_acc *acc = arg;
	(void)ncol;
	acc->v = bc_xrealloc(acc->v, acc->n + 1, sizeof(*acc->v));
	acc->v[acc->n++] = (bc_archive_run){
		.run_id = dup0(col[0]), .started = dup0(col[1]), .host = dup0(col[2]), .label = dup0(col[3]),
		.config = dup0(col[4]), .version = dup0(col[5]), .status = dup0(col[6]),
		.ncases = col[7] ? atol(col[7]) : 0, .planned = col[8] ? atol(col[8]) : -1,
	};
	return 0;
}

int bc_archive_list(bc_archive *a, const bc_archive_filter *f, bc_archive_run **runs, size_t *n, bc_err *e)
{
	runs_acc acc = { 0 };
	*runs = NULL;
	*n = 0;
	if (a->version == 0)
		return 0;	/* nothing stored yet */
	bc_dbval p[] = { DBT(f->host), DBT(f->host), DBT(f->label), DBT(f->label), DBT(f->since), DBT(f->since),
			 DBT(f->module), DBT(f->module) };
	if (ar_q(a, LIST_SQL, p, sizeof(p) / sizeof(p[0]), run_row, &acc, e)) {
		bc_archive_runs_free(acc.v, acc.n);
		return -1;
	}
	*runs = acc.v;
	*n = acc.n;
	return 0;
}

void bc_archive_runs_free(bc_archive_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bc_archive_run *r = &runs[i];
		free(r->run_id), free(r->started), free(r->host), free(r->label);
		free(r->config), free(r->version), free(r->status);
	}
	free(runs);
}

/* rows of (run_id, document) */
typedef struct doc_acc {
	size_t n;
	char *doc, *run_id;
	int bad;		/* the document would not inflate: err says so */
	bc_err err;
	char ids[5][64];	/* the first few, for an ambiguous reference's message */
} doc_acc;

static int doc_row(void *arg, char **col, int ncol)
{
	doc_acc *acc = arg;
	(void)ncol;
	if (acc->n < 5)
		snprintf(acc->ids[acc->n], sizeof(acc->ids[0]), "%s", col[0] ? col[0] : "");
	if (acc->n++ == 0) {
		size_t len;
		acc->run_id = dup0(col[0]);
		/* (run_id, document, zdoc): the text as stored (docz.c) */
		acc->doc = ncol > 2 ? ar_doc_text(col[1], col[2], acc->run_id, &len, &acc->err) :
			   ncol > 1 ? dup0(col[1]) : NULL;
		acc->bad = ncol > 2 && !acc->doc;
	}
	return 0;
}

static const char *const EXPORT_SQL = "SELECT run_id, document, zdoc FROM documents WHERE run_id = ?";

int bc_archive_export(bc_archive *a, const char *run_id, char **doc, size_t *len, bc_err *e)
{
	doc_acc acc = { 0 };
	bc_dbval p = DBT(run_id);
	if (a->version && ar_q(a, EXPORT_SQL, &p, 1, doc_row, &acc, e))
		return -1;
	if (acc.bad) {
		*e = acc.err;
		free(acc.run_id);
		return -1;
	}
	if (!acc.n) {
		char *sh = bc_printable(run_id);
		bc_err_set(e, "no run %s in the results archive %s", sh, a->db->shown);
		bc_err_hint(e, "benchcore db list shows the stored runs");
		free(sh);
		return -1;
	}
	free(acc.run_id);
	*doc = acc.doc;
	*len = strlen(acc.doc);
	return 0;
}

static int hex_prefix(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n >= 8 && n <= 32 && !s[n];
}

static const char *const BY_ID_SQL =
	"SELECT r.run_id, d.document, d.zdoc FROM runs r JOIN documents d ON d.run_id = r.run_id "
	"WHERE substr(r.run_id, 1, ?) = ? ORDER BY r.started DESC, r.run_id DESC";
static const char *const LATEST_SQL =
	"SELECT r.run_id, d.document, d.zdoc FROM runs r JOIN documents d ON d.run_id = r.run_id WHERE "
	"r.merged_into IS NULL AND " OPT_EQ("r.host") " ORDER BY r.started DESC, r.run_id DESC LIMIT 1";
static const char *const BY_LABEL_SQL =
	"SELECT run_id, NULL FROM runs WHERE label = ? AND merged_into IS NULL ORDER BY started DESC, run_id DESC";

static void ambiguous(const char *ref, const doc_acc *acc, bc_err *e)
{
	char list[400] = "";
	size_t l = 0;
	for (size_t i = 0; i < acc->n && i < 5; i++)
		l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "", acc->ids[i]);
	bc_err_set(e, "%zu runs' ids begin with %s", acc->n, ref);
	bc_err_detail(e, "They are %s%s.", list, acc->n > 5 ? ", ..." : "");
	bc_err_hint(e, "give more of the run_id");
}

/* TAG@HOST with that tag on that host: 1, acc holding its document (or *rc
   -1 on an error); 0 when ref is no such tag (a label, then). */
static int tag_ref(bc_archive *a, const char *ref, doc_acc *acc, int *rc, bc_err *e)
{
	const char *at = strchr(ref, '@');
	if (!at || at == ref || !at[1] || (size_t)(at - ref) > 40)
		return 0;
	char tag[48];
	snprintf(tag, sizeof(tag), "%.*s", (int)(at - ref), ref);
	if (!bc_archive_tag_name_ok(tag))
		return 0;
	char *id = NULL;
	if (bc_archive_tagged(a, tag, at + 1, &id, e)) {
		*rc = -1;
		return 1;
	}
	if (!id)
		return 0;
	bc_dbval q = DBT(id);
	*rc = ar_q(a, EXPORT_SQL, &q, 1, doc_row, acc, e);
	free(id);
	return 1;
}

int bc_archive_resolve(bc_archive *a, const char *ref, char **doc, size_t *len, char run_id[64],
		       size_t *others, bc_err *e)
{
	doc_acc acc = { 0 };
	int rc = 0;
	*others = 0;
	if (a->version == 0) {
		acc.n = 0;
	} else if (hex_prefix(ref)) {
		bc_dbval p[] = { DBI(strlen(ref)), DBT(ref) };
		rc = ar_q(a, BY_ID_SQL, p, 2, doc_row, &acc, e);
		if (!rc && acc.n > 1) {
			ambiguous(ref, &acc, e);
			rc = -1;
		}
	} else if (!strcmp(ref, "latest") || !strncmp(ref, "latest@", 7)) {
		const char *host = ref[6] == '@' ? ref + 7 : NULL;
		bc_dbval p[] = { DBT(host), DBT(host) };
		rc = ar_q(a, LATEST_SQL, p, 2, doc_row, &acc, e);
	} else if (tag_ref(a, ref, &acc, &rc, e)) {
		/* TAG@HOST: the run db tag marked (acc filled, or rc set) */
	} else {
		/* labels are stored as shown (bc_label_shown): a label with a
		   control character is found by its raw text and by db list's */
		char *label = bc_label_shown(ref);
		bc_dbval p = DBT(label);
		rc = ar_q(a, BY_LABEL_SQL, &p, 1, doc_row, &acc, e);
		free(label);
		if (!rc && acc.n) {	/* the newest with that label */
			char *id = acc.run_id;
			*others = acc.n - 1;
			free(acc.doc);
			acc = (doc_acc){ 0 };
			bc_dbval q = DBT(id);
			rc = ar_q(a, EXPORT_SQL, &q, 1, doc_row, &acc, e);
			free(id);
		}
	}
	if (!rc && acc.bad) {
		*e = acc.err;
		rc = -1;
	}
	if (!rc && !acc.n) {
		char *sh = bc_printable(ref);
		bc_err_set(e, "no run %s in the results archive %s", sh, a->db->shown);
		bc_err_detail(e, "A reference is a run_id (or its first 8 or more hex digits), latest, "
			      "latest@HOST, TAG@HOST (benchcore db tag RUN_ID baseline; db:baseline@HOST), or a "
			      "label (the newest run with it).");
		bc_err_hint(e, "benchcore db list shows the stored runs");
		free(sh);
		rc = -1;
	}
	if (!rc) {
		*doc = acc.doc;
		*len = strlen(acc.doc);
		snprintf(run_id, 64, "%s", acc.run_id);
		acc.doc = NULL;
	}
	free(acc.doc);
	free(acc.run_id);
	return rc;
}

/* history: the runs with points of one module (and metric, or each group's
   headline) and host, the facts they hold (each distinct one read once),
   which run holds which, then the points, put in time order here. The
   series asked for come from their index, the runs holding them from
   run_points (series_id, rid) alone; a point's row is read only for its
   figures. One statement per shape (metric or headline, a host or any). A
   part of a stored merged run is not a run of its own (the merged one is). */
#define SERIES_PTS " FROM run_points p JOIN series s ON s.series_id = p.series_id WHERE "
#define BY_METRIC "s.module = ? AND s.metric = ?"
#define BY_HEADLINE "s.module = ? AND s.headline = 1"
#define RUNS_WHERE(cond, host) \
	"r.rid IN (SELECT p.rid" SERIES_PTS cond ") AND r.merged_into IS NULL" host
#define AND_HOST " AND r.host = ?"
#define RUNS_SQL_OF(cond, host) \
	"SELECT r.rid, r.run_id, r.started, r.host, r.label, r.benchcore_version FROM runs r WHERE " \
	RUNS_WHERE(cond, host) " ORDER BY r.rid"
#define HELD_SQL_OF(cond, host) \
	"SELECT h.rid, h.fact_id FROM run_facts h WHERE h.rid IN (SELECT r.rid FROM runs r WHERE " \
	RUNS_WHERE(cond, host) ") ORDER BY h.rid"
#define FACTS_SQL_OF(cond, host) \
	"SELECT fact_id, kind, key, value FROM facts WHERE fact_id IN (SELECT h.fact_id FROM run_facts h " \
	"WHERE h.rid IN (SELECT r.rid FROM runs r WHERE " RUNS_WHERE(cond, host) ")) ORDER BY fact_id"
/* the points of those series (of the host's runs); a point of another run is passed over */
#define PTS_SQL_OF(cond, host) \
	"SELECT p.rid, p.seq, s.module, s.params_key, s.params_text, s.threads, s.metric, s.unit, " \
	"s.higher_is_better, s.headline, p.mean, p.ci_low, p.ci_high, p.n, s.module_version" SERIES_PTS cond host
#define PTS_HOST " AND p.rid IN (SELECT rid FROM runs WHERE host = ?)"
#define SHAPES(of, host) { { of(BY_HEADLINE, ""), of(BY_HEADLINE, host) }, { of(BY_METRIC, ""), of(BY_METRIC, host) } }
/* [metric given][host given] */
static const char *const RUNS_SQL[2][2] = SHAPES(RUNS_SQL_OF, AND_HOST);
static const char *const HELD_SQL[2][2] = SHAPES(HELD_SQL_OF, AND_HOST);
static const char *const FACTS_SQL[2][2] = SHAPES(FACTS_SQL_OF, AND_HOST);
static const char *const PTS_SQL[2][2] = SHAPES(PTS_SQL_OF, PTS_HOST);

/* a fact as read: its value parsed once, shared by every run holding it */
typedef struct hfact {
	long long id;
	int info;		/* kind 'info' (else 'host') */
	char *key;
	json_t *value;		/* NULL when its text does not read */
} hfact;

/* a run of the history: its row, and the facts it holds */
typedef struct hrun {
	long long rid;
	char *run_id, *started, *host, *label, *version;
	const hfact **held;
	size_t nheld;
	json_t *hostobj, *info;
} hrun;

/* a point found, with what puts it in time order */
typedef struct hpt {
	bc_hpoint p;
	const hrun *run;
	long long seq;
} hpt;

typedef struct hist_acc {
	const bc_history_query *q;
	hrun *runs;	/* by rid, ascending */
	size_t nruns;
	hfact *facts;	/* by fact_id, ascending */
	size_t nfacts;
	hpt *v;
	size_t n;
} hist_acc;

static double num_or_nan(const char *s)
{
	return s ? strtod(s, NULL) : NAN;
}

void ar_hpoint_of_row(bc_hpoint *p, char **col)
{
	*p = (bc_hpoint){
		.module = dup0(col[0]), .params_key = dup0(col[1]), .params_text = dup0(col[2]),
		.threads = col[3] ? atol(col[3]) : 0, .metric = dup0(col[4]), .unit = dup0(col[5]),
		.higher_is_better = col[6] && atoi(col[6]), .headline = col[7] && atoi(col[7]),
		.mean = num_or_nan(col[8]), .ci_low = num_or_nan(col[9]), .ci_high = num_or_nan(col[10]),
		.n = col[11] ? (size_t)atol(col[11]) : 0, .module_version = col[12] ? bc_xstrdup(col[12]) : NULL,
	};
}

static int hrun_row(void *arg, char **col, int ncol)
{
	hist_acc *acc = arg;
	(void)ncol;
	acc->runs = bc_xrealloc(acc->runs, acc->nruns + 1, sizeof(*acc->runs));
	acc->runs[acc->nruns++] = (hrun){
		.rid = col[0] ? atoll(col[0]) : 0, .run_id = dup0(col[1]), .started = dup0(col[2]),
		.host = dup0(col[3]), .label = dup0(col[4]), .version = col[5] && *col[5] ? bc_xstrdup(col[5]) : NULL,
	};
	return 0;
}

static int fact_row(void *arg, char **col, int ncol)
{
	hist_acc *acc = arg;
	(void)ncol;
	acc->facts = bc_xrealloc(acc->facts, acc->nfacts + 1, sizeof(*acc->facts));
	acc->facts[acc->nfacts++] = (hfact){
		.id = col[0] ? atoll(col[0]) : 0, .info = col[1] && !strcmp(col[1], "info"), .key = dup0(col[2]),
		.value = col[3] ? json_loads(col[3], JSON_DECODE_ANY, NULL) : NULL,
	};
	return 0;
}

static int fact_by_id(const void *k, const void *f)
{
	long long a = *(const long long *)k, b = ((const hfact *)f)->id;
	return a < b ? -1 : a > b;
}

static int run_by_rid(const void *k, const void *r)
{
	long long a = *(const long long *)k, b = ((const hrun *)r)->rid;
	return a < b ? -1 : a > b;
}

static hrun *run_of(hist_acc *acc, const char *rid)
{
	long long id = rid ? atoll(rid) : 0;
	return bsearch(&id, acc->runs, acc->nruns, sizeof(*acc->runs), run_by_rid);
}

static int held_row(void *arg, char **col, int ncol)
{
	hist_acc *acc = arg;
	(void)ncol;
	hrun *r = run_of(acc, col[0]);
	long long id = col[1] ? atoll(col[1]) : 0;
	const hfact *f = bsearch(&id, acc->facts, acc->nfacts, sizeof(*acc->facts), fact_by_id);
	if (r && f) {
		r->held = bc_xrealloc(r->held, r->nheld + 1, sizeof(*r->held));
		r->held[r->nheld++] = f;
	}
	return 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(const hfact *const *)a)->key, (*(const hfact *const *)b)->key);
}

/* a run's host object and module info from its facts, in the order of
   their keys (as a document's own objects were stored) */
static void run_objects(hrun *r)
{
	json_t *obj[2] = { json_object(), json_object() };
	if (r->nheld > 1)
		qsort(r->held, r->nheld, sizeof(*r->held), by_key);
	for (size_t i = 0; i < r->nheld; i++)
		if (r->held[i]->value)
			json_object_set(obj[r->held[i]->info], r->held[i]->key, r->held[i]->value);
	r->hostobj = obj[0];
	r->info = obj[1];
}

static int point_row(void *arg, char **col, int ncol)
{
	hist_acc *acc = arg;
	(void)ncol;
	const hrun *r = run_of(acc, col[0]);
	if (!r || !bc_points_where(col[3], acc->q))
		return 0;
	acc->v = bc_xrealloc(acc->v, acc->n + 1, sizeof(*acc->v));
	hpt *h = &acc->v[acc->n++];
	ar_hpoint_of_row(&h->p, col + 2);
	h->run = r;
	h->seq = col[1] ? atoll(col[1]) : 0;
	return 0;
}

/* time order: started, then run_id, then the run's own order */
static int by_time(const void *a, const void *b)
{
	const hpt *x = a, *y = b;
	int c = strcmp(x->run->started, y->run->started);
	if (!c)
		c = strcmp(x->run->run_id, y->run->run_id);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static void hist_free(hist_acc *acc)
{
	for (size_t i = 0; i < acc->nruns; i++) {
		hrun *r = &acc->runs[i];
		free(r->run_id), free(r->started), free(r->host), free(r->label), free(r->version), free(r->held);
		json_decref(r->hostobj), json_decref(r->info);
	}
	free(acc->runs);
	for (size_t i = 0; i < acc->nfacts; i++)
		free(acc->facts[i].key), json_decref(acc->facts[i].value);
	free(acc->facts);
	for (size_t i = 0; i < acc->n; i++)
		bc_hpoint_free(&acc->v[i].p);
	free(acc->v);
}

int bc_archive_history_points(const char *db, const bc_history_query *q,
			      bc_hpoint **pts, size_t *n, bc_err *e)
{
	*pts = NULL;
	*n = 0;
	if (!q || !q->module) {
		bc_err_set(e, "history: which module? (a query needs one)");
		return -1;
	}
	bc_archive *a = bc_archive_open(db, 0, e);
	if (!a)
		return -1;
	hist_acc acc = { .q = q };
	int m = q->metric != NULL, h = q->host != NULL, rc = 0;
	bc_dbval p[3] = { DBT(q->module) };
	size_t np = 1;
	if (m)
		p[np++] = DBT(q->metric);
	if (h)
		p[np++] = DBT(q->host);
	if (a->version)
		rc = ar_q(a, RUNS_SQL[m][h], p, np, hrun_row, &acc, e) ||
		     ar_q(a, FACTS_SQL[m][h], p, np, fact_row, &acc, e) ||
		     ar_q(a, HELD_SQL[m][h], p, np, held_row, &acc, e) ||
		     ar_q(a, PTS_SQL[m][h], p, np, point_row, &acc, e) ? -1 : 0;
	bc_archive_close(a);
	if (rc) {
		hist_free(&acc);
		return -1;
	}
	for (size_t i = 0; i < acc.nruns; i++)
		run_objects(&acc.runs[i]);
	if (acc.n > 1)	/* no points: v may be NULL, which qsort may not be given */
		qsort(acc.v, acc.n, sizeof(*acc.v), by_time);
	*pts = bc_xcalloc(acc.n + 1, sizeof(**pts));
	for (size_t i = 0; i < acc.n; i++) {
		bc_hpoint *o = &(*pts)[i];
		const hrun *r = acc.v[i].run;
		*o = acc.v[i].p;
		o->run_id = bc_xstrdup(r->run_id);
		o->started = bc_xstrdup(r->started);
		o->host = bc_xstrdup(r->host);
		o->label = bc_xstrdup(r->label);
		o->version = r->version ? bc_xstrdup(r->version) : NULL;
		/* runs share their host objects and module info: read them, do not change them */
		o->hostobj = json_incref(r->hostobj);
		o->info = json_incref(r->info);
	}
	*n = acc.n;
	acc.n = 0;	/* the points are the caller's now */
	hist_free(&acc);
	return 0;
}
