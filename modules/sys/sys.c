/*
 * sys: the operating system itself, as UnixBench's system tests and
 * lmbench's lat_* measure it: system calls, pipes, context switches,
 * process creation, exec, file copies and shell scripts.
 *
 * Each test does the work of UnixBench 5.1.3's program, counted in its
 * units so UnixBench's baseline applies (loops_per_sec; kib_per_sec for
 * file_copy; loops_per_min for shell), and the latency of one loop in
 * lmbench's sense (microseconds per operation) comes from the percentiles.
 * The harness must not be what is measured:
 *  - a loop shorter than a few microseconds (a system call, a pipe round
 *    trip) is run in batches of about SYS_BATCH_NS, timed once per batch
 *    (record_n: each loop gets the batch's mean);
 *  - the loops run where UnixBench's do, in a small single-threaded process:
 *    each worker thread starts a helper program (sys-helper, beside this
 *    module) with posix_spawn and asks it for batches of pipe loops, copies,
 *    forks, exec chains, context switches or scripts over a pipe, batches
 *    of about SYS_BATCH_HELPER_NS that the helper times itself, with the
 *    next one always waiting (sys_run_helper). Forking the case would copy
 *    a large multithreaded
 *    process's page tables, and a read or write in it pays for the shared
 *    descriptor table (a file reference counted per call, a regular file's
 *    position locked): pipe measured 0.84 and file_copy 0.90 of UnixBench's
 *    figure when the case's own thread ran them. Only syscall and getpid,
 *    whose calls touch no file, run on the worker thread itself.
 * threads = N runs N copies at once, as UnixBench's -c N.
 *
 * Threads: init, prepare, finish, cleanup and destroy on the main thread;
 * each worker owns its struct sys_thread (helper, pipes, files) alone.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sys.h"

static const char *const sys_test_names[] = {
	"syscall", "getpid", "pipe", "context_switch", "spawn", "execl", "file_copy", "shell", NULL };
static const char *const sys_classes[] = { "loop", NULL };

static const bench_option_v1 sys_options[] = {
	{ "test", BENCH_OPT_ENUM, "syscall",
	  "syscall (UnixBench's mix: close(dup()), getpid, getuid, umask), getpid (the null call), pipe "
	  "(512 bytes through a pipe and back), context_switch (a counter between two processes), spawn "
	  "(fork and wait), execl (exec), file_copy (read and write through a buffer), shell (a script of "
	  "sort, od, grep, tee, wc)", sys_test_names, 0, 0, 0, BENCH_OPT_AT(struct sys_opts, test) },
	{ "buffer_size", BENCH_OPT_SIZE, "1K", "file_copy: bytes per read and write (UnixBench: 256, 1024, 4096)",
	  NULL, 1, 1048576, 0, BENCH_OPT_AT(struct sys_opts, buffer_size) },
	{ "max_blocks", BENCH_OPT_INT, "2000", "file_copy: the file's size in KiB (UnixBench's -m, whose "
	  "\"blocks\" are KiB whatever the buffer: 500, 2000, 8000 in its index), copied over and over",
	  NULL, 1, 1048576, 0,
	  BENCH_OPT_AT(struct sys_opts, max_blocks) },
	{ "path", BENCH_OPT_STRING, "/var/tmp", "file_copy: the directory of its two files (made by the case, "
	  "removed after; a file there of another name is never touched)", NULL, 0, 0, BENCH_OPT_PLACEMENT,
	  BENCH_OPT_AT(struct sys_opts, path) },
	{ "concurrency", BENCH_OPT_INT, "1", "shell: copies of the script at once in one loop (UnixBench: 1 "
	  "and 8)", NULL, 1, 64, 0, BENCH_OPT_AT(struct sys_opts, concurrency) },
	{ 0 }
};

static const bench_metric_v1 sys_metrics[] = {
	{ "loops_per_sec", "loops/s", 1 },
	{ "kib_per_sec", "KiB/s", 1 },
	{ "loops_per_min", "loops/min", 1 },
	{ "us_per_loop", "us", 0 },
	{ NULL }
};

/* The helper program beside this module's file (sys-helper), checked as
   the loader checks modules: a regular file, executable, not writable by
   group or others, nor its directory. */
