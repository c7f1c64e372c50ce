/* File systems under test: the plan's checks (fsdev.h). Nothing here
   writes or opens anything for writing: a device is looked at through
   sysfs, mountinfo, /proc/swaps, a read-only exclusive open and blkid.

   Signatures come from `blkid -p` (util-linux, on every Linux machine
   benchcore runs on, and the probe wipefs itself uses), not from linking
   libblkid: the check runs once per plan, so an exec costs nothing that
   matters, and the core, its arm64 sysroot and its Debian package gain no
   library for it. -p probes the device itself (never the udev cache) for
   file systems, partition tables, RAID and LVM members alike. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "fsdev_int.h"
#include "trust.h"

#define MAX_DEVS 64
typedef struct devset {
	dev_t d[MAX_DEVS];
	char name[MAX_DEVS][64];	/* its kernel name: sda, sda1, dm-0 */
	size_t n;
} devset;

static int sysfs_dev(const char *dir, dev_t *out)
{
	char p[PATH_MAX + 8], b[32];
	unsigned ma, mi;
	snprintf(p, sizeof p, "%s/dev", dir);
	if (bc_fs_read_line(p, b, sizeof b) < 0 || sscanf(b, "%u:%u", &ma, &mi) != 2)
		return -1;
	*out = makedev(ma, mi);
	return 0;
}

static void add(devset *s, dev_t d, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->d[i] == d)
			return;
	if (s->n < MAX_DEVS) {
		snprintf(s->name[s->n], sizeof s->name[0], "%.63s", name);
		s->d[s->n++] = d;
	}
}

static int has(const devset *s, dev_t d)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->d[i] == d)
			return (int)i;
	return -1;
}

/* The device's sysfs directory (resolved), and its whole disk's. */
static int sysfs_of(dev_t d, char *dir, size_t n, char *disk, size_t dn)
{
	char p[64], pf[PATH_MAX + 16];
	struct stat st;
	snprintf(p, sizeof p, "/sys/dev/block/%u:%u", major(d), minor(d));
	if (!realpath(p, dir))
		return -1;
	snprintf(disk, dn, "%s", dir);
	snprintf(pf, sizeof pf, "%s/partition", dir);
	if (stat(pf, &st) == 0)
		*strrchr(disk, '/') = 0;
	(void)n;
	return 0;
}

/* The device, its partitions, and (deep) the devices under it: what a
   mount, a holder or swap of any of them makes busy. */
static void collect(devset *s, dev_t d, int depth)
{
	char dir[PATH_MAX], disk[PATH_MAX];
	if (depth > 4 || sysfs_of(d, dir, sizeof dir, disk, sizeof disk) < 0)
		return;
	add(s, d, strrchr(dir, '/') + 1);
	DIR *dd = opendir(dir);
	struct dirent *de;
	while (dd && (de = readdir(dd))) {
		char sub[PATH_MAX + 300], pf[PATH_MAX + 320];
		struct stat st;
		dev_t pd;
		snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
		snprintf(pf, sizeof pf, "%s/partition", sub);
		if (de->d_name[0] != '.' && stat(pf, &st) == 0 && sysfs_dev(sub, &pd) == 0)
			add(s, pd, de->d_name);
	}
	if (dd)
		closedir(dd);
}

/* The disks under a mount: the device, its whole disk, and the slaves
   of a device-mapper or md device it sits on. */
static void disks_under(devset *s, dev_t d, int depth)
{
	char dir[PATH_MAX], disk[PATH_MAX], p[PATH_MAX + 16];
	dev_t wd;
	if (depth > 4 || sysfs_of(d, dir, sizeof dir, disk, sizeof disk) < 0)
		return;
	add(s, d, strrchr(dir, '/') + 1);
	if (sysfs_dev(disk, &wd) == 0)
		add(s, wd, strrchr(disk, '/') + 1);
	snprintf(p, sizeof p, "%s/slaves", disk);
	DIR *dd = opendir(p);
	struct dirent *de;
	while (dd && (de = readdir(dd))) {
		char sub[PATH_MAX + 300];
		dev_t sd;
		snprintf(sub, sizeof sub, "%s/%s", p, de->d_name);
		if (de->d_name[0] != '.' && sysfs_dev(sub, &sd) == 0)
			disks_under(s, sd, depth + 1);
	}
	if (dd)
		closedir(dd);
}

/* The system's own disks: under /, /boot and /boot/efi (st_dev, and the
   mount's source for btrfs, whose st_dev is an anonymous number). */
static void system_disks(devset *s)
{
	static const char *const points[] = { "/", "/boot", "/boot/efi" };
	for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
		struct stat st;
		char type[32], src[PATH_MAX], opts[1024];
		if (stat(points[i], &st) == 0 && major(st.st_dev))
			disks_under(s, st.st_dev, 0);
		if (bc_fs_mountinfo(points[i], type, sizeof type, src, sizeof src, opts,
				    sizeof opts) == 0 && stat(src, &st) == 0 && S_ISBLK(st.st_mode))
			disks_under(s, st.st_rdev, 0);
	}
}

