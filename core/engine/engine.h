/* Running one case in the current process: init, prepare, worker threads,
 * warmup, the measured window with interval reports, finish, cleanup.
 *
 * Hot path contract: each worker thread writes only its own cache-line
 * aligned counters and histograms, without locks or allocation; the main
 * thread reads them with relaxed loads for interval reports and merges them
 * after the threads are joined. */
#ifndef BC_ENGINE_H
#define BC_ENGINE_H
#include <jansson.h>
#include "case.h"
#include <signal.h>
#include "runset.h"
#include "loader.h"
#include "options.h"

typedef struct bc_case {
	const bc_module *mod;
	const bc_val *vals;		/* one per option of mod, in table order */
	bc_runset run;			/* threads[] is ignored: see threads */
	unsigned threads;
	uint64_t id;			/* 1-based, unique in the results file */
	unsigned repeat;
	const double *pct;
	size_t npct;
	const char *scratch;		/* private temp dir for the module */
	const char *module_dir;		/* lives for all of the module's cases (module_dir()) */
	int do_prepare;			/* call prepare (0: an earlier case of this data point did) */
	int do_cleanup;			/* call cleanup at the end (unless run.keep) */
	int cleanup_only;		/* init + cleanup + destroy; nothing measured */
	int progress;			/* 0 quiet, 1 plain interval lines, 2 terminal progress line */
	uint64_t need_memory;		/* what the module's needs() declared for it (0: nothing) */
	uint64_t need_disk;		/* ... and the disk: in the scratch directory when need_path
					   is "", else at need_path */
	const char *need_path;
	void (*on_phase)(void *arg, const char *phase);	/* "prepare", "measure" (watchdog) */
	void *arg;
	/* Starts (or finds) a private server for the module: runs in the runner
	   process, reached over the case child's channel when isolated. Its pid
	   (also its process group; 0 when unknown) once it answers its
	   readiness check; else -1 with a reason in err. */
	int (*start_server)(void *arg, const bench_server_spec_v1 *spec, char *err, size_t n);
} bc_case;

/* Set from a signal handler: stop the current case as soon as possible. */
extern volatile sig_atomic_t bc_stop_requested;

/* A case result's header (id, module, params, threads, repeat, status,
   reason, warmup): what every case has, run or not; r is initialised here.
   The engine fills in the rest; the runner uses it alone for a case that
   never reported (crashed, killed, skipped before it ran). */
void bc_case_header(const bc_case *c, const char *status, const char *reason, bc_case_result *r);
/* The typed options struct (ABI 1.3) of module d for vals (one per option,
   in table order): opts_size bytes, malloc'd; NULL when d sets no
   opts_size. Its strings point into vals: free it before them. */
void *bc_opts_block(const bench_module_v1 *d, const bc_val *vals);
/* The case's needs from the module's needs() (engine/needs.c), in the
   process that opened the module: 0, or -1 with the module's reason in e.
   A module without needs() needs nothing (all zeros). */
int bc_case_needs(const bc_case *c, bench_needs_v1 *out, bc_err *e);
/* Where a case's scratch directory is made (TMPDIR, else /tmp): what
   scratch_dir() answers in needs(), and where the plan checks a 1.4
   module's disk_bytes declared without a disk_path. */
const char *bc_scratch_parent(void);
/* Runs the case into r (initialised here; the caller frees it). */
void bc_case_run(const bc_case *c, bc_case_result *r);
#endif
