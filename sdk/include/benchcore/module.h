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
 *  - A module built for a newer minor than the host's loads as long as it
 *    uses nothing the host does not know: a nonzero byte past the host's
 *    last field of bench_module_v1 or bench_option_v1, or an option flag
 *    outside BENCH_OPT_KNOWN_FLAGS, is refused with the field or flag named.
 *  - A module that calls host API members of a minor unconditionally sets
 *    host_minor (1.4) to that minor: a host of an older minor refuses it at
 *    load, naming the module and both minors (a 1.3 host, which does not
 *    know host_minor, refuses it as a descriptor field it does not know).
 *    A module that tests each member with BENCH_HOST_SINCE leaves it 0 and
 *    loads on every host of its major.
 *
 * Threads, processes and memory:
 *  - needs() runs first, in a process of the host's own that loads the module
 *    for the plan (once per case of the plan, before anything runs); no other
 *    callback is called there.
 *  - init, prepare, finish, cleanup and destroy run on the host's main thread
 *    (of the process running the case); thread_init, event / thread_run and
 *    thread_done run on the worker thread they belong to.
 *  - The host calls; the module never calls a callback of its own from
 *    another thread. Host API calls are made only while the host is inside a
 *    callback of the module (and from the threads the comments below name).
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
#define BENCH_ABI_MINOR		4

/* Is member of a host API table (or module struct) there? A module built
   against this header may run on an older host: test every 1.1 member before
   calling it, e.g.  if (BENCH_HOST_HAS(api, stop_fd)) ... */
#define BENCH_HOST_HAS(api, member) \
	((api)->struct_size >= offsetof(__typeof__(*(api)), member) + sizeof((api)->member) && \
	 (api)->member != NULL)
/* ABI 1.4: a member of minor `minor` or later, on a host that says it speaks
   that minor. Use it for every 1.4 member: a 1.3 host that was built before
   record_unfinished and warmup_n were given their minor may have them or
   not, and only the minor tells what the table promises, e.g.
     if (BENCH_HOST_SINCE(api, 4, seed)) s->seed = api->seed(ctx); */
#define BENCH_HOST_SINCE(api, minor, member) \
	((api)->abi_major == BENCH_ABI_MAJOR && (api)->abi_minor >= (minor) && BENCH_HOST_HAS(api, member))

/* Most op classes a module may declare (static table or set_op_classes()). */
#define BENCH_MAX_OP_CLASSES	256

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
/* ABI 1.2: a STRING option whose value is itself a list (redis: tests). In
   site.conf a list [ "set", "get" ] or "set,get", on the command line
   tests=set,get: one value, never a sweep. opt_string() returns the items
   joined by ","; with choices[] set, every item must be one of them (compared
   case-insensitively, handed over in the choices' spelling, duplicates kept
   in order). */
#define BENCH_OPT_LIST		0x4u
/* ABI 1.2: the default is a sweep: def lists values separated by "," and
   each becomes a point of the matrix unless the user gives the option
   (redis: tests, one case per test as redis-benchmark's table). Given
   options replace the whole list. ENUM values (like all ENUM values) are
   matched case-insensitively and kept in the choices' spelling. */
#define BENCH_OPT_SWEEP_DEFAULT	0x8u
/* ABI 1.3: the option says where the workload runs, not what it does (a
   server address, a socket, a path, TLS files, a secret, buffer placement).
   compare and report do not use it to match cases across machines, so two
   machines' runs against different servers or paths still meet. */
#define BENCH_OPT_PLACEMENT	0x10u
/* ABI 1.3: a SIZE or INT option the host may make smaller to fit the
   machine or a quick try (the `scale` setting, profile = "small"): io file
   size, mem buffer, redis keyspace. Never below min; the host records every
   change in the case's params and says it in the plan. */
#define BENCH_OPT_SCALES	0x20u
/* The flag bits a host of this minor knows; a module built for a newer
   minor that sets any other bit is refused with the option named. */
#define BENCH_OPT_KNOWN_FLAGS	0x3fu

