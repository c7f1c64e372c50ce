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
} bc_mstate;

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
/* A dead run's journal: restores where the value is still the one written,
   names on f the values changed since. Returns -1 when another live run
   holds the lock (its holder said on f), else the number left alone; 0
   with nothing done when there is no journal. */
int bc_mstate_recover(FILE *f, int *restored);
/* Who holds the machine's settings now ("pid 4242: benchcore -c a.conf
   (since ...)"), into buf; 0 when nobody (buf empty). */
int bc_mstate_holder(char *buf, size_t n);

/* A backend's own journal record (a file system made, a mount): its tag is
   f[0]; restore is called with the record on recovery and at the end.
   0 restored, 1 left alone (why said in why), -1 failed (why). */
typedef struct bc_mrtype {
	const char *tag;
	int (*restore)(char *const *f, int dead_run, char *why, size_t n);
} bc_mrtype;
/* Journals a backend's record (fields copied) before what it records is
   done; 0, or -1 with e. */
int bc_mstate_record(bc_mstate *s, char *const *fields, bc_err *e);
#endif
