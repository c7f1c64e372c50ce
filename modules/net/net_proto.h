/* net: the control protocol between the module (client) and `benchcore
 * serve` (server), kept free of sockets, threads and the host API so the
 * parser can be fuzzed on its own (tests/fuzz/fuzz_netctl.c).
 *
 * A control message is a 4-byte big-endian length followed by that many
 * bytes of JSON (one object with "type" and "v"). The length is checked
 * against NET_MAX_MSG before a byte of the body is read, so a huge or
 * negative length costs the server nothing. One test per control
 * connection:
 *
 *   server -> client  hello   {v, auth: bool, challenge: 64 hex}   or busy
 *   client -> server  test    {v, auth: HMAC-SHA256(secret, challenge) hex,
 *                              challenge: 64 hex (the client's), test params}
 *   server -> client  ready   {v, cookie: 32 hex, data_port, udp_port, mark: bool,
 *                              auth: the server's proof of the client's challenge}   or error
 *   ... data connections present the cookie, the test runs ...
 *   client -> server  mark    {v}   (when ready said mark: true) the
 *                     measured window opened: the server's own figures
 *                     (udp loss and order, reverse retransmits) start here
 *   client -> server  stop    {v}
 *   server -> client  results {v, bytes, packets, lost, jitter, cpu ...}
 *
 * Unknown keys are ignored (later minor versions may add some); a known key
 * with the wrong type or out of range refuses the whole message. */
#ifndef NET_PROTO_H
#define NET_PROTO_H
#include <stddef.h>
#include <stdint.h>

#define NET_PROTO_VERSION	1
#define NET_MAX_MSG		65536u	/* hard limit of a control message body */
#define NET_CHALLENGE_LEN	32	/* bytes; hex on the wire */
#define NET_COOKIE_LEN		16
#define NET_PROOF_LEN		32	/* HMAC-SHA256 */
#define NET_DATA_HDR		(NET_COOKIE_LEN + 4)	/* TCP data connection: cookie, flow id */
#define NET_UDP_HDR		32	/* cookie[0..8), flow, pad, seq, send time */
#define NET_MAX_FLOWS		100000
#define NET_MAX_THREADS		1024

enum net_test { NET_TCP_STREAM, NET_TCP_RR, NET_TCP_CRR, NET_UDP_STREAM, NET_UDP_RR, NET_NTESTS };
extern const char *const net_test_names[NET_NTESTS + 1];	/* by enum net_test, NULL-terminated */

enum net_mtype { NET_M_NONE, NET_M_HELLO, NET_M_BUSY, NET_M_TEST, NET_M_READY, NET_M_STOP,
		 NET_M_RESULTS, NET_M_ERROR, NET_M_MARK, NET_M_N };

typedef struct net_params {
	int test;			/* enum net_test */
	uint32_t flows;			/* data flows in total */
	uint32_t threads;		/* the client's threads: the server runs as many workers */
	uint64_t msg_size;
	int reverse, bidir, nodelay, zerocopy;
	uint64_t window;		/* SO_SNDBUF/SO_RCVBUF, 0 = kernel default */
	uint64_t pacing_rate;		/* SO_MAX_PACING_RATE bytes/s, 0 = none */
	char congestion[16];		/* TCP_CONGESTION, "" = default */
} net_params;

typedef struct net_results {
	uint64_t bytes_rx, bytes_tx;	/* data bytes the server received / sent */
	uint64_t transactions;		/* rr/crr requests answered */
	uint64_t packets, lost, out_of_order;	/* udp_stream */
	double jitter_us;		/* RFC 3550 interarrival jitter, mean over flows */
	double cpu_s, wall_s;		/* the server's CPU time for this test, and its length */
	uint64_t retransmits;		/* the server's sender-side retransmits (reverse, bidir) */
	uint64_t conns;			/* data connections accepted with the right cookie */
} net_results;

typedef struct net_msg {
	int type;			/* enum net_mtype */
	int auth_required;		/* hello */
	char challenge[2 * NET_CHALLENGE_LEN + 1];	/* hello; test: the client's ("" = none) */
	char proof[2 * NET_PROOF_LEN + 1];	/* test, ready: "" = none given */
	char cookie[2 * NET_COOKIE_LEN + 1];	/* ready */
	int data_port, udp_port;	/* ready */
	int mark;			/* ready: the server takes "mark" (absent: an older one) */
	unsigned max_clients;		/* busy */
	net_params p;			/* test */
	net_results r;			/* results */
	char code[32];			/* error */
	char message[256];		/* error, busy: printable ASCII only */
} net_msg;

/* The body length in a frame header; -1 when 0 or over NET_MAX_MSG. */
int net_frame_len(const unsigned char hdr[4], uint32_t *len);
void net_frame_hdr(uint32_t len, unsigned char hdr[4]);
/* Parses one body. 0, or -1 with a one-line reason in err. */
int net_msg_parse(const char *buf, size_t len, net_msg *m, char *err, size_t errlen);
/* The JSON body of m (malloc'd, *len bytes), or NULL when out of memory. */
char *net_msg_encode(const net_msg *m, size_t *len);
const char *net_mtype_name(int type);

void net_hex_encode(const unsigned char *in, size_t n, char *out);	/* out: 2n + 1 */
int net_hex_decode(const char *hex, unsigned char *out, size_t n);	/* exactly 2n digits */
#endif
