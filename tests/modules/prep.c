/* Test module "prep": declares data_options = { "size" } (ABI 1.1) and logs
 * every init, prepare and cleanup to the file in option `log`, so a test can
 * count them: the host must prepare once per size, reuse it across modes,
 * thread counts and repeats, and clean up once, after the last case of that
 * size. The data is a file in module_dir(); thread_init fails when it is
 * missing, so a reuse that lost its data shows. fail_prepare / crash_once
 * make the first case of each size fail in prepare / crash in event;
 * prepare_s makes prepare slow. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "benchcore/module.h"

static const char *const prep_modes[] = { "a", "b", NULL };
static const char *const prep_data[] = { "size", NULL };

static const bench_option_v1 prep_options[] = {
	{ .name = "log", .type = BENCH_OPT_STRING, .help = "file the calls are logged to" },
	{ .name = "size", .type = BENCH_OPT_INT, .def = "1", .help = "shapes the data", .min = 0, .max = 1000 },
	{ .name = "mode", .type = BENCH_OPT_ENUM, .def = "a", .choices = prep_modes, .help = "does not" },
	{ .name = "fail_prepare", .type = BENCH_OPT_BOOL, .help = "the first prepare of each size fails" },
	{ .name = "crash_once", .type = BENCH_OPT_BOOL, .help = "the first event of each size crashes" },
	{ .name = "prepare_s", .type = BENCH_OPT_DOUBLE, .def = "0", .help = "seconds prepare takes",
	  .min = 0, .max = 3600 },
	{ 0 }
};

typedef struct prep_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	char log[512], data[512];
	long size;
	int fail_prepare, crash_once;
	double prepare_s;
} prep_state;

static void prep_log(prep_state *s, const char *what)
{
	char line[1024];
	int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	int n = snprintf(line, sizeof(line), "%s size=%ld pid=%d dir=%s\n", what, s->size, (int)getpid(),
			 s->api->module_dir(s->ctx));
	if (fd >= 0 && write(fd, line, (size_t)n) != n)
		n = 0;
	if (fd >= 0)
		close(fd);
}

/* 1 the first time it is asked for this marker (creates it). */
static int prep_first(prep_state *s, const char *what)
{
	char path[600];
	snprintf(path, sizeof(path), "%s.%s-%ld", s->log, what, s->size);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int prep_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	if (!BENCH_HOST_HAS(api, module_dir)) {
		api->set_error(ctx, "prep: needs host API 1.1");
		return BENCH_SKIP;
	}
	prep_state *s = calloc(1, sizeof(*s));
	s->api = api;
	s->ctx = ctx;
	s->size = (long)api->opt_int(ctx, "size");
	s->fail_prepare = api->opt_bool(ctx, "fail_prepare");
	s->crash_once = api->opt_bool(ctx, "crash_once");
	s->prepare_s = api->opt_double(ctx, "prepare_s");
	snprintf(s->log, sizeof(s->log), "%s", api->opt_string(ctx, "log"));
	snprintf(s->data, sizeof(s->data), "%s/data-%ld", api->module_dir(ctx), s->size);
	prep_log(s, "init");
	*state = s;
	return BENCH_OK;
}

static int prep_prepare(void *state)
{
	prep_state *s = state;
	if (s->fail_prepare && prep_first(s, "failed")) {
		prep_log(s, "prepare-failed");
		s->api->set_error(s->ctx, "prep: first prepare of size %ld fails on purpose", s->size);
		return BENCH_ERR;
	}
	prep_log(s, "prepare");
	if (s->prepare_s > 0)
		usleep((useconds_t)(s->prepare_s * 1e6));
	int fd = open(s->data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		s->api->set_error(s->ctx, "prep: cannot create %s", s->data);
		return BENCH_ERR;
	}
	close(fd);
	return BENCH_OK;
}

static int prep_thread_init(void *state, bench_thread *t, void **tstate)
{
	prep_state *s = state;
	(void)t;
	if (access(s->data, F_OK) != 0) {
		s->api->set_error(s->ctx, "prep: the prepared data %s is missing", s->data);
		return BENCH_ERR;
	}
	*tstate = s;
	return BENCH_OK;
}

static int prep_event(void *tstate, uint64_t *bytes)
{
	prep_state *s = tstate;
	(void)bytes;
	if (s->crash_once && prep_first(s, "crashed"))
		raise(SIGSEGV);
	usleep(500);
	return BENCH_OK;
}

static void prep_cleanup(void *state)
{
	prep_state *s = state;
	prep_log(s, "cleanup");
	unlink(s->data);
}

static void prep_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 prep_module = {
	BENCH_MODULE_HEADER,
	.name		= "prep",
	.version	= "1.0",
	.summary	= "test module that counts prepare and cleanup calls",
	.options	= prep_options,
	.init		= prep_init,
	.prepare	= prep_prepare,
	.thread_init	= prep_thread_init,
	.event		= prep_event,
	.cleanup	= prep_cleanup,
	.destroy	= prep_destroy,
	.data_options	= prep_data,
};
BENCH_MODULE(prep_module);