typedef struct bench_option_v1 {
	const char *name;		/* lower_case key used in site.conf and key=value */
	bench_opt_type type;
	const char *def;		/* default written as in a config value ("4K", "true", "read");
					   NULL means no default: an empty string, 0, or false */
	const char *help;		/* one line, shown by `benchcore help MODULE` */
	const char *const *choices;	/* ENUM: NULL-terminated list of accepted values */
	double min, max;		/* INT/SIZE/DOUBLE: inclusive bounds, checked when min < max */
	unsigned flags;			/* BENCH_OPT_* flags */
	/* ABI 1.3 (read only when the module sets opts_size): where the host
	   stores this option's value in the case's options struct; write it
	   with BENCH_OPT_AT(struct_type, member). The member's C type follows
	   the option's type:
	     BOOL int (0/1)     INT int64_t    SIZE int64_t (bytes)
	     DOUBLE double      STRING (and LIST) const char * (host-owned)
	     ENUM int (index into choices[])
	   The host refuses a module whose offsets do not fit opts_size. */
	size_t offset;
} bench_option_v1;

/* ABI 1.3: the offset of an option's member in the module's options struct. */
#define BENCH_OPT_AT(type, member)	.offset = offsetof(type, member)

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
	const char *disk_path_option;	/* name of a STRING option holding a path, or NULL.
					   Its file system is the run's host.io, and machine.fs
					   points it at the file system it made. An option whose
					   default is empty names, when given, the directory the
					   host makes module_dir() in (oltp's datadir: its
					   private server's data) */
	uint32_t min_cpus;		/* online CPUs, 0 = none */
	uint32_t heavy;			/* 1: dropped by "small VM" configs (skip_heavy = true) */
	const char *service;		/* informational: external server it talks to, or NULL */
} bench_requirements_v1;

/* ABI 1.3: what one case needs from this machine, computed by the module's
   needs() from the case's resolved options. The host checks it against the
   machine before the case (free space at disk_path, available memory, usable
   CPUs) and skips the case with the figures when it does not fit. A server
   on another machine is not this machine's business: leave those at 0. */
typedef struct bench_needs_v1 {
	uint32_t struct_size;		/* set by the host: sizeof its struct */
	uint64_t disk_bytes;		/* free bytes needed at disk_path */
	const char *disk_path;		/* a directory (or a file's directory); static or
					   host-owned (an option's value or scratch_dir());
					   NULL: none, or since 1.4 (a module of minor >= 4
					   with disk_bytes > 0) the scratch directory */
	uint64_t memory_bytes;		/* available memory needed on this machine */
	uint32_t cpus;			/* usable CPUs needed (affinity and cgroup quota) */
	const char *why;		/* how the figures were reached, e.g.
					   "4 files x 1.0 GiB"; static storage */
} bench_needs_v1;

/* --------------------------------------------------------------- host API */

