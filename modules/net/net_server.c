/* net: the server half, shared by `benchcore serve` and the in-process
 * loopback server of a case with no `server` option.
 *
 * The accept loop hands every control connection to a session thread, up to
 * max_clients at once; one more is told "busy" and closed, so two tests
 * never mix and a stalled client cannot hold the accept loop. A session
 * authenticates the client, opens a data listener (and a UDP socket) on an
 * ephemeral port of the same local address, and runs as many worker threads
 * as the client has, each an epoll loop over the data connections it
 * accepted. Data connections prove they belong to the test with the
 * session's random cookie. The session ends on "stop" (results go back),
 * on the client vanishing, on --max-duration, on --idle-timeout of control
 * and data alike, or when the server stops. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/time.h>
#include "benchcore/module.h"
#include "net.h"

#define NET_MAX_WORKERS	64
#define NET_RX_BUF	(128u << 10)	/* as iperf3's reads */
#define NET_TX_MAX	(1u << 20)	/* a client's msg_size cannot make the server allocate more */

struct net_server {
	net_server_cfg cfg;
	int lfd, port, quit_fd;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned active;		/* sessions running */
	unsigned tests_done;		/* sessions that ran a test (for once) */
	uint64_t next_id;
};

typedef struct net_sconn {
	int fd;
	int hdr_done, writing, out;
	uint32_t retrans0;		/* total_retrans when the window opened */
	size_t hlen, pos;
	unsigned char hdr[NET_DATA_HDR];
	struct net_sconn *prev, *next;
} net_sconn;

typedef struct net_uflow {
	uint64_t expect, packets, lost, ooo;
	uint64_t base;			/* first sequence number of the window */
	int64_t transit;
	double jitter_ns;
	int have;
} net_uflow;

struct net_sess;
typedef struct net_sworker {
	struct net_sess *ss;
	pthread_t th;
	int ep, started;
	char *rx, *tx;
	size_t rxlen, txlen;
	net_sconn *conns;
	net_uflow *uf;
	uint64_t bytes_rx, bytes_tx, trans, nconns, retrans;
	double cpu_s;
	int marked;			/* saw the session's mark */
} net_sworker;

