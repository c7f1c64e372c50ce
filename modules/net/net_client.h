/* net: the client half's state, shared by net.c (init, control, finish) and
 * net_run.c (the worker threads' epoll loops). The state is written by init
 * on the main thread; each worker thread writes only its own net_tstat and
 * its flows' net_fstat entries; finish reads them after the threads joined. */
#ifndef NET_CLIENT_H
#define NET_CLIENT_H
#include <pthread.h>
#include <sys/socket.h>
#include "benchcore/module.h"
#include "net.h"

#define NET_DEFAULT_PORT	5301

typedef struct net_fstat {		/* one flow, measured window only */
	uint64_t bytes_tx, bytes_rx, trans;
} net_fstat;

typedef struct net_tstat {		/* one thread, sender-side TCP_INFO and the like */
	uint64_t retrans, udp_sent;
	double rtt_us_sum, cwnd_sum;
	unsigned ninfo;
	uint64_t zc_done, zc_copied;
} __attribute__((aligned(64))) net_tstat;

typedef struct net_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	net_params p;
	const char *secret;
	double bitrate_bps;		/* udp_stream, all flows together */
	int timeout_ms;
	uint64_t reply_ns;		/* reply_timeout: a flow without progress longer fails the case */
	int stalled;			/* atomic: a worker found the server not answering */
	unsigned threads, flows;	/* flows per thread */
	char where[300];		/* host:port, for messages */
	int ctl;
	unsigned char cookie[NET_COOKIE_LEN];
	struct sockaddr_storage data_sa, udp_sa;
	socklen_t salen;
	net_fstat *fs;			/* threads * flows */
	net_tstat *ts;			/* threads */
	/* the in-process loopback server */
	net_server *srv;
	pthread_t srv_th;
	int srv_stop, srv_running;
	pthread_mutex_t ctl_mu;		/* the control socket, used by worker threads */
	char ctl_reason[300];
	int ctl_checked;
	int can_mark, marked;		/* the server takes "mark"; it was sent */
} net_state;

/* Why the server dropped the test, if it said so on the control connection
   within a short wait (any thread); "" when it did not. */
const char *net_ctl_reason(net_state *s);

/* Tells the server the measured window opened (once, from the first worker
   thread to see it), when the server takes it. */
void net_ctl_mark(net_state *s);

int net_thread_init(void *state, bench_thread *t, void **tstate);
int net_thread_run(void *tstate);
void net_thread_done(void *tstate);
#endif
