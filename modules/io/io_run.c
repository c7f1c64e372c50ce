/*
 * Worker threads. Each thread owns one fd, one aio context and iodepth
 * aligned buffers, and records every completed I/O itself (thread_run).
 *
 * Measurement choices, matched to fio so the numbers compare:
 *  - slat (submission latency) is the time io_submit() took for the batch the
 *    I/O went in with, kept as the host's distribution "slat" of the I/O's op
 *    class (record_dist: measured window only, like record()); clat (completion latency) runs from io_submit()'s
 *    return to the io_getevents() call that reaped it. clat is what record()
 *    gets, so ops.read.latency_ns is fio's "clat", never just the submit time.
 *  - One clock read per reaped batch (all I/Os in it completed by then) and
 *    two per submitted batch: the harness must not be what is measured.
 *  - Completed slots are refilled and submitted together in one io_submit(),
 *    and io_getevents() returns as soon as one I/O is done, so iodepth I/Os
 *    stay in flight.
 *  - fsync_every N: after N completed writes no new I/O is issued; when the
 *    queue has drained, one fsync() is timed as op class "fsync".
 *  - Every I/O counted takes one event from the --events budget (claim()):
 *    when issued in the measured window, else (issued during warmup) when it
 *    completes in the window; with the budget spent it is not counted. So
 *    --events N records exactly N I/Os, with or without warmup. Once the
 *    budget is spent or the host is stopping, what is in flight is reaped
 *    and nothing new goes out.
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io.h"
#include <benchcore/hugepage.h>

struct io_thread {
	struct io_state *s;
	const bench_host_api_v1 *api;
	bench_thread *t;
	unsigned idx;
	int fd;
	uint64_t rng, gen, seq_next, seq_end;
	int64_t writes;			/* completed since the last fsync */
	int sync_due, stopping;
	int renew_due;			/* allocate: the file is full; empty it once drained */

	/* libaio */
	io_context_t actx;
	unsigned depth, inflight;
	unsigned char *bufs;		/* depth * block_size, aligned */
	size_t bufs_map;		/* > 0: bufs is our own mapping of this length */
	struct iocb *cbs;
	struct iocb **batch;
	struct io_event *ev;
	uint64_t *issued;		/* per slot: when io_submit returned */
	unsigned char *claimed;		/* per slot: its event was taken when issued */
	unsigned *idle, nidle;		/* slots waiting for an fsync to finish */
};

/* May this thread issue one more I/O? In the measured window it takes its
   event from the --events budget (claim() gives it at once when there is no
   budget); during warmup nothing is taken and *claimed says so. Once the
   answer is no, it stays no: what is in flight is only reaped. */
static int io_more(struct io_thread *w, unsigned char *claimed)
{
	const bench_host_api_v1 *api = w->api;

	*claimed = 0;
	if (!w->stopping && api->stopping(w->t))
		w->stopping = 1;
	if (w->stopping)
		return 0;
	/* measuring() before claim(): the phase only moves forward, so a claim
	   made after measuring() said yes was made in the window (or at the
	   stop, where nothing is counted anyway). */
	if (!api->measuring(w->t))
		return 1;
	*claimed = 1;
	if (api->claim(w->t, 1) == 0)
		w->stopping = 1;
	return !w->stopping;
}

/* Should an I/O that completed now be counted? One issued during warmup
   takes its event now if the window has opened; with the budget spent it
   is left out, and this thread stops issuing. */
static int io_counts(struct io_thread *w, unsigned char claimed)
{
	if (claimed || !w->api->measuring(w->t) || w->api->claim(w->t, 1) == 1)
		return 1;
	w->stopping = 1;
	return 0;
}

