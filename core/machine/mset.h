/* Machine settings as sweep dimensions (docs/machine.md): the kinds of
 * setting benchcore knows (mkinds.c, one table row each), what setting a
 * value means in file writes (bc_mwrites), and the state of a run that
 * changes the machine (mstate.c: the machine-wide lock, the root-only
 * journal of original values, apply with read-back, restore).
 *
 * The one mechanism: plan (bc_mkind.check: the value against what this
 * machine offers, before anything changes) -> before (bc_mstate_begin: lock,
 * journal) -> apply (bc_mstate_apply: the writes in the kernel's order, each
 * original journalled before its first write, each value read back) -> after
 * (bc_mstate_end: originals back, journal removed). A run killed outright
 * leaves its journal; bc_mstate_recover() (benchcore restore, the start of
 * any later run) puts back only the values still the ones benchcore wrote.
 * Main thread only. */
#ifndef BC_MSET_H
#define BC_MSET_H
#include <stddef.h>
#include <stdio.h>
#include "util.h"

/* One change to the machine: a file's new content, or a user's command. */
typedef struct bc_mwrite {
	char type;		/* 'f': write value to path; 'c': custom command */
	char *path;		/* 'f': the file; 'c': the setting's name */
	char *value;		/* what to write (canonical text) */
	char *set, *read;	/* 'c': the set template ("CMD {value}") and read command */
	double timeout;		/* 'c': their time limit in seconds (0: the default) */
	const char *key;	/* the setting ("thp"), for messages */
} bc_mwrite;

typedef struct bc_mwrites {
	bc_mwrite *w;
	size_t n, cap;
} bc_mwrites;

void bc_mwrites_add(bc_mwrites *ws, char type, const char *path, const char *value, const char *key);
void bc_mwrites_free(bc_mwrites *ws);

/* What a kind may need to check or plan a value. */
typedef struct bc_mctx {
	const char *sub;	/* sysctl.NAME / custom.NAME: NAME; else NULL */
	const char *device;	/* device kinds: the block device's sysfs dir
				   (/sys/dev/block/7:3), or NULL when none was found */
	const char *custom_set, *custom_read;	/* custom: the commands */
	double custom_timeout;	/* and their time limit (0: the default) */
	int online_cpus;	/* online_cpus of the same combination, 0: unchanged */
} bc_mctx;

enum {
	BC_MKF_SUB = 1,		/* written KEY.NAME (sysctl, custom) */
	BC_MKF_DEVICE = 2,	/* the block device under the module's path */
	BC_MKF_RESTART = 4,	/* a change restarts the run's private servers (THP) */
	BC_MKF_PROCESS = 8,	/* changes benchcore's own CPU affinity, not a file (cpus) */
	BC_MKF_FREQ = 16		/* each case's measured clock is checked against it */
};

/* A row of the table: one kind of setting. */
typedef struct bc_mkind {
	const char *key;	/* site.conf's name */
	const char *metavar;	/* its values, for help ("always|madvise|never") */
	const char *help;
	const char *files;	/* what it writes, for docs */
	int rank;		/* the kernel's order: lower ranks are written first */
	unsigned flags;		/* BC_MK_* */
	/* text against this machine: 0 with the canonical value in out, or -1
	   with e naming the file and why (the value, the machine, root) */
	int (*check)(const bc_mctx *x, const char *text, char *out, size_t n, bc_err *e);
	/* the writes that set the canonical value, in order, appended to ws */
	int (*plan)(const bc_mctx *x, const char *value, bc_mwrites *ws, bc_err *e);
} bc_mkind;

extern const bc_mkind bc_mkinds[];
/* The row for "thp" or "sysctl.vm.swappiness" (its part before the dot). */
const bc_mkind *bc_mkind_find(const char *key);
/* "cpu_freq, governor, ...": the keys, for messages. */
void bc_mkind_names(char *buf, size_t n);

/* Root of the CPU sysfs tree read and written (BENCHCORE_SYSFS_CPU in tests). */
const char *bc_mcpu_root(void);
/* "1000000" (kHz, sysfs's unit) from "1GHz", "2.6 GHz", "800MHz", "1e9Hz",
   "2600000kHz": 0, or -1 when not a frequency. */
int bc_mfreq_parse(const char *text, unsigned long long *khz);
/* The value a sysfs file says: the [selected] word of a choice file
   ("always [madvise] never" -> "madvise"), else the text trimmed with runs
   of white space as one space. */
void bc_mnormalize(const char *raw, char *out, size_t n);
#define BC_MCPU_MAX 1024
/* A CPU list ("0-3,6") as BC_MCPU_MAX flags (malloc'd), or NULL when not one. */
unsigned char *bc_mcpu_list_parse(const char *text);
/* Reads a small file normalized: 0, or -1 with errno. */
int bc_mread(const char *path, char *out, size_t n);
/* Writes value to path (one write(2), as echo does): 0, or -1 with errno. */
int bc_mwrite_file(const char *path, const char *value);
/* A custom command's time limit when its setting gives none (seconds). */
#define BC_MCOMMAND_TIMEOUT 30.0
/* Runs a custom command: "set" with {value} standing for value (passed as
   an argument, never parsed by the shell), or "read" (value NULL), its
   first line of output in out. A command still running after timeout_s
   (<= 0: BC_MCOMMAND_TIMEOUT) is killed with its process group and fails.
   0, or -1 with why in out. */
