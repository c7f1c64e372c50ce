/* Calibration of compare's verdicts on synthetic results with a known
   truth. Both sides of a pair are drawn from one noise model shaped like
   the A/A runs of issue #19's config (cpu, rsa, mem 4K/1M read; threads
   1, 2; 5 repeats: 48 case x metric rows per pair), so every win or loss is
   false; then the same model with B's cpu events_per_sec 5% higher at one
   thread count, which should be found as a win.

   The noise model, multiplicative (log-normal), per metric kind: a repeat
   term (throughput 1%, p50 3%, p99 12%, fairness/stability 80%), a term
   shared by all repeats of one run (host drift between runs: 0.5%, 1%, 3%,
   10%). Not asserted but printed: the same with a 2% chance per repeat of
   a 5% slower throughput outlier (a cron job), and with noisier repeats. Metrics of one case that are the same
   count in other units (mib/ops/events per second) share their draw. The
   generator is a fixed-seed PRNG: the counts are reproducible.

   Issue 26's calibration of the three outcomes, on one throughput metric
   alone (no drift): two samples of one system at 5 repeats and 1% noise
   are a tie (equivalent) in >= 80% of pairs; a true +5% at 5 repeats is a
   win in >= 90%; +100% at 3 repeats with 40% noise, +127% at 3 with 30%,
   and 0% at 2 repeats with 5% are never a tie. */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"

#define REPEATS		5
#define PAIRS_AA	300
#define PAIRS_AB	300

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double uniform(void)	/* splitmix64 -> (0, 1) */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)	/* Box-Muller */
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

typedef struct { const char *name; int kind; int share; } mdef;	/* share: same draw as metric 0 */

/* Rows per case of the config, as the reader names them. */
static const mdef cpu_m[] = { { "events_per_sec", BC_KIND_THROUGHPUT, 0 },
	{ "fairness_events_stddev", BC_KIND_FAIRNESS, 0 }, { "event.p50_ms", BC_KIND_LATENCY, 0 },
	{ "event.p99_ms", BC_KIND_TAIL, 0 }, { NULL, 0, 0 } };
static const mdef rsa_m[] = { { "sign_per_sec", BC_KIND_THROUGHPUT, 0 },
	{ "verify_per_sec", BC_KIND_THROUGHPUT, 0 }, { "events_per_sec", BC_KIND_THROUGHPUT, 0 },
	{ "fairness_events_stddev", BC_KIND_FAIRNESS, 0 }, { "sign.p50_ms", BC_KIND_LATENCY, 0 },
	{ "sign.p99_ms", BC_KIND_TAIL, 0 }, { "verify.p50_ms", BC_KIND_LATENCY, 0 },
	{ "verify.p99_ms", BC_KIND_TAIL, 0 }, { NULL, 0, 0 } };
static const mdef mem_m[] = { { "mib_per_sec", BC_KIND_THROUGHPUT, 0 },
	{ "ops_per_sec", BC_KIND_THROUGHPUT, 1 }, { "events_per_sec", BC_KIND_THROUGHPUT, 1 },
	{ "fairness_events_stddev", BC_KIND_FAIRNESS, 0 }, { "read.p50_ms", BC_KIND_LATENCY, 0 },
	{ "read.p99_ms", BC_KIND_TAIL, 0 }, { NULL, 0, 0 } };

static const struct { const char *module, *params; const mdef *m; } cases_def[] = {
	{ "cpu", "{}", cpu_m }, { "rsa", "{}", rsa_m },
	{ "mem", "{\"block_size\":4096}", mem_m }, { "mem", "{\"block_size\":1048576}", mem_m },
};

static double outlier_p = 0;	/* chance per repeat of a 5% slower throughput */
static double sigma_rep[BC_KIND_N] = { 0.01, 0.03, 0.12, 0.8 };
static const double sigma_run[BC_KIND_N] = { 0.005, 0.01, 0.03, 0.10 };

