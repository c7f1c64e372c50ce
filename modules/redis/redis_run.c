/*
 * Worker threads: each owns its share of the connections and drives them
 * from one epoll loop, with the host's stop descriptor in the set (no
 * polling for the end of the window).
 *
 * Measurement choices (compare redis-benchmark's, see README.md):
 *  - A request's latency runs from the clock read just before the write()
 *    that handed its last byte to the socket to the moment its own reply was
 *    parsed (one clock read per reply). redis-benchmark stamps a pipelined
 *    batch once and stops the clock at the first readable event; that figure
 *    is kept beside ours as the distribution "first_byte" (one value per
 *    batch) when pipeline > 1. Nothing is clamped.
 *  - Closed loop, as redis-benchmark: each connection writes `pipeline`
 *    requests in one write(), and writes the next batch once all their
 *    replies are in. Replies are parsed by hiredis's redisReader with reply
 *    functions that build no objects (only error text is kept), so parsing
 *    allocates nothing.
 *  - Open loop (rate): every request has an intended start from
 *    next_arrival(); a due request goes out on the next connection with fewer
 *    than `pipeline` in flight, and its latency counts from its intended start
 *    (coordinated omission corrected); the time from the write is kept as the
 *    distribution "uncorrected".
 *  - Every request sent in the measured window takes one event from the
 *    --events budget (claim()); a request sent during warmup is not counted.
 *  - An error reply fails the case with the server's message; a closed
 *    connection fails it at once (read() returns 0 as the server goes away).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
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
	uint8_t batch_counted, batch_op;
	char err[256];			/* text of the last error reply */
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
};

static char rd_tag_ok, rd_tag_err, rd_tag_nil;

/* redisReader reply functions that build nothing: the top-level reply is
   one of three tags, and only an error's text is kept. */
static void *rd_fn_string(const redisReadTask *task, char *str, size_t len)
{
	if (task->parent || task->type != REDIS_REPLY_ERROR)
		return &rd_tag_ok;
	rd_conn *c = task->privdata;
	size_t n = len < sizeof(c->err) - 1 ? len : sizeof(c->err) - 1;
	memcpy(c->err, str, n);
	c->err[n] = '\0';
	return &rd_tag_err;
}
static void *rd_fn_array(const redisReadTask *task, int n)
{
	(void)task;
	(void)n;
	return &rd_tag_ok;
}
static void *rd_fn_integer(const redisReadTask *task, long long v)
{
	(void)task;
	(void)v;
	return &rd_tag_ok;
}
static void *rd_fn_nil(const redisReadTask *task)
{
	return task->parent ? &rd_tag_ok : &rd_tag_nil;
}
static void rd_fn_free(void *p)
{
	(void)p;
}
static redisReplyObjectFunctions rd_fns = {
	.createString = rd_fn_string,
	.createArray = rd_fn_array,
	.createInteger = rd_fn_integer,
	.createNil = rd_fn_nil,
	.freeObject = rd_fn_free,
};

