/* Machine settings (core/machine/mset.h): the parsers, the kernel's write
   order worked out on a fake CPU tree, and the journal's apply, restore and
   recovery on plain files in a scratch directory (no root, nothing of the
   machine's touched). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "unit.h"
#include "mset.h"
#include "mrun.h"

static char dir[64];
static int group_to_pipe(void *ctx, const char *group);

static void put(const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *rel)
{
	static char buf[256];
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_parsers(void **state)
{
	(void)state;
	unsigned long long k;
	assert_int_equal(bc_mfreq_parse("2.6GHz", &k), 0);
	assert_int_equal(k, 2600000);
	assert_int_equal(bc_mfreq_parse("800 MHz", &k), 0);
	assert_int_equal(k, 800000);
	assert_int_equal(bc_mfreq_parse("1e9Hz", &k), 0);
	assert_int_equal(k, 1000000);
	assert_int_equal(bc_mfreq_parse("2600000kHz", &k), 0);
	assert_int_equal(k, 2600000);
	assert_int_equal(bc_mfreq_parse("2600", &k), -1);	/* no unit: never guessed */
	assert_int_equal(bc_mfreq_parse("-1GHz", &k), -1);
	assert_int_equal(bc_mfreq_parse("fastGHz", &k), -1);
	char out[64];
	bc_mnormalize("always [madvise] never\n", out, sizeof(out));
	assert_string_equal(out, "madvise");
	bc_mnormalize("  4096\t 87380   6291456\n", out, sizeof(out));
	assert_string_equal(out, "4096 87380 6291456");
	unsigned char *s = bc_mcpu_list_parse("0-2,5");
	assert_non_null(s);
	assert_true(s[0] && s[1] && s[2] && !s[3] && !s[4] && s[5]);
	free(s);
	assert_null(bc_mcpu_list_parse("3-1"));
	assert_null(bc_mcpu_list_parse("0,,1"));
	assert_null(bc_mcpu_list_parse("x"));
	assert_null(bc_mcpu_list_parse(""));
	assert_non_null(bc_mkind_find("sysctl.vm.swappiness"));
	assert_null(bc_mkind_find("sysctl"));		/* a sysctl needs its name */
	assert_null(bc_mkind_find("thp.x"));
	assert_string_equal(bc_mkind_find("thp")->key, "thp");
	/* the table is in the kernel's order */
	for (const bc_mkind *r = bc_mkinds; r[1].key; r++)
		assert_true(r->rank < r[1].rank);
}

