/* The run's private servers through the measured window: a server the host
 * started (server_start) that was stopped (SIGSTOP: state T or t in
 * /proc/PID/stat), died, or was replaced (another process under its pid: a
 * different start time) while the window ran fails the case, whatever the
 * module saw: its clients' figures are then not the server's. A sampler
 * thread reads each server's /proc/PID/stat every BC_SRVWATCH_MS from the
 * window's start until its end; what it saw is said with the server's name,
 * when (seconds into the window) and for how long (sampled, so to about
 * BC_SRVWATCH_MS). The thread only reads /proc and its own table; the main
 * thread reads the table after joining it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine_int.h"
#include "util.h"

#define BC_SRVWATCH_MS 20

/* state and start time (clock ticks since boot) of pid; 0, or -1 when
   there is no such process */
static int proc_stat(int pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');	/* the name may hold spaces and parens */
	if (!p || sscanf(p + 1, " %c", state) != 1)
		return -1;
	/* fields after the state: ppid ... starttime is the 19th */
	for (int i = 0; i < 19 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", start) != 1)
		return -1;
	return 0;
}

static void sample(bc_srvwatch *w, uint64_t now, uint64_t dt)
{
	for (unsigned i = 0; i < w->n; i++) {
		struct bc_srv *s = &w->s[i];
		char st = '?';
		unsigned long long start = 0;
		if (s->gone_ns)
			continue;
		int rc = proc_stat(s->pid, &st, &start);
		if (rc || st == 'Z' || st == 'X' || start != s->start) {
			s->gone_ns = now - w->t0 + 1;
			s->replaced = !rc && start != s->start && st != 'Z' && st != 'X';
			continue;
		}
		if (st == 'T' || st == 't') {
			if (!s->stops++)
				s->first_stop_ns = now - w->t0 - (now - w->t0 < dt ? now - w->t0 : dt);
			s->stopped_ns += dt;
		}
	}
}

static void *watch(void *arg)
{
	bc_srvwatch *w = arg;
	uint64_t last = w->t0;
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, BC_SRVWATCH_MS * 1000000L };
		nanosleep(&ts, NULL);
		uint64_t now = bc_now_ns();
		sample(w, now, now - last);
		last = now;
	}
	return NULL;
}

void bc_srvwatch_start(bc_srvwatch *w, const bench_ctx *x)
{
	memset(w, 0, sizeof(*w));
	for (unsigned i = 0; i < x->ndeclared; i++) {
		char st;
		unsigned long long start;
		if (!x->declared[i].server || proc_stat(x->declared[i].pid, &st, &start))
			continue;
		struct bc_srv *s = &w->s[w->n++];
		s->pid = x->declared[i].pid;
		s->start = start;
		snprintf(s->name, sizeof(s->name), "%s", x->declared[i].name);
	}
	w->t0 = bc_now_ns();
	if (w->n && pthread_create(&w->tid, NULL, watch, w) == 0)
		w->running = 1;
}

/* What w saw of server s, into buf: "" when nothing. */
static void said(const struct bc_srv *s, double window_s, char *buf, size_t n)
{
	buf[0] = '\0';
	if (s->stops)
		snprintf(buf, n, "private server %s (pid %d) was stopped (state T: SIGSTOP or a tracer) %.2f s "
			 "into the %.2f s window, for about %.2f s of it", s->name, s->pid,
			 (double)s->first_stop_ns / 1e9, window_s, (double)s->stopped_ns / 1e9);
	if (s->gone_ns) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, "%sprivate server %s (pid %d) %s %.2f s into the %.2f s window",
			 l ? "; " : "", s->name, s->pid, s->replaced ? "was replaced by another process" : "died",
			 (double)(s->gone_ns - 1) / 1e9, window_s);
	}
}

int bc_srvwatch_stop(bc_srvwatch *w, double window_s, char *why, size_t n)
{
	if (w->running) {
		__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
		pthread_join(w->tid, NULL);
		w->running = 0;
		uint64_t now = bc_now_ns();
		sample(w, now, 0);	/* the window's end: a server gone since the last look */
	}
	why[0] = '\0';
	for (unsigned i = 0; i < w->n; i++) {
		char one[400];
		size_t l = strlen(why);
		said(&w->s[i], window_s, one, sizeof(one));
		if (one[0])
			snprintf(why + l, n - l, "%s%s", l ? "; " : "", one);
	}
	if (why[0]) {
		size_t l = strlen(why);
		snprintf(why + l, n - l, ": what its clients measured then is not the server's");
	}
	return why[0] != '\0';
}
