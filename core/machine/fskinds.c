/* machine.fs, fs_device, wipe_device, mkfs_options and mount_options as
   machine settings (fsdev.h): each value checked alone for the plan, no
   file writes (the runner makes the file system: core/run/mrun.c), and
   the journal's "fs" record restored through bc_fs_restore. */
#include <stdio.h>
#include <string.h>
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

/* f: "fs", the journal text (fsdev.h). A dead run's or this run's alike:
   restore undoes only what the record names and benchcore made. */
static int fs_restore(char *const *f, int dead_run, char *why, size_t n)
{
	(void)dead_run;
	bc_err e;
	if (!f[1]) {
		snprintf(why, n, "a truncated fs record");
		return -1;
	}
	if (bc_fs_restore(f[1], NULL, 0, &e) == 0)
		return 0;
	snprintf(why, n, "%s", e.msg);
	return -1;
}

const bc_mrtype bc_fs_mrtype = { "fs", fs_restore };
