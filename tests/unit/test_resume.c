/* --resume at every kind of interruption, in simulated time: `benchcore run
   synth ...` (synthrun.h) stopped by SIGINT between two cases and during
   one, by SIGTERM, killed outright (SIGKILL) with a temporary of the
   document left mid-rewrite, with a crashed case in the file, a resumed run
   interrupted again, and --resume of a run that is complete. The signals
   come from another process (a helper forked at setup), as a user's would,
   at a moment the test picks through synth's hook; each run's document is
   then read as data: the cases kept (ids, figures), the ones run again,
   each case exactly once, resumed[], status. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include "synthrun.h"
#include "engine.h"

extern volatile sig_atomic_t bc_signals;

enum { SYNTH_INIT, SYNTH_STEP, SYNTH_DESTROY };	/* tests/modules/synth.c */

/* The plan most tests run: 2 points x 2 thread counts x 2 repeats, 1 s each */
#define PLAN "ops=1000,2000 --threads 1,2 --repeat 2 --seed 5 --time 1 --warmup 0"
#define NPLAN 8

static int sig_pipe[2] = { -1, -1 };	/* to the signaller */
static pid_t signaller;

/* What the hook does, and when: at event `event` of the at_case-th case
   this process starts (1 = the first), after `after` s of it (steps). */
static struct {
	int sig;		/* 0: nothing; SIGKILL: this process dies */
	int event;
	unsigned at_case;
	double after;
	int kill_runner;	/* an isolated case child: SIGKILL its runner */
} trig;
static unsigned inits;		/* cases started in this process */
static uint64_t case_t0;
static pthread_mutex_t hook_mu = PTHREAD_MUTEX_INITIALIZER;

/* Sends sig to this process from the signaller and waits (real time,
   simulated time standing still: this thread is running) until it came. */
static void fire(int sig)
{
	if (sig == SIGKILL) {
		raise(SIGKILL);
		return;
	}
	sig_atomic_t before = bc_signals;
	unsigned char b = (unsigned char)sig;
	if (write(sig_pipe[1], &b, 1) != 1)
		abort();
	for (int i = 0; i < 10000 && bc_signals == before; i++)
		usleep(1000);
}

static void hook(int event)
{
	pthread_mutex_lock(&hook_mu);
	if (event == SYNTH_INIT && isolated) {
		/* each case in a child of its own: counted in a file */
		char *p = bc_xasprintf("%s/iso.count", dir);
		FILE *f = fopen(p, "r");
		unsigned k = 0;
		if (f) {
			k = fscanf(f, "%u", &k) == 1 ? k : 0;
			fclose(f);
		}
		if ((f = fopen(p, "w"))) {
			fprintf(f, "%u\n", k + 1);
			fclose(f);
		}
		free(p);
		inits = k;
	}
	if (event == SYNTH_INIT) {
		inits++;
		case_t0 = bc_now_ns();
	}
	int now = trig.sig && event == trig.event && inits == trig.at_case &&
		  (event != SYNTH_STEP || (double)(bc_now_ns() - case_t0) / 1e9 >= trig.after);
	int sig = trig.sig;
	if (now)
		trig.sig = 0;
	pthread_mutex_unlock(&hook_mu);
	if (now && trig.kill_runner) {
		kill(getppid(), SIGKILL);
		_exit(0);
	}
	if (now)
		fire(sig);
}

/* a run of its own: what the last one's signals left is cleared */
static int run(const char *name, const char *args)
{
	bc_stop_requested = 0;
	bc_signals = 0;
	inits = 0;
	return bc(name, args);
}

static void arm(int sig, int event, unsigned at_case, double after)
{
	trig.sig = sig;
	trig.event = event;
	trig.at_case = at_case;
	trig.after = after;
	trig.kill_runner = 0;
}

/* "ops/threads/repeat" of case c */
static char *key(json_t *c)
{
	return bc_xasprintf("%g/%ld/%ld", num(json_object_get(c, "params"), "ops"), ival(c, "threads"),
			    ival(c, "repeat"));
}

