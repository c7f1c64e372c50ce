/* The typed case result (case.h): construction, setters, and the one
   writer of a case object. The reader is case_read.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "case.h"
#include "hist.h"
#include "util.h"

const char *const bc_phase_names[BC_NPHASES] = { "init", "prepare", "thread_init", "warmup", "measure",
						  "finish", "cleanup", "destroy" };

void bc_case_init(bc_case_result *r)
{
	memset(r, 0, sizeof(*r));
	r->params = json_object();
	r->error_rate = NAN;
	r->cpu_mhz_mean = NAN;
	r->warmup_steady = -1;
	r->freq.measured_mhz = r->freq.before_mhz = r->freq.after_mhz = NAN;
	r->freq.cpufreq_mhz = r->freq.cpuinfo_mhz = NAN;
	r->error.thread = -1;
	r->fairness.events_min = r->fairness.events_max = NAN;
	r->stability.interval_cv = NAN;
	r->cpu.utilization = r->cpu.steal_pct = r->cpu.other_pct = NAN;
	r->cpu.server_s = r->cpu.server_pct = r->cpu.server_us_per_op = NAN;
	r->cpu.cpus_steal_pct = r->cpu.cpus_other_pct = r->cpu.interference_pct = r->cpu.cpus_use = NAN;
	for (int i = 0; i < BC_NPHASES; i++)
		r->phases.s[i] = NAN;
}

static void free_latency(bc_cr_latency *l)
{
	for (size_t i = 0; i < l->npct; i++)
		free(l->pct[i].key);
	free(l->pct);
}

void bc_case_free(bc_case_result *r)
{
	free(r->module);
	free(r->module_version);
	free(r->module_path);
	free(r->module_sha256);
	free(r->module_shadows);
	json_decref(r->params);
	json_decref(r->machine);
	free(r->setting_not_in_effect);
	json_decref(r->fs);
	json_decref(r->thp_servers);
	free(r->run.run_id);
	json_decref(r->run.host);
	bc_strv_free(r->placement);
	free(r->point);
	free(r->status);
	free(r->reason);
	free(r->repeat_stop);
	free(r->headline);
	free(r->cpu.servers);
	free(r->cpu.cpus);
	for (size_t i = 0; i < r->nthresholds; i++)
		free(r->thresholds[i].metric);
	free(r->thresholds);
	free(r->prepare.unit);
	free(r->error.message);
	free(r->error.detail);
	free(r->error.hint);
	for (size_t i = 0; i < r->nmetrics; i++) {
		free(r->metrics[i].name);
		free(r->metrics[i].unit);
	}
	free(r->metrics);
	for (size_t i = 0; i < r->ninfo; i++) {
		free(r->info[i].key);
		free(r->info[i].value);
	}
	free(r->info);
	bc_strv_free(r->warnings);
	for (size_t i = 0; i < r->nops; i++) {
		bc_cr_op *o = &r->ops[i];
		free(o->name);
		free_latency(&o->lat);
		for (size_t j = 0; j < o->nkinds; j++)
			free(o->kinds[j].kind);
		free(o->kinds);
		free(o->folded_first);
		for (size_t j = 0; j < o->ndists; j++) {
			free(o->dists[j].name);
			free_latency(&o->dists[j].lat);
		}
		free(o->dists);
		free(o->hist);
	}
	free(r->ops);
	free(r->open_loop.arrival);
	bc_case_drop_intervals(r);
	free(r->intervals_file);
	memset(r, 0, sizeof(*r));
}

void bc_case_drop_intervals(bc_case_result *r)
{
	for (size_t i = 0; i < r->nintervals; i++) {
		for (size_t j = 0; j < r->intervals[i].nops; j++)
			free(r->intervals[i].ops[j].name);
		free(r->intervals[i].ops);
	}
	free(r->intervals);
	r->intervals = NULL;
	r->nintervals = 0;
}

long bc_headline_pick(const char *declared, const bc_headline_cand *c, size_t n)
{
	long eps = -1;
	if (declared && strcmp(declared, "events_per_sec"))
		for (size_t i = 0; i < n; i++)
			if (!strcmp(c[i].name, declared))
				return (long)i;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(c[i].name, "events_per_sec"))
			eps = eps < 0 ? (long)i : eps;
		else if (c[i].higher_is_better)
			return (long)i;
	}
	return eps;
}

void bc_case_set_str(char **field, const char *value)
{
	free(*field);
	*field = value ? bc_xstrdup(value) : NULL;
}

void bc_case_add_warning(bc_case_result *r, const char *msg)
{
	r->warnings = bc_xrealloc(r->warnings, r->nwarnings + 2, sizeof(char *));
	r->warnings[r->nwarnings++] = bc_xstrdup(msg);
	r->warnings[r->nwarnings] = NULL;
}

const bc_cr_metric *bc_case_metric(const bc_case_result *r, const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

void bc_case_set_metric(bc_case_result *r, const char *name, const char *unit,
			double value, int higher_is_better)
{
	bc_cr_metric *m = (bc_cr_metric *)bc_case_metric(r, name);
	if (!m) {
		r->metrics = bc_xrealloc(r->metrics, r->nmetrics + 1, sizeof(*r->metrics));
		m = &r->metrics[r->nmetrics++];
		*m = (bc_cr_metric){ .name = bc_xstrdup(name) };
	}
	bc_case_set_str(&m->unit, unit ? unit : "");
	m->value = value;
	m->higher_is_better = higher_is_better;
}

void bc_case_set_info(bc_case_result *r, const char *key, const char *value)
{
	for (size_t i = 0; i < r->ninfo; i++)
		if (!strcmp(r->info[i].key, key)) {
			bc_case_set_str(&r->info[i].value, value ? value : "");
			return;
		}
	r->info = bc_xrealloc(r->info, r->ninfo + 1, sizeof(*r->info));
	r->info[r->ninfo++] = (bc_cr_info){ bc_xstrdup(key), bc_xstrdup(value ? value : "") };
}


/* ---------------------------------------------------------------- writer */

