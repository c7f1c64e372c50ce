/* Whether each case fits this machine: its requirements (ABI 1.3 needs())
   against free disk at the case's path, available memory, usable CPUs. The
   module computes each case's needs from its options in a short-lived
   child that opens it (engine/needs.c; benchcore's process never runs
   module code); the runner checks them
   before the plan is shown, so the plan line counts the cases that cannot
   run, and skips those with the figures. profile = "small" shrinks what a
   module marks as scalable until its cases fit. Main thread. */
#ifndef BC_FIT_H
#define BC_FIT_H
#include <stdint.h>
#include "engine.h"
#include "plan.h"
#include "sysinfo.h"

typedef struct bc_need {
	uint64_t disk, memory;
	uint32_t cpus;
	char path[1024];		/* where the disk is needed ("" = nowhere) */
	char why[256];			/* the module's account of the figures */
	char err[512];			/* needs() refused the options: the reason */
	char err_detail[512], err_hint[512];	/* ... and errorf()'s detail and hint */
	int scratch;			/* disk declared without a path: in the scratch directory (1.4) */
} bc_need;

/* Free bytes at path or its nearest existing parent (*at, static). 0, or
   -1 when nothing on the way exists. */
int bc_disk_avail(const char *path, double *avail, const char **at);
/* Memory a case may use: MemAvailable, lowered to what each cgroup level
   above this process leaves (its limit less its usage, less the page cache
   it can reclaim: bc_sysinfo_mem_room). $BENCHCORE_MEMAVAIL (a test hook:
   bytes, or 200M) stands for all of it; one that is not a size is an
   error, never a check quietly off. 0, or -1 with e set. */
int bc_mem_avail(bc_mem_room *r, bc_err *e);

/* needs() of every case (point x thread count) of p, into out[point *
   nthreads + ti] (nthreads of p->run). 0; -1 with e set when the child
   failed or timed out. A module without needs() gets zeros, no child. */
int bc_needs_eval(const bc_modplan *p, bc_need *out, bc_err *e);
/* Why this machine cannot give nd (threads of the case), or NULL; mem:
   bc_mem_avail's figures; share: the part of the free disk and memory a
   case may take (1, or 0.5 when shrinking for profile = "small"). malloc'd. */
char *bc_needs_unmet(const bc_modplan *p, const bc_need *nd, const bc_mem_room *mem, double share);

/* Fills p->need_skip with the reasons of every case of p that cannot run
   here, [point * nthreads + ti] (NULL: it fits; the array NULL for a module
   without needs()), and p->need_skipped with how many, against mem (what
   this machine and its cgroups leave). profile_small: first
   halve p's scalable options (not below their minimum) until its cases fit
   in half of what is free, saying each change. On a failed evaluation: a
   warning, nothing skipped. -1 with e set (the module's message, detail
   and hint) when needs() refused a case's options: a configuration error,
   not a machine too small. */
int bc_needs_plan(bc_modplan *p, const bc_mem_room *mem, int profile_small, bc_err *e);
void bc_needs_free(char **why, size_t n);
/* After case c ran into cr: a peak RSS more than twice the memory its
   needs() declared (c->need_memory, beyond the host's own), or disk_used
   (its scratch directory at the end of the window; 0: not measured) more
   than twice c->need_disk, is a warning in the case, said on stderr;
   check-module fails such a case. */
void bc_needs_used(const bc_case *c, bc_case_result *cr, uint64_t disk_used);
#endif
