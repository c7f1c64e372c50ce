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
#include "cmp_flags.h"
#include "compare.h"
#include "hostdiff.h"

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

/* Cases for values v[0..n) at threads t, appended to buf; extra is more
   JSON members for every case (ABI 1.1 fields), "" for none. */
static void cases_x(char *buf, size_t len, const char *params, int t, const double *v, int n,
		    double lat_ms, const char *extra)
{
	for (int i = 0; i < n; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, len - l,
			 "%s{\"module\":\"cpu\",\"params\":%s,\"threads\":%d,\"repeat\":%d,\"status\":\"ok\","
			 "\"metrics\":{\"events_per_sec\":{\"value\":%g,\"unit\":\"events/s\",\"higher_is_better\":true}},"
			 "\"fairness\":{\"events_stddev\":%g},\"stability\":{\"interval_cv\":null},"
			 "\"ops\":{\"event\":{\"count\":10,\"latency_ns\":{\"p50\":%.0f,\"p99\":%.0f,\"min\":1}}}%s%s}",
			 l ? "," : "", params, t, i + 1, v[i], v[i] / 100, lat_ms * 1e6, lat_ms * 2e6,
			 *extra ? "," : "", extra);
	}
}

static void cases(char *buf, size_t len, const char *params, int t, const double *v, int n,
		  double lat_ms)
{
	cases_x(buf, len, params, t, v, n, lat_ms, "");
}

