/* Module probes: a child per file describes its descriptor over a pipe (see
   probe.h). The description is JSON: the parent needs no knowledge of the
   module's memory, and a malformed one is only a load error. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"
#include "probe.h"
#include "reap.h"
#include "util.h"

#define TABLE_CAP	4096		/* entries before a table counts as unterminated */
#define DESC_CAP	(8u << 20)	/* bytes of description accepted */
#define PROBES_AT_ONCE	8

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

/* A NULL-terminated string vector; -1 when it runs past TABLE_CAP. */
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
		json_t *ch = i < TABLE_CAP ? jstrv(w, o[i].choices, "an option's choices", TABLE_CAP) : NULL;
		if (!ch) {
			bc_err_set(e, "options table (or an option's choices) has no terminator within %d entries",
				   TABLE_CAP);
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
		if (i == TABLE_CAP) {
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
		if (i == TABLE_CAP) {
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
	json_t *dopts = jstrv(&w, d->data_options, "a data option", TABLE_CAP);
	json_t *ths = thresholds_json(&w, d->thresholds);
	if (!opts || !ops || !mets || !dopts || !ths) {
		if (opts && ops)
			bc_err_set(e, "a table of the descriptor (metrics, data_options or thresholds) "
				   "has no terminator within %d entries", TABLE_CAP);
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
	if (!json_is_array(v) || json_array_size(v) > TABLE_CAP)
		return -1;
	bench_option_v1 *o = meta_alloc(mt, json_array_size(v), sizeof(*o));
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *j = json_array_get(v, i);
		if (!json_is_object(j))
			return -1;
#define GET(kind, f, what) if (get_##kind(j, #f, &o[i].f)) return -1;
		BC_ABI_OPTION(GET)
#undef GET
		if (!o[i].name || get_strv(mt, j, "choices", &o[i].choices, TABLE_CAP))
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
	if (!json_is_array(v) || json_array_size(v) > TABLE_CAP)
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
	if (!json_is_array(v) || json_array_size(v) > TABLE_CAP)
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
	    get_strv(mt, root, "data_options", &d->data_options, TABLE_CAP) ||
	    get_strv(mt, root, "libs", (const char *const **)&m->libs, TABLE_CAP))
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

/* ------------------------------------------------------- child: probe */

static int probe_fd = -1;

static void send_all(const char *s)
{
	(void)bc_write_all(probe_fd, s, strlen(s));
}

/* The probe ends: whatever the constructors started (a setsid daemon, a
   double fork) came to it, a subreaper, and goes with it. */
static void probe_exit(void)
{
	bc_kill_strays(NULL, 0);
	_exit(0);
}

static void send_error(const bc_err *e)
{
	json_t *j = json_pack("{s:{s:s?, s:s?, s:s?}}", "error", "msg", e->msg, "detail",
			      e->detail[0] ? e->detail : NULL, "hint", e->hint[0] ? e->hint : NULL);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	send_all(s ? s : "{\"error\":{\"msg\":\"the module's load error is not valid UTF-8\"}}");
	probe_exit();
}

typedef struct objlist {
	char **v;
	size_t n;
} objlist;

static int collect_obj(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	objlist *l = arg;
	if (info->dlpi_name && info->dlpi_name[0] && l->n < TABLE_CAP) {
		l->v = bc_xrealloc(l->v, l->n + 1, sizeof(char *));
		l->v[l->n++] = bc_xstrdup(info->dlpi_name);
	}
	return 0;
}

static int in_list(const objlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] && !strcmp(l->v[i], s))
			return 1;
	return 0;
}

/* The libraries the module brought in (for the parent's trust check). */
static json_t *new_libs(const objlist *before, const char *self)
{
	objlist after = { 0 };
	char real[PATH_MAX], me[PATH_MAX];
	dl_iterate_phdr(collect_obj, &after);
	json_t *a = json_array();
	if (!realpath(self, me))
		snprintf(me, sizeof(me), "%s", self);
	for (size_t i = 0; i < after.n; i++)
		if (after.v[i] && !in_list(before, after.v[i]) && realpath(after.v[i], real) && strcmp(real, me)) {
			json_t *s = json_string(real);
			if (s)
				json_array_append_new(a, s);
		}
	return a;
}

static void probe_child(const char *path)
{
	bc_err e;
	objlist before = { 0 };
	dl_iterate_phdr(collect_obj, &before);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		bc_err_set(&e, "could not load module \"%s\"", path);
		bc_err_detail(&e, "%s", dlerror());
		bc_err_hint(&e, "check its dependencies with: ldd %s", path);
		send_error(&e);
	}
	const bench_module_v1 *(*entry)(void);
	*(void **)&entry = dlsym(h, BENCH_ENTRY_SYMBOL);
	if (!entry) {
		bc_err_set(&e, "invalid module \"%s\": no %s symbol", path, BENCH_ENTRY_SYMBOL);
		bc_err_detail(&e, "Every benchcore module exports one entry function.");
		bc_err_hint(&e, "define it with BENCH_MODULE(descriptor) from <benchcore/module.h>; is this a benchcore module?");
		send_error(&e);
	}
	const bench_module_v1 *d = entry();
	if (!d) {
		bc_err_set(&e, "invalid module \"%s\": its entry function returned NULL", path);
		bc_err_detail(&e, "%s() must return the address of the module's descriptor.", BENCH_ENTRY_SYMBOL);
		bc_err_hint(&e, "define the entry with BENCH_MODULE(descriptor); a descriptor is a static const bench_module_v1");
		send_error(&e);
	}
	char *s = NULL;
	if (bc_module_check_header(path, d, &e) || !(s = bc_probe_describe_host(path, d, &e)))
		send_error(&e);
	json_t *root = json_loads(s, 0, NULL);
	json_object_set_new(root, "libs", new_libs(&before, path));
	char *out = json_dumps(root, JSON_COMPACT);
	send_all(out ? out : s);
	probe_exit();
}

