/*
 * sys-helper: the small process the sys module's process tests run in.
 *
 * UnixBench's programs are small single-threaded processes; a benchmark case
 * is a large multithreaded one (benchcore, OpenSSL, jansson, per-thread
 * histograms). Forking it would measure the copy of its page tables, not the
 * kernel's process creation; and a read or write in it costs more than in
 * UnixBench's (with a shared descriptor table the kernel counts a reference
 * to the file on every call, and serialises a regular file's position with
 * a lock). So each worker thread of a case starts one of these (posix_spawn,
 * so the case is never forked), and asks it for batches of work over a pipe:
 *
 *   stdin:  "TEST N [ARG]"                    one command a line
 *   stdout: "ok NS" | "err REASON"            one reply a line: NS the
 *           nanoseconds its N loops took (CLOCK_MONOTONIC around them)
 *
 * The module keeps a second command waiting, so the helper starts the next
 * batch as it ends one, whenever the case's thread gets to read the reply.
 *
 *   spawn N   N times: fork, the child exits at once, wait for it
 *   execl N   fork once; the child execs this program N times in a chain
 *             (each exec replaces the last, as UnixBench's execl), then exits
 *   ctx N     N round trips of a counter with a partner process over two
 *             pipes (UnixBench's context1: each trip two context switches)
 *   partner 1 fork ctx's partner now (once); the reply is "ok PID", its pid:
 *             the module declares it, so its CPU time is the workload's
 *   shell N C N times: the script argv[2] in the directory that is its
 *             descriptor 5 (the case's private scratch directory, opened by
 *             the module), which starts C copies of its inner script at once
 *             and waits for each (UnixBench's looper, multi.sh, tst.sh); it
 *             must exit 0. The directory is entered by its descriptor, never
 *             by path: one renamed and replaced by another user's is not
 *             the one the script runs from
 *   pipe N    N times: 512 bytes written to a pipe of its own and read back
 *             (UnixBench's pipe)
 *   copy N B  N buffers of B bytes read from descriptor 3 and written to 4,
 *             both rewound at 3's end (UnixBench's fstime -c); the sys module
 *             opens the two files and hands them over at the helper's start
 *
 * It dies with its parent (PR_SET_PDEATHSIG) and ends at EOF on stdin.
 * Usage: sys-helper serve [SCRIPT] | sys-helper --chain N
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *self;
static int to_partner = -1, from_partner = -1;
static pid_t partner_pid;

static int reply(const char *why, unsigned long long ns)
{
	if (why)
		printf("err %s: %s\n", why, strerror(errno));
	else
		printf("ok %llu\n", ns);
	return fflush(stdout) == 0 ? 0 : -1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static const char *do_spawn(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0)
			return "fork";
		if (p == 0)
			_exit(0);
		if (waitpid(p, NULL, 0) != p)
			return "waitpid";
	}
	return NULL;
}

static const char *do_execl(long n)
{
	char count[32];
	int st;
	snprintf(count, sizeof(count), "%ld", n);
	pid_t p = fork();
	if (p < 0)
		return "fork";
	if (p == 0) {
		execl(self, self, "--chain", count, (char *)NULL);
		_exit(127);
	}
	if (waitpid(p, &st, 0) != p)
		return "waitpid";
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		errno = ENOEXEC;
		return "exec chain";
	}
	return NULL;
}

/* The partner of ctx: sends back each counter it reads, until EOF. */
static void partner(int in, int out)
{
	unsigned long v;
	while (read(in, &v, sizeof(v)) == (ssize_t)sizeof(v))
		if (write(out, &v, sizeof(v)) != (ssize_t)sizeof(v))
			break;
	_exit(0);
}

/* ctx's partner, forked once (the module asks for it in prepare, so it is
   there before the window and declared as the workload's, not counted as
   another process's CPU time); NULL or what failed. */
static const char *start_partner(void)
{
	if (to_partner >= 0)
		return NULL;
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		return "pipe";
	pid_t p = fork();
	if (p < 0)
		return "fork";
	if (p == 0) {	/* the command pipes are the helper's alone: its EOF is the module's */
		close(STDIN_FILENO);
		close(STDOUT_FILENO);
		close(a[1]);
		close(b[0]);
		partner(a[0], b[1]);
	}
	close(a[0]);
	close(b[1]);
	partner_pid = p;
	to_partner = a[1];
	from_partner = b[0];
	return NULL;
}

static const char *do_ctx(long n)
{
	const char *why = start_partner();
	if (why)
		return why;
	for (unsigned long i = 0; i < (unsigned long)n; i++) {
		unsigned long v;
		if (write(to_partner, &i, sizeof(i)) != (ssize_t)sizeof(i) ||
		    read(from_partner, &v, sizeof(v)) != (ssize_t)sizeof(v))
			return "pipe to the partner";
		if (v != i) {
			errno = EPROTO;
			return "the partner answered another counter";
		}
	}
	return NULL;
}

