/* A run, from a loaded config to the results: loads the modules, plans each
 * entry, checks the plan's size and the output paths, locks the results
 * file, then hands the plan to the runner (schedule.h). The command line
 * (cli/run_cli.c) fills bc_suite_opts; nothing here parses flags. */
#ifndef BC_SUITE_H
#define BC_SUITE_H
#include "config_model.h"
#include "auto.h"
#include "loader.h"

typedef struct bc_suite_opts {
	const char *config, *out, *csv, *only, *skip, *label, *modpath, *report;
	const char *baseline;	/* --baseline: overrides the config's baseline */
	int force, force_module, quiet;
	int resume;			/* --resume: continue the run in out */
	const char *start_at;		/* --start-at as given; start_epoch is its time */
	double start_epoch;
	bc_runset *rs;			/* where run-setting flags land */
	/* Set by bc_run_suite when a report is wanted and the results were
	   written: the results file and the (unused) path for the report, both
	   malloc'd, the caller frees them. The command line writes the report
	   (pages/ sits above the run). */
	char *done_json, *done_report;
	int gate;			/* fail_on: the command line judges the results at the end:
					   keep done_json whenever the results were written */
	int store;			/* the run goes into the archive at the end: keep done_json
					   whenever the results were written (the command line stores) */
	const bc_module *module;	/* check-module: every entry names this module, loaded
					   already (no search path is read) */
} bc_suite_opts;

/* Runs cfg's modules (only/skip filtered); returns the exit code. */
int bc_run_suite(bc_config *cfg, bc_suite_opts *c);
#endif