static void init_metric(bc_rmetric *m, const mdef *d)
{
	const char *dot = strchr(d->name, '.');

	*m = (bc_rmetric){ .name = strdup(d->name), .unit = strdup(""), .compared = 1,
			   .higher_is_better = d->kind == BC_KIND_THROUGHPUT,
			   .kind = d->kind == BC_KIND_FAIRNESS ? BC_MK_FAIRNESS :
				   dot ? BC_MK_LATENCY : BC_MK_METRIC,
			   .values = calloc(REPEATS, sizeof(double)), .n = REPEATS, .cap = REPEATS };
	if (dot) {
		m->op = strndup(d->name, (size_t)(dot - d->name));
		m->pct = strndup(dot + 1, strcspn(dot + 1, "_"));
	}
	assert_true(m->name && m->unit && m->values);
}

/* One group's values: drift once per run and metric, noise per repeat. */
static void fill_group(bc_rgroup *g, const mdef *defs, double shift_eps)
{
	for (size_t j = 0; j < g->nmetrics; j++) {
		int kind = defs[j].kind;
		double drift = sigma_run[kind] * gauss();
		for (size_t r = 0; r < REPEATS; r++) {
			double x;
			if (defs[j].share) {
				g->metrics[j].values[r] = g->metrics[0].values[r];
				continue;
			}
			x = drift + sigma_rep[kind] * gauss();
			if (kind == BC_KIND_THROUGHPUT && uniform() < outlier_p)
				x += log(0.95);
			g->metrics[j].values[r] = 1000 * exp(x);
		}
	}
	if (shift_eps != 0)
		for (size_t r = 0; r < REPEATS; r++)
			g->metrics[0].values[r] *= 1 + shift_eps;
}

/* A results file of the config; B's cpu events_per_sec at one
   thread multiplied by 1 + shift. */
static void make_run(bc_results *res, const char *label, double shift)
{
	size_t ng = 2 * sizeof(cases_def) / sizeof(cases_def[0]);

	*res = (bc_results){ .path = strdup(label), .label = strdup(label), .host = json_object(),
			     .info = json_object(), .groups = calloc(ng, sizeof(bc_rgroup)),
			     .ngroups = ng, .cap = ng };
	assert_non_null(res->groups);
	for (size_t i = 0; i < ng; i++) {
		bc_rgroup *g = &res->groups[i];
		const mdef *d = cases_def[i / 2].m;
		size_t nm = 0;
		while (d[nm].name)
			nm++;
		*g = (bc_rgroup){ .module = strdup(cases_def[i / 2].module),
				  .params_key = strdup(cases_def[i / 2].params),
				  .params_text = strdup(""), .threads = (long)(i % 2 + 1),
				  .repeats = REPEATS, .headline = strdup("events_per_sec"),
				  .thresholds = json_object(), .steal_max = -1, .other_max = -1,
				  .metrics = calloc(nm, sizeof(bc_rmetric)), .nmetrics = nm, .cap = nm };
		for (size_t j = 0; j < nm; j++)
			init_metric(&g->metrics[j], &d[j]);
		fill_group(g, d, i == 0 ? shift : 0);
	}
}

typedef struct { size_t rows, false_verdicts, found, false_headline, ties, head_rows, head_ties; } tally;

static void run_pairs(int pairs, double shift, tally *t)
{
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;

	for (int p = 0; p < pairs; p++) {
		bc_results a, b;
		bc_cmp c;
		make_run(&a, "A", 0);
		make_run(&b, "B", shift);
		bc_compare_pair(&a, &b, &o, &c);
		assert_int_equal(c.nrows, 48);
		for (size_t i = 0; i < c.nrows; i++) {
			const bc_cmp_row *r = &c.rows[i];
			int shifted = shift != 0 && r->ga == &a.groups[0] && r->ma == &a.groups[0].metrics[0];
			int verdict = r->verdict == BC_V_WIN || r->verdict == BC_V_LOSS;
			if (shifted) {
				t->found += r->verdict == BC_V_WIN;
				continue;
			}
			t->rows++;
			t->ties += r->verdict == BC_V_TIE;
			t->head_rows += r->headline;
			t->head_ties += r->headline && r->verdict == BC_V_TIE;
			t->false_verdicts += verdict;
			t->false_headline += verdict && r->headline;
		}
		bc_cmp_free(&c);
		bc_results_free(&a);
		bc_results_free(&b);
	}
}

