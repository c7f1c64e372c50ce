/* The CI gate's pure parts (issue 53): compare --fail-on's word list, which
   rows it fails (headline only unless --fail-on-metric; a suspect loss only
   with "suspect", never a suspect win), and history --fail-on-change's rule
   on synthetic series: a step for the worse that the newest run completes
   fails; a flat series, a step for the better, and a step an earlier run
   already showed pass. */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate.h"
#include "hgate.h"

static void test_parse(void **state)
{
	(void)state;
	unsigned b = 0;
	char buf[64];
	assert_int_equal(bc_gate_parse("loss", &b), 0);
	assert_int_equal(b, BC_GATE_LOSS);
	assert_int_equal(bc_gate_parse("inconclusive,loss,suspect", &b), 0);
	assert_int_equal(b, BC_GATE_LOSS | BC_GATE_SUSPECT | BC_GATE_INCONCLUSIVE);
	assert_string_equal(bc_gate_text(b, buf, sizeof(buf)), "loss,suspect,inconclusive");
	b = 7;
	assert_int_equal(bc_gate_parse("lose", &b), -1);
	assert_int_equal(bc_gate_parse("", &b), -1);
	assert_int_equal(bc_gate_parse(",", &b), -1);
	assert_int_equal(bc_gate_parse("loss,win", &b), -1);
	assert_int_equal(b, 7);	/* untouched on a refusal */
}

static bc_rmetric met(char *name)
{
	return (bc_rmetric){ .name = name, .unit = "" };
}

static void test_rows(void **state)
{
	(void)state;
	bc_rmetric head = met("events_per_sec"), p99 = met("read.p99_ms"), fair = met("fairness_events_stddev");
	bc_cmp_row r = { .ma = &head, .headline = 1, .verdict = BC_V_LOSS };
	bc_gate_opts g = { .fail_on = BC_GATE_LOSS };
	assert_int_equal(bc_gate_row_fails(&g, &r), 1);
	r.verdict = BC_V_TIE;
	assert_int_equal(bc_gate_row_fails(&g, &r), 0);
	r.verdict = BC_V_WIN;
	assert_int_equal(bc_gate_row_fails(&g, &r), 0);
	r.verdict = BC_V_INCONCLUSIVE;
	assert_int_equal(bc_gate_row_fails(&g, &r), 0);
	g.fail_on |= BC_GATE_INCONCLUSIVE;
	assert_int_equal(bc_gate_row_fails(&g, &r), 1);
	/* suspect: only a suspect loss, only when listed */
	r.verdict = BC_V_SUSPECT;
	r.direction = BC_V_LOSS;
	assert_int_equal(bc_gate_row_fails(&g, &r), 0);
	g.fail_on |= BC_GATE_SUSPECT;
	assert_int_equal(bc_gate_row_fails(&g, &r), 1);
	r.direction = BC_V_WIN;
	assert_int_equal(bc_gate_row_fails(&g, &r), 0);
	/* a secondary loss: only when named, alone or in a list, or all */
	bc_cmp_row s = { .ma = &p99, .headline = 0, .verdict = BC_V_LOSS };
	bc_gate_opts h = { .fail_on = BC_GATE_LOSS };
	assert_int_equal(bc_gate_row_fails(&h, &s), 0);
	h.metrics[h.nmetrics++] = "read.p99";	/* a prefix is not the name */
	assert_int_equal(bc_gate_row_fails(&h, &s), 0);
	h.metrics[h.nmetrics++] = "fairness_events_stddev,read.p99_ms";
	assert_int_equal(bc_gate_row_fails(&h, &s), 1);
	s.ma = &fair;
	assert_int_equal(bc_gate_row_fails(&h, &s), 1);
	bc_gate_opts all = { .fail_on = BC_GATE_LOSS, .all_metrics = 1 };
	s.ma = &p99;
	assert_int_equal(bc_gate_row_fails(&all, &s), 1);
	/* no list: nothing fails */
	bc_gate_opts none = { 0 };
	assert_int_equal(bc_gate_row_fails(&none, &r), 0);
}

/* A series of n runs: level 1000 with 0.5% noise (a fixed pattern), times
   step from run `at` on (0: none). */
typedef struct series {
	bc_hpoint pts[40];
	const bc_hpoint *run[40];
	bc_hseries s;
} series;

