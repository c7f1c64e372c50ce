/*
 * redis module: redis-benchmark 7.0's tests against a real Redis, one case
 * per test, with per-request latency (see redis_run.c for how it is
 * measured and README.md for how it compares with redis-benchmark).
 *
 * One case per test (tests is an enum whose default is a sweep of
 * redis-benchmark's default list): each test gets its own window, warmup,
 * repeats and requests/s, so compare and report read row by row like
 * redis-benchmark's table. The op class of a case is its test's name (SET_GET:
 * the two classes SET and GET).
 *
 * With no server set, the module starts a private redis-server on a unix
 * socket in its module directory (once for all of its cases, through the
 * host, which always stops it). Keys live under "benchcore:"; cleanup deletes
 * them (SCAN + UNLINK), and flushes only the private server it started.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hiredis/hiredis.h>

#include "redis.h"

static const char *const rd_patterns[] = { "uniform", "sequential", "zipf", "gaussian", NULL };

static const bench_option_v1 rd_options[] = {
	{ .name = "tests", .type = BENCH_OPT_ENUM, .def = rd_default_tests, .choices = rd_test_names,
	  .flags = BENCH_OPT_SWEEP_DEFAULT,
	  .help = "tests to run, one case each (default: redis-benchmark 7.0's list, in its order)" },
	{ .name = "clients", .type = BENCH_OPT_INT, .def = "50", .min = 1, .max = 100000,
	  .help = "connections in total, split evenly across threads (redis-benchmark -c)" },
	{ .name = "pipeline", .type = BENCH_OPT_INT, .def = "1", .min = 1, .max = 65536,
	  .help = "requests per connection written together (redis-benchmark -P); rate mode: most in flight" },
	{ .name = "data_size", .type = BENCH_OPT_SIZE, .def = "3", .min = 1, .max = 512.0 * 1024 * 1024,
	  .help = "bytes of each value (redis-benchmark -d)" },
	{ .name = "keyspace", .type = BENCH_OPT_INT, .def = "0", .min = 0, .max = 1e12,
	  .help = "distinct key numbers (redis-benchmark -r); 0 = the literal key, as without -r" },
	{ .name = "key_pattern", .type = BENCH_OPT_ENUM, .def = "uniform", .choices = rd_patterns,
	  .help = "how key numbers are drawn from keyspace: uniform, sequential, zipf (0.99), gaussian" },
	{ .name = "data_random", .type = BENCH_OPT_BOOL, .def = "false",
	  .help = "a distinct value per request instead of one value reused for every key" },
	{ .name = "ratio", .type = BENCH_OPT_STRING, .def = "1:10",
	  .help = "SET:GET requests in tests=SET_GET (memtier's --ratio)" },
	{ .name = "command", .type = BENCH_OPT_STRING,
	  .help = "tests=custom: a command line; __key__ and __data__ are replaced per request" },
	{ .name = "fill", .type = BENCH_OPT_INT, .def = "100000", .min = 600, .max = 1e9,
	  .help = "elements pushed (untimed) before LPOP/RPOP/LRANGE_* (redis-benchmark's LPUSH fill)" },
	{ .name = "server", .type = BENCH_OPT_STRING,
	  .help = "host:port or a unix socket path; empty = a private redis-server" },
	{ .name = "user", .type = BENCH_OPT_STRING, .help = "ACL user for AUTH (with password)" },
	{ .name = "password", .type = BENCH_OPT_STRING, .flags = BENCH_OPT_SECRET | BENCH_OPT_NOSWEEP,
	  .help = "AUTH password (or password_env / password_file)" },
	{ .name = "db", .type = BENCH_OPT_INT, .def = "0", .min = 0, .max = 100000, .help = "SELECT this database" },
	{ .name = "tls", .type = BENCH_OPT_BOOL, .def = "false", .help = "TLS to the server (OpenSSL)" },
	{ .name = "tls_ca", .type = BENCH_OPT_STRING, .help = "CA file (PEM) that signed the server's certificate" },
	{ .name = "tls_cert", .type = BENCH_OPT_STRING, .help = "client certificate (PEM), with tls_key" },
	{ .name = "tls_key", .type = BENCH_OPT_STRING, .help = "client key (PEM)" },
	{ .name = "cluster", .type = BENCH_OPT_BOOL, .def = "false",
	  .help = "Redis Cluster: route by CLUSTER SLOTS, follow MOVED/ASK" },
	{ 0 }
};

static const bench_metric_v1 rd_metrics[] = {
	{ "requests_per_sec", "req/s", 1 },
	{ "p50_ms", "ms", 0 },
	{ "requested_per_sec", "req/s", 1 },
	{ "achieved_pct", "%", 1 },
	{ 0 }
};

typedef struct rd_main {
	rd_state s;
	rd_sock ctl;			/* set-up connection (main thread) */
	rd_sock nctl[RD_MAX_NODES];	/* cluster: set-up connections to each master */
} rd_main;

