/* Test module "ctor_daemon" (issue 25, finding 3): when BCTEST_CTOR_DAEMON is
 * set, its constructor starts a daemon the classic way (fork, setsid, fork
 * again, the middle one exits) named bc-ctor-daemon, which would outlive
 * `benchcore list` unless the probe reaps it; the same happens again in the
 * case's process of a run. Otherwise it is a plain module.
 * tests/integration/test_contain.sh. */
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "benchcore/module.h"

__attribute__((constructor)) static void ctor_daemon_ctor(void)
{
	if (!getenv("BCTEST_CTOR_DAEMON"))
		return;
	pid_t mid = fork();
	if (mid == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);	/* its child is an orphan in a session of its own */
		prctl(PR_SET_NAME, "bc-ctor-daemon");
		for (;;)
			pause();
	}
	if (mid > 0)
		waitpid(mid, NULL, 0);
}

static int ctor_daemon_event(void *t, uint64_t *b) { (void)t; (void)b; return BENCH_OK; }
static const bench_module_v1 ctor_daemon_module = {
	BENCH_MODULE_HEADER,
	.name = "ctor_daemon",
	.summary = "constructor that starts a setsid daemon under BCTEST_CTOR_DAEMON (test module)",
	.event = ctor_daemon_event,
};
BENCH_MODULE(ctor_daemon_module);
