/* `benchcore history`: its flag table, help text, where the runs come from
   (the files given, else the results archive: bc_archive_history_points)
   and exit codes. The series, change points and outputs are
   history/history.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "archive.h"
#include "changepoint.h"
#include "cli.h"
#include "flags.h"
#include "history_html.h"
#include "history_print.h"
#include "gate.h"
#include "hgate.h"
#include "mdtext.h"
#include "results.h"
#include "util.h"

static const char history_help[] =
"usage: benchcore history --module M [--metric NAME] [--host H] [--where key=value]...\n"
"                         [--db DB] [--format text|csv|markdown] [--html FILE] [FILE.json ...]\n"
"\n"
"The history of a module's cases: per host, case (module, params, threads)\n"
"and metric, the mean of every run with its 95% interval in time order\n"
"(started_at, then run_id), and the change points: where the level shifted\n"
"by more than the series' own scatter explains. Each split is judged by a\n"
"permutation test (binary segmentation on the shift of the mean, E-Divisive's\n"
"statistic with exponent 2; docs/history.md has the method, its false-alarm\n"
"rate and the smallest step it finds). Each change point is named with the\n"
"facts that changed at it between the runs either side (kernel, microcode,\n"
"mitigations, benchcore or module version, the measured clock, anything in\n"
"the fingerprint or the modules' facts), or \"no fact changed: the software\n"
"or the machine's neighbours\".\n"
"\n"
"The runs come from the results files given, else from the results archive\n"
"(--db, default the archive's own).\n"
"\n"
"Options:\n";

static const char history_help_tail[] =
"\n"
"CSV: one row per run and case: host, module, params, threads, metric, unit,\n"
"run (its place in the series), run_id, started, label, mean, ci_low, ci_high,\n"
"n (repeats), change_point (1 at the first run of a new level), and at a\n"
"change point change, change_low, change_high (fractions), p, changed (the\n"
"facts, \"; \" between them) and changed_at_run.\n"
"Exit status: 0 when the history was printed (with or without change\n"
"points, unless --fail-on-change), 1 when no run matched, 2 on a usage error,\n"
"an unknown metric, an unreadable or invalid results file, an archive that\n"
"cannot be read, or a write error; 3 when the --junit file could not be\n"
"written; 4 when --fail-on-change found a new change for the worse\n"
"(benchcore's exit statuses together: README \"In CI\").\n";

enum { H_MODULE = 1, H_METRIC, H_HOST, H_WHERE, H_DB, H_FORMAT, H_HTML, H_TITLE, H_ALPHA, H_PERMS,
       H_MIN_RUNS, H_HELP, H_FAIL_CHANGE, H_JUNIT };
static const bc_flag history_flags[] = {
	{ "module", 0, "M", H_MODULE, "the module whose cases to follow (required)" },
	{ "metric", 0, "NAME", H_METRIC, "this metric instead of each case's headline (any metric compare "
	  "judges: fairness_events_stddev, read.p99_ms...); an unknown one is an error listing the known" },
	{ "host", 0, "H", H_HOST, "only the runs of this host name" },
	{ "where", 0, "KEY=VALUE", H_WHERE, "only the cases whose param KEY is VALUE (as the results write "
	  "it: block_size=4096); again for more" },
	{ "db", 0, "DB", H_DB, "the results archive to read when no file is given: a file, or "
	  "postgresql://..." },
	{ "format", 0, "text|csv|markdown", H_FORMAT, "the form of what is printed (default text)" },
	{ "html", 0, "FILE", H_HTML, "also write a self-contained HTML page drawing each series with its "
	  "intervals and change points (- for stdout, then nothing else is printed); written to a "
	  "temporary file and renamed into place" },
	{ "title", 0, "TEXT", H_TITLE, "the page's title (default \"benchcore history\")" },
	{ "alpha", 0, "P", H_ALPHA, "a split is a change point when its permutation p <= P (default 0.01: "
	  "about one flat series in 100 gets a false one)" },
	{ "permutations", 0, "N", H_PERMS, "the most permutations per test of a segment of more than 16 runs "
	  "(fewer are counted exactly; it stops once the verdict is sure); default 99999, 99 to 999999" },
	{ "min-runs", 0, "N", H_MIN_RUNS, "runs on either side of a change point, at least (default 3)" },
	{ "fail-on-change", 0, NULL, H_FAIL_CHANGE, "the CI gate: exit status 4 when the newest run of a "
	  "series starts a change point for the worse (a fall of a higher-is-better metric, a rise of a "
	  "lower-is-better one): the series' last change point, found with its newest run and not without "
	  "it, so a level an earlier run's gate reported does not fail every later run; each named last, "
	  "one line with its change, interval and the facts that changed (on stderr with --format csv or "
	  "--html -)" },
	{ "junit", 0, "FILE", H_JUNIT, "also write JUnit XML for the CI's test page: a testsuite per host, "
	  "a testcase per series (case and metric), a <failure> with the figures and the facts where "
	  "--fail-on-change would fail; written to a temporary file and renamed into place" },
	{ "help", 'h', NULL, H_HELP, "this text" },
	{ NULL }
};

#define MAX_WHERE	32

typedef struct history_args {
	bc_history_query q;
	const char *where[MAX_WHERE];
	const char *db, *html, *title, *junit;
	int fmt, help, fail_change;
	bc_cp_opts cp;
} history_args;

static int number_flag(history_args *a, const bc_flag *f, const char *val, bc_err *e)
{
	double d;
	int64_t v;
	if (f->code == H_ALPHA) {
		if (bc_parse_double(val, &d) || !(d > 0 && d < 1)) {
			bc_err_set(e, "--alpha %s: wants a number between 0 and 1 (e.g. 0.01)", val);
			return -1;
		}
		a->cp.alpha = d;
		return 0;
	}
	long lo = f->code == H_PERMS ? 99 : 1, hi = f->code == H_PERMS ? 999999 : 1000;
	if (bc_parse_int64(val, &v) || v < lo || v > hi) {
		bc_err_set(e, "--%s %s: wants a whole number from %ld to %ld", f->lng, val, lo, hi);
		return -1;
	}
	if (f->code == H_PERMS)
		a->cp.perms = (unsigned)v;
	else
		a->cp.min_seg = (size_t)v;
	return 0;
}

static int on_history_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	history_args *a = arg;
	switch (f->code) {
	case H_MODULE: a->q.module = val; return 0;
	case H_METRIC: a->q.metric = val; return 0;
	case H_HOST: a->q.host = val; return 0;
	case H_DB: a->db = val; return 0;
	case H_HTML: a->html = val; return 0;
	case H_TITLE: a->title = val; return 0;
	case H_HELP: a->help = 1; return 0;
	case H_FAIL_CHANGE: a->fail_change = 1; return 0;
	case H_JUNIT: a->junit = val; return 0;
	case H_WHERE:
		if (!strchr(val, '=') || val[0] == '=') {
			bc_err_set(e, "--where %s: wants KEY=VALUE, e.g. block_size=4096", val);
			return -1;
		}
		if (a->q.nwhere == MAX_WHERE) {
			bc_err_set(e, "--where: at most %d", MAX_WHERE);
			return -1;
		}
		a->where[a->q.nwhere++] = val;
		return 0;
	case H_FORMAT:
		a->fmt = !strcmp(val, "text") ? BC_HIST_TEXT : !strcmp(val, "csv") ? BC_HIST_CSV :
			 !strcmp(val, "markdown") ? BC_HIST_MARKDOWN : -1;
		if (a->fmt < 0) {
			bc_err_set(e, "--format %s: wants text, csv or markdown", val);
			return -1;
		}
		return 0;
	}
	return number_flag(a, f, val, e);
}

/* The metrics the module's cases have in r (every one compare judges),
   into names (an object used as a set). */
