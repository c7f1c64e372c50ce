/* The one reader of a case object (docs/results.md "cases[]") into a
 * bc_case_result. The rules: a field kept that has the wrong type is an
 * error naming the field (the object is not what benchcore writes); a field
 * that is absent, or null, stays absent (older writers, failed cases);
 * unknown fields are ignored. Numbers are finite, counts are integers >= 0,
 * threads 1..1000000: a hostile file cannot make later arithmetic lie. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "case.h"
#include "hist.h"
#include "util.h"

#define MAX_THREADS	1000000

typedef struct {
	bc_err *e;
} rd;

static int fail(rd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(rd *d, const char *fmt, ...)
{
	va_list ap;

	if (d->e) {
		d->e->detail[0] = d->e->hint[0] = '\0';
		va_start(ap, fmt);
		vsnprintf(d->e->msg, sizeof(d->e->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int absent(json_t *v)
{
	return !v || json_is_null(v);
}

/* A number field: 1 and *out set when present and numeric (finite), 0 when
   absent or null, -1 when present with another type. */
static int get_num(json_t *obj, const char *key, double *out)
{
	json_t *v = json_object_get(obj, key);

	if (absent(v))
		return 0;
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return isfinite(*out) ? 1 : -1;
}

/* obj.key into *out (NAN when absent); nonneg: a value < 0 is an error too. */
static int num(rd *d, json_t *obj, const char *key, double *out, int nonneg, const char *where)
{
	double v;
	int rc = get_num(obj, key, &v);

	*out = NAN;
	if (rc < 0 || (rc > 0 && nonneg && v < 0))
		return fail(d, "%s.%s: not a number%s", where, key, nonneg ? " >= 0" : "");
	if (rc > 0)
		*out = v;
	return 0;
}

