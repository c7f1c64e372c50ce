/* One case's result, in C types: the result model of benchcore.
 *
 * Who does what with it (and nothing else builds or reads case JSON):
 *   - the engine fills it (core/engine: engine.c the header and status,
 *     measure.c the figures, host_api.c metrics/info/warnings);
 *   - bc_case_to_json() writes it: the one writer of a case object, used for
 *     the results file and for the case child's report to the runner;
 *   - bc_case_from_json() reads one back, validating every field it keeps:
 *     results files (compare, report) and the case child's report;
 *   - bc_results_add_case() (results.h) groups it; bc_print_case() and
 *     bc_csv_case() (output.h) print it.
 * docs/results.md describes the JSON ("cases[]"). Absent optional fields are
 * marked as such (NAN for numbers, NULL for strings, .set = 0 for objects),
 * so a file from an older writer reads back as what it says, no more.
 * params stay a JSON object: their types are the module's option types
 * (int, size, double, bool, enum, string, list), which the core does not fix.
 */
#ifndef BC_CASE_H
#define BC_CASE_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "util.h"

typedef struct {
	char *name;		/* "events_per_sec", a module's declared metric */
	char *unit;		/* "" when none */
	double value;		/* finite */
	int higher_is_better;
} bc_cr_metric;

typedef struct {
	char *key;		/* "p50", "p99.9": "p%g" of the configured percentile */
	double ns;
} bc_cr_pct;

typedef struct {		/* ops.OP.latency_ns; nanoseconds */
	int set;
	double min, mean, max, stddev;	/* NAN when the file lacks one */
	bc_cr_pct *pct;
	size_t npct;
} bc_cr_latency;

typedef struct {
	char *kind;
	uint64_t n;
} bc_cr_count;

typedef struct {		/* ops.OP.dists.NAME (host API 1.1 distributions) */
	char *name;
	uint64_t count;
	bc_cr_latency lat;
} bc_cr_dist;

typedef struct {		/* ops.OP */
	char *name;
	uint64_t count, errors, bytes;
	double per_sec;
	bc_cr_latency lat;
	bc_cr_count *kinds;	/* error_kinds, in order */
	size_t nkinds;
	int has_kinds;		/* error_kinds present (even empty) */
	uint64_t folded;	/* error_kinds_folded.count; 0 = absent */
	char *folded_first;	/* error_kinds_folded.first_kind */
	bc_cr_dist *dists;
	size_t ndists;
	/* ops.OP.latency_hist: the histogram the percentiles came from, in its
	   compact encoding (hist.h: BC_HIST_ENCODING, as base64 text), checked
	   by the reader; NULL when absent (files from before it, no records) */
	char *hist;
	uint64_t hist_count;	/* the records it holds */
} bc_cr_op;

typedef struct {		/* intervals[i].ops.OP */
	char *name;
	double per_sec;
	double mib_per_sec;	/* NAN when absent (no bytes in the interval) */
} bc_cr_iop;

typedef struct {		/* intervals[i] */
	double t, events_per_sec, p95_ms, errors_per_sec;
	bc_cr_iop *ops;
	size_t nops;
} bc_cr_interval;

typedef struct {
	char *key, *value;	/* set_info(); a non-string value in a file: its JSON text */
} bc_cr_info;

typedef struct {
	char *metric;
	double pct;		/* >= 0 */
} bc_cr_threshold;

/* The phases of a case in the process that ran it, in order (phase_s). */
enum { BC_PH_INIT, BC_PH_PREPARE, BC_PH_THREAD_INIT, BC_PH_WARMUP, BC_PH_MEASURE, BC_PH_FINISH,
       BC_PH_CLEANUP, BC_PH_DESTROY, BC_NPHASES };
extern const char *const bc_phase_names[BC_NPHASES];	/* "init", ..., "destroy" */

