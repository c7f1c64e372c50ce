/* The small file and command primitives of machine settings (mset.h):
   reading a sysfs value as the kernel means it, writing it as echo does,
   and running a user's set/read command without letting the shell parse
   the value. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mset.h"
#include "sysinfo.h"

const char *bc_mcpu_root(void)
{
	return bc_sysinfo_cpu_root();
}

void bc_mwrites_add(bc_mwrites *ws, char type, const char *path, const char *value, const char *key)
{
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 8;
		ws->w = bc_xrealloc(ws->w, ws->cap, sizeof(*ws->w));
	}
	ws->w[ws->n++] = (bc_mwrite){ .type = type, .path = bc_xstrdup(path), .value = bc_xstrdup(value),
				      .key = key };
}

void bc_mwrites_free(bc_mwrites *ws)
{
	for (size_t i = 0; i < ws->n; i++) {
		free(ws->w[i].path);
		free(ws->w[i].value);
		free(ws->w[i].set);
		free(ws->w[i].read);
	}
	free(ws->w);
	memset(ws, 0, sizeof(*ws));
}

int bc_mfreq_parse(const char *text, unsigned long long *khz)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno || !isfinite(v) || v <= 0)
		return -1;
	while (*end == ' ')
		end++;
	double mul;	/* to kHz */
	if (!strcasecmp(end, "ghz"))
		mul = 1e6;
	else if (!strcasecmp(end, "mhz"))
		mul = 1e3;
	else if (!strcasecmp(end, "khz"))
		mul = 1;
	else if (!strcasecmp(end, "hz"))
		mul = 1e-3;
	else
		return -1;	/* a bare number: MHz or kHz? never guessed */
	double k = round(v * mul);
	if (k < 1 || k > 1e9)
		return -1;
	*khz = (unsigned long long)k;
	return 0;
}

void bc_mnormalize(const char *raw, char *out, size_t n)
{
	const char *lb = strchr(raw, '['), *rb = lb ? strchr(lb, ']') : NULL;
	if (lb && rb) {
		size_t l = (size_t)(rb - lb - 1);
		snprintf(out, n, "%.*s", (int)(l < n ? l : n - 1), lb + 1);
		return;
	}
	size_t o = 0;
	int space = 0;
	for (const char *p = raw; *p && o + 1 < n; p++) {
		if (isspace((unsigned char)*p)) {
			space = o > 0;
			continue;
		}
		if (space && o + 2 < n)
			out[o++] = ' ';
		space = 0;
		out[o++] = *p;
	}
	out[o] = '\0';
}

int bc_mread(const char *path, char *out, size_t n)
{
	char raw[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, raw, sizeof(raw) - 1);
	int err = errno;
	close(fd);
	if (r < 0) {
		errno = err;
		return -1;
	}
	raw[r] = '\0';
	bc_mnormalize(raw, out, n);
	return 0;
}

/* BENCHCORE_MACHINE_TRACE=FILE (a test hook): every write appended there,
   "PATH VALUE", so a test sees the order the kernel's rules ask for. */
static void trace(const char *path, const char *value)
{
	const char *t = getenv("BENCHCORE_MACHINE_TRACE");
	int fd = t && *t ? open(t, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
	if (fd < 0)
		return;
	char *line = bc_xasprintf("%s %s\n", path, value);
	(void)!write(fd, line, strlen(line));
	free(line);
	close(fd);
}

int bc_mwrite_file(const char *path, const char *value)
{
	trace(path, value);
	/* O_TRUNC for the fake trees of the tests (regular files); sysfs ignores it */
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC);
	if (fd < 0)
		return -1;
	char *line = bc_xasprintf("%s\n", value);
	ssize_t w = write(fd, line, strlen(line));
	int err = errno;
	free(line);
	if (close(fd) && w >= 0)
		return -1;
	if (w < 0) {
		errno = err;
		return -1;
	}
	return 0;
}

/* A process's state, process group and start time (clock ticks since
   boot) from /proc/PID/stat: 0, or -1 when it is gone. */
