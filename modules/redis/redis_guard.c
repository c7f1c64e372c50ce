/*
 * What keeps a run to its own data (issue 24): the per-run key prefix, the
 * check of a custom command's keys, and the server's memory read before a
 * fill or a write that could make it evict someone else's keys; and what a
 * private server takes of this machine's memory (needs).
 *
 * The run id: 16 hex digits from getrandom(), written once per run to
 * "redis-run-id" in the module directory (which lives for all of the
 * module's cases in one run, and only that run) by the first case that
 * needs it; every later case, and the cleanup-only process, reads the same
 * file. So two runs on one server never share a key, and cleanup
 * (SCAN MATCH on the prefix) deletes only this run's keys.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>
#include <hiredis/hiredis.h>

#include "redis.h"

#define RD_ID_FILE	"redis-run-id"
#define RD_ID_LEN	16

static int rd_id_read(const char *path, char *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, id, RD_ID_LEN);
	close(fd);
	if (n != RD_ID_LEN)
		return -1;
	for (int i = 0; i < RD_ID_LEN; i++)
		if (!strchr("0123456789abcdef", id[i]) || !id[i])
			return -1;
	id[RD_ID_LEN] = '\0';
	return 0;
}

static int rd_id_make(const char *path, char *id)
{
	unsigned char raw[RD_ID_LEN / 2];
	size_t got = 0;
	while (got < sizeof(raw)) {
		ssize_t r = getrandom(raw + got, sizeof(raw) - got, 0);
		if (r < 0 && errno != EINTR)
			return -1;
		got += r > 0 ? (size_t)r : 0;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(id + 2 * i, 3, "%02x", raw[i]);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errno == EEXIST ? rd_id_read(path, id) : -1;
	int ok = write(fd, id, RD_ID_LEN) == RD_ID_LEN;
	close(fd);
	return ok ? 0 : -1;
}

int rd_run_prefix(rd_state *s)
{
	const char *dir = s->api->module_dir(s->ctx);
	char path[4096], id[RD_ID_LEN + 1];
	snprintf(path, sizeof(path), "%s/" RD_ID_FILE, dir);
	if (rd_id_read(path, id) != 0 && rd_id_make(path, id) != 0) {
		s->api->error(s->ctx, NULL, "redis: cannot keep the run's key prefix", strerror(errno),
			      "the module directory (TMPDIR) must be writable");
		return -1;
	}
	snprintf(s->prefix, sizeof(s->prefix), RD_PREFIX "%s:", id);
	s->prefix_len = strlen(s->prefix);
	return 0;
}

/* Single-key data commands a custom command may be, and where their keys
   are (Redis's command table: first key, last key (-1: to the end), step).
   An allow-list: anything not here (FLUSHDB, KEYS, CONFIG, SCRIPT, EVAL,
   SELECT, MIGRATE, SORT ... STORE, commands with numkeys) is refused. */
typedef struct rd_keyspec {
	const char *name;
	int first, last, step;
} rd_keyspec;

