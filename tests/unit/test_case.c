/* The result model's round trip: a bc_case_result written by the one writer
   (bc_case_to_json) and read back by the one reader (bc_case_from_json) is
   the same result, field by field; every case of the benchcore/1 files in
   tests/fixtures reads and writes back as it was; and a case object with one
   field of the wrong type is refused with a message naming that field. */
#include "unit.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "case.h"
#include "results.h"
#include "util.h"

#define S(x) bc_xstrdup(x)

/* ------------------------------------------------------------ comparing */

static int deq(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static int seq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

#define EQ_D(a, b) do { if (!deq((a), (b))) { \
	fprintf(stderr, "%s: %.17g != %.17g\n", #a, (double)(a), (double)(b)); fail(); } } while (0)
#define EQ_S(a, b) do { if (!seq((a), (b))) { \
	fprintf(stderr, "%s: \"%s\" != \"%s\"\n", #a, (a) ? (a) : "(null)", (b) ? (b) : "(null)"); \
	fail(); } } while (0)
#define EQ_I(a, b) do { if ((a) != (b)) { \
	fprintf(stderr, "%s: %lld != %lld\n", #a, (long long)(a), (long long)(b)); fail(); } } while (0)

static void eq_latency(const bc_cr_latency *a, const bc_cr_latency *b)
{
	EQ_I(a->set, b->set);
	EQ_D(a->min, b->min);
	EQ_D(a->mean, b->mean);
	EQ_D(a->max, b->max);
	EQ_D(a->stddev, b->stddev);
	EQ_I(a->npct, b->npct);
	for (size_t i = 0; i < a->npct; i++) {
		EQ_S(a->pct[i].key, b->pct[i].key);
		EQ_D(a->pct[i].ns, b->pct[i].ns);
	}
}

static void eq_op(const bc_cr_op *a, const bc_cr_op *b)
{
	EQ_S(a->name, b->name);
	EQ_I(a->count, b->count);
	EQ_I(a->errors, b->errors);
	EQ_I(a->bytes, b->bytes);
	EQ_D(a->per_sec, b->per_sec);
	eq_latency(&a->lat, &b->lat);
	EQ_I(a->has_kinds, b->has_kinds);
	EQ_I(a->nkinds, b->nkinds);
	for (size_t i = 0; i < a->nkinds; i++) {
		EQ_S(a->kinds[i].kind, b->kinds[i].kind);
		EQ_I(a->kinds[i].n, b->kinds[i].n);
	}
	EQ_I(a->folded, b->folded);
	EQ_S(a->folded_first, b->folded_first);
	EQ_I(a->ndists, b->ndists);
	for (size_t i = 0; i < a->ndists; i++) {
		EQ_S(a->dists[i].name, b->dists[i].name);
		EQ_I(a->dists[i].count, b->dists[i].count);
		eq_latency(&a->dists[i].lat, &b->dists[i].lat);
	}
}

static void eq_case(const bc_case_result *a, const bc_case_result *b)
{
	EQ_I(a->id, b->id);
	EQ_S(a->module, b->module);
	EQ_S(a->module_version, b->module_version);
	EQ_S(a->module_path, b->module_path);
	EQ_S(a->module_sha256, b->module_sha256);
	EQ_S(a->module_shadows, b->module_shadows);
	assert_true(json_equal(a->params, b->params));
	EQ_S(a->point, b->point);
	EQ_I(a->threads, b->threads);
	EQ_I(a->repeat, b->repeat);
	EQ_I(a->round, b->round);
	EQ_S(a->status, b->status);
	EQ_S(a->reason, b->reason);
	EQ_D(a->duration_s, b->duration_s);
	EQ_D(a->warmup_s, b->warmup_s);
	EQ_D(a->error_rate, b->error_rate);
	EQ_I(a->records_refused, b->records_refused);
	EQ_I(a->strays_killed, b->strays_killed);
	EQ_S(a->headline, b->headline);
	EQ_I(a->has_thresholds, b->has_thresholds);
	EQ_I(a->nthresholds, b->nthresholds);
	for (size_t i = 0; i < a->nthresholds; i++) {
		EQ_S(a->thresholds[i].metric, b->thresholds[i].metric);
		EQ_D(a->thresholds[i].pct, b->thresholds[i].pct);
	}
	EQ_I(a->prepare.set, b->prepare.set);
	if (a->prepare.set) {
		EQ_D(a->prepare.seconds, b->prepare.seconds);
		EQ_I(a->prepare.has_progress, b->prepare.has_progress);
		EQ_I(a->prepare.done, b->prepare.done);
		EQ_I(a->prepare.total, b->prepare.total);
		EQ_S(a->prepare.unit, b->prepare.unit);
	}
	EQ_I(a->error.set, b->error.set);
	if (a->error.set) {
		EQ_S(a->error.message, b->error.message);
		EQ_I(a->error.count, b->error.count);
		EQ_S(a->error.detail, b->error.detail);
		EQ_S(a->error.hint, b->error.hint);
		EQ_I(a->error.thread, b->error.thread);
	}
	EQ_I(a->nmetrics, b->nmetrics);
	for (size_t i = 0; i < a->nmetrics; i++) {
		EQ_S(a->metrics[i].name, b->metrics[i].name);
		EQ_S(a->metrics[i].unit, b->metrics[i].unit);
		EQ_D(a->metrics[i].value, b->metrics[i].value);
		EQ_I(a->metrics[i].higher_is_better, b->metrics[i].higher_is_better);
	}
	EQ_I(a->ninfo, b->ninfo);
	for (size_t i = 0; i < a->ninfo; i++) {
		EQ_S(a->info[i].key, b->info[i].key);
		EQ_S(a->info[i].value, b->info[i].value);
	}
	EQ_I(a->nwarnings, b->nwarnings);
	for (size_t i = 0; i < a->nwarnings; i++)
		EQ_S(a->warnings[i], b->warnings[i]);
	EQ_I(a->nops, b->nops);
	for (size_t i = 0; i < a->nops; i++)
		eq_op(&a->ops[i], &b->ops[i]);
	EQ_I(a->fairness.set, b->fairness.set);
	if (a->fairness.set) {
		EQ_D(a->fairness.events_mean, b->fairness.events_mean);
		EQ_D(a->fairness.events_stddev, b->fairness.events_stddev);
		EQ_D(a->fairness.events_cv, b->fairness.events_cv);
		EQ_D(a->fairness.events_min, b->fairness.events_min);
		EQ_D(a->fairness.events_max, b->fairness.events_max);
		EQ_D(a->fairness.busy_mean_s, b->fairness.busy_mean_s);
		EQ_D(a->fairness.busy_stddev_s, b->fairness.busy_stddev_s);
	}
	EQ_I(a->stability.set, b->stability.set);
	if (a->stability.set) {
		EQ_D(a->stability.interval_cv, b->stability.interval_cv);
		EQ_I(a->stability.intervals, b->stability.intervals);
	}
	EQ_I(a->open_loop.set, b->open_loop.set);
	if (a->open_loop.set) {
		EQ_D(a->open_loop.rate, b->open_loop.rate);
		EQ_S(a->open_loop.arrival, b->open_loop.arrival);
		EQ_I(a->open_loop.late_starts, b->open_loop.late_starts);
		EQ_I(a->open_loop.max_queue, b->open_loop.max_queue);
		EQ_D(a->open_loop.max_lag_ms, b->open_loop.max_lag_ms);
	}
	EQ_D(a->cpu_mhz_mean, b->cpu_mhz_mean);
	EQ_I(a->cpu.set, b->cpu.set);
	if (a->cpu.set) {
		EQ_D(a->cpu.user_s, b->cpu.user_s);
		EQ_D(a->cpu.sys_s, b->cpu.sys_s);
		EQ_D(a->cpu.utilization, b->cpu.utilization);
		EQ_D(a->cpu.steal_pct, b->cpu.steal_pct);
		EQ_D(a->cpu.other_pct, b->cpu.other_pct);
		EQ_D(a->cpu.server_s, b->cpu.server_s);
		EQ_D(a->cpu.server_pct, b->cpu.server_pct);
		EQ_D(a->cpu.server_us_per_op, b->cpu.server_us_per_op);
		EQ_S(a->cpu.servers, b->cpu.servers);
	}
	EQ_I(a->freq.set, b->freq.set);
	if (a->freq.set) {
		EQ_D(a->freq.measured_mhz, b->freq.measured_mhz);
		EQ_D(a->freq.before_mhz, b->freq.before_mhz);
		EQ_D(a->freq.after_mhz, b->freq.after_mhz);
		EQ_D(a->freq.cpufreq_mhz, b->freq.cpufreq_mhz);
		EQ_D(a->freq.cpuinfo_mhz, b->freq.cpuinfo_mhz);
		EQ_I(a->freq.cpus, b->freq.cpus);
	}
	EQ_I(a->peak_rss_bytes, b->peak_rss_bytes);
	EQ_I(a->phases.set, b->phases.set);
	for (int i = 0; a->phases.set && i < BC_NPHASES; i++)
		EQ_D(a->phases.s[i], b->phases.s[i]);
	EQ_I(a->has_intervals, b->has_intervals);
	EQ_I(a->nintervals, b->nintervals);
	for (size_t i = 0; i < a->nintervals; i++) {
		const bc_cr_interval *x = &a->intervals[i], *y = &b->intervals[i];
		EQ_D(x->t, y->t);
		EQ_D(x->events_per_sec, y->events_per_sec);
		EQ_D(x->p95_ms, y->p95_ms);
		EQ_D(x->errors_per_sec, y->errors_per_sec);
		EQ_I(x->nops, y->nops);
		for (size_t j = 0; j < x->nops; j++) {
			EQ_S(x->ops[j].name, y->ops[j].name);
			EQ_D(x->ops[j].per_sec, y->ops[j].per_sec);
			EQ_D(x->ops[j].mib_per_sec, y->ops[j].mib_per_sec);
		}
	}
	EQ_S(a->intervals_file, b->intervals_file);
	EQ_I(a->intervals_count, b->intervals_count);
}

/* ------------------------------------------------------------- building */

static void set_latency(bc_cr_latency *l, double base, size_t npct)
{
	static const char *const keys[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	l->set = 1;
	l->min = base;
	l->mean = base * 1.5 + 0.25;	/* a mean has a fraction */
	l->max = base * 9;
	l->stddev = base / 3;
	l->pct = bc_xcalloc(npct, sizeof(*l->pct));
	l->npct = npct;
	for (size_t i = 0; i < npct; i++) {
		l->pct[i].key = S(keys[i]);
		l->pct[i].ns = base * (double)(i + 2);
	}
	if (npct > 2)
		l->pct[npct - 1].ns += 0.5;	/* a percentile from a file can carry one too */
}

static void set_ops(bc_case_result *r)
{
	r->nops = 3;
	r->ops = bc_xcalloc(3, sizeof(*r->ops));
	bc_cr_op *o = &r->ops[0];	/* a busy op class: kinds, folded, two dists */
	o->name = S("read");
	o->count = 123456789012ull;
	o->errors = 17;
	o->bytes = 505290270818304ull;
	o->per_sec = 12345.678;
	set_latency(&o->lat, 1000, 5);
	o->has_kinds = 1;
	o->nkinds = 3;
	o->kinds = bc_xcalloc(3, sizeof(*o->kinds));
	o->kinds[0] = (bc_cr_count){ S("timeout"), 9 };
	o->kinds[1] = (bc_cr_count){ S("refused"), 5 };
	o->kinds[2] = (bc_cr_count){ S("other"), 3 };
	o->folded = 3;
	o->folded_first = S("EPIPE");
	o->ndists = 2;
	o->dists = bc_xcalloc(2, sizeof(*o->dists));
	o->dists[0].name = S("queue");
	o->dists[0].count = 400;
	set_latency(&o->dists[0].lat, 250, 3);
	o->dists[1].name = S("connect");
	o->dists[1].count = 0;
	o->dists[1].lat = (bc_cr_latency){ .min = NAN, .mean = NAN, .max = NAN, .stddev = NAN };
	o = &r->ops[1];		/* no errors at all, but error_kinds present */
	o->name = S("write");
	o->count = 5;
	o->per_sec = 0.5;
	set_latency(&o->lat, 77, 2);
	o->has_kinds = 1;
	o = &r->ops[2];		/* declared, never ran: no latency, no kinds */
	o->name = S("scan");
	o->per_sec = 0;
	o->lat = (bc_cr_latency){ .min = NAN, .mean = NAN, .max = NAN, .stddev = NAN };
}

static void set_intervals(bc_case_result *r)
{
	r->has_intervals = 1;
	r->nintervals = 2;
	r->intervals = bc_xcalloc(2, sizeof(*r->intervals));
	for (size_t i = 0; i < 2; i++) {
		bc_cr_interval *iv = &r->intervals[i];
		iv->t = 1.0 * (double)(i + 1);
		iv->events_per_sec = 1000.5 + (double)i;
		iv->p95_ms = 0.125;
		iv->errors_per_sec = (double)i;
		iv->nops = 2;
		iv->ops = bc_xcalloc(2, sizeof(*iv->ops));
		iv->ops[0] = (bc_cr_iop){ S("read"), 900.25, 3.5 };
		iv->ops[1] = (bc_cr_iop){ S("write"), 100.25, NAN };	/* no bytes: no MiB/s */
	}
}

/* Every field of the model set, each optional one present. */
static void full_case(bc_case_result *r)
{
	bc_case_init(r);
	r->id = 42;
	bc_case_set_str(&r->module, "kv");
	bc_case_set_str(&r->module_version, "2.1");
	bc_case_set_str(&r->module_path, "/opt/bc/modules/kv.so");
	bc_case_set_str(&r->module_sha256, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
	bc_case_set_str(&r->module_shadows, "/usr/lib/bc/kv.so, /home/u/kv.so");
	json_decref(r->params);
	r->params = json_pack("{s:I, s:s, s:b, s:f, s:[s, s]}", "block_size", (json_int_t)4096, "oper",
			      "read", "direct", 1, "ratio", 0.75, "hosts", "a", "b");
	bc_case_set_str(&r->point, "block_size=4K oper=read");
	r->threads = 8;
	r->repeat = 3;
	r->round = 3;
	bc_case_set_str(&r->status, "failed");
	bc_case_set_str(&r->reason, "errors: 1.20% of operations failed");
	r->duration_s = 10.000123;
	r->warmup_s = 2;
	r->error_rate = 0.012;
	r->records_refused = 2;
	r->strays_killed = 1;
	bc_case_set_str(&r->headline, "ops_per_sec");
	r->has_thresholds = 1;
	r->nthresholds = 2;
	r->thresholds = bc_xcalloc(2, sizeof(*r->thresholds));
	r->thresholds[0] = (bc_cr_threshold){ S("read.p99_ms"), 20 };
	r->thresholds[1] = (bc_cr_threshold){ S("ops_per_sec"), 2.5 };
	r->prepare.set = 1;
	r->prepare.seconds = 1.5;
	r->prepare.has_progress = 1;
	r->prepare.done = 1000;
	r->prepare.total = 2000;
	bc_case_set_str(&r->prepare.unit, "rows");
	r->error.set = 1;
	bc_case_set_str(&r->error.message, "connection reset");
	r->error.count = 17;
	bc_case_set_str(&r->error.detail, "read(): ECONNRESET");
	bc_case_set_str(&r->error.hint, "is the server up?");
	r->error.thread = 3;
	bc_case_set_metric(r, "events_per_sec", "events/s", 12350.75, 1);
	bc_case_set_metric(r, "ops_per_sec", "ops/s", 12345.5, 1);
	bc_case_set_metric(r, "hit_ratio", "", 0.875, 1);
	bc_case_set_metric(r, "lag_ms", "ms", 3.25, 0);
	bc_case_set_info(r, "server_version", "7.2.4");
	bc_case_set_info(r, "fs_type", "ext4");
	bc_case_add_warning(r, "the hypervisor took 6.0% of the machine's CPU time");
	bc_case_add_warning(r, "the case left 1 process running (killed): a module must stop what it starts");
	set_ops(r);
	r->fairness.set = 1;
	r->fairness.events_mean = 15432098626.5;
	r->fairness.events_stddev = 1234.25;
	r->fairness.events_cv = 0.0001;
	r->fairness.events_min = 15432000000;
	r->fairness.events_max = 15432200000;
	r->fairness.busy_mean_s = 9.5;
	r->fairness.busy_stddev_s = 0.125;
	r->stability.set = 1;
	r->stability.interval_cv = NAN;	/* fewer than two intervals: null */
	r->stability.intervals = 1;
	r->open_loop.set = 1;
	r->open_loop.rate = 20000;
	bc_case_set_str(&r->open_loop.arrival, "fixed");
	r->open_loop.late_starts = 12;
	r->open_loop.max_queue = 4;
	r->open_loop.max_lag_ms = 2.75;
	r->cpu_mhz_mean = 2599.5;
	r->cpu.set = 1;
	r->cpu.user_s = 70.25;
	r->cpu.sys_s = 9.5;
	r->cpu.utilization = 7.975;
	r->cpu.steal_pct = 6;
	r->cpu.other_pct = 0.5;
	r->cpu.server_s = 61.5;	/* a local server declared (issue 26): its CPU apart */
	r->cpu.server_pct = 48.25;
	r->cpu.server_us_per_op = 12.125;
	bc_case_set_str(&r->cpu.servers, "redis-server (pid 4242, its process group)");
	r->freq.set = 1;
	r->freq.measured_mhz = 4100.5;
	r->freq.before_mhz = 4110.25;
	r->freq.after_mhz = 4090.75;
	r->freq.cpuinfo_mhz = 2596.1;	/* cpufreq_mhz absent: a VM without cpufreq */
	r->freq.cpus = 2;
	r->peak_rss_bytes = 7340032;
	r->phases.set = 1;
	r->phases.s[BC_PH_INIT] = 0.001;
	r->phases.s[BC_PH_MEASURE] = 10.0005;
	r->phases.s[BC_PH_DESTROY] = 0;	/* 0 is a time; not run (prepare, ...) stays NAN */
	set_intervals(r);
}

/* write → read → equal, and the second write is the first */
static void round_trip(const bc_case_result *r)
{
	bc_case_result back;
	bc_err err = { .msg = "" };
	json_t *j1 = bc_case_to_json(r);
	assert_non_null(j1);
	if (bc_case_from_json(j1, 0, &back, &err) != 0) {
		fprintf(stderr, "read back: %s\n", err.msg);
		fail();
	}
	eq_case(r, &back);
	json_t *j2 = bc_case_to_json(&back);
	assert_true(json_equal(j1, j2));
	/* and through text, as the file carries it */
	char *text = json_dumps(j1, 0);
	json_t *j3 = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	bc_case_result again;
	assert_int_equal(bc_case_from_json(j3, 0, &again, &err), 0);
	eq_case(r, &again);
	bc_case_free(&again);
	json_decref(j3);
	free(text);
	json_decref(j2);
	bc_case_free(&back);
	json_decref(j1);
}

static void test_full_round_trip(void **st)
{
	(void)st;
	bc_case_result r;
	full_case(&r);
	json_t *j = bc_case_to_json(&r);
	/* the writer wrote what the test set (a few spot checks on the JSON itself) */
	assert_true(json_is_null(json_object_get(json_object_get(j, "stability"), "interval_cv")));
	json_t *iops = json_object_get(json_object_get(json_array_get(json_object_get(j, "intervals"), 0),
						       "ops"), "write");
	assert_null(json_object_get(iops, "mib_per_sec"));
	assert_non_null(json_object_get(json_object_get(json_object_get(j, "ops"), "write"), "error_kinds"));
	assert_null(json_object_get(json_object_get(json_object_get(j, "ops"), "scan"), "latency_ns"));
	json_decref(j);
	round_trip(&r);

	/* the same case, ok, with intervals spilled to a file and a cv */
	bc_case_set_str(&r.status, "ok");
	bc_case_set_str(&r.reason, NULL);
	r.stability.interval_cv = 0.0625;
	r.stability.intervals = 600;
	for (size_t i = 0; i < r.nintervals; i++) {
		for (size_t k = 0; k < r.intervals[i].nops; k++)
			free(r.intervals[i].ops[k].name);
		free(r.intervals[i].ops);
	}
	free(r.intervals);
	r.intervals = NULL;
	r.nintervals = 0;
	r.has_intervals = 0;
	bc_case_set_str(&r.intervals_file, "out.json.intervals.jsonl");
	r.intervals_count = 600;
	round_trip(&r);

	/* present but empty: error_kinds {}, thresholds {}, intervals [] */
	bc_case_set_str(&r.intervals_file, NULL);
	r.intervals_count = 0;
	r.has_intervals = 1;
	for (size_t i = 0; i < r.nthresholds; i++)
		free(r.thresholds[i].metric);
	r.nthresholds = 0;
	round_trip(&r);
	bc_case_free(&r);
}

/* A case that failed before measuring: what is absent stays absent. */
static void test_minimal_round_trip(void **st)
{
	(void)st;
	bc_case_result r, back;
	bc_err err;
	bc_case_init(&r);
	r.id = 7;
	bc_case_set_str(&r.module, "kv");
	r.threads = 1;
	r.repeat = 1;
	bc_case_set_str(&r.status, "failed");
	bc_case_set_str(&r.reason, "init: cannot connect");
	round_trip(&r);
	json_t *j = bc_case_to_json(&r);
	static const char *const gone[] = { "module_version", "module_path", "module_sha256",
		"module_shadows", "point", "round", "error", "error_rate", "records_refused",
		"strays_killed", "warnings", "prepare", "headline", "thresholds", "fairness",
		"stability", "open_loop", "cpu_mhz_mean", "cpu", "cpu_freq", "intervals", "intervals_file",
		"intervals_count", "peak_rss_bytes", "phase_s" };
	for (size_t i = 0; i < sizeof(gone) / sizeof(*gone); i++)
		if (json_object_get(j, gone[i])) {
			fprintf(stderr, "%s written for a case without it\n", gone[i]);
			fail();
		}
	assert_int_equal(bc_case_from_json(j, 0, &back, &err), 0);
	assert_true(isnan(back.error_rate) && isnan(back.cpu_mhz_mean));
	assert_null(back.module_version);
	assert_null(back.point);
	assert_null(back.headline);
	assert_int_equal(back.nmetrics, 0);	/* metrics and ops: {} as the engine writes */
	assert_int_equal(back.nops, 0);
	assert_int_equal(back.ninfo, 0);
	assert_null(back.warnings);
	assert_int_equal(back.round, 0);
	assert_int_equal(back.error.thread, -1);
	assert_false(back.error.set || back.prepare.set || back.fairness.set || back.stability.set ||
		     back.open_loop.set || back.cpu.set || back.has_intervals || back.has_thresholds);
	assert_string_equal(back.reason, "init: cannot connect");
	assert_true(json_is_object(back.params) && json_object_size(back.params) == 0);
	bc_case_free(&back);
	json_decref(j);

	/* the leanest object an older build wrote for a crashed case */
	j = json_loads("{\"module\": \"cpu\", \"status\": \"failed\", \"threads\": 8}", 0, NULL);
	assert_int_equal(bc_case_from_json(j, 3, &back, &err), 0);
	assert_string_equal(back.module, "cpu");
	assert_int_equal(back.threads, 8);
	assert_null(back.reason);
	assert_true(isnan(back.duration_s) && isnan(back.warmup_s));
	assert_true(json_is_object(back.params) && json_object_size(back.params) == 0);
	bc_case_free(&back);
	json_decref(j);
	bc_case_free(&r);
}

/* Percentiles in file order, min/mean/max/stddev by name, other keys
   ignored; info numbers and bools as their JSON text; names as read;
   null is absent. */
static void test_reader_details(void **st)
{
	(void)st;
	bc_case_result r;
	bc_err err;
	json_t *c = json_loads("{\"module\": \"m\", \"status\": \"ok\", \"threads\": 2, \"reason\": null,"
		"\"headline\": null, \"fairness\": null, \"stability\": {\"interval_cv\": null},"
		"\"cpu_mhz_mean\": null, \"info\": {\"n\": 10000, \"on\": true, \"x\": 1.5, \"s\": \"t\"},"
		"\"metrics\": {\"a\\u001b[31mb\": {\"value\": 1}},"
		"\"ops\": {\"op\": {\"count\": 3, \"latency_ns\": {\"p99\": 9, \"max\": 10, \"avg\": 5,"
		" \"p50\": 4, \"min\": 1, \"p99.9\": 9.5}}}}", 0, NULL);
	assert_non_null(c);
	assert_int_equal(bc_case_from_json(c, 0, &r, &err), 0);
	const bc_cr_latency *l = &r.ops[0].lat;
	assert_int_equal(l->npct, 3);
	assert_string_equal(l->pct[0].key, "p99");
	assert_string_equal(l->pct[1].key, "p50");
	assert_string_equal(l->pct[2].key, "p99.9");
	assert_true(l->pct[2].ns == 9.5 && l->min == 1 && l->max == 10);
	assert_true(isnan(l->mean) && isnan(l->stddev));
	assert_int_equal(r.ninfo, 4);
	assert_string_equal(r.info[0].value, "10000");
	assert_string_equal(r.info[1].value, "true");
	assert_string_equal(r.info[2].value, "1.5");
	assert_string_equal(r.info[3].value, "t");
	assert_string_equal(r.metrics[0].name, "a\033[31mb");	/* escaping is the printer's job */
	assert_string_equal(r.metrics[0].unit, "");
	assert_int_equal(r.metrics[0].higher_is_better, 1);
	assert_true(r.stability.set && isnan(r.stability.interval_cv));
	assert_false(r.fairness.set);
	assert_null(r.headline);
	assert_null(r.reason);
	assert_true(isnan(r.cpu_mhz_mean));
	bc_case_free(&r);
	json_decref(c);
}

/* ------------------------------------------------------------- fixtures */

static void ints_to_reals(json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;
	void *tmp;

	if (json_is_object(j)) {
		json_object_foreach_safe(j, tmp, k, v) {
			if (json_is_integer(v))
				json_object_set_new(j, k, json_real((double)json_integer_value(v)));
			else
				ints_to_reals(v);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			if (json_is_integer(v))
				json_array_set_new(j, i, json_real((double)json_integer_value(v)));
			else
				ints_to_reals(v);
		}
	}
}

/* A key the writer adds to a file that lacks it, with the value it adds:
   removed from the written object, after checking it is that value. */
static void drop_added(json_t *orig, json_t *out, const char *key, const char *dflt)
{
	json_t *want = json_loads(dflt, JSON_DECODE_ANY, NULL);
	if (!json_object_get(orig, key) && json_object_get(out, key)) {
		assert_true(json_equal(json_object_get(out, key), want));
		json_object_del(out, key);
	}
	json_decref(want);
}

/* One case of a fixture: reads, and writes back as the original. The
   comparison lets numbers be integer or real (the writer types latency
   min/max/percentiles as integers and means as reals; hand-made files did
   not), info numbers become their text (the model keeps info as strings),
   and the writer's defaults for fields the file lacks are dropped:
   metrics/ops/info {} (failed cases of older builds) and
   stability.intervals 0 (files before the series count). strict: a file
   a benchcore build wrote (run-*.json: only its host and module paths
   made neutral), equal as it is, integers where it has them. Unknown keys
   (kept by no writer): none in tests/fixtures. */
static int fixture_case(const char *file, json_t *c, size_t idx, int strict)
{
	bc_case_result r;
	bc_err err;
	if (bc_case_from_json(c, idx, &r, &err) != 0) {
		fprintf(stderr, "%s: %s\n", file, err.msg);
		return -1;
	}
	json_t *out = bc_case_to_json(&r), *orig = json_deep_copy(c), *v;
	const char *k;
	json_t *info = json_object_get(orig, "info");
	json_object_foreach(info, k, v)
		if (json_is_number(v) || json_is_boolean(v)) {
			char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			json_object_set_new(info, k, json_string(t));
			free(t);
		}
	drop_added(orig, out, "metrics", "{}");
	drop_added(orig, out, "ops", "{}");
	drop_added(orig, out, "info", "{}");
	drop_added(json_object_get(orig, "stability"), json_object_get(out, "stability"), "intervals", "0");
	int rc = json_equal(orig, out) ? 0 : -1;
	if (rc && !strict) {
		ints_to_reals(orig);
		ints_to_reals(out);
		rc = json_equal(orig, out) ? 0 : -1;
	}
	if (rc) {
		char *a = json_dumps(orig, JSON_SORT_KEYS), *b = json_dumps(out, JSON_SORT_KEYS);
		fprintf(stderr, "%s cases[%zu] differs:\n  file:    %s\n  written: %s\n", file, idx, a, b);
		free(a);
		free(b);
	}
	json_decref(orig);
	json_decref(out);
	bc_case_free(&r);
	return rc;
}

static void test_fixtures(void **st)
{
	(void)st;
	const char *dir = "tests/fixtures";
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t files = 0, cases = 0, built = 0;
	int bad = 0;

	assert_non_null(d);	/* the unit tests run from the source tree */
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 5, ".json"))
			continue;
		char *path = bc_xasprintf("%s/%s", dir, e->d_name);
		json_error_t je;
		json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je), *c;
		size_t i;
		assert_non_null(doc);
		if (!strcmp(json_string_value(json_object_get(doc, "schema")) ?: "", "benchcore/1")) {
			int strict = !strncmp(e->d_name, "run-", 4);
			files++;
			built += strict;
			json_array_foreach(json_object_get(doc, "cases"), i, c) {
				bad |= fixture_case(path, c, i, strict) != 0;
				cases++;
			}
		}
		json_decref(doc);
		free(path);
	}
	closedir(d);
	assert_false(bad);
	assert_true(files >= 9);
	assert_true(built >= 1);
	assert_true(cases >= 150);
}

