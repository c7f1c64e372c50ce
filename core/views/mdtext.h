/* A user's string as inert Markdown text (mdtext.c): for every page or line
   benchcore writes as Markdown (history's page, the gates' failing lines
   after a Markdown page). Any thread; f is the caller's. */
#ifndef BC_MDTEXT_H
#define BC_MDTEXT_H
#include <stdio.h>

/* s printable (bc_printable), every character that opens Markdown's inline
   syntax escaped with a backslash, and <, > and & as entities. */
void bc_md_text(FILE *f, const char *s);
#endif