static void make(series *x, size_t n, size_t at, double step, int hib, const bc_cp_opts *o)
{
	static const double noise[8] = { 0.004, -0.003, 0.001, -0.005, 0.002, 0.0, -0.001, 0.003 };
	memset(x, 0, sizeof(*x));
	double y[40];
	for (size_t i = 0; i < n; i++) {
		y[i] = 1000 * (1 + noise[i % 8]) * (at && i >= at ? step : 1);
		x->pts[i].mean = y[i];
		x->pts[i].higher_is_better = hib;
		x->run[i] = &x->pts[i];
	}
	x->s.run = x->run;
	x->s.n = n;
	bc_cpoint *cp = NULL;
	x->s.nch = bc_changepoints(y, n, o, &cp);
	x->s.ch = calloc(x->s.nch + 1, sizeof(bc_hchange));
	for (size_t i = 0; i < x->s.nch; i++)
		x->s.ch[i].cp = cp[i];
	free(cp);
}

static void test_history(void **state)
{
	(void)state;
	bc_cp_opts o = BC_CP_OPTS_DEFAULT;
	series *x = malloc(sizeof(*x));
	/* 15 runs, the last 3 5% slower: the newest run completes the step */
	make(x, 15, 12, 0.95, 1, &o);
	assert_true(x->s.nch >= 1);
	assert_int_equal(bc_history_new_worse(&x->s, &o), (long)x->s.nch - 1);
	free(x->s.ch);
	/* the same for a lower-is-better metric that rose */
	make(x, 15, 12, 1.05, 0, &o);
	assert_int_equal(bc_history_new_worse(&x->s, &o), (long)x->s.nch - 1);
	free(x->s.ch);
	/* a step for the better passes, both ways round */
	make(x, 15, 12, 1.05, 1, &o);
	assert_true(x->s.nch >= 1);
	assert_int_equal(bc_history_new_worse(&x->s, &o), -1);
	free(x->s.ch);
	make(x, 15, 12, 0.95, 0, &o);
	assert_int_equal(bc_history_new_worse(&x->s, &o), -1);
	free(x->s.ch);
	/* flat */
	make(x, 15, 0, 1, 1, &o);
	assert_int_equal(x->s.nch, 0);
	assert_int_equal(bc_history_new_worse(&x->s, &o), -1);
	free(x->s.ch);
	/* the step 10 runs old: an earlier gate reported it */
	make(x, 22, 12, 0.95, 1, &o);
	assert_true(x->s.nch >= 1);
	assert_int_equal(bc_history_new_worse(&x->s, &o), -1);
	free(x->s.ch);
	free(x);
}

/* A results document: cpu at threads 1, one case per value, ids from id0,
   repeats from 1 (extra: more cases, already JSON, "" for none). */
static int bdoc_ops = 100;	/* each case's operations counted in its window */

static char *bdoc(const char *label, const double *v, int n, int id0, const char *extra)
{
	char buf[8192] = "";
	for (int i = 0; i < n; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof(buf) - l, "%s{\"id\":%d,\"module\":\"cpu\",\"params\":{\"max_prime\":10000},"
			 "\"threads\":1,\"repeat\":%d,\"status\":\"ok\",\"metrics\":{\"events_per_sec\":{\"value\":%g,"
			 "\"unit\":\"events/s\",\"higher_is_better\":true}},\"ops\":{\"event\":{\"count\":%d,"
			 "\"errors\":0,\"bytes\":0}}}", i ? "," : "", id0 + i, i + 1, v[i], bdoc_ops);
	}
	char *s = NULL;
	if (asprintf(&s, "{\"schema\":\"benchcore/1\",\"label\":\"%s\",\"host\":{},\"cases\":[%s%s%s]}", label,
		     buf, *extra ? "," : "", extra) < 0)
		abort();
	return s;
}

static int parse(const char *text, bc_results *r, bc_err *e)
{
	e->msg[0] = 0;
	int rc = bc_results_parse(text, strlen(text), "base.json", r, e);
	if (rc)
		print_message("refused: %s\n", e->msg);
	return rc;
}

/* Issue 59: a baseline is read as strictly as any results file. A headline
   of 0 (it made a real 50% loss a win) and a case given twice (the same
   repeats again under new ids: n=6/3, and the loss passed) are refused,
   naming the field; the genuine baseline fails the gate on the 50% loss. */
