/* net: network throughput and latency between two benchcore processes,
 * `benchcore serve` on one machine and this module on the other (iperf3,
 * netperf and neper's tests with latency percentiles, many flows per thread
 * and an authenticated control channel). With no `server` option the case
 * starts the same server on a thread of its own, on 127.0.0.1, and says so
 * in the result's info: the default suite measures loopback with no setup.
 *
 * Headline: gbit_per_sec for the streams. The request/response tests
 * (tcp_rr, tcp_crr, udp_rr) do not report it, so their primary metric is
 * the first higher-is-better one they do report: transactions_per_sec. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include "net_client.h"

/* The options as the host fills them for each case (ABI 1.3): test as its
   index into net_test_names, which is its enum net_test. The strings are
   the host's and live until after destroy (s->secret keeps one). */
struct net_opts {
	const char *server, *secret, *congestion;
	int test;				/* enum net_test */
	int reverse, bidir, nodelay, zerocopy;
	int64_t flows, msg_size, window, pacing_rate;
	double bitrate, timeout, reply_timeout;	/* Mbit/s; seconds */
};

static const bench_option_v1 net_options[] = {
	{ .name = "test", .type = BENCH_OPT_ENUM, .def = "tcp_stream", .choices = net_test_names,
	  .help = "tcp_stream (bulk), tcp_rr (request/response), tcp_crr (connect+rr+close), udp_stream (paced, loss and jitter), udp_rr",
	  BENCH_OPT_AT(struct net_opts, test) },
	{ .name = "server", .type = BENCH_OPT_STRING, .def = "", .flags = BENCH_OPT_PLACEMENT,
	  .help = "HOST:PORT of a `benchcore serve` (port default 5301); empty: an in-process server on 127.0.0.1",
	  BENCH_OPT_AT(struct net_opts, server) },
	{ .name = "secret", .type = BENCH_OPT_STRING, .flags = BENCH_OPT_SECRET | BENCH_OPT_NOSWEEP | BENCH_OPT_PLACEMENT,
	  .help = "the server's secret, proved by HMAC challenge-response (never sent); or secret_env / secret_file",
	  BENCH_OPT_AT(struct net_opts, secret) },
	{ .name = "flows", .type = BENCH_OPT_INT, .def = "1", .min = 1, .max = 10000,
	  .help = "connections (flows) per thread, all on one epoll loop",
	  BENCH_OPT_AT(struct net_opts, flows) },
	{ .name = "msg_size", .type = BENCH_OPT_SIZE, .def = "0", .min = 0, .max = 64 << 20,
	  .help = "bytes per send / request / datagram; 0 = per test: 128K stream, 1 rr and crr, 1472 udp_stream, 32 udp_rr",
	  BENCH_OPT_AT(struct net_opts, msg_size) },
	{ .name = "reverse", .type = BENCH_OPT_BOOL, .def = "false",
	  .help = "tcp_stream: the server sends, this side receives (iperf3 -R)",
	  BENCH_OPT_AT(struct net_opts, reverse) },
	{ .name = "bidir", .type = BENCH_OPT_BOOL, .def = "false",
	  .help = "tcp_stream: both directions at once on every flow (iperf3 --bidir)",
	  BENCH_OPT_AT(struct net_opts, bidir) },
	{ .name = "window", .type = BENCH_OPT_SIZE, .def = "0", .min = 0, .max = 1 << 30,
	  .help = "SO_SNDBUF and SO_RCVBUF on both ends; 0 = the kernel's autotuning",
	  BENCH_OPT_AT(struct net_opts, window) },
	{ .name = "nodelay", .type = BENCH_OPT_BOOL, .def = "true",
	  .help = "TCP_NODELAY on both ends (no Nagle delay on small messages)",
	  BENCH_OPT_AT(struct net_opts, nodelay) },
	{ .name = "congestion", .type = BENCH_OPT_STRING, .def = "",
	  .help = "TCP_CONGESTION on both ends (cubic, bbr, reno); empty = the system default",
	  BENCH_OPT_AT(struct net_opts, congestion) },
	{ .name = "pacing_rate", .type = BENCH_OPT_SIZE, .def = "0", .min = 0, .max = 4294967295.0,
	  .help = "SO_MAX_PACING_RATE per flow in bytes/s on both ends; 0 = none",
	  BENCH_OPT_AT(struct net_opts, pacing_rate) },
	{ .name = "zerocopy", .type = BENCH_OPT_BOOL, .def = "false",
	  .help = "tcp_stream: send with MSG_ZEROCOPY (this side; loopback falls back to copying)",
	  BENCH_OPT_AT(struct net_opts, zerocopy) },
	{ .name = "bitrate", .type = BENCH_OPT_DOUBLE, .def = "100", .min = 0.001, .max = 1e6,
	  .help = "udp_stream: target rate in Mbit/s, all flows together",
	  BENCH_OPT_AT(struct net_opts, bitrate) },
	{ .name = "timeout", .type = BENCH_OPT_DOUBLE, .def = "5", .min = 0.1, .max = 600,
	  .help = "seconds for a connect or a control message; udp_rr waits timeout/25 for an answer",
	  BENCH_OPT_AT(struct net_opts, timeout) },
	{ .name = "reply_timeout", .type = BENCH_OPT_DOUBLE, .def = "2", .min = 0.05, .max = 3600,
	  .help = "seconds a flow with work under way may go without progress (a byte taken or received, an "
		  "answer): longer means the server stopped answering, and fails the case (not udp_stream)",
	  BENCH_OPT_AT(struct net_opts, reply_timeout) },
	{ 0 }
};

