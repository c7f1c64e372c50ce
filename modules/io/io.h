/*
 * io module: fio-class storage benchmark (libaio or pread/pwrite, O_DIRECT).
 *
 * Files of this module:
 *   io.c         module table, options, init/finish/destroy, metrics
 *   io_file.c    target resolution, safety checks, the ownership trailer,
 *                layout (prepare) and cleanup, file system facts
 *   io_run.c     worker threads: the libaio loop and the psync loop
 *   io_verify.c  block stamping/checking, errno names
 *
 * Needs host API 1.1: submission latency goes into the host's secondary
 * distributions (dist/record_dist), run-time failures through error().
 *
 * Concurrency: struct io_state is written by the main thread (init, prepare,
 * finish, cleanup, destroy) and only read by worker threads, except
 * verify_bad/verify_first/alloc_bytes/alloc_restarts[thread index], which only that worker writes
 * (finish reads them after the threads stopped), and huge_threads (atomic).
 * struct io_thread belongs to one worker.
 */
#ifndef BENCHCORE_IO_H
#define BENCHCORE_IO_H

#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <benchcore/module.h>

/* Op classes (indexes into io_op_classes). */
enum { IO_OP_READ = 0, IO_OP_WRITE = 1, IO_OP_FSYNC = 2 };

/* Choices of the rw and engine options, in table order. */
enum io_rw { IO_RANDREAD, IO_RANDWRITE, IO_RANDRW, IO_SEQREAD, IO_SEQWRITE };
enum io_engine { IO_ENGINE_LIBAIO, IO_ENGINE_PSYNC };
enum io_kind { IO_TARGET_DIR, IO_TARGET_FILE, IO_TARGET_DEVICE };

/*
 * Every file the module lays out ends with one 4 KiB trailer block after the
 * data region. It proves benchcore made the file: nothing is ever written,
 * truncated or removed unless it carries a valid trailer (or this process
 * created it with O_EXCL). A trailer rather than a header, so that the data
 * region starts at offset 0 and other tools (fio --size=) can run on the same
 * file without touching the marker.
 */
#define IO_TRAILER_SIZE		4096u
#define IO_ALIGN		4096u	/* buffer and trailer alignment */
#define IO_SECTOR		512u	/* verify granularity */

#define IO_STATE_LAYING		1u	/* created, layout not finished */
#define IO_STATE_COMPLETE	2u
#define IO_FLAG_STAMPED		1u	/* every sector carries a verify stamp */

struct io_trailer {
	char magic[24];
	uint32_t version;
	uint32_t state;		/* IO_STATE_* */
	uint64_t data_size;	/* bytes of the data region */
	uint64_t flags;		/* IO_FLAG_* */
	uint64_t created;	/* unix time */
	uint64_t seed;
	uint64_t sum;		/* io_hash of the fields above */
};

struct io_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	enum io_kind kind;
	char target[PATH_MAX];		/* resolved path option */
	char **files;			/* data files (or the device) */
	unsigned nfiles;
	unsigned threads;

	uint64_t file_size;		/* data region of one file */
	uint64_t block_size;
	uint64_t nblocks;		/* file_size / block_size */
	unsigned iodepth, iodepth_batch, iodepth_batch_complete;
	enum io_rw rw;
	enum io_engine engine;
	int rwmix_read, direct, verify, allow_device, per_thread, buffer_hugepages;
	int allocate;			/* rw = write into a new unnamed file per thread,
					   allocated as it is written (dd to a new file) */
	int64_t fsync_every;
	uint64_t seed;

	int slat_id[2];			/* host distribution "slat" of read, write; -1: none */
	uint64_t *verify_bad;		/* [threads]: blocks that failed verify */
	uint64_t *verify_first;		/* [threads]: file offset of the first */
	uint64_t *alloc_bytes;		/* allocate: [threads], written by that worker at its
					   end: bytes its file held allocated (st_blocks) */
	uint64_t *alloc_restarts;	/* [threads]: times its file was full and emptied */
	unsigned huge_threads;		/* threads whose buffers got huge pages (atomic) */
	int dirfd;			/* the target's directory, opened once and checked in
					   init: every data file is opened relative to it, so a
					   directory swapped for a symlink later changes nothing
					   (-1 for a device) */
	int locked;			/* this module run holds benchcore-io.lock there */
};

/* Opens data file name (one of files[]) relative to the directory opened in
   init, never following a symlink; a device by its path. */
int io_open(const struct io_state *s, const char *name, int flags, mode_t mode);
/* Gives up benchcore-io.lock in the target directory when this run holds it. */
void io_lock_drop(struct io_state *s);

/* io.c: an error with the loader's shape through the host's error(): a
   formatted short message, a detail sentence and a hint (either may be
   NULL). t is the worker that hit it, NULL on the main thread. */
void io_error(const struct io_state *s, bench_thread *t, const char *detail, const char *hint,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* io_file.c */
int io_target_init(struct io_state *s, const char *path);
int io_prepare(void *state);
void io_cleanup(void *state);

/* io_mount.c */
/* The mount under the target, as the case's info (fs_type, mount_options,
   mount_point, fs_source). */
void io_fs_info(struct io_state *s);
/* The target is a block device (st): refused unless allow_device, never
   when mounted or claimed; file_size capped at its size. BENCH_OK or
   BENCH_ERR (said). */
int io_device_init(struct io_state *s, const struct stat *st);

/* io_run.c */
int io_thread_init(void *state, bench_thread *t, void **tstate);
int io_thread_run(void *tstate);
void io_thread_done(void *tstate);

/* io_verify.c */
uint64_t io_hash(const void *p, size_t len, uint64_t seed);
void io_stamp(unsigned char *buf, uint64_t len, uint64_t off, uint64_t gen);
/* Returns the byte offset (in the file) of the first bad sector, or UINT64_MAX. */
uint64_t io_check(const unsigned char *buf, uint64_t len, uint64_t off);
const char *io_errkind(int err);

/* Why direct = true cannot work in directory dir (tmpfs, ramfs, a file
   system refusing O_DIRECT), or NULL (io_file.c). */
const char *io_direct_unsupported(const char *dir);
#define IO_DIRECT_HINT	"set direct = false to measure buffered I/O there (the page cache is then " \
			"part of what is measured), or set path to a directory on a disk"
#endif
