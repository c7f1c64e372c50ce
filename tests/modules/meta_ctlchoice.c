/* Test module: an enum choice with a terminal escape in it (issue 25, finding
   2): a value users type, not only text shown, so it is refused at load
   rather than escaped (escaping would change what the module gets). */
#include "benchcore/module.h"
static const char *const meta_ctlchoice_choices[] = { "plain", "\033[2Jforged", NULL };
static const bench_option_v1 meta_ctlchoice_options[] = {
	{ .name = "mode", .type = BENCH_OPT_ENUM, .choices = meta_ctlchoice_choices },
	{ 0 }
};
static int meta_ctlchoice_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 meta_ctlchoice_module = {
	BENCH_MODULE_HEADER, .name = "meta_ctlchoice", .event = meta_ctlchoice_event,
	.options = meta_ctlchoice_options,
};
BENCH_MODULE(meta_ctlchoice_module);