/* Cluster: the set-up connection to master i (connected on first use). */
static rd_sock *rd_node_ctl(rd_main *m, unsigned i)
{
	if (m->nctl[i].fd < 0 && rd_connect(&m->s, NULL, &m->s.nodes[i], &m->nctl[i]) != 0)
		return NULL;
	return &m->nctl[i];
}

/* redis-server in PATH, or NULL. */
static const char *rd_find_server(char *buf, size_t n)
{
	const char *path = getenv("PATH");
	char copy[4096];
	snprintf(copy, sizeof(copy), "%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, n, "%s/redis-server", d);
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return NULL;
}

static int rd_start_private(rd_state *s)
{
	const bench_host_api_v1 *api = s->api;
	char bin[512];
	if (!rd_find_server(bin, sizeof(bin))) {
		api->set_error(s->ctx, "redis: no server set and redis-server is not installed "
			       "(set server=host:port, or install redis-server)");
		return BENCH_SKIP;
	}
	const char *dir = api->module_dir(s->ctx);
	snprintf(s->sock, sizeof(s->sock), "%s/redis.sock", dir);
	const char *argv[] = { bin, "--port", "0", "--unixsocket", s->sock, "--unixsocketperm", "700",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", NULL };
	bench_server_spec_v1 spec = { .name = "redis", .argv = argv, .ready_unix = s->sock };
	if (api->server_start(s->ctx, &spec) != BENCH_OK)
		return BENCH_ERR;	/* the host set the reason with the server's log */
	rd_parse_server(s->sock, &s->srv);
	s->private_server = 1;
	return BENCH_OK;
}

/* "field:value" of an INFO text into out. */
static void rd_info_field(const char *info, const char *field, char *out, size_t n)
{
	size_t fl = strlen(field);
	snprintf(out, n, "unknown");
	for (const char *p = info; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, field, fl) && p[fl] == ':') {
			size_t l = strcspn(p + fl + 1, "\r\n");
			snprintf(out, n, "%.*s", (int)l, p + fl + 1);
			return;
		}
}

/* CONFIG GET name, or "unknown" (an ACL user may not run CONFIG). */
static void rd_config(rd_main *m, const char *name, char *out, size_t n)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "CONFIG GET %s", name);
	snprintf(out, n, "unknown");
	redisReply *r = rd_commandf(&m->s, &m->ctl, cmd);
	if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 && r->element[1]->type == REDIS_REPLY_STRING)
		snprintf(out, n, "%s", r->element[1]->str);
	if (r)
		freeReplyObject(r);
}

static int rd_record_info(rd_main *m)
{
	rd_state *s = &m->s;
	const bench_host_api_v1 *api = s->api;
	char v[400], save[256], aof[64], where[300];
	redisReply *r = rd_commandf(s, &m->ctl, "INFO");
	if (!r)
		return -1;
	if (r->type != REDIS_REPLY_STRING) {
		freeReplyObject(r);
		api->error(s->ctx, NULL, "redis: INFO failed", r->type == REDIS_REPLY_ERROR ? r->str : "not a string", NULL);
		return -1;
	}
	rd_info_field(r->str, "redis_version", v, sizeof(v));
	api->set_info(s->ctx, "redis_version", v);
	rd_info_field(r->str, "redis_mode", v, sizeof(v));
	api->set_info(s->ctx, "redis_mode", v);
	if (!strcmp(v, "cluster") && !s->cluster)
		api->log(s->ctx, BENCH_LOG_WARN, "the server is a cluster node: set cluster = true, or keys of other nodes fail with MOVED");
	rd_info_field(r->str, "maxmemory", v, sizeof(v));
	api->set_info(s->ctx, "maxmemory", v);
	rd_info_field(r->str, "maxmemory_policy", v, sizeof(v));
	api->set_info(s->ctx, "maxmemory_policy", v);
	rd_info_field(r->str, "aof_enabled", aof, sizeof(aof));
	rd_info_field(r->str, "role", v, sizeof(v));
	api->set_info(s->ctx, "role", v);
	freeReplyObject(r);
	rd_config(m, "io-threads", v, sizeof(v));
	api->set_info(s->ctx, "io_threads", v);
	rd_config(m, "save", save, sizeof(save));
	snprintf(v, sizeof(v), "rdb save \"%s\", aof %s", save, !strcmp(aof, "1") ? "on" : !strcmp(aof, "0") ? "off" : aof);
	api->set_info(s->ctx, "persistence", v);
	rd_describe(&s->srv, where, sizeof(where));
	api->set_info(s->ctx, "server", s->private_server ? "private redis-server (unix socket)" : where);
	snprintf(v, sizeof(v), "%d.%d.%d", HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH);
	api->set_info(s->ctx, "hiredis_version", v);
	api->set_info(s->ctx, "tls", s->tls ? "on" : "off");
	return 0;
}

