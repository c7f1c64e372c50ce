/* repeat = "auto" (steady.h has the rules): what a run knows of one case
   (a module's point x thread count) from its repeats so far and the
   baseline's, why it need not run again, and how many repeats it will
   likely run in all (the ETA). */
#ifndef BC_AUTO_H
#define BC_AUTO_H
#include <stddef.h>
#include "plan.h"
#include "results.h"

typedef struct bc_auto_case {
	const bc_rmetric *hm;	/* its headline so far */
	const bc_rmetric *bm;	/* the baseline's case of it, or NULL */
	double threshold;	/* compare's practical threshold for it (a fraction) */
	const bc_rgroup *g;	/* its group in the run so far */
	const bc_results *run, *baseline;
} bc_auto_case;

/* The case of p at point values vals, under machine settings machine (its
   bc_plan_mjson(); NULL: none), with threads threads, in groups (the run so
   far) and baseline (NULL: none). 0 before its first ok repeat. */
int bc_auto_look(const bc_results *groups, const bc_results *baseline, const bc_modplan *p, const bc_val *vals,
		 json_t *machine, unsigned threads, bc_auto_case *out);
/* "decided" (the judge, bc_compare_decided, says compare's verdict is known) or "futile"
   against the baseline, else "precise" or "futile"; NULL: it needs another
   repeat. Past min_repeat only (the caller's). */
const char *bc_auto_stop(const bc_auto_case *a, const bc_runset *run);
/* The repeats it will likely run in all, at its spread (and estimate,
   against a baseline) so far: min_repeat .. max_repeat, max_repeat while
   fewer than 2 are known. */
size_t bc_auto_expected(const bc_auto_case *a, const bc_runset *run);
#endif
