/* A run's points (points.h): the mean and 95% interval of each compared
   metric of each group, as compare computes them. */
#include <stdlib.h>
#include <string.h>
#include "points.h"
#include "stats.h"
#include "util.h"

static char *dup_or_empty(const char *s)
{
	return bc_xstrdup(s ? s : "");
}

/* The text of a params value as where= compares it: strings as they are,
   numbers and booleans as JSON writes them. */
static char *value_text(json_t *v)
{
	if (json_is_string(v))
		return bc_xstrdup(json_string_value(v));
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

int bc_points_where(const char *params_key, const bc_history_query *q)
{
	if (!q || !q->nwhere)
		return 1;
	json_t *params = json_loads(params_key ? params_key : "{}", 0, NULL);
	int ok = params != NULL;
	for (size_t i = 0; ok && i < q->nwhere; i++) {
		const char *kv = q->where[i], *eq = strchr(kv, '=');
		if (!eq) {
			ok = 0;
			break;
		}
		char *key = strndup(kv, (size_t)(eq - kv));
		if (!key)
			abort();
		json_t *v = json_object_get(params, key);
		char *t = v ? value_text(v) : NULL;
		ok = t && !strcmp(t, eq + 1);
		free(t);
		free(key);
	}
	json_decref(params);
	return ok;
}

/* The host facts of the group's own run: in a merged file the merged host
   with the facts of the part its cases came from (cases[].run.host). */
static json_t *group_host(const bc_results *r, const bc_rgroup *g)
{
	if (!g->run_host)
		return json_incref(r->host);
	json_t *h = json_deep_copy(r->host);
	json_object_update(h, g->run_host);
	return h;
}

static void add_point(const bc_results *r, const bc_rgroup *g, const bc_rmetric *m,
		      int headline, bc_hpoint **pts, size_t *n)
{
	bc_summary st;
	bc_stats_summary(m->values, m->n, &st);
	*pts = bc_xrealloc(*pts, *n + 1, sizeof(**pts));
	(*pts)[(*n)++] = (bc_hpoint){
		.run_id = dup_or_empty(r->run_id), .started = dup_or_empty(r->started_at),
		.host = dup_or_empty(json_string_value(json_object_get(r->host, "hostname"))),
		.label = dup_or_empty(r->label), .module = bc_xstrdup(g->module),
		.params_key = bc_xstrdup(g->params_key), .params_text = dup_or_empty(g->params_text),
		.threads = g->threads, .metric = bc_xstrdup(m->name), .unit = dup_or_empty(m->unit),
		.higher_is_better = m->higher_is_better, .headline = headline,
		.mean = st.mean, .ci_low = st.ci95_low, .ci_high = st.ci95_high, .n = m->n,
		.hostobj = group_host(r, g), .info = json_incref(r->info),
		.version = r->version ? bc_xstrdup(r->version) : NULL,
		.module_version = g->module_version ? bc_xstrdup(g->module_version) : NULL,
	};
}

void bc_points_from_results(const bc_results *r, const bc_history_query *q,
			    bc_hpoint **pts, size_t *n)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		const bc_rgroup *g = &r->groups[i];
		const bc_rmetric *prim = bc_primary_metric(g);
		if (q && q->module && strcmp(q->module, g->module))
			continue;
		const char *hn = json_string_value(json_object_get(r->host, "hostname"));
		if (q && q->host && strcmp(q->host, hn ? hn : ""))
			continue;
		if (!bc_points_where(g->params_key, q))
			continue;
		for (size_t j = 0; j < g->nmetrics; j++) {
			const bc_rmetric *m = &g->metrics[j];
			if (!m->compared || !m->n)
				continue;
			if (q && q->metric ? strcmp(q->metric, m->name) != 0 : (q && m != prim))
				continue;
			add_point(r, g, m, m == prim, pts, n);
		}
	}
}

void bc_hpoint_free(bc_hpoint *p)
{
	free(p->run_id);
	free(p->started);
	free(p->host);
	free(p->label);
	free(p->module);
	free(p->params_key);
	free(p->params_text);
	free(p->metric);
	free(p->unit);
	json_decref(p->hostobj);
	json_decref(p->info);
	free(p->version);
	free(p->module_version);
}

void bc_hpoints_free(bc_hpoint *pts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bc_hpoint_free(&pts[i]);
	free(pts);
}