typedef struct bc_case_result {
	long long id;
	char *module, *module_version, *module_path, *module_sha256;
	char *module_shadows;	/* NULL when absent */
	json_t *params;		/* an object (never NULL after the reader or the engine) */
	char **placement;	/* names of params that say where it ran (BENCH_OPT_PLACEMENT),
				   NULL-terminated; NULL: none (or an older file) */
	char *point;		/* NULL when absent */
	/* "machine": the machine settings the case ran under (docs/machine.md),
	   {"thp": "never", "sysctl.vm.swappiness": "10"}, each value a string;
	   NULL when absent (none set). Grouped and matched like params. */
	json_t *machine;
	/* "setting_not_in_effect": why a setting did not take ("cpu_freq: asked
	   2000 MHz, measured 2600 MHz"); the case is kept out of the groups, so
	   no verdict credits the setting. NULL: absent. */
	char *setting_not_in_effect;
	/* "fs": the file system machine.fs made for the case, as mounted
	   (docs/fs.md: type, mount_options, mkfs_command, mkfs_version, device,
	   device_model, size_bytes, mount_point, o_direct (o_direct_refused),
	   make_s, mount_s, and for an
	   image: image, image_fs, loop_direct_io). NULL: none made. Not a
	   matching key: machine.fs is. */
	json_t *fs;
	/* "thp_servers": with a thp setting, the run's private servers as the
	   case left them ([{"name", "pid", "anon_huge_kb", "thp_enabled",
	   "started_after_change"}], /proc/PID/smaps_rollup and status): that
	   they run under the value asked. NULL: absent. Not a matching key. */
	json_t *thp_servers;
	/* "run": in a merged file (benchcore merge), the run the case was
	   measured in: its run_id (merged_from[] names the part's file under
	   the same run_id) and the facts of that run's host that the merged
	   document's host does not hold for every case (the measured clock,
	   other_run_settings, io: what was so while this part ran, and only
	   then). Compare and report read them for the case. .set = 0: the case
	   belongs to the document's own run and host. */
	struct {
		int set;
		char *run_id;	/* NULL: absent */
		json_t *host;	/* an object; NULL: absent */
	} run;
	long threads;
	long repeat;
	long round;		/* 0 when absent */
	char *status;		/* "ok", "failed", "skipped", "interrupted" */
	char *reason;		/* NULL: JSON null */
	double duration_s, warmup_s;
	int warmup_steady;	/* warmup = auto: 1 reached a steady state, 0 ran to max_warmup;
				   -1 absent (a fixed warmup) */
	char *repeat_stop;	/* repeat = auto, on a case's last repeat: "precise", "decided",
				   "futile", "max_repeat" or "budget"; NULL absent */
	double error_rate;	/* NAN: absent */
	uint64_t records_refused, strays_killed;	/* 0: absent */
	char *headline;		/* NULL: absent */
	bc_cr_threshold *thresholds;
	size_t nthresholds;
	int has_thresholds;
	struct {
		int set;
		double seconds;
		int has_progress;	/* done/total/unit present */
		uint64_t done, total;
		char *unit;
	} prepare;
	struct {		/* the first error() of the case */
		int set;
		char *message;
		uint64_t count;
		char *detail, *hint;	/* NULL: absent */
		long thread;		/* -1: absent */
	} error;
	bc_cr_metric *metrics;	/* in order; events_per_sec among them for ok cases */
	size_t nmetrics;
	bc_cr_info *info;
	size_t ninfo;
	char **warnings;	/* NULL-terminated or NULL */
	size_t nwarnings;
	bc_cr_op *ops;		/* op classes in declaration order */
	size_t nops;
	struct {
		int set;
		double events_mean, events_stddev, events_cv;
		double events_min, events_max;	/* NAN when absent */
		double busy_mean_s, busy_stddev_s;
	} fairness;
	struct {
		int set;
		double interval_cv;	/* NAN: null (fewer than two intervals) */
		long intervals;		/* -1: absent (older files) */
	} stability;
	struct {
		int set;
		double rate;
		char *arrival;	/* "poisson" or "fixed" */
		uint64_t late_starts, max_queue;
		double max_lag_ms;
	} open_loop;
	double cpu_mhz_mean;	/* NAN: absent */
	struct {		/* "cpu_freq": the clock measured around the window */
		int set;
		double measured_mhz;		/* mean of before and after; NAN: absent */
		double before_mhz, after_mhz;	/* probe (core/machine/freq.c); NAN: absent */
		double cpufreq_mhz;		/* cpufreq's scaling_cur_freq mean; NAN: absent */
		double cpuinfo_mhz;		/* /proc/cpuinfo's "cpu MHz" mean; NAN: absent */
		long cpus;			/* CPUs probed */
	} freq;
	struct {
		int set;
		double user_s, sys_s;
		double utilization, steal_pct, other_pct;	/* NAN: absent */
		/* the run's own processes (declared, private servers): their CPU
		   seconds, share of the machine, per operation; NAN / NULL when
		   the case had none. other_pct leaves them out. */
		double server_s, server_pct, server_us_per_op;
		char *servers;		/* "redis-server (pid 4242, its process group)" */
		/* where the case ran: the CPUs it could run on (affinity, which
		   the cpuset cgroup narrows) and, on them alone, the share of
		   their time steal and other processes took (interference_pct =
		   the two), and the case's own CPU time as a fraction of theirs.
		   NULL / 0 / NAN: absent (older files, no per-CPU /proc/stat). */
		char *cpus;		/* "0", "0-3,6" */
		long cpus_n;
		double cpus_steal_pct, cpus_other_pct, interference_pct, cpus_use;
	} cpu;
	uint64_t peak_rss_bytes;	/* the case process's peak resident memory; 0: absent */
	struct {		/* phase_s: seconds each phase took; NAN: not run (absent) */
		int set;
		double s[BC_NPHASES];
	} phases;
	int has_intervals;	/* "intervals" present (even empty) */
	bc_cr_interval *intervals;
	size_t nintervals;
	char *intervals_file;	/* instead of intervals (spilled); NULL: absent */
	long intervals_count;
} bc_case_result;

