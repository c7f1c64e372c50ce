/*
 * io: fio-class storage benchmark. Random or sequential reads and writes on
 * files laid out in advance (or on a raw device), through libaio with
 * iodepth I/Os in flight, or pread/pwrite, with or without O_DIRECT.
 * Reference: fio --ioengine=libaio --direct=1 --iodepth=16, dd oflag=direct.
 */
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>
#include "io.h"

static const char *const io_rw_choices[] = {
	"randread", "randwrite", "randrw", "read", "write", NULL };
static const char *const io_engine_choices[] = { "libaio", "psync", NULL };
static const char *const io_files_choices[] = { "per_thread", "shared", NULL };

/* The options as the host fills them for each case (ABI 1.3): enums as
   their index into the choices above. */
struct io_opts {
	const char *path;
	int64_t file_size, rwmix_read, block_size, iodepth, iodepth_batch, iodepth_batch_complete;
	int64_t fsync_every;
	int files, rw, engine, direct, buffer_hugepages, verify, allow_device, allocate;
};

static const bench_option_v1 io_options[] = {
	{ "path", BENCH_OPT_STRING, "/var/tmp",
	  "directory on the file system under test (or a kept benchcore file, or a block device)",
	  NULL, 0, 0, BENCH_OPT_NOSWEEP | BENCH_OPT_PLACEMENT, BENCH_OPT_AT(struct io_opts, path) },
	{ "file_size", BENCH_OPT_SIZE, "1G", "size of each data file", NULL,
	  64 * 1024.0, 1125899906842624.0, BENCH_OPT_SCALES, BENCH_OPT_AT(struct io_opts, file_size) },
	{ "files", BENCH_OPT_ENUM, "per_thread",
	  "one file per thread (like fio numjobs), or one file shared by all threads",
	  io_files_choices, 0, 0, 0, BENCH_OPT_AT(struct io_opts, files) },
	{ "rw", BENCH_OPT_ENUM, "randread",
	  "access pattern: random or sequential (read/write) reads and writes", io_rw_choices, 0, 0, 0,
	  BENCH_OPT_AT(struct io_opts, rw) },
	{ "rwmix_read", BENCH_OPT_INT, "50", "percent of reads with rw = randrw", NULL, 0, 100, 0,
	  BENCH_OPT_AT(struct io_opts, rwmix_read) },
	{ "block_size", BENCH_OPT_SIZE, "4K", "bytes per I/O (a multiple of 512 with direct = true)",
	  NULL, 512, 64 * 1024 * 1024.0, 0, BENCH_OPT_AT(struct io_opts, block_size) },
	{ "iodepth", BENCH_OPT_INT, "16", "I/Os kept in flight per thread (engine = libaio)",
	  NULL, 1, 4096, 0, BENCH_OPT_AT(struct io_opts, iodepth) },
	{ "iodepth_batch", BENCH_OPT_INT, "1",
	  "I/Os per io_submit call (0 = all that are ready; 1 = each at once, like fio)",
	  NULL, 0, 4096, 0, BENCH_OPT_AT(struct io_opts, iodepth_batch) },
	{ "iodepth_batch_complete", BENCH_OPT_INT, "1",
	  "most completions reaped per io_getevents call (0 = all done; 1 = like fio)",
	  NULL, 0, 4096, 0, BENCH_OPT_AT(struct io_opts, iodepth_batch_complete) },
	{ "direct", BENCH_OPT_BOOL, "true", "O_DIRECT: bypass the page cache", NULL, 0, 0, 0,
	  BENCH_OPT_AT(struct io_opts, direct) },
	{ "buffer_hugepages", BENCH_OPT_BOOL, "false",
	  "I/O buffers on transparent huge pages, so a block is one DMA segment wherever memory "
	  "lands (fio --mem=mmaphuge); false = page-aligned memory on 4 KiB pages, as dd and "
	  "fio's default --mem=malloc use",
	  NULL, 0, 0, 0, BENCH_OPT_AT(struct io_opts, buffer_hugepages) },
	{ "engine", BENCH_OPT_ENUM, "libaio",
	  "libaio (asynchronous, iodepth in flight) or psync (pread/pwrite, one at a time)",
	  io_engine_choices, 0, 0, 0, BENCH_OPT_AT(struct io_opts, engine) },
	{ "fsync_every", BENCH_OPT_INT, "0", "fsync after every N writes per thread (0 = never)",
	  NULL, 0, 1e9, 0, BENCH_OPT_AT(struct io_opts, fsync_every) },
	{ "allocate", BENCH_OPT_BOOL, "false",
	  "rw = write only: write a new file, allocated as it is written (dd to a new file, as the "
	  "studies do; an unnamed file in path, gone when the case ends); false = overwrite a file "
	  "laid out first (dd conv=notrunc, fio). The case's info.write_file says which ran",
	  NULL, 0, 0, 0, BENCH_OPT_AT(struct io_opts, allocate) },
	{ "verify", BENCH_OPT_BOOL, "false",
	  "stamp written blocks with offset and checksum, check them on read", NULL, 0, 0, 0,
	  BENCH_OPT_AT(struct io_opts, verify) },
	{ "allow_device", BENCH_OPT_BOOL, "false",
	  "allow path to be an unmounted block device (its data is overwritten)", NULL, 0, 0,
	  BENCH_OPT_NOSWEEP, BENCH_OPT_AT(struct io_opts, allow_device) },
	{ NULL }
};

