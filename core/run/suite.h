/* A run, from a loaded config to the results: loads the modules, plans each
 * entry, checks the plan's size and the output paths, locks the results
 * file, then hands the plan to the runner (run.h). The command line
 * (cli/run_cli.c) fills bc_suite_opts; nothing here parses flags. */
#ifndef BC_SUITE_H
#define BC_SUITE_H
#include "config.h"

typedef struct bc_suite_opts {
	const char *config, *out, *csv, *only, *skip, *label, *modpath;
	int force, force_module, quiet;
	const char *start_at;		/* --start-at as given; start_epoch is its time */
	double start_epoch;
	bc_runset *rs;			/* where run-setting flags land */
} bc_suite_opts;

/* Runs cfg's modules (only/skip filtered); returns the exit code. */
int bc_run_suite(bc_config *cfg, bc_suite_opts *c);
#endif
