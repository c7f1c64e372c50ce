/*
 * Where the io module reads and writes, and the rules that keep it from
 * touching anything it did not create (what is under the path, a mount or a
 * block device, is io_mount.c's).
 *
 *  - path is a directory (files benchcore-io.<n>.dat are made there), a file
 *    benchcore made earlier (kept with keep = true), or a block device
 *    (allow_device = true, never when mounted or otherwise claimed).
 *  - A file is ours only when it ends with a valid trailer (see io.h). The
 *    trailer is written before the data, so a layout cut short by Ctrl-C or
 *    a full disk still leaves a file cleanup recognises and removes.
 *  - A file without the trailer is never opened for writing, truncated or
 *    unlinked: init refuses the case and names the file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "io.h"

static const char io_magic[24] = "benchcore-io-file v1\n";

#define IO_LAYOUT_CHUNK	(1u << 20)
#define IO_MiB		(1024.0 * 1024.0)

enum io_probe { IO_ABSENT, IO_OURS, IO_FOREIGN, IO_NOT_REGULAR, IO_PROBE_ERR };

/* A data file's name within the target directory. */
static const char *io_base(const struct io_state *s, const char *name)
{
	const char *slash = strrchr(name, '/');
	return s->dirfd >= 0 && slash ? slash + 1 : name;
}

int io_open(const struct io_state *s, const char *name, int flags, mode_t mode)
{
	if (s->dirfd < 0)
		return open(name, flags, mode);
	return openat(s->dirfd, io_base(s, name), flags | O_NOFOLLOW, mode);
}

static int io_lstat(const struct io_state *s, const char *name, struct stat *st)
{
	if (s->dirfd < 0)
		return lstat(name, st);
	return fstatat(s->dirfd, io_base(s, name), st, AT_SYMLINK_NOFOLLOW);
}

static int io_unlink(const struct io_state *s, const char *name)
{
	if (s->dirfd < 0)
		return unlink(name);
	return unlinkat(s->dirfd, io_base(s, name), 0);
}

/*
 * One benchcore run at a time per directory: benchcore-io.lock there names
 * the module directory of the run using it (the host keeps that directory
 * for the module's whole run and removes it at the end, so a lock whose
 * directory is gone is stale). Two runs on one path would otherwise delete
 * each other's data files while in use. Read and written under flock.
 */
#define IO_LOCK_NAME	"benchcore-io.lock"

