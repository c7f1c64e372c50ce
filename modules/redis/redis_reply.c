/*
 * redis: a worker's replies (redis_run.c sends the requests). What a
 * connection reads is fed to hiredis's redisReader, whose reply functions
 * here build nothing (the top-level reply is one of three tags, an error's
 * text is kept), one read at a time, so memory stays bounded whatever the
 * server sends; each complete reply ends its request: its latency recorded,
 * an error reply or a nil where the fill put data counted as its class's
 * error, a cluster MOVED or ASK followed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hiredis/read.h>
#include "redis_run.h"

static char rd_tag_ok, rd_tag_err, rd_tag_nil;

/* redisReader reply functions that build nothing: the top-level reply is
   one of three tags, and only an error's text is kept. A string or array
   larger than the test can get is refused (NULL: the reader fails, and
   c->bad says why). An empty top-level array is a nil (LRANGE of a key
   that is gone, ZPOPMIN of an empty set). */
static void *rd_fn_string(const redisReadTask *task, char *str, size_t len)
{
	rd_conn *c = task->privdata;
	if (len > c->th->s->reply_max) {
		snprintf(c->bad, sizeof(c->bad), "a string of %zu bytes, more than the %llu this test can get",
			 len, (unsigned long long)c->th->s->reply_max);
		return NULL;
	}
	if (task->parent || task->type != REDIS_REPLY_ERROR)
		return &rd_tag_ok;
	size_t n = len < sizeof(c->err) - 1 ? len : sizeof(c->err) - 1;
	memcpy(c->err, str, n);
	c->err[n] = '\0';
	return &rd_tag_err;
}
static void *rd_fn_array(const redisReadTask *task, rd_array_len n)
{
	rd_conn *c = task->privdata;
	if (n > 0 && (uint64_t)n > c->th->s->elems_max) {
		snprintf(c->bad, sizeof(c->bad), "an array of %lld elements, more than the %llu this test can get",
			 (long long)n, (unsigned long long)c->th->s->elems_max);
		return NULL;
	}
	return !task->parent && n == 0 ? &rd_tag_nil : &rd_tag_ok;
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
redisReplyObjectFunctions rd_reply_fns = {
	.createString = rd_fn_string,
	.createArray = rd_fn_array,
	.createInteger = rd_fn_integer,
	.createNil = rd_fn_nil,
	.freeObject = rd_fn_free,
};

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
		hint = "the key holds another type: a custom command of this run (or, with allow_foreign, someone else) wrote it";
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
	if (rd_reserve(to, sizeof("*1\r\n$6\r\nASKING\r\n") - 1 + q->clen) != 0) {
		free(q->copy);	/* not queued anywhere: the caller fails the case */
		return 1;
	}
	if (ask) {
		static const char asking[] = "*1\r\n$6\r\nASKING\r\n";
		memcpy(to->wbuf + to->wlen, asking, sizeof(asking) - 1);
		to->wlen += sizeof(asking) - 1;
		rd_push(to, &(rd_req){ .skip = 1, .sent = 1 });
	}
	memcpy(to->wbuf + to->wlen, q->copy, q->clen);
	to->wlen += q->clen;
	rd_push(to, q);
	th->redirects++;
	return rd_flush(th, to) ? 1 : 0;
}

static int rd_bad_reply(rd_thread *th, rd_conn *c, const char *what)
{
	char d[400];
	snprintf(d, sizeof(d), "connection %u: %s", c->idx, what);
	th->api->error(th->s->ctx, th->t, c->bad[0] ? "redis: a reply larger than the test can get" :
		       "redis: protocol error in a reply", d,
		       "the server answered something other than Redis's reply to the test's command");
	return -1;
}

/* One reply of c: its request leaves the ring and is recorded. */
static int rd_on_reply(rd_thread *th, rd_conn *c, void *reply, uint64_t now)
{
	const bench_host_api_v1 *api = th->api;
	rd_state *s = th->s;
	if (!c->qn) {
		api->error(s->ctx, th->t, "redis: a reply nobody asked for",
			   "the server sent more replies than requests", NULL);
		return -1;
	}
	rd_req q = c->q[c->qhead];
	c->qhead = (c->qhead + 1) % c->qcap;
	c->qn--;
	if (q.skip)		/* the +OK of an ASKING */
		return reply == &rd_tag_err ? rd_error_reply(th, c, &q) : 0;
	if (reply == &rd_tag_err && q.copy) {
		int rc = rd_redirect(th, c, &q);
		if (rc == 0)
			return 0;	/* MOVED/ASK followed: still in flight */
		if (rc > 0)
			return -1;	/* q is queued elsewhere now (or freed): not freed here */
	}
	th->inflight--;
	th->cl_inflight[c->client]--;
	free(q.copy);
	if (reply == &rd_tag_err)
		return rd_error_reply(th, c, &q);
	if (!q.counted)
		return 0;
	if (reply == &rd_tag_nil) {
		th->nils++;
		if (s->tmpl[q.tmpl].expect_hits) {	/* the fill's key is gone: not a success */
			api->record_error(th->t, q.op, "nil");
			return 0;
		}
	}
	if (q.intended) {
		api->record(th->t, q.op, now - q.intended, s->tmpl[q.tmpl].len);
		api->record_dist(th->t, s->uncorrected[q.op], now - q.sent);
	} else {
		api->record(th->t, q.op, now - q.sent, s->tmpl[q.tmpl].len);
	}
	return 0;
}

/* Feeds n bytes to c's reader and takes every complete reply; what stays
   buffered (one partial reply) may not pass the test's largest reply. */
static int rd_parse(rd_thread *th, rd_conn *c, size_t n)
{
	char why[200];
	if (redisReaderFeed(c->rd, th->rbuf, n) != REDIS_OK)
		return rd_bad_reply(th, c, "out of memory buffering the reply");
	for (;;) {
		void *reply = NULL;
		if (redisReaderGetReply(c->rd, &reply) != REDIS_OK)
			return rd_bad_reply(th, c, c->bad[0] ? c->bad : c->rd->errstr);
		if (!reply)
			break;
		if (rd_on_reply(th, c, reply, th->api->now_ns()) != 0)
			return -1;
	}
	size_t left = c->rd->len - c->rd->pos;
	if (left > th->s->reply_max) {
		snprintf(c->bad, sizeof(c->bad), "a reply still incomplete after %zu bytes", left);
		snprintf(why, sizeof(why), "%s, more than the %llu this test can get", c->bad,
			 (unsigned long long)th->s->reply_max);
		return rd_bad_reply(th, c, why);
	}
	return 0;
}

/* Reads what c has, parses every complete reply and records it. */
int rd_on_read(rd_thread *th, rd_conn *c)
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
		c->rx += (uint64_t)n;
		if (c->batch_t0) {		/* redis-benchmark's stamp: the first readable event */
			if (c->batch_counted && s->first_byte[c->batch_op] >= 0)
				api->record_dist(th->t, s->first_byte[c->batch_op], api->now_ns() - c->batch_t0);
			c->batch_t0 = 0;
		}
		if (rd_parse(th, c, (size_t)n) != 0)
			return -1;
		if (!c->k.ssl && n < RD_RBUF)
			break;			/* level-triggered: the rest comes with the next event */
		if (api->stopping(th->t))
			return 0;		/* a server that never stops sending cannot hold the stop */
	}
	if (!th->rate && th->cl_inflight[c->client] == 0)
		return rd_send_batch(th, c->client);
	return 0;
}
