/* sqlite: an SDK example, a workload module of the shape a third party
 * writes (the report of #54 tried one): SQLite statements against a
 * database in the case's scratch directory. prepare loads `rows` rows;
 * each event is one statement of `op`: a point select by a random key, or
 * an insert. Shows typed options, needs() declaring the disk the case will
 * write in its scratch directory (ABI 1.4: scratch_dir() and time_s() in
 * needs()), the run's seed for the keys, one connection per thread,
 * info, and a derived metric. Build: make (needs libsqlite3-dev). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include <benchcore/module.h>

#define ROW_BYTES	200		/* a row's payload */
#define ROW_DISK	300		/* ... and what it takes on disk with its key and index */
#define INSERTS_PER_S	200000		/* a generous bound of one thread's inserts per second */

typedef struct sq_opts {
	int64_t rows;		/* INT: rows prepare loads */
	int op;			/* ENUM: index into sq_ops */
} sq_opts;

static const char *const sq_ops[] = { "select", "insert", NULL };
static const bench_option_v1 sq_options[] = {
	{ .name = "rows", .type = BENCH_OPT_INT, .def = "10000", .help = "rows loaded before the window",
	  .min = 1, .max = 1000000, .flags = BENCH_OPT_SCALES, BENCH_OPT_AT(sq_opts, rows) },
	{ .name = "op", .type = BENCH_OPT_ENUM, .def = "select", .choices = sq_ops,
	  .help = "the statement of each event: a point select or an insert", BENCH_OPT_AT(sq_opts, op) },
	{ 0 }
};
static const bench_metric_v1 sq_metrics[] = { { "statements_per_sec", "stmt/s", 1 }, { 0 } };

typedef struct sq_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	const sq_opts *o;
	char path[4096];
	uint64_t seed;
} sq_state;

typedef struct sq_thread {
	sq_state *s;
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t rng;		/* xorshift64*, from the run's seed and the thread */
	int64_t next_key;	/* insert: this thread's keys, past the loaded rows */
} sq_thread;

/* The database and what the window may add: rows x ROW_DISK, plus (insert)
   threads x time x INSERTS_PER_S rows. In the scratch directory, so no
   disk_path: a 1.4 host checks disk_bytes there. */
static int sq_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	const sq_opts *o = api->options(ctx);
	double rows = (double)o->rows;
	if (o->op == 1 && BENCH_HOST_SINCE(api, 4, time_s))
		rows += api->threads(ctx) * api->time_s(ctx) * INSERTS_PER_S;
	out->disk_bytes = (uint64_t)(rows * ROW_DISK);
	out->memory_bytes = 8u << 20;	/* SQLite's page cache per connection, at most */
	out->why = o->op == 1 ? "rows loaded + threads x time x 200000 inserts/s, 300 bytes each" :
				"rows x 300 bytes";
	return BENCH_OK;
}

static int sq_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	sq_state *s = calloc(1, sizeof(*s));
	if (!s) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	s->api = api;
	s->ctx = ctx;
	s->o = api->options(ctx);
	s->seed = BENCH_HOST_SINCE(api, 4, seed) ? api->seed(ctx) : 1;
	snprintf(s->path, sizeof(s->path), "%s/bench.db", api->scratch_dir(ctx));
	api->set_info(ctx, "sqlite_version", sqlite3_libversion());
	*state = s;
	return BENCH_OK;
}

static int sq_exec(sq_state *s, sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
		return BENCH_OK;
	s->api->errorf(s->ctx, NULL, "sqlite: %s\n%s", err ? err : "error", sql);
	sqlite3_free(err);
	return BENCH_ERR;
}

