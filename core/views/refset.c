/* An index against a reference set: a module's published baseline figures
 * for its own tests (sys ships UnixBench 5.1.3's, modules/sys/
 * unixbench.refset.json), so `compare --index unixbench RUN.json` prints
 * UnixBench's table and score from benchcore's results.
 *
 * A set is a JSON file NAME.refset.json on the module search path: a title,
 * where its figures come from, a scale (UnixBench: 10), the score's name,
 * and its tests, each {title, baseline, unit, module, metric, params}. A
 * test is the case of that module whose params hold every given value, and
 * its metric's mean over the repeats; its index is mean / baseline x scale
 * and the score is the geometric mean of the indexes present, for one copy
 * (threads = 1) and for N copies (the file's largest thread count: the
 * result of N copies at once, as UnixBench's -c N sums them). The core knows
 * no module: the set names them.
 *
 * With two files or more, each file's score against the first's: the ratio
 * is the geometric mean of the ratios of the tests both have, each as
 * compare estimates it (bc_index_term: compare's interval on the logs of
 * the repeats), its interval drawn as bc_index_compute draws one (Welch,
 * Satterthwaite's degrees of freedom) at compare's level, and its verdict by
 * compare's rule for one metric (win or loss: significant and the interval
 * wholly beyond the throughput threshold; tie: wholly inside it, with
 * BC_TIE_MIN_N repeats a test; suspect: a win or loss some of whose tests
 * compare calls suspect in that direction; else inconclusive).
 *
 * One model (bc_refset_model, a JSON document) feeds the three forms: the
 * text, compare --index SET --json, and the report's section (refset_html.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>
#include "refset.h"
#include "stats.h"
#include "tables.h"
#include "util.h"

#define REFSET_MAX	(1 << 20)

int bc_refset_named(const char *name)
{
	struct stat st;
	size_t l = strlen(name);
	return l && !strchr(name, '/') && !(l > 5 && !strcmp(name + l - 5, ".json")) && stat(name, &st) != 0;
}

/* A set's numbers: a scale and every baseline within these, so that an
   index (result / baseline x scale) of any result a run can hold is a
   figure, not 0 or infinity (a baseline of 1e-308 made every index
   infinite and the score print as 0.0). */
#define SCALE_MIN	1e-6
#define SCALE_MAX	1e6
#define BASELINE_MIN	1e-6
#define BASELINE_MAX	1e15

/* v as the message shows it: a number, "x", or its JSON type */
static char *shown_value(json_t *v)
{
	if (json_is_string(v)) {
		char *p = bc_printable(json_string_value(v)), *q = bc_xasprintf("\"%.60s\"", p);
		free(p);
		return q;
	}
	if (json_is_number(v))
		return bc_xasprintf("%g", json_number_value(v));
	return v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : bc_xstrdup("missing");
}

/* 0 when v (field key of where) is a number in [lo, hi]; else e says so. */
static int in_range(json_t *v, const char *p, const char *where, const char *key, double lo, double hi, bc_err *e)
{
	double d = json_number_value(v);
	if (json_is_number(v) && d >= lo && d <= hi)
		return 0;
	char *sh = shown_value(v);
	bc_err_set(e, "reference set %s: %s\"%s\" is %.80s: wants a number from %g to %g", p, where, key, sh, lo, hi);
	free(sh);
	return -1;
}

static int need_string(json_t *o, const char *p, const char *where, const char *key, int optional, bc_err *e)
{
	json_t *v = json_object_get(o, key);
	if (json_is_string(v) || (optional && !v))
		return 0;
	char *sh = shown_value(v);
	bc_err_set(e, "reference set %s: %s\"%s\" is %.80s: wants a string", p, where, key, sh);
	free(sh);
	return -1;
}

/* Every field the index reads, checked as the results reader checks a
   results file: the first one wrong named, with the test it is in. */
