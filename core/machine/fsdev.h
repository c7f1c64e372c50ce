/* File systems under test (issue 50): one file system made, mounted,
   recorded and removed by the run, on a sparse image attached to a loop
   device or on a spare block device the config names twice. The machine
   settings' mechanism (issue 49) drives it: it calls bc_fs_check() in the
   plan, bc_fs_apply() before the first case of an fs value, keeps the
   journal text this file hands it in its own journal, and calls
   bc_fs_teardown() after the last case (or bc_fs_restore() on a dead run's
   journal). Main thread only; nothing here keeps global state.

   What benchcore makes, it names first: the private directory
   (DIR/.benchcore-fs.PID.SEQ, 0700) is named in the journal before it is
   made, the image and the mount point are inside it, the loop device is
   added to the journal once the kernel gives one out. The loop device is
   attached with LO_FLAGS_AUTOCLEAR and the image is unlinked as soon as it
   is attached: after a SIGKILL the kernel detaches the loop device when the
   mount goes (or at once when nothing was mounted yet), and the image's
   blocks go with it, so a restore only has to unmount and remove two empty
   directories. */
#ifndef BC_FSDEV_H
#define BC_FSDEV_H
#include <jansson.h>
#include <limits.h>
#include "util.h"

#define BC_FS_OPTS 512

/* One value of the fs sweep, as the plan has it. */
typedef struct bc_fs_spec {
	char type[16];			/* "ext4", "xfs" or "btrfs" */
	char device[PATH_MAX];		/* fs_device: "image:DIR:SIZE" or a block device */
	char wipe[PATH_MAX];		/* wipe_device, "" when unset */
	char mkfs_options[BC_FS_OPTS];	/* split on blanks, no shell */
	char mount_options[BC_FS_OPTS];	/* mount(8)'s -o, "" or "defaults" for none */
} bc_fs_spec;

/* What a case records about the file system it ran on. */
typedef struct bc_fs_record {
	char type[16];			/* as mounted (mountinfo) */
	char mount_options[1024];	/* as mounted: the mount's options, then the super block's */
	char mkfs_command[1024];	/* the command run, words joined by blanks */
	char mkfs_version[128];		/* the tool's own version line */
	char device[PATH_MAX];		/* the loop device, or the device as the config names it */
	char device_model[256];		/* sysfs model/vendor, "loop" for an image */
	char image[PATH_MAX];		/* the image file ("" for a device) */
	char image_fs[32];		/* the file system the image lives on */
	int loop_direct_io;		/* the loop device reads and writes the image with
					   O_DIRECT (else through the page cache) */
	char mount_point[PATH_MAX];
	int o_direct;			/* an O_DIRECT open there was taken (bc_fs_direct_io) */
	char o_direct_refused[256];	/* else the kernel's answer; "" when taken */
	unsigned long long size_bytes;	/* the image's size or the device's */
	double make_s, mount_s;		/* what mkfs and the mount cost (wall seconds) */
} bc_fs_record;

/* The plan's checks, before anything changes (nothing is written, nothing
   opened for writing): the type is one benchcore makes and its mkfs is
   installed; an image's DIR is a directory only root can write (or a
   sticky one), SIZE at least the type's minimum and free in DIR; a device
   is a block device named again in wipe_device, not the root or boot
   device, not mounted (nor any partition), not held (holders, swap, LVM,
   md, a zpool: the kernel's exclusive open says what the named checks
   miss), and without a signature unless wipe_device names it. 0, or -1
   with e saying which and why (the setting's name first). */
int bc_fs_check(const bc_fs_spec *s, bc_err *e);

/* The journal: called with the record's text (a JSON object) before each
   thing is made and after the loop device is known; the mechanism keeps
   the latest text in its journal. A non-zero return stops apply (which
   then undoes what it made). */
typedef int (*bc_fs_journal_fn)(void *ctx, const char *json_text);

typedef struct bc_fs bc_fs;	/* a file system benchcore made and mounted */

/* Makes and mounts the file system (bc_fs_check first), checks the mount
   in /proc/self/mountinfo, fills the record. seq tells apart the file
   systems of one run. On failure everything made is undone and e says why. */
