/* The CI gate of `benchcore compare` (views/gate.c): which rows of the
   judge's comparison fail a --fail-on list, the lines that name them, and
   the same comparison as JUnit XML (junit.c) and as a Markdown page for a
   merge request (cmp_markdown.c). It reads what bc_compare_pair() decided
   and decides no verdict itself. Main thread only. */
#ifndef BC_GATE_H
#define BC_GATE_H
#include <stdio.h>
#include "compare.h"
#include "history.h"

/* --fail-on: bits of the verdicts that fail the gate. SUSPECT counts a
   suspect loss only (a suspect win is no regression). */
#define BC_GATE_LOSS		(1u << 0)
#define BC_GATE_SUSPECT		(1u << 1)
#define BC_GATE_INCONCLUSIVE	(1u << 2)
#define BC_GATE_MAX_METRICS	32

typedef struct bc_gate_opts {
	unsigned fail_on;	/* BC_GATE_* bits; 0: no gate */
	const char *metrics[BC_GATE_MAX_METRICS];	/* --fail-on-metric: secondary metrics gated too */
	size_t nmetrics;
	int all_metrics;	/* --fail-on-metric all */
	int allow_missing;	/* --allow-missing: B's cases without a partner in A, and B's
				   failed cases, do not fail the gate */
	int markdown;		/* bc_gate_print's lines follow a Markdown page: each
				   failing line a list item, all of it inert text
				   (mdtext.h) */
} bc_gate_opts;

/* "loss,suspect" into *bits; -1 on a word it does not know. */
int bc_gate_parse(const char *list, unsigned *bits);
/* "loss,suspect" of bits, into buf. */
const char *bc_gate_text(unsigned bits, char *buf, size_t n);
/* Whether row r is gated (its metric is a headline, or named by
   --fail-on-metric) and its verdict is in the list: 1 fails, 0 passes. Pure. */
int bc_gate_row_gated(const bc_gate_opts *g, const bc_cmp_row *r);
int bc_gate_row_fails(const bc_gate_opts *g, const bc_cmp_row *r);
/* How many of c's B cases fail as missing or not ok (0 with allow_missing):
   B's groups with no partner in A, and B's failed cases as one. */
size_t bc_gate_missing(const bc_gate_opts *g, const bc_cmp *c);
/* The gate over res[1..n) against res[0]: the failing rows, one line each
   (ratio, interval, threshold), then one closing line, on f (as Markdown
   with g->markdown). Returns the number of failures (rows + missing). */
size_t bc_gate_print(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_gate_opts *g);

/* JUnit XML (junit.c): a testsuite per file pair, a testcase per case and
   metric (a loss a <failure>, suspect and inconclusive <skipped>, tie and
   win pass; the rows of --fail-on fail whatever their verdict); missing
   cases a <failure> unless allowed. Written to a temporary file next to path
   and renamed into place. 0, or -1 after printing why (cmd names the command). */
int bc_junit_compare(const char *cmd, const char *path, const bc_results *res, int n,
		     const bc_cmp_opts *o, const bc_gate_opts *g);
/* history: a testsuite per host, a testcase per series; a new change for the
   worse at its newest run (bc_history_new_worse) a <failure>, else it passes. */
int bc_junit_history(const char *cmd, const char *path, const bc_history *h);

/* compare --format markdown (cmp_markdown.c): per pair a headline table,
   losses first, the secondary rows that are not ties folded in a list, the
   machines' differences; no links. */
void bc_compare_markdown(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_gate_opts *g);
#endif
