/* What `benchcore compare` and `benchcore report` compute: match cases of
   result files, decide verdicts, write text/JSON/CSV or a self-contained HTML
   page to a FILE *. Their command lines are core/cli (compare_cli.c,
   report_cli.c, cmp_flags.h for the verdict flags they share).
   The verdict logic lives here once; report.c calls bc_compare_pair() and
   bc_scaling() rather than deciding anything itself. Main thread only. */
#ifndef BC_COMPARE_H
#define BC_COMPARE_H
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
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
/* repeat = auto's "decided" (core/run/auto.h bc_decide_fn): 1 when compare
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
const char *bc_verdict_name(int v);
/* A row's verdict as shown: "suspect loss", "suspect win", else the name. */
const char *bc_row_verdict(const bc_cmp_row *r);
/* Suspect rows of an item by direction: "suspect win", "suspect loss" or,
   with both, "suspect (win and loss)". */
const char *bc_suspect_word(size_t wins, size_t losses);
/* The slowdown interference can cause a case, as a fraction of its time per
   unit of work: for each repeat with share s (steal and other processes'
   fraction of its CPUs' time) >= busy (a fraction), a CPU-bound case using
   all its CPUs got 1 - s of them and ran 1 / (1 - s) times as long:
   s / (1 - s) more; one that used a fraction c of the time left to it
   (use / (1 - s), at most 1) loses at most c x s / (1 - s). Over n repeats
   the geometric mean (compare's interval is on the logs):
   exp(mean log(1 + f_i)) - 1. 0 when no repeat reached busy; NAN when n is 0. */
double bc_interference_bound(const double *share, const double *use, size_t n, double busy);
/* interference.c, for compare.c: a row's share_a/b, bound_a/b, busy_pct and
   busy from its groups; and, for a would-be win or loss (direction set),
   1 when the hit side's interference explains it (suspect), its reason
   written either way. */
void bc_row_interference(const bc_cmp_opts *o, bc_cmp_row *r);
int bc_interference_explains(const bc_cmp_opts *o, bc_cmp_row *r);
const char *bc_kind_name(int kind);	/* "throughput", "latency", "tail", "fairness" */
/* "headline 0 wins, 0 losses, 6 ties (equivalent), ...; secondary ..."
   without a newline. */
void bc_cmp_summary_text(FILE *f, const bc_cmp *c);
/* "mwu-exact", "mwu-normal", "welch" or "welch-log" for a tested row. */
const char *bc_row_test_name(const bc_cmp *c, const bc_cmp_row *r);

/* hostdiff.c: what differs between the two machines. */
/* Differences between two host objects, flattened to dotted names
   ("libraries.jansson"), leaving out the host name and time-varying fields
   (current MHz, warnings). New array [{field, a, b}], values as text. */
json_t *bc_host_diff(json_t *ha, json_t *hb);
/* The host object flattened to dotted names, values as text (new object). */
json_t *bc_host_flatten(json_t *host);
/* What a results file says about its machine: the host object flattened,
   plus the modules' facts ("MODULE.KEY" from cases' info; first case
   that recorded each). New object. compare's differences and report's
   machine table both read this. */
json_t *bc_facts(const bc_results *r);
/* The differences of a's and b's facts (bc_facts, leaving out a module
   fact that is a figure of a run rather than of the machine): host fields
   first, then the modules'. New array [{field, a, b, kind}], kind "host"
   or "module". compare.c's host_diff. */
json_t *bc_facts_diff(const bc_results *a, const bc_results *b);
/* The facts that differ between two runs, from their parts: host objects,
   module info and info_varies (NULL: none known; a fractional number is
   still taken for a per-run figure). New array [{field, a, b, kind}] as
   bc_cmp's host_diff (compare's own comes from here); history names the
   facts that changed at a change point with it. */
json_t *bc_facts_diff_parts(json_t *host_a, json_t *info_a, json_t *varies_a,
			    json_t *host_b, json_t *info_b, json_t *varies_b);
/* What a differing fact is, as compare's explanation names it ("kernel",
   "mitigations", "microcode", "clock", "CPU", ...; the order of *rank is
   most fundamental first), or NULL. */
const char *bc_fact_cause(const char *field, size_t *rank);
/* 1 when the clock the two hosts measured (cpu_mhz.measured) differs by
   more than 3% and beyond the spread each run saw (measured_min .. max do
   not overlap); *ma and *mb get the two figures (0: unknown). */
int bc_clock_moved(json_t *host_a, json_t *host_b, double *ma, double *mb);
/* 1 for host fields left out of the difference warnings. */
int bc_host_field_ignored(const char *field);

/* Thread sweep of one metric of one (module, params) in r: speedup and
   efficiency against the smallest thread count (1 when present). */
typedef struct bc_scale_point {
	long threads;
	double mean, speedup, efficiency;	/* efficiency: speedup / (threads / base) */
} bc_scale_point;

/* Fills up to max points sorted by threads; returns how many. */
size_t bc_scaling(const bc_results *r, const char *module, const char *params_key,
		  const char *metric, bc_scale_point *pts, size_t max);


/* hostdiff.c. One line, when anything: the one or two differing facts of the two
   machines that most likely explain a difference (CPU, usable CPUs, the
   measured clock, kernel, mitigations, microcode, file system, ...). */
void bc_cmp_explain(FILE *f, const bc_cmp *c);
/* One line: how cases were matched across files (placement, --match-ignore). */
void bc_cmp_matching_note(FILE *f, const bc_cmp_opts *o);

/* Output forms, also driven by the fuzz target (tests/fuzz). */
void bc_compare_print_text(FILE *f, const bc_cmp *c);
void bc_compare_print_csv(FILE *f, const bc_cmp *c);
json_t *bc_compare_json(const bc_cmp *c);
/* compare's whole output for res[1..n) against res[0] (text, CSV with its
   header line, or one JSON document), and the scaling view of every file. */
enum { BC_FMT_TEXT, BC_FMT_JSON, BC_FMT_CSV };
void bc_compare_print(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, int fmt);
void bc_scaling_print(FILE *f, const bc_results *res, int n, int fmt);
/* One file's report (benchcore -c ... --report): json_path read, the page
   written to path atomically. 0, or -1 after a message on stderr. */
int bc_report_file(const char *path, const char *json_path, const char *title);
/* The whole HTML page for res[0..n) to f, with the index against a
   reference set after the verdicts when index is not NULL (report --index
   SET, refset.h); -1 on a write error. */
struct bc_refset_ask;
int bc_report_write(FILE *f, bc_results *res, int n, const bc_cmp_opts *o, const char *title,
		    const struct bc_refset_ask *index);
/* The page for res[0..n) to path, atomically (a temporary file renamed into
   place), or to stdout for "-": 0; -1 when the page could not be built
   (nothing printed); -2 after a message on stderr. */
int bc_report_output(const char *path, bc_results *res, int n, const bc_cmp_opts *o, const char *title,
		     const struct bc_refset_ask *index);
#endif
