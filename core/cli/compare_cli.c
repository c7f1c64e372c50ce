/* `benchcore compare`: its flag table, help text, argument checks and exit
   codes. What it prints is views/compare_print.c's, the tables views
   tables.c's; the verdict flags it shares with report are cmp_flags.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cmp_flags.h"
#include "compare_print.h"
#include "gate.h"
#include "grid.h"
#include "tables.h"
#include "loader.h"
#include "refset.h"
#include "util.h"

#define MAX_FILES	16

static const char compare_help[] =
"usage: benchcore compare [OPTIONS] A.json B.json [C.json ...]\n"
"       benchcore compare [OPTIONS] --scaling A.json [B.json ...]\n"
"       benchcore compare [OPTIONS] A.json          (one file: the scaling view)\n"
"\n"
"Compares result files case by case. A is the baseline; every other file is\n"
"compared with A. Cases match when module, params and threads are equal; the\n"
"repeats (ok cases) of each side are the two samples. Compared per case:\n"
"every metric in cases[].metrics (its higher_is_better as declared),\n"
"fairness_events_stddev (fairness.events_stddev, lower is better),\n"
"interval_cv (stability.interval_cv, lower is better) and OP.p50_ms, OP.p99_ms\n"
"(ops.OP.latency_ns, lower is better).\n"
"\n"
"Verdict for B against A, per case and metric, from the confidence interval\n"
"of the ratio B/A (--level, default 80%): Welch-type, on the logs of the\n"
"values when all are positive (else the difference of the means as a\n"
"fraction of A's mean), with Satterthwaite's degrees of freedom. Each metric\n"
"has a practical threshold T, by kind: throughput 2% (--threshold), latency\n"
"(mean, p50) 5%, tail (p90 and above) 15%, fairness and stability 50%; a\n"
"module may declare its own per metric, --threshold-for beats both.\n"
"  win / loss    the difference is significant after the false-discovery\n"
"                adjustment AND its interval lies wholly beyond T on one\n"
"                side: in B's favour / against it. Every test of the\n"
"                comparison (all cases x metrics of B against A) is one\n"
"                family, adjusted with weighted Benjamini-Hochberg so that at\n"
"                most alpha of the wins and losses are expected to be false\n"
"                (48 tests at alpha 0.05 would otherwise give 2-3 by chance\n"
"                alone); headline metrics get half of the budget\n"
"  tie           equivalent: the interval lies wholly inside +-T (two one-\n"
"                sided tests, each at (1 - level) / 2: at 80%, B is within T\n"
"                of A with 90% confidence on either side), with >= 3 repeats\n"
"                on each side. A tie says \"the same\", never \"could not\n"
"                tell\": a +127% difference at 3 noisy repeats is no tie\n"
"  inconclusive  anything else: too few repeats (Welch: 2 on each side;\n"
"                Mann-Whitney U at alpha 0.05: 4), not significant, or an\n"
"                interval that reaches across T; says how many repeats per\n"
"                side would likely resolve it\n"
"  suspect       (shown as \"suspect loss\" or \"suspect win\") it would be a win\n"
"                or loss in the direction interference could cause, and the\n"
"                interference is large enough to explain it. Interference\n"
"                (cpu.interference_pct) is the time steal and other processes\n"
"                took on the CPUs a case could run on (its affinity, cpuset),\n"
"                weighed from --busy-threshold (5%) up; it only slows the\n"
"                side it hit: a loss can come from B's, a win from A's. A\n"
"                share s can slow a case by at most c x s / (1 - s), c its\n"
"                use of the CPU time left to it; when the interval moved by\n"
"                that still clears T, the verdict stands (the interference\n"
"                named beside it). The CPU time of the run's own servers\n"
"                (private servers, processes a module declared) is\n"
"                cpu.server_pct, not \"other\". Also suspect:\n"
"                on one machine (same host name, CPU model and id), a win or\n"
"                loss that per GHz of the measured clock is within T (the\n"
"                clock moved between the runs: a shared host's turbo)\n"
"The summary line of each file counts each module's headline metric (its\n"
"declared headline_metric, e.g. io iops, mem mib_per_sec, redis\n"
"requests_per_sec; the run summary, report and CSV use the same) apart from\n"
"the secondary ones, then lists the largest headline differences with their\n"
"intervals.\n"
"\n"
"Options:\n";

enum { F_JSON = 1, F_CSV, F_SCALING, F_HELP, F_TABLE, F_SUMMARY_TABLE, F_PER_GHZ, F_INDEX, F_BY,
       F_METRIC, F_FORMAT, F_FAIL_ON, F_FAIL_METRIC, F_ALLOW_MISSING, F_JUNIT, F_SUMMARY_ROWS };
static const bc_flag compare_flags[] = {
	BC_CMP_FLAGS,
	{ "table", 0, NULL, F_TABLE, "a table of cases x files: each case's headline (or --metric), "
	  "mean ±95% interval, and every file's verdict against the first (the studies' tables); under a "
	  "module's cases, each module fact its cases recorded (info: rsa's openssl_version) whose value "
	  "differs between the files, a row" },
	{ "by", 0, "MODULE.OPTION", F_BY, "with --table or --per-ghz: one row per value of the option, in "
	  "the order first met (e.g. --by redis.tests: tests x files)" },
	{ "metric", 0, "NAME[,NAME]", F_METRIC, "with --table or --per-ghz: this metric instead of each case's "
	  "headline (e.g. fairness_events_stddev, read.p99_ms); several: --table shows one column group "
	  "each (sign_per_sec,verify_per_sec), --per-ghz a row each; a name no case of the files has is "
	  "refused with the names they have" },
	{ "summary-table", 0, NULL, F_SUMMARY_TABLE, "one row per module's headline, its fairness (stddev of "
	  "events per thread) and the mean latency of the op classes it records; per file: who wins, tie, mixed or "
	  "inconclusive with the verdicts it rests on, then a closing line per file (\"c7 better in 5 of 7, the same in 2\": the first study's closing table)" },
	{ "summary-rows", 0, "ITEM[,ITEM]", F_SUMMARY_ROWS, "with --summary-table: these rows, in this order: "
	  "MODULE (its headline), MODULE.fairness, MODULE.latency or MODULE.METRIC (cpu,cpu.fairness,mem,"
	  "io,io.latency,oltp); default: the first file's summary_rows setting, else every item" },
	{ "per-ghz", 0, NULL, F_PER_GHZ, "throughput per GHz of the clock measured during each case, and "
	  "for each file the ratio of throughputs against the ratio of clocks: proportional (compare's interval "
	  "of each case, per GHz, within +-5% or the metric's threshold), not proportional (beyond it and "
	  "significant), or undecided with the repeats it needs (the frequency study's conclusion)" },
	{ "index", 0, NULL, F_INDEX, "a UnixBench-style index of every file against the first (100): per "
	  "module and overall, the geometric mean of the headline ratios, with a 95% interval and the cases "
	  "it covers; --index SET RUN.json ...: each file against a reference set a module ships "
	  "(SET.refset.json on the module path: the sys module's unixbench is UnixBench's System Benchmarks "
	  "Index, its baseline, one copy and N copies; with two files or more, each one's score against "
	  "the first's: the ratio, its interval and compare's verdict; --json: the same as one document)" },
	{ "format", 0, "text|markdown|csv|json", F_FORMAT, "the form of --table, --summary-table, --per-ghz "
	  "and --index (default text; json: {columns, rows, notes}, every cell as text shows it); without "
	  "them, markdown is the whole comparison as a page for a merge request's comment or "
	  "$GITHUB_STEP_SUMMARY (per file: the headline table, losses first; the secondary rows that are "
	  "not ties; the cases without a partner; the machines' differences; no links)" },
	{ "fail-on", 0, "loss[,suspect][,inconclusive]", F_FAIL_ON, "the CI gate: exit status 4 when a "
	  "headline row of any file against the first has one of these verdicts (suspect: a suspect loss; "
	  "a suspect win never fails), or a file has a case the first has not, failed cases or did not "
	  "finish (unless --allow-missing); the rows that failed are printed last, one line each with the "
	  "ratio, its interval and the threshold (on stderr with --json or --csv)" },
	{ "fail-on-metric", 0, "NAME|all", F_FAIL_METRIC, "with --fail-on: gate this secondary metric too "
	  "(read.p99_ms, fairness_events_stddev...), or every metric; repeatable, or a,b" },
	{ "allow-missing", 0, NULL, F_ALLOW_MISSING, "with --fail-on: cases without a partner in the first "
	  "file, failed cases and unfinished files do not fail the gate" },
	{ "junit", 0, "FILE", F_JUNIT, "also write the comparison as JUnit XML for the CI's test page: a "
	  "testsuite per file against the first, a testcase per case and metric; a loss (and any row "
	  "--fail-on fails) a <failure> with its figures, suspect and inconclusive <skipped> with the "
	  "reason, a tie or win passes; written to a temporary file and renamed into place" },
	{ "json", 0, NULL, F_JSON, "JSON on stdout instead of text (with a table: --format json)" },
	{ "csv", 0, NULL, F_CSV, "CSV on stdout, one line per case and metric (with a table: --format csv)" },
	{ "scaling", 0, NULL, F_SCALING, "for each file: speedup and efficiency of every higher-is-better "
	  "metric against the smallest thread count of each module and params (1 thread when run), "
	  "e.g. \"4 threads: 3.90x = 98% of linear\"" },
	{ "help", 'h', NULL, F_HELP, "this text" },
	{ NULL }
};

static const char compare_help_tail[] =
"\n"
"Warns when the host fingerprints differ in more than one field (host name,\n"
"current MHz, warnings and io.path are ignored) and lists the differences.\n"
"Exit status: 0 when the comparison was made (whatever the verdicts, unless\n"
"--fail-on); 2 on a usage error or an unreadable or invalid results file;\n"
"3 when the --junit file could not be written; 4 when the --fail-on gate\n"
"failed (benchcore's exit statuses together: README \"In CI\").\n";

typedef struct compare_args {
	bc_cmp_opts o;
	int fmt, scaling, help;
	int view;		/* F_TABLE, F_SUMMARY_TABLE, F_PER_GHZ, F_INDEX or 0 */
	int format_given;	/* --format: beats --json and --csv for a table */
	bc_gate_opts gate;	/* --fail-on, --fail-on-metric, --allow-missing */
	const char *junit;	/* --junit FILE */
	bc_tab_opts tab;
} compare_args;