static int proc_stat(pid_t pid, char *state, long long *pgrp, long long *start)
{
	char p[64], buf[1024];
	snprintf(p, sizeof(p), "/proc/%ld/stat", (long)pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t r = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	char *q = strrchr(buf, ')');	/* after the name, which may hold anything */
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime
	   cstime priority nice num_threads itrealvalue starttime */
	return q && sscanf(q + 1, " %c %*d %lld %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %lld",
			   state, pgrp, start) == 3 ? 0 : -1;
}

/* Does pid's environment hold BENCHCORE_SETTING_COMMAND=token? */
static int has_token(pid_t pid, const char *token)
{
	char p[64], *want = bc_xasprintf(BC_MCOMMAND_ENV "=%s", token);
	snprintf(p, sizeof(p), "/proc/%ld/environ", (long)pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC), found = 0;
	size_t wl = strlen(want), have = 0;
	char buf[8192];
	ssize_t r;
	/* NUL-separated entries, read in pieces: an entry may cross a piece's end */
	while (fd >= 0 && !found && (r = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		have += (size_t)r;
		size_t start = 0;
		for (size_t i = 0; i < have; i++)
			if (!buf[i]) {
				found |= i - start == wl && !memcmp(buf + start, want, wl);
				start = i + 1;
			}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == sizeof(buf) - 1)
			have = 0;	/* one entry over 8 KiB: not ours */
	}
	if (fd >= 0)
		close(fd);
	free(want);
	return found;
}

int bc_mgroup_kill(const char *rec)
{
	long long pgid = 0, start = -1, g, t;
	char token[40] = "", st;
	if (!rec || sscanf(rec, "%lld %lld %39s", &pgid, &start, token) != 3 || pgid <= 1 || start < 0)
		return 0;
	pid_t seen[64];
	int killed = 0;
	for (int round = 0; round < 50; round++) {
		int found = 0;
		/* the leader as it started: its whole group is ours (the number cannot
		   be another's while it lives); the leader gone, the group lives on in
		   its children: a member is ours when it carries the token (a group by
		   that number made since is not) */
		int leader = proc_stat((pid_t)pgid, &st, &g, &t) == 0 && st != 'Z' && t == start && g == pgid;
		DIR *d = opendir("/proc");
		struct dirent *de;
		while (d && (de = readdir(d))) {
			char *end;
			long pid = strtol(de->d_name, &end, 10);
			if (*end || pid <= 1 || proc_stat((pid_t)pid, &st, &g, &t) || st == 'Z' || g != pgid || t < start ||
			    !(leader || has_token((pid_t)pid, token)) || kill((pid_t)pid, SIGKILL))
				continue;
			found++;
			int dup = 0;
			for (int i = 0; i < killed && i < 64; i++)
				dup |= seen[i] == (pid_t)pid;
			if (!dup && killed < 64)
				seen[killed] = (pid_t)pid;
			killed += !dup;
		}
		if (d)
			closedir(d);
		if (leader)
			kill(-(pid_t)pgid, SIGKILL);	/* one that forked meanwhile */
		if (!found)
			break;
		usleep(10000);	/* SIGKILL is taken on the way back to user space: a moment */
	}
	return killed;
}

/* The command's child: its own process group, killed when benchcore dies,
   the token in its environment; it waits for the parent's word (the group
   journalled) before it runs anything. */
static void command_child(const char *script, const char *value, char *const *envp, int out, int go,
			  pid_t parent)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	char c;
	if (read(go, &c, 1) != 1)
		_exit(127);
	dup2(out, 1);
	int dn = open("/dev/null", O_RDONLY);
	if (dn >= 0)
		dup2(dn, 0);
	execle("/bin/sh", "sh", "-c", script, "benchcore-custom", value ? value : "", (char *)NULL, envp);
	_exit(127);
}

/* environ with BC_MCOMMAND_ENV=token (any earlier one dropped), built
   before the fork: the child of a threaded process may not allocate. */
static char **command_env(const char *token)
{
	extern char **environ;
	size_t n = 0, k = 0, l = strlen(BC_MCOMMAND_ENV);
	while (environ && environ[n])
		n++;
	char **v = bc_xcalloc(n + 2, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], BC_MCOMMAND_ENV, l) || environ[i][l] != '=')
			v[k++] = environ[i];
	v[k] = bc_xasprintf(BC_MCOMMAND_ENV "=%s", token);
	return v;
}

/* Waits for pid to exit (or until end), reading its output into buf. Does
   not reap it: its group stays its own until the caller has killed what is
   left in it. 1 exited, 0 timed out, -1 error. */