int bc_fs_apply(const bc_fs_spec *s, unsigned seq, bc_fs_journal_fn jf, void *ctx,
		bc_fs **out, bc_err *e);
/* The directory the modules' files go to (the mount's root). */
const char *bc_fs_dir(const bc_fs *fs);
const bc_fs_record *bc_fs_rec(const bc_fs *fs);
/* Is it still mounted as made (type and device)? 0, or -1 with e (a case
   checks before it counts). */
int bc_fs_verify(const bc_fs *fs, bc_err *e);
/* Whether the mounted file system takes O_DIRECT (a real open there): 0,
   or -1 with e, for a module whose options ask for it (io's direct =
   true). ext4, xfs and btrfs all do; a mount option may not (btrfs falls
   back to buffered writes when compressing, but accepts the open). */
int bc_fs_direct_io(const bc_fs *fs, bc_err *e);
/* The image's size for what the modules need (their needs()' disk bytes):
   sparse, so with room for the file system's own metadata; at least the
   type's minimum. */
unsigned long long bc_fs_image_size(const char *type, unsigned long long need);
/* Unmounts, detaches, removes the image and the directories, frees fs.
   0, or -1 with e naming what is left (everything else still undone). */
int bc_fs_teardown(bc_fs *fs, bc_err *e);

/* A dead run's journal text: unmounts what is mounted on the mount point
   it names (only when it is the file system benchcore made there: its
   loop device or device), detaches a loop device still backed by its
   image, removes the image and the two directories. Whatever is already
   gone is fine. 0, or -1 with e naming what could not be undone. done
   (may be NULL) gets a line of what was undone. */
int bc_fs_restore(const char *journal_text, char *done, size_t n, bc_err *e);

/* The record as a case keeps it, and back (every field checked). */
json_t *bc_fs_record_json(const bc_fs_record *r);
int bc_fs_record_from_json(const json_t *j, bc_fs_record *r, bc_err *e);

/* ---- machine.fs as settings (fskinds.c): mkinds.c's rows and the
   journal's "fs" records (mstate.c's bc_mrtypes). Each value is checked
   alone here; the plan checks each combination whole (bc_fs_check). ---- */
struct bc_mctx;
struct bc_mwrites;
struct bc_mrtype;
int bc_fs_kind_check(const struct bc_mctx *x, const char *text, char *out, size_t n, bc_err *e);
int bc_fs_device_check(const struct bc_mctx *x, const char *text, char *out, size_t n, bc_err *e);
int bc_fs_text_check(const struct bc_mctx *x, const char *text, char *out, size_t n, bc_err *e);
/* None of them is a file write: the runner makes the file system. */
int bc_fs_no_writes(const struct bc_mctx *x, const char *value, struct bc_mwrites *ws, bc_err *e);
extern const struct bc_mrtype bc_fs_mrtype;

/* "image:DIR:SIZE": 1 and the parts; 0 when spec is not an image. DIR
   may hold colons (the size is after the last one). */
int bc_fs_image_parts(const char *spec, char *dir, size_t dn, char *size, size_t sn);

/* mkfs_options and mount_options may add options, never operands
   (fsopts.c): a word mkfs would take as another device or a size, a word
   naming a path, a mount option that is not a comma list of option words.
   0, or -1 with e naming the setting and the word. */
int bc_fs_mkfs_opts_check(const char *type, const char *opts, bc_err *e);
int bc_fs_mount_opts_check(const char *opts, bc_err *e);
/* mount_options alone, as a setting's value (fskinds.c). */
int bc_fs_mount_kcheck(const struct bc_mctx *x, const char *text, char *out, size_t n, bc_err *e);

/* Helpers the checks use, exported for the tests. Types benchcore makes:
   1 for ext4, xfs and btrfs. */
int bc_fs_type_known(const char *type);
/* The mount on dir in /proc/self/mountinfo (BENCHCORE_PROC_MOUNTINFO
   overrides, as for the fingerprint): 0 and the fields, or -1 when none. */
int bc_fs_mountinfo(const char *dir, char *type, size_t tn, char *source, size_t sn,
		    char *opts, size_t on);
#endif
