/*
 * redis module: redis-benchmark's workloads against a real Redis, with
 * per-request latency. Shared declarations of the module's files:
 *   redis.c        options, module table, init/prepare/finish/cleanup
 *   redis_conn.c   connections (TCP, unix, TLS), blocking commands for set-up
 *   redis_cmd.c    the tests: request templates, keys, values
 *   redis_run.c    worker threads: one epoll loop per thread
 *   redis_cluster.c  cluster slot map (CLUSTER SLOTS), MOVED/ASK
 *   redis_guard.c  the run's key prefix, custom command checks, maxmemory,
 *                  a private server's memory (needs)
 * Threads: rd_state is written by init/prepare on the main thread and only
 * read by the workers; each rd_thread belongs to one worker.
 */
#ifndef BENCHCORE_REDIS_H
#define BENCHCORE_REDIS_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/ssl.h>
#include <hiredis/hiredis.h>
#include "benchcore/module.h"

/* The length hiredis's reader passes to a createArray callback: an int up to
   hiredis 0.14 (Debian 12), a size_t from 1.0 (Debian 13's 1.2). The
   callbacks (redis_conn.c, redis_reply.c) take this type, so one source
   builds against both without a cast of the function pointer. */
#if HIREDIS_MAJOR >= 1
typedef size_t rd_array_len;
#else
typedef int rd_array_len;
#endif

#define RD_PREFIX	"benchcore:"	/* + the run id + ":" (redis_guard.c) */
#define RD_DIGITS	12		/* __rand_int__ is 12 digits, as redis-benchmark writes it */
#define RD_MAX_ARGS	32
#define RD_MAX_PATCH	24
#define RD_MAX_NODES	64

/* What prepare puts in place before a test is timed (the state
   redis-benchmark's earlier tests leave behind). */
enum rd_fill { RD_FILL_NONE, RD_FILL_KEYS, RD_FILL_LIST, RD_FILL_SET, RD_FILL_ZSET };

/* A patch point in a request template: RD_DIGITS digits (a random key
   number) or the value (data_random). */
typedef struct rd_patch {
	uint32_t off;
	uint8_t data;			/* 1: the value, 0: digits */
} rd_patch;

/* One command of a test, as bytes with patch points. */
typedef struct rd_tmpl {
	char *buf;
	uint32_t len;
	unsigned npatch;
	rd_patch patch[RD_MAX_PATCH];
	int key_arg;			/* RESP offset of the routing key (cluster), -1 = none */
	uint32_t key_off, key_len;
	unsigned op;			/* its op class */
	int expect_hits;		/* a nil or empty reply is an error: the key was there */
} rd_tmpl;

/* The options as the host fills them for each case (ABI 1.3, the table in
   redis.c): enums as their index into the choices, strings host-owned and
   valid until destroy. password holds the secret itself, whether given as
   password, password_env or password_file (the host resolves those). */
struct redis_opts {
	int tests, key_pattern;
	int64_t clients, pipeline, data_size, keyspace, fill, db;
	int data_random, tls, cluster, allow_foreign;
	double reply_timeout;
	const char *ratio, *command, *server, *user, *password;
	const char *tls_ca, *tls_cert, *tls_key;
	const char *server_bin;
};

#define RD_DEFAULT_BIN	"redis-server"	/* server_bin's default */

/* key_pattern's choices, in the order of its table (rd_patterns in redis.c). */
enum rd_key_pattern { RD_KP_UNIFORM, RD_KP_SEQUENTIAL, RD_KP_ZIPF, RD_KP_GAUSSIAN };

typedef struct rd_server {
	char host[256];
	int port;			/* 0: unix socket at host */
} rd_server;

typedef struct rd_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;

	/* options: the host's struct (valid until destroy), and the values in
	   the types the code uses */
	const struct redis_opts *opts;
	const char *test;		/* the case's test, e.g. "SET" */
	unsigned clients, pipeline, threads;
	uint64_t data_size, keyspace, fill;
	int key_pattern, data_random, db, tls, cluster;
	unsigned ratio_set, ratio_get;
	const char *user, *password;
	int allow_foreign;		/* custom commands unchecked, unbounded writes on an evicting server */
	uint64_t reply_ns;		/* reply_timeout: a request waiting longer means the server stopped */

	/* the run's namespace: "benchcore:<run id>:" */
	char prefix[48];
	size_t prefix_len;

	/* where */
	rd_server srv;
	int private_server;
	char sock[256];
	char server_bin[512];		/* the private server's program, as found (a path) */
	char server_name[64];		/* INFO's server_name ("valkey"), or "redis" */
	SSL_CTX *ssl_ctx;

	/* the test */
	rd_tmpl tmpl[2];
	unsigned ntmpl, nops;
	int fill_kind;
	char *data;			/* data_size bytes, the value reused for every key */
	double zipf_theta, zipf_zetan, zipf_eta, zipf_alpha;
	int grows;			/* the test's writes grow without bound (LPUSH, XADD, custom) */
	uint64_t footprint;		/* bytes its fill or bounded writes may take on the server */
	uint64_t reply_max;		/* the largest reply the test can get, bytes */
	uint64_t elems_max;		/* most elements of a reply */
	uint64_t evicted0;		/* INFO stats evicted_keys before the case */
	int evicted_known;
	int uncorrected[2];		/* secondary distributions (rate mode), -1 = none */
	int first_byte[2];		/* redis-benchmark's stamp (pipeline > 1), -1 = none */

	/* cluster: slot -> node */
	unsigned nnodes;
	rd_server nodes[RD_MAX_NODES];
	uint8_t slot_node[16384];

	/* results gathered from the threads (under lock at thread_done) */
	uint64_t nil_replies, moved, asked;
	uint64_t unfinished;		/* counted requests still in flight at the stop */
	uint64_t unfinished_max_ns;	/* the longest wait of any request in flight at the stop */
	uint64_t unfinished_recorded;	/* of them, entered in the histogram (record_unfinished) */
	int thread_failed;		/* a worker returned BENCH_ERR (its error is the reason) */
	double gap_sum;			/* rate mode: sum of intended inter-arrival gaps */
	uint64_t gap_n;
	double req_rate;		/* requested rate estimated from the gaps, per thread summed */
	int rate_mode;
} rd_state;

