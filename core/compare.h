/* `benchcore compare` and `benchcore report`: read result files, match cases,
   decide verdicts, write text/JSON/CSV or a self-contained HTML page.
   The verdict logic lives here once; report.c calls bc_compare_pair() and
   bc_scaling() rather than deciding anything itself. Main thread only. */
#ifndef BC_COMPARE_H
#define BC_COMPARE_H
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "results.h"
#include "stats.h"

int bc_cmd_compare(int argc, char **argv);
int bc_cmd_report(int argc, char **argv);

/* Loads files[0..n) into res; on failure prints "benchcore CMD: FILE: why"
   to stderr, frees what it loaded and returns -1. */
int bc_load_all(const char *cmd, char **files, int n, bc_results *res);

enum { BC_TEST_MWU, BC_TEST_WELCH };
enum { BC_V_WIN, BC_V_LOSS, BC_V_TIE, BC_V_INCONCLUSIVE };

typedef struct bc_cmp_opts {
	double alpha;		/* 0.05 */
	double threshold;	/* practical threshold as a fraction: 0.02 */
	int test;		/* BC_TEST_MWU or BC_TEST_WELCH */
} bc_cmp_opts;

#define BC_CMP_OPTS_DEFAULT ((bc_cmp_opts){ .alpha = 0.05, .threshold = 0.02, .test = BC_TEST_MWU })

/* One metric of one matched group: B (the candidate) against A (the
   baseline). Pointers borrow from the two bc_results. */
typedef struct bc_cmp_row {
	const bc_rgroup *ga, *gb;
	const bc_rmetric *ma, *mb;
	bc_summary sa, sb;
	double ratio;		/* mean B / mean A; NAN when mean A is 0 */
	double change;		/* ratio - 1 (sign of the difference when mean A is 0) */
	int tested;		/* test holds a result */
	bc_test_result test;
	int verdict;		/* BC_V_* from B's point of view */
	char reason[96];	/* why tie/inconclusive, empty for win/loss */
} bc_cmp_row;

typedef struct bc_cmp {
	const bc_results *a, *b;
	bc_cmp_opts opts;
	bc_cmp_row *rows;
	size_t nrows;
	size_t count[4];	/* indexed by BC_V_* */
	const bc_rgroup **only_a, **only_b;	/* groups without a partner */
	size_t nonly_a, nonly_b;
	json_t *host_diff;	/* [{field, a, b}] of host fields that differ */
} bc_cmp;

/* Match groups by module, params and threads, test every metric present
   on both sides. Never fails; free with bc_cmp_free(). */
void bc_compare_pair(const bc_results *a, const bc_results *b,
		     const bc_cmp_opts *o, bc_cmp *out);
void bc_cmp_free(bc_cmp *c);

/* The studies' summary: per module and metric (over all params and thread
   counts) the verdict counts and the overall result. */
enum { BC_ITEM_B_WINS, BC_ITEM_A_WINS, BC_ITEM_MIXED, BC_ITEM_TIE, BC_ITEM_INCONCLUSIVE };
typedef struct bc_cmp_item {
	const char *module, *metric;	/* borrowed from the rows */
	size_t count[4];		/* BC_V_* */
	int result;			/* BC_ITEM_* */
} bc_cmp_item;

/* New array of items in row order, *n set; free() it. */
bc_cmp_item *bc_cmp_items(const bc_cmp *c, size_t *n);
const char *bc_verdict_name(int v);
/* "mwu-exact", "mwu-normal" or "welch" for a tested row. */
const char *bc_row_test_name(const bc_cmp *c, const bc_cmp_row *r);

/* Differences between two host objects, flattened to dotted names
   ("libraries.openssl"), leaving out the host name and time-varying fields
   (current MHz, warnings). New array [{field, a, b}], values as text. */
json_t *bc_host_diff(json_t *ha, json_t *hb);
/* The host object flattened to dotted names, values as text (new object). */
json_t *bc_host_flatten(json_t *host);
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

/* The metric charted and scaled by default for a group: the first
   higher-is-better module metric other than events_per_sec, else
   events_per_sec, else the first metric. NULL when the group has none. */
const bc_rmetric *bc_primary_metric(const bc_rgroup *g);

/* Output forms, also driven by the fuzz target (tests/fuzz). */
void bc_compare_print_text(FILE *f, const bc_cmp *c);
void bc_compare_print_csv(FILE *f, const bc_cmp *c);
json_t *bc_compare_json(const bc_cmp *c);
/* The whole HTML page for res[0..n) to f; -1 on a write error. */
int bc_report_write(FILE *f, bc_results *res, int n, const bc_cmp_opts *o, const char *title);
#endif