/* cpu_freq on a fake tree: lowering writes min first, raising max first. */
static void test_freq_order(void **state)
{
	(void)state;
	char root[128];
	snprintf(root, sizeof(root), "%s/cpu", dir);
	setenv("BENCHCORE_SYSFS_CPU", root, 1);
	put("cpu/cpu0/cpufreq/cpuinfo_min_freq", "200000\n");
	put("cpu/cpu0/cpufreq/cpuinfo_max_freq", "2600000\n");
	put("cpu/cpu0/cpufreq/scaling_max_freq", "2600000\n");
	put("cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	const bc_mkind *k = bc_mkind_find("cpu_freq");
	bc_mctx x = { 0 };
	bc_err e;
	char v[64];
	assert_int_equal(k->check(&x, "1GHz", v, sizeof(v), &e), 0);
	assert_string_equal(v, "1000000");
	assert_int_equal(k->check(&x, "3GHz", v, sizeof(v), &e), -1);
	assert_non_null(strstr(e.msg, "0.200 to 2.600 GHz"));
	assert_int_equal(k->check(&x, "max", v, sizeof(v), &e), 0);
	assert_string_equal(v, "2600000");
	bc_mwrites ws = { 0 };
	assert_int_equal(k->plan(&x, "1000000", &ws, &e), 0);
	assert_int_equal(ws.n, 2);
	assert_non_null(strstr(ws.w[0].path, "scaling_min_freq"));
	bc_mwrites_free(&ws);
	put("cpu/cpu0/cpufreq/scaling_max_freq", "1000000\n");
	assert_int_equal(k->plan(&x, "2000000", &ws, &e), 0);
	assert_non_null(strstr(ws.w[0].path, "scaling_max_freq"));
	bc_mwrites_free(&ws);
	unsetenv("BENCHCORE_SYSFS_CPU");
}

/* Apply, a second combination, end; then a dead run's journal recovered
   where the value is still the one written, the changed one left. */
static void test_journal(void **state)
{
	(void)state;
	char sd[128], a[128], b[128];
	snprintf(sd, sizeof(sd), "%s/state", dir);
	setenv("BENCHCORE_STATE_DIR", sd, 1);
	put("a", "always [madvise] never\n");
	put("b", "60\n");
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	bc_mstate s = { 0 };
	bc_err e;
	int changed;
	assert_int_equal(bc_mstate_begin(&s, &e), 0);
	char holder[256];
	assert_int_equal(bc_mstate_holder(holder, sizeof(holder)), 1);
	assert_non_null(strstr(holder, "pid "));
	bc_mwrites ws = { 0 };
	bc_mwrites_add(&ws, 'f', a, "never", "thp");
	bc_mwrites_add(&ws, 'f', b, "10\twith a tab", "sysctl");
	/* a value that does not read back is an error: "never" does, the plain file's does too */
	assert_int_equal(bc_mstate_apply(&s, &ws, &changed, &e), 0);
	assert_int_equal(changed, 1);
	assert_string_equal(get("a"), "never\n");
	bc_mwrites_free(&ws);
	bc_mwrites_add(&ws, 'f', a, "never", "thp");	/* b is not in this combination: back */
	assert_int_equal(bc_mstate_apply(&s, &ws, &changed, &e), 0);
	assert_string_equal(get("b"), "60\n");
	bc_mwrites_free(&ws);
	assert_int_equal(bc_mstate_end(&s), 0);
	assert_string_equal(get("a"), "madvise\n");
	char jp[160];
	snprintf(jp, sizeof(jp), "%s/journal", sd);
	assert_int_equal(access(jp, F_OK), -1);

	/* a dead run's journal (written as a run writes it); its files are
	   under the fake CPU tree's root, as a journal's file records must be */
	setenv("BENCHCORE_SYSFS_CPU", dir, 1);
	put("a", "always madvise [never]\n");
	put("b", "23\n");
	put("c", "5\n");
	FILE *f = fopen(jp, "w");
	fprintf(f, "benchcore machine journal 1\nfile\t%s/c\t5\t7\nfile\t%s\tmadvise\tnever\nfile\t%s\t60\t10\n", dir,
		a, b);
	fclose(f);
	bc_mcounts c;
	assert_int_equal(bc_mstate_recover(NULL, &c), 1);	/* b was changed since: left */
	assert_int_equal(c.restored, 1);
	assert_int_equal(c.already, 1);	/* c is at its original: not counted as restored */
	assert_int_equal(c.changed, 1);
	assert_int_equal(c.failed, 0);
	assert_string_equal(get("a"), "madvise\n");
	assert_string_equal(get("b"), "23\n");
	assert_int_equal(access(jp, F_OK), -1);
	assert_int_equal(bc_mstate_recover(NULL, &c), 0);	/* nothing left to do */
	assert_int_equal(c.restored + c.already + c.changed + c.failed, 0);

	/* what could not be put back (a file that refuses the write) stays in the journal */
	put("ro/x", "1\n");
	char ro[160];
	snprintf(ro, sizeof(ro), "%s/ro", dir);
	f = fopen(jp, "w");
	fprintf(f, "benchcore machine journal 1\nfile\t%s\tmadvise\tnever\nfile\t%s/x\t2\t1\n", a, ro);
	fclose(f);
	put("a", "always madvise [never]\n");
	chmod(jp, 0600);
	char rox[200];
	snprintf(rox, sizeof(rox), "%s/x", ro);
	chmod(rox, 0400);
	if (access(rox, W_OK) != 0) {	/* root writes a 0400 file: then this part proves nothing */
		assert_int_equal(bc_mstate_recover(NULL, &c), 1);
		assert_int_equal(c.failed, 1);
		assert_int_equal(c.restored, 1);
		const char *kept = get("state/journal");
		assert_non_null(strstr(kept, "/ro/x\t2\t1"));
		assert_null(strstr(kept, "madvise"));	/* what was done is not done again */
	}
	unlink(jp);
	unsetenv("BENCHCORE_SYSFS_CPU");
	unsetenv("BENCHCORE_STATE_DIR");
}

/* A journal is read only from a directory and a file nobody else could
   have written, and names only files a setting writes: anything else is
   refused whole, left as it is, and nothing in it is done (a cmd record
   is not run, a file record not written). */
static void test_journal_trust(void **st)
{
	(void)st;
	char sd[128], jp[160], victim[160], ran[160];
	snprintf(sd, sizeof(sd), "%s/tstate", dir);
	snprintf(jp, sizeof(jp), "%s/journal", sd);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(ran, sizeof(ran), "%s/ran", dir);
	setenv("BENCHCORE_STATE_DIR", sd, 1);
	put("victim", "original\n");
	mkdir(sd, 0700);
	char *text = bc_xasprintf("benchcore machine journal 1\ncmd\tevil\ttrue\ttouch %s; echo w\to\tw\t5\n"
				  "file\t%s\tPWNED\toriginal\n", ran, victim);
	bc_mcounts c;
	struct {
		const char *what;
		mode_t dmode, fmode;
		int link;
	} cases[] = {
		{ "a directory others can write", 0777, 0600, 0 },
		{ "a directory its group can write", 0770, 0600, 0 },
		{ "a journal others can write", 0700, 0666, 0 },
		{ "a journal that is a symbolic link", 0700, 0600, 1 },
		{ "a file record outside sysfs and /proc/sys", 0700, 0600, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char real[200];
		snprintf(real, sizeof(real), "%s/elsewhere", dir);
		FILE *f = fopen(cases[i].link ? real : jp, "w");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
		if (cases[i].link)
			assert_int_equal(symlink(real, jp), 0);
		chmod(cases[i].link ? real : jp, cases[i].fmode);
		chmod(sd, cases[i].dmode);
		print_message("refused: %s\n", cases[i].what);
		assert_int_equal(bc_mstate_recover(NULL, &c), -1);
		assert_int_equal(c.refused, 1);
		assert_int_equal(access(ran, F_OK), -1);	/* the cmd record's command did not run */
		assert_string_equal(get("victim"), "original\n");
		assert_int_equal(access(jp, F_OK), 0);	/* kept where it was */
		char holder[64];
		assert_int_equal(bc_mstate_holder(holder, sizeof(holder)), 0);
		unlink(jp);
		unlink(real);
	}
	/* a directory given through a symbolic link */
	char ln[160];
	snprintf(ln, sizeof(ln), "%s/tlink", dir);
	assert_int_equal(symlink(sd, ln), 0);
	setenv("BENCHCORE_STATE_DIR", ln, 1);
	FILE *f = fopen(jp, "w");
	fputs(text, f);
	fclose(f);
	chmod(jp, 0600);
	assert_int_equal(bc_mstate_recover(NULL, &c), -1);
	bc_mstate s = { 0 };
	bc_err e;
	assert_int_equal(bc_mstate_begin(&s, &e), -1);	/* a run that changes settings is refused too */
	assert_non_null(strstr(e.msg, "symbolic link"));
	setenv("BENCHCORE_STATE_DIR", sd, 1);
	assert_int_equal(bc_mstate_begin(&s, &e), -1);	/* and for the file record in it */
	assert_non_null(strstr(e.msg, "not a file a setting writes"));
	assert_int_equal(access(ran, F_OK), -1);
	assert_string_equal(get("victim"), "original\n");
	/* a journal whose first line is not benchcore's */
	f = fopen(jp, "w");
	fputs("#!/bin/sh\n", f);
	fclose(f);
	assert_int_equal(bc_mstate_recover(NULL, &c), -1);
	unlink(jp);
	unlink(ln);
	free(text);
	unsetenv("BENCHCORE_STATE_DIR");
}

/* Processes of group pgid that are not zombies (init here reaps the
   orphans it inherits lazily: a zombie holds the group's number a while). */
static int live_in_group(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d))) {
		char p[300], buf[512], st;
		long long g;
		snprintf(p, sizeof(p), "/proc/%s/stat", de->d_name);
		FILE *f = de->d_name[0] >= '1' && de->d_name[0] <= '9' ? fopen(p, "r") : NULL;
		if (!f)
			continue;
		size_t r = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[r] = '\0';
		char *q = strrchr(buf, ')');
		n += q && sscanf(q + 1, " %c %*d %lld", &st, &g) == 2 && g == pgid && st != 'Z';
	}
	if (d)
		closedir(d);
	return n;
}