static void put_real(json_t *o, const char *k, double v)
{
	if (!isnan(v))
		json_object_set_new(o, k, json_real(v));
}

static void put_count(json_t *o, const char *k, uint64_t v)
{
	json_object_set_new(o, k, json_integer((json_int_t)(v > (uint64_t)INT64_MAX ? INT64_MAX : v)));
}

/* A string as JSON; bytes that are not UTF-8 are made visible, never dropped
   with the field (a module's reason may carry anything). */
static json_t *str_json(const char *v)
{
	json_t *j = json_string(v);
	if (!j) {
		char *f = bc_xstrdup(v);
		bc_utf8_fix(f);
		j = json_string(f);
		free(f);
	}
	return j;
}

static void put_str(json_t *o, const char *k, const char *v)
{
	if (v)
		json_object_set_new(o, k, str_json(v));
}

/* Nanoseconds: integers as the engine measures them; a file's fraction kept. */
static json_t *ns_json(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *latency_json(const bc_cr_latency *l)
{
	json_t *o = json_object();
	static const char *const keys[] = { "min", "mean", "max", "stddev" };
	const double vals[] = { l->min, l->mean, l->max, l->stddev };
	for (int i = 0; i < 4; i++)
		if (!isnan(vals[i]))
			json_object_set_new(o, keys[i], i == 1 || i == 3 ? json_real(vals[i]) : ns_json(vals[i]));
	for (size_t i = 0; i < l->npct; i++)
		json_object_set_new(o, l->pct[i].key, ns_json(l->pct[i].ns));
	return o;
}

static json_t *op_json(const bc_cr_op *op)
{
	json_t *o = json_object();
	put_count(o, "count", op->count);
	put_count(o, "errors", op->errors);
	put_count(o, "bytes", op->bytes);
	put_real(o, "per_sec", op->per_sec);
	if (op->lat.set)
		json_object_set_new(o, "latency_ns", latency_json(&op->lat));
	if (op->hist)
		json_object_set_new(o, "latency_hist", json_pack("{s:s, s:i, s:i, s:I, s:s}", "encoding",
			BC_HIST_ENCODING, "sub_bucket_bits", BC_HIST_SUB_BITS, "max_exponent", BC_HIST_MAX_EXP,
			"count", (json_int_t)(op->hist_count > (uint64_t)INT64_MAX ? INT64_MAX : op->hist_count),
			"data", op->hist));
	if (op->has_kinds || op->nkinds) {
		json_t *k = json_object();
		for (size_t i = 0; i < op->nkinds; i++)
			put_count(k, op->kinds[i].kind, op->kinds[i].n);
		json_object_set_new(o, "error_kinds", k);
	}
	if (op->folded) {
		json_t *f = json_object();
		put_count(f, "count", op->folded);
		put_str(f, "first_kind", op->folded_first ? op->folded_first : "error");
		json_object_set_new(o, "error_kinds_folded", f);
	}
	if (op->ndists) {
		json_t *d = json_object();
		for (size_t i = 0; i < op->ndists; i++) {
			json_t *dj = json_object();
			put_count(dj, "count", op->dists[i].count);
			if (op->dists[i].lat.set)
				json_object_set_new(dj, "latency_ns", latency_json(&op->dists[i].lat));
			json_object_set_new(d, op->dists[i].name, dj);
		}
		json_object_set_new(o, "dists", d);
	}
	return o;
}

static json_t *interval_json(const bc_cr_interval *iv)
{
	json_t *ops = json_object();
	for (size_t i = 0; i < iv->nops; i++) {
		json_t *o = json_object();
		put_real(o, "per_sec", iv->ops[i].per_sec);
		put_real(o, "mib_per_sec", iv->ops[i].mib_per_sec);
		json_object_set_new(ops, iv->ops[i].name, o);
	}
	json_t *o = json_object();
	put_real(o, "t", iv->t);
	put_real(o, "events_per_sec", iv->events_per_sec);
	put_real(o, "p95_ms", iv->p95_ms);
	put_real(o, "errors_per_sec", iv->errors_per_sec);
	json_object_set_new(o, "ops", ops);
	return o;
}

/* The interval series alone (the runner spills long ones to OUT.intervals.jsonl). */
json_t *bc_case_intervals_json(const bc_case_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->nintervals; i++)
		json_array_append_new(a, interval_json(&r->intervals[i]));
	return a;
}

