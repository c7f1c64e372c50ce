/* File systems under test: making, mounting and tearing down (fsdev.h).
   The loop device is attached through the kernel's own interface
   (/dev/loop-control's LOOP_CTL_GET_FREE, then LOOP_CONFIGURE, one call that
   sets the file and the flags; LOOP_SET_FD and LOOP_SET_STATUS64 on kernels
   before 5.8) rather than losetup: benchcore needs the device's name and a
   descriptor it holds until the mount takes over, and LO_FLAGS_AUTOCLEAR set
   in the same call, which losetup's output would only give back as text.
   mkfs and mount are the distribution's tools (no shell): mount(8) is what
   parses mount_options the way a user expects. */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fsdev_int.h"

/* The types benchcore makes, their tools, the flag that lets mkfs write
   over an old signature (the plan refused a device wipe_device does not
   name) and the smallest size the tool accepts (xfsprogs 5.19 and later
   refuse a file system under 300 MiB; btrfs-progs needs about 110 MiB for
   its default profiles). */
static const struct fs_type {
	const char *name, *mkfs, *force, *version_flag, *package;
	unsigned long long min;
} fs_types[] = {
	{ "ext4",	"mkfs.ext4",	"-F",	"-V",		"e2fsprogs",	16ull << 20 },
	{ "xfs",	"mkfs.xfs",	"-f",	"-V",		"xfsprogs",	300ull << 20 },
	{ "btrfs",	"mkfs.btrfs",	"-f",	"--version",	"btrfs-progs",	128ull << 20 },
};

static const struct fs_type *type_of(const char *name)
{
	for (size_t i = 0; i < sizeof fs_types / sizeof fs_types[0]; i++)
		if (!strcmp(fs_types[i].name, name))
			return &fs_types[i];
	return NULL;
}

int bc_fs_type_known(const char *type)
{
	return type_of(type) != NULL;
}

unsigned long long bc_fs_min_size(const char *type)
{
	const struct fs_type *t = type_of(type);
	return t ? t->min : 0;
}

/* Sparse, so a generous image costs nothing until written: what the
   modules need, plus a quarter (at least 256 MiB) for the journal, the
   metadata and btrfs's chunk allocation, in whole MiB, at least the type's
   minimum. */
unsigned long long bc_fs_image_size(const char *type, unsigned long long need)
{
	unsigned long long extra = need / 4 > (256ull << 20) ? need / 4 : 256ull << 20;
	unsigned long long size = ((need + extra + (1ull << 20) - 1) >> 20) << 20;
	return size < bc_fs_min_size(type) ? bc_fs_min_size(type) : size;
}

/* A real O_DIRECT open in the mounted file system (a module's direct
   I/O would meet the same answer): 0, or -1 with e. */
int bc_fs_direct_io(const bc_fs *fs, bc_err *e)
{
	char *p = bc_xasprintf("%s/.benchcore-direct-io.%ld", fs->mnt, (long)getpid());
	int fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
	int saved = errno;
	if (fd >= 0) {
		close(fd);
		unlink(p);
	}
	free(p);
	if (fd >= 0)
		return 0;
	bc_err_set(e, "machine.fs: %s (%s) refuses O_DIRECT: %s", fs->mnt, fs->spec.type,
		   strerror(saved));
	bc_err_hint(e, "set direct = false for the module, or use another file system");
	return -1;
}

int bc_fs_tool_check(const char *type, bc_err *e)
{
	const struct fs_type *t = type_of(type);
	const char *path = getenv("PATH");
	char *dirs = bc_xasprintf("%s:/sbin:/usr/sbin", path ? path : "");
	char *save = NULL;
	int found = 0;
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = bc_xasprintf("%s/%s", d, t->mkfs);
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(dirs);
	if (found)
		return 0;
	bc_err_set(e, "machine.fs: %s cannot be made here: %s is not installed", type, t->mkfs);
	bc_err_hint(e, "install %s (apt-get install %s)", t->package, t->package);
	return -1;
}

int bc_fs_image_parts(const char *spec, char *dir, size_t dn, char *size, size_t sn)
{
	if (strncmp(spec, "image:", 6))
		return 0;
	const char *d = spec + 6, *colon = strrchr(d, ':');
	size_t len = colon ? (size_t)(colon - d) : strlen(d);
	snprintf(dir, dn, "%.*s", (int)(len < dn ? len : dn - 1), d);
	snprintf(size, sn, "%s", colon ? colon + 1 : "");
	return 1;
}