static void parse_ok(const char *text, bc_results *r)
{
	bc_err err = { .msg = "" };
	int rc = bc_results_parse(text, strlen(text), "mem.json", r, &err);
	if (rc != 0)
		fprintf(stderr, "parse error: %s\n", err.msg);
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
		bc_err err = { .msg = "" };
		assert_int_equal(bc_results_parse(bad[i].doc, strlen(bad[i].doc), "x.json", &r, &err), -1);
		if (!strstr(err.msg, bad[i].msg))
			fprintf(stderr, "doc %zu: '%s' lacks '%s'\n", i, err.msg, bad[i].msg);
		assert_non_null(strstr(err.msg, bad[i].msg));
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
	o.test = BC_TEST_MWU;	/* the exact U distribution has known answers */
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
	/* weighted BH: the 1 headline test of 4 has weight 4 / 2 = 2 */
	assert_true(r->p_adj >= r->test.p / 2 && r->p_adj < 0.05);
	assert_int_equal(c.ntested, 4);
	/* the ratio of the geometric means, the interval's centre */
	near(r->ratio, pow(90.0 * 91 * 89 * 92 / (100.0 * 101 * 99 * 102), 0.25), 1e-12);
	r = row(&c, 1, "event.p50_ms");	/* 1.5 ms against 1 ms, all equal: ties */
	assert_non_null(r);
	assert_int_equal(r->test.method, BC_MWU_NORMAL);
	assert_int_equal(r->verdict, BC_V_LOSS);	/* lower is better: B is worse */
	r = row(&c, 1, "fairness_events_stddev");	/* 10% lower: a fairness stddev */
	assert_int_equal(r->verdict, BC_V_TIE);		/* its interval is well inside +-50% */
	assert_true(r->ci_lo > -0.5 && r->ci_hi < 0.5);
	assert_non_null(strstr(r->reason, "equivalent: -10.0%"));
	assert_non_null(strstr(r->reason, "within the 50% fairness threshold"));
	assert_true(row(&c, 1, "events_per_sec")->headline);	/* old file: events_per_sec */
	assert_false(r->headline);
	assert_int_equal(c.count_head[BC_V_LOSS], 1);
	assert_int_equal(c.count_sec[BC_V_LOSS], 2);	/* p50 and p99 */
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
	o.test = BC_TEST_MWU;
	o.adjust = BC_ADJ_NONE;	/* one row at a time here; the family is tested below */
	cases(ba, sizeof(ba), "{}", 1, a, 4, 1);
	cases(bb, sizeof(bb), "{}", 1, b, 4, 1);
	cases(bc3, sizeof(bc3), "{}", 1, three, 3, 1);
	da = doc("A", "{}", ba);
	db = doc("B", "{}", bb);
	dc = doc("C", "{}", bc3);
	parse_ok(da, &ra);
	parse_ok(db, &rb);
	parse_ok(dc, &rc);
	bc_compare_pair(&ra, &rb, &o, &c);	/* +1%, p = 0.029: the same within 2% */
	const bc_cmp_row *r = row(&c, 1, "events_per_sec");
	near(r->test.p, 2.0 / 70, 1e-12);
	assert_int_equal(r->verdict, BC_V_TIE);
	assert_true(r->ci_lo > 0 && r->ci_hi < 0.02);
	assert_non_null(strstr(r->reason, "within the 2% throughput threshold"));
	bc_cmp_free(&c);
	o.kind_threshold[BC_KIND_THROUGHPUT] = 0.005;
	bc_compare_pair(&ra, &rb, &o, &c);
	assert_int_equal(row(&c, 1, "events_per_sec")->verdict, BC_V_WIN);
	bc_cmp_free(&c);
	o = BC_CMP_OPTS_DEFAULT;
	o.test = BC_TEST_MWU;
	bc_compare_pair(&ra, &rc, &o, &c);	/* 4 against 3: min p = 2/35 > 0.05 */
	r = row(&c, 1, "events_per_sec");
	assert_int_equal(r->verdict, BC_V_INCONCLUSIVE);
	assert_false(r->tested);
	assert_string_equal(r->reason, "needs >=4 repeats on each side (has 4 and 3)");
	/* untested rows are never a win or loss; a tie needs no test, only
	   an interval inside the threshold (the identical latency rows) */
	assert_int_equal(c.count[BC_V_WIN] + c.count[BC_V_LOSS] + c.count[BC_V_SUSPECT], 0);
	assert_int_equal(c.count[BC_V_INCONCLUSIVE] + c.count[BC_V_TIE], c.nrows);
	assert_true(c.count[BC_V_INCONCLUSIVE] >= 2);
	bc_cmp_free(&c);
	o.test = BC_TEST_WELCH;	/* Welch can test 3 values */
	bc_compare_pair(&ra, &rc, &o, &c);
	r = row(&c, 1, "events_per_sec");
	assert_true(r->tested);
	assert_int_equal(r->verdict, BC_V_LOSS);
	assert_string_equal(bc_row_test_name(&c, r), "welch-log");	/* all values > 0 */
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


/* One pair of documents from values and per-case extra JSON. */
static void pair(bc_results *ra, bc_results *rb, const double *a, const double *b, int n,
		 const char *xa, const char *xb)
{
	char ba[16384] = "", bb[16384] = "", *da, *db;
	cases_x(ba, sizeof(ba), "{}", 1, a, n, 1, xa);
	cases_x(bb, sizeof(bb), "{}", 1, b, n, 1, xb);
	da = doc("A", "{}", ba);
	db = doc("B", "{}", bb);
	parse_ok(da, ra);
	parse_ok(db, rb);
	free(da);
	free(db);
}

static void free_pair(bc_results *ra, bc_results *rb, bc_cmp *c)
{
	bc_cmp_free(c);
	bc_results_free(ra);
	bc_results_free(rb);
}

/* The ABI 1.1 fields a module writes, and what an old file gets instead. */
static void test_reader_verdict_fields(void **st)
{
	static const double v[] = { 100, 101, 99, 100 };
	static const char *const bad[] = {
		"\"headline\":3", "\"thresholds\":[1]", "\"thresholds\":{\"x\":-1}",
		"\"thresholds\":{\"x\":\"5\"}", "\"cpu\":{\"other_pct\":\"high\"}",
	};
	bc_results ra, rb;
	(void)st;
	pair(&ra, &rb, v, v, 4, "\"headline\":\"mops\",\"thresholds\":{\"event.p99_ms\":40},"
	     "\"cpu\":{\"steal_pct\":0.5,\"other_pct\":7.5},\"round\":2", "");
	assert_string_equal(ra.groups[0].headline, "mops");
	near(json_number_value(json_object_get(ra.groups[0].thresholds, "event.p99_ms")), 40, 0);
	near(ra.groups[0].steal_max, 0.5, 0);
	near(ra.groups[0].other_max, 7.5, 0);
	assert_string_equal(rb.groups[0].headline, "events_per_sec");	/* absent */
	near(rb.groups[0].steal_max, -1, 0);
	near(rb.groups[0].other_max, -1, 0);
	bc_results_free(&ra);
	bc_results_free(&rb);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[4096] = "", *d;
		bc_err err = { .msg = "" };
		cases_x(buf, sizeof(buf), "{}", 1, v, 1, 1, bad[i]);
		d = doc("X", "{}", buf);
		assert_int_equal(bc_results_parse(d, strlen(d), "x.json", &ra, &err), -1);
		assert_non_null(strstr(err.msg, "cases[0]."));
		free(d);
	}
}

