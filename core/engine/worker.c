/* A case's worker thread (bc_worker): its module's thread_init, the wait at
 * the gate until the main thread starts warmup, then the events (closed or
 * paced open loop, one clock read per event) or the module's own
 * thread_run, thread_done, and its exit counted, however it ended. The main
 * thread's side (phases, the window, joining) is engine.c's. */
#include <pthread.h>
#include "clock.h"
#include "engine_int.h"
#include "util.h"

/* Closed loop: the end of one event is the start of the next, so each event
   costs one clock read, not two. */
static void event_loop_closed(struct bench_thread *t)
{
	bench_ctx *x = t->ctx;
	int (*ev)(void *, uint64_t *) = x->d->event;
	void *ts = t->tstate;
	int ph = LD(x->phase);
	uint64_t start = bc_now_ns();
	while (ph != PH_STOP) {
		int began = ph;
		if (ph == PH_MEASURE && x->limited) {
			if (!claim(t))
				break;
			t->claims = 2;
			t->charged++;	/* paid when recorded (record_error pays too) */
		}
		uint64_t bytes = 0;
		int rc = ev(ts, &bytes);
		uint64_t end = bc_now_ns();
		ph = LD(x->phase);
		if (ph == PH_MEASURE && (began == PH_MEASURE || !x->limited)) {
			if (rc == BENCH_OK) {
				if (x->limited)
					window_pays(t, 1);
				op_add(&t->ops[0], end - start, bytes);
			} else {
				bc_host_api.record_error(t, 0, "error");
			}
		} else if (ph == PH_MEASURE) {
			/* --events: begun in warmup, where nothing is claimed, it is
			   warmup's (charging it now, another thread could have spent
			   the budget first) */
			ST(t->warm_events, t->warm_events + (rc == BENCH_OK));
		} else if (ph == PH_WARMUP && rc == BENCH_OK) {
			ST(t->warm_events, t->warm_events + 1);
		}
		start = end;
	}
}

/* Open loop: latency counts from the intended start (coordinated omission). */
static void event_loop_open(struct bench_thread *t)
{
	bench_ctx *x = t->ctx;
	while (!bc_host_api.should_stop(t)) {
		uint64_t start = bc_host_api.pace(t), bytes = 0;
		if (LD(x->phase) == PH_STOP)
			break;
		int rc = x->d->event(t->tstate, &bytes);
		uint64_t end = bc_now_ns();
		if (rc == BENCH_OK)
			bc_host_api.record(t, 0, end - start, bytes);
		else
			bc_host_api.record_error(t, 0, "error");
	}
}

/* A worker that ended inside the module (pthread_exit): counted as exited
   (and ready) so nobody waits for it; the case fails (see measure). */
static void worker_vanished(void *arg)
{
	struct bench_thread *t = arg;
	bench_ctx *x = t->ctx;
	bc_clock_leave();
	pthread_mutex_lock(&x->lock);
	t->vanished = 1;
	if (!t->readied) {
		t->readied = 1;
		t->init_rc = BENCH_ERR;
		x->ready++;
	}
	t->end_ns = bc_now_ns();
	t->exited = 1;
	x->exited++;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
}

void *bc_worker(void *arg)
{
	struct bench_thread *t = arg;
	bench_ctx *x = t->ctx;
	int rc;
	uint64_t end;
	pthread_cleanup_push(worker_vanished, t);
	rc = x->d->thread_init ? x->d->thread_init(x->state, t, &t->tstate) : BENCH_OK;
	pthread_mutex_lock(&x->lock);
	t->init_rc = rc;
	t->readied = 1;
	x->ready++;
	pthread_cond_broadcast(&x->cond);
	while (x->phase == PH_INIT)
		pthread_cond_wait(&x->cond, &x->lock);
	pthread_mutex_unlock(&x->lock);
	bc_clock_join();	/* simulated time (clock.h) waits for this thread */
	if (rc == BENCH_OK && LD(x->phase) != PH_STOP) {
		if (x->d->event)
			(x->gap_ns > 0 ? event_loop_open : event_loop_closed)(t);
		else
			t->run_rc = x->d->thread_run(t->tstate);
	}
	/* the worker's last operation is done: an events budget's window ends
	   here, not after thread_done (io's close of a new file gives its
	   blocks back: 0.3 s a GiB on ext4, which no operation took) */
	end = bc_now_ns();
	if (rc == BENCH_OK && x->d->thread_done)
		x->d->thread_done(t->tstate);
	pthread_cleanup_pop(0);
	bc_clock_leave();
	pthread_mutex_lock(&x->lock);
	t->end_ns = end;
	t->exited = 1;
	x->exited++;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	return NULL;
}