/* ------------------------------------------------------- parent: run */

typedef struct active {
	bc_probe *p;
	pid_t pid;
	int out, err;			/* read ends; -1 at EOF */
	char *buf;
	size_t len, cap;
	char tail[512];			/* the last bytes it printed */
	size_t tlen;
	uint64_t deadline;
	int too_big;
} active;

static double probe_timeout(void)
{
	const char *s = getenv("BENCHCORE_PROBE_TIMEOUT");
	double t;
	if (s && !bc_parse_double(s, &t) && t > 0 && t <= 3600)
		return t;
	return BC_PROBE_TIMEOUT_S;
}

static int start_probe(active *a, bc_probe *p, double timeout)
{
	int out[2], err[2];
	memset(a, 0, sizeof(*a));
	a->p = p;
	if (pipe2(out, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) != 0) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		setsid();	/* a session of its own: what it starts is killed with it, and
				   kill(0, ...) in a constructor reaches only the probe */
		prctl(PR_SET_CHILD_SUBREAPER, 1);	/* a daemon it starts stays its child */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(err[1], 1);	/* its prints never reach benchcore's stdout */
		dup2(err[1], 2);
		probe_fd = out[1];
		probe_child(p->path);
		_exit(0);
	}
	close(out[1]);
	close(err[1]);
	if (pid < 0) {
		close(out[0]);
		close(err[0]);
		return -1;
	}
	/* no setpgid here: setsid in the child would fail for a group leader */
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	a->pid = pid;
	a->out = out[0];
	a->err = err[0];
	a->cap = 65536;
	a->buf = bc_xmalloc(a->cap);
	a->deadline = bc_now_ns() + (uint64_t)(timeout * 1e9);
	return 0;
}

