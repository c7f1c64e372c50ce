/* Reaping the processes a case left (reap.h). /proc is read directly (no
   CONFIG_PROC_CHILDREN). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "reap.h"
#include "util.h"

size_t bc_children_of(pid_t parent, pid_t *out, size_t cap)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;
	while (d && (de = readdir(d)) && n < cap) {
		char path[64], buf[512];
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		char *rp = strrchr(buf, ')');	/* "pid (comm) state ppid ..." */
		int ppid;
		if (rp && sscanf(rp + 1, " %*c %d", &ppid) == 1 && ppid == (int)parent)
			out[n++] = pid;
	}
	if (d)
		closedir(d);
	return n;
}

static int known(const pid_t *v, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return 1;
	return 0;
}

/* Kills and reaps the children of this process not in keep[] until none is
   left (a subreaper: the orphans of what it kills come back to it). Returns
   how many it killed. */
unsigned bc_kill_strays(const pid_t *keep, size_t nkeep)
{
	siginfo_t si;
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD)
		return 0;	/* no child at all: no need to read /proc (a probe, most cases) */
	pid_t *kids = bc_xcalloc(BC_MAX_KIDS, sizeof(pid_t));
	unsigned killed = 0;
	for (int round = 0; round < 100; round++) {
		size_t n = bc_children_of(getpid(), kids, BC_MAX_KIDS), hit = 0;
		for (size_t i = 0; i < n; i++) {
			if (known(keep, nkeep, kids[i]))
				continue;
			kill(-kids[i], SIGKILL);	/* its group, if it leads one (setsid) */
			kill(kids[i], SIGKILL);
			while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
				;
			hit++;
		}
		killed += (unsigned)hit;
		if (!hit)
			break;
	}
	free(kids);
	return killed;
}
