/*
 * oltp: TPC-C on MariaDB/MySQL (tpcc-mysql, HammerDB's NOPM) through the
 * MariaDB C API. The nine tables are loaded once per data point (warehouses,
 * database, server) and kept across runs while a marker table says they are
 * complete; connections come from --threads, one worker thread each.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "oltp.h"

static const char *const oltp_isolation_choices[] = {
	"repeatable-read", "read-committed", "serializable", "read-uncommitted", NULL };
static const char *const oltp_isolation_sql[] = {
	"REPEATABLE READ", "READ COMMITTED", "SERIALIZABLE", "READ UNCOMMITTED" };
static const char *const oltp_mode_choices[] = { "unpaced", "spec", NULL };
static const char *const oltp_check_choices[] = { "auto", "true", "false", NULL };
/* check's choices, in the order of oltp_check_choices[] */
enum oltp_check { CHECK_AUTO, CHECK_ON, CHECK_OFF };

/* The options as the host fills them for each case (ABI 1.3): enums as
   their index into the choices above (mode as enum oltp_mode, check as enum
   oltp_check). The strings are the host's; init copies the password and
   destroy wipes that copy. */
struct oltp_opts {
	const char *server, *socket, *user, *password, *database, *engine, *datadir;
	int64_t warehouses, load_threads, buffer_pool, retries;
	int isolation, foreign_keys, mode, check;
	double reply_timeout;
};

static const bench_option_v1 oltp_options[] = {
	{ "server", BENCH_OPT_STRING, NULL,
	  "host or host:port of the server; with socket also empty, a private MariaDB is started",
	  NULL, 0, 0, BENCH_OPT_NOSWEEP | BENCH_OPT_PLACEMENT, BENCH_OPT_AT(struct oltp_opts, server) },
	{ "socket", BENCH_OPT_STRING, NULL, "unix socket of the server (instead of server)",
	  NULL, 0, 0, BENCH_OPT_NOSWEEP | BENCH_OPT_PLACEMENT, BENCH_OPT_AT(struct oltp_opts, socket) },
	{ "datadir", BENCH_OPT_STRING, NULL,
	  "private server only: the directory its data directory is made in (a new private directory "
	  "there, removed after), e.g. on the file system under test; empty = $TMPDIR. Recorded with its "
	  "file system (info.datadir, datadir_fs_type)",
	  NULL, 0, 0, BENCH_OPT_NOSWEEP | BENCH_OPT_PLACEMENT, BENCH_OPT_AT(struct oltp_opts, datadir) },
	{ "user", BENCH_OPT_STRING, "root", "user name", NULL, 0, 0, BENCH_OPT_NOSWEEP | BENCH_OPT_PLACEMENT,
	  BENCH_OPT_AT(struct oltp_opts, user) },
	{ "password", BENCH_OPT_STRING, NULL, "password (never printed or recorded)", NULL, 0, 0,
	  BENCH_OPT_SECRET | BENCH_OPT_NOSWEEP | BENCH_OPT_PLACEMENT,
	  BENCH_OPT_AT(struct oltp_opts, password) },
	{ "database", BENCH_OPT_STRING, "benchcore_tpcc",
	  "database to load and use; only one whose benchcore marker verifies, holding only the tables "
	  "benchcore created, is ever dropped",
	  NULL, 0, 0, 0, BENCH_OPT_AT(struct oltp_opts, database) },
	{ "warehouses", BENCH_OPT_INT, "1", "TPC-C scale: warehouses (about 100 MiB each; a private server takes 230 MiB more)", NULL, 1, 100000,
	  BENCH_OPT_SCALES, BENCH_OPT_AT(struct oltp_opts, warehouses) },
	{ "load_threads", BENCH_OPT_INT, "0", "connections loading in parallel (0 = online CPUs, at least 2)",
	  NULL, 0, 1024, 0, BENCH_OPT_AT(struct oltp_opts, load_threads) },
	{ "isolation", BENCH_OPT_ENUM, "repeatable-read", "transaction isolation level",
	  oltp_isolation_choices, 0, 0, 0, BENCH_OPT_AT(struct oltp_opts, isolation) },
	{ "foreign_keys", BENCH_OPT_BOOL, "false", "add the schema's foreign keys after the load",
	  NULL, 0, 0, 0, BENCH_OPT_AT(struct oltp_opts, foreign_keys) },
	{ "engine", BENCH_OPT_STRING, "InnoDB", "storage engine of the tables", NULL, 0, 0, 0,
	  BENCH_OPT_AT(struct oltp_opts, engine) },
	{ "mode", BENCH_OPT_ENUM, "unpaced",
	  "unpaced: no keying or think time, any terminal any warehouse (like tpcc-mysql); spec: "
	  "terminals bound to a home warehouse and district, keying and think times, <= 10 per warehouse",
	  oltp_mode_choices, 0, 0, 0, BENCH_OPT_AT(struct oltp_opts, mode) },
	{ "check", BENCH_OPT_ENUM, "auto",
	  "check consistency conditions 1-4 after the load and after the run (auto: up to 10 warehouses)",
	  oltp_check_choices, 0, 0, 0, BENCH_OPT_AT(struct oltp_opts, check) },
	{ "buffer_pool", BENCH_OPT_SIZE, "0",
	  "private server's innodb_buffer_pool_size (0 = 128 MiB + 128 MiB per warehouse)", NULL, 0, 0,
	  BENCH_OPT_NOSWEEP, BENCH_OPT_AT(struct oltp_opts, buffer_pool) },
	{ "retries", BENCH_OPT_INT, "10", "runs of a transaction after a deadlock, lock wait timeout or snapshot conflict",
	  NULL, 0, 1000, 0, BENCH_OPT_AT(struct oltp_opts, retries) },
	{ "reply_timeout", BENCH_OPT_DOUBLE, "2",
	  "seconds a statement may wait while no connection gets any answer: longer means the server "
	  "stopped answering, and fails the case", NULL, 0.05, 3600, 0, BENCH_OPT_AT(struct oltp_opts, reply_timeout) },
	{ NULL }
};

