/* net: the server half's control path and accept loop, shared by
 * `benchcore serve` and the in-process loopback server of a case with no
 * `server` option (the data path is net_sdata.c, the bounds net_srv.h).
 *
 * The accept loop hands every control connection to a session thread. A
 * session greets, authenticates the client within NET_HANDSHAKE_MS of the
 * accept (one deadline: trickling bytes does not renew it), and only then
 * asks for a place: one of --max-clients, and the worker threads, buffers
 * and descriptors the test needs out of what the running tests left of the
 * server's limits, or it is told "busy" or "limit" and closed. Until then it
 * holds one of NET_MAX_PENDING places, the oldest given up for a newcomer,
 * so idle connections can neither hold the server nor keep clients out. An
 * admitted test gets a data listener (and a UDP socket) on an ephemeral
 * port of the same local address and as many workers as the client has
 * threads. The session ends on "stop" (results go back), on the client
 * vanishing, on --max-duration, on --idle-timeout of control and data
 * alike, or when the server stops. */
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
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "benchcore/module.h"
#include "net_srv.h"

#define NET_ACCEPT_PAUSE_MS	100

uint64_t net_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void net_slog(const net_server *s, int level, const char *fmt, ...)
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
	/* the message may quote the peer's own bytes (a parser's error): the
	   protocol carries printable ASCII only */
	for (char *c = m.message; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	net_send_msg(ss->ctl, &m, 1000);	/* best effort: the peer may be gone */
}

/* ---------------------------------------------------------- control path */

/* Milliseconds left of the handshake's deadline (0 when past). */
static int hs_left(const net_sess *ss)
{
	const net_server *s = ss->srv;
	uint64_t hs_ms = (uint64_t)(s->cfg.idle_timeout_s * 1000);
	if (hs_ms > NET_HANDSHAKE_MS)
		hs_ms = NET_HANDSHAKE_MS;
	uint64_t end = ss->t_accept + hs_ms * 1000000u, now = net_mono_ns();
	return now >= end ? 0 : (int)((end - now) / 1000000u);
}

static double hs_secs(const net_server *s)
{
	double t = NET_HANDSHAKE_MS / 1000.0;
	return s->cfg.idle_timeout_s < t ? s->cfg.idle_timeout_s : t;
}

static int sess_auth(net_sess *ss, const net_msg *m, const char *challenge)
{
	net_server *s = ss->srv;
	char want[2 * NET_PROOF_LEN + 1];
	net_auth_proof(s->cfg.secret, 0, challenge, want);
	if (!m->proof[0] || !net_proof_equal(want, m->proof)) {
		net_slog(s, BENCH_LOG_WARN, "client %s: authentication %s", ss->peer,
			 m->proof[0] ? "failed (wrong secret)" : "missing (no secret given)");
		send_error(ss, m->proof[0] ? "auth_failed" : "auth_required", "%s",
			   m->proof[0] ? "authentication failed: the secret does not match the server's"
				       : "this server requires a secret");
		return -1;
	}
	/* and the server's proof, for a client that checks whom it talks to */
	if (m->challenge[0])
		net_auth_proof(s->cfg.secret, 1, m->challenge, ss->proof);
	return 0;
}

