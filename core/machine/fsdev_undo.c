/* File systems under test: what the kernel says is mounted and attached,
   the journal and the restore that reads it, the record's JSON (fsdev.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "fsdev_int.h"

int bc_fs_read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char *ok = fgets(buf, (int)n, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo. */
static void unescape(char *s)
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
	*w = 0;
}

static FILE *open_mountinfo(void)
{
	const char *own = getenv("BENCHCORE_PROC_MOUNTINFO");
	return fopen(own && *own ? own : "/proc/self/mountinfo", "re");
}

/* One mountinfo line split: mount point, its options, type, source, the
   super block's options. 0, or -1 for a line that is not one. */
struct mi { char *majmin, *point, *opts, *type, *source, *super; };
static int split_line(char *line, struct mi *m)
{
	char *save = NULL, *f[6] = { 0 };
	char *tok = strtok_r(line, " \n", &save);
	for (int i = 0; tok && i < 6; i++, tok = strtok_r(NULL, " \n", &save))
		f[i] = tok;
	while (tok && strcmp(tok, "-"))		/* optional fields up to "-" */
		tok = strtok_r(NULL, " \n", &save);
	if (!f[5] || !tok)
		return -1;
	m->majmin = f[2];
	m->point = f[4];
	m->opts = f[5];
	m->type = strtok_r(NULL, " \n", &save);
	m->source = strtok_r(NULL, " \n", &save);
	m->super = strtok_r(NULL, " \n", &save);
	if (!m->type || !m->source)
		return -1;
	unescape(m->point);
	unescape(m->source);
	return 0;
}

/* The mount's options, then the super block's that are not among them. */
static void join_opts(const char *opts, const char *super, char *out, size_t n)
{
	size_t len = (size_t)snprintf(out, n, "%s", opts);
	char *copy = bc_xstrdup(super ? super : ""), *save = NULL;
	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		char key[256];
		snprintf(key, sizeof key, ",%s,", o);
		char *have = bc_xasprintf(",%s,", opts);
		if (!strstr(have, key) && len < n)
			len += (size_t)snprintf(out + len, n - len, ",%s", o);
		free(have);
	}
	free(copy);
}

int bc_fs_mountinfo(const char *dir, char *type, size_t tn, char *source, size_t sn, char *opts,
		    size_t on)
{
	FILE *f = open_mountinfo();
	if (!f)
		return -1;
	char line[8192];
	int found = -1;
	struct mi m;
	while (fgets(line, sizeof line, f))	/* the last mount on dir is the one seen */
		if (split_line(line, &m) == 0 && !strcmp(m.point, dir)) {
			snprintf(type, tn, "%s", m.type);
			snprintf(source, sn, "%s", m.source);
			join_opts(m.opts, m.super, opts, on);
			found = 0;
		}
	fclose(f);
	return found;
}

int bc_fs_mountinfo_each(bc_fs_mi_fn fn, void *ctx)
{
	FILE *f = open_mountinfo();
	if (!f)
		return -1;
	char line[8192];
	struct mi m;
	int rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		unsigned ma, mi;
		if (split_line(line, &m) == 0 && sscanf(m.majmin, "%u:%u", &ma, &mi) == 2)
			rc = fn(ctx, m.point, m.type, m.source, makedev(ma, mi));
	}
	fclose(f);
	return rc;
}

void bc_fs_type_of_path(const char *path, char *type, size_t n)
{
	char real[PATH_MAX], line[8192];
	size_t best = 0;
	struct mi m;
	type[0] = 0;
	FILE *f = open_mountinfo();
	if (!f || !realpath(path, real)) {
		if (f)
			fclose(f);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		if (split_line(line, &m) < 0)
			continue;
		size_t l = strlen(m.point);
		int above = !strcmp(m.point, "/") ||
			    (!strncmp(real, m.point, l) && (real[l] == '/' || real[l] == 0));
		if (above && l >= best) {
			best = l;
			snprintf(type, n, "%s", m.type);
		}
	}
	fclose(f);
}

int bc_fs_loop_backs(const char *loopname, const char *image)
{
	char p[128], back[PATH_MAX + 16];
	snprintf(p, sizeof p, "/sys/block/%s/loop/backing_file", loopname);
	if (bc_fs_read_line(p, back, sizeof back) < 0)
		return 0;
	size_t l = strlen(image);
	return !strncmp(back, image, l) && (!back[l] || !strcmp(back + l, " (deleted)"));
}

char *bc_fs_journal_text(const struct bc_fs *fs)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "kind", "fs", "type",
			      fs->spec.type, "dir", fs->dir, "mount_point", fs->mnt, "image",
			      fs->image, "loop", fs->loop);
	if (!fs->image[0])
		json_object_set_new(j, "device", json_string(fs->spec.device));
	char *t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	return t;
}

