/* A module's description (probe.h): its descriptor as JSON, written in the
   probe child (and in the case's process, to compare) and parsed into a
   bc_module in the parent; probe_run.c runs the children. JSON, so the
   parent needs no knowledge of the module's memory, and a malformed one is
   only a load error. */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "abi.h"
#include "probe.h"
#include "util.h"

/* ------------------------------------------------------- child: describe */

typedef struct wr {
	int bad;			/* a string was not UTF-8 */
	const char *what;
} wr;

static json_t *jstr(wr *w, const char *s, const char *what)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (!j && !w->bad) {
		w->bad = 1;
		w->what = what;
	}
	return j ? j : json_null();
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();	/* NaN/inf: null, refused by the checks */
}

/* A NULL-terminated string vector; -1 when it runs past BC_PROBE_TABLE_CAP. */
static json_t *jstrv(wr *w, const char *const *v, const char *what, size_t cap)
{
	if (!v)
		return json_null();
	json_t *a = json_array();
	for (size_t i = 0; v[i]; i++) {
		if (i == cap) {
			json_decref(a);
			return NULL;
		}
		json_array_append_new(a, jstr(w, v[i], what));
	}
	return a;
}

/* Scalar fields by kind (abi.h's tables); past 2^63 a U64 or SIZE turns
   negative, which the parse refuses. */
#define PUT_NUM(kind, type) \
	static json_t *put_##kind(wr *w, const type *v, const char *what) \
	{ (void)w, (void)what; return json_integer((json_int_t)*v); }
PUT_NUM(U32, uint32_t)
PUT_NUM(INT, int)
PUT_NUM(SIZE, size_t)
PUT_NUM(U64, uint64_t)
#undef PUT_NUM
static json_t *put_STR(wr *w, const char *const *v, const char *what) { return jstr(w, *v, what); }
static json_t *put_TYPE(wr *w, const bench_opt_type *v, const char *what)
{
	(void)w, (void)what;
	return json_integer((json_int_t)*v);
}
static json_t *put_NUM(wr *w, const double *v, const char *what) { (void)w, (void)what; return jnum(*v); }
static json_t *put_BOOL(wr *w, const int *v, const char *what) { (void)w, (void)what; return json_boolean(*v); }

static json_t *options_json(wr *w, const bench_option_v1 *o, bc_err *e)
{
	if (!o)
		return json_null();
	json_t *a = json_array();
	for (size_t i = 0; o[i].name; i++) {
		json_t *ch = i < BC_PROBE_TABLE_CAP ? jstrv(w, o[i].choices, "an option's choices", BC_PROBE_TABLE_CAP) : NULL;
		if (!ch) {
			bc_err_set(e, "options table (or an option's choices) has no terminator within %d entries",
				   BC_PROBE_TABLE_CAP);
			json_decref(a);
			return NULL;
		}
		json_t *j = json_object();
#define PUT(kind, f, what) json_object_set_new(j, #f, put_##kind(w, &o[i].f, what));
		BC_ABI_OPTION(PUT)
#undef PUT
		json_object_set_new(j, "choices", ch);
		json_array_append_new(a, j);
	}
	return a;
}

static json_t *metrics_json(wr *w, const bench_metric_v1 *m)
{
	if (!m)
		return json_null();
	json_t *a = json_array();
	for (size_t i = 0; m[i].name; i++) {
		if (i == BC_PROBE_TABLE_CAP) {
			json_decref(a);
			return NULL;
		}
		json_t *j = json_object();
#define PUT(kind, f, what) json_object_set_new(j, #f, put_##kind(w, &m[i].f, what));
		BC_ABI_METRIC(PUT)
#undef PUT
		json_array_append_new(a, j);
	}
	return a;
}

static json_t *thresholds_json(wr *w, const bench_threshold_v1 *t)
{
	if (!t)
		return json_null();
	json_t *a = json_array();
	for (size_t i = 0; t[i].metric; i++) {
		if (i == BC_PROBE_TABLE_CAP) {
			json_decref(a);
			return NULL;
		}
		json_t *j = json_object();
#define PUT(kind, f, what) json_object_set_new(j, #f, put_##kind(w, &t[i].f, what));
		BC_ABI_THRESHOLD(PUT)
#undef PUT
		json_array_append_new(a, j);
	}
	return a;
}

