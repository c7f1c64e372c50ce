/*
 * oltp module: TPC-C on MariaDB/MySQL through libmariadb (the MariaDB C API).
 *
 * Files of this module:
 *   oltp.c         module table, options, init/prepare/finish/cleanup, metrics, spec checks
 *   oltp_db.c      connections, the private server, server facts, a local server's pid
 *   oltp_marker.c  the marker: what makes a database benchcore's, and the only drops
 *   oltp_load.c    schema and the parallel loader (prepare), consistency conditions
 *   oltp_txn.c     prepared statements, the five transactions, the worker loop
 *   oltp_watch.c   the watcher: a server that stopped answering fails the case
 *
 * Concurrency: struct oltp_state is written by the main thread (init, prepare,
 * finish, cleanup, destroy); worker threads only read it, except the fields
 * marked "atomic". The loader's threads share struct oltp_load (see
 * oltp_load.c). struct oltp_thread belongs to one worker.
 */
#ifndef BENCHCORE_OLTP_H
#define BENCHCORE_OLTP_H

#include <stdint.h>
#include <mariadb/mysql.h>
#include <benchcore/module.h>

/* Op classes, in the order of oltp_op_classes[]. */
enum oltp_tx { TX_NEW_ORDER, TX_PAYMENT, TX_ORDER_STATUS, TX_DELIVERY, TX_STOCK_LEVEL, TX_N };

/* The mode option's choices, in the order of oltp_mode_choices[]. */
enum oltp_mode { MODE_UNPACED, MODE_SPEC };

/* Spec 2.1.6: NURand(A, x, y) constants. C_LAST's load and run values must
   differ by a delta in [65, 119] other than 96 and 112 (2.1.6.1). */
struct oltp_c {
	unsigned c_last, c_id, ol_i_id;
};

#define OLTP_ITEMS		100000
#define OLTP_DISTRICTS		10
#define OLTP_CUSTOMERS		3000	/* per district */
#define OLTP_ORDERS		3000	/* per district */
#define OLTP_FIRST_NEW_ORDER	2101	/* orders 2101..3000 are undelivered */
#define OLTP_SMALL_SCALE	10	/* warehouses up to which check = auto checks */

typedef struct oltp_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;

	/* where and who */
	char host[256], sock[256], user[128], db[65];
	char *password;			/* secret: never printed; wiped in destroy */
	unsigned port;
	int private_server;		/* started through api->server_start */
	char marker_id[33];		/* the load's random id (hex), from or for the marker */

	unsigned warehouses, load_threads, threads;
	int mode, foreign_keys, check;
	const char *isolation;		/* SQL spelling, e.g. "REPEATABLE READ" */
	char engine[32];
	int retries_max;

	uint64_t seed;
	struct oltp_c c_load, c_run;

	/* nopm's window: the first worker to see measuring() takes the
	   "before" snapshot of sum(d_next_o_id), the first to see the case
	   stopping takes "after"; nopm = the difference over the time between
	   them. Both are taken at full load, between two of that worker's
	   transactions, so the window neither includes the ramp-up nor the tail
	   of workers finishing their last transaction after the stop. */
	struct oltp_snap {
		int state;		/* atomic: 0 none, 1 being taken, 2 taken, -1 failed */
		int64_t sum;
		uint64_t ns;
	} snap[2];

	/* counters merged by thread_done (atomic) */
	uint64_t rollbacks, retries, failures, deadlocks, lock_waits, conflicts;

	/* a server that stopped answering (oltp_watch.c) */
	uint64_t reply_ns;		/* reply_timeout */
	struct oltp_watch *watch;	/* NULL: not watched */
	int unresponsive;		/* atomic: the watcher said so; finish asks the server nothing */
} oltp_state;

/* ----- small fast random numbers (one generator per thread) */
static inline uint64_t oltp_rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static inline int64_t oltp_rand(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(oltp_rnd(s) % (uint64_t)(hi - lo + 1));
}

/* Spec 2.1.6: NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x */
static inline int64_t oltp_nurand(uint64_t *s, int64_t a, int64_t x, int64_t y, unsigned c)
{
	return (((oltp_rand(s, 0, a) | oltp_rand(s, x, y)) + c) % (y - x + 1)) + x;
}