static int is_count(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

/* obj.key into *out (0 when absent); *had says whether it was there. */
static int count(rd *d, json_t *obj, const char *key, uint64_t *out, int *had, const char *where)
{
	json_t *v = json_object_get(obj, key);

	*out = 0;
	if (had)
		*had = 0;
	if (absent(v))
		return 0;
	if (!is_count(v))
		return fail(d, "%s.%s: not a count (an integer >= 0)", where, key);
	*out = (uint64_t)json_integer_value(v);
	if (had)
		*had = 1;
	return 0;
}

/* obj.key, an integer in lo..hi, into *out (dflt when absent). */
static int integer(rd *d, json_t *obj, const char *key, long long lo, long long hi,
		   long long dflt, long long *out, const char *where)
{
	json_t *v = json_object_get(obj, key);

	*out = dflt;
	if (absent(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		if (hi == INT64_MAX || hi == LONG_MAX)
			return fail(d, "%s.%s: not an integer >= %lld", where, key, lo);
		return fail(d, "%s.%s: not an integer in %lld..%lld", where, key, lo, hi);
	}
	*out = json_integer_value(v);
	return 0;
}

/* obj.key into *out (a copy; NULL when absent or null). */
static int str(rd *d, json_t *obj, const char *key, char **out, const char *where)
{
	json_t *v = json_object_get(obj, key);

	if (absent(v))
		return 0;
	if (!json_is_string(v))
		return fail(d, "%s.%s: not a string", where, key);
	free(*out);
	*out = bc_xstrdup(json_string_value(v));
	return 0;
}

/* obj.key as an object (*out NULL when absent or null). */
static int object(rd *d, json_t *obj, const char *key, json_t **out, const char *where)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (absent(v))
		return 0;
	if (!json_is_object(v))
		return fail(d, "%s.%s: not an object", where, key);
	*out = v;
	return 0;
}

static int read_metrics(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *metrics = json_object_get(c, "metrics"), *m;
	const char *name;

	if (absent(metrics))
		return 0;
	if (!json_is_object(metrics))
		return fail(d, "%s.metrics: not an object", where);
	r->metrics = bc_xcalloc(json_object_size(metrics) + 1, sizeof(*r->metrics));
	json_object_foreach(metrics, name, m) {
		double v;
		json_t *unit = json_object_get(m, "unit"), *hib = json_object_get(m, "higher_is_better");
		if (!json_is_object(m) || get_num(m, "value", &v) != 1)
			return fail(d, "%s.metrics.%s: wants {value: number, unit, higher_is_better}",
				    where, name);
		if ((unit && !json_is_string(unit)) || (hib && !json_is_boolean(hib)))
			return fail(d, "%s.metrics.%s: unit must be a string, higher_is_better a bool",
				    where, name);
		bc_cr_metric *o = &r->metrics[r->nmetrics++];
		o->name = bc_xstrdup(name);
		o->unit = bc_xstrdup(unit ? json_string_value(unit) : "");
		o->value = v;
		o->higher_is_better = hib ? json_is_true(hib) : 1;
	}
	return 0;
}

/* latency_ns of an op or a distribution; where names its owner. */
static int read_latency(rd *d, json_t *lat, bc_cr_latency *l, const char *where)
{
	const char *k;
	json_t *v;

	*l = (bc_cr_latency){ .min = NAN, .mean = NAN, .max = NAN, .stddev = NAN };
	if (absent(lat))
		return 0;
	if (!json_is_object(lat))
		return fail(d, "%s.latency_ns: not an object", where);
	l->set = 1;
	l->pct = bc_xcalloc(json_object_size(lat) + 1, sizeof(*l->pct));
	json_object_foreach(lat, k, v) {
		double x = json_is_number(v) ? json_number_value(v) : -1;
		if (!json_is_number(v) || !isfinite(x) || x < 0)
			return fail(d, "%s.latency_ns.%s: not a number >= 0", where, k);
		if (k[0] == 'p') {
			l->pct[l->npct].key = bc_xstrdup(k);
			l->pct[l->npct++].ns = x;
		} else if (!strcmp(k, "min")) {
			l->min = x;
		} else if (!strcmp(k, "mean")) {
			l->mean = x;
		} else if (!strcmp(k, "max")) {
			l->max = x;
		} else if (!strcmp(k, "stddev")) {
			l->stddev = x;
		}	/* other keys: not ours */
	}
	return 0;
}

static int read_kinds(rd *d, json_t *oj, bc_cr_op *op, const char *where)
{
	json_t *kinds, *folded, *v;
	const char *k;
	char *at;
	int rc = 0;

	if (object(d, oj, "error_kinds", &kinds, where) < 0)
		return -1;
	if (kinds) {
		op->has_kinds = 1;
		op->kinds = bc_xcalloc(json_object_size(kinds) + 1, sizeof(*op->kinds));
		json_object_foreach(kinds, k, v) {
			if (!is_count(v))
				return fail(d, "%s.error_kinds.%s: not a count (an integer >= 0)", where, k);
			op->kinds[op->nkinds].kind = bc_xstrdup(k);
			op->kinds[op->nkinds++].n = (uint64_t)json_integer_value(v);
		}
	}
	if (object(d, oj, "error_kinds_folded", &folded, where) < 0)
		return -1;
	if (!folded)
		return 0;
	at = bc_xasprintf("%s.error_kinds_folded", where);
	if (count(d, folded, "count", &op->folded, NULL, at) < 0 ||
	    str(d, folded, "first_kind", &op->folded_first, at) < 0)
		rc = -1;
	free(at);
	return rc;
}

static int read_dists(rd *d, json_t *oj, bc_cr_op *op, const char *where)
{
	json_t *dists, *v;
	const char *k;

	if (object(d, oj, "dists", &dists, where) < 0)
		return -1;
	if (!dists)
		return 0;
	op->dists = bc_xcalloc(json_object_size(dists) + 1, sizeof(*op->dists));
	json_object_foreach(dists, k, v) {
		bc_cr_dist *ds = &op->dists[op->ndists++];
		char *at = bc_xasprintf("%s.dists.%s", where, k);
		int rc = 0;
		ds->name = bc_xstrdup(k);
		if (!json_is_object(v))
			rc = fail(d, "%s: not an object", at);
		else if (count(d, v, "count", &ds->count, NULL, at) < 0 ||
			 read_latency(d, json_object_get(v, "latency_ns"), &ds->lat, at) < 0)
			rc = -1;
		free(at);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ops.OP.latency_hist: the layout this build records, its data checked
   whole (hist_code.c: bounded, every varint and bucket inside the layout,
   counts that add up to count without passing 2^64). */
static int read_hist(rd *d, json_t *oj, bc_cr_op *op, const char *where)
{
	json_t *h, *enc, *data;
	long long bits, exp;
	uint64_t n, total;
	int had, rc = -1;
	const char *why;
	bc_hist_code c;

	if (object(d, oj, "latency_hist", &h, where) < 0)
		return -1;
	if (!h)
		return 0;
	char *at = bc_xasprintf("%s.latency_hist", where);
	enc = json_object_get(h, "encoding");
	data = json_object_get(h, "data");
	if (!json_is_string(enc) || strcmp(json_string_value(enc), BC_HIST_ENCODING)) {
		fail(d, "%s.encoding: not \"%s\"", at, BC_HIST_ENCODING);
	} else if (integer(d, h, "sub_bucket_bits", 0, 64, -1, &bits, at) < 0 ||
		   integer(d, h, "max_exponent", 0, 64, -1, &exp, at) < 0) {
		/* said */
	} else if (bits < 0 || exp < 0) {
		fail(d, "%s: wants sub_bucket_bits and max_exponent (integers)", at);
	} else if (bits != BC_HIST_SUB_BITS || exp != BC_HIST_MAX_EXP) {
		fail(d, "%s: a layout of %lld sub-bucket bits up to 2^%lld ns, not this build's %d up to 2^%d",
		     at, bits, exp, BC_HIST_SUB_BITS, BC_HIST_MAX_EXP);
	} else if (count(d, h, "count", &n, &had, at) < 0) {
		/* said */
	} else if (!had || !json_is_string(data)) {
		fail(d, "%s: wants count (an integer >= 0) and data (a string)", at);
	} else if (bc_hist_code_from_text(json_string_value(data), json_string_length(data), &c, &why) < 0) {
		fail(d, "%s.data: not a histogram: %s", at, why);
	} else {
		total = c.total;
		bc_hist_code_free(&c);
		if (total != n) {
			fail(d, "%s: its buckets hold %llu records, its count says %llu", at,
			     (unsigned long long)total, (unsigned long long)n);
		} else {
			op->hist = bc_xstrdup(json_string_value(data));
			op->hist_count = n;
			rc = 0;
		}
	}
	free(at);
	return rc;
}

static int read_op(rd *d, const char *name, json_t *oj, bc_cr_op *op, const char *where)
{
	static const char *const counts[] = { "count", "errors", "bytes" };
	uint64_t *vals[] = { &op->count, &op->errors, &op->bytes };
	json_t *lat = json_is_object(oj) ? json_object_get(oj, "latency_ns") : NULL;
	char *at;
	int rc = -1;

	op->name = bc_xstrdup(name);
	op->per_sec = NAN;
	op->lat = (bc_cr_latency){ .min = NAN, .mean = NAN, .max = NAN, .stddev = NAN };
	if (!json_is_object(oj) || (lat && !json_is_object(lat)))
		return fail(d, "%s.ops.%s: not an object with latency_ns {...}", where, name);
	at = bc_xasprintf("%s.ops.%s", where, name);
	for (int i = 0; i < 3; i++)
		if (count(d, oj, counts[i], vals[i], NULL, at) < 0)
			goto out;
	if (num(d, oj, "per_sec", &op->per_sec, 1, at) < 0 ||
	    read_latency(d, lat, &op->lat, at) < 0 || read_kinds(d, oj, op, at) < 0 ||
	    read_dists(d, oj, op, at) < 0 || read_hist(d, oj, op, at) < 0)
		goto out;
	rc = 0;
out:
	free(at);
	return rc;
}

static int read_ops(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *ops = json_object_get(c, "ops"), *o;
	const char *name;

	if (absent(ops))
		return 0;
	if (!json_is_object(ops))
		return fail(d, "%s.ops: not an object", where);
	r->ops = bc_xcalloc(json_object_size(ops) + 1, sizeof(*r->ops));
	json_object_foreach(ops, name, o)
		if (read_op(d, name, o, &r->ops[r->nops++], where) < 0)
			return -1;
	return 0;
}

static int read_info(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *info, *v;
	const char *k;

	if (object(d, c, "info", &info, where) < 0)
		return -1;
	if (!info)
		return 0;
	r->info = bc_xcalloc(json_object_size(info) + 1, sizeof(*r->info));
	json_object_foreach(info, k, v) {
		char *text;
		if (json_is_string(v))
			text = bc_xstrdup(json_string_value(v));
		else if (json_is_number(v) || json_is_boolean(v))
			text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		else
			return fail(d, "%s.info.%s: not a string, number or bool", where, k);
		if (!text)
			abort();	/* out of memory while reading: nothing to save */
		r->info[r->ninfo].key = bc_xstrdup(k);
		r->info[r->ninfo++].value = text;
	}
	return 0;
}

static int read_warnings(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *w = json_object_get(c, "warnings"), *v;
	size_t i;

	if (absent(w))
		return 0;
	if (!json_is_array(w))
		return fail(d, "%s.warnings: not an array", where);
	r->warnings = bc_xcalloc(json_array_size(w) + 1, sizeof(*r->warnings));
	json_array_foreach(w, i, v) {
		if (!json_is_string(v))
			return fail(d, "%s.warnings[%zu]: not a string", where, i);
		r->warnings[r->nwarnings++] = bc_xstrdup(json_string_value(v));
	}
	return 0;
}

/* headline and thresholds: what compare needs to judge the module's metrics */
static int read_hints(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *head = json_object_get(c, "headline"), *th = json_object_get(c, "thresholds"), *v;
	const char *k;
	double x;

	if (!absent(head) && !json_is_string(head))
		return fail(d, "%s.headline: not a string", where);
	if (json_is_string(head))
		r->headline = bc_xstrdup(json_string_value(head));
	if (absent(th))
		return 0;
	if (!json_is_object(th))
		return fail(d, "%s.thresholds: not an object", where);
	r->has_thresholds = 1;
	r->thresholds = bc_xcalloc(json_object_size(th) + 1, sizeof(*r->thresholds));
	json_object_foreach(th, k, v) {
		if (get_num(th, k, &x) != 1 || x < 0)
			return fail(d, "%s.thresholds.%s: wants a percentage >= 0", where, k);
		r->thresholds[r->nthresholds].metric = bc_xstrdup(k);
		r->thresholds[r->nthresholds++].pct = x;
	}
	return 0;
}

static int read_prepare(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *p;
	int had_done, had_total, rc = -1;

	if (object(d, c, "prepare", &p, where) < 0)
		return -1;
	if (!p)
		return 0;
	char *at = bc_xasprintf("%s.prepare", where);
	r->prepare.set = 1;
	if (num(d, p, "seconds", &r->prepare.seconds, 1, at) < 0 ||
	    count(d, p, "done", &r->prepare.done, &had_done, at) < 0 ||
	    count(d, p, "total", &r->prepare.total, &had_total, at) < 0 ||
	    str(d, p, "unit", &r->prepare.unit, at) < 0)
		goto out;
	r->prepare.has_progress = had_done || had_total || r->prepare.unit;
	rc = 0;
out:
	free(at);
	return rc;
}

static int read_error(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *e;
	long long thread;
	int rc = -1;

	if (object(d, c, "error", &e, where) < 0)
		return -1;
	if (!e)
		return 0;
	char *at = bc_xasprintf("%s.error", where);
	r->error.set = 1;
	if (str(d, e, "message", &r->error.message, at) < 0 ||
	    count(d, e, "count", &r->error.count, NULL, at) < 0 ||
	    str(d, e, "detail", &r->error.detail, at) < 0 ||
	    str(d, e, "hint", &r->error.hint, at) < 0 ||
	    integer(d, e, "thread", 0, MAX_THREADS - 1, -1, &thread, at) < 0)
		goto out;
	r->error.thread = (long)thread;
	rc = 0;
out:
	free(at);
	return rc;
}

/* fairness and stability: today's messages for the fields compare reads */
static int read_spread(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	static const char *const fk[] = { "events_mean", "events_stddev", "events_cv", "events_min",
					   "events_max", "busy_mean_s", "busy_stddev_s" };
	double *fv[] = { &r->fairness.events_mean, &r->fairness.events_stddev,
			 &r->fairness.events_cv, &r->fairness.events_min, &r->fairness.events_max,
			 &r->fairness.busy_mean_s, &r->fairness.busy_stddev_s };
	json_t *f = json_object_get(c, "fairness"), *s = json_object_get(c, "stability");
	char *at;
	int rc = 0;

	if (!absent(f) && !json_is_object(f))
		return fail(d, "%s.fairness.events_stddev: not a number >= 0", where);
	if (!absent(s) && !json_is_object(s))
		return fail(d, "%s.stability.interval_cv: not a number >= 0", where);
	if (!absent(f)) {
		at = bc_xasprintf("%s.fairness", where);
		r->fairness.set = 1;
		for (int i = 0; i < 7 && rc == 0; i++)
			rc = num(d, f, fk[i], fv[i], 1, at);
		free(at);
		if (rc < 0)
			return -1;
	}
	if (!absent(s)) {
		long long n;
		at = bc_xasprintf("%s.stability", where);
		r->stability.set = 1;
		rc = num(d, s, "interval_cv", &r->stability.interval_cv, 1, at);
		if (rc == 0 && json_object_get(s, "intervals") &&
		    !is_count(json_object_get(s, "intervals")))
			rc = fail(d, "%s.intervals: not a count (an integer >= 0)", at);
		free(at);
		if (rc < 0)
			return -1;
		/* absent (files before 0.1): -1 */
		n = json_object_get(s, "intervals") ? json_integer_value(json_object_get(s, "intervals")) : -1;
		r->stability.intervals = (long)(n > LONG_MAX ? LONG_MAX : n);
	}
	return 0;
}

static int read_open_loop(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *o;
	int rc = -1;

	if (object(d, c, "open_loop", &o, where) < 0)
		return -1;
	if (!o)
		return 0;
	char *at = bc_xasprintf("%s.open_loop", where);
	r->open_loop.set = 1;
	if (num(d, o, "rate", &r->open_loop.rate, 1, at) < 0 ||
	    str(d, o, "arrival", &r->open_loop.arrival, at) < 0 ||
	    count(d, o, "late_starts", &r->open_loop.late_starts, NULL, at) < 0 ||
	    num(d, o, "max_lag_ms", &r->open_loop.max_lag_ms, 1, at) < 0 ||
	    count(d, o, "max_queue", &r->open_loop.max_queue, NULL, at) < 0)
		goto out;
	rc = 0;
out:
	free(at);
	return rc;
}

/* Interference where the case ran: shares in 0..100, the case's use of
   its CPUs in 0..1, a count of CPUs; a value that cannot be is refused. */
static int read_cpu_set(rd *d, bc_case_result *r, json_t *cpu, const char *where)
{
	static const char *const keys[] = { "cpus_steal_pct", "cpus_other_pct", "interference_pct",
					    "cpus_use", "cpus_n" };
	static const double hi[] = { 100, 100, 100, 1, 1 << 20 };
	double n = NAN, *vals[] = { &r->cpu.cpus_steal_pct, &r->cpu.cpus_other_pct,
				    &r->cpu.interference_pct, &r->cpu.cpus_use, &n };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		double x;
		int rc = get_num(cpu, keys[i], &x);
		if (rc < 0 || (rc > 0 && !(x >= 0 && x <= hi[i] * (1 + 1e-9))))
			return fail(d, "%s.cpu.%s: not a number in 0..%g", where, keys[i], hi[i]);
		*vals[i] = rc > 0 ? x : NAN;
	}
	if (!isnan(n) && (n < 1 || n != floor(n)))
		return fail(d, "%s.cpu.cpus_n: not a count of CPUs", where);
	r->cpu.cpus_n = isnan(n) ? 0 : (long)n;
	return 0;
}

static int read_cpu(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	static const char *const keys[] = { "user_s", "sys_s", "utilization", "steal_pct", "other_pct",
					    "server_s", "server_pct", "server_us_per_op" };
	double *vals[] = { &r->cpu.user_s, &r->cpu.sys_s, &r->cpu.utilization, &r->cpu.steal_pct,
			   &r->cpu.other_pct, &r->cpu.server_s, &r->cpu.server_pct,
			   &r->cpu.server_us_per_op };
	json_t *cpu;

	if (num(d, c, "cpu_mhz_mean", &r->cpu_mhz_mean, 0, where) < 0 ||
	    object(d, c, "cpu", &cpu, where) < 0)
		return -1;
	if (!cpu)
		return 0;
	r->cpu.set = 1;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		double x;
		int rc = get_num(cpu, keys[i], &x);
		*vals[i] = rc > 0 ? x : NAN;
		if (rc < 0)
			return fail(d, "%s.cpu.%s: not a number", where, keys[i]);
	}
	char at[96];
	snprintf(at, sizeof(at), "%s.cpu", where);
	if (str(d, cpu, "servers", &r->cpu.servers, at) < 0 || str(d, cpu, "cpus", &r->cpu.cpus, at) < 0)
		return -1;
	return read_cpu_set(d, r, cpu, where);
}

static int read_freq(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	static const char *const keys[] = { "measured_mhz", "before_mhz", "after_mhz", "cpufreq_mhz",
					    "cpuinfo_mhz" };
	double *vals[] = { &r->freq.measured_mhz, &r->freq.before_mhz, &r->freq.after_mhz,
			   &r->freq.cpufreq_mhz, &r->freq.cpuinfo_mhz };
	json_t *f, *n;

	if (object(d, c, "cpu_freq", &f, where) < 0)
		return -1;
	if (!f)
		return 0;
	r->freq.set = 1;
	for (int i = 0; i < 5; i++) {
		double x;
		int rc = get_num(f, keys[i], &x);
		*vals[i] = rc > 0 ? x : NAN;
		if (rc < 0 || (rc > 0 && !(x >= 0 && x < 1e6)))
			return fail(d, "%s.cpu_freq.%s: not a frequency in MHz", where, keys[i]);
	}
	n = json_object_get(f, "cpus");
	if (n && (!json_is_integer(n) || json_integer_value(n) < 0 || json_integer_value(n) > 1 << 20))
		return fail(d, "%s.cpu_freq.cpus: not an integer >= 0", where);
	r->freq.cpus = n ? (long)json_integer_value(n) : 0;
	return 0;
}

/* peak_rss_bytes and phase_s (check-module's figures; absent in older files). */
static int read_footprint(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *ph;
	if (count(d, c, "peak_rss_bytes", &r->peak_rss_bytes, NULL, where) < 0 ||
	    object(d, c, "phase_s", &ph, where) < 0)
		return -1;
	if (!ph)
		return 0;
	r->phases.set = 1;
	for (int i = 0; i < BC_NPHASES; i++) {
		double x;
		int rc = get_num(ph, bc_phase_names[i], &x);
		if (rc < 0 || (rc > 0 && !(x >= 0)))
			return fail(d, "%s.phase_s.%s: not a number >= 0", where, bc_phase_names[i]);
		r->phases.s[i] = rc > 0 ? x : NAN;
	}
	return 0;
}

static int read_interval(rd *d, json_t *iv, bc_cr_interval *out, const char *at)
{
	static const char *const keys[] = { "t", "events_per_sec", "p95_ms", "errors_per_sec" };
	double *vals[] = { &out->t, &out->events_per_sec, &out->p95_ms, &out->errors_per_sec };
	json_t *ops, *o;
	const char *name;

	if (!json_is_object(iv))
		return fail(d, "%s: not an object", at);
	for (int i = 0; i < 4; i++)
		if (num(d, iv, keys[i], vals[i], i > 0, at) < 0)
			return -1;
	if (object(d, iv, "ops", &ops, at) < 0)
		return -1;
	if (!ops)
		return 0;
	out->ops = bc_xcalloc(json_object_size(ops) + 1, sizeof(*out->ops));
	json_object_foreach(ops, name, o) {
		bc_cr_iop *io = &out->ops[out->nops++];
		char *oat = bc_xasprintf("%s.ops.%s", at, name);
		int rc = 0;
		io->name = bc_xstrdup(name);
		io->per_sec = io->mib_per_sec = NAN;
		if (!json_is_object(o))
			rc = fail(d, "%s: not an object", oat);
		else if (num(d, o, "per_sec", &io->per_sec, 1, oat) < 0 ||
			 num(d, o, "mib_per_sec", &io->mib_per_sec, 1, oat) < 0)
			rc = -1;
		free(oat);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int read_intervals(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *ivs = json_object_get(c, "intervals"), *iv;
	long long n;
	size_t i;

	if (str(d, c, "intervals_file", &r->intervals_file, where) < 0 ||
	    integer(d, c, "intervals_count", 0, LONG_MAX, 0, &n, where) < 0)
		return -1;
	r->intervals_count = (long)n;
	if (absent(ivs))
		return 0;
	if (!json_is_array(ivs))
		return fail(d, "%s.intervals: not an array", where);
	r->has_intervals = 1;
	r->intervals = bc_xcalloc(json_array_size(ivs) + 1, sizeof(*r->intervals));
	json_array_foreach(ivs, i, iv) {
		char *at = bc_xasprintf("%s.intervals[%zu]", where, i);
		int rc = read_interval(d, iv, &r->intervals[r->nintervals++], at);
		free(at);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* "placement": names of params, each a string that is a key of params. */
static int read_placement(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *pl = json_object_get(c, "placement"), *e;
	size_t i;
	if (!pl)
		return 0;
	if (!json_is_array(pl) || json_array_size(pl) > 4096)
		return fail(d, "%s.placement: not an array of option names", where);
	r->placement = bc_xcalloc(json_array_size(pl) + 1, sizeof(char *));
	json_array_foreach(pl, i, e) {
		if (!json_is_string(e) || !json_object_get(r->params, json_string_value(e)))
			return fail(d, "%s.placement[%zu]: not the name of one of params", where, i);
		r->placement[i] = bc_xstrdup(json_string_value(e));
	}
	return 0;
}

/* "machine": an object of strings (the settings a case ran under). */
static int read_machine(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *m = json_object_get(c, "machine"), *v;
	const char *k;
	if (!m)
		return 0;
	if (!json_is_object(m))
		return fail(d, "%s.machine: not an object", where);
	json_object_foreach(m, k, v)
		if (!json_is_string(v))
			return fail(d, "%s.machine.%s: not a string", where, k);
	r->machine = json_deep_copy(m);
	json_t *fs = json_object_get(c, "fs");
	if (fs && !json_is_object(fs))
		return fail(d, "%s.fs: not an object", where);
	json_object_foreach(fs, k, v)
		if (!json_is_string(v) && !json_is_number(v) && !json_is_boolean(v))
			return fail(d, "%s.fs.%s: not a string, number or boolean", where, k);
	r->fs = fs ? json_deep_copy(fs) : NULL;
	json_t *ts = json_object_get(c, "thp_servers");
	if (ts && !json_is_array(ts))
		return fail(d, "%s.thp_servers: not a list", where);
	r->thp_servers = ts ? json_deep_copy(ts) : NULL;
	return str(d, c, "setting_not_in_effect", &r->setting_not_in_effect, where);
}

static int read_header(rd *d, bc_case_result *r, json_t *c, const char *where)
{
	json_t *module = json_object_get(c, "module"), *status = json_object_get(c, "status");
	json_t *params = json_object_get(c, "params"), *threads = json_object_get(c, "threads");
	json_t *reason = json_object_get(c, "reason");
	long long v;

	if (!json_is_string(module) || !json_is_string(status))
		return fail(d, "%s: module and status must be strings", where);
	/* no module is named so (the loader takes [a-z0-9_]+), and one that was
	   would be matched escaped in one place and raw in another */
	for (const char *m = json_string_value(module); *m; m++)
		if ((unsigned char)*m < 0x20 || *m == 0x7f)
			return fail(d, "%s.module: a control character (\\x%02x) is in no module's name", where,
				    (unsigned)(unsigned char)*m);
	r->module = bc_xstrdup(json_string_value(module));
	r->status = bc_xstrdup(json_string_value(status));
	if (params && !json_is_object(params))
		return fail(d, "%s.params: not an object", where);
	if (params) {
		json_decref(r->params);
		r->params = json_deep_copy(params);
		if (!r->params)
			abort();
	}
	if (read_placement(d, r, c, where) < 0 || read_machine(d, r, c, where) < 0)
		return -1;
	char why[160];
	if (bc_case_run_from_json(c, r, why, sizeof(why)) < 0)
		return fail(d, "%s.%s", where, why);
	if (!json_is_integer(threads) || json_integer_value(threads) < 1 ||
	    json_integer_value(threads) > MAX_THREADS)
		return fail(d, "%s.threads: not an integer in 1..%d", where, MAX_THREADS);
	r->threads = (long)json_integer_value(threads);
	if (integer(d, c, "id", 0, INT64_MAX, 0, &v, where) < 0)
		return -1;
	r->id = v;
	if (integer(d, c, "repeat", 0, LONG_MAX, 0, &v, where) < 0)
		return -1;
	r->repeat = (long)v;
	if (integer(d, c, "round", 0, LONG_MAX, 0, &v, where) < 0)
		return -1;
	r->round = (long)v;
	if (str(d, c, "module_version", &r->module_version, where) < 0 ||
	    str(d, c, "module_path", &r->module_path, where) < 0 ||
	    str(d, c, "module_sha256", &r->module_sha256, where) < 0 ||
	    str(d, c, "module_shadows", &r->module_shadows, where) < 0 ||
	    str(d, c, "point", &r->point, where) < 0 || str(d, c, "repeat_stop", &r->repeat_stop, where) < 0)
		return -1;
	json_t *ws = json_object_get(c, "warmup_steady");
	if (ws && !json_is_boolean(ws))
		return fail(d, "%s.warmup_steady: not a bool", where);
	r->warmup_steady = ws ? json_is_true(ws) : -1;
	if (!absent(reason) && !json_is_string(reason))
		return fail(d, "%s.reason: not a string or null", where);
	if (json_is_string(reason))
		r->reason = bc_xstrdup(json_string_value(reason));
	if (num(d, c, "duration_s", &r->duration_s, 1, where) < 0 ||
	    num(d, c, "warmup_s", &r->warmup_s, 1, where) < 0)
		return -1;
	double rate;
	int rc = get_num(c, "error_rate", &rate);
	if (rc < 0 || (rc > 0 && (rate < 0 || rate > 1)))
		return fail(d, "%s.error_rate: not a number in 0..1", where);
	r->error_rate = rc > 0 ? rate : NAN;
	if (count(d, c, "records_refused", &r->records_refused, NULL, where) < 0 ||
	    count(d, c, "strays_killed", &r->strays_killed, NULL, where) < 0)
		return -1;
	return 0;
}

int bc_case_from_json(json_t *c, size_t idx, bc_case_result *r, bc_err *e)
{
	rd d = { e };
	char where[64];

	bc_case_init(r);
	snprintf(where, sizeof(where), "cases[%zu]", idx);
	if (!json_is_object(c)) {
		fail(&d, "%s: not an object", where);
		bc_case_free(r);
		return -1;
	}
	/* the fields compare reads first, in the order it always checked them */
	if (read_header(&d, r, c, where) < 0 || read_metrics(&d, r, c, where) < 0 ||
	    read_spread(&d, r, c, where) < 0 || read_ops(&d, r, c, where) < 0 ||
	    read_hints(&d, r, c, where) < 0 || read_cpu(&d, r, c, where) < 0 || read_freq(&d, r, c, where) < 0 ||
	    read_info(&d, r, c, where) < 0 || read_warnings(&d, r, c, where) < 0 ||
	    read_prepare(&d, r, c, where) < 0 || read_error(&d, r, c, where) < 0 ||
	    read_open_loop(&d, r, c, where) < 0 || read_footprint(&d, r, c, where) < 0 ||
	    read_intervals(&d, r, c, where) < 0) {
		bc_case_free(r);
		return -1;
	}
	return 0;
}