static int refset_check(json_t *r, const char *p, bc_err *e)
{
	size_t k;
	json_t *t, *tests = json_object_get(r, "tests");
	if (!json_is_object(r) || !json_is_array(tests) || !json_array_size(tests)) {
		bc_err_set(e, "reference set %s: wants an object with a \"tests\" array of at least one test", p);
		return -1;
	}
	if (need_string(r, p, "", "score", 0, e) || need_string(r, p, "", "title", 1, e) ||
	    need_string(r, p, "", "header", 1, e) ||
	    (json_object_get(r, "scale") && in_range(json_object_get(r, "scale"), p, "", "scale", SCALE_MIN, SCALE_MAX, e)))
		return -1;
	json_array_foreach(tests, k, t) {
		char where[40];
		snprintf(where, sizeof(where), "tests[%zu]: ", k);
		if (!json_is_object(t) || !json_is_object(json_object_get(t, "params"))) {
			bc_err_set(e, "reference set %s: %swants an object with \"params\" an object", p, where);
			return -1;
		}
		if (need_string(t, p, where, "title", 0, e) ||
		    in_range(json_object_get(t, "baseline"), p, where, "baseline", BASELINE_MIN, BASELINE_MAX, e) ||
		    need_string(t, p, where, "unit", 1, e) || need_string(t, p, where, "module", 0, e) ||
		    need_string(t, p, where, "metric", 0, e))
			return -1;
	}
	return 0;
}

/* The set NAME from the first directory of dirs that has it, checked. */
static json_t *refset_load(const char *name, char *const *dirs, char **path, bc_err *e)
{
	for (size_t i = 0; dirs && dirs[i]; i++) {
		char *p = bc_xasprintf("%s/%s.refset.json", dirs[i], name);
		struct stat st;
		if (stat(p, &st) == 0) {
			json_error_t je;
			int fits = S_ISREG(st.st_mode) && st.st_size <= REFSET_MAX;
			json_t *r = fits ? json_load_file(p, JSON_REJECT_DUPLICATES, &je) : NULL;
			if (!fits)
				bc_err_set(e, "reference set %s is not one: not a regular file of at most 1 MiB", p);
			else if (!r)
				bc_err_set(e, "%s:%d: %s", p, je.line, je.text);
			if (!r || refset_check(r, p, e)) {
				json_decref(r);
				free(p);
				return NULL;
			}
			*path = p;
			return r;
		}
		free(p);
	}
	bc_err_set(e, "no reference set \"%s\" (%s.refset.json) on the module search path", name, name);
	bc_err_hint(e, "the sys module ships \"unixbench\"; set BENCHCORE_MODULE_PATH to its directory, or compare against a results file");
	return NULL;
}

/* Does g's params hold every value of want? */
static int params_have(const bc_rgroup *g, json_t *want)
{
	json_error_t je;
	json_t *p = json_loads(g->params_key, 0, &je);
	const char *k;
	json_t *v;
	int ok = json_is_object(p);
	json_object_foreach(want, k, v) {
		json_t *have = json_object_get(p, k);
		ok = ok && have && (json_equal(have, v) || (json_is_number(have) && json_is_number(v) &&
							   json_number_value(have) == json_number_value(v)));
	}
	json_decref(p);
	return ok;
}

/* t's metric in r at threads th (th = 0: the largest count), or NULL; its
   group in *grp when grp is not NULL. */
static const bc_rmetric *refset_find_in(const bc_results *r, json_t *t, long th, long *threads,
					const bc_rgroup **grp)
{
	const bc_rmetric *best = NULL;
	const char *mod = json_string_value(json_object_get(t, "module"));
	const char *met = json_string_value(json_object_get(t, "metric"));
	for (size_t i = 0; i < r->ngroups; i++) {
		const bc_rgroup *g = &r->groups[i];
		const bc_rmetric *m;
		if (strcmp(g->module, mod) || !params_have(g, json_object_get(t, "params")) ||
		    !(m = bc_group_metric(g, met)) || !m->n || (th && g->threads != th))
			continue;
		if (!best || g->threads > *threads) {
			best = m;
			*threads = g->threads;
			if (grp)
				*grp = g;
		}
	}
	return best;
}

