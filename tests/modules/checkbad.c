/* Test module "checkbad": runs fine until finish, which crashes (SIGSEGV)
 * when option `words` is at its maximum: `benchcore check-module` must fail
 * naming that case, its option value and the phase. */
#include <signal.h>
#include <stdlib.h>
#include "benchcore/module.h"

static const bench_option_v1 checkbad_options[] = {
	{ .name = "words", .type = BENCH_OPT_INT, .def = "8", .help = "words per event", .min = 1, .max = 64 },
	{ 0 }
};

static int checkbad_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	long *w = malloc(sizeof(*w));
	if (!w) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	*w = (long)api->opt_int(ctx, "words");
	*state = w;
	return BENCH_OK;
}

static int checkbad_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }

static int checkbad_finish(void *state)
{
	if (*(long *)state == 64)
		raise(SIGSEGV);	/* the bug an author finds only at the bound */
	return BENCH_OK;
}

static void checkbad_destroy(void *state) { free(state); }

static const bench_module_v1 checkbad_module = {
	BENCH_MODULE_HEADER,
	.name		= "checkbad",
	.version	= "1.0",
	.summary	= "test module whose finish crashes at an option's bound",
	.options	= checkbad_options,
	.init		= checkbad_init,
	.event		= checkbad_event,
	.finish		= checkbad_finish,
	.destroy	= checkbad_destroy,
};
BENCH_MODULE(checkbad_module);