/* The one headline rule (docs/results.md "One headline everywhere"), over
   n candidate metrics in order: the declared headline (a module's
   headline_metric, a case's headline) when it is among them and is not
   events_per_sec (the declaration's default, never a module's own); else the
   first higher-is-better one other than events_per_sec; else events_per_sec.
   The engine writes its outcome into each case (case.headline); the grouping
   (bc_primary_metric) reads it back through the same rule. Index, or -1
   when none of them qualifies. */
typedef struct bc_headline_cand {
	const char *name;
	int higher_is_better;
} bc_headline_cand;
long bc_headline_pick(const char *declared, const bc_headline_cand *c, size_t n);

/* An empty result: every optional field absent (NAN / NULL / 0), params {}. */
void bc_case_init(bc_case_result *r);
void bc_case_free(bc_case_result *r);
/* Frees the interval series (written elsewhere, or no longer needed). */
void bc_case_drop_intervals(bc_case_result *r);

/* The one writer: a new JSON object (docs/results.md "cases[]"), fields in
   the documented order, absent fields left out (reason: null). */
json_t *bc_case_to_json(const bc_case_result *r);
/* Its intervals[] alone (the runner spills long series to a side file). */
json_t *bc_case_intervals_json(const bc_case_result *r);

/* The one reader. c is one element of cases[]; idx names it in messages
   ("cases[3].threads: not an integer in 1..1000000"). Every field kept is
   validated: a field with the wrong type is an error naming it (the object
   is not what benchcore writes); an absent field stays absent; unknown
   fields are ignored. Returns 0, or -1 with e->msg set and r freed. Strings
   keep every printable character (as read); names are not escaped here —
   the grouping escapes what it shows. */
int bc_case_from_json(json_t *c, size_t idx, bc_case_result *r, bc_err *e);

/* The "run" member of case object c into r->run (validated); 0, or -1 with
   why (n bytes) naming the field. */
int bc_case_run_from_json(json_t *c, bc_case_result *r, char *why, size_t n);

/* The case's params with its machine settings beside them as "machine.KEY"
   (a new reference): what groups and labels cases, so a setting's values
   are told apart as an option's are. */
json_t *bc_case_key(const bc_case_result *r);

/* Setters the engine and the runner use (strings are copied; NULL clears). */
void bc_case_set_str(char **field, const char *value);
void bc_case_add_warning(bc_case_result *r, const char *msg);
/* metric by name: replaced in place when present, else appended */
void bc_case_set_metric(bc_case_result *r, const char *name, const char *unit,
			double value, int higher_is_better);
/* info by key: replaced in place when present, else appended */
void bc_case_set_info(bc_case_result *r, const char *key, const char *value);
const bc_cr_metric *bc_case_metric(const bc_case_result *r, const char *name);
#endif
