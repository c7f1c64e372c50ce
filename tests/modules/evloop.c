/* Test module "evloop": an event-loop module on ABI 1.1, the shape of the
 * redis and net modules. Each worker thread drives `conns` connections
 * (socketpairs it echoes itself) on one epoll loop with the host's stop fd,
 * takes requests from the --events budget with claim(), paces them with
 * next_arrival() in open loop (latency from the intended start, the
 * uncorrected one in a secondary distribution), and names its op classes
 * after the `tests` option. Options inject the faults the suite checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "benchcore/module.h"

static const bench_option_v1 ev_options[] = {
	{ .name = "tests", .type = BENCH_OPT_STRING, .def = "ping", .help = "op class names separated by + or ," },
	{ .name = "conns", .type = BENCH_OPT_INT, .def = "4", .help = "connections per thread", .min = 1, .max = 64 },
	{ .name = "idle", .type = BENCH_OPT_BOOL, .def = "false", .help = "send nothing: wait on the stop fd only" },
	{ .name = "fail_thread", .type = BENCH_OPT_INT, .def = "-1", .help = "this thread reports an error and gives up", .min = -1, .max = 1000 },
	{ .name = "prepare_units", .type = BENCH_OPT_INT, .def = "0", .help = "prepare steps of 10 ms, with progress", .min = 0, .max = 100000 },
	{ .name = "error_kinds", .type = BENCH_OPT_INT, .def = "0", .help = "record this many distinct error kinds per thread", .min = 0, .max = 64 },
	{ 0 }
};
static const bench_metric_v1 ev_metrics[] = {
	{ "requests_per_sec", "req/s", 1 },
	{ "p50_from_finish_ns", "ns", 0 },
	{ 0 }
};
static const char *const ev_data_options[] = { "prepare_units", NULL };
static const bench_threshold_v1 ev_thresholds[] = { { "requests_per_sec", 3 }, { 0 } };

#define EV_MAX_TESTS 300
static char ev_kind_names[64][16];	/* static: record_error keeps the pointer */

typedef struct ev_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	int conns, idle, fail_thread, error_kinds, uncorrected;
	int64_t prepare_units;
	unsigned ntests;
} ev_state;

typedef struct ev_conn {
	int a, b;			/* client end, echoing end */
	uint64_t intended, sent;	/* the request in flight; 0 = none */
	int counted;			/* sent in the measured window */
} ev_conn;

typedef struct ev_thread {
	ev_state *s;
	bench_thread *t;
	int ep;
	ev_conn *c;
	uint64_t seq;
} ev_thread;

static int ev_classes(ev_state *s, const char *tests)
{
	static const char *names[EV_MAX_TESTS + 2];
	static char buf[8192];
	unsigned n = 0;
	snprintf(buf, sizeof(buf), "%s", tests);
	for (char *save = NULL, *tok = strtok_r(buf, ",+", &save); tok; tok = strtok_r(NULL, ",+", &save))
		if (n <= EV_MAX_TESTS)
			names[n++] = tok;
	names[n] = NULL;
	if (s->api->set_op_classes(s->ctx, names) != BENCH_OK)
		return BENCH_ERR;
	s->ntests = n;
	return BENCH_OK;
}

static int ev_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	if (!BENCH_HOST_HAS(api, set_op_classes)) {
		api->set_error(ctx, "this module needs a host with ABI 1.1");
		return BENCH_ERR;
	}
	ev_state *s = calloc(1, sizeof(*s));
	s->api = api;
	s->ctx = ctx;
	s->conns = (int)api->opt_int(ctx, "conns");
	s->idle = api->opt_bool(ctx, "idle");
	s->fail_thread = (int)api->opt_int(ctx, "fail_thread");
	s->prepare_units = api->opt_int(ctx, "prepare_units");
	s->error_kinds = (int)api->opt_int(ctx, "error_kinds");
	for (int i = 0; i < 64; i++)
		snprintf(ev_kind_names[i], sizeof(ev_kind_names[i]), "k%d", i);
	*state = s;
	if (ev_classes(s, api->opt_string(ctx, "tests")) != BENCH_OK)
		return BENCH_ERR;	/* the host keeps set_op_classes' reason */
	s->uncorrected = api->dist(ctx, 0, "uncorrected");
	return s->uncorrected < 0 ? BENCH_ERR : BENCH_OK;
}

static int ev_prepare(void *state)
{
	ev_state *s = state;
	for (int64_t i = 0; i < s->prepare_units; i++) {
		if (s->api->cancelled(s->ctx))
			return BENCH_ERR;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		s->api->progress(s->ctx, (uint64_t)i + 1, (uint64_t)s->prepare_units, "units");
	}
	return BENCH_OK;
}

static int ev_thread_init(void *state, bench_thread *t, void **tstate)
{
	ev_state *s = state;
	ev_thread *et = calloc(1, sizeof(*et));
	et->s = s;
	et->t = t;
	et->c = calloc((size_t)s->conns, sizeof(ev_conn));
	et->ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = UINT64_MAX };
	epoll_ctl(et->ep, EPOLL_CTL_ADD, s->api->stop_fd(s->ctx), &ev);
	for (int i = 0; i < s->conns; i++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
			return BENCH_ERR;
		et->c[i].a = sv[0];
		et->c[i].b = sv[1];
		ev.data.u64 = (uint64_t)i * 2;		/* even: client end has a reply */
		epoll_ctl(et->ep, EPOLL_CTL_ADD, sv[0], &ev);
		ev.data.u64 = (uint64_t)i * 2 + 1;	/* odd: echoing end has a request */
		epoll_ctl(et->ep, EPOLL_CTL_ADD, sv[1], &ev);
	}
	*tstate = et;
	return BENCH_OK;
}