static const bench_metric_v1 net_metrics[] = {
	{ "gbit_per_sec", "Gbit/s", 1 },
	{ "mbit_per_sec", "Mbit/s", 1 },
	{ "transactions_per_sec", "trans/s", 1 },
	{ "fairness", "Jain index", 1 },
	{ "flow_min_mbit", "Mbit/s", 1 },
	{ "flow_max_mbit", "Mbit/s", 1 },
	{ "retransmits", "segments", 0 },
	{ "rtt_us", "us", 0 },
	{ "cwnd", "segments", 1 },
	{ "udp_loss_pct", "%", 0 },
	{ "udp_jitter_ms", "ms", 0 },
	{ "udp_out_of_order", "packets", 0 },
	{ "server_cpu_pct", "% of a CPU", 0 },
	{ 0 }
};

static const char *const net_op_classes[] = { "send", "recv", "transaction", NULL };

static const bench_threshold_v1 net_thresholds[] = {
	{ "gbit_per_sec", 3 }, { "transactions_per_sec", 3 }, { "fairness", 5 }, { 0 }
};

static int net_is_rr(int test)
{
	return test == NET_TCP_RR || test == NET_TCP_CRR || test == NET_UDP_RR;
}

static void net_fail(net_state *s, const char *msg, const char *detail, const char *hint)
{
	if (BENCH_HOST_HAS(s->api, error))
		s->api->error(s->ctx, NULL, msg, detail, hint);
	else
		s->api->set_error(s->ctx, "%s: %s", msg, detail ? detail : "");
}

/* The in-process server logs only its errors: its peer is this case, which
   reports everything else itself. */
static void net_inproc_log(void *u, int level, const char *msg)
{
	net_state *s = u;
	if (level <= BENCH_LOG_ERROR)
		s->api->log(s->ctx, level, "loopback server: %s", msg);
}

static void *net_inproc_main(void *arg)
{
	net_state *s = arg;
	net_server_run(s->srv);
	return NULL;
}

static int net_inproc_start(net_state *s)
{
	char err[200];
	/* no limits beyond the client's own: this case is its only client */
	net_server_cfg cfg = { .bind = "127.0.0.1", .port = 0, .max_clients = 1, .idle_timeout_s = 60,
			       .max_threads = NET_MAX_THREADS, .max_memory = UINT64_MAX / 2,
			       .log = net_inproc_log, .log_u = s, .secret = s->secret[0] ? s->secret : NULL };
	s->srv_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	cfg.stop_fd = s->srv_stop;
	if (s->srv_stop < 0 || !(s->srv = net_server_open(&cfg, err, sizeof(err)))) {
		net_fail(s, "cannot start the in-process loopback server", s->srv_stop < 0 ? strerror(errno) : err, NULL);
		return BENCH_ERR;
	}
	if (pthread_create(&s->srv_th, NULL, net_inproc_main, s) != 0) {
		net_fail(s, "cannot start the in-process loopback server", strerror(errno), NULL);
		return BENCH_ERR;
	}
	s->srv_running = 1;
	snprintf(s->where, sizeof(s->where), "127.0.0.1:%d", net_server_port(s->srv));
	s->api->set_info(s->ctx, "server", "in-process loopback");
	return BENCH_OK;
}

