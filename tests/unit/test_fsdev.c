/* File systems under test (core/machine/fsdev.c) for real: ext4, xfs and
   btrfs made on sparse images attached to loop devices, mounted, checked in
   /proc/self/mountinfo, recorded and torn down; a spare device (a loop
   device this test attaches to its own image) refused when it carries a
   signature and wipe_device does not name it, when it is mounted, when it
   is swap, when something holds it exclusively, and the root device
   refused, each with nothing touched (holders need device-mapper or md,
   which this kind of machine lacks: not tested); a run killed with SIGKILL
   after the mount, after naming its directory and after the loop device's
   attach, then restored from its journal. Without root, the loop driver or
   the mkfs tools, the parts that need them are skipped (and say so); the
   record's JSON and the plan's refusals of bad input run everywhere.
   tests/integration/test_fsdev.sh runs this binary and checks that nothing
   it made is left on the machine. */
#include "unit.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fsdev.h"
#include "fsdev_int.h"
#include "util.h"

static char top[256];		/* a root-only scratch directory: the images go here */

static int can_make(const char *type)
{
	bc_fs_spec s = { 0 };
	bc_err e;
	snprintf(s.type, sizeof s.type, "%s", type);
	snprintf(s.device, sizeof s.device, "image:%s:512M", top);
	if (geteuid() != 0 || access("/dev/loop-control", R_OK | W_OK) != 0)
		return 0;
	return bc_fs_check(&s, &e) == 0;
}

#define NEED(type)                                                                   \
	do {                                                                         \
		if (!can_make(type)) {                                               \
			print_message("SKIP: %s: needs root, /dev/loop-control and mkfs.%s\n", \
				      __func__, type);                               \
			skip();                                                      \
		}                                                                    \
	} while (0)

static void sh(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

/* Nothing of the private directory's: not mounted, no loop device backed
   by its image, the directory gone. */
static void assert_gone(const char *dir)
{
	char type[32], src[256], opts[1024], *mnt = bc_xasprintf("%s/mnt", dir);
	assert_int_equal(bc_fs_mountinfo(mnt, type, sizeof type, src, sizeof src, opts,
					 sizeof opts), -1);
	char *cmd = bc_xasprintf("! grep -qs '%s/image' /sys/block/loop*/loop/backing_file", dir);
	sh(cmd);
	struct stat st;
	assert_int_equal(stat(dir, &st), -1);
	free(cmd);
	free(mnt);
}

struct jlog { int calls; char last[4096]; };
static int keep_journal(void *ctx, const char *text)
{
	struct jlog *j = ctx;
	j->calls++;
	snprintf(j->last, sizeof j->last, "%s", text);
	return 0;
}

static void spec(bc_fs_spec *s, const char *type, const char *dev, const char *mkfs,
		 const char *mnt_opts)
{
	memset(s, 0, sizeof *s);
	snprintf(s->type, sizeof s->type, "%s", type);
	snprintf(s->device, sizeof s->device, "%s", dev);
	snprintf(s->mkfs_options, sizeof s->mkfs_options, "%s", mkfs);
	snprintf(s->mount_options, sizeof s->mount_options, "%s", mnt_opts);
}

/* One type: made, mounted as asked, written to, recorded, torn down. */
static void make_one(const char *type, const char *opts, const char *want_opt)
{
	bc_fs_spec s;
	char dev[400];
	snprintf(dev, sizeof dev, "image:%s:512M", top);
	spec(&s, type, dev, "", opts);
	struct jlog j = { 0 };
	bc_fs *fs;
	bc_err e;
	int rc = bc_fs_apply(&s, 7, keep_journal, &j, &fs, &e);
	if (rc)
		print_message("apply: %s / %s\n", e.msg, e.detail);
	assert_int_equal(rc, 0);
	const bc_fs_record *r = bc_fs_rec(fs);
	char type_m[32], src[256], mopts[1024];
	assert_int_equal(bc_fs_mountinfo(bc_fs_dir(fs), type_m, sizeof type_m, src, sizeof src,
					 mopts, sizeof mopts), 0);
	assert_string_equal(type_m, type);
	assert_string_equal(r->type, type);
	assert_string_equal(src, r->device);
	assert_true(!strncmp(r->device, "/dev/loop", 9));
	assert_non_null(strstr(r->mount_options, want_opt));
	assert_string_equal(r->mount_options, mopts);
	assert_true(strlen(r->mkfs_version) > 3);
	assert_non_null(strstr(r->mkfs_command, r->device));
	assert_true(r->image_fs[0] != 0);
	assert_int_equal(r->size_bytes, 512ull << 20);
	assert_true(j.calls >= 2);			/* named first, then the loop device */
	assert_non_null(strstr(j.last, r->device));
	struct stat st;
	assert_int_equal(stat(r->image, &st), -1);	/* unlinked once attached */
	assert_int_equal(stat(bc_fs_dir(fs), &st), 0);
	assert_int_equal(bc_fs_verify(fs, &e), 0);
	assert_int_equal(bc_fs_direct_io(fs, &e), 0);
	char *f = bc_xasprintf("%s/file", bc_fs_dir(fs)), *cmd;
	cmd = bc_xasprintf("dd if=/dev/zero of=%s bs=1M count=8 conv=fsync status=none", f);
	sh(cmd);
	char dir[512];
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(bc_fs_dir(fs), '/') - bc_fs_dir(fs)),
		 bc_fs_dir(fs));
	print_message("%s: mkfs %.2f s, mount %.3f s, options %s; %s\n", type, r->make_s,
		      r->mount_s, r->mount_options, r->device_model);
	assert_non_null(strstr(r->device_model, r->loop_direct_io ? "direct I/O" : "buffered I/O"));
	assert_int_equal(bc_fs_teardown(fs, &e), 0);
	assert_gone(dir);
	free(f);
	free(cmd);
}

