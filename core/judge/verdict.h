/* The verdict's vocabulary (judge/verdict.c): what a row of compare holds
   and the options that decide it. Types and names only; the rule that
   fills a row is compare.c's, interference's part of it interference.c's.
   No state. */
#ifndef BC_VERDICT_H
#define BC_VERDICT_H
#include <stddef.h>
#include "results.h"
#include "stats.h"
#include "steady.h"

enum { BC_TEST_MWU, BC_TEST_WELCH };
/* Verdicts for B, decided by the confidence interval of the ratio B/A
   (compare.c): WIN/LOSS significant after the adjustment and the interval
   wholly beyond the practical threshold on one side; TIE (equivalent) the
   interval wholly inside +-threshold; INCONCLUSIVE anything else.
   SUSPECT: the data say win or loss, in the direction interference could
   cause (B worse when B's cases were interfered with, B better when A's
   were: it only slows the side it hits), and the interference is large
   enough to explain it: the interval's near end, moved by the slowdown the
   hit side's interference can cause (bc_interference_bound), no longer
   clears the threshold. A difference interference cannot cause, or one
   too large for it, stands (its reason names the interference). Also
   SUSPECT: on one machine
   (the same host name and CPU), its measured clock moved between the runs
   by enough that per GHz the change is within the threshold (a shared
   host's turbo, not the software). */
enum { BC_V_WIN, BC_V_LOSS, BC_V_TIE, BC_V_INCONCLUSIVE, BC_V_SUSPECT, BC_V_N };

#define BC_CMP_MAX_OVERRIDES	32
typedef struct bc_threshold_for {
	char name[64];		/* a metric name ("read.p99_ms") or a kind ("tail") */
	double frac;
} bc_threshold_for;

typedef struct bc_cmp_opts {
	double alpha;		/* 0.05 */
	double kind_threshold[BC_KIND_N];	/* fractions; [THROUGHPUT] is --threshold */
	int test;		/* BC_TEST_MWU or BC_TEST_WELCH */
	int adjust;		/* BC_ADJ_BH (default), BC_ADJ_HOLM or BC_ADJ_NONE */
	double busy_pct;	/* busy_threshold: interference (steal and other processes on
				   the case's CPUs, percent of their time) below it is not
				   weighed: 5 */
	int busy_set;		/* busy_pct given (--busy-threshold), not the default */
	double level;		/* confidence of the interval of B/A: 0.80 (see compare --help) */
	bc_threshold_for over[BC_CMP_MAX_OVERRIDES];	/* --threshold-for, in order */
	size_t nover;
	/* --match-ignore: options left out when matching cases across files
	   (besides each module's placement options) */
	char ignore[BC_CMP_MAX_OVERRIDES][64];
	size_t nignore;
	int compare_means;	/* judge OP.mean_ms too (compare --summary-table) */
} bc_cmp_opts;

#define BC_CMP_OPTS_DEFAULT ((bc_cmp_opts){ .alpha = 0.05, \
	.kind_threshold = BC_KIND_THRESHOLDS, .test = BC_TEST_WELCH, \
	.adjust = BC_ADJ_BH, .busy_pct = 5, .level = BC_VERDICT_LEVEL })
/* A tie needs this many repeats on each side: an interval from two values
   rests on one degree of freedom per side, its width is itself a guess. */
#define BC_TIE_MIN_N	3

/* One metric of one matched group: B (the candidate) against A (the
   baseline). Pointers borrow from the two bc_results. */
typedef struct bc_cmp_row {
	const bc_rgroup *ga, *gb;
	const bc_rmetric *ma, *mb;
	bc_summary sa, sb;
	double ratio;		/* mean B / mean A; NAN when mean A is 0 */
	double change;		/* ratio - 1 (sign of the difference when mean A is 0) */
	int tested;		/* test holds a result */
	int log_scale;		/* Welch ran on log values (all values > 0) */
	bc_test_result test;
	double p_adj;		/* test.p adjusted over the pair's family; NAN untested */
	int kind;		/* BC_KIND_* */
	int headline;		/* the group's headline metric */
	double threshold;	/* practical threshold applied, fraction */
	const char *threshold_src;	/* "default", "module", "--threshold-for" */
	int has_ci;		/* ci_lo, ci_hi hold the interval */
	double ci_lo, ci_hi;	/* interval of change (B/A - 1) at opts.level */
	/* the interval's working scale (logs of the values, or fractions of
	   |mean A|): estimate, per-repeat spread, standard error; for need_n */
	double w_d, w_s, w_se, w_df;
	int w_log;		/* the working scale is logs */
	int busy;		/* a case of either side ran with interference >= busy_pct */
	double busy_pct;	/* the larger side's largest interference share, percent (-1 unknown) */
	double share_a, share_b;	/* each side's mean interference share, percent (-1 unknown) */
	double bound_a, bound_b;	/* the slowdown each side's interference can cause
					   (bc_interference_bound; INFINITY for tails) */
	double clock_change;	/* one machine: B's measured clock / A's - 1 (the probe's
				   means over the repeats); NAN on two machines or unknown */
	size_t need_n;		/* inconclusive: repeats per side likely to resolve it (1000: more) */
	int verdict;		/* BC_V_* from B's point of view */
	int direction;		/* BC_V_WIN / BC_V_LOSS the data point to (SUSPECT rows) */
	char reason[384];	/* why tie/inconclusive/suspect, empty for win/loss */
} bc_cmp_row;

const char *bc_verdict_name(int v);
/* A row's verdict as shown: "suspect loss", "suspect win", else the name. */
const char *bc_row_verdict(const bc_cmp_row *r);
/* Suspect rows of an item by direction: "suspect win", "suspect loss" or,
   with both, "suspect (win and loss)". */
const char *bc_suspect_word(size_t wins, size_t losses);
const char *bc_kind_name(int kind);	/* "throughput", "latency", "tail", "fairness" */
#endif
