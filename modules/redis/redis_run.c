/*
 * Worker threads: each owns its share of the connections and drives them
 * from one epoll loop, with the host's stop descriptor in the set (no
 * polling for the end of the window). Here the loop and the sending; the
 * replies are read and judged in redis_reply.c (redis_run.h: the state
 * both share).
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
 *  - A nil (or empty list) reply to a test that reads what its fill put
 *    there (GET, SET_GET's GET, LRANGE_*) is an error of its class, not a
 *    success: the key was evicted or deleted under the run.
 *  - A connection with requests in flight that got no byte of reply for
 *    longer than reply_timeout (checked every reply_timeout / 4, at most
 *    100 ms, warmup and window alike) means the server stopped answering:
 *    the worker reports it, naming the server, and gives up, which fails
 *    the case. A large reply still arriving is not a stop.
 *  - Requests still in flight when the window closes are recorded with the
 *    time they had waited (record_unfinished), so a server that stopped
 *    answering shows in the maximum; finish fails a case in which none was
 *    answered or one waited longer than the window.
 *  - Memory is bounded whatever the server sends: a reply longer than the
 *    test can get (s->reply_max, from data_size and the test) or with more
 *    elements (s->elems_max) is a protocol error, and the reader is fed and
 *    drained one read at a time, so its buffer never holds more than one
 *    partial reply of at most reply_max bytes plus one read.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <hiredis/read.h>

#include "redis_run.h"

static int rd_oom(rd_thread *th, const char *what, size_t bytes)
{
	char d[200];
	snprintf(d, sizeof(d), "%s: %zu bytes could not be allocated", what, bytes);
	th->api->error(th->s->ctx, th->t, "redis: out of memory", d,
		       "use a smaller data_size, pipeline or clients");
	return -1;
}

/* One connection of the thread: connected, with its reader, ring and write
   buffer (room for a batch of `pipeline` of the largest request). */
static int rd_conn_init(rd_thread *th, rd_conn *c, unsigned i, size_t maxreq)
{
	rd_state *s = th->s;
	c->th = th;
	c->idx = i;
	c->client = i / th->nnodes;
	c->node = i % th->nnodes;
	if (rd_connect(s, th->t, s->cluster ? &s->nodes[c->node] : &s->srv, &c->k) != 0)
		return -1;
	if (!(c->rd = redisReaderCreateWithFunctions(&rd_reply_fns)))
		return rd_oom(th, "a reply reader", sizeof(redisReader));
	c->rd->maxbuf = 0;	/* keep the buffer: no free/alloc churn on big replies */
	redisReaderSetPrivdata(c->rd, c);
	c->qcap = s->cluster ? 2 * s->pipeline : s->pipeline;	/* room for ASKINGs */
	if (!(c->q = calloc(c->qcap, sizeof(rd_req))))
		return rd_oom(th, "the requests in flight", c->qcap * sizeof(rd_req));
	/* the write buffer's offsets are 32-bit: a batch of more than 2 GiB is refused */
	if (maxreq > (UINT32_MAX / 2 - 64) / s->pipeline) {
		char d[200];
		snprintf(d, sizeof(d), "pipeline = %u requests of %zu bytes: more than 2 GiB at once", s->pipeline, maxreq);
		th->api->error(s->ctx, th->t, "redis: a batch of requests is too large", d,
			       "use a smaller pipeline or data_size");
		return -1;
	}
	c->wcap = maxreq * s->pipeline + 64;
	if (!(c->wbuf = malloc(c->wcap)))
		return rd_oom(th, "a connection's write buffer", c->wcap);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	if (epoll_ctl(th->ep, EPOLL_CTL_ADD, c->k.fd, &ev) != 0) {
		th->api->error(s->ctx, th->t, "redis: epoll failed", strerror(errno), NULL);
		return -1;
	}
	return 0;
}