/* ---- redis_conn.c */
typedef struct rd_sock {
	int fd;
	SSL *ssl;
} rd_sock;

/* Connects (blocking), with TLS, AUTH and SELECT as configured; returns 0, or
   -1 after api->error() (t may be NULL on the main thread). */
int rd_connect(rd_state *s, bench_thread *t, const rd_server *srv, rd_sock *out);
void rd_close(rd_sock *k);
/* Blocking command on a set-up connection: argv of argc words. The reply is
   a hiredis redisReply (freeReplyObject), or NULL after api->error(). */
void *rd_command(rd_state *s, rd_sock *k, int argc, const char **argv, const size_t *lens);
void *rd_commandf(rd_state *s, rd_sock *k, const char *words);	/* space-separated words */
/* Sends raw bytes and reads n replies (prepare's pipelined fills); 0 or -1. */
int rd_pipeline(rd_state *s, rd_sock *k, const char *buf, size_t len, unsigned n);
ssize_t rd_read(rd_sock *k, void *buf, size_t n);	/* -1 with errno EAGAIN when none */
ssize_t rd_write(rd_sock *k, const void *buf, size_t n);
int rd_parse_server(const char *spec, rd_server *out);
int rd_tls_init(rd_state *s);
void rd_describe(const rd_server *srv, char *buf, size_t n);
/* Most bytes and elements a set-up reply (INFO, SCAN, CLUSTER SLOTS) may have. */
#define RD_SETUP_MAX	(16u << 20)
#define RD_SETUP_ELEMS	(1u << 20)

/* ---- redis_cmd.c */
extern const char *const rd_test_names[];
extern const char rd_default_tests[];
int rd_test_setup(rd_state *s, const char *custom);
void rd_test_free(rd_state *s);
/* Appends the RESP encoding of argv to *buf (len/cap grow); -1 when out of memory. */
int rd_resp_append(char **buf, size_t *len, size_t *cap, int argc, const char **argv, const size_t *lens);
/* Key numbers and values. */
uint64_t rd_next_key(const rd_state *s, uint64_t *rng, uint64_t *seq);
void rd_zipf_init(rd_state *s);
static inline uint64_t rd_rand(uint64_t *x)
{
	uint64_t v = *x;		/* xorshift64* */
	v ^= v >> 12;
	v ^= v << 25;
	v ^= v >> 27;
	*x = v;
	return v * 0x2545F4914F6CDD1Dull;
}

/* ---- redis.c */
/* The module's state: the case's, plus the main thread's set-up connections. */
typedef struct rd_main {
	rd_state s;
	rd_sock ctl;			/* set-up connection (main thread) */
	rd_sock nctl[RD_MAX_NODES];	/* cluster: set-up connections to each master */
} rd_main;

void rd_info_field(const char *info, const char *field, char *out, size_t n);
/* Cluster: the set-up connection to master i (connected on first use). */
rd_sock *rd_node_ctl(rd_main *m, unsigned i);
/* The set-up connections of the servers holding the test's keys: the one
   server, or every master of a cluster. NULL past the last (or on error). */
rd_sock *rd_server_ctl(rd_main *m, unsigned i);
unsigned rd_nservers(const rd_main *m);
/* INFO stats evicted_keys summed over the servers; -1 when one does not say. */
int rd_evicted(rd_main *m, uint64_t *out);
/* Evictions since the baseline: the case fails (said, with when); -1. */
int rd_check_evictions(rd_main *m, const char *when);

/* ---- redis_fill.c */
/* The module's prepare: what the test reads, put in place (untimed). */
int rd_prepare(void *state);

/* ---- redis_guard.c */
int rd_run_prefix(rd_state *s);
int rd_custom_check(rd_state *s, const char *line);
int rd_info_u64(rd_state *s, rd_sock *k, const char *section, const char *field, uint64_t *out);
int rd_memory_check(rd_state *s, rd_sock *k, uint64_t need, const char *what);
int rd_server_evicts(rd_state *s, rd_sock *k, char *why, size_t n);
/* The module's needs(): a private server's memory on this machine. */
int rd_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out);

/* ---- redis_run.c */
int rd_thread_init(void *state, bench_thread *t, void **tstate);
int rd_thread_run(void *tstate);
void rd_thread_done(void *tstate);

/* ---- redis_cluster.c */
unsigned rd_key_slot(const char *key, size_t len);
int rd_cluster_map(rd_state *s, rd_sock *k);
int rd_cluster_node_of(const rd_state *s, const char *host, int port);
int rd_resp_slot(const char *p, size_t len);

#endif