static int io_lock_take(struct io_state *s)
{
	const char *mine = s->api->module_dir ? s->api->module_dir(s->ctx) : NULL;
	char other[PATH_MAX] = "";
	struct stat st;
	if (s->dirfd < 0 || !mine)
		return BENCH_OK;
	int fd = openat(s->dirfd, IO_LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return BENCH_OK;	/* a read-only target: nothing to protect from us */
	flock(fd, LOCK_EX);
	ssize_t n = pread(fd, other, sizeof(other) - 1, 0);
	other[n > 0 ? n : 0] = '\0';
	other[strcspn(other, "\n")] = '\0';
	if (other[0] && strcmp(other, mine) && stat(other, &st) == 0) {
		flock(fd, LOCK_UN);
		close(fd);
		io_error(s, NULL, "Two runs on one directory would delete each other's data files while "
			 "they are in use.", "wait for the other run to end, or give this one another path",
			 "another benchcore run is using \"%s\" (its module directory %s exists)", s->target, other);
		return BENCH_ERR;
	}
	if (strcmp(other, mine)) {
		if (ftruncate(fd, 0) != 0 || pwrite(fd, mine, strlen(mine), 0) < 0) {
			/* best effort: the lock is a courtesy between runs */
		}
	}
	flock(fd, LOCK_UN);
	close(fd);
	s->locked = 1;
	return BENCH_OK;
}

/* Removes the lock when it is this run's (cleanup, or a failed init). */
void io_lock_drop(struct io_state *s)
{
	const char *mine = s->api->module_dir ? s->api->module_dir(s->ctx) : NULL;
	char other[PATH_MAX] = "";
	if (!s->locked || s->dirfd < 0 || !mine)
		return;
	int fd = openat(s->dirfd, IO_LOCK_NAME, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	flock(fd, LOCK_EX);
	ssize_t n = pread(fd, other, sizeof(other) - 1, 0);
	other[n > 0 ? n : 0] = '\0';
	other[strcspn(other, "\n")] = '\0';
	if (!strcmp(other, mine))
		unlinkat(s->dirfd, IO_LOCK_NAME, 0);
	flock(fd, LOCK_UN);
	close(fd);
	s->locked = 0;
}

static uint64_t io_trailer_off(uint64_t data_size)
{
	return (data_size + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
}

static uint64_t io_trailer_sum(const struct io_trailer *tr)
{
	return io_hash(tr, offsetof(struct io_trailer, sum), 0x62636f7472ull);
}

/* 1 when fd (a regular file of st_size bytes) ends with our trailer. */
static int io_trailer_read(int fd, uint64_t st_size, struct io_trailer *tr)
{
	if (st_size < IO_TRAILER_SIZE || st_size % IO_ALIGN)
		return 0;
	if (pread(fd, tr, sizeof(*tr), (off_t)(st_size - IO_TRAILER_SIZE)) != (ssize_t)sizeof(*tr))
		return 0;
	return memcmp(tr->magic, io_magic, sizeof(io_magic)) == 0 && tr->version == 1 &&
	       tr->sum == io_trailer_sum(tr) &&
	       io_trailer_off(tr->data_size) == st_size - IO_TRAILER_SIZE;
}

static int io_trailer_write(int fd, struct io_trailer *tr)
{
	static const unsigned char zero[IO_TRAILER_SIZE - sizeof(struct io_trailer)];
	struct iovec iov[2];

	tr->sum = io_trailer_sum(tr);
	iov[0] = (struct iovec){ tr, sizeof(*tr) };
	iov[1] = (struct iovec){ (void *)zero, sizeof(zero) };
	off_t at = (off_t)io_trailer_off(tr->data_size);
	return pwritev(fd, iov, 2, at) == (ssize_t)IO_TRAILER_SIZE ? 0 : -1;
}

/* What is at name now, without following a symlink there. */
static enum io_probe io_probe(const struct io_state *s, const char *name, struct io_trailer *tr, int *err)
{
	struct stat st;

	if (io_lstat(s, name, &st) != 0) {
		*err = errno;
		return errno == ENOENT ? IO_ABSENT : IO_PROBE_ERR;
	}
	if (!S_ISREG(st.st_mode))
		return IO_NOT_REGULAR;
	int fd = io_open(s, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
	if (fd < 0) {
		*err = errno;
		return IO_PROBE_ERR;
	}
	int ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		   io_trailer_read(fd, (uint64_t)st.st_size, tr);
	close(fd);
	return ours ? IO_OURS : IO_FOREIGN;
}

/* Sets the error for a name io_probe did not find usable; returns BENCH_ERR. */
static int io_refuse(struct io_state *s, const char *name, enum io_probe p, int err)
{
	const bench_host_api_v1 *api = s->api;

	if (p == IO_FOREIGN)
		io_error(s, NULL, "benchcore never writes, truncates or removes a file it did not "
			 "create.", "move the file away, or set path to another directory",
			 "refusing to use \"%s\": the file exists and was not created by benchcore "
			 "(it has no benchcore marker)", name);
	else if (p == IO_NOT_REGULAR)
		io_error(s, NULL, NULL, "move it away, or set path to another directory",
			 "refusing to use \"%s\": it exists and is not a regular file", name);
	else
		api->set_error(s->ctx, "cannot examine \"%s\": %s", name, strerror(err));
	return BENCH_ERR;
}

/* Why direct = true cannot work in directory dir, or NULL: tmpfs and ramfs
   have no device to bypass to, and some file systems refuse O_DIRECT (the
   probe is an unnamed O_TMPFILE file: nothing is left behind). */
const char *io_direct_unsupported(const char *dir)
{
	struct statfs sf;
	const char *why = NULL;

	if (statfs(dir, &sf) == 0 && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC))
		why = sf.f_type == TMPFS_MAGIC ? "it is on tmpfs, which keeps files in memory "
			"and has no storage device for direct I/O to reach" :
			"it is on ramfs, which keeps files in memory";
	int fd = why ? -1 : open(dir, O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
	if (!why && fd < 0 && errno == EINVAL) {
		int fd2 = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fd2 >= 0) {
			why = "its file system does not support O_DIRECT";
			close(fd2);
		}
	}
	if (fd >= 0)
		close(fd);
	return why;
}

/* direct = true needs O_DIRECT (io_direct_unsupported). */
static int io_direct_probe(struct io_state *s, const char *dir)
{
	const char *why = io_direct_unsupported(dir);
	if (!why)
		return BENCH_OK;
	io_error(s, NULL, NULL, IO_DIRECT_HINT, "direct I/O is not supported at \"%s\": %s", s->target, why);
	return BENCH_ERR;
}

/* Enough free space for the files still to be laid out? BENCH_SKIP if not. */
static int io_space_check(struct io_state *s, const char *dir)
{
	uint64_t need = 0, per = io_trailer_off(s->file_size) + IO_TRAILER_SIZE;
	struct io_trailer tr;
	struct statvfs sv;
	int err = 0;

	for (unsigned i = 0; i < s->nfiles; i++)
		if (io_probe(s, s->files[i], &tr, &err) != IO_OURS || tr.data_size != s->file_size)
			need += per;
	if (need == 0 || statvfs(dir, &sv) != 0)
		return BENCH_OK;
	uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (need > avail) {
		/* a file removed by the case before (its cleanup) may not be free
		   yet: btrfs returns its extents when the transaction commits
		   (up to 30 s later); a sync of this file system commits it */
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			if (syncfs(dfd) == 0 && statvfs(dir, &sv) == 0)
				avail = (uint64_t)sv.f_bavail * sv.f_frsize;
			close(dfd);
		}
	}
	if (need <= avail)
		return BENCH_OK;
	io_error(s, NULL, NULL, "lower file_size", "not enough free space at \"%s\": %u file(s) "
		 "of %.1f MiB need %.1f MiB, %.1f MiB are available", dir, s->nfiles,
		 (double)per / IO_MiB, (double)need / IO_MiB, (double)avail / IO_MiB);
	return BENCH_SKIP;
}

static int io_add_file(struct io_state *s, const char *name)
{
	char *dup = strdup(name);
	if (!dup)
		return -1;
	s->files[s->nfiles++] = dup;
	return 0;
}

/* The directory the data files live in, opened once; it must be the
   directory stat() found (st), not something swapped in since. */
static int io_open_dir(struct io_state *s, const char *dir, const struct stat *st)
{
	struct stat now;
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0 || fstat(s->dirfd, &now) != 0 || now.st_ino != st->st_ino || now.st_dev != st->st_dev) {
		io_error(s, NULL, NULL, NULL, "cannot open the directory \"%s\": %s", dir,
			 s->dirfd < 0 ? strerror(errno) : "it changed while benchcore looked at it");
		return BENCH_ERR;
	}
	return BENCH_OK;
}

/* Resolves path into s->kind and s->files and refuses what is not ours. */
int io_target_init(struct io_state *s, const char *path)
{
	const bench_host_api_v1 *api = s->api;
	struct io_trailer tr;
	struct stat st;
	char name[PATH_MAX + 32], dir[PATH_MAX];
	int err = 0;

	snprintf(s->target, sizeof(s->target), "%s", path);
	if (!path[0] || stat(path, &st) != 0) {
		io_error(s, NULL, NULL, "create the directory, or set path to a directory on the "
			 "file system to test", "path \"%s\" %s", path,
			 path[0] ? strerror(errno) : "is empty");
		return BENCH_ERR;
	}
	s->files = calloc(s->threads ? s->threads : 1, sizeof(*s->files));
	if (!s->files)
		return api->set_error(s->ctx, "out of memory"), BENCH_ERR;

	if (S_ISBLK(st.st_mode)) {
		s->kind = IO_TARGET_DEVICE;
		s->per_thread = 0;	/* one target, shared by the threads */
		if (s->verify && s->rw != IO_RANDWRITE && s->rw != IO_SEQWRITE) {
			io_error(s, NULL, NULL, "use a directory on a file system for verify runs",
				 "verify = true with reads is not supported on a raw device: "
				 "benchcore cannot know what the device holds");
			return BENCH_ERR;
		}
		if (io_add_file(s, path) != 0)
			return api->set_error(s->ctx, "out of memory"), BENCH_ERR;
		return io_device_init(s, &st);
	}
	if (s->allocate && !S_ISDIR(st.st_mode)) {
		io_error(s, NULL, "allocate = true writes a new file in a directory, as dd does.",
			 "set path to a directory, or allocate = false", "allocate = true, but path \"%s\" "
			 "is not a directory", path);
		return BENCH_ERR;
	}
	if (S_ISDIR(st.st_mode)) {
		s->kind = IO_TARGET_DIR;
		snprintf(dir, sizeof(dir), "%s", path);
		if (io_open_dir(s, dir, &st) != BENCH_OK)
			return BENCH_ERR;
		unsigned n = s->per_thread ? s->threads : 1;
		for (unsigned i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "%s%sbenchcore-io.%u.dat", path,
				 path[strlen(path) - 1] == '/' ? "" : "/", i);
			if (io_add_file(s, name) != 0)
				return api->set_error(s->ctx, "out of memory"), BENCH_ERR;
		}
	} else if (S_ISREG(st.st_mode)) {
		s->kind = IO_TARGET_FILE;
		s->per_thread = 0;	/* one file, shared by the threads */
		enum io_probe p = io_probe(s, path, &tr, &err);
		if (p == IO_FOREIGN) {
			io_error(s, NULL, NULL, "set path to a directory; benchcore creates "
				 "benchcore-io.N.dat files there", "refusing to use \"%s\": path is an "
				 "existing file that benchcore did not create (it has no benchcore "
				 "marker), and benchcore never writes, truncates or removes such a file",
				 path);
			return BENCH_ERR;
		}
		if (p != IO_OURS)
			return io_refuse(s, path, p, err);
		if (io_add_file(s, path) != 0)
			return api->set_error(s->ctx, "out of memory"), BENCH_ERR;
		char *slash = strrchr(s->target, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - s->target) + 1 : 1,
			 slash ? s->target : ".");
		struct stat dst;
		if (stat(dir, &dst) != 0 || io_open_dir(s, dir, &dst) != BENCH_OK)
			return io_refuse(s, dir, IO_PROBE_ERR, errno);
		/* the file itself, as found: the same inode through the directory */
		struct stat fst;
		if (io_lstat(s, path, &fst) != 0 || fst.st_ino != st.st_ino || fst.st_dev != st.st_dev) {
			io_error(s, NULL, NULL, "give path as the file's real location", "\"%s\" is not "
				 "the file it names in its directory (a symlink?)", path);
			return BENCH_ERR;
		}
	} else {
		api->set_error(s->ctx, "path \"%s\" is neither a directory, a file made by "
			       "benchcore, nor a block device", path);
		return BENCH_ERR;
	}
	for (unsigned i = 0; i < s->nfiles; i++) {
		enum io_probe p = io_probe(s, s->files[i], &tr, &err);
		if (p != IO_ABSENT && p != IO_OURS)
			return io_refuse(s, s->files[i], p, err);
	}
	if (io_lock_take(s) != BENCH_OK)
		return BENCH_ERR;
	if (s->direct && io_direct_probe(s, dir) != BENCH_OK)
		return BENCH_ERR;
	return io_space_check(s, dir);
}

