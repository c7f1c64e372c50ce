/* Test module "checkmany": fails in many ways at once for `benchcore
 * check-module` (tests/integration/test_sdk.sh): each choice of option
 * `mode` but the default is a different failure, so most of the check's
 * cases fail and its count of passed cases must say so. fail_init and
 * fail_init2: init returns BENCH_ERR; crash_finish: finish crashes after
 * init, thread_init, warmup and the window ran (their seconds must show);
 * strays: init leaves 80 sleeping processes behind; hang_thread_init:
 * thread_init never returns (check-module's own short limit must end it);
 * warn: runs ok with one logged warning (shown once, not twice). */
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "benchcore/module.h"

static const char *const checkmany_modes[] = { "ok", "fail_init", "fail_init2", "crash_finish", "strays",
					       "hang_thread_init", "warn", NULL };
enum { M_OK, M_FAIL, M_FAIL2, M_CRASH, M_STRAYS, M_HANG, M_WARN };

static const bench_option_v1 checkmany_options[] = {
	{ .name = "mode", .type = BENCH_OPT_ENUM, .def = "ok", .choices = checkmany_modes,
	  .help = "how the case fails" },
	{ 0 }
};

static int checkmany_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	int *mode = malloc(sizeof(*mode));
	if (!mode) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	*mode = api->opt_enum(ctx, "mode");
	*state = mode;
	if (*mode == M_FAIL || *mode == M_FAIL2) {
		api->set_error(ctx, "refused on purpose (mode %d)", *mode);
		return BENCH_ERR;
	}
	if (*mode == M_WARN)
		api->log(ctx, BENCH_LOG_WARN, "checkmany-warning-once");
	for (int i = 0; *mode == M_STRAYS && i < 80; i++) {
		if (fork() == 0) {
			prctl(PR_SET_NAME, "bc-checkmany");
			for (;;)
				pause();
		}
	}
	return BENCH_OK;
}

static int checkmany_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)t;
	*tstate = state;
	while (*(int *)state == M_HANG)
		pause();
	return BENCH_OK;
}

static int checkmany_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }

static int checkmany_finish(void *state)
{
	if (*(int *)state == M_CRASH)
		raise(SIGSEGV);
	return BENCH_OK;
}

static void checkmany_destroy(void *state) { free(state); }

static const bench_module_v1 checkmany_module = {
	BENCH_MODULE_HEADER,
	.name		= "checkmany",
	.version	= "1.0",
	.summary	= "test module whose cases fail in many ways",
	.options	= checkmany_options,
	.init		= checkmany_init,
	.thread_init	= checkmany_thread_init,
	.event		= checkmany_event,
	.finish		= checkmany_finish,
	.destroy	= checkmany_destroy,
};
BENCH_MODULE(checkmany_module);
