/* A case in benchcore's own process (isolate = false, inproc.h): the module
   opened here, its exit() and its signals to this process turned into the
   case's failure, and -o - kept clean of what it prints. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "inproc.h"
#include "runner.h"
#include "engine.h"
#include "service.h"
#include "util.h"

/* isolate = false: what an exit() of the module would leave (see here_exit). */
static struct {
	struct bc_runner *r;
	char *const *moddir;	/* the module's directory (its modrun's), removed on the way out */
	const char *label, *point;	/* of the case being run; NULL for a cleanup */
	unsigned round;
	const bc_case *c;		/* set while the module's code runs */
} here;

static void here_exit(int status, void *arg);

void bc_here_set(bc_runner *r, char *const *moddir, const char *label, const char *point, unsigned round)
{
	here.r = r;
	here.moddir = moddir;
	here.label = label;
	here.point = point;
	here.round = round;
}

/* In this process (isolate = false): the module is opened here (once), and
   the same callbacks run without a channel. */
void bc_run_here(bc_case *c, bc_case_result *cr)
{
	static int guarded;
	bc_err e;
	if (!guarded)
		guarded = on_exit(here_exit, NULL) == 0;
	here.c = c;
	bc_self_signal = 0;
	bc_in_module = 1;
	if (bc_module_open((bc_module *)c->mod, &e)) {
		char why[1200];
		snprintf(why, sizeof(why), "load: %s", e.msg);
		bc_case_header(c, "failed", why, cr);
	} else {
		bc_case_run(c, cr);
	}
	bc_in_module = 0;
	here.c = NULL;
	if (bc_self_signal) {
		char why[300];
		snprintf(why, sizeof(why), "the module sent signal %d (%s) to benchcore's process (isolate = false; "
			 "kill(0, ...)?): nobody asked benchcore to stop, so the case failed", (int)bc_self_signal,
			 strsignal((int)bc_self_signal));
		bc_case_set_str(&cr->status, "failed");
		bc_case_set_str(&cr->reason, why);
		bc_self_signal = 0;
	}
}

/* isolate = false with -o -: the module prints (a constructor's banner)
   into this process's stdout, which must hold only the JSON. The JSON keeps
   a copy of the descriptor; fd 1 becomes stderr for everything else. */
void bc_keep_stdout(bc_runner *r)
{
	if (r->json_out || !r->out_json || strcmp(r->out_json, "-"))
		return;
	fflush(stdout);
	int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || !(r->json_out = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	dup2(2, 1);
}

/* isolate = false and a module called exit() (from any thread): its status
   must not become benchcore's (3 means "results could not be written"),
   and OUT.lock and the run's temp dirs must not stay. The case fails, the
   results so far are written, the servers stopped, the dirs and the lock
   removed, and benchcore exits 1 at once: the run cannot go on, the process
   is on its way out. */
static void here_exit(int status, void *arg)
{
	(void)arg;
	if (!here.c)
		return;	/* benchcore's own exit */
	const bc_case *c = here.c;
	bc_runner *r = here.r;
	char why[300];
	here.c = NULL;
	snprintf(why, sizeof(why), "the module called exit(%d) in benchcore's process (isolate = false): a "
		 "module never exits; the run stopped here", status);
	fprintf(stderr, "benchcore: error: module \"%s\" called exit(%d); the run stops (isolate = false)\n",
		c->mod->desc.name, status);
	if (r && here.label) {
		bc_case_result cr;
		bc_case_header(c, "failed", why, &cr);
		bc_runner_record(r, &cr, here.label, here.point, here.round);
	}
	if (r)
		r->stopped = 1;
	int wf = r ? bc_runner_write(r, 1) != 0 : 0;
	bc_service_stop_all();
	if (c->scratch)
		bc_rmtree(c->scratch);
	if (here.moddir && *here.moddir)
		bc_rmtree(*here.moddir);
	if (r)
		bc_unlock_output(r->out_json, r->lock_fd);
	fflush(stdout);
	fflush(stderr);
	_exit(wf ? 3 : 1);
}
