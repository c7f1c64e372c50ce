/* benchcore restore: finishes the restore of a run killed outright (SIGKILL,
 * a crash of benchcore itself) from its journal of original values
 * (docs/machine.md). Any run's start does the same; this is the way to do it
 * without a run. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli.h"
#include "flags.h"
#include "mset.h"
#include "util.h"

enum { C_HELP = 1 };
static const bc_flag restore_flags[] = {
	{ "help", 'h', NULL, C_HELP, "this text" },
	{ NULL }
};

static int on_restore_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	(void)f;
	(void)val;
	(void)e;
	*(int *)arg = 1;
	return 0;
}

int bc_cmd_restore(int argc, char **argv)
{
	int help = 0;
	char **rest;
	if (bc_flags_parse("restore", restore_flags, 1, argc - 1, argv + 1, on_restore_flag, &help, &rest))
		return 2;
	if (help) {
		printf("usage: benchcore restore\n\n"
		       "Puts back the machine settings (docs/machine.md) a benchcore run changed and could\n"
		       "not restore because it was killed outright, from its journal in %s\n"
		       "(BENCHCORE_STATE_DIR): only where a value is still the one benchcore wrote; a value\n"
		       "someone changed since is left and named; what cannot be undone stays in the\n"
		       "journal for another try. Refused while a live run holds the settings, and when\n"
		       "the journal, its directory or a record could have been written by another user.\n"
		       "Every run does the same when it starts. Needs root.\n\nOptions:\n",
		       bc_mstate_dir());
		bc_flags_help(stdout, restore_flags, 1);
		free(rest);
		return 0;
	}
	if (bc_strv_len(rest)) {
		free(rest);
		return bc_usage_error("restore takes no argument (\"%s\")", argv[1]);
	}
	free(rest);
	bc_mcounts c;
	int left = bc_mstate_recover(stderr, &c);
	if (left < 0)
		return 1;
	if (!c.restored && !c.already && !left) {
		printf("nothing to restore: no journal of a dead run in %s\n", bc_mstate_dir());
		return 0;
	}
	printf("restored %d machine setting%s", c.restored, c.restored == 1 ? "" : "s");
	if (c.already)
		printf("; %d already at %s original%s", c.already, c.already == 1 ? "its" : "their",
		       c.already == 1 ? "" : "s");
	if (c.changed)
		printf("; %d left as someone changed %s since (named above)", c.changed, c.changed == 1 ? "it" : "them");
	if (c.failed)
		printf("; %d could not be undone (named above) and stay%s in the journal %s/journal for another "
		       "benchcore restore", c.failed, c.failed == 1 ? "s" : "", bc_mstate_dir());
	printf("\n");
	return left ? 1 : 0;
}
