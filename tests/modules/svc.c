/* Test module "svc": a module with a private server (host API 1.1). init
 * asks the host for the stand-in server (tests/servers/standin.c) on a unix
 * socket in module_dir() and records the pid it answers with; each event
 * connects to it and checks the answer. `fault` makes a case crash or hang
 * to prove the server outlives the case but not benchcore. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "benchcore/module.h"

static const char *const svc_faults[] = { "none", "crash", "hang", NULL };

static const bench_option_v1 svc_options[] = {
	{ .name = "server", .type = BENCH_OPT_STRING, .help = "the stand-in server binary" },
	{ .name = "flags", .type = BENCH_OPT_STRING, .help = "its extra flags, comma-separated" },
	{ .name = "fault", .type = BENCH_OPT_ENUM, .def = "none", .choices = svc_faults,
	  .help = "crash or hang in event" },
	{ .name = "ready_timeout", .type = BENCH_OPT_DOUBLE, .def = "10", .help = "server readiness timeout (s)",
	  .min = 0.1, .max = 600 },
	{ 0 }
};

typedef struct svc_state {
	char sock[108];
	char pid[64];
	int fault;
} svc_state;

/* Connects and reads the server's "pid=N" line into buf; 0 on success. */
static int svc_ask(const char *sock, char *buf, size_t n)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	ssize_t got = -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		got = read(fd, buf, n - 1);
	close(fd);
	if (got <= 4 || strncmp(buf, "pid=", 4))
		return -1;
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int svc_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	if (!BENCH_HOST_HAS(api, server_start) || !BENCH_HOST_HAS(api, module_dir)) {
		api->set_error(ctx, "svc: needs host API 1.1 (server_start)");
		return BENCH_SKIP;
	}
	svc_state *s = calloc(1, sizeof(*s));
	char flags[256], *argv[12] = { 0 };
	size_t n = 0;
	s->fault = api->opt_enum(ctx, "fault");
	snprintf(s->sock, sizeof(s->sock), "%s/svc.sock", api->module_dir(ctx));
	snprintf(flags, sizeof(flags), "%s", api->opt_string(ctx, "flags"));
	argv[n++] = (char *)api->opt_string(ctx, "server");
	argv[n++] = s->sock;
	for (char *f = strtok(flags, ","); f && n < 11; f = strtok(NULL, ","))
		argv[n++] = f;
	bench_server_spec_v1 spec = {
		.name = "standin", .argv = (const char *const *)argv, .ready_unix = s->sock,
		.ready_timeout_s = api->opt_double(ctx, "ready_timeout"),
	};
	if (api->server_start(ctx, &spec) != BENCH_OK) {	/* the host set the reason */
		free(s);
		return BENCH_ERR;
	}
	char buf[64];
	if (svc_ask(s->sock, buf, sizeof(buf))) {
		api->set_error(ctx, "svc: the server at %s did not answer", s->sock);
		free(s);
		return BENCH_ERR;
	}
	snprintf(s->pid, sizeof(s->pid), "%s", buf + 4);
	api->set_info(ctx, "server_pid", s->pid);
	api->set_info(ctx, "module_dir", api->module_dir(ctx));
	*state = s;
	return BENCH_OK;
}

static int svc_event(void *tstate, uint64_t *bytes)
{
	svc_state *s = tstate;
	char buf[64];
	(void)bytes;
	if (svc_faults[s->fault][0] == 'c')
		raise(SIGSEGV);
	if (svc_faults[s->fault][0] == 'h')
		for (;;)
			pause();
	usleep(1000);
	return svc_ask(s->sock, buf, sizeof(buf)) == 0 && !strcmp(buf + 4, s->pid) ? BENCH_OK : BENCH_ERR;
}

static int svc_thread_init(void *state, bench_thread *t, void **tstate)
{
	(void)t;
	*tstate = state;
	return BENCH_OK;
}

static void svc_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 svc_module = {
	BENCH_MODULE_HEADER,
	.name		= "svc",
	.version	= "1.0",
	.summary	= "test module with a private server",
	.options	= svc_options,
	.init		= svc_init,
	.thread_init	= svc_thread_init,
	.event		= svc_event,
	.destroy	= svc_destroy,
};
BENCH_MODULE(svc_module);
