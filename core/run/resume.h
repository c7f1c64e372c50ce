/* --resume: an interrupted run's results file (Ctrl-C, SIGKILL, a reboot,
   a crash) continued in place. The cases it holds that ended (ok, failed,
   skipped) are kept; those interrupted, and the ones never started, run.
   Refused, with the reason, when what would be measured is no longer the
   same: the config (as resolved: a flag given this time and not last time
   counts), benchcore's version, a module file's sha256, or the machine's
   identity (host name, kernel, CPU, microcode, memory, OS); and when the
   file holds what this run never wrote: a case twice, two cases of one id,
   a case of a module, params, thread count or repeat the plan does not
   have. Case ids are 64-bit. Main thread. */
#ifndef BC_RESUME_H
#define BC_RESUME_H
#include <jansson.h>
#include "plan.h"
#include "rundoc.h"
#include "util.h"

typedef struct bc_resume {
	bc_rundoc doc;		/* the file as it was, read by the run document's reader */
	json_t *kept;		/* its cases that ended: array, in file order */
	json_t *keys;		/* bc_resume_key() of each kept case -> true */
	uint64_t max_id;	/* the largest case id in the file */
	uint32_t seed;		/* the rounds' seed it ran with */
	size_t interrupted;	/* cases dropped to run again */
} bc_resume;

/* Reads path and checks it against this run's config and host objects
   (both as the runner writes them) and plans[0..n) (module files). 0, or
   -1 with e set (nothing changed on disk). */
int bc_resume_open(const char *path, json_t *config_now, json_t *host_now, const bc_modplan *plans,
		   size_t n, bc_resume *out, bc_err *e);
/* "module\nthreads\nrepeat\nparams\nmachine" (both compact, sorted; machine "" when
   none): a case's identity; malloc'd. */
char *bc_resume_key(const char *module, json_t *params, json_t *machine, long threads, long repeat);
/* 1 when that case was kept. */
int bc_resume_has(const bc_resume *r, const char *module, json_t *params, json_t *machine, long threads,
		  long repeat);
/* The document's resumed[] after this resume: the old one plus
   {at, kept, rerun}. New reference. */
json_t *bc_resume_record(const bc_resume *r, const char *at);
void bc_resume_free(bc_resume *r);
#endif
