/* History as text, CSV or Markdown (views/history_print.c). Main thread only. */
#ifndef BC_HISTORY_PRINT_H
#define BC_HISTORY_PRINT_H
#include <stdio.h>
#include "history.h"

enum { BC_HIST_TEXT, BC_HIST_CSV, BC_HIST_MARKDOWN };
/* The series with their intervals and change points . */
void bc_history_print(FILE *f, const bc_history *h, int fmt);
#endif
