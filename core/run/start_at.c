/* --start-at TIME (start_at.h). */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine.h"
#include "start_at.h"

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads exactly n digits at *p into *v; advances *p. */
static int digits(const char **p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (!isdigit((unsigned char)**p))
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

/* [:SS][.fff] after HH:MM; *frac gets the fraction of a second. */
static int seconds_part(const char **p, int *sec, double *frac)
{
	*sec = 0;
	*frac = 0;
	if (**p != ':')
		return 0;
	(*p)++;
	if (digits(p, 2, sec))
		return -1;
	if (**p == '.' || **p == ',') {	/* ISO allows 10:00:00,5 too */
		char buf[32];
		size_t n = strspn(*p + 1, "0123456789");
		if (n == 0 || n > 20)
			return -1;
		snprintf(buf, sizeof(buf), "0.%.*s", (int)n, *p + 1);
		*frac = strtod(buf, NULL);
		*p += 1 + n;
	}
	return 0;
}

/* "Z", "+HH:MM", "+HHMM", "+HH" or nothing (local time: *local = 1). */
static int zone_part(const char **p, int *offset_s, int *local)
{
	int h, m = 0, sign;
	*offset_s = 0;
	*local = 0;
	if (!**p)
		return *local = 1, 0;
	if (**p == 'Z' || **p == 'z')
		return (*p)++, 0;
	if (**p != '+' && **p != '-')
		return -1;
	sign = **p == '-' ? -1 : 1;
	(*p)++;
	if (digits(p, 2, &h))
		return -1;
	if (**p == ':')
		(*p)++;
	if (**p && digits(p, 2, &m))
		return -1;
	if (h > 23 || m > 59)
		return -1;
	*offset_s = sign * (h * 3600 + m * 60);
	return 0;
}

/* tm (a wall-clock time, local or UTC) -> epoch; -1 when mktime/timegm had
   to move a field (31 February, 25:00): the text named no real time. */
static int to_epoch(struct tm *tm, int local, time_t *t)
{
	struct tm want = *tm, got;
	tm->tm_isdst = -1;
	*t = local ? mktime(tm) : timegm(tm);
	if (*t == (time_t)-1)
		return -1;
	if (local)
		localtime_r(t, &got);
	else
		gmtime_r(t, &got);
	return got.tm_year == want.tm_year && got.tm_mon == want.tm_mon && got.tm_mday == want.tm_mday &&
	       got.tm_hour == want.tm_hour && got.tm_min == want.tm_min && got.tm_sec == want.tm_sec ? 0 : -1;
}

static int parse_epoch(const char *s, double *epoch)
{
	char *end;
	if (*s == '@')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	*epoch = strtod(s, &end);
	return *end || !isfinite(*epoch) ? -1 : 0;
}

/* A zoned time of day (HH:MM:SSZ, 10:00+01:00): its next occurrence in
   that zone, counting one up to BC_START_AT_LATE past as now (a slow host
   starts at once, not a day later). */
static double next_in_zone(double now, int secs, double frac, int off)
{
	double day = floor((now + off) / 86400) * 86400;	/* midnight there, in its own seconds */
	double t = day + secs + frac - off;
	return t < now - BC_START_AT_LATE ? t + 86400 : t;
}

/* An unzoned time of day: its next occurrence in local time (a day on
   whose clock it does not appear, a change to summer time, is passed over). */
static int next_local(double now, int h, int mi, int sec, double frac, double *epoch)
{
	time_t t0 = (time_t)floor(now);
	struct tm today;
	localtime_r(&t0, &today);
	for (int d = 0; d < 3; d++) {
		struct tm tm = today, got;
		tm.tm_mday += d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = sec, tm.tm_isdst = -1;
		time_t t = mktime(&tm);	/* the 32nd of a month becomes the 1st of the next */
		if (t == (time_t)-1)
			return -1;
		localtime_r(&t, &got);
		if (got.tm_hour != h || got.tm_min != mi || got.tm_sec != sec)
			continue;
		if ((double)t + frac >= now - BC_START_AT_LATE) {
			*epoch = (double)t + frac;
			return 0;
		}
	}
	return -1;
}

/* YYYY-MM-DD[T ]HH:MM[:SS[.f]][zone], or HH:MM[:SS[.f]][zone]: the next
   such time of day after now. */
static int parse_clock(const char *s, double now, double *epoch)
{
	struct tm tm;
	int y, mo, d, h, mi, sec, off, local, dated = 0;
	double frac;
	const char *p = s;
	time_t t = (time_t)floor(now);
	localtime_r(&t, &tm);
	if (strlen(s) >= 10 && s[4] == '-') {
		if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' || digits(&p, 2, &d) ||
		    (*p != 'T' && *p != 't' && *p != ' '))
			return -1;
		p++;
		tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
		dated = 1;
	}
	if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || seconds_part(&p, &sec, &frac) ||
	    zone_part(&p, &off, &local) || *p)
		return -1;
	if (!dated && (h > 23 || mi > 59 || sec > 59))
		return -1;
	if (!dated && !local) {
		*epoch = next_in_zone(now, h * 3600 + mi * 60 + sec, frac, off);
		return 0;
	}
	if (!dated)
		return next_local(now, h, mi, sec, frac, epoch);
	tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = sec;
	if (to_epoch(&tm, local, &t))
		return -1;
	*epoch = (double)t - off + frac;
	return 0;
}

