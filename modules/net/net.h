/* net: what the module's files share. The client half (net.c, net_run.c)
 * runs inside a benchcore case; the server half (net_server.c) runs under
 * `benchcore serve` or, with no `server` option, on a thread of the case
 * itself. Both speak net_proto.h over sockets opened by net_sock.c. */
#ifndef NET_H
#define NET_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "net_proto.h"

/* Results of the blocking helpers; > 0 is success where a count is due. */
enum { NET_OK = 0, NET_E_TIMEOUT = -1, NET_E_EOF = -2, NET_E_IO = -3, NET_E_STOP = -4,
       NET_E_TOOLONG = -5, NET_E_PARSE = -6 };
const char *net_strerr(int code);

/* Waits for ev (POLLIN/POLLOUT) on fd at most timeout_ms (< 0: forever);
   stop_fd (or -1) readable ends the wait with NET_E_STOP. */
int net_wait(int fd, short ev, int timeout_ms, int stop_fd);
int net_read_full(int fd, void *buf, size_t n, int timeout_ms, int stop_fd);
int net_write_full(int fd, const void *buf, size_t n, int timeout_ms);
/* Sends m framed. */
int net_send_msg(int fd, const net_msg *m, int timeout_ms);
/* Reads one framed message; on NET_E_PARSE/NET_E_TOOLONG err says why. */
int net_recv_msg(int fd, net_msg *m, int timeout_ms, int stop_fd, char *err, size_t errlen);

/* "host:port", "[v6]:port" or "host" (port defport). -1 on a bad form. */
int net_split_hostport(const char *s, char *host, size_t hostlen, int *port, int defport);
/* A connected TCP socket (blocking) or -1 with the reason in err. */
int net_connect(const char *host, int port, int timeout_ms, char *err, size_t errlen);
int net_connect_addr(const struct sockaddr *sa, socklen_t len, int timeout_ms, char *err, size_t errlen);
/* A listening (or bound UDP, type SOCK_DGRAM) socket; port 0 = ephemeral. */
int net_listen(const char *bind_addr, int port, int type, char *err, size_t errlen);
int net_listen_addr(const struct sockaddr *sa, socklen_t len, int type, char *err, size_t errlen);
int net_local_port(int fd);
void net_addr_text(const struct sockaddr *sa, char *buf, size_t n);
int net_set_nonblock(int fd);
/* A data buffer starting on a page boundary (free() it). The kernel copies
   in and out of these on every send and receive: on this machine's x86 a
   receive buffer 16 bytes past a page boundary, as malloc returns a large
   block, made the copy to user space about four times slower. */
void *net_page_alloc(size_t size);
/* Applies window, nodelay, congestion, pacing and zerocopy of p to fd (TCP,
   before connect or right after accept). -1 with err for a setting the
   kernel refused. */
int net_sockopts(int fd, const net_params *p, int tcp, char *err, size_t errlen);

/* HMAC-SHA256(secret, label || challenge) as hex, label "benchcore-net/1"
   for the client's proof of the server's challenge and "benchcore-net/1
   server" for the server's proof of the client's (so one can never stand
   for the other): each side proves it knows the secret, which never
   crosses the wire. */
void net_auth_proof(const char *secret, int server, const char *challenge_hex, char out[2 * NET_PROOF_LEN + 1]);
int net_proof_equal(const char *a, const char *b);	/* constant time */
int net_random(void *buf, size_t n);

/* TCP_INFO figures (net_tcpinfo.c). */
typedef struct net_tcpi {
	uint64_t bytes_acked, bytes_received;
	uint32_t total_retrans, rtt_us, snd_cwnd;
} net_tcpi;
int net_tcp_info(int fd, net_tcpi *out);

/* ----------------------------------------------------------- server */
typedef struct net_server net_server;
typedef struct net_server_cfg {
	const char *bind;
	int port;
	int once;
	unsigned max_clients;		/* authenticated tests at once */
	double idle_timeout_s, max_duration_s;
	/* What all running tests together may take (0: the defaults below): a
	   test that would pass one is refused with the limit named. */
	unsigned max_threads;		/* worker threads */
	uint64_t max_memory;		/* bytes of buffers the server allocates */
	const char *secret;		/* NULL = no authentication */
	int stop_fd;
	void (*log)(void *u, int level, const char *msg);
	void *log_u;
} net_server_cfg;

#define NET_DEF_MAX_THREADS	64
#define NET_DEF_MAX_MEMORY	(512ull << 20)

/* Listens (so the port is known when it returns); NULL with err. */
net_server *net_server_open(const net_server_cfg *cfg, char *err, size_t errlen);
int net_server_port(const net_server *s);
/* Serves until stop_fd or, with once, after one test. 0 clean, -1 error. */
int net_server_run(net_server *s);
void net_server_close(net_server *s);
#endif
