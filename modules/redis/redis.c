/*
 * redis module: redis-benchmark 7.0's tests against a real Redis, one case
 * per test, with per-request latency (see redis_run.c for how it is
 * measured, redis_fill.c for what prepare puts in place, and README.md for
 * how it compares with redis-benchmark).
 *
 * One case per test (tests is an enum whose default is a sweep of
 * redis-benchmark's default list): each test gets its own window, warmup,
 * repeats and requests/s, so compare and report read row by row like
 * redis-benchmark's table. The op class of a case is its test's name (SET_GET:
 * the two classes SET and GET).
 *
 * With no server set, the module starts a private server_bin (redis-server
 * or valkey-server) on a unix socket in its module directory (once for all
 * of its cases, through the host, which always stops it); either answers by
 * address too, and the case records which (server_name, server_version). Keys live under the run's own prefix
 * "benchcore:<run id>:" (redis_guard.c); cleanup deletes only those (SCAN +
 * UNLINK), and flushes only the private server it started. Nothing else on
 * a server is touched: custom commands are checked, a fill or bounded write
 * that would pass maxmemory is refused, and an eviction fails the case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <hiredis/hiredis.h>

#include "redis.h"

/* In the order of enum rd_key_pattern (redis.h): the host hands over the index. */
static const char *const rd_patterns[] = { "uniform", "sequential", "zipf", "gaussian", NULL };

