/* Machine settings while a run runs (docs/machine.md): the lock and
   journal taken before the first case, each case's combination applied
   before it (the cases of a module without settings run on the originals),
   its effect checked after it, everything restored at the end and on every
   way out (atexit too). Main thread. */
#ifndef BC_MRUN_H
#define BC_MRUN_H
#include <stdio.h>
#include "case.h"
#include "plan.h"

struct bc_mrun;

/* Before anything runs: a run with machine settings takes the machine (a
   second one is refused, its holder named: -1 after printing why); one
   without finishes a dead run's restore, and says in other (n bytes) whose
   settings are applied when another run holds them. *out: NULL when the
   plan has no settings. */
int bc_mrun_begin(struct bc_mrun **out, const bc_modplan *plans, size_t n, char *other, size_t on);
/* Sets the machine for point pt of p (p without settings: the originals).
   0, or -1 with why (the case fails; what was written is restored later). */
int bc_mrun_apply(struct bc_mrun *m, const bc_modplan *p, size_t pt, FILE *text, char *why, size_t n);
/* After a case of point pt: records its settings in cr->machine, and marks
   setting_not_in_effect when the effect is not seen (usable CPUs, the
   measured clock more than 5% from cpu_freq, THP's sysfs value). */
void bc_mrun_verify(const bc_modplan *p, size_t pt, bc_case_result *cr);
/* A private server's THP state for a case run under thp (its value):
   its name, pid, AnonHugePages (kB, smaps_rollup), THP_enabled (status)
   and whether it started after change_ns (CLOCK_BOOTTIME of the last THP
   change; 0: none). *why (malloc'd) when THP is not in effect for it: it
   started before the change (its memory was allocated under the old
   value), it holds huge pages under never, or it turned THP off for
   itself under always or madvise; else NULL. */
json_t *bc_mrun_server_thp(pid_t pid, uint64_t change_ns, const char *thp, char **why);
/* machine.fs: how many file systems this run has made so far (a module's
   prepared data is gone when the count moved since its last case), and
   the directory the one mounted now is on (NULL: none). */
unsigned bc_mrun_fs_made(const struct bc_mrun *m);
const char *bc_mrun_fs_dir(const struct bc_mrun *m);
/* The originals back, the journal removed, the lock released, freed. */
void bc_mrun_end(struct bc_mrun *m);
#endif