/* p99 20% higher with a small spread: a loss at the 15% tail default, a tie
   when the module declares 40%, a loss again when the user says 10 for the
   metric or for the kind; the user's per-metric value beats the kind. */
static void test_thresholds_by_kind(void **st)
{
	static const double a[] = { 100, 101, 99, 100, 100 };
	static const struct { const char *decl; const char *over[2]; int verdict; const char *src; } t[] = {
		{ "", { NULL, NULL }, BC_V_LOSS, "default" },
		{ "\"thresholds\":{\"event.p99_ms\":40}", { NULL, NULL }, BC_V_TIE, "module" },
		{ "\"thresholds\":{\"event.p99_ms\":40}", { "tail=10", NULL }, BC_V_LOSS, "--threshold-for" },
		{ "", { "tail=10", "event.p99_ms=25" }, BC_V_TIE, "--threshold-for" },
	};
	(void)st;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char ba[16384] = "", bb[16384] = "", *da, *db;
		bc_err err;
		bc_results ra, rb;
		bc_cmp c;
		bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
		cases_x(ba, sizeof(ba), "{}", 1, a, 5, 1.0, t[i].decl);
		cases_x(bb, sizeof(bb), "{}", 1, a, 5, 1.2, t[i].decl);	/* latency 20% up */
		for (int k = 0; k < 2 && t[i].over[k]; k++)
			assert_int_equal(bc_cmp_option(&o, BC_OPT_THRESHOLD_FOR, t[i].over[k], &err), 0);
		da = doc("A", "{}", ba);
		db = doc("B", "{}", bb);
		parse_ok(da, &ra);
		parse_ok(db, &rb);
		bc_compare_pair(&ra, &rb, &o, &c);
		const bc_cmp_row *r = row(&c, 1, "event.p99_ms");
		assert_int_equal(r->kind, BC_KIND_TAIL);
		assert_int_equal(r->verdict, t[i].verdict);
		assert_string_equal(r->threshold_src, t[i].src);
		assert_int_equal(row(&c, 1, "event.p50_ms")->kind, BC_KIND_LATENCY);
		assert_int_equal(row(&c, 1, "event.p50_ms")->verdict, BC_V_LOSS);	/* 20% > 5% */
		free_pair(&ra, &rb, &c);
		free(da);
		free(db);
	}
}

/* compare and report share this parser: the same values pass and fail. */
static void test_option_parser(void **st)
{
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	bc_err err;
	(void)st;
	assert_int_equal(bc_cmp_option(&o, BC_OPT_THRESHOLD, "1500", &err), -1);
	assert_non_null(strstr(err.msg, "--threshold 1500: wants a percentage from 0 to 1000"));
	assert_int_equal(bc_cmp_option(&o, BC_OPT_THRESHOLD, "0.5%", &err), 0);
	near(o.kind_threshold[BC_KIND_THROUGHPUT], 0.005, 1e-15);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_THRESHOLD_FOR, "read.p99_ms", &err), -1);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_THRESHOLD_FOR, "=5", &err), -1);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_THRESHOLD_FOR, "x=2000", &err), -1);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_THRESHOLD_FOR, "read.p99_ms=15", &err), 0);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_THRESHOLD_FOR, "read.p99_ms=20%", &err), 0);
	assert_int_equal(o.nover, 1);	/* the second replaced the first */
	near(o.over[0].frac, 0.2, 1e-15);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_ALPHA, "1", &err), -1);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_TEST, "t", &err), -1);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_ADJUST, "holm", &err), 0);
	assert_int_equal(o.adjust, BC_ADJ_HOLM);
	assert_int_equal(bc_cmp_option(&o, BC_OPT_ADJUST, "fdr", &err), -1);
}

/* Every repeat of B above every repeat of A (U = 0, p = 2/252), but one of
   them is 60% off and makes the means 12.6% apart: the test says
   significant, the spread says the repeats cannot support a 12.6% claim. */
