/* The runner's lifecycle (runner.c; the struct is run.h's bc_runner): made,
   resumed, a case recorded, written, freed. What it keeps is the run's
   results document: made once with the run's identity, host and config, a
   case appended as each one ends, rewritten (atomically) after every case,
   so a crash of benchcore or a second Ctrl-C loses at most one; a long
   interval series is spilled beside it.
   The schedule (run.c) decides what runs; this file only keeps what ran.
   Main thread only. */
#ifndef BC_RUNNER_H
#define BC_RUNNER_H
#include "run.h"

/* Creates r->doc (schema, version, host, config, schedule) and draws the
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
