/* machine.fs, fs_device, wipe_device, mkfs_options and mount_options as
   machine settings (fsdev.h): each value checked alone for the plan, no
   file writes (the runner makes the file system: core/run/mrun.c), and
   the journal's "fs" record restored through bc_fs_restore. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "fsdev_int.h"
#include "mset.h"

int bc_fs_kind_check(const bc_mctx *x, const char *text, char *out, size_t n, bc_err *e)
{
	(void)x;
	if (!bc_fs_type_known(text)) {
		bc_err_set(e, "machine.fs: \"%s\" is not a file system benchcore makes", text);
		bc_err_hint(e, "ext4, xfs or btrfs");
		return -1;
	}
	if (bc_fs_tool_check(text, e) < 0)
		return -1;
	snprintf(out, n, "%s", text);
	return 0;
}

int bc_fs_device_check(const bc_mctx *x, const char *text, char *out, size_t n, bc_err *e)
{
	(void)x;
	char dir[PATH_MAX], size[64];
	uint64_t b;
	if (bc_fs_image_parts(text, dir, sizeof dir, size, sizeof size) &&
	    (dir[0] != '/' || (size[0] && bc_parse_size(size, &b) < 0))) {
		bc_err_set(e, "machine.fs_device: \"%s\" is not image:DIR or image:DIR:SIZE", text);
		bc_err_hint(e, "DIR an absolute directory, SIZE as 4G (image:/var/tmp:4G)");
		return -1;
	}
	if (strncmp(text, "image:", 6) && text[0] != '/') {
		bc_err_set(e, "machine.fs_device: \"%s\" is neither image:DIR:SIZE nor a device path", text);
		return -1;
	}
	if (strlen(text) >= n || strlen(text) >= PATH_MAX) {
		bc_err_set(e, "machine.fs_device: too long");
		return -1;
	}
	snprintf(out, n, "%s", text);
	return 0;
}

int bc_fs_text_check(const bc_mctx *x, const char *text, char *out, size_t n, bc_err *e)
{
	(void)x;
	if (strlen(text) >= BC_FS_OPTS || strlen(text) >= n || strpbrk(text, "\n\t")) {
		bc_err_set(e, "machine: \"%s\": too long, or a tab or newline in it", text);
		return -1;
	}
	snprintf(out, n, "%s", text);
	return 0;
}

int bc_fs_mount_kcheck(const bc_mctx *x, const char *text, char *out, size_t n, bc_err *e)
{
	if (bc_fs_mount_opts_check(text, e) < 0)
		return -1;
	return bc_fs_text_check(x, text, out, n, e);
}

int bc_fs_no_writes(const bc_mctx *x, const char *value, bc_mwrites *ws, bc_err *e)
{
	(void)x;
	(void)value;
	(void)ws;
	(void)e;
	return 0;
}

/* The record's private directory, for messages ("" when not there). */
static const char *fs_dir_of(const char *text, char *buf, size_t n)
{
	json_t *j = json_loads(text, 0, NULL);
	const char *d = json_string_value(json_object_get(j, "dir"));
	snprintf(buf, n, "%s", d ? d : "");
	json_decref(j);
	return buf;
}

/* f: "fs", the journal text (fsdev.h). A dead run's or this run's alike:
   restore undoes only what the record names and benchcore made; a record
   whose private directory is gone has nothing left to undo (2). */
static int fs_restore(char *const *f, int dead_run, char *why, size_t n)
{
	(void)dead_run;
	bc_err e;
	char dir[PATH_MAX];
	struct stat st;
	if (!f[1]) {
		snprintf(why, n, "a truncated fs record");
		return -1;
	}
	fs_dir_of(f[1], dir, sizeof dir);
	int gone = dir[0] == '/' && lstat(dir, &st) < 0 && errno == ENOENT;
	if (bc_fs_restore(f[1], NULL, 0, &e) == 0)
		return gone ? 2 : 0;
	snprintf(why, n, "%s%s%s", e.msg, e.detail[0] ? ". " : "", e.detail);
	return -1;
}

static const char *fs_label(char *const *f, char *buf, size_t n)
{
	return f[1] && *fs_dir_of(f[1], buf, n) ? buf : f[1] ? f[1] : "";
}

const bc_mrtype bc_fs_mrtype = { "fs", fs_restore, fs_label };
