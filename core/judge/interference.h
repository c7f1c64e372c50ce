/* Interference in a verdict (judge/interference.c): how much the other
   processes and steal on a case's CPUs could slow it, and whether that
   explains a would-be win or loss. compare.c calls it; it calls nothing of
   compare.c. Pure functions. */
#ifndef BC_INTERFERENCE_H
#define BC_INTERFERENCE_H
#include <stddef.h>
#include "verdict.h"

/* The slowdown interference can cause a case, as a fraction of its time per
   unit of work: for each repeat with share s (steal and other processes'
   fraction of its CPUs' time) >= busy (a fraction), a CPU-bound case using
   all its CPUs got 1 - s of them and ran 1 / (1 - s) times as long:
   s / (1 - s) more; one that used a fraction c of the time left to it
   (use / (1 - s), at most 1) loses at most c x s / (1 - s). Over n repeats
   the geometric mean (compare's interval is on the logs):
   exp(mean log(1 + f_i)) - 1. 0 when no repeat reached busy; NAN when n is 0. */
double bc_interference_bound(const double *share, const double *use, size_t n, double busy);
/* For compare.c: a row's share_a/b, bound_a/b, busy_pct and
   busy from its groups; and, for a would-be win or loss (direction set),
   1 when the hit side's interference explains it (suspect), its reason
   written either way. */
void bc_row_interference(const bc_cmp_opts *o, bc_cmp_row *r);
int bc_interference_explains(const bc_cmp_opts *o, bc_cmp_row *r);
#endif
