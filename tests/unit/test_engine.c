/* The engine's phases, run in this process on a module defined here, and the
   result round trip: the case object the engine writes is read back by the
   reader compare and report use, and groups to the same figures. */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "results.h"
#include "settings.h"
#include "config.h"
#include "util.h"

static char calls[256];
static const bench_host_api_v1 *api;

static void note(const char *what)
{
	strncat(calls, what, sizeof(calls) - strlen(calls) - 1);
	strncat(calls, " ", sizeof(calls) - strlen(calls) - 1);
}

static int m_init(const bench_host_api_v1 *a, bench_ctx *ctx, void **state)
{
	api = a;
	*state = ctx;
	note("init");
	api->set_info(ctx, "color", api->opt_string(ctx, "color"));
	return api->opt_bool(ctx, "skip") ? (api->set_error(ctx, "skipped on purpose"), BENCH_SKIP) : BENCH_OK;
}
static int m_prepare(void *s) { (void)s; note("prepare"); return BENCH_OK; }
static int m_thread_init(void *s, bench_thread *t, void **ts) { (void)s; *ts = t; return BENCH_OK; }
static int m_run(void *ts)
{
	bench_thread *t = ts;
	while (!api->should_stop(t))
		api->record(t, 0, 2000, 100);	/* 2 us, 100 bytes, every time */
	return BENCH_OK;
}
static int m_finish(void *s)
{
	bench_totals_v1 tot;
	note("finish");
	api->totals(s, 0, &tot);
	api->report_metric(s, "mb_per_sec", tot.seconds > 0 ? tot.bytes / tot.seconds / 1e6 : 0);
	return BENCH_OK;
}
static void m_cleanup(void *s) { (void)s; note("cleanup"); }
static void m_destroy(void *s) { (void)s; note("destroy"); }

static const bench_option_v1 m_opts[] = {
	{ .name = "color", .type = BENCH_OPT_STRING, .def = "red" },
	{ .name = "skip", .type = BENCH_OPT_BOOL, .def = "false" },
	{ 0 }
};
static const bench_metric_v1 m_metrics[] = { { "mb_per_sec", "MB/s", 1 }, { 0 } };

static bc_module mod = {
	.desc = { BENCH_MODULE_HEADER, .name = "unitmod", .version = "9", .options = m_opts,
		  .metrics = m_metrics, .init = m_init, .prepare = m_prepare, .thread_init = m_thread_init,
		  .thread_run = m_run, .finish = m_finish, .cleanup = m_cleanup, .destroy = m_destroy,
		  .headline_metric = "mb_per_sec" },
	.path = "unit", .nops = 1, .ops = { "op", NULL },
};

static json_t *run_case(int skip, unsigned repeat)
{
	static const double pct[] = { 50, 99 };
	bc_config cfg;
	bc_config_defaults(&cfg);
	bc_val vals[2] = { { .s = "blue" }, { .i = skip } };
	bc_case c = { .mod = &mod, .vals = vals, .run = cfg.run, .threads = 2, .id = repeat, .repeat = repeat,
		      .pct = pct, .npct = 2, .scratch = "/tmp", .module_dir = "/tmp", .do_prepare = 1,
		      .do_cleanup = 1 };
	c.run.time_s = 0.05;
	c.run.warmup_s = 0;
	c.run.report_interval = 0.02;
	calls[0] = '\0';
	bc_case_result r;
	bc_case_run(&c, &r);	/* filled by the engine, written by the one writer */
	json_t *cj = bc_case_to_json(&r);
	bc_case_free(&r);
	bc_config_free(&cfg);
	return cj;
}

static void test_phases(void **st)
{
	(void)st;
	json_t *cj = run_case(0, 1);
	assert_string_equal(calls, "init prepare finish cleanup destroy ");
	assert_string_equal(json_string_value(json_object_get(cj, "status")), "ok");
	assert_string_equal(json_string_value(json_object_get(json_object_get(cj, "params"), "color")), "blue");
	assert_string_equal(json_string_value(json_object_get(json_object_get(cj, "info"), "color")), "blue");
	json_t *op = json_object_get(json_object_get(cj, "ops"), "op");
	json_int_t n = json_integer_value(json_object_get(op, "count"));
	assert_true(n > 0);
	assert_int_equal(json_integer_value(json_object_get(op, "bytes")), n * 100);
	json_t *lat = json_object_get(op, "latency_ns");
	assert_int_equal(json_integer_value(json_object_get(lat, "min")), 2000);
	assert_int_equal(json_integer_value(json_object_get(lat, "max")), 2000);
	assert_int_equal(json_integer_value(json_object_get(lat, "p50")), 2000);
	assert_string_equal(json_string_value(json_object_get(cj, "headline")), "mb_per_sec");
	json_decref(cj);

	cj = run_case(1, 1);	/* a skip: init, destroy; nothing measured */
	assert_string_equal(calls, "init ");
	assert_string_equal(json_string_value(json_object_get(cj, "status")), "skipped");
	assert_non_null(strstr(json_string_value(json_object_get(cj, "reason")), "skipped on purpose"));
	json_decref(cj);
}

/* Written by the engine, read back by the reader: the same figures. */
static void test_round_trip(void **st)
{
	(void)st;
	json_t *cases = json_array();
	for (unsigned r = 1; r <= 3; r++)
		json_array_append_new(cases, run_case(0, r));
	json_t *doc = json_pack("{s:s, s:s, s:{}, s:O}", "schema", "benchcore/1", "label", "unit", "host",
				"cases", cases);
	char *text = json_dumps(doc, 0);
	bc_results res;
	bc_err err;
	assert_int_equal(bc_results_parse(text, strlen(text), "unit.json", &res, &err), 0);
	assert_int_equal(res.ncases, 3);
	assert_int_equal(res.ngroups, 1);
	const bc_rgroup *g = &res.groups[0];
	assert_int_equal(g->repeats, 3);
	assert_int_equal(g->threads, 2);
	assert_string_equal(g->params_text, "color=blue skip=false");
	const bc_rmetric *m = bc_primary_metric(g);
	assert_non_null(m);
	assert_string_equal(m->name, "mb_per_sec");
	for (size_t i = 0; i < 3; i++) {
		json_t *c = json_array_get(cases, i);
		double v = json_number_value(json_object_get(json_object_get(json_object_get(c, "metrics"),
							      "mb_per_sec"), "value"));
		assert_true(fabs(m->values[i] - v) <= 1e-9 * fabs(v));
	}
	const bc_rmetric *p50 = bc_group_metric(g, "op.p50_ms");
	assert_non_null(p50);
	assert_true(fabs(p50->values[0] - 0.002) < 1e-12);
	/* groups[] as the runner writes them carry the same values */
	json_t *groups = bc_groups_json(&res);
	json_t *vals = json_object_get(json_object_get(json_object_get(json_array_get(groups, 0), "metrics"),
						       "mb_per_sec"), "values");
	assert_int_equal(json_array_size(vals), 3);
	assert_true(json_real_value(json_array_get(vals, 2)) == m->values[2]);
	json_decref(groups);
	bc_results_free(&res);
	free(text);
	json_decref(doc);
	json_decref(cases);
}

int main(void)
{
	bc_quiet = 1;	/* the machine's load warnings are not this test's business */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