static int net_options_read(net_state *s, const struct net_opts *o)
{
	net_params *p = &s->p;
	static const uint64_t auto_size[NET_NTESTS] = { 128 << 10, 1, 1, 1472, NET_UDP_HDR };
	p->test = o->test;
	p->msg_size = (uint64_t)o->msg_size;
	if (!p->msg_size)
		p->msg_size = auto_size[p->test];
	p->reverse = o->reverse;
	p->bidir = o->bidir;
	p->window = (uint64_t)o->window;
	p->nodelay = o->nodelay;
	p->pacing_rate = (uint64_t)o->pacing_rate;
	p->zerocopy = o->zerocopy;
	snprintf(p->congestion, sizeof(p->congestion), "%s", o->congestion);
	s->secret = o->secret;
	s->bitrate_bps = o->bitrate * 1e6;
	s->timeout_ms = (int)(o->timeout * 1000);
	s->reply_ns = (uint64_t)(o->reply_timeout * 1e9);
	s->threads = s->api->threads(s->ctx);
	s->flows = (unsigned)o->flows;
	p->threads = s->threads;
	p->flows = s->threads * s->flows;
	int udp = p->test == NET_UDP_STREAM || p->test == NET_UDP_RR;
	char d[200];
	if (p->flows > NET_MAX_FLOWS) {
		snprintf(d, sizeof(d), "%u threads x %u flows is more than %d flows.", s->threads, s->flows, NET_MAX_FLOWS);
		net_fail(s, "too many flows", d, "lower flows or threads");
		return BENCH_ERR;
	}
	if (udp && (p->msg_size < NET_UDP_HDR || p->msg_size > 65507)) {
		snprintf(d, sizeof(d), "msg_size %llu is outside 32 .. 65507 (a datagram carries a 32-byte header).",
			 (unsigned long long)p->msg_size);
		net_fail(s, "msg_size does not fit a UDP datagram", d, "use msg_size = 32 .. 65507 for udp tests");
		return BENCH_ERR;
	}
	if ((p->reverse || p->bidir) && p->test != NET_TCP_STREAM) {
		net_fail(s, "reverse and bidir apply to tcp_stream only", NULL, "drop reverse/bidir for this test");
		return BENCH_ERR;
	}
	if (p->zerocopy && (p->test != NET_TCP_STREAM || (p->reverse && !p->bidir))) {
		net_fail(s, "zerocopy applies to this side's tcp_stream sends only",
			 p->reverse ? "With reverse the server sends and this side only receives." : NULL,
			 "drop zerocopy, or use it with test=tcp_stream (forward or bidir)");
		return BENCH_ERR;
	}
	if (p->congestion[0]) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int bad = fd >= 0 && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion,
						(socklen_t)strlen(p->congestion)) != 0;
		if (fd >= 0)
			close(fd);
		if (bad) {
			snprintf(d, sizeof(d), "TCP_CONGESTION \"%s\": %s.", p->congestion, strerror(errno));
			net_fail(s, "congestion control not available here", d,
				 "see /proc/sys/net/ipv4/tcp_available_congestion_control (modprobe tcp_NAME)");
			return BENCH_ERR;
		}
	}
	return BENCH_OK;
}

static int net_classes(net_state *s)
{
	static const char *const fwd[] = { "send", NULL }, *const rev[] = { "recv", NULL },
			  *const both[] = { "send", "recv", NULL }, *const rr[] = { "transaction", NULL };
	const net_params *p = &s->p;
	const char *const *names = p->test == NET_TCP_STREAM ? (p->bidir ? both : p->reverse ? rev : fwd)
			       : p->test == NET_UDP_STREAM ? fwd : rr;
	return s->api->set_op_classes(s->ctx, names);
}

