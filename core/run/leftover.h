/* Leftovers of dead runs. Every directory a run makes in $TMPDIR (module
   directories with their private servers' data, case scratch directories,
   check-module's) carries an owner record, OWNER_FILE: the pid, its start
   time (field 22 of /proc/PID/stat, so a reused pid is not taken for the
   owner), the boot id and the pid namespace. A run SIGKILLed (the OOM
   killer) cannot remove its directories; the next run's start, or
   `benchcore clean`, finds them and removes those whose owner is gone,
   never crossing a mount point (a bind mount inside is left as it is). A
   directory whose owner lives, or without a record that reads as
   benchcore's, is never touched; one whose record cannot be judged (no pid
   namespace, another namespace's pid) is kept and said so. Main thread. */
#ifndef BC_LEFTOVER_H
#define BC_LEFTOVER_H
#include <stdint.h>
#include "util.h"

#define BC_OWNER_FILE ".benchcore-owner"

/* Writes dir's owner record naming this process. 0, or -1 (errno). */
int bc_owner_mark(const char *dir);

typedef struct bc_clean_stats {
	unsigned removed;		/* directories of dead runs removed (or, dry run, to remove) */
	unsigned alive;			/* kept: their run is alive */
	unsigned unmarked;		/* kept: no owner record (another version's, or not benchcore's) */
	unsigned unknown;		/* kept: a record without the facts to judge it, another pid
					   namespace's, or a mount point */
	unsigned failed;		/* could not be removed entirely */
	uint64_t bytes;			/* the space the removed ones held */
} bc_clean_stats;

/* The directory benchcore makes its directories in: $TMPDIR, else /tmp. */
const char *bc_leftover_parent(void);
/* Whether that directory may hold a run's private directories: ours or
   root's all the way up, and nobody else may write in it unless it is
   sticky (like /tmp: then nobody can rename or replace what is ours).
   0, or -1 with e set (bc_trust_walk). */
int bc_tmpdir_check(bc_err *e);
/* Looks at parent's benchcore*.XXXXXX directories of this user and removes
   those of dead runs, saying each (path, size, owner) on stderr; with
   dry_run only says what it would remove. verbose also says what it kept
   and why (what it cannot judge is said always). Returns the counts. */
bc_clean_stats bc_clean_leftovers(const char *parent, int dry_run, int verbose);

/* Removes the temporaries of path (PATH.tmp.PID.XXXXXX, bc_write_atomic's)
   that a writer killed outright left: regular files of this user whose PID
   no longer runs, and only when no live run holds PATH.lock (locked: this
   process holds it). Each is said on stderr; returns how many went. */
unsigned bc_sweep_temps(const char *path, int locked);
#endif
