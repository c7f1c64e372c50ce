/* history --fail-on-change (hgate.c): whether the newest run of a series
   starts a change point for the worse. Pure: reads a built history. */
#ifndef BC_HGATE_H
#define BC_HGATE_H
#include "history.h"

/* The change of s that its newest run starts, when it is for the worse (a
   fall of a higher-is-better metric, a rise of a lower-is-better one):
   the series' last change point, found with the newest run and not without
   it (the run before the newest one did not show it yet, so a level that
   an earlier gate already reported does not fail every later run). Its
   index into s->ch, or -1 when none. o: the options the history was built with. */
long bc_history_new_worse(const bc_hseries *s, const bc_cp_opts *o);
#endif
