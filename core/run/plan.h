/* A module's configured options resolved against its options table: the
   list of values of each option (a sweep when more than one) and the
   cartesian product of them, the parameter matrix. Main thread only. */
#ifndef BC_PLAN_H
#define BC_PLAN_H
#include "runset.h"
#include "loader.h"
#include "options.h"

typedef struct bc_modplan {
	const bc_module *mod;
	const bc_modconf *mc;
	bc_runset run;
	size_t nopts;
	bc_val **vals;			/* vals[i]: the values of option i */
	size_t *nvals;
	size_t npoints;			/* product of nvals */
	/* needs() against this machine (run/fit.c): per point x thread count,
	   why the case cannot run here (NULL: it can), or NULL for none */
	char **need_skip;
	size_t need_skipped;
	/* ... and what needs() declared, per point x thread count (NULL: no
	   needs()): checked against what the case used after it ran */
	uint64_t *need_mem, *need_disk;
	char **need_path;		/* "" for the scratch directory */
	/* why every case of the module is skipped before anything runs (a heavy
	   module under profile = "small" or skip_heavy), or NULL */
	char *skip_all;
} bc_modplan;

/* Checks every given key and value; errors name file:line and valid keys/choices. */
int bc_plan_module(const bc_modconf *mc, const bc_module *m, bc_modplan *p, bc_err *e);
/* The option values of point idx (0 .. npoints-1); out has nopts entries,
   pointing into the plan (do not free). */
void bc_plan_point(const bc_modplan *p, size_t idx, bc_val *out);
/* "block_size=4K oper=read" for the swept options of a point (malloc'd). */
char *bc_plan_point_label(const bc_modplan *p, const bc_val *point);
/* Multiplies every value of p's BENCH_OPT_SCALES options by f (0 < f < 1;
   whole MiB for sizes, never below the option's minimum, 0 left alone),
   appending " name OLD -> NEW," to said (len bytes). 1 when any changed. */
int bc_plan_shrink(bc_modplan *p, double f, char *said, size_t len);
void bc_plan_free(bc_modplan *p);
#endif