struct mounted { const devset *s; char where[PATH_MAX + 80]; };
static int mounted_one(void *ctx, const char *point, const char *type, const char *source,
		       dev_t dev)
{
	struct mounted *m = ctx;
	struct stat st;
	int i = has(m->s, dev);
	if (i < 0 && !strncmp(source, "/dev/", 5) && stat(source, &st) == 0 && S_ISBLK(st.st_mode))
		i = has(m->s, st.st_rdev);
	if (i < 0)
		return 0;
	snprintf(m->where, sizeof m->where, "%s is mounted on %s (%s)", m->s->name[i], point, type);
	return 1;
}

/* Holders (device-mapper: LVM, dm-crypt, multipath; md; bcache) and swap. */
static int held(const devset *s, char *why, size_t n)
{
	for (size_t i = 0; i < s->n; i++) {
		char p[128];
		snprintf(p, sizeof p, "/sys/class/block/%s/holders", s->name[i]);
		DIR *d = opendir(p);
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(why, n, "%s is held by %s (device-mapper: LVM, dm-crypt; "
					 "md: a RAID array)", s->name[i], de->d_name);
				closedir(d);
				return 1;
			}
		if (d)
			closedir(d);
	}
	FILE *f = fopen("/proc/swaps", "re");
	char line[PATH_MAX + 128], dev[PATH_MAX];
	struct stat st;
	while (f && fgets(line, sizeof line, f)) {
		int i;
		if (sscanf(line, "%4095s", dev) == 1 && stat(dev, &st) == 0 && S_ISBLK(st.st_mode) &&
		    (i = has(s, st.st_rdev)) >= 0) {
			snprintf(why, n, "%s is swap space", s->name[i]);
			fclose(f);
			return 1;
		}
	}
	if (f)
		fclose(f);
	return 0;
}

/* blkid -p: "" when the device carries nothing, else what it carries. */
static int signature(const char *dev, char *sig, size_t n, bc_err *e)
{
	char out[2048];
	char *argv[] = { "blkid", "-p", "-o", "export", (char *)dev, NULL };
	int rc = bc_fs_run(argv, out, sizeof out, NULL);
	sig[0] = 0;
	if (rc == 2)	/* nothing found */
		return 0;
	if (rc != 0) {
		bc_err_set(e, "machine.fs_device: %s could not be probed (blkid -p: %s %d)", dev,
			   rc == 127 ? "cannot run," : "exit", rc);
		bc_err_detail(e, "%s", out);
		bc_err_hint(e, "blkid is in util-linux; exit 8 means two signatures at once");
		return -1;
	}
	char *save = NULL;
	size_t len = 0;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, "TYPE=", 5) || !strncmp(l, "PTTYPE=", 7) || !strncmp(l, "USAGE=", 6))
			len += (size_t)snprintf(sig + len, len < n ? n - len : 0, "%s%s",
						len ? ", " : "", l);
	if (!sig[0])
		snprintf(sig, n, "a signature blkid names no type for");
	return 0;
}

static int refuse(bc_err *e, const char *dev, const char *why, const char *hint)
{
	bc_err_set(e, "machine.fs_device: %s is refused: %s", dev, why);
	bc_err_detail(e, "nothing was changed");
	if (hint)
		bc_err_hint(e, "%s", hint);
	return -1;
}

/* A stable name survives a reboot and a new disk: /dev/sdb does not. A
   loop device has none, and is one the user attached. */
static int stable_name(const char *p)
{
	return !strncmp(p, "/dev/disk/by-", 13) ||
	       (!strncmp(p, "/dev/loop", 9) && p[9] >= '0' && p[9] <= '9');
}

static int check_use(const char *dev, dev_t rdev, bc_err *e)
{
	devset mine = { .n = 0 }, sys = { .n = 0 };
	collect(&mine, rdev, 0);
	system_disks(&sys);
	for (size_t i = 0; i < mine.n; i++)
		if (has(&sys, mine.d[i]) >= 0)
			return refuse(e, dev, "it is the root or boot device (/, /boot or /boot/efi "
				      "is on it or on a partition of its disk)", NULL);
	char disk[PATH_MAX], dir[PATH_MAX];
	dev_t wd;
	if (sysfs_of(rdev, dir, sizeof dir, disk, sizeof disk) == 0 && sysfs_dev(disk, &wd) == 0 &&
	    has(&sys, wd) >= 0)
		return refuse(e, dev, "it is a partition of the root or boot disk", NULL);
	struct mounted m = { .s = &mine };
	if (bc_fs_mountinfo_each(mounted_one, &m) == 1)
		return refuse(e, dev, m.where, "unmount it first, or name another device");
	char why[512];
	if (held(&mine, why, sizeof why))
		return refuse(e, dev, why, NULL);
	int fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		return refuse(e, dev, "it is in use (the kernel refuses an exclusive open: a zpool, "
			      "a file system or an array holds it)", NULL);
	if (fd >= 0)
		close(fd);
	return 0;
}

