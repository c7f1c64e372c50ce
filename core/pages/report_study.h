/* The report's section that reads like the studies (report_study.c): the
   index, bars across cases, charts against a swept option and against the
   measured clock. Main thread only; every string from a file escaped. */
#ifndef BC_REPORT_STUDY_H
#define BC_REPORT_STUDY_H
#include <stdio.h>
#include "compare.h"

void bc_report_study(FILE *f, bc_results *res, int n, const bc_cmp_opts *o);
#endif