/* A refusal from the server, as the user should read it. */
static void net_refused(net_state *s, const net_msg *m)
{
	char d[700];
	if (m->type == NET_M_BUSY) {
		snprintf(d, sizeof(d), "%s.", m->message[0] ? m->message : "the server is busy");
		net_fail(s, "the net server is busy", d, "retry later, or start it with a higher --max-clients");
	} else if (!strcmp(m->code, "auth_required")) {
		snprintf(d, sizeof(d), "The server at %s requires a secret and none was given.", s->where);
		net_fail(s, "authentication required", d, "set secret (or secret_env / secret_file) to the server's secret");
	} else if (!strcmp(m->code, "auth_failed")) {
		snprintf(d, sizeof(d), "The server at %s refused the secret given: it does not match its own.", s->where);
		net_fail(s, "authentication failed", d, "check secret (or secret_env / secret_file)");
	} else if (!strcmp(m->code, "limit")) {
		snprintf(d, sizeof(d), "%s: %s.", s->where, m->message[0] ? m->message : "over a limit of the server");
		net_fail(s, "the net server refused the test: over its limits", d,
			 "lower threads, flows or msg_size, or raise the server's --max-threads / --max-memory");
	} else {
		snprintf(d, sizeof(d), "%s: %s (%s).", s->where, m->message[0] ? m->message : "no reason given", m->code);
		net_fail(s, "the net server refused the test", d, NULL);
	}
}

static int net_ctl_error(net_state *s, const char *what, int rc, const char *err)
{
	char d[700];
	snprintf(d, sizeof(d), "%s %s: %s.", what, s->where, err && err[0] ? err : net_strerr(rc));
	net_fail(s, "control connection to the net server failed", d,
		 rc == NET_E_PARSE || rc == NET_E_TOOLONG ? "is that port a `benchcore serve`?" : NULL);
	return BENCH_ERR;
}

/* Connects, authenticates and sends the test: the server answers "ready"
   with the cookie and ports of the data connections. */
static int net_handshake(net_state *s, const char *host, int port)
{
	char err[300] = "", d[700];
	net_msg m;
	s->ctl = net_connect(host, port, s->timeout_ms, err, sizeof(err));
	if (s->ctl < 0) {
		snprintf(d, sizeof(d), "%s: %s.", s->where, err);
		net_fail(s, "cannot reach the net server", d,
			 "start `benchcore serve` there (and open the port), or leave server empty for loopback");
		return BENCH_ERR;
	}
	int rc = net_recv_msg(s->ctl, &m, s->timeout_ms, -1, err, sizeof(err));
	if (rc)
		return net_ctl_error(s, "greeting from", rc, err);
	if (m.type == NET_M_BUSY || m.type == NET_M_ERROR) {
		net_refused(s, &m);
		return BENCH_ERR;
	}
	if (m.type != NET_M_HELLO)
		return net_ctl_error(s, "greeting from", NET_E_PARSE, "unexpected message");
	net_msg t = { .type = NET_M_TEST, .p = s->p };
	char want[2 * NET_PROOF_LEN + 1] = "";
	if (s->secret[0]) {
		unsigned char ch[NET_CHALLENGE_LEN];
		if (net_random(ch, sizeof(ch))) {
			net_fail(s, "no random bytes for the authentication", strerror(errno), NULL);
			return BENCH_ERR;
		}
		net_auth_proof(s->secret, 0, m.challenge, t.proof);
		net_hex_encode(ch, sizeof(ch), t.challenge);
		net_auth_proof(s->secret, 1, t.challenge, want);
	}
	if ((rc = net_send_msg(s->ctl, &t, s->timeout_ms)))
		return net_ctl_error(s, "sending the test to", rc, NULL);
	if ((rc = net_recv_msg(s->ctl, &m, s->timeout_ms, -1, err, sizeof(err))))
		return net_ctl_error(s, "answer from", rc, err);
	if (m.type != NET_M_READY) {
		net_refused(s, &m);
		return BENCH_ERR;
	}
	/* mutual: with a secret, the server proves it knows it too, so a rogue
	   server (or one started without a secret) is not measured against */
	if (want[0] && !net_proof_equal(want, m.proof)) {
		snprintf(d, sizeof(d), "The server at %s %s.", s->where, m.proof[0] ?
			 "answered with a proof that does not match the secret given" :
			 "did not prove it knows the secret (it runs without one, or is not the server meant)");
		net_fail(s, "the net server failed to authenticate", d,
			 "check server and secret; the server needs the same secret in its config");
		return BENCH_ERR;
	}
	net_hex_decode(m.cookie, s->cookie, NET_COOKIE_LEN);
	s->can_mark = m.mark;
	s->salen = sizeof(s->data_sa);
	if (getpeername(s->ctl, (struct sockaddr *)&s->data_sa, &s->salen) != 0)
		return net_ctl_error(s, "address of", NET_E_IO, strerror(errno));
	s->udp_sa = s->data_sa;
	if (s->data_sa.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&s->data_sa)->sin6_port = htons((uint16_t)m.data_port);
		((struct sockaddr_in6 *)&s->udp_sa)->sin6_port = htons((uint16_t)m.udp_port);
	} else {
		((struct sockaddr_in *)&s->data_sa)->sin_port = htons((uint16_t)m.data_port);
		((struct sockaddr_in *)&s->udp_sa)->sin_port = htons((uint16_t)m.udp_port);
	}
	return BENCH_OK;
}

