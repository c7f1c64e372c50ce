/*
 * benchcore module ABI, version 1.
 *
 * This header is the whole contract between the benchcore host and a workload
 * module (a shared object). It is self-contained on purpose: a module includes
 * only this file and the C library, and never links against core symbols. The
 * host hands the module a table of functions (bench_host_api_v1); the module
 * hands the host a description of itself (bench_module_v1).
 *
 * Compatibility rules:
 *  - magic, abi_major, abi_minor and struct_size sit at fixed offsets at the
 *    start of bench_module_v1 and bench_host_api_v1 and never move.
 *  - The host refuses a module whose abi_major differs from its own.
 *  - Both structs are append-only. The host copies min(struct_size, sizeof)
 *    bytes of a module's struct into a zeroed copy, so a module built against
 *    an older minor version reads the newer fields as NULL/0. A module must
 *    check api->struct_size before using a field added in a later minor.
 *  - reserved[] slots must be NULL.
 *
 * Threads and memory:
 *  - init, prepare, finish, cleanup and destroy run on the host's main thread
 *    (of the process running the case); thread_init, event / thread_run and
 *    thread_done run on the worker thread they belong to.
 *  - Strings and tables in bench_module_v1 are owned by the module and must
 *    live as long as the module is loaded (use static storage).
 *  - Strings returned by the host API are owned by the host and stay valid
 *    until destroy returns.
 *  - A module never calls exit(), never writes to stdout and never installs
 *    signal handlers: it reports failure by returning BENCH_ERR (or
 *    BENCH_SKIP from init) after api->set_error().
 */
#ifndef BENCHCORE_MODULE_H
#define BENCHCORE_MODULE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_MODULE_MAGIC	0x314d4342u	/* "BCM1" little-endian */
#define BENCH_ABI_MAJOR		1
#define BENCH_ABI_MINOR		0

/* Return codes of callbacks. */
#define BENCH_OK		0
#define BENCH_ERR		(-1)	/* failed: message given with set_error() */
#define BENCH_SKIP		1	/* init only: the case cannot run here; reason via set_error() */

/* ---------------------------------------------------------------- options */

typedef enum bench_opt_type {
	BENCH_OPT_BOOL = 1,	/* true/false */
	BENCH_OPT_INT,		/* 64-bit signed integer */
	BENCH_OPT_SIZE,		/* bytes; config accepts 4096, "4K", "16M", "2G" (powers of 1024) */
	BENCH_OPT_DOUBLE,
	BENCH_OPT_STRING,
	BENCH_OPT_ENUM		/* one of choices[] */
} bench_opt_type;

/* Option flags. */
#define BENCH_OPT_SECRET	0x1u	/* never printed, logged or written to results */
#define BENCH_OPT_NOSWEEP	0x2u	/* may not be given as a list (a sweep) */

typedef struct bench_option_v1 {
	const char *name;		/* lower_case key used in site.conf and key=value */
	bench_opt_type type;
	const char *def;		/* default written as in a config value ("4K", "true", "read");
					   NULL means no default: an empty string, 0, or false */
	const char *help;		/* one line, shown by `benchcore help MODULE` */
	const char *const *choices;	/* ENUM: NULL-terminated list of accepted values */
	double min, max;		/* INT/SIZE/DOUBLE: inclusive bounds, checked when min < max */
	unsigned flags;			/* BENCH_OPT_* flags */
} bench_option_v1;

/* A derived metric the module reports from finish() with report_metric(). */
typedef struct bench_metric_v1 {
	const char *name;		/* e.g. "mib_per_sec" */
	const char *unit;		/* e.g. "MiB/s" */
	int higher_is_better;		/* 1 for throughput, 0 for latency-like metrics */
} bench_metric_v1;

/* What the module needs from the machine; unmet requirements skip its cases. */
typedef struct bench_requirements_v1 {
	uint64_t min_memory;		/* bytes of available memory, 0 = none */
	uint64_t min_disk;		/* bytes free at the path in option disk_path_option */
	const char *disk_path_option;	/* name of a STRING option holding a path, or NULL */
	uint32_t min_cpus;		/* online CPUs, 0 = none */
	uint32_t heavy;			/* 1: dropped by "small VM" configs (skip_heavy = true) */
	const char *service;		/* informational: external server it talks to, or NULL */
} bench_requirements_v1;

/* --------------------------------------------------------------- host API */

typedef struct bench_ctx bench_ctx;		/* one case (opaque, owned by the host) */
typedef struct bench_thread bench_thread;	/* one worker thread of a case (opaque) */

/* Totals of one op class over the measured window, for derived metrics. */
typedef struct bench_totals_v1 {
	uint64_t count;			/* operations recorded */
	uint64_t errors;		/* operations recorded as errors */
	uint64_t bytes;			/* bytes moved */
	double seconds;			/* length of the measured window */
	unsigned threads;
} bench_totals_v1;

enum bench_log_level { BENCH_LOG_ERROR = 0, BENCH_LOG_WARN, BENCH_LOG_INFO, BENCH_LOG_DEBUG };

