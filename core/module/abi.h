/* What this host knows of the module ABI beyond its own minor: reading the
   options table of an older minor (no offset, a smaller bench_option_v1) or
   a newer one (a larger one), and refusing a module of a newer minor that
   uses what this host does not know, naming it (PostgreSQL's magic block
   names what differs). Main thread only. */
#ifndef BC_ABI_H
#define BC_ABI_H
#include <stddef.h>
#include "benchcore/module.h"
#include "util.h"

/* Most bytes of a typed options struct (opts_size) the host allocates. */
#define BC_OPTS_SIZE_MAX	(1u << 20)
/* Entries before a table counts as unterminated. */
#define BC_ABI_TABLE_CAP	4096

/* Probe child, on the module's own descriptor d (struct_size bytes): a
   newer minor's descriptor that sets anything past the last field this host
   knows is refused, naming the byte and both minors. */
int bc_abi_check_newer(const char *path, const bench_module_v1 *d, bc_err *e);
/* Probe child: d's options[] copied into this host's layout, stepping by the
   module's option_size (1.0-1.2 modules: the 1.2 size). malloc'd,
   terminated by name == NULL; *out NULL when d has no options. A newer
   minor's option that sets bytes this host does not know is refused. */
int bc_abi_host_options(const char *path, const bench_module_v1 *d, bench_option_v1 **out, bc_err *e);
/* Parent: every option's flags are ones this host knows, and with opts_size
   set every offset fits, aligned and without overlap. */
int bc_abi_check_options(const char *path, const bench_module_v1 *d, bc_err *e);
/* Bytes and alignment of the C member that holds an option of type t in a
   typed options struct (module.h's BENCH_OPT_AT); 0 for a bad type. */
size_t bc_opt_member_size(bench_opt_type t);
#endif