static const bc_rmetric *refset_find(const bc_results *r, json_t *t, long th, long *threads)
{
	return refset_find_in(r, t, th, threads, NULL);
}

/* "test=file_copy buffer_size=1024": how a user would give them */
static char *params_text(json_t *params)
{
	const char *k;
	json_t *v;
	char *out = bc_xstrdup("");
	json_object_foreach(params, k, v) {
		char *val = json_is_string(v) ? bc_xstrdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY);
		char *next = bc_xasprintf("%s%s%s=%s", out, *out ? " " : "", k, val ? val : "");
		free(val);
		free(out);
		out = next;
	}
	return out;
}

static const char *jstr(json_t *o, const char *k, const char *dflt)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : dflt;
}

static double jnum(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* One table (one file, one copy count): each test present with its result
   (the mean over the repeats), index and 95% interval, the score over them,
   the tests missing. */
static json_t *refset_table(json_t *set, const bc_results *r, long copies)
{
	double scale = json_object_get(set, "scale") ? jnum(set, "scale") : 1, logsum = 0;
	json_t *tab = json_object(), *tests = json_array(), *missing = json_array(), *t;
	size_t k;
	int n = 0;
	json_array_foreach(json_object_get(set, "tests"), k, t) {
		long th;
		const bc_rmetric *m = refset_find(r, t, copies, &th);
		if (!m) {
			char *p = params_text(json_object_get(t, "params"));
			json_array_append_new(missing, json_pack("{s:s, s:s, s:s}", "title", jstr(t, "title", ""),
								 "module", jstr(t, "module", ""), "params", p));
			free(p);
			continue;
		}
		bc_summary s;
		bc_stats_summary(m->values, m->n, &s);
		double idx = s.mean / jnum(t, "baseline") * scale;
		double half = s.n > 1 && s.mean > 0 ? 100.0 * (s.ci95_high - s.mean) / s.mean : NAN;
		json_array_append_new(tests, json_pack("{s:s, s:f, s:s, s:o, s:o, s:o, s:I}", "title",
			jstr(t, "title", ""), "baseline", jnum(t, "baseline"), "unit", jstr(t, "unit", ""),
			"result", jreal(s.mean), "index", jreal(idx), "ci95_pct", jreal(half), "repeats", (json_int_t)s.n));
		if (isfinite(idx) && idx > 0) {	/* a result of 0 or of 1e300 has no place in a geometric mean */
			logsum += log(idx);
			n++;
		}
	}
	json_object_set_new(tab, "copies", json_integer(copies));
	json_object_set_new(tab, "tests", tests);
	json_object_set_new(tab, "score", json_real(n ? exp(logsum / n) : 0));
	json_object_set_new(tab, "present", json_integer(n));
	json_object_set_new(tab, "missing", missing);
	return tab;
}

/* r's largest thread count among the set's tests (0: none of them). */
static long refset_most(json_t *set, const bc_results *r)
{
	long most = 0, th;
	size_t k;
	json_t *t;
	json_array_foreach(json_object_get(set, "tests"), k, t)
		if (refset_find(r, t, 0, &th) && th > most)
			most = th;
	return most;
}

/* compare's row of metric between groups ga and gb, or NULL. */
static const bc_cmp_row *cmp_row(const bc_cmp *c, const bc_rgroup *ga, const bc_rgroup *gb, const char *metric)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].ga == ga && c->rows[i].gb == gb && !strcmp(c->rows[i].ma->name, metric))
			return &c->rows[i];
	return NULL;
}

/* What the tests' terms add up to, and the verdict compare's rule gives it. */
typedef struct score_judge {
	double sum, var, v2df;	/* of the tests' log ratios (B better: > 0) */
	size_t k, few, suspect[2];	/* tests; with < 2 repeats a side; suspect win, loss */
	size_t min_n;		/* fewest repeats of a side among them */
} score_judge;