int rd_thread_init(void *state, bench_thread *t, void **tstate)
{
	rd_state *s = state;
	const bench_host_api_v1 *api = s->api;
	rd_thread *th = calloc(1, sizeof(*th));
	th->s = s;
	th->api = api;
	th->t = t;
	th->idx = api->thread_index(t);
	th->ncl = s->clients / s->threads + (th->idx < s->clients % s->threads);
	th->nnodes = s->cluster ? s->nnodes : 1;
	th->nconn = th->ncl * th->nnodes;
	th->cl_inflight = calloc(th->ncl, sizeof(unsigned));
	if (s->cluster) {
		th->slots = malloc(sizeof(s->slot_node));
		memcpy(th->slots, s->slot_node, sizeof(s->slot_node));
	}
	th->rng = 0x9E3779B97F4A7C15ull * (th->idx + 1) ^ api->now_ns();
	th->seq = s->keyspace ? (uint64_t)th->idx * (s->keyspace / s->threads) : 0;
	th->rbuf = malloc(RD_RBUF);
	th->ep = epoll_create1(EPOLL_CLOEXEC);
	th->c = calloc(th->nconn, sizeof(rd_conn));
	*tstate = th;
	for (unsigned i = 0; i < th->nconn; i++)
		th->c[i].k.fd = -1;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	if (th->ep < 0 || epoll_ctl(th->ep, EPOLL_CTL_ADD, api->stop_fd(s->ctx), &ev) != 0) {
		api->error(s->ctx, t, "redis: epoll failed", strerror(errno), NULL);
		goto fail;
	}
	size_t maxreq = 0;
	for (unsigned i = 0; i < s->ntmpl; i++)
		if (s->tmpl[i].len > maxreq)
			maxreq = s->tmpl[i].len;
	th->scratch = malloc(maxreq);
	for (unsigned i = 0; i < th->nconn; i++) {
		rd_conn *c = &th->c[i];
		c->th = th;
		c->idx = i;
		c->client = i / th->nnodes;
		c->node = i % th->nnodes;
		if (rd_connect(s, t, s->cluster ? &s->nodes[c->node] : &s->srv, &c->k) != 0)
			goto fail;
		c->rd = redisReaderCreateWithFunctions(&rd_fns);
		c->rd->maxbuf = 0;	/* keep the buffer: no free/alloc churn on big replies */
		redisReaderSetPrivdata(c->rd, c);
		c->qcap = s->cluster ? 2 * s->pipeline : s->pipeline;	/* room for ASKINGs */
		c->q = calloc(c->qcap, sizeof(rd_req));
		c->wcap = maxreq * s->pipeline + 64;
		c->wbuf = malloc(c->wcap);
		ev.data.ptr = c;
		if (epoll_ctl(th->ep, EPOLL_CTL_ADD, c->k.fd, &ev) != 0) {
			api->error(s->ctx, t, "redis: epoll failed", strerror(errno), NULL);
			goto fail;
		}
	}
	return BENCH_OK;
fail:
	rd_thread_done(th);	/* the host calls thread_done only after a successful thread_init */
	*tstate = NULL;
	return BENCH_ERR;
}