/* 1 when a scan of /proc lists this process: qemu-user (test_arm64) lists
   no process there, so what is counted through it cannot be checked. */
static int proc_listable(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char me[32];
	int found = 0;
	snprintf(me, sizeof(me), "%d", (int)getpid());
	while (d && !found && (de = readdir(d)))
		found = !strcmp(de->d_name, me);
	if (d)
		closedir(d);
	return found;
}

/* What a set command leaves in its process group: ended when it returns;
   and a command whose runner was SIGKILLed (its group journalled) is ended
   by bc_mgroup_kill, never a group by that number it did not start. */
static void test_command_group(void **st)
{
	(void)st;
	char out[256], mark[160];
	snprintf(mark, sizeof(mark), "%s/late", dir);
	char *cmd = bc_xasprintf("(sleep 1; echo late > %s) & echo {value}", mark);
	assert_int_equal(bc_mcommand(cmd, "now", 10, out, sizeof(out)), 0);
	assert_string_equal(out, "now");
	free(cmd);
	/* the background writer was killed with the group: wait past its second */
	usleep(1500000);
	assert_int_equal(access(mark, F_OK), -1);

	if (!proc_listable()) {	/* the rest counts the group's members in /proc */
		printf("skipped: a SIGKILLed runner's command group (a scan of /proc lists no process here: qemu-user)\n");
		return;
	}
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t runner = fork();
	if (runner == 0) {	/* a runner that journals the group (here: to the pipe) and is killed */
		close(p[0]);
		char *c2 = bc_xasprintf("sleep 1; echo late > %s; sleep 30", mark);
		bc_mcommand_in(c2, NULL, 60, group_to_pipe, &p[1], out, sizeof(out));
		_exit(0);
	}
	close(p[1]);
	char group[128] = "";
	ssize_t r = read(p[0], group, sizeof(group) - 1);
	close(p[0]);
	assert_true(r > 0);
	group[r] = '\0';
	long long pgid;
	assert_int_equal(sscanf(group, "%lld", &pgid), 1);
	for (int i = 0; i < 1000 && live_in_group((pid_t)pgid) < 2; i++)
		usleep(10000);	/* until the command has started its sleep (the shell and it) */
	assert_int_equal(live_in_group((pid_t)pgid), 2);
	char bad[160];
	long long start;
	char token[40];
	assert_int_equal(sscanf(group, "%lld %lld %39s", &pgid, &start, token), 3);
	snprintf(bad, sizeof(bad), "%lld %lld %s", pgid, start + 1, "0000000000000000");
	assert_int_equal(bc_mgroup_kill(bad), 0);	/* another start and token: not ours, untouched */
	assert_int_equal(kill(-(pid_t)pgid, 0), 0);
	kill(runner, SIGKILL);
	waitpid(runner, NULL, 0);
	assert_true(bc_mgroup_kill(group) >= 1);
	for (int i = 0; i < 100 && live_in_group((pid_t)pgid); i++)
		usleep(10000);
	assert_int_equal(live_in_group((pid_t)pgid), 0);	/* nothing of it left running */
	usleep(1200000);
	assert_int_equal(access(mark, F_OK), -1);	/* and it never wrote */
}