static void judge_add(score_judge *j, const bc_cmp_row *r)
{
	double vi, dfi;
	j->sum += bc_index_term(r, &vi, &dfi);
	j->var += vi;
	j->v2df += vi * vi / dfi;
	size_t n = r->sa.n < r->sb.n ? r->sa.n : r->sb.n;
	j->few += n < 2;
	j->min_n = !j->k || n < j->min_n ? n : j->min_n;
	if (r->verdict == BC_V_SUSPECT)
		j->suspect[r->direction == BC_V_LOSS]++;
	j->k++;
}

/* The ratio, its interval at o->level and the verdict into cmp (JSON). */
static void judge_score(const score_judge *j, const bc_cmp_opts *o, json_t *cmp)
{
	double m = j->sum / (double)j->k, se = sqrt(j->var) / (double)j->k;
	double df = j->v2df > 0 ? j->var * j->var / j->v2df : 1e6, thr = o->kind_threshold[BC_KIND_THROUGHPUT];
	double h = se > 0 ? bc_t_quantile_two_sided(1 - o->level, df) * se : 0;
	double lo = expm1(m - h), hi = expm1(m + h), p = se > 0 ? bc_t_two_sided_p(m / se, df) : (m ? 0 : 1);
	int v = BC_V_INCONCLUSIVE, dir = m > 0 ? BC_V_WIN : BC_V_LOSS;
	char why[256] = "";
	json_object_set_new(cmp, "ratio", json_real(exp(m)));
	if (j->few) {
		snprintf(why, sizeof(why), "%zu of its tests ha%s fewer than 2 repeats on a side: no interval "
			 "(run with --repeat 3 or more)", j->few, j->few == 1 ? "s" : "ve");
	} else if (lo > -thr && hi < thr && j->min_n >= BC_TIE_MIN_N) {
		v = BC_V_TIE;
		snprintf(why, sizeof(why), "equivalent: the interval is within the %g%% throughput threshold", thr * 100);
	} else if (p < o->alpha && (lo > thr || hi < -thr)) {
		v = dir;
		if (j->suspect[dir == BC_V_LOSS]) {
			v = BC_V_SUSPECT;
			snprintf(why, sizeof(why), "%s, but compare calls %zu of its tests a suspect %s "
				 "(interference or the clock could explain them)", bc_verdict_name(dir),
				 j->suspect[dir == BC_V_LOSS], bc_verdict_name(dir));
		}
	} else if (lo > -thr && hi < thr)
		snprintf(why, sizeof(why), "within the %g%% throughput threshold, but a tie needs >=%d repeats "
			 "a test on each side", thr * 100, BC_TIE_MIN_N);
	else
		snprintf(why, sizeof(why), "%s(p %.3g) the interval reaches across the %g%% throughput threshold",
			 p < o->alpha ? "" : "not significant: ", p, thr * 100);
	json_object_set_new(cmp, "low", j->few ? json_null() : jreal(exp(m - h)));
	json_object_set_new(cmp, "high", j->few ? json_null() : jreal(exp(m + h)));
	json_object_set_new(cmp, "level", json_real(o->level));
	json_object_set_new(cmp, "threshold", json_real(thr));
	json_object_set_new(cmp, "verdict", json_string(v == BC_V_SUSPECT ? bc_suspect_word(dir == BC_V_WIN,
				dir == BC_V_LOSS) : bc_verdict_name(v)));
	json_object_set_new(cmp, "reason", json_string(why));
}

