/* compare --index REFSET RUN.json ...: an index against a reference set
   shipped with a module (refset.c), e.g. UnixBench's. */
#ifndef BC_REFSET_H
#define BC_REFSET_H
#include <stdio.h>
#include <jansson.h>
#include "compare.h"
#include "results.h"

/* 1 when name names a reference set rather than a results file: a word
   without '/' and without ".json" that no file of that name answers. */
int bc_refset_named(const char *name);
/* The index of each file against set name (dirs: the module search path,
   NAME.refset.json is looked for there) as one JSON document: per file its
   tables (one copy, and N copies at its largest thread count: each test's
   result, index and 95% interval, the score, the tests missing), and with
   two files or more "comparisons": each file's score against res[0]'s,
   the ratio, its interval at o->level and compare's verdict (refset.c says
   how). NULL with e set when the set cannot be read. json_decref it. */
json_t *bc_refset_model(const char *name, char *const *dirs, const bc_results *res, int n,
			const bc_cmp_opts *o, bc_err *e);
/* 1 when some file of the model has a test of the set. */
int bc_refset_has_tests(json_t *doc);
/* compare --index SET: the model as text (UnixBench's table) or, json set,
   the document itself, on f. 0, or 2 (the set cannot be read, or no file
   has any of its tests), having said why. */
int bc_refset_index(FILE *f, const char *name, char *const *dirs, const bc_results *res, int n,
		    const bc_cmp_opts *o, int json);
/* report --index SET: which set, and where to look for it. */
typedef struct bc_refset_ask {
	const char *name;
	char *const *dirs;	/* the module search path */
} bc_refset_ask;
#endif