/* Fills one layout chunk: verify stamps, or a pattern that differs per 4 KiB
   so that neither compression nor deduplication shortens the layout. */
static void io_layout_fill(struct io_state *s, unsigned char *buf, const unsigned char *pat,
			   uint64_t off, uint64_t len)
{
	if (s->verify) {
		io_stamp(buf, len, off, 0);
		return;
	}
	memcpy(buf, pat, len);
	for (uint64_t i = 0; i < len; i += IO_ALIGN) {
		uint64_t tag = (off + i) ^ s->seed;
		memcpy(buf + i, &tag, sizeof(tag));
	}
}

/* Writes the data region of a file we just created; BENCH_ERR on failure. */
static int io_layout(struct io_state *s, const char *name, int fd, unsigned char *buf,
		     const unsigned char *pat)
{
	const bench_host_api_v1 *api = s->api;
	uint64_t end = io_trailer_off(s->file_size);
	int dfd = fd;

	if (s->direct && (dfd = io_open(s, name, O_WRONLY | O_DIRECT | O_NOFOLLOW | O_CLOEXEC, 0)) < 0) {
		api->set_error(s->ctx, "cannot open \"%s\" with O_DIRECT: %s", name, strerror(errno));
		return BENCH_ERR;
	}
	for (uint64_t off = 0; off < end; ) {
		if (api->cancelled(s->ctx)) {
			api->set_error(s->ctx, "cancelled while laying out \"%s\"", name);
			goto fail;
		}
		uint64_t len = end - off < IO_LAYOUT_CHUNK ? end - off : IO_LAYOUT_CHUNK;
		io_layout_fill(s, buf, pat, off, len);
		ssize_t r = pwrite(dfd, buf, len, (off_t)off);
		if (r <= 0) {
			api->set_error(s->ctx, "cannot lay out \"%s\" at offset %llu: %s", name,
				       (unsigned long long)off, r < 0 ? strerror(errno) : "wrote 0 bytes");
			goto fail;
		}
		off += (uint64_t)r;	/* short writes resume where they stopped */
	}
	if (fdatasync(dfd) != 0) {
		api->set_error(s->ctx, "cannot flush \"%s\": %s", name, strerror(errno));
		goto fail;
	}
	if (dfd != fd)
		close(dfd);
	return BENCH_OK;
fail:
	if (dfd != fd)
		close(dfd);
	return BENCH_ERR;
}

