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
#endif
