/* compare --index unixbench RUN.json ...: UnixBench's System Benchmarks
 * Index from benchcore's results.
 *
 * The reference set is UnixBench 5.1.3's own (pgms/index.base: the scores of
 * "George", a SPARCstation 20-61; shell1's was extrapolated by UnixBench's
 * authors to match): each test's index is result / baseline x 10, and the
 * score is the geometric mean of the indexes, separately for one copy
 * (threads = 1) and for N copies (the largest thread count of the file,
 * UnixBench's -c N, whose result is the sum of the copies). A test is the
 * case of its module and options (cpu test=dhrystone, sys test=file_copy
 * buffer_size=1K max_blocks=2000, ...) and its metric in UnixBench's unit.
 * A test missing from a file is named, and the score is over the tests
 * present. Each result is the mean over the case's repeats, with its spread
 * (the 95% interval's half width in percent). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "unixbench.h"
#include "util.h"
#include "stats.h"

typedef struct ub_test {
	const char *title;		/* as UnixBench prints it */
	double baseline;
	const char *unit;		/* UnixBench's */
	const char *module, *metric;
	const char *params;		/* "key=value ..." the case must have */
} ub_test;

static const ub_test ub_tests[] = {
	{ "Dhrystone 2 using register variables", 116700, "lps", "cpu", "loops_per_sec", "test=dhrystone" },
	{ "Double-Precision Whetstone", 55.0, "MWIPS", "cpu", "mwips", "test=whetstone" },
	{ "Execl Throughput", 43.0, "lps", "sys", "loops_per_sec", "test=execl" },
	{ "File Copy 1024 bufsize 2000 maxblocks", 3960, "KBps", "sys", "kib_per_sec",
	  "test=file_copy buffer_size=1024 max_blocks=2000" },
	{ "File Copy 256 bufsize 500 maxblocks", 1655, "KBps", "sys", "kib_per_sec",
	  "test=file_copy buffer_size=256 max_blocks=500" },
	{ "File Copy 4096 bufsize 8000 maxblocks", 5800, "KBps", "sys", "kib_per_sec",
	  "test=file_copy buffer_size=4096 max_blocks=8000" },
	{ "Pipe Throughput", 12440, "lps", "sys", "loops_per_sec", "test=pipe" },
	{ "Pipe-based Context Switching", 4000, "lps", "sys", "loops_per_sec", "test=context_switch" },
	{ "Process Creation", 126, "lps", "sys", "loops_per_sec", "test=spawn" },
	{ "Shell Scripts (1 concurrent)", 42.4, "lpm", "sys", "loops_per_min", "test=shell concurrency=1" },
	{ "Shell Scripts (8 concurrent)", 6.0, "lpm", "sys", "loops_per_min", "test=shell concurrency=8" },
	{ "System Call Overhead", 15000, "lps", "sys", "loops_per_sec", "test=syscall" },
};
#define UB_N	(sizeof(ub_tests) / sizeof(ub_tests[0]))

/* Does g's params hold every key=value of want? Values compare as text:
   strings bare, numbers as JSON writes them. */
static int params_have(const bc_rgroup *g, const char *want)
{
	json_error_t je;
	json_t *p = json_loads(g->params_key, 0, &je);
	char *w = bc_xstrdup(want), *save = NULL;
	int ok = json_is_object(p);
	for (char *kv = strtok_r(w, " ", &save); ok && kv; kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');
		*eq = '\0';
		json_t *v = json_object_get(p, kv);
		char num[32];
		const char *text = json_is_string(v) ? json_string_value(v) : NULL;
		if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
			text = num;
		}
		ok = text && !strcmp(text, eq + 1);
	}
	free(w);
	json_decref(p);
	return ok;
}

/* The metric of test t in r at threads th (or the largest count, th = 0). */
static const bc_rmetric *ub_find(const bc_results *r, const ub_test *t, long th, long *threads)
{
	const bc_rmetric *best = NULL;
	for (size_t i = 0; i < r->ngroups; i++) {
		const bc_rgroup *g = &r->groups[i];
		const bc_rmetric *m;
		if (strcmp(g->module, t->module) || !params_have(g, t->params) ||
		    !(m = bc_group_metric(g, t->metric)) || !m->n || (th && g->threads != th))
			continue;
		if (!best || g->threads > *threads) {
			best = m;
			*threads = g->threads;
		}
	}
	return best;
}

/* The file's N for "N copies": the largest thread count of any test. */
static long ub_copies(const bc_results *r)
{
	long most = 0, th;
	for (size_t i = 0; i < UB_N; i++)
		if (ub_find(r, &ub_tests[i], 0, &th) && th > most)
			most = th;
	return most;
}

/* One table (one file, one copy count): the score, or 0 when no test. */
static double ub_table(FILE *f, const bc_results *r, long copies, int *missing)
{
	double logsum = 0;
	int k = 0;
	fprintf(f, "\n%s (%s), %ld cop%s:\n%-44s %12s %16s %9s\n", r->label, r->path, copies,
		copies == 1 ? "y" : "ies", "System Benchmarks Index Values", "BASELINE", "RESULT", "INDEX");
	*missing = 0;
	for (size_t i = 0; i < UB_N; i++) {
		const ub_test *t = &ub_tests[i];
		long th;
		const bc_rmetric *m = ub_find(r, t, copies, &th);
		if (!m) {
			(*missing)++;
			continue;
		}
		bc_summary s;
		bc_stats_summary(m->values, m->n, &s);
		double idx = s.mean / t->baseline * 10.0;
		char res[48], spread[32] = "";
		snprintf(res, sizeof(res), "%.1f %s", s.mean, t->unit);
		if (s.n > 1 && s.mean > 0)
			snprintf(spread, sizeof(spread), " +-%.1f%%", 100.0 * (s.ci95_high - s.mean) / s.mean);
		fprintf(f, "%-44s %12.1f %16s %9.1f%s\n", t->title, t->baseline, res, idx, spread);
		if (idx > 0) {
			logsum += log(idx);
			k++;
		}
	}
	double score = k ? exp(logsum / k) : 0;
	fprintf(f, "%-44s %12s %16s %9s\n%-44s %39.1f\n", "", "", "", "========",
		"System Benchmarks Index Score", score);
	if (*missing) {
		fprintf(f, "not in the results (the score is over the %d test%s present):", k, k == 1 ? "" : "s");
		for (size_t i = 0; i < UB_N; i++) {
			long th;
			if (!ub_find(r, &ub_tests[i], copies, &th))
				fprintf(f, "\n  %s (%s %s)", ub_tests[i].title, ub_tests[i].module, ub_tests[i].params);
		}
		fputc('\n', f);
	}
	return score;
}

int bc_unixbench_index(FILE *f, const bc_results *res, int n)
{
	int any = 0;
	fprintf(f, "UnixBench's System Benchmarks Index: each result / UnixBench 5.1.3's baseline (\"George\", "
		"a SPARCstation 20-61) x 10; the score is their geometric mean; +-: the 95%% interval over the "
		"repeats\n");
	for (int i = 0; i < n; i++) {
		long most = ub_copies(&res[i]);
		int missing;
		if (!most) {
			fprintf(f, "\n%s (%s): none of UnixBench's index tests (examples/unixbench.conf runs them)\n",
				res[i].label, res[i].path);
			continue;
		}
		any = 1;
		double one = ub_table(f, &res[i], 1, &missing);
		if (most > 1)
			ub_table(f, &res[i], most, &missing);
		(void)one;
	}
	return any ? 0 : 2;
}
