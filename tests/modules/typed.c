/* Test module "typed": ABI 1.3 typed options. Every option type is filled
 * into one struct by offset; init writes what it finds there (and, for
 * count, what the by-name getter says) into the case's info. misuse= calls a
 * by-name getter wrongly (the case must fail naming the option); fail=
 * raises an errorf() from init or from worker thread 0. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "benchcore/module.h"

typedef struct typed_opts {
	int on;				/* BOOL */
	int64_t count;			/* INT */
	int64_t block;			/* SIZE */
	double ratio;			/* DOUBLE */
	const char *label;		/* STRING */
	const char *tags;		/* STRING, BENCH_OPT_LIST */
	int mode;			/* ENUM */
	int misuse;			/* ENUM */
	int fail;			/* ENUM */
} typed_opts;

static const char *const typed_modes[] = { "fast", "slow", "exact", NULL };
static const char *const typed_colours[] = { "red", "green", "blue", NULL };
static const char *const typed_misuses[] = { "none", "type", "unknown", "thread", NULL };
static const char *const typed_fails[] = { "none", "init", "thread", NULL };

static const bench_option_v1 typed_options[] = {
	{ .name = "on", .type = BENCH_OPT_BOOL, .def = "true", .help = "a bool", BENCH_OPT_AT(typed_opts, on) },
	{ .name = "count", .type = BENCH_OPT_INT, .def = "3", .help = "an int", .min = -100, .max = 100,
	  BENCH_OPT_AT(typed_opts, count) },
	{ .name = "block", .type = BENCH_OPT_SIZE, .def = "4K", .help = "a size", .flags = BENCH_OPT_SCALES,
	  BENCH_OPT_AT(typed_opts, block) },
	{ .name = "ratio", .type = BENCH_OPT_DOUBLE, .def = "0.25", .help = "a double",
	  BENCH_OPT_AT(typed_opts, ratio) },
	{ .name = "label", .type = BENCH_OPT_STRING, .help = "a string (no default)",
	  .flags = BENCH_OPT_PLACEMENT, BENCH_OPT_AT(typed_opts, label) },
	{ .name = "tags", .type = BENCH_OPT_STRING, .def = "red,blue", .help = "a list", .choices = typed_colours,
	  .flags = BENCH_OPT_LIST, BENCH_OPT_AT(typed_opts, tags) },
	{ .name = "mode", .type = BENCH_OPT_ENUM, .def = "slow", .help = "an enum", .choices = typed_modes,
	  BENCH_OPT_AT(typed_opts, mode) },
	{ .name = "misuse", .type = BENCH_OPT_ENUM, .def = "none", .help = "read an option wrongly",
	  .choices = typed_misuses, BENCH_OPT_AT(typed_opts, misuse) },
	{ .name = "fail", .type = BENCH_OPT_ENUM, .def = "none", .help = "errorf() from init or a thread",
	  .choices = typed_fails, BENCH_OPT_AT(typed_opts, fail) },
	{ 0 }
};

typedef struct typed_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	const typed_opts *o;
} typed_state;

static void typed_info_int(const bench_host_api_v1 *api, bench_ctx *ctx, const char *key, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	api->set_info(ctx, key, buf);
}

static void typed_report(const bench_host_api_v1 *api, bench_ctx *ctx, const typed_opts *o)
{
	char buf[64];
	typed_info_int(api, ctx, "on", o->on);
	typed_info_int(api, ctx, "count", o->count);
	typed_info_int(api, ctx, "count_by_name", api->opt_int(ctx, "count"));
	typed_info_int(api, ctx, "block", o->block);
	snprintf(buf, sizeof(buf), "%g", o->ratio);
	api->set_info(ctx, "ratio", buf);
	api->set_info(ctx, "label", o->label ? o->label : "(null)");
	api->set_info(ctx, "tags", o->tags ? o->tags : "(null)");
	typed_info_int(api, ctx, "mode", o->mode);
}

static int typed_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	if (!BENCH_HOST_HAS(api, options) || !BENCH_HOST_HAS(api, errorf) || !api->options(ctx)) {
		api->set_error(ctx, "typed: the host has no options() or errorf(), or gave no struct");
		return BENCH_ERR;
	}
	typed_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->api = api;
	s->ctx = ctx;
	s->o = api->options(ctx);
	typed_report(api, ctx, s->o);
	if (s->o->misuse == 1)
		(void)api->opt_bool(ctx, "count");
	else if (s->o->misuse == 2)
		(void)api->opt_int(ctx, "nosuch");
	if (s->o->fail == 1) {
		api->errorf(ctx, NULL, "cannot reach %s\nlabel %s was given\nset fail = none", s->o->label,
			    s->o->label);
		free(s);
		return BENCH_ERR;
	}
	*state = s;
	return BENCH_OK;
}

typedef struct typed_thread {
	typed_state *s;
	bench_thread *t;
} typed_thread;

static int typed_thread_init(void *state, bench_thread *t, void **tstate)
{
	typed_state *s = state;
	typed_thread *tt = calloc(1, sizeof(*tt));
	if (!tt)
		return BENCH_ERR;
	tt->s = s;
	tt->t = t;
	if (s->o->misuse == 3 && s->api->thread_index(t) == 0)
		(void)s->api->opt_string(s->ctx, "count");
	*tstate = tt;
	return BENCH_OK;
}

static int typed_run(void *tstate)
{
	typed_thread *tt = tstate;
	const bench_host_api_v1 *api = tt->s->api;
	const typed_opts *o = tt->s->o;	/* read from a worker thread: allowed */
	if (o->fail == 2 && api->thread_index(tt->t) == 0) {
		api->errorf(tt->s->ctx, tt->t, "thread gave up after %" PRId64 " tries", o->count);
		return BENCH_ERR;
	}
	while (!api->should_stop(tt->t))
		api->record(tt->t, 0, 1000, (uint64_t)o->block);
	return BENCH_OK;
}

static void typed_thread_done(void *tstate)
{
	free(tstate);
}

static void typed_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 typed_module = {
	BENCH_MODULE_HEADER,
	.name		= "typed",
	.version	= "1.3",
	.summary	= "typed options (test fixture)",
	.options	= typed_options,
	.opts_size	= sizeof(typed_opts),
	.init		= typed_init,
	.thread_init	= typed_thread_init,
	.thread_run	= typed_run,
	.thread_done	= typed_thread_done,
	.destroy	= typed_destroy,
};
BENCH_MODULE(typed_module);
