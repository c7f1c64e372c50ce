/*
 * Redis Cluster: the slot of a key (CRC16 of its hash tag or whole name,
 * mod 16384) and the slot map from CLUSTER SLOTS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hiredis/hiredis.h>

#include "redis.h"

/* CRC16-CCITT (XModem), the one Redis Cluster uses, bit by bit: keys are
   routed only when cluster = true. */
static uint16_t rd_crc16(const char *buf, size_t len)
{
	uint16_t crc = 0;
	for (size_t i = 0; i < len; i++) {
		crc ^= (uint16_t)((unsigned char)buf[i] << 8);
		for (int b = 0; b < 8; b++)
			crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
	}
	return crc;
}

unsigned rd_key_slot(const char *key, size_t len)
{
	const char *open = memchr(key, '{', len);
	if (open) {
		const char *close = memchr(open + 1, '}', len - (size_t)(open + 1 - key));
		if (close && close > open + 1)
			return rd_crc16(open + 1, (size_t)(close - open - 1)) & 16383;
	}
	return rd_crc16(key, len) & 16383;
}

static int rd_node_index(rd_state *s, const char *host, int port)
{
	for (unsigned i = 0; i < s->nnodes; i++)
		if (s->nodes[i].port == port && !strcmp(s->nodes[i].host, host))
			return (int)i;
	if (s->nnodes == RD_MAX_NODES)
		return -1;
	rd_server *n = &s->nodes[s->nnodes];
	snprintf(n->host, sizeof(n->host), "%s", host);
	n->port = port;
	return (int)s->nnodes++;
}

/* The masters and their slots from CLUSTER SLOTS; every slot must be served. */
int rd_cluster_map(rd_state *s, rd_sock *k)
{
	const bench_host_api_v1 *api = s->api;
	redisReply *r = rd_commandf(s, k, "CLUSTER SLOTS");
	char d[256];
	if (!r)
		return -1;
	if (r->type != REDIS_REPLY_ARRAY) {
		snprintf(d, sizeof(d), "CLUSTER SLOTS answered: %s", r->type == REDIS_REPLY_ERROR ? r->str : "not an array");
		freeReplyObject(r);
		api->error(s->ctx, NULL, "redis: the server is not a cluster node", d, "set cluster = false");
		return -1;
	}
	static uint8_t seen[16384];
	memset(seen, 0, sizeof(seen));
	s->nnodes = 0;
	for (size_t i = 0; i < r->elements; i++) {
		redisReply *e = r->element[i];
		if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 || e->element[2]->type != REDIS_REPLY_ARRAY ||
		    e->element[2]->elements < 2)
			continue;
		redisReply *m = e->element[2];
		const char *host = m->element[0]->type == REDIS_REPLY_STRING && m->element[0]->len ? m->element[0]->str
			: s->srv.host;	/* "" = the node we asked */
		int node = rd_node_index(s, host, (int)m->element[1]->integer);
		if (node < 0) {
			freeReplyObject(r);
			api->error(s->ctx, NULL, "redis: too many cluster masters", NULL, NULL);
			return -1;
		}
		for (long long sl = e->element[0]->integer; sl <= e->element[1]->integer && sl < 16384; sl++) {
			s->slot_node[sl] = (uint8_t)node;
			seen[sl] = 1;
		}
	}
	freeReplyObject(r);
	for (int sl = 0; sl < 16384; sl++)
		if (!seen[sl]) {
			snprintf(d, sizeof(d), "slot %d has no master in CLUSTER SLOTS (%u masters)", sl, s->nnodes);
			api->error(s->ctx, NULL, "redis: the cluster does not cover every slot", d,
				   "check the cluster with redis-cli --cluster check");
			return -1;
		}
	char v[32];
	snprintf(v, sizeof(v), "%u", s->nnodes);
	api->set_info(s->ctx, "cluster_masters", v);
	return 0;
}

int rd_cluster_node_of(const rd_state *s, const char *host, int port)
{
	for (unsigned i = 0; i < s->nnodes; i++)
		if (s->nodes[i].port == port && !strcmp(s->nodes[i].host, host))
			return (int)i;
	return -1;
}

/* The key (second word) of one RESP command at p: its slot, or -1. */
int rd_resp_slot(const char *p, size_t len)
{
	const char *end = p + len, *q = memchr(p, '\n', len);	/* *N */
	for (int w = 0; q && w < 2; w++) {
		const char *h = q + 1;			/* $L */
		if (h >= end || *h != '$')
			return -1;
		long l = strtol(h + 1, NULL, 10);
		const char *body = memchr(h, '\n', (size_t)(end - h));
		if (!body || body + 1 + l > end)
			return -1;
		if (w == 1)
			return (int)rd_key_slot(body + 1, (size_t)l);
		q = body + 1 + l + 1;
	}
	return -1;
}