static void put_scalars(wr *w, json_t *root, const bench_module_v1 *d)
{
	json_t *rq = json_object(), *cb = json_array();
#define PUT(kind, f, what) json_object_set_new(root, #f, put_##kind(w, &d->f, what));
	BC_ABI_SCALARS(PUT)
#undef PUT
#define PUT(kind, f, what) json_object_set_new(rq, #f, put_##kind(w, &d->requires.f, what));
	BC_ABI_REQUIRES(PUT)
#undef PUT
#define PUT(f, stub) if (d->f) json_array_append_new(cb, json_string(#f));
	BC_ABI_CALLBACKS(PUT)
#undef PUT
	json_object_set_new(root, "requires", rq);
	json_object_set_new(root, "callbacks", cb);
}

char *bc_probe_describe(const bench_module_v1 *d, bc_err *e)
{
	wr w = { 0 };
	int reserved = -1;
	for (int i = 7; i >= 0; i--)
		if (d->reserved[i])
			reserved = i;
	json_t *opts = options_json(&w, d->options, e);
	json_t *ops = jstrv(&w, d->op_classes, "an op class", BENCH_MAX_OP_CLASSES + 1);
	json_t *mets = metrics_json(&w, d->metrics);
	json_t *dopts = jstrv(&w, d->data_options, "a data option", BC_PROBE_TABLE_CAP);
	json_t *ths = thresholds_json(&w, d->thresholds);
	if (!opts || !ops || !mets || !dopts || !ths) {
		if (opts && ops)
			bc_err_set(e, "a table of the descriptor (metrics, data_options or thresholds) "
				   "has no terminator within %d entries", BC_PROBE_TABLE_CAP);
		else if (opts)
			bc_err_set(e, "op_classes has no terminator within %d entries", BENCH_MAX_OP_CLASSES + 1);
		json_decref(opts); json_decref(ops); json_decref(mets);
		json_decref(dopts); json_decref(ths);
		return NULL;
	}
	json_t *root = json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "reserved", reserved, "options", opts,
				 "op_classes", ops, "metrics", mets, "data_options", dopts, "thresholds", ths);
	put_scalars(&w, root, d);
	if (w.bad) {
		bc_err_set(e, "%s is not valid UTF-8", w.what);
		json_decref(root);
		return NULL;
	}
	char *s = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return s;
}

char *bc_probe_describe_host(const char *path, const bench_module_v1 *d, bc_err *e)
{
	if (bc_abi_check_newer(path, d, e))
		return NULL;
	bench_module_v1 copy;
	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, d, d->struct_size < sizeof(copy) ? d->struct_size : sizeof(copy));
	/* the one walk of the module's own options[]: by its option_size, into
	   this host's layout; everything after reads the host's */
	bench_option_v1 *opts;
	if (bc_abi_host_options(path, d, &opts, e))
		return NULL;
	copy.options = opts;
	char *s = bc_probe_describe(&copy, e);
	free(opts);
	if (!s) {
		char why[sizeof(e->msg)];	/* e->msg is both the reason and the new message */
		snprintf(why, sizeof(why), "%s", e->msg);
		bc_err_set(e, "invalid module \"%s\": %s", path, why);
		bc_err_hint(e, "terminate every table of the descriptor; use UTF-8 strings");
	}
	return s;
}

/* ------------------------------------------------------- parent: parse */

/* What a parsed description's tables live in. */
typedef struct bc_meta {
	json_t *root;			/* the strings point into it */
	void **allocs;
	size_t nallocs;
} bc_meta;

static void *meta_alloc(bc_meta *mt, size_t n, size_t sz)
{
	void *p = bc_xcalloc(n + 1, sz);
	mt->allocs = bc_xrealloc(mt->allocs, mt->nallocs + 1, sizeof(void *));
	mt->allocs[mt->nallocs++] = p;
	return p;
}

const json_t *bc_probe_description(const bc_module *m)
{
	const bc_meta *mt = m->meta;
	return mt ? mt->root : NULL;
}

void bc_module_free(bc_module *m)
{
	bc_meta *mt = m->meta;
	if (mt) {
		for (size_t i = 0; i < mt->nallocs; i++)
			free(mt->allocs[i]);
		free(mt->allocs);
		json_decref(mt->root);
		free(mt);
	}
	free(m->path);
	free(m->shadows);
	m->meta = NULL;
	m->path = m->shadows = NULL;
}

/* Callbacks of a described module that is not opened in this process: never
   called (bc_module_open replaces them); a call would be a core bug. */
