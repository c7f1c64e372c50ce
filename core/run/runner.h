/* The runner (struct bc_runner) and its lifecycle (runner.c): made,
   resumed, a case recorded, written, freed. What it keeps is the run's
   results document: made once with the run's identity, host and config, a
   case appended as each one ends, rewritten (atomically) after every case,
   so a crash of benchcore or a second Ctrl-C loses at most one; a long
   interval series is spilled beside it.
   The schedule (schedule.c) decides what runs; this file only keeps what ran.
   Main thread only. */
#ifndef BC_RUNNER_H
#define BC_RUNNER_H
#include <stdio.h>
#include <jansson.h>
#include "auto.h"
#include "case.h"
#include "config_model.h"
#include "plan.h"
#include "results.h"
#include "rundoc.h"

typedef struct bc_runner {
	const bc_config *cfg;
	const char *out_json, *out_csv;	/* final paths (already made unique), or NULL */
	int force_module;		/* run even when requirements are not met */
	int progress;			/* 0 quiet, 1 lines, 2 terminal */
	bc_rundoc doc;			/* the results document being built, but for its cases:
					   "cases" stays [] here (case_text has them) */
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
	char **case_text;		/* case i as the document holds it: its JSON text, made
					   once as it ends (indented for its place), not a tree of
					   ten times its size */
	size_t ncases, ccases;
	bc_results groups;		/* the cases grouped as compare groups them */
	struct bc_resume *resume;	/* --resume: the kept cases of the interrupted run */
	bc_results *baseline;		/* baseline = "A.json": repeat = auto decides against it */
	uint64_t t0;			/* the run's start (repeat = auto's time_budget, the ETA) */
	size_t done;			/* cases run by this process (the ETA's pace) */
	size_t eta_seen;		/* ncases when the ETA was last shown */
	struct bc_mrun *mrun;		/* machine settings (mrun.h), or NULL */
} bc_runner;

/* Creates r->doc (bc_rundoc_new: schema, version, host, config, schedule) and draws the
   seed when the config gives none. */
void bc_runner_init(bc_runner *r, const bc_config *cfg, json_t *config_json, const char *io_path);
/* --resume: takes over the cases of the interrupted run in path that ended
   (resume.h checks config, version, modules and machine first); they are
   kept in the document and not run again. 0, or -1 with e set. */
int bc_runner_resume(bc_runner *r, const char *path, const bc_modplan *plans, size_t n, bc_err *e);
void bc_runner_free(bc_runner *r);
/* Writes JSON (atomically; "-" = stdout, at the end only) and CSV of the
   document so far. final: the last write of the run. 0, or -1 (said). */
int bc_runner_write(bc_runner *r, int final);
/* A case is done: printed under label, kept (the struct moves into
   r->cases; *cr is zeroed), grouped, written with every earlier one.
   point: its swept options; round: its repeat. */
void bc_runner_record(bc_runner *r, bc_case_result *cr, const char *label, const char *point, unsigned round);
/* repeat = auto: case i of r->cases is the last one of its repeats, which
   stopped for why (a static string), in the struct and in the document. */
void bc_runner_repeat_stop(bc_runner *r, size_t i, const char *why);
#endif