int bc_start_at_parse_now(const char *text, double now, double *epoch, bc_err *e)
{
	if ((strchr(text, ':') ? parse_clock(text, now, epoch) : parse_epoch(text, epoch)) != 0) {
		bc_err_set(e, "--start-at: \"%s\" is not a time", text);
		bc_err_detail(e, "benchcore reads an ISO 8601 date and time (2026-12-01T10:00:00Z, "
			      "2026-12-01T11:00:00+01:00, or without a zone as local time), a time of day HH:MM[:SS] "
			      "(10:00:00Z, 11:00+01:00, or without a zone local time: its next occurrence), or "
			      "seconds since the epoch (@1796119200).");
		bc_err_hint(e, "date -d '+2 min' +%%s prints a time two minutes from now.");
		return -1;
	}
	/* before anything prints it as a date: gmtime of 1e300 is no year */
	if (!(*epoch >= 0 && *epoch <= BC_START_AT_MAX)) {
		bc_err_set(e, "--start-at: \"%s\" is out of range", text);
		bc_err_detail(e, "benchcore takes times from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z "
			      "(epoch seconds 0 to %.0f).", BC_START_AT_MAX);
		bc_err_hint(e, "date -d '+2 min' +%%s prints a time two minutes from now.");
		return -1;
	}
	return 0;
}

int bc_start_at_parse(const char *text, double *epoch, bc_err *e)
{
	return bc_start_at_parse_now(text, wall_now(), epoch, e);
}

static void utc_text(double epoch, char *buf, size_t n)
{
	time_t t = (time_t)floor(epoch);
	struct tm tm;
	if (!(epoch >= 0 && epoch <= BC_START_AT_MAX)) {
		snprintf(buf, n, "out of range");
		return;
	}
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Refuses a time too late or too far ahead; 0 to wait, 2 refused. */
static int refuse(double epoch, const char *text, double now)
{
	char at[32], nowt[32];
	bc_err e;
	utc_text(epoch, at, sizeof(at));
	utc_text(now, nowt, sizeof(nowt));
	if (epoch < now - BC_START_AT_LATE) {
		bc_err_set(&e, "--start-at %s (%s) is %.0f s in the past", text, at, now - epoch);
		bc_err_detail(&e, "It is %s now; a start more than %.0f s late would not start the hosts together.",
			      nowt, BC_START_AT_LATE);
		bc_err_hint(&e, "Give a time in the future (a time of day alone, HH:MM:SS, means its next occurrence).");
	} else if (epoch > now + BC_START_AT_AHEAD) {
		bc_err_set(&e, "--start-at %s (%s) is %.1f days ahead", text, at, (epoch - now) / 86400);
		bc_err_detail(&e, "It is %s now; benchcore waits at most %.0f days.", nowt, BC_START_AT_AHEAD / 86400);
		bc_err_hint(&e, "Check the date and the time zone of the time given.");
	} else {
		return 0;
	}
	bc_err_print(&e);
	return 2;
}

int bc_start_at_wait(double epoch, const char *text)
{
	double now = wall_now();
	char at[32];
	if (refuse(epoch, text, now))
		return 2;
	utc_text(epoch, at, sizeof(at));
	fprintf(stderr, "benchcore: waiting %.1f s, until %s (--start-at %s); Ctrl-C cancels the run\n",
		epoch > now ? epoch - now : 0.0, at, text);
	/* The signals are blocked and taken with sigtimedwait: no handler to
	   race with, and one that came is answered at once, not at the next
	   wake-up. A HUP ignored by nohup stays ignored. */
	sigset_t set, old;
	struct sigaction hup;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGQUIT);
	if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
		sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	int sig = bc_stop_requested ? -1 : 0;	/* one came before the wait (suite.c's handler took it) */
	/* steps of at most a second: the wall clock may be stepped by NTP while waiting */
	for (double left; !sig && (left = epoch - wall_now()) > 0;) {
		double step = left < 1.0 ? left : 1.0;
		struct timespec ts = { (time_t)step, (long)((step - floor(step)) * 1e9) };
		int s = sigtimedwait(&set, NULL, &ts);
		if (s > 0)
			sig = s;
	}
	/* time() reads the coarse clock, a tick behind: started_at (from time())
	   must not name the second before TIME */
	while (!sig && (double)time(NULL) < floor(epoch)) {
		struct timespec tick = { 0, 1000000 };
		nanosleep(&tick, NULL);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (sig) {
		fprintf(stderr, "benchcore: interrupted (%s) while waiting to start: nothing ran, no results written\n",
			sig > 0 ? strsignal(sig) : "a signal before the wait");
		return 130;
	}
	return 0;
}