static const rd_keyspec rd_allowed[] = {
	{ "GET", 1, 1, 1 }, { "SET", 1, 1, 1 }, { "SETNX", 1, 1, 1 }, { "SETEX", 1, 1, 1 },
	{ "PSETEX", 1, 1, 1 }, { "GETSET", 1, 1, 1 }, { "GETDEL", 1, 1, 1 }, { "GETEX", 1, 1, 1 },
	{ "APPEND", 1, 1, 1 }, { "STRLEN", 1, 1, 1 }, { "INCR", 1, 1, 1 }, { "DECR", 1, 1, 1 },
	{ "INCRBY", 1, 1, 1 }, { "DECRBY", 1, 1, 1 }, { "INCRBYFLOAT", 1, 1, 1 },
	{ "GETRANGE", 1, 1, 1 }, { "SETRANGE", 1, 1, 1 }, { "MGET", 1, -1, 1 }, { "MSET", 1, -1, 2 },
	{ "MSETNX", 1, -1, 2 }, { "EXISTS", 1, -1, 1 }, { "DEL", 1, -1, 1 }, { "UNLINK", 1, -1, 1 },
	{ "TOUCH", 1, -1, 1 }, { "TYPE", 1, 1, 1 }, { "TTL", 1, 1, 1 }, { "PTTL", 1, 1, 1 },
	{ "EXPIRE", 1, 1, 1 }, { "PEXPIRE", 1, 1, 1 }, { "PERSIST", 1, 1, 1 },
	{ "LPUSH", 1, 1, 1 }, { "RPUSH", 1, 1, 1 }, { "LPUSHX", 1, 1, 1 }, { "RPUSHX", 1, 1, 1 },
	{ "LPOP", 1, 1, 1 }, { "RPOP", 1, 1, 1 }, { "LLEN", 1, 1, 1 }, { "LRANGE", 1, 1, 1 },
	{ "LINDEX", 1, 1, 1 }, { "LSET", 1, 1, 1 }, { "LTRIM", 1, 1, 1 }, { "LREM", 1, 1, 1 },
	{ "LINSERT", 1, 1, 1 }, { "LPOS", 1, 1, 1 }, { "RPOPLPUSH", 1, 2, 1 }, { "LMOVE", 1, 2, 1 },
	{ "SADD", 1, 1, 1 }, { "SREM", 1, 1, 1 }, { "SPOP", 1, 1, 1 }, { "SMEMBERS", 1, 1, 1 },
	{ "SISMEMBER", 1, 1, 1 }, { "SMISMEMBER", 1, 1, 1 }, { "SCARD", 1, 1, 1 },
	{ "SRANDMEMBER", 1, 1, 1 }, { "HSET", 1, 1, 1 }, { "HSETNX", 1, 1, 1 }, { "HGET", 1, 1, 1 },
	{ "HMSET", 1, 1, 1 }, { "HMGET", 1, 1, 1 }, { "HDEL", 1, 1, 1 }, { "HGETALL", 1, 1, 1 },
	{ "HLEN", 1, 1, 1 }, { "HEXISTS", 1, 1, 1 }, { "HINCRBY", 1, 1, 1 },
	{ "HINCRBYFLOAT", 1, 1, 1 }, { "HKEYS", 1, 1, 1 }, { "HVALS", 1, 1, 1 },
	{ "HSTRLEN", 1, 1, 1 }, { "ZADD", 1, 1, 1 }, { "ZREM", 1, 1, 1 }, { "ZSCORE", 1, 1, 1 },
	{ "ZMSCORE", 1, 1, 1 }, { "ZINCRBY", 1, 1, 1 }, { "ZCARD", 1, 1, 1 }, { "ZRANGE", 1, 1, 1 },
	{ "ZRANK", 1, 1, 1 }, { "ZREVRANK", 1, 1, 1 }, { "ZCOUNT", 1, 1, 1 }, { "ZPOPMIN", 1, 1, 1 },
	{ "ZPOPMAX", 1, 1, 1 }, { "ZRANGEBYSCORE", 1, 1, 1 }, { "ZREVRANGE", 1, 1, 1 },
	{ "ZREVRANGEBYSCORE", 1, 1, 1 }, { "ZREMRANGEBYRANK", 1, 1, 1 },
	{ "ZREMRANGEBYSCORE", 1, 1, 1 }, { "XADD", 1, 1, 1 }, { "XLEN", 1, 1, 1 },
	{ "XRANGE", 1, 1, 1 }, { "XREVRANGE", 1, 1, 1 }, { "XTRIM", 1, 1, 1 }, { "XDEL", 1, 1, 1 },
	{ "PFADD", 1, 1, 1 }, { "PFCOUNT", 1, -1, 1 }, { "SETBIT", 1, 1, 1 }, { "GETBIT", 1, 1, 1 },
	{ "BITCOUNT", 1, 1, 1 }, { "BITPOS", 1, 1, 1 },
	{ NULL, 0, 0, 0 }
};

static int rd_is_key_pos(const rd_keyspec *k, int i)
{
	return i >= k->first && (k->last < 0 || i <= k->last) && (i - k->first) % k->step == 0;
}

/* Checks a custom command line: a command of rd_allowed whose every key is
   a placeholder (a word starting with __key__, which expands under the
   run's prefix). -1 after api->error() naming the word. */
static int rd_custom_check_words(rd_state *s, const char **words, int argc);

int rd_custom_check(rd_state *s, const char *line)
{
	/* the whole line, as the template builder splits it: a key past any
	   fixed length must not escape the check */
	char *copy = strdup(line);
	const char *words[RD_MAX_ARGS * 2];
	int argc = 0, rc;
	if (!copy) {
		s->api->error(s->ctx, NULL, "redis: out of memory", "checking the custom command", NULL);
		return -1;
	}
	for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (argc == RD_MAX_ARGS * 2) {
			free(copy);
			return 0;	/* the template builder refuses it: too many words */
		}
		words[argc++] = w;
	}
	rc = argc ? rd_custom_check_words(s, words, argc) : 0;	/* empty: the builder says so */
	free(copy);
	return rc;
}

static int rd_custom_check_words(rd_state *s, const char **words, int argc)
{
	char detail[600];
	const rd_keyspec *k = rd_allowed;
	while (k->name && strcasecmp(k->name, words[0]))
		k++;
	const char *hint = "use __key__ for every key (it becomes a key under this run's prefix), or set "
			   "allow_foreign = true to run it anyway on a server whose data may be touched";
	if (!k->name) {
		snprintf(detail, sizeof(detail), "%.64s is not a single-key data command (GET, SET, LPUSH, "
			 "HSET, ZADD, XADD ...): it could read, change or delete keys this run did not create",
			 words[0]);
		s->api->error(s->ctx, NULL, "redis: custom command refused", detail, hint);
		return -1;
	}
	int keys = 0;
	for (int i = 1; i < argc; i++) {
		if (!rd_is_key_pos(k, i))
			continue;
		if (strncmp(words[i], "__key__", 7)) {
			snprintf(detail, sizeof(detail), "the key \"%.200s\" of %s is not __key__: a fixed key is "
				 "outside this run's prefix (%s) and may be someone else's", words[i], k->name, s->prefix);
			s->api->error(s->ctx, NULL, "redis: custom command refused", detail, hint);
			return -1;
		}
		keys++;
	}
	if (!keys) {
		snprintf(detail, sizeof(detail), "%s has no key: write its key as __key__", k->name);
		s->api->error(s->ctx, NULL, "redis: custom command refused", detail, hint);
		return -1;
	}
	return 0;
}

