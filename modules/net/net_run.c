/* net: the client's worker threads. Each runs `flows` flows on one epoll
 * loop with the host's stop fd in the set (neper-style: a thousand flows need
 * no thousand threads). Figures per flow go to net_fstat for the measured
 * window only; latencies go to the host's histogram through record().
 *
 * Bytes of a forward stream are counted as the receiver acknowledged them
 * (TCP_INFO bytes_acked, sampled when the window opens and closes), not as
 * written: what sits in the socket buffers at the end never arrived.
 *
 * A flow with work under way that makes no progress (a stream's socket
 * takes or yields no byte; a request gets no answer) for longer than
 * reply_timeout means the server stopped answering (SIGSTOPped, wedged):
 * the worker says so, naming the server, and gives up, which fails the
 * case. The loops look every reply_timeout / 4, at most every 100 ms.
 * udp_stream has no answers to wait for. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <sys/uio.h>
#include "net_client.h"

#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#define NET_STOP_TAG	UINT32_MAX
#define NET_BURST	16		/* sends per flow per wakeup: fairness between flows */

enum { PH_IDLE, PH_CONNECT, PH_SEND, PH_RECV };

typedef struct net_cflow {
	int fd;
	uint32_t id;			/* global flow index */
	int phase;
	uint32_t events;		/* rr: what it waits for in the epoll set */
	size_t pos, hlen;		/* rr: bytes of this request or answer done; header length */
	unsigned char hdr[NET_DATA_HDR];	/* tcp_crr: this connection's cookie and id */
	uint64_t start, seq, next_ns;
	uint64_t progress;		/* streams, udp_rr: the last byte moved or answer got */
	net_tcpi t0;
	net_fstat *fs;
} net_cflow;

typedef struct net_cthread {
	net_state *s;
	bench_thread *t;
	unsigned idx;
	int ep, measuring, snapped, budget, inflight;
	int held;			/* an event claimed for a send or receive that would
					   have blocked: the next one uses it (else --events N
					   ran fewer than N) */
	uint64_t next_look;		/* when the flows are looked at for a stall */
	net_cflow *f;
	unsigned nf;
	char *txbuf, *tx, *rx;		/* tx + NET_DATA_HDR on a page boundary */
	size_t rxlen;
	net_tstat *ts;
} net_cthread;

