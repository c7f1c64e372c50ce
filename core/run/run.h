/* Running every case of a plan: the schedule (rounds of repeats, prepare
   once per data point), fork-per-case isolation with a watchdog, private
   servers and module directories, requirements, results written after
   every case. Main thread. */
#ifndef BC_RUN_H
#define BC_RUN_H
#include "case.h"
#include "results.h"
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
	unsigned next_id;
	uint32_t seed;			/* of the rounds' order: cfg's, or drawn (recorded) */
	int failed, interrupted;
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
	uint64_t t0;			/* the run's start (repeat = auto's time_budget, the ETA) */
	size_t done;			/* cases run by this process (the ETA's pace) */
	size_t eta_seen;		/* ncases when the ETA was last shown */
} bc_runner;

/* isolate = false: set while a module's code runs in this process, and the
   signal it sent this process meanwhile (suite.c's handler), which fails
   its case instead of stopping the run. */
extern volatile sig_atomic_t bc_in_module, bc_self_signal;

/* Creates r->doc (schema, version, host, config, schedule) and draws the
   seed when the config gives none. */
void bc_runner_init(bc_runner *r, const bc_config *cfg, json_t *config_json, const char *io_path);
/* --resume: takes over the cases of the interrupted run in path that ended
   (resume.h checks config, version, modules and machine first); they are
   kept in the document and not run again. 0, or -1 with e set. */
int bc_runner_resume(bc_runner *r, const char *path, const bc_modplan *plans, size_t n, bc_err *e);
/* Prints the plan: cases and estimated time. */
void bc_runner_show_plan(bc_runner *r, bc_modplan *plans, size_t n);
/* Runs all cases, module after module; stops every private server and
   removes every module directory before it returns, however the run ended.
   Returns the exit code (0 all ok, 1 some failed, 3 the results could not
   be written, 130 interrupted). */
int bc_runner_run(bc_runner *r, bc_modplan *plans, size_t n);
void bc_runner_free(bc_runner *r);
/* Writes JSON (atomically; "-" = stdout, at the end only) and CSV of the
   document so far. final: the last write of the run. */
int bc_runner_write(bc_runner *r, int final);
#endif
