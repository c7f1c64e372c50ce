/* A redis worker thread's state, shared by redis_run.c (the loop, sending)
   and redis_reply.c (reading and judging replies). Written by its worker
   thread only; finish reads nothing of it. */
#ifndef RD_RUN_H
#define RD_RUN_H
#include <stdint.h>
#include <hiredis/read.h>
#include "redis.h"

#define RD_RBUF (64 * 1024)

typedef struct rd_req {
	uint64_t sent;			/* clock before the write that finished it; 0 = not yet */
	uint64_t intended;		/* rate mode: intended start */
	uint32_t end;			/* end offset in the connection's write buffer */
	uint16_t op;
	uint8_t counted;		/* sent in the measured window */
	uint8_t tmpl;
	uint8_t skip;			/* cluster: the reply of an ASKING: not a request */
	uint32_t clen;
	char *copy;			/* cluster: the request's bytes, to follow MOVED/ASK */
} rd_req;

typedef struct rd_thread rd_thread;

typedef struct rd_conn {
	rd_sock k;
	redisReader *rd;
	rd_thread *th;
	unsigned idx, client, node;
	rd_req *q;			/* ring of requests in flight, oldest first */
	unsigned qcap, qhead, qn, qunsent;
	char *wbuf;
	size_t wlen, woff, wcap;
	int out;			/* EPOLLOUT armed */
	int dirty;			/* rate mode: has unwritten requests */
	uint64_t batch_t0;		/* closed loop: the batch's first write, until its first reply byte */
	uint64_t rx, rx_seen;		/* bytes read; as rd_stalled last saw them */
	uint64_t quiet_since;		/* rd_stalled: when rx last changed */
	uint8_t batch_counted, batch_op;
	char err[256];			/* text of the last error reply */
	char bad[160];			/* why a reply was refused (too long, too many elements) */
} rd_conn;

struct rd_thread {
	rd_state *s;
	const bench_host_api_v1 *api;
	bench_thread *t;
	unsigned idx, nconn, rr, ncl, nnodes;
	int ep;
	rd_conn *c;			/* client i's connection to node j: c[i * nnodes + j] */
	unsigned *cl_inflight;		/* per client */
	uint8_t *slots;			/* cluster: this thread's slot map (MOVED updates it) */
	char *scratch;
	uint64_t redirects;
	uint64_t rng, seq, mix, inflight, nils;
	int budget_done, rate;
	char *rbuf;
	double gap_sum;
	uint64_t gap_n, last_arrival;
	uint64_t unfinished, unfinished_max, unfinished_rec;
	uint64_t next_check;		/* when rd_stalled looks again */
	int failed;
};

/* ---- redis_run.c */
/* Room for more bytes in c's write buffer; -1 (said) when out of memory. */
int rd_reserve(rd_conn *c, size_t more);
/* q appended to c's ring of requests in flight; NULL when out of memory. */
rd_req *rd_push(rd_conn *c, const rd_req *q);
/* Writes what c has buffered (EPOLLOUT armed while it cannot); -1 fails. */
int rd_flush(rd_thread *th, rd_conn *c);
/* c failed at what (errno err, 0: the server closed it): the case fails. */
int rd_fail_io(rd_thread *th, rd_conn *c, const char *what, int err);
/* Closed loop: client's next batch of pipeline requests, written. */
int rd_send_batch(rd_thread *th, unsigned client);

/* ---- redis_reply.c */
/* The redisReader functions that build no objects (rd_conn_init). */
extern redisReplyObjectFunctions rd_reply_fns;
/* Reads what c has, parses every complete reply and records it. */
int rd_on_read(rd_thread *th, rd_conn *c);
#endif