/* Hello, then the test request within the handshake's deadline. */
static int sess_handshake(net_sess *ss)
{
	net_server *s = ss->srv;
	net_msg m = { .type = NET_M_HELLO, .auth_required = s->cfg.secret != NULL };
	unsigned char ch[NET_CHALLENGE_LEN];
	char err[200] = "";
	if (net_random(ch, sizeof(ch)) || net_random(ss->cookie, sizeof(ss->cookie))) {
		net_slog(s, BENCH_LOG_ERROR, "no random bytes: %s", strerror(errno));
		return -1;
	}
	net_hex_encode(ch, sizeof(ch), m.challenge);
	if (net_send_msg(ss->ctl, &m, hs_left(ss)))
		return -1;
	char challenge[sizeof(m.challenge)];
	memcpy(challenge, m.challenge, sizeof(challenge));
	int rc = net_recv_msg(ss->ctl, &m, hs_left(ss), s->quit_fd, err, sizeof(err));
	if (atomic_load(&ss->evicted))
		return -1;	/* told in the accept loop's summary */
	if (rc == NET_E_TOOLONG || rc == NET_E_PARSE) {
		net_slog(s, BENCH_LOG_WARN, "client %s: refused a bad control message: %s", ss->peer, err);
		send_error(ss, rc == NET_E_TOOLONG ? "too_long" : "bad_request", "%s", err);
		return -1;
	}
	if (rc) {
		net_slog(s, BENCH_LOG_WARN, "client %s: no test request: %s%s", ss->peer, net_strerr(rc),
			 rc == NET_E_TIMEOUT ? " (the handshake's deadline)" : "");
		if (rc == NET_E_TIMEOUT)
			send_error(ss, "timeout", "no test request within %g s", hs_secs(s));
		return -1;
	}
	if (m.type != NET_M_TEST) {
		net_slog(s, BENCH_LOG_WARN, "client %s: expected a test request, got \"%s\"", ss->peer,
			 net_mtype_name(m.type));
		send_error(ss, "bad_request", "expected a test request, got \"%s\"", net_mtype_name(m.type));
		return -1;
	}
	if (s->cfg.secret && sess_auth(ss, &m, challenge))
		return -1;
	ss->p = m.p;
	ss->p.zerocopy = 0;	/* the server copies; zerocopy is the client's send path */
	return 0;
}

/* ------------------------------------------------------------ admission */

static void pend_unlink(net_server *s, net_sess *ss)
{
	if (!ss->in_pending)
		return;
	if (ss->pold)
		ss->pold->pnew = ss->pnew;
	else
		s->pend_old = ss->pnew;
	if (ss->pnew)
		ss->pnew->pold = ss->pold;
	else
		s->pend_new = ss->pold;
	ss->pold = ss->pnew = NULL;
	ss->in_pending = 0;
	s->pending--;
}

static void pend_add(net_server *s, net_sess *ss)
{
	ss->pold = s->pend_new;
	ss->pnew = NULL;
	if (s->pend_new)
		s->pend_new->pnew = ss;
	else
		s->pend_old = ss;
	s->pend_new = ss;
	ss->in_pending = 1;
	s->pending++;
}

static unsigned fd_budget(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1u << 30)
		return 1u << 30;
	return rl.rlim_cur > NET_FD_RESERVE ? (unsigned)rl.rlim_cur - NET_FD_RESERVE : 0;
}

/* What the test takes of the server: worker threads, buffers (receive and
   send buffer per worker, udp flow state, connection state) and
   descriptors (a connection per flow, the places for connections without
   a header, the listener, UDP socket, eventfd and an epoll per worker). */
static void sess_needs(net_sess *ss)
{
	const net_params *p = &ss->p;
	int udp = p->test == NET_UDP_STREAM || p->test == NET_UDP_RR;
	unsigned workers = net_workers_wanted(p);
	uint64_t tx = p->msg_size < NET_TX_MAX ? p->msg_size : NET_TX_MAX;
	ss->need_threads = workers < NET_MAX_WORKERS ? workers : NET_MAX_WORKERS;
	unsigned places = net_data_places(p);
	ss->need_mem = ss->need_threads * (NET_RX_BUF + tx + (udp ? p->flows * (uint64_t)sizeof(net_uflow) : 0)) +
		       ((udp ? 0 : p->flows) + places) * (uint64_t)sizeof(net_sconn);
	/* the places beyond NET_DATA_PENDING are not reserved: a flood of them
	   meets the open cap, or an accept that fails and pauses */
	ss->need_fds = (udp ? 0 : p->flows) + NET_DATA_PENDING + 3 + ss->need_threads;
}