static const char *const io_op_classes[] = { "read", "write", "fsync", NULL };

/* Submission latency comes from the host's "slat" distributions (see README). */
static const bench_metric_v1 io_metrics[] = {
	{ "iops", "IOPS", 1 },
	{ "mib_per_sec", "MiB/s", 1 },
	{ "mb_per_sec", "MB/s", 1 },	/* dd's unit, 10^6 bytes/s: psync read/write only */
	{ "read_iops", "IOPS", 1 },
	{ "write_iops", "IOPS", 1 },
	{ "read_mib_per_sec", "MiB/s", 1 },
	{ "write_mib_per_sec", "MiB/s", 1 },
	{ "read_slat_mean_ns", "ns", 0 },
	{ "read_slat_p50_ns", "ns", 0 },
	{ "read_slat_p99_ns", "ns", 0 },
	{ "write_slat_mean_ns", "ns", 0 },
	{ "write_slat_p50_ns", "ns", 0 },
	{ "write_slat_p99_ns", "ns", 0 },
	{ NULL }
};

static void io_destroy_state(void *state);

void io_error(const struct io_state *s, bench_thread *t, const char *detail, const char *hint,
	      const char *fmt, ...)
{
	char msg[512];	/* what the host keeps of a message */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->api->error(s->ctx, t, msg, detail, hint);
}

static int io_read_options(struct io_state *s, const struct io_opts *o)
{
	const bench_host_api_v1 *api = s->api;
	bench_ctx *ctx = s->ctx;

	s->file_size = (uint64_t)o->file_size;
	s->block_size = (uint64_t)o->block_size;
	s->per_thread = o->files == 0;
	s->rw = (enum io_rw)o->rw;
	s->rwmix_read = (int)o->rwmix_read;
	s->iodepth = (unsigned)o->iodepth;
	s->iodepth_batch = (unsigned)o->iodepth_batch;
	s->iodepth_batch_complete = (unsigned)o->iodepth_batch_complete;
	s->direct = o->direct;
	s->engine = (enum io_engine)o->engine;
	s->fsync_every = o->fsync_every;
	s->verify = o->verify;
	s->buffer_hugepages = o->buffer_hugepages;
	s->allow_device = o->allow_device;
	s->allocate = o->allocate;

	if ((s->direct || s->verify) && s->block_size % IO_SECTOR) {
		api->set_error(ctx, "block_size %llu is not a multiple of 512, which %s requires",
			       (unsigned long long)s->block_size,
			       s->direct ? "direct = true" : "verify = true");
		return BENCH_ERR;
	}
	if (s->allocate && (s->rw != IO_SEQWRITE || s->verify || !s->per_thread)) {
		api->errorf(ctx, NULL, "allocate = true needs rw = write, files = per_thread and verify = false\n"
			    "A new file allocated as it is written is dd's sequential write to a new file, "
			    "one per thread; reads and random writes need the file laid out first.\n"
			    "set allocate = false, or rw = write");
		return BENCH_ERR;
	}
	if (s->file_size < s->block_size) {
		api->set_error(ctx, "file_size (%llu) is smaller than block_size (%llu)",
			       (unsigned long long)s->file_size, (unsigned long long)s->block_size);
		return BENCH_ERR;
	}
	return BENCH_OK;
}

