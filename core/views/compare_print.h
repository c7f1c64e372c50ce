/* compare's output (views/compare_print.c): the judge's rows (compare.h)
   as text, JSON or CSV, and the thread scaling view. It prints what
   bc_compare_pair() decided and decides nothing. Main thread only. */
#ifndef BC_COMPARE_PRINT_H
#define BC_COMPARE_PRINT_H
#include <stdio.h>
#include <jansson.h>
#include "compare.h"

/* "headline 0 wins, 0 losses, 6 ties (equivalent), ...; secondary ..."
   without a newline. */
void bc_cmp_summary_text(FILE *f, const bc_cmp *c);
/* Output forms, also driven by the fuzz target (tests/fuzz). */
void bc_compare_print_text(FILE *f, const bc_cmp *c);
void bc_compare_print_csv(FILE *f, const bc_cmp *c);
json_t *bc_compare_json(const bc_cmp *c);
/* compare's whole output for res[1..n) against res[0] (text, CSV with its
   header line, or one JSON document), and the scaling view of every file. */
enum { BC_FMT_TEXT, BC_FMT_JSON, BC_FMT_CSV };
void bc_compare_print(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, int fmt);
void bc_scaling_print(FILE *f, const bc_results *res, int n, int fmt);
#endif
