/*
 * A server that stopped answering, told from a slow one.
 *
 * The workers call the client library blocking: a SIGSTOPped, swapping or
 * wedged server holds them in a read until the case's watchdog kills the
 * whole case, and a stop shorter than that left the case ok. So each worker
 * publishes, for its connection, when the statement in flight was sent (0:
 * none) and how many of its statements were answered; a watcher thread,
 * started in init and stopped in destroy, looks every 100 ms (at most
 * reply_timeout / 4). A statement that has waited longer than reply_timeout
 * while no statement on any connection was answered meanwhile means the
 * server stopped answering (a lock wait is not: the holder's statements go
 * on). The watcher then reports it through error(), which fails a case in
 * its measured window whatever the workers return, naming the server, and
 * shuts the waiting connections' sockets down so their calls return (error
 * 2013) at once. The socket's descriptor is only ever shut down, never
 * closed, here: the worker owns it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "oltp.h"

struct oltp_watch_slot {
	uint64_t sent;			/* atomic: the statement in flight was sent then; 0 none */
	uint64_t answered;		/* atomic: statements answered */
	int fd;				/* atomic: the connection's socket, -1 none */
} __attribute__((aligned(64)));

struct oltp_watch {
	oltp_state *s;
	unsigned n;
	struct oltp_watch_slot *slot;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, running;
	uint64_t seen, progress;	/* the watcher's: answers summed, when they last changed */
};

#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

void oltp_watch_sent(oltp_state *s, unsigned i)
{
	if (s->watch && i < s->watch->n)
		ST(s->watch->slot[i].sent, s->api->now_ns());
}

void oltp_watch_answered(oltp_state *s, unsigned i)
{
	if (!s->watch || i >= s->watch->n)
		return;
	struct oltp_watch_slot *w = &s->watch->slot[i];
	ST(w->sent, 0);
	ST(w->answered, LD(w->answered) + 1);	/* this worker is the only writer */
}

void oltp_watch_conn(oltp_state *s, unsigned i, MYSQL *m)
{
	if (s->watch && i < s->watch->n)
		ST(s->watch->slot[i].fd, m ? (int)mysql_get_socket(m) : -1);
}

static void watch_where(const oltp_state *s, char *buf, size_t n)
{
	if (s->sock[0])
		snprintf(buf, n, "%ssocket %s", s->private_server ? "private " : "", s->sock);
	else
		snprintf(buf, n, "%s:%u", s->host, s->port ? s->port : 3306);
}

/* The server stopped answering: said once, and the waiting calls freed. */
static void watch_fire(struct oltp_watch *w, unsigned i, uint64_t now, uint64_t waited)
{
	oltp_state *s = w->s;
	char where[300], detail[400];
	watch_where(s, where, sizeof(where));
	__atomic_store_n(&s->unresponsive, 1, __ATOMIC_RELEASE);
	snprintf(detail, sizeof(detail), "connection %u's statement has waited %.3f s and no statement on any of "
		 "the %u connections was answered for %.3f s, longer than reply_timeout (%g s)", i, waited / 1e9,
		 w->n, (now - w->progress) / 1e9, s->reply_ns / 1e9);
	oltp_fail(s, NULL, detail, "check the server (stopped, swapping, a full disk, or every connection "
		  "waiting for a lock); raise reply_timeout if it is only slow",
		  "oltp: the server at %s stopped answering", where);
	for (unsigned k = 0; k < w->n; k++) {
		int fd = LD(w->slot[k].fd);
		if (fd >= 0 && LD(w->slot[k].sent))
			shutdown(fd, SHUT_RDWR);
	}
}

/* One look: 1 when the server stopped answering (and it was said). */
static int watch_look(struct oltp_watch *w)
{
	uint64_t now = w->s->api->now_ns(), sum = 0;
	for (unsigned i = 0; i < w->n; i++)
		sum += LD(w->slot[i].answered);
	if (sum != w->seen || !w->progress) {
		w->seen = sum;
		w->progress = now;
	}
	for (unsigned i = 0; i < w->n; i++) {
		uint64_t sent = LD(w->slot[i].sent);
		uint64_t since = sent > w->progress ? sent : w->progress;
		if (sent && since < now && now - since > w->s->reply_ns) {
			watch_fire(w, i, now, now - sent);
			return 1;
		}
	}
	return 0;
}

static void *watch_main(void *arg)
{
	struct oltp_watch *w = arg;
	uint64_t step = w->s->reply_ns / 4 < 100000000u ? w->s->reply_ns / 4 : 100000000u;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t ns = (uint64_t)ts.tv_nsec + (step ? step : 1000000u);
		ts.tv_sec += (time_t)(ns / 1000000000u);
		ts.tv_nsec = (long)(ns % 1000000000u);
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
		if (w->stop)
			break;
		pthread_mutex_unlock(&w->mu);
		int fired = watch_look(w);
		pthread_mutex_lock(&w->mu);
		if (fired)
			break;	/* said once: the workers end with their connections */
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int oltp_watch_start(oltp_state *s)
{
	struct oltp_watch *w = calloc(1, sizeof(*w));
	if (!w || !(w->slot = aligned_alloc(64, sizeof(*w->slot) * (s->threads ? s->threads : 1)))) {
		free(w);
		return -1;
	}
	memset(w->slot, 0, sizeof(*w->slot) * (s->threads ? s->threads : 1));
	w->s = s;
	w->n = s->threads;
	for (unsigned i = 0; i < w->n; i++)
		w->slot[i].fd = -1;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	s->watch = w;
	w->running = pthread_create(&w->th, NULL, watch_main, w) == 0;
	return w->running ? 0 : -1;
}

void oltp_watch_stop(oltp_state *s)
{
	struct oltp_watch *w = s->watch;
	if (!w)
		return;
	if (w->running) {
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->th, NULL);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->slot);
	free(w);
	s->watch = NULL;
}
