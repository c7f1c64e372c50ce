/* A module's configured options resolved against its options table: the
   list of values of each option (a sweep when more than one) and the
   cartesian product of them, the parameter matrix. Main thread only. */
#ifndef BC_PLAN_H
#define BC_PLAN_H
#include "config_model.h"
#include "loader.h"
#include "options.h"
#include <jansson.h>

/* A machine setting of the module's plan (mplan.c): one sweep dimension. */
typedef struct bc_mdim {
	char *key;			/* "thp", "sysctl.vm.swappiness", "custom.NAME" */
	const struct bc_mkind *kind;
	char **vals, **texts;		/* canonical (written) and as given; nvals each */
	size_t nvals;
	char *set, *read;		/* custom's commands */
	double timeout;			/* their time limit (0: BC_MCOMMAND_TIMEOUT) */
} bc_mdim;

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
	uint64_t disk_need;		/* the most disk any of its cases needs (0: none said) */
	/* ... and what needs() declared, per point x thread count (NULL: no
	   needs()): checked against what the case used after it ran */
	uint64_t *need_mem, *need_disk;
	char **need_path;		/* "" for the scratch directory */
	/* why every case of the module is skipped before anything runs (a heavy
	   module under profile = "small" or skip_heavy), or NULL */
	char *skip_all;
	/* machine settings (mplan.c): the outer dimensions of the points, the
	   options' matrix varying fastest: point pt runs option point
	   pt % optpoints under machine combination pt / optpoints */
	bc_mdim *mdims;
	size_t nmdims, mpoints, optpoints;
	char *mdevice;			/* the device kinds' sysfs dir, or NULL */
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
   appending " name OLD -> NEW," to said (len bytes). 1 when any changed.
   keep_flags (--scale): an option given on the command line stays as given
   (said " name VALUE kept (given on the command line),"). */
int bc_plan_shrink(bc_modplan *p, double f, int keep_flags, char *said, size_t len);
void bc_plan_free(bc_modplan *p);

struct bc_mconf;
struct bc_mwrites;
/* The machine settings of p's module (its entry's group, else top's): each
   value checked against this machine (exit 2 before anything changes), the
   points multiplied by their combinations. 0, or -1 with e. */
int bc_plan_machine(bc_modplan *p, const struct bc_mconf *top, bc_err *e);
/* The writes that set point pt's machine combination, in the kernel's order. */
int bc_plan_mwrites(const bc_modplan *p, size_t pt, struct bc_mwrites *ws, bc_err *e);
/* Point pt's combination as given: {"thp": "never", ...}, or NULL (none). */
json_t *bc_plan_mjson(const bc_modplan *p, size_t pt);
/* The value point pt gives key (canonical), or NULL. */
const char *bc_plan_mvalue(const bc_modplan *p, size_t pt, const char *key);
struct bc_fs_spec;
/* Point pt's file system (machine.fs and its companions, the image's
   default directory and size filled in): 1 and s, or 0 when it has none. */
int bc_plan_fsspec(const bc_modplan *p, size_t pt, struct bc_fs_spec *s);
/* The directory point pt's file system is mounted on (known before it is
   made: one at a time per run), malloc'd; NULL without one. */
char *bc_plan_fsdir(const bc_modplan *p, size_t pt);
/* Frees the machine dimensions (bc_plan_free calls it). */
void bc_plan_mfree(bc_modplan *p);
/* " machine.thp=never" for point pt's swept machine settings (malloc'd). */
char *bc_plan_mlabel(const bc_modplan *p, size_t pt);
#endif
