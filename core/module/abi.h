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

/* The one description of bench_module_v1's scalar fields and callbacks that
   the probe sends (probe.c describes and parses by these tables) and the
   case process copies (bc_module_open): a new field of module.h is one row
   here. X(kind, member, what): kind U32, INT, SIZE, U64 (an integer of that
   C type) or STR (a string; what names it in a "not valid UTF-8" error).
   The JSON key is the member's name. The tables' entries follow. */
#define BC_ABI_SCALARS(X) \
	X(U32, magic, "magic") \
	X(U32, abi_major, "abi_major") \
	X(U32, abi_minor, "abi_minor") \
	X(U32, struct_size, "struct_size") \
	X(STR, name, "the name") \
	X(STR, version, "the version") \
	X(STR, summary, "the summary") \
	X(STR, headline_metric, "headline_metric") \
	X(INT, serve_port, "serve_port") \
	X(SIZE, opts_size, "opts_size") \
	X(U32, host_minor, "host_minor")
/* bench_requirements_v1, sent as the object "requires". */
#define BC_ABI_REQUIRES(X) \
	X(U64, min_memory, "min_memory") \
	X(U64, min_disk, "min_disk") \
	X(STR, disk_path_option, "disk_path_option") \
	X(U32, min_cpus, "min_cpus") \
	X(U32, heavy, "heavy") \
	X(STR, service, "the service")
/* The entries of the descriptor's tables, by the same kinds (and TYPE: a
   bench_opt_type, NUM: a double, null when not finite, BOOL: an int sent as
   true/false). An option's choices, a string vector, have their own code. */
#define BC_ABI_OPTION(X) \
	X(STR, name, "an option name") \
	X(TYPE, type, "an option's type") \
	X(STR, def, "an option default") \
	X(STR, help, "an option's help") \
	X(NUM, min, "an option's min") \
	X(NUM, max, "an option's max") \
	X(U32, flags, "an option's flags") \
	X(SIZE, offset, "an option's offset")
#define BC_ABI_METRIC(X) \
	X(STR, name, "a metric name") \
	X(STR, unit, "a metric unit") \
	X(BOOL, higher_is_better, "higher_is_better")
#define BC_ABI_THRESHOLD(X) \
	X(STR, metric, "a threshold") \
	X(NUM, pct, "a threshold's pct")
/* Callbacks: X(member, stub), the stub (probe.c) standing in for it in a
   described module until bc_module_open() puts the real one there. */
#define BC_ABI_CALLBACKS(X) \
	X(init, stub_init) \
	X(prepare, stub_state) \
	X(thread_init, stub_thread_init) \
	X(event, stub_event) \
	X(thread_run, stub_state) \
	X(thread_done, stub_void) \
	X(finish, stub_state) \
	X(cleanup, stub_void) \
	X(destroy, stub_void) \
	X(serve, stub_serve) \
	X(needs, stub_needs)

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
