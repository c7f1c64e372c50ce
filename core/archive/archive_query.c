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

/* history: the points of one module (and metric, or each group's headline)
   and host, in time order; then the runs they belong to, once each, and
   the facts those runs hold, each distinct one read once. One statement
   per shape (metric or headline, a host or any): the series asked for
   come from their index, their points from theirs. A part of a stored
   merged run is not a run of its own (the merged one is). */
#define PTS_OF \
	" FROM run_points p JOIN series s ON s.series_id = p.series_id JOIN runs r ON r.rid = p.rid " \
	"WHERE r.merged_into IS NULL AND "
#define PTS_COLS \
	"SELECT r.run_id, r.started, r.host, s.module, s.params_key, s.params_text, s.threads, s.metric, s.unit, " \
	"s.higher_is_better, s.headline, p.mean, p.ci_low, p.ci_high, p.n, s.module_version" PTS_OF
#define PTS_ORDER " ORDER BY r.started, r.run_id, p.seq"
#define RIDS_OF "(SELECT p.rid" PTS_OF
/* the runs, with the facts each holds (a row per fact) */
#define RUNS_OF \
	"SELECT r.run_id, r.label, r.benchcore_version, h.fact_id FROM runs r LEFT JOIN run_facts h ON h.rid = r.rid " \
	"WHERE r.rid IN " RIDS_OF
#define FACTS_OF \
	"SELECT fact_id, kind, key, value FROM facts WHERE fact_id IN (SELECT h.fact_id FROM run_facts h " \
	"WHERE h.rid IN " RIDS_OF
#define BY_METRIC "s.module = ? AND s.metric = ?"
#define BY_HEADLINE "s.module = ? AND s.headline = 1"
#define AND_HOST " AND r.host = ?"
static const char *const POINTS_SQL[2][2] = {	/* [metric given][host given] */
	{ PTS_COLS BY_HEADLINE PTS_ORDER, PTS_COLS BY_HEADLINE AND_HOST PTS_ORDER },
	{ PTS_COLS BY_METRIC PTS_ORDER, PTS_COLS BY_METRIC AND_HOST PTS_ORDER },
};
static const char *const RUNS_OF_SQL[2][2] = {
	{ RUNS_OF BY_HEADLINE ") ORDER BY r.rid", RUNS_OF BY_HEADLINE AND_HOST ") ORDER BY r.rid" },
	{ RUNS_OF BY_METRIC ") ORDER BY r.rid", RUNS_OF BY_METRIC AND_HOST ") ORDER BY r.rid" },
};
static const char *const FACTS_OF_SQL[2][2] = {
	{ FACTS_OF BY_HEADLINE ")) ORDER BY fact_id", FACTS_OF BY_HEADLINE AND_HOST ")) ORDER BY fact_id" },
	{ FACTS_OF BY_METRIC ")) ORDER BY fact_id", FACTS_OF BY_METRIC AND_HOST ")) ORDER BY fact_id" },
};

/* a fact as read: its value parsed once, shared by every run holding it */
typedef struct hfact {
	long long id;
	int info;		/* kind 'info' (else 'host') */
	char *key;
	json_t *value;		/* NULL when its text does not read */
} hfact;

typedef struct hist_acc {
	const bc_history_query *q;
	bc_hpoint *v;
	size_t n;
	json_t *runs;	/* run_id -> [label, host, info, version] */
	hfact *facts;	/* by fact_id, ascending */
	size_t nfacts;
	/* the run being read (RUNS_OF's rows come run by run), its facts */
	char *run_id, *label, *version;
	const hfact **held;
	size_t nheld;
} hist_acc;

static double num_or_nan(const char *s)
{
	return s ? strtod(s, NULL) : NAN;
}

void ar_hpoint_of_row(bc_hpoint *p, char **col)
{
	*p = (bc_hpoint){
		.run_id = dup0(col[0]), .started = dup0(col[1]), .host = dup0(col[2]), .module = dup0(col[3]),
		.params_key = dup0(col[4]), .params_text = dup0(col[5]), .threads = col[6] ? atol(col[6]) : 0,
		.metric = dup0(col[7]), .unit = dup0(col[8]), .higher_is_better = col[9] && atoi(col[9]),
		.headline = col[10] && atoi(col[10]), .mean = num_or_nan(col[11]), .ci_low = num_or_nan(col[12]),
		.ci_high = num_or_nan(col[13]), .n = col[14] ? (size_t)atol(col[14]) : 0,
		.module_version = col[15] ? bc_xstrdup(col[15]) : NULL,
	};
}