static void test_ext4(void **state)
{
	(void)state;
	NEED("ext4");
	make_one("ext4", "", "rw");
	make_one("ext4", "noatime,nodiratime", "noatime");
}

static void test_xfs(void **state)
{
	(void)state;
	NEED("xfs");
	make_one("xfs", "defaults", "rw");
	make_one("xfs", "noatime,logbufs=4", "logbufs=4");
}

static void test_btrfs(void **state)
{
	(void)state;
	NEED("btrfs");
	make_one("btrfs", "", "rw");
	make_one("btrfs", "noatime,compress=zstd", "compress=zstd");
}

/* Apply must fail saying want; had it succeeded, what it made is torn
   down before the test fails. */
static void apply_fails(const bc_fs_spec *s, unsigned seq, const char *want)
{
	bc_fs *fs;
	bc_err e, e2;
	if (bc_fs_apply(s, seq, NULL, NULL, &fs, &e) == 0) {
		bc_fs_teardown(fs, &e2);
		fail_msg("%s / %s / %s: made", s->type, s->mkfs_options, s->mount_options);
	}
	assert_null(fs);
	print_message("failed: %s (%s)\n", e.msg, e.detail);
	if (!strstr(e.msg, want))
		fail_msg("\"%s\" does not say \"%s\"", e.msg, want);
}

/* A failure half-way (mkfs refuses its options; the kernel refuses a mount
   option) undoes everything made before it. */
static void test_failures_undone(void **state)
{
	(void)state;
	NEED("ext4");
	char dev[400];
	snprintf(dev, sizeof dev, "image:%s:64M", top);
	bc_fs_spec s;
	spec(&s, "ext4", dev, "-O no_such_feature", "");
	apply_fails(&s, 1, "mkfs.ext4 -F -E lazy_itable_init=0,lazy_journal_init=0 -O no_such_feature -- /dev/loop");
	spec(&s, "ext4", dev, "", "no_such_option=1");
	apply_fails(&s, 2, "options \"no_such_option=1\") failed");
	char *d1 = bc_xasprintf("%s/.benchcore-fs.%ld.1", top, (long)getpid());
	char *d2 = bc_xasprintf("%s/.benchcore-fs.%ld.2", top, (long)getpid());
	assert_gone(d1);
	assert_gone(d2);
	free(d1);
	free(d2);
}