static const bench_option_v1 rd_options[] = {
	{ .name = "tests", .type = BENCH_OPT_ENUM, .def = rd_default_tests, .choices = rd_test_names,
	  .flags = BENCH_OPT_SWEEP_DEFAULT, BENCH_OPT_AT(struct redis_opts, tests),
	  .help = "tests to run, one case each (default: redis-benchmark 7.0's list, in its order)" },
	{ .name = "clients", .type = BENCH_OPT_INT, .def = "50", .min = 1, .max = 100000,
	  .help = "connections in total, split evenly across threads (redis-benchmark -c)",
	  BENCH_OPT_AT(struct redis_opts, clients) },
	{ .name = "pipeline", .type = BENCH_OPT_INT, .def = "1", .min = 1, .max = 65536,
	  .help = "requests per connection written together (redis-benchmark -P); rate mode: most in flight",
	  BENCH_OPT_AT(struct redis_opts, pipeline) },
	{ .name = "data_size", .type = BENCH_OPT_SIZE, .def = "3", .min = 1, .max = 512.0 * 1024 * 1024,
	  .help = "bytes of each value (redis-benchmark -d)", BENCH_OPT_AT(struct redis_opts, data_size) },
	{ .name = "keyspace", .type = BENCH_OPT_INT, .def = "0", .min = 0, .max = 1e12, .flags = BENCH_OPT_SCALES,
	  .help = "distinct key numbers (redis-benchmark -r); 0 = the literal key, as without -r",
	  BENCH_OPT_AT(struct redis_opts, keyspace) },
	{ .name = "key_pattern", .type = BENCH_OPT_ENUM, .def = "uniform", .choices = rd_patterns,
	  .help = "how key numbers are drawn from keyspace: uniform, sequential, zipf (0.99), gaussian",
	  BENCH_OPT_AT(struct redis_opts, key_pattern) },
	{ .name = "data_random", .type = BENCH_OPT_BOOL, .def = "false", BENCH_OPT_AT(struct redis_opts, data_random),
	  .help = "a distinct value per request instead of one value reused for every key" },
	{ .name = "ratio", .type = BENCH_OPT_STRING, .def = "1:10",
	  .help = "SET:GET requests in tests=SET_GET (memtier's --ratio)", BENCH_OPT_AT(struct redis_opts, ratio) },
	{ .name = "command", .type = BENCH_OPT_STRING, BENCH_OPT_AT(struct redis_opts, command),
	  .help = "tests=custom: a command line; __key__ and __data__ are replaced per request" },
	{ .name = "fill", .type = BENCH_OPT_INT, .def = "100000", .min = 600, .max = 1e9, .flags = BENCH_OPT_SCALES,
	  .help = "elements pushed (untimed) before LPOP/RPOP/LRANGE_* (redis-benchmark's LPUSH fill)",
	  BENCH_OPT_AT(struct redis_opts, fill) },
	{ .name = "server", .type = BENCH_OPT_STRING, .flags = BENCH_OPT_PLACEMENT, BENCH_OPT_AT(struct redis_opts, server),
	  .help = "host:port or a unix socket path; empty = a private server (server_bin)" },
	{ .name = "server_bin", .type = BENCH_OPT_STRING, .def = RD_DEFAULT_BIN, BENCH_OPT_AT(struct redis_opts, server_bin),
	  .help = "the private server's program: a name looked up in PATH (redis-server, valkey-server) or a "
		  "path; a sweep of two compares them (compare --split server_bin)" },
	{ .name = "user", .type = BENCH_OPT_STRING, .flags = BENCH_OPT_PLACEMENT,
	  .help = "ACL user for AUTH (with password)", BENCH_OPT_AT(struct redis_opts, user) },
	{ .name = "password", .type = BENCH_OPT_STRING,
	  .flags = BENCH_OPT_SECRET | BENCH_OPT_NOSWEEP | BENCH_OPT_PLACEMENT,
	  .help = "AUTH password (or password_env / password_file)", BENCH_OPT_AT(struct redis_opts, password) },
	{ .name = "db", .type = BENCH_OPT_INT, .def = "0", .min = 0, .max = 100000, .help = "SELECT this database",
	  BENCH_OPT_AT(struct redis_opts, db) },
	{ .name = "tls", .type = BENCH_OPT_BOOL, .def = "false", .help = "TLS to the server (OpenSSL)",
	  BENCH_OPT_AT(struct redis_opts, tls) },
	{ .name = "tls_ca", .type = BENCH_OPT_STRING, .flags = BENCH_OPT_PLACEMENT, BENCH_OPT_AT(struct redis_opts, tls_ca),
	  .help = "CA file (PEM) that signed the server's certificate" },
	{ .name = "tls_cert", .type = BENCH_OPT_STRING, .flags = BENCH_OPT_PLACEMENT, BENCH_OPT_AT(struct redis_opts, tls_cert),
	  .help = "client certificate (PEM), with tls_key" },
	{ .name = "tls_key", .type = BENCH_OPT_STRING, .flags = BENCH_OPT_PLACEMENT, BENCH_OPT_AT(struct redis_opts, tls_key),
	  .help = "client key (PEM)" },
	{ .name = "cluster", .type = BENCH_OPT_BOOL, .def = "false", BENCH_OPT_AT(struct redis_opts, cluster),
	  .help = "Redis Cluster: route by CLUSTER SLOTS, follow MOVED/ASK" },
	{ .name = "reply_timeout", .type = BENCH_OPT_DOUBLE, .def = "1", .min = 0.01, .max = 3600,
	  .help = "seconds a connection with requests in flight may go without a byte of reply: longer means "
		  "the server stopped answering, and fails the case", BENCH_OPT_AT(struct redis_opts, reply_timeout) },
	{ .name = "allow_foreign", .type = BENCH_OPT_BOOL, .def = "false", BENCH_OPT_AT(struct redis_opts, allow_foreign),
	  .help = "let the run touch data it did not create: custom commands unchecked, "
		  "unbounded writes on a server that evicts (recorded in the case's info)" },
	{ 0 }
};

static const bench_metric_v1 rd_metrics[] = {
	{ "requests_per_sec", "req/s", 1 },
	{ "p50_ms", "ms", 0 },
	{ "requested_per_sec", "req/s", 1 },
	{ "achieved_pct", "%", 1 },
	{ 0 }
};