/* io is built on host API 1.1: the host keeps slat (dist), ends the run
   without eating the --events budget (claim, stopping), and takes run-time
   failures from any worker (error); and on 1.3 for its typed options. */
static int io_host_ok(const bench_host_api_v1 *api, bench_ctx *ctx)
{
	if (BENCH_HOST_HAS(api, error) && BENCH_HOST_HAS(api, claim) &&
	    BENCH_HOST_HAS(api, stopping) && BENCH_HOST_HAS(api, dist) &&
	    BENCH_HOST_HAS(api, record_dist) && BENCH_HOST_HAS(api, dist_percentile) &&
	    BENCH_HOST_HAS(api, options) && api->options(ctx))
		return 1;
	api->set_error(ctx, "io needs benchcore's host API 1.3 (error, claim, stopping, dist, "
		       "record_dist, dist_percentile, options); this benchcore speaks %u.%u: update it",
		       (unsigned)api->abi_major, (unsigned)api->abi_minor);
	return 0;
}

/* Submission latency of each direction the case does, as the host's
   secondary distribution "slat" of that op class (libaio only: psync has no
   separate submission). */
static int io_declare_slat(struct io_state *s)
{
	for (int op = IO_OP_READ; op <= IO_OP_WRITE; op++) {
		int does = op == IO_OP_READ ? s->rw != IO_RANDWRITE && s->rw != IO_SEQWRITE
					    : s->rw != IO_RANDREAD && s->rw != IO_SEQREAD;
		s->slat_id[op] = -1;
		if (!does || s->engine != IO_ENGINE_LIBAIO)
			continue;
		s->slat_id[op] = s->api->dist(s->ctx, (unsigned)op, "slat");
		if (s->slat_id[op] < 0)
			return BENCH_ERR;	/* the host set the error */
	}
	return BENCH_OK;
}

static int io_init_state(struct io_state *s)
{
	const bench_host_api_v1 *api = s->api;
	bench_ctx *ctx = s->ctx;
	struct timespec ts;

	s->threads = api->threads(ctx);
	if (s->threads == 0)
		s->threads = 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->seed = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec;
	s->verify_bad = calloc(s->threads, sizeof(*s->verify_bad));
	s->verify_first = calloc(s->threads, sizeof(*s->verify_first));
	s->alloc_bytes = calloc(s->threads, sizeof(*s->alloc_bytes));
	s->alloc_restarts = calloc(s->threads, sizeof(*s->alloc_restarts));
	if (!s->verify_bad || !s->verify_first || !s->alloc_bytes || !s->alloc_restarts)
		return api->set_error(ctx, "out of memory"), BENCH_ERR;
	const struct io_opts *o = api->options(ctx);
	if (io_read_options(s, o) != BENCH_OK || io_declare_slat(s) != BENCH_OK)
		return BENCH_ERR;
	int rc = io_target_init(s, o->path);
	if (s->files && s->nfiles)
		io_fs_info(s);
	/* A device may have shrunk file_size to its capacity. */
	s->nblocks = s->file_size / s->block_size;
	if (rc == BENCH_OK && s->nblocks == 0) {
		api->set_error(ctx, "the device is smaller than block_size");
		rc = BENCH_ERR;
	}
	return rc;
}

static int io_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	*state = NULL;
	if (!io_host_ok(api, ctx))
		return BENCH_ERR;
	struct io_state *s = calloc(1, sizeof(*s));
	if (!s)
		return api->set_error(ctx, "out of memory"), BENCH_ERR;
	s->api = api;
	s->ctx = ctx;
	s->dirfd = -1;
	int rc = io_init_state(s);
	/* The host calls destroy only after a successful init. */
	if (rc == BENCH_OK) {
		*state = s;
	} else {
		io_lock_drop(s);	/* a case that cannot start holds nothing */
		io_destroy_state(s);
	}
	return rc;
}

/* slat metrics of one direction, from the host's "slat" distribution. */
static void io_report_slat(struct io_state *s, int op, const char *name)
{
	const bench_host_api_v1 *api = s->api;
	uint64_t p50 = 0, p99 = 0, count = 0;
	double mean = 0;
	char metric[48];

	if (s->slat_id[op] < 0 ||
	    api->dist_percentile(s->ctx, s->slat_id[op], 50, &p50, &count, &mean) != BENCH_OK ||
	    count == 0 ||
	    api->dist_percentile(s->ctx, s->slat_id[op], 99, &p99, NULL, NULL) != BENCH_OK)
		return;
	snprintf(metric, sizeof(metric), "%s_slat_mean_ns", name);
	api->report_metric(s->ctx, metric, mean);
	snprintf(metric, sizeof(metric), "%s_slat_p50_ns", name);
	api->report_metric(s->ctx, metric, (double)p50);
	snprintf(metric, sizeof(metric), "%s_slat_p99_ns", name);
	api->report_metric(s->ctx, metric, (double)p99);
}

