/* history.h: series from points, their change points, and the facts that
   changed at each. The facts are the judge's, hostdiff.c's
   (bc_facts_diff_parts: the host fingerprint flattened, the modules' facts) plus the two versions a run
   records outside them (benchcore's and the module's) and the clock it
   measured (bc_clock_moved), so a change point is named as compare would
   name the difference of the two runs either side of it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "history.h"
#include "hostdiff.h"
#include "util.h"

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* The series a point belongs to: host, module, params, threads, metric. */
static int same_series(const bc_hpoint *a, const bc_hpoint *b)
{
	return !cmp_str(a->host, b->host) && !cmp_str(a->module, b->module) &&
	       !cmp_str(a->params_key, b->params_key) && a->threads == b->threads &&
	       !cmp_str(a->metric, b->metric);
}

static int by_series_time(const void *x, const void *y)
{
	const bc_hpoint *a = *(const bc_hpoint *const *)x, *b = *(const bc_hpoint *const *)y;
	int c;
	if ((c = cmp_str(a->host, b->host)) || (c = cmp_str(a->module, b->module)) ||
	    (c = cmp_str(a->params_key, b->params_key)))
		return c;
	if (a->threads != b->threads)
		return a->threads < b->threads ? -1 : 1;
	if ((c = cmp_str(a->metric, b->metric)) || (c = cmp_str(a->started, b->started)))
		return c;
	return cmp_str(a->run_id, b->run_id);
}

/* The two versions a run records outside its fingerprint and module facts
   (benchcore's, the module's), appended to diff d as facts when they
   differ. Compared as text: a version is no per-run figure, whatever
   digits it has. */
static void version_diff(json_t *d, const bc_hpoint *p, const bc_hpoint *q)
{
	const char *a[2] = { p->version, p->module_version }, *b[2] = { q->version, q->module_version };
	for (int i = 0; i < 2; i++) {
		if (!a[i] || !b[i] || !strcmp(a[i], b[i]))
			continue;	/* unknown on a side is no change */
		char *field = i ? bc_xasprintf("%s.module_version", p->module) : bc_xstrdup("benchcore_version");
		json_array_append_new(d, json_pack("{s:s, s:s, s:s, s:s}", "field", field, "a", a[i], "b", b[i],
						   "kind", i ? "module" : "host"));
		free(field);
	}
}

static char *value_text(json_t *v)
{
	return bc_printable(json_is_string(v) ? json_string_value(v) : v && !json_is_null(v) ?
			    "(not text)" : "(absent)");
}

typedef struct fact {
	size_t rank;		/* bc_fact_cause's order; versions next; the rest after */
	size_t seq;		/* the diff's own order, for a stable sort */
	char *text;
} fact;

static int by_rank(const void *x, const void *y)
{
	const fact *a = x, *b = y;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

#define RANK_VERSION	100
#define RANK_OTHER	200

/* "kernel: A -> B", "microcode (cpu_id.microcode): A -> B",
   "module version (cpu): A -> B", "libraries.openssl: A -> B". */
static fact name_fact(json_t *d, size_t seq)
{
	const char *field = json_string_value(json_object_get(d, "field"));
	size_t rank = RANK_OTHER;
	const char *what = bc_fact_cause(field, &rank);
	char *a = value_text(json_object_get(d, "a")), *b = value_text(json_object_get(d, "b"));
	char *fs = bc_printable(field), *label;
	const char *mv = strstr(field, ".module_version");
	if (!strcmp(field, "benchcore_version")) {
		rank = RANK_VERSION;
		label = bc_xstrdup("benchcore version");
	} else if (mv && !mv[strlen(".module_version")]) {
		rank = RANK_VERSION + 1;
		label = bc_xasprintf("module version (%.*s)", (int)(mv - field), fs);
	} else if (what && strcmp(what, field)) {
		label = bc_xasprintf("%s (%s)", what, fs);
	} else {
		label = bc_xstrdup(fs);
	}
	fact f = { rank, seq, bc_xasprintf("%s: %.60s -> %.60s", label, a, b) };
	free(a), free(b), free(fs), free(label);
	return f;
}

/* The facts that differ between runs p and q, most fundamental first
   (NULL-terminated, NULL when none). */
static char **facts_between(const bc_hpoint *p, const bc_hpoint *q, size_t *n)
{
	json_t *none = json_object();	/* a point without a host object or facts (the archive's) */
	json_t *d = bc_facts_diff_parts(p->hostobj ? p->hostobj : none, p->info ? p->info : none, NULL,
				  q->hostobj ? q->hostobj : none, q->info ? q->info : none, NULL), *x;
	version_diff(d, p, q);
	size_t i, nf = 0;
	fact *fs = bc_xcalloc(json_array_size(d) + 1, sizeof(*fs));
	json_array_foreach(d, i, x)
		fs[nf++] = name_fact(x, i);
	double ma, mb;
	if (p->hostobj && q->hostobj && bc_clock_moved(p->hostobj, q->hostobj, &ma, &mb)) {
		size_t rank = RANK_OTHER;
		bc_fact_cause("governor", &rank);	/* the clock's place among the causes */
		fs[nf++] = (fact){ rank, json_array_size(d),
				   bc_xasprintf("clock: %.0f -> %.0f MHz measured", ma, mb) };
	}
	json_decref(d);
	json_decref(none);
	*n = nf;
	if (!nf) {
		free(fs);
		return NULL;
	}
	qsort(fs, nf, sizeof(*fs), by_rank);
	char **out = bc_xcalloc(nf + 1, sizeof(*out));
	for (i = 0; i < nf; i++)
		out[i] = fs[i].text;
	free(fs);
	return out;
}

/* The facts of change point c of s: between the runs either side of it,
   else the nearest pair within two runs (the step is placed within one or
   two runs of where it happened: docs/history.md), never across the
   change points beside it. */
static void name_change(const bc_hseries *s, size_t i, bc_hchange *c)
{
	static const int offsets[] = { 0, -1, 1, -2, 2 };
	size_t lo = i ? s->ch[i - 1].cp.at + 1 : 1;
	size_t hi = i + 1 < s->nch ? s->ch[i + 1].cp.at - 1 : s->n - 1;
	c->facts_at = c->cp.at;
	for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
		long j = (long)c->cp.at + offsets[k];
		if (j < (long)lo || j > (long)hi)
			continue;
		c->facts = facts_between(s->run[j - 1], s->run[j], &c->nfacts);
		if (c->facts) {
			c->facts_at = (size_t)j;
			return;
		}
	}
}