static int rd_read_options(rd_state *s)
{
	const bench_host_api_v1 *api = s->api;
	bench_ctx *ctx = s->ctx;
	s->test = api->opt_string(ctx, "tests");
	s->clients = (unsigned)api->opt_int(ctx, "clients");
	s->pipeline = (unsigned)api->opt_int(ctx, "pipeline");
	s->threads = api->threads(ctx);
	s->data_size = (uint64_t)api->opt_int(ctx, "data_size");
	s->keyspace = (uint64_t)api->opt_int(ctx, "keyspace");
	s->fill = (uint64_t)api->opt_int(ctx, "fill");
	s->key_pattern = api->opt_enum(ctx, "key_pattern");
	s->data_random = api->opt_bool(ctx, "data_random");
	s->db = (int)api->opt_int(ctx, "db");
	s->tls = api->opt_bool(ctx, "tls");
	s->cluster = api->opt_bool(ctx, "cluster");
	s->user = api->opt_string(ctx, "user");
	s->password = api->opt_string(ctx, "password");
	if (s->clients < s->threads) {
		char d[160];
		snprintf(d, sizeof(d), "clients = %u connections in total cannot be split across %u threads",
			 s->clients, s->threads);
		api->error(ctx, NULL, "redis: fewer clients than threads", d,
			   "clients counts connections in total (redis-benchmark -c): give at least one per thread");
		return -1;
	}
	const char *ratio = api->opt_string(ctx, "ratio");
	if (sscanf(ratio, "%u:%u", &s->ratio_set, &s->ratio_get) != 2 || s->ratio_set + s->ratio_get == 0 ||
	    s->ratio_set > 1000000 || s->ratio_get > 1000000) {
		api->error(ctx, NULL, "redis: bad ratio", ratio, "write SET:GET, e.g. ratio = \"1:10\"");
		return -1;
	}
	if (*s->user && !*s->password) {
		api->error(ctx, NULL, "redis: user without password", "AUTH needs both",
			   "set password (or password_env / password_file)");
		return -1;
	}
	const char *server = api->opt_string(ctx, "server");
	if (*server && rd_parse_server(server, &s->srv) != 0) {
		api->error(ctx, NULL, "redis: bad server", server,
			   "write host:port, [ipv6]:port, or the path of a unix socket (starting with / or .)");
		return -1;
	}
	if (!*server && (s->tls || s->cluster)) {
		api->error(ctx, NULL, s->tls ? "redis: tls needs a server" : "redis: cluster needs a server",
			   "the private server has no TLS and is not a cluster", "set server=host:port");
		return -1;
	}
	return 0;
}

