/* Test module "needs14": ABI 1.4 as a module author uses it. needs() reads
 * scratch_dir(), time_s(), events() and seed() and declares disk in the
 * scratch directory without a disk_path (the plan checks it there): rate x
 * time x row bytes, so a longer window needs more disk. The descriptor sets
 * host_minor = 4 (it calls 1.4 members unconditionally): a 1.3 host must
 * refuse it by name. init writes what it saw, and what needs() saw, into
 * the case's info. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchcore/module.h"

typedef struct needs14_opts {
	int64_t row;		/* bytes a row takes on disk */
	int64_t rows_per_s;	/* rows the window writes per second */
	int64_t write;		/* bytes prepare really writes in the scratch directory */
} needs14_opts;

static const bench_option_v1 needs14_options[] = {
	{ .name = "row", .type = BENCH_OPT_SIZE, .def = "1K", .help = "bytes per row", BENCH_OPT_AT(needs14_opts, row) },
	{ .name = "rows_per_s", .type = BENCH_OPT_INT, .def = "1000", .help = "rows written per second",
	  .min = 1, .max = 1e15, BENCH_OPT_AT(needs14_opts, rows_per_s) },
	{ .name = "write", .type = BENCH_OPT_SIZE, .def = "0", .help = "bytes prepare writes in the scratch directory",
	  BENCH_OPT_AT(needs14_opts, write) },
	{ 0 }
};

typedef struct needs14_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
} needs14_state;

static char needs14_saw[512];	/* what needs() saw, for the test (one process) */

static int needs14_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	const needs14_opts *o = api->options(ctx);
	const char *dir = api->scratch_dir(ctx);
	double t = api->time_s(ctx);
	snprintf(needs14_saw, sizeof(needs14_saw), "dir=%s time=%g events=%" PRIu64 " seed=%" PRIu64,
		 dir ? dir : "(null)", t, api->events(ctx), api->seed(ctx));
	api->log(ctx, BENCH_LOG_INFO, "needs: %s", needs14_saw);
	out->disk_bytes = (uint64_t)((double)o->row * (double)o->rows_per_s * t);
	out->why = "row x rows_per_s x time";
	return BENCH_OK;
}

static int needs14_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%" PRIu64, api->seed(ctx));
	api->set_info(ctx, "seed", buf);
	snprintf(buf, sizeof(buf), "%g", api->time_s(ctx));
	api->set_info(ctx, "time_s", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, api->events(ctx));
	api->set_info(ctx, "events", buf);
	api->set_info(ctx, "scratch_is_dir", api->scratch_dir(ctx) && strstr(api->scratch_dir(ctx), "/benchcore")
		      ? "yes" : "no");
	needs14_state *s = calloc(1, sizeof(*s));
	if (!s)
		return BENCH_ERR;
	s->api = api;
	s->ctx = ctx;
	*state = s;
	return BENCH_OK;
}

/* write bytes of a file in the scratch directory: what the case really takes */
static int needs14_prepare(void *state)
{
	const needs14_state *s = state;
	const needs14_opts *o = s->api->options(s->ctx);
	char path[4200], buf[65536];
	memset(buf, 'd', sizeof(buf));
	snprintf(path, sizeof(path), "%s/data", s->api->scratch_dir(s->ctx));
	FILE *f = o->write ? fopen(path, "we") : NULL;
	for (int64_t left = o->write; f && left > 0; left -= (int64_t)sizeof(buf))
		fwrite(buf, 1, left < (int64_t)sizeof(buf) ? (size_t)left : sizeof(buf), f);
	if (f && fclose(f))
		return BENCH_ERR;
	return BENCH_OK;
}

static int needs14_event(void *tstate, uint64_t *bytes)
{
	(void)tstate;
	(void)bytes;
	return BENCH_OK;
}

static const bench_module_v1 needs14_module = {
	BENCH_MODULE_HEADER,
	.host_minor = 4,
	.name = "needs14",
	.version = "1.0",
	.summary = "ABI 1.4: needs() sees the scratch dir, time, events and seed (test fixture)",
	.options = needs14_options,
	.opts_size = sizeof(needs14_opts),
	.needs = needs14_needs,
	.init = needs14_init,
	.prepare = needs14_prepare,
	.event = needs14_event,
	.destroy = free,
};
BENCH_MODULE(needs14_module);