static void test_noisy_is_inconclusive(void **st)
{
	static const double a[] = { 100, 100.5, 99.5, 100, 100.2 };
	static const double b[] = { 100.6, 100.7, 100.8, 100.9, 160 };
	static const double calm[] = { 108, 108.5, 107.5, 108, 108.2 };
	bc_results ra, rb;
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	(void)st;
	o.adjust = BC_ADJ_NONE;
	o.test = BC_TEST_MWU;
	pair(&ra, &rb, a, b, 5, "", "");
	bc_compare_pair(&ra, &rb, &o, &c);
	const bc_cmp_row *r = row(&c, 1, "events_per_sec");
	assert_true(r->test.p < 0.05);
	assert_true(r->has_ci && r->ci_lo < r->threshold);	/* the interval reaches below 2% */
	assert_int_equal(r->verdict, BC_V_INCONCLUSIVE);
	assert_true(r->need_n > 5);
	assert_non_null(strstr(r->reason, "reaches across the 2% throughput threshold"));
	free_pair(&ra, &rb, &c);
	pair(&ra, &rb, a, calm, 5, "", "");	/* the same 8% with a calm B: a win */
	bc_compare_pair(&ra, &rb, &o, &c);
	assert_int_equal(row(&c, 1, "events_per_sec")->verdict, BC_V_WIN);
	free_pair(&ra, &rb, &c);
}

/* Interference only slows the side it hit (issue 38): B busy and faster is
   a win; B busy and slower, or A busy and B faster, by no more than the
   busy side's bound explains, is a "suspect" with its direction, counted
   apart. */
static void test_busy_is_suspect(void **st)
{
	static const double a[] = { 100, 100.5, 99.5, 100, 100.2 };
	static const double b[] = { 108, 108.5, 107.5, 108, 108.2 };
	static const char *const quiet = "\"cpu\":{\"steal_pct\":1,\"other_pct\":3.9}";
	static const char *const busy = "\"cpu\":{\"steal_pct\":0,\"other_pct\":12}";
	bc_results ra, rb;
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	(void)st;
	pair(&ra, &rb, a, b, 5, quiet, busy);	/* B busy and faster: stands */
	bc_compare_pair(&ra, &rb, &o, &c);
	const bc_cmp_row *r = row(&c, 1, "events_per_sec");
	assert_int_equal(r->verdict, BC_V_WIN);
	assert_true(r->busy);	/* it was busy; the win stands */
	near(r->busy_pct, 12, 0);
	free_pair(&ra, &rb, &c);
	pair(&ra, &rb, b, a, 5, quiet, busy);	/* B busy and slower: suspect loss */
	bc_compare_pair(&ra, &rb, &o, &c);
	r = row(&c, 1, "events_per_sec");
	assert_int_equal(r->verdict, BC_V_SUSPECT);
	assert_int_equal(r->direction, BC_V_LOSS);
	assert_true(r->busy);
	assert_string_equal(bc_row_verdict(r), "suspect loss");
	assert_int_equal(c.count[BC_V_LOSS], 0);
	assert_int_equal(c.count_head[BC_V_SUSPECT], 1);
	free_pair(&ra, &rb, &c);
	pair(&ra, &rb, a, b, 5, "\"cpu\":{\"steal_pct\":6}", quiet);	/* steal on A's side */
	bc_compare_pair(&ra, &rb, &o, &c);
	r = row(&c, 1, "events_per_sec");
	assert_int_equal(r->verdict, BC_V_SUSPECT);
	assert_string_equal(bc_row_verdict(r), "suspect win");
	free_pair(&ra, &rb, &c);
	pair(&ra, &rb, a, b, 5, quiet, quiet);
	bc_compare_pair(&ra, &rb, &o, &c);
	assert_int_equal(row(&c, 1, "events_per_sec")->verdict, BC_V_WIN);
	assert_int_equal(c.count_head[BC_V_WIN], 1);
	free_pair(&ra, &rb, &c);
}

/* Many tests, one family: 20 groups, B 12% above A with a wide spread, so
   each raw Welch p is about 0.03: unadjusted, 20 wins. Weighted BH over the
   80 tests: the 20 headline tests have weight 80 / (2 x 20) = 2, the 60
   others 2/3; sorted, 20 x p/2, then 20 fairness rows at 1.5p, 40 p = 1, so
   BH gives min(p/2 x 80/20, 1.5p x 80/40) = 2p, still wins; Holm, which
   guards against even one false verdict, gives p/2 x 80: ties. */