/* Is what is mounted on mnt what benchcore made? Its loop device, a loop
   device backed by its image (attached before the journal said which), or
   its device. */
static int ours(const char *source, const char *loop, const char *image, const char *device)
{
	char a[PATH_MAX], b[PATH_MAX];
	if (loop[0] && !strcmp(source, loop))
		return 1;
	if (image[0] && !strncmp(source, "/dev/loop", 9) && bc_fs_loop_backs(source + 5, image))
		return 1;
	return device[0] && realpath(source, a) && realpath(device, b) && !strcmp(a, b);
}

/* umount, retried for a moment while a process that used it lets go. */
static int unmount(const char *mnt, bc_err *e)
{
	for (int i = 0; i < 50; i++) {
		if (umount2(mnt, UMOUNT_NOFOLLOW) == 0 || errno == EINVAL || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	bc_err_set(e, "machine.fs: cannot unmount %s: %s", mnt, strerror(errno));
	bc_err_hint(e, "a process still uses it (fuser -vm %s); then run benchcore restore",
		    mnt);
	return -1;
}

/* A mount namespace made while the file system was mounted (unshare -m,
   a container, a daemon's private /tmp) holds a copy of the mount that
   benchcore's unmount does not reach (private propagation), and the copy
   keeps the loop device busy. Each such copy of this mount point, from
   this loop device or image, is unmounted in its namespace (a child joins
   it: setns); nothing else there is touched. Returns how many. */
static int unmount_copies(const char *mnt, const char *image)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char self[64] = "", seen[16][64];
	int nseen = 0, done = 0;
	if (readlink("/proc/self/ns/mnt", self, sizeof self - 1) < 0)
		self[0] = 0;
	while (d && (de = readdir(d)) && nseen < 16) {
		char p[300], ns[64] = "", line[8192];
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof p, "/proc/%s/ns/mnt", de->d_name);
		ssize_t l = readlink(p, ns, sizeof ns - 1);
		if (l <= 0 || !strcmp(ns, self))
			continue;
		int dup = 0;
		for (int i = 0; i < nseen; i++)
			dup |= !strcmp(seen[i], ns);
		snprintf(p, sizeof p, "/proc/%s/mountinfo", de->d_name);
		FILE *f = dup ? NULL : fopen(p, "re");
		int has = 0;
		struct mi m;
		while (f && fgets(line, sizeof line, f))
			has |= split_line(line, &m) == 0 && !strcmp(m.point, mnt) &&
			       !strncmp(m.source, "/dev/loop", 9) && bc_fs_loop_backs(m.source + 5, image);
		if (f)
			fclose(f);
		if (!has)
			continue;
		snprintf(seen[nseen++], sizeof seen[0], "%s", ns);
		snprintf(p, sizeof p, "/proc/%s/ns/mnt", de->d_name);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		/* setns puts the child at its namespace's own root; the process's
		   root (a chroot's, where mnt was named) is where mnt resolves */
		snprintf(p, sizeof p, "/proc/%s/root", de->d_name);
		int rfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		pid_t pid = fd < 0 || rfd < 0 ? -1 : fork();
		if (pid == 0)
			_exit(setns(fd, CLONE_NEWNS) == 0 && fchdir(rfd) == 0 && chroot(".") == 0 &&
			      umount2(mnt, MNT_DETACH) == 0 ? 0 : 1);
		int st = 1;
		if (pid > 0)
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
		if (fd >= 0)
			close(fd);
		if (rfd >= 0)
			close(rfd);
		done += pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	if (d)
		closedir(d);
	return done;
}

/* Every loop device still backed by the image: the kernel clears one with
   autoclear when its last user goes, which can lag the unmount a moment. */
static int detach(const char *image, const char *mnt, bc_err *e)
{
	int left = 0;
	for (int round = 0; round < 20; round++) {
		if (round == 4)
			unmount_copies(mnt, image);
		DIR *d = opendir("/sys/block");
		struct dirent *de;
		left = 0;
		while (d && (de = readdir(d)))
			if (!strncmp(de->d_name, "loop", 4) && bc_fs_loop_backs(de->d_name, image)) {
				char dev[300];
				snprintf(dev, sizeof dev, "/dev/%s", de->d_name);
				int fd = open(dev, O_RDONLY | O_CLOEXEC);
				if (round >= 5 && fd >= 0)
					ioctl(fd, LOOP_CLR_FD, 0);
				if (fd >= 0)
					close(fd);
				left++;
			}
		if (d)
			closedir(d);
		if (!left)
			return 0;
		nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	}
	bc_err_set(e, "machine.fs: %d loop device(s) still attached to %s", left, image);
	bc_err_hint(e, "losetup -a shows them; a process in another mount namespace may hold the mount "
		    "(grep %s /proc/*/mountinfo)", mnt);
	return -1;
}

static const char *jstr(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	return s ? s : "";
}

static int remove_paths(const char *dir, const char *mnt, const char *image, bc_err *e)
{
	if (image[0] && unlink(image) < 0 && errno != ENOENT) {
		bc_err_set(e, "machine.fs: cannot remove %s: %s", image, strerror(errno));
		return -1;
	}
	/* rmdir, never a recursive removal: anything in them is not benchcore's
	   to delete, and is named instead */
	if ((rmdir(mnt) < 0 && errno != ENOENT) || (rmdir(dir) < 0 && errno != ENOENT)) {
		bc_err_set(e, "machine.fs: cannot remove %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The journal's paths: the private directory is benchcore's by its name,
   the mount point and the image are the two names inside it. */
static int journal_sane(const char *dir, const char *mnt, const char *image, bc_err *e)
{
	const char *base = strrchr(dir, '/');
	char want[PATH_MAX + 8];
	snprintf(want, sizeof want, "%s/mnt", dir);
	int ok = dir[0] == '/' && base && !strncmp(base + 1, BC_FS_PREFIX, strlen(BC_FS_PREFIX)) &&
		 !strstr(dir, "/../") && !strcmp(mnt, want);
	snprintf(want, sizeof want, "%s/image", dir);
	if (ok && (!image[0] || !strcmp(image, want)))
		return 0;
	bc_err_set(e, "machine.fs: the journal names paths benchcore does not make (%s)", dir);
	bc_err_hint(e, "nothing was touched; remove the journal entry by hand");
	return -1;
}

/* What is still there of a record's file system after a failed undo:
   "ext4 mounted on MNT from SRC, /dev/loopN attached to IMAGE, the
   directory DIR" (malloc'd; "" when nothing). */
static char *what_left(const char *dir, const char *mnt, const char *image)
{
	char type[32], src[PATH_MAX], opts[1024], *out = NULL;
	size_t len = 0;
	const char *sep = "";
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return bc_xstrdup("");
	if (bc_fs_mountinfo(mnt, type, sizeof type, src, sizeof src, opts, sizeof opts) == 0) {
		fprintf(f, "%s mounted on %s from %s", type, mnt, src);
		sep = ", ";
	}
	DIR *d = image[0] ? opendir("/sys/block") : NULL;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "loop", 4) && bc_fs_loop_backs(de->d_name, image)) {
			fprintf(f, "%s/dev/%s attached to %s", sep, de->d_name, image);
			sep = ", ";
		}
	if (d)
		closedir(d);
	struct stat st;
	if (lstat(dir, &st) == 0)
		fprintf(f, "%sthe directory %s", sep, dir);
	fclose(f);
	return out;
}

/* A journal written with the image directory's path through a symbolic
   link (a benchcore before the plan resolved it): the kernel names the
   mount and the loop device's file by the real path, so the record's
   paths are taken resolved, when the private directory keeps its name. */
static void resolve_dir(const char **dir, const char **mnt, const char **image, char rdir[PATH_MAX],
			char rmnt[PATH_MAX + 8], char rimg[PATH_MAX + 8])
{
	const char *b = strrchr(*dir, '/'), *rb;
	if (!b || !realpath(*dir, rdir) || !strcmp(rdir, *dir) || !(rb = strrchr(rdir, '/')) || strcmp(b, rb))
		return;
	snprintf(rmnt, PATH_MAX + 8, "%s/mnt", rdir);
	snprintf(rimg, PATH_MAX + 8, "%s/image", rdir);
	*dir = rdir;
	*mnt = rmnt;
	if ((*image)[0])
		*image = rimg;
}

int bc_fs_restore(const char *text, char *done, size_t n, bc_err *e)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j || strcmp(jstr(j, "kind"), "fs")) {
		bc_err_set(e, "machine.fs: the journal entry is not an fs record");
		json_decref(j);
		return -1;
	}
	const char *dir = jstr(j, "dir"), *mnt = jstr(j, "mount_point"), *image = jstr(j, "image");
	const char *loop = jstr(j, "loop"), *device = jstr(j, "device");
	int rc = journal_sane(dir, mnt, image, e);
	char rdir[PATH_MAX], rmnt[PATH_MAX + 8], rimg[PATH_MAX + 8];
	int sane = rc == 0;
	if (sane)
		resolve_dir(&dir, &mnt, &image, rdir, rmnt, rimg);
	char type[32], src[PATH_MAX], opts[1024];
	int was_mounted = 0;
	for (int k = 0; rc == 0 && k < 8 && bc_fs_mountinfo(mnt, type, sizeof type, src, sizeof src, opts,
					  sizeof opts) == 0; k++) {	/* mounts stacked there */
		if (!ours(src, loop, image, device)) {
			bc_err_set(e, "machine.fs: %s has %s mounted from %s, not benchcore's: left",
				   mnt, type, src);
			rc = -1;
		} else {
			rc = unmount(mnt, e);
			was_mounted = 1;
		}
	}
	if (rc == 0 && image[0])
		rc = detach(image, mnt, e);
	if (rc == 0)
		rc = remove_paths(dir, mnt, image, e);
	if (rc && sane) {
		char *left = what_left(dir, mnt, image);
		bc_err_detail(e, "Left: %s.", left[0] ? left : "nothing found (it may have gone meanwhile)");
		free(left);
	}
	if (done && n)
		snprintf(done, n, "%s%s: %s", was_mounted ? "unmounted, " : "", dir,
			 rc == 0 ? "removed" : "left");
	json_decref(j);
	return rc;
}