/* Writes 12 decimal digits of v at p. */
static void rd_digits(char *p, uint64_t v)
{
	for (int i = RD_DIGITS - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
}

static void rd_reserve(rd_conn *c, size_t more)
{
	if (c->wlen + more > c->wcap) {
		c->wcap = (c->wlen + more) * 2;
		c->wbuf = realloc(c->wbuf, c->wcap);
	}
}

/* Appends a request (or an ASKING) to c's ring; its bytes are already in wbuf. */
static rd_req *rd_push(rd_conn *c, const rd_req *q)
{
	rd_req *n = &c->q[(c->qhead + c->qn) % c->qcap];
	*n = *q;
	n->end = (uint32_t)c->wlen;
	c->qn++;
	c->qunsent++;
	return n;
}

/* Builds one request of `client` and appends it to the connection it goes
   to (in a cluster: the one to the master of its key's slot). */
static rd_conn *rd_add(rd_thread *th, unsigned client, uint64_t intended, int counted)
{
	rd_state *s = th->s;
	unsigned ti = 0;
	if (s->ntmpl > 1)
		ti = th->mix++ % (s->ratio_set + s->ratio_get) < s->ratio_set ? 0 : 1;
	const rd_tmpl *tm = &s->tmpl[ti];
	rd_conn *c = &th->c[client * th->nnodes];
	char *p = s->cluster ? th->scratch : c->wbuf + c->wlen;
	memcpy(p, tm->buf, tm->len);
	for (unsigned i = 0; i < tm->npatch; i++) {
		if (tm->patch[i].data) {
			char *d = p + tm->patch[i].off;
			for (uint64_t j = 0; j < s->data_size; j += 8) {
				uint64_t r = rd_rand(&th->rng);
				for (uint64_t b = j; b < j + 8 && b < s->data_size; b++, r >>= 5)
					d[b] = (char)('A' + (r & 31) % 26);
			}
		} else {
			rd_digits(p + tm->patch[i].off, rd_next_key(s, &th->rng, &th->seq));
		}
	}
	rd_req q = { .intended = intended, .op = (uint16_t)tm->op, .counted = (uint8_t)counted,
		     .tmpl = (uint8_t)ti };
	if (s->cluster) {
		if (tm->key_arg >= 0)
			c += th->slots[rd_key_slot(p + tm->key_off, tm->key_len)];
		rd_reserve(c, tm->len);
		memcpy(c->wbuf + c->wlen, p, tm->len);
		q.copy = malloc(tm->len);
		memcpy(q.copy, p, tm->len);
		q.clen = tm->len;
	}
	c->wlen += tm->len;
	rd_push(c, &q);
	th->inflight++;
	th->cl_inflight[client]++;
	c->dirty = 1;
	return c;
}

static int rd_fail_io(rd_thread *th, rd_conn *c, const char *what, int err)
{
	rd_state *s = th->s;
	char where[300], d[512];
	rd_describe(&s->srv, where, sizeof(where));
	if (err == 0 || err == ECONNRESET || err == EPIPE)
		snprintf(d, sizeof(d), "%s closed connection %u of thread %u with %u request(s) in flight (%s)",
			 where, c->idx, th->idx, c->qn, err ? strerror(err) : "end of file");
	else
		snprintf(d, sizeof(d), "%s on connection %u to %s: %s", what, c->idx, where, strerror(err));
	int gone = err == 0 || err == ECONNRESET || err == EPIPE;
	th->api->error(s->ctx, th->t, gone ? "redis: the server closed the connection" :
		       "redis: connection failed", d,
		       s->private_server ? "the private redis-server stopped: see its log" :
		       "check that the server is up (its log, maxclients, timeout)");
	return -1;
}

/* Hands c's unwritten bytes to the socket; the requests they finish are
   stamped with the clock read before the write. */
static int rd_flush(rd_thread *th, rd_conn *c)
{
	while (c->woff < c->wlen) {
		uint64_t t0 = th->api->now_ns();
		ssize_t w = rd_write(&c->k, c->wbuf + c->woff, c->wlen - c->woff);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return rd_fail_io(th, c, "write", errno);
			if (!c->out) {
				struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
				epoll_ctl(th->ep, EPOLL_CTL_MOD, c->k.fd, &ev);
				c->out = 1;
			}
			return 0;
		}
		if (!c->batch_t0)
			c->batch_t0 = t0;
		c->woff += (size_t)w;
		while (c->qunsent) {
			rd_req *q = &c->q[(c->qhead + c->qn - c->qunsent) % c->qcap];
			if (q->end > c->woff)
				break;
			if (!q->sent)	/* a redirected request keeps its first send */
				q->sent = t0;
			c->qunsent--;
		}
	}
	c->wlen = c->woff = 0;
	if (c->out) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
		epoll_ctl(th->ep, EPOLL_CTL_MOD, c->k.fd, &ev);
		c->out = 0;
	}
	return 0;
}

/* Writes every connection of the thread that has new requests. */
static int rd_flush_dirty(rd_thread *th, unsigned from, unsigned n)
{
	for (unsigned i = from; i < from + n; i++)
		if (th->c[i].dirty) {
			th->c[i].dirty = 0;
			if (rd_flush(th, &th->c[i]) != 0)
				return -1;
		}
	return 0;
}