void net_ctl_mark(net_state *s)
{
	pthread_mutex_lock(&s->ctl_mu);
	if (s->can_mark && !s->marked && s->ctl >= 0) {
		net_msg m = { .type = NET_M_MARK };
		s->marked = 1;
		/* a failure shows in the results exchange that follows */
		net_send_msg(s->ctl, &m, s->timeout_ms);
	}
	pthread_mutex_unlock(&s->ctl_mu);
}

const char *net_ctl_reason(net_state *s)
{
	pthread_mutex_lock(&s->ctl_mu);
	if (!s->ctl_checked && s->ctl >= 0) {
		net_msg m;
		char err[200] = "";
		s->ctl_checked = 1;
		if (net_recv_msg(s->ctl, &m, 300, -1, err, sizeof(err)) == NET_OK && m.type == NET_M_ERROR)
			snprintf(s->ctl_reason, sizeof(s->ctl_reason), "; the server said: %s", m.message);
	}
	pthread_mutex_unlock(&s->ctl_mu);
	return s->ctl_reason;
}

static void net_destroy(void *state);

static int net_setup(net_state *s);

/* The host calls destroy only after a successful init: a failed one frees
   what it made (the loopback server thread included) itself. */
static int net_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	/* op classes and stop_fd since 1.1, the typed options since 1.3 */
	if (!BENCH_HOST_HAS(api, set_op_classes) || !BENCH_HOST_HAS(api, stop_fd) ||
	    !BENCH_HOST_HAS(api, options) || !api->options(ctx)) {
		api->set_error(ctx, "the net module needs a benchcore host with ABI 1.3 or later (typed options)");
		return BENCH_ERR;
	}
	net_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->api = api;
	s->ctx = ctx;
	s->ctl = s->srv_stop = -1;
	pthread_mutex_init(&s->ctl_mu, NULL);
	if (net_setup(s) != BENCH_OK) {
		net_destroy(s);
		return BENCH_ERR;
	}
	*state = s;
	return BENCH_OK;
}

static int net_setup(net_state *s)
{
	const bench_host_api_v1 *api = s->api;
	bench_ctx *ctx = s->ctx;
	const struct net_opts *o = api->options(ctx);
	if (net_options_read(s, o) || net_classes(s))
		return BENCH_ERR;
	s->fs = calloc(s->p.flows, sizeof(*s->fs));
	s->ts = aligned_alloc(64, sizeof(*s->ts) * s->threads);
	if (!s->fs || !s->ts) {
		net_fail(s, "out of memory", NULL, NULL);
		return BENCH_ERR;
	}
	memset(s->ts, 0, sizeof(*s->ts) * s->threads);
	const char *server = o->server;
	char host[256];
	int port = NET_DEFAULT_PORT;
	if (!server[0]) {
		if (net_inproc_start(s))
			return BENCH_ERR;
		snprintf(host, sizeof(host), "127.0.0.1");
		port = net_server_port(s->srv);
	} else {
		if (net_split_hostport(server, host, sizeof(host), &port, NET_DEFAULT_PORT)) {
			char d[700];
			snprintf(d, sizeof(d), "\"%s\" is not HOST, HOST:PORT or [IPv6]:PORT.", server);
			net_fail(s, "invalid server option", d, NULL);
			return BENCH_ERR;
		}
		snprintf(s->where, sizeof(s->where), "%s:%d", host, port);
		api->set_info(ctx, "server", s->where);
	}
	return net_handshake(s, host, port);
}