typedef struct net_sess {
	net_server *srv;
	uint64_t id;
	int ctl, lfd, ufd, efd;
	char peer[80];
	net_params p;
	unsigned char cookie[NET_COOKIE_LEN];
	unsigned nworkers;
	net_sworker *w;
	_Atomic uint64_t activity_ns;
	_Atomic int marked;		/* the client's measured window opened */
	char proof[2 * NET_PROOF_LEN + 1];	/* ours, of the client's challenge ("" none) */
	int ran;
} net_sess;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((format(printf, 3, 4)))
static void slog(const net_server *s, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	if (!s->cfg.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->cfg.log(s->cfg.log_u, level, msg);
}

static void send_error(net_sess *ss, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void send_error(net_sess *ss, const char *code, const char *fmt, ...)
{
	net_msg m = { .type = NET_M_ERROR };
	va_list ap;
	snprintf(m.code, sizeof(m.code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(m.message, sizeof(m.message), fmt, ap);
	va_end(ap);
	net_send_msg(ss->ctl, &m, 1000);	/* best effort: the peer may be gone */
}

/* ------------------------------------------------------------ data path */

static void conn_drop(net_sworker *w, net_sconn *c)
{
	if (c->hdr_done && (w->ss->p.reverse || w->ss->p.bidir)) {
		net_tcpi ti;
		if (net_tcp_info(c->fd, &ti) == 0)
			w->retrans += ti.total_retrans - c->retrans0;
	}
	close(c->fd);	/* also leaves the epoll set */
	if (c->prev)
		c->prev->next = c->next;
	else
		w->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

static void conn_accept(net_sworker *w)
{
	net_sess *ss = w->ss;
	char err[160];
	for (int i = 0; i < 64; i++) {
		int fd = accept4(ss->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;		/* EAGAIN: another worker took it, or none left */
		if (net_sockopts(fd, &ss->p, 1, err, sizeof(err)))
			slog(ss->srv, BENCH_LOG_WARN, "client %s: %s", ss->peer, err);
		net_sconn *c = calloc(1, sizeof(*c));
		c->fd = fd;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
		if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);
			free(c);
			continue;
		}
		c->next = w->conns;
		if (w->conns)
			w->conns->prev = c;
		w->conns = c;
	}
}

static void conn_want_out(net_sworker *w, net_sconn *c, int out)
{
	if (c->out == out)
		return;
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c };
	epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev);
	c->out = out;
}

/* The cookie and flow id every data connection starts with. 1 done, 0 more
   to come, -1 drop. */
static int conn_header(net_sworker *w, net_sconn *c)
{
	ssize_t r = recv(c->fd, c->hdr + c->hlen, NET_DATA_HDR - c->hlen, 0);
	if (r <= 0)
		return r < 0 && errno == EAGAIN ? 0 : -1;
	c->hlen += (size_t)r;
	if (c->hlen < NET_DATA_HDR)
		return 0;
	uint32_t flow = (uint32_t)c->hdr[16] << 24 | (uint32_t)c->hdr[17] << 16 |
			(uint32_t)c->hdr[18] << 8 | c->hdr[19];
	if (memcmp(c->hdr, w->ss->cookie, NET_COOKIE_LEN) || flow >= w->ss->p.flows)
		return -1;
	c->hdr_done = 1;
	w->nconns++;
	if (w->ss->p.test == NET_TCP_STREAM && (w->ss->p.reverse || w->ss->p.bidir))
		conn_want_out(w, c, 1);
	return 1;
}

/* Bulk: read (forward, bidir) and write (reverse, bidir) until the socket
   would block, 16 calls at most so one flow cannot starve the others. */
static int conn_stream(net_sworker *w, net_sconn *c, uint32_t ev)
{
	const net_params *p = &w->ss->p;
	if ((ev & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		for (int i = 0; i < 16; i++) {
			ssize_t r = recv(c->fd, w->rx, w->rxlen, 0);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				return -1;
			if (r < 0)
				break;
			w->bytes_rx += (uint64_t)r;
		}
	if ((ev & EPOLLOUT) && (p->reverse || p->bidir))
		for (int i = 0; i < 16; i++) {
			ssize_t r = send(c->fd, w->tx, p->msg_size < w->txlen ? p->msg_size : w->txlen, MSG_NOSIGNAL);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (r < 0)
				return -1;
			w->bytes_tx += (uint64_t)r;
		}
	return 0;
}

/* Request/response: read msg_size bytes, answer msg_size bytes. */
static int conn_rr(net_sworker *w, net_sconn *c)
{
	size_t n = w->ss->p.msg_size;
	for (;;) {
		if (!c->writing) {
			ssize_t r = recv(c->fd, w->rx, n - c->pos < w->rxlen ? n - c->pos : w->rxlen, 0);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				return -1;	/* crr: the client closed after its answer */
			if (r < 0)
				return 0;
			w->bytes_rx += (uint64_t)r;
			if ((c->pos += (size_t)r) < n)
				continue;
			c->writing = 1;
			c->pos = 0;
		}
		ssize_t r = send(c->fd, w->tx, n - c->pos < w->txlen ? n - c->pos : w->txlen, MSG_NOSIGNAL);
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (r > 0) {
			w->bytes_tx += (uint64_t)r;
			c->pos += (size_t)r;
		}
		if (c->pos < n) {
			conn_want_out(w, c, 1);
			return 0;
		}
		c->writing = 0;
		c->pos = 0;
		w->trans++;
		conn_want_out(w, c, 0);
		/* one in flight per flow: the next request is not here yet, and
		   epoll says when it is (a recv now would only fail: a syscall
		   per transaction) */
		return 0;
	}
}

static int stop_asked(const net_sess *ss)
{
	struct pollfd p = { .fd = ss->efd, .events = POLLIN };
	return poll(&p, 1, 0) != 0;
}

/* tcp_rr with a single flow (netperf TCP_RR, qperf tcp_lat): the worker has
   nothing else to watch, so a blocking recv and send per transaction, no
   epoll_wait in between: three system calls become two. The timeouts bound
   how late a stop is seen. 0: the session stops (back to the epoll loop,
   which sees it), -1: the connection ended. */
static int conn_rr_blocking(net_sworker *w, net_sconn *c)
{
	net_sess *ss = w->ss;
	size_t n = ss->p.msg_size;
	struct timeval tv = { 0, 100000 };
	int fl = fcntl(c->fd, F_GETFL), rc = 0;
	if (fl < 0 || fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK) ||
	    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return conn_rr(w, c);
	for (;;) {
		ssize_t r;
		if (!c->writing)
			r = recv(c->fd, w->rx, n - c->pos < w->rxlen ? n - c->pos : w->rxlen, 0);
		else
			r = send(c->fd, w->tx, n - c->pos < w->txlen ? n - c->pos : w->txlen, MSG_NOSIGNAL);
		if (r == 0 && !c->writing) {
			rc = -1;	/* the client closed */
			break;
		}
		if (r < 0 && errno != EAGAIN && errno != EINTR) {
			rc = -1;
			break;
		}
		if (r < 0) {
			if (stop_asked(ss))
				break;
			continue;
		}
		if (!c->writing) {
			w->bytes_rx += (uint64_t)r;
			if ((c->pos += (size_t)r) == n) {
				c->writing = 1;
				c->pos = 0;
			}
			continue;
		}
		w->bytes_tx += (uint64_t)r;
		if ((c->pos += (size_t)r) == n) {
			c->writing = 0;
			c->pos = 0;
			w->trans++;
			atomic_store_explicit(&ss->activity_ns, mono_ns(), memory_order_relaxed);
		}
	}
	fcntl(c->fd, F_SETFL, fl);
	return rc;
}

static void conn_event(net_sworker *w, net_sconn *c, uint32_t ev)
{
	int rc = 0;
	const net_params *p = &w->ss->p;
	if (!c->hdr_done && (rc = conn_header(w, c)) <= 0) {
		if (rc < 0)
			conn_drop(w, c);
		return;
	}
	if (p->test == NET_TCP_RR && p->flows == 1)
		rc = conn_rr_blocking(w, c);
	else
		rc = p->test == NET_TCP_STREAM ? conn_stream(w, c, ev) : conn_rr(w, c);
	if (rc < 0)
		conn_drop(w, c);
}

static uint64_t be_get(const unsigned char *b, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* udp_stream: loss and order by sequence number (a late packet repays the
   loss it was counted as), jitter as RFC 3550 6.4.1: J += (|D| - J) / 16,
   with D the change in transit time; the two clocks' offset cancels out. */
static void udp_event(net_sworker *w)
{
	net_sess *ss = w->ss;
	for (int i = 0; i < 256; i++) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t r = recvfrom(ss->ufd, w->rx, w->rxlen, 0, (struct sockaddr *)&from, &flen);
		if (r < 0)
			return;
		const unsigned char *b = (const unsigned char *)w->rx;
		if (r < NET_UDP_HDR || memcmp(b, ss->cookie, 8))
			continue;
		uint64_t flow = be_get(b + 8, 4), seq = be_get(b + 16, 8);
		if (flow >= ss->p.flows)
			continue;
		w->bytes_rx += (uint64_t)r;
		if (ss->p.test == NET_UDP_RR) {
			if (sendto(ss->ufd, w->rx, (size_t)r, 0, (struct sockaddr *)&from, flen) == r) {
				w->bytes_tx += (uint64_t)r;
				w->trans++;
			}
			continue;
		}
		net_uflow *f = &w->uf[flow];
		int64_t transit = (int64_t)(mono_ns() - be_get(b + 24, 8));
		if (seq < f->base)
			continue;	/* a late one from before the window */
		f->packets++;
		if (seq >= f->expect) {
			f->lost += seq - f->expect;
			f->expect = seq + 1;
		} else {
			f->ooo++;
			if (f->lost)
				f->lost--;
		}
		if (f->have) {
			double d = (double)(transit - f->transit);
			f->jitter_ns += ((d < 0 ? -d : d) - f->jitter_ns) / 16;
		}
		f->transit = transit;
		f->have = 1;
	}
}

/* The client's measured window opened: the server's own figures start
   again from here. Retransmits from each connection's count now; udp loss
   and order afresh from the next datagram (the jitter estimate runs on:
   it is a running average of the last few datagrams anyway). */
static void worker_mark(net_sworker *w)
{
	w->marked = 1;
	for (net_sconn *c = w->conns; c; c = c->next) {
		net_tcpi ti;
		if (c->hdr_done && net_tcp_info(c->fd, &ti) == 0)
			c->retrans0 = ti.total_retrans;
	}
	for (uint32_t f = 0; w->uf && f < w->ss->p.flows; f++) {
		w->uf[f].packets = w->uf[f].lost = w->uf[f].ooo = 0;
		w->uf[f].base = w->uf[f].expect;
	}
}

static void *worker_main(void *arg)
{
	net_sworker *w = arg;
	net_sess *ss = w->ss;
	double cpu0 = thread_cpu_s();
	for (int stop = 0; !stop;) {
		struct epoll_event evs[64];
		if (!w->marked && atomic_load_explicit(&ss->marked, memory_order_relaxed))
			worker_mark(w);
		int n = epoll_wait(w->ep, evs, 64, 500);
		if (n > 0)
			atomic_store_explicit(&ss->activity_ns, mono_ns(), memory_order_relaxed);
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			if (tag == &ss->efd)
				stop = 1;
			else if (tag == &ss->lfd)
				conn_accept(w);
			else if (tag == &ss->ufd)
				udp_event(w);
			else
				conn_event(w, tag, evs[i].events);
		}
	}
	while (w->conns)
		conn_drop(w, w->conns);
	w->cpu_s = thread_cpu_s() - cpu0;
	return NULL;
}

static int workers_start(net_sess *ss, char *err, size_t errlen)
{
	const net_params *p = &ss->p;
	ss->nworkers = p->threads < p->flows ? p->threads : p->flows;
	if (ss->nworkers > NET_MAX_WORKERS)
		ss->nworkers = NET_MAX_WORKERS;
	if (p->test == NET_UDP_STREAM || p->test == NET_UDP_RR)
		ss->nworkers = 1;	/* one UDP socket, one reader */
	ss->w = calloc(ss->nworkers, sizeof(*ss->w));
	if (!ss->w) {
		ss->nworkers = 0;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < ss->nworkers; i++)
		ss->w[i].ep = -1;
	for (unsigned i = 0; i < ss->nworkers; i++) {
		net_sworker *w = &ss->w[i];
		w->ss = ss;
		w->rxlen = NET_RX_BUF;
		w->txlen = p->msg_size < NET_TX_MAX ? p->msg_size : NET_TX_MAX;
		w->rx = net_page_alloc(w->rxlen);
		w->tx = net_page_alloc(w->txlen);
		w->ep = epoll_create1(EPOLL_CLOEXEC);
		if (ss->ufd >= 0)
			w->uf = calloc(p->flows, sizeof(*w->uf));
		if (!w->rx || !w->tx || w->ep < 0 || (ss->ufd >= 0 && !w->uf)) {
			snprintf(err, errlen, "out of memory or descriptors for %u workers", ss->nworkers);
			return -1;
		}
		memset(w->tx, 'n', w->txlen);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &ss->efd };
		epoll_ctl(w->ep, EPOLL_CTL_ADD, ss->efd, &ev);
		ev = (struct epoll_event){ .events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &ss->lfd };
		epoll_ctl(w->ep, EPOLL_CTL_ADD, ss->lfd, &ev);
		if (ss->ufd >= 0) {
			ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = &ss->ufd };
			epoll_ctl(w->ep, EPOLL_CTL_ADD, ss->ufd, &ev);
		}
		if (pthread_create(&w->th, NULL, worker_main, w) != 0) {
			snprintf(err, errlen, "cannot start a worker thread: %s", strerror(errno));
			return -1;
		}
		w->started = 1;
	}
	return 0;
}

/* Stops and joins the workers; their figures summed into r. */
static void workers_stop(net_sess *ss, net_results *r)
{
	uint64_t one = 1;
	double jitter = 0;
	unsigned njit = 0;
	if (write(ss->efd, &one, sizeof(one)) != sizeof(one))
		slog(ss->srv, BENCH_LOG_ERROR, "cannot signal the workers: %s", strerror(errno));
	for (unsigned i = 0; i < ss->nworkers; i++) {
		net_sworker *w = &ss->w[i];
		if (w->started)
			pthread_join(w->th, NULL);
		r->bytes_rx += w->bytes_rx;
		r->bytes_tx += w->bytes_tx;
		r->transactions += w->trans;
		r->retransmits += w->retrans;
		r->conns += w->nconns;
		r->cpu_s += w->cpu_s;
		for (uint32_t f = 0; w->uf && f < ss->p.flows; f++) {
			r->packets += w->uf[f].packets;
			r->lost += w->uf[f].lost;
			r->out_of_order += w->uf[f].ooo;
			if (w->uf[f].packets > 1) {
				jitter += w->uf[f].jitter_ns;
				njit++;
			}
		}
		if (w->ep >= 0)
			close(w->ep);
		free(w->rx);
		free(w->tx);
		free(w->uf);
	}
	r->jitter_us = njit ? jitter / njit / 1000 : 0;
	free(ss->w);
	ss->w = NULL;
}

/* ---------------------------------------------------------- control path */

static int sess_handshake(net_sess *ss, int idle_ms)
{
	net_server *s = ss->srv;
	net_msg m = { .type = NET_M_HELLO, .auth_required = s->cfg.secret != NULL };
	unsigned char ch[NET_CHALLENGE_LEN];
	char err[200] = "";
	if (net_random(ch, sizeof(ch)) || net_random(ss->cookie, sizeof(ss->cookie))) {
		slog(s, BENCH_LOG_ERROR, "no random bytes: %s", strerror(errno));
		return -1;
	}
	net_hex_encode(ch, sizeof(ch), m.challenge);
	if (net_send_msg(ss->ctl, &m, idle_ms))
		return -1;
	char challenge[sizeof(m.challenge)];
	memcpy(challenge, m.challenge, sizeof(challenge));
	int rc = net_recv_msg(ss->ctl, &m, idle_ms, s->quit_fd, err, sizeof(err));
	if (rc == NET_E_TOOLONG || rc == NET_E_PARSE) {
		slog(s, BENCH_LOG_WARN, "client %s: refused a bad control message: %s", ss->peer, err);
		send_error(ss, rc == NET_E_TOOLONG ? "too_long" : "bad_request", "%s", err);
		return -1;
	}
	if (rc) {
		slog(s, BENCH_LOG_WARN, "client %s: no test request: %s%s", ss->peer, net_strerr(rc),
		     rc == NET_E_TIMEOUT ? " (--idle-timeout)" : "");
		if (rc == NET_E_TIMEOUT)
			send_error(ss, "timeout", "no test request within %g s", s->cfg.idle_timeout_s);
		return -1;
	}
	if (m.type != NET_M_TEST) {
		slog(s, BENCH_LOG_WARN, "client %s: expected a test request, got \"%s\"", ss->peer,
		     net_mtype_name(m.type));
		send_error(ss, "bad_request", "expected a test request, got \"%s\"", net_mtype_name(m.type));
		return -1;
	}
	if (s->cfg.secret) {
		char want[2 * NET_PROOF_LEN + 1];
		net_auth_proof(s->cfg.secret, 0, challenge, want);
		if (!m.proof[0] || !net_proof_equal(want, m.proof)) {
			slog(s, BENCH_LOG_WARN, "client %s: authentication %s", ss->peer,
			     m.proof[0] ? "failed (wrong secret)" : "missing (no secret given)");
			send_error(ss, m.proof[0] ? "auth_failed" : "auth_required", "%s",
				   m.proof[0] ? "authentication failed: the secret does not match the server's"
					      : "this server requires a secret");
			return -1;
		}
		/* and the server's proof, for a client that checks whom it talks to */
		if (m.challenge[0])
			net_auth_proof(s->cfg.secret, 1, m.challenge, ss->proof);
	}
	ss->p = m.p;
	ss->p.zerocopy = 0;	/* the server copies; zerocopy is the client's send path */
	return 0;
}

/* The data listener and UDP socket, on the local address the client reached. */
static int sess_sockets(net_sess *ss, char *err, size_t errlen)
{
	struct sockaddr_storage la;
	socklen_t len = sizeof(la);
	if (getsockname(ss->ctl, (struct sockaddr *)&la, &len) != 0) {
		snprintf(err, errlen, "getsockname: %s", strerror(errno));
		return -1;
	}
	if (la.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&la)->sin6_port = 0;
	else
		((struct sockaddr_in *)&la)->sin_port = 0;
	if ((ss->lfd = net_listen_addr((struct sockaddr *)&la, len, SOCK_STREAM, err, errlen)) < 0)
		return -1;
	net_set_nonblock(ss->lfd);
	if (ss->p.window) {
		int w = (int)ss->p.window;
		setsockopt(ss->lfd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w));
	}
	if (ss->p.test == NET_UDP_STREAM || ss->p.test == NET_UDP_RR) {
		if ((ss->ufd = net_listen_addr((struct sockaddr *)&la, len, SOCK_DGRAM, err, errlen)) < 0)
			return -1;
		net_set_nonblock(ss->ufd);
		/* 8 MiB of datagrams ride out a descheduled reader (80 ms at 800
		   Mbit/s); SO_RCVBUFFORCE passes net.core.rmem_max when we may */
		int big = 8 << 20;
		if (setsockopt(ss->ufd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) != 0)
			setsockopt(ss->ufd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	}
	ss->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ss->efd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Waits for "stop" while the workers run. 1 stop received, 0 test aborted. */
static int sess_wait_stop(net_sess *ss, uint64_t t0)
{
	net_server *s = ss->srv;
	uint64_t idle_ns = (uint64_t)(s->cfg.idle_timeout_s * 1e9);
	int idle_ms = (int)(s->cfg.idle_timeout_s * 1000);
	char err[200] = "";
	for (;;) {
		int w = net_wait(ss->ctl, POLLIN, 200, s->quit_fd);
		uint64_t now = mono_ns();
		if (w == NET_E_STOP) {
			send_error(ss, "stopping", "the server is shutting down");
			return 0;
		}
		if (w == 1) {
			net_msg m;
			int rc = net_recv_msg(ss->ctl, &m, idle_ms, s->quit_fd, err, sizeof(err));
			if (rc == NET_OK && m.type == NET_M_STOP)
				return 1;
			if (rc == NET_OK && m.type == NET_M_MARK) {
				atomic_store(&ss->marked, 1);
				continue;
			}
			slog(s, BENCH_LOG_WARN, "client %s: test aborted: %s", ss->peer,
			     rc == NET_OK ? "unexpected message" : rc == NET_E_EOF ?
			     "the client closed the control connection mid-test" : err[0] ? err : net_strerr(rc));
			if (rc != NET_E_EOF)
				send_error(ss, "bad_request", "expected \"stop\"");
			return 0;
		}
		if (s->cfg.max_duration_s > 0 && now - t0 > (uint64_t)(s->cfg.max_duration_s * 1e9)) {
			slog(s, BENCH_LOG_WARN, "client %s: test stopped after --max-duration %g s", ss->peer,
			     s->cfg.max_duration_s);
			send_error(ss, "max_duration", "the test ran longer than the server's --max-duration (%g s)",
				   s->cfg.max_duration_s);
			return 0;
		}
		/* a worker may have stamped a time after our now: not idle */
		uint64_t last = atomic_load_explicit(&ss->activity_ns, memory_order_relaxed);
		if (last < now && now - last > idle_ns) {
			slog(s, BENCH_LOG_WARN, "client %s: test dropped: no traffic for %g s (--idle-timeout)",
			     ss->peer, s->cfg.idle_timeout_s);
			send_error(ss, "idle", "no traffic for %g s (the server's --idle-timeout)",
				   s->cfg.idle_timeout_s);
			return 0;
		}
	}
}

static void sess_run(net_sess *ss)
{
	net_server *s = ss->srv;
	int idle_ms = (int)(s->cfg.idle_timeout_s * 1000);
	char err[200] = "";
	if (sess_handshake(ss, idle_ms))
		return;
	if (sess_sockets(ss, err, sizeof(err))) {
		slog(s, BENCH_LOG_ERROR, "client %s: %s", ss->peer, err);
		send_error(ss, "internal", "server: %s", err);
		return;
	}
	net_msg m = { .type = NET_M_READY, .data_port = net_local_port(ss->lfd), .mark = 1,
		      .udp_port = ss->ufd >= 0 ? net_local_port(ss->ufd) : 0 };
	net_hex_encode(ss->cookie, sizeof(ss->cookie), m.cookie);
	memcpy(m.proof, ss->proof, sizeof(m.proof));
	uint64_t t0 = mono_ns();
	atomic_store(&ss->activity_ns, t0);
	ss->ran = 1;
	if (workers_start(ss, err, sizeof(err))) {
		slog(s, BENCH_LOG_ERROR, "client %s: %s", ss->peer, err);
		send_error(ss, "internal", "server: %s", err);
		net_results r = { 0 };
		workers_stop(ss, &r);
		return;
	}
	slog(s, BENCH_LOG_INFO, "client %s: %s, %u flows, %u workers", ss->peer,
	     net_test_names[ss->p.test], ss->p.flows, ss->nworkers);
	int stopped = net_send_msg(ss->ctl, &m, idle_ms) == NET_OK && sess_wait_stop(ss, t0);
	net_results r = { 0 };
	workers_stop(ss, &r);
	r.wall_s = (mono_ns() - t0) / 1e9;
	if (!stopped)
		return;
	m = (net_msg){ .type = NET_M_RESULTS, .r = r };
	net_send_msg(ss->ctl, &m, idle_ms);
	slog(s, BENCH_LOG_INFO, "client %s: done in %.1f s: %.3f GB received, %.3f GB sent, %llu transactions",
	     ss->peer, r.wall_s, r.bytes_rx / 1e9, r.bytes_tx / 1e9, (unsigned long long)r.transactions);
}

static void *sess_main(void *arg)
{
	net_sess *ss = arg;
	net_server *s = ss->srv;
	sess_run(ss);
	close(ss->ctl);
	if (ss->lfd >= 0)
		close(ss->lfd);
	if (ss->ufd >= 0)
		close(ss->ufd);
	if (ss->efd >= 0)
		close(ss->efd);
	pthread_mutex_lock(&s->mu);
	s->active--;
	s->tests_done += ss->ran;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	free(ss);
	return NULL;
}

/* ------------------------------------------------------------ the server */

net_server *net_server_open(const net_server_cfg *cfg, char *err, size_t errlen)
{
	net_server *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->cfg = *cfg;
	if (!s->cfg.max_clients)
		s->cfg.max_clients = 1;
	if (s->cfg.idle_timeout_s <= 0)
		s->cfg.idle_timeout_s = 30;
	s->lfd = net_listen(cfg->bind, cfg->port, SOCK_STREAM, err, errlen);
	s->quit_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->lfd < 0 || s->quit_fd < 0) {
		if (s->lfd >= 0)
			close(s->lfd);
		else if (s->quit_fd >= 0)
			close(s->quit_fd);
		if (s->quit_fd < 0)
			snprintf(err, errlen, "eventfd: %s", strerror(errno));
		free(s);
		return NULL;
	}
	s->port = net_local_port(s->lfd);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	return s;
}

int net_server_port(const net_server *s)
{
	return s->port;
}

static void turn_away(net_server *s, int fd, const char *peer)
{
	net_msg m = { .type = NET_M_BUSY, .max_clients = s->cfg.max_clients };
	snprintf(m.message, sizeof(m.message), "the server is busy: %u tests running (--max-clients %u)",
		 s->cfg.max_clients, s->cfg.max_clients);
	net_send_msg(fd, &m, 1000);
	close(fd);
	slog(s, BENCH_LOG_INFO, "client %s: turned away (busy)", peer);
}

static void accept_one(net_server *s)
{
	struct sockaddr_storage pa;
	socklen_t plen = sizeof(pa);
	int fd = accept4(s->lfd, (struct sockaddr *)&pa, &plen, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	char peer[80];
	net_addr_text((struct sockaddr *)&pa, peer, sizeof(peer));
	pthread_mutex_lock(&s->mu);
	int busy = s->active >= s->cfg.max_clients;
	if (!busy)
		s->active++;
	pthread_mutex_unlock(&s->mu);
	if (busy) {
		turn_away(s, fd, peer);
		return;
	}
	net_sess *ss = calloc(1, sizeof(*ss));
	pthread_t th;
	pthread_attr_t at;
	ss->srv = s;
	ss->ctl = fd;
	ss->lfd = ss->ufd = ss->efd = -1;
	ss->id = ++s->next_id;
	memcpy(ss->peer, peer, sizeof(peer));
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, sess_main, ss) != 0) {
		slog(s, BENCH_LOG_ERROR, "client %s: cannot start a session thread", peer);
		close(fd);
		free(ss);
		pthread_mutex_lock(&s->mu);
		s->active--;
		pthread_mutex_unlock(&s->mu);
	}
	pthread_attr_destroy(&at);
}

int net_server_run(net_server *s)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = s->lfd, .events = POLLIN },
				       { .fd = s->cfg.stop_fd, .events = POLLIN } };
		int n = poll(p, s->cfg.stop_fd >= 0 ? 2 : 1, 200);
		if (n < 0 && errno != EINTR) {
			slog(s, BENCH_LOG_ERROR, "poll: %s", strerror(errno));
			break;
		}
		if (n > 0 && (p[1].revents & POLLIN))
			break;
		if (n > 0 && (p[0].revents & POLLIN))
			accept_one(s);
		if (s->cfg.once) {
			pthread_mutex_lock(&s->mu);
			int done = s->tests_done > 0;
			pthread_mutex_unlock(&s->mu);
			if (done)
				break;
		}
	}
	/* tell running sessions, and wait for them: they hold our memory */
	uint64_t one = 1;
	if (write(s->quit_fd, &one, sizeof(one)) != sizeof(one))
		slog(s, BENCH_LOG_ERROR, "cannot stop the sessions: %s", strerror(errno));
	pthread_mutex_lock(&s->mu);
	while (s->active)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

void net_server_close(net_server *s)
{
	if (!s)
		return;
	close(s->lfd);
	close(s->quit_fd);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}