static const char *const oltp_op_classes[] = {
	"new_order", "payment", "order_status", "delivery", "stock_level", NULL };

static const bench_metric_v1 oltp_metrics[] = {
	{ "tpmc", "tpmC", 1 },		/* New-Orders per minute, counted by the client */
	{ "nopm", "NOPM", 1 },		/* New-Orders per minute from the districts' counters */
	{ "tps", "txn/s", 1 },		/* all five types */
	{ "retries", "count", 0 },	/* deadlock and lock wait retries in the window */
	{ "failures", "count", 0 },
	{ "rollback_pct", "%", 0 },	/* New-Orders rolled back by design (about 1 %) */
	{ NULL }
};

static const bench_threshold_v1 oltp_thresholds[] = {
	{ "tpmc", 5 }, { "nopm", 5 }, { "tps", 5 }, { NULL, 0 } };

static const char *const oltp_data_options[] = {
	"warehouses", "database", "server", "socket", "engine", "foreign_keys", NULL };

void oltp_fail(const oltp_state *s, bench_thread *t, const char *detail, const char *hint,
	       const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->api->error(s->ctx, t, msg, detail, hint);
}

int oltp_last_name(char *buf, unsigned n)
{
	static const char *const syl[] = { "BAR", "OUGHT", "ABLE", "PRI", "PRES",
					   "ESE", "ANTI", "CALLY", "ATION", "EING" };
	return sprintf(buf, "%s%s%s", syl[n / 100 % 10], syl[n / 10 % 10], syl[n % 10]);
}

