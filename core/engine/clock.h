/* The engine's clock: what bc_now_ns() and bc_sleep_until() (util.h) read
 * and wait on, everywhere (the window, warmup, pacing, interval reports,
 * watchdog deadlines, the runner's ETA and time_budget). Real by default
 * (CLOCK_MONOTONIC); a test may install a simulated one and run cases, even
 * whole plans with isolate = false, in no time at all and with the same
 * figures every time (tests/unit/test_run.c).
 *
 * Simulated time moves only when every thread taking part sleeps: it jumps
 * to the earliest wake-up. Taking part are the thread that started the
 * clock (the runner) and the engine's workers while they run events
 * (bc_clock_join .. bc_clock_leave). When a worker and the runner wake at
 * the same instant the worker goes first, so a window's counts hold every
 * operation up to its end. A worker's module sleeps through the clock too:
 * tests/modules/synth.c takes a sleep function (synth_sleep_ns) that a test
 * points at bc_clock_sleep_ns. With the real clock every call below except
 * bc_clock_virtual_start is a no-op. */
#ifndef BC_CLOCK_H
#define BC_CLOCK_H
#include <stdint.h>

/* Starts simulated time at t0 ns (the calling thread takes part); 0 ok. */
int bc_clock_virtual_start(uint64_t t0);
/* Back to the real clock (no worker may be running). */
void bc_clock_virtual_stop(void);
int bc_clock_is_virtual(void);
/* Sleeps ns from now, on whichever clock is in use. */
void bc_clock_sleep_ns(uint64_t ns);

/* The engine's side (engine.c; a worker's own calls in worker.c). n workers
   are about to leave their start gate: time waits for them to join. */
void bc_clock_expect(unsigned n);
/* A worker starts running (takes up one expected place, if any). */
void bc_clock_join(void);
/* A worker stops running (idempotent; from any exit path). */
void bc_clock_leave(void);
/* The case stops: every sleeping worker wakes now (time does not move). */
void bc_clock_kick(void);
#endif