static void child_exec(char *const argv[], int out)
{
	int null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	/* root's tools, where a PATH without the sbin directories misses them */
	char p[256];
	snprintf(p, sizeof p, "/usr/sbin/%s", argv[0]);
	execv(p, argv);
	snprintf(p, sizeof p, "/sbin/%s", argv[0]);
	execv(p, argv);
	_exit(127);
}

int bc_fs_run(char *const argv[], char *out, size_t n, double *secs)
{
	int p[2];
	uint64_t t0 = bc_now_ns();
	if (pipe2(p, O_CLOEXEC) < 0)
		return 127;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return 127;
	}
	if (pid == 0)
		child_exec(argv, p[1]);
	close(p[1]);
	size_t got = 0;
	char sink[512];
	for (;;) {	/* read all of it: a full pipe would stall the tool */
		char *at = got + 1 < n ? out + got : sink;
		size_t room = got + 1 < n ? n - 1 - got : sizeof sink;
		ssize_t r = read(p[0], at, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (at != sink)
			got += (size_t)r;
	}
	close(p[0]);
	if (n)
		out[got] = 0;
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (secs)
		*secs = (double)(bc_now_ns() - t0) / 1e9;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The tool's output cut to its first line: a version. */
static const char *first_line(char *s)
{
	s[strcspn(s, "\n")] = 0;
	return s;
}

/* All it said on one line, blanks and newlines collapsed: a tool's error
   comes after its banner (mke2fs) or before a hint (mount). */
static const char *one_line(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++)
		if (!(*r == ' ' || *r == '\t' || *r == '\n') || (w > s && w[-1] != ' '))
			*w++ = (*r == '\t' || *r == '\n') ? ' ' : *r;
	while (w > s && w[-1] == ' ')
		w--;
	*w = 0;
	return s;
}

static int journal(bc_fs *fs, bc_err *e)
{
	if (!fs->jf)
		return 0;
	char *t = bc_fs_journal_text(fs);
	int rc = fs->jf(fs->ctx, t);
	free(t);
	if (rc)
		bc_err_set(e, "machine.fs: the journal could not be written; nothing more is made");
	return rc ? -1 : 0;
}

/* LOOP_CONFIGURE, or the two older calls where the kernel lacks it. */
static int loop_config(int lfd, int ifd, const char *image)
{
	struct loop_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.fd = (unsigned)ifd;
	/* direct I/O on the image: without it the loop driver reads and writes
	   the image through the page cache, and a case's O_DIRECT I/O on the
	   file system under test would be served from memory; the kernel
	   falls back to buffered I/O where the image's file system cannot
	   (the record says which: /sys/block/loopN/loop/dio) */
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
	snprintf((char *)cfg.info.lo_file_name, LO_NAME_SIZE, "%.*s", LO_NAME_SIZE - 1, image);
#ifdef LOOP_CONFIGURE
	if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOTTY)
		return -1;
#endif
	if (ioctl(lfd, LOOP_SET_FD, ifd) < 0)
		return -1;
	if (ioctl(lfd, LOOP_SET_STATUS64, &cfg.info) < 0) {
		int saved = errno;
		ioctl(lfd, LOOP_CLR_FD, 0);
		errno = saved;
		return -1;
	}
	return 0;
}

/* A free loop device, attached to the image: another program may take the
   one the kernel offered first (EBUSY), so a few are tried. */
static int loop_attach(bc_fs *fs, int ifd, bc_err *e)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		bc_err_set(e, "machine.fs: cannot open /dev/loop-control: %s", strerror(errno));
		bc_err_hint(e, "load the loop module (modprobe loop)");
		return -1;
	}
	for (int tries = 0; tries < 16; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			break;
		snprintf(fs->loop, sizeof fs->loop, "/dev/loop%d", n);
		int lfd = open(fs->loop, O_RDWR | O_CLOEXEC);
		if (lfd >= 0 && loop_config(lfd, ifd, fs->image) == 0) {
			fs->lfd = lfd;
			close(ctl);
			return 0;
		}
		int saved = errno;
		if (lfd >= 0)
			close(lfd);
		fs->loop[0] = 0;
		if (saved != EBUSY) {
			errno = saved;
			break;
		}
	}
	bc_err_set(e, "machine.fs: no loop device could be attached to %s: %s", fs->image,
		   strerror(errno));
	close(ctl);
	return -1;
}

