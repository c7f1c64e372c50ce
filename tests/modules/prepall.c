/* Test module "prepall": prepare and cleanup without data_options (#54
 * item 2). prepare makes a file in module_dir(), which outlives the case,
 * and fails when it finds one already there (the previous case was not
 * cleaned up); cleanup removes it. module.h says both run in every case. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "benchcore/module.h"

typedef struct prepall_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	char path[4096];
} prepall_state;

static int prepall_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	prepall_state *s = calloc(1, sizeof(*s));
	if (!s)
		return BENCH_ERR;
	s->api = api;
	s->ctx = ctx;
	snprintf(s->path, sizeof(s->path), "%s/data", api->module_dir(ctx));
	*state = s;
	return BENCH_OK;
}

static int prepall_prepare(void *state)
{
	prepall_state *s = state;
	int fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		s->api->errorf(s->ctx, NULL, "prepare found %s: %s\nthe previous case's data was not cleaned up",
			       s->path, strerror(errno));
		return BENCH_ERR;
	}
	close(fd);
	return BENCH_OK;
}

static int prepall_event(void *tstate, uint64_t *bytes)
{
	(void)tstate;
	(void)bytes;
	return BENCH_OK;
}

static void prepall_cleanup(void *state)
{
	prepall_state *s = state;
	unlink(s->path);
}

static void prepall_destroy(void *state) { free(state); }

static const bench_module_v1 prepall_module = {
	BENCH_MODULE_HEADER,
	.name = "prepall",
	.version = "1.0",
	.summary = "prepare and cleanup in every case without data_options (test fixture)",
	.init = prepall_init,
	.prepare = prepall_prepare,
	.event = prepall_event,
	.cleanup = prepall_cleanup,
	.destroy = prepall_destroy,
};
BENCH_MODULE(prepall_module);