int rd_thread_init(void *state, bench_thread *t, void **tstate)
{
	rd_state *s = state;
	const bench_host_api_v1 *api = s->api;
	rd_thread *th = calloc(1, sizeof(*th));
	if (!th) {
		api->error(s->ctx, t, "redis: out of memory", "a worker thread's state", NULL);
		return BENCH_ERR;
	}
	th->s = s;
	th->api = api;
	th->t = t;
	th->ep = -1;
	th->idx = api->thread_index(t);
	th->ncl = s->clients / s->threads + (th->idx < s->clients % s->threads);
	th->nnodes = s->cluster ? s->nnodes : 1;
	th->nconn = th->ncl * th->nnodes;
	th->rng = 0x9E3779B97F4A7C15ull * (th->idx + 1) ^ api->now_ns();
	th->seq = s->keyspace ? (uint64_t)th->idx * (s->keyspace / s->threads) : 0;
	*tstate = th;
	size_t maxreq = 0;
	for (unsigned i = 0; i < s->ntmpl; i++)
		if (s->tmpl[i].len > maxreq)
			maxreq = s->tmpl[i].len;
	th->cl_inflight = calloc(th->ncl, sizeof(unsigned));
	th->slots = s->cluster ? malloc(sizeof(s->slot_node)) : NULL;
	th->rbuf = malloc(RD_RBUF);
	th->scratch = malloc(maxreq);
	th->c = calloc(th->nconn, sizeof(rd_conn));
	if (!th->cl_inflight || (s->cluster && !th->slots) || !th->rbuf || !th->scratch || !th->c) {
		rd_oom(th, "a worker thread's buffers", RD_RBUF + maxreq);
		goto fail;
	}
	if (s->cluster)
		memcpy(th->slots, s->slot_node, sizeof(s->slot_node));
	for (unsigned i = 0; i < th->nconn; i++)
		th->c[i].k.fd = -1;
	th->ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	if (th->ep < 0 || epoll_ctl(th->ep, EPOLL_CTL_ADD, api->stop_fd(s->ctx), &ev) != 0) {
		api->error(s->ctx, t, "redis: epoll failed", strerror(errno), NULL);
		goto fail;
	}
	for (unsigned i = 0; i < th->nconn; i++)
		if (rd_conn_init(th, &th->c[i], i, maxreq) != 0)
			goto fail;
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

int rd_reserve(rd_conn *c, size_t more)
{
	if (c->wlen + more > c->wcap) {
		size_t ncap = (c->wlen + more) * 2;
		char *nb = ncap < UINT32_MAX ? realloc(c->wbuf, ncap) : NULL;
		if (!nb)
			return rd_oom(c->th, "a connection's write buffer", ncap);
		c->wbuf = nb;
		c->wcap = ncap;
	}
	return 0;
}

/* Appends a request (or an ASKING) to c's ring; its bytes are already in wbuf. */
rd_req *rd_push(rd_conn *c, const rd_req *q)
{
	rd_req *n = &c->q[(c->qhead + c->qn) % c->qcap];
	*n = *q;
	n->end = (uint32_t)c->wlen;
	c->qn++;
	c->qunsent++;
	return n;
}

/* Builds one request of `client` and appends it to the connection it goes
   to (in a cluster: the one to the master of its key's slot); NULL after
   api->error() when out of memory. */
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
		if (rd_reserve(c, tm->len) != 0)
			return NULL;
		memcpy(c->wbuf + c->wlen, p, tm->len);
		if (!(q.copy = malloc(tm->len))) {
			rd_oom(th, "a request kept to follow MOVED/ASK", tm->len);
			return NULL;
		}
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

int rd_fail_io(rd_thread *th, rd_conn *c, const char *what, int err)
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
int rd_flush(rd_thread *th, rd_conn *c)
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
int rd_send_batch(rd_thread *th, unsigned client)
{
	const bench_host_api_v1 *api = th->api;
	if (th->budget_done || api->stopping(th->t))
		return 0;
	int counted = api->measuring(th->t);	/* before claim(): see io_run.c */
	/* warmup's requests are not counted: they take nothing from the budget
	   (a claim after the window opened would, and its events would be lost) */
	uint64_t k = counted ? api->claim(th->t, th->s->pipeline) : th->s->pipeline;
	if (k == 0) {
		th->budget_done = 1;
		return 0;
	}
	for (uint64_t i = 0; i < k; i++) {
		rd_conn *c = rd_add(th, client, 0, counted);
		if (!c)
			return -1;
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
		if (counted && api->claim(th->t, 1) == 0) {
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
		if (!rd_add(th, cl, due, counted))
			return -1;
	}
	return rd_flush_dirty(th, 0, th->nconn);
}

/* At the stop: the requests of the window still waiting for their reply
   are counted, and recorded with the time they waited (at least that is
   their latency). An unsent one (its write blocked) counts from its
   intended start in rate mode, else only in the number. The longest wait
   of any request, warmup's too, tells a server that stopped answering. */
static void rd_account_unfinished(rd_thread *th)
{
	const bench_host_api_v1 *api = th->api;
	int rec = BENCH_HOST_HAS(api, record_unfinished);
	uint64_t now = api->now_ns();
	for (unsigned i = 0; i < th->nconn; i++) {
		rd_conn *c = &th->c[i];
		for (unsigned j = 0; j < c->qn; j++) {
			const rd_req *q = &c->q[(c->qhead + j) % c->qcap];
			uint64_t start = q->intended ? q->intended : q->sent;
			if (q->skip)
				continue;
			if (start && start <= now && now - start > th->unfinished_max)
				th->unfinished_max = now - start;
			if (!q->counted)
				continue;
			th->unfinished++;
			if (rec && start && start <= now) {
				api->record_unfinished(th->t, q->op, now - start);
				th->unfinished_rec++;
			}
		}
	}
}

/* A connection whose oldest request has waited longer than reply_timeout
   with not one byte of reply coming meanwhile: the server stopped answering
   (SIGSTOP, swapping, a slow command blocking it). A large reply still
   arriving is progress, however long it takes. Reported naming the server;
   -1 then. The oldest request of a connection is the head of its ring;
   bytes are looked at here, at most every 100 ms, not stamped per read. */
static int rd_stalled(rd_thread *th, uint64_t now)
{
	rd_state *s = th->s;
	uint64_t step = s->reply_ns / 4 < 100000000u ? s->reply_ns / 4 : 100000000u;
	th->next_check = now + (step ? step : 1);
	for (unsigned i = 0; i < th->nconn; i++) {
		rd_conn *c = &th->c[i];
		const rd_req *q = c->qn ? &c->q[c->qhead] : NULL;
		if (c->rx != c->rx_seen || !c->quiet_since) {
			c->rx_seen = c->rx;
			c->quiet_since = now;
		}
		uint64_t since = q && q->sent > c->quiet_since ? q->sent : c->quiet_since;
		if (!q || !q->sent || since > now || now - since <= s->reply_ns)
			continue;
		const rd_server *srv = s->cluster && c->node < s->nnodes ? &s->nodes[c->node] : &s->srv;
		char where[300], msg[400], d[400];
		rd_describe(srv, where, sizeof(where));
		snprintf(msg, sizeof(msg), "redis: the server at %s stopped answering", where);
		snprintf(d, sizeof(d), "no reply byte for %.3f s on connection %u of thread %u (%u request(s) in "
			 "flight on it, the oldest sent %.3f s ago), longer than reply_timeout (%g s)",
			 (double)(now - since) / 1e9, c->idx, th->idx, c->qn, (double)(now - q->sent) / 1e9,
			 s->reply_ns / 1e9);
		th->api->error(s->ctx, th->t, msg, d, "check the server (stopped, swapping, blocked by a slow "
			       "command or a full disk); raise reply_timeout if it is only slow");
		return -1;
	}
	return 0;
}

static int rd_loop(rd_thread *th)
{
	const bench_host_api_v1 *api = th->api;
	rd_state *s = th->s;
	struct epoll_event evs[64];
	th->rate = api->next_arrival(th->t, 0) != 0;
	if (!th->rate)
		for (unsigned i = 0; i < th->ncl; i++)
			if (rd_send_batch(th, i) != 0)
				return BENCH_ERR;
	th->next_check = api->now_ns();
	for (;;) {
		if (api->stopping(th->t))
			break;
		uint64_t due = 0, now = api->now_ns();
		if (now >= th->next_check && rd_stalled(th, now) != 0)
			return BENCH_ERR;
		if (th->rate && rd_dispatch(th, now, &due) != 0)
			return BENCH_ERR;
		if (th->budget_done && th->inflight == 0)
			break;
		struct timespec ts;
		uint64_t until = due && due < th->next_check ? due : th->next_check;
		now = api->now_ns();
		uint64_t w = until > now ? until - now : 0;
		ts.tv_sec = (time_t)(w / 1000000000u);
		ts.tv_nsec = (long)(w % 1000000000u);
		int n = epoll_pwait2(th->ep, evs, 64, &ts, NULL);
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

int rd_thread_run(void *tstate)
{
	rd_thread *th = tstate;
	int rc = rd_loop(th);
	if (rc == BENCH_OK)
		rd_account_unfinished(th);
	else
		th->failed = 1;
	return rc;
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
	s->unfinished += th->unfinished;
	s->unfinished_recorded += th->unfinished_rec;
	if (th->unfinished_max > s->unfinished_max_ns)
		s->unfinished_max_ns = th->unfinished_max;
	s->thread_failed |= th->failed;
	if (th->gap_n && th->gap_sum > 0)
		s->req_rate += (double)th->gap_n / (th->gap_sum / 1e9);
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; th->c && i < th->nconn; i++) {
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