static int rd_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	if (!BENCH_HOST_HAS(api, dist_percentile) || !BENCH_HOST_HAS(api, server_start)) {
		api->set_error(ctx, "redis: this module needs a host with ABI 1.1 (benchcore 0.1 or later)");
		return BENCH_ERR;
	}
	rd_main *m = calloc(1, sizeof(*m));
	rd_state *s = &m->s;
	m->ctl.fd = -1;
	for (int i = 0; i < RD_MAX_NODES; i++)
		m->nctl[i].fd = -1;
	s->api = api;
	s->ctx = ctx;
	s->uncorrected[0] = s->uncorrected[1] = s->first_byte[0] = s->first_byte[1] = -1;
	*state = m;
	if (rd_read_options(s) != 0)
		return BENCH_ERR;
	if (!*api->opt_string(ctx, "server")) {
		int rc = rd_start_private(s);
		if (rc != BENCH_OK)
			return rc;
	}
	if (s->tls && rd_tls_init(s) != 0)
		return BENCH_ERR;
	if (rd_connect(s, NULL, &s->srv, &m->ctl) != 0 || rd_record_info(m) != 0)
		return BENCH_ERR;
	if (s->cluster && rd_cluster_map(s, &m->ctl) != 0)
		return BENCH_ERR;
	if (s->cluster && !strcmp(s->test, "MSET")) {
		api->set_error(ctx, "redis: MSET is not run on a cluster: its 10 random keys fall in different slots");
		return BENCH_SKIP;
	}
	if (rd_test_setup(s, api->opt_string(ctx, "command")) != 0)
		return BENCH_ERR;
	const char *one[] = { s->test, NULL }, *two[] = { "SET", "GET", NULL };
	if (api->set_op_classes(ctx, s->nops > 1 ? two : one) != BENCH_OK)
		return BENCH_ERR;
	for (unsigned op = 0; op < s->nops; op++) {
		if ((s->uncorrected[op] = api->dist(ctx, op, "uncorrected")) < 0)
			return BENCH_ERR;
		if (s->pipeline > 1 && (s->first_byte[op] = api->dist(ctx, op, "first_byte")) < 0)
			return BENCH_ERR;
	}
	if (s->keyspace && s->key_pattern == 2)
		rd_zipf_init(s);
	return BENCH_OK;
}

/* Sends total commands built by gen(i, ...) in pipelined chunks, with progress. */
typedef void (*rd_gen_fn)(rd_state *s, uint64_t i, char **buf, size_t *len, size_t *cap);

