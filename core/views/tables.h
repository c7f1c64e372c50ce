/* The studies' own views of several result files (compare --table,
   --summary-table, --per-ghz, --index): tables of cases x systems, the
   win/tie table per module, throughput against the measured frequency, and
   a UnixBench-style index against a baseline. Every verdict comes from
   bc_compare_pair() of each file against the first; nothing here decides
   one. Main thread only. */
#ifndef BC_TABLES_H
#define BC_TABLES_H
#include <stdio.h>
#include "compare.h"

/* The tables' forms are grid.h's BC_TAB_*. */

typedef struct bc_tab_opts {
	int format;		/* BC_TAB_* */
	const char *by;		/* --by MODULE.OPTION, or NULL */
	const char *metric;	/* --metric NAME[,NAME...], or NULL: each case's headline */
	const char *summary_rows;	/* --summary-rows ITEM[,ITEM...], or NULL: the first file's
					   summary_rows setting, else every item */
} bc_tab_opts;

/* t's --metric, --by and summary rows checked against the files: 0, or -1
   after a message on stderr naming what no file has (cmd: "compare"). */
int bc_tab_check(const char *cmd, const bc_tab_opts *t, const bc_results *res, int n);

/* Each prints to f and returns 0, or 2 after a message on stderr (a --by
   that names no option of the files, a --metric no case of them has).
   res[0] is the baseline. */
int bc_table(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t);
int bc_summary_table(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t);
int bc_per_ghz(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t);
int bc_index(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t);

/* The groups of module (NULL: all) in r's plan order: module entries, each
   option's values as the config lists them, threads (not the shuffled order
   the rounds ran in). New array, *n set; free() it. */
const bc_rgroup **bc_plan_groups(const bc_results *r, const char *module, size_t *n);
/* g's name within its module in r: the params that vary among the module's
   groups ("block_size=4096 oper=read threads=2"), by_opt's value first and
   bare. Escaped for display; malloc'd. */
char *bc_case_label(const bc_results *r, const bc_rgroup *g, const char *by_opt);
/* The same for many groups of r: bc_label_ctx(r) once (what varies in each
   module; a new reference, json_decref it), then bc_case_label_in per
   group, so a table of n cases costs n, not n x n. */
json_t *bc_label_ctx(const bc_results *r);
char *bc_case_label_in(json_t *ctx, const bc_rgroup *g, const char *by_opt);
/* The groups a table shows: res[0]'s in plan order, or --by's order (t->by).
   NULL after a message on stderr (--by names no option of res[0]). */
const bc_rgroup **bc_table_groups(const bc_results *res, const bc_tab_opts *t, size_t *n);

/* The index of b against a: per module and overall, the geometric mean of
   the headline ratios (each turned so that > 1 is better for b), x 100. */
typedef struct bc_index_part {
	const char *module;	/* NULL for the overall index */
	double index, low, high;	/* 100 = as good as a; 95% interval */
	size_t cases;
	size_t undecided;	/* of them, compare's verdict inconclusive or suspect */
} bc_index_part;
/* One headline row on the index's scale: its log ratio turned so that > 0
   is better for B, its variance and degrees of freedom (compare's interval
   when it drew one, else the delta method from each side's repeats). */
double bc_index_term(const bc_cmp_row *r, double *var, double *df);
/* 1 when compare could not decide the row: inconclusive or suspect. */
int bc_index_undecided(const bc_cmp_row *r);
/* Fills up to max parts (modules in a's order, then the overall one);
   returns how many. */
size_t bc_index_compute(const bc_cmp *c, bc_index_part *out, size_t max);

/* viewsel.c. t->metric split at commas into *names (NULL-terminated,
   bc_strv_free it): the count, 0 without --metric (*names NULL), or -1
   after a message naming the metric no case of the n files has and
   listing those they have. */
#define BC_TAB_MAX_METRICS 8
int bc_tab_metrics(const bc_tab_opts *t, const bc_results *res, int n, char ***names);
/* The module facts ("MODULE.KEY" from the cases' info, not per-run
   figures: bc_facts_diff's kind "module") whose value differs between
   res[0] and another file: a new object KEY -> [each file's value as
   text, or null when it has none]. --table shows each as a row. */
json_t *bc_tab_facts(const bc_results *res, int n);
#endif