/* The document is whole: n cases, each (point, threads, repeat) once, ids
   unique, every case `status`, the run complete. */
static void whole(json_t *d, size_t n, const char *status)
{
	assert_int_equal(json_array_size(cases(d)), n);
	for (size_t i = 0; i < n; i++) {
		char *ki = key(at(d, i));
		assert_string_equal(str(at(d, i), "status"), status);
		for (size_t j = 0; j < i; j++) {
			char *kj = key(at(d, j));
			if (!strcmp(ki, kj))
				fail_msg("case %s twice (cases[%zu] and [%zu])", ki, j, i);
			assert_int_not_equal(ival(at(d, i), "id"), ival(at(d, j), "id"));
			free(kj);
		}
		free(ki);
	}
	assert_string_equal(str(d, "status"), "complete");
	assert_true(json_is_false(json_object_get(d, "interrupted")));
	assert_non_null(json_object_get(d, "finished_at"));
	json_t *g = json_object_get(d, "groups");
	for (size_t i = 0; i < json_array_size(g); i++)
		assert_int_equal(ival(json_array_get(g, i), "repeats"), 2);
}

/* Each case of before is in after unchanged (its id, figures and all) */
static void kept(json_t *before, json_t *after)
{
	for (size_t i = 0; i < json_array_size(cases(before)); i++) {
		json_t *c = at(before, i);
		if (!strcmp(str(c, "status"), "interrupted"))
			continue;
		int found = 0;
		for (size_t j = 0; j < json_array_size(cases(after)); j++)
			found |= json_equal(c, at(after, j));
		if (!found)
			fail_msg("cases[%zu] (id %ld) is not in the resumed file as it was", i, ival(c, "id"));
	}
}

/* The documents a test read, reachable from here until it ends (a child
   the runner forks, the needs() probe, exits while a test holds them: not
   leaks of that child's) */
static json_t *held[16];
static size_t nheld;

static json_t *hdoc(const char *name)
{
	json_t *d = doc(name);
	assert_true(nheld < sizeof(held) / sizeof(*held));
	return held[nheld++] = d;
}

static void release(void)
{
	while (nheld)
		json_decref(held[--nheld]);
}

static json_t *resumed(json_t *d, size_t i) { return json_array_get(json_object_get(d, "resumed"), i); }

/* SIGINT between two cases (as the third one's destroy ends): exit 130, the
   three cases that ended are in the file, ok, the rest not run; --resume
   keeps them as they were and runs the five left. */
