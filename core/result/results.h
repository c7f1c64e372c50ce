/* Reading result files (schema benchcore/1, docs/results.md) for compare and
   report. The reader validates every field it uses and turns the cases into
   groups (module x params x threads) holding the per-repeat values of each
   metric, so nothing downstream touches unvalidated JSON. Hostile input (see
   tests/fuzz) gets an error message, never a crash. Not thread-safe; one
   bc_results is owned by its caller and freed with bc_results_free(). */
#ifndef BC_RESULTS_H
#define BC_RESULTS_H
#include <stddef.h>
#include <jansson.h>
#include "case.h"
#include "hist.h"
#include "rundoc.h"

typedef enum {
	BC_MK_METRIC,		/* cases[].metrics.NAME */
	BC_MK_FAIRNESS,		/* fairness.events_stddev */
	BC_MK_STABILITY,	/* stability.interval_cv */
	BC_MK_LATENCY,		/* ops.OP.latency_ns.PCT, in ms */
} bc_metric_kind;

typedef struct bc_rmetric {
	char *name;		/* "events_per_sec", "fairness_events_stddev", "read.p99_ms" */
	char *unit;
	int higher_is_better;
	int kind;		/* bc_metric_kind */
	int compared;		/* compare gives it a verdict (latency: only p50, p99) */
	char *op, *pct;		/* BC_MK_LATENCY: op class and percentile key ("p99.9") */
	double *values;		/* one per ok repeat that reported it */
	size_t n, cap;
} bc_rmetric;

typedef struct bc_rhist {	/* one op class's latency over a group's ok repeats */
	char *op;		/* as shown (the latency metrics' op) */
	bc_hist_code code;	/* the repeats' latency_hist, merged */
	double min, max;	/* ns over the repeats: the clamp of a merged percentile */
	size_t parts;		/* repeats whose histogram is in code */
	size_t missing;		/* repeats that ran it without one (older files), or that
				   would overflow the merge: then there is no merged figure */
} bc_rhist;

typedef struct bc_rgroup {
	char *module;
	char *params_key;	/* compact JSON, sorted keys: the matching key */
	json_t *placement;	/* params that say where it ran (case.placement): an array of
				   names, matched across machines only when unambiguous */
	char *params_text;	/* "block_size=4096 oper=read" (empty when no params) */
	long threads;
	size_t repeats;		/* ok cases */
	char *headline;		/* case.headline (first seen), else "events_per_sec" */
	char *module_version;	/* case.module_version (first seen), NULL when none said */
	json_t *thresholds;	/* case.thresholds merged: metric -> percent (numbers >= 0) */
	json_t *run_host;	/* a merged file: its first case's run.host (a module's cases
				   come from one part), the facts of that part alone; NULL */
	/* Busiest window of the ok cases, in percent of the machine's CPU time:
	   cpu.steal_pct (hypervisor) and cpu.other_pct (other processes);
	   -1 when no case reported it (older files). */
	double steal_max, other_max;
	/* Interference where each ok case ran, one pair per repeat: the share
	   (fraction) of its CPUs' time steal and other processes took
	   (cpu.interference_pct; an older file: the machine's steal_pct +
	   other_pct), and its own use of those CPUs (cpu.cpus_use; NAN
	   unknown). ninterf < repeats when some case recorded neither. */
	double *interf_share, *interf_use;
	size_t ninterf, cinterf;
	double cpu_mhz_sum;	/* sum over repeats that reported cpu_mhz_mean */
	size_t cpu_mhz_n;
	size_t unsteady;	/* cases whose warmup = auto never reached a steady state */
	double freq_sum;	/* sum over repeats of cpu_freq.measured_mhz (the probe) */
	size_t freq_n;
	bc_rmetric *metrics;
	size_t nmetrics, cap;
	bc_rhist *hists;	/* per op class that ran, in order of first appearance */
	size_t nhists, chists;
} bc_rgroup;

