/* Test module "escapes" (issue 25, finding 2): every text it gives benchcore
 * carries terminal escapes: ESC sequences, an OSC title, BEL, CR and
 * newlines that would forge a line of `benchcore list` or of a case's
 * reason. Its summary, option help and metric unit are shown by list and
 * help; option `say` picks which runtime text misbehaves: log() (a
 * warning), set_error(), error() (message, detail and hint, as a server's
 * reply quoted in an error would), each failing init except log.
 * tests/integration/test_contain.sh checks that none reaches a terminal raw. */
#include "benchcore/module.h"

#define ESCAPES_EVIL "\033[2J\033]0;pwned\007\r\nforged-line 6.6.6 \033[31mred"

static const char *const escapes_says[] = { "log", "set_error", "error", NULL };
static const bench_option_v1 escapes_options[] = {
	{ .name = "say", .type = BENCH_OPT_ENUM, .def = "log", .choices = escapes_says,
	  .help = "which text carries the escapes" ESCAPES_EVIL },
	{ 0 }
};
static const bench_metric_v1 escapes_metrics[] = { { "ratio", "x" ESCAPES_EVIL, 1 }, { 0 } };

static int escapes_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	*state = NULL;
	switch (api->opt_enum(ctx, "say")) {
	case 0:
		api->log(ctx, BENCH_LOG_WARN, "a warning" ESCAPES_EVIL);
		return BENCH_OK;
	case 1:
		api->set_error(ctx, "set_error" ESCAPES_EVIL);
		return BENCH_ERR;
	default:
		api->error(ctx, NULL, "server said" ESCAPES_EVIL, "detail" ESCAPES_EVIL, "hint" ESCAPES_EVIL);
		return BENCH_ERR;
	}
}

static int escapes_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }

static const bench_module_v1 escapes_module = {
	BENCH_MODULE_HEADER,
	.name = "escapes",
	.version = "1.0\033[8m",
	.summary = "terminal escapes in every text (test module)" ESCAPES_EVIL,
	.options = escapes_options,
	.metrics = escapes_metrics,
	.init = escapes_init,
	.event = escapes_event,
};
BENCH_MODULE(escapes_module);