/* b's score against a's at copies: the tests both have, judged as one metric. */
static json_t *refset_compare(json_t *set, const bc_results *a, const bc_results *b, long copies,
			      const bc_cmp *c, const bc_cmp_opts *o)
{
	score_judge j = { 0 };
	json_t *cmp = json_object(), *t, *ta = refset_table(set, a, copies), *tb = refset_table(set, b, copies);
	size_t k, unmatched = 0;
	json_array_foreach(json_object_get(set, "tests"), k, t) {
		long th;
		const bc_rgroup *ga = NULL, *gb = NULL;
		if (!refset_find_in(a, t, copies, &th, &ga) || !refset_find_in(b, t, copies, &th, &gb))
			continue;
		const bc_cmp_row *r = cmp_row(c, ga, gb, jstr(t, "metric", ""));
		if (r && r->sa.mean > 0 && r->sb.mean > 0)
			judge_add(&j, r);
		else
			unmatched++;
	}
	json_object_set_new(cmp, "baseline", json_string(a->label));
	json_object_set_new(cmp, "candidate", json_string(b->label));
	json_object_set_new(cmp, "copies", json_integer(copies));
	json_object_set_new(cmp, "score_a", json_incref(json_object_get(ta, "score")));
	json_object_set_new(cmp, "score_b", json_incref(json_object_get(tb, "score")));
	json_object_set_new(cmp, "tests", json_integer((json_int_t)j.k));
	json_object_set_new(cmp, "unmatched", json_integer((json_int_t)unmatched));
	json_object_set_new(cmp, "same_tests", json_boolean(!unmatched &&
		json_integer_value(json_object_get(ta, "present")) == (json_int_t)j.k &&
		json_integer_value(json_object_get(tb, "present")) == (json_int_t)j.k));
	json_decref(ta);
	json_decref(tb);
	if (j.k)
		judge_score(&j, o, cmp);
	else
		json_object_set_new(cmp, "verdict", json_null());
	return cmp;
}

json_t *bc_refset_model(const char *name, char *const *dirs, const bc_results *res, int n,
			const bc_cmp_opts *o, bc_err *e)
{
	char *path = NULL;
	json_t *set = refset_load(name, dirs, &path, e);
	if (!set)
		return NULL;
	json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s}", "set", name, "title", jstr(set, "title", name),
				"source", jstr(set, "source", ""), "path", path, "score_name", jstr(set, "score", "score"));
	json_t *files = json_array(), *cmps = json_array();
	long most0 = n ? refset_most(set, &res[0]) : 0;
	json_object_set_new(doc, "header", json_string(jstr(set, "header", "test")));
	for (int i = 0; i < n; i++) {
		long most = refset_most(set, &res[i]);
		json_t *tabs = json_array();
		if (most)
			json_array_append_new(tabs, refset_table(set, &res[i], 1));
		if (most > 1)
			json_array_append_new(tabs, refset_table(set, &res[i], most));
		json_array_append_new(files, json_pack("{s:s, s:s, s:o}", "label", res[i].label, "path", res[i].path,
						       "tables", tabs));
		if (i == 0 || !most || !most0)
			continue;
		bc_cmp c;
		bc_compare_pair(&res[0], &res[i], o, &c);
		json_array_append_new(cmps, refset_compare(set, &res[0], &res[i], 1, &c, o));
		if (most > 1 && most == most0)
			json_array_append_new(cmps, refset_compare(set, &res[0], &res[i], most, &c, o));
		bc_cmp_free(&c);
	}
	json_object_set_new(doc, "files", files);
	json_object_set_new(doc, "comparisons", cmps);
	json_decref(set);
	free(path);
	return doc;
}

static void print_table(FILE *f, json_t *doc, json_t *file, json_t *tab)
{
	long copies = (long)json_integer_value(json_object_get(tab, "copies"));
	size_t k;
	json_t *t;
	fprintf(f, "\n%s (%s), %ld cop%s:\n%-44s %12s %16s %9s\n", jstr(file, "label", ""), jstr(file, "path", ""),
		copies, copies == 1 ? "y" : "ies", jstr(doc, "header", "test"), "BASELINE", "RESULT", "INDEX");
	json_array_foreach(json_object_get(tab, "tests"), k, t) {
		char res[64], spread[32] = "";
		snprintf(res, sizeof(res), "%.1f %s", jnum(t, "result"), jstr(t, "unit", ""));
		if (json_is_number(json_object_get(t, "ci95_pct")))
			snprintf(spread, sizeof(spread), " +-%.1f%%", jnum(t, "ci95_pct"));
		char idx[32] = "?";
		if (json_is_number(json_object_get(t, "index")))
			snprintf(idx, sizeof(idx), "%.1f", jnum(t, "index"));
		fprintf(f, "%-44s %12.1f %16s %9s%s\n", jstr(t, "title", ""), jnum(t, "baseline"), res, idx, spread);
	}
	long present = (long)json_integer_value(json_object_get(tab, "present"));
	fprintf(f, "%-44s %12s %16s %9s\n%-44s %39.1f\n", "", "", "", "========", jstr(doc, "score_name", ""),
		jnum(tab, "score"));
	if (!json_array_size(json_object_get(tab, "missing")))
		return;
	fprintf(f, "not in the results (the score is over the %ld test%s present):", present, present == 1 ? "" : "s");
	json_array_foreach(json_object_get(tab, "missing"), k, t)
		fprintf(f, "\n  %s (%s %s)", jstr(t, "title", ""), jstr(t, "module", ""), jstr(t, "params", ""));
	fputc('\n', f);
}