static int rd_fill_run(rd_main *m, uint64_t total, rd_gen_fn gen, uint64_t units_per_cmd, const char *unit)
{
	rd_state *s = &m->s;
	unsigned nn = s->cluster ? s->nnodes : 1, ncmd[RD_MAX_NODES];
	char *buf[RD_MAX_NODES] = { 0 }, *one = NULL;
	size_t len[RD_MAX_NODES], cap[RD_MAX_NODES] = { 0 }, olen, ocap = 0;
	uint64_t done = 0;
	int rc = 0;
	while (done < total && rc == 0) {
		memset(ncmd, 0, sizeof(ncmd));
		memset(len, 0, sizeof(len));
		for (unsigned n = 0; n < 256 && done < total; n++, done += units_per_cmd) {
			if (!s->cluster) {
				gen(s, done, &buf[0], &len[0], &cap[0]);
				ncmd[0]++;
				continue;
			}
			olen = 0;	/* a cluster: each command to the master of its key */
			gen(s, done, &one, &olen, &ocap);
			int slot = rd_resp_slot(one, olen);
			unsigned node = slot < 0 ? 0 : s->slot_node[slot];
			if (len[node] + olen > cap[node]) {
				cap[node] = (len[node] + olen) * 2;
				buf[node] = realloc(buf[node], cap[node]);
			}
			memcpy(buf[node] + len[node], one, olen);
			len[node] += olen;
			ncmd[node]++;
		}
		for (unsigned i = 0; i < nn && rc == 0; i++) {
			rd_sock *k = s->cluster ? rd_node_ctl(m, i) : &m->ctl;
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

static void rd_key_text(const rd_state *s, const char *what, uint64_t i, char *out, size_t n)
{
	if (s->keyspace)
		snprintf(out, n, "%s%s:%012llu", strcmp(what, "element") ? RD_PREFIX : "", what, (unsigned long long)i);
	else
		snprintf(out, n, "%s%s:__rand_int__", strcmp(what, "element") ? RD_PREFIX : "", what);
}

#define RD_PER_CMD 100
static void rd_gen_keys(rd_state *s, uint64_t i, char **buf, size_t *len, size_t *cap)
{
	const char *argv[1 + 2 * RD_PER_CMD];
	size_t lens[1 + 2 * RD_PER_CMD];
	char keys[RD_PER_CMD][64];
	uint64_t total = s->keyspace ? s->keyspace : 1;
	int argc = 1;
	argv[0] = s->cluster ? "SET" : "MSET";	/* a cluster: one key per command */
	lens[0] = strlen(argv[0]);
	for (uint64_t k = i; k < i + (s->cluster ? 1 : RD_PER_CMD) && k < total; k++) {
		rd_key_text(s, "key", k, keys[k - i], sizeof(keys[0]));
		argv[argc] = keys[k - i];
		lens[argc++] = strlen(keys[k - i]);
		argv[argc] = s->data;
		lens[argc++] = s->data_size;
	}
	rd_resp_append(buf, len, cap, argc, argv, lens);
}

static void rd_gen_list(rd_state *s, uint64_t i, char **buf, size_t *len, size_t *cap)
{
	const char *argv[2 + RD_PER_CMD] = { "LPUSH", RD_PREFIX "mylist" };
	size_t lens[2 + RD_PER_CMD] = { 5, strlen(RD_PREFIX "mylist") };
	int argc = 2;
	for (uint64_t k = i; k < i + RD_PER_CMD && k < s->fill; k++) {
		argv[argc] = s->data;
		lens[argc++] = s->data_size;
	}
	rd_resp_append(buf, len, cap, argc, argv, lens);
}

static void rd_gen_members(rd_state *s, uint64_t i, char **buf, size_t *len, size_t *cap)
{
	int zset = s->fill_kind == RD_FILL_ZSET;
	const char *argv[2 + 2 * RD_PER_CMD] = { zset ? "ZADD" : "SADD", zset ? RD_PREFIX "myzset" : RD_PREFIX "myset" };
	size_t lens[2 + 2 * RD_PER_CMD] = { 4, strlen(argv[1]) };
	char el[RD_PER_CMD][48], sc[RD_PER_CMD][24];
	uint64_t total = s->keyspace ? s->keyspace : 1;
	int argc = 2;
	for (uint64_t k = i; k < i + RD_PER_CMD && k < total; k++) {
		if (zset) {
			snprintf(sc[k - i], sizeof(sc[0]), "%llu", s->keyspace ? (unsigned long long)k : 0ull);
			argv[argc] = sc[k - i];
			lens[argc++] = strlen(sc[k - i]);
		}
		rd_key_text(s, "element", k, el[k - i], sizeof(el[0]));
		argv[argc] = el[k - i];
		lens[argc++] = strlen(el[k - i]);
	}
	rd_resp_append(buf, len, cap, argc, argv, lens);
}

/* Puts in place what the test reads: the state redis-benchmark's earlier
   tests leave behind (GET after SET, LPOP after LPUSH, LRANGE after its LPUSH
   fill, SPOP after SADD, ZPOPMIN after ZADD). Untimed. */
static int rd_prepare(void *state)
{
	rd_main *m = state;
	rd_state *s = &m->s;
	static const char *const fixed[] = { "mylist", "myset", "myzset", "myhash", "mystream", NULL };
	for (int i = 0; fixed[i]; i++) {	/* one key per command: they may live on different masters */
		char key[64];
		snprintf(key, sizeof(key), RD_PREFIX "%s", fixed[i]);
		const char *argv[] = { "UNLINK", key };
		size_t lens[] = { 6, strlen(key) };
		rd_sock *k = s->cluster ? rd_node_ctl(m, s->slot_node[rd_key_slot(key, lens[1])]) : &m->ctl;
		redisReply *r = k ? rd_command(s, k, 2, argv, lens) : NULL;
		if (!r)
			return BENCH_ERR;
		if (r->type == REDIS_REPLY_ERROR) {
			s->api->error(s->ctx, NULL, "redis: cannot delete the test's keys", r->str,
				      !strncmp(r->str, "MOVED", 5) ? "the server is a cluster node: set cluster = true" : NULL);
			freeReplyObject(r);
			return BENCH_ERR;
		}
		freeReplyObject(r);
	}
	uint64_t members = s->keyspace ? s->keyspace : 1;
	switch (s->fill_kind) {
	case RD_FILL_KEYS:
		return rd_fill_run(m, members, rd_gen_keys, s->cluster ? 1 : RD_PER_CMD, "keys") ? BENCH_ERR : BENCH_OK;
	case RD_FILL_LIST:
		return rd_fill_run(m, s->fill, rd_gen_list, RD_PER_CMD, "elements") ? BENCH_ERR : BENCH_OK;
	case RD_FILL_SET:
	case RD_FILL_ZSET:
		return rd_fill_run(m, members, rd_gen_members, RD_PER_CMD, "members") ? BENCH_ERR : BENCH_OK;
	}
	return BENCH_OK;
}

static int rd_finish(void *state)
{
	rd_main *m = state;
	rd_state *s = &m->s;
	const bench_host_api_v1 *api = s->api;
	bench_totals_v1 t = { 0 };
	uint64_t all = 0;
	double secs = 0;
	for (unsigned op = 0; op < s->nops; op++)
		if (api->totals(s->ctx, op, &t) == BENCH_OK) {
			all += t.count;
			secs = t.seconds;
		}
	double rps = secs > 0 ? (double)all / secs : 0;
	api->report_metric(s->ctx, "requests_per_sec", rps);
	uint64_t p50;
	if (s->nops == 1 && api->percentile(s->ctx, 0, 50, &p50) == BENCH_OK)
		api->report_metric(s->ctx, "p50_ms", (double)p50 / 1e6);
	if (s->rate_mode && s->req_rate > 0) {
		api->report_metric(s->ctx, "requested_per_sec", s->req_rate);
		api->report_metric(s->ctx, "achieved_pct", 100 * rps / s->req_rate);
	}
	char v[32];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)s->nil_replies);
	api->set_info(s->ctx, "nil_replies", v);
	if (s->cluster) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)s->moved);
		api->set_info(s->ctx, "redirects", v);
	}
	if (s->nil_replies && (s->fill_kind == RD_FILL_LIST || s->fill_kind == RD_FILL_SET || s->fill_kind == RD_FILL_ZSET))
		api->log(s->ctx, BENCH_LOG_WARN, "%s: %llu of %llu replies were empty (nothing left to pop): "
			 "raise fill or keyspace, or limit the requests with --events", s->test,
			 (unsigned long long)s->nil_replies, (unsigned long long)all);
	return BENCH_OK;
}

