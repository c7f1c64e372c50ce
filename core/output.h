/* Human and spreadsheet output of results: the per-case text block, the
   summary table, CSV rows, and the repeat statistics (groups). */
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
/* groups[]: statistics over repeats (docs/results.md). */
json_t *bc_groups(json_t *cases);
/* "k=v k=v" of a params object, only keys in `only` (an object) if non-NULL. */
char *bc_params_text(json_t *params, json_t *only);
#endif