typedef struct bench_ctx bench_ctx;		/* one case (opaque, owned by the host) */
struct bench_server_spec_v1;
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
	   Asking for a name not in the options table, or with a getter that does
	   not read the option's type (the comments below), is a programming
	   error: the getter returns 0 / "" and the case fails with a reason
	   naming the getter and the option (before 1.3 it was only logged).
	   Since 1.3 a module may read a typed struct instead (options()). */
	int64_t (*opt_int)(bench_ctx *ctx, const char *name);	/* INT, SIZE, BOOL */
	double (*opt_double)(bench_ctx *ctx, const char *name);	/* DOUBLE, INT, SIZE */
	int (*opt_bool)(bench_ctx *ctx, const char *name);
	const char *(*opt_string)(bench_ctx *ctx, const char *name);	/* STRING, ENUM */
	int (*opt_enum)(bench_ctx *ctx, const char *name);	/* ENUM: index in choices[] */

	unsigned (*threads)(bench_ctx *ctx);		/* worker threads in this case */
	/* The case's private temp dir, made before init and removed by the host
	   after destroy. In needs() (ABI 1.4; NULL before) the case's directory
	   does not exist yet: the directory it will be made in (TMPDIR or /tmp,
	   so the same file system): declare disk there, write nothing. */
	const char *(*scratch_dir)(bench_ctx *ctx);

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
	   system of the target): written to the case's "info" object. A
	   figure of the run rather than a fact (a random key prefix, the rows
	   a load inserted) is listed in the key "per_run" ("key_prefix" or
	   "load_rows,load_seconds"): compare and its tables never show it as
	   a fact that differs between two files. The host itself adds
	   "libraries_loaded" after init: the shared objects the module's file
	   brought in, each with its file. */
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

	/* ------------------------------------------------------ ABI 1.1 ----
	   Test each with BENCH_HOST_HAS(api, name) before use. */

	/* Event-loop modules (epoll). A descriptor that becomes readable (and
	   stays readable) when the case must stop: end of the window, Ctrl-C,
	   a failure elsewhere. Add it to your epoll set instead of waking up on
	   a timeout to call should_stop(). Owned by the host: never read, write
	   or close it. Any thread. */
	int (*stop_fd)(bench_ctx *ctx);
	/* Nonzero when the case is stopping. Unlike should_stop() it never takes
	   anything from the --events budget. Worker threads. */
	int (*stopping)(bench_thread *t);
	/* Takes up to n events from the --events budget and returns how many it
	   got (0: the budget is spent: finish what is in flight and return).
	   Returns n when there is no budget, and during warmup (taking nothing).
	   Worker threads.
	   Under a budget each operation recorded (record, record_n) or failed
	   (record_error) in the window pays with an event claimed for it here
	   or by should_stop(). What a thread records in the window before its
	   first claim there, having claimed in warmup, was begun in warmup: it
	   is warmup's, not counted. Beyond that, operations nothing was claimed
	   for (a batch larger than its claim, a second batch claimed in warmup
	   and recorded after a claim in the window) take their events from the
	   budget when recorded, and what the budget can no longer cover is
	   counted all the same and named in the case's warnings (check-module
	   fails it). So claim exactly what you will record, and keep warmup's
	   batches out yourself when more than one is in flight: ask
	   measuring() before claim() (the phase only moves forward) and report
	   a batch begun in warmup with warmup_n(), not record(). */
	uint64_t (*claim)(bench_thread *t, uint64_t n);
	/* Open loop without sleeping: the intended start (now_ns() clock) of this
	   thread's next request. take = 0 peeks (call again: same answer);
	   take = 1 consumes it, so the next call returns the one after. Returns 0
	   in closed loop (no rate set). A request whose intended start is in the
	   past is late: send it at once and measure its latency from the intended
	   start (record() with now - intended): that is the coordinated-omission
	   correction, per request, whatever the pipeline depth or connection
	   count. Worker threads. */
	uint64_t (*next_arrival)(bench_thread *t, int take);

	/* init only: the op classes of this case, decided from its options
	   (redis: one per test in tests=). Replaces the module's static
	   op_classes for this case. NULL-terminated, 1 .. BENCH_MAX_OP_CLASSES
	   distinct names of [A-Za-z0-9_.-]; copied by the host. */
	int (*set_op_classes)(bench_ctx *ctx, const char *const *names);

	/* An error with the loader's shape: a short message, a detail sentence
	   and a hint (detail and hint may be NULL). t is the worker thread that
	   hit it, or NULL on the main thread. Any thread, race-free: the first
	   error of the case is its reason ("thread 3: ..."), later ones are
	   counted. Return BENCH_ERR from the callback afterwards. One reported
	   in the measured window (until the workers have returned) fails the
	   case whatever the callbacks return, and is its reason; one before or
	   after it that no BENCH_ERR followed is a warning. */
	void (*error)(bench_ctx *ctx, bench_thread *t, const char *message, const char *detail,
		      const char *hint);

	/* init only: declares a secondary latency distribution of op class op
	   (io: "slat", submission latency; redis: "uncorrected"), kept by the
	   host's histogram and reported with the same percentiles under
	   ops.OP.dists.NAME. Returns its id (>= 0), or -1 (error set). */
	int (*dist)(bench_ctx *ctx, unsigned op, const char *name);
	/* A value of distribution id, in ns. Measured window only, like record().
	   Worker thread that owns t. */
	void (*record_dist)(bench_thread *t, int id, uint64_t value_ns);

	/* prepare only: progress of a long preparation (done of total units,
	   e.g. "rows", "bytes"). The host shows a progress line with rate and
	   ETA. Cheap: call it as often as you like. */
	void (*progress)(bench_ctx *ctx, uint64_t done, uint64_t total, const char *unit);

	/* finish only: the p-th percentile (0 < p <= 100) of op class op's
	   latency over the measured window, in ns (0 when nothing was recorded).
	   For spec checks (TPC-C's 90th percentile limits). BENCH_ERR on a bad
	   class or p. */
	int (*percentile)(bench_ctx *ctx, unsigned op, double p, uint64_t *ns);

	/* A directory private to this module that lives for all of its cases
	   in this run (scratch_dir lives for one case): unix sockets, server
	   data directories, prepared data. Removed by the host at the end. */
	const char *(*module_dir)(bench_ctx *ctx);

	/* init or prepare: starts a private server process for this module, or
	   finds the one already started under spec->name by an earlier case of
	   the module. The host keeps it for the module's whole run and always
	   stops it (normal end, crashed or hung case, Ctrl-C, SIGTERM, SIGHUP,
	   and benchcore itself killed: it dies with benchcore). Returns BENCH_OK
	   when the server answers its readiness check, else BENCH_ERR with the
	   reason and the tail of the server's log set as the case's error. The
	   host watches it through the measured window: stopped (SIGSTOP), dead
	   or replaced by another process meanwhile fails the case, naming the
	   server, when and for how long, whatever the module measured. */
	int (*server_start)(bench_ctx *ctx, const struct bench_server_spec_v1 *spec);

	/* The machine's cache size of level (1 .. 4; 0 = the last level) in
	   bytes per instance, as benchcore's fingerprint found it: 0 when
	   unknown (hidden by the hypervisor, or implausible). *found_level gets
	   the level answered, *source where the figure came from ("sysfs",
	   "cpuid", "sysconf"); either may be NULL. Any thread. */
	uint64_t (*cache_size)(bench_ctx *ctx, unsigned level, unsigned *found_level,
			       const char **source);

	/* finish only: percentile() of a secondary distribution (id from
	   dist()); *count and *mean (ns) are filled when not NULL. */
	int (*dist_percentile)(bench_ctx *ctx, int id, double p, uint64_t *ns, uint64_t *count,
			       double *mean);

	/* ------------------------------------------------------ ABI 1.3 ---- */

	/* The case's options struct (opts_size bytes, filled by the host as the
	   options table's offsets say), for a module that sets opts_size. Valid
	   from init until destroy returns; read-only; any thread. NULL for a
	   module without opts_size. */
	const void *(*options)(bench_ctx *ctx);

	/* error() with a printf format: the formatted text is the message up
	   to its first newline, the detail up to the second, the hint after it
	   ("cannot connect to %s\n%s\nstart the server or set server="). Any
	   thread, like error(); the first error of the case is its reason.
	   Return BENCH_ERR from the callback afterwards. set_error() is the 1.0
	   form (message only). */
	void (*errorf)(bench_ctx *ctx, bench_thread *t, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));

	/* A process on this machine that does the workload's work (a server
	   the module talks to locally: the process_id Redis's INFO reports,
	   MariaDB's @@pid_file). Its CPU time over the measured window is
	   recorded as the server's share (cpu.server_pct), not as "other
	   processes", so a local server does not make the machine look busy.
	   Private servers started with server_start() are declared already. A
	   pid not on this machine (a remote server) must not be declared.
	   init or prepare; BENCH_ERR (nothing recorded) when pid is not a
	   visible process. name: short label ("redis-server"). */
	int (*declare_process)(bench_ctx *ctx, int pid, const char *name);

	/* ------------------------------------------------------ ABI 1.4 ----
	   record_unfinished and warmup_n were appended to the 1.3 table after
	   1.3 was released: a late 1.3 host has them, an early one does not.
	   They belong to 1.4: test BENCH_HOST_SINCE(api, 4, member) (or, for
	   these two only, BENCH_HOST_HAS, which a late 1.3 host also answers
	   truly), or set host_minor = 4 in the descriptor.

	   Worker thread that owns t, inside thread_run
	   once stopping() is nonzero (the window has closed), before
	   it returns: an operation of class op that was still in flight at the
	   stop (sent in the measured window, no reply yet), with the time it
	   had waited so far, a lower bound of its latency. It enters the
	   class's count and latency histogram, so a peer that stopped answering
	   shows in the maximum and the high percentiles instead of vanishing;
	   a module that reports its own throughput leaves these out of it.
	   Ignored at any other moment. */
	void (*record_unfinished)(bench_thread *t, unsigned op, uint64_t waited_ns);

	/* Worker thread that owns t: n operations
	   completed during warmup by a module that records nothing until
	   measuring() says yes (a batch begun in warmup must not enter the
	   window, a budget warmup must not use up). warmup = "auto" ends the
	   warmup once the rate of these (or of what record() saw in warmup) is
	   steady; without them it cannot tell and runs to max_warmup. Ignored
	   once the measured window has begun: a late call records nothing. */
	void (*warmup_n)(bench_thread *t, uint64_t n);

	/* The run's seed (--seed / seed = N, or the one the run drew and wrote
	   into the results' schedule.seed): a module's random choices seeded
	   from it are reproduced by a run with that seed. Any callback, any
	   thread. In needs() it is the seed given, 0 when the run will draw
	   one (the plan is made before the draw). */
	uint64_t (*seed)(bench_ctx *ctx);
	/* The case's measured window in seconds (the time setting, after scale)
	   and its --events budget (0: none; the window then ends at the budget
	   or the time, whichever comes first). Any callback, any thread, needs()
	   included: what a module's window may write is sized from them. */
	double (*time_s)(bench_ctx *ctx);
	uint64_t (*events)(bench_ctx *ctx);
} bench_host_api_v1;

