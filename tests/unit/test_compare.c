/* The results reader, case matching and verdicts on small in-memory
   documents whose answers are known: U and p of the exact distribution
   (p = 2/C(8,4) = 0.02857 for 4 against 4 fully separated), the practical
   threshold, inconclusive with too few repeats, lower-is-better metrics,
   fingerprint differences and scaling. */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"

#define near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* A document with one cpu group (params {p:1}, threads t) per call of
   add_case(); values are events_per_sec of consecutive repeats. */
static char *doc(const char *label, const char *host, const char *cases)
{
	char *s = NULL;
	if (asprintf(&s, "{\"schema\":\"benchcore/1\",\"label\":\"%s\",\"host\":%s,\"cases\":[%s]}",
		     label, host, cases) < 0)
		abort();
	return s;
}

/* Cases for values v[0..n) at threads t, appended to buf. */
static void cases(char *buf, size_t len, const char *params, int t, const double *v, int n,
		  double lat_ms)
{
	for (int i = 0; i < n; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, len - l,
			 "%s{\"module\":\"cpu\",\"params\":%s,\"threads\":%d,\"repeat\":%d,\"status\":\"ok\","
			 "\"metrics\":{\"events_per_sec\":{\"value\":%g,\"unit\":\"events/s\",\"higher_is_better\":true}},"
			 "\"fairness\":{\"events_stddev\":%g},\"stability\":{\"interval_cv\":null},"
			 "\"ops\":{\"event\":{\"count\":10,\"latency_ns\":{\"p50\":%.0f,\"p99\":%.0f,\"min\":1}}}}",
			 l ? "," : "", params, t, i + 1, v[i], v[i] / 100, lat_ms * 1e6, lat_ms * 2e6);
	}
}

static void parse_ok(const char *text, bc_results *r)
{
	char err[256] = "";
	int rc = bc_results_parse(text, strlen(text), "mem.json", r, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "parse error: %s\n", err);
	assert_int_equal(rc, 0);
}

static const bc_cmp_row *row(const bc_cmp *c, long threads, const char *metric)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].ga->threads == threads && !strcmp(c->rows[i].ma->name, metric))
			return &c->rows[i];
	return NULL;
}

static void test_reader_groups(void **st)
{
	static const double v[] = { 100, 101, 99, 100 };
	char buf[8192] = "", *d;
	bc_results r;
	(void)st;
	cases(buf, sizeof(buf), "{\"b\":2,\"a\":1}", 1, v, 4, 1.0);
	strcat(buf, ",{\"module\":\"cpu\",\"threads\":2,\"status\":\"failed\",\"reason\":\"x\"}");
	d = doc("sysA", "{\"hostname\":\"h1\"}", buf);
	parse_ok(d, &r);
	assert_string_equal(r.label, "sysA");
	assert_int_equal(r.ncases, 5);
	assert_int_equal(r.nok, 4);
	assert_int_equal(r.nfailed, 1);
	assert_int_equal(r.ngroups, 1);	/* the failed case makes no group */
	assert_string_equal(r.groups[0].params_key, "{\"a\":1,\"b\":2}");
	assert_string_equal(r.groups[0].params_text, "b=2 a=1");
	assert_int_equal(r.groups[0].repeats, 4);
	const bc_rmetric *m = bc_group_metric(&r.groups[0], "events_per_sec");
	assert_non_null(m);
	assert_int_equal(m->n, 4);
	assert_true(m->higher_is_better);
	m = bc_group_metric(&r.groups[0], "event.p99_ms");
	assert_non_null(m);
	near(m->values[0], 2.0, 1e-9);
	assert_false(m->higher_is_better);
	assert_true(m->compared);
	assert_null(bc_group_metric(&r.groups[0], "interval_cv"));	/* null: absent */
	assert_non_null(bc_group_metric(&r.groups[0], "fairness_events_stddev"));
	bc_results_free(&r);
	free(d);
}

static void test_reader_errors(void **st)
{
	static const struct { const char *doc, *msg; } bad[] = {
		{ "{\"schema\":\"benchcore/1\",\"cases\":[", "invalid JSON at line 1" },
		{ "[1,2]", "top level is not an object" },
		{ "{\"schema\":\"benchcore/2\",\"cases\":[]}", "schema is benchcore/2" },
		{ "{\"schema\":\"benchcore/1\"}", "cases: missing" },
		{ "{\"schema\":\"benchcore/1\",\"cases\":[{\"module\":\"cpu\",\"status\":\"ok\",\"threads\":0}]}",
		  "cases[0].threads" },
		{ "{\"schema\":\"benchcore/1\",\"cases\":[{\"module\":\"cpu\",\"status\":\"ok\",\"threads\":1,"
		  "\"metrics\":{\"x\":{\"value\":\"fast\"}}}]}", "cases[0].metrics.x" },
		{ "{\"schema\":\"benchcore/1\",\"cases\":[{\"module\":\"cpu\",\"status\":\"ok\",\"threads\":1,"
		  "\"fairness\":{\"events_stddev\":\"1\"}}]}", "cases[0].fairness.events_stddev" },
		{ "{\"schema\":\"benchcore/1\",\"host\":3,\"cases\":[]}", "host: not an object" },
	};
	(void)st;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bc_results r;
		char err[256] = "";
		assert_int_equal(bc_results_parse(bad[i].doc, strlen(bad[i].doc), "x.json", &r, err,
						  sizeof(err)), -1);
		if (!strstr(err, bad[i].msg))
			fprintf(stderr, "doc %zu: '%s' lacks '%s'\n", i, err, bad[i].msg);
		assert_non_null(strstr(err, bad[i].msg));
	}
}