static void known_metrics(const bc_results *r, const char *module, json_t *names)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		const bc_rgroup *g = &r->groups[i];
		if (strcmp(g->module, module))
			continue;
		for (size_t j = 0; j < g->nmetrics; j++)
			if (g->metrics[j].compared && g->metrics[j].n)
				json_object_set_new(names, g->metrics[j].name, json_true());
	}
}

/* The points of every file; -1 after a message (a file that cannot be
   read). names gets the module's metrics. */
static int from_files(char **files, const bc_history_query *q, bc_hpoint **pts, size_t *n, json_t *names)
{
	for (size_t i = 0; files[i]; i++) {
		bc_results r;
		bc_err e;
		long of;
		if (bc_results_load(files[i], &r, &e) < 0) {
			fprintf(stderr, "benchcore history: %s: %s\n", files[i], e.msg);
			return -1;
		}
		const char *why = bc_results_partial(&r, &of);
		if (why)
			fprintf(stderr, "benchcore history: warning: %s: %s; its finished cases are used\n",
				files[i], why);
		bc_points_from_results(&r, q, pts, n);
		known_metrics(&r, q->module, names);
		bc_results_free(&r);
	}
	return 0;
}

/* The archive's points; when a --metric gave none, names gets the metrics
   the archive has for the query without it (each case's headline). */