/* The names of what will be made, before anything is (the journal has
   them first): the private directory in parent, its mnt and image. */
static int name_paths(bc_fs *fs, const char *parent, unsigned seq, int image, bc_err *e)
{
	int a = snprintf(fs->dir, sizeof fs->dir, "%s/%s%ld.%u", parent, BC_FS_PREFIX,
			 (long)getpid(), seq);
	int b = snprintf(fs->mnt, sizeof fs->mnt, "%s/mnt", fs->dir);
	int c = image ? snprintf(fs->image, sizeof fs->image, "%s/image", fs->dir) : 0;
	if (a < 0 || b < 0 || c < 0 || (size_t)a >= sizeof fs->dir ||
	    (size_t)b >= sizeof fs->mnt || (size_t)c >= sizeof fs->image) {
		bc_err_set(e, "machine.fs_device: the directory %s is too long a path", parent);
		fs->dir[0] = 0;
		return -1;
	}
	return 0;
}

/* The private directory, the mount point, the image (O_EXCL: never a file
   someone placed there), its loop device; the image is unlinked once the
   loop device holds it (fsdev.h: its blocks go with the loop device). */
static int make_image(bc_fs *fs, const char *dir, unsigned long long size, unsigned seq,
		      bc_err *e)
{
	if (name_paths(fs, strcmp(dir, "/") ? dir : "", seq, 1, e) < 0 || journal(fs, e) < 0)
		return -1;
	if (mkdir(fs->dir, 0700) < 0 || chmod(fs->dir, 0700) < 0 || mkdir(fs->mnt, 0700) < 0) {
		bc_err_set(e, "machine.fs: cannot make %s: %s", errno == EEXIST ? fs->mnt : fs->dir,
			   strerror(errno));
		if (errno == EEXIST)
			bc_err_hint(e, "a dead run left it: benchcore restore removes it");
		return -1;
	}
	int ifd = open(fs->image, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (ifd < 0 || ftruncate(ifd, (off_t)size) < 0) {
		bc_err_set(e, "machine.fs: cannot make the image %s: %s", fs->image, strerror(errno));
		if (ifd >= 0)
			close(ifd);
		return -1;
	}
	bc_fs_type_of_path(dir, fs->rec.image_fs, sizeof fs->rec.image_fs);
	snprintf(fs->rec.image, sizeof fs->rec.image, "%s", fs->image);
	int rc = loop_attach(fs, ifd, e);
	close(ifd);
	if (rc < 0 || journal(fs, e) < 0)
		return -1;
	unlink(fs->image);
	snprintf(fs->rec.device, sizeof fs->rec.device, "%s", fs->loop);
	char p[64], dio[8] = "0";
	snprintf(p, sizeof p, "/sys/block/%s/loop/dio", fs->loop + 5);
	bc_fs_read_line(p, dio, sizeof dio);
	fs->rec.loop_direct_io = dio[0] == '1';
	snprintf(fs->rec.device_model, sizeof fs->rec.device_model, "loop (image on %s, %s I/O)",
		 fs->rec.image_fs[0] ? fs->rec.image_fs : "unknown",
		 fs->rec.loop_direct_io ? "direct" : "buffered");
	fs->rec.size_bytes = size;
	return 0;
}

/* mkfs, its version and its command recorded. ext4's inode tables and
   journal are written now (lazy_itable_init=0, lazy_journal_init=0): left
   lazy, the kernel's ext4lazyinit thread writes them in the background
   after the mount, during the first cases. mkfs_options come after, so
   the user's own -E replaces it; "--" ends them before the device (the
   plan refused any word mkfs would read as an operand: fsopts.c). */
static int run_mkfs(bc_fs *fs, const char *dev, bc_err *e)
{
	const struct fs_type *t = type_of(fs->spec.type);
	char out[4096];
	char *vargv[] = { (char *)t->mkfs, (char *)t->version_flag, NULL };
	bc_fs_run(vargv, out, sizeof out, NULL);
	snprintf(fs->rec.mkfs_version, sizeof fs->rec.mkfs_version, "%.*s",
		 (int)sizeof fs->rec.mkfs_version - 1, first_line(out));
	char **user = bc_split(fs->spec.mkfs_options, ' ');
	size_t nu = bc_strv_len(user), k = 0;
	char **argv = bc_xcalloc(nu + 8, sizeof *argv);
	argv[k++] = (char *)t->mkfs;
	argv[k++] = (char *)t->force;
	if (!strcmp(t->name, "ext4")) {
		argv[k++] = "-E";
		argv[k++] = "lazy_itable_init=0,lazy_journal_init=0";
	}
	for (size_t i = 0; i < nu; i++)
		if (user[i][0])
			argv[k++] = user[i];
	argv[k++] = "--";
	argv[k++] = (char *)dev;
	char *cmd = bc_strv_join(argv, " ");
	snprintf(fs->rec.mkfs_command, sizeof fs->rec.mkfs_command, "%s", cmd);
	free(cmd);
	int rc = bc_fs_run(argv, out, sizeof out, &fs->rec.make_s);
	free(argv);
	bc_strv_free(user);
	if (rc) {
		bc_err_set(e, "machine.fs: %s failed (%s %d)", fs->rec.mkfs_command,
			   rc == 127 ? "cannot run:" : "exit", rc);
		bc_err_detail(e, "%s", one_line(out));
		bc_err_hint(e, "check machine.mkfs_options");
		return -1;
	}
	return 0;
}

static int do_mount(bc_fs *fs, const char *dev, bc_err *e)
{
	const char *o = fs->spec.mount_options;
	int has_opts = o[0] && strcmp(o, "defaults");
	char *argv[] = { "mount", "-t", fs->spec.type, has_opts ? "-o" : (char *)dev,
			 has_opts ? (char *)o : fs->mnt, has_opts ? (char *)dev : NULL,
			 has_opts ? fs->mnt : NULL, NULL };
	char out[2048];
	int rc = bc_fs_run(argv, out, sizeof out, &fs->rec.mount_s);
	if (rc) {
		bc_err_set(e, "machine.fs: mounting %s (%s, options \"%s\") failed", dev,
			   fs->spec.type, o[0] ? o : "defaults");
		bc_err_detail(e, "%s", one_line(out));
		bc_err_hint(e, "check machine.mount_options (the kernel log says more: dmesg)");
		return -1;
	}
	return 0;
}

/* The mount as the kernel has it: the type asked, on the device made. */
int bc_fs_verify(const bc_fs *fs, bc_err *e)
{
	char type[32], src[PATH_MAX], opts[1024];
	const char *dev = fs->loop[0] ? fs->loop : fs->spec.device;
	if (bc_fs_mountinfo(fs->mnt, type, sizeof type, src, sizeof src, opts, sizeof opts) < 0) {
		bc_err_set(e, "machine.fs: %s is not mounted any more", fs->mnt);
		return -1;
	}
	char rs[PATH_MAX], rd[PATH_MAX];
	int same = realpath(src, rs) && realpath(dev, rd) && !strcmp(rs, rd);
	if (strcmp(type, fs->spec.type) || !same) {
		bc_err_set(e, "machine.fs: %s has %s from %s, not the %s made on %s", fs->mnt,
			   type, src, fs->spec.type, dev);
		return -1;
	}
	return 0;
}

static int mount_and_record(bc_fs *fs, const char *dev, bc_err *e)
{
	if (run_mkfs(fs, dev, e) < 0 || do_mount(fs, dev, e) < 0)
		return -1;
	if (fs->lfd >= 0) {	/* the mount holds the loop device now */
		close(fs->lfd);
		fs->lfd = -1;
	}
	if (bc_fs_verify(fs, e) < 0)
		return -1;
	char src[PATH_MAX];
	bc_fs_mountinfo(fs->mnt, fs->rec.type, sizeof fs->rec.type, src, sizeof src,
			fs->rec.mount_options, sizeof fs->rec.mount_options);
	snprintf(fs->rec.mount_point, sizeof fs->rec.mount_point, "%s", fs->mnt);
	/* what a module's direct I/O will meet there, found once per mount */
	bc_err de;
	fs->rec.o_direct = bc_fs_direct_io(fs, &de) == 0;
	snprintf(fs->rec.o_direct_refused, sizeof fs->rec.o_direct_refused, "%.250s", fs->rec.o_direct ? "" : de.msg);
	return 0;
}

/* A device: the mount point in /run/benchcore, the record's model and size. */
static int use_device(bc_fs *fs, unsigned seq, bc_err *e)
{
	if (mkdir(BC_FS_RUNDIR, 0700) < 0 && errno != EEXIST) {
		bc_err_set(e, "machine.fs: cannot make %s: %s", BC_FS_RUNDIR, strerror(errno));
		return -1;
	}
	if (name_paths(fs, BC_FS_RUNDIR, seq, 0, e) < 0 || journal(fs, e) < 0)
		return -1;
	if (mkdir(fs->dir, 0700) < 0 || chmod(fs->dir, 0700) < 0 || mkdir(fs->mnt, 0700) < 0) {
		bc_err_set(e, "machine.fs: cannot make %s: %s", fs->dir, strerror(errno));
		return -1;
	}
	snprintf(fs->rec.device, sizeof fs->rec.device, "%s", fs->spec.device);
	char rd[PATH_MAX], p[PATH_MAX + 64], v[128] = "", m[128] = "", sz[32] = "";
	if (realpath(fs->spec.device, rd)) {
		const char *base = strrchr(rd, '/') + 1;
		snprintf(p, sizeof p, "/sys/class/block/%s/device/vendor", base);
		bc_fs_read_line(p, v, sizeof v);
		snprintf(p, sizeof p, "/sys/class/block/%s/device/model", base);
		bc_fs_read_line(p, m, sizeof m);
		snprintf(p, sizeof p, "/sys/class/block/%s/size", base);
		if (bc_fs_read_line(p, sz, sizeof sz) == 0)
			fs->rec.size_bytes = strtoull(sz, NULL, 10) * 512;
	}
	snprintf(fs->rec.device_model, sizeof fs->rec.device_model, "%s%s%s", v,
		 v[0] && m[0] ? " " : "", m[0] || v[0] ? m : "unknown");
	return 0;
}

int bc_fs_apply(const bc_fs_spec *s, unsigned seq, bc_fs_journal_fn jf, void *ctx,
		bc_fs **out, bc_err *e)
{
	*out = NULL;
	char dir[PATH_MAX], size[64], real[PATH_MAX];
	bc_fs_spec rs = *s;
	/* an image's directory by its real path, checked and used as that one */
	if (bc_fs_image_parts(s->device, dir, sizeof dir, size, sizeof size) && dir[0] == '/' &&
	    realpath(dir, real) && strcmp(real, dir) &&
	    (size_t)snprintf(rs.device, sizeof rs.device, "image:%s:%s", real, size) >= sizeof rs.device) {
		bc_err_set(e, "machine.fs_device: %s is %s, too long a path", dir, real);
		return -1;
	}
	s = &rs;
	if (bc_fs_check(s, e) < 0)
		return -1;
	bc_fs *fs = bc_xcalloc(1, sizeof *fs);
	fs->spec = *s;
	fs->lfd = -1;
	fs->jf = jf;
	fs->ctx = ctx;
	uint64_t bytes = 0;
	int rc;
	if (bc_fs_image_parts(s->device, dir, sizeof dir, size, sizeof size)) {
		bc_parse_size(size, &bytes);
		rc = make_image(fs, dir, bytes, seq, e);
	} else {
		rc = use_device(fs, seq, e);
	}
	if (rc == 0)
		rc = mount_and_record(fs, fs->loop[0] ? fs->loop : s->device, e);
	if (rc < 0) {
		bc_err undo;
		if (bc_fs_teardown(fs, &undo) < 0)
			bc_err_detail(e, "%s; and undoing it: %s", e->detail, undo.msg);
		return -1;
	}
	*out = fs;
	return 0;
}

const char *bc_fs_dir(const bc_fs *fs)
{
	return fs->mnt;
}

const bc_fs_record *bc_fs_rec(const bc_fs *fs)
{
	return &fs->rec;
}

/* Teardown is restore on the journal this run would have left: one undo
   path, whether the run ends, fails half-way or was killed. */
int bc_fs_teardown(bc_fs *fs, bc_err *e)
{
	if (!fs)
		return 0;
	if (fs->lfd >= 0)
		close(fs->lfd);
	int rc = 0;
	if (fs->dir[0]) {
		char *t = bc_fs_journal_text(fs);
		rc = bc_fs_restore(t, NULL, 0, e);
		free(t);
	}
	free(fs);
	return rc;
}