typedef struct bc_results {
	char *path;		/* as given, for messages */
	char *label;		/* label, else host.hostname, else the file name */
	char *started_at;	/* may be NULL */
	char *run_id;		/* may be NULL (older or forged files) */
	char *version;		/* benchcore_version, may be NULL */
	int interrupted;
	char *status;		/* "running", "complete", "interrupted", "stopped"; NULL in
				   files from before it */
	long planned;		/* cases_planned, or -1 (absent) */
	json_t *host;		/* the host object (a reference), or an empty object */
	json_t *config;		/* the config object as written (a reference, unvalidated: read
				   with care), or an empty object */
	json_t *info;		/* "module.key" -> value from cases[].info, first seen */
	json_t *info_varies;	/* "module.key" -> true: its value differs between the file's
				   cases, so it is a per-run figure (a random seed, a measured
				   layout rate), not a fact about the machine or module */
	/* a merged file (benchcore merge): the host facts its cases hold each
	   for their own run (cases[].run.host) that are not the same in every
	   case: "key" -> true. compare and report claim none of them for the
	   file (a fact every case holds alike is lifted into host). */
	json_t *host_varies;	/* NULL: none */
	json_t *run_host;	/* while reading: "key" -> [value, cases holding it] */
	size_t nrun;		/* while reading: cases with a run */
	size_t ncases, nok, nfailed;
	bc_rgroup *groups;	/* in order of first appearance */
	size_t ngroups, cap;
	json_t *index;		/* "module\nthreads\nparams_key" -> index in groups */
} bc_results;

/* Parse a results document from memory, through the run document's reader
   (rundoc.h: the header checked there, its messages). name is the one the
   results go by (their label's last resort). On error returns -1 with a
   one-line reason in e->msg (e.g. "cases[3].threads: not an integer") and
   r freed; on success 0. */
int bc_results_parse(const char *buf, size_t len, const char *name,
		     bc_results *r, bc_err *e);
/* The same of a document the reader read (or that its caller changed
   through bc_rundoc_set): takes d (freed, whatever the outcome). */
int bc_results_from_doc(bc_rundoc *d, const char *name, bc_results *r, bc_err *e);

/* Read and parse a file (bc_rundoc_load: up to 256 MiB), or a reference to a stored run
   when path begins with the prefix a loader was set for (below). */
int bc_results_load(const char *path, bc_results *r, bc_err *e);
/* Where references that are not files come from: a path beginning with
   prefix ("db:") is handed whole to fn, which returns the document's text
   (malloc'd) or -1 with e set. The command line sets the archive's (the
   result model sits below the archive); main thread only. */
typedef int (*bc_results_ref_fn)(const char *ref, char **buf, size_t *len, bc_err *e);
void bc_results_set_ref_loader(const char *prefix, bc_results_ref_fn fn);

void bc_results_free(bc_results *r);

/* compare --split KEY FILE (results_split.c; machine.KEY or an option's
   name): one reference per value of the setting (the configured order; the first is the baseline),
   each read by bc_results_load as one system ("split:IDX:KEY:FILE").
   NULL-terminated, malloc'd; NULL with e when the file swept no such key. */
char **bc_split_refs(const char *file, const char *key, bc_err *e);
int bc_split_load(const char *ref, bc_results *r, bc_err *e);
/* A label as the reader keeps it, and the archive stores it: printable
   (bc_printable: control characters as visible escapes) and cut at 200
   bytes; the same for a label given in either form, so db:LABEL finds a
   run whatever control characters its label held (malloc'd). */
char *bc_label_shown(const char *s);
/* Whether r is a partial run's file: NULL for a whole one, else why, in
   words ("the run was interrupted"); *of gets cases_planned (-1: unknown). */
const char *bc_results_partial(const bc_results *r, long *of);
/* Loads n files into res[0..n) for command cmd ("compare"); on the first
   failure prints "benchcore CMD: FILE: reason", frees what was loaded and
   returns -1. A file that is not a whole run's (bc_results_partial) gets a
   warning line on stderr. */