static void stub_called(void)
{
	fprintf(stderr, "benchcore: internal error: a module callback ran before the module was opened\n");
	abort();
}
static int stub_init(const bench_host_api_v1 *a, bench_ctx *c, void **s) { (void)a; (void)c; (void)s; stub_called(); return BENCH_ERR; }
static int stub_state(void *s) { (void)s; stub_called(); return BENCH_ERR; }
static int stub_thread_init(void *s, bench_thread *t, void **ts) { (void)s; (void)t; (void)ts; stub_called(); return BENCH_ERR; }
static int stub_event(void *t, uint64_t *b) { (void)t; (void)b; stub_called(); return BENCH_ERR; }
static void stub_void(void *s) { (void)s; stub_called(); }
static int stub_serve(const bench_serve_v1 *a) { (void)a; stub_called(); return BENCH_ERR; }
static int stub_needs(const bench_host_api_v1 *a, bench_ctx *c, bench_needs_v1 *o) { (void)a; (void)c; (void)o; stub_called(); return BENCH_ERR; }

static int set_stub(bench_module_v1 *d, const char *name)
{
#define STUB(f, stub) if (!strcmp(name, #f)) return d->f = stub, 0;
	BC_ABI_CALLBACKS(STUB)
#undef STUB
	return -1;
}

/* A text of the description that is only shown (summary, version, help,
   unit, service): escaped once here, so list, help, docs and results never
   carry its control characters (bc_text_dup). */
static const char *shown(bc_meta *mt, const char *s)
{
	if (!s)
		return NULL;
	char *p = bc_text_dup(s);
	if (!strcmp(p, s)) {
		free(p);
		return s;
	}
	char *k = meta_alloc(mt, strlen(p), 1);
	memcpy(k, p, strlen(p));
	free(p);
	return k;
}

/* Field readers: 0 when the field has the expected shape. */
static int get_str(json_t *o, const char *k, const char **out)
{
	json_t *v = json_object_get(o, k);
	*out = json_is_string(v) ? json_string_value(v) : NULL;
	return !v || json_is_null(v) || json_is_string(v) ? 0 : -1;
}

static int get_int(json_t *o, const char *k, long long lo, long long hi, long long *out)
{
	json_t *v = json_object_get(o, k);
	*out = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return -1;
	*out = json_integer_value(v);
	return 0;
}

static double get_num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!v)
		return 0;
	return json_is_number(v) ? json_number_value(v) : NAN;	/* null: it was NaN or infinite */
}

/* A string vector (NULL-terminated) in mt; *out NULL for null. */
static int get_strv(bc_meta *mt, json_t *o, const char *k, const char *const **out, size_t cap)
{
	json_t *v = json_object_get(o, k);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > cap)
		return -1;
	const char **a = meta_alloc(mt, json_array_size(v), sizeof(char *));
	for (size_t i = 0; i < json_array_size(v); i++) {
		if (!json_is_string(json_array_get(v, i)))
			return -1;
		a[i] = json_string_value(json_array_get(v, i));
	}
	*out = a;
	return 0;
}

/* Scalar fields by kind (abi.h's tables); a missing one reads as 0 / NULL. */
#define GET_NUM(kind, type, lo, hi) \
	static int get_##kind(json_t *o, const char *k, type *out) \
	{ long long v; return get_int(o, k, lo, hi, &v) ? -1 : (*out = (type)v, 0); }
GET_NUM(U32, uint32_t, 0, UINT32_MAX)
GET_NUM(INT, int, INT_MIN, INT_MAX)
GET_NUM(SIZE, size_t, 0, LLONG_MAX)
GET_NUM(U64, uint64_t, 0, LLONG_MAX)
GET_NUM(TYPE, bench_opt_type, INT_MIN, INT_MAX)
#undef GET_NUM
#define get_STR get_str
static int get_NUM(json_t *o, const char *k, double *out) { return *out = get_num(o, k), 0; }
static int get_BOOL(json_t *o, const char *k, int *out)
{
	return *out = json_is_true(json_object_get(o, k)), 0;
}

static int parse_options(bc_meta *mt, json_t *root, bench_module_v1 *d)
{
	json_t *v = json_object_get(root, "options");
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > BC_PROBE_TABLE_CAP)
		return -1;
	bench_option_v1 *o = meta_alloc(mt, json_array_size(v), sizeof(*o));
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *j = json_array_get(v, i);
		if (!json_is_object(j))
			return -1;
#define GET(kind, f, what) if (get_##kind(j, #f, &o[i].f)) return -1;
		BC_ABI_OPTION(GET)
#undef GET
		if (!o[i].name || get_strv(mt, j, "choices", &o[i].choices, BC_PROBE_TABLE_CAP))
			return -1;
		o[i].help = shown(mt, o[i].help);
	}
	d->options = o;
	return 0;
}

