/* History as an HTML page (pages/history_html.c). Main thread only. */
#ifndef BC_HISTORY_HTML_H
#define BC_HISTORY_HTML_H
#include <stdio.h>
#include "history.h"

/* The HTML page (one chart per series, change points marked), to path
   atomically or to stdout for "-": 0, or -1 after a message on stderr. */
int bc_history_html_output(const char *path, const bc_history *h, const char *title);
int bc_history_html(FILE *f, const bc_history *h, const char *title);
#endif