json_t *bc_case_to_json(const bc_case_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(r->id));
	put_str(o, "module", r->module ? r->module : "");
	put_str(o, "module_version", r->module_version);
	put_str(o, "module_path", r->module_path);
	put_str(o, "module_sha256", r->module_sha256);
	put_str(o, "module_shadows", r->module_shadows);
	json_object_set_new(o, "params", r->params ? json_incref(r->params) : json_object());
	if (r->placement && r->placement[0]) {
		json_t *pl = json_array();
		for (char **p = r->placement; *p; p++)
			json_array_append_new(pl, str_json(*p));
		json_object_set_new(o, "placement", pl);
	}
	put_str(o, "point", r->point);
	if (r->machine)
		json_object_set_new(o, "machine", json_incref(r->machine));
	put_str(o, "setting_not_in_effect", r->setting_not_in_effect);
	if (r->fs)
		json_object_set_new(o, "fs", json_incref(r->fs));
	if (r->thp_servers)
		json_object_set_new(o, "thp_servers", json_incref(r->thp_servers));
	if (r->run.set) {
		json_t *ru = json_object();
		put_str(ru, "run_id", r->run.run_id);
		if (r->run.host)
			json_object_set_new(ru, "host", json_incref(r->run.host));
		json_object_set_new(o, "run", ru);
	}
	json_object_set_new(o, "threads", json_integer(r->threads));
	json_object_set_new(o, "repeat", json_integer(r->repeat));
	if (r->round)
		json_object_set_new(o, "round", json_integer(r->round));
	put_str(o, "status", r->status ? r->status : "failed");
	json_object_set_new(o, "reason", r->reason ? str_json(r->reason) : json_null());
	if (r->error.set) {
		json_t *e = json_object();
		put_str(e, "message", r->error.message ? r->error.message : "");
		put_count(e, "count", r->error.count);
		put_str(e, "detail", r->error.detail);
		put_str(e, "hint", r->error.hint);
		if (r->error.thread >= 0)
			json_object_set_new(e, "thread", json_integer(r->error.thread));
		json_object_set_new(o, "error", e);
	}
	put_real(o, "error_rate", r->error_rate);
	if (r->records_refused)
		put_count(o, "records_refused", r->records_refused);
	if (r->nwarnings) {
		json_t *w = json_array();
		for (size_t i = 0; i < r->nwarnings; i++)
			json_array_append_new(w, str_json(r->warnings[i]));
		json_object_set_new(o, "warnings", w);
	}
	if (r->strays_killed)
		put_count(o, "strays_killed", r->strays_killed);
	put_real(o, "duration_s", r->duration_s);	/* NAN: absent (an old file's failed case) */
	put_real(o, "warmup_s", r->warmup_s);
	if (r->warmup_steady >= 0)
		json_object_set_new(o, "warmup_steady", json_boolean(r->warmup_steady));
	put_str(o, "repeat_stop", r->repeat_stop);
	if (r->prepare.set) {
		json_t *p = json_object();
		put_real(p, "seconds", r->prepare.seconds);
		if (r->prepare.has_progress) {
			put_count(p, "done", r->prepare.done);
			put_count(p, "total", r->prepare.total);
			put_str(p, "unit", r->prepare.unit ? r->prepare.unit : "");
		}
		json_object_set_new(o, "prepare", p);
	}
	put_str(o, "headline", r->headline);
	if (r->has_thresholds || r->nthresholds) {
		json_t *t = json_object();
		for (size_t i = 0; i < r->nthresholds; i++)
			json_object_set_new(t, r->thresholds[i].metric, json_real(r->thresholds[i].pct));
		json_object_set_new(o, "thresholds", t);
	}
	json_t *m = json_object();
	for (size_t i = 0; i < r->nmetrics; i++)
		json_object_set_new(m, r->metrics[i].name, json_pack("{s:f, s:s, s:b}", "value",
			r->metrics[i].value, "unit", r->metrics[i].unit ? r->metrics[i].unit : "",
			"higher_is_better", r->metrics[i].higher_is_better));
	json_object_set_new(o, "metrics", m);
	json_t *ops = json_object();
	for (size_t i = 0; i < r->nops; i++)
		json_object_set_new(ops, r->ops[i].name, op_json(&r->ops[i]));
	json_object_set_new(o, "ops", ops);
	if (r->fairness.set) {
		json_t *f = json_object();
		put_real(f, "events_mean", r->fairness.events_mean);
		put_real(f, "events_stddev", r->fairness.events_stddev);
		put_real(f, "events_cv", r->fairness.events_cv);
		put_real(f, "events_min", r->fairness.events_min);
		put_real(f, "events_max", r->fairness.events_max);
		put_real(f, "busy_mean_s", r->fairness.busy_mean_s);
		put_real(f, "busy_stddev_s", r->fairness.busy_stddev_s);
		json_object_set_new(o, "fairness", f);
	}
	if (r->stability.set) {
		json_t *s = json_pack("{s:o}", "interval_cv", isnan(r->stability.interval_cv) ? json_null()
				      : json_real(r->stability.interval_cv));
		if (r->stability.intervals >= 0)
			json_object_set_new(s, "intervals", json_integer(r->stability.intervals));
		json_object_set_new(o, "stability", s);
	}
	if (r->open_loop.set) {
		json_t *ol = json_object();
		put_real(ol, "rate", r->open_loop.rate);
		put_str(ol, "arrival", r->open_loop.arrival ? r->open_loop.arrival : "poisson");
		put_count(ol, "late_starts", r->open_loop.late_starts);
		put_real(ol, "max_lag_ms", r->open_loop.max_lag_ms);
		put_count(ol, "max_queue", r->open_loop.max_queue);
		json_object_set_new(o, "open_loop", ol);
	}
	json_t *info = json_object();
	for (size_t i = 0; i < r->ninfo; i++)
		json_object_set_new(info, r->info[i].key, str_json(r->info[i].value));
	json_object_set_new(o, "info", info);
	put_real(o, "cpu_mhz_mean", r->cpu_mhz_mean);
	if (r->freq.set) {
		json_t *f = json_object();
		put_real(f, "measured_mhz", r->freq.measured_mhz);
		put_real(f, "before_mhz", r->freq.before_mhz);
		put_real(f, "after_mhz", r->freq.after_mhz);
		json_object_set_new(f, "cpus", json_integer(r->freq.cpus));
		json_object_set_new(f, "source", json_string("probe"));
		put_real(f, "cpufreq_mhz", r->freq.cpufreq_mhz);
		put_real(f, "cpuinfo_mhz", r->freq.cpuinfo_mhz);
		json_object_set_new(o, "cpu_freq", f);
	}
	if (r->cpu.set) {
		json_t *c = json_object();
		put_real(c, "user_s", r->cpu.user_s);
		put_real(c, "sys_s", r->cpu.sys_s);
		put_real(c, "utilization", r->cpu.utilization);
		put_real(c, "steal_pct", r->cpu.steal_pct);
		put_real(c, "other_pct", r->cpu.other_pct);
		put_real(c, "server_s", r->cpu.server_s);
		put_real(c, "server_pct", r->cpu.server_pct);
		put_real(c, "server_us_per_op", r->cpu.server_us_per_op);
		put_str(c, "servers", r->cpu.servers);
		put_str(c, "cpus", r->cpu.cpus);
		if (r->cpu.cpus_n > 0)
			json_object_set_new(c, "cpus_n", json_integer(r->cpu.cpus_n));
		put_real(c, "cpus_steal_pct", r->cpu.cpus_steal_pct);
		put_real(c, "cpus_other_pct", r->cpu.cpus_other_pct);
		put_real(c, "interference_pct", r->cpu.interference_pct);
		put_real(c, "cpus_use", r->cpu.cpus_use);
		json_object_set_new(o, "cpu", c);
	}
	if (r->peak_rss_bytes)
		put_count(o, "peak_rss_bytes", r->peak_rss_bytes);
	if (r->phases.set) {
		json_t *p = json_object();
		for (int i = 0; i < BC_NPHASES; i++)
			put_real(p, bc_phase_names[i], r->phases.s[i]);
		json_object_set_new(o, "phase_s", p);
	}
	if (r->intervals_file) {
		json_object_set_new(o, "intervals_file", json_string(r->intervals_file));
		json_object_set_new(o, "intervals_count", json_integer(r->intervals_count));
	} else if (r->has_intervals || r->nintervals) {
		json_object_set_new(o, "intervals", bc_case_intervals_json(r));
	}
	return o;
}

json_t *bc_case_key(const bc_case_result *r)
{
	json_t *key = r->params ? json_deep_copy(r->params) : json_object(), *v;
	const char *k;
	if (!key)
		abort();
	json_object_foreach(r->machine, k, v) {
		char *mk = bc_xasprintf("machine.%s", k);
		json_object_set(key, mk, v);
		free(mk);
	}
	return key;
}

int bc_case_run_from_json(json_t *c, bc_case_result *r, char *why, size_t n)
{
	json_t *ru = json_object_get(c, "run");
	if (!ru || json_is_null(ru))
		return 0;
	json_t *id = json_object_get(ru, "run_id"), *h = json_object_get(ru, "host");
	if (!json_is_object(ru) || (id && !json_is_string(id)) || (h && !json_is_object(h))) {
		snprintf(why, n, "run: %s", !json_is_object(ru) ? "not an object" :
			 id && !json_is_string(id) ? "run_id is not a string" : "host is not an object");
		return -1;
	}
	r->run.set = 1;
	bc_case_set_str(&r->run.run_id, json_string_value(id));
	json_decref(r->run.host);
	r->run.host = h ? json_deep_copy(h) : NULL;
	return 0;
}
