/* The cases of n result files as the judge matches them (judge/casesets.c):
   what the report draws one section for. A case here is a module and its
   params across thread counts; two files' cases are one when compare
   matches a group of one to a group of the other (bc_results_match with
   compare's --match-ignore and placement rule, the match bc_compare_pair
   uses), and never otherwise: a case compare cannot match (other thread
   counts only, other params) is a section of its own. Main thread only. */
#ifndef BC_CASESETS_H
#define BC_CASESETS_H
#include <stddef.h>
#include "results.h"
#include "verdict.h"

#define BC_CASES_MAX_FILES	16

/* One case: pk[i] is file i's params_key (NULL: file i has no match of
   it), pt[i] its params_text; both borrowed from res[i]. */
typedef struct bc_case_set {
	const char *module;
	const char *pk[BC_CASES_MAX_FILES], *pt[BC_CASES_MAX_FILES];
} bc_case_set;

/* res[0]'s cases in file order, each with every later file's match, then
   the cases of res[1], res[2], ... that no earlier file's case matched
   (again with the later files' matches), at most max of them into out; n
   at most BC_CASES_MAX_FILES. Returns how many. */
size_t bc_case_sets(const bc_results *res, int n, const bc_cmp_opts *o, bc_case_set *out, size_t max);
#endif