static int sys_find_helper(struct sys_state *s)
{
	Dl_info di;
	char dir[PATH_MAX];
	struct stat st;
	if (!dladdr((void *)sys_find_helper, &di) || !di.dli_fname || !realpath(di.dli_fname, dir))
		return s->api->errorf(s->ctx, NULL, "cannot find the sys module's own file\n\nreinstall "
				      "benchcore"), BENCH_ERR;
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	snprintf(s->helper, sizeof(s->helper), "%s/sys-helper", dir);
	if (stat(s->helper, &st) || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR))
		return s->api->errorf(s->ctx, NULL, "the sys module's helper %s is missing\nThe process tests "
				      "fork and exec from it.\nreinstall benchcore (make install puts it beside "
				      "sys.so)", s->helper), BENCH_ERR;
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    stat(dir, &st) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return s->api->errorf(s->ctx, NULL, "refusing the helper %s: it or its directory is writable by "
				      "others\nAnyone who can change it would run code in every sys case.\nchmod "
				      "go-w it and its directory", s->helper), BENCH_ERR;
	return BENCH_OK;
}

static int sys_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	const struct sys_opts *o = BENCH_HOST_HAS(api, errorf) ? api->options(ctx) : NULL;
	if (!o) {
		api->set_error(ctx, "sys needs benchcore's host API 1.3 (typed options, errorf)");
		return BENCH_ERR;
	}
	struct sys_state *s = calloc(1, sizeof(*s));
	if (!s)
		return api->set_error(ctx, "out of memory"), BENCH_ERR;
	s->api = api;
	s->ctx = ctx;
	s->o = o;
	s->threads = api->threads(ctx);
	/* Under --events N a batch is at most a 64th of a thread's share (as
	   the host's own claims): a batch begun in warmup is warmup's (not
	   counted) and whatever of it runs in the window is a small part. */
	uint64_t events = BENCH_HOST_SINCE(api, 4, events) ? api->events(ctx) : 0;
	s->batch_cap = events ? events / (64u * s->threads) : SYS_BATCH_MAX;
	if (s->batch_cap < 1)
		s->batch_cap = 1;
	if (s->batch_cap > SYS_BATCH_MAX)
		s->batch_cap = SYS_BATCH_MAX;
	s->shfd = -1;
	s->th = calloc(s->threads, sizeof(*s->th));
	*state = s;
	if (!s->th)
		return api->set_error(ctx, "out of memory"), BENCH_ERR;
	for (unsigned i = 0; i < s->threads; i++) {
		struct sys_thread *t = &s->th[i];
		t->s = s;
		t->index = i;
		t->cmd = t->src = t->dst = -1;
	}
	api->set_info(ctx, "test", sys_test_names[o->test]);
	if (sys_uses_helper(o->test) && sys_find_helper(s))
		return BENCH_ERR;
	return BENCH_OK;
}

/* fd moved to a number above the helper's 0..4 (a dup2 onto 3 must not
   close the other file before its own dup2), or -1. */
static int sys_fd_high(int fd)
{
	if (fd < 0 || fd > 4)
		return fd;
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, 5);
	close(fd);
	return hi;
}

/* context_switch: the helper forks its partner now, before the window, and
   says its pid: the partner is half of the workload (every loop is a round
   trip with it), so it is declared like the helper; undeclared, its CPU
   time was "other processes" on the case's CPUs (interference_pct near 50%
   with nothing else running). */
static int sys_ctx_partner(struct sys_state *s, struct sys_thread *t)
{
	char line[128] = "";
	unsigned long long pid = 0;
	if (write(t->cmd, "partner 1\n", 10) != 10 || !fgets(line, sizeof(line), t->reply) ||
	    strncmp(line, "ok ", 3) || sscanf(line + 3, "%llu", &pid) != 1 || pid < 1 || pid > INT_MAX) {
		line[strcspn(line, "\n")] = '\0';
		return s->api->errorf(s->ctx, NULL, "sys-helper did not start context_switch's partner process\n%s",
				      line), BENCH_ERR;
	}
	s->api->declare_process(s->ctx, (int)pid, "sys-helper's partner");
	return BENCH_OK;
}

/* Starts thread i's helper: stdin and stdout are its command pipes;
   file_copy's two files are its descriptors 3 and 4; shell's directory
   its descriptor 5 (the script named relative to it). */