static void test_adjustment_family(void **st)
{
	static const double a[] = { 100, 105, 95, 100, 110 }, b[] = { 112, 117, 107, 112, 122 };
	char ba[65536] = "", bb[65536] = "", *da, *db;
	bc_results ra, rb;
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	(void)st;
	for (int t = 1; t <= 20; t++) {
		if (t > 1) {
			strcat(ba, ",");
			strcat(bb, ",");
		}
		cases(ba + strlen(ba), sizeof(ba) - strlen(ba), "{}", t, a, 5, 1);
		cases(bb + strlen(bb), sizeof(bb) - strlen(bb), "{}", t, b, 5, 1);
	}
	da = doc("A", "{}", ba);
	db = doc("B", "{}", bb);
	parse_ok(da, &ra);
	parse_ok(db, &rb);
	o.kind_threshold[BC_KIND_LATENCY] = o.kind_threshold[BC_KIND_TAIL] = 0;
	bc_compare_pair(&ra, &rb, &o, &c);
	const bc_cmp_row *r = row(&c, 7, "events_per_sec");
	assert_true(r->test.p < 0.05 && r->test.p > 0.001);
	assert_int_equal(c.ntested, 80);	/* 20 x (events/s, fairness, p50, p99) */
	near(r->p_adj, 2 * r->test.p, 1e-12);
	assert_true(r->p_adj < 0.05);	/* many equal effects: BH keeps them */
	assert_int_equal(c.count_head[BC_V_WIN], 20);
	o.adjust = BC_ADJ_HOLM;
	bc_cmp h;
	bc_compare_pair(&ra, &rb, &o, &h);
	near(row(&h, 7, "events_per_sec")->p_adj, fmin(1, r->test.p / 2 * 80), 1e-9);
	/* not significant after Holm, and 12% with that spread is no "same" */
	assert_int_equal(row(&h, 7, "events_per_sec")->verdict, BC_V_INCONCLUSIVE);
	assert_non_null(strstr(row(&h, 7, "events_per_sec")->reason, "not significant"));
	bc_cmp_free(&h);
	free_pair(&ra, &rb, &c);
	free(da);
	free(db);
}

/* The change printed beside the interval is its centre: with skewed repeats
   the arithmetic means' ratio (-9.3% here) lies off the centre of the
   interval, which is on the logs (-8.9%); one centre for both (issue 61). */
static void test_change_is_interval_centre(void **st)
{
	static const double a[] = { 100, 104, 130, 98, 101 }, b[] = { 92, 95, 112, 90, 93 };
	char ba[8192] = "", bb[8192] = "", *da, *db;
	bc_results ra, rb;
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	(void)st;
	o.test = BC_TEST_WELCH;
	cases(ba, sizeof(ba), "{}", 1, a, 5, 1);
	cases(bb, sizeof(bb), "{}", 1, b, 5, 1);
	da = doc("A", "{}", ba);
	db = doc("B", "{}", bb);
	parse_ok(da, &ra);
	parse_ok(db, &rb);
	bc_compare_pair(&ra, &rb, &o, &c);
	const bc_cmp_row *r = row(&c, 1, "events_per_sec");
	assert_non_null(r);
	assert_true(r->has_ci && r->w_log);
	near(log1p(r->change), (log1p(r->ci_lo) + log1p(r->ci_hi)) / 2, 1e-9);
	near(r->ratio, 1 + r->change, 1e-12);
	/* and not the ratio of the arithmetic means */
	assert_true(fabs(r->change - (482.0 / 533.0 - 1)) > 0.002);
	free_pair(&ra, &rb, &c);
	free(da);
	free(db);
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
		cmocka_unit_test(test_reader_verdict_fields),
		cmocka_unit_test(test_thresholds_by_kind),
		cmocka_unit_test(test_option_parser),
		cmocka_unit_test(test_noisy_is_inconclusive),
		cmocka_unit_test(test_busy_is_suspect),
		cmocka_unit_test(test_adjustment_family),
		cmocka_unit_test(test_change_is_interval_centre),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