/* B clearly slower (4 vs 4, fully separated): loss, U = 16, p = 2/70. */
static void test_verdict_loss_and_matching(void **st)
{
	static const double a[] = { 100, 101, 99, 102 }, b[] = { 90, 91, 89, 92 };
	static const double a4[] = { 390, 392, 391, 389 };
	char ba[16384] = "", bb[16384] = "", *da, *db;
	bc_results ra, rb;
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	(void)st;
	cases(ba, sizeof(ba), "{\"p\":1}", 1, a, 4, 1.0);
	strcat(ba, ",");
	cases(ba + strlen(ba), sizeof(ba) - strlen(ba), "{\"p\":1}", 4, a4, 4, 1.0);
	strcat(ba, ",");
	cases(ba + strlen(ba), sizeof(ba) - strlen(ba), "{\"p\":2}", 1, a, 4, 1.0);
	cases(bb, sizeof(bb), "{\"p\":1}", 1, b, 4, 1.5);
	da = doc("A", "{\"hostname\":\"h1\",\"kernel\":\"5.10\"}", ba);
	db = doc("B", "{\"hostname\":\"h2\",\"kernel\":\"5.10\"}", bb);
	parse_ok(da, &ra);
	parse_ok(db, &rb);
	bc_compare_pair(&ra, &rb, &o, &c);
	assert_int_equal(c.nonly_a, 2);		/* threads 4, and params p=2 */
	assert_int_equal(c.nonly_b, 0);
	const bc_cmp_row *r = row(&c, 1, "events_per_sec");
	assert_non_null(r);
	assert_int_equal(r->verdict, BC_V_LOSS);
	assert_int_equal(r->test.method, BC_MWU_EXACT);
	near(r->test.stat, 16, 0);
	near(r->test.p, 2.0 / 70, 1e-12);
	near(r->ratio, 90.5 / 100.5, 1e-12);
	r = row(&c, 1, "event.p50_ms");	/* 1.5 ms against 1 ms, all equal: ties */
	assert_non_null(r);
	assert_int_equal(r->test.method, BC_MWU_NORMAL);
	assert_int_equal(r->verdict, BC_V_LOSS);	/* lower is better: B is worse */
	r = row(&c, 1, "fairness_events_stddev");	/* lower stddev: B is better */
	assert_int_equal(r->verdict, BC_V_WIN);
	assert_int_equal(json_array_size(c.host_diff), 0);	/* hostname ignored */
	bc_cmp_free(&c);
	/* B against A: the mirror image */
	bc_compare_pair(&rb, &ra, &o, &c);
	assert_int_equal(row(&c, 1, "events_per_sec")->verdict, BC_V_WIN);
	assert_int_equal(c.nonly_b, 2);
	bc_cmp_free(&c);
	bc_results_free(&ra);
	bc_results_free(&rb);
	free(da);
	free(db);
}

static void test_verdict_tie_threshold_inconclusive(void **st)
{
	static const double a[] = { 100, 100.1, 99.9, 100.2 }, b[] = { 101, 101.1, 100.9, 101.2 };
	static const double three[] = { 50, 51, 52 };
	char ba[8192] = "", bb[8192] = "", bc3[8192] = "", *da, *db, *dc;
	bc_results ra, rb, rc;
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	(void)st;
	cases(ba, sizeof(ba), "{}", 1, a, 4, 1);
	cases(bb, sizeof(bb), "{}", 1, b, 4, 1);
	cases(bc3, sizeof(bc3), "{}", 1, three, 3, 1);
	da = doc("A", "{}", ba);
	db = doc("B", "{}", bb);
	dc = doc("C", "{}", bc3);
	parse_ok(da, &ra);
	parse_ok(db, &rb);
	parse_ok(dc, &rc);
	bc_compare_pair(&ra, &rb, &o, &c);	/* +1%, p = 0.029: below 2% */
	const bc_cmp_row *r = row(&c, 1, "events_per_sec");
	near(r->test.p, 2.0 / 70, 1e-12);
	assert_int_equal(r->verdict, BC_V_TIE);
	assert_non_null(strstr(r->reason, "below the 2% threshold"));
	bc_cmp_free(&c);
	o.threshold = 0.005;
	bc_compare_pair(&ra, &rb, &o, &c);
	assert_int_equal(row(&c, 1, "events_per_sec")->verdict, BC_V_WIN);
	bc_cmp_free(&c);
	o = BC_CMP_OPTS_DEFAULT;
	bc_compare_pair(&ra, &rc, &o, &c);	/* 4 against 3: min p = 2/35 > 0.05 */
	r = row(&c, 1, "events_per_sec");
	assert_int_equal(r->verdict, BC_V_INCONCLUSIVE);
	assert_false(r->tested);
	assert_string_equal(r->reason, "needs >=4 repeats on each side (has 4 and 3)");
	assert_int_equal(c.count[BC_V_INCONCLUSIVE], c.nrows);
	bc_cmp_free(&c);
	o.test = BC_TEST_WELCH;	/* Welch can test 3 values */
	bc_compare_pair(&ra, &rc, &o, &c);
	r = row(&c, 1, "events_per_sec");
	assert_true(r->tested);
	assert_int_equal(r->verdict, BC_V_LOSS);
	assert_string_equal(bc_row_test_name(&c, r), "welch");
	bc_cmp_free(&c);
	bc_results_free(&ra);
	bc_results_free(&rb);
	bc_results_free(&rc);
	free(da);
	free(db);
	free(dc);
}