static void find_changes(bc_hseries *s, const bc_cp_opts *o)
{
	s->tested = s->n >= 2 * (o->min_seg ? o->min_seg : 1);
	if (!s->tested)
		return;
	double *y = bc_xcalloc(s->n, sizeof(*y));
	for (size_t i = 0; i < s->n; i++)
		y[i] = s->run[i]->mean;
	bc_cpoint *cp;
	s->nch = bc_changepoints(y, s->n, o, &cp);
	free(y);
	if (!s->nch)
		return;
	s->ch = bc_xcalloc(s->nch, sizeof(*s->ch));
	for (size_t i = 0; i < s->nch; i++)
		s->ch[i].cp = cp[i];
	free(cp);
	for (size_t i = 0; i < s->nch; i++)
		name_change(s, i, &s->ch[i]);
}

static int by_text(const void *x, const void *y)
{
	return cmp_str(*(char *const *)x, *(char *const *)y);
}

/* Runs among the points: by run_id, or label and start time for files
   without one. */
static size_t distinct_runs(const bc_hpoint *const *v, size_t n)
{
	char **ids = bc_xcalloc(n + 1, sizeof(*ids));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		ids[i] = *v[i]->run_id ? bc_xasprintf("i%s", v[i]->run_id) :
			 bc_xasprintf("l%s\n%s", v[i]->label, v[i]->started);
	qsort(ids, n, sizeof(*ids), by_text);
	for (size_t i = 0; i < n; i++)
		k += !i || cmp_str(ids[i], ids[i - 1]);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return k;
}

/* Text fields a reader left NULL (points.h says "" for absent; a backend
   may not) become "", so nothing below tests for both. */
static void fill_empty(bc_hpoint *p)
{
	char **f[] = { &p->run_id, &p->started, &p->host, &p->label, &p->module, &p->params_key,
		       &p->params_text, &p->metric, &p->unit };
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!*f[i])
			*f[i] = bc_xstrdup(i == 5 ? "{}" : "");
}

void bc_history_build(bc_history *h, bc_hpoint *pts, size_t n, const bc_cp_opts *o)
{
	*h = (bc_history){ .pts = pts, .npts = n, .cp = o ? *o : BC_CP_OPTS_DEFAULT };
	const bc_hpoint **v = bc_xcalloc(n + 1, sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		fill_empty(&pts[i]);
	for (size_t i = 0; i < n; i++)
		if (isfinite(pts[i].mean))
			v[m++] = &pts[i];
	qsort(v, m, sizeof(*v), by_series_time);
	h->nruns = distinct_runs(v, m);
	h->dropped = n - m;
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;
		while (j < m && same_series(v[i], v[j]))
			j++;
		h->series = bc_xrealloc(h->series, h->nseries + 1, sizeof(*h->series));
		bc_hseries *s = &h->series[h->nseries++];
		*s = (bc_hseries){ .run = bc_xcalloc(j - i, sizeof(*s->run)) };
		for (size_t k = i; k < j; k++) {
			/* a run given twice (two copies of a file) is one point */
			if (*v[k]->run_id && s->n && !strcmp(s->run[s->n - 1]->run_id, v[k]->run_id)) {
				h->dropped++;
				continue;
			}
			s->run[s->n++] = v[k];
		}
		find_changes(s, &h->cp);
		i = j;
	}
	free(v);
}

void bc_history_free(bc_history *h)
{
	for (size_t i = 0; i < h->nseries; i++) {
		for (size_t c = 0; c < h->series[i].nch; c++)
			bc_strv_free(h->series[i].ch[c].facts);
		free(h->series[i].ch);
		free(h->series[i].run);
	}
	free(h->series);
	bc_hpoints_free(h->pts, h->npts);
	*h = (bc_history){ 0 };
}

size_t bc_history_changes(const bc_history *h)
{
	size_t n = 0;
	for (size_t i = 0; i < h->nseries; i++)
		n += h->series[i].nch;
	return n;
}

long bc_history_change_at(const bc_hseries *s, size_t k)
{
	for (size_t i = 0; i < s->nch; i++)
		if (s->ch[i].cp.at == k)
			return (long)i;
	return -1;
}