/* Creates files[i] (absent now) and lays it out. Adds the bytes to *laid. */
static int io_create(struct io_state *s, const char *name, unsigned char *buf,
		     const unsigned char *pat, uint64_t *laid)
{
	const bench_host_api_v1 *api = s->api;
	struct io_trailer tr = { .version = 1, .state = IO_STATE_LAYING,
		.data_size = s->file_size, .flags = s->verify ? IO_FLAG_STAMPED : 0,
		.created = (uint64_t)time(NULL), .seed = s->seed };
	uint64_t total = io_trailer_off(s->file_size) + IO_TRAILER_SIZE;

	memcpy(tr.magic, io_magic, sizeof(io_magic));
	int fd = io_open(s, name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		api->set_error(s->ctx, "cannot create \"%s\": %s", name, strerror(errno));
		return BENCH_ERR;
	}
	/* The trailer goes first: from now on the file is recognisably ours. */
	if (io_trailer_write(fd, &tr) != 0) {
		api->set_error(s->ctx, "cannot write \"%s\": %s", name, strerror(errno));
		goto fail;
	}
	/* Allocate up front (fewer, larger extents, and ENOSPC now rather than
	   mid-run), then write every block anyway: reading unwritten extents
	   returns zeros without touching the disk and would measure nothing. */
	int fr = fallocate(fd, 0, 0, (off_t)total);
	if (fr != 0 && errno != EOPNOTSUPP && errno != ENOSYS) {
		api->set_error(s->ctx, "cannot allocate %.1f MiB for \"%s\": %s",
			       (double)total / IO_MiB, name, strerror(errno));
		goto fail;
	}
	if (io_layout(s, name, fd, buf, pat) != BENCH_OK)
		goto fail;
	tr.state = IO_STATE_COMPLETE;
	if (io_trailer_write(fd, &tr) != 0 || fsync(fd) != 0) {
		api->set_error(s->ctx, "cannot write \"%s\": %s", name, strerror(errno));
		goto fail;
	}
	close(fd);
	*laid += total;
	return BENCH_OK;
fail:
	/* We made this file a moment ago with O_EXCL: remove the partial copy. */
	close(fd);
	io_unlink(s, name);
	return BENCH_ERR;
}

