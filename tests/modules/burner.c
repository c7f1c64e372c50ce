/* Test module "burner": a stand-in for a local server that does the
 * workload's work. init forks a child that burns CPU until it is killed
 * (destroy kills and reaps it); with declare = true the module names it to
 * the host with declare_process() (ABI 1.3), so its CPU is recorded as
 * cpu.server_pct and left out of cpu.other_pct. The event itself sleeps:
 * the case's own process stays nearly idle, whatever the child does. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "benchcore/module.h"

static const bench_option_v1 burner_options[] = {
	{ .name = "declare", .type = BENCH_OPT_BOOL, .def = "true",
	  .help = "declare the burning child with declare_process()" },
	{ .name = "bad_pid", .type = BENCH_OPT_BOOL, .def = "false",
	  .help = "declare a pid that is no process (init must fail with the host's reason)" },
	{ 0 }
};

typedef struct burner_state {
	pid_t child;
} burner_state;

static void burner_stop(burner_state *s)
{
	if (s->child > 0) {
		kill(s->child, SIGKILL);
		waitpid(s->child, NULL, 0);
		s->child = 0;
	}
}

static int burner_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	if (!BENCH_HOST_HAS(api, declare_process)) {
		api->set_error(ctx, "burner: needs host API 1.3 (declare_process)");
		return BENCH_SKIP;
	}
	burner_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "burner: out of memory");
		return BENCH_ERR;
	}
	*state = s;
	if (api->opt_bool(ctx, "bad_pid"))
		return api->declare_process(ctx, 0x3ffffff0, "nobody") == BENCH_OK ? BENCH_OK : BENCH_ERR;
	s->child = fork();
	if (s->child < 0) {
		api->set_error(ctx, "burner: fork failed");
		return BENCH_ERR;
	}
	if (s->child == 0) {
		volatile unsigned long spin = 0;
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlives the case */
		for (;;)
			spin++;
	}
	if (api->opt_bool(ctx, "declare") && api->declare_process(ctx, (int)s->child, "burner") != BENCH_OK) {
		burner_stop(s);
		return BENCH_ERR;
	}
	return BENCH_OK;
}

static int burner_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)t;
	*tstate = state;
	return BENCH_OK;
}

static int burner_event(void *tstate, uint64_t *bytes)
{
	(void)tstate;
	(void)bytes;
	usleep(2000);
	return BENCH_OK;
}

static void burner_destroy(void *state)
{
	burner_stop(state);
	free(state);
}

static const bench_module_v1 burner_module = {
	BENCH_MODULE_HEADER,
	.name		= "burner",
	.version	= "1.0",
	.summary	= "test module: a declared (or not) CPU-burning child process",
	.options	= burner_options,
	.init		= burner_init,
	.thread_init	= burner_thread_init,
	.event		= burner_event,
	.destroy	= burner_destroy,
};
BENCH_MODULE(burner_module);
