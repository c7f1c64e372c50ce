/* A run's points: one per group (module x params x threads) and metric, the
   mean of its repeats with the 95% interval compare uses. They are what the
   results archive keeps per case for queries, and what `benchcore history`
   draws a series from, whether its runs come from files or the archive. */
#ifndef BC_POINTS_H
#define BC_POINTS_H
#include <stddef.h>
#include <jansson.h>
#include "results.h"

typedef struct bc_hpoint {
	char *run_id;		/* the document's run_id ("" when it has none) */
	char *started;		/* started_at as written, ISO 8601 UTC ("" when absent) */
	char *host;		/* host.hostname ("" when absent) */
	char *label;		/* the run's label (bc_results.label) */
	char *module;
	char *params_key;	/* compact JSON, sorted keys: the matching key */
	char *params_text;	/* "block_size=4096 oper=read" */
	long threads;
	char *metric, *unit;
	int higher_is_better;
	int headline;		/* the group's primary metric (bc_primary_metric) */
	double mean, ci_low, ci_high;	/* over n ok repeats; ci = mean when n < 2 */
	size_t n;
	json_t *hostobj;	/* the run's host object (own reference) */
	json_t *info;		/* the run's module info, "module.key" -> value (own reference) */
	char *version;		/* benchcore_version of the run (NULL: unknown) */
	char *module_version;	/* the cases' module_version (NULL: unknown) */
} bc_hpoint;

/* What a history asks for. module is required; the rest narrow it (NULL: any).
   metric NULL: each group's primary metric. where: params a point's group
   must have, as key=value pairs (values compared as the params' text). */
typedef struct bc_history_query {
	const char *module;
	const char *metric;
	const char *host;
	const char *const *where;	/* "key=value" strings */
	size_t nwhere;
} bc_history_query;

/* Appends r's points matching q (q NULL: every point of every compared
   metric) to *pts (realloc'd, *n updated). */
void bc_points_from_results(const bc_results *r, const bc_history_query *q,
			    bc_hpoint **pts, size_t *n);
/* Whether a group's params (params_key JSON) satisfy q's where list. */
int bc_points_where(const char *params_key, const bc_history_query *q);
void bc_hpoint_free(bc_hpoint *p);
void bc_hpoints_free(bc_hpoint *pts, size_t n);
#endif