/* An unsigned field of an INFO section; -1 when the server has none. */
int rd_info_u64(rd_state *s, rd_sock *k, const char *section, const char *field, uint64_t *out)
{
	char cmd[64], val[64];
	snprintf(cmd, sizeof(cmd), "INFO %s", section);
	redisReply *r = rd_commandf(s, k, cmd);
	if (!r)
		return -1;
	int rc = -1;
	if (r->type == REDIS_REPLY_STRING) {
		rd_info_field(r->str, field, val, sizeof(val));
		char *end;
		errno = 0;
		unsigned long long v = strtoull(val, &end, 10);
		if (!errno && end != val && (*end == '\0' || *end == '\r')) {
			*out = v;
			rc = 0;
		}
	}
	freeReplyObject(r);
	return rc;
}

/* Before writing about `need` bytes (a fill, or a test whose keys are
   bounded): a server with maxmemory whose used_memory plus that would pass
   it is refused, with the figures. With an evicting policy the write would
   evict keys (maybe others'); with noeviction it would fail with OOM. A
   server without maxmemory, or one that does not tell (an ACL user without
   INFO), is not refused. -1 after api->error(). */
int rd_memory_check(rd_state *s, rd_sock *k, uint64_t need, const char *what)
{
	uint64_t maxmem = 0, used = 0;
	char policy[64], v[128];
	redisReply *r = rd_commandf(s, k, "INFO memory");
	if (!r)
		return -1;
	if (r->type != REDIS_REPLY_STRING) {
		freeReplyObject(r);
		return 0;
	}
	rd_info_field(r->str, "maxmemory", v, sizeof(v));
	maxmem = strtoull(v, NULL, 10);
	rd_info_field(r->str, "used_memory", v, sizeof(v));
	used = strtoull(v, NULL, 10);
	rd_info_field(r->str, "maxmemory_policy", policy, sizeof(policy));
	freeReplyObject(r);
	if (!maxmem || (need <= maxmem && used <= maxmem - need))
		return 0;
	int evicts = strcmp(policy, "noeviction") != 0;
	char detail[600];
	snprintf(detail, sizeof(detail), "%s: about %llu bytes; the server uses %llu of its maxmemory %llu "
		 "(maxmemory-policy %s), so it would %s", what, (unsigned long long)need,
		 (unsigned long long)used, (unsigned long long)maxmem, policy,
		 evicts ? "evict keys, maybe ones this run did not create" : "refuse the writes (OOM)");
	s->api->error(s->ctx, NULL, evicts ? "redis: the test's data would make the server evict keys" :
		      "redis: the test's data does not fit in the server's maxmemory", detail,
		      "use a smaller keyspace, fill or data_size, or a server with more maxmemory");
	return -1;
}

/* A private redis-server (no server given) holds its keys in this
   machine's memory: the keyspace of values, and the lists filled for
   LPOP/RPOP/LRANGE, each with Redis's ~100 bytes a key beyond name and
   value (the figure rd_memory_check is given, redis_cmd.c). */
int rd_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	/* needs() is ABI 1.3 itself: a host that calls it has options() */
	const struct redis_opts *o = api->options(ctx);
	static char why[96];
	if (*o->server)
		return BENCH_OK;
	uint64_t ks = (uint64_t)o->keyspace, ds = (uint64_t)o->data_size, fill = (uint64_t)o->fill;
	out->memory_bytes = (ks ? ks : 1) * (ds + 100 + 40) + fill * (ds + 24) + (64ull << 20);
	snprintf(why, sizeof(why), "a private redis-server: %llu keys of %llu bytes", (unsigned long long)ks,
		 (unsigned long long)ds);
	out->why = why;
	return BENCH_OK;
}

/* Whether the server evicts keys when full (maxmemory set, a policy other
   than noeviction): then a test whose writes grow without bound could
   evict others' keys. Unknown (no INFO) counts as not. */
int rd_server_evicts(rd_state *s, rd_sock *k, char *why, size_t n)
{
	redisReply *r = rd_commandf(s, k, "INFO memory");
	char v[64], policy[64];
	int evicts = 0;
	if (!r)
		return -1;
	if (r->type == REDIS_REPLY_STRING) {
		rd_info_field(r->str, "maxmemory", v, sizeof(v));
		rd_info_field(r->str, "maxmemory_policy", policy, sizeof(policy));
		evicts = strtoull(v, NULL, 10) > 0 && strcmp(policy, "noeviction") && strcmp(policy, "unknown");
		snprintf(why, n, "maxmemory %s, maxmemory-policy %s", v, policy);
	}
	freeReplyObject(r);
	return evicts;
}