json_t *bc_fs_record_json(const bc_fs_record *r)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:f, s:f}", "type",
			      r->type, "mount_options", r->mount_options, "mkfs_command",
			      r->mkfs_command, "mkfs_version", r->mkfs_version, "device", r->device,
			      "device_model", r->device_model, "mount_point", r->mount_point,
			      "size_bytes", (json_int_t)r->size_bytes, "make_s", r->make_s,
			      "mount_s", r->mount_s);
	json_object_set_new(j, "o_direct", json_boolean(r->o_direct));
	if (!r->o_direct && r->o_direct_refused[0])
		json_object_set_new(j, "o_direct_refused", json_string(r->o_direct_refused));
	if (r->image[0]) {
		json_object_set_new(j, "image", json_string(r->image));
		json_object_set_new(j, "image_fs", json_string(r->image_fs));
		json_object_set_new(j, "loop_direct_io", json_boolean(r->loop_direct_io));
	}
	return j;
}

static int copy_field(const json_t *j, const char *key, int need, char *dst, size_t n,
		      bc_err *e)
{
	json_t *v = json_object_get(j, key);
	const char *s = json_string_value(v);
	if ((!v && !need) || (s && strlen(s) < n && bc_utf8_valid(s))) {
		snprintf(dst, n, "%s", s ? s : "");
		return 0;
	}
	bc_err_set(e, "fs.%s: %s", key, v ? (s ? "too long or not UTF-8" : "not a string")
					  : "missing");
	return -1;
}

