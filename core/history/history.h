/* `benchcore history`: runs' points (points.h) as series per host, case
   (module, params, threads) and metric in time order, their change points
   (changepoint.h) and the facts of the machine and software that changed
   at each (compare.c's fact diff). history.c builds it, history_print.c
   prints it as text, CSV or markdown and draws it as an HTML page
   (docs/history.md). Its command line is core/cli/history_cli.c. Main
   thread only. */
#ifndef BC_HISTORY_H
#define BC_HISTORY_H
#include <stdio.h>
#include "changepoint.h"
#include "points.h"

/* One change point of a series and what changed with it. */
typedef struct bc_hchange {
	bc_cpoint cp;		/* cp.at indexes the series' runs */
	size_t facts_at;	/* the run whose facts differ from its predecessor's: cp.at, or
				   within two runs of it (the method places a step within one or
				   two runs); == cp.at when no fact changed */
	char **facts;		/* "kernel: 6.1.0-17-amd64 -> 6.1.0-18-amd64", most fundamental
				   first; NULL-terminated, NULL when no fact changed */
	size_t nfacts;
} bc_hchange;

typedef struct bc_hseries {
	const bc_hpoint **run;	/* its points in time order (borrowed from the history) */
	size_t n;
	bc_hchange *ch;
	size_t nch;
	int tested;		/* n >= 2 x min_seg: the method ran */
} bc_hseries;

typedef struct bc_history {
	bc_hpoint *pts;		/* owned */
	size_t npts;
	size_t nruns;		/* distinct run_ids among them */
	size_t dropped;		/* points left out: a run_id given twice in a series, a mean
				   that is not a finite number */
	bc_hseries *series;
	size_t nseries;
	bc_cp_opts cp;
} bc_history;

/* Takes pts[0..n) (ownership: freed by bc_history_free), groups them into
   series (sorted by host, module, params, threads, metric; runs by started,
   then run_id), finds each series' change points with o and names the
   facts that changed. */
void bc_history_build(bc_history *h, bc_hpoint *pts, size_t n, const bc_cp_opts *o);
void bc_history_free(bc_history *h);

/* Total change points over every series. */
size_t bc_history_changes(const bc_history *h);
/* Index of the change point at run k of s, or -1. */
long bc_history_change_at(const bc_hseries *s, size_t k);

#endif