static int from_archive(const history_args *a, bc_hpoint **pts, size_t *n, json_t *names)
{
	bc_err e;
	if (bc_archive_history_points(a->db, &a->q, pts, n, &e) < 0) {
		char *shown = a->db ? bc_archive_mask(a->db, a->db) : NULL;	/* never its password */
		fprintf(stderr, "benchcore history: the results archive%s%s: %s\n", shown ? " " : "",
			shown ? shown : "", e.msg);
		free(shown);
		if (*e.detail)
			fprintf(stderr, "DETAIL: %s\n", e.detail);
		fprintf(stderr, "HINT: %s\n", *e.hint ? e.hint : "give results files (benchcore history --module M "
			"A.json B.json ...), or --db the archive to read");
		return -1;
	}
	if (*n || !a->q.metric)
		return 0;
	bc_history_query q = a->q;
	bc_hpoint *all = NULL;
	size_t nall = 0;
	q.metric = NULL;
	if (bc_archive_history_points(a->db, &q, &all, &nall, &e) == 0)
		for (size_t i = 0; i < nall; i++)
			json_object_set_new(names, all[i].metric, json_true());
	bc_hpoints_free(all, nall);
	return 0;
}

/* No point matched: an unknown metric (2, naming the known ones) or no
   run of the module under the filters (1). */
static int nothing(const history_args *a, json_t *names, size_t nfiles)
{
	if (a->q.metric && json_object_size(names) && !json_object_get(names, a->q.metric)) {
		const char *k;
		json_t *v;
		int first = 1;
		fprintf(stderr, "benchcore history: unknown metric \"%s\" for module %s\nDETAIL: its cases have: ",
			a->q.metric, a->q.module);
		json_object_foreach(names, k, v) {
			char *p = bc_printable(k);
			fprintf(stderr, "%s%s", first ? "" : ", ", p);
			free(p);
			first = 0;
		}
		fputc('\n', stderr);
		return 2;
	}
	fprintf(stderr, "benchcore history: no run of module %s matched", a->q.module);
	if (a->q.metric)
		fprintf(stderr, " with metric %s", a->q.metric);
	if (a->q.host)
		fprintf(stderr, " on host %s", a->q.host);
	for (size_t i = 0; i < a->q.nwhere; i++)
		fprintf(stderr, "%s%s", i ? ", " : " where ", a->where[i]);
	if (nfiles)
		fprintf(stderr, "\nDETAIL: %zu file%s read", nfiles, nfiles == 1 ? "" : "s");
	fprintf(stderr, "\nHINT: benchcore compare --json FILE lists a file's cases and metrics\n");
	return 1;
}

static int usage(const char *msg)
{
	fprintf(stderr, "benchcore history: %s\nTry 'benchcore history --help'.\n", msg);
	return 2;
}

static int output(const history_args *a, bc_history *h)
{
	if (!a->html || strcmp(a->html, "-")) {
		bc_history_print(stdout, h, a->fmt);
		if (bc_stdout_done("history"))
			return 2;
	}
	if (a->html && bc_history_html_output(a->html, h, a->title) < 0)
		return 2;
	return 0;
}

static const char *pct(char *buf, size_t n, double x)
{
	char v[BC_DOUBLE_TEXT];
	snprintf(buf, n, "%s%%", bc_fmt_fig(x * 100, 1, 1, v, sizeof(v)));
	return buf;
}

/* --fail-on-change: one line per series whose newest run starts a change
   for the worse, then the verdict; the number of them. After a Markdown
   page (md) each line is a list item of inert text: a host or a label may
   hold HTML or a link. */