/* Says which buffer memory the case used: it changes the work of a request
   (a block on 4 KiB pages is up to one DMA segment per page, on a huge page
   one segment) and moved 100K psync by up to 2x and 16K randread by ~20%.
   The first word is the kind the kernel granted, the rest what was asked;
   compare names a difference in it. */
static void io_report_pages(struct io_state *s)
{
	unsigned huge = __atomic_load_n(&s->huge_threads, __ATOMIC_RELAXED);
	char v[160];

	if (!s->buffer_hugepages && huge == 0)
		snprintf(v, sizeof(v), "4k (page-aligned, as dd and fio use)");
	else if (!s->buffer_hugepages)
		snprintf(v, sizeof(v), "huge on %u of %u threads (THP = always; "
			 "buffer_hugepages = false)", huge, s->threads);
	else if (huge == s->threads)
		snprintf(v, sizeof(v), "huge (buffer_hugepages = true)");
	else {
		snprintf(v, sizeof(v), "4k on %u of %u threads: transparent huge pages not granted",
			 s->threads - huge, s->threads);
		s->api->log(s->ctx, BENCH_LOG_WARN, "I/O buffers of %u of %u threads are on 4 KiB "
			    "pages: the kernel did not grant transparent huge pages (see "
			    "/sys/kernel/mm/transparent_hugepage/enabled); large blocks then take "
			    "several DMA segments and results vary with where the pages land",
			    s->threads - huge, s->threads);
	}
	s->api->set_info(s->ctx, "buffer_pages", v);
}

/* The rates of the measured window: iops and mib_per_sec first (the headline
   of any rw pattern), per direction for the directions rw does, and dd's
   MB/s (10^6 bytes) beside MiB/s in dd-style cases (psync, sequential), so a
   dd figure reads against it without converting. */
static void io_report_rates(struct io_state *s, const bench_totals_v1 t[2], const int does[2])
{
	static const char *const names[] = { "read", "write" };
	const bench_host_api_v1 *api = s->api;
	double sec = t[0].seconds > 0 ? t[0].seconds : t[1].seconds;
	char metric[48];

	if (sec > 0) {
		double bytes = (double)(t[0].bytes + t[1].bytes);
		api->report_metric(s->ctx, "iops", (double)(t[0].count + t[1].count) / sec);
		api->report_metric(s->ctx, "mib_per_sec", bytes / 1048576.0 / sec);
		if (s->engine == IO_ENGINE_PSYNC && (s->rw == IO_SEQREAD || s->rw == IO_SEQWRITE))
			api->report_metric(s->ctx, "mb_per_sec", bytes / 1e6 / sec);
	}
	for (int op = IO_OP_READ; op <= IO_OP_WRITE; op++) {
		if (!does[op] || t[op].seconds <= 0)
			continue;
		snprintf(metric, sizeof(metric), "%s_iops", names[op]);
		api->report_metric(s->ctx, metric, (double)t[op].count / t[op].seconds);
		snprintf(metric, sizeof(metric), "%s_mib_per_sec", names[op]);
		api->report_metric(s->ctx, metric, (double)t[op].bytes / 1048576.0 / t[op].seconds);
	}
}

/* Which write ran, dd's to a new file or an overwrite of a file laid out
   first: on xfs the same 100K O_DIRECT stream ran at 689 MB/s the one way
   and 1092 the other (issue 52), so a case says which it was. */
static void io_report_write_file(struct io_state *s)
{
	uint64_t bytes = 0, restarts = 0;
	char v[200];

	if (s->rw == IO_RANDREAD || s->rw == IO_SEQREAD)
		return;
	if (!s->allocate) {
		s->api->set_info(s->ctx, "write_file", "laid out first, overwritten in place (allocate = false)");
		return;
	}
	for (unsigned i = 0; i < s->threads; i++) {
		bytes += s->alloc_bytes[i];
		restarts += s->alloc_restarts[i];
	}
	snprintf(v, sizeof(v), "new, allocated as written (allocate = true): %.1f MiB allocated at the "
		 "end in %u file%s, emptied %llu time%s when full", (double)bytes / 1048576.0, s->threads,
		 s->threads == 1 ? "" : "s", (unsigned long long)restarts, restarts == 1 ? "" : "s");
	s->api->set_info(s->ctx, "write_file", v);
}