/* Under s->mu: "" when the test fits, else why not (code "limit"). */
static void sess_fits(net_sess *ss, char *why, size_t n)
{
	net_server *s = ss->srv;
	const net_params *p = &ss->p;
	unsigned workers = net_workers_wanted(p), fds = fd_budget();
	uint64_t mib = 1u << 20;
	why[0] = '\0';
	if (workers > s->cfg.max_threads)
		snprintf(why, n, "the test asks for %u worker threads (threads %u, flows %u); this server runs at "
			 "most %u (--max-threads)", workers, p->threads, p->flows, s->cfg.max_threads);
	else if (s->used_threads + ss->need_threads > s->cfg.max_threads)
		snprintf(why, n, "the test needs %u worker threads; running tests use %u of the server's %u "
			 "(--max-threads)", ss->need_threads, s->used_threads, s->cfg.max_threads);
	else if (ss->need_mem > s->cfg.max_memory)
		snprintf(why, n, "the test needs %.1f MiB of server buffers (%u workers, msg_size %llu, %u flows); "
			 "this server allows %.1f MiB (--max-memory)", (double)ss->need_mem / mib, ss->need_threads,
			 (unsigned long long)p->msg_size, p->flows, (double)s->cfg.max_memory / mib);
	else if (s->used_mem + ss->need_mem > s->cfg.max_memory)
		snprintf(why, n, "the test needs %.1f MiB of server buffers; running tests use %.1f of the "
			 "server's %.1f MiB (--max-memory)", (double)ss->need_mem / mib, (double)s->used_mem / mib,
			 (double)s->cfg.max_memory / mib);
	else if (s->used_fds + ss->need_fds > fds)
		snprintf(why, n, "the test needs %u descriptors (%u flows); the server's limit leaves %u "
			 "(ulimit -n, less %d kept for control connections)", ss->need_fds, p->flows,
			 fds > s->used_fds ? fds - s->used_fds : 0, NET_FD_RESERVE);
}

/* A place for a test that passed the handshake. 0 admitted; -1 refused
   (the client told why). */
