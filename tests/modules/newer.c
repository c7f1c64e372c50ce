/* Test module "newer": declares an ABI minor newer than the host's, with a
 * larger descriptor and larger option entries, but sets nothing the host
 * does not know (the new bytes are zero, the flags are known ones): it
 * loads and runs, its options read right through the larger stride. */
#include <inttypes.h>
#include <stdio.h>
#include "benchcore/module.h"

typedef struct newer_option {
	bench_option_v1 o;
	uint64_t future;		/* a field of a later bench_option_v1, unused */
} newer_option;

static const newer_option newer_options[] = {
	{ .o = { .name = "n", .type = BENCH_OPT_INT, .def = "5", .help = "an int", .flags = BENCH_OPT_SCALES } },
	{ .o = { .name = "word", .type = BENCH_OPT_STRING, .def = "hi", .help = "a string",
		 .flags = BENCH_OPT_PLACEMENT } },
	{ .o = { 0 } }
};

static int newer_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRId64, api->opt_int(ctx, "n"));
	api->set_info(ctx, "n", buf);
	api->set_info(ctx, "word", api->opt_string(ctx, "word"));
	*state = NULL;
	return BENCH_OK;
}

static int newer_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }

struct newer_desc {
	bench_module_v1 m;
	uint64_t future[2];		/* fields of a later bench_module_v1, unused */
};

static const struct newer_desc newer_desc = {
	.m = {
		.magic = BENCH_MODULE_MAGIC, .abi_major = BENCH_ABI_MAJOR, .abi_minor = BENCH_ABI_MINOR + 1,
		.struct_size = sizeof(struct newer_desc), .option_size = sizeof(newer_option),
		.name = "newer", .version = "1", .summary = "a newer minor that uses nothing new (test fixture)",
		.options = &newer_options[0].o, .init = newer_init, .event = newer_event,
	},
};
BENCH_MODULE(newer_desc.m);
