/* Test module "sdkrules": one behaviour per rule sdk/README.md states, chosen
 * by option `mode`, each callback appending "NAME pid [thread]" to the file
 * in option `marker` so a test can see which callbacks ran, where:
 *   ok           every callback once, nothing odd
 *   error_ok     error() from init, then BENCH_OK: the case ends ok (a warning)
 *   error_window error() from init (a warning) and from thread 0's event in
 *                the measured window, every callback returning BENCH_OK:
 *                the window's error fails the case
 *   info_flood   100000 set_info keys in finish (the host keeps 256, warns)
 *   tinit_fail   thread_init of thread 1 fails: thread_done runs for thread 0 only
 *   crash_event  SIGSEGV in event: init + cleanup run again in a fresh process
 *   threads_info set_info and report_metric from every worker thread at once
 *   init_fail    init returns BENCH_ERR: nothing else is called, not even destroy
 * requires.min_disk (1 MiB at option dir) shows how sizes are printed. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "benchcore/module.h"

static const char *const sdkrules_modes[] = { "ok", "error_ok", "info_flood", "tinit_fail",
					      "crash_event", "threads_info", "init_fail", "error_window", NULL };

static const bench_option_v1 sdkrules_options[] = {
	{ .name = "mode", .type = BENCH_OPT_ENUM, .def = "ok", .choices = sdkrules_modes,
	  .help = "which rule to show" },
	{ .name = "marker", .type = BENCH_OPT_STRING, .def = "", .help = "file each callback appends a line to" },
	{ .name = "dir", .type = BENCH_OPT_STRING, .def = "/tmp", .help = "where min_disk is checked" },
	{ 0 }
};

static const bench_metric_v1 sdkrules_metrics[] = { { "per_thread", "", 1 }, { 0 } };

typedef struct sdkrules_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	const char *mode, *marker;
} sdkrules_state;

typedef struct sdkrules_thread {
	sdkrules_state *s;
	bench_thread *t;
	unsigned idx;
	int said;
} sdkrules_thread;

static void sdkrules_mark(const sdkrules_state *s, const char *what, int thread)
{
	char line[128];
	if (!s->marker[0])
		return;
	int fd = open(s->marker, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	int n = thread >= 0 ? snprintf(line, sizeof(line), "%s %d %d\n", what, (int)getpid(), thread)
			    : snprintf(line, sizeof(line), "%s %d\n", what, (int)getpid());
	if (write(fd, line, (size_t)n) < 0) {
		/* the test sees the line missing */
	}
	close(fd);
}

static int sdkrules_is(const sdkrules_state *s, const char *mode) { return !strcmp(s->mode, mode); }

static int sdkrules_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	sdkrules_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->api = api;
	s->ctx = ctx;
	s->mode = api->opt_string(ctx, "mode");
	s->marker = api->opt_string(ctx, "marker");
	*state = s;
	sdkrules_mark(s, "init", -1);
	if (sdkrules_is(s, "error_ok") || sdkrules_is(s, "error_window"))
		api->error(ctx, NULL, "sdkrules: a hiccup", "nothing failed", "no need to act");
	if (sdkrules_is(s, "init_fail")) {
		api->error(ctx, NULL, "sdkrules: init refused on purpose", NULL, NULL);
		free(s);	/* destroy will not be called: init frees what it made */
		return BENCH_ERR;
	}
	return BENCH_OK;
}

static int sdkrules_prepare(void *state) { sdkrules_mark(state, "prepare", -1); return BENCH_OK; }

static int sdkrules_thread_init(void *state, bench_thread *t, void **tstate)
{
	sdkrules_state *s = state;
	unsigned idx = s->api->thread_index(t);
	sdkrules_mark(s, "thread_init", (int)idx);
	if (sdkrules_is(s, "tinit_fail") && idx == 1) {
		s->api->error(s->ctx, t, "sdkrules: thread_init refused on purpose", NULL, NULL);
		return BENCH_ERR;
	}
	sdkrules_thread *th = calloc(1, sizeof(*th));
	if (!th)
		return BENCH_ERR;
	*th = (sdkrules_thread){ s, t, idx, 0 };
	*tstate = th;
	return BENCH_OK;
}

static int sdkrules_event(void *tstate, uint64_t *bytes)
{
	sdkrules_thread *th = tstate;
	(void)bytes;
	if (sdkrules_is(th->s, "crash_event"))
		raise(SIGSEGV);
	if (sdkrules_is(th->s, "error_window") && th->idx == 0 && !th->said && th->s->api->measuring(th->t)) {
		th->s->api->error(th->s->ctx, th->t, "sdkrules: the server stopped answering",
				  "no reply for 1 s", "see the server");
		th->said = 1;	/* and goes on: BENCH_OK all the way */
	}
	if (sdkrules_is(th->s, "threads_info") && !th->said && th->s->api->measuring(th->t)) {
		char key[32];
		snprintf(key, sizeof(key), "thread_%u", th->idx);
		th->s->api->set_info(th->s->ctx, key, "said");	/* from a worker thread */
		th->s->api->report_metric(th->s->ctx, "per_thread", th->idx + 1);
		th->said = 1;
	}
	usleep(1000);
	return BENCH_OK;
}

static void sdkrules_thread_done(void *tstate)
{
	sdkrules_thread *th = tstate;
	sdkrules_mark(th->s, "thread_done", (int)th->idx);
	free(th);
}

static int sdkrules_finish(void *state)
{
	sdkrules_state *s = state;
	sdkrules_mark(s, "finish", -1);
	for (int i = 0; sdkrules_is(s, "info_flood") && i < 100000; i++) {
		char key[32];
		snprintf(key, sizeof(key), "k%d", i);
		s->api->set_info(s->ctx, key, "v");
	}
	return BENCH_OK;
}

static void sdkrules_cleanup(void *state) { sdkrules_mark(state, "cleanup", -1); }

static void sdkrules_destroy(void *state)
{
	sdkrules_mark(state, "destroy", -1);
	free(state);
}

static const bench_module_v1 sdkrules_module = {
	BENCH_MODULE_HEADER,
	.name		= "sdkrules",
	.version	= "1.0",
	.summary	= "test module: the rules of sdk/README.md, one mode each",
	.options	= sdkrules_options,
	.metrics	= sdkrules_metrics,
	.requires	= { .min_disk = 1 << 20, .disk_path_option = "dir" },
	.init		= sdkrules_init,
	.prepare	= sdkrules_prepare,
	.thread_init	= sdkrules_thread_init,
	.event		= sdkrules_event,
	.thread_done	= sdkrules_thread_done,
	.finish		= sdkrules_finish,
	.cleanup	= sdkrules_cleanup,
	.destroy	= sdkrules_destroy,
};
BENCH_MODULE(sdkrules_module);