static size_t gate(FILE *f, const bc_history *h, int md)
{
	size_t fails = 0;
	for (size_t i = 0; i < h->nseries; i++) {
		const bc_hseries *s = &h->series[i];
		long k = bc_history_new_worse(s, &h->cp);
		if (k < 0)
			continue;
		const bc_hchange *ch = &s->ch[k];
		const bc_hpoint *p = s->run[ch->cp.at];
		char p1[32], p2[32], p3[32];
		char *facts = ch->facts ? bc_strv_join(ch->facts, "; ") :
			      bc_xstrdup("no fact changed: the software or the machine's neighbours");
		char *line = bc_xasprintf("%s %s %s%sthreads=%ld %s: %s [%s .. %s] (95%% interval), p=%.3g, from run "
			"%zu of %zu (run_id %s, %s); %s -> %s; changed: %s", *p->host ? p->host : "(no host)",
			p->module, p->params_text, *p->params_text ? " " : "", p->threads, p->metric,
			pct(p1, sizeof(p1), ch->cp.change), pct(p2, sizeof(p2), ch->cp.change_lo),
			pct(p3, sizeof(p3), ch->cp.change_hi), ch->cp.p, ch->cp.at + 1, s->n, p->run_id, p->started,
			bc_fmt_fig(ch->cp.before, 4, 0, (char[BC_DOUBLE_TEXT]){ 0 }, BC_DOUBLE_TEXT),
			bc_fmt_fig(ch->cp.after, 4, 0, (char[BC_DOUBLE_TEXT]){ 0 }, BC_DOUBLE_TEXT), facts);
		char *shown = bc_printable(line);
		if (md) {
			fputs(fails++ ? "- FAIL change for the worse: " : "\n- FAIL change for the worse: ", f);
			bc_md_text(f, shown);
			fputc('\n', f);
		} else {
			fprintf(f, "%sFAIL change for the worse: %s\n", fails++ ? "" : "\n", shown);
		}
		free(shown);
		free(line);
		free(facts);
	}
	if (fails)
		fprintf(f, "%sgate: FAILED (--fail-on-change): %zu of %zu series start a change for the worse at "
			"their newest run (exit status 4)\n", md ? "\n" : "", fails, h->nseries);
	else
		fprintf(f, "\ngate: passed (--fail-on-change): no series of %zu starts a change for the worse at "
			"its newest run\n", h->nseries);
	/* a series too short for any p to reach alpha cannot fail the gate: said */
	size_t need = bc_cp_min_runs(h->cp.alpha, h->cp.min_seg, h->cp.perms), short_n = 0;
	for (size_t i = 0; i < h->nseries; i++)
		short_n += h->series[i].n < need || !need;
	if (short_n && need)
		fprintf(f, "gate: %zu of %zu series have fewer than %zu runs: no change of theirs can reach alpha %g "
			"yet (docs/ci.md)\n", short_n, h->nseries, need, h->cp.alpha);
	else if (short_n)
		fprintf(f, "gate: no change can reach alpha %g with at most %u permutations (docs/history.md)\n",
			h->cp.alpha, h->cp.perms);
	return fails;
}

/* --html over one of its inputs: the files, or the archive it reads. */
static int html_over_input(const history_args *a, char **files, bc_err *e)
{
	char **inputs = bc_store_inputs(files, a->db, !files || !files[0]);
	int rc = bc_output_ok(a->html, inputs, e);
	bc_strv_free(inputs);
	return rc;
}

static int junit_over_input(const history_args *a, char **files, bc_err *e)
{
	char **inputs = bc_store_inputs(files, a->db, !files || !files[0]);
	int rc = bc_output_ok(a->junit, inputs, e);
	bc_strv_free(inputs);
	return rc;
}

int bc_cmd_history(int argc, char **argv)
{
	history_args a = { .cp = BC_CP_OPTS_DEFAULT, .title = "benchcore history" };
	char **files;
	a.q.where = a.where;
	if (bc_flags_parse("history", history_flags, 0, argc - 1, argv + 1, on_history_flag, &a, &files))
		return 2;
	if (a.help) {
		fputs(history_help, stdout);
		bc_flags_help(stdout, history_flags, 0);
		fputs(history_help_tail, stdout);
		free(files);
		return 0;
	}
	size_t nfiles = bc_strv_len(files);
	bc_err e;
	int rc = 2, bad;
	if (!a.q.module)
		rc = usage("missing --module M (the module whose history to show)");
	else if (nfiles && a.db)
		rc = usage("--db reads the archive; give it or results files, not both");
	else if (a.html && html_over_input(&a, files, &e))
		fprintf(stderr, "benchcore history: --html %s\n", e.msg);
	else if (a.junit && (bad = junit_over_input(&a, files, &e))) {
		fprintf(stderr, "benchcore history: --junit %s\n", e.msg);
		rc = bad == -2 ? 3 : 2;	/* docs/ci.md: 3 the --junit file not written */
	}
	else
		rc = -1;
	if (rc >= 0) {
		free(files);
		return rc;
	}
	bc_hpoint *pts = NULL;
	size_t n = 0;
	json_t *names = json_object();
	if ((nfiles ? from_files(files, &a.q, &pts, &n, names) : from_archive(&a, &pts, &n, names)) < 0)
		rc = 2;
	else if (!n)
		rc = nothing(&a, names, nfiles);
	if (rc >= 0) {
		bc_hpoints_free(pts, n);
	} else {
		bc_history h;
		bc_history_build(&h, pts, n, &a.cp);
		rc = output(&a, &h);
		if (!rc && a.junit && bc_junit_history("history", a.junit, &h) < 0)
			rc = 3;
		int to_err = a.fmt == BC_HIST_CSV || (a.html && !strcmp(a.html, "-"));
		if (!rc && a.fail_change && gate(to_err ? stderr : stdout, &h, !to_err && a.fmt == BC_HIST_MARKDOWN))
			rc = 4;
		if (!rc && bc_stdout_done("history"))
			rc = 2;
		bc_history_free(&h);
	}
	json_decref(names);
	free(files);
	return rc;
}