static int on_compare_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	compare_args *a = arg;
	switch (f->code) {
	case F_JSON: a->fmt = BC_FMT_JSON; return 0;
	case F_CSV: a->fmt = BC_FMT_CSV; return 0;
	case F_SCALING: a->scaling = 1; return 0;
	case F_HELP: a->help = 1; return 0;
	case F_TABLE: case F_SUMMARY_TABLE: case F_PER_GHZ: case F_INDEX:
		if (a->view && a->view != f->code) {
			bc_err_set(e, "--%s: give one of --table, --summary-table, --per-ghz and --index", f->lng);
			return -1;
		}
		a->view = f->code;
		return 0;
	case F_BY:
		if (!strchr(val, '.')) {
			bc_err_set(e, "--by %s: wants MODULE.OPTION, e.g. redis.tests", val);
			return -1;
		}
		a->tab.by = val;
		return 0;
	case F_METRIC: a->tab.metric = val; return 0;
	case F_FAIL_ON:
		if (bc_gate_parse(val, &a->gate.fail_on) == 0)
			return 0;
		bc_err_set(e, "--fail-on %s: wants verdicts from loss, suspect and inconclusive, e.g. loss or "
			   "loss,suspect", val);
		return -1;
	case F_FAIL_METRIC:
		if (!strcmp(val, "all")) {
			a->gate.all_metrics = 1;
			return 0;
		}
		if (!*val || strchr(val, ',') == val || a->gate.nmetrics == BC_GATE_MAX_METRICS) {
			bc_err_set(e, "--fail-on-metric %s: wants a metric name (read.p99_ms), a,b or all; at most %d",
				   val, BC_GATE_MAX_METRICS);
			return -1;
		}
		a->gate.metrics[a->gate.nmetrics++] = val;	/* a,b: gate.c reads the list */
		return 0;
	case F_ALLOW_MISSING: a->gate.allow_missing = 1; return 0;
	case F_JUNIT: a->junit = val; return 0;
	case F_SUMMARY_ROWS: a->tab.summary_rows = val; return 0;
	case F_FORMAT:
		a->tab.format = !strcmp(val, "text") ? BC_TAB_TEXT : !strcmp(val, "markdown") ? BC_TAB_MARKDOWN :
				!strcmp(val, "csv") ? BC_TAB_CSV : !strcmp(val, "json") ? BC_TAB_JSON : -1;
		a->format_given = 1;
		if (a->tab.format < 0) {
			bc_err_set(e, "--format %s: wants text, markdown, csv or json", val);
			return -1;
		}
		return 0;
	}
	return bc_cmp_option(&a->o, f->code, val, e);
}