/* --------------------------------------------------------------- hostile */

/* A good case with every field; the table replaces one. */
static const char good[] =
	"{\"id\": 4, \"module\": \"kv\", \"module_version\": \"1\", \"module_path\": \"/m/kv.so\","
	" \"module_sha256\": \"ab\", \"module_shadows\": \"/x/kv.so\", \"params\": {\"n\": 1},"
	" \"point\": \"n=1\", \"threads\": 2, \"repeat\": 1, \"round\": 1, \"status\": \"ok\","
	" \"reason\": null, \"error\": {\"message\": \"m\", \"count\": 1, \"detail\": \"d\","
	" \"hint\": \"h\", \"thread\": 0}, \"error_rate\": 0.001, \"records_refused\": 0,"
	" \"strays_killed\": 0, \"warnings\": [\"w\"], \"duration_s\": 1.0, \"warmup_s\": 0.5,"
	" \"prepare\": {\"seconds\": 0.25, \"done\": 5, \"total\": 10, \"unit\": \"rows\"},"
	" \"headline\": \"events_per_sec\", \"thresholds\": {\"x\": 5.0},"
	" \"metrics\": {\"events_per_sec\": {\"value\": 10.0, \"unit\": \"events/s\","
	" \"higher_is_better\": true}},"
	" \"ops\": {\"read\": {\"count\": 10, \"errors\": 1, \"bytes\": 100, \"per_sec\": 10.0,"
	" \"latency_ns\": {\"min\": 1, \"mean\": 2.0, \"max\": 3, \"stddev\": 0.5, \"p50\": 2, \"p99\": 3},"
	" \"error_kinds\": {\"timeout\": 1}, \"error_kinds_folded\": {\"count\": 1, \"first_kind\": \"e\"},"
	" \"dists\": {\"queue\": {\"count\": 4, \"latency_ns\": {\"min\": 1, \"p50\": 2}}}}},"
	" \"fairness\": {\"events_mean\": 5.0, \"events_stddev\": 1.0, \"events_cv\": 0.2,"
	" \"events_min\": 4.0, \"events_max\": 6.0, \"busy_mean_s\": 0.9, \"busy_stddev_s\": 0.1},"
	" \"stability\": {\"interval_cv\": 0.1, \"intervals\": 2},"
	" \"open_loop\": {\"rate\": 10.0, \"arrival\": \"poisson\", \"late_starts\": 0,"
	" \"max_lag_ms\": 0.5, \"max_queue\": 1}, \"info\": {\"k\": \"v\"}, \"cpu_mhz_mean\": 2000.0,"
	" \"cpu\": {\"user_s\": 1.0, \"sys_s\": 0.1, \"utilization\": 1.1, \"steal_pct\": 0.0,"
	" \"other_pct\": 0.0}, \"cpu_freq\": {\"measured_mhz\": 4100.0, \"cpus\": 1}, \"peak_rss_bytes\": 1048576, \"phase_s\": {\"init\": 0.01, \"measure\": 1.0},"
	" \"intervals\": [{\"t\": 0.5, \"events_per_sec\": 10.0, \"p95_ms\": 0.1,"
	" \"errors_per_sec\": 0.0, \"ops\": {\"read\": {\"per_sec\": 10.0, \"mib_per_sec\": 0.1}}}],"
	" \"intervals_file\": \"f.jsonl\", \"intervals_count\": 1}";