static void test_aa_false_verdicts(void **st)
{
	tally t = { 0 };
	(void)st;
	run_pairs(PAIRS_AA, 0, &t);
	printf("A/A: %zu false verdicts in %zu comparisons (%.2f%%), %zu on headline metrics; "
	       "ties (equivalent) %.1f%% of all rows, %.1f%% of headline rows (not asserted: the "
	       "model's run-to-run drift is not in the repeats' spread)\n", t.false_verdicts, t.rows,
	       100.0 * t.false_verdicts / t.rows, t.false_headline, 100.0 * t.ties / t.rows,
	       100.0 * t.head_ties / t.head_rows);
	assert_true(t.rows >= 1000);
	assert_true(t.false_verdicts <= t.rows / 20);
}

static void test_ab_found(void **st)
{
	tally t = { 0 };
	(void)st;
	run_pairs(PAIRS_AB, 0.05, &t);
	printf("A/B: +5%% throughput found as a win in %zu of %d pairs (%.1f%%); "
	       "%zu false verdicts in the other %zu comparisons\n", t.found, PAIRS_AB,
	       100.0 * t.found / PAIRS_AB, t.false_verdicts, t.rows);
	assert_true(t.found * 10 >= (size_t)PAIRS_AB * 9);
	assert_true(t.false_verdicts <= t.rows / 20);
	/* Not asserted: how the power falls with noisier repeats (the price of
	   48 tests at 5 repeats; docs/results.md quotes these). */
	for (int k = 0; k < 3; k++) {
		tally u = { 0 };
		sigma_rep[BC_KIND_THROUGHPUT] = k == 2 ? 0.02 : k == 1 ? 0.015 : 0.01;
		outlier_p = k == 0 ? 0.02 : 0;
		run_pairs(100, 0.05, &u);
		printf("A/B at %.1f%% repeat noise%s: found in %zu of 100 pairs\n",
		       100 * sigma_rep[BC_KIND_THROUGHPUT], k ? "" : " and outliers", u.found);
	}
	sigma_rep[BC_KIND_THROUGHPUT] = 0.01;
	outlier_p = 0;
}

/* The model is not so tame that anything passes: the rules compare used
   before (MWU, raw p, one 2% threshold for every metric, no noise rule)
   give about ten times the false verdicts of the new ones on the same A/A
   pairs (about 5% against 0.4%). */
static void test_old_rules_fail(void **st)
{
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	size_t rows = 0, bad = 0;
	(void)st;
	o.test = BC_TEST_MWU;
	o.adjust = BC_ADJ_NONE;
	for (int k = 0; k < BC_KIND_N; k++)
		o.kind_threshold[k] = 0.02;
	for (int p = 0; p < 100; p++) {
		bc_results a, b;
		bc_cmp c;
		make_run(&a, "A", 0);
		make_run(&b, "B", 0);
		bc_compare_pair(&a, &b, &o, &c);
		for (size_t i = 0; i < c.nrows; i++) {
			/* what the old rules would call: p < alpha and beyond 2% */
			const bc_cmp_row *r = &c.rows[i];
			rows++;
			bad += r->tested && r->test.p < o.alpha && fabs(r->change) >= 0.02;
		}
		bc_cmp_free(&c);
		bc_results_free(&a);
		bc_results_free(&b);
	}
	printf("old rules on the same model: %zu false verdicts in %zu (%.2f%%)\n", bad, rows,
	       100.0 * bad / rows);
	assert_true(bad * 100 >= rows * 3);
}

/* One throughput metric, one case, n_a and n_b repeats of log-normal noise
   cv (no drift between runs), B's true value 1 + shift times A's: the
   verdict counts over pairs. */