/* SCAN + UNLINK of the prefix on one server; one key per UNLINK, so a
   cluster master's keys of different slots go too. */
static void rd_cleanup_on(rd_state *s, rd_sock *k)
{
	char cursor[32] = "0", *buf = NULL;
	size_t cap = 0;
	do {
		const char *argv[] = { "SCAN", cursor, "MATCH", RD_PREFIX "*", "COUNT", "1000" };
		size_t lens[6], len = 0;
		for (int i = 0; i < 6; i++)
			lens[i] = strlen(argv[i]);
		redisReply *r = rd_command(s, k, 6, argv, lens);
		if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
			if (r)
				freeReplyObject(r);
			s->api->log(s->ctx, BENCH_LOG_WARN, "cleanup: SCAN failed: keys under %s may remain", RD_PREFIX);
			break;
		}
		snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
		redisReply *keys = r->element[1];
		for (size_t i = 0; i < keys->elements; i++) {
			const char *kv[] = { "UNLINK", keys->element[i]->str };
			size_t kl[] = { 6, keys->element[i]->len };
			rd_resp_append(&buf, &len, &cap, 2, kv, kl);
		}
		if (keys->elements && rd_pipeline(s, k, buf, len, (unsigned)keys->elements) != 0) {
			freeReplyObject(r);
			break;
		}
		freeReplyObject(r);
	} while (strcmp(cursor, "0") && !s->api->cancelled(s->ctx));
	free(buf);
}

/* Deletes every key under the prefix; the private server, which benchcore
   started, is flushed instead. */
static void rd_cleanup(void *state)
{
	rd_main *m = state;
	rd_state *s = &m->s;
	if (m->ctl.fd < 0)
		return;
	if (s->private_server) {
		redisReply *r = rd_commandf(s, &m->ctl, "FLUSHALL ASYNC");
		if (r)
			freeReplyObject(r);
		return;
	}
	if (!s->cluster) {
		rd_cleanup_on(s, &m->ctl);
		return;
	}
	for (unsigned i = 0; i < s->nnodes; i++) {
		rd_sock *k = rd_node_ctl(m, i);
		if (k)
			rd_cleanup_on(s, k);
	}
}

static void rd_destroy(void *state)
{
	rd_main *m = state;
	rd_close(&m->ctl);
	for (int i = 0; i < RD_MAX_NODES; i++)
		rd_close(&m->nctl[i]);
	rd_test_free(&m->s);
	if (m->s.ssl_ctx)
		SSL_CTX_free(m->s.ssl_ctx);
	free(m);
}

static const bench_module_v1 rd_module = {
	BENCH_MODULE_HEADER,
	.name		= "redis",
	.version	= "1.0",
	.summary	= "redis-benchmark's tests against a real Redis, per-request latency",
	.options	= rd_options,
	.metrics	= rd_metrics,
	.requires	= { .service = "redis" },
	.init		= rd_init,
	.prepare	= rd_prepare,
	.thread_init	= rd_thread_init,
	.thread_run	= rd_thread_run,
	.thread_done	= rd_thread_done,
	.finish		= rd_finish,
	.cleanup	= rd_cleanup,
	.destroy	= rd_destroy,
	.headline_metric = "requests_per_sec",
};
BENCH_MODULE(rd_module);