/* Replaces the value at path ('/'-separated; "" = the whole case). */
static json_t *with(const char *path, const char *value)
{
	json_t *c = json_loads(good, 0, NULL), *v = json_loads(value, JSON_DECODE_ANY, NULL);
	assert_non_null(c);
	assert_non_null(v);
	if (!*path) {
		json_decref(c);
		return v;
	}
	char *p = S(path), *save = NULL, *tok = strtok_r(p, "/", &save), *next;
	json_t *at = c;
	while ((next = strtok_r(NULL, "/", &save))) {
		at = json_is_array(at) ? json_array_get(at, strtoul(tok, NULL, 10)) : json_object_get(at, tok);
		assert_non_null(at);
		tok = next;
	}
	if (json_is_array(at))
		assert_int_equal(json_array_set_new(at, strtoul(tok, NULL, 10), v), 0);
	else
		json_object_set_new(at, tok, v);
	free(p);
	return c;
}

static const struct { const char *path, *value, *msg; } hostile[] = {
	/* today's reader, its messages as they were */
	{ "", "5", "cases[7]: not an object" },
	{ "module", "5", "cases[7]: module and status must be strings" },
	{ "status", "null", "cases[7]: module and status must be strings" },
	{ "params", "[1]", "cases[7].params: not an object" },
	{ "threads", "0", "cases[7].threads: not an integer in 1..1000000" },
	{ "threads", "1000001", "cases[7].threads: not an integer in 1..1000000" },
	{ "threads", "\"2\"", "cases[7].threads: not an integer in 1..1000000" },
	{ "threads", "2.0", "cases[7].threads: not an integer in 1..1000000" },
	{ "metrics", "[]", "cases[7].metrics: not an object" },
	{ "metrics/events_per_sec", "5", "cases[7].metrics.events_per_sec: wants {value: number, unit, higher_is_better}" },
	{ "metrics/events_per_sec/value", "\"10\"", "cases[7].metrics.events_per_sec: wants {value: number, unit, higher_is_better}" },
	{ "metrics/events_per_sec/value", "null", "cases[7].metrics.events_per_sec: wants {value: number, unit, higher_is_better}" },
	{ "metrics/events_per_sec/unit", "5", "cases[7].metrics.events_per_sec: unit must be a string, higher_is_better a bool" },
	{ "metrics/events_per_sec/higher_is_better", "1", "cases[7].metrics.events_per_sec: unit must be a string, higher_is_better a bool" },
	{ "fairness", "5", "cases[7].fairness.events_stddev: not a number >= 0" },
	{ "fairness/events_stddev", "-1", "cases[7].fairness.events_stddev: not a number >= 0" },
	{ "stability", "[]", "cases[7].stability.interval_cv: not a number >= 0" },
	{ "stability/interval_cv", "\"x\"", "cases[7].stability.interval_cv: not a number >= 0" },
	{ "ops", "5", "cases[7].ops: not an object" },
	{ "ops/read", "5", "cases[7].ops.read: not an object with latency_ns {...}" },
	{ "ops/read/latency_ns", "[]", "cases[7].ops.read: not an object with latency_ns {...}" },
	{ "ops/read/count", "-1", "cases[7].ops.read.count: not a count (an integer >= 0)" },
	{ "ops/read/errors", "1.5", "cases[7].ops.read.errors: not a count (an integer >= 0)" },
	{ "ops/read/bytes", "\"1\"", "cases[7].ops.read.bytes: not a count (an integer >= 0)" },
	{ "ops/read/latency_ns/p99", "-3", "cases[7].ops.read.latency_ns.p99: not a number >= 0" },
	{ "ops/read/latency_ns/min", "\"1\"", "cases[7].ops.read.latency_ns.min: not a number >= 0" },
	{ "headline", "5", "cases[7].headline: not a string" },
	{ "thresholds", "[]", "cases[7].thresholds: not an object" },
	{ "thresholds/x", "-1", "cases[7].thresholds.x: wants a percentage >= 0" },
	{ "thresholds/x", "\"5\"", "cases[7].thresholds.x: wants a percentage >= 0" },
	{ "cpu/steal_pct", "\"x\"", "cases[7].cpu.steal_pct: not a number" },
	{ "cpu/other_pct", "[]", "cases[7].cpu.other_pct: not a number" },
	{ "cpu/server_pct", "\"x\"", "cases[7].cpu.server_pct: not a number" },
	{ "cpu/server_us_per_op", "{}", "cases[7].cpu.server_us_per_op: not a number" },
	{ "cpu/servers", "3", "cases[7].cpu.servers: not a string" },
	{ "cpu_freq", "5", "cases[7].cpu_freq: not an object" },
	{ "cpu_freq/measured_mhz", "-1", "cases[7].cpu_freq.measured_mhz: not a frequency in MHz" },
	{ "cpu_freq/before_mhz", "\"4G\"", "cases[7].cpu_freq.before_mhz: not a frequency in MHz" },
	{ "cpu_freq/cpus", "1.5", "cases[7].cpu_freq.cpus: not an integer >= 0" },
	/* fields today's reader did not check */
	{ "id", "\"4\"", "cases[7].id: not an integer >= 0" },
	{ "repeat", "-1", "cases[7].repeat: not an integer >= 0" },
	{ "round", "1.5", "cases[7].round: not an integer >= 0" },
	{ "module_version", "1", "cases[7].module_version: not a string" },
	{ "module_path", "[]", "cases[7].module_path: not a string" },
	{ "module_sha256", "{}", "cases[7].module_sha256: not a string" },
	{ "module_shadows", "true", "cases[7].module_shadows: not a string" },
	{ "point", "1", "cases[7].point: not a string" },
	{ "reason", "5", "cases[7].reason: not a string or null" },
	{ "duration_s", "\"1\"", "cases[7].duration_s: not a number >= 0" },
	{ "duration_s", "-1", "cases[7].duration_s: not a number >= 0" },
	{ "warmup_s", "true", "cases[7].warmup_s: not a number >= 0" },
	{ "error_rate", "1.5", "cases[7].error_rate: not a number in 0..1" },
	{ "error_rate", "\"0\"", "cases[7].error_rate: not a number in 0..1" },
	{ "records_refused", "-1", "cases[7].records_refused: not a count (an integer >= 0)" },
	{ "strays_killed", "1.0", "cases[7].strays_killed: not a count (an integer >= 0)" },
	{ "error", "\"e\"", "cases[7].error: not an object" },
	{ "error/message", "5", "cases[7].error.message: not a string" },
	{ "error/count", "-1", "cases[7].error.count: not a count (an integer >= 0)" },
	{ "error/detail", "5", "cases[7].error.detail: not a string" },
	{ "error/hint", "[]", "cases[7].error.hint: not a string" },
	{ "error/thread", "-1", "cases[7].error.thread: not an integer in 0..999999" },
	{ "warnings", "\"w\"", "cases[7].warnings: not an array" },
	{ "warnings/0", "5", "cases[7].warnings[0]: not a string" },
	{ "prepare", "1", "cases[7].prepare: not an object" },
	{ "prepare/seconds", "\"1\"", "cases[7].prepare.seconds: not a number >= 0" },
	{ "prepare/done", "-5", "cases[7].prepare.done: not a count (an integer >= 0)" },
	{ "prepare/total", "1.5", "cases[7].prepare.total: not a count (an integer >= 0)" },
	{ "prepare/unit", "5", "cases[7].prepare.unit: not a string" },
	{ "info", "[]", "cases[7].info: not an object" },
	{ "info/k", "[1]", "cases[7].info.k: not a string, number or bool" },
	{ "ops/read/per_sec", "\"1\"", "cases[7].ops.read.per_sec: not a number >= 0" },
	{ "ops/read/error_kinds", "[]", "cases[7].ops.read.error_kinds: not an object" },
	{ "ops/read/error_kinds/timeout", "-1", "cases[7].ops.read.error_kinds.timeout: not a count (an integer >= 0)" },
	{ "ops/read/error_kinds_folded", "1", "cases[7].ops.read.error_kinds_folded: not an object" },
	{ "ops/read/error_kinds_folded/count", "\"1\"", "cases[7].ops.read.error_kinds_folded.count: not a count (an integer >= 0)" },
	{ "ops/read/error_kinds_folded/first_kind", "1", "cases[7].ops.read.error_kinds_folded.first_kind: not a string" },
	{ "ops/read/dists", "[]", "cases[7].ops.read.dists: not an object" },
	{ "ops/read/dists/queue", "5", "cases[7].ops.read.dists.queue: not an object" },
	{ "ops/read/dists/queue/count", "-4", "cases[7].ops.read.dists.queue.count: not a count (an integer >= 0)" },
	{ "ops/read/dists/queue/latency_ns", "5", "cases[7].ops.read.dists.queue.latency_ns: not an object" },
	{ "ops/read/dists/queue/latency_ns/p50", "\"2\"", "cases[7].ops.read.dists.queue.latency_ns.p50: not a number >= 0" },
	{ "fairness/events_mean", "\"5\"", "cases[7].fairness.events_mean: not a number >= 0" },
	{ "fairness/events_cv", "-0.1", "cases[7].fairness.events_cv: not a number >= 0" },
	{ "fairness/events_min", "[]", "cases[7].fairness.events_min: not a number >= 0" },
	{ "fairness/events_max", "{}", "cases[7].fairness.events_max: not a number >= 0" },
	{ "fairness/busy_mean_s", "true", "cases[7].fairness.busy_mean_s: not a number >= 0" },
	{ "fairness/busy_stddev_s", "-1", "cases[7].fairness.busy_stddev_s: not a number >= 0" },
	{ "stability/intervals", "-1", "cases[7].stability.intervals: not a count (an integer >= 0)" },
	{ "open_loop", "[]", "cases[7].open_loop: not an object" },
	{ "open_loop/rate", "\"10\"", "cases[7].open_loop.rate: not a number >= 0" },
	{ "open_loop/arrival", "1", "cases[7].open_loop.arrival: not a string" },
	{ "open_loop/late_starts", "-1", "cases[7].open_loop.late_starts: not a count (an integer >= 0)" },
	{ "open_loop/max_lag_ms", "-0.5", "cases[7].open_loop.max_lag_ms: not a number >= 0" },
	{ "open_loop/max_queue", "1.5", "cases[7].open_loop.max_queue: not a count (an integer >= 0)" },
	{ "cpu_mhz_mean", "\"2000\"", "cases[7].cpu_mhz_mean: not a number" },
	{ "cpu", "5", "cases[7].cpu: not an object" },
	{ "cpu/user_s", "\"1\"", "cases[7].cpu.user_s: not a number" },
	{ "cpu/sys_s", "[]", "cases[7].cpu.sys_s: not a number" },
	{ "cpu/utilization", "true", "cases[7].cpu.utilization: not a number" },
	{ "peak_rss_bytes", "-1", "cases[7].peak_rss_bytes: not a count (an integer >= 0)" },
	{ "peak_rss_bytes", "\"1M\"", "cases[7].peak_rss_bytes: not a count (an integer >= 0)" },
	{ "phase_s", "[]", "cases[7].phase_s: not an object" },
	{ "phase_s/init", "-0.5", "cases[7].phase_s.init: not a number >= 0" },
	{ "phase_s/measure", "\"1\"", "cases[7].phase_s.measure: not a number >= 0" },
	{ "intervals", "{}", "cases[7].intervals: not an array" },
	{ "intervals/0", "5", "cases[7].intervals[0]: not an object" },
	{ "intervals/0/t", "\"0\"", "cases[7].intervals[0].t: not a number" },
	{ "intervals/0/events_per_sec", "-1", "cases[7].intervals[0].events_per_sec: not a number >= 0" },
	{ "intervals/0/p95_ms", "[]", "cases[7].intervals[0].p95_ms: not a number >= 0" },
	{ "intervals/0/errors_per_sec", "-2", "cases[7].intervals[0].errors_per_sec: not a number >= 0" },
	{ "intervals/0/ops", "[]", "cases[7].intervals[0].ops: not an object" },
	{ "intervals/0/ops/read", "5", "cases[7].intervals[0].ops.read: not an object" },
	{ "intervals/0/ops/read/per_sec", "\"1\"", "cases[7].intervals[0].ops.read.per_sec: not a number >= 0" },
	{ "intervals/0/ops/read/mib_per_sec", "-1", "cases[7].intervals[0].ops.read.mib_per_sec: not a number >= 0" },
	{ "intervals_file", "5", "cases[7].intervals_file: not a string" },
	{ "intervals_count", "-1", "cases[7].intervals_count: not an integer >= 0" },
};