static int parse_metrics(bc_meta *mt, json_t *root, bench_module_v1 *d)
{
	json_t *v = json_object_get(root, "metrics");
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > BC_PROBE_TABLE_CAP)
		return -1;
	bench_metric_v1 *m = meta_alloc(mt, json_array_size(v), sizeof(*m));
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *j = json_array_get(v, i);
		if (!json_is_object(j))
			return -1;
#define GET(kind, f, what) if (get_##kind(j, #f, &m[i].f)) return -1;
		BC_ABI_METRIC(GET)
#undef GET
		if (!m[i].name)
			return -1;
		m[i].unit = shown(mt, m[i].unit);
	}
	d->metrics = m;
	return 0;
}

static int parse_thresholds(bc_meta *mt, json_t *root, bench_module_v1 *d)
{
	json_t *v = json_object_get(root, "thresholds");
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > BC_PROBE_TABLE_CAP)
		return -1;
	bench_threshold_v1 *t = meta_alloc(mt, json_array_size(v), sizeof(*t));
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *j = json_array_get(v, i);
		if (!json_is_object(j))
			return -1;
#define GET(kind, f, what) if (get_##kind(j, #f, &t[i].f)) return -1;
		BC_ABI_THRESHOLD(GET)
#undef GET
		if (!t[i].metric)
			return -1;
	}
	d->thresholds = t;
	return 0;
}

static int parse_scalars(json_t *root, bench_module_v1 *d)
{
	json_t *rq = json_object_get(root, "requires"), *cb = json_object_get(root, "callbacks");
	if ((rq && !json_is_object(rq)) || (cb && !json_is_array(cb)))
		return -1;
#define GET(kind, f, what) if (get_##kind(root, #f, &d->f)) return -1;
	BC_ABI_SCALARS(GET)
#undef GET
#define GET(kind, f, what) if (get_##kind(rq, #f, &d->requires.f)) return -1;
	BC_ABI_REQUIRES(GET)
#undef GET
	for (size_t i = 0; cb && i < json_array_size(cb); i++)
		if (!json_is_string(json_array_get(cb, i)) || set_stub(d, json_string_value(json_array_get(cb, i))))
			return -1;
	return 0;
}

static int parse_body(bc_meta *mt, json_t *root, bc_module *m)
{
	bench_module_v1 *d = &m->desc;
	long long res;
	if (parse_scalars(root, d) || get_int(root, "reserved", -1, 7, &res))
		return -1;
	if (res >= 0)
		d->reserved[res] = d;	/* any non-NULL value: check_contents names the slot */
	d->version = shown(mt, d->version);
	d->summary = shown(mt, d->summary);
	d->requires.service = shown(mt, d->requires.service);
	if (parse_options(mt, root, d) || parse_metrics(mt, root, d) || parse_thresholds(mt, root, d) ||
	    get_strv(mt, root, "op_classes", &d->op_classes, BENCH_MAX_OP_CLASSES + 1) ||
	    get_strv(mt, root, "data_options", &d->data_options, BC_PROBE_TABLE_CAP) ||
	    get_strv(mt, root, "libs", (const char *const **)&m->libs, BC_PROBE_TABLE_CAP))
		return -1;
	return 0;
}

int bc_probe_parse(const char *text, size_t len, const char *path, bc_module *m, bc_err *e)
{
	memset(m, 0, sizeof(*m));
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	json_t *err = json_object_get(root, "error");
	if (json_is_object(err)) {
		const char *msg = NULL, *detail = NULL, *hint = NULL;
		get_str(err, "msg", &msg);
		get_str(err, "detail", &detail);
		get_str(err, "hint", &hint);
		bc_err_set(e, "%s", msg ? msg : "the module could not be described");
		if (detail)
			bc_err_detail(e, "%s", detail);
		if (hint)
			bc_err_hint(e, "%s", hint);
		json_decref(root);
		return -1;
	}
	bc_meta *mt = bc_xcalloc(1, sizeof(*mt));
	mt->root = root;
	m->meta = mt;
	if (!json_is_object(root) || parse_body(mt, root, m)) {
		bc_module_free(m);
		memset(m, 0, sizeof(*m));
		bc_err_set(e, "could not load module \"%s\": its description from the probe process is malformed", path);
		bc_err_hint(e, "this is a benchcore bug or a module that writes to benchcore's descriptors; report it");
		return -2;
	}
	return 0;
}
