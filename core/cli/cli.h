/* The command line's subcommands (one file each kind): main.c dispatches. */
#ifndef BC_CLI_H
#define BC_CLI_H
#include <stdio.h>

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
/* benchcore check-module FILE.so: a module author's check (check_cli.c) */
int bc_cmd_check_module(int argc, char **argv);
/* benchcore compare (compare_cli.c) and report (report_cli.c) */
int bc_cmd_compare(int argc, char **argv);
int bc_cmd_report(int argc, char **argv);
/* benchcore history --module M ...: series and change points (history_cli.c) */
int bc_cmd_history(int argc, char **argv);
/* benchcore merge A.json B.json -o C.json: one system's parts (merge_cli.c) */
int bc_cmd_merge(int argc, char **argv);
/* benchcore --help (run_cli.c: it lists the run flags) */
void bc_usage(FILE *f);
int bc_usage_error(const char *fmt, const char *a);
#endif