static int oltp_ident_ok(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (!n || n > max)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* oltp is built on host API 1.1 (the functions the message names) and on
   1.3 for its typed options: options() is NULL only on a host that did not
   fill them. */
static int oltp_host_ok(const bench_host_api_v1 *api, bench_ctx *ctx)
{
	if (BENCH_HOST_HAS(api, error) && BENCH_HOST_HAS(api, progress) && BENCH_HOST_HAS(api, percentile) &&
	    BENCH_HOST_HAS(api, server_start) && BENCH_HOST_HAS(api, module_dir) &&
	    BENCH_HOST_HAS(api, stopping) && BENCH_HOST_HAS(api, options) && api->options(ctx))
		return 1;
	api->set_error(ctx, "oltp needs benchcore's host API 1.3 (error, progress, percentile, "
		       "server_start, module_dir, stopping, options); this benchcore speaks %u.%u: update it",
		       (unsigned)api->abi_major, (unsigned)api->abi_minor);
	return 0;
}

static int oltp_read_options(oltp_state *s, const struct oltp_opts *o)
{
	const bench_host_api_v1 *api = s->api;
	bench_ctx *ctx = s->ctx;
	const char *server = o->server;
	snprintf(s->sock, sizeof(s->sock), "%s", o->socket);
	snprintf(s->user, sizeof(s->user), "%s", o->user);
	snprintf(s->db, sizeof(s->db), "%s", o->database);
	snprintf(s->engine, sizeof(s->engine), "%s", o->engine);
	/* a copy of its own, so destroy can wipe it */
	if (!(s->password = strdup(o->password))) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->warehouses = (unsigned)o->warehouses;
	s->load_threads = (unsigned)o->load_threads;
	s->isolation = oltp_isolation_sql[o->isolation];
	s->foreign_keys = o->foreign_keys;
	s->mode = o->mode;
	s->check = o->check == CHECK_AUTO ? s->warehouses <= OLTP_SMALL_SCALE : o->check == CHECK_ON;
	s->retries_max = (int)o->retries;
	s->reply_ns = (uint64_t)(o->reply_timeout * 1e9);
	s->threads = api->threads(ctx);
	if (!s->load_threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		s->load_threads = n > 2 ? (unsigned)n : 2;
	}
	if (!oltp_ident_ok(s->db, 64) || !oltp_ident_ok(s->engine, 31)) {
		api->set_error(ctx, "database \"%s\" and engine \"%s\" may hold only letters, digits and _",
			       s->db, s->engine);
		return BENCH_ERR;
	}
	if (s->mode == MODE_SPEC && s->threads > 10 * s->warehouses) {
		api->set_error(ctx, "mode = spec allows at most 10 terminals per warehouse: %u threads need "
			       "warehouses >= %u", s->threads, (s->threads + 9) / 10);
		return BENCH_ERR;
	}
	if (*server && s->sock[0]) {
		api->set_error(ctx, "set server or socket, not both");
		return BENCH_ERR;
	}
	if ((*server || s->sock[0]) && o->datadir && *o->datadir) {
		api->errorf(ctx, NULL, "datadir is for the private server, and %s is set\nA server of your own "
			    "keeps its data where it was configured to.\nunset datadir, or server and socket",
			    *server ? "server" : "socket");
		return BENCH_ERR;
	}
	snprintf(s->host, sizeof(s->host), "%s", server);
	char *colon = strrchr(s->host, ':');
	if (colon && !strchr(colon, ']')) {
		s->port = (unsigned)strtoul(colon + 1, NULL, 10);
		*colon = '\0';
	}
	return BENCH_OK;
}

static int oltp_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	if (!oltp_host_ok(api, ctx))
		return BENCH_SKIP;
	oltp_state *s = calloc(1, sizeof(*s));
	char err[512], why[256];
	const char *hint;
	*state = s;
	if (!s)
		return BENCH_ERR;
	s->api = api;
	s->ctx = ctx;
	if (mysql_library_init(0, NULL, NULL)) {
		api->set_error(ctx, "cannot initialise the MariaDB client library");
		return BENCH_ERR;
	}
	const struct oltp_opts *o = api->options(ctx);
	if (oltp_read_options(s, o))
		return BENCH_ERR;
	if (!s->host[0] && !s->sock[0]) {
		if (oltp_place(s, o->datadir))
			return BENCH_ERR;
		int rc = oltp_start_private(s, (uint64_t)o->buffer_pool);
		if (rc != BENCH_OK)
			return rc;
	}
	MYSQL *m = oltp_connect(s, NULL, 0, err, sizeof(err), &hint);
	if (!m) {
		oltp_fail(s, NULL, err, hint, "cannot connect to the server");
		return BENCH_ERR;
	}
	oltp_server_info(s, m);
	oltp_declare_server(s, m);
	/* a case whose data point is already prepared skips prepare: C_load
	   comes from the marker */
	if (oltp_marker_read(s, m, why, sizeof(why)) == MARK_OK)
		oltp_draw_c_run(s);
	mysql_close(m);
	api->set_info(ctx, "mode", s->mode == MODE_SPEC
		      ? "spec: home warehouse and district per terminal, keying and think times"
		      : "unpaced: no keying or think times, any terminal any warehouse");
	api->set_info(ctx, "isolation", s->isolation);
	api->set_info(ctx, "client_library", mysql_get_client_info());
	/* what this run's load happened to do, and the private data directory's random path:
	   figures of the run, not facts to compare */
	api->set_info(ctx, "per_run", "load_seconds,load_rows,data,datadir");
	if (oltp_watch_start(s)) {
		api->set_error(ctx, "cannot start the thread that watches the server's answers");
		return BENCH_ERR;
	}
	return BENCH_OK;
}

