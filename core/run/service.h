/* Private servers of modules (host API 1.1 server_start).
 *
 * A server is started by the runner process, never by a case child, so it
 * lives from case to case: one per (module, spec name), kept for the
 * module's whole run and stopped after its last case. It runs in its own
 * process group (a terminal's Ctrl-C does not reach it; a stop reaches its
 * children too) and dies with benchcore (PR_SET_PDEATHSIG), so it never
 * outlives the run, whatever ends it.
 *
 * Runner's main thread only: the registry is a plain static table, and the
 * parent-death signal is tied to the thread that forks. */
#ifndef BC_SERVICE_H
#define BC_SERVICE_H
#include <sys/types.h>
#include <jansson.h>
#include <stddef.h>
#include "benchcore/module.h"
#include "util.h"

/* Starts spec for module, or finds the one already running under
   (module, spec->name); a server found dead is started again. Its log is
   dir/NAME.log; dir is also its working directory unless spec->workdir.
   Returns 0 once it answers its readiness check, else -1 with a sentence
   and the tail of its log in e->msg, one text (it goes back to the module
   as one; the server is then gone). */
int bc_service_start(const char *module, const bench_server_spec_v1 *spec, const char *dir,
		     bc_err *e);
/* The pid (= process group) of the running server (module, name), or 0:
   the case declares it so its CPU is the workload's, not other processes'. */
int bc_service_pid(const char *module, const char *name);
/* Stops the module's servers: stop_signal to each group, up to 5 s (cut
   short by a second Ctrl-C), then SIGKILL to the group; reaps them. */
void bc_service_stop_module(const char *module);
/* Stops every server. Safe to call twice, and a no-op in a forked child
   (only the process that started the servers stops them). */
void bc_service_stop_all(void);
/* Servers running now (tests). */
size_t bc_service_count(void);
/* The processes of the running servers (leaders and what they daemonized),
   at most cap: never strays of a case. */
size_t bc_service_pids(pid_t *out, size_t cap);

/* The spec as JSON, to cross a case child's channel; and back. */
json_t *bc_service_spec_json(const bench_server_spec_v1 *spec);
/* A spec whose strings point into j (keep j until done); free with
   bc_service_spec_free. NULL when j lacks a name or argv. */
bench_server_spec_v1 *bc_service_spec_parse(json_t *j);
void bc_service_spec_free(bench_server_spec_v1 *spec);
#endif
