/* Running one case in a forked child of its own, under a watchdog per
   phase, in a session of its own, with what it leaves reaped (isolate.c);
   the two talk through the messages of channel.h.
   Used by run.c; main thread only. */
#ifndef BC_ISOLATE_H
#define BC_ISOLATE_H
#include <signal.h>
#include <stdint.h>
#include "case.h"
#include "engine.h"

#define STOP_GRACE_S	2	/* after a stop request, before the case is killed */

extern volatile sig_atomic_t bc_signals;	/* run.c: stop requests so far; 2 = stop at once */

/* What a case's callbacks need from the runner and tell it back. */
typedef struct case_link {
	const char *module, *dir;	/* for private servers */
	int prepare_started;		/* the case began prepare: its data point may be dirty */
	int prepared;			/* the case got past prepare: its data point is ready */
	int cleaned;			/* the case ran the module's cleanup */
	int timed_out;			/* the case was killed by its watchdog */
	/* disk the case's scratch directory took by the end of its window
	   (isolated cases whose needs() declared disk there); 0: not measured */
	uint64_t disk_used;
} case_link;

/* Runs c in a child into cr; *crashed is set when it did not report normally. */
void bc_run_isolated(bc_case *c, case_link *l, int *crashed, bc_case_result *cr);
/* The first stop request gives everything still running STOP_GRACE_S in
   all: the case, and any cleanup after it. The time (CLOCK_MONOTONIC ns) it
   ends; 0 while no stop was asked for. */
uint64_t bc_stop_deadline(void);
#endif