/* A stacked device (dm-0 over two members, as /sys/dev/block/M:N shows a
   device-mapper or md device: slaves/NAME -> the member's dir): the queue
   settings are checked against and written to each member's queue, where
   requests are scheduled, never the stacked device's own. A fake tree: this
   kernel has neither device-mapper nor md (the loop devices' own queues
   are test_machine's, for real). */
static void test_stacked(void **st)
{
	(void)st;
	put("blk/dm-0/queue/scheduler", "none\n");	/* bio-based: no choice of its own */
	put("blk/dm-0/slaves/loop3/queue/scheduler", "[none] mq-deadline kyber\n");
	put("blk/dm-0/slaves/loop3/queue/nr_requests", "128\n");
	put("blk/dm-0/slaves/loop4/queue/scheduler", "[none] mq-deadline kyber\n");
	put("blk/dm-0/slaves/loop4/queue/nr_requests", "128\n");
	char dev[128], out[128];
	snprintf(dev, sizeof(dev), "%s/blk/dm-0", dir);
	bc_mctx x = { .device = dev };
	bc_err e;
	const bc_mkind *k = bc_mkind_find("io_scheduler"), *nr = bc_mkind_find("nr_requests");
	assert_int_equal(k->check(&x, "mq-deadline", out, sizeof(out), &e), 0);	/* the members offer it */
	assert_int_equal(k->check(&x, "bfq", out, sizeof(out), &e), -1);
	assert_non_null(strstr(e.msg, "slaves/loop"));
	bc_mwrites ws = { 0 };
	assert_int_equal(k->plan(&x, "mq-deadline", &ws, &e), 0);
	assert_int_equal(nr->check(&x, "64", out, sizeof(out), &e), 0);
	assert_int_equal(nr->plan(&x, "64", &ws, &e), 0);
	assert_int_equal(ws.n, 4);
	int members = 0;
	for (size_t i = 0; i < ws.n; i++) {
		assert_null(strstr(ws.w[i].path, "dm-0/queue"));
		members += strstr(ws.w[i].path, "slaves/loop3/queue/") || strstr(ws.w[i].path, "slaves/loop4/queue/");
	}
	assert_int_equal(members, 4);
	assert_true(strstr(ws.w[0].path, "/scheduler") && strstr(ws.w[2].path, "/nr_requests"));
	bc_mwrites_free(&ws);
	assert_int_equal(nr->check(&x, "2", out, sizeof(out), &e), -1);	/* below the kernel's 4 */
}

