/* The report page (pages/report.c): one self-contained HTML page whose
   sections and verdicts are the judge's (compare.h, casesets.h). Main thread
   only. */
#ifndef BC_REPORT_H
#define BC_REPORT_H
#include <stdio.h>
#include "compare.h"
#include "tables.h"

/* One file's report (benchcore -c ... --report): json_path read, the page
   written to path atomically. 0, or -1 after a message on stderr. */
int bc_report_file(const char *path, const char *json_path, const char *title);
/* The whole HTML page for res[0..n) to f, with the index against a
   reference set after the verdicts when index is not NULL (report --index
   SET, refset.h); view: the studies' views' --metric, --by and summary
   rows (NULL: each case's headline); -1 on a write error. */
struct bc_refset_ask;
int bc_report_write(FILE *f, bc_results *res, int n, const bc_cmp_opts *o, const char *title,
		    const struct bc_refset_ask *index, const bc_tab_opts *view);
/* The page for res[0..n) to path, atomically (a temporary file renamed into
   place), or to stdout for "-": 0; -1 when the page could not be built
   (nothing printed); -2 after a message on stderr. */
int bc_report_output(const char *path, bc_results *res, int n, const bc_cmp_opts *o, const char *title,
		     const struct bc_refset_ask *index, const bc_tab_opts *view);
#endif