/* A private server for server_start() (ABI 1.1). */
typedef struct bench_server_spec_v1 {
	const char *name;		/* key within the module, e.g. "redis" */
	const char *const *argv;	/* argv[0] absolute, or looked up in PATH */
	const char *const *env;		/* extra "KEY=value" entries, NULL-terminated; may be NULL */
	const char *ready_unix;		/* ready once connect() to this unix socket works, or */
	int ready_port;			/* ... once connect() to 127.0.0.1:port works (> 0) */
	double ready_timeout_s;		/* 0 = 30 s */
	const char *workdir;		/* its working directory; NULL = module_dir() */
	int stop_signal;		/* how to ask it to stop; 0 = SIGTERM (SIGKILL after 5 s) */
} bench_server_spec_v1;

/* How compare judges one of the module's metrics (ABI 1.1). */
typedef struct bench_threshold_v1 {
	const char *metric;		/* a metrics[] name, or "OP.pNN_ms" */
	double pct;			/* smallest difference worth a verdict, in percent */
} bench_threshold_v1;

/* ABI 1.2: `benchcore serve` runs the server half of a module that measures
   against a peer on another machine (net). The host parses serve's flags and
   config, handles signals and hands over this; the module listens, serves
   and returns. */
typedef struct bench_serve_v1 {
	uint32_t struct_size;		/* sizeof the host's struct */
	const char *bind;		/* address to listen on (default "127.0.0.1") */
	int port;			/* TCP port (default: the module's serve_port) */
	int once;			/* serve one test, then return */
	unsigned max_clients;		/* tests at once; further clients are told "busy" */
	double idle_timeout_s;		/* a control connection silent this long is dropped */
	double max_duration_s;		/* longest test accepted, seconds (0 = no limit) */
	const char *secret;		/* clients must prove it (HMAC challenge); NULL = none.
					   Never print or log it. */
	int stop_fd;			/* readable (and stays so) once serve must stop:
					   SIGINT, SIGTERM, SIGHUP. Never read or close it. */
	void (*log)(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	/* Called once the socket listens, with the port bound (useful with port 0). */
	void (*listening)(const char *addr, int port);
	/* ABI 1.3 (appended; read them only when struct_size covers them):
	   what all running tests together may take, --max-threads and
	   --max-memory (0: the module's defaults). A test beyond them is
	   refused with the limit named. */
	unsigned max_threads;		/* worker threads */
	uint64_t max_memory;		/* bytes of buffers */
} bench_serve_v1;

/* ------------------------------------------------------------- the module */

typedef struct bench_module_v1 {
	uint32_t magic;			/* BENCH_MODULE_MAGIC */
	uint32_t abi_major, abi_minor;
	uint32_t struct_size;		/* sizeof(bench_module_v1) when built */

	const char *name;		/* unique, [a-z0-9_]+ */
	const char *version;
	const char *summary;		/* one line */
	const bench_option_v1 *options;	/* terminated by an entry with name == NULL */
	const char *const *op_classes;	/* NULL-terminated, at most BENCH_MAX_OP_CLASSES;
					   NULL = {"event"}; see also set_op_classes() */
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

	/* ------------------------------------------------------ ABI 1.1 ---- */
	/* The options that shape what prepare makes (file size, warehouses),
	   NULL-terminated. When set, the host calls prepare once per distinct
	   value of these options (the data point), skips it for every later
	   case with the same values (other options, thread counts, repeats),
	   and calls cleanup once, after the last case of that data point. NULL:
	   prepare and cleanup in every case, as in 1.0. */
	const char *const *data_options;
	/* The metric compare counts as this module's headline (requests/s,
	   tpmC). NULL, or not reported by a case: the first higher-is-better
	   metric the case reported (report_metric order), else
	   "events_per_sec" (written into each case as its headline). */
	const char *headline_metric;
	/* Practical thresholds for compare, per metric; terminated by
	   metric == NULL; may be NULL (the core's defaults by metric kind). */
	const bench_threshold_v1 *thresholds;

	/* ------------------------------------------------------ ABI 1.2 ---- */
	/* The server half for `benchcore serve` (NULL: the module has none).
	   Returns BENCH_OK after a clean stop, BENCH_ERR after logging why. */
	int (*serve)(const bench_serve_v1 *args);
	int serve_port;			/* default port of `benchcore serve` */

	/* ------------------------------------------------------ ABI 1.3 ---- */
	/* Typed options: the size of the module's options struct. When set,
	   every option of the table has an offset (BENCH_OPT_AT), the host fills
	   the struct for each case and api->options() returns it; the by-name
	   getters stay for older modules. */
	size_t opts_size;
	/* What a case needs from this machine (bench_needs_v1), from its
	   options; called before init in a process of its own, options readable
	   as in init (api->options(), getters). Return BENCH_OK, or BENCH_ERR
	   with set_error() or errorf() when the options make no sense together:
	   a configuration error, which fails the whole plan before anything
	   runs (exit 2) with that message. NULL: the static requires only.
	   Since 1.4 it may also call scratch_dir() (where the case's files
	   will go), time_s(), events() and seed(); nothing that records. The
	   figures are checked again after the case: run warns, and
	   check-module fails, when the case's peak RSS or the disk it used at
	   disk_path were more than twice what needs() declared. */
	int (*needs)(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out);
	/* sizeof(bench_option_v1) as the module was built (BENCH_MODULE_HEADER
	   sets it): the host steps through options[] by it. Modules of minor
	   1.0-1.2 have none and are read with the 1.2 layout (no offset). */
	uint32_t option_size;

	/* ------------------------------------------------------ ABI 1.4 ---- */
	/* The lowest host minor the module runs on: set it (e.g. 4) when the
	   module calls that minor's host API members without testing them. 0:
	   any host of its major (each later member tested with
	   BENCH_HOST_SINCE). A host of an older minor refuses the module at
	   load, naming it and both minors, instead of a crash on a NULL. */
	uint32_t host_minor;
} bench_module_v1;

#define BENCH_MODULE_HEADER \
	.magic = BENCH_MODULE_MAGIC, .abi_major = BENCH_ABI_MAJOR, \
	.abi_minor = BENCH_ABI_MINOR, .struct_size = sizeof(bench_module_v1), \
	.option_size = sizeof(bench_option_v1)

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