static void be_put(unsigned char *b, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

static uint64_t be_get(const unsigned char *b, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* A data connection or UDP flow broke mid-test: the first thread to see it
   gives the case its reason, with the server's own word when it sent one. */
static int flow_fail(net_cthread *ct, net_cflow *f, const char *what)
{
	net_state *s = ct->s;
	char d[600];
	snprintf(d, sizeof(d), "flow %u to %s: %s%s", f->id, s->where, what, net_ctl_reason(s));
	s->api->error(s->ctx, ct->t, "lost a data connection to the net server", d,
		      "the server stopped, was killed or dropped the test: see its log");
	return BENCH_ERR;
}

/* How long epoll may sleep before the next look for a stall (ms). */
static int look_wait_ms(const net_cthread *ct, uint64_t now)
{
	return ct->next_look > now ? (int)((ct->next_look - now + 999999) / 1000000) : 0;
}

/* f has had work under way since `since` with no progress: past
   reply_timeout the server stopped answering, said naming it (1). */
static int flow_stalled(net_cthread *ct, net_cflow *f, uint64_t since, uint64_t now, const char *what)
{
	net_state *s = ct->s;
	if (!since || since >= now || now - since <= s->reply_ns)
		return 0;
	char msg[400], d[400];
	__atomic_store_n(&s->stalled, 1, __ATOMIC_RELEASE);
	snprintf(msg, sizeof(msg), "net: the server at %s stopped answering", s->where);
	snprintf(d, sizeof(d), "flow %u: %s for %.3f s, longer than reply_timeout (%g s)", f->id, what,
		 (now - since) / 1e9, s->reply_ns / 1e9);
	s->api->error(s->ctx, ct->t, msg, d, "check the server (stopped, overloaded) and the path to it; "
		      "raise reply_timeout if it is only slow");
	return 1;
}

/* Whether a look is due; the next one is planned. */
static int look_due(net_cthread *ct, uint64_t now)
{
	if (now < ct->next_look)
		return 0;
	uint64_t step = ct->s->reply_ns / 4 < 100000000u ? ct->s->reply_ns / 4 : 100000000u;
	ct->next_look = now + (step ? step : 1);
	return 1;
}

/* Every flow of the thread, when a look is due: a stream's flows since
   their last byte, a request's since it began (udp_rr: since the flow's
   last answer, over the datagrams counted lost). 1: one stalled. */
static int flows_stalled(net_cthread *ct, uint64_t now)
{
	int test = ct->s->p.test;
	if (!look_due(ct, now))
		return 0;
	for (unsigned i = 0; i < ct->nf; i++) {
		net_cflow *f = &ct->f[i];
		int rr = test == NET_TCP_RR || test == NET_TCP_CRR;
		uint64_t since = rr ? (f->phase == PH_IDLE ? 0 : f->start) : f->progress;
		if (flow_stalled(ct, f, since, now, test == NET_TCP_STREAM ? "no byte taken or received" :
				 test == NET_UDP_RR ? "no answer to any datagram" : "no answer to its request"))
			return 1;
	}
	return 0;
}

static int flow_socket(net_cthread *ct, int type, char *err, size_t errlen)
{
	net_state *s = ct->s;
	const struct sockaddr *sa = (const struct sockaddr *)(type == SOCK_DGRAM ? &s->udp_sa : &s->data_sa);
	int fd = socket(sa->sa_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (net_sockopts(fd, &s->p, type == SOCK_STREAM, err, errlen)) {
		close(fd);
		return -1;
	}
	if (connect(fd, sa, s->salen) != 0 && errno != EINPROGRESS) {
		snprintf(err, errlen, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* A persistent TCP data connection: connect, then the cookie and flow id. */
static int flow_open_tcp(net_cthread *ct, net_cflow *f, char *err, size_t errlen)
{
	net_state *s = ct->s;
	unsigned char hdr[NET_DATA_HDR];
	int soerr = 0;
	socklen_t sl = sizeof(soerr);
	if ((f->fd = flow_socket(ct, SOCK_STREAM, err, errlen)) < 0)
		return -1;
	int w = net_wait(f->fd, POLLOUT, s->timeout_ms, -1);
	if (w <= 0 || getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
		snprintf(err, errlen, "connect: %s", w <= 0 ? "timed out" : strerror(soerr ? soerr : errno));
		return -1;
	}
	memcpy(hdr, s->cookie, NET_COOKIE_LEN);
	be_put(hdr + NET_COOKIE_LEN, f->id, 4);
	int rc = net_write_full(f->fd, hdr, sizeof(hdr), s->timeout_ms);
	if (rc) {
		snprintf(err, errlen, "sending the cookie: %s", net_strerr(rc));
		return -1;
	}
	return 0;
}

static int net_flows_open(net_state *s, bench_thread *t, net_cthread *ct);

int net_thread_init(void *state, bench_thread *t, void **tstate)
{
	net_state *s = state;
	net_cthread *ct = calloc(1, sizeof(*ct));
	if (!ct)
		return BENCH_ERR;
	/* the host calls thread_done only after a successful thread_init */
	if (net_flows_open(s, t, ct) != BENCH_OK) {
		net_thread_done(ct);
		return BENCH_ERR;
	}
	*tstate = ct;
	return BENCH_OK;
}

static int net_flows_open(net_state *s, bench_thread *t, net_cthread *ct)
{
	const bench_host_api_v1 *api = s->api;
	char err[300] = "";
	ct->ep = -1;
	ct->s = s;
	ct->t = t;
	ct->idx = api->thread_index(t);
	ct->ts = &s->ts[ct->idx];
	ct->nf = s->flows;
	ct->f = calloc(ct->nf, sizeof(*ct->f));
	for (unsigned i = 0; ct->f && i < ct->nf; i++)
		ct->f[i].fd = -1;
	ct->rxlen = s->p.msg_size > (256u << 10) ? s->p.msg_size : 256u << 10;
	ct->txbuf = net_page_alloc(s->p.msg_size + 4096);
	ct->tx = ct->txbuf ? ct->txbuf + 4096 - NET_DATA_HDR : NULL;
	ct->rx = net_page_alloc(ct->rxlen);
	ct->ep = epoll_create1(EPOLL_CLOEXEC);
	ct->budget = 1;
	if (!ct->f || !ct->tx || !ct->rx || ct->ep < 0) {
		api->error(s->ctx, t, "out of memory or descriptors", NULL, NULL);
		return BENCH_ERR;
	}
	memset(ct->tx, 0, NET_DATA_HDR);
	memset(ct->tx + NET_DATA_HDR, 'c', s->p.msg_size);
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = NET_STOP_TAG };
	epoll_ctl(ct->ep, EPOLL_CTL_ADD, api->stop_fd(s->ctx), &ev);
	int test = s->p.test;
	uint32_t events = test == NET_TCP_STREAM ? (s->p.bidir ? EPOLLIN | EPOLLOUT : s->p.reverse ? EPOLLIN : EPOLLOUT)
			: EPOLLIN;
	for (unsigned i = 0; i < ct->nf; i++) {
		net_cflow *f = &ct->f[i];
		f->fd = -1;
		f->id = ct->idx * s->flows + i;
		f->fs = &s->fs[f->id];
		if (test == NET_TCP_CRR)
			continue;	/* connects per transaction */
		int bad = test == NET_UDP_STREAM || test == NET_UDP_RR
			? (f->fd = flow_socket(ct, SOCK_DGRAM, err, sizeof(err))) < 0
			: flow_open_tcp(ct, f, err, sizeof(err)) != 0;
		ev = (struct epoll_event){ .events = events, .data.u32 = i };
		if (bad || epoll_ctl(ct->ep, EPOLL_CTL_ADD, f->fd, &ev) != 0) {
			char d[700];
			snprintf(d, sizeof(d), "flow %u to %s: %s.", f->id, s->where, err[0] ? err : strerror(errno));
			api->error(s->ctx, t, "cannot open a data connection to the net server", d,
				   "a firewall may let the control port through but not the data ports");
			return BENCH_ERR;
		}
		f->events = events;
	}
	return BENCH_OK;
}

/* --------------------------------------------------- the measured window */

static void window_check(net_cthread *ct)
{
	if (ct->measuring || !ct->s->api->measuring(ct->t))
		return;
	ct->measuring = 1;
	net_ctl_mark(ct->s);
	if (ct->s->p.test != NET_TCP_STREAM && ct->s->p.test != NET_TCP_RR)
		return;
	for (unsigned i = 0; i < ct->nf; i++)
		net_tcp_info(ct->f[i].fd, &ct->f[i].t0);
	ct->snapped = 1;
}

/* The window closed: sender-side TCP_INFO deltas, and the forward stream's
   acknowledged bytes. */
static void window_close(net_cthread *ct)
{
	if (!ct->snapped)
		return;
	ct->snapped = 0;
	const net_params *p = &ct->s->p;
	for (unsigned i = 0; i < ct->nf; i++) {
		net_cflow *f = &ct->f[i];
		net_tcpi ti;
		if (f->fd < 0 || net_tcp_info(f->fd, &ti))
			continue;
		if (p->test == NET_TCP_STREAM && !p->reverse)
			f->fs->bytes_tx = ti.bytes_acked - f->t0.bytes_acked;
		if (p->test == NET_TCP_STREAM && p->reverse && !p->bidir)
			continue;	/* the server is the sender */
		ct->ts->retrans += ti.total_retrans - f->t0.total_retrans;
		ct->ts->rtt_us_sum += ti.rtt_us;
		ct->ts->cwnd_sum += ti.snd_cwnd;
		ct->ts->ninfo++;
	}
}

/* -------------------------------------------------------------- streams */

/* MSG_ZEROCOPY completions arrive on the error queue; reading them frees
   the kernel's hold on our (constant) buffer. */
static int zc_drain(net_cthread *ct, net_cflow *f)
{
	for (;;) {
		char ctl[128];
		struct msghdr mh = { .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		if (recvmsg(f->fd, &mh, MSG_ERRQUEUE) < 0)
			return errno == EAGAIN ? 0 : -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			struct sock_extended_err ee;
			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			ct->ts->zc_done += ee.ee_data - ee.ee_info + 1;
			if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				ct->ts->zc_copied++;
		}
	}
}

static int stream_send(net_cthread *ct, net_cflow *f)
{
	const bench_host_api_v1 *api = ct->s->api;
	size_t n = ct->s->p.msg_size;
	int flags = MSG_NOSIGNAL | (ct->s->p.zerocopy ? MSG_ZEROCOPY : 0);
	for (int i = 0; i < NET_BURST && ct->budget; i++) {
		if (!ct->held && !api->claim(ct->t, 1)) {
			ct->budget = 0;	/* --events: the budget is spent */
			return 0;
		}
		ct->held = 1;
		uint64_t t0 = api->now_ns();
		ssize_t r = send(f->fd, ct->tx + NET_DATA_HDR, n, flags);
		if (r < 0 && errno == ENOBUFS && ct->s->p.zerocopy)
			return zc_drain(ct, f) ? flow_fail(ct, f, strerror(errno)) : 0;
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (r < 0)
			return flow_fail(ct, f, strerror(errno));
		f->progress = api->now_ns();
		ct->held = 0;
		api->record(ct->t, 0, f->progress - t0, (uint64_t)r);
	}
	return 0;
}

static int stream_recv(net_cthread *ct, net_cflow *f, unsigned op)
{
	const bench_host_api_v1 *api = ct->s->api;
	for (int i = 0; i < NET_BURST && ct->budget; i++) {
		if (!ct->held && !api->claim(ct->t, 1)) {
			ct->budget = 0;
			return 0;
		}
		ct->held = 1;
		uint64_t t0 = api->now_ns();
		ssize_t r = recv(f->fd, ct->rx, ct->rxlen, 0);
		if (r == 0)
			return flow_fail(ct, f, "the server closed it");
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (r < 0)
			return flow_fail(ct, f, strerror(errno));
		f->progress = api->now_ns();
		ct->held = 0;
		api->record(ct->t, op, f->progress - t0, (uint64_t)r);
		if (ct->measuring)
			f->fs->bytes_rx += (uint64_t)r;
	}
	return 0;
}

static int run_stream(net_cthread *ct)
{
	const bench_host_api_v1 *api = ct->s->api;
	const net_params *p = &ct->s->p;
	unsigned recv_op = p->bidir ? 1 : 0;
	for (unsigned i = 0; i < ct->nf; i++)
		ct->f[i].progress = api->now_ns();
	while (!api->stopping(ct->t) && ct->budget) {
		struct epoll_event evs[64];
		if (flows_stalled(ct, api->now_ns()))
			return BENCH_ERR;
		window_check(ct);
		int n = epoll_wait(ct->ep, evs, 64, look_wait_ms(ct, api->now_ns()));
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u32 == NET_STOP_TAG)
				continue;
			net_cflow *f = &ct->f[evs[i].data.u32];
			uint32_t e = evs[i].events;
			if ((e & EPOLLERR) && p->zerocopy && zc_drain(ct, f))
				return flow_fail(ct, f, strerror(errno));
			if ((e & (EPOLLIN | EPOLLHUP | EPOLLERR)) && (p->reverse || p->bidir) &&
			    stream_recv(ct, f, recv_op))
				return BENCH_ERR;
			if ((e & (EPOLLOUT | EPOLLHUP | EPOLLERR)) && !(p->reverse && !p->bidir) &&
			    stream_send(ct, f))
				return BENCH_ERR;
		}
	}
	return BENCH_OK;
}

/* ----------------------------------------------------- request/response */

/* The epoll events f waits for; 0 when its socket is not in the set. */
static void want(net_cthread *ct, net_cflow *f, uint32_t events)
{
	if (f->events == events)
		return;
	struct epoll_event ev = { .events = events, .data.u32 = (uint32_t)(f - ct->f) };
	epoll_ctl(ct->ep, f->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, f->fd, &ev);
	f->events = events;
}

/* A new request on f: msg_size bytes, after the cookie and flow id when the
   connection is new (tcp_crr). */
static void rr_begin(net_cthread *ct, net_cflow *f, int with_hdr)
{
	f->hlen = 0;
	if (with_hdr) {
		memcpy(f->hdr, ct->s->cookie, NET_COOKIE_LEN);
		be_put(f->hdr + NET_COOKIE_LEN, f->id, 4);
		f->hlen = NET_DATA_HDR;
	}
	f->phase = PH_SEND;
	f->pos = 0;
}

/* Moves f's transaction on, for tcp_rr and tcp_crr, blocking or not: the
   rest of the request out, then the rest of the answer in. 1: the answer is
   complete; 0: the socket would block (blocking: its timeout passed), or the
   request is out and, non-blocking, epoll says when the answer is in (a
   recv now would only fail); BENCH_ERR: the flow failed. */
static int rr_step(net_cthread *ct, net_cflow *f, int blocking)
{
	size_t n = ct->s->p.msg_size;
	char *payload = ct->tx + NET_DATA_HDR;
	for (;;) {
		ssize_t r;
		if (f->phase == PH_SEND) {
			struct iovec iov[2];
			struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 1 };
			if (f->pos < f->hlen) {
				iov[0] = (struct iovec){ f->hdr + f->pos, f->hlen - f->pos };
				iov[1] = (struct iovec){ payload, n };
				mh.msg_iovlen = 2;
			} else {
				iov[0] = (struct iovec){ payload + (f->pos - f->hlen), n - (f->pos - f->hlen) };
			}
			r = sendmsg(f->fd, &mh, MSG_NOSIGNAL);
		} else {
			r = recv(f->fd, ct->rx, n - f->pos < ct->rxlen ? n - f->pos : ct->rxlen, 0);
			if (r == 0)
				return flow_fail(ct, f, "the server closed it");
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (r < 0)
			return flow_fail(ct, f, strerror(errno));
		f->pos += (size_t)r;
		if (f->phase == PH_SEND && f->pos == f->hlen + n) {
			f->phase = PH_RECV;
			f->pos = 0;
			if (!blocking)
				return 0;
		} else if (f->phase == PH_RECV && f->pos == n) {
			return 1;
		}
	}
}

/* The answer is in: one transaction, timed from its start (for tcp_crr that
   includes the handshake, as netperf's TCP_CRR). */
static void rr_count(net_cthread *ct, net_cflow *f)
{
	const bench_host_api_v1 *api = ct->s->api;
	api->record(ct->t, 0, api->now_ns() - f->start, 2 * ct->s->p.msg_size);
	if (ct->measuring) {
		f->fs->trans++;
		f->fs->bytes_tx += ct->s->p.msg_size;
		f->fs->bytes_rx += ct->s->p.msg_size;
	}
}

static int rr_start(net_cthread *ct, net_cflow *f);

/* The epoll loop's step of f; the next transaction once one completes. */
static int rr_advance(net_cthread *ct, net_cflow *f)
{
	int rc = rr_step(ct, f, 0);
	if (rc < 0)
		return BENCH_ERR;
	if (rc == 0) {
		want(ct, f, f->phase == PH_SEND ? EPOLLOUT : EPOLLIN);
		return 0;
	}
	rr_count(ct, f);
	ct->inflight--;
	if (ct->s->p.test == NET_TCP_CRR) {
		/* abortive close: no TIME_WAIT, so a long run cannot use up the ports */
		struct linger lg = { 1, 0 };
		setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(f->fd);	/* also leaves the epoll set */
		f->fd = -1;
		f->events = 0;
	}
	return rr_start(ct, f);
}

/* Takes a request from the --events budget and starts it (tcp_rr: on the
   open connection; tcp_crr: on a new one, sent once connected). */
static int rr_start(net_cthread *ct, net_cflow *f)
{
	const bench_host_api_v1 *api = ct->s->api;
	char err[200];
	if (!ct->budget || !api->claim(ct->t, 1)) {
		ct->budget = 0;
		f->phase = PH_IDLE;
		return 0;
	}
	ct->inflight++;
	f->start = api->now_ns();
	if (ct->s->p.test == NET_TCP_RR) {
		rr_begin(ct, f, 0);
		return rr_advance(ct, f);
	}
	if ((f->fd = flow_socket(ct, SOCK_STREAM, err, sizeof(err))) < 0)
		return flow_fail(ct, f, err);
	f->phase = PH_CONNECT;
	want(ct, f, EPOLLOUT);
	return 0;
}

static int rr_event(net_cthread *ct, net_cflow *f)
{
	if (f->phase == PH_CONNECT) {
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		if (soerr)
			return flow_fail(ct, f, strerror(soerr));
		rr_begin(ct, f, 1);
	}
	return f->phase == PH_IDLE ? 0 : rr_advance(ct, f);
}

/* tcp_rr with one flow per thread (netperf TCP_RR, sockperf ping-pong):
   blocking, two system calls per transaction instead of four with epoll.
   The socket timeouts bound how late a stop is seen. */
static int run_rr_single(net_cthread *ct)
{
	const bench_host_api_v1 *api = ct->s->api;
	net_cflow *f = &ct->f[0];
	struct timeval tv = { 0, 20000 };
	int fl = fcntl(f->fd, F_GETFL), rc;
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK) ||
	    setsockopt(f->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(f->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return flow_fail(ct, f, strerror(errno));
	while (!api->stopping(ct->t) && api->claim(ct->t, 1)) {
		window_check(ct);
		f->start = api->now_ns();
		rr_begin(ct, f, 0);
		while ((rc = rr_step(ct, f, 1)) == 0) {
			if (api->stopping(ct->t))
				return BENCH_OK;
			if (flows_stalled(ct, api->now_ns()))
				return BENCH_ERR;
		}
		if (rc < 0)
			return BENCH_ERR;
		rr_count(ct, f);
	}
	return BENCH_OK;
}

static int run_rr(net_cthread *ct)
{
	const bench_host_api_v1 *api = ct->s->api;
	if (ct->nf == 1 && ct->s->p.test == NET_TCP_RR)
		return run_rr_single(ct);
	for (unsigned i = 0; i < ct->nf; i++)
		if (rr_start(ct, &ct->f[i]))
			return BENCH_ERR;
	while (!api->stopping(ct->t) && (ct->budget || ct->inflight)) {
		struct epoll_event evs[64];
		if (flows_stalled(ct, api->now_ns()))
			return BENCH_ERR;
		window_check(ct);
		int n = epoll_wait(ct->ep, evs, 64, look_wait_ms(ct, api->now_ns()));
		for (int i = 0; i < n; i++)
			if (evs[i].data.u32 != NET_STOP_TAG && rr_event(ct, &ct->f[evs[i].data.u32]))
				return BENCH_ERR;
	}
	return BENCH_OK;
}

/* ------------------------------------------------------------------ UDP */

static void udp_header(net_cthread *ct, net_cflow *f, uint64_t now)
{
	unsigned char *b = (unsigned char *)ct->tx;
	memcpy(b, ct->s->cookie, 8);
	be_put(b + 8, f->id, 4);
	be_put(b + 12, 0, 4);
	be_put(b + 16, f->seq, 8);
	be_put(b + 24, now, 8);
}

static int epoll_wait_ns(net_cthread *ct, struct epoll_event *evs, int max, uint64_t wait_ns)
{
	struct timespec ts = { (time_t)(wait_ns / 1000000000u), (long)(wait_ns % 1000000000u) };
	return epoll_pwait2(ct->ep, evs, max, wait_ns == UINT64_MAX ? NULL : &ts, NULL);
}

/* udp_stream: each flow sends on its own schedule, bitrate / flows. A flow
   that fell behind by more than 50 ms starts afresh instead of bursting. */
static int run_udp_stream(net_cthread *ct)
{
	net_state *s = ct->s;
	const bench_host_api_v1 *api = s->api;
	size_t n = s->p.msg_size;
	double per_flow = s->bitrate_bps / s->p.flows;
	uint64_t interval = (uint64_t)(n * 8 * 1e9 / per_flow), now = api->now_ns();
	if (!interval)
		interval = 1;
	for (unsigned i = 0; i < ct->nf; i++)
		ct->f[i].next_ns = now + interval * i / ct->nf;
	while (!api->stopping(ct->t)) {
		struct epoll_event evs[8];
		uint64_t earliest = UINT64_MAX, count = 0;
		window_check(ct);
		now = api->now_ns();
		for (unsigned i = 0; i < ct->nf; i++) {
			net_cflow *f = &ct->f[i];
			for (int k = 0; k < 64 && f->next_ns <= now; k++) {
				if (!ct->held && !api->claim(ct->t, 1)) {
					ct->budget = 0;
					break;
				}
				ct->held = 1;
				udp_header(ct, f, now);
				ssize_t r = send(f->fd, ct->tx, n, 0);
				if (r < 0 && (errno == EAGAIN || errno == ENOBUFS))
					break;
				ct->held = 0;
				if (r < 0)
					return flow_fail(ct, f, errno == ECONNREFUSED ?
							 "the server's UDP port refused the datagrams" : strerror(errno));
				f->seq++;
				f->next_ns += interval;
				count++;
				if (ct->measuring)
					f->fs->bytes_tx += n;
			}
			if (now > f->next_ns + 50000000u)
				f->next_ns = now;
			earliest = f->next_ns < earliest ? f->next_ns : earliest;
		}
		if (count) {
			api->record_n(ct->t, 0, count, 0, n);	/* bytes per datagram */
			ct->ts->udp_sent += count;
		}
		if (!ct->budget)
			break;
		now = api->now_ns();
		epoll_wait_ns(ct, evs, 8, earliest > now ? earliest - now : 0);
	}
	return BENCH_OK;
}

/* udp_rr: one datagram in flight per flow; no answer within timeout/25
   counts a "lost" error and the flow sends the next one. */
static int run_udp_rr(net_cthread *ct)
{
	net_state *s = ct->s;
	const bench_host_api_v1 *api = s->api;
	size_t n = s->p.msg_size;
	uint64_t rto = (uint64_t)s->timeout_ms * 1000000u / 25;
	for (unsigned i = 0; i < ct->nf; i++) {
		ct->f[i].phase = PH_IDLE;
		ct->f[i].progress = api->now_ns();
	}
	while (!api->stopping(ct->t)) {
		struct epoll_event evs[64];
		uint64_t now = api->now_ns(), earliest = UINT64_MAX;
		if (flows_stalled(ct, now))
			return BENCH_ERR;
		window_check(ct);
		for (unsigned i = 0; i < ct->nf; i++) {
			net_cflow *f = &ct->f[i];
			if (f->phase == PH_RECV && now >= f->next_ns) {
				api->record_error(ct->t, 0, "lost");
				f->phase = PH_IDLE;
			}
			if (f->phase == PH_IDLE && ct->budget) {
				if (!api->claim(ct->t, 1)) {
					ct->budget = 0;
					continue;
				}
				f->seq++;
				udp_header(ct, f, now);
				if (send(f->fd, ct->tx, n, 0) < 0 && errno != EAGAIN && errno != ENOBUFS)
					return flow_fail(ct, f, strerror(errno));
				f->start = now;
				f->next_ns = now + rto;
				f->phase = PH_RECV;
			}
			if (f->phase == PH_RECV && f->next_ns < earliest)
				earliest = f->next_ns;
		}
		if (earliest == UINT64_MAX)
			break;		/* the budget is spent and nothing is in flight */
		if (ct->next_look < earliest)
			earliest = ct->next_look;
		int k = epoll_wait_ns(ct, evs, 64, earliest > now ? earliest - now : 0);
		for (int i = 0; i < k; i++) {
			if (evs[i].data.u32 == NET_STOP_TAG)
				continue;
			net_cflow *f = &ct->f[evs[i].data.u32];
			ssize_t r;
			while ((r = recv(f->fd, ct->rx, ct->rxlen, 0)) >= NET_UDP_HDR) {
				const unsigned char *b = (const unsigned char *)ct->rx;
				if (f->phase != PH_RECV || be_get(b + 16, 8) != f->seq || memcmp(b, s->cookie, 8))
					continue;	/* a late answer to one already counted lost */
				uint64_t t = api->now_ns();
				f->progress = t;
				api->record(ct->t, 0, t - f->start, 2 * n);
				if (ct->measuring) {
					f->fs->trans++;
					f->fs->bytes_tx += n;
					f->fs->bytes_rx += n;
				}
				f->phase = PH_IDLE;
			}
			if (r < 0 && errno != EAGAIN && errno != EINTR)
				return flow_fail(ct, f, errno == ECONNREFUSED ?
						 "the server's UDP port refused the datagrams" : strerror(errno));
		}
	}
	return BENCH_OK;
}

int net_thread_run(void *tstate)
{
	net_cthread *ct = tstate;
	int rc;
	switch (ct->s->p.test) {
	case NET_TCP_STREAM: rc = run_stream(ct); break;
	case NET_UDP_STREAM: rc = run_udp_stream(ct); break;
	case NET_UDP_RR: rc = run_udp_rr(ct); break;
	default: rc = run_rr(ct); break;
	}
	window_close(ct);
	return rc;
}

void net_thread_done(void *tstate)
{
	net_cthread *ct = tstate;
	if (!ct)
		return;
	for (unsigned i = 0; ct->f && i < ct->nf; i++)
		if (ct->f[i].fd >= 0)
			close(ct->f[i].fd);
	if (ct->ep >= 0)
		close(ct->ep);
	free(ct->f);
	free(ct->txbuf);
	free(ct->rx);
	free(ct);
}
