/* bench/archive_scale.sh's timer: bc_archive_history_points over an archive,
   the query `benchcore history` makes, timed from open to the last point.
     archive_query DB MODULE [METRIC]     prints: points N seconds S */
#include <stdio.h>
#include <time.h>
#include "archive.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: archive_query DB MODULE [METRIC]\n");
		return 2;
	}
	bc_history_query q = { .module = argv[2], .metric = argc > 3 ? argv[3] : NULL };
	bc_hpoint *p;
	size_t n;
	bc_err e;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (bc_archive_history_points(argv[1], &q, &p, &n, &e)) {
		fprintf(stderr, "archive_query: %s\n", e.msg);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("points %zu seconds %.3f\n", n, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	bc_hpoints_free(p, n);
	return 0;
}