int bc_load_all(const char *cmd, char **files, int n, bc_results *res);

/* Grouping cases one by one (the runner's own summary and groups[]): an
   empty set named name, then each case result (case.h: from the engine, or
   read and validated by bc_case_from_json), then done (again after more
   cases is fine). The one grouping rule of benchcore: run's groups[],
   its summary, compare and report all group through here. */
void bc_results_init(bc_results *r, const char *name);
void bc_results_add_case(bc_results *r, const bc_case_result *c);
void bc_results_done(bc_results *r);
/* groups[] of a results document (docs/results.md): per group the metrics
   compare judges, with their values and statistics over the repeats. */
json_t *bc_groups_json(const bc_results *r);

/* The metric a group is judged and charted by: the module's declared
   headline (case.headline) when it is one of its own metrics; else the
   first higher-is-better metric of the module's own; else events_per_sec. */
const bc_rmetric *bc_primary_metric(const bc_rgroup *g);

/* Metric kinds, each with its own practical threshold: run-to-run spread
   differs by an order of magnitude between throughput and a p99. */
enum { BC_KIND_THROUGHPUT, BC_KIND_LATENCY, BC_KIND_TAIL, BC_KIND_FAIRNESS, BC_KIND_N };
/* The kinds' default thresholds (fractions): 2%, 5%, 15%, 50%. */
#define BC_KIND_THRESHOLDS	{ 0.02, 0.05, 0.15, 0.50 }
/* m's threshold kind (BC_KIND_*): fairness and stability are one kind (their spread is the
   largest); op-class percentiles are latency at p50 and below, tail above;
   a module metric is throughput when higher is better, else latency (tail
   when named like a p9x). */
int bc_threshold_kind(const bc_rmetric *m);
/* The practical threshold of group g's metric m with no user override: the
   module's declaration (case.thresholds), else its kind's default. */
double bc_metric_threshold(const bc_rgroup *g, const bc_rmetric *m);

/* "k=v k2=v2" of a params object, values as compact JSON (strings without
   quotes); malloc'd. */
char *bc_params_text(json_t *params);

/* The group matching module, params_key and threads, or NULL. */
const bc_rgroup *bc_results_find(const bc_results *r, const char *module,
				 const char *params_key, long threads);

/* The metric called name in g, or NULL. */
/* The group of r that matches g of another file: the same module, threads
   and params; else, ignoring g's placement params and the names in ignore
   (NULL-terminated; --match-ignore), the one group of r that agrees on the
   rest, when g is also the only one of its file that does (a sweep over
   two paths in one file stays two groups). NULL when none. gfile is g's
   file. */
const bc_rgroup *bc_results_match(const bc_results *r, const bc_results *gfile, const bc_rgroup *g,
				  char *const *ignore);
const bc_rmetric *bc_group_metric(const bc_rgroup *g, const char *name);

/* Latency merged across repeats, files and hosts (group_hist.c): a
   percentile of the union of their records is the percentile of their
   merged histogram, never a mean of their percentiles. */
/* c's op classes' histograms into g (bc_results_add_case). */
void bc_group_add_hists(bc_rgroup *g, const bc_case_result *c);
void bc_group_free_hists(bc_rgroup *g);
/* The op class called op (as shown) of g, or NULL. */
const bc_rhist *bc_group_hist(const bc_rgroup *g, const char *op);
/* The pct-th percentile (0 < pct <= 100), in ms, of op's records in all of
   groups g[0..n) (one per file; repeats within each): 0 and *ms, or -1 when
   one of them has no merged histogram of op (*bad: its index), so the
   caller falls back to the mean of the percentiles and says so. */
int bc_merged_pct(const bc_rgroup *const *g, size_t n, const char *op, double pct, double *ms, size_t *bad);
#endif
