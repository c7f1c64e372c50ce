/* `benchcore report`: its flag table, help text, the -o checks and exit
   codes. The page itself is pages/report.c's (bc_report_write), written
   out by bc_report_output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cmp_flags.h"
#include "report.h"
#include "loader.h"
#include "refset.h"
#include "util.h"

#define MAX_FILES	16

static const char report_help[] =
"usage: benchcore report [OPTIONS] A.json [B.json ...] -o report.html\n"
"\n"
"Writes one self-contained HTML page (inline CSS and SVG, no scripts, fonts\n"
"or network access) with:\n"
"  - the verdict table of every file against the first, as benchcore compare\n"
"    decides it (the options below are compare's), and compare --summary-table;\n"
"  - per module and params, matched across files as compare matches cases\n"
"    (placement, --match-ignore: io on tmpfs and on disk is one set of charts):\n"
"    the mean CPU clock of each file's cases (the one measured during them,\n"
"    cpu_freq; else the kernel's claim, marked so), the\n"
"    primary metric against threads (one line per file, 95% confidence bars),\n"
"    the fairness stddev against threads, latency percentiles per op class at\n"
"    the largest thread count all files ran, and the scaling efficiency\n"
"    against the smallest thread count;\n"
"  - the studies' views: compare --table (with the module facts that differ\n"
"    between the files, such as the OpenSSL version), compare --per-ghz with\n"
"    its proportional verdict (when the files' measured clocks differ), the\n"
"    index of every file against the first, a bar\n"
"    chart across a module's cases when every file ran it at one thread count,\n"
"    the headline against a module's one swept numeric option, and against the\n"
"    clock measured in each file;\n"
"  - the machine fingerprints side by side, differing fields highlighted.\n"
"Systems are named by each file's label (else host name, else file name).\n"
"\n"
"The verdict options are compare's (see its --help for how verdicts are\n"
"decided).\n"
"\n"
"Options:\n";

enum { F_OUTPUT = 1, F_TITLE, F_INDEX, F_HELP, F_METRIC, F_BY, F_SUMMARY_ROWS };
static const bc_flag report_flags[] = {
	{ "output", 'o', "FILE", F_OUTPUT, "where to write the page (required; - for stdout); written to a "
	  "temporary file and renamed into place" },
	{ "title", 0, "TEXT", F_TITLE, "page title (default \"benchcore report\")" },
	{ "index", 0, "SET", F_INDEX, "also the index against a reference set a module ships, as compare "
	  "--index SET prints it (the sys module's unixbench: UnixBench's table and score per file, each "
	  "file's score against the first's with its interval and verdict), after the verdicts" },
	{ "metric", 0, "NAME[,NAME]", F_METRIC, "the studies' views (compare --table, --per-ghz, the bars "
	  "across cases and the charts against the clock) show this metric instead of each case's headline "
	  "(redis p50_ms, io mib_per_sec), as compare --metric; a chart per metric, each on its own axis; "
	  "a name no case of the files has is refused with the names they have" },
	{ "by", 0, "MODULE.OPTION", F_BY, "the studies' views name each case by this option's value, in the "
	  "order first met, as compare --by (--by redis.tests)" },
	{ "summary-rows", 0, "ITEM[,ITEM]", F_SUMMARY_ROWS, "the rows of the summary per module, as compare "
	  "--summary-rows (default: the config's summary_rows, else every item)" },
	BC_CMP_FLAGS,
	{ "help", 'h', NULL, F_HELP, "this text" },
	{ NULL }
};

static const char report_help_tail[] =
"\n"
"Exit status: 0 when the page was written, 2 on a usage error, an unreadable\n"
"or invalid results file, or a write error.\n";

typedef struct report_args {
	bc_cmp_opts o;
	const char *out, *title, *index;
	int help;
	bc_tab_opts view;
} report_args;

static int on_report_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	report_args *a = arg;
	switch (f->code) {
	case F_OUTPUT: a->out = val; return 0;
	case F_TITLE: a->title = val; return 0;
	case F_INDEX: a->index = val; return 0;
	case F_HELP: a->help = 1; return 0;
	case F_METRIC: a->view.metric = val; return 0;
	case F_SUMMARY_ROWS: a->view.summary_rows = val; return 0;
	case F_BY:
		if (!strchr(val, '.')) {
			bc_err_set(e, "--by %s: wants MODULE.OPTION, e.g. redis.tests", val);
			return -1;
		}
		a->view.by = val;
		return 0;
	}
	return bc_cmp_option(&a->o, f->code, val, e);
}

int bc_cmd_report(int argc, char **argv)
{
	report_args a = { .o = BC_CMP_OPTS_DEFAULT, .title = "benchcore report" };
	bc_results res[MAX_FILES];
	char **files;
	int n, rc;

	if (bc_flags_parse("report", report_flags, 0, argc - 1, argv + 1, on_report_flag, &a, &files))
		return 2;
	if (a.help) {
		fputs(report_help, stdout);
		bc_flags_help(stdout, report_flags, 0);
		fputs(report_help_tail, stdout);
		free(files);
		return 0;
	}
	n = (int)bc_strv_len(files);
	if (bc_cmp_split_files("report", &files, &n)) {
		free(files);
		return 2;
	}
	if (!a.out || n < 1 || n > MAX_FILES) {
		fprintf(stderr, "benchcore report: %s\nTry 'benchcore report --help'.\n",
			!a.out ? "missing -o FILE" : "wants 1 to 16 result files");
		free(files);
		return 2;
	}
	bc_err why;
	char **inputs = bc_store_inputs(files, NULL, 0);	/* a db: reference reads the archive */
	int bad = bc_output_ok(a.out, inputs, &why);
	bc_strv_free(inputs);
	if (bad) {
		fprintf(stderr, "benchcore report: -o %s\n", why.msg);
		free(files);
		return 2;
	}
	rc = bc_load_all("report", files, n, res);
	free(files);
	if (rc < 0)
		return 2;
	if (bc_tab_check("report", &a.view, res, n)) {	/* --metric, --by: refused before a page is begun */
		for (int i = 0; i < n; i++)
			bc_results_free(&res[i]);
		return 2;
	}
	char **dirs = a.index ? bc_module_search_path(NULL) : NULL;
	bc_refset_ask ask = { a.index, dirs };
	rc = bc_report_output(a.out, res, n, &a.o, a.title, a.index ? &ask : NULL, &a.view);
	bc_strv_free(dirs);
	if (rc == -1)
		fprintf(stderr, "benchcore report: %s: cannot write: %m\n", a.out);
	for (int i = 0; i < n; i++)
		bc_results_free(&res[i]);
	return rc < 0 ? 2 : 0;
}
