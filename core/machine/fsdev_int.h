/* Shared between fsdev.c (apply, teardown), fsdev_check.c (the plan's
   checks) and fsdev_undo.c (mountinfo, loop devices, the journal, restore,
   the record's JSON). Not for other files. */
#ifndef BC_FSDEV_INT_H
#define BC_FSDEV_INT_H
#include <sys/types.h>
#include "fsdev.h"

/* The name every private directory starts with: a journal naming any other
   path is not benchcore's, and restore refuses it. */
#define BC_FS_PREFIX ".benchcore-fs."
/* Where a device's mount point is made (an image's is beside the image). */
#define BC_FS_RUNDIR "/run/benchcore"

struct bc_fs {
	bc_fs_spec spec;
	bc_fs_record rec;
	char dir[PATH_MAX];		/* the private directory */
	char mnt[PATH_MAX];		/* dir/mnt */
	char image[PATH_MAX];		/* dir/image, "" for a device */
	char loop[32];			/* /dev/loopN once attached */
	int lfd;			/* the loop device, held until the mount has it */
	bc_fs_journal_fn jf;
	void *ctx;
};

/* Runs argv (no shell; stdin /dev/null) with stdout and stderr into out
   (cut to n, NUL-ended): its exit status, 127 when it cannot run, -1 when
   it died of a signal. *secs (may be NULL) gets the wall time. */
int bc_fs_run(char *const argv[], char *out, size_t n, double *secs);
/* The smallest image or device a type's mkfs accepts here (bytes). */
unsigned long long bc_fs_min_size(const char *type);

/* Reads one line of a sysfs or proc file into buf (newline cut): 0 or -1. */
int bc_fs_read_line(const char *path, char *buf, size_t n);
/* Calls fn for each mount (its point, type, source and st_dev) until fn
   returns non-zero: that value, 0 after the last, -1 without mountinfo. */
typedef int (*bc_fs_mi_fn)(void *ctx, const char *point, const char *type, const char *source,
			   dev_t dev);
int bc_fs_mountinfo_each(bc_fs_mi_fn fn, void *ctx);
/* The mkfs tool is installed (on PATH, or in /sbin, /usr/sbin): 0, or -1
   with e naming the package that has it. */
int bc_fs_tool_check(const char *type, bc_err *e);
/* The file system type a path lives on (the longest mount point above it
   in mountinfo): "" when not found. */
void bc_fs_type_of_path(const char *path, char *type, size_t n);
/* Whether a loop device's backing file is image (also once unlinked: the
   kernel then adds " (deleted)"). */
int bc_fs_loop_backs(const char *loopname, const char *image);
/* The journal's text for fs as it stands (malloc'd). */
char *bc_fs_journal_text(const struct bc_fs *fs);
#endif
