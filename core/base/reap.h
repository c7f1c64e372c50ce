/* Reaping the processes a case leaves behind (a dead run's directories are
   run/leftover.h's). A case's process and the runner are child subreapers
   (prctl PR_SET_CHILD_SUBREAPER): the orphans of whatever a module starts,
   setsid daemons included, become their children, so killing every child
   that is not known to be legitimate (the runner's private servers) leaves
   nothing behind. Main thread only. */
#ifndef BC_REAP_H
#define BC_REAP_H
#include <stddef.h>
#include <sys/types.h>

#define BC_MAX_KIDS 4096

/* The processes whose parent is `parent` (at most cap of them). */
size_t bc_children_of(pid_t parent, pid_t *out, size_t cap);
/* Kills (SIGKILL, with their process groups) and reaps this process's
   children not in keep[], until none is left. Returns how many. */
unsigned bc_kill_strays(const pid_t *keep, size_t nkeep);
#endif