static int command_wait(pid_t pid, int pfd, uint64_t end, char *buf, size_t cap, size_t *got)
{
	int open_ = 1;
	for (;;) {
		uint64_t now = bc_now_ns();
		if (now >= end)
			return 0;
		int ms = (int)((end - now) / 1000000) + 1;
		struct pollfd pf = { .fd = pfd, .events = POLLIN };
		if (open_ && poll(&pf, 1, ms > 100 ? 100 : ms) > 0) {
			char spill[512];	/* past the first 4 KiB: read and dropped, so it never blocks */
			ssize_t r = *got < cap - 1 ? read(pfd, buf + *got, cap - 1 - *got) : read(pfd, spill, sizeof(spill));
			if (r > 0)
				*got += *got < cap - 1 ? (size_t)r : 0;
			else if (r == 0 || errno != EINTR)
				open_ = 0;	/* end of its output: wait for the exit */
		} else if (!open_) {
			usleep(ms > 20 ? 20000 : (useconds_t)ms * 1000);
		}
		siginfo_t si = { 0 };
		int rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (rc == 0 && si.si_pid == pid)
			break;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
	/* what it wrote just before it exited (a background child may hold the pipe: no wait) */
	struct pollfd pf = { .fd = pfd, .events = POLLIN };
	while (open_ && *got < cap - 1 && poll(&pf, 1, 0) > 0) {
		ssize_t r = read(pfd, buf + *got, cap - 1 - *got);
		if (r <= 0)
			break;
		*got += (size_t)r;
	}
	return 1;
}

/* A user's command runs through /bin/sh -c with {value} replaced by "$1" and
   the value passed as $1: the shell sees the value only as the expansion of
   a quoted parameter, so "; rm -rf /" or $(...) in a value is just text. It
   runs in a process group of its own, killed whole when it outlives its
   time limit (a tool waiting on a device, a prompt nobody answers), and
   when it returns (what it left running in the background would change the
   machine later); it dies with benchcore (PR_SET_PDEATHSIG), and its group
   is handed to on() before it starts, for the journal: a setting never
   hangs the run, its restore or its plan, nor outlives them. */
int bc_mcommand_in(const char *cmd, const char *value, double timeout_s, bc_mgroup_fn on, void *ctx, char *out,
		   size_t n)
{
	size_t cap = strlen(cmd) * 2 + 8, o = 0;
	char *script = bc_xcalloc(cap, 1);
	for (const char *p = cmd; *p;) {
		if (value && !strncmp(p, "{value}", 7)) {
			memcpy(script + o, "\"$1\"", 4);
			o += 4;
			p += 7;
		} else {
			script[o++] = *p++;
		}
	}
	if (!(timeout_s > 0))
		timeout_s = BC_MCOMMAND_TIMEOUT;
	unsigned char rnd[8] = { 0 };
	char token[24];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		uint64_t t = bc_now_ns() ^ ((uint64_t)getpid() << 32);
		memcpy(rnd, &t, sizeof(rnd));
	}
	for (int i = 0; i < 8; i++)
		snprintf(token + 2 * i, 3, "%02x", rnd[i]);
	int pfd[2], gfd[2];
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(out, n, "pipe: %s", strerror(errno));
		free(script);
		return -1;
	}
	if (pipe2(gfd, O_CLOEXEC)) {
		snprintf(out, n, "pipe: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		free(script);
		return -1;
	}
	char **envp = command_env(token);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0)
		command_child(script, value, envp, pfd[1], gfd[0], parent);
	free(envp[bc_strv_len(envp) - 1]);	/* the token's; the rest are environ's */
	free(envp);
	close(pfd[1]);
	close(gfd[0]);
	free(script);
	if (pid < 0) {
		snprintf(out, n, "could not run \"%s\": %s", cmd, strerror(errno));
		close(pfd[0]);
		close(gfd[1]);
		return -1;
	}
	setpgid(pid, pid);	/* as the child does: no window where a kill misses it */
	char pst;
	long long pg, pstart = -1;
	proc_stat(pid, &pst, &pg, &pstart);
	char *group = bc_xasprintf("%ld %lld %s", (long)pid, pstart, token);
	int refused = on && on(ctx, group);
	free(group);
	if (refused || write(gfd[1], "g", 1) != 1) {
		close(gfd[1]);
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(pfd[0]);
		snprintf(out, n, "\"%s\" not run: %s", cmd, refused ? "its process group could not be journalled" :
			 strerror(errno));
		return -1;
	}
	close(gfd[1]);
	char buf[4096];
	size_t got = 0;
	int st = 0;
	int done = command_wait(pid, pfd[0], bc_now_ns() + (uint64_t)(timeout_s * 1e9), buf, sizeof(buf), &got);
	close(pfd[0]);
	buf[got] = '\0';
	/* whatever it started and left behind goes with it (the leader not yet
	   reaped: its group's number cannot be anyone else's meanwhile) */
	kill(-pid, SIGKILL);
	if (done == 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (done == 0) {
		snprintf(out, n, "\"%s\" did not finish within %g s: it was killed (a custom setting's timeout, "
			 "docs/machine.md)", cmd, timeout_s);
		return -1;
	}
	if (done < 0) {
		snprintf(out, n, "could not run \"%s\": %s", cmd, strerror(errno));
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(out, n, "\"%s\" exited with %d", cmd, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return -1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	bc_mnormalize(buf, out, n);
	return 0;
}

int bc_mcommand(const char *cmd, const char *value, double timeout_s, char *out, size_t n)
{
	return bc_mcommand_in(cmd, value, timeout_s, NULL, NULL, out, n);
}

unsigned char *bc_mcpu_list_parse(const char *text)
{
	unsigned char *set = bc_xcalloc(BC_MCPU_MAX, 1);
	const char *p = text;
	int any = 0;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0 || a >= BC_MCPU_MAX || !isdigit((unsigned char)*p))
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= BC_MCPU_MAX || !isdigit((unsigned char)*p))
				goto bad;
		}
		for (long c = a; c <= b; c++)
			set[c] = 1;
		any = 1;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (any)
		return set;
bad:
	free(set);
	return NULL;
}