/* ------------------------------------------------------------- finish */

static void net_flow_metrics(net_state *s, double secs)
{
	const bench_host_api_v1 *api = s->api;
	int rr = net_is_rr(s->p.test);
	double sum = 0, sum2 = 0, lo = INFINITY, hi = 0;
	char list[600] = "";
	size_t o = 0;
	for (uint32_t i = 0; i < s->p.flows; i++) {
		double x = rr ? (double)s->fs[i].trans : (double)(s->fs[i].bytes_tx + s->fs[i].bytes_rx);
		double mbit = (double)(s->fs[i].bytes_tx + s->fs[i].bytes_rx) * 8 / secs / 1e6;
		sum += x;
		sum2 += x * x;
		lo = mbit < lo ? mbit : lo;
		hi = mbit > hi ? mbit : hi;
		if (i < 32 && o < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%.1f", i ? "," : "", mbit);
	}
	/* Jain's index: 1 when all flows got the same, 1/n when one got all */
	api->report_metric(s->ctx, "fairness", sum2 > 0 ? sum * sum / (s->p.flows * sum2) : 0);
	api->report_metric(s->ctx, "flow_min_mbit", lo);
	api->report_metric(s->ctx, "flow_max_mbit", hi);
	if (s->p.flows > 1)
		api->set_info(s->ctx, s->p.flows > 32 ? "per_flow_mbit_first32" : "per_flow_mbit", list);
}

static void net_report(net_state *s, const net_results *r, double secs)
{
	const bench_host_api_v1 *api = s->api;
	uint64_t bytes = 0, trans = 0, retrans = 0, sent = 0, zc = 0, zcc = 0;
	double rtt = 0, cwnd = 0;
	unsigned ninfo = 0;
	for (uint32_t i = 0; i < s->p.flows; i++) {
		bytes += s->fs[i].bytes_tx + s->fs[i].bytes_rx;
		trans += s->fs[i].trans;
	}
	for (unsigned i = 0; i < s->threads; i++) {
		retrans += s->ts[i].retrans;
		rtt += s->ts[i].rtt_us_sum;
		cwnd += s->ts[i].cwnd_sum;
		ninfo += s->ts[i].ninfo;
		sent += s->ts[i].udp_sent;
		zc += s->ts[i].zc_done;
		zcc += s->ts[i].zc_copied;
	}
	double loss = 0;
	if (s->p.test == NET_UDP_STREAM) {
		loss = r->packets + r->lost ? (double)r->lost / (double)(r->packets + r->lost) : 0;
		bytes = (uint64_t)((double)bytes * (1 - loss));	/* what arrived, not what was sent */
	}
	/* The request/response tests report no gbit_per_sec (a few hundred
	   Kbit/s of 1-byte messages reads "0.00"): without the declared
	   headline in the case, the summary, compare and report take the first
	   higher-is-better metric, transactions_per_sec. mbit_per_sec stays:
	   the payload both ways, telling for large msg_size. */
	if (net_is_rr(s->p.test))
		api->report_metric(s->ctx, "transactions_per_sec", (double)trans / secs);
	else
		api->report_metric(s->ctx, "gbit_per_sec", (double)bytes * 8 / secs / 1e9);
	api->report_metric(s->ctx, "mbit_per_sec", (double)bytes * 8 / secs / 1e6);
	if (s->p.test == NET_UDP_STREAM) {
		char v[120];
		snprintf(v, sizeof(v), "%llu received, %llu lost%s", (unsigned long long)r->packets,
			 (unsigned long long)r->lost, s->can_mark ? "" : " (whole test: an older server)");
		api->set_info(s->ctx, "udp_datagrams", v);
		api->report_metric(s->ctx, "udp_loss_pct", loss * 100);
		api->report_metric(s->ctx, "udp_jitter_ms", r->jitter_us / 1000);
		api->report_metric(s->ctx, "udp_out_of_order", (double)r->out_of_order);
	}
	if (s->p.test != NET_UDP_STREAM && s->p.test != NET_UDP_RR) {
		api->report_metric(s->ctx, "retransmits", (double)(retrans + r->retransmits));
		if (ninfo) {
			api->report_metric(s->ctx, "rtt_us", rtt / ninfo);
			api->report_metric(s->ctx, "cwnd", cwnd / ninfo);
		}
	}
	if (r->wall_s > 0)
		api->report_metric(s->ctx, "server_cpu_pct", 100 * r->cpu_s / r->wall_s);
	if (s->p.zerocopy)
		api->set_info(s->ctx, "zerocopy", zc == 0 ? "no completions" : zcc ? "kernel fell back to copying" : "zero-copy");
	net_flow_metrics(s, secs);
}

static int net_finish(void *state)
{
	net_state *s = state;
	char err[300] = "";
	net_msg m = { .type = NET_M_STOP };
	bench_totals_v1 tot;
	if (__atomic_load_n(&s->stalled, __ATOMIC_ACQUIRE))
		return BENCH_ERR;	/* a worker's error is the reason: a stopped server is not waited for */
	int rc = net_send_msg(s->ctl, &m, s->timeout_ms);
	if (rc)
		return net_ctl_error(s, "asking for the results of", rc, NULL);
	rc = net_recv_msg(s->ctl, &m, s->timeout_ms + 2000, -1, err, sizeof(err));
	if (rc)
		return net_ctl_error(s, "results from", rc, err);
	if (m.type != NET_M_RESULTS) {
		net_refused(s, &m);
		return BENCH_ERR;
	}
	if (s->api->totals(s->ctx, 0, &tot) != BENCH_OK || tot.seconds <= 0)
		return BENCH_OK;
	net_report(s, &m.r, tot.seconds);
	return BENCH_OK;
}

static void net_destroy(void *state)
{
	net_state *s = state;
	if (s->ctl >= 0)
		close(s->ctl);
	if (s->srv_running) {
		uint64_t one = 1;
		if (write(s->srv_stop, &one, sizeof(one)) == sizeof(one))
			pthread_join(s->srv_th, NULL);
	}
	net_server_close(s->srv);
	if (s->srv_stop >= 0)
		close(s->srv_stop);
	pthread_mutex_destroy(&s->ctl_mu);
	free(s->fs);
	free(s->ts);
	free(s);
}

/* ------------------------------------------------------- benchcore serve */

static const bench_serve_v1 *net_serve_args;

static void net_serve_log(void *u, int level, const char *msg)
{
	(void)u;
	if (net_serve_args->log)
		net_serve_args->log(level, "%s", msg);
}

static int net_serve(const bench_serve_v1 *a)
{
	char err[300];
	net_server_cfg cfg = {
		.bind = a->bind && a->bind[0] ? a->bind : "127.0.0.1", .port = a->port, .once = a->once,
		.max_clients = a->max_clients, .idle_timeout_s = a->idle_timeout_s,
		.max_duration_s = a->max_duration_s, .secret = a->secret && a->secret[0] ? a->secret : NULL,
		.stop_fd = a->stop_fd, .log = net_serve_log,
	};
	/* an older host passes no limits: the defaults hold then */
	if (a->struct_size >= offsetof(bench_serve_v1, max_memory) + sizeof(a->max_memory)) {
		cfg.max_threads = a->max_threads;
		cfg.max_memory = a->max_memory;
	}
	net_serve_args = a;
	net_server *srv = net_server_open(&cfg, err, sizeof(err));
	if (!srv) {
		if (a->log)
			a->log(BENCH_LOG_ERROR, "%s", err);
		return BENCH_ERR;
	}
	if (a->listening)
		a->listening(cfg.bind, net_server_port(srv));
	int rc = net_server_run(srv);
	net_server_close(srv);
	return rc ? BENCH_ERR : BENCH_OK;
}

static const bench_module_v1 net_module = {
	BENCH_MODULE_HEADER,
	.name		= "net",
	.version	= "1.0",
	.summary	= "network throughput and latency against `benchcore serve` (iperf3/netperf tests, many flows, percentiles)",
	.options	= net_options,
	.opts_size	= sizeof(struct net_opts),
	.op_classes	= net_op_classes,
	.metrics	= net_metrics,
	.init		= net_init,
	.thread_init	= net_thread_init,
	.thread_run	= net_thread_run,
	.thread_done	= net_thread_done,
	.finish		= net_finish,
	.destroy	= net_destroy,
	.headline_metric = "gbit_per_sec",
	.thresholds	= net_thresholds,
	.serve		= net_serve,
	.serve_port	= NET_DEFAULT_PORT,
};
BENCH_MODULE(net_module);
