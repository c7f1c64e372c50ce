/* Test module "rogue": misbehaves on purpose while running, as chosen by
 * option `fault` (tests/integration/test_contain.sh): hangs that ignore
 * signals in init, prepare or finish; processes left behind (a child, or a
 * setsid daemon) holding the case's descriptors; a worker ending with
 * pthread_exit; impossible records (op class out of range, a wrapped
 * latency, a negative byte count, a batch of 2^63); a NaN metric; every
 * operation failing, or one in twenty. fault=none also reports which of its
 * inherited descriptors lack close-on-exec (info.fds_no_cloexec). */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "benchcore/module.h"

static const char *const rogue_faults[] = { "none", "hang_init", "hang_prepare", "hang_finish",
	"fork_child", "fork_setsid", "pthread_exit", "bad_op", "wrap_latency", "neg_bytes", "huge_n",
	"nan_metric", "all_errors", "some_errors", "tiny_metric", NULL };
enum { R_NONE, R_HANG_INIT, R_HANG_PREPARE, R_HANG_FINISH, R_FORK, R_SETSID, R_PTEXIT, R_BADOP,
       R_WRAP, R_NEGB, R_HUGEN, R_NAN, R_ALLERR, R_SOMEERR, R_TINY };

static const bench_option_v1 rogue_options[] = {
	{ .name = "fault", .type = BENCH_OPT_ENUM, .def = "none", .choices = rogue_faults, .help = "how to misbehave" },
	{ 0 }
};
static const bench_metric_v1 rogue_metrics[] = { { "ratio", "", 1 }, { 0 } };

typedef struct rogue_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	int fault;
} rogue_state;

static void rogue_hang(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);	/* deaf to Ctrl-C: only SIGKILL ends it */
	for (;;)
		pause();
}

static void rogue_spawn(int daemonize)
{
	pid_t pid = fork();
	if (pid != 0)
		return;
	if (daemonize && fork() != 0)
		_exit(0);	/* the classic double fork: its child is an orphan */
	if (daemonize)
		setsid();
	prctl(PR_SET_NAME, "bc-rogue-stray");
	for (;;)
		pause();
}

/* Inherited descriptors above stderr without FD_CLOEXEC: an exec'd child would keep them. */
static void rogue_fds(rogue_state *s)
{
	char list[512] = "";
	size_t o = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int own = d ? dirfd(d) : -1;
	while (d && (de = readdir(d))) {
		int fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd <= 2 || fd == own)
			continue;
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0 && !(fl & FD_CLOEXEC) && o < sizeof(list) - 16)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%d", o ? "," : "", fd);
	}
	if (d)
		closedir(d);
	s->api->set_info(s->ctx, "fds_no_cloexec", list);
}

static int rogue_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	rogue_state *s = calloc(1, sizeof(*s));
	s->api = api;
	s->ctx = ctx;
	s->fault = api->opt_enum(ctx, "fault");
	*state = s;
	if (s->fault == R_HANG_INIT)
		rogue_hang();
	if (s->fault == R_FORK || s->fault == R_SETSID)
		rogue_spawn(s->fault == R_SETSID);
	if (s->fault == R_NONE)
		rogue_fds(s);
	return BENCH_OK;
}

static int rogue_prepare(void *state)
{
	if (((rogue_state *)state)->fault == R_HANG_PREPARE)
		rogue_hang();
	return BENCH_OK;
}

typedef struct rogue_thread {
	rogue_state *s;
	bench_thread *t;
} rogue_thread;

static int rogue_thread_init(void *state, bench_thread *t, void **tstate)
{
	rogue_thread *rt = calloc(1, sizeof(*rt));
	rt->s = state;
	rt->t = t;
	*tstate = rt;
	return BENCH_OK;
}

/* One "op" of 1000 ns per loop, with the chosen garbage once measuring. */
static int rogue_run(void *tstate)
{
	rogue_thread *rt = tstate;
	const bench_host_api_v1 *api = rt->s->api;
	bench_thread *t = rt->t;
	int f = rt->s->fault;
	for (uint64_t i = 0; !api->should_stop(t); i++) {
		usleep(100);
		if (f == R_PTEXIT && api->thread_index(t) == 0 && api->measuring(t))
			pthread_exit(NULL);
		if (!api->measuring(t) || i % 16)
			;
		else if (f == R_BADOP)
			api->record(t, 7, 1000, 0);
		else if (f == R_WRAP)
			api->record(t, 0, (uint64_t)-1000000, 0);	/* end - start with start after end */
		else if (f == R_NEGB)
			api->record(t, 0, 1000, (uint64_t)-4096);
		else if (f == R_HUGEN)
			api->record_n(t, 0, 1ull << 63, 0, 0);
		if (f == R_ALLERR || (f == R_SOMEERR && i % 20 == 0))
			api->record_error(t, 0, "refused");
		else
			api->record(t, 0, 1000, 64);
	}
	return BENCH_OK;
}

static void rogue_thread_done(void *tstate) { free(tstate); }

static int rogue_finish(void *state)
{
	rogue_state *s = state;
	bench_totals_v1 tot;
	s->api->totals(s->ctx, 0, &tot);
	if (s->fault == R_HANG_FINISH)
		rogue_hang();
	s->api->report_metric(s->ctx, "ratio", s->fault == R_NAN ? NAN : s->fault == R_TINY ? -1e308 : 1.0);
	return BENCH_OK;
}

static void rogue_destroy(void *state) { free(state); }

static const bench_module_v1 rogue_module = {
	BENCH_MODULE_HEADER,
	.name = "rogue",
	.version = "1.0",
	.summary = "misbehaves on purpose while running (test module)",
	.options = rogue_options,
	.metrics = rogue_metrics,
	.init = rogue_init,
	.prepare = rogue_prepare,
	.thread_init = rogue_thread_init,
	.thread_run = rogue_run,
	.thread_done = rogue_thread_done,
	.finish = rogue_finish,
	.destroy = rogue_destroy,
};
BENCH_MODULE(rogue_module);