/* Cluster: the set-up connection to master i (connected on first use). */
rd_sock *rd_node_ctl(rd_main *m, unsigned i)
{
	if (m->nctl[i].fd < 0 && rd_connect(&m->s, NULL, &m->s.nodes[i], &m->nctl[i]) != 0)
		return NULL;
	return &m->nctl[i];
}

/* The private server's program: a name (no slash) looked up in PATH, or a
   path taken as it is; an executable regular file, or NULL. */
static const char *rd_find_server(const char *want, char *buf, size_t n)
{
	struct stat st;
	if (strchr(want, '/')) {
		snprintf(buf, n, "%s", want);
		return access(buf, X_OK) == 0 && stat(buf, &st) == 0 && S_ISREG(st.st_mode) ? buf : NULL;
	}
	const char *path = getenv("PATH");
	char copy[4096];
	snprintf(copy, sizeof(copy), "%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, n, "%s/%s", d, want);
		if (access(buf, X_OK) == 0 && stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return buf;
	}
	return NULL;
}

/* The host's key for the private server (its log and socket are named
   after it): the program's name without "-server" ("redis", "valkey"), and
   for a path a hash of it too, so two builds of one server never share. */
static void rd_server_key(const char *want, const char *bin, char *out, size_t n)
{
	const char *base = strrchr(bin, '/') ? strrchr(bin, '/') + 1 : bin;
	size_t l = strlen(base), sl = strlen("-server");
	if (l > sl && !strcmp(base + l - sl, "-server"))
		l -= sl;
	uint32_t h = 2166136261u;	/* FNV-1a */
	for (const char *c = bin; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	if (strchr(want, '/'))
		snprintf(out, n, "%.*s-%08x", (int)(l > 32 ? 32 : l), base, h);
	else
		snprintf(out, n, "%.*s", (int)(l > 40 ? 40 : l), base);
}

static int rd_start_private(rd_state *s)
{
	const bench_host_api_v1 *api = s->api;
	const char *want = s->opts->server_bin;
	char *bin = s->server_bin, key[64];
	if (!rd_find_server(want, bin, sizeof(s->server_bin))) {
		if (!strcmp(want, RD_DEFAULT_BIN)) {	/* the default, as before: nothing to run against */
			api->set_error(s->ctx, "redis: no server set and redis-server is not installed "
				       "(set server=host:port, or install redis-server)");
			return BENCH_SKIP;
		}
		char d[700];
		if (strchr(want, '/'))
			snprintf(d, sizeof(d), "%s is not an executable file", want);
		else
			snprintf(d, sizeof(d), "no executable %s in PATH (%.500s)", want,
				 getenv("PATH") ? getenv("PATH") : "unset");
		api->error(s->ctx, NULL, "redis: server_bin not found", d,
			   "install it (valkey-server is packaged from Debian 13 on), or give its full path");
		return BENCH_ERR;
	}
	rd_server_key(want, bin, key, sizeof(key));
	const char *dir = api->module_dir(s->ctx);
	snprintf(s->sock, sizeof(s->sock), "%s/%s.sock", dir, key);
	const char *argv[] = { bin, "--port", "0", "--unixsocket", s->sock, "--unixsocketperm", "700",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", NULL };
	bench_server_spec_v1 spec = { .name = key, .argv = argv, .ready_unix = s->sock };
	if (api->server_start(s->ctx, &spec) != BENCH_OK)
		return BENCH_ERR;	/* the host set the reason with the server's log */
	rd_parse_server(s->sock, &s->srv);
	s->private_server = 1;
	return BENCH_OK;
}

/* "field:value" of an INFO text into out. */
void rd_info_field(const char *info, const char *field, char *out, size_t n)
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

/* A server on this machine (a unix socket, a loopback address) does the
   workload's work: its CPU is declared as the server's share (ABI 1.3),
   not as other processes'. The private server the host started is declared
   by the host already. */
static void rd_declare_local(rd_state *s, const char *info)
{
	const char *h = s->srv.host;
	int local = !s->srv.port || !strncmp(h, "127.", 4) || !strcmp(h, "::1") || !strcmp(h, "localhost");
	char pid[32];
	rd_info_field(info, "process_id", pid, sizeof(pid));
	long p = strtol(pid, NULL, 10);
	if (s->private_server || !local || p <= 0 || !BENCH_HOST_HAS(s->api, declare_process))
		return;
	char what[80];
	snprintf(what, sizeof(what), "%s-server", s->server_name);
	if (s->api->declare_process(s->ctx, (int)p, what) != BENCH_OK)
		s->api->log(s->ctx, BENCH_LOG_INFO, "the server's process_id %ld is not a process here "
			    "(a container, or another machine behind the address): its CPU is not told apart", p);
}

/* Which server answers and its own version: Valkey says "server_name:valkey"
   and "valkey_version" (its redis_version is the Redis release it is
   compatible with); Redis has neither and its version is redis_version. */
static void rd_server_ident(rd_state *s, const char *info)
{
	char name[64], v[128];
	rd_info_field(info, "server_name", name, sizeof(name));
	if (!strcmp(name, "unknown"))
		snprintf(name, sizeof(name), "redis");
	snprintf(s->server_name, sizeof(s->server_name), "%s", name);
	char field[80];
	snprintf(field, sizeof(field), "%s_version", name);
	rd_info_field(info, field, v, sizeof(v));
	if (!strcmp(v, "unknown"))
		rd_info_field(info, "redis_version", v, sizeof(v));
	s->api->set_info(s->ctx, "server_name", name);
	s->api->set_info(s->ctx, "server_version", v);
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
	api->set_info(s->ctx, "redis_version", v);	/* Valkey's says 7.2.4 (its compatibility level) */
	rd_server_ident(s, r->str);
	rd_info_field(r->str, "redis_mode", v, sizeof(v));
	if (!strcmp(v, "unknown"))
		rd_info_field(r->str, "server_mode", v, sizeof(v));	/* Valkey's name for it */
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
	rd_declare_local(s, r->str);
	freeReplyObject(r);
	rd_config(m, "io-threads", v, sizeof(v));
	api->set_info(s->ctx, "io_threads", v);
	rd_config(m, "save", save, sizeof(save));
	snprintf(v, sizeof(v), "rdb save \"%s\", aof %s", save, !strcmp(aof, "1") ? "on" : !strcmp(aof, "0") ? "off" : aof);
	api->set_info(s->ctx, "persistence", v);
	rd_describe(&s->srv, where, sizeof(where));
	if (s->private_server)
		snprintf(where, sizeof(where), "private %.270s (unix socket)", s->server_bin);
	api->set_info(s->ctx, "server", where);
	snprintf(v, sizeof(v), "%d.%d.%d", HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH);
	api->set_info(s->ctx, "hiredis_version", v);
	api->set_info(s->ctx, "tls", s->tls ? "on" : "off");
	api->set_info(s->ctx, "key_prefix", s->prefix);
	api->set_info(s->ctx, "per_run", "key_prefix");	/* random per run: not a fact to compare */
	api->set_info(s->ctx, "allow_foreign", s->allow_foreign ? "true" : "false");
	return 0;
}

static int rd_read_options(rd_state *s)
{
	const bench_host_api_v1 *api = s->api;
	bench_ctx *ctx = s->ctx;
	const struct redis_opts *o = s->opts;
	s->test = rd_test_names[o->tests];	/* the choice's own spelling, as the table has it */
	s->clients = (unsigned)o->clients;
	s->pipeline = (unsigned)o->pipeline;
	s->threads = api->threads(ctx);
	s->data_size = (uint64_t)o->data_size;
	s->keyspace = (uint64_t)o->keyspace;
	s->fill = (uint64_t)o->fill;
	s->key_pattern = o->key_pattern;
	s->data_random = o->data_random;
	s->db = (int)o->db;
	s->tls = o->tls;
	s->cluster = o->cluster;
	s->user = o->user;
	s->password = o->password;
	s->allow_foreign = o->allow_foreign;
	s->reply_ns = (uint64_t)(o->reply_timeout * 1e9);
	if (s->clients < s->threads) {
		char d[160];
		snprintf(d, sizeof(d), "clients = %u connections in total cannot be split across %u threads",
			 s->clients, s->threads);
		api->error(ctx, NULL, "redis: fewer clients than threads", d,
			   "clients counts connections in total (redis-benchmark -c): give at least one per thread");
		return -1;
	}
	const char *ratio = o->ratio;
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
	const char *server = o->server;
	if (!*o->server_bin || (*server && strcmp(o->server_bin, RD_DEFAULT_BIN))) {
		api->error(ctx, NULL, "redis: server_bin without a private server",
			   *o->server_bin ? "server_bin names the program of the private server, and with server "
			   "set none is started" : "server_bin is empty",
			   *o->server_bin ? "leave server empty to start server_bin, or drop server_bin to measure "
			   "the server at that address" : "give a program name (redis-server, valkey-server) or a path");
		return -1;
	}
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

/* The set-up connections of the servers holding the test's keys: the one
   server, or every master of a cluster. NULL past the last (or on error). */
rd_sock *rd_server_ctl(rd_main *m, unsigned i)
{
	if (!m->s.cluster)
		return i == 0 ? &m->ctl : NULL;
	return i < m->s.nnodes ? rd_node_ctl(m, i) : NULL;
}

unsigned rd_nservers(const rd_main *m)
{
	return m->s.cluster ? m->s.nnodes : 1;
}

/* INFO stats evicted_keys summed over the servers; -1 when one does not say. */
int rd_evicted(rd_main *m, uint64_t *out)
{
	*out = 0;
	for (unsigned i = 0; i < rd_nservers(m); i++) {
		rd_sock *k = rd_server_ctl(m, i);
		uint64_t v;
		if (!k || rd_info_u64(&m->s, k, "stats", "evicted_keys", &v) != 0)
			return -1;
		*out += v;
	}
	return 0;
}

/* A test whose writes grow with the requests (LPUSH, XADD, custom) on a
   server that evicts when full could evict keys of others: refused unless
   allow_foreign. Then the eviction count before the case. */
static int rd_guard_server(rd_main *m)
{
	rd_state *s = &m->s;
	char why[200], d[400];
	for (unsigned i = 0; s->grows && !s->allow_foreign && i < rd_nservers(m); i++) {
		rd_sock *k = rd_server_ctl(m, i);
		int ev = k ? rd_server_evicts(s, k, why, sizeof(why)) : -1;
		if (ev < 0)
			return -1;
		if (ev) {
			snprintf(d, sizeof(d), "%s writes more with every request, and the server evicts keys when "
				 "full (%s): the test could evict keys this run did not create", s->test, why);
			s->api->error(s->ctx, NULL, "redis: the test could make the server evict others' keys", d,
				      "run it on a server with maxmemory-policy noeviction (or no maxmemory), or set "
				      "allow_foreign = true to run it anyway (an eviction still fails the case)");
			return -1;
		}
	}
	s->evicted_known = rd_evicted(m, &s->evicted0) == 0;
	return 0;
}

static int rd_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	/* options() is ABI 1.3: a host that has it has the 1.1 calls used here
	   too (dist_percentile, server_start), as the table only grows */
	const struct redis_opts *o = BENCH_HOST_HAS(api, options) ? api->options(ctx) : NULL;
	if (!o) {
		api->set_error(ctx, "redis: this module needs a host with ABI 1.3 (typed options)");
		return BENCH_ERR;
	}
	rd_main *m = calloc(1, sizeof(*m));
	if (!m) {
		api->set_error(ctx, "redis: out of memory");
		return BENCH_ERR;
	}
	rd_state *s = &m->s;
	m->ctl.fd = -1;
	for (int i = 0; i < RD_MAX_NODES; i++)
		m->nctl[i].fd = -1;
	s->api = api;
	s->ctx = ctx;
	s->opts = o;
	s->uncorrected[0] = s->uncorrected[1] = s->first_byte[0] = s->first_byte[1] = -1;
	*state = m;
	/* the command's checks come first: a refused command needs no server */
	if (rd_read_options(s) != 0 || rd_run_prefix(s) != 0 ||
	    rd_test_setup(s, o->command) != 0)
		return BENCH_ERR;
	if (!*o->server) {
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
	if (rd_guard_server(m) != 0)
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
	if (s->keyspace && s->key_pattern == RD_KP_ZIPF)
		rd_zipf_init(s);
	return BENCH_OK;
}

/* Evictions since the baseline fail the case (or its prepare): a key
   evicted is data lost, maybe someone else's. */
int rd_check_evictions(rd_main *m, const char *when)
{
	rd_state *s = &m->s;
	uint64_t now;
	if (!s->evicted_known || rd_evicted(m, &now) != 0 || now <= s->evicted0)
		return 0;
	char d[300];
	snprintf(d, sizeof(d), "INFO stats evicted_keys rose by %llu %s: the server hit maxmemory and removed keys "
		 "(maybe ones this run did not create)", (unsigned long long)(now - s->evicted0), when);
	s->api->error(s->ctx, NULL, "redis: the server evicted keys", d,
		      "use a smaller keyspace, fill or data_size, or a server with more maxmemory or "
		      "maxmemory-policy noeviction");
	return -1;
}

/* A case is ok only if the work happened: no request answered in the
   window, or requests still waiting at the stop for longer than the whole
   window (a server that stopped answering), fail it; so does an eviction.
   The workers fail a connection silent past reply_timeout themselves
   (redis_run.c, rd_stalled). */
static int rd_judge(rd_main *m, uint64_t all, double secs)
{
	rd_state *s = &m->s;
	char d[400], where[300];
	rd_describe(&s->srv, where, sizeof(where));
	if (s->thread_failed)
		return BENCH_OK;	/* failed already: a worker's error is the reason */
	if (!all) {
		snprintf(d, sizeof(d), "no request of %s was answered in the window (%.3f s); %llu still waiting "
			 "at its end, the oldest for %.3f s", s->test, secs, (unsigned long long)s->unfinished,
			 (double)s->unfinished_max_ns / 1e9);
		s->api->error(s->ctx, NULL, "redis: no request completed", d,
			      "check that the server answers (redis-cli PING): stopped, swapping, or blocked");
		return BENCH_ERR;
	}
	if (secs > 0 && (double)s->unfinished_max_ns > secs * 1e9) {
		snprintf(d, sizeof(d), "requests were still waiting for a reply when the window closed, the "
			 "oldest for %.3f s, longer than the window (%.3f s); %llu answered in it",
			 (double)s->unfinished_max_ns / 1e9, secs, (unsigned long long)all);
		char msg[400];
		snprintf(msg, sizeof(msg), "redis: the server at %s stopped answering", where);
		s->api->error(s->ctx, NULL, msg, d, "check the server (stopped, swapping, blocked by a slow "
			      "command or a full disk)");
		return BENCH_ERR;
	}
	return rd_check_evictions(m, "during the case") ? BENCH_ERR : BENCH_OK;
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
	all = all > s->unfinished_recorded ? all - s->unfinished_recorded : 0;	/* answered ones only */
	double rps = secs > 0 ? (double)all / secs : 0;
	api->report_metric(s->ctx, "requests_per_sec", rps);
	uint64_t p50;
	if (s->nops == 1 && api->percentile(s->ctx, 0, 50, &p50) == BENCH_OK)
		api->report_metric(s->ctx, "p50_ms", (double)p50 / 1e6);
	if (s->rate_mode && s->req_rate > 0) {
		api->report_metric(s->ctx, "requested_per_sec", s->req_rate);
		api->report_metric(s->ctx, "achieved_pct", 100 * rps / s->req_rate);
	}
	char v[64];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)s->nil_replies);
	api->set_info(s->ctx, "nil_replies", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)s->unfinished);
	api->set_info(s->ctx, "unfinished", v);
	snprintf(v, sizeof(v), "%.3f", (double)s->unfinished_max_ns / 1e6);
	api->set_info(s->ctx, "unfinished_max_ms", v);
	if (s->cluster) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)s->moved);
		api->set_info(s->ctx, "redirects", v);
	}
	if (s->nil_replies && (s->fill_kind == RD_FILL_LIST || s->fill_kind == RD_FILL_SET || s->fill_kind == RD_FILL_ZSET) &&
	    !s->tmpl[0].expect_hits)
		api->log(s->ctx, BENCH_LOG_WARN, "%s: %llu of %llu replies were empty (nothing left to pop): "
			 "raise fill or keyspace, or limit the requests with --events", s->test,
			 (unsigned long long)s->nil_replies, (unsigned long long)all);
	return rd_judge(m, all, secs);
}

