/* Test module "faulty": misbehaves on purpose, as chosen by option `fault`,
 * to prove that one bad case fails alone: segfault in event, abort in
 * prepare, exit(0) in init, an endless thread_run-style loop in event, a huge
 * allocation, an error from init, or nothing (ok). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "benchcore/module.h"

static const char *const faulty_faults[] = { "none", "segv_event", "abort_prepare", "exit_init",
					     "hang_event", "huge_alloc", "init_error", "skip",
					     "hang_thread_init", NULL };

static const bench_option_v1 faulty_options[] = {
	{ .name = "fault", .type = BENCH_OPT_ENUM, .def = "none", .choices = faulty_faults,
	  .help = "how to misbehave" },
	{ .name = "sleep_us", .type = BENCH_OPT_INT, .def = "0", .help = "sleep per event (microseconds)",
	  .min = 0, .max = 10000000 },
	{ .name = "password", .type = BENCH_OPT_STRING, .def = "", .help = "a secret that must never be shown",
	  .flags = BENCH_OPT_SECRET },
	{ 0 }
};

typedef struct faulty_state {
	int fault;
	long sleep_us;
} faulty_state;

static int faulty_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	faulty_state *s = calloc(1, sizeof(*s));
	s->fault = api->opt_enum(ctx, "fault");
	s->sleep_us = (long)api->opt_int(ctx, "sleep_us");
	*state = s;
	if (!strcmp(faulty_faults[s->fault], "exit_init"))
		exit(0);
	if (!strcmp(faulty_faults[s->fault], "init_error")) {
		api->set_error(ctx, "faulty: init refused on purpose");
		free(s);
		return BENCH_ERR;
	}
	if (!strcmp(faulty_faults[s->fault], "skip")) {
		api->set_error(ctx, "faulty: nothing to do here");
		free(s);
		return BENCH_SKIP;
	}
	if (!strcmp(faulty_faults[s->fault], "huge_alloc")) {
		size_t n = (size_t)1 << 46;	/* 64 TiB: more than any test machine has */
		void *p = malloc(n);
		if (!p) {
			api->set_error(ctx, "faulty: could not allocate 64 TiB");
			free(s);
			return BENCH_ERR;
		}
		memset(p, 1, n);	/* if overcommit allowed it, this is killed by the OOM killer */
		free(p);
	}
	return BENCH_OK;
}

static int faulty_prepare(void *state)
{
	faulty_state *s = state;
	if (!strcmp(faulty_faults[s->fault], "abort_prepare"))
		abort();
	return BENCH_OK;
}

static int faulty_thread_init(void *state, bench_thread *t, void **tstate)
{
	faulty_state *s = state;
	(void)t;
	if (!strcmp(faulty_faults[s->fault], "hang_thread_init"))
		for (;;)
			pause();
	*tstate = state;
	return BENCH_OK;
}

static int faulty_event(void *tstate, uint64_t *bytes)
{
	faulty_state *s = tstate;
	(void)bytes;
	if (!strcmp(faulty_faults[s->fault], "segv_event"))
		raise(SIGSEGV);
	if (!strcmp(faulty_faults[s->fault], "hang_event"))
		for (;;)
			pause();
	if (s->sleep_us)
		usleep((useconds_t)s->sleep_us);
	return BENCH_OK;
}

static void faulty_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 faulty_module = {
	BENCH_MODULE_HEADER,
	.name		= "faulty",
	.version	= "1.0",
	.summary	= "test module that fails on purpose",
	.options	= faulty_options,
	.init		= faulty_init,
	.prepare	= faulty_prepare,
	.thread_init	= faulty_thread_init,
	.event		= faulty_event,
	.destroy	= faulty_destroy,
};
BENCH_MODULE(faulty_module);
