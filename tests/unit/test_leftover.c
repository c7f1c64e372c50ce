/* The leftover sweep (core/run/leftover.c) in a scratch TMPDIR: what a run
   killed outright leaves (directories with an owner record, temporaries of
   a results file) is removed when, and only when, its owner is gone; what
   is alive, cannot be judged, or is not benchcore's is kept, and said. The
   records are forged with the facts of real processes (this one, a child
   reaped a moment ago); the live runs and bind mounts are
   tests/integration/test_leftover.sh's. */
#include "unit.h"
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "leftover.h"
#include "util.h"

static char dir[64];		/* the scratch parent (TMPDIR) */
static char said[16384];	/* what the last sweep wrote on stderr */
static char boot[64], ns[64];
static pid_t dead;		/* a pid that ran a moment ago and is gone */

static void put(const char *name, const char *body)
{
	char *p = bc_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(body, f);
	fclose(f);
	free(p);
}

static void sh(const char *fmt, const char *arg)
{
	char *cmd = bc_xasprintf(fmt, arg, arg, arg);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* dir/name, with an owner record of version v naming pid and start; boot
   and pidns this machine's when NULL, left out when "-" */
static void owned(const char *name, int v, long pid, unsigned long long start, const char *bootid, const char *pidns)
{
	char *d = bc_xasprintf("%s/%s", dir, name);
	assert_int_equal(mkdir(d, 0700), 0);
	free(d);
	const char *b = bootid ? bootid : boot, *n = pidns ? pidns : ns;
	char *bl = strcmp(b, "-") ? bc_xasprintf("boot %s\n", b) : bc_xstrdup("");
	char *nl = strcmp(n, "-") ? bc_xasprintf("pidns %s\n", n) : bc_xstrdup("");
	char *rec = bc_xasprintf("benchcore-owner %d\npid %ld\nstart %llu\n%s%s", v, pid, start, bl, nl);
	char *p = bc_xasprintf("%s/" BC_OWNER_FILE, name);
	put(p, rec);
	free(p);
	free(rec);
	free(bl);
	free(nl);
}

static int there(const char *name)
{
	struct stat st;
	char *p = bc_xasprintf("%s/%s", dir, name);
	int rc = lstat(p, &st) == 0;
	free(p);
	return rc;
}

/* stderr into said[] around what runs between them */
static int err_fd = -1;
static void catch_err(void)
{
	char *p = bc_xasprintf("%s.err", dir);
	fflush(stderr);
	err_fd = dup(2);
	int f = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(f, 2);
	close(f);
	free(p);
}

static void caught(void)
{
	char *p = bc_xasprintf("%s.err", dir);
	fflush(stderr);
	dup2(err_fd, 2);
	close(err_fd);
	FILE *r = fopen(p, "r");
	size_t n = r ? fread(said, 1, sizeof(said) - 1, r) : 0;
	said[n] = '\0';
	if (r)
		fclose(r);
	unlink(p);
	free(p);
}

/* the sweep of dir, its stderr kept in said[] */
static bc_clean_stats sweep(int dry, int verbose)
{
	catch_err();
	bc_clean_stats s = bc_clean_leftovers(dir, dry, verbose);
	caught();
	return s;
}

static void says(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void says(const char *fmt, ...)
{
	char want[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (!strstr(said, want))
		fail_msg("the sweep did not say \"%s\"; it said:\n%s", want, said);
}

/* field 22 of /proc/self/stat: this process's start time */
static unsigned long long my_start(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	unsigned long long st = 0;
	char *p = strrchr(buf, ')');
	assert_non_null(p);
	/* p + 2 is field 3 (state) */
	assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
				"%llu", &st), 1);
	return st;
}

/* A dead run's directory goes, with what is in it, and the sweep says its
   size and owner; a dry run only says it would; one made before the last
   reboot is dead whatever its pid. */
static void test_dead_removed(void **st)
{
	(void)st;
	owned("benchcore-redis.dEad01", 2, dead, 12345, NULL, NULL);
	char *big = bc_xcalloc(300000, 1);
	memset(big, 'x', 299999);
	put("benchcore-redis.dEad01/data", big);
	free(big);
	bc_clean_stats s = sweep(1, 0);
	assert_int_equal(s.removed, 1);
	assert_true(there("benchcore-redis.dEad01/data"));
	says("would remove %s/benchcore-redis.dEad01 (0.3 MiB), left by benchcore pid %d, which is no longer running",
	     dir, (int)dead);
	s = sweep(0, 0);
	assert_int_equal(s.removed, 1);
	assert_int_equal(s.failed, 0);
	assert_true(s.bytes >= 299999 && s.bytes < 400000);
	assert_false(there("benchcore-redis.dEad01"));
	says("removed %s/benchcore-redis.dEad01 (0.3 MiB), left by benchcore pid %d, which is no longer running", dir,
	     (int)dead);
	owned("benchcore.bOot01", 2, getpid(), my_start(), "00000000-0000-0000-0000-000000000000", NULL);
	s = sweep(0, 0);
	assert_int_equal(s.removed, 1);
	assert_false(there("benchcore.bOot01"));
	/* nothing left to do: a second sweep finds nothing */
	s = sweep(0, 1);
	assert_int_equal(s.removed + s.alive + s.unmarked + s.unknown + s.failed, 0);
}

/* This process, with its true start time, is a live run: kept (said with
   verbose only); the same pid with another start is a reused pid: the
   directory goes; so does an older record (version 1) whose pid is a
   process that is no benchcore (this test, pid 1). */
static void test_live_and_reused(void **st)
{
	(void)st;
	unsigned long long me = my_start();
	owned("benchcore.v2LivE", 2, getpid(), me, NULL, NULL);
	owned("benchcore.v2ReUs", 2, getpid(), me - 1, NULL, NULL);
	owned("benchcore.rEuse0", 1, getpid(), 0, NULL, NULL);
	owned("benchcore.piDone", 1, 1, 0, NULL, NULL);
	bc_clean_stats s = sweep(0, 0);
	assert_int_equal(s.alive, 1);
	assert_int_equal(s.removed, 3);
	assert_null(strstr(said, "v2LivE"));
	assert_true(there("benchcore.v2LivE"));
	assert_false(there("benchcore.v2ReUs"));
	assert_false(there("benchcore.rEuse0"));
	assert_false(there("benchcore.piDone"));
	s = sweep(0, 1);
	assert_int_equal(s.alive, 1);
	assert_int_equal(s.removed, 0);
	says("kept %s/benchcore.v2LivE: its run (pid %d) is still running", dir, (int)getpid());
	sh("rm -rf %s/benchcore.v2LivE", dir);
}

/* What cannot be judged is kept, and said even without verbose: a record
   without a pid namespace, another namespace's pid, a record without a
   start time. */
static void test_cannot_judge(void **st)
{
	(void)st;
	owned("benchcore.nOns01", 1, getpid(), 0, NULL, "-");
	owned("benchcore-ns.oThEr1", 2, 999999, 5, NULL, "pid:[1]");
	char *d = bc_xasprintf("%s/benchcore.nOst01", dir);
	mkdir(d, 0700);
	free(d);
	put("benchcore.nOst01/" BC_OWNER_FILE, "benchcore-owner 2\npid 999999\n");
	bc_clean_stats s = sweep(0, 0);
	assert_int_equal(s.unknown, 3);
	assert_int_equal(s.removed, 0);
	assert_true(there("benchcore.nOns01") && there("benchcore-ns.oThEr1") && there("benchcore.nOst01"));
	says("kept %s/benchcore.nOns01: cannot judge whether its run is alive: its owner record has no pid namespace",
	     dir);
	says("kept %s/benchcore-ns.oThEr1: cannot judge whether its run is alive: its run (pid 999999) is in another "
	     "pid namespace (pid:[1]; this is %s)", dir, ns);
	says("kept %s/benchcore.nOst01: cannot judge whether its run is alive: its owner record has no start time", dir);
	sh("rm -rf %s/benchcore.nOns01 %s/benchcore-ns.oThEr1 %s/benchcore.nOst01", dir);
}

/* What is not a benchcore run's directory is never touched, even with a
   dead owner's record in it: no record, a record that is not benchcore's,
   a file, a symlink (not followed), a name benchcore does not make,
   another user's directory. */
static void test_foreign_kept(void **st)
{
	(void)st;
	char *d = bc_xasprintf("%s/benchcore.nOrec1", dir), *e = bc_xasprintf("%s/elsewhere", dir);
	mkdir(d, 0700);
	free(d);
	put("benchcore.nOrec1/f", "data");
	d = bc_xasprintf("%s/benchcore.nOtOur", dir);
	mkdir(d, 0700);
	free(d);
	put("benchcore.nOtOur/" BC_OWNER_FILE, "something else\npid 1\n");
	put("benchcore.fIle01", "a file, not a directory\n");
	owned("elsewhere", 2, dead, 5, NULL, NULL);
	char *l = bc_xasprintf("%s/benchcore-lnk.sYmlk1", dir);
	assert_int_equal(symlink(e, l), 0);
	owned("benchcorefoo.aBcdeF", 2, dead, 5, NULL, NULL);	/* benchcore makes benchcore. and benchcore- */
	owned("benchcore.short", 2, dead, 5, NULL, NULL);	/* not .XXXXXX */
	owned("other.aBcdeF", 2, dead, 5, NULL, NULL);
	int theirs = 0;
	struct passwd *pw = getuid() == 0 ? getpwnam("nobody") : NULL;
	if (pw) {
		owned("benchcore.tHeIrs", 2, dead, 5, NULL, NULL);
		char *t = bc_xasprintf("%s/benchcore.tHeIrs", dir);
		theirs = chown(t, pw->pw_uid, pw->pw_gid) == 0;
		free(t);
	}
	bc_clean_stats s = sweep(0, 1);
	assert_int_equal(s.removed, 0);
	assert_int_equal(s.unmarked, 2);
	says("kept %s/benchcore.nOrec1: it has no owner record (" BC_OWNER_FILE "), so it is not known to be a dead "
	     "run's", dir);
	const char *all[] = { "benchcore.nOrec1/f", "benchcore.nOtOur", "benchcore.fIle01", "elsewhere/" BC_OWNER_FILE,
			      "benchcore-lnk.sYmlk1", "benchcorefoo.aBcdeF", "benchcore.short", "other.aBcdeF" };
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		if (!there(all[i]))
			fail_msg("%s was removed", all[i]);
	if (theirs)
		assert_true(there("benchcore.tHeIrs/" BC_OWNER_FILE));
	assert_null(strstr(said, "removed"));
	free(e);
	free(l);
	sh("rm -rf %s/* %s/.[a-z]*", dir);
}

/* A results file's temporaries (PATH.tmp.PID.XXXXXX): none go while a
   live run holds PATH.lock; then a dead writer's goes, said; a live
   one's, other names, a symlink and this process's own stay. */
static void test_temps(void **st)
{
	(void)st;
	char *name = bc_xasprintf("r.json.tmp.%d.AbC123", (int)dead);
	char *notes = bc_xasprintf("r.json.tmp.%d.notes", (int)dead);
	char *live = bc_xasprintf("r.json.tmp.%d.LiV123", (int)getppid());
	char *lnk = bc_xasprintf("r.json.tmp.%d.LnK123", (int)dead);
	char *own = bc_xasprintf("r.json.tmp.%d.OwN123", (int)getpid());
	char *path = bc_xasprintf("%s/r.json", dir), *lp = bc_xasprintf("%s/r.json.lock", dir);
	char *l = bc_xasprintf("%s/%s", dir, lnk), *v = bc_xasprintf("%s/victim", dir);
	put("r.json", "{}");
	put(name, "{\"partial");
	put(notes, "notes");
	put(live, "live");
	put(own, "mine");
	put("r.json.tmp.OlD123", "old");
	put("victim", "victim");
	assert_int_equal(symlink(v, l), 0);
	int fd = open(lp, O_RDWR | O_CREAT, 0600), ready[2];
	assert_true(fd >= 0 && pipe(ready) == 0);
	pid_t kid = fork();
	if (kid == 0) {		/* another process, a live run, holds the lock */
		flock(fd, LOCK_EX);
		(void)!write(ready[1], "x", 1);
		pause();
		_exit(0);
	}
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(fd);
	assert_int_equal(bc_sweep_temps(path, 0), 0);
	assert_true(there(name));
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	catch_err();
	unsigned gone = bc_sweep_temps(path, 0);
	caught();
	assert_int_equal(gone, 1);
	assert_false(there(name));
	assert_true(there(notes) && there(live) && there("r.json.tmp.OlD123") && there(lnk) && there(own));
	assert_true(there("r.json"));
	says("removed %s/%s, a temporary file that benchcore pid %d (no longer running) left while writing %s", dir, name,
	     (int)dead, path);
	FILE *vf = fopen(v, "r");
	char buf[16] = "";
	assert_non_null(vf);
	assert_non_null(fgets(buf, sizeof(buf), vf));
	fclose(vf);
	assert_string_equal(buf, "victim");
	/* locked (this process holds the lock), nothing more to sweep */
	assert_int_equal(bc_sweep_temps(path, 1), 0);
	assert_true(there(own));
	close(ready[0]);
	close(ready[1]);
	free(name);
	free(notes);
	free(live);
	free(lnk);
	free(own);
	free(path);
	free(lp);
	free(l);
	free(v);
	sh("rm -rf %s/* %s/.[a-z]*", dir);
}

static void read_line(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "r");
	out[0] = '\0';
	if (f && fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = '\0';
	if (f)
		fclose(f);
}

static int setup(void **st)
{
	(void)st;
	strcpy(dir, "/tmp/bc-unit-leftover.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	setenv("TMPDIR", dir, 1);
	read_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);
	ns[n > 0 ? n : 0] = '\0';
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	return dead > 0 ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	char *cmd = bc_xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dead_removed),
		cmocka_unit_test(test_live_and_reused),
		cmocka_unit_test(test_cannot_judge),
		cmocka_unit_test(test_foreign_kept),
		cmocka_unit_test(test_temps),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
