/*
 * redis: prepare, the data a test reads before its window opens: the state
 * redis-benchmark's earlier tests leave behind (keys for GET, a list for
 * LPOP and LRANGE, members for SPOP and ZPOPMIN), sent in bounded batches
 * to the server or every cluster master that holds them, after checking
 * what it will add against the servers' maxmemory. Untimed; main thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hiredis/hiredis.h>
#include "redis.h"

/* A fill is sent in batches of at most RD_FILL_BATCH bytes (or one
   command, when one value is larger), each command carrying at most
   RD_FILL_CMD bytes of values (and RD_PER_CMD of them): what is buffered
   at once does not grow with keyspace x data_size. */
#define RD_PER_CMD	100
#define RD_FILL_CMD	(1u << 20)
#define RD_FILL_BATCH	(4u << 20)

/* Appends the command of units i .. i+per-1 to *buf; -1 when out of memory. */
typedef int (*rd_gen_fn)(rd_state *s, uint64_t i, uint64_t per, char **buf, size_t *len, size_t *cap);

static int rd_fill_oom(rd_state *s, size_t bytes)
{
	char d[128];
	snprintf(d, sizeof(d), "a batch of the fill of about %zu bytes could not be allocated", bytes);
	s->api->error(s->ctx, NULL, "redis: out of memory", d, "use a smaller data_size");
	return -1;
}

/* Cluster: appends the command in one (olen bytes) to node's batch. */
static int rd_fill_route(rd_state *s, char **buf, size_t *len, size_t *cap, const char *one, size_t olen)
{
	int slot = rd_resp_slot(one, olen);
	unsigned node = slot < 0 ? 0 : s->slot_node[slot];
	if (len[node] + olen > cap[node]) {
		size_t ncap = (len[node] + olen) * 2;
		char *nb = realloc(buf[node], ncap);
		if (!nb)
			return -1;
		buf[node] = nb;
		cap[node] = ncap;
	}
	memcpy(buf[node] + len[node], one, olen);
	len[node] += olen;
	return (int)node;
}

/* Sends total units built by gen in pipelined batches, with progress. */
static int rd_fill_run(rd_main *m, uint64_t total, rd_gen_fn gen, uint64_t per, const char *unit)
{
	rd_state *s = &m->s;
	unsigned nn = rd_nservers(m), ncmd[RD_MAX_NODES];
	char *buf[RD_MAX_NODES] = { 0 }, *one = NULL;
	size_t len[RD_MAX_NODES], cap[RD_MAX_NODES] = { 0 }, olen, ocap = 0, all;
	uint64_t done = 0;
	int rc = 0;
	while (done < total && rc == 0) {
		memset(ncmd, 0, sizeof(ncmd));
		memset(len, 0, sizeof(len));
		for (all = 0; all < RD_FILL_BATCH && done < total && rc == 0; done += per) {
			if (!s->cluster) {
				size_t before = len[0];
				rc = gen(s, done, per, &buf[0], &len[0], &cap[0]) ? rd_fill_oom(s, cap[0]) : 0;
				all += len[0] - before;
				ncmd[0]++;
				continue;
			}
			olen = 0;	/* a cluster: each command to the master of its key */
			int node = gen(s, done, per, &one, &olen, &ocap) ? -1 :
				   rd_fill_route(s, buf, len, cap, one, olen);
			if (node < 0)
				rc = rd_fill_oom(s, olen);
			else
				ncmd[node]++;
			all += olen;
		}
		for (unsigned i = 0; i < nn && rc == 0; i++) {
			rd_sock *k = rd_server_ctl(m, i);
			if (ncmd[i] && (!k || rd_pipeline(s, k, buf[i], len[i], ncmd[i]) != 0))
				rc = -1;
		}
		s->api->progress(s->ctx, done < total ? done : total, total, unit);
		if (s->api->cancelled(s->ctx))
			rc = -1;
	}
	for (unsigned i = 0; i < nn; i++)
		free(buf[i]);
	free(one);
	return rc;
}

/* A key of the run (under its prefix), or an element name (a member of a
   set: not a key, no prefix). */
static void rd_key_text(const rd_state *s, const char *what, uint64_t i, char *out, size_t n)
{
	const char *pre = strcmp(what, "element") ? s->prefix : "";
	if (s->keyspace)
		snprintf(out, n, "%s%s:%012llu", pre, what, (unsigned long long)i);
	else
		snprintf(out, n, "%s%s:__rand_int__", pre, what);
}

static int rd_gen_keys(rd_state *s, uint64_t i, uint64_t per, char **buf, size_t *len, size_t *cap)
{
	const char *argv[1 + 2 * RD_PER_CMD];
	size_t lens[1 + 2 * RD_PER_CMD];
	char keys[RD_PER_CMD][96];
	uint64_t total = s->keyspace ? s->keyspace : 1;
	int argc = 1;
	argv[0] = s->cluster ? "SET" : "MSET";	/* a cluster: one key per command */
	lens[0] = strlen(argv[0]);
	for (uint64_t k = i; k < i + (s->cluster ? 1 : per) && k < total; k++) {
		rd_key_text(s, "key", k, keys[k - i], sizeof(keys[0]));
		argv[argc] = keys[k - i];
		lens[argc++] = strlen(keys[k - i]);
		argv[argc] = s->data;
		lens[argc++] = s->data_size;
	}
	return rd_resp_append(buf, len, cap, argc, argv, lens);
}