/* Reads what is there; 1 when both pipes are at EOF. */
static int drain(active *a)
{
	char tmp[4096];
	ssize_t n;
	while (a->out >= 0 && (n = read(a->out, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (a->len + (size_t)n > DESC_CAP) {
			a->too_big = 1;
			continue;
		}
		while (a->len + (size_t)n + 1 > a->cap)
			a->buf = bc_xrealloc(a->buf, a->cap *= 2, 1);
		memcpy(a->buf + a->len, tmp, (size_t)n);
		a->len += (size_t)n;
	}
	if (a->out >= 0 && n == 0) {
		close(a->out);
		a->out = -1;
	}
	while (a->err >= 0 && (n = read(a->err, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {	/* keep the last bytes */
			if (a->tlen == sizeof(a->tail) - 1) {
				memmove(a->tail, a->tail + 256, a->tlen - 256);
				a->tlen -= 256;
			}
			a->tail[a->tlen++] = tmp[i];
		}
	}
	if (a->err >= 0 && n == 0) {
		close(a->err);
		a->err = -1;
	}
	return a->out < 0 && a->err < 0;
}

/* The last line the probe printed, for the detail. */
static const char *last_line(active *a)
{
	a->tail[a->tlen] = '\0';
	while (a->tlen && (a->tail[a->tlen - 1] == '\n' || a->tail[a->tlen - 1] == '\r'))
		a->tail[--a->tlen] = '\0';
	char *nl = strrchr(a->tail, '\n');
	char *s = nl ? nl + 1 : a->tail;
	for (char *c = s; *c; c++)
		if ((unsigned char)*c < 32)
			*c = ' ';
	return s;
}

static void finish_probe(active *a, int st, int timed_out, double timeout)
{
	bc_probe *p = a->p;
	const char *path = p->path, *said = last_line(a);
	char printed[600] = "";
	if (*said)
		snprintf(printed, sizeof(printed), " Its last output: \"%.500s\".", said);
	/* a whole description (or load error) is the answer, whatever the exit
	   status: the child wrote it last (under valgrind it exits 99 on leaks) */
	int parsed = !timed_out && !a->too_big && a->len ? bc_probe_parse(a->buf, a->len, path, &p->m, &p->err) : -2;
	if (parsed == 0) {
		p->ok = 1;
		return;
	}
	if (parsed == -1)
		return;
	memset(&p->m, 0, sizeof(p->m));
	if (timed_out) {
		bc_err_set(&p->err, "could not load module \"%s\": loading it did not finish within %g s (killed)",
			   path, timeout);
		bc_err_detail(&p->err, "A constructor of the module or of a library it links hangs; it ran in a "
			      "probe process, never in benchcore's.%s", printed);
		bc_err_hint(&p->err, "find what the constructor waits for (gdb --args benchcore list); "
			    "BENCHCORE_PROBE_TIMEOUT sets the limit in seconds");
	} else if (WIFSIGNALED(st)) {
		bc_err_set(&p->err, "could not load module \"%s\": it crashed while loading (signal %d, %s)", path,
			   WTERMSIG(st), strsignal(WTERMSIG(st)));
		bc_err_detail(&p->err, "A constructor of the module or of a library it links, or its entry "
			      "function, failed; it ran in a probe process, never in benchcore's.%s", printed);
		bc_err_hint(&p->err, "run its constructors under a debugger: gdb --args benchcore list");
	} else if (a->too_big) {
		bc_err_set(&p->err, "invalid module \"%s\": its description is larger than %u bytes", path, DESC_CAP);
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || a->len == 0 || parsed == -2) {
		bc_err_set(&p->err, "could not load module \"%s\": it exited with status %d while loading", path,
			   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		bc_err_detail(&p->err, "A constructor of the module or of a library it links, or its entry "
			      "function, called exit(); a module never exits.%s", printed);
		bc_err_hint(&p->err, "remove the exit() from the module's constructors");
		if (parsed == -2 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && a->len)
			bc_probe_parse(a->buf, a->len, path, &p->m, &p->err);	/* the malformed message */
	}
}

/* Reaps a probe that exited (st set) or ran out of time, and whatever it
   started (its process group), then judges what it sent. */
static void end_probe(active *a, int timed_out, double timeout)
{
	int st = 0;
	kill(-a->pid, SIGKILL);	/* the child is a zombie or stuck: its group goes */
	if (timed_out)
		kill(a->pid, SIGKILL);
	while (waitpid(a->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!timed_out)
		drain(a);
	if (a->out >= 0)
		close(a->out);
	if (a->err >= 0)
		close(a->err);
	finish_probe(a, st, timed_out, timeout);
	free(a->buf);
}

/* Has it exited? Seen without reaping, so its pid (and process group) stay
   reserved until its group is killed. */
static int exited(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

void bc_probe_files(bc_probe *p, size_t n)
{
	double timeout = probe_timeout();
	active act[PROBES_AT_ONCE];
	size_t nact = 0, next = 0;
	/* a probe killed at its timeout leaves its orphans to benchcore (a
	   subreaper), which kills them below; its children before stay */
	pid_t *keep = bc_xcalloc(BC_MAX_KIDS, sizeof(pid_t));
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	size_t nkeep = bc_children_of(getpid(), keep, BC_MAX_KIDS);
	while (next < n || nact) {
		while (next < n && nact < PROBES_AT_ONCE) {
			memset(&p[next].m, 0, sizeof(p[next].m));
			p[next].ok = 0;
			if (start_probe(&act[nact], &p[next], timeout)) {
				bc_err_set(&p[next].err, "could not load module \"%s\": could not start a probe process: %s",
					   p[next].path, strerror(errno));
			} else {
				nact++;
			}
			next++;
		}
		struct pollfd pf[2 * PROBES_AT_ONCE];
		int np = 0;
		uint64_t now = bc_now_ns(), first = UINT64_MAX;
		for (size_t i = 0; i < nact; i++) {
			if (act[i].out >= 0)
				pf[np++] = (struct pollfd){ .fd = act[i].out, .events = POLLIN };
			if (act[i].err >= 0)
				pf[np++] = (struct pollfd){ .fd = act[i].err, .events = POLLIN };
			if (act[i].deadline < first)
				first = act[i].deadline;
		}
		uint64_t wait_ms = first > now ? (first - now) / 1000000u + 1 : 0, cap = np ? 100 : 5;
		poll(pf, (nfds_t)np, (int)(wait_ms > cap ? cap : wait_ms));
		now = bc_now_ns();
		for (size_t i = 0; i < nact;) {
			drain(&act[i]);
			int done = exited(act[i].pid);
			if (done || now >= act[i].deadline) {
				end_probe(&act[i], !done, timeout);
				act[i] = act[--nact];
			} else {
				i++;
			}
		}
	}
	bc_kill_strays(keep, nkeep);
	free(keep);
}
