/* --start-at TIME: hosts of a fleet start their runs together (contrib/ansible).
 * The time is a wall-clock time: the hosts share no clock but NTP's, so the
 * playbook checks their offsets before handing them one TIME. Main thread only. */
#ifndef BC_START_AT_H
#define BC_START_AT_H
#include "util.h"

/* How far in the past a TIME may be and still start at once: the seconds
   between the playbook choosing it and a slow host parsing it. */
#define BC_START_AT_LATE	5.0
/* Further ahead than this is refused as a likely typo (a wrong year or day). */
#define BC_START_AT_AHEAD	(7 * 86400.0)

/* The last time taken: 9999-12-31T23:59:59Z (ISO 8601's four-digit years). */
#define BC_START_AT_MAX		253402300799.0

/* Parses TIME into seconds since the epoch: ISO 8601 date and time
   (2026-12-01T10:00:00Z, ...+01:00, or without a zone: local time; a space
   may replace the T; seconds and a fraction are optional), a time of day
   HH:MM[:SS][zone] (its next occurrence after now, in that zone: Z, +01:00;
   without one in local time; up to BC_START_AT_LATE past counts as now) or
   epoch seconds (1796119200, or @1796119200). A time outside 0 ..
   BC_START_AT_MAX is refused first. Returns 0, or -1 with e set (what, why,
   a hint). _now: against a given now (epoch seconds), for tests. */
int bc_start_at_parse(const char *text, double *epoch, bc_err *e);
int bc_start_at_parse_now(const char *text, double now, double *epoch, bc_err *e);

/* Waits until epoch on the wall clock, saying so on stderr. Returns 0 to go
   on, 2 after printing why a time too far in the past or ahead is refused,
   130 when SIGINT, SIGTERM, SIGHUP (unless ignored) or SIGQUIT came during
   the wait: nothing ran then, and the caller writes no results. */
int bc_start_at_wait(double epoch, const char *text);
#endif
