/* What the studies' tables show besides their cases (tables.h): the
   --metric list checked against the files given, and the module facts
   (cases' info: a library's version) that differ between the files, which
   --table shows as rows of their own. tables.c lays them out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "hostdiff.h"
#include "grid.h"
#include "tables.h"
#include "util.h"

/* Every metric name of the files' groups, in order of first appearance. */
static json_t *known_metrics(const bc_results *res, int n)
{
	json_t *seen = json_object(), *list = json_array();
	for (int i = 0; i < n; i++)
		for (size_t g = 0; g < res[i].ngroups; g++)
			for (size_t m = 0; m < res[i].groups[g].nmetrics; m++) {
				const char *name = res[i].groups[g].metrics[m].name;
				if (json_object_get(seen, name))
					continue;
				json_object_set_new(seen, name, json_true());
				json_array_append_new(list, json_string(name));
			}
	json_decref(seen);
	return list;
}

static int metric_known(json_t *known, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(known, i, v)
		if (!strcmp(json_string_value(v), name))
			return 1;
	return 0;
}

/* The detail of an unknown --metric: the known names, as many as fit. */
static void known_detail(bc_err *e, json_t *known, int n)
{
	size_t i, len = 0, shown = 0;
	json_t *v;
	char list[sizeof(e->detail) - 96] = "";
	json_array_foreach(known, i, v) {
		char *p = bc_printable(json_string_value(v));
		size_t l = strlen(p);
		if (len + l + 2 < sizeof(list)) {
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", shown ? ", " : "", p);
			shown++;
		}
		free(p);
	}
	if (!shown)
		bc_err_detail(e, "The file%s given hold%s no case with a metric.", n > 1 ? "s" : "",
			      n > 1 ? "" : "s");
	else if (shown < json_array_size(known))
		bc_err_detail(e, "Known metrics of the file%s given: %s (and %zu more).", n > 1 ? "s" : "", list,
			      json_array_size(known) - shown);
	else
		bc_err_detail(e, "Known metrics of the file%s given: %s.", n > 1 ? "s" : "", list);
}

int bc_tab_metrics(const bc_tab_opts *t, const bc_results *res, int n, char ***names)
{
	*names = NULL;
	if (!t->metric)
		return 0;
	char **v = bc_split(t->metric, ',');
	json_t *known = known_metrics(res, n);
	size_t k = 0;
	for (; v[k]; k++)
		if (!*v[k] || !metric_known(known, v[k]))
			break;
	if (v[k] || !k || k > BC_TAB_MAX_METRICS) {
		bc_err e;
		char *p = bc_printable(t->metric), *one = v[k] ? bc_printable(v[k]) : NULL;
		if (k > BC_TAB_MAX_METRICS && !v[k])
			bc_err_set(&e, "--metric %s: more than %d metrics", p, BC_TAB_MAX_METRICS);
		else
			bc_err_set(&e, "--metric %s: no case of the files given has a metric named '%s'", p,
				   one ? one : "");
		known_detail(&e, known, n);
		bc_err_hint(&e, "--metric NAME or NAME,NAME (one column group each), e.g. --metric "
			    "sign_per_sec,verify_per_sec");
		bc_err_print_as("benchcore compare", &e);
		free(p), free(one);
		json_decref(known);
		bc_strv_free(v);
		return -1;
	}
	json_decref(known);
	*names = v;
	return (int)k;
}

/* The value of fact key in r as text (NULL: absent); malloc'd. */
static char *fact_text(const bc_results *r, const char *key)
{
	json_t *v = json_object_get(r->info, key);
	if (!v)
		return NULL;
	return json_is_string(v) ? bc_xstrdup(json_string_value(v)) : bc_json_text(v);
}

/* Whether r has a case of the module fact key ("MODULE.KEY") names. */
static int runs_module_of(const bc_results *r, const char *key)
{
	size_t l = strcspn(key, ".");
	for (size_t g = 0; g < r->ngroups; g++)
		if (strlen(r->groups[g].module) == l && !strncmp(r->groups[g].module, key, l))
			return 1;
	return 0;
}

/* Whether the files that ran key's module differ in its value (a file
   that did not run the module has no say). */
static int differs_where_run(const bc_results *res, int n, const char *key)
{
	json_t *first = NULL;
	int seen = 0;
	for (int f = 0; f < n; f++) {
		if (!runs_module_of(&res[f], key))
			continue;
		json_t *v = json_object_get(res[f].info, key);
		if (seen && !(v ? first && json_equal(v, first) : !first))
			return 1;
		first = v;
		seen = 1;
	}
	return 0;
}

json_t *bc_tab_facts(const bc_results *res, int n)
{
	json_t *out = json_object();
	for (int i = 1; i < n; i++) {
		json_t *d = bc_facts_diff(&res[0], &res[i]), *x;
		size_t j;
		json_array_foreach(d, j, x) {
			const char *k = json_string_value(json_object_get(x, "field"));
			const char *kind = json_string_value(json_object_get(x, "kind"));
			if (!k || !kind || strcmp(kind, "module") || json_object_get(out, k) ||
			    !differs_where_run(res, n, k))
				continue;
			json_t *vals = json_array();
			for (int f = 0; f < n; f++) {
				char *s = fact_text(&res[f], k);
				json_t *js = s ? json_string(s) : NULL;	/* NULL too when not UTF-8 */
				json_array_append_new(vals, js ? js : json_null());
				free(s);
			}
			json_object_set_new(out, k, vals);
		}
		json_decref(d);
	}
	return out;
}