/* rows rows of ROW_BYTES bytes, in one transaction, with progress. */
static int sq_prepare(void *state)
{
	sq_state *s = state;
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char payload[ROW_BYTES + 1];
	int rc = BENCH_ERR;
	memset(payload, 'x', ROW_BYTES);
	payload[ROW_BYTES] = '\0';
	unlink(s->path);	/* this case's own data, whatever a killed case left */
	if (sqlite3_open(s->path, &db) != SQLITE_OK) {
		s->api->errorf(s->ctx, NULL, "cannot open %s: %s", s->path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return BENCH_ERR;
	}
	if (sq_exec(s, db, "PRAGMA journal_mode=WAL; CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT); BEGIN") ||
	    sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (int64_t k = 0; k < s->o->rows; k++) {
		sqlite3_bind_int64(st, 1, k);
		sqlite3_bind_text(st, 2, payload, ROW_BYTES, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE || sqlite3_reset(st) != SQLITE_OK) {
			s->api->errorf(s->ctx, NULL, "loading row %" PRId64 ": %s", k, sqlite3_errmsg(db));
			goto out;
		}
		if ((k & 1023) == 0 && s->api->cancelled(s->ctx))
			goto out;
		if ((k & 1023) == 0 && BENCH_HOST_HAS(s->api, progress))
			s->api->progress(s->ctx, (uint64_t)k, (uint64_t)s->o->rows, "rows");
	}
	rc = sq_exec(s, db, "COMMIT");
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

static uint64_t sq_rand(sq_thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 2685821657736338717ull;
}

static int sq_thread_init(void *state, bench_thread *bt, void **tstate)
{
	sq_state *s = state;
	sq_thread *t = calloc(1, sizeof(*t));
	unsigned i = s->api->thread_index(bt);
	if (!t)
		return BENCH_ERR;
	t->s = s;
	t->rng = (s->seed + 1) * 0x9e3779b97f4a7c15ull + i + 1;
	t->next_key = s->o->rows + (int64_t)i * 1000000000000ll;
	*tstate = t;
	const char *sql = s->o->op == 1 ? "INSERT INTO t VALUES (?, ?)" : "SELECT v FROM t WHERE k = ?";
	if (sqlite3_open(s->path, &t->db) != SQLITE_OK || sqlite3_busy_timeout(t->db, 5000) != SQLITE_OK ||
	    sqlite3_prepare_v2(t->db, sql, -1, &t->st, NULL) != SQLITE_OK) {
		s->api->errorf(s->ctx, bt, "thread %u: %s", i, sqlite3_errmsg(t->db));
		return BENCH_ERR;
	}
	return BENCH_OK;
}

static int sq_event(void *tstate, uint64_t *bytes)
{
	sq_thread *t = tstate;
	int want = t->s->o->op == 1 ? SQLITE_DONE : SQLITE_ROW;
	if (t->s->o->op == 1) {
		static const char payload[ROW_BYTES] = { 'y' };
		sqlite3_bind_int64(t->st, 1, t->next_key++);
		sqlite3_bind_text(t->st, 2, payload, ROW_BYTES, SQLITE_STATIC);
	} else {
		sqlite3_bind_int64(t->st, 1, (int64_t)(sq_rand(t) % (uint64_t)t->s->o->rows));
	}
	int rc = sqlite3_step(t->st);
	sqlite3_reset(t->st);
	*bytes = ROW_BYTES;
	return rc == want ? BENCH_OK : BENCH_ERR;
}

static void sq_thread_done(void *tstate)
{
	sq_thread *t = tstate;
	sqlite3_finalize(t->st);
	sqlite3_close(t->db);
	free(t);
}

static int sq_finish(void *state)
{
	sq_state *s = state;
	bench_totals_v1 tot;
	if (s->api->totals(s->ctx, 0, &tot) == BENCH_OK && tot.seconds > 0)
		s->api->report_metric(s->ctx, "statements_per_sec", (double)tot.count / tot.seconds);
	return BENCH_OK;
}

/* The database is the case's: removed with its scratch directory anyway,
   but cleanup says what prepare made is gone (keep = true leaves it). */
static void sq_cleanup(void *state)
{
	sq_state *s = state;
	char wal[4200];
	unlink(s->path);
	snprintf(wal, sizeof(wal), "%s-wal", s->path);
	unlink(wal);
	snprintf(wal, sizeof(wal), "%s-shm", s->path);
	unlink(wal);
}

static void sq_destroy(void *state)
{
	free(state);
}

static const bench_module_v1 sq_module = {
	BENCH_MODULE_HEADER,
	.name = "sqlite",
	.version = "1.0",
	.summary = "SDK example: SQLite point selects or inserts on a database in the scratch directory",
	.options = sq_options,
	.opts_size = sizeof(sq_opts),
	.metrics = sq_metrics,
	.op_classes = (const char *const[]){ "statement", NULL },
	.needs = sq_needs,
	.init = sq_init,
	.prepare = sq_prepare,
	.thread_init = sq_thread_init,
	.event = sq_event,
	.thread_done = sq_thread_done,
	.finish = sq_finish,
	.cleanup = sq_cleanup,
	.destroy = sq_destroy,
};
BENCH_MODULE(sq_module);