static void test_sigint_between(void **st)
{
	(void)st;
	arm(SIGINT, SYNTH_DESTROY, 3, 0);
	assert_int_equal(run("sb", PLAN), 130);
	json_t *d = hdoc("sb");
	assert_int_equal(json_array_size(cases(d)), 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(str(at(d, i), "status"), "ok");
	assert_string_equal(str(d, "status"), "interrupted");
	assert_true(json_is_true(json_object_get(d, "interrupted")));
	assert_int_equal(ival(d, "cases_planned"), NPLAN);
	assert_int_equal(run("sb", PLAN " --resume"), 0);
	assert_int_equal(inits, 5);
	json_t *r = hdoc("sb");
	whole(r, NPLAN, "ok");
	kept(d, r);
	assert_int_equal(json_array_size(json_object_get(r, "resumed")), 1);
	assert_int_equal(ival(resumed(r, 0), "kept"), 3);
	assert_int_equal(ival(resumed(r, 0), "rerun"), 0);
	char *err = text("sb", "err");
	assert_non_null(strstr(err, "plan: resuming "));
	assert_non_null(strstr(err, "sb.json: 3 cases kept, 5 to run (0 interrupted, run again)"));
	free(err);
	/* the new cases' ids follow the kept ones' */
	for (size_t i = 3; i < NPLAN; i++)
		assert_true(ival(at(r, i), "id") > 3);
	release();
}

/* SIGINT 0.5 s into the third case: it is written interrupted, with the
   figures of its half window; --resume runs it again (rerun 1) and the rest. */
static void test_sigint_during(void **st)
{
	(void)st;
	arm(SIGINT, SYNTH_STEP, 3, 0.5);
	assert_int_equal(run("sd", PLAN), 130);
	json_t *d = hdoc("sd"), *c = at(d, 2);
	assert_int_equal(json_array_size(cases(d)), 3);
	assert_string_equal(str(c, "status"), "interrupted");
	assert_string_equal(str(c, "reason"), "interrupted by signal");
	double t = num(c, "duration_s");
	assert_true(t >= 0.5 && t < 0.55);
	long n = ival(json_object_get(json_object_get(c, "ops"), "event"), "count");
	double want = num(json_object_get(c, "params"), "ops") * (double)ival(c, "threads") * t;
	assert_true(n > 0 && fabs((double)n - want) <= 0.02 * want + 20);
	assert_string_equal(str(d, "status"), "interrupted");
	assert_int_equal(run("sd", PLAN " --resume"), 0);
	json_t *r = hdoc("sd");
	whole(r, NPLAN, "ok");
	kept(d, r);
	assert_int_equal(ival(resumed(r, 0), "kept"), 2);
	assert_int_equal(ival(resumed(r, 0), "rerun"), 1);
	assert_int_equal(inits, 6);	/* the interrupted one and the five never started */
	char *err = text("sd", "err");
	assert_non_null(strstr(err, "sd.json: 2 cases kept, 6 to run (1 interrupted, run again)"));
	free(err);
	/* the case run again has a new id */
	for (size_t i = 0; i < NPLAN; i++)
		assert_int_not_equal(ival(at(r, i), "id"), ival(c, "id"));
	release();
}

/* SIGTERM is a stop request like SIGINT: during the warmup of the first
   case, nothing but that case in the file, interrupted; resumed whole. */
static void test_sigterm(void **st)
{
	(void)st;
	arm(SIGTERM, SYNTH_STEP, 1, 0.3);
	assert_int_equal(run("st", "ops=1000,2000 --threads 1,2 --repeat 2 --seed 5 --time 1 --warmup 1"), 130);
	json_t *d = hdoc("st");
	assert_int_equal(json_array_size(cases(d)), 1);
	assert_string_equal(str(at(d, 0), "status"), "interrupted");
	assert_string_equal(str(d, "status"), "interrupted");
	assert_int_equal(run("st", "ops=1000,2000 --threads 1,2 --repeat 2 --seed 5 --time 1 --warmup 1 --resume"), 0);
	json_t *r = hdoc("st");
	whole(r, NPLAN, "ok");
	assert_int_equal(ival(resumed(r, 0), "kept"), 0);
	assert_int_equal(ival(resumed(r, 0), "rerun"), 1);
	for (size_t i = 0; i < NPLAN; i++)
		assert_true(fabs(num(at(r, i), "warmup_s") - 1) < 1e-9);
	release();
}

/* Runs `run name args` in a child process, which the hook kills outright;
   its pid, reaped (a pid that is gone). */
static pid_t killed_run(const char *name, const char *args)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		run(name, args);
		_exit(99);	/* not killed: the parent sees 99 */
	}
	trig.sig = 0;	/* the child's, not this process's */
	int ws = 0;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFSIGNALED(ws));
	assert_int_equal(WTERMSIG(ws), SIGKILL);
	return pid;
}

/* SIGKILL during the fourth case, and a temporary of the document left
   half written (as a kill inside bc_write_atomic leaves it): the file
   holds the three cases written before, says the run was still going;
   --resume sweeps the dead writer's temporary (not a live one's) and
   completes the run. */
