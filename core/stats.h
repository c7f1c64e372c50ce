/* Statistics over repeats and significance tests (pure functions, no state). */
#ifndef BC_STATS_H
#define BC_STATS_H
#include <stddef.h>

typedef struct bc_summary {
	size_t n;
	double mean, median, stddev, cv;	/* stddev: sample (n-1); 0 when n < 2; cv = stddev/mean */
	double ci95_low, ci95_high;		/* Student's t, n-1 degrees of freedom; = mean when n < 2 */
	double min, max;
} bc_summary;

void bc_stats_summary(const double *v, size_t n, bc_summary *out);
#endif
