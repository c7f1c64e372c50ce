/* compare --index REFSET RUN.json ...: an index against a reference set
   shipped with a module (refset.c), e.g. UnixBench's. */
#ifndef BC_REFSET_H
#define BC_REFSET_H
#include <stdio.h>
#include "results.h"

/* 1 when name names a reference set rather than a results file: a word
   without '/' and without ".json" that no file of that name answers. */
int bc_refset_named(const char *name);
/* The index tables of each file (one copy, and N copies at its largest
   thread count), the tests missing named. dirs: the module search path
   (NAME.refset.json is looked for there). 0, or 2 (the set cannot be
   read, or no file has any of its tests), having said why. */
int bc_refset_index(FILE *f, const char *name, char *const *dirs, const bc_results *res, int n);
#endif