static inline uint64_t io_rand(struct io_thread *w)
{
	uint64_t x = w->rng;	/* xorshift64* */
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	w->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Picks the op and offset of the next I/O. */
static int io_next(struct io_thread *w, uint64_t *off)
{
	const struct io_state *s = w->s;
	int op;

	switch (s->rw) {
	case IO_RANDREAD:  op = IO_OP_READ; break;
	case IO_RANDWRITE: op = IO_OP_WRITE; break;
	case IO_RANDRW:
		op = (int)(io_rand(w) % 100) < s->rwmix_read ? IO_OP_READ : IO_OP_WRITE;
		break;
	case IO_SEQREAD:   op = IO_OP_READ; goto seq;
	default:           op = IO_OP_WRITE; goto seq;
	}
	/* Uniform block in [0, nblocks) without a division. */
	*off = (uint64_t)(((unsigned __int128)io_rand(w) * s->nblocks) >> 64) * s->block_size;
	return op;
seq:
	*off = w->seq_next;
	w->seq_next += s->block_size;
	if (w->seq_next + s->block_size > w->seq_end) {
		w->seq_next = 0;
		w->renew_due = s->allocate;	/* a new file's blocks, not an overwrite */
	}
	return op;
}

/* Fills a write buffer: verify stamps, or a tag that makes every block unique. */
static void io_fill(struct io_thread *w, unsigned char *buf, uint64_t off)
{
	w->gen++;
	if (w->s->verify) {
		io_stamp(buf, w->s->block_size, off, w->gen);
	} else {
		uint64_t tag = w->gen ^ ((uint64_t)w->idx << 56);
		memcpy(buf, &tag, sizeof(tag));
	}
}

/* Accounts one finished I/O. Returns -1 on an I/O error that ends the run. */
static int io_done(struct io_thread *w, int op, const unsigned char *buf, uint64_t off,
		   int64_t res, uint64_t lat)
{
	struct io_state *s = w->s;

	if (res != (int64_t)s->block_size) {
		/* a short write is what a full file system gives before ENOSPC:
		   its free space says so (a short read: the file was cut) */
		struct statvfs v;
		int full = res >= 0 && op == IO_OP_WRITE && !fstatvfs(w->fd, &v) &&
			   (uint64_t)v.f_bavail * v.f_frsize < s->block_size;
		const char *kind = res < 0 ? io_errkind((int)-res) : full ? "ENOSPC" : "short";
		char why[160];
		if (res < 0)
			snprintf(why, sizeof(why), "%s", strerror((int)-res));
		else
			snprintf(why, sizeof(why), "short transfer (%lld bytes)%s", (long long)res,
				 full ? ": No space left on device (the file system has less than a block free)" :
				 op == IO_OP_READ ? ": the file is shorter than laid out (cut by another process?)" : "");
		w->api->record_error(w->t, (unsigned)op, kind);
		io_error(s, w->t, NULL, NULL, "%s of %llu bytes at offset %llu of \"%s\" failed: %s",
			 op == IO_OP_READ ? "read" : "write", (unsigned long long)s->block_size,
			 (unsigned long long)off, s->files[s->per_thread ? w->idx : 0], why);
		return -1;
	}
	if (op == IO_OP_READ && s->verify) {
		uint64_t bad = io_check(buf, s->block_size, off);
		if (bad != UINT64_MAX) {
			w->api->record_error(w->t, IO_OP_READ, "verify");
			if (s->verify_bad[w->idx]++ == 0)
				s->verify_first[w->idx] = bad;
			return 0;
		}
	}
	if (op == IO_OP_WRITE && s->fsync_every > 0 && ++w->writes >= s->fsync_every)
		w->sync_due = 1;
	w->api->record(w->t, (unsigned)op, lat, s->block_size);
	return 0;
}

static int io_sync(struct io_thread *w)
{
	uint64_t t0 = w->api->now_ns();
	if (fsync(w->fd) != 0) {
		w->api->record_error(w->t, IO_OP_FSYNC, io_errkind(errno));
		io_error(w->s, w->t, NULL, NULL, "fsync failed: %s", strerror(errno));
		return -1;
	}
	w->api->record(w->t, IO_OP_FSYNC, w->api->now_ns() - t0, 0);
	w->writes = 0;
	w->sync_due = 0;
	return 0;
}

/* allocate: the file reached file_size. Its blocks are given back
   (ftruncate to 0, timed as part of the window, as the stream's own cost)
   and the stream starts again at offset 0, allocating as it goes: writing
   over the old blocks would be the laid-out overwrite that allocate = false
   measures. Called with nothing in flight. */
static int io_renew(struct io_thread *w)
{
	if (ftruncate(w->fd, 0) != 0) {
		io_error(w->s, w->t, NULL, NULL, "cannot empty the new file to write it again: %s",
			 strerror(errno));
		return -1;
	}
	w->s->alloc_restarts[w->idx]++;
	w->renew_due = 0;
	return 0;
}

/* An fsync or a renewal waits for the queue to drain: no new I/O meanwhile. */
static inline int io_gate(const struct io_thread *w)
{
	return w->sync_due || w->renew_due;
}

/* The drained queue's due fsync and renewal. */
static int io_drained(struct io_thread *w)
{
	if (w->sync_due && io_sync(w) != 0)
		return -1;
	return w->renew_due ? io_renew(w) : 0;
}

/* ------------------------------------------------------------------ psync */

static int io_psync_run(struct io_thread *w)
{
	const bench_host_api_v1 *api = w->api;
	uint64_t bs = w->s->block_size, off;
	unsigned char claimed;

	while (io_more(w, &claimed)) {
		if (io_gate(w) && io_drained(w) != 0)
			return BENCH_ERR;
		int op = io_next(w, &off);
		if (op == IO_OP_WRITE)
			io_fill(w, w->bufs, off);
		uint64_t t0 = api->now_ns();
		ssize_t r = op == IO_OP_READ ? pread(w->fd, w->bufs, bs, (off_t)off)
					     : pwrite(w->fd, w->bufs, bs, (off_t)off);
		uint64_t t1 = api->now_ns();
		if (!io_counts(w, claimed))
			break;
		if (io_done(w, op, w->bufs, off, r < 0 ? -errno : r, t1 - t0) != 0)
			return BENCH_ERR;
	}
	return BENCH_OK;
}

/* ----------------------------------------------------------------- libaio */

static void io_prep(struct io_thread *w, unsigned i)
{
	uint64_t off, bs = w->s->block_size;
	unsigned char *buf = w->bufs + (size_t)i * bs;
	int op = io_next(w, &off);

	if (op == IO_OP_WRITE) {
		io_fill(w, buf, off);
		io_prep_pwrite(&w->cbs[i], w->fd, buf, bs, (long long)off);
	} else {
		io_prep_pread(&w->cbs[i], w->fd, buf, bs, (long long)off);
	}
}

/* Submits n prepared iocbs. What the kernel cannot take now (EAGAIN) waits
   in idle-prepared state: it is resubmitted after the next reap. */
static int io_submit_all(struct io_thread *w, struct iocb **b, unsigned n)
{
	const bench_host_api_v1 *api = w->api;

	while (n) {
		unsigned chunk = w->s->iodepth_batch && w->s->iodepth_batch < n ? w->s->iodepth_batch : n;
		uint64_t t0 = api->now_ns();
		int r = io_submit(w->actx, (long)chunk, b);
		uint64_t t1 = api->now_ns();
		if (r == -EAGAIN || r == 0) {
			if (w->inflight)
				break;
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
			continue;
		}
		if (r < 0) {
			io_error(w->s, w->t, NULL, NULL, "io_submit failed: %s", strerror(-r));
			return -1;
		}
		for (int k = 0; k < r; k++) {
			unsigned i = (unsigned)(b[k] - w->cbs);
			int op = b[k]->aio_lio_opcode == IO_CMD_PWRITE ? IO_OP_WRITE : IO_OP_READ;
			api->record_dist(w->t, w->s->slat_id[op], t1 - t0);
			w->issued[i] = t1;
		}
		w->inflight += (unsigned)r;
		b += r;
		n -= (unsigned)r;
	}
	/* Not taken: keep them prepared, first in line for the next submit. */
	for (unsigned k = 0; k < n; k++)
		w->batch[w->depth + k] = b[k];
	return (int)n;
}

/* Takes slot i back into service (prepared into w->batch at *nq), or parks
   it while an fsync is due or the run is ending. */
static void io_refill(struct io_thread *w, unsigned i, unsigned *nq)
{
	if (io_gate(w) || !io_more(w, &w->claimed[i])) {
		w->idle[w->nidle++] = i;
		return;
	}
	io_prep(w, i);
	w->batch[(*nq)++] = &w->cbs[i];
}

/* Reaps at least min events (waiting up to 100 ms), accounts each, and
   refills the slots into w->batch after the nq already there. Returns the
   new nq, or -1 on a failure that ends the run. */
static int io_reap(struct io_thread *w, unsigned min, unsigned nq)
{
	struct timespec ts = { 0, 100 * 1000000 };
	unsigned max = w->s->iodepth_batch_complete;
	if (max == 0 || max > w->depth)
		max = w->depth;
	if (max < min)
		max = min;
	int r = io_getevents(w->actx, (long)min, (long)max, w->ev, &ts);
	if (r < 0 && r != -EINTR) {
		io_error(w->s, w->t, NULL, NULL, "io_getevents failed: %s", strerror(-r));
		return -1;
	}
	uint64_t now = w->api->now_ns();
	if (r <= 0) {
		/* Nothing finished: still notice the stop (without a claim). */
		if (w->api->stopping(w->t))
			w->stopping = 1;
		return (int)nq;
	}
	w->inflight -= (unsigned)r;
	for (int k = 0; k < r; k++) {
		struct iocb *cb = w->ev[k].obj;
		unsigned i = (unsigned)(cb - w->cbs);
		int op = cb->aio_lio_opcode == IO_CMD_PWRITE ? IO_OP_WRITE : IO_OP_READ;
		int64_t res = (int64_t)(long)w->ev[k].res;
		if (io_counts(w, w->claimed[i]) &&
		    io_done(w, op, cb->u.c.buf, (uint64_t)cb->u.c.offset, res, now - w->issued[i]) != 0)
			return -1;
		io_refill(w, i, &nq);
	}
	return (int)nq;
}

static int io_aio_run(struct io_thread *w)
{
	unsigned nq = 0;
	int r = 0;

	for (unsigned i = 0; i < w->depth; i++)
		io_refill(w, i, &nq);
	while (nq || w->inflight || (io_gate(w) && !w->stopping)) {
		r = io_submit_all(w, w->batch, nq);
		if (r < 0)
			break;
		/* What EAGAIN left over sits at batch[depth..]; it goes first. */
		nq = (unsigned)r;
		memmove(w->batch, w->batch + w->depth, nq * sizeof(*w->batch));
		if (io_gate(w) && w->inflight == 0 && !w->stopping) {
			if (io_drained(w) != 0) {
				r = -1;
				break;
			}
			unsigned parked = w->nidle;
			w->nidle = 0;
			for (unsigned k = 0; k < parked; k++)
				io_refill(w, w->idle[k], &nq);
		} else if (w->inflight) {
			/* Once stopping: the rest is reaped and recorded, never refilled. */
			r = io_reap(w, 1, nq);
			if (r < 0)
				break;
			nq = (unsigned)r;
		}
	}
	/* After a failure, still wait for what is in flight before the
	   buffers go away (a bounded wait; io_destroy waits for the rest). */
	for (int tries = 0; w->inflight && tries < 100; tries++) {
		struct timespec ts = { 0, 100 * 1000000 };
		int got = io_getevents(w->actx, 1, (long)w->depth, w->ev, &ts);
		if (got > 0)
			w->inflight -= (unsigned)got;
	}
	return r < 0 ? BENCH_ERR : BENCH_OK;
}

/* ---------------------------------------------------------------- threads */

static int io_thread_alloc(struct io_thread *w)
{
	const struct io_state *s = w->s;
	size_t n = w->depth, len = n * s->block_size;

	/* Huge-page buffers: a block is then physically contiguous, one DMA
	   segment per I/O instead of one per 4 KiB page. Mapped by us, 2 MiB
	   aligned, not taken from malloc (whose arenas differ by allocator). */
	if (s->buffer_hugepages) {
		void *m = bench_thp_map(len, &w->bufs_map);
		if (m == MAP_FAILED)
			return -1;
		w->bufs = m;
	} else if (posix_memalign((void **)&w->bufs, IO_ALIGN, len) != 0) {
		w->bufs = NULL;
		return -1;
	}
	/* Incompressible data for writes; io_fill makes each block unique.
	   This also faults the buffers in before the measured window. */
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t x = io_rand(w);
		memcpy(w->bufs + i, &x, 8);
	}
	if (bench_thp_backed(w->bufs))
		__atomic_add_fetch(&w->s->huge_threads, 1, __ATOMIC_RELAXED);
	if (s->engine != IO_ENGINE_LIBAIO)
		return 0;
	w->cbs = calloc(n, sizeof(*w->cbs));
	w->batch = calloc(2 * n, sizeof(*w->batch));
	w->ev = calloc(n, sizeof(*w->ev));
	w->issued = calloc(n, sizeof(*w->issued));
	w->claimed = calloc(n, sizeof(*w->claimed));
	w->idle = calloc(n, sizeof(*w->idle));
	return w->cbs && w->batch && w->ev && w->issued && w->claimed && w->idle ? 0 : -1;
}