static void test_killed_mid_rewrite(void **st)
{
	(void)st;
	arm(SIGKILL, SYNTH_STEP, 4, 0.5);
	pid_t pid = killed_run("kd", PLAN);
	json_t *d = hdoc("kd");
	assert_int_equal(json_array_size(cases(d)), 3);
	assert_string_equal(str(d, "status"), "running");
	assert_null(json_object_get(d, "finished_at"));
	assert_true(json_is_true(json_object_get(d, "interrupted")));
	assert_int_equal(ival(d, "cases_planned"), NPLAN);
	char *tmp = bc_xasprintf("%s/kd.json.tmp.%d.AbC123", dir, (int)pid);
	char *live = bc_xasprintf("%s/kd.json.tmp.%d.LiV123", dir, (int)getppid());
	FILE *f = fopen(tmp, "w");
	fputs("{\"schema\": \"benchcore/1\", \"cases\": [{\"id\": 1, \"sta", f);
	fclose(f);
	f = fopen(live, "w");
	fputs("{", f);
	fclose(f);
	assert_int_equal(run("kd", PLAN " --resume"), 0);
	json_t *r = hdoc("kd");
	whole(r, NPLAN, "ok");
	kept(d, r);
	assert_int_equal(ival(resumed(r, 0), "kept"), 3);
	assert_int_equal(ival(resumed(r, 0), "rerun"), 0);
	assert_int_equal(inits, 5);
	assert_int_not_equal(access(tmp, F_OK), 0);
	assert_int_equal(access(live, F_OK), 0);
	char *err = text("kd", "err"), *want = bc_xasprintf("removed %s, a temporary file that benchcore pid %d (no "
							      "longer running) left while writing", tmp, (int)pid);
	assert_non_null(strstr(err, want));
	unlink(live);
	free(err);
	free(want);
	free(tmp);
	free(live);
	release();
}

/* Interrupted, resumed, interrupted again during the resume's third case,
   resumed again: whole, each case once; resumed[] has both resumes. */
static void test_resumed_interrupted_again(void **st)
{
	(void)st;
	arm(SIGINT, SYNTH_STEP, 2, 0.2);
	assert_int_equal(run("ra", PLAN), 130);
	json_t *d1 = hdoc("ra");
	assert_int_equal(json_array_size(cases(d1)), 2);
	arm(SIGINT, SYNTH_STEP, 3, 0.7);
	assert_int_equal(run("ra", PLAN " --resume"), 130);
	json_t *d2 = hdoc("ra");
	assert_int_equal(json_array_size(cases(d2)), 4);	/* 1 kept, 3 run, the last interrupted */
	assert_string_equal(str(at(d2, 3), "status"), "interrupted");
	assert_string_equal(str(d2, "status"), "interrupted");
	kept(d1, d2);
	assert_int_equal(run("ra", PLAN " --resume"), 0);
	assert_int_equal(inits, 5);	/* 3 kept: the interrupted one and the four never started */
	json_t *r = hdoc("ra");
	whole(r, NPLAN, "ok");
	kept(d2, r);
	assert_int_equal(json_array_size(json_object_get(r, "resumed")), 2);
	assert_int_equal(ival(resumed(r, 0), "kept"), 1);
	assert_int_equal(ival(resumed(r, 0), "rerun"), 1);
	assert_int_equal(ival(resumed(r, 1), "kept"), 3);
	assert_int_equal(ival(resumed(r, 1), "rerun"), 1);
	release();
}

/* --resume of a run that is complete runs nothing and changes no case. */
static void test_resume_complete(void **st)
{
	(void)st;
	assert_int_equal(run("rc", PLAN), 0);
	json_t *d = hdoc("rc");
	whole(d, NPLAN, "ok");
	assert_int_equal(run("rc", PLAN " --resume"), 0);
	assert_int_equal(inits, 0);
	json_t *r = hdoc("rc");
	assert_true(json_equal(cases(d), cases(r)));
	whole(r, NPLAN, "ok");
	assert_string_equal(str(r, "run_id"), str(d, "run_id"));
	char *err = text("rc", "err");
	assert_non_null(strstr(err, "rc.json: 8 cases kept, 0 to run (0 interrupted, run again)"));
	free(err);
	release();
}

/* A resumed run is the run that was interrupted: the same schedule (the
   recorded seed's order), and in simulated time the same figures, case by
   case, as the same plan run whole. */
