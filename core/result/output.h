/* Human and spreadsheet output of case results (case.h): the per-case text
   block, the summary table and CSV rows. Grouping and statistics over
   repeats are results.h's. */
#ifndef BC_OUTPUT_H
#define BC_OUTPUT_H
#include <stdio.h>
#include "case.h"
#include "results.h"

/* A sysbench-like block for one case. */
void bc_print_case(FILE *f, const bc_case_result *c, const char *label);
/* The table of the cases; groups (the same cases, grouped) names each
   case's primary metric. */
void bc_print_summary(FILE *f, const bc_case_result *cases, size_t n, const bc_results *groups);
/* One row per case x metric (a row for a case without metrics); the last
   column says which metric is the case's headline (groups: the same cases,
   grouped; bc_primary_metric() decides, as for compare and report). */
char *bc_csv(const bc_case_result *cases, size_t n, const bc_results *groups);
#endif