static void one_metric_pairs(int pairs, size_t na, size_t nb, double cv, double shift,
			     size_t count[BC_V_N])
{
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;

	for (int p = 0; p < pairs; p++) {
		bc_results res[2];
		bc_cmp c;
		for (int side = 0; side < 2; side++) {
			size_t n = side ? nb : na;
			bc_results *r = &res[side];
			mdef d = { "events_per_sec", BC_KIND_THROUGHPUT, 0 };
			*r = (bc_results){ .path = strdup(side ? "B" : "A"), .label = strdup(side ? "B" : "A"),
					   .host = json_object(), .info = json_object(),
					   .groups = calloc(1, sizeof(bc_rgroup)), .ngroups = 1, .cap = 1 };
			assert_non_null(r->groups);
			r->groups[0] = (bc_rgroup){ .module = strdup("io"), .params_key = strdup("{}"),
				.params_text = strdup(""), .threads = 2, .repeats = n,
				.headline = strdup("events_per_sec"), .thresholds = json_object(),
				.steal_max = -1, .other_max = -1, .metrics = calloc(1, sizeof(bc_rmetric)),
				.nmetrics = 1, .cap = 1 };
			init_metric(&r->groups[0].metrics[0], &d);
			r->groups[0].metrics[0].n = n;
			for (size_t k = 0; k < n; k++)
				r->groups[0].metrics[0].values[k] = 1000 * (side ? 1 + shift : 1) *
								     exp(cv * gauss());
		}
		bc_compare_pair(&res[0], &res[1], &o, &c);
		assert_int_equal(c.nrows, 1);
		count[c.rows[0].verdict]++;
		bc_cmp_free(&c);
		bc_results_free(&res[0]);
		bc_results_free(&res[1]);
	}
}

static void print_counts(const char *what, const size_t v[BC_V_N], int pairs)
{
	printf("%s: %zu wins, %zu losses, %zu ties, %zu inconclusive of %d\n", what, v[BC_V_WIN],
	       v[BC_V_LOSS], v[BC_V_TIE], v[BC_V_INCONCLUSIVE], pairs);
}

/* A tie is a claim: the same within the threshold. Two samples of one
   system at 5 repeats with 1% noise are called so in >= 80% of pairs, never
   a win or loss beyond the expected 5%. */
static void test_tie_equivalent(void **st)
{
	size_t v[BC_V_N] = { 0 };
	(void)st;
	one_metric_pairs(400, 5, 5, 0.01, 0, v);
	print_counts("A/A 5 repeats cv 1%", v, 400);
	assert_true(v[BC_V_TIE] * 100 >= 400 * 80);
	assert_true((v[BC_V_WIN] + v[BC_V_LOSS]) * 100 <= 400 * 5);
}

/* The study's rows: a 2x difference at 3 noisy repeats, or nothing known
   from 2 repeats, is never "the same". */
static void test_never_tie(void **st)
{
	size_t big[BC_V_N] = { 0 }, two[BC_V_N] = { 0 }, io[BC_V_N] = { 0 };
	(void)st;
	one_metric_pairs(400, 3, 3, 0.40, 1.0, big);
	print_counts("+100% at 3 repeats cv 40%", big, 400);
	assert_int_equal(big[BC_V_TIE], 0);
	assert_int_equal(big[BC_V_LOSS], 0);
	one_metric_pairs(400, 2, 2, 0.05, 0, two);
	print_counts("0% at 2 repeats cv 5%", two, 400);
	assert_int_equal(two[BC_V_TIE], 0);
	one_metric_pairs(400, 3, 3, 0.30, 1.27, io);
	print_counts("+127% at 3 repeats cv 30%", io, 400);
	assert_int_equal(io[BC_V_TIE], 0);
}

/* A true +5% at 5 repeats and 1% noise, alone: a win in >= 90%. */
static void test_win_found(void **st)
{
	size_t v[BC_V_N] = { 0 };
	(void)st;
	one_metric_pairs(400, 5, 5, 0.01, 0.05, v);
	print_counts("+5% at 5 repeats cv 1%", v, 400);
	assert_true(v[BC_V_WIN] * 100 >= 400 * 90);
	assert_int_equal(v[BC_V_TIE] + v[BC_V_LOSS], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_false_verdicts),
		cmocka_unit_test(test_ab_found),
		cmocka_unit_test(test_old_rules_fail),
		cmocka_unit_test(test_tie_equivalent),
		cmocka_unit_test(test_never_tie),
		cmocka_unit_test(test_win_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