/* The plan's refusals of bad input: nothing is made for any of them. */
static void test_plan_refusals(void **state)
{
	(void)state;
	bc_fs_spec s;
	bc_err e;
	spec(&s, "ntfs", "image:/tmp:1G", "", "");
	assert_int_equal(bc_fs_check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "\"ntfs\" is not a file system benchcore makes"));
	if (geteuid() != 0) {
		print_message("SKIP: the rest needs root\n");
		return;
	}
	spec(&s, "ext4", "image:relative/dir:1G", "", "");
	assert_int_equal(bc_fs_check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "is not a directory"));
	char dev[400];
	snprintf(dev, sizeof dev, "image:%s:100M", top);
	spec(&s, "xfs", dev, "", "");
	if (bc_fs_check(&s, &e) == 0)
		fail_msg("a 100M xfs image was accepted");
	if (!strstr(e.msg, "not installed"))
		assert_non_null(strstr(e.msg, "at least 300M for xfs"));
	spec(&s, "ext4", "image:/tmp:100T", "", "");
	assert_int_equal(bc_fs_check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "free, less than the image's 100T"));
	char *open_dir = bc_xasprintf("%s/open", top);
	assert_int_equal(mkdir(open_dir, 0777), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	snprintf(dev, sizeof dev, "image:%s:64M", open_dir);
	spec(&s, "ext4", dev, "", "");
	assert_int_equal(bc_fs_check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "can be written by others than root"));
	rmdir(open_dir);
	free(open_dir);
	spec(&s, "ext4", "/dev/null", "", "");
	assert_int_equal(bc_fs_check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "not a block device"));
}

/* mkfs_options and mount_options add options, never operands (issue 59):
   a device, a path, an operand or a missing value refused, naming the
   setting and the word; the options a user means taken. No root needed. */
static void opts_refused(const char *type, const char *mkfs, const char *mnt, const char *want)
{
	bc_err e;
	int rc = mnt ? bc_fs_mount_opts_check(mnt, &e) : bc_fs_mkfs_opts_check(type, mkfs, &e);
	if (rc == 0)
		fail_msg("%s \"%s\" accepted", type, mnt ? mnt : mkfs);
	print_message("refused: %s\n", e.msg);
	if (!strstr(e.msg, want))
		fail_msg("\"%s\" does not say \"%s\"", e.msg, want);
}

static void test_options(void **state)
{
	(void)state;
	bc_err e;
	static const char *const good[][2] = {
		{ "ext4", "-m 0 -L data -O ^has_journal -E lazy_itable_init=1" },
		{ "ext4", "-m0 -q  -b 4096 -T news -N 1000 -j" },
		{ "xfs", "-m crc=1 -L x -i size=512 -K -q" },
		{ "btrfs", "-L lbl -m single -d single --csum xxhash --nodesize=16384 -M -q -K" },
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		if (bc_fs_mkfs_opts_check(good[i][0], good[i][1], &e))
			fail_msg("%s \"%s\" refused: %s", good[i][0], good[i][1], e.msg);
	opts_refused("btrfs", "/dev/loop2", NULL, "machine.mkfs_options: \"/dev/loop2\" is refused: it names a path");
	opts_refused("btrfs", "-f /dev/loop2", NULL, "\"/dev/loop2\" is refused: it names a path");
	opts_refused("btrfs", "-q loop2", NULL, "\"loop2\" is refused: not an option");
	opts_refused("btrfs", "-L x -- -y", NULL, "\"--\" is refused: not an option");
	opts_refused("btrfs", "-K -", NULL, "\"-\" is refused");
	opts_refused("btrfs", "--rootdir=/etc", NULL, "it names a path");
	opts_refused("xfs", "-l logdev=/dev/loop2", NULL, "\"logdev=/dev/loop2\" is refused: it names a path");
	opts_refused("ext4", "-J device=/dev/loop2", NULL, "it names a path");
	opts_refused("ext4", "-qJdevice=/dev/loop2", NULL, "it names a path");
	opts_refused("ext4", "-m 0 16M", NULL, "\"16M\" is refused: not an option");
	opts_refused("ext4", "-L", NULL, "\"-L\" is refused: its value is missing");
	opts_refused("ext4", "-z .", NULL, "\".\" is refused: it names an existing file or directory");
	opts_refused("ext4", "-E x=..", NULL, "it names an existing file or directory");
	assert_int_equal(bc_fs_mount_opts_check("noatime,commit=60,compress=zstd:3", &e), 0);
	assert_int_equal(bc_fs_mount_opts_check("defaults", &e), 0);
	assert_int_equal(bc_fs_mount_opts_check("", &e), 0);
	opts_refused(NULL, NULL, "noatime,device=/dev/loop2", "machine.mount_options: \"device=/dev/loop2\" is refused: it names a path");
	opts_refused(NULL, NULL, "noatime /dev/loop2", "it names a path");
	opts_refused(NULL, NULL, "noatime nodiratime", "not a comma-separated list");
	opts_refused(NULL, NULL, "noatime,,x", "not a comma-separated list");
	opts_refused(NULL, NULL, "-t,ext4", "not a comma-separated list");
	opts_refused(NULL, NULL, "<b>x</b>", "it names a path");
	opts_refused(NULL, NULL, "logdev=..", "it names an existing file or directory");
	bc_fs_spec s;
	spec(&s, "btrfs", "/dev/loop3", "/dev/loop2", "");
	assert_int_equal(bc_fs_check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "machine.mkfs_options: \"/dev/loop2\" is refused"));
}

