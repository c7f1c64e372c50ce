/* benchcore clean: removes the directories that runs killed outright (the
 * OOM killer's SIGKILL) could not remove themselves. A run's start does the
 * same; this is the way to do it without a run (leftover.h has the rule). */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "flags.h"
#include "leftover.h"
#include "util.h"

enum { C_DRY = 1, C_DIR, C_VERBOSE, C_HELP };
static const bc_flag clean_flags[] = {
	{ "dry-run", 'n', NULL, C_DRY, "say what would be removed, remove nothing" },
	{ "dir", 0, "DIR", C_DIR, "look in DIR instead of $TMPDIR (or /tmp), where runs make their directories" },
	{ "verbose", 'v', NULL, C_VERBOSE, "also say which directories are kept, and why" },
	{ "help", 'h', NULL, C_HELP, "this text" },
	{ NULL }
};

typedef struct clean_args {
	const char *dir;
	int dry, verbose, help;
} clean_args;

static int on_clean_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	clean_args *a = arg;
	(void)e;
	if (f->code == C_DRY)
		a->dry = 1;
	else if (f->code == C_DIR)
		a->dir = val;
	else if (f->code == C_VERBOSE)
		a->verbose = 1;
	else
		a->help = 1;
	return 0;
}

int bc_cmd_clean(int argc, char **argv)
{
	clean_args a = { 0 };
	char **rest;
	if (bc_flags_parse("clean", clean_flags, 1, argc - 1, argv + 1, on_clean_flag, &a, &rest))
		return 2;
	if (a.help) {
		printf("usage: benchcore clean [--dry-run] [--dir DIR] [--verbose]\n\n"
		       "Removes the directories of runs that died without cleaning up (killed with SIGKILL,\n"
		       "e.g. by the OOM killer): private servers' data, module and scratch directories,\n"
		       "named benchcore*.XXXXXX in $TMPDIR (or /tmp). Only a directory of this user whose\n"
		       "owner record (" BC_OWNER_FILE ": pid and start time) names a process that no\n"
		       "longer runs is removed; one whose run lives, or without a record, is kept, and\n"
		       "one whose record cannot be judged (no pid namespace, another namespace's pid)\n"
		       "is kept and said so. A mount point inside one is never crossed.\n"
		       "Every run does the same when it starts.\n\nOptions:\n");
		bc_flags_help(stdout, clean_flags, 1);
		free(rest);
		return 0;
	}
	if (bc_strv_len(rest)) {
		fprintf(stderr, "benchcore clean: unexpected argument \"%s\"\nTry 'benchcore clean --help'.\n",
			rest[0]);
		free(rest);
		return 2;
	}
	free(rest);
	const char *dir = a.dir ? a.dir : bc_leftover_parent();
	bc_clean_stats s = bc_clean_leftovers(dir, a.dry, a.verbose);
	printf("%s %u director%s of dead runs (%.1f MiB) in %s; kept %u of running runs, %u without an "
	       "owner record, %u that cannot be judged%s\n", a.dry ? "would remove" : "removed", s.removed,
	       s.removed == 1 ? "y" : "ies", (double)s.bytes / 1048576.0, dir, s.alive, s.unmarked, s.unknown,
	       s.failed ? "; some could not be removed (see above)" : "");
	return s.failed ? 1 : 0;
}