/* Sends the next request on c if the budget and the schedule allow. */
static int ev_send(ev_thread *et, ev_conn *c, uint64_t now, int *budget_left)
{
	const bench_host_api_v1 *api = et->s->api;
	uint64_t due = api->next_arrival(et->t, 0);
	if (due > now)
		return 0;		/* open loop: not yet */
	if (!api->claim(et->t, 1)) {
		*budget_left = 0;
		return 0;
	}
	if (due)
		api->next_arrival(et->t, 1);
	c->counted = api->measuring(et->t);
	c->intended = due ? due : now;
	c->sent = now;
	uint64_t req = et->seq++;
	return write(c->a, &req, sizeof(req)) == sizeof(req) ? 1 : -1;
}

static void ev_reply(ev_thread *et, ev_conn *c, uint64_t now)
{
	const bench_host_api_v1 *api = et->s->api;
	uint64_t req;
	if (read(c->a, &req, sizeof(req)) != sizeof(req) || !c->sent)
		return;
	unsigned op = (unsigned)(req % et->s->ntests);
	uint64_t sent = c->sent;
	c->sent = 0;
	if (!c->counted)
		return;		/* sent in warmup: not this window's (and not from the budget) */
	api->record(et->t, op, now - c->intended, sizeof(req));
	if (op == 0)
		api->record_dist(et->t, et->s->uncorrected, now - sent);
	for (int k = 0; k < et->s->error_kinds; k++)
		api->record_error(et->t, 0, ev_kind_names[k]);
}

static int ev_thread_run(void *tstate)
{
	ev_thread *et = tstate;
	ev_state *s = et->s;
	const bench_host_api_v1 *api = s->api;
	if ((int)api->thread_index(et->t) == s->fail_thread) {
		api->error(s->ctx, et->t, "injected failure", "the fail_thread option asked for it",
			   "set fail_thread = -1");
		return BENCH_ERR;
	}
	int budget = 1, inflight = 0;
	while (!api->stopping(et->t) && (budget || inflight)) {
		uint64_t now = api->now_ns();
		for (int i = 0; i < s->conns && budget && !s->idle; i++)
			if (!et->c[i].sent && ev_send(et, &et->c[i], now, &budget) > 0)
				inflight++;
		if (!budget && !inflight)
			break;		/* the budget is spent and nothing is in flight */
		int timeout = -1;	/* the stop fd wakes us: no polling */
		uint64_t due = api->next_arrival(et->t, 0);
		if (due && budget && !s->idle)
			timeout = due > now ? (int)((due - now) / 1000000u) : 0;
		struct epoll_event evs[64];
		int n = epoll_wait(et->ep, evs, 64, timeout);
		now = api->now_ns();
		for (int i = 0; i < n; i++) {
			uint64_t tag = evs[i].data.u64;
			if (tag == UINT64_MAX)
				continue;
			ev_conn *c = &et->c[tag / 2];
			uint64_t req;
			if (tag % 2 && read(c->b, &req, sizeof(req)) == sizeof(req)) {
				if (write(c->b, &req, sizeof(req)) != sizeof(req))
					return BENCH_ERR;
			} else if (!(tag % 2)) {
				ev_reply(et, c, now);
				inflight--;
			}
		}
	}
	return BENCH_OK;
}

static void ev_thread_done(void *tstate)
{
	ev_thread *et = tstate;
	for (int i = 0; i < et->s->conns; i++) {
		close(et->c[i].a);
		close(et->c[i].b);
	}
	close(et->ep);
	free(et->c);
	free(et);
}

static int ev_finish(void *state)
{
	ev_state *s = state;
	bench_totals_v1 t;
	uint64_t all = 0, p50 = 0;
	for (unsigned op = 0; op < s->ntests; op++)
		if (s->api->totals(s->ctx, op, &t) == BENCH_OK)
			all += t.count;
	if (s->api->totals(s->ctx, 0, &t) == BENCH_OK && t.seconds > 0)
		s->api->report_metric(s->ctx, "requests_per_sec", (double)all / t.seconds);
	if (s->api->percentile(s->ctx, 0, 50, &p50) == BENCH_OK)
		s->api->report_metric(s->ctx, "p50_from_finish_ns", (double)p50);
	return BENCH_OK;
}

static void ev_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 ev_module = {
	BENCH_MODULE_HEADER,
	.name		= "evloop",
	.version	= "1.1",
	.summary	= "epoll echo loop on host API 1.1 (test module)",
	.options	= ev_options,
	.metrics	= ev_metrics,
	.init		= ev_init,
	.prepare	= ev_prepare,
	.thread_init	= ev_thread_init,
	.thread_run	= ev_thread_run,
	.thread_done	= ev_thread_done,
	.finish		= ev_finish,
	.destroy	= ev_destroy,
	.data_options	= ev_data_options,
	.headline_metric = "requests_per_sec",
	.thresholds	= ev_thresholds,
};
BENCH_MODULE(ev_module);