static void test_baseline_strict(void **state)
{
	(void)state;
	static const double base[] = { 1000, 1010, 990 }, half[] = { 500, 505, 495 }, zero[] = { 0, 0, 0 };
	bc_results a, b;
	bc_err e;
	char *nd = bdoc("new", half, 3, 1, ""), *bd = bdoc("base", base, 3, 1, "");
	assert_int_equal(parse(nd, &b, &e), 0);
	assert_int_equal(parse(bd, &a, &e), 0);
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	bc_gate_opts g = { .fail_on = BC_GATE_LOSS };
	bc_results two[2] = { a, b };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_true(bc_gate_print(f, two, 2, &o, &g) > 0);	/* the real loss fails */
	fclose(f);
	assert_non_null(strstr(out, "FAIL loss: cpu max_prime=10000 threads=1 events_per_sec ratio 0.5"));
	free(out);
	bc_results_free(&a);
	free(bd);
	/* a headline of 0 */
	bd = bdoc("base", zero, 3, 1, "");
	assert_int_equal(parse(bd, &a, &e), -1);
	assert_non_null(strstr(e.msg, "cases[0] (case 1, cpu, 1 thread): metrics.events_per_sec.value is 0"));
	free(bd);
	/* ... which a window that counted nothing gives: read as it is (a
	   loaded machine's short window; benchcore writes it so) */
	bdoc_ops = 0;
	bd = bdoc("base", zero, 3, 1, "");
	assert_int_equal(parse(bd, &a, &e), 0);
	bc_results_free(&a);
	free(bd);
	bdoc_ops = 100;
	/* the same repeats again, under new ids, with other figures */
	char *dup = bdoc("x", half, 3, 4, "");
	char *inner = strchr(dup, '[') + 1;
	inner[strlen(inner) - 2] = 0;	/* the cases without ]} */
	bd = bdoc("base", base, 3, 1, inner);
	assert_int_equal(parse(bd, &a, &e), -1);
	assert_non_null(strstr(e.msg, "cases[3] (case 4, cpu, 1 thread, repeat 1): the same case as cases[0]"));
	free(bd);
	free(dup);
	/* an id given twice */
	bd = bdoc("base", base, 2, 1, "{\"id\":2,\"module\":\"cpu\",\"threads\":1,\"repeat\":3,\"status\":\"failed\"}");
	assert_int_equal(parse(bd, &a, &e), -1);
	assert_non_null(strstr(e.msg, "cases[2].id: 2 is also the id of cases[1]"));
	free(bd);
	/* a failed case beside an ok one of its key counts nowhere: read */
	bd = bdoc("base", base, 3, 1, "{\"id\":9,\"module\":\"cpu\",\"params\":{\"max_prime\":10000},\"threads\":1,"
		  "\"repeat\":1,\"status\":\"failed\"}");
	assert_int_equal(parse(bd, &a, &e), 0);
	bc_results_free(&a);
	free(bd);
	bc_results_free(&b);
	free(nd);
}

/* After a Markdown page the gate's lines are Markdown: a label's HTML and
   link inert (issue 59). */
static void test_gate_markdown(void **state)
{
	(void)state;
	static const double base[] = { 1000, 1010, 990 }, half[] = { 500, 505, 495 };
	char *bd = bdoc("base", base, 3, 1, ""), *nd = bdoc("<img src=x onerror=alert(1)> [a](https://e.example) **b**", half, 3, 1, "");
	bc_results r[2];
	bc_err e;
	assert_int_equal(parse(bd, &r[0], &e), 0);
	assert_int_equal(parse(nd, &r[1], &e), 0);
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	bc_gate_opts g = { .fail_on = BC_GATE_LOSS, .markdown = 1 };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(bc_gate_print(f, r, 2, &o, &g), 1);
	fclose(f);
	print_message("%s", out);
	assert_non_null(strstr(out, "\n- FAIL loss: cpu max_prime=10000 threads=1 events_per_sec ratio 0.5"));
	assert_non_null(strstr(out, "&lt;img src=x onerror=alert\\(1\\)&gt; \\[a\\]\\(https://e.example\\) \\*\\*b\\*\\* against base"));
	assert_null(strstr(out, "<img"));
	assert_null(strstr(out, "]("));
	free(out);
	bc_results_free(&r[0]);
	bc_results_free(&r[1]);
	free(bd);
	free(nd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_baseline_strict),
		cmocka_unit_test(test_gate_markdown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