static int io_finish(void *state)
{
	struct io_state *s = state;
	const bench_host_api_v1 *api = s->api;
	static const char *const names[] = { "read", "write" };
	int does[2] = { s->rw != IO_RANDWRITE && s->rw != IO_SEQWRITE,
			s->rw != IO_RANDREAD && s->rw != IO_SEQREAD };
	bench_totals_v1 t[2] = { { 0 }, { 0 } };
	uint64_t bad = 0, first = 0;

	for (int op = IO_OP_READ; op <= IO_OP_WRITE; op++)
		if (api->totals(s->ctx, (unsigned)op, &t[op]) != 0)
			t[op].seconds = 0;
	io_report_rates(s, t, does);
	for (int op = IO_OP_READ; op <= IO_OP_WRITE; op++)
		io_report_slat(s, op, names[op]);
	io_report_pages(s);
	io_report_write_file(s);
	/* A worker that failed has already failed the case (error(), then
	   BENCH_ERR from thread_run). */
	for (unsigned i = 0; i < s->threads; i++) {
		if (s->verify_bad[i] && !bad)
			first = s->verify_first[i];
		bad += s->verify_bad[i];
	}
	if (bad) {
		api->set_error(s->ctx, "verify failed: %llu block(s) read back with wrong contents; "
			       "the first bad sector is at byte offset %llu of the data file",
			       (unsigned long long)bad, (unsigned long long)first);
		return BENCH_ERR;
	}
	return BENCH_OK;
}

static void io_destroy_state(void *state)
{
	struct io_state *s = state;

	if (!s)
		return;
	for (unsigned i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->verify_bad);
	free(s->verify_first);
	free(s->alloc_bytes);
	free(s->alloc_restarts);
	free(s);
}

/* What a case needs at its path: its data files (one per thread, or one
   shared), unless path is a block device or a file that is there already
   (a kept file or a device is written in place); and its I/O buffers. */
static int io_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	const struct io_opts *o = api->options(ctx);
	unsigned threads = api->threads(ctx), files = o->files == 0 ? threads : 1;
	struct stat st;
	static char why[96];
	out->memory_bytes = (uint64_t)threads * (uint64_t)o->iodepth * (uint64_t)o->block_size;
	const char *nodirect = o->direct && stat(o->path, &st) == 0 && S_ISDIR(st.st_mode) ?
			       io_direct_unsupported(o->path) : NULL;
	if (nodirect) {	/* a configuration error: found in the plan, not at each case's init */
		api->errorf(ctx, NULL, "direct = true, but direct I/O is not supported at \"%s\"\n%s\n%s",
			    o->path, nodirect, IO_DIRECT_HINT);
		return BENCH_ERR;
	}
	if (stat(o->path, &st) == 0 && !S_ISDIR(st.st_mode))
		return BENCH_OK;	/* a device or an existing file: nothing laid out */
	out->disk_bytes = (uint64_t)files * (uint64_t)o->file_size;
	out->disk_path = o->path;
	snprintf(why, sizeof(why), "%u file%s x %lld bytes: lower file_size", files, files == 1 ? "" : "s",
		 (long long)o->file_size);
	out->why = why;
	return BENCH_OK;
}

static const bench_module_v1 io_module = {
	BENCH_MODULE_HEADER,
	.name		= "io",
	.version	= "1.0.0",
	.summary	= "storage I/O: random/sequential, libaio iodepth, O_DIRECT (fio, dd)",
	.options	= io_options,
	.opts_size	= sizeof(struct io_opts),
	.op_classes	= io_op_classes,
	.metrics	= io_metrics,
	.headline_metric = "iops",
	.requires	= { .disk_path_option = "path" },
	.init		= io_init,
	.prepare	= io_prepare,
	.thread_init	= io_thread_init,
	.thread_run	= io_thread_run,
	.thread_done	= io_thread_done,
	.finish		= io_finish,
	.cleanup	= io_cleanup,
	.destroy	= io_destroy_state,
	.needs		= io_needs,
};
BENCH_MODULE(io_module);
