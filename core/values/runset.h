/* The run settings (bc_runset), as values (no parser): global defaults,
 * a module entry's own, the command line's. The config that holds them is
 * config_model.h's, site.conf's reader (libconfig) run/config.c, the table
 * of settings values/settings.c. Main thread only. */
#ifndef BC_RUNSET_H
#define BC_RUNSET_H
#include <stddef.h>
#include <stdint.h>
#include "util.h"

#define BC_MAX_PCT 16

/* Run settings: global defaults, overridable per module and on the command line. */
/* Run settings a command-line flag gave: --scale leaves them as given (a flag
   overrides the file, and scale is a change of the file's values). */
enum { BC_UNSCALED_TIME = 1, BC_UNSCALED_WARMUP = 2, BC_UNSCALED_THREADS = 4 };

typedef struct bc_runset {
	unsigned threads[64];
	size_t nthreads;
	double time_s, warmup_s, report_interval, rate, grace, thread_init_timeout;
	double prepare_timeout;		/* prepare of one case */
	double init_timeout;		/* init of one case */
	double cleanup_timeout;		/* finish, cleanup, destroy each; 0 = warmup + time + grace */
	double max_error_rate;		/* share of operations that may fail (0 .. 1) */
	double scale;			/* 0 < scale <= 1: a quick try of a long study (plan.c) */
	unsigned unscaled;		/* BC_UNSCALED_*: given by a flag, so kept as given by scale */
	int repeat_auto;		/* repeat = "auto": rounds go on while a case is undecided */
	unsigned min_repeat, max_repeat;
	double time_budget;		/* repeat = auto: no new round after this many seconds (0: none) */
	int warmup_auto;		/* warmup = "auto": until the throughput is steady */
	double max_warmup;		/* warmup = auto: the longest warmup */
	double warmup_window;		/* warmup = auto: the seconds judged steady (BC_STEADY_WINDOW samples) */
	int profile_small;		/* profile = "small": heavy modules skipped, sizes fitted */
	uint64_t max_cases;		/* the plan's size that runs without confirmation */
	uint64_t events;
	unsigned repeat;
	int arrival_fixed, keep, isolate;
	int back_to_back;		/* repeat_order: 0 rounds (default), 1 back_to_back */
	int seed_set;			/* seed given; else the runner draws one (and records it) */
	uint32_t seed;			/* shuffles the order of a round's cases */
} bc_runset;

#endif
