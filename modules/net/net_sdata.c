/* net: the server's data path. A test's worker threads each run an epoll
 * loop over the data connections they accepted (and, for the UDP tests, the
 * one UDP socket). A data connection proves it belongs to the test with the
 * session's random cookie; until it has, it holds one of the test's
 * NET_DATA_PENDING places for NET_DATA_HDR_MS at most, and beyond the places
 * it is closed at accept. Out of descriptors, a worker stops accepting for
 * a moment instead of spinning on a listener that stays readable. UDP
 * datagrams count and are answered only from the control connection's
 * address: the cookie alone would make the server a reflector. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include "benchcore/module.h"
#include "net_srv.h"

#define NET_ACCEPT_PAUSE_NS	100000000u	/* out of descriptors: retry accepting after 100 ms */

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void list_unlink(net_sconn **head, net_sconn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
}

static void list_push(net_sconn **head, net_sconn *c)
{
	c->prev = NULL;
	c->next = *head;
	if (*head)
		(*head)->prev = c;
	*head = c;
}

static void pending_unlink(net_sworker *w, net_sconn *c)
{
	if (w->pending_old == c)
		w->pending_old = c->prev;
	list_unlink(&w->pending, c);
}

static void pending_push(net_sworker *w, net_sconn *c)
{
	list_push(&w->pending, c);
	if (!w->pending_old)
		w->pending_old = c;
}

static void conn_drop(net_sworker *w, net_sconn *c)
{
	net_sess *ss = w->ss;
	if (c->hdr_done && (ss->p.reverse || ss->p.bidir)) {
		net_tcpi ti;
		if (net_tcp_info(c->fd, &ti) == 0)
			w->retrans += ti.total_retrans - c->retrans0;
	}
	close(c->fd);	/* also leaves the epoll set */
	if (c->hdr_done)
		list_unlink(&w->conns, c);
	else
		pending_unlink(w, c);
	if (!c->hdr_done)
		atomic_fetch_sub(&ss->data_pending, 1);
	atomic_fetch_sub(&ss->data_open, 1);
	free(c);
}

/* Out of descriptors (or kernel memory): the listener stays readable and a
   level-triggered epoll would return it at once, forever. Leave it out of
   this worker's set for a moment; the connections wait in the backlog. */
static void accept_pause(net_sworker *w, int err)
{
	net_sess *ss = w->ss;
	epoll_ctl(w->ep, EPOLL_CTL_DEL, ss->lfd, NULL);
	if (!w->accept_resume)
		net_slog(ss->srv, BENCH_LOG_WARN, "client %s: cannot accept data connections: %s "
			 "(pausing 100 ms; see ulimit -n)", ss->peer, strerror(err));
	w->accept_resume = net_mono_ns() + NET_ACCEPT_PAUSE_NS;
}

static void accept_resume(net_sworker *w, uint64_t now)
{
	net_sess *ss = w->ss;
	if (!w->accept_resume || now < w->accept_resume)
		return;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &ss->lfd };
	if (epoll_ctl(w->ep, EPOLL_CTL_ADD, ss->lfd, &ev) == 0 || errno == EEXIST)
		w->accept_resume = 0;
	else
		w->accept_resume = now + NET_ACCEPT_PAUSE_NS;
}

unsigned net_data_places(const net_params *p)
{
	int udp = p->test == NET_UDP_STREAM || p->test == NET_UDP_RR;
	return NET_DATA_PENDING + (udp ? 0 : p->flows);
}

/* Takes one of the test's places for a connection without its header, and
   one of flows + those places for a connection in all (tcp_crr's closing
   ones among them). 0 when none is free. */
static int conn_place(net_sess *ss)
{
	unsigned places = net_data_places(&ss->p);
	if (atomic_fetch_add(&ss->data_pending, 1) >= places) {
		atomic_fetch_sub(&ss->data_pending, 1);
		return 0;
	}
	if (atomic_fetch_add(&ss->data_open, 1) >= ss->p.flows + places) {
		atomic_fetch_sub(&ss->data_open, 1);
		atomic_fetch_sub(&ss->data_pending, 1);
		return 0;
	}
	return 1;
}