/* The customer last name of number n (0..999), spec 4.3.2.3; returns its length. */
int oltp_last_name(char *buf, unsigned n);

/* ----- oltp.c */
/* An error with a message, a detail and a hint (api->error), from any thread. */
void oltp_fail(const oltp_state *s, bench_thread *t, const char *detail, const char *hint,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ----- oltp_db.c */
/* Connects to the configured server (database db, or none when NULL), with
   LOAD DATA LOCAL allowed when local_infile (the loader's connections: they
   serve it from memory through their own handler, never from a file). On
   failure returns NULL with a message (never the password) and a hint. */
MYSQL *oltp_connect(const oltp_state *s, const char *db, int local_infile, char *err, size_t errn,
		    const char **hint);
/* Runs one statement; 0, or -1 with the server's message in err. */
int oltp_exec(MYSQL *m, const char *sql, char *err, size_t errn);
/* One integer from a one-row, one-column query; 0 on success. */
int oltp_query_int(MYSQL *m, const char *sql, int64_t *out);
int oltp_start_private(oltp_state *s, uint64_t data_bytes);
/* ----- oltp_marker.c */
/* What the database is (see oltp_marker.c): MARK_NONE no such database;
   MARK_OK benchcore's, complete, of this scale (seed and C_load read);
   MARK_REDO benchcore's but incomplete or of another scale (drop and load
   again); MARK_FOREIGN not benchcore's, or holding something it did not
   create; MARK_DAMAGED benchcore's marker says complete but tables are
   missing; -1 the server could not be asked. why says which. */
enum { MARK_NONE, MARK_OK, MARK_REDO, MARK_FOREIGN, MARK_DAMAGED };
int oltp_marker_read(oltp_state *s, MYSQL *m, char *why, size_t whyn);
/* Creates the marker table with its row (complete = 0, a new random id);
   the database exists. 0, or -1 with err. */
int oltp_marker_create(oltp_state *s, MYSQL *m, char *err, size_t errn);
/* Marks this load (s->marker_id) complete. 0, or -1 with err. */
int oltp_marker_complete(oltp_state *s, MYSQL *m, char *err, size_t errn);
/* Drops the database when the marker verifies: the listed tables one by one,
   the marker, then the database if nothing else is in it. 0 (also when
   there is no database), or -1 with err (nothing of another's dropped). */
int oltp_drop_ours(oltp_state *s, MYSQL *m, char *err, size_t errn);
/* Drops the database only when it holds nothing at all. 0, or -1 with err. */
int oltp_drop_if_empty(oltp_state *s, MYSQL *m, char *err, size_t errn);
void oltp_server_info(oltp_state *s, MYSQL *m);
/* Declares a server on this machine to the host (ABI 1.3 declare_process). */
void oltp_declare_server(oltp_state *s, MYSQL *m);

/* ----- oltp_load.c */
int oltp_load(oltp_state *s, MYSQL *m);
/* Consistency conditions 1-4 (spec 3.3.2.1-4); 0 when all hold, else -1
   with the first violation in why. */
int oltp_consistency(oltp_state *s, MYSQL *m, char *why, size_t whyn);

/* ----- oltp_txn.c */
/* ----- oltp_watch.c: the watcher thread (init starts it, destroy stops it)
   and what worker i publishes for it: a statement sent, its answer, its
   connection (NULL: none). */
int oltp_watch_start(oltp_state *s);
void oltp_watch_stop(oltp_state *s);
void oltp_watch_sent(oltp_state *s, unsigned i);
void oltp_watch_answered(oltp_state *s, unsigned i);
void oltp_watch_conn(oltp_state *s, unsigned i, MYSQL *m);

int oltp_thread_init(void *state, bench_thread *t, void **tstate);
int oltp_thread_run(void *tstate);
void oltp_thread_done(void *tstate);
/* Draws C_run from C_load within the spec's allowed delta. */
void oltp_draw_c_run(oltp_state *s);

/* oltp_place.c: the private server's data in the module directory, checked
   to be under datadir when given, recorded with its file system (info).
   BENCH_OK, or BENCH_ERR with the reason set. */
int oltp_place(oltp_state *s, const char *datadir);
#endif