static int io_thread_open(struct io_thread *w)
{
	const struct io_state *s = w->s;
	const char *name = s->files[s->per_thread ? w->idx : 0];
	int ro = s->rw == IO_RANDREAD || s->rw == IO_SEQREAD;
	int flags = (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC | (s->direct ? O_DIRECT : 0);

	/* relative to the directory checked in init, never by path again; with
	   allocate = true a new file without a name there (O_TMPFILE): allocated
	   as it is written, as dd's, and gone when the case ends, however */
	if (s->allocate) {
		w->fd = openat(s->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC | (s->direct ? O_DIRECT : 0), 0600);
		if (w->fd < 0) {
			int err = errno;
			io_error(s, w->t, "allocate = true writes an unnamed new file (O_TMPFILE), which this "
				 "file system or kernel does not offer.", "set allocate = false",
				 "cannot create a new file in \"%s\"%s: %s", s->target,
				 s->direct ? " with O_DIRECT" : "", strerror(err));
			return -1;
		}
		return 0;
	}
	w->fd = io_open(s, name, flags, 0);
	if (w->fd < 0) {
		int err = errno;
		io_error(s, w->t, NULL, s->direct && err == EINVAL ? "the file system does not "
			 "support direct I/O; set direct = false" : NULL, "cannot open \"%s\"%s: %s",
			 name, s->direct ? " with O_DIRECT" : "", strerror(err));
		return -1;
	}
	return 0;
}

static int io_thread_setup(struct io_state *s, bench_thread *t, struct io_thread *w)
{
	const bench_host_api_v1 *api = s->api;

	w->s = s;
	w->api = api;
	w->t = t;
	w->fd = -1;
	w->idx = api->thread_index(t);
	if (w->idx >= s->threads)
		return api->set_error(s->ctx, "thread index %u out of range", w->idx), BENCH_ERR;
	w->rng = (s->seed ^ ((uint64_t)(w->idx + 1) * 0x9e3779b97f4a7c15ull)) | 1;
	w->depth = s->engine == IO_ENGINE_LIBAIO ? s->iodepth : 1;
	/* Threads sharing one file start their sequential streams spread out. */
	w->seq_end = s->nblocks * s->block_size;
	if (!s->per_thread || s->kind != IO_TARGET_DIR)
		w->seq_next = s->nblocks * w->idx / s->threads * s->block_size;
	if (io_thread_alloc(w) != 0)
		return api->set_error(s->ctx, "out of memory for %u buffers of %llu bytes",
				      w->depth, (unsigned long long)s->block_size), BENCH_ERR;
	if (io_thread_open(w) != 0)
		return BENCH_ERR;
	if (s->engine == IO_ENGINE_LIBAIO) {
		int r = io_setup((int)w->depth, &w->actx);
		if (r < 0) {
			w->actx = 0;
			io_error(s, t, NULL, r == -EAGAIN ? "threads x iodepth exceeds the kernel's "
				 "limit; raise it with sysctl fs.aio-max-nr" : NULL,
				 "io_setup(%u) failed: %s", w->depth, strerror(-r));
			return BENCH_ERR;
		}
	}
	return BENCH_OK;
}

int io_thread_init(void *state, bench_thread *t, void **tstate)
{
	struct io_state *s = state;
	struct io_thread *w = calloc(1, sizeof(*w));

	*tstate = NULL;
	if (!w)
		return s->api->set_error(s->ctx, "out of memory"), BENCH_ERR;
	if (io_thread_setup(s, t, w) != BENCH_OK) {
		io_thread_done(w);
		return BENCH_ERR;
	}
	*tstate = w;
	return BENCH_OK;
}

int io_thread_run(void *tstate)
{
	struct io_thread *w = tstate;
	struct stat st;
	int rc = w->s->engine == IO_ENGINE_LIBAIO ? io_aio_run(w) : io_psync_run(w);
	if (w->s->allocate && fstat(w->fd, &st) == 0)	/* what the stream allocated */
		w->s->alloc_bytes[w->idx] = (uint64_t)st.st_blocks * 512u;
	return rc;
}

void io_thread_done(void *tstate)
{
	struct io_thread *w = tstate;

	if (!w)
		return;
	if (w->actx)
		io_destroy(w->actx);	/* waits for anything still in flight */
	if (w->fd >= 0)
		close(w->fd);
	if (w->bufs_map)
		munmap(w->bufs, w->bufs_map);
	else
		free(w->bufs);
	free(w->cbs);
	free(w->batch);
	free(w->ev);
	free(w->issued);
	free(w->claimed);
	free(w->idle);
	free(w);
}