static int oltp_drop(oltp_state *s, MYSQL *m)
{
	char err[512];
	if (oltp_drop_ours(s, m, err, sizeof(err))) {
		oltp_fail(s, NULL, err, "benchcore drops only a database whose marker it wrote and verifies, "
			  "holding only the tables it created", "database %s is not dropped", s->db);
		return -1;
	}
	return 0;
}

/* Consistency conditions at point `when`, into info check.consistency.WHEN. */
static int oltp_check_db(oltp_state *s, MYSQL *m, const char *when)
{
	char why[512], key[64];
	snprintf(key, sizeof(key), "check.consistency.%s", when);
	if (oltp_consistency(s, m, why, sizeof(why))) {
		s->api->set_info(s->ctx, key, why);
		oltp_fail(s, NULL, why, "the database no longer holds TPC-C's invariants",
			  "consistency check %s failed", when);
		return -1;
	}
	s->api->set_info(s->ctx, key, "OK conditions 1-4");
	s->api->log(s->ctx, BENCH_LOG_INFO, "[OK] consistency conditions 1-4 %s", when);
	return 0;
}

static int oltp_prepare(void *state)
{
	oltp_state *s = state;
	const bench_host_api_v1 *api = s->api;
	char err[512], why[256];
	const char *hint;
	MYSQL *m = oltp_connect(s, NULL, 0, err, sizeof(err), &hint);
	if (!m) {
		oltp_fail(s, NULL, err, hint, "cannot connect to the server");
		return BENCH_ERR;
	}
	int rc = BENCH_OK, mark = oltp_marker_read(s, m, why, sizeof(why));
	switch (mark) {
	case MARK_OK:
		api->log(s->ctx, BENCH_LOG_INFO, "reusing %s: %u warehouse%s, loaded and complete", s->db,
			 s->warehouses, s->warehouses == 1 ? "" : "s");
		api->set_info(s->ctx, "data", "reused");
		break;
	case MARK_FOREIGN:
		oltp_fail(s, NULL, why, "benchcore never drops, loads into or reuses a database it did not "
			  "create: set database to another name, or drop it yourself", "database %s is not "
			  "benchcore's", s->db);
		rc = BENCH_ERR;
		break;
	case MARK_DAMAGED:
		oltp_fail(s, NULL, why, "benchcore neither reuses nor drops it: drop it yourself (DROP "
			  "DATABASE) for a fresh load, or set database to another name",
			  "database %s is not a complete TPC-C load", s->db);
		rc = BENCH_ERR;
		break;
	case MARK_REDO:
		api->log(s->ctx, BENCH_LOG_INFO, "dropping and reloading %s: %s", s->db, why);
		if (oltp_drop(s, m))
			rc = BENCH_ERR;
		/* fall through */
	case MARK_NONE:
		if (rc != BENCH_OK)
			break;
		if (getrandom(&s->seed, sizeof(s->seed), 0) != (ssize_t)sizeof(s->seed))
			s->seed = api->now_ns();
		uint64_t r = s->seed;
		s->c_load.c_last = (unsigned)oltp_rand(&r, 0, 255);
		s->c_load.c_id = (unsigned)oltp_rand(&r, 0, 1023);
		s->c_load.ol_i_id = (unsigned)oltp_rand(&r, 0, 8191);
		rc = oltp_load(s, m);
		api->set_info(s->ctx, "data", mark == MARK_REDO ? "reloaded" : "loaded");
		break;
	default:
		oltp_fail(s, NULL, why, NULL, "cannot inspect database %s", s->db);
		rc = BENCH_ERR;
	}
	if (rc == BENCH_OK) {
		oltp_draw_c_run(s);
		if (s->check && (mysql_select_db(m, s->db) || oltp_check_db(s, m, "before")))
			rc = BENCH_ERR;
	}
	mysql_close(m);
	return rc;
}

/* ------------------------------------------------------------- finish */

