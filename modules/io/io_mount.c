/*
 * What is under the io module's path: the mount that holds it, read from
 * /proc/self/mountinfo (file system, mount options, source, recorded in the
 * case's info), and a block device taken whole (allow_device = true): never
 * one that is mounted or claimed (O_EXCL: swap, LVM, RAID), its size and
 * logical block size read for direct = true.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "io.h"

/* Reads /proc/self/mountinfo; calls fn(line fields) for every mount. */
struct io_mount {
	char majmin[32], mountpoint[PATH_MAX], opts[512], fstype[64], source[PATH_MAX], super[512];
};

static void io_unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; ) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

static int io_mount_parse(char *line, struct io_mount *m)
{
	char *f[6], *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (n >= 6 && strcmp(tok, "-") == 0)
			break;
		if (n < 6)
			f[n++] = tok;	/* beyond six: optional fields until "-" */
	}
	if (n < 6)
		return -1;
	char *fstype = strtok_r(NULL, " \n", &save), *source = strtok_r(NULL, " \n", &save);
	char *super = strtok_r(NULL, " \n", &save);
	if (!tok || !fstype || !source)
		return -1;
	snprintf(m->majmin, sizeof(m->majmin), "%s", f[2]);
	snprintf(m->mountpoint, sizeof(m->mountpoint), "%s", f[4]);
	io_unescape(m->mountpoint);
	snprintf(m->opts, sizeof(m->opts), "%s", f[5]);
	snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
	snprintf(m->source, sizeof(m->source), "%s", source);
	io_unescape(m->source);
	snprintf(m->super, sizeof(m->super), "%s", super ? super : "");
	return 0;
}

/*
 * Finds the mount holding real path rp (the longest matching mount point; of
 * equal ones the last, which is on top), or the mount of device majmin when
 * majmin is set. Returns 0 when found.
 */
static int io_find_mount(const char *rp, const char *majmin, struct io_mount *out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	size_t best = 0;
	int found = -1;
	struct io_mount m;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (io_mount_parse(line, &m) != 0)
			continue;
		if (majmin) {
			if (strcmp(m.majmin, majmin) == 0) {
				*out = m;
				found = 0;
				break;
			}
			continue;
		}
		size_t len = strlen(m.mountpoint);
		int match = strcmp(m.mountpoint, "/") == 0 ||
			    (strncmp(rp, m.mountpoint, len) == 0 && (rp[len] == '/' || rp[len] == '\0'));
		if (match && len >= best) {
			best = len;
			*out = m;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* "a,b" + "b,c" -> "a,b,c": per-mount options, then the super block's. */
static void io_join_opts(char *out, size_t size, const char *a, const char *b)
{
	char tmp[512], *save = NULL;

	snprintf(out, size, "%s", a);
	snprintf(tmp, sizeof(tmp), "%s", b);
	for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t tl = strlen(tok);
		int dup = 0;
		for (const char *p = out; (p = strstr(p, tok)) != NULL; p += tl)
			if ((p == out || p[-1] == ',') && (p[tl] == ',' || p[tl] == '\0'))
				dup = 1;
		size_t ol = strlen(out);
		if (!dup && ol + tl + 2 < size)
			snprintf(out + ol, size - ol, "%s%s", ol ? "," : "", tok);
	}
}

/* File system type and mount options of the target, into the case's info. */
void io_fs_info(struct io_state *s)
{
	struct io_mount m;
	char rp[PATH_MAX], opts[1100];

	if (s->kind == IO_TARGET_DEVICE) {
		s->api->set_info(s->ctx, "fs_type", "none (raw block device)");
		s->api->set_info(s->ctx, "device", s->target);
		return;
	}
	if (!realpath(s->target, rp) || io_find_mount(rp, NULL, &m) != 0) {
		s->api->log(s->ctx, BENCH_LOG_WARN, "cannot find the mount of %s", s->target);
		return;
	}
	io_join_opts(opts, sizeof(opts), m.opts, m.super);
	s->api->set_info(s->ctx, "fs_type", m.fstype);
	s->api->set_info(s->ctx, "mount_options", opts);
	s->api->set_info(s->ctx, "mount_point", m.mountpoint);
	s->api->set_info(s->ctx, "fs_source", m.source);
}

/* A block device: only with allow_device, never when mounted or claimed. */
int io_device_init(struct io_state *s, const struct stat *st)
{
	const bench_host_api_v1 *api = s->api;
	char majmin[32];
	struct io_mount m;
	uint64_t bytes = 0;
	int lbs = 512;

	if (!s->allow_device) {
		io_error(s, NULL, NULL, "set allow_device = true to benchmark the raw device, or "
			 "set path to a directory on its file system", "refusing to use block device "
			 "\"%s\": writing to a device destroys its contents", s->target);
		return BENCH_ERR;
	}
	snprintf(majmin, sizeof(majmin), "%u:%u", major(st->st_rdev), minor(st->st_rdev));
	if (io_find_mount("", majmin, &m) == 0) {
		char hint[PATH_MAX + 40];
		snprintf(hint, sizeof(hint), "set path to a directory under \"%s\"", m.mountpoint);
		io_error(s, NULL, "benchcore never writes to a mounted device, even with "
			 "allow_device = true.", hint, "refusing to use block device \"%s\": it is "
			 "mounted at \"%s\" (%s)", s->target, m.mountpoint, m.fstype);
		return BENCH_ERR;
	}
	/* O_EXCL on a block device fails with EBUSY while anything claims it:
	   a mounted partition, swap, LVM, MD RAID. */
	int fd = open(s->target, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		api->set_error(s->ctx, "cannot use block device \"%s\": %s%s", s->target,
			       strerror(errno), errno == EBUSY ? " (it is in use: mounted "
			       "partition, swap, LVM or RAID member); benchcore refuses it" : "");
		return BENCH_ERR;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes) != 0 || ioctl(fd, BLKSSZGET, &lbs) != 0) {
		api->set_error(s->ctx, "cannot read the size of block device \"%s\": %s",
			       s->target, strerror(errno));
		close(fd);
		return BENCH_ERR;
	}
	close(fd);
	if (s->direct && lbs > 0 && s->block_size % (uint64_t)lbs) {
		api->set_error(s->ctx, "block_size %llu is not a multiple of the logical block "
			       "size %d of \"%s\", which direct = true requires",
			       (unsigned long long)s->block_size, lbs, s->target);
		return BENCH_ERR;
	}
	if (s->file_size > bytes)
		s->file_size = bytes;
	return BENCH_OK;
}