static void test_hostile(void **st)
{
	(void)st;
	bc_case_result r;
	bc_err err;
	int bad = 0;

	/* the good case reads, with every part filled */
	json_t *c = with("id", "4");
	assert_int_equal(bc_case_from_json(c, 7, &r, &err), 0);
	assert_true(r.prepare.has_progress && r.error.thread == 0 && r.ops[0].ndists == 1 &&
		    r.ops[0].folded == 1 && r.nintervals == 1 && r.open_loop.set && r.cpu.set);
	bc_case_free(&r);
	json_decref(c);
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		c = with(hostile[i].path, hostile[i].value);
		strcpy(err.msg, "(none)");
		int rc = bc_case_from_json(c, 7, &r, &err);
		if (rc != -1 || strcmp(err.msg, hostile[i].msg)) {
			fprintf(stderr, "%s = %s: rc %d, \"%s\"; wanted \"%s\"\n", hostile[i].path,
				hostile[i].value, rc, err.msg, hostile[i].msg);
			bad = 1;
		}
		if (rc == 0)
			bc_case_free(&r);
		else	/* freed and emptied on error */
			assert_true(!r.module && !r.ops && !r.params && !r.intervals);
		json_decref(c);
	}
	assert_false(bad);

	/* a message never overruns the bc_err it is given: one naming a
	   2000-byte key is cut to its msg, terminated */
	char key[2100] = "ops/read/error_kinds/";
	memset(key + strlen(key), 'k', 2000);
	c = with(key, "-1");
	assert_int_equal(bc_case_from_json(c, 7, &r, &err), -1);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
	assert_int_equal(strncmp(err.msg, "cases[7].ops.read.error_kinds.kkk", 33), 0);
	json_decref(c);
}