static void conn_accept(net_sworker *w)
{
	net_sess *ss = w->ss;
	char err[160];
	for (int i = 0; i < 64; i++) {
		int fd = accept4(ss->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				accept_pause(w, errno);
			return;		/* EAGAIN: another worker took it, or none left */
		}
		int placed = conn_place(ss);
		if (!placed && w->pending_old) {
			/* the places are taken: this worker's longest waiting one
			   goes (a real flow's header comes right after its connect,
			   so the oldest is the likeliest not to be one) */
			conn_drop(w, w->pending_old);
			w->expired++;
			placed = conn_place(ss);
		}
		if (!placed) {
			close(fd);	/* at once: a flood holds no descriptor */
			w->refused++;
			continue;
		}
		net_sconn *c = calloc(1, sizeof(*c));
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
		if (!c || epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);
			free(c);
			atomic_fetch_sub(&ss->data_open, 1);
			atomic_fetch_sub(&ss->data_pending, 1);
			continue;
		}
		if (net_sockopts(fd, &ss->p, 1, err, sizeof(err)))
			net_slog(ss->srv, BENCH_LOG_WARN, "client %s: %s", ss->peer, err);
		c->fd = fd;
		c->t_accept = net_mono_ns();
		pending_push(w, c);
	}
}

/* Drops the connections that owe their header past NET_DATA_HDR_MS. */
static void conn_sweep(net_sworker *w, uint64_t now)
{
	if (now < w->next_sweep)
		return;
	w->next_sweep = now + NET_DATA_HDR_MS * 1000000ull / 4;
	/* oldest first: the rest are younger */
	while (w->pending_old && now - w->pending_old->t_accept > NET_DATA_HDR_MS * 1000000ull) {
		conn_drop(w, w->pending_old);
		w->expired++;
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
	unsigned char diff = 0;
	for (int i = 0; i < NET_COOKIE_LEN; i++)
		diff |= c->hdr[i] ^ w->ss->cookie[i];	/* no early exit: no timing hint */
	if (diff || flow >= w->ss->p.flows)
		return -1;
	pending_unlink(w, c);
	list_push(&w->conns, c);
	c->hdr_done = 1;
	atomic_fetch_sub(&w->ss->data_pending, 1);
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
			atomic_store_explicit(&ss->activity_ns, net_mono_ns(), memory_order_relaxed);
		}
	}
	fcntl(c->fd, F_SETFL, fl);
	return rc;
}

