/* The rows of compare's tables: each case's label (what varies in its
   module), the cases in the order of their plan, and --by's order
   (tables.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "tables.h"
#include "util.h"

static char *json_text(json_t *v)
{
	return bc_json_text(v);
}

/* Two values of one key in two groups' params (NULL: absent) are the same. */
static int same_value(json_t *a, json_t *b)
{
	return (!a && !b) || (a && b && json_equal(a, b));
}

json_t *bc_label_ctx(const bc_results *r)
{
	json_t *ctx = json_object();
	for (size_t i = 0; i < r->ngroups; i++) {
		const bc_rgroup *g = &r->groups[i];
		json_t *p = json_loads(g->params_key, 0, NULL), *m = json_object_get(ctx, g->module), *v;
		const char *k;
		if (!p)
			p = json_object();
		if (!m) {	/* the module's first group: what the others are measured against */
			json_object_set_new(ctx, g->module, json_pack("{s:o, s:{}, s:I, s:b}", "ref", p, "vary",
						"threads", (json_int_t)g->threads, "tvary", 0));
			continue;
		}
		json_t *ref = json_object_get(m, "ref"), *vary = json_object_get(m, "vary");
		json_object_foreach(p, k, v)
			if (!same_value(v, json_object_get(ref, k)))
				json_object_set_new(vary, k, json_true());
		json_object_foreach(ref, k, v)
			if (!same_value(v, json_object_get(p, k)))
				json_object_set_new(vary, k, json_true());
		if (json_integer_value(json_object_get(m, "threads")) != g->threads)
			json_object_set_new(m, "tvary", json_true());
		json_decref(p);
	}
	return ctx;
}

/* The params of g that vary among the groups of its module (a sweep's
   points), as "k=v k=v", then "threads=N" when threads vary; the --by
   option's value first, bare. Shown as the results reader escaped them. */
char *bc_case_label_in(json_t *ctx, const bc_rgroup *g, const char *by_opt)
{
	json_t *p = json_loads(g->params_key, 0, NULL), *v, *m = json_object_get(ctx, g->module);
	json_t *vary = json_object_get(m, "vary");
	const char *k;
	char *out = bc_xstrdup(""), *tmp;
	if (!p)
		p = json_object();
	if (by_opt && (v = json_object_get(p, by_opt))) {
		char *t = json_text(v), *sh = bc_printable(t);
		tmp = bc_xasprintf("%s", sh);
		free(t), free(sh), free(out);
		out = tmp;
	}
	json_object_foreach(p, k, v) {
		if ((by_opt && !strcmp(k, by_opt)) || !json_object_get(vary, k))
			continue;
		char *t = json_text(v), *sh = bc_printable(t), *kk = bc_printable(k);
		tmp = bc_xasprintf("%s%s%s=%s", out, *out ? " " : "", kk, sh);
		free(t), free(sh), free(kk), free(out);
		out = tmp;
	}
	if (json_is_true(json_object_get(m, "tvary"))) {
		tmp = bc_xasprintf("%s%sthreads=%ld", out, *out ? " " : "", g->threads);
		free(out);
		out = tmp;
	}
	json_decref(p);
	return out;
}

char *bc_case_label(const bc_results *r, const bc_rgroup *g, const char *by_opt)
{
	json_t *ctx = bc_label_ctx(r);
	char *s = bc_case_label_in(ctx, g, by_opt);
	json_decref(ctx);
	return s;
}

static char *value_key(json_t *v)
{
	char *k = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
	return k ? k : bc_xstrdup("");
}

/* For plan_rank: per module entry of r's config (by index) and option,
   each listed value's position (the last, when listed twice), keyed by
   its compact JSON: "I\nOPTION" -> {value: position}. */
static json_t *plan_index(const bc_results *r)
{
	json_t *idx = json_object(), *m, *vals, *e;
	size_t i, x;
	const char *o;
	json_array_foreach(json_object_get(r->config, "modules"), i, m)
		json_object_foreach(json_object_get(m, "options"), o, vals) {
			json_t *pos = json_object();
			json_array_foreach(vals, x, e) {
				char *vk = value_key(e);
				json_object_set_new(pos, vk, json_integer((json_int_t)x));
				free(vk);
			}
			char *key = bc_xasprintf("%zu\n%s", i, o);
			json_object_set_new(idx, key, pos);
			free(key);
		}
	return idx;
}

/* Where g stands in its run's plan: module entry, then each option's value
   in the order the config lists them (a sweep as written, not the shuffled
   order the rounds ran in), then threads as listed. Unknown: last. */
