/* Running every case of a plan (run.c): the schedule (rounds of repeats,
   prepare once per data point), requirements, private servers and module
   directories, repeat = auto's stop, the ETA. A case runs isolated
   (isolate.h); what ran goes into the results document (runner.h: the
   runner's lifecycle, which makes, resumes, writes and frees a bc_runner).
   Main thread. */
#ifndef BC_RUN_H
#define BC_RUN_H
#include "case.h"
#include "results.h"
#include "auto.h"
#include <jansson.h>
#include <signal.h>
#include "runset.h"
#include "plan.h"

typedef struct bc_runner {
	const bc_config *cfg;
	const char *out_json, *out_csv;	/* final paths (already made unique), or NULL */
	int force_module;		/* run even when requirements are not met */
	int progress;			/* 0 quiet, 1 lines, 2 terminal */
	json_t *doc;			/* the results document being built */
	uint64_t next_id;		/* ids are 64-bit: a resumed file may hold large ones */
	uint32_t seed;			/* of the rounds' order: cfg's, or drawn (recorded) */
	int failed, interrupted;
	int stopped;			/* the run ended early (a module's exit() with isolate = false) */
	FILE *text;			/* where the human text goes: stdout, or stderr with -o - */
	int write_failed;		/* the last write of the results failed */
	int spilled;			/* OUT.intervals.jsonl started by this run */
	int lock_fd;			/* OUT.lock (bc_lock_output), or -1 */
	FILE *json_out;			/* -o - with isolate = false: the real stdout (fd 1 is stderr) */
	bc_case_result *cases;		/* every case so far (the summary, CSV) */
	size_t ncases, ccases;
	bc_results groups;		/* the cases grouped as compare groups them */
	struct bc_resume *resume;	/* --resume: the kept cases of the interrupted run */
	bc_results *baseline;		/* baseline = "A.json": repeat = auto decides against it */
	bc_decide_fn decide;		/* compare's verdict on a case (auto.h), from the command line */
	uint64_t t0;			/* the run's start (repeat = auto's time_budget, the ETA) */
	size_t done;			/* cases run by this process (the ETA's pace) */
	size_t eta_seen;		/* ncases when the ETA was last shown */
	struct bc_mrun *mrun;		/* machine settings (mrun.h), or NULL */
} bc_runner;

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
