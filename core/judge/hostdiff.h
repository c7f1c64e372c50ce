/* What differs between two machines (judge/hostdiff.c): the facts of a
   results file (its host object and what its modules recorded), their
   differences, and which of them most likely explains a verdict. Every
   returned json_t is new (the caller's). Main thread only. */
#ifndef BC_HOSTDIFF_H
#define BC_HOSTDIFF_H
#include <stdio.h>
#include <jansson.h>
#include "results.h"

/* Differences between two host objects, flattened to dotted names
   ("libraries.jansson"), leaving out the host name and time-varying fields
   (current MHz, warnings). New array [{field, a, b}], values as text. */
json_t *bc_host_diff(json_t *ha, json_t *hb);
/* The host object flattened to dotted names, values as text (new object). */
json_t *bc_host_flatten(json_t *host);
/* What a results file says about its machine: the host object flattened,
   plus the modules' facts ("MODULE.KEY" from cases' info; first case
   that recorded each). New object. compare's differences and report's
   machine table both read this. */
json_t *bc_facts(const bc_results *r);
/* The differences of a's and b's facts (bc_facts, leaving out a module
   fact that is a figure of a run rather than of the machine): host fields
   first, then the modules'. New array [{field, a, b, kind}], kind "host"
   or "module". compare.c's host_diff. */
json_t *bc_facts_diff(const bc_results *a, const bc_results *b);
/* The facts that differ between two runs, from their parts: host objects,
   module info and info_varies (NULL: none known; a fractional number is
   still taken for a per-run figure). New array [{field, a, b, kind}] as
   bc_cmp's host_diff (compare's own comes from here); history names the
   facts that changed at a change point with it. */
json_t *bc_facts_diff_parts(json_t *host_a, json_t *info_a, json_t *varies_a,
			    json_t *host_b, json_t *info_b, json_t *varies_b);
/* What a differing fact is, as compare's explanation names it ("kernel",
   "mitigations", "microcode", "clock", "CPU", ...; the order of *rank is
   most fundamental first), or NULL. */
const char *bc_fact_cause(const char *field, size_t *rank);
/* 1 when the clock the two hosts measured (cpu_mhz.measured) differs by
   more than 3% and beyond the spread each run saw (measured_min .. max do
   not overlap); *ma and *mb get the two figures (0: unknown). */
int bc_clock_moved(json_t *host_a, json_t *host_b, double *ma, double *mb);
/* 1 for host fields left out of the difference warnings. */
int bc_host_field_ignored(const char *field);
/* One line, when anything: the one or two differing facts of the two
   machines that most likely explain a difference (CPU, usable CPUs, the
   measured clock, kernel, mitigations, microcode, file system, ...);
   diff is bc_facts_diff()'s, host_a and host_b the two host objects;
   first_cause (or NULL), what the cases themselves measured, goes first
   (interference on one side's CPUs: bc_cmp_interference_cause) and does
   not count against the two. */
void bc_facts_explain(FILE *f, json_t *diff, json_t *host_a, json_t *host_b, const char *first_cause);
#endif