static void plan_rank(const bc_results *r, json_t *idx, const bc_rgroup *g, const char *by_opt, double *key,
		      size_t nkey)
{
	json_t *mods = json_object_get(r->config, "modules"), *m, *p = json_loads(g->params_key, 0, NULL), *e;
	size_t i, k = 0, x;
	for (size_t j = 0; j < nkey; j++)
		key[j] = 1e9;
	json_array_foreach(mods, i, m) {
		const char *name = json_string_value(json_object_get(m, "name"));
		if (!name || strcmp(name, g->module))
			continue;
		key[k++] = (double)i;
		json_t *opts = json_object_get(m, "options"), *vals;
		const char *o;
		if (by_opt)	/* --by: its values' order first */
			k++;
		json_object_foreach(opts, o, vals) {
			char *ik = bc_xasprintf("%zu\n%s", i, o), *vk = value_key(p ? json_object_get(p, o) : NULL);
			json_t *at_j = json_object_get(json_object_get(idx, ik), vk);
			double at = at_j ? (double)json_integer_value(at_j) : 0;
			free(ik), free(vk);
			if (by_opt && !strcmp(o, by_opt))
				key[1] = at;
			else if (k + 1 < nkey)
				key[k++] = at;
		}
		json_array_foreach(json_object_get(m, "threads"), x, e)
			if (json_integer_value(e) == g->threads && k < nkey)
				key[k] = (double)x;
		break;
	}
	json_decref(p);
}

typedef struct ranked {
	const bc_rgroup *g;
	size_t first;		/* first appearance, the tie-break */
	double key[32];
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
	const ranked *a = x, *b = y;
	for (size_t i = 0; i < 32; i++)
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* gs[0..n) in plan order (by_opt's values first, when given). */
static void sort_plan(const bc_results *r, const bc_rgroup **gs, size_t n, const char *by_opt)
{
	ranked *v = bc_xcalloc(n ? n : 1, sizeof(*v));
	json_t *idx = plan_index(r);
	for (size_t i = 0; i < n; i++) {
		v[i].g = gs[i];
		v[i].first = i;
		plan_rank(r, idx, gs[i], by_opt, v[i].key, 32);
	}
	json_decref(idx);
	qsort(v, n, sizeof(*v), cmp_ranked);
	for (size_t i = 0; i < n; i++)
		gs[i] = v[i].g;
	free(v);
}

const bc_rgroup **bc_plan_groups(const bc_results *r, const char *module, size_t *n)
{
	const bc_rgroup **g = bc_xcalloc(r->ngroups + 1, sizeof(*g));
	*n = 0;
	for (size_t i = 0; i < r->ngroups; i++)
		if (!module || !strcmp(r->groups[i].module, module))
			g[(*n)++] = &r->groups[i];
	sort_plan(r, g, *n, NULL);
	return g;
}

/* --by MODULE.OPTION: the groups of MODULE in res[0] in the order of the
   option's values as first met; -1 when the option is in no group. */
static int by_order(const bc_results *r, const char *by, const bc_rgroup **out, size_t *n)
{
	const char *dot = strchr(by, '.');
	char mod[128];
	snprintf(mod, sizeof(mod), "%.*s", (int)(dot - by), by);
	const char *opt = dot + 1;
	/* the option's values in the order first met, each with its groups in
	   file order: buckets keyed by the value's compact JSON (linear) */
	json_t *order = json_array(), *bucket = json_object();
	*n = 0;
	for (size_t i = 0; i < r->ngroups; i++) {
		json_t *p = json_loads(r->groups[i].params_key, 0, NULL), *v;
		if (!strcmp(r->groups[i].module, mod) && p && (v = json_object_get(p, opt))) {
			char *vk = value_key(v);
			json_t *b = json_object_get(bucket, vk);
			if (!b) {
				json_object_set_new(bucket, vk, b = json_array());
				json_array_append_new(order, json_string(vk));
			}
			json_array_append_new(b, json_integer((json_int_t)i));
			free(vk);
		}
		json_decref(p);
	}
	size_t k, j;
	json_t *e, *gi;
	json_array_foreach(order, k, e)
		json_array_foreach(json_object_get(bucket, json_string_value(e)), j, gi)
			out[(*n)++] = &r->groups[json_integer_value(gi)];
	int found = json_array_size(order) > 0;
	json_decref(order);
	json_decref(bucket);
	return found ? 0 : -1;
}

static int by_ok(const char *by)
{
	const char *dot = by ? strchr(by, '.') : NULL;
	return !by || (dot && dot != by && dot[1] && (size_t)(dot - by) < 128);
}

/* The groups a table shows: res[0]'s, or --by's order. NULL after a message. */
const bc_rgroup **bc_table_groups(const bc_results *res, const bc_tab_opts *t, size_t *n)
{
	if (!t->by)
		return bc_plan_groups(&res[0], NULL, n);
	const bc_rgroup **g = bc_xcalloc(res[0].ngroups + 1, sizeof(*g));
	if (!by_ok(t->by) || by_order(&res[0], t->by, g, n) < 0) {
		bc_err e;
		bc_err_set(&e, "--by %s: no case of %s has that option", t->by, res[0].path);
		bc_err_hint(&e, "--by MODULE.OPTION, e.g. --by redis.tests or --by io.block_size");
		bc_err_print_as("benchcore compare", &e);	/* escapes what it prints */
		free(g);
		return NULL;
	}
	sort_plan(&res[0], g, *n, strchr(t->by, '.') + 1);
	return g;
}