static void test_resume_is_the_run(void **st)
{
	(void)st;
	assert_int_equal(run("wh", PLAN), 0);
	arm(SIGINT, SYNTH_STEP, 5, 0.25);
	assert_int_equal(run("ir", PLAN), 130);
	assert_int_equal(run("ir", PLAN " --resume"), 0);
	json_t *w = hdoc("wh"), *r = hdoc("ir");
	whole(r, NPLAN, "ok");
	assert_int_equal(ival(json_object_get(r, "schedule"), "seed"), 5);
	for (size_t i = 0; i < NPLAN; i++) {
		json_t *a = at(w, i), *b = at(r, i);
		char *ka = key(a), *kb = key(b);
		assert_string_equal(ka, kb);
		assert_int_equal(ival(a, "round"), ival(b, "round"));
		assert_true(headline(a) == headline(b));
		assert_true(num(a, "duration_s") == num(b, "duration_s"));
		assert_int_equal(ival(json_object_get(json_object_get(a, "ops"), "event"), "count"),
				 ival(json_object_get(json_object_get(b, "ops"), "event"), "count"));
		free(ka);
		free(kb);
	}
	/* and its summary groups are the whole run's */
	json_t *gw = json_object_get(w, "groups"), *gr = json_object_get(r, "groups");
	assert_int_equal(json_array_size(gr), 4);
	for (size_t i = 0; i < 4; i++)
		assert_true(json_equal(json_object_get(json_array_get(gw, i), "metrics"),
				       json_object_get(json_array_get(gr, i), "metrics")));
	release();
}

/* repeat = auto resumed: the repeats kept count toward the stopping rules.
   synth's factors 1, 1.012, 0.988, 1 (count_file): precise after 4
   repeats whether or not the run was interrupted after its second. */
static void test_resume_repeat_auto(void **st)
{
	(void)st;
	char *a = bc_xasprintf("step=0.012 count_file=%s/ra.count --time 1 --warmup 0 --repeat auto --min-repeat 3 "
			       "--max-repeat 8", dir), *b = bc_xasprintf("%s --resume", a);
	arm(SIGINT, SYNTH_DESTROY, 2, 0);
	assert_int_equal(run("au", a), 130);
	json_t *d = hdoc("au");
	assert_int_equal(json_array_size(cases(d)), 2);
	assert_null(str(at(d, 1), "repeat_stop"));
	assert_int_equal(run("au", b), 0);
	assert_int_equal(inits, 2);
	json_t *r = hdoc("au");
	assert_int_equal(json_array_size(cases(r)), 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(ival(at(r, i), "repeat"), (long)i + 1);
		if (i < 3)
			assert_null(str(at(r, i), "repeat_stop"));
	}
	assert_string_equal(str(at(r, 3), "repeat_stop"), "precise");
	assert_int_equal(ival(json_array_get(json_object_get(r, "groups"), 0), "repeats"), 4);
	kept(d, r);
	free(a);
	free(b);
	release();
}

/* A case skipped for its needs() ended too: --resume keeps it as it was
   (its reason, its id) and runs only what the interruption left. */
static void test_resume_keeps_skipped(void **st)
{
	(void)st;
	const char *args = "need_mib=100000000,1 --threads 1,2 --repeat 2 --repeat-order back_to_back --time 1 "
			   "--warmup 0";
	char *b = bc_xasprintf("%s --resume", args);
	/* back to back: the four skipped cases first, then the four that run;
	   interrupted during the second of those */
	arm(SIGINT, SYNTH_STEP, 2, 0.5);
	assert_int_equal(run("sk", args), 130);
	json_t *d = hdoc("sk");
	assert_int_equal(json_array_size(cases(d)), 6);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(str(at(d, i), "status"), "skipped");
	assert_string_equal(str(at(d, 4), "status"), "ok");
	assert_string_equal(str(at(d, 5), "status"), "interrupted");
	assert_int_equal(run("sk", b), 0);
	json_t *r = hdoc("sk");
	assert_int_equal(json_array_size(cases(r)), 8);
	kept(d, r);
	unsigned skipped = 0;
	for (size_t i = 0; i < 8; i++) {
		json_t *c = at(r, i);
		int big = num(json_object_get(c, "params"), "need_mib") > 1;
		assert_string_equal(str(c, "status"), big ? "skipped" : "ok");
		skipped += big;
	}
	assert_int_equal(skipped, 4);
	assert_int_equal(inits, 3);	/* the interrupted one and the two never started; no skipped one */
	assert_int_equal(ival(resumed(r, 0), "kept"), 5);
	assert_int_equal(ival(resumed(r, 0), "rerun"), 1);
	free(b);
	release();
}

