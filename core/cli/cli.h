/* The command line's subcommands (one file each kind): main.c dispatches. */
#ifndef BC_CLI_H
#define BC_CLI_H
#include <stdio.h>
#include "util.h"

/* benchcore -c FILE ... and benchcore run MODULE ... (run_cli.c) */
int bc_cmd_suite(int argc, char **argv);
int bc_cmd_run(int argc, char **argv);
/* list and help (help_cli.c) */
int bc_cmd_list(int argc, char **argv);
int bc_cmd_help(int argc, char **argv);
/* benchcore sysinfo [--json] (sysinfo_cli.c) */
int bc_cmd_sysinfo(int argc, char **argv);
/* benchcore clean: dead runs' directories (clean_cli.c) */
int bc_cmd_clean(int argc, char **argv);
/* benchcore restore: a dead run's machine settings (restore_cli.c) */
int bc_cmd_restore(int argc, char **argv);
/* benchcore check-module FILE.so: a module author's check (check_cli.c) */
int bc_cmd_check_module(int argc, char **argv);
/* benchcore compare (compare_cli.c) and report (report_cli.c) */
int bc_cmd_compare(int argc, char **argv);
int bc_cmd_report(int argc, char **argv);
/* benchcore history --module M ...: series and change points (history_cli.c) */
int bc_cmd_history(int argc, char **argv);
/* benchcore merge A.json B.json -o C.json: one system's parts (merge_cli.c) */
int bc_cmd_merge(int argc, char **argv);
/* benchcore db add|list|export: the results archive (db_cli.c) */
int bc_cmd_db(int argc, char **argv);
/* The archive on the command line (store_cli.c): db: references for every
   reader of results files (bc_store_init, once at start), compare's and
   report's --db, a run's store at its end. */
struct bc_archive;
void bc_store_init(void);
void bc_store_set_db(const char *db);
/* What an output must not replace: files, and when always is set or one
   of them is a db: reference, the files of the archive read (db, else
   --db, $BENCHCORE_DB or the default). NULL-terminated, malloc'd
   (bc_strv_free): bc_output_ok's inputs. */
char **bc_store_inputs(char *const *files, const char *db, int always);
/* Before the run: the archive opens for writing (flag: --store's value,
   "" without one; setting: the store setting), and out is a results file.
   0, or 2 after printing why. */
int bc_store_check(const char *flag, const char *setting, const char *out);
/* After it: adds the results file json to the archive; the run's exit
   code, or 3 when it was not stored (130 stays). */
int bc_store_run(const char *flag, const char *setting, const char *json, int rc);
/* Adds one results file to an open archive (bc_archive_add's what). */
int bc_store_add_file(struct bc_archive *a, const char *path, int *what, char id[64], bc_err *e);
/* benchcore --help (run_cli.c: it lists the run flags) */
void bc_usage(FILE *f);
struct bc_module;
/* A module with needs(): what it declares at its defaults, one thread (run
   in a child, as the plan does), as "<indent>needs() at its defaults: ...";
   nothing for a module without needs(). list, help and check-module. */
void bc_print_needs(FILE *f, const struct bc_module *m, const char *indent);
/* check-module --expect: every invariant of the file expect (PATH OP VALUE
   lines, cli/expect.c) in every case of the results file: the number that
   failed (said on stdout), or -1 for an unreadable or malformed file. */
int bc_expect_check(const char *expect, const char *results);
int bc_usage_error(const char *fmt, const char *a);
#endif
