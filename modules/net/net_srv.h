/* net: the server's internals, shared by the control path and accept loop
 * (net_server.c) and the data path's worker threads (net_sdata.c).
 *
 * What a peer can make the server hold is bounded before it authenticates
 * and after: a control connection that has not passed the handshake holds
 * no --max-clients slot, only one of NET_MAX_PENDING places (the oldest is
 * dropped for a newer one) and for NET_HANDSHAKE_MS at most; a data
 * connection that has not presented the test's cookie holds one of
 * NET_DATA_PENDING places per test for NET_DATA_HDR_MS at most; a test that
 * passed the handshake is admitted only when its worker threads, buffers
 * and descriptors fit what the running tests left of the server's
 * --max-threads, --max-memory and descriptor limit. */
#ifndef NET_SRV_H
#define NET_SRV_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include "net.h"

#define NET_MAX_WORKERS		64
#define NET_RX_BUF		(128u << 10)	/* as iperf3's reads */
#define NET_TX_MAX		(1u << 20)	/* a client's msg_size cannot make the server allocate more */
#define NET_MAX_PENDING		64	/* control connections not yet authenticated */
#define NET_HANDSHAKE_MS	3000	/* accept to test request, at most (and --idle-timeout) */
#define NET_DATA_PENDING	64	/* data connections of one test without their header */
#define NET_DATA_HDR_MS		1000	/* accept to a data connection's complete header */
#define NET_FD_RESERVE		(NET_MAX_PENDING + 64)	/* descriptors no test may take */

struct net_sess;

struct net_server {
	net_server_cfg cfg;
	int lfd, port, quit_fd;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned threads;		/* session threads alive (authenticated or not) */
	unsigned active;		/* admitted tests running: what --max-clients counts */
	unsigned tests_done;		/* sessions that ran a test (for once) */
	uint64_t next_id;
	struct net_sess *pend_old, *pend_new;	/* not yet admitted, oldest first */
	unsigned pending;
	unsigned used_threads, used_fds;	/* of the admitted tests */
	uint64_t used_mem;
	uint64_t evict_log_ns;		/* last "dropped an unauthenticated" line */
	unsigned evicted;		/* since then */
};

typedef struct net_sconn {
	int fd;
	int hdr_done, writing, out;
	uint32_t retrans0;		/* total_retrans when the window opened */
	uint64_t t_accept;		/* header deadline: NET_DATA_HDR_MS from here */
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

typedef struct net_sworker {
	struct net_sess *ss;
	pthread_t th;
	int ep, started;
	char *rx, *tx;
	size_t rxlen, txlen;
	net_sconn *conns;		/* presented the cookie */
	net_sconn *pending, *pending_old;	/* still owe their header, newest first; the oldest */
	uint64_t accept_resume;		/* accepting paused (out of descriptors) until then; 0: not */
	uint64_t next_sweep;
	net_uflow *uf;
	uint64_t bytes_rx, bytes_tx, trans, nconns, retrans;
	uint64_t refused, expired, udp_foreign;
	double cpu_s;
	int marked;			/* saw the session's mark */
} net_sworker;

typedef struct net_sess {
	struct net_server *srv;
	uint64_t id;
	int ctl, lfd, ufd, efd;
	char peer[80];
	struct sockaddr_storage peer_sa;	/* UDP is answered and counted from here only */
	socklen_t peer_len;
	uint64_t t_accept;
	struct net_sess *pold, *pnew;	/* the server's pending list */
	int in_pending, admitted;
	_Atomic int evicted;		/* dropped from the pending list for a newer one */
	unsigned need_threads, need_fds;
	uint64_t need_mem;
	net_params p;
	unsigned char cookie[NET_COOKIE_LEN];
	unsigned nworkers;
	net_sworker *w;
	_Atomic unsigned data_open, data_pending;
	_Atomic uint64_t activity_ns;
	_Atomic int marked;		/* the client's measured window opened */
	char proof[2 * NET_PROOF_LEN + 1];	/* ours, of the client's challenge ("" none) */
	int ran;
} net_sess;

uint64_t net_mono_ns(void);
void net_slog(const struct net_server *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The worker threads the test's parameters call for (before admission). */
unsigned net_workers_wanted(const net_params *p);
/* Places for data connections without their header: NET_DATA_PENDING and
   one per TCP flow (a client opens its flows while the workers are busy
   with the first ones' data, and tcp_crr connects anew per transaction:
   all flows may be between accept and header at once). */
unsigned net_data_places(const net_params *p);
/* Starts ss->nworkers data-path workers; -1 with err (workers_stop still due). */
int net_workers_start(net_sess *ss, char *err, size_t errlen);
/* Stops and joins them; their figures summed into r. */
void net_workers_stop(net_sess *ss, net_results *r);
#endif