static int sess_admit(net_sess *ss)
{
	net_server *s = ss->srv;
	char why[256] = "";
	int busy = 0;
	sess_needs(ss);
	pthread_mutex_lock(&s->mu);
	pend_unlink(s, ss);
	if (atomic_load(&ss->evicted)) {
		pthread_mutex_unlock(&s->mu);
		return -1;
	}
	busy = s->active >= s->cfg.max_clients;
	if (!busy)
		sess_fits(ss, why, sizeof(why));
	if (!busy && !why[0]) {
		s->active++;
		s->used_threads += ss->need_threads;
		s->used_mem += ss->need_mem;
		s->used_fds += ss->need_fds;
		ss->admitted = 1;
	}
	pthread_mutex_unlock(&s->mu);
	if (busy) {
		net_msg m = { .type = NET_M_BUSY, .max_clients = s->cfg.max_clients };
		snprintf(m.message, sizeof(m.message), "the server is busy: %u tests running (--max-clients %u)",
			 s->cfg.max_clients, s->cfg.max_clients);
		net_send_msg(ss->ctl, &m, 1000);
		net_slog(s, BENCH_LOG_INFO, "client %s: turned away (busy)", ss->peer);
		return -1;
	}
	if (why[0]) {
		net_slog(s, BENCH_LOG_WARN, "client %s: test refused: %s", ss->peer, why);
		send_error(ss, "limit", "%s", why);
		return -1;
	}
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
		uint64_t now = net_mono_ns();
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
			net_slog(s, BENCH_LOG_WARN, "client %s: test aborted: %s", ss->peer,
			     rc == NET_OK ? "unexpected message" : rc == NET_E_EOF ?
			     "the client closed the control connection mid-test" : err[0] ? err : net_strerr(rc));
			if (rc != NET_E_EOF)
				send_error(ss, "bad_request", "expected \"stop\"");
			return 0;
		}
		if (s->cfg.max_duration_s > 0 && now - t0 > (uint64_t)(s->cfg.max_duration_s * 1e9)) {
			net_slog(s, BENCH_LOG_WARN, "client %s: test stopped after --max-duration %g s", ss->peer,
			     s->cfg.max_duration_s);
			send_error(ss, "max_duration", "the test ran longer than the server's --max-duration (%g s)",
				   s->cfg.max_duration_s);
			return 0;
		}
		/* a worker may have stamped a time after our now: not idle */
		uint64_t last = atomic_load_explicit(&ss->activity_ns, memory_order_relaxed);
		if (last < now && now - last > idle_ns) {
			net_slog(s, BENCH_LOG_WARN, "client %s: test dropped: no traffic for %g s (--idle-timeout)",
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
	if (sess_handshake(ss) || sess_admit(ss))
		return;
	if (sess_sockets(ss, err, sizeof(err))) {
		net_slog(s, BENCH_LOG_ERROR, "client %s: %s", ss->peer, err);
		send_error(ss, "internal", "server: %s", err);
		return;
	}
	net_msg m = { .type = NET_M_READY, .data_port = net_local_port(ss->lfd), .mark = 1,
		      .udp_port = ss->ufd >= 0 ? net_local_port(ss->ufd) : 0 };
	net_hex_encode(ss->cookie, sizeof(ss->cookie), m.cookie);
	memcpy(m.proof, ss->proof, sizeof(m.proof));
	uint64_t t0 = net_mono_ns();
	atomic_store(&ss->activity_ns, t0);
	ss->ran = 1;
	if (net_workers_start(ss, err, sizeof(err))) {
		net_slog(s, BENCH_LOG_ERROR, "client %s: %s", ss->peer, err);
		send_error(ss, "internal", "server: %s", err);
		net_results r = { 0 };
		net_workers_stop(ss, &r);
		return;
	}
	net_slog(s, BENCH_LOG_INFO, "client %s: %s, %u flows, %u workers", ss->peer,
		 net_test_names[ss->p.test], ss->p.flows, ss->nworkers);
	int stopped = net_send_msg(ss->ctl, &m, idle_ms) == NET_OK && sess_wait_stop(ss, t0);
	net_results r = { 0 };
	net_workers_stop(ss, &r);
	r.wall_s = (net_mono_ns() - t0) / 1e9;
	if (!stopped)
		return;
	m = (net_msg){ .type = NET_M_RESULTS, .r = r };
	net_send_msg(ss->ctl, &m, idle_ms);
	net_slog(s, BENCH_LOG_INFO, "client %s: done in %.1f s: %.3f GB received, %.3f GB sent, %llu transactions",
		 ss->peer, r.wall_s, r.bytes_rx / 1e9, r.bytes_tx / 1e9, (unsigned long long)r.transactions);
}

static void *sess_main(void *arg)
{
	net_sess *ss = arg;
	net_server *s = ss->srv;
	sess_run(ss);
	if (ss->lfd >= 0)
		close(ss->lfd);
	if (ss->ufd >= 0)
		close(ss->ufd);
	if (ss->efd >= 0)
		close(ss->efd);
	pthread_mutex_lock(&s->mu);
	pend_unlink(s, ss);	/* before the close: the accept loop may shut it down till then */
	if (ss->admitted) {
		s->active--;
		s->used_threads -= ss->need_threads;
		s->used_mem -= ss->need_mem;
		s->used_fds -= ss->need_fds;
	}
	s->threads--;
	s->tests_done += ss->ran;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	close(ss->ctl);
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
	if (!s->cfg.max_threads)
		s->cfg.max_threads = NET_DEF_MAX_THREADS;
	if (!s->cfg.max_memory)
		s->cfg.max_memory = NET_DEF_MAX_MEMORY;
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
	net_send_msg(fd, &m, 100);	/* a fresh socket's buffer takes it at once */
	close(fd);
	net_slog(s, BENCH_LOG_INFO, "client %s: turned away (busy)", peer);
}

/* Under s->mu, the pending places all taken: the oldest gives its up (its
   session sees the connection end and goes). The count to tell once a
   second (outside the lock), or 0. */
static unsigned evict_oldest(net_server *s)
{
	net_sess *old = s->pend_old;
	uint64_t now = net_mono_ns();
	unsigned tell = 0;
	atomic_store(&old->evicted, 1);
	shutdown(old->ctl, SHUT_RDWR);
	pend_unlink(s, old);
	s->evicted++;
	if (now - s->evict_log_ns >= 1000000000u) {
		tell = s->evicted;
		s->evict_log_ns = now;
		s->evicted = 0;
	}
	return tell;
}

static net_sess *sess_new(net_server *s, int fd, const struct sockaddr_storage *pa, socklen_t plen)
{
	net_sess *ss = calloc(1, sizeof(*ss));
	if (!ss)
		return NULL;
	ss->srv = s;
	ss->ctl = fd;
	ss->lfd = ss->ufd = ss->efd = -1;
	ss->peer_sa = *pa;
	ss->peer_len = plen;
	ss->t_accept = net_mono_ns();
	net_addr_text((const struct sockaddr *)pa, ss->peer, sizeof(ss->peer));
	return ss;
}

/* 0, or -1 when accept failed for want of descriptors or memory. */
static int accept_one(net_server *s)
{
	struct sockaddr_storage pa;
	socklen_t plen = sizeof(pa);
	int fd = accept4(s->lfd, (struct sockaddr *)&pa, &plen, SOCK_CLOEXEC);
	if (fd < 0)
		return errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM ? -1 : 0;
	net_sess *ss = sess_new(s, fd, &pa, plen);
	pthread_mutex_lock(&s->mu);
	/* busy at once, when it is: an older client learns it from the greeting */
	int busy = s->active >= s->cfg.max_clients ||
		   s->threads >= NET_MAX_PENDING + s->cfg.max_clients + 16;
	unsigned evicted = 0;
	if (ss && !busy) {
		if (s->pending >= NET_MAX_PENDING)
			evicted = evict_oldest(s);
		pend_add(s, ss);
		s->threads++;
		ss->id = ++s->next_id;
	}
	pthread_mutex_unlock(&s->mu);
	if (evicted)
		net_slog(s, BENCH_LOG_WARN, "dropped %u unauthenticated connections (more than %d waiting for "
			 "their handshake; the oldest goes)", evicted, NET_MAX_PENDING);
	if (!ss || busy) {
		char peer[80];
		net_addr_text((struct sockaddr *)&pa, peer, sizeof(peer));
		free(ss);
		turn_away(s, fd, peer);
		return 0;
	}
	pthread_t th;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, sess_main, ss) != 0) {
		net_slog(s, BENCH_LOG_ERROR, "client %s: cannot start a session thread", ss->peer);
		pthread_mutex_lock(&s->mu);
		pend_unlink(s, ss);
		s->threads--;
		pthread_mutex_unlock(&s->mu);
		close(fd);
		free(ss);
	}
	pthread_attr_destroy(&at);
	return 0;
}

int net_server_run(net_server *s)
{
	int paused = 0;
	for (;;) {
		struct pollfd p[2] = { { .fd = paused ? -1 : s->lfd, .events = POLLIN },
				       { .fd = s->cfg.stop_fd, .events = POLLIN } };
		int n = poll(p, 2, paused ? NET_ACCEPT_PAUSE_MS : 200);
		if (n < 0 && errno != EINTR) {
			net_slog(s, BENCH_LOG_ERROR, "poll: %s", strerror(errno));
			break;
		}
		if (n > 0 && (p[1].revents & POLLIN))
			break;
		int was = paused;
		paused = 0;
		/* out of descriptors: the listener stays readable, so poll it
		   again only after a pause instead of spinning on it */
		if (n > 0 && (p[0].revents & POLLIN) && accept_one(s)) {
			if (!was)
				net_slog(s, BENCH_LOG_WARN, "cannot accept a connection: %s (pausing %d ms; "
					 "see ulimit -n)", strerror(errno), NET_ACCEPT_PAUSE_MS);
			paused = 1;
		}
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
		net_slog(s, BENCH_LOG_ERROR, "cannot stop the sessions: %s", strerror(errno));
	pthread_mutex_lock(&s->mu);
	while (s->threads)
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
