/* The measured core clock (freq.c): a calibrated chain of dependent adds,
   one cycle each, timed in short bursts, fastest burst counted. Any thread;
   the probe_cpu forms move the calling thread to the CPU and back. Each
   probe costs about 160 x 25 us of one CPU. 0 / -1 where the architecture
   has no probe (neither x86-64 nor arm64) or the CPU cannot be used. */
#ifndef BC_FREQ_H
#define BC_FREQ_H

/* MHz of the CPU the calling thread runs on (it may move meanwhile: pin it). */
double bc_freq_probe_here(void);
/* MHz of cpu, the calling thread pinned there for the probe. */
double bc_freq_probe_cpu(int cpu);

typedef struct bc_freq_probe {
	double mean_mhz, min_mhz, max_mhz;
	unsigned cpus;			/* CPUs probed */
} bc_freq_probe;
/* Probes up to most CPUs of this process's affinity mask, spread over it. */
int bc_freq_probe_cpus(unsigned most, bc_freq_probe *out);

/* arm64: the same chain on the calling thread's CPU timed by the generic
   timer (CNTVCT_EL0 ticks at CNTFRQ_EL0 Hz, independent of the kernel's
   clock source), a check of the probe's clock: MHz, with *counter_hz set.
   0 where there is no such counter (x86-64) or it cannot be read. */
double bc_freq_probe_counter(double *counter_hz);
#endif