static int point_row(void *arg, char **col, int ncol)
{
	hist_acc *acc = arg;
	(void)ncol;
	if (!bc_points_where(col[4], acc->q))
		return 0;
	acc->v = bc_xrealloc(acc->v, acc->n + 1, sizeof(*acc->v));
	ar_hpoint_of_row(&acc->v[acc->n++], col);
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

static int by_id(const void *k, const void *f)
{
	long long a = *(const long long *)k, b = ((const hfact *)f)->id;
	return a < b ? -1 : a > b;
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(const hfact *const *)a)->key, (*(const hfact *const *)b)->key);
}

/* The run read so far: its host object and module info from its facts,
   in the order of their keys (as a document's own objects were stored) */
static void run_done(hist_acc *acc)
{
	if (!acc->run_id)
		return;
	json_t *obj[2] = { json_object(), json_object() };
	qsort(acc->held, acc->nheld, sizeof(*acc->held), by_key);
	for (size_t i = 0; i < acc->nheld; i++)
		if (acc->held[i]->value)
			json_object_set(obj[acc->held[i]->info], acc->held[i]->key, acc->held[i]->value);
	json_object_set_new(acc->runs, acc->run_id,
			    json_pack("[s, o, o, s?]", acc->label, obj[0], obj[1], acc->version));
	free(acc->run_id), free(acc->label), free(acc->version);
	acc->run_id = acc->label = acc->version = NULL;
	acc->nheld = 0;
}

static int run_of_row(void *arg, char **col, int ncol)
{
	hist_acc *acc = arg;
	(void)ncol;
	if (!acc->run_id || strcmp(acc->run_id, col[0] ? col[0] : "")) {
		run_done(acc);
		acc->run_id = dup0(col[0]);
		acc->label = dup0(col[1]);
		acc->version = col[2] ? bc_xstrdup(col[2]) : NULL;
	}
	long long id = col[3] ? atoll(col[3]) : 0;
	const hfact *f = col[3] ? bsearch(&id, acc->facts, acc->nfacts, sizeof(*acc->facts), by_id) : NULL;
	if (f) {
		acc->held = bc_xrealloc(acc->held, acc->nheld + 1, sizeof(*acc->held));
		acc->held[acc->nheld++] = f;
	}
	return 0;
}

static void fill_runs(hist_acc *acc)
{
	for (size_t i = 0; i < acc->n; i++) {
		bc_hpoint *p = &acc->v[i];
		json_t *r = json_object_get(acc->runs, p->run_id);
		p->label = dup0(json_string_value(json_array_get(r, 0)));
		/* r is always there: the runs of points exist (foreign key) */
		p->hostobj = r ? json_incref(json_array_get(r, 1)) : json_object();
		p->info = r ? json_incref(json_array_get(r, 2)) : json_object();
		const char *v = json_string_value(json_array_get(r, 3));
		p->version = v && *v ? bc_xstrdup(v) : NULL;
	}
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
	hist_acc acc = { .q = q, .runs = json_object() };
	int m = q->metric != NULL, h = q->host != NULL, rc = 0;
	bc_dbval p[3] = { DBT(q->module) };
	size_t np = 1;
	if (m)
		p[np++] = DBT(q->metric);
	if (h)
		p[np++] = DBT(q->host);
	if (a->version)
		rc = ar_q(a, POINTS_SQL[m][h], p, np, point_row, &acc, e) ||
		     ar_q(a, FACTS_OF_SQL[m][h], p, np, fact_row, &acc, e) ||
		     ar_q(a, RUNS_OF_SQL[m][h], p, np, run_of_row, &acc, e) ? -1 : 0;
	run_done(&acc);
	if (!rc) {
		fill_runs(&acc);
		*pts = acc.v;
		*n = acc.n;
	} else {
		bc_hpoints_free(acc.v, acc.n);
	}
	json_decref(acc.runs);
	for (size_t i = 0; i < acc.nfacts; i++)
		free(acc.facts[i].key), json_decref(acc.facts[i].value);
	free(acc.facts);
	free(acc.held);
	bc_archive_close(a);
	return rc;
}
