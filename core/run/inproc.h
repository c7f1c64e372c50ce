/* A case in benchcore's own process (isolate = false): inproc.c. */
#ifndef BC_INPROC_H
#define BC_INPROC_H
#include "schedule.h"
#include "engine.h"

/* What an exit() of the module would leave, for the case about to run (label
   NULL: a cleanup, no case of its own); moddir points at the module's
   directory, which may be made later. */
void bc_here_set(bc_runner *r, char *const *moddir, const char *label, const char *point, unsigned round);
/* Runs c here: the module opened (once), the same callbacks as a child's
   without a channel; a signal the module sent this process fails the case. */
void bc_run_here(bc_case *c, bc_case_result *cr);
/* isolate = false with -o -: fd 1 becomes stderr, the JSON a copy of it. */
void bc_keep_stdout(bc_runner *r);
#endif