static int sys_start_helper(struct sys_state *s, struct sys_thread *t)
{
	int in[2], out[2];
	posix_spawn_file_actions_t fa;
	char *argv[] = { s->helper, "serve", s->shfd >= 0 ? "./script.sh" : NULL, NULL };
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return s->api->errorf(s->ctx, NULL, "pipe: %s", strerror(errno)), BENCH_ERR;
	if (t->src >= 0 && ((t->src = sys_fd_high(t->src)) < 0 || (t->dst = sys_fd_high(t->dst)) < 0))
		return s->api->errorf(s->ctx, NULL, "fcntl: %s", strerror(errno)), BENCH_ERR;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	if (t->src >= 0) {
		posix_spawn_file_actions_adddup2(&fa, t->src, 3);
		posix_spawn_file_actions_adddup2(&fa, t->dst, 4);
	}
	if (s->shfd >= 0)
		posix_spawn_file_actions_adddup2(&fa, s->shfd, 5);
	int rc = posix_spawn(&t->helper, s->helper, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	sys_copy_handed_over(t);
	t->cmd = in[1];
	t->reply = fdopen(out[0], "r");
	if (rc || !t->reply)
		return s->api->errorf(s->ctx, NULL, "cannot start %s: %s", s->helper, strerror(rc ? rc : errno)),
		       BENCH_ERR;
	s->api->declare_process(s->ctx, (int)t->helper, "sys-helper");
	return s->o->test == SYS_CTX ? sys_ctx_partner(s, t) : BENCH_OK;
}

static int sys_prepare(void *state)
{
	struct sys_state *s = state;
	if (s->o->test == SYS_SHELL && sys_shell_prepare(s))
		return BENCH_ERR;
	for (unsigned i = 0; i < s->threads; i++) {
		struct sys_thread *t = &s->th[i];
		if (s->o->test == SYS_FILE_COPY && sys_copy_prepare(s, t))
			return BENCH_ERR;
		if (sys_uses_helper(s->o->test) && sys_start_helper(s, t))
			return BENCH_ERR;
	}
	return BENCH_OK;
}

static int sys_thread_init(void *state, bench_thread *bt, void **tstate)
{
	struct sys_state *s = state;
	struct sys_thread *t = &s->th[s->api->thread_index(bt)];
	t->bt = bt;
	t->batch = 1;
	*tstate = t;
	return BENCH_OK;
}

/* The next batch's size: about SYS_BATCH_NS of loops (SYS_BATCH_HELPER_NS
   in the helper), from the last one. */
static void sys_next_batch(struct sys_thread *t, uint64_t took_ns)
{
	uint64_t ns = sys_uses_helper(t->s->o->test) ? SYS_BATCH_HELPER_NS : SYS_BATCH_NS;
	uint64_t want = took_ns ? t->batch * ns / took_ns : t->batch * 2;
	if (want > t->batch * 2)
		want = t->batch * 2;	/* grow gently: a slow first loop (cold caches) misleads */
	if (want < 1)
		want = 1;
	t->batch = want > t->s->batch_cap ? t->s->batch_cap : want;
}

/* A batch asked for in the window is recorded (and took its n events with
   claim()); one begun in warmup is warmup's even when it ends in the window
   (measuring() before claim(): the phase only moves forward), else the
   window would count loops the budget never gave: --events N with a warmup
   recorded 114k getpid loops for 100k. */
static void sys_record(struct sys_thread *t, uint64_t n, uint64_t ns, int counted)
{
	const bench_host_api_v1 *api = t->s->api;
	if (counted)
		api->record_n(t->bt, 0, n, ns / n, t->s->o->test == SYS_FILE_COPY ? (uint64_t)t->s->o->buffer_size : 0);
	else if (BENCH_HOST_SINCE(api, 4, warmup_n))
		api->warmup_n(t->bt, n);
	sys_next_batch(t, ns);
}

/* The events of the next batch: claimed in the window, n in warmup. */
static uint64_t sys_claim(struct sys_thread *t, int counted)
{
	const bench_host_api_v1 *api = t->s->api;
	return counted && BENCH_HOST_HAS(api, claim) ? api->claim(t->bt, t->batch) : t->batch;
}

/* Has the case stopped? stopping() takes nothing from the --events budget;
   should_stop() (a 1.0 host's only way) takes one event, and the batch
   claimed after it would then be one short: --events N ran fewer than N. */
static int sys_stopped(const bench_host_api_v1 *api, bench_thread *bt)
{
	return BENCH_HOST_HAS(api, stopping) ? api->stopping(bt) : api->should_stop(bt);
}

/* syscall and getpid: batches on this thread, timed here. */
static int sys_run_here(struct sys_thread *t)
{
	const bench_host_api_v1 *api = t->s->api;
	while (!sys_stopped(api, t->bt)) {
		int counted = api->measuring(t->bt);
		uint64_t n = sys_claim(t, counted);
		if (!n)
			break;
		uint64_t t0 = api->now_ns();
		int rc = sys_loops(t, n);
		uint64_t dt = api->now_ns() - t0;
		if (rc) {
			api->record_error(t->bt, 0, "failed");
			return BENCH_ERR;
		}
		sys_record(t, n, dt, counted);
	}
	return BENCH_OK;
}

/* The helper's tests: two batches asked for at a time, so the helper finds
   the next one waiting when it ends one and never idles while this thread
   is woken, records and asks (on a busy machine that wake-up alone can take
   milliseconds); each batch timed by the helper around its loops. After
   the stop, the batches asked for are answered and recorded. */
static int sys_run_helper(struct sys_thread *t)
{
	const bench_host_api_v1 *api = t->s->api;
	for (;;) {
		while (t->pending < 2 && !sys_stopped(api, t->bt)) {
			int counted = api->measuring(t->bt);
			uint64_t n = sys_claim(t, counted);
			if (!n)
				break;
			if (sys_send(t, n))
				goto failed;
			t->sent_counted[t->pending] = counted;
			t->sent[t->pending++] = n;
		}
		if (!t->pending)
			return BENCH_OK;
		uint64_t ns;
		if (sys_answer(t, &ns))
			goto failed;
		uint64_t n = t->sent[0];
		int counted = t->sent_counted[0];
		t->sent[0] = t->sent[1];
		t->sent_counted[0] = t->sent_counted[1];
		t->pending--;
		sys_record(t, n, ns ? ns : 1, counted);
	}
failed:
	api->record_error(t->bt, 0, "failed");
	return BENCH_ERR;
}

static int sys_thread_run(void *tstate)
{
	struct sys_thread *t = tstate;
	return sys_uses_helper(t->s->o->test) ? sys_run_helper(t) : sys_run_here(t);
}

static int sys_finish(void *state)
{
	struct sys_state *s = state;
	bench_totals_v1 tot;
	if (s->api->totals(s->ctx, 0, &tot) || tot.seconds <= 0 || !tot.count)
		return BENCH_OK;
	double per_sec = (double)tot.count / tot.seconds;
	/* the first metric reported is the case's headline: UnixBench's unit */
	if (s->o->test == SYS_FILE_COPY)
		s->api->report_metric(s->ctx, "kib_per_sec", (double)tot.bytes / 1024.0 / tot.seconds);
	else if (s->o->test == SYS_SHELL)
		s->api->report_metric(s->ctx, "loops_per_min", per_sec * 60.0);
	s->api->report_metric(s->ctx, "loops_per_sec", per_sec);
	s->api->report_metric(s->ctx, "us_per_loop", tot.seconds * 1e6 * tot.threads / (double)tot.count);
	return BENCH_OK;
}

static void sys_stop_helper(struct sys_thread *t)
{
	if (t->cmd >= 0)
		close(t->cmd);	/* EOF: the helper ends (and its ctx partner with it) */
	if (t->reply)
		fclose(t->reply);
	if (t->helper > 0)
		waitpid(t->helper, NULL, 0);
	t->cmd = -1;
	t->reply = NULL;
	t->helper = 0;
}

static void sys_cleanup(void *state)
{
	struct sys_state *s = state;
	for (unsigned i = 0; s->th && i < s->threads; i++) {
		struct sys_thread *t = &s->th[i];
		sys_stop_helper(t);
		sys_copy_cleanup(t);
	}
	sys_shell_cleanup(s);
}

static void sys_destroy(void *state)
{
	struct sys_state *s = state;
	if (!s)
		return;
	sys_cleanup(s);
	free(s->th);
	free(s);
}

/* file_copy's two files per thread at path. */
static int sys_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	const struct sys_opts *o = api->options(ctx);
	static char why[96];
	if (o->test != SYS_FILE_COPY)
		return BENCH_OK;
	out->disk_bytes = 2ull * api->threads(ctx) * (uint64_t)o->max_blocks * 1024u;
	out->disk_path = o->path;
	snprintf(why, sizeof(why), "2 files of %lld KiB a thread", (long long)o->max_blocks);
	out->why = why;
	return BENCH_OK;
}

static const bench_module_v1 sys_module = {
	BENCH_MODULE_HEADER,
	.name		= "sys",
	.version	= "1.0",
	.summary	= "the OS itself: system calls, pipes, context switches, fork, exec, file copy, shell "
			  "(UnixBench, lmbench)",
	.options	= sys_options,
	.op_classes	= sys_classes,
	.metrics	= sys_metrics,
	.opts_size	= sizeof(struct sys_opts),
	.init		= sys_init,
	.prepare	= sys_prepare,
	.thread_init	= sys_thread_init,
	.thread_run	= sys_thread_run,
	.finish		= sys_finish,
	.cleanup	= sys_cleanup,
	.destroy	= sys_destroy,
	.needs		= sys_needs,
	/* file_copy's files: machine.fs points path at the file system it made */
	.requires	= { .disk_path_option = "path" },
};
BENCH_MODULE(sys_module);
