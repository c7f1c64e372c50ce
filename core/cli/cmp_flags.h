/* The verdict flags of `benchcore compare` and `benchcore report` (cmp_flags.c):
   command-line text turned into the bc_cmp_opts that judge/compare.h
   decides with. Main thread only. */
#ifndef BC_CMP_FLAGS_H
#define BC_CMP_FLAGS_H
#include <stddef.h>
#include "compare.h"
#include "flags.h"

/* The verdict options of compare and report: rows of their flag tables
   (flags.h), parsed by one function so the two commands accept and refuse
   exactly the same values. Put BC_CMP_FLAGS in the command's table and hand
   every code in BC_OPT_THRESHOLD .. BC_OPT_DB to bc_cmp_option(). */
enum { BC_OPT_THRESHOLD = 0x1000, BC_OPT_THRESHOLD_FOR, BC_OPT_ALPHA, BC_OPT_TEST, BC_OPT_ADJUST,
       BC_OPT_MATCH_IGNORE, BC_OPT_LEVEL, BC_OPT_BUSY, BC_OPT_DB, BC_OPT_SPLIT };
#define BC_CMP_FLAGS \
	{ "threshold", 0, "PCT", BC_OPT_THRESHOLD, "practical threshold of throughput metrics in percent " \
	  "(default 2; \"2%\" accepted; 0 to 1000)" }, \
	{ "threshold-for", 0, "NAME=PCT", BC_OPT_THRESHOLD_FOR, "threshold of one metric (read.p99_ms=15) or " \
	  "of a kind (throughput, latency, tail, fairness); repeatable; beats the module's own declaration " \
	  "and the defaults" }, \
	{ "alpha", 0, "A", BC_OPT_ALPHA, "significance level of the adjusted p (default 0.05)" }, \
	{ "level", 0, "PCT", BC_OPT_LEVEL, "confidence of the interval of B/A that decides win, loss " \
	  "and tie (default 80: a tie is then +-threshold with 90% confidence on each side; 50 to 99.9)" }, \
	{ "test", 0, "welch|mwu", BC_OPT_TEST, "Welch's t test (default; on the logs of the values when all " \
	  "are positive) or two-sided Mann-Whitney U (exact distribution without ties and up to 60 values, " \
	  "else normal approximation with tie and continuity correction)" }, \
	{ "adjust", 0, "bh|holm|none", BC_OPT_ADJUST, "multiple-comparison adjustment over all rows of one " \
	  "comparison, headline and secondary weighted as above: Benjamini-Hochberg (default, false " \
	  "discovery rate), Holm (family-wise error rate: no false verdict at all with probability " \
	  "1 - alpha; fewer real ones found) or none" }, \
	{ "match-ignore", 0, "OPTION", BC_OPT_MATCH_IGNORE, "leave this module option (or machine setting, " \
	  "machine.fs: two files run under different settings) out when matching " \
	  "cases across files (repeatable, or a,b); options that say where a workload ran (server, path, " \
	  "socket, secrets...) are left out already when that leaves one case to match" }, \
	{ "busy-threshold", 0, "PCT", BC_OPT_BUSY, "interference weighed: steal and other processes " \
	  "on a case's CPUs, in percent of their time, below which it is not counted (default 5, or the " \
	  "files' busy_threshold setting when both record the same; 0 to 100)" }, \
	{ "split", 0, "KEY", BC_OPT_SPLIT, "one results file that swept a machine setting " \
	  "(machine.KEY, docs/machine.md) or a module's option (its name) read as one system per value, " \
	  "the first configured value the baseline: compare --split machine.turbo run.json, " \
	  "--split server_bin (the views and report too)" }, \
	{ "db", 0, "DB", BC_OPT_DB, "the results archive db:RUN_ID, db:LABEL, db:latest and " \
	  "db:latest@HOST are read from (default $BENCHCORE_DB, else the default archive; docs/archive.md)" }
/* 0 when applied; -1 with a message "--flag ARG: wants ..." in e. */
int bc_cmp_option(bc_cmp_opts *o, int code, const char *arg, bc_err *e);
/* --split KEY given: files (one) replaced by one reference per value of
   the setting, *n updated (the new list is malloc'd; the old is freed).
   0, or -1 after printing why (cmd names the command). */
int bc_cmp_split_files(const char *cmd, char ***files, int *n);
/* 1 when --split was given (one file becomes several). */
int bc_cmp_split_pending(void);

#endif
