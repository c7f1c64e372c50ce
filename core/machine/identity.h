/* Who ran a result: a run id and a host identity (docs/results.md "run_id",
 * "host_id"). A fleet merges many hosts' files: cloned VMs share a machine-id
 * until someone regenerates it, and often a host name; both together tell
 * them apart. Any thread may call these. */
#ifndef BC_IDENTITY_H
#define BC_IDENTITY_H
#include <stddef.h>

#define BC_ID_HEX	33	/* 128 bits as 32 lower-case hex digits and a NUL */

/* A new random run id (getrandom; the clock and pid if that fails). */
void bc_run_id_new(char out[BC_ID_HEX]);
/* SHA-256 of "benchcore host id", /etc/machine-id and the host name, first
   128 bits in hex: the machine-id itself is not written (machine-id(5) asks
   for it to be hashed with an application key before it leaves the host). */
void bc_host_id(char out[BC_ID_HEX]);
#endif
