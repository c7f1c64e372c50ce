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
 * no module: the set names them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>
#include "refset.h"
#include "stats.h"
#include "util.h"

#define REFSET_MAX	(1 << 20)

int bc_refset_named(const char *name)
{
	struct stat st;
	size_t l = strlen(name);
	return l && !strchr(name, '/') && !(l > 5 && !strcmp(name + l - 5, ".json")) && stat(name, &st) != 0;
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
			size_t k;
			json_t *t;
			int ok = json_is_array(json_object_get(r, "tests")) && json_object_get(r, "score");
			json_array_foreach(json_object_get(r, "tests"), k, t)
				ok = ok && json_is_string(json_object_get(t, "title")) &&
				     json_number_value(json_object_get(t, "baseline")) > 0 &&
				     json_is_string(json_object_get(t, "module")) &&
				     json_is_string(json_object_get(t, "metric")) &&
				     json_is_object(json_object_get(t, "params"));
			if (!ok) {
				bc_err_set(e, "reference set %s is not one: %s", p, r ? "a field is missing or wrong" :
					   "not a JSON file of at most 1 MiB");
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
	bc_err_hint(e, "the sys module ships \"unixbench\"; give --module-path, or compare against a results file");
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

/* t's metric in r at threads th (th = 0: the largest count), or NULL. */
static const bc_rmetric *refset_find(const bc_results *r, json_t *t, long th, long *threads)
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
		}
	}
	return best;
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

/* One table (one file, one copy count); the tests it misses after it. */
static void refset_table(FILE *f, json_t *set, const bc_results *r, long copies)
{
	double scale = json_number_value(json_object_get(set, "scale")), logsum = 0;
	size_t k, missing = 0;
	json_t *t;
	int n = 0;
	if (scale <= 0)
		scale = 1;
	fprintf(f, "\n%s (%s), %ld cop%s:\n%-44s %12s %16s %9s\n", r->label, r->path, copies, copies == 1 ? "y" : "ies",
		json_string_value(json_object_get(set, "header")) ? json_string_value(json_object_get(set, "header")) :
		"test", "BASELINE", "RESULT", "INDEX");
	json_array_foreach(json_object_get(set, "tests"), k, t) {
		long th;
		const bc_rmetric *m = refset_find(r, t, copies, &th);
		if (!m) {
			missing++;
			continue;
		}
		bc_summary s;
		bc_stats_summary(m->values, m->n, &s);
		double base = json_number_value(json_object_get(t, "baseline")), idx = s.mean / base * scale;
		const char *unit = json_string_value(json_object_get(t, "unit"));
		char res[64], spread[32] = "";
		snprintf(res, sizeof(res), "%.1f %s", s.mean, unit ? unit : "");
		if (s.n > 1 && s.mean > 0)
			snprintf(spread, sizeof(spread), " +-%.1f%%", 100.0 * (s.ci95_high - s.mean) / s.mean);
		fprintf(f, "%-44s %12.1f %16s %9.1f%s\n", json_string_value(json_object_get(t, "title")), base, res,
			idx, spread);
		if (idx > 0) {
			logsum += log(idx);
			n++;
		}
	}
	fprintf(f, "%-44s %12s %16s %9s\n%-44s %39.1f\n", "", "", "", "========",
		json_string_value(json_object_get(set, "score")), n ? exp(logsum / n) : 0);
	if (!missing)
		return;
	fprintf(f, "not in the results (the score is over the %d test%s present):", n, n == 1 ? "" : "s");
	json_array_foreach(json_object_get(set, "tests"), k, t) {
		long th;
		if (refset_find(r, t, copies, &th))
			continue;
		char *p = params_text(json_object_get(t, "params"));
		fprintf(f, "\n  %s (%s %s)", json_string_value(json_object_get(t, "title")),
			json_string_value(json_object_get(t, "module")), p);
		free(p);
	}
	fputc('\n', f);
}

int bc_refset_index(FILE *f, const char *name, char *const *dirs, const bc_results *res, int n)
{
	bc_err e;
	char *path = NULL;
	json_t *set = refset_load(name, dirs, &path, &e);
	int any = 0;
	if (!set) {
		bc_err_print_as("benchcore compare", &e);
		return 2;
	}
	fprintf(f, "%s (%s): %s; +-: the 95%% interval over the repeats\n",
		json_string_value(json_object_get(set, "title")) ? json_string_value(json_object_get(set, "title")) : name,
		path, json_string_value(json_object_get(set, "source")) ? json_string_value(json_object_get(set, "source")) : "");
	for (int i = 0; i < n; i++) {
		long most = 0, th;
		size_t k;
		json_t *t;
		json_array_foreach(json_object_get(set, "tests"), k, t)
			if (refset_find(&res[i], t, 0, &th) && th > most)
				most = th;
		if (!most) {
			fprintf(f, "\n%s (%s): none of the set's tests\n", res[i].label, res[i].path);
			continue;
		}
		any = 1;
		refset_table(f, set, &res[i], 1);
		if (most > 1)
			refset_table(f, set, &res[i], most);
	}
	json_decref(set);
	free(path);
	return any ? 0 : 2;
}