static void oltp_info(oltp_state *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void oltp_info(oltp_state *s, const char *key, const char *fmt, ...)
{
	char v[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	s->api->set_info(s->ctx, key, v);
	if (!strncmp(key, "check.", 6))
		s->api->log(s->ctx, BENCH_LOG_INFO, "[%.2s] %s: %s", v, key + 6, v + 3);
}

/* The spec's checks (5.2.3 mix minimums, 5.2.5.3 90th percentile limits),
   with the units said. */
static void oltp_spec_checks(oltp_state *s, const uint64_t *count, uint64_t all)
{
	static const double min_pct[TX_N] = { 0, 43, 4, 4, 4 };
	static const double p90_limit_s[TX_N] = { 5, 5, 5, 5, 20 };
	char key[64];
	for (int k = 0; k < TX_N; k++) {
		double pct = all ? 100.0 * (double)count[k] / (double)all : 0;
		uint64_t ns = 0;
		if (k != TX_NEW_ORDER) {
			snprintf(key, sizeof(key), "check.mix.%s", oltp_op_classes[k]);
			oltp_info(s, key, "%s %.2f %% >= %.0f %%", pct >= min_pct[k] ? "OK" : "NG", pct, min_pct[k]);
		}
		s->api->percentile(s->ctx, (unsigned)k, 90, &ns);
		snprintf(key, sizeof(key), "check.p90.%s", oltp_op_classes[k]);
		oltp_info(s, key, "%s %.3f s <= %.0f s", count[k] && ns / 1e9 <= p90_limit_s[k] ? "OK" : "NG",
			  ns / 1e9, p90_limit_s[k]);
	}
}

static int oltp_finish(void *state)
{
	oltp_state *s = state;
	const bench_host_api_v1 *api = s->api;
	uint64_t count[TX_N], all = 0;
	double secs = 0;
	for (int k = 0; k < TX_N; k++) {
		bench_totals_v1 tot;
		api->totals(s->ctx, (unsigned)k, &tot);
		count[k] = tot.count;
		all += tot.count;
		secs = tot.seconds;
	}
	if (secs > 0) {
		api->report_metric(s->ctx, "tpmc", (double)count[TX_NEW_ORDER] * 60.0 / secs);
		api->report_metric(s->ctx, "tps", (double)all / secs);
	}
	api->report_metric(s->ctx, "retries", (double)s->retries);
	api->report_metric(s->ctx, "failures", (double)s->failures);
	api->report_metric(s->ctx, "rollback_pct",
			   count[TX_NEW_ORDER] ? 100.0 * (double)s->rollbacks / (double)count[TX_NEW_ORDER] : 0);
	oltp_info(s, "retries", "%" PRIu64 " deadlocks, %" PRIu64 " lock wait timeouts, %" PRIu64
		  " snapshot conflicts", s->deadlocks, s->lock_waits, s->conflicts);
	oltp_info(s, "nurand_c", "load C_LAST %u; run C_LAST %u, C_ID %u, OL_I_ID %u", s->c_load.c_last,
		  s->c_run.c_last, s->c_run.c_id, s->c_run.ol_i_id);
	oltp_spec_checks(s, count, all);
	if (__atomic_load_n(&s->unresponsive, __ATOMIC_ACQUIRE))
		return BENCH_ERR;	/* the watcher's error is the reason; the server is not asked again */

	char err[512];
	const char *hint;
	MYSQL *m = oltp_connect(s, s->db, 0, err, sizeof(err), &hint);
	if (!m) {
		oltp_fail(s, NULL, err, hint, "cannot connect to the server after the run");
		return BENCH_ERR;
	}
	int rc = BENCH_OK;
	const struct oltp_snap *b = &s->snap[0], *a = &s->snap[1];
	if (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == 2 &&
	    __atomic_load_n(&a->state, __ATOMIC_ACQUIRE) == 2 && a->ns > b->ns)
		api->report_metric(s->ctx, "nopm", (double)(a->sum - b->sum) * 60e9 / (double)(a->ns - b->ns));
	if (s->check && oltp_check_db(s, m, "after"))
		rc = BENCH_ERR;
	mysql_close(m);
	return rc;
}

/* Drops the database when its marker verifies (benchcore's, holding only
   what it created) on a server of the user's; a private server's data goes
   with the module directory. */
static void oltp_cleanup(void *state)
{
	oltp_state *s = state;
	char err[512], why[256];
	const char *hint;
	if (s->private_server)
		return;
	MYSQL *m = oltp_connect(s, NULL, 0, err, sizeof(err), &hint);
	if (!m)
		return;
	/* only a verified marker's database, and in it only what it lists */
	int mark = oltp_marker_read(s, m, why, sizeof(why));
	if (mark == MARK_OK && oltp_drop(s, m) == 0)
		s->api->log(s->ctx, BENCH_LOG_INFO, "dropped %s (keep = true keeps it for the next run)", s->db);
	else if (mark == MARK_REDO && oltp_drop(s, m) == 0)
		s->api->log(s->ctx, BENCH_LOG_INFO, "dropped %s: %s", s->db, why);
	mysql_close(m);
}

static void oltp_destroy(void *state)
{
	oltp_state *s = state;
	if (!s)
		return;
	oltp_watch_stop(s);
	if (s->password) {
		explicit_bzero(s->password, strlen(s->password));
		free(s->password);
	}
	free(s);
	mysql_library_end();
}

/* A private server (no server or socket given) keeps its data under
   $TMPDIR (or datadir) and its buffer pool in this machine's memory; a server elsewhere
   is its own machine's business. The disk is what its directory was seen
   to take at its peak (du every 0.2 s through the load and a short run,
   MariaDB 10.11): 286 MiB at 1 warehouse, 369 at 2, 475 at 3. Of the 286:
   the redo log 96 (innodb_log_file_size's default), ibdata1 20, ibtmp1 12,
   the system schemas 5, the TPC-C tables 153 (item's 100,000 rows among
   them, whatever the scale). ibdata1 grows in 8 MiB steps here
   (oltp_db.c): in the default 64 MiB ones the same load peaked at 278 or
   at 342 MiB, as the step fell. Declared: 230 MiB and 100 MiB a warehouse
   (330 at 1: 1.15 times the peak, 1.17 at 2, 1.12 at 3), whose headroom
   also takes the rows a run adds, about 2 KiB a New-Order (some 20,000
   New-Orders at 1 warehouse). */
#define OLTP_DISK_FIXED		(230ull << 20)
#define OLTP_DISK_PER_WH	(100ull << 20)

static int oltp_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	static char why[96];
	const char *tmp = getenv("TMPDIR");
	const struct oltp_opts *o = api->options(ctx);
	if (*o->server || *o->socket)
		return BENCH_OK;
	if (o->datadir && *o->datadir)
		tmp = o->datadir;
	uint64_t wh = (uint64_t)o->warehouses, pool = (uint64_t)o->buffer_pool;
	out->disk_bytes = OLTP_DISK_FIXED + wh * OLTP_DISK_PER_WH;
	out->disk_path = tmp && *tmp ? tmp : "/tmp";
	out->memory_bytes = pool ? pool : (128ull << 20) * (1 + wh);
	snprintf(why, sizeof(why), "a private MariaDB: %llu warehouse%s", (unsigned long long)wh, wh == 1 ? "" : "s");
	out->why = why;
	return BENCH_OK;
}

static const bench_module_v1 oltp_module = {
	BENCH_MODULE_HEADER,
	.name		= "oltp",
	.version	= "1.0",
	.summary	= "TPC-C on MariaDB/MySQL: tpmC and NOPM (tpcc-mysql, HammerDB)",
	.options	= oltp_options,
	.opts_size	= sizeof(struct oltp_opts),
	.op_classes	= oltp_op_classes,
	.metrics	= oltp_metrics,
	/* datadir: its default is empty, so the host makes module_dir() (the
	   private server's data) in the directory given, and machine.fs on the
	   file system it made */
	.requires	= { .heavy = 1, .service = "MariaDB or MySQL (private mariadbd when none is set)",
			    .disk_path_option = "datadir" },
	.init		= oltp_init,
	.prepare	= oltp_prepare,
	.thread_init	= oltp_thread_init,
	.thread_run	= oltp_thread_run,
	.thread_done	= oltp_thread_done,
	.finish		= oltp_finish,
	.cleanup	= oltp_cleanup,
	.destroy	= oltp_destroy,
	.data_options	= oltp_data_options,
	.headline_metric = "tpmc",
	.thresholds	= oltp_thresholds,
	.needs		= oltp_needs,
};
BENCH_MODULE(oltp_module);