/* A spare device: a loop device on this test's own image (never a disk of
   the machine). What blkid says of it and a checksum of its first MiB are
   taken before each refusal and compared after. */
static char spare[64], spare_img[300];
static void attach_spare(void)
{
	snprintf(spare_img, sizeof spare_img, "%s/spare.img", top);
	char *cmd = bc_xasprintf("truncate -s 512M %s", spare_img);
	sh(cmd);
	free(cmd);
	cmd = bc_xasprintf("losetup -f --show %s", spare_img);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(spare, sizeof spare, p));
	spare[strcspn(spare, "\n")] = 0;
	pclose(p);
	free(cmd);
}

static void detach_spare(void)
{
	char *cmd = bc_xasprintf("losetup -d %s; rm -f %s", spare, spare_img);
	sh(cmd);
	free(cmd);
}

static int spare_mounted;	/* the kernel itself writes a mounted ext4's superblock */
static char *fingerprint(void)
{
	char *cmd = bc_xasprintf("(blkid -p -o export %s; %s %s | md5sum) 2>&1", spare,
				 spare_mounted ? "echo mounted:" : "head -c 1M", spare);
	FILE *p = popen(cmd, "r");
	char buf[2048] = "";
	size_t n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = 0;
	pclose(p);
	free(cmd);
	return bc_xstrdup(buf);
}

