/* The judge (core/judge, README "Layout"): the cases of two result files
   matched, every metric tested and given its verdict (verdict.h) once.
   Everything that shows a verdict (views/: compare's text, JSON and CSV,
   the tables, the index; pages/: the report; history's gate; repeat =
   "auto" in run/) calls bc_compare_pair() or bc_compare_decided() and
   decides nothing itself. Main thread only. */
#ifndef BC_COMPARE_H
#define BC_COMPARE_H
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "results.h"
#include "stats.h"
#include "steady.h"
#include "verdict.h"


typedef struct bc_cmp {
	const bc_results *a, *b;
	bc_cmp_opts opts;
	bc_cmp_row *rows;
	size_t nrows;
	size_t count[BC_V_N];	/* indexed by BC_V_* */
	size_t count_head[BC_V_N], count_sec[BC_V_N];	/* headline / secondary rows */
	size_t ntested;		/* size of the adjustment family */
	const bc_rgroup **only_a, **only_b;	/* groups without a partner */
	size_t nonly_a, nonly_b;
	json_t *host_diff;	/* [{field, a, b, kind}] of facts that differ: kind "host"
				   (the fingerprint), then "module" (cases' info: versions,
				   settings; per-run figures left out) */
} bc_cmp;

/* Match groups by module, params and threads, test every metric present
   on both sides. Never fails; free with bc_cmp_free(). */
void bc_compare_pair(const bc_results *a, const bc_results *b,
		     const bc_cmp_opts *o, bc_cmp *out);
void bc_cmp_free(bc_cmp *c);
/* repeat = auto's "decided" (core/run/auto.c calls it): 1 when compare
   of baseline (A) and run (B) gives group g of run's headline a win, loss
   or tie by compare's own rule (default options, the files' busy_threshold,
   one machine or two), with the adjustment bounded for any family the
   final files can make: a win or loss needs p x 2 x baseline's groups <
   alpha, so compare on the finished files says the same. */
int bc_compare_decided(const bc_results *baseline, const bc_results *run, const bc_rgroup *g);

/* The studies' summary: per module and metric (over all params and thread
   counts) the verdict counts and the overall result. */
enum { BC_ITEM_B_WINS, BC_ITEM_A_WINS, BC_ITEM_MIXED, BC_ITEM_TIE, BC_ITEM_INCONCLUSIVE,
       BC_ITEM_SUSPECT };
typedef struct bc_cmp_item {
	const char *module, *metric;	/* borrowed from the rows */
	size_t count[BC_V_N];		/* BC_V_* */
	size_t suspect_win, suspect_loss;	/* count[BC_V_SUSPECT] by direction */
	int result;			/* BC_ITEM_* */
} bc_cmp_item;

/* New array of items in row order, *n set; free() it. */
bc_cmp_item *bc_cmp_items(const bc_cmp *c, size_t *n);
/* The largest headline differences (by |log B/A|, verdict aside), at most
   max of them: their row indexes into idx, largest first; returns how many. */
#define BC_CMP_LARGEST 5
size_t bc_cmp_largest(const bc_cmp *c, size_t *idx, size_t max);
/* "mwu-exact", "mwu-normal", "welch" or "welch-log" for a tested row. */
const char *bc_row_test_name(const bc_cmp *c, const bc_cmp_row *r);


/* Thread sweep of one metric of one (module, params) in r: speedup and
   efficiency against the smallest thread count (1 when present). */
typedef struct bc_scale_point {
	long threads;
	double mean, speedup, efficiency;	/* efficiency: speedup / (threads / base) */
} bc_scale_point;

/* Fills up to max points sorted by threads; returns how many. */
size_t bc_scaling(const bc_results *r, const char *module, const char *params_key,
		  const char *metric, bc_scale_point *pts, size_t max);


/* Repeats per side likely to resolve row r (its estimate, spread and
   threshold): compare's own rule for an inconclusive row's "needs ~N". */
size_t bc_repeats_needed(const bc_cmp_opts *o, const bc_cmp_row *r);

/* Interference as the likeliest cause of a difference: when a side's
   cases ran with steal and other processes at or above busy_pct (the
   largest mean share of its rows), "interference (... took 73% of B's
   CPUs' time)" into buf and 1; else 0 and "". */
int bc_cmp_interference_cause(const bc_cmp *c, char *buf, size_t n);

/* One line: how cases were matched across files (placement, --match-ignore). */
void bc_cmp_matching_note(FILE *f, const bc_cmp_opts *o);
#endif