/* SCAN + UNLINK of this run's prefix on one server; one key per UNLINK, so
   a cluster master's keys of different slots go too. A key SCAN returns
   outside the prefix (a server that ignores MATCH) is never deleted. */
static int rd_cleanup_batch(rd_state *s, rd_sock *k, const redisReply *keys, char **buf, size_t *cap)
{
	size_t len = 0;
	unsigned n = 0;
	for (size_t i = 0; i < keys->elements; i++) {
		const redisReply *e = keys->element[i];
		if (e->type != REDIS_REPLY_STRING || e->len < s->prefix_len || memcmp(e->str, s->prefix, s->prefix_len))
			continue;
		const char *kv[] = { "UNLINK", e->str };
		size_t kl[] = { 6, e->len };
		if (rd_resp_append(buf, &len, cap, 2, kv, kl) != 0)
			return -1;
		n++;
	}
	return n ? rd_pipeline(s, k, *buf, len, n) : 0;
}

static void rd_cleanup_on(rd_state *s, rd_sock *k)
{
	char cursor[32] = "0", *buf = NULL, match[64];
	size_t cap = 0;
	snprintf(match, sizeof(match), "%s*", s->prefix);
	do {
		const char *argv[] = { "SCAN", cursor, "MATCH", match, "COUNT", "1000" };
		size_t lens[6];
		for (int i = 0; i < 6; i++)
			lens[i] = strlen(argv[i]);
		redisReply *r = rd_command(s, k, 6, argv, lens);
		int ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
			 r->element[0]->type == REDIS_REPLY_STRING && r->element[1]->type == REDIS_REPLY_ARRAY;
		if (ok) {
			snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
			ok = rd_cleanup_batch(s, k, r->element[1], &buf, &cap) == 0;
		}
		if (r)
			freeReplyObject(r);
		if (!ok) {
			s->api->log(s->ctx, BENCH_LOG_WARN, "cleanup: SCAN failed: keys under %s may remain", s->prefix);
			break;
		}
	} while (strcmp(cursor, "0") && !s->api->cancelled(s->ctx));
	free(buf);
}

/* Deletes every key under the run's prefix; the private server, which
   benchcore started, is flushed instead. */
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
	for (unsigned i = 0; i < rd_nservers(m); i++) {
		rd_sock *k = rd_server_ctl(m, i);
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
	.opts_size	= sizeof(struct redis_opts),
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
	.needs		= rd_needs,
};
BENCH_MODULE(rd_module);
