/* Change points in a series of means: where its level shifted, and whether
   the shift is real (docs/history.md). Binary segmentation on the
   mean-shift statistic, which is E-Divisive's energy statistic with
   exponent 2 (Matteson & James 2014), each split judged by a permutation
   test as E-Divisive and MongoDB's CI do (Daly et al., ICPE 2020). O(n) per
   permutation, so 10,000 runs take milliseconds, where E-Divisive's
   exponent-1 statistic is O(n^2). A split the test finds is kept only when
   it is a change of level: its interval excludes zero, it is as large as
   the series' noise makes meaningful, and the medians either side moved too
   (not one wild run). A segment of up to BC_CP_EXACT_MAX runs has its p
   counted exactly over every ordering of its runs; a longer one draws
   permutations from a generator seeded by the segment, in a sequential
   rule that stops once the verdict is sure (so a verdict does not hang on
   the seed but where p is within Monte Carlo error of alpha at the most
   permutations), and a series gives the same answer every time. Pure: no
   state, safe from any thread. */
#ifndef BC_CHANGEPOINT_H
#define BC_CHANGEPOINT_H
#include <stddef.h>
#include <stdint.h>

typedef struct bc_cp_opts {
	double alpha;		/* a split is a change point when its p <= alpha */
	unsigned perms;		/* the most permutations a test of a segment longer
				   than BC_CP_EXACT_MAX draws (it stops once sure) */
	size_t min_seg;		/* points on either side of a change point, at least */
	/* the least change of level kept, the larger of: a fraction of the
	   level before it, and a multiple of the series' noise between runs
	   (docs/history.md "The method") */
	double min_change, min_noise;
	uint64_t seed;		/* of the permutations */
} bc_cp_opts;

/* 0.01, at most 99,999 permutations, 3 points a side, a change of 0.1% of
   the level (the text's last digit) and half the noise's standard
   deviation, seed 1. */
#define BC_CP_ALPHA	0.01
#define BC_CP_PERMS	99999
/* Segments of up to this many runs are tested exactly: every ordering,
   counted over the 2^n subsets of the runs (1 MiB and under 1 ms at 16;
   16 MiB and 17 ms at 20). */
#define BC_CP_EXACT_MAX	16
#define BC_CP_MIN_SEG	3
#define BC_CP_MIN_CHANGE 0.001
#define BC_CP_MIN_NOISE	0.5
#define BC_CP_OPTS_DEFAULT ((bc_cp_opts){ .alpha = BC_CP_ALPHA, .perms = BC_CP_PERMS, \
	.min_seg = BC_CP_MIN_SEG, .min_change = BC_CP_MIN_CHANGE, .min_noise = BC_CP_MIN_NOISE, .seed = 1 })

typedef struct bc_cpoint {
	size_t at;		/* the first point of the new level: y[at] */
	double p;		/* the permutation test's p: exact (perms 0), or
				   (count + 1) / (perms + 1) */
	unsigned perms;		/* permutations drawn; 0: p counted exactly */
	double stat;		/* the split's statistic: n_l n_r / n (mean_l - mean_r)^2 */
	/* the final segments either side: from the previous change point (or
	   the start) to this one, and from it to the next (or the end) */
	size_t n_before, n_after;
	double before, after;	/* their means */
	double change;		/* after / before - 1 (NAN when before is 0) */
	/* 95% interval of the change (Welch on the segments' points, as a
	   fraction of before); NAN when a side has one point */
	double change_lo, change_hi;
} bc_cpoint;

/* The change points of y[0..n), in order of at; *out malloc'd (NULL when
   none), their number returned. Points that are not finite are refused by
   the caller (history leaves them out). o NULL: the defaults. */
size_t bc_changepoints(const double *y, size_t n, const bc_cp_opts *o, bc_cpoint **out);

/* The permutation test of y[0..n) as a whole: the p of its best split
   (exact up to BC_CP_EXACT_MAX points, else the sequential rule's, *perms
   the permutations drawn, 0 when exact); 1 when n < 2 min_seg. For tests
   and the docs' figures. */
double bc_cp_test_p(const double *y, size_t n, const bc_cp_opts *o, unsigned *perms);

/* The smallest p any series of n runs can have: its runs in two groups
   split in the middle, every run of one above every run of the other, each
   group's runs in any order and the groups either way round: 2 / C(n, n/2)
   (n <= BC_CP_EXACT_MAX), or no less than 1 / (perms + 1) beyond. 1 when
   n < 2 min_seg. */
double bc_cp_min_p(size_t n, size_t min_seg, unsigned perms);
/* The fewest runs a series needs before any change point can reach
   alpha; 0 when none can (alpha below 1 / (perms + 1)). */
size_t bc_cp_min_runs(double alpha, size_t min_seg, unsigned perms);
/* The fewest runs after a step, with `before` runs before it, that can show
   it at alpha (a clean step: p = 2 / C(before + r, r) at best); 0 when no
   number up to 1000 can. */
size_t bc_cp_runs_after(double alpha, size_t before, size_t min_seg);

/* The best split of y[0..n) with min_seg points a side: its index (the
   first point after it) and statistic; 0 when n < 2 min_seg. For tests. */
size_t bc_cp_best_split(const double *y, size_t n, size_t min_seg, double *stat);
#endif
