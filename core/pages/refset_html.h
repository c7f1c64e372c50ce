/* The index against a reference set as an HTML section (pages/refset_html.c),
   from refset.h's model. Main thread only. */
#ifndef BC_REFSET_HTML_H
#define BC_REFSET_HTML_H
#include <stdio.h>
#include "refset.h"

/* report --index SET: the same tables and the score ratios as a section of
   the HTML page (refset_html.c); a note in their place when the set cannot
   be read or no file has its tests. */
void bc_refset_html(FILE *f, const char *name, char *const *dirs, const bc_results *res, int n,
		    const bc_cmp_opts *o);
#endif