static const char *do_pipe(long n)
{
	static int p[2] = { -1, -1 };
	char buf[512];
	if (p[0] < 0 && pipe(p))
		return "pipe";
	memset(buf, 'p', sizeof(buf));
	for (long i = 0; i < n; i++)
		if (write(p[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    read(p[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return "pipe";
	return NULL;
}

/* fstime's copy: a short read is the source's end, where both files start
   again (not counted); a second one in a row means an empty source. */
static const char *do_copy(long n, long bs)
{
	static char *buf;
	static long have;
	int rewound = 0;
	if (bs < 1 || bs > (1L << 30)) {
		errno = EINVAL;
		return "copy";
	}
	if (bs > have) {
		free(buf);
		have = (buf = malloc((size_t)bs)) ? bs : 0;
		if (!buf)
			return "copy";
	}
	for (long i = 0; i < n;) {
		ssize_t r = read(3, buf, (size_t)bs);
		if (r < 0)
			return "read";
		if (r != bs) {
			if (rewound) {
				errno = ENODATA;
				return "the source file is empty";
			}
			if (lseek(3, 0, SEEK_SET) || lseek(4, 0, SEEK_SET))
				return "lseek";
			rewound = 1;
			continue;
		}
		if (write(4, buf, (size_t)bs) != bs)
			return "write";
		rewound = 0;
		i++;
	}
	return NULL;
}

/* One loop: the outer script (argv[2]) in the directory of descriptor 5,
   which starts the copies and waits for each, as UnixBench's looper runs
   its multi.sh; it must exit 0. The directory must still be ours and
   private: nothing another user put there is run. */
static const char *do_shell(long n, long copies, const char *script)
{
	char count[32];
	struct stat dir;
	if (!script || copies < 1 || copies > 64) {
		errno = EINVAL;
		return "shell";
	}
	if (fstat(5, &dir) || !S_ISDIR(dir.st_mode) || dir.st_uid != geteuid() || (dir.st_mode & 077)) {
		errno = EPERM;
		return "the script's directory (descriptor 5) is not a private directory of ours";
	}
	snprintf(count, sizeof(count), "%ld", copies);
	for (long i = 0; i < n; i++) {
		int st;
		pid_t p = fork();
		if (p < 0)
			return "fork";
		if (p == 0) {
			if (fchdir(5) == 0 && close(5) == 0)
				execl("/bin/sh", "sh", script, count, (char *)NULL);
			_exit(127);
		}
		if (waitpid(p, &st, 0) != p)
			return "waitpid";
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			errno = ENOEXEC;
			return "the script failed";
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char line[256], cmd[16];
	self = argv[0];
	if (argc == 3 && !strcmp(argv[1], "--chain")) {
		long n = atol(argv[2]);
		if (n <= 1)
			return 0;
		snprintf(line, sizeof(line), "%ld", n - 1);
		execl(self, self, "--chain", line, (char *)NULL);
		return 127;
	}
	if (argc < 2 || strcmp(argv[1], "serve")) {
		fprintf(stderr, "sys-helper: run by benchcore's sys module, not by hand\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	while (fgets(line, sizeof(line), stdin)) {
		long n = 0, c = 1;
		const char *why;
		unsigned long long t0 = now_ns();
		if (sscanf(line, "%15s %ld %ld", cmd, &n, &c) < 2 || n < 1) {
			errno = EINVAL;
			why = "bad command";
		} else if (!strcmp(cmd, "spawn"))
			why = do_spawn(n);
		else if (!strcmp(cmd, "execl"))
			why = do_execl(n);
		else if (!strcmp(cmd, "ctx"))
			why = do_ctx(n);
		else if (!strcmp(cmd, "partner")) {
			if (!(why = start_partner())) {
				if (reply(NULL, (unsigned long long)partner_pid))
					break;
				continue;
			}
		} else if (!strcmp(cmd, "pipe"))
			why = do_pipe(n);
		else if (!strcmp(cmd, "copy"))
			why = do_copy(n, c);
		else if (!strcmp(cmd, "shell"))
			why = do_shell(n, c, argc > 2 ? argv[2] : NULL);
		else {
			errno = EINVAL;
			why = "unknown command";
		}
		if (reply(why, now_ns() - t0))
			break;
	}
	if (partner_pid > 0) {	/* EOF ends the partner: nothing outlives the helper */
		close(to_partner);
		waitpid(partner_pid, NULL, 0);
	}
	return 0;
}
