/* Whether throughput is proportional to the clock (compare --per-ghz, the
   report's per-GHz table): the judge's interval of B/A (compare.c) moved
   by the ratio of the measured clocks, so a case is proportional, not
   proportional, or undecided with the repeats it needs, by the same rule
   that makes a tie, a difference or an inconclusive row. Main thread only. */
#ifndef BC_PERGHZ_H
#define BC_PERGHZ_H
#include <stddef.h>
#include "compare.h"

/* Proportional within this many percent, or the metric's own threshold
   when that is larger. */
#define BC_GHZ_TOLERANCE_PCT 5.0

enum { BC_GHZ_PROPORTIONAL, BC_GHZ_NOT, BC_GHZ_UNDECIDED };

typedef struct bc_ghz_case {
	const bc_cmp_row *row;	/* compare's row (borrowed) */
	double clock_ratio;	/* B's measured GHz / A's */
	/* filled by bc_ghz_judge: */
	double dev, lo, hi;	/* per GHz: B/A over the clock ratio - 1, its interval at opts.level
				   (NAN: no interval) */
	double tolerance;	/* fraction */
	double p_adj;		/* the deviation against 0, adjusted over the n cases; NAN untested */
	int verdict;		/* BC_GHZ_* */
	size_t need_n;		/* undecided: repeats per side likely to decide it (1000: more;
				   0: the measured interference explains the deviation, a
				   quieter run decides it, not more repeats) */
} bc_ghz_case;

/* Judges the n cases of one pair (c's options): a case is proportional
   when its interval lies within +-tolerance (with >= BC_TIE_MIN_N repeats
   a side, as a tie), not proportional when the interval lies beyond it and
   the test of "per GHz unchanged" holds after the adjustment over the n
   cases, else undecided. Rates scale with the clock, times with its
   inverse. */
void bc_ghz_judge(const bc_cmp_opts *o, bc_ghz_case *cs, size_t n);

/* A pair's overall verdict from its judged cases: NOT when any case is,
   PROPORTIONAL when every case is, else UNDECIDED; counts into k[BC_GHZ_*]
   and the largest need_n of the undecided into *need (0 when every
   undecided case is the measured interference's). */
int bc_ghz_overall(const bc_ghz_case *cs, size_t n, size_t k[3], size_t *need);
#endif
