/* A run, from a loaded config to the results: loads the modules, plans each
 * entry, checks the plan's size and the output paths, locks the results
 * file, then hands the plan to the runner (run.h). The command line
 * (cli/run_cli.c) fills bc_suite_opts; nothing here parses flags. */
#ifndef BC_SUITE_H
#define BC_SUITE_H
#include "config.h"
#include "loader.h"

typedef struct bc_suite_opts {
	const char *config, *out, *csv, *only, *skip, *label, *modpath;
	int force, force_module, quiet;
	bc_runset *rs;			/* where run-setting flags land */
	const bc_module *module;	/* check-module: every entry names this module, loaded
					   already (no search path is read) */
} bc_suite_opts;

/* Runs cfg's modules (only/skip filtered); returns the exit code. */
int bc_run_suite(bc_config *cfg, bc_suite_opts *c);
#endif
