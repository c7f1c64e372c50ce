/* The small file and command primitives of machine settings (mset.h):
   reading a sysfs value as the kernel means it, writing it as echo does,
   and running a user's set/read command without letting the shell parse
   the value. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

/* A user's command runs through /bin/sh -c with {value} replaced by "$1" and
   the value passed as $1: the shell sees the value only as the expansion of
   a quoted parameter, so "; rm -rf /" or $(...) in a value is just text. It
   runs in a process group of its own, killed whole when it outlives its
   time limit (a tool waiting on a device, a prompt nobody answers): a
   setting never hangs the run, its restore or its plan. */
int bc_mcommand(const char *cmd, const char *value, double timeout_s, char *out, size_t n)
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
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(out, n, "pipe: %s", strerror(errno));
		free(script);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(pfd[1], 1);
		int dn = open("/dev/null", O_RDONLY);
		if (dn >= 0)
			dup2(dn, 0);
		execl("/bin/sh", "sh", "-c", script, "benchcore-custom", value ? value : "", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);	/* as the child does: no window where a kill misses it */
	close(pfd[1]);
	free(script);
	char buf[4096];
	size_t got = 0;
	int st = 0, done = 0, timed_out = 0, open_ = 1;
	uint64_t end = bc_now_ns() + (uint64_t)(timeout_s * 1e9);
	while (pid > 0 && !done) {
		uint64_t now = bc_now_ns();
		if (now >= end) {
			timed_out = 1;
			break;
		}
		int ms = (int)((end - now) / 1000000) + 1;
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		if (open_ && poll(&pf, 1, ms > 100 ? 100 : ms) > 0) {
			char spill[512];	/* past the first 4 KiB: read and dropped, so it never blocks */
			ssize_t r = got < sizeof(buf) - 1 ? read(pfd[0], buf + got, sizeof(buf) - 1 - got) :
				    read(pfd[0], spill, sizeof(spill));
			if (r > 0)
				got += got < sizeof(buf) - 1 ? (size_t)r : 0;
			else if (r == 0 || errno != EINTR)
				open_ = 0;	/* end of its output: wait for the exit */
		} else if (!open_) {
			usleep(ms > 20 ? 20000 : (useconds_t)ms * 1000);
		}
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			done = 1;
		else if (w < 0 && errno != EINTR)
			break;
	}
	close(pfd[0]);
	buf[got] = '\0';
	if (timed_out) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		snprintf(out, n, "\"%s\" did not finish within %g s: it was killed (a custom setting's timeout, "
			 "docs/machine.md)", cmd, timeout_s);
		return -1;
	}
	if (pid < 0 || !done) {
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