static int rd_gen_list(rd_state *s, uint64_t i, uint64_t per, char **buf, size_t *len, size_t *cap)
{
	char key[96];
	const char *argv[2 + RD_PER_CMD] = { "LPUSH", key };
	snprintf(key, sizeof(key), "%smylist", s->prefix);
	size_t lens[2 + RD_PER_CMD] = { 5, strlen(key) };
	int argc = 2;
	for (uint64_t k = i; k < i + per && k < s->fill; k++) {
		argv[argc] = s->data;
		lens[argc++] = s->data_size;
	}
	return rd_resp_append(buf, len, cap, argc, argv, lens);
}

static int rd_gen_members(rd_state *s, uint64_t i, uint64_t per, char **buf, size_t *len, size_t *cap)
{
	int zset = s->fill_kind == RD_FILL_ZSET;
	char key[96];
	snprintf(key, sizeof(key), "%s%s", s->prefix, zset ? "myzset" : "myset");
	const char *argv[2 + 2 * RD_PER_CMD] = { zset ? "ZADD" : "SADD", key };
	size_t lens[2 + 2 * RD_PER_CMD] = { 4, strlen(key) };
	char el[RD_PER_CMD][48], sc[RD_PER_CMD][24];
	uint64_t total = s->keyspace ? s->keyspace : 1;
	int argc = 2;
	for (uint64_t k = i; k < i + per && k < total; k++) {
		if (zset) {
			snprintf(sc[k - i], sizeof(sc[0]), "%llu", s->keyspace ? (unsigned long long)k : 0ull);
			argv[argc] = sc[k - i];
			lens[argc++] = strlen(sc[k - i]);
		}
		rd_key_text(s, "element", k, el[k - i], sizeof(el[0]));
		argv[argc] = el[k - i];
		lens[argc++] = strlen(el[k - i]);
	}
	return rd_resp_append(buf, len, cap, argc, argv, lens);
}

/* Deletes the test's fixed keys (an earlier case of this run may have left
   them); one key per command: they may live on different masters. */
static int rd_unlink_fixed(rd_main *m)
{
	rd_state *s = &m->s;
	static const char *const fixed[] = { "mylist", "myset", "myzset", "myhash", "mystream", NULL };
	for (int i = 0; fixed[i]; i++) {
		char key[96];
		snprintf(key, sizeof(key), "%s%s", s->prefix, fixed[i]);
		const char *argv[] = { "UNLINK", key };
		size_t lens[] = { 6, strlen(key) };
		rd_sock *k = s->cluster ? rd_node_ctl(m, s->slot_node[rd_key_slot(key, lens[1])]) : &m->ctl;
		redisReply *r = k ? rd_command(s, k, 2, argv, lens) : NULL;
		if (!r)
			return -1;
		if (r->type == REDIS_REPLY_ERROR) {
			s->api->error(s->ctx, NULL, "redis: cannot delete the test's keys", r->str,
				      !strncmp(r->str, "MOVED", 5) ? "the server is a cluster node: set cluster = true" : NULL);
			freeReplyObject(r);
			return -1;
		}
		freeReplyObject(r);
	}
	return 0;
}

/* Puts in place what the test reads: the state redis-benchmark's earlier
   tests leave behind (GET after SET, LPOP after LPUSH, LRANGE after its LPUSH
   fill, SPOP after SADD, ZPOPMIN after ZADD). Untimed. What it (or a test
   with bounded writes) will put on the server is checked against maxmemory
   first. */
int rd_prepare(void *state)
{
	rd_main *m = state;
	rd_state *s = &m->s;
	if (rd_unlink_fixed(m) != 0)
		return BENCH_ERR;
	for (unsigned i = 0; s->footprint && i < rd_nservers(m); i++) {
		rd_sock *k = rd_server_ctl(m, i);
		char what[160];
		snprintf(what, sizeof(what), "%s %s", s->fill_kind ? "the fill of" : "the keys of", s->test);
		if (!k || rd_memory_check(s, k, s->footprint / rd_nservers(m), what) != 0)
			return BENCH_ERR;
	}
	uint64_t members = s->keyspace ? s->keyspace : 1;
	uint64_t per = RD_FILL_CMD / (s->data_size + 64);
	per = per < 1 ? 1 : per > RD_PER_CMD ? RD_PER_CMD : per;
	int rc = 0;
	switch (s->fill_kind) {
	case RD_FILL_KEYS:
		rc = rd_fill_run(m, members, rd_gen_keys, s->cluster ? 1 : per, "keys");
		break;
	case RD_FILL_LIST:
		rc = rd_fill_run(m, s->fill, rd_gen_list, per, "elements");
		break;
	case RD_FILL_SET:
	case RD_FILL_ZSET:
		rc = rd_fill_run(m, members, rd_gen_members, RD_PER_CMD, "members");
		break;
	}
	if (rc == 0 && rd_check_evictions(m, "during the fill") != 0)
		rc = -1;
	if (rc == 0 && s->evicted_known)	/* the case's baseline */
		s->evicted_known = rd_evicted(m, &s->evicted0) == 0;
	return rc ? BENCH_ERR : BENCH_OK;
}
