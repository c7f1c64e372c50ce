/* compare's interference rule (issue 38), one branch per test, on results
   grouped through the one grouping (bc_results_add_case): interference only
   slows the side it hit; a difference in its direction is suspect only when
   the hit side's bound (bc_interference_bound) explains it; suspect carries
   its direction. Side A: 1000 events/s with 1% noise over 5 repeats. */
#include "unit.h"
#include <math.h>
#include <string.h>
#include "compare.h"
#include "interference.h"

static const double noise[5] = { -0.010, 0.004, 0.0, -0.004, 0.010 };

typedef struct {
	double share, use, machine;	/* interference_pct, cpus_use, other_pct; NAN: absent */
} load;

#define CLEAN ((load){ 0, 1, 0 })

static void side(bc_results *r, const char *name, double eps, load l)
{
	bc_results_init(r, name);
	for (int i = 0; i < 5; i++) {
		bc_case_result c;
		bc_case_init(&c);
		bc_case_set_str(&c.module, "cpu");
		bc_case_set_str(&c.status, "ok");
		c.threads = 1;
		c.repeat = i + 1;
		bc_case_set_metric(&c, "events_per_sec", "events/s", eps * (1 + noise[i]), 1);
		c.cpu.set = 1;
		c.cpu.other_pct = l.machine;
		c.cpu.steal_pct = 0;
		c.cpu.interference_pct = l.share;
		c.cpu.cpus_use = l.use;
		bc_results_add_case(r, &c);
		bc_case_free(&c);
	}
	bc_results_done(r);
}

/* The headline row of A (clean unless given) against B; its verdict text
   and reason into the buffers. */
static int judge(double eps_b, load la, load lb, double busy, char *text, char *reason)
{
	bc_results a, b;
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	o.busy_pct = busy;
	side(&a, "a", 1000, la);
	side(&b, "b", eps_b, lb);
	bc_compare_pair(&a, &b, &o, &c);
	assert_int_equal(c.nrows >= 1, 1);
	const bc_cmp_row *r = &c.rows[0];
	assert_string_equal(r->ma->name, "events_per_sec");
	int v = r->verdict;
	snprintf(text, 64, "%s", bc_row_verdict(r));
	snprintf(reason, 400, "%s", r->reason);
	bc_cmp_free(&c);
	bc_results_free(&a);
	bc_results_free(&b);
	return v;
}

static void test_bound(void **st)
{
	(void)st;
	double s1[] = { 0.5 }, u1[] = { 0.5 }, s2[] = { 0.2 }, u2[] = { NAN }, u3[] = { 0.1 };
	double s4[] = { 0.5, 0 }, u4[] = { 0.5, 1 }, s5[] = { 0.04 };
	/* CPU-bound, half the CPU taken: twice as long */
	assert_true(fabs(bc_interference_bound(s1, u1, 1, 0.05) - 1.0) < 1e-12);
	/* use unknown: taken as CPU-bound, s / (1 - s) */
	assert_true(fabs(bc_interference_bound(s2, u2, 1, 0.05) - 0.25) < 1e-12);
	/* used a fifth of what was left: a fifth of it */
	assert_true(fabs(bc_interference_bound(s1, u3, 1, 0.05) - 0.2) < 1e-12);
	/* over repeats: the geometric mean of 1 + f */
	assert_true(fabs(bc_interference_bound(s4, u4, 2, 0.05) - (sqrt(2) - 1)) < 1e-12);
	/* below busy_threshold: not weighed */
	assert_true(bc_interference_bound(s5, u2, 1, 0.05) == 0);
	assert_true(isnan(bc_interference_bound(s5, u2, 0, 0.05)));
}

/* B 40% slower, B's CPUs half taken by others: suspect loss */
static void test_loss_hit_side_suspect(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(600, CLEAN, (load){ 50, 0.5, 50 }, 5, t, why), BC_V_SUSPECT);
	assert_string_equal(t, "suspect loss");
	assert_non_null(strstr(why, "B's CPUs"));
}

/* B 40% slower while A was the one interfered with: a loss as usual */
static void test_loss_other_side_stands(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(600, (load){ 50, 0.5, 50 }, CLEAN, 5, t, why), BC_V_LOSS);
	assert_string_equal(t, "loss");
	assert_non_null(strstr(why, "only narrows"));
}

/* B 40% faster while B was interfered with: a win as usual */
static void test_win_hit_side_stands(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(1400, CLEAN, (load){ 50, 0.5, 50 }, 5, t, why), BC_V_WIN);
}

/* B 40% faster while A's CPUs were half taken: suspect win */
static void test_win_suspect(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(1400, (load){ 50, 0.5, 50 }, CLEAN, 5, t, why), BC_V_SUSPECT);
	assert_string_equal(t, "suspect win");
}

/* 10% on B's CPUs can make it at most 11.1% slower: a 40% loss stands, named */
static void test_too_large_to_explain(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(600, CLEAN, (load){ 10, 0.9, 10 }, 5, t, why), BC_V_LOSS);
	assert_non_null(strstr(why, "at most 11.1% slower"));
	/* ... and a 5% loss it can explain is suspect */
	assert_int_equal(judge(950, CLEAN, (load){ 10, 0.9, 10 }, 5, t, why), BC_V_SUSPECT);
	assert_string_equal(t, "suspect loss");
}

/* a case that used a tenth of its CPU loses little to others on it */
static void test_scaled_by_use(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(600, CLEAN, (load){ 50, 0.1, 50 }, 5, t, why), BC_V_LOSS);
	assert_non_null(strstr(why, "at most 20.0% slower"));
}

/* busy_threshold: 3% is not weighed at 5, is at 2 */
static void test_busy_threshold(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(960, CLEAN, (load){ 3, 0.97, 3 }, 5, t, why), BC_V_LOSS);
	assert_int_equal(judge(960, CLEAN, (load){ 3, 0.97, 3 }, 2, t, why), BC_V_SUSPECT);
}

/* load on other CPUs only (a hog beside the case): the verdict stands and
   the reason says what CPUs share */
static void test_beside_load(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(600, CLEAN, (load){ 0.5, 1, 50 }, 5, t, why), BC_V_LOSS);
	assert_non_null(strstr(why, "beside load on other CPUs"));
}

/* an older file (machine-wide figures only): weighed as interference on
   the case's CPUs, CPU-bound */
static void test_older_file(void **st)
{
	char t[64], why[400];
	(void)st;
	assert_int_equal(judge(600, CLEAN, (load){ NAN, NAN, 50 }, 5, t, why), BC_V_SUSPECT);
	assert_int_equal(judge(1400, CLEAN, (load){ NAN, NAN, 50 }, 5, t, why), BC_V_WIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_loss_hit_side_suspect),
		cmocka_unit_test(test_loss_other_side_stands),
		cmocka_unit_test(test_win_hit_side_stands),
		cmocka_unit_test(test_win_suspect),
		cmocka_unit_test(test_too_large_to_explain),
		cmocka_unit_test(test_scaled_by_use),
		cmocka_unit_test(test_busy_threshold),
		cmocka_unit_test(test_beside_load),
		cmocka_unit_test(test_older_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
