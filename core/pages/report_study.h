/* The report's section that reads like the studies (report_study.c): the
   index, bars across cases, charts against a swept option and against the
   measured clock. Main thread only; every string from a file escaped. */
#ifndef BC_REPORT_STUDY_H
#define BC_REPORT_STUDY_H
#include <stdio.h>
#include "compare.h"
#include "tables.h"

/* t: the views' --metric and --by (compare's --table), NULL members for
   each case's headline and its own labels. */
void bc_report_study(FILE *f, bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t);
#endif
