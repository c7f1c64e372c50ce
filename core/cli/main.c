/* benchcore: the command line's entry. Each subcommand lives in its own
 * file with its flag table (flags.h): run_cli.c (-c, run), help_cli.c (list,
 * help), check_cli.c (check-module), clean_cli.c, serve_cli.c, compare_cli.c,
 * report_cli.c, sysinfo_cli.c, history_cli.c. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "serve_cli.h"
#include "sysinfo.h"
#include "benchcore/module.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		bc_usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	bc_store_init();	/* db:REF wherever a results file is read */
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return bc_usage(stdout), 0;
	if (!strcmp(cmd, "--version")) {
		printf("benchcore %s (module ABI %d.%d)\n", BC_VERSION, BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return bc_cmd_run(argc - 2, argv + 2);
	if (!strcmp(cmd, "list"))
		return bc_cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "help"))
		return bc_cmd_help(argc - 1, argv + 1);
	if (!strcmp(cmd, "sysinfo"))
		return bc_cmd_sysinfo(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return bc_cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "serve"))
		return bc_cmd_serve(argc - 1, argv + 1);
	if (!strcmp(cmd, "clean"))
		return bc_cmd_clean(argc - 1, argv + 1);
	if (!strcmp(cmd, "check-module"))
		return bc_cmd_check_module(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return bc_cmd_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "db"))
		return bc_cmd_db(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return bc_cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "restore"))
		return bc_cmd_restore(argc - 1, argv + 1);
	if (!strcmp(cmd, "history"))
		return bc_cmd_history(argc - 1, argv + 1);
	if (cmd[0] == '-')
		return bc_cmd_suite(argc - 1, argv + 1);
	return bc_usage_error("unknown command \"%s\"", cmd);
}