/* The one headline rule: the declaration when present among the metrics
   (events_per_sec is only the default), else the first higher-is-better
   one of the module's own, else events_per_sec; the grouping reads a
   case's headline back through it. */
static void test_headline_rule(void **st)
{
	(void)st;
	const bc_headline_cand c[] = { { "events_per_sec", 1 }, { "p99_ms", 0 }, { "sign_per_sec", 1 },
				       { "verify_per_sec", 1 } };
	assert_int_equal(bc_headline_pick("verify_per_sec", c, 4), 3);
	assert_int_equal(bc_headline_pick(NULL, c, 4), 2);
	assert_int_equal(bc_headline_pick("events_per_sec", c, 4), 2);	/* an older file's default */
	assert_int_equal(bc_headline_pick("gbit_per_sec", c, 4), 2);	/* declared, not reported */
	assert_int_equal(bc_headline_pick(NULL, c, 2), 0);
	assert_int_equal(bc_headline_pick(NULL, c + 1, 1), -1);
	assert_int_equal(bc_headline_pick("x", c, 0), -1);
	/* groups: the case's headline, or the rule for a file whose cases
	   named events_per_sec */
	const char *said[] = { "verify_per_sec", "events_per_sec", NULL };
	const char *want[] = { "verify_per_sec", "sign_per_sec", "sign_per_sec" };
	for (int i = 0; i < 3; i++) {
		bc_case_result r;
		bc_results res;
		bc_case_init(&r);
		bc_case_set_str(&r.module, "rsa");
		bc_case_set_str(&r.status, "ok");
		r.threads = 1;
		bc_case_set_metric(&r, "sign_per_sec", "sign/s", 100, 1);
		bc_case_set_metric(&r, "verify_per_sec", "verify/s", 2000, 1);
		bc_case_set_metric(&r, "events_per_sec", "events/s", 2100, 1);
		if (said[i])
			bc_case_set_str(&r.headline, said[i]);
		bc_results_init(&res, "x");
		bc_results_add_case(&res, &r);
		bc_results_done(&res);
		assert_int_equal(res.ngroups, 1);
		assert_string_equal(bc_primary_metric(&res.groups[0])->name, want[i]);
		bc_results_free(&res);
		bc_case_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_round_trip),
		cmocka_unit_test(test_minimal_round_trip),
		cmocka_unit_test(test_reader_details),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_headline_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