/* --table, --summary-table, --per-ghz, --index (tables.c). */
static int run_view(compare_args *a, bc_results *res, int n)
{
	if (!a->format_given && a->fmt != BC_FMT_TEXT)
		a->tab.format = a->fmt == BC_FMT_JSON ? BC_TAB_JSON : BC_TAB_CSV;
	if (n < 2 && a->view != F_TABLE) {
		fprintf(stderr, "benchcore compare: --%s wants two or more result files (the first is the "
			"baseline)\n", a->view == F_SUMMARY_TABLE ? "summary-table" : a->view == F_PER_GHZ ?
			"per-ghz" : "index");
		return 2;
	}
	switch (a->view) {
	case F_TABLE: return bc_table(stdout, res, n, &a->o, &a->tab);
	case F_SUMMARY_TABLE: return bc_summary_table(stdout, res, n, &a->o, &a->tab);
	case F_PER_GHZ: return bc_per_ghz(stdout, res, n, &a->o, &a->tab);
	default: return bc_index(stdout, res, n, &a->o, &a->tab);
	}
}

int bc_cmd_compare(int argc, char **argv)
{
	compare_args a = { .o = BC_CMP_OPTS_DEFAULT, .fmt = BC_FMT_TEXT };
	bc_results res[MAX_FILES];
	char **files;
	int nfiles, rc = 0;

	if (bc_flags_parse("compare", compare_flags, 0, argc - 1, argv + 1, on_compare_flag, &a, &files))
		return 2;
	if (a.help) {
		fputs(compare_help, stdout);
		bc_flags_help(stdout, compare_flags, 0);
		fputs(compare_help_tail, stdout);
		free(files);
		return 0;
	}
	if (a.tab.metric && a.view != F_TABLE && a.view != F_PER_GHZ) {
		char *m = bc_printable(a.tab.metric);
		fprintf(stderr, "benchcore compare: --metric %s: goes with --table or --per-ghz (the other views "
			"read each case's headline)\nTry 'benchcore compare --help'.\n", m);
		free(m);
		free(files);
		return 2;
	}
	if (a.tab.summary_rows && a.view != F_SUMMARY_TABLE) {
		fprintf(stderr, "benchcore compare: --summary-rows goes with --summary-table\n"
			"Try 'benchcore compare --help'.\n");
		free(files);
		return 2;
	}
	nfiles = (int)bc_strv_len(files);
	if ((a.gate.fail_on || a.junit || a.gate.nmetrics || a.gate.all_metrics || a.gate.allow_missing) &&
	    (a.view || a.scaling || (nfiles == 1 && !bc_cmp_split_pending()))) {
		fprintf(stderr, "benchcore compare: --fail-on, --fail-on-metric, --allow-missing and --junit judge "
			"files against the first: give two or more files, without --scaling, --table, "
			"--summary-table, --per-ghz or --index\nTry 'benchcore compare --help'.\n");
		free(files);
		return 2;
	}
	if ((a.gate.nmetrics || a.gate.all_metrics || a.gate.allow_missing) && !a.gate.fail_on) {
		fprintf(stderr, "benchcore compare: --fail-on-metric and --allow-missing go with --fail-on LIST "
			"(e.g. --fail-on loss)\nTry 'benchcore compare --help'.\n");
		free(files);
		return 2;
	}
	if (bc_cmp_split_files("compare", &files, &nfiles)) {
		free(files);
		return 2;
	}
	if (nfiles < 1 || nfiles > MAX_FILES) {
		fprintf(stderr, "benchcore compare: wants 1 to %d result files (got %d)\n"
			"Try 'benchcore compare --help'.\n", MAX_FILES, nfiles);
		free(files);
		return 2;
	}
	if (a.junit) {
		bc_err e;
		int bad = bc_output_ok(a.junit, files, &e);
		if (bad) {	/* docs/ci.md: 3 the --junit file not written, 2 a usage error */
			char *shown = bc_printable(a.junit);
			fprintf(stderr, "benchcore compare: --junit %s: %s\n", shown, e.msg);
			free(shown);
			free(files);
			return bad == -2 ? 3 : 2;
		}
	}
	/* --index unixbench RUN.json ...: a module's reference set, not a first file */
	int ub = a.view == F_INDEX && nfiles > 1 && bc_refset_named(files[0]);
	if (ub && bc_load_all("compare", files + 1, nfiles - 1, res) < 0) {
		free(files);
		return 2;
	}
	if (ub) {
		char **dirs = bc_module_search_path(NULL);
		rc = bc_refset_index(stdout, files[0], dirs, res, nfiles - 1, &a.o, a.fmt == BC_FMT_JSON);
		bc_strv_free(dirs);
		if (bc_stdout_done("compare"))
			rc = 2;
		for (int i = 0; i < nfiles - 1; i++)
			bc_results_free(&res[i]);
		free(files);
		return rc;
	}
	if (bc_load_all("compare", files, nfiles, res) < 0) {
		free(files);
		return 2;
	}
	if (a.view)
		rc = run_view(&a, res, nfiles);
	else if (a.scaling || nfiles == 1)
		bc_scaling_print(stdout, res, nfiles, a.fmt);
	else if (a.format_given && a.tab.format == BC_TAB_MARKDOWN)
		bc_compare_markdown(stdout, res, nfiles, &a.o, &a.gate);
	else
		bc_compare_print(stdout, res, nfiles, &a.o, a.format_given ? (a.tab.format == BC_TAB_JSON ?
				 BC_FMT_JSON : a.tab.format == BC_TAB_CSV ? BC_FMT_CSV : BC_FMT_TEXT) : a.fmt);
	if (!rc && a.junit && bc_junit_compare("compare", a.junit, res, nfiles, &a.o, &a.gate) < 0)
		rc = 3;
	/* the gate's lines last: on stdout after text or markdown (then as Markdown: a label's HTML
	   and links inert), on stderr after a document */
	int page = a.fmt == BC_FMT_TEXT && a.format_given && a.tab.format == BC_TAB_MARKDOWN;
	a.gate.markdown = page;
	if (!rc && a.gate.fail_on && bc_gate_print(page || (a.fmt == BC_FMT_TEXT && (!a.format_given ||
			a.tab.format == BC_TAB_TEXT)) ? stdout : stderr, res, nfiles, &a.o, &a.gate))
		rc = 4;
	if (bc_stdout_done("compare"))
		rc = 2;
	for (int i = 0; i < nfiles; i++)
		bc_results_free(&res[i]);
	free(files);
	return rc;
}