/* Closed loop: the next batch of `pipeline` requests of a client. */
static int rd_send_batch(rd_thread *th, unsigned client)
{
	const bench_host_api_v1 *api = th->api;
	if (th->budget_done || api->stopping(th->t))
		return 0;
	int counted = api->measuring(th->t);	/* before claim(): see io_run.c */
	uint64_t k = api->claim(th->t, th->s->pipeline);
	if (k == 0) {
		th->budget_done = 1;
		return 0;
	}
	for (uint64_t i = 0; i < k; i++) {
		rd_conn *c = rd_add(th, client, 0, counted);
		if (c->qn == 1) {	/* the batch's first request on this connection */
			c->batch_t0 = 0;
			c->batch_counted = (uint8_t)counted;
			c->batch_op = (uint8_t)c->q[c->qhead].op;
		}
	}
	return rd_flush_dirty(th, client * th->nnodes, th->nnodes);
}

/* Rate mode: sends what is due on connections with room. */
static int rd_dispatch(rd_thread *th, uint64_t now, uint64_t *next_due)
{
	const bench_host_api_v1 *api = th->api;
	rd_state *s = th->s;
	*next_due = 0;
	while (!th->budget_done) {
		uint64_t due = api->next_arrival(th->t, 0);
		if (due > now) {
			*next_due = due;
			break;
		}
		unsigned cl = th->ncl;
		for (unsigned i = 0; i < th->ncl && cl == th->ncl; i++) {
			unsigned x = (th->rr + i) % th->ncl;
			if (th->cl_inflight[x] < s->pipeline && !th->c[x * th->nnodes].out)
				cl = x;
		}
		if (cl == th->ncl)
			break;		/* every connection is full: late, sent as replies free room */
		th->rr = (cl + 1) % th->ncl;
		int counted = api->measuring(th->t);
		if (api->claim(th->t, 1) == 0) {
			th->budget_done = 1;
			break;
		}
		api->next_arrival(th->t, 1);
		if (counted) {
			if (th->last_arrival && due > th->last_arrival) {
				th->gap_sum += (double)(due - th->last_arrival);
				th->gap_n++;
			}
			th->last_arrival = due;
		}
		rd_add(th, cl, due, counted);
	}
	return rd_flush_dirty(th, 0, th->nconn);
}

static const char *rd_err_kind(const char *msg)
{
	static const char *const kinds[] = { "WRONGTYPE", "OOM", "NOAUTH", "NOPERM", "READONLY", "MOVED",
		"ASK", "LOADING", "BUSY", "CROSSSLOT", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "NOSCRIPT",
		"EXECABORT", "WRONGPASS", "ERR", NULL };
	for (int i = 0; kinds[i]; i++) {
		size_t n = strlen(kinds[i]);
		if (!strncmp(msg, kinds[i], n) && (msg[n] == ' ' || msg[n] == '\0'))
			return kinds[i];
	}
	return "error";
}

static int rd_error_reply(rd_thread *th, rd_conn *c, const rd_req *q)
{
	rd_state *s = th->s;
	const char *kind = rd_err_kind(c->err);
	th->api->record_error(th->t, q->op, kind);
	const char *hint = "the server refused the command: its message says why";
	if (!strcmp(kind, "OOM"))
		hint = "the server hit maxmemory: raise it, or use a smaller keyspace or data_size";
	else if (!strcmp(kind, "READONLY"))
		hint = "the server is a replica: point server= at the primary";
	else if (!strcmp(kind, "MOVED") || !strcmp(kind, "ASK"))
		hint = "the server is a cluster node: set cluster = true";
	else if (!strcmp(kind, "NOAUTH") || !strcmp(kind, "WRONGPASS"))
		hint = "set password (or password_env / password_file), and user for an ACL user";
	else if (!strcmp(kind, "NOPERM"))
		hint = "the ACL user may not run this command or touch benchcore:* keys";
	else if (!strcmp(kind, "WRONGTYPE"))
		hint = "a key under benchcore: holds another type: the previous run did not clean up";
	char msg[320], d[256];
	const char *cmd = s->tmpl[q->tmpl].buf;
	const char *name = s->ntmpl > 1 ? (q->tmpl ? "GET" : "SET") : s->test;
	(void)cmd;
	snprintf(msg, sizeof(msg), "redis: %s failed: %s", name, c->err);
	snprintf(d, sizeof(d), "the server answered an error (%s) on connection %u of thread %u; "
		 "an error reply is never counted as a success", kind, c->idx, th->idx);
	th->api->error(s->ctx, th->t, msg, d, hint);
	return -1;
}