/* 1 when c is the test's own (it presented the cookie, now or before). */
static int conn_event(net_sworker *w, net_sconn *c, uint32_t ev)
{
	int rc = 0;
	const net_params *p = &w->ss->p;
	if (!c->hdr_done && (rc = conn_header(w, c)) <= 0) {
		if (rc < 0)
			conn_drop(w, c);
		return 0;
	}
	if (p->test == NET_TCP_RR && p->flows == 1)
		rc = conn_rr_blocking(w, c);
	else
		rc = p->test == NET_TCP_STREAM ? conn_stream(w, c, ev) : conn_rr(w, c);
	if (rc < 0)
		conn_drop(w, c);
	return 1;
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
/* The address (not the port: the data sockets have their own) of the
   control connection's peer. */
static int from_peer(const net_sess *ss, const struct sockaddr_storage *a)
{
	const struct sockaddr_storage *b = &ss->peer_sa;
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return 0;
}

/* 1 when a datagram of the test arrived. */
static int udp_event(net_sworker *w)
{
	net_sess *ss = w->ss;
	int got = 0;
	for (int i = 0; i < 256; i++) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t r = recvfrom(ss->ufd, w->rx, w->rxlen, 0, (struct sockaddr *)&from, &flen);
		if (r < 0)
			return got;
		const unsigned char *b = (const unsigned char *)w->rx;
		if (r < NET_UDP_HDR || memcmp(b, ss->cookie, 8))
			continue;
		uint64_t flow = be_get(b + 8, 4), seq = be_get(b + 16, 8);
		if (flow >= ss->p.flows)
			continue;
		if (!from_peer(ss, &from)) {
			w->udp_foreign++;	/* neither answered nor counted */
			continue;
		}
		got = 1;
		w->bytes_rx += (uint64_t)r;
		if (ss->p.test == NET_UDP_RR) {
			if (sendto(ss->ufd, w->rx, (size_t)r, 0, (struct sockaddr *)&from, flen) == r) {
				w->bytes_tx += (uint64_t)r;
				w->trans++;
			}
			continue;
		}
		net_uflow *f = &w->uf[flow];
		int64_t transit = (int64_t)(net_mono_ns() - be_get(b + 24, 8));
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
	return got;
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
		int accept = 0;
		if (!w->marked && atomic_load_explicit(&ss->marked, memory_order_relaxed))
			worker_mark(w);
		/* connections are dropped by the sweep and by an accept that
		   needs a place only outside a batch of events: an event of
		   this batch may name any of them */
		uint64_t now = net_mono_ns();
		conn_sweep(w, now);
		accept_resume(w, now);
		int n = epoll_wait(w->ep, evs, 64, w->pending || w->accept_resume ? 100 : 500), act = 0;
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			if (tag == &ss->efd) {
				stop = 1;
			} else if (tag == &ss->lfd) {
				accept = 1;
			} else if (tag == &ss->ufd) {
				act |= udp_event(w);
			} else {
				act |= conn_event(w, tag, evs[i].events);
			}
		}
		/* only the test's own traffic keeps it from --idle-timeout: a
		   stranger's connections or datagrams do not */
		if (act)
			atomic_store_explicit(&ss->activity_ns, net_mono_ns(), memory_order_relaxed);
		if (accept && !stop)
			conn_accept(w);
	}
	/* udp_stream: what the client sent in its window and the kernel holds
	   for us arrived; it is counted before the results go back (a loaded
	   receiver had up to a socket buffer of the window's datagrams unread
	   at "stop": neither received nor lost), and what is still on its way
	   to the socket (a loaded machine's softirq work deferred to
	   ksoftirqd) once it has been quiet for 20 ms. Bounded: a stranger's
	   flood does not keep the session open. */
	for (int i = 0; ss->p.test == NET_UDP_STREAM && i < 64; i++) {
		struct pollfd pf = { .fd = ss->ufd, .events = POLLIN };
		if (!udp_event(w) && poll(&pf, 1, 20) <= 0)
			break;
	}
	while (w->conns)
		conn_drop(w, w->conns);
	while (w->pending)
		conn_drop(w, w->pending);
	w->cpu_s = thread_cpu_s() - cpu0;
	return NULL;
}

unsigned net_workers_wanted(const net_params *p)
{
	if (p->test == NET_UDP_STREAM || p->test == NET_UDP_RR)
		return 1;	/* one UDP socket, one reader */
	return p->threads < p->flows ? p->threads : p->flows;
}

int net_workers_start(net_sess *ss, char *err, size_t errlen)
{
	const net_params *p = &ss->p;
	ss->nworkers = net_workers_wanted(p);
	if (ss->nworkers > NET_MAX_WORKERS)
		ss->nworkers = NET_MAX_WORKERS;
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

static void workers_tell(net_sess *ss, uint64_t refused, uint64_t expired, uint64_t foreign)
{
	if (refused || expired)
		net_slog(ss->srv, BENCH_LOG_WARN, "client %s: %llu data connections closed at accept (the test's "
			 "%u places for connections without a header were taken), %llu dropped without a header "
			 "within %d ms or for a newer one", ss->peer, (unsigned long long)refused, net_data_places(&ss->p),
			 (unsigned long long)expired, NET_DATA_HDR_MS);
	if (foreign)
		net_slog(ss->srv, BENCH_LOG_WARN, "client %s: %llu datagrams with the test's cookie from another "
			 "address ignored (neither answered nor counted)", ss->peer, (unsigned long long)foreign);
}

void net_workers_stop(net_sess *ss, net_results *r)
{
	uint64_t one = 1, refused = 0, expired = 0, foreign = 0;
	double jitter = 0;
	unsigned njit = 0;
	if (write(ss->efd, &one, sizeof(one)) != sizeof(one))
		net_slog(ss->srv, BENCH_LOG_ERROR, "cannot signal the workers: %s", strerror(errno));
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
		refused += w->refused;
		expired += w->expired;
		foreign += w->udp_foreign;
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
	workers_tell(ss, refused, expired, foreign);
	free(ss->w);
	ss->w = NULL;
}

