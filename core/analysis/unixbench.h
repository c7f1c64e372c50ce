/* UnixBench's System Benchmarks Index from results files (unixbench.c). */
#ifndef BC_UNIXBENCH_H
#define BC_UNIXBENCH_H
#include <stdio.h>
#include "results.h"

/* compare --index unixbench: per file its index table for one copy and for
   N copies (its largest thread count), tests missing named. 0, or 2 when no
   file has any of UnixBench's index tests. */
int bc_unixbench_index(FILE *f, const bc_results *res, int n);
#endif