/* Cluster: a MOVED or ASK reply to q. Sends it again to the node named
   (after an ASKING for ASK; MOVED also updates this thread's slot map) and
   returns 0, or -1 when the error is something else. The request keeps its
   first send time, so the redirection is part of its latency. */
static int rd_redirect(rd_thread *th, rd_conn *c, rd_req *q)
{
	rd_state *s = th->s;
	int ask = !strncmp(c->err, "ASK ", 4);
	if (!ask && strncmp(c->err, "MOVED ", 6))
		return -1;
	char host[256];
	unsigned slot;
	int port;
	if (sscanf(c->err + (ask ? 4 : 6), "%u %255[^:]:%d", &slot, host, &port) != 3 || slot > 16383)
		return -1;
	int node = rd_cluster_node_of(s, host, port);
	if (node < 0) {
		snprintf(c->err + strlen(c->err), sizeof(c->err) - strlen(c->err), " (a node not in CLUSTER SLOTS)");
		return -1;
	}
	if (!ask)
		th->slots[slot] = (uint8_t)node;
	rd_conn *to = &th->c[c->client * th->nnodes + (unsigned)node];
	if (to->qn + 2 > to->qcap)
		return -1;
	if (ask) {
		static const char asking[] = "*1\r\n$6\r\nASKING\r\n";
		rd_reserve(to, sizeof(asking) - 1);
		memcpy(to->wbuf + to->wlen, asking, sizeof(asking) - 1);
		to->wlen += sizeof(asking) - 1;
		rd_push(to, &(rd_req){ .skip = 1, .sent = 1 });
	}
	rd_reserve(to, q->clen);
	memcpy(to->wbuf + to->wlen, q->copy, q->clen);
	to->wlen += q->clen;
	rd_push(to, q);
	th->redirects++;
	return rd_flush(th, to) ? 1 : 0;
}