int bc_mcommand(const char *cmd, const char *value, double timeout_s, char *out, size_t n);
/* Every command also dies with benchcore (PR_SET_PDEATHSIG), and what it
   left running in its process group is killed when it returns. Its
   environment holds BC_MCOMMAND_ENV=TOKEN, a random token of this call. */
#define BC_MCOMMAND_ENV "BENCHCORE_SETTING_COMMAND"
/* Told the command's group ("PGID START TOKEN": its leader's pid and
   /proc start time, and the token) before the command runs; non-zero
   stops it unrun. */
typedef int (*bc_mgroup_fn)(void *ctx, const char *group);
int bc_mcommand_in(const char *cmd, const char *value, double timeout_s, bc_mgroup_fn on, void *ctx, char *out,
		   size_t n);
/* Kills what is left of a group bc_mcommand_in() told of: the whole group
   while its leader is the process that started then, else each member that
   carries the token (a group by that number made since is not touched).
   Returns how many were killed. */
int bc_mgroup_kill(const char *group);

/* ---- the run's state (mstate.c) ---- */

typedef struct bc_mentry {
	char **f;		/* the record's fields, f[0] its type ("file", "cmd", or a
				   backend's own); NULL-terminated */
} bc_mentry;

typedef struct bc_mstate {
	char *dir, *journal, *lockfile;	/* BENCHCORE_STATE_DIR or /run/benchcore */
	int lock_fd;
	bc_mentry *e;		/* the journal's records, in the order first written */
	size_t n, cap;
	int began;
	int dfd;		/* the state directory, open once checked (mtrust.c) */
} bc_mstate;

/* What a restore did, record by record. */
typedef struct bc_mcounts {
	int restored;		/* put back */
	int already;		/* already at its original: nothing to do */
	int changed;		/* left: someone changed it since (a dead run's) */
	int failed;		/* could not be undone: kept in the journal */
	int refused;		/* the journal was refused (not to be trusted) */
} bc_mcounts;

/* The state directory: $BENCHCORE_STATE_DIR, else /run/benchcore. */
const char *bc_mstate_dir(void);
/* The run changes the machine: takes the lock (refused, the holder named,
   when another run holds it), finishes a dead run's journal, and starts an
   empty one. 0, or -1 with e. */
int bc_mstate_begin(bc_mstate *s, bc_err *e);
/* Sets the machine to want: every target of want written (its original
   journalled first) and read back, every journalled target not in want put
   back to its original. *changed: 1 when some value changed. 0, or -1 with e
   (what was written stays journalled: end restores it). */
int bc_mstate_apply(bc_mstate *s, const bc_mwrites *want, int *changed, bc_err *e);
/* The current value of journalled target path ('f' type), or NULL. */
const char *bc_mstate_written(const bc_mstate *s, const char *path);
/* Every original back (reverse order), the journal removed, the lock
   released. Safe to call twice, and from an atexit handler. Returns the
   number of values that could not be restored (each warned). */
int bc_mstate_end(bc_mstate *s);
/* A dead run's journal: kills what is left of its set commands' process
   groups, restores where the value is still the one written, names on f
   the values changed since and what could not be undone (which stays in
   the journal; the rest of it goes). Returns -1 when another live run
   holds the lock (its holder said on f) or the journal is refused
   (c->refused: its directory, its file or a record fails mtrust.c's checks;
   said on f, the journal left as it is, nothing changed), else the number
   left (changed + failed); 0 with nothing done when there is no journal. */
int bc_mstate_recover(FILE *f, bc_mcounts *c);
/* ---- the journal's trust (mtrust.c) ---- */

/* Opens the state directory (creates it 0700 when create) and checks it:
   not a symbolic link, a directory of the running user's that nobody else
   can write (a run's own: nobody else can read either), in directories
   nobody else can rename it out of. Its descriptor, or -1 with e (errno
   ENOENT, e unset: none there and not create). */
int bc_mtrust_dir(const char *dir, int create, bc_err *e);
/* Opens "journal" in the checked directory dfd (path: its name for
   messages): a regular file, not a link, the running user's, nobody else
   can write it, one name, at most 16 MiB. Its descriptor, or -1 with e
   (errno ENOENT, e unset: there is none). */
int bc_mtrust_journal(int dfd, const char *path, bc_err *e);
/* A journal's file record may name only a file a setting writes: in sysfs
   or /proc/sys once every link is resolved (or under BENCHCORE_SYSFS_CPU's
   tree, the tests' fake CPU tree). 0 with its real path in real (PATH_MAX bytes; no link
   left on the way: the one the restore writes), or -1 with why. */
int bc_mtrust_target(const char *path, char *real, char *why, size_t n);

/* Who holds the machine's settings now ("pid 4242: benchcore -c a.conf
   (since ...)"), into buf; 0 when nobody (buf empty). */
int bc_mstate_holder(char *buf, size_t n);

/* A backend's own journal record (a file system made, a mount): its tag is
   f[0]; restore is called with the record on recovery and at the end.
   0 restored, 2 nothing left to undo, 1 left alone (why said in why), -1
   failed (why: what is left). */
typedef struct bc_mrtype {
	const char *tag;
	int (*restore)(char *const *f, int dead_run, char *why, size_t n);
	/* what messages call the record (its directory...), in buf */
	const char *(*label)(char *const *f, char *buf, size_t n);
} bc_mrtype;
/* Journals a backend's record (fields copied) before what it records is
   done; 0, or -1 with e. */
int bc_mstate_record(bc_mstate *s, char *const *fields, bc_err *e);
#endif