typedef struct bench_host_api_v1 {
	uint32_t magic;			/* BENCH_MODULE_MAGIC */
	uint32_t abi_major, abi_minor;
	uint32_t struct_size;		/* sizeof the host's table; check before using new fields */

	/* Option values of the current case (already validated against the table).
	   Asking for a name not in the options table, or with the wrong getter,
	   is a programming error: the host logs it and returns 0 / "". */
	int64_t (*opt_int)(bench_ctx *ctx, const char *name);	/* INT, SIZE, BOOL */
	double (*opt_double)(bench_ctx *ctx, const char *name);	/* DOUBLE, INT, SIZE */
	int (*opt_bool)(bench_ctx *ctx, const char *name);
	const char *(*opt_string)(bench_ctx *ctx, const char *name);	/* STRING, ENUM */
	int (*opt_enum)(bench_ctx *ctx, const char *name);	/* ENUM: index in choices[] */

	unsigned (*threads)(bench_ctx *ctx);		/* worker threads in this case */
	const char *(*scratch_dir)(bench_ctx *ctx);	/* private temp dir, removed by the host */

	/* Messages. log() goes to stderr with the module's name; set_error()
	   stores the reason the current callback is about to return BENCH_ERR or
	   BENCH_SKIP. Never pass a secret option's value to either. */
	void (*log)(bench_ctx *ctx, int level, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));
	void (*set_error)(bench_ctx *ctx, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));

	/* Monotonic clock in nanoseconds (CLOCK_MONOTONIC). */
	uint64_t (*now_ns)(void);

	/* Worker-thread calls: only from the thread that owns t. Lock-free. */
	unsigned (*thread_index)(bench_thread *t);	/* 0 .. threads-1 */
	int (*should_stop)(bench_thread *t);		/* nonzero: leave thread_run now */
	/* Open-loop pacing: waits until this thread's next intended start (when a
	   rate is set) and returns it; returns now_ns() at once in closed loop.
	   Measure latency from the returned time, so queueing delay counts. */
	uint64_t (*pace)(bench_thread *t);
	/* One operation of class op (index into op_classes) that took latency_ns
	   and moved bytes. Only counted during the measured window. */
	void (*record)(bench_thread *t, unsigned op, uint64_t latency_ns, uint64_t bytes);
	/* One failed operation; kind is a short static string ("timeout", "EIO"). */
	void (*record_error)(bench_thread *t, unsigned op, const char *kind);

	/* finish() calls: measured totals of op class op, and derived metrics.
	   The metric name must be one of the module's metrics[]. */
	int (*totals)(bench_ctx *ctx, unsigned op, bench_totals_v1 *out);
	void (*report_metric)(bench_ctx *ctx, const char *name, double value);
	/* Facts worth keeping with the result (library or server version, file
	   system of the target): written to the case's "info" object. */
	void (*set_info)(bench_ctx *ctx, const char *key, const char *value);
	/* Nonzero once the user asked the run to stop (Ctrl-C): a long prepare
	   or cleanup loop checks it and returns early (prepare with BENCH_ERR). */
	int (*cancelled)(bench_ctx *ctx);
	/* Worker-thread call: nonzero during the measured window, 0 during
	   warmup. For modules with their own budgets (e.g. a total size) that
	   warmup must not use up. */
	int (*measuring)(bench_thread *t);
	/* n operations of class op timed together: each counted with latency
	   latency_ns and bytes bytes. One call per batch instead of n. */
	void (*record_n)(bench_thread *t, unsigned op, uint64_t n, uint64_t latency_ns,
			 uint64_t bytes);

	void *reserved[8];
} bench_host_api_v1;

/* ------------------------------------------------------------- the module */

typedef struct bench_module_v1 {
	uint32_t magic;			/* BENCH_MODULE_MAGIC */
	uint32_t abi_major, abi_minor;
	uint32_t struct_size;		/* sizeof(bench_module_v1) when built */

	const char *name;		/* unique, [a-z0-9_]+ */
	const char *version;
	const char *summary;		/* one line */
	const bench_option_v1 *options;	/* terminated by an entry with name == NULL */
	const char *const *op_classes;	/* NULL-terminated, at most 16; NULL = {"event"} */
	const bench_metric_v1 *metrics;	/* terminated by name == NULL; may be NULL */
	bench_requirements_v1 requires;

	/* Case set-up: read options, allocate state, probe services. May return
	   BENCH_SKIP with a reason. state is passed to every later callback. */
	int (*init)(const bench_host_api_v1 *api, bench_ctx *ctx, void **state);
	/* Untimed preparation (files, data). Reuse what an earlier case of the
	   same run prepared when it is still valid. */
	int (*prepare)(void *state);
	/* Per worker thread; *tstate is handed to event/thread_run/thread_done. */
	int (*thread_init)(void *state, bench_thread *t, void **tstate);
	/* Exactly one of event and thread_run must be set.
	   event: one unit of work, timed by the host as op class 0; *bytes (zeroed
	   by the host) may be set to the bytes it moved. Return BENCH_OK, or
	   BENCH_ERR to count an error (set_error not needed).
	   thread_run: loop until should_stop(), calling record() per operation. */
	int (*event)(void *tstate, uint64_t *bytes);
	int (*thread_run)(void *tstate);
	void (*thread_done)(void *tstate);
	/* After the threads stopped: derived metrics via totals()/report_metric(). */
	int (*finish)(void *state);
	/* Remove what prepare made (not called when the user sets keep = true). */
	void (*cleanup)(void *state);
	/* Free state. Always called when init succeeded. */
	void (*destroy)(void *state);

	void *reserved[8];
} bench_module_v1;

#define BENCH_MODULE_HEADER \
	.magic = BENCH_MODULE_MAGIC, .abi_major = BENCH_ABI_MAJOR, \
	.abi_minor = BENCH_ABI_MINOR, .struct_size = sizeof(bench_module_v1)

#define BENCH_ENTRY_SYMBOL "bench_module_v1_entry"

/* Defines the module's one exported symbol. Use once per module. */
#define BENCH_MODULE(desc) \
	__attribute__((visibility("default"))) const bench_module_v1 *bench_module_v1_entry(void); \
	__attribute__((visibility("default"))) const bench_module_v1 *bench_module_v1_entry(void) \
	{ return &(desc); }

#ifdef __cplusplus
}
#endif
#endif /* BENCHCORE_MODULE_H */