/* Reads what c has, parses every complete reply and records it. */
static int rd_on_read(rd_thread *th, rd_conn *c)
{
	const bench_host_api_v1 *api = th->api;
	rd_state *s = th->s;
	for (;;) {
		ssize_t n = rd_read(&c->k, th->rbuf, RD_RBUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			return rd_fail_io(th, c, "read", n == 0 ? 0 : errno);
		if (c->batch_t0) {		/* redis-benchmark's stamp: the first readable event */
			if (c->batch_counted && s->first_byte[c->batch_op] >= 0)
				api->record_dist(th->t, s->first_byte[c->batch_op], api->now_ns() - c->batch_t0);
			c->batch_t0 = 0;
		}
		redisReaderFeed(c->rd, th->rbuf, (size_t)n);
		if (!c->k.ssl && n < RD_RBUF)
			break;			/* level-triggered: the rest comes with the next event */
	}
	for (;;) {
		void *reply = NULL;
		if (redisReaderGetReply(c->rd, &reply) != REDIS_OK) {
			char d[256];
			snprintf(d, sizeof(d), "connection %u: %s", c->idx, c->rd->errstr);
			api->error(s->ctx, th->t, "redis: protocol error in a reply", d, NULL);
			return -1;
		}
		if (!reply)
			break;
		uint64_t now = api->now_ns();
		if (!c->qn) {
			api->error(s->ctx, th->t, "redis: a reply nobody asked for",
				   "the server sent more replies than requests", NULL);
			return -1;
		}
		rd_req q = c->q[c->qhead];
		c->qhead = (c->qhead + 1) % c->qcap;
		c->qn--;
		if (q.skip) {		/* the +OK of an ASKING */
			if (reply == &rd_tag_err)
				return rd_error_reply(th, c, &q);
			continue;
		}
		if (reply == &rd_tag_err && q.copy) {
			int rc = rd_redirect(th, c, &q);
			if (rc == 0)
				continue;	/* MOVED/ASK followed: still in flight */
			if (rc > 0)
				return -1;	/* q is queued elsewhere now: not freed here */
		}
		th->inflight--;
		th->cl_inflight[c->client]--;
		free(q.copy);
		if (reply == &rd_tag_err)
			return rd_error_reply(th, c, &q);
		if (!q.counted)
			continue;
		if (reply == &rd_tag_nil)
			th->nils++;
		if (q.intended) {
			api->record(th->t, q.op, now - q.intended, s->tmpl[q.tmpl].len);
			api->record_dist(th->t, s->uncorrected[q.op], now - q.sent);
		} else {
			api->record(th->t, q.op, now - q.sent, s->tmpl[q.tmpl].len);
		}
	}
	if (!th->rate && th->cl_inflight[c->client] == 0)
		return rd_send_batch(th, c->client);
	return 0;
}

int rd_thread_run(void *tstate)
{
	rd_thread *th = tstate;
	const bench_host_api_v1 *api = th->api;
	rd_state *s = th->s;
	struct epoll_event evs[64];
	th->rate = api->next_arrival(th->t, 0) != 0;
	if (!th->rate)
		for (unsigned i = 0; i < th->ncl; i++)
			if (rd_send_batch(th, i) != 0)
				return BENCH_ERR;
	for (;;) {
		if (api->stopping(th->t))
			break;
		uint64_t due = 0;
		if (th->rate && rd_dispatch(th, api->now_ns(), &due) != 0)
			return BENCH_ERR;
		if (th->budget_done && th->inflight == 0)
			break;
		struct timespec ts, *tp = NULL;
		if (due) {
			uint64_t now = api->now_ns(), w = due > now ? due - now : 0;
			ts.tv_sec = (time_t)(w / 1000000000u);
			ts.tv_nsec = (long)(w % 1000000000u);
			tp = &ts;
		}
		int n = epoll_pwait2(th->ep, evs, 64, tp, NULL);
		if (n < 0 && errno != EINTR) {
			api->error(s->ctx, th->t, "redis: epoll_wait failed", strerror(errno), NULL);
			return BENCH_ERR;
		}
		for (int i = 0; i < n; i++) {
			rd_conn *c = evs[i].data.ptr;
			if (!c)
				return BENCH_OK;	/* the stop descriptor */
			if ((evs[i].events & EPOLLOUT) && rd_flush(th, c) != 0)
				return BENCH_ERR;
			if ((evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && rd_on_read(th, c) != 0)
				return BENCH_ERR;
		}
	}
	return BENCH_OK;
}

void rd_thread_done(void *tstate)
{
	rd_thread *th = tstate;
	rd_state *s = th->s;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	s->nil_replies += th->nils;
	s->rate_mode |= th->rate;
	s->moved += th->redirects;
	if (th->gap_n && th->gap_sum > 0)
		s->req_rate += (double)th->gap_n / (th->gap_sum / 1e9);
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < th->nconn; i++) {
		rd_conn *c = &th->c[i];
		if (c->rd)
			redisReaderFree(c->rd);
		rd_close(&c->k);
		for (unsigned j = 0; c->q && j < c->qn; j++)
			free(c->q[(c->qhead + j) % c->qcap].copy);
		free(c->q);
		free(c->wbuf);
	}
	if (th->ep >= 0)
		close(th->ep);
	free(th->c);
	free(th->cl_inflight);
	free(th->slots);
	free(th->scratch);
	free(th->rbuf);
	free(th);
}