static void test_items(void **st)
{
	static const double a[] = { 100, 101, 99, 102 }, b[] = { 90, 91, 89, 92 };
	char ba[16384] = "", bb[16384] = "", *da, *db;
	bc_results ra, rb;
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	size_t n;
	(void)st;
	cases(ba, sizeof(ba), "{}", 1, a, 4, 1);
	strcat(ba, ",");
	cases(ba + strlen(ba), sizeof(ba) - strlen(ba), "{}", 2, a, 4, 1);
	cases(bb, sizeof(bb), "{}", 1, b, 4, 1);
	strcat(bb, ",");
	cases(bb + strlen(bb), sizeof(bb) - strlen(bb), "{}", 2, a, 4, 1);
	da = doc("A", "{}", ba);
	db = doc("B", "{}", bb);
	parse_ok(da, &ra);
	parse_ok(db, &rb);
	bc_compare_pair(&ra, &rb, &o, &c);
	bc_cmp_item *it = bc_cmp_items(&c, &n);
	assert_string_equal(it[0].metric, "events_per_sec");
	assert_int_equal(it[0].count[BC_V_LOSS], 1);	/* 1 thread */
	assert_int_equal(it[0].count[BC_V_TIE], 1);	/* 2 threads: same values */
	assert_int_equal(it[0].result, BC_ITEM_A_WINS);
	free(it);
	bc_cmp_free(&c);
	bc_results_free(&ra);
	bc_results_free(&rb);
	free(da);
	free(db);
}

static void test_host_diff(void **st)
{
	json_t *a = json_pack("{s:s, s:s, s:{s:f, s:f}, s:{s:s}, s:[s]}", "hostname", "x",
			      "kernel", "3.10", "cpu_mhz", "current", 2000.0, "max", 3000.0,
			      "libraries", "openssl", "1.0.1", "warnings", "w");
	json_t *b = json_pack("{s:s, s:s, s:{s:f, s:f}, s:{s:s}, s:s}", "hostname", "y",
			      "kernel", "3.10", "cpu_mhz", "current", 2500.0, "max", 3400.0,
			      "libraries", "openssl", "1.0.0", "os", "CentOS 7");
	json_t *d = bc_host_diff(a, b);
	(void)st;
	assert_int_equal(json_array_size(d), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 0), "field")), "cpu_mhz.max");
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 1), "field")),
			    "libraries.openssl");
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 2), "field")), "os");
	assert_true(json_is_null(json_object_get(json_array_get(d, 2), "a")));
	json_decref(d);
	json_decref(a);
	json_decref(b);
}

static void test_scaling(void **st)
{
	static const double t1[] = { 100, 100, 100, 100 }, t4[] = { 390, 390, 390, 390 };
	static const double t2[] = { 200, 200, 200, 200 };
	char buf[16384] = "", *d;
	bc_results r;
	bc_scale_point p[8];
	(void)st;
	cases(buf, sizeof(buf), "{}", 4, t4, 4, 1);	/* out of order on purpose */
	strcat(buf, ",");
	cases(buf + strlen(buf), sizeof(buf) - strlen(buf), "{}", 1, t1, 4, 1);
	strcat(buf, ",");
	cases(buf + strlen(buf), sizeof(buf) - strlen(buf), "{}", 2, t2, 4, 1);
	d = doc("S", "{}", buf);
	parse_ok(d, &r);
	assert_int_equal(bc_scaling(&r, "cpu", "{}", "events_per_sec", p, 8), 3);
	assert_int_equal(p[0].threads, 1);
	assert_int_equal(p[2].threads, 4);
	near(p[2].speedup, 3.9, 1e-12);
	near(p[2].efficiency, 0.975, 1e-12);
	near(p[1].efficiency, 1.0, 1e-12);
	assert_string_equal(bc_primary_metric(&r.groups[0])->name, "events_per_sec");
	bc_results_free(&r);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_groups),
		cmocka_unit_test(test_reader_errors),
		cmocka_unit_test(test_verdict_loss_and_matching),
		cmocka_unit_test(test_verdict_tie_threshold_inconclusive),
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_host_diff),
		cmocka_unit_test(test_scaling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
