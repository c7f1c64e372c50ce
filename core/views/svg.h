/* Inline SVG line charts and HTML escaping for the self-contained report.
   Pure output functions: write to the FILE given, no state. */
#ifndef BC_SVG_H
#define BC_SVG_H
#include <stdio.h>
#include <stddef.h>

typedef struct bc_series {
	const char *name;		/* legend text */
	size_t n;
	const double *x, *y;		/* x: value, or category index with xcats */
	const double *ylo, *yhi;	/* optional error bars (NULL: none) */
} bc_series;

typedef struct bc_chart {
	const char *title, *xlabel, *ylabel;
	const char *note;		/* under the chart: "higher is better" */
	const char *const *xcats;	/* categorical x axis labels, or NULL */
	size_t ncat;
	int has_ref;			/* a dashed reference line at ref_y */
	double ref_y;
	const char *ref_label;
	const bc_series *s;
	size_t ns;
	int bars;			/* with xcats: grouped bars, one per series in each category */
	/* vertical dashed lines at these x values, each with its label (change
	   points); NULL: none */
	const double *marks;
	const char *const *mark_labels;
	size_t nmarks;
	int zoom;			/* the y axis spans the data (a 3% step shows), not 0 up */
	int linear_x;			/* never a log x axis (runs in time order, not thread counts) */
	int xzero;			/* the x axis starts at 0 (a line through the origin shows),
					   ticked at round steps */
} bc_chart;

/* Writes text with & < > " ' escaped for HTML content and attributes. */
void bc_html_escape(FILE *f, const char *s);

/* One <figure> with an <svg> line chart (class "chart"). Points that are
   not finite are skipped. The x axis is ticked at the x values that occur,
   or, with more than BC_SVG_XTICKS of them (a series of runs), at round
   steps. */
#define BC_SVG_XTICKS	24
void bc_svg_chart(FILE *f, const bc_chart *c);
#endif