static int check_device(const bc_fs_spec *s, bc_err *e)
{
	char real[PATH_MAX], sig[512];
	struct stat st;
	if (!realpath(s->device, real) || stat(real, &st) < 0) {
		bc_err_set(e, "machine.fs_device: cannot find %s: %s", s->device, strerror(errno));
		bc_err_hint(e, "a block device by its /dev/disk/by-id path, or image:DIR:SIZE");
		return -1;
	}
	if (!S_ISBLK(st.st_mode))
		return refuse(e, s->device, "not a block device",
			      "a sparse image is fs_device = \"image:DIR:SIZE\"");
	if (check_use(s->device, st.st_rdev, e) < 0)
		return -1;
	if (!stable_name(s->device))
		return refuse(e, s->device, "not a stable name (a /dev/sdX name can point at "
			      "another disk after a reboot)", "name it by /dev/disk/by-id/...");
	if (signature(real, sig, sizeof sig, e) < 0)
		return -1;
	if (strcmp(s->wipe, s->device)) {
		char why[700];
		snprintf(why, sizeof why, "%s%s%s", sig[0] ? "it carries " : "",
			 sig[0] ? sig : "", sig[0] ? ", and machine.wipe_device does not name it"
			 : "machine.wipe_device does not name it");
		char *hint = bc_xasprintf("benchcore makes a file system on a device only when "
					  "machine.wipe_device = \"%s\" too (all on it is lost)",
					  s->device);
		refuse(e, s->device, why, hint);
		free(hint);
		return -1;
	}
	return 0;
}

static int check_image(const bc_fs_spec *s, bc_err *e)
{
	char dir[PATH_MAX], size[64];
	uint64_t bytes;
	struct stat st;
	struct statvfs vs;
	bc_fs_image_parts(s->device, dir, sizeof dir, size, sizeof size);
	/* through its real path (a link to it is resolved: the kernel names the
	   mount and the loop device's file by the real one, and the checks below
	   are of the directory the image goes in) */
	char real[PATH_MAX], given[PATH_MAX];
	snprintf(given, sizeof given, "%s", dir);
	if (dir[0] == '/' && realpath(dir, real) && strcmp(real, dir)) {
		if (strlen(real) >= sizeof dir) {
			bc_err_set(e, "machine.fs_device: %s is %s, too long a path", dir, real);
			return -1;
		}
		snprintf(dir, sizeof dir, "%s", real);
	}
	if (dir[0] != '/' || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		bc_err_set(e, "machine.fs_device: \"%s\": %s is not a directory", s->device, dir);
		bc_err_hint(e, "image:DIR:SIZE, DIR an absolute path (image:/var/tmp:4G)");
		return -1;
	}
	if (st.st_uid != 0 || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
		bc_err_set(e, "machine.fs_device: %s can be written by others than root", dir);
		bc_err_detail(e, "someone could replace the image or the mount point under benchcore");
		bc_err_hint(e, "a directory root owns, not group or world writable (or sticky, as /tmp)");
		return -1;
	}
	/* and the way to it: a link another user owns (or can replace) could
	   point elsewhere by the time the run makes the image */
	bc_err te;
	if (bc_trust_walk(given, given, BC_TRUST_USE | BC_TRUST_STICKY_OK, "the image directory", &te)) {
		bc_err_set(e, "machine.fs_device: %s", te.msg);
		bc_err_detail(e, "%s", te.detail);
		bc_err_hint(e, "%s", te.hint);
		return -1;
	}
	unsigned long long min = bc_fs_min_size(s->type);
	if (bc_parse_size(size, &bytes) < 0 || bytes < min) {
		char m[32];
		bc_format_size(min, m, sizeof m);
		bc_err_set(e, "machine.fs_device: \"%s\": the size must be at least %s for %s", s->device,
			   m, s->type);
		bc_err_hint(e, "a size as 4G or 512M");
		return -1;
	}
	if (statvfs(dir, &vs) == 0 && (unsigned long long)vs.f_bavail * vs.f_frsize < bytes) {
		char h[32];
		bc_err_set(e, "machine.fs_device: %s has %s free, less than the image's %s", dir,
			   bc_human_size((double)vs.f_bavail * vs.f_frsize, h, sizeof h), size);
		bc_err_detail(e, "the image is sparse, but the cases' files would fill it");
		return -1;
	}
	return 0;
}

int bc_fs_check(const bc_fs_spec *s, bc_err *e)
{
	if (!bc_fs_type_known(s->type)) {
		bc_err_set(e, "machine.fs: \"%s\" is not a file system benchcore makes", s->type);
		bc_err_hint(e, "ext4, xfs or btrfs");
		return -1;
	}
	if (bc_fs_mkfs_opts_check(s->type, s->mkfs_options, e) < 0 ||
	    bc_fs_mount_opts_check(s->mount_options, e) < 0)
		return -1;
	if (geteuid() != 0) {
		bc_err_set(e, "machine.fs: making and mounting a file system needs root");
		return -1;
	}
	if (bc_fs_tool_check(s->type, e) < 0)
		return -1;
	char dir[8], size[8];
	if (bc_fs_image_parts(s->device, dir, sizeof dir, size, sizeof size))
		return check_image(s, e);
	return check_device(s, e);
}