static int group_to_pipe(void *ctx, const char *group)
{
	int fd = *(int *)ctx;
	return write(fd, group, strlen(group)) == (ssize_t)strlen(group) ? 0 : -1;
}

/* A real child process that waits; prctl(PR_SET_THP_DISABLE) first when off.
   Returns once the child says it is set (a byte on a pipe), or has exited
   (EOF: qemu-user refuses the prctl), never after a guessed sleep (a loaded
   machine's qemu child took longer than 50 ms to get there). */
static pid_t waiter(int thp_off)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* a failed assertion skips reap(): none outlives the test */
		if (thp_off && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
			_exit(3);	/* qemu-user refuses it (EINVAL) */
		if (write(p[1], "x", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	close(p[1]);
	char c;
	ssize_t r;
	while ((r = read(p[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (r == 0) {	/* it is exiting: wait until it has, leaving it for waitpid() to reap */
		siginfo_t si;
		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0 && errno == EINTR)
			;
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static uint64_t boot_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A private server's THP check (bc_mrun_server_thp) on real processes: one
   started before the THP change is stale (its memory from the old value),
   one started after is not; one that turned THP off for itself does not
   run under "always"; the record says pid, AnonHugePages and THP_enabled. */
static void test_thp_server(void **st)
{
	(void)st;
	char *why = NULL;
	pid_t old = waiter(0);
	usleep(60000);	/* more than a clock tick (/proc's start time counts ticks) */
	uint64_t change = boot_now();
	json_t *o = bc_mrun_server_thp(old, change, "never", &why);
	assert_non_null(why);
	assert_non_null(strstr(why, "started before THP was set to never"));
	assert_false(json_is_true(json_object_get(o, "started_after_change")));
	assert_int_equal(json_integer_value(json_object_get(o, "pid")), old);
	assert_true(json_is_integer(json_object_get(o, "anon_huge_kb")));
	free(why);
	json_decref(o);
	pid_t fresh = waiter(0);
	o = bc_mrun_server_thp(fresh, change, "madvise", &why);
	assert_null(why);
	assert_true(json_is_true(json_object_get(o, "started_after_change")));
	assert_true(json_is_true(json_object_get(o, "thp_enabled")));
	json_decref(o);
	pid_t off = waiter(1);
	int wst;
	if (waitpid(off, &wst, WNOHANG) == off) {
		/* under qemu-user (test_arm64) the process cannot turn THP off */
		assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 3);
		print_message("skipped: THP turned off by a process (prctl PR_SET_THP_DISABLE refused here)\n");
		reap(old);
		reap(fresh);
		return;
	}
	o = bc_mrun_server_thp(off, change, "always", &why);
	assert_non_null(why);
	assert_non_null(strstr(why, "turned THP off for itself (THP_enabled: 0"));
	assert_true(json_is_false(json_object_get(o, "thp_enabled")));
	free(why);
	json_decref(o);
	o = bc_mrun_server_thp(off, change, "never", &why);	/* off is what never asks */
	assert_null(why);
	json_decref(o);
	reap(old);
	reap(fresh);
	reap(off);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/bc-unit-machine.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_freq_order),
		cmocka_unit_test(test_journal),
		cmocka_unit_test(test_journal_trust),
		cmocka_unit_test(test_command_group),
		cmocka_unit_test(test_thp_server),
		cmocka_unit_test(test_stacked),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char *cmd = bc_xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc |= 1;
	free(cmd);
	return rc;
}
