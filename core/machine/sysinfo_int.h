/* Shared by the fingerprint's files (sysinfo.c, sysinfo_cpu.c); not for
   other groups. Main thread only, like the fingerprint. */
#ifndef BC_SYSINFO_INT_H
#define BC_SYSINFO_INT_H
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* First line of a small file, newline removed: 0, or -1 when unreadable. */
int bc_si_read_line(const char *path, char *buf, size_t len);
/* o[key] = v when v is a non-empty string. */
void bc_si_set_str(json_t *o, const char *key, const char *v);
/* bc_si_read_line() of a file under bc_sysinfo_cpu_root(). */
int bc_si_read_cpu_file(const char *rel, char *buf, size_t len);

/* /proc/self/mountinfo, or the file $BENCHCORE_PROC_MOUNTINFO names (a
   test hook every reader of it here honours); NULL when unreadable. */
FILE *bc_si_open_mountinfo(void);
/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
void bc_si_unescape(char *s);

/* CPU identity (vendor, family/model/stepping, microcode, flags that change
   results), NUMA nodes, mitigations: sysinfo_cpu.c. */
void bc_si_cpu_identity(json_t *h);
/* usable_cpus {count, online, affinity, quota, source}, memory_limit_bytes. */
void bc_si_limits(json_t *h);
/* /proc/cpuinfo, or the file BENCHCORE_PROC_CPUINFO names (tests). */
FILE *bc_si_open_cpuinfo(void);
/* arm64: cpu_model from "CPU implementer" and "CPU part" (sysinfo_arm.c);
   -1 when /proc/cpuinfo has neither. */
int bc_si_arm_model(json_t *h);
/* The cpufreq policy's limits and ACPI CPPC's levels (cppc_cpufreq) into m. */
void bc_si_freq_policy(json_t *m);
/* sysinfo_libs.c: the core's libraries by their own version calls
   ("libraries"), and every shared object loaded, name -> file ("loaded"). */
void bc_si_libraries(json_t *h);
void bc_si_loaded(json_t *h);
#endif
