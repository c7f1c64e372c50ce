/* Test module "unruly" (issue 25, findings 5-9): misbehaves in the phases
 * after the measured window and against benchcore's own process, as option
 * `fault` says: finish, cleanup or destroy hangs deaf to signals; the case
 * sends SIGTERM to its own process group (kill(0, ...)) while measuring;
 * init closes every descriptor above stderr (then returns, or hangs); init
 * calls exit(3); init prints to stdout and stderr; init writes to benchcore's
 * channel (any socket it finds open): a line with a tag inside it, or a
 * forged report before the real one. Its constructor prints a banner to
 * stdout (what a library's constructor might do). Every init appends a line
 * to the file `count` names, so a test can tell how often it ran.
 * tests/integration/test_contain.sh. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "benchcore/module.h"

__attribute__((constructor)) static void unruly_ctor(void)
{
	printf("unruly: banner from my constructor\n");
	fflush(stdout);
}

static const char *const unruly_faults[] = { "none", "hang_finish", "hang_cleanup", "hang_destroy",
	"kill_group", "close_fds", "close_fds_hang", "exit3", "print", "forge_line", "forge_report", "flood", NULL };
enum { U_NONE, U_HANG_FINISH, U_HANG_CLEANUP, U_HANG_DESTROY, U_KILL, U_CLOSE, U_CLOSE_HANG, U_EXIT,
       U_PRINT, U_FORGE_LINE, U_FORGE_REPORT, U_FLOOD };

static const bench_option_v1 unruly_options[] = {
	{ .name = "fault", .type = BENCH_OPT_ENUM, .def = "none", .choices = unruly_faults,
	  .help = "how to misbehave" },
	{ .name = "count", .type = BENCH_OPT_STRING, .def = "", .help = "a file each init appends a line to" },
	{ 0 }
};

typedef struct unruly_state {
	const bench_host_api_v1 *api;
	int fault;
	int signalled;
} unruly_state;

static void unruly_hang(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);	/* deaf to Ctrl-C: only SIGKILL ends it */
	for (;;)
		pause();
}

/* Writes to every socket above stderr, without a newline, for ever: a
   runner that keeps all of it runs out of memory. */
static void unruly_flood(void)
{
	static char junk[65536];
	memset(junk, 'x', sizeof(junk));
	for (;;)
		for (int fd = 3; fd < 1024; fd++) {
			struct stat st;
			if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
				(void)!write(fd, junk, sizeof(junk));
		}
}

/* Writes text to every socket above stderr: benchcore's channel among them. */
static void unruly_forge(const char *text)
{
	for (int fd = 3; fd < 1024; fd++) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			(void)!write(fd, text, strlen(text));
	}
}

static int unruly_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	unruly_state *s = calloc(1, sizeof(*s));
	if (!s)
		return BENCH_ERR;
	s->api = api;
	s->fault = api->opt_enum(ctx, "fault");
	*state = s;
	const char *count = api->opt_string(ctx, "count");
	FILE *f = *count ? fopen(count, "a") : NULL;
	if (f) {
		fprintf(f, "init\n");
		fclose(f);
	}
	if (s->fault == U_CLOSE || s->fault == U_CLOSE_HANG) {
		for (int fd = 3; fd < 4096; fd++)
			close(fd);
		if (s->fault == U_CLOSE_HANG)
			unruly_hang();
	}
	if (s->fault == U_EXIT)
		exit(3);
	if (s->fault == U_FORGE_LINE)
		unruly_forge("hello J {\"status\":\"ok\"}\n");	/* a report's tag inside a line */
	if (s->fault == U_FLOOD)
		unruly_flood();
	if (s->fault == U_FORGE_REPORT)
		unruly_forge("J {\"status\":\"ok\",\"module\":\"unruly\"}\n");
	if (s->fault == U_PRINT) {
		printf("unruly: {\"not\": \"json\"}\n\033]0;title\007no newline at the end");
		fflush(stdout);
		fprintf(stderr, "unruly: to stderr \033[31mred\r\n");
	}
	return BENCH_OK;
}

static int unruly_event(void *tstate, uint64_t *bytes)
{
	(void)bytes;
	unruly_state *s = tstate;
	if (s->fault == U_KILL && !__atomic_exchange_n(&s->signalled, 1, __ATOMIC_RELAXED))
		kill(0, SIGTERM);	/* its own process group: the module's own doing */
	usleep(100);
	return BENCH_OK;
}

static int unruly_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)t;
	*tstate = state;
	return BENCH_OK;
}

static int unruly_finish(void *state)
{
	if (((unruly_state *)state)->fault == U_HANG_FINISH)
		unruly_hang();
	return BENCH_OK;
}

static void unruly_cleanup(void *state)
{
	if (((unruly_state *)state)->fault == U_HANG_CLEANUP)
		unruly_hang();
}

static void unruly_destroy(void *state)
{
	if (((unruly_state *)state)->fault == U_HANG_DESTROY)
		unruly_hang();
	free(state);
}

static const bench_module_v1 unruly_module = {
	BENCH_MODULE_HEADER,
	.name = "unruly",
	.version = "1.0",
	.summary = "misbehaves after the window and against benchcore's process (test module)",
	.options = unruly_options,
	.init = unruly_init,
	.thread_init = unruly_thread_init,
	.event = unruly_event,
	.finish = unruly_finish,
	.cleanup = unruly_cleanup,
	.destroy = unruly_destroy,
};
BENCH_MODULE(unruly_module);
