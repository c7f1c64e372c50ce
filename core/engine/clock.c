/* The engine's clock (clock.h): the real one, or simulated time for tests.
 *
 * Simulated: a count of the threads taking part that are awake (running,
 * the places expected for workers included) and a list of the sleeping
 * ones, each on its own stack. When running falls to 0 the thread that made
 * it so moves time to the earliest wake-up and releases the workers due
 * then, or, when none is due, the starter. One mutex guards it all; time is
 * read with a relaxed atomic load. */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include "clock.h"
#include "util.h"

enum { NOT_MEMBER, WORKER, STARTER };
#define ALONE_NS	5000000000ull	/* 5 s: a thread start under valgrind included */

typedef struct sleeper {
	uint64_t wake;
	int worker, released;
	struct sleeper *next;
} sleeper;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct {
	int on, kicked;
	uint64_t now;
	unsigned running, expected;
	uint64_t alone_ns;		/* real time the starter waited alone, in a row */
	sleeper *sleeping;
} V;
static __thread int member;

static uint64_t virtual_now(void)
{
	return __atomic_load_n(&V.now, __ATOMIC_RELAXED);
}

/* running is 0: time moves to the earliest wake-up; the workers due then
   wake, or else the starter. Under mu. */
static void advance(void)
{
	uint64_t min = UINT64_MAX;
	for (sleeper *s = V.sleeping; s; s = s->next)
		if (!s->released && s->wake < min)
			min = s->wake;
	if (min == UINT64_MAX)
		return;
	if (min > V.now)
		__atomic_store_n(&V.now, min, __ATOMIC_RELAXED);
	unsigned n = 0;
	for (int pass = 0; pass < 2 && !n; pass++)
		for (sleeper *s = V.sleeping; s; s = s->next)
			if (!s->released && s->wake <= V.now && s->worker == !pass) {
				s->released = 1;
				n++;
			}
	V.running += n;
	pthread_cond_broadcast(&cv);
}

static void unlink_sleeper(sleeper *me)
{
	for (sleeper **p = &V.sleeping; *p; p = &(*p)->next)
		if (*p == me) {
			*p = me->next;
			return;
		}
}

static void virtual_sleep(uint64_t t)
{
	if (member == NOT_MEMBER) {	/* outside the simulation: it does not hold time back */
		sched_yield();
		return;
	}
	pthread_mutex_lock(&mu);
	if (t <= V.now || (member == WORKER && V.kicked)) {
		pthread_mutex_unlock(&mu);
		return;
	}
	sleeper me = { .wake = t, .worker = member == WORKER, .next = V.sleeping };
	V.sleeping = &me;
	V.running--;
	if (V.running == 0 && !me.next && member == STARTER) {
		/* the starter alone: a wait for something outside (the workers'
		   thread_init, a child's exit). It gets real time for it, and
		   simulated time stands still for the first ALONE_NS of that, so
		   that how long a thread took to start is not in the figures;
		   past that (a hang), time moves and the timeouts come. */
		pthread_mutex_unlock(&mu);
		uint64_t ns = t - V.now < 1000000u ? t - V.now : 1000000u;
		struct timespec ts = { 0, (long)ns };
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&mu);
		V.alone_ns += ns;
		if (V.alone_ns < ALONE_NS && V.running == 0 && V.sleeping == &me && !me.released) {
			V.sleeping = me.next;
			V.running++;
			pthread_mutex_unlock(&mu);
			return;
		}
	} else {
		V.alone_ns = 0;
	}
	if (V.running == 0)
		advance();
	while (!me.released)
		pthread_cond_wait(&cv, &mu);
	unlink_sleeper(&me);
	pthread_mutex_unlock(&mu);
}

int bc_clock_virtual_start(uint64_t t0)
{
	pthread_mutex_lock(&mu);
	int busy = V.on;
	if (!busy) {
		V.on = 1;
		V.kicked = 0;
		V.now = t0;
		V.running = 1;
		V.expected = 0;
		V.alone_ns = 0;
		V.sleeping = NULL;
		member = STARTER;
		bc_now_hook = virtual_now;
		bc_sleep_hook = virtual_sleep;
	}
	pthread_mutex_unlock(&mu);
	return busy ? -1 : 0;
}

void bc_clock_virtual_stop(void)
{
	pthread_mutex_lock(&mu);
	bc_now_hook = NULL;
	bc_sleep_hook = NULL;
	V.on = 0;
	member = NOT_MEMBER;
	pthread_mutex_unlock(&mu);
}

int bc_clock_is_virtual(void)
{
	return bc_now_hook == virtual_now;
}

void bc_clock_sleep_ns(uint64_t ns)
{
	bc_sleep_until(bc_now_ns() + ns);
}

void bc_clock_expect(unsigned n)
{
	if (!bc_now_hook)
		return;
	pthread_mutex_lock(&mu);
	V.kicked = 0;
	V.expected += n;
	V.running += n;
	pthread_mutex_unlock(&mu);
}

void bc_clock_join(void)
{
	if (!bc_now_hook)
		return;
	pthread_mutex_lock(&mu);
	if (V.expected)
		V.expected--;
	else
		V.running++;
	member = WORKER;
	pthread_mutex_unlock(&mu);
}

void bc_clock_leave(void)
{
	if (member != WORKER)
		return;
	pthread_mutex_lock(&mu);
	member = NOT_MEMBER;
	if (--V.running == 0)
		advance();
	pthread_mutex_unlock(&mu);
}

void bc_clock_kick(void)
{
	if (!bc_now_hook)
		return;
	pthread_mutex_lock(&mu);
	V.kicked = 1;
	unsigned n = 0;
	for (sleeper *s = V.sleeping; s; s = s->next)
		if (s->worker && !s->released) {
			s->released = 1;
			n++;
		}
	V.running += n;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}
