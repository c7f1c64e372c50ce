/* Running every case of a plan (schedule.c): the schedule (rounds of repeats,
   prepare once per data point), requirements, private servers and module
   directories, repeat = auto's stop, the ETA. A case runs isolated
   (isolate.h); what ran goes into the results document (runner.h: the
   runner's lifecycle, which makes, resumes, writes and frees a bc_runner).
   Main thread. */
#ifndef BC_SCHEDULE_H
#define BC_SCHEDULE_H
#include <signal.h>
#include "runner.h"


/* isolate = false: set while a module's code runs in this process, and the
   signal it sent this process meanwhile (suite.c's handler), which fails
   its case instead of stopping the run. */
extern volatile sig_atomic_t bc_in_module, bc_self_signal;

/* Prints the plan: cases and estimated time. */
void bc_runner_show_plan(bc_runner *r, bc_modplan *plans, size_t n);
/* Runs all cases, module after module; stops every private server and
   removes every module directory before it returns, however the run ended.
   Returns the exit code (0 all ok, 1 some failed, 3 the results could not
   be written, 130 interrupted). */
int bc_runner_run(bc_runner *r, bc_modplan *plans, size_t n);
#endif
