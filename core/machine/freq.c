/* The clock a core really runs at, measured: a chain of dependent register
   adds takes one cycle per add on every x86-64 and arm64 core made this
   century, so adds / seconds is the core's frequency, turbo included and
   whatever /proc/cpuinfo or cpufreq claim (a VM's /proc/cpuinfo says the
   nominal 2600 MHz of a host whose cores run at 4.1 GHz).

   Time slicing must not lower the figure (a busy process sharing the CPU
   takes half its time, not half its clock): the chain runs in many short
   bursts (~25 us) and the fastest burst counts. A burst is far shorter than
   a scheduler slice, so most run whole; one interrupted burst is only slower,
   never faster. The first bursts also give an idle core time to leave its
   low-power state. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include "freq.h"

#define BURST_ITERS	256	/* x 100 adds: 25600 cycles, ~6-25 us */
#define BURSTS		160

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* iters x 100 dependent adds; the loop's own counter runs beside the chain
   on another port, so it adds no cycles. */
static int chain(unsigned iters)
{
#if defined(__x86_64__) || defined(__aarch64__)
	uint64_t x = 0;
	for (unsigned i = 0; i < iters; i++) {
#if defined(__x86_64__)
		__asm__ volatile(".rept 100\n\tadd $1, %0\n\t.endr" : "+r"(x));
#else
		__asm__ volatile(".rept 100\n\tadd %0, %0, #1\n\t.endr" : "+r"(x));
#endif
	}
	return x == (uint64_t)iters * 100 ? 0 : -1;
#else
	(void)iters;
	return -1;
#endif
}

/* The fastest of BURSTS bursts of the chain, in ticks of clock now(); 0
   when the architecture has no chain or no burst took a tick. */
static uint64_t fastest_burst(uint64_t (*now)(void))
{
	uint64_t best = UINT64_MAX;
	for (int b = 0; b < BURSTS; b++) {
		uint64_t t0 = now();
		if (chain(BURST_ITERS) < 0)
			return 0;
		uint64_t dt = now() - t0;
		if (dt && dt < best)
			best = dt;
	}
	return best == UINT64_MAX ? 0 : best;
}

double bc_freq_probe_here(void)
{
	uint64_t best = fastest_burst(mono_ns);
	/* cycles / ns = GHz; x 1000 = MHz */
	return best ? (double)BURST_ITERS * 100.0 / (double)best * 1000.0 : 0;
}

double bc_freq_probe_cpu(int cpu)
{
	cpu_set_t old, one;
	pthread_t self = pthread_self();
	if (pthread_getaffinity_np(self, sizeof(old), &old) != 0)
		return 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(self, sizeof(one), &one) != 0)
		return 0;
	double mhz = bc_freq_probe_here();
	pthread_setaffinity_np(self, sizeof(old), &old);
	return mhz;
}

int bc_freq_probe_cpus(unsigned most, bc_freq_probe *out)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE], n = 0;
	out->mean_mhz = out->min_mhz = out->max_mhz = 0;
	out->cpus = 0;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	if (n == 0 || most == 0)
		return -1;
	unsigned k = (unsigned)n < most ? (unsigned)n : most;
	double sum = 0;
	for (unsigned i = 0; i < k; i++) {
		/* spread over the mask: 0, n/k, 2n/k, ... */
		double v = bc_freq_probe_cpu(cpus[(size_t)i * (size_t)n / k]);
		if (v <= 0)
			return -1;
		sum += v;
		if (!out->cpus || v < out->min_mhz)
			out->min_mhz = v;
		if (v > out->max_mhz)
			out->max_mhz = v;
		out->cpus++;
	}
	out->mean_mhz = sum / out->cpus;
	return 0;
}

#if defined(__aarch64__)
static uint64_t cntvct(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}
#endif

double bc_freq_probe_counter(double *counter_hz)
{
	*counter_hz = 0;
#if defined(__aarch64__)
	uint64_t hz;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	if (!hz)
		return 0;
	uint64_t best = fastest_burst(cntvct);
	if (!best)
		return 0;
	*counter_hz = (double)hz;
	/* adds per tick x ticks per second = adds per second */
	return (double)BURST_ITERS * 100.0 / (double)best * (double)hz / 1e6;
#else
	return 0;
#endif
}