/* Keeps the trailer's "stamped" flag true: a write run without verify
   overwrites stamps, so the flag is cleared before it starts. */
static int io_reuse(struct io_state *s, const char *name, struct io_trailer *tr)
{
	int writes = s->rw != IO_RANDREAD && s->rw != IO_SEQREAD;

	if (s->verify || !writes || !(tr->flags & IO_FLAG_STAMPED))
		return BENCH_OK;
	int fd = io_open(s, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
	tr->flags &= ~(uint64_t)IO_FLAG_STAMPED;
	if (fd < 0 || io_trailer_write(fd, tr) != 0 || fsync(fd) != 0) {
		s->api->set_error(s->ctx, "cannot update \"%s\": %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return BENCH_ERR;
	}
	close(fd);
	return BENCH_OK;
}

static int io_prepare_file(struct io_state *s, const char *name, unsigned char *buf,
			   const unsigned char *pat, uint64_t *laid)
{
	struct io_trailer tr;
	int err = 0;
	enum io_probe p = io_probe(s, name, &tr, &err);

	if (p == IO_OURS) {
		int fits = tr.state == IO_STATE_COMPLETE && tr.data_size == s->file_size &&
			   (!s->verify || (tr.flags & IO_FLAG_STAMPED));
		if (fits)
			return io_reuse(s, name, &tr);
		if (io_unlink(s, name) != 0) {
			s->api->set_error(s->ctx, "cannot replace \"%s\": %s", name, strerror(errno));
			return BENCH_ERR;
		}
		p = IO_ABSENT;
	}
	if (p != IO_ABSENT)
		return io_refuse(s, name, p, err);
	return io_create(s, name, buf, pat, laid);
}

int io_prepare(void *state)
{
	struct io_state *s = state;
	const bench_host_api_v1 *api = s->api;
	unsigned char *buf = NULL, *pat = NULL;
	uint64_t laid = 0, t0 = api->now_ns();
	int rc = BENCH_OK;

	if (s->kind == IO_TARGET_DEVICE)
		return BENCH_OK;	/* the device's blocks are all real already */
	if (s->allocate)
		return BENCH_OK;	/* each worker makes its own new file (io_run.c) */
	if (posix_memalign((void **)&buf, IO_ALIGN, IO_LAYOUT_CHUNK) != 0 ||
	    posix_memalign((void **)&pat, IO_ALIGN, IO_LAYOUT_CHUNK) != 0) {
		free(buf);
		api->set_error(s->ctx, "out of memory for the layout buffer");
		return BENCH_ERR;
	}
	uint64_t x = s->seed | 1;
	for (size_t i = 0; i < IO_LAYOUT_CHUNK; i += 8) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		memcpy(pat + i, &x, 8);
	}
	for (unsigned i = 0; i < s->nfiles && rc == BENCH_OK; i++)
		rc = io_prepare_file(s, s->files[i], buf, pat, &laid);
	free(buf);
	free(pat);
	if (rc == BENCH_OK && laid) {
		double sec = (double)(api->now_ns() - t0) / 1e9, rate = (double)laid / IO_MiB / sec;
		char v[32];
		api->log(s->ctx, BENCH_LOG_INFO, "laid out %.1f MiB in %.2f s (%.1f MiB/s)",
			 (double)laid / IO_MiB, sec, rate);
		snprintf(v, sizeof(v), "%.1f", rate);
		api->set_info(s->ctx, "layout_mib_per_sec", v);
	}
	return rc;
}

/* 1 for "benchcore-io.<digits>.dat". */
static int io_our_name(const char *n)
{
	static const char pre[] = "benchcore-io.";
	size_t len = strlen(n), i = sizeof(pre) - 1;

	if (strncmp(n, pre, i) != 0 || len < i + 5 || strcmp(n + len - 4, ".dat") != 0)
		return 0;
	for (; i < len - 4; i++)
		if (n[i] < '0' || n[i] > '9')
			return 0;
	return 1;
}

static void io_remove(struct io_state *s, const char *name)
{
	struct io_trailer tr;
	int err = 0;

	if (io_probe(s, name, &tr, &err) == IO_OURS && io_unlink(s, name) != 0)
		s->api->log(s->ctx, BENCH_LOG_WARN, "cannot remove \"%s\": %s", name, strerror(errno));
}

/*
 * Removes our files; anything without our trailer stays untouched. In a
 * directory every benchcore-io.N.dat is considered, not just this case's: a
 * thread sweep may end on a case with fewer threads (fewer files) than an
 * earlier one.
 */
void io_cleanup(void *state)
{
	struct io_state *s = state;
	char name[PATH_MAX + 300];
	struct dirent *e;
	DIR *d;

	if (s->kind == IO_TARGET_DEVICE)
		return;
	int dfd = s->dirfd >= 0 ? openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (s->kind == IO_TARGET_FILE || dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		for (unsigned i = 0; i < s->nfiles; i++)
			io_remove(s, s->files[i]);
		io_lock_drop(s);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (!io_our_name(e->d_name))
			continue;
		snprintf(name, sizeof(name), "%s/%s", s->target, e->d_name);
		io_remove(s, name);
	}
	closedir(d);
	io_lock_drop(s);
}