static void print_comparisons(FILE *f, json_t *doc)
{
	size_t k;
	json_t *c;
	if (!json_array_size(json_object_get(doc, "comparisons")))
		return;
	fprintf(f, "\nscores against %s: the ratio is the geometric mean of the ratios of the tests both "
		"have, each as compare estimates it; its interval at compare's level from their repeats, "
		"its verdict by compare's rule for one metric\n", jstr(json_array_get(json_object_get(doc, "files"), 0),
		"label", ""));
	json_array_foreach(json_object_get(doc, "comparisons"), k, c) {
		long copies = (long)json_integer_value(json_object_get(c, "copies"));
		fprintf(f, "  %s, %ld cop%s: %.1f against %.1f", jstr(c, "candidate", ""), copies, copies == 1 ? "y" : "ies",
			jnum(c, "score_b"), jnum(c, "score_a"));
		if (!json_is_string(json_object_get(c, "verdict"))) {
			fputs(": no test in both\n", f);
			continue;
		}
		fprintf(f, ", ratio %.3f", jnum(c, "ratio"));
		if (json_is_number(json_object_get(c, "low")))
			fprintf(f, " [%.3f, %.3f] (%.0f%%)", jnum(c, "low"), jnum(c, "high"), 100 * jnum(c, "level"));
		fprintf(f, " over %lld test%s: %s", (long long)json_integer_value(json_object_get(c, "tests")),
			json_integer_value(json_object_get(c, "tests")) == 1 ? "" : "s", jstr(c, "verdict", ""));
		if (*jstr(c, "reason", ""))
			fprintf(f, " (%s)", jstr(c, "reason", ""));
		if (!json_is_true(json_object_get(c, "same_tests")))
			fputs("; the two scores cover different tests: the ratio is over those both have", f);
		fputc('\n', f);
	}
}

int bc_refset_has_tests(json_t *doc)
{
	size_t k;
	json_t *file;
	json_array_foreach(json_object_get(doc, "files"), k, file)
		if (json_array_size(json_object_get(file, "tables")))
			return 1;
	return 0;
}

int bc_refset_index(FILE *f, const char *name, char *const *dirs, const bc_results *res, int n,
		    const bc_cmp_opts *o, int json)
{
	bc_err e;
	json_t *doc = bc_refset_model(name, dirs, res, n, o, &e), *file;
	size_t i, k;
	json_t *tab;
	if (!doc) {
		bc_err_print_as("benchcore compare", &e);
		return 2;
	}
	int any = bc_refset_has_tests(doc);
	if (json) {
		json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		fputc('\n', f);
		json_decref(doc);
		return any ? 0 : 2;
	}
	fprintf(f, "%s (%s): %s; +-: the 95%% interval over the repeats\n", jstr(doc, "title", name),
		jstr(doc, "path", ""), jstr(doc, "source", ""));
	json_array_foreach(json_object_get(doc, "files"), i, file) {
		if (!json_array_size(json_object_get(file, "tables")))
			fprintf(f, "\n%s (%s): none of the set's tests\n", jstr(file, "label", ""), jstr(file, "path", ""));
		json_array_foreach(json_object_get(file, "tables"), k, tab)
			print_table(f, doc, file, tab);
	}
	print_comparisons(f, doc);
	json_decref(doc);
	return any ? 0 : 2;
}
