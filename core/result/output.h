/* Human and spreadsheet output of results: the per-case text block, the
   summary table and CSV rows. Grouping and statistics over repeats are
   results.h's (bc_groups_json). */
#ifndef BC_OUTPUT_H
#define BC_OUTPUT_H
#include <jansson.h>
#include <stdio.h>

/* A sysbench-like block for one case object. */
void bc_print_case(FILE *f, json_t *cj, const char *label);
/* The table of all cases of a document. */
void bc_print_summary(FILE *f, json_t *doc);
/* One row per case x metric. */
char *bc_csv(json_t *doc);
#endif