static void refused(const char *dev, const char *wipe, const char *want)
{
	bc_fs_spec s;
	bc_err e;
	spec(&s, "ext4", dev, "", "");
	snprintf(s.wipe, sizeof s.wipe, "%s", wipe);
	char *before = fingerprint();
	bc_fs *fs = (bc_fs *)1;
	assert_int_equal(bc_fs_apply(&s, 3, NULL, NULL, &fs, &e), -1);
	assert_null(fs);
	print_message("refused: %s\n", e.msg);
	if (!strstr(e.msg, want))
		fail_msg("\"%s\" does not say \"%s\"", e.msg, want);
	char *after = fingerprint();
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_device_refusals(void **state)
{
	(void)state;
	NEED("ext4");
	attach_spare();
	char *cmd = bc_xasprintf("mkfs.ext4 -q -F %s", spare), *mnt = bc_xasprintf("%s/m", top);
	sh(cmd);
	free(cmd);
	refused(spare, "", "it carries TYPE=ext4");
	refused(spare, "", "wipe_device does not name it");
	refused(spare, "/dev/loop999", "wipe_device does not name it");
	assert_int_equal(mkdir(mnt, 0700), 0);
	cmd = bc_xasprintf("mount %s %s", spare, mnt);
	sh(cmd);
	free(cmd);
	spare_mounted = 1;
	refused(spare, spare, "is mounted on ");
	spare_mounted = 0;
	assert_int_equal(umount(mnt), 0);
	rmdir(mnt);
	int fd = open(spare, O_RDONLY | O_EXCL);
	assert_true(fd >= 0);
	refused(spare, spare, "it is in use");
	close(fd);
	cmd = bc_xasprintf("mkswap %s >/dev/null && swapon %s", spare, spare);
	if (system(cmd) == 0) {
		free(cmd);
		cmd = bc_xasprintf("swapoff %s", spare);
		refused(spare, spare, "is swap space");
		sh(cmd);
	} else {
		print_message("SKIP: swapon on a loop device is not allowed here\n");
	}
	free(cmd);
	/* named twice: made (over the old signature), then torn down */
	bc_fs_spec s;
	bc_fs *fs;
	bc_err e;
	spec(&s, "xfs", spare, "", "");
	snprintf(s.wipe, sizeof s.wipe, "%s", spare);
	if (can_make("xfs")) {
		assert_int_equal(bc_fs_apply(&s, 4, NULL, NULL, &fs, &e), 0);
		assert_string_equal(bc_fs_rec(fs)->type, "xfs");
		assert_string_equal(bc_fs_rec(fs)->device, spare);
		assert_non_null(strstr(bc_fs_rec(fs)->mkfs_command, "mkfs.xfs -f"));
		assert_int_equal(bc_fs_teardown(fs, &e), 0);
	}
	detach_spare();
	free(mnt);
}

/* The device / is on, by its kernel name: refused before anything is
   probed (stat and sysfs only). */
static void test_root_refused(void **state)
{
	(void)state;
	struct stat st;
	char p[64], real[256], dev[300];
	assert_int_equal(stat("/", &st), 0);
	snprintf(p, sizeof p, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (geteuid() != 0 || !realpath(p, real)) {
		print_message("SKIP: / is on no block device here (or not root)\n");
		skip();
	}
	snprintf(dev, sizeof dev, "/dev/%s", strrchr(real, '/') + 1);
	bc_fs_spec s;
	bc_err e;
	spec(&s, "ext4", dev, "", "");
	snprintf(s.wipe, sizeof s.wipe, "%s", dev);
	assert_int_equal(bc_fs_check(&s, &e), -1);
	print_message("refused: %s\n", e.msg);
	assert_non_null(strstr(e.msg, "root or boot"));
}

/* A run killed outright: its journal is all a restore has. at = the
   journal call after which the child dies (1: named, 2: loop attached),
   0: after the mount. */
static int die_at;
static int journal_then_die(void *ctx, const char *text)
{
	struct jlog *j = ctx;
	j->calls++;
	char *path = bc_xasprintf("%s/journal", top);
	bc_err e;
	if (bc_write_atomic(path, text, strlen(text), &e) < 0)
		_exit(3);
	free(path);
	if (j->calls == die_at)
		raise(SIGKILL);
	return 0;
}

static void killed(int at, const char *type)
{
	char dev[400];
	snprintf(dev, sizeof dev, "image:%s:512M", top);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bc_fs_spec s;
		bc_fs *fs;
		bc_err e;
		struct jlog j = { 0 };
		spec(&s, type, dev, "", "");
		die_at = at;
		if (bc_fs_apply(&s, 9, journal_then_die, &j, &fs, &e) == 0)
			raise(SIGKILL);
		_exit(4);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	char *path = bc_xasprintf("%s/journal", top), text[4096], done[512];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = 0;
	fclose(f);
	char *dir = bc_xasprintf("%s/.benchcore-fs.%ld.9", top, (long)pid);
	char *mnt = bc_xasprintf("%s/mnt", dir), t[32], src[256], o[1024];
	int mounted = bc_fs_mountinfo(mnt, t, sizeof t, src, sizeof src, o, sizeof o) == 0;
	assert_int_equal(mounted, at == 0);
	bc_err e;
	assert_int_equal(bc_fs_restore(text, done, sizeof done, &e), 0);
	print_message("killed at %d, restored: %s\n", at, done);
	assert_gone(dir);
	assert_int_equal(bc_fs_restore(text, done, sizeof done, &e), 0);	/* twice: nothing to do */
	unlink(path);
	free(path);
	free(dir);
	free(mnt);
}

static void test_sigkill_restore(void **state)
{
	(void)state;
	NEED("xfs");
	killed(0, "xfs");
	killed(1, "xfs");
	killed(2, "xfs");
}

static void test_image_size(void **state)
{
	(void)state;
	assert_int_equal(bc_fs_image_size("xfs", 0), 300ull << 20);		/* the minimum */
	assert_int_equal(bc_fs_image_size("ext4", 1ull << 20), 257ull << 20);	/* + 256M */
	assert_int_equal(bc_fs_image_size("ext4", 4ull << 30), 5ull << 30);	/* + a quarter */
	assert_int_equal(bc_fs_image_size("btrfs", 1000), 257ull << 20);	/* whole MiB */
}

/* A journal that names what benchcore does not make is refused untouched. */
static void test_restore_refuses_foreign(void **state)
{
	(void)state;
	bc_err e;
	const char *bad[] = {
		"{\"kind\":\"fs\",\"dir\":\"/etc\",\"mount_point\":\"/etc/mnt\",\"image\":\"\",\"loop\":\"\"}",
		"{\"kind\":\"fs\",\"dir\":\"/tmp/.benchcore-fs.1.1\",\"mount_point\":\"/\",\"image\":\"\",\"loop\":\"\"}",
		"{\"kind\":\"fs\",\"dir\":\"/tmp/.benchcore-fs.1.1\",\"mount_point\":\"/tmp/.benchcore-fs.1.1/mnt\",\"image\":\"/etc/passwd\",\"loop\":\"\"}",
		"{\"kind\":\"cpu\"}", "not json",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(bc_fs_restore(bad[i], NULL, 0, &e), -1);
	struct stat st;
	assert_int_equal(stat("/etc/passwd", &st), 0);
}

static void test_record_json(void **state)
{
	(void)state;
	bc_fs_record r = { .size_bytes = 1ull << 33, .make_s = 1.5, .mount_s = 0.02 }, back;
	snprintf(r.type, sizeof r.type, "xfs");
	snprintf(r.mount_options, sizeof r.mount_options, "rw,noatime,attr2,inode64");
	snprintf(r.mkfs_command, sizeof r.mkfs_command, "mkfs.xfs -f /dev/loop3");
	snprintf(r.mkfs_version, sizeof r.mkfs_version, "mkfs.xfs version 6.1.0");
	snprintf(r.device, sizeof r.device, "/dev/loop3");
	snprintf(r.device_model, sizeof r.device_model, "loop (image on ext4)");
	snprintf(r.image, sizeof r.image, "/var/tmp/.benchcore-fs.1.0/image");
	snprintf(r.image_fs, sizeof r.image_fs, "ext4");
	r.loop_direct_io = 1;
	snprintf(r.mount_point, sizeof r.mount_point, "/var/tmp/.benchcore-fs.1.0/mnt");
	json_t *j = bc_fs_record_json(&r);
	bc_err e;
	assert_int_equal(bc_fs_record_from_json(j, &back, &e), 0);
	assert_memory_equal(&r, &back, sizeof r);
	json_object_set_new(j, "type", json_integer(3));
	assert_int_equal(bc_fs_record_from_json(j, &back, &e), -1);
	assert_string_equal(e.msg, "fs.type: not a string");
	json_object_set_new(j, "type", json_string("xfs"));
	json_object_set_new(j, "make_s", json_real(-1));
	assert_int_equal(bc_fs_record_from_json(j, &back, &e), -1);
	assert_string_equal(e.msg, "fs.make_s: not a number >= 0");
	json_object_set_new(j, "make_s", json_real(1));
	json_object_del(j, "device");
	assert_int_equal(bc_fs_record_from_json(j, &back, &e), -1);
	assert_string_equal(e.msg, "fs.device: missing");
	json_decref(j);
}

static int setup(void **state)
{
	(void)state;
	/* TMPDIR: where test_fsdev.sh looks for what is left */
	const char *tmp = getenv("TMPDIR");
	snprintf(top, sizeof top, "%s/bc-fsdev.XXXXXX", tmp && *tmp ? tmp : "/var/tmp");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	/* a test that failed half-way leaves its spare device mounted or attached */
	char *m = bc_xasprintf("%s/m", top);
	umount(m);
	free(m);
	if (spare[0] && bc_fs_loop_backs(spare + 5, spare_img)) {
		char *d = bc_xasprintf("swapoff %s 2>/dev/null; losetup -d %s", spare, spare);
		if (system(d) != 0)
			print_message("could not detach %s\n", spare);
		free(d);
	}
	char *cmd = bc_xasprintf("rm -rf --one-file-system %s", top);
	int rc = system(cmd);
	free(cmd);
	return rc;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_json),
		cmocka_unit_test(test_image_size),
		cmocka_unit_test(test_plan_refusals),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_restore_refuses_foreign),
		cmocka_unit_test(test_ext4),
		cmocka_unit_test(test_xfs),
		cmocka_unit_test(test_btrfs),
		cmocka_unit_test(test_failures_undone),
		cmocka_unit_test(test_device_refusals),
		cmocka_unit_test(test_root_refused),
		cmocka_unit_test(test_sigkill_restore),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
