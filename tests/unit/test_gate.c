/* The CI gate's pure parts (issue 53): compare --fail-on's word list, which
   rows it fails (headline only unless --fail-on-metric; a suspect loss only
   with "suspect", never a suspect win), and history --fail-on-change's rule
   on synthetic series: a step for the worse that the newest run completes
   fails; a flat series, a step for the better, and a step an earlier run
   already showed pass. */
#include "unit.h"
#include <math.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_history),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