/* A crashed case (isolated, SIGSEGV in its child) ends failed and is kept
   by --resume, not run again: the runner killed outright before the last
   case, the resume runs that one alone. */
static void test_crashed_case_kept(void **st)
{
	(void)st;
	const char *args = "crash_at=0,0.5 --repeat 2 --repeat-order back_to_back --time 1 --warmup 0";
	/* the fourth case's child kills its runner as it starts */
	char *cnt = bc_xasprintf("%s/iso.count", dir);
	unlink(cnt);
	free(cnt);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		arm(SIGKILL, SYNTH_INIT, 4, 0);
		trig.kill_runner = 1;
		isolated = 1;
		run("cr", args);
		_exit(99);
	}
	int ws = 0;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
	json_t *d = hdoc("cr");
	assert_int_equal(json_array_size(cases(d)), 3);
	assert_string_equal(str(d, "status"), "running");
	assert_string_equal(str(at(d, 0), "status"), "ok");
	assert_string_equal(str(at(d, 1), "status"), "ok");
	json_t *c = at(d, 2);
	assert_string_equal(str(c, "status"), "failed");
	assert_true(fabs(num(json_object_get(c, "params"), "crash_at") - 0.5) < 1e-12);
	assert_string_equal(str(c, "reason"), "crashed in the measured window: killed by signal 11 (Segmentation fault)");
	isolated = 1;
	int rc = run("cr", "crash_at=0,0.5 --repeat 2 --repeat-order back_to_back --time 1 --warmup 0 --resume");
	isolated = 0;
	assert_int_equal(rc, 1);
	json_t *r = hdoc("cr");
	assert_int_equal(json_array_size(cases(r)), 4);
	kept(d, r);
	assert_true(json_equal(c, at(r, 2)));	/* the crashed case, as it was */
	assert_string_equal(str(at(r, 3), "status"), "failed");
	assert_int_equal(ival(at(r, 3), "repeat"), 2);
	assert_int_equal(ival(resumed(r, 0), "kept"), 3);
	assert_int_equal(ival(resumed(r, 0), "rerun"), 0);
	release();
}

/* synth's workers record every 10 ms here (see test_run.c) */
static void synth_sleep(uint64_t ns)
{
	bc_clock_sleep_ns(5 * ns);
}

static int setup(void **st)
{
	(void)st;
	if (pipe(sig_pipe))
		return -1;
	pid_t parent = getpid();
	if ((signaller = fork()) == 0) {	/* the user at the terminal */
		close(sig_pipe[1]);
		unsigned char b;
		while (read(sig_pipe[0], &b, 1) == 1)
			kill(parent, b);
		_exit(0);
	}
	close(sig_pipe[0]);
	if (synthrun_setup("resume", synth_sleep))
		return -1;
	void (**h)(int) = (void (**)(int))dlsym(synth_so, "synth_hook");
	if (!h)
		return -1;
	*h = hook;
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	close(sig_pipe[1]);
	waitpid(signaller, NULL, 0);
	return synthrun_teardown();
}

int main(void)
{
	alarm(120);	/* a clock that stopped moving would hang here: fail instead */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crashed_case_kept),
		cmocka_unit_test(test_sigint_between),
		cmocka_unit_test(test_sigint_during),
		cmocka_unit_test(test_sigterm),
		cmocka_unit_test(test_killed_mid_rewrite),
		cmocka_unit_test(test_resumed_interrupted_again),
		cmocka_unit_test(test_resume_complete),
		cmocka_unit_test(test_resume_is_the_run),
		cmocka_unit_test(test_resume_repeat_auto),
		cmocka_unit_test(test_resume_keeps_skipped),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