static int copy_num(const json_t *j, const char *key, double *out, bc_err *e)
{
	json_t *v = json_object_get(j, key);
	if (json_is_number(v) && json_number_value(v) >= 0) {
		*out = json_number_value(v);
		return 0;
	}
	bc_err_set(e, "fs.%s: %s", key, v ? "not a number >= 0" : "missing");
	return -1;
}

int bc_fs_record_from_json(const json_t *j, bc_fs_record *r, bc_err *e)
{
	memset(r, 0, sizeof *r);
	if (!json_is_object(j)) {
		bc_err_set(e, "fs: not an object");
		return -1;
	}
	double size = 0;
	if (copy_field(j, "type", 1, r->type, sizeof r->type, e) ||
	    copy_field(j, "mount_options", 1, r->mount_options, sizeof r->mount_options, e) ||
	    copy_field(j, "mkfs_command", 1, r->mkfs_command, sizeof r->mkfs_command, e) ||
	    copy_field(j, "mkfs_version", 1, r->mkfs_version, sizeof r->mkfs_version, e) ||
	    copy_field(j, "device", 1, r->device, sizeof r->device, e) ||
	    copy_field(j, "device_model", 1, r->device_model, sizeof r->device_model, e) ||
	    copy_field(j, "mount_point", 1, r->mount_point, sizeof r->mount_point, e) ||
	    copy_field(j, "image", 0, r->image, sizeof r->image, e) ||
	    copy_field(j, "image_fs", 0, r->image_fs, sizeof r->image_fs, e) ||
	    copy_field(j, "o_direct_refused", 0, r->o_direct_refused, sizeof r->o_direct_refused, e) ||
	    copy_num(j, "size_bytes", &size, e) || copy_num(j, "make_s", &r->make_s, e) ||
	    copy_num(j, "mount_s", &r->mount_s, e))
		return -1;
	json_t *dio = json_object_get(j, "loop_direct_io");
	if (dio && !json_is_boolean(dio)) {
		bc_err_set(e, "fs.loop_direct_io: not true or false");
		return -1;
	}
	r->loop_direct_io = json_is_true(dio);
	json_t *od = json_object_get(j, "o_direct");
	if (od && !json_is_boolean(od)) {
		bc_err_set(e, "fs.o_direct: not true or false");
		return -1;
	}
	r->o_direct = json_is_true(od);
	if (size > 1.8e19) {
		bc_err_set(e, "fs.size_bytes: past 2^64");
		return -1;
	}
	r->size_bytes = (unsigned long long)size;
	return 0;
}
