/* The run's own processes: the private servers benchcore started and the
 * processes a module declared (ABI 1.3 declare_process). Their CPU time over
 * the measured window is the workload's, recorded as cpu.server_pct; the
 * share of "other processes" (cpu.other_pct, and on the case's own CPUs
 * cpu.interference_pct, which compare weighs) leaves it out. Main thread only, like the rest of the
 * window's accounting (measure.c). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine_int.h"
#include "util.h"

int bc_declare(bench_ctx *x, int pid, int group, const char *name, bc_err *e)
{
	char path[64];

	if (pid <= 0) {
		bc_err_set(e, "declare_process: pid %d is not a process id", pid);
		return -1;
	}
	if (pid == (int)getpid()) {	/* counted as the case's own CPU already */
		bc_err_set(e, "declare_process: pid %d is the case's own process", pid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f) {
		bc_err_set(e, "declare_process: pid %d is not a process visible on this machine (%s)",
			   pid, strerror(errno));
		return -1;
	}
	fclose(f);
	for (unsigned i = 0; i < x->ndeclared; i++)
		if (x->declared[i].pid == pid) {
			x->declared[i].group |= group;
			return 0;
		}
	if (x->ndeclared == BC_MAX_DECLARED) {
		bc_err_set(e, "declare_process: at most %d processes per case", BC_MAX_DECLARED);
		return -1;
	}
	bc_declared *d = &x->declared[x->ndeclared++];
	*d = (bc_declared){ .pid = pid, .group = group };
	snprintf(d->name, sizeof(d->name), "%s", name && *name ? name : "process");
	for (char *c = d->name; *c; c++)	/* a label for the results: printable */
		if (!isprint((unsigned char)*c))
			*c = '?';
	return 0;
}

/* One /proc/PID/stat: process group and utime + stime + cutime + cstime
   (the children it reaped count: a helper that exits inside the window is
   still counted, by its parent). 0, or -1 when gone or unreadable. */
static int read_stat(const char *pid, int *pgrp, unsigned long long *ticks)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	/* "pid (comm) state ppid pgrp ...": comm may hold spaces and parens */
	char *p = strrchr(buf, ')');
	unsigned long long ut, st, cut, cst;
	if (!p || sscanf(p + 1, " %*c %*d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 pgrp, &ut, &st, &cut, &cst) != 5)
		return -1;
	*ticks = ut + st + cut + cst;
	return 0;
}

static int counted(const bench_ctx *x, int pid, int pgrp)
{
	for (unsigned i = 0; i < x->ndeclared; i++)
		if (x->declared[i].pid == pid || (x->declared[i].group && x->declared[i].pid == pgrp))
			return 1;
	return 0;
}

/* pid's ticks go to *on_set too when it may run on a CPU of set (its
   affinity overlaps): a server pinned elsewhere took nothing from the
   case's CPUs, so it is not subtracted from their busy time. */
static void add_ticks(int pid, unsigned long long t, const cpu_set_t *set,
		      unsigned long long *sum, unsigned long long *on_set)
{
	cpu_set_t aff, both;
	*sum += t;
	if (!set || !on_set)
		return;
	if (sched_getaffinity(pid, sizeof(aff), &aff) != 0) {
		*on_set += t;	/* unknown: counted as the workload's, as before */
		return;
	}
	CPU_AND(&both, &aff, set);
	if (CPU_COUNT(&both))
		*on_set += t;
}

unsigned long long bc_declared_ticks_on(const bench_ctx *x, const cpu_set_t *set,
					unsigned long long *on_set)
{
	unsigned long long sum = 0, t;
	int any_group = 0, pgrp;
	char id[24];

	if (on_set)
		*on_set = 0;
	for (unsigned i = 0; i < x->ndeclared; i++)
		any_group |= x->declared[i].group;
	if (!any_group) {	/* single processes: no need to walk /proc */
		for (unsigned i = 0; i < x->ndeclared; i++) {
			snprintf(id, sizeof(id), "%d", x->declared[i].pid);
			if (read_stat(id, &pgrp, &t) == 0)
				add_ticks(x->declared[i].pid, t, set, &sum, on_set);
		}
		return sum;
	}
	DIR *d = opendir("/proc");
	struct dirent *e;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (read_stat(e->d_name, &pgrp, &t) == 0 && counted(x, atoi(e->d_name), pgrp))
			add_ticks(atoi(e->d_name), t, set, &sum, on_set);
	}
	closedir(d);
	return sum;
}

/* Ticks of every declared process, and of every member of a declared
   group, now: each process once, however it was declared. */
unsigned long long bc_declared_ticks(const bench_ctx *x)
{
	return bc_declared_ticks_on(x, NULL, NULL);
}

/* "redis-server (pid 4242, its process group), burner (pid 77)" */
char *bc_declared_names(const bench_ctx *x)
{
	size_t len = 0, cap = 64 * x->ndeclared + 1;
	char *s = bc_xcalloc(1, cap);

	for (unsigned i = 0; i < x->ndeclared && len < cap; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%s (pid %d%s)", i ? ", " : "",
					x->declared[i].name, x->declared[i].pid,
					x->declared[i].group ? ", its process group" : "");
	return s;
}
