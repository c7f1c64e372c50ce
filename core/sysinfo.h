/* Machine fingerprint (`benchcore sysinfo` and the "host" object of results).
   Called from the main thread only. */
#ifndef BC_SYSINFO_H
#define BC_SYSINFO_H
#include <jansson.h>
#include <stdint.h>

/* New JSON object with the fingerprint described in docs/results.md ("host").
   io_path: a path whose file system, mount options and I/O scheduler to
   describe, or NULL. Caller owns the reference. Never fails (fields it cannot
   read are left out). */
json_t *bc_sysinfo_host(const char *io_path);

/* Mean current frequency of the online CPUs in MHz, 0 when unknown. Cheap
   enough to call once per report interval. */
double bc_sysinfo_cpu_mhz(void);
/* Cache size of level (1..4, 0 = last level) in bytes, 0 when unknown;
   *found_level and *source (static string) as in the host API's cache_size. */
uint64_t bc_sysinfo_cache(unsigned level, unsigned *found_level, const char **source);

/* `benchcore sysinfo [--json]`: returns the exit code. */
int bc_cmd_sysinfo(int argc, char **argv);
#endif
