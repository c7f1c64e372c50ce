/* compare --table, --summary-table, --per-ghz and --index (tables.h): the
   views; a table's forms are grid.c's, its rows' labels and order caserows.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "stats.h"
#include "tables.h"
#include "grid.h"
#include "perghz.h"
#include "util.h"

#define MAX_SIDES 16

static char *num_text(double v)
{
	if (isnan(v))
		return bc_xstrdup("n/a");
	char b[BC_DOUBLE_TEXT];	/* 6 significant digits past 1e12 (bc_fmt_fig) */
	return fabs(v) >= 1e4 || v == floor(v) ? bc_xstrdup(bc_fmt_fig(v, 0, 0, b, sizeof(b))) :
		bc_xasprintf("%.4g", v);
}

/* "84246 ±1.2%": the mean and the half-width of its 95% interval. */
static char *value_text(const bc_summary *s)
{
	char *v = num_text(s->mean);
	if (s->n < 2 || s->mean == 0)
		return v;
	char b[BC_DOUBLE_TEXT];
	char *out = bc_xasprintf("%s ±%s%%", v, bc_fmt_fig(100 * (s->ci95_high - s->mean) / fabs(s->mean), 1, 0, b,
							     sizeof(b)));
	free(v);
	return out;
}

/* ------------------------------------------------------- the sides */

typedef struct sides {
	int n;				/* files; cmp[i] for i >= 1 */
	bc_cmp cmp[MAX_SIDES];
	const bc_results *a;		/* res[0]: every row's ga is one of its groups */
	size_t *first[MAX_SIDES];	/* per group of a, its first row in cmp[i] (SIZE_MAX: none) */
} sides;

static void sides_make(sides *s, const bc_results *res, int n, const bc_cmp_opts *o)
{
	s->n = n > MAX_SIDES ? MAX_SIDES : n;
	s->a = &res[0];
	for (int i = 1; i < s->n; i++) {
		bc_compare_pair(&res[0], &res[i], o, &s->cmp[i]);
		/* a group's rows are consecutive (compare adds them group by
		   group): one pass indexes them, so a table stays linear */
		s->first[i] = bc_xmalloc((res[0].ngroups + 1) * sizeof(size_t));
		for (size_t g = 0; g <= res[0].ngroups; g++)
			s->first[i][g] = SIZE_MAX;
		for (size_t r = s->cmp[i].nrows; r-- > 0;)
			s->first[i][s->cmp[i].rows[r].ga - res[0].groups] = r;
	}
}

static void sides_free(sides *s)
{
	for (int i = 1; i < s->n; i++) {
		bc_cmp_free(&s->cmp[i]);
		free(s->first[i]);
	}
}

/* The row of group g (of res[0]) and metric in cmp[i], or NULL. */
static const bc_cmp_row *row_for(const sides *s, int i, const bc_rgroup *g, const char *metric)
{
	const bc_cmp *c = &s->cmp[i];
	for (size_t r = s->first[i][g - s->a->groups]; r < c->nrows && c->rows[r].ga == g; r++)
		if (!strcmp(c->rows[r].ma->name, metric))
			return &c->rows[r];
	return NULL;
}

static const bc_rmetric *metric_of(const bc_rgroup *g, const bc_tab_opts *t)
{
	return t->metric ? bc_group_metric(g, t->metric) : bc_primary_metric(g);
}


static void header(tab *t, const bc_results *res, int n, const char *first)
{
	char *row[MAX_SIDES + 2];
	row[0] = bc_xstrdup(first);
	for (int i = 0; i < n; i++)
		row[i + 1] = bc_xstrdup(res[i].label);
	bc_tab_row(t, row);
}

/* ------------------------------------------------------------ --table */

/* The n cells of metric name of group g (of res[0]) in cells[0..n): the
   baseline's mean ±interval, then each file's with its verdict against it;
   "-" where a file has no matched case or the case no such metric. */
static void metric_cells(const sides *s, const bc_rgroup *g, const char *name, char **cells)
{
	const bc_rmetric *m = bc_group_metric(g, name);
	bc_summary sa;
	if (!m || !m->n) {
		for (int i = 0; i < s->n; i++)
			cells[i] = bc_xstrdup("-");
		return;
	}
	bc_stats_summary(m->values, m->n, &sa);
	cells[0] = value_text(&sa);
	for (int i = 1; i < s->n; i++) {
		const bc_cmp_row *r = row_for(s, i, g, m->name);
		if (!r) {
			cells[i] = bc_xstrdup("-");
			continue;
		}
		char *v = value_text(&r->sb), b[BC_DOUBLE_TEXT];
		cells[i] = bc_xasprintf("%s %s %s%%", v, bc_row_verdict(r), bc_fmt_fig(100 * r->change, 1, 1, b, sizeof(b)));
		free(v);
	}
}

/* Whether the table has a row for g: a metric of names (or its headline). */
static int shown(const bc_rgroup *g, char **names, const bc_tab_opts *t)
{
	if (!names)
		return metric_of(g, t) && metric_of(g, t)->n;
	for (size_t k = 0; names[k]; k++) {
		const bc_rmetric *m = bc_group_metric(g, names[k]);
		if (m && m->n)
			return 1;
	}
	return 0;
}

/* The rows of module's facts that differ between the files (bc_tab_facts):
   "MODULE info: KEY", each file's value in each column group. */
static void fact_rows(tab *tb, json_t *facts, const char *module, int nfiles, size_t groups)
{
	const char *k;
	json_t *vals;
	size_t l = strlen(module);
	json_object_foreach(facts, k, vals) {
		if (strncmp(k, module, l) || k[l] != '.')
			continue;
		char *row[1 + BC_TAB_MAX_METRICS * MAX_SIDES], *key = bc_printable(k + l + 1);
		row[0] = bc_xasprintf("%s info: %s", module, key);
		free(key);
		for (size_t gi = 0; gi < groups; gi++)
			for (int i = 0; i < nfiles; i++) {
				const char *v = json_string_value(json_array_get(vals, (size_t)i));
				row[1 + gi * (size_t)nfiles + (size_t)i] = v ? bc_printable(v) : bc_xstrdup("-");
			}
		bc_tab_row(tb, row);
	}
}

/* The header of --table: one column per file, or with several metrics one
   group of them per metric ("sign_per_sec vm1"). */
static void table_header(tab *tb, const bc_results *res, int n, const char *first, char **names, int nm)
{
	if (nm < 2) {
		header(tb, res, n, first);
		return;
	}
	char *row[1 + BC_TAB_MAX_METRICS * MAX_SIDES];
	row[0] = bc_xstrdup(first);
	for (int k = 0; k < nm; k++)
		for (int i = 0; i < n; i++) {
			char *m = bc_printable(names[k]);
			row[1 + k * n + i] = bc_xasprintf("%s %s", m, res[i].label);
			free(m);
		}
	bc_tab_row(tb, row);
}

/* Per row of gs, 1 when it is the last shown row of its module (its facts
   go after it): one pass from the end, so a table stays linear. New array. */
static char *last_of_module(const bc_rgroup **gs, size_t ng, char **names, const bc_tab_opts *t)
{
	char *last = bc_xcalloc(ng + 1, 1);
	json_t *seen = json_object();
	for (size_t k = ng; k-- > 0;)
		if (shown(gs[k], names, t) && !json_object_get(seen, gs[k]->module)) {
			json_object_set_new(seen, gs[k]->module, json_true());
			last[k] = 1;
		}
	json_decref(seen);
	return last;
}

/* What --table and --per-ghz start from: the metrics (--metric, checked)
   and the groups in their rows' order. -1 after a message (names and gs
   then hold nothing). */
static int view_begin(const bc_results *res, int n, const bc_tab_opts *t, char ***names,
		      const bc_rgroup ***gs, size_t *ng)
{
	int nm = bc_tab_metrics(t, res, n, names);
	if (nm < 0)
		return -1;
	*gs = bc_table_groups(res, t, ng);
	if (!*gs) {
		bc_strv_free(*names);
		return -1;
	}
	return nm;
}

int bc_table(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t)
{
	size_t ng;
	char **names;
	const bc_rgroup **gs;
	int nm = view_begin(res, n, t, &names, &gs, &ng);
	if (nm < 0)
		return 2;
	sides s;
	sides_make(&s, res, n, o);
	size_t groups = nm > 1 ? (size_t)nm : 1;
	tab tb = { .ncols = groups * (size_t)s.n + 1 };
	const char *byopt = t->by ? strchr(t->by, '.') + 1 : NULL;
	json_t *labels = bc_label_ctx(&res[0]), *facts = bc_tab_facts(res, s.n);
	table_header(&tb, res, s.n, t->by ? t->by : "case", names, nm);
	char *last = last_of_module(gs, ng, names, t);
	for (size_t k = 0; k < ng; k++) {
		const bc_rgroup *g = gs[k];
		if (!shown(g, names, t))
			continue;
		char *row[1 + BC_TAB_MAX_METRICS * MAX_SIDES], *lab = bc_case_label_in(labels, g, byopt);
		const char *mname = nm > 1 ? NULL : metric_of(g, t)->name;
		if (!mname)
			row[0] = t->by ? bc_xstrdup(lab) : bc_xasprintf("%s%s%s", g->module, *lab ? " " : "", lab);
		else
			row[0] = t->by ? bc_xasprintf("%s %s", lab, mname) :
				 bc_xasprintf("%s%s%s %s", g->module, *lab ? " " : "", lab, mname);
		free(lab);
		for (size_t gi = 0; gi < groups; gi++)
			metric_cells(&s, g, mname ? mname : names[gi], row + 1 + gi * (size_t)s.n);
		bc_tab_row(&tb, row);
		if (last[k])
			fact_rows(&tb, facts, g->module, s.n, groups);
	}
	bc_tab_note(&tb, bc_xasprintf("each cell: mean ±95%% interval of the repeats; after the first column, the "
				   "verdict against %s and the difference%s", res[0].label, json_object_size(facts) ?
				   "; info: a module fact that differs between the files (cases' info)" : ""));
	bc_tab_print(f, &tb, t->format);
	json_decref(labels);
	json_decref(facts);
	sides_free(&s);
	bc_strv_free(names);
	free(last);
	free(gs);
	return 0;
}

/* ---------------------------------------------------- --summary-table */

/* Rows of the summary table, per module: its headline, its fairness, and
   the mean latency of the op classes it records itself (not the core-timed
   "event" of cpu and mem): the rows of the first study's closing table;
   or one named metric (summary_rows = ["redis.p50_ms"]). */
enum { SR_HEAD, SR_FAIR, SR_LAT, SR_N, SR_METRIC = SR_N };

static int summary_kind(const bc_cmp_row *r)
{
	if (r->headline)
		return SR_HEAD;
	if (!strcmp(r->ma->name, "fairness_events_stddev"))
		return SR_FAIR;
	size_t l = strlen(r->ma->name);
	if (r->ma->kind == BC_MK_LATENCY && l > 8 && !strcmp(r->ma->name + l - 8, ".mean_ms") &&
	    strcmp(r->ma->name, "event.mean_ms"))
		return SR_LAT;
	return -1;
}

/* What an item came to for one file against the first (the closing line
   counts them). */
enum { SO_BETTER, SO_WORSE, SO_SAME, SO_MIXED, SO_UNDECIDED, SO_ABSENT, SO_N };

/* An item's cell: who wins, tie, mixed, or undecided, and always which
   verdicts it rests on ("inconclusive (1 tie, 2 inconclusive of 3; needs
   ~8 repeats)"), never "tie or inconclusive". */
static char *item_text(const size_t *v, const size_t *dir, size_t need, const char *la, const char *lb, int *out)
{
	size_t all = 0;
	for (int k = 0; k < BC_V_N; k++)
		all += v[k];
	if (v[BC_V_WIN] && !v[BC_V_LOSS]) {
		*out = SO_BETTER;
		return bc_xasprintf("%s wins (%zu of %zu)", lb, v[BC_V_WIN], all);
	}
	if (v[BC_V_LOSS] && !v[BC_V_WIN]) {
		*out = SO_WORSE;
		return bc_xasprintf("%s wins (%zu of %zu)", la, v[BC_V_LOSS], all);
	}
	if (v[BC_V_WIN]) {
		*out = SO_MIXED;
		return bc_xasprintf("mixed (%zu win, %zu loss of %zu)", v[BC_V_WIN], v[BC_V_LOSS], all);
	}
	if (v[BC_V_TIE] == all) {
		*out = SO_SAME;
		return bc_xasprintf("tie (%zu of %zu)", all, all);
	}
	*out = SO_UNDECIDED;
	if (v[BC_V_SUSPECT] == all)
		return bc_xasprintf("%s (%zu of %zu)", bc_suspect_word(dir[0], dir[1]), all, all);
	char parts[160] = "", more[48] = "";
	size_t len = 0;
	if (v[BC_V_TIE])
		len += (size_t)snprintf(parts + len, sizeof(parts) - len, "%zu tie, ", v[BC_V_TIE]);
	if (v[BC_V_SUSPECT])
		len += (size_t)snprintf(parts + len, sizeof(parts) - len, "%zu %s, ", v[BC_V_SUSPECT],
					bc_suspect_word(dir[0], dir[1]));
	snprintf(parts + len, sizeof(parts) - len, "%zu inconclusive of %zu", v[BC_V_INCONCLUSIVE], all);
	if (need)
		snprintf(more, sizeof(more), "; needs %s%zu repeats", need >= 1000 ? ">" : "~", need);
	return bc_xasprintf("%s (%s%s)", v[BC_V_INCONCLUSIVE] ? "inconclusive" : "undecided", parts, more);
}

/* Whether r has a case of module. */
static int runs_module(const bc_results *r, const char *module)
{
	for (size_t g = 0; g < r->ngroups; g++)
		if (!strcmp(r->groups[g].module, module))
			return 1;
	return 0;
}

/* The modules of the files, the baseline's order first: a new array of
   names owned by res (free() it), *n set. */
static const char **all_modules(const bc_results *res, int n, size_t *nmod)
{
	size_t cap = 0;
	for (int i = 0; i < n; i++)
		cap += res[i].ngroups;
	const char **mods = bc_xcalloc(cap + 1, sizeof(*mods));
	*nmod = 0;
	for (int i = 0; i < n; i++)
		for (size_t g = 0; g < res[i].ngroups; g++) {
			const char *m = res[i].groups[g].module;
			size_t k = 0;
			while (k < *nmod && strcmp(mods[k], m))
				k++;
			if (k == *nmod)
				mods[(*nmod)++] = m;
		}
	return mods;
}

/* The headline's name of module in the first file that ran it. */
static const char *module_headline(const bc_results *res, int n, const char *module)
{
	for (int i = 0; i < n; i++)
		for (size_t g = 0; g < res[i].ngroups; g++)
			if (!strcmp(res[i].groups[g].module, module)) {
				const bc_rmetric *m = bc_primary_metric(&res[i].groups[g]);
				return m ? m->name : "headline";
			}
	return "headline";
}

/* One item of the summary: a module's rows of one kind (or one metric). */
typedef struct sitem {
	char module[128], metric[128];
	int kind;		/* SR_* */
} sitem;

/* One row of the summary table: module's item kind over every side, or
   nothing when no side has a row of that kind and it was not asked for by
   name (its headline row is always there: a module one file did not run
   says so). Counts each side's outcome into tally. */
static void summary_row(tab *tb, const sides *s, const bc_results *res, const sitem *it, int named,
			size_t tally[][SO_N])
{
	size_t cnt[MAX_SIDES][BC_V_N] = { { 0 } }, dir[MAX_SIDES][2] = { { 0 } }, need[MAX_SIDES] = { 0 }, any = 0;
	const char *name = NULL, *mod = it->module;
	for (int i = 1; i < s->n; i++)
		for (size_t r = 0; r < s->cmp[i].nrows; r++) {
			const bc_cmp_row *row = &s->cmp[i].rows[r];
			if (strcmp(row->ga->module, mod))
				continue;
			if (it->kind == SR_METRIC ? strcmp(row->ma->name, it->metric) : summary_kind(row) != it->kind)
				continue;
			cnt[i][row->verdict]++;
			if (row->verdict == BC_V_SUSPECT)
				dir[i][row->direction != BC_V_WIN]++;
			if (row->verdict == BC_V_INCONCLUSIVE && row->need_n > need[i])
				need[i] = row->need_n;
			any++;
			if (!name)
				name = row->ma->name;
		}
	if (!any && it->kind != SR_HEAD && !named)
		return;
	char *row[MAX_SIDES + 1];
	row[0] = it->kind == SR_HEAD ? bc_xasprintf("%s %s", mod, name ? name : module_headline(res, s->n, mod)) :
		 it->kind == SR_FAIR ? bc_xasprintf("%s fairness (stddev of events per thread)", mod) :
		 it->kind == SR_LAT ? bc_xasprintf("%s mean latency", mod) : bc_xasprintf("%s %s", mod, it->metric);
	for (int i = 1; i < s->n; i++) {
		size_t all = 0;
		int out = SO_ABSENT;
		for (int v = 0; v < BC_V_N; v++)
			all += cnt[i][v];
		int in_a = runs_module(&res[0], mod), in_b = runs_module(&res[i], mod);
		if (!in_a || !in_b)
			row[i] = bc_xasprintf("not run in %s", in_b ? res[0].label : res[i].label);
		else if (!all)
			row[i] = bc_xasprintf("no case in common with %s", res[0].label);
		else
			row[i] = item_text(cnt[i], dir[i], need[i], res[0].label, res[i].label, &out);
		tally[i][out]++;
	}
	bc_tab_row(tb, row);
}

/* The summary rows asked for: t->summary_rows, else the first file's
   summary_rows setting; a new array of *n items, NULL when none was asked
   for (every item then). -1 in *n after a message naming the bad item. */
static sitem *summary_items(const bc_tab_opts *t, const bc_results *res, int n, size_t *ni, const char *cmd)
{
	char **v = NULL;
	const char *from = "--summary-rows";
	*ni = 0;
	if (t->summary_rows)
		v = bc_split(t->summary_rows, ',');
	else {
		json_t *a = json_object_get(res[0].config, "summary_rows"), *x;
		size_t k;
		if (!json_is_array(a) || !json_array_size(a))
			return NULL;
		from = "the first file's summary_rows";
		v = bc_xcalloc(json_array_size(a) + 1, sizeof(*v));
		json_array_foreach(a, k, x)
			v[k] = bc_xstrdup(json_is_string(x) ? json_string_value(x) : "");
	}
	size_t len = bc_strv_len(v);
	sitem *it = bc_xcalloc(len + 1, sizeof(*it));
	for (size_t k = 0; k < len; k++) {
		const char *dot = strchr(v[k], '.'), *rest = dot ? dot + 1 : "";
		size_t ml = dot ? (size_t)(dot - v[k]) : strlen(v[k]);
		int ok = ml > 0 && ml < sizeof(it->module) && strlen(rest) < sizeof(it->metric);
		if (ok) {
			snprintf(it[k].module, sizeof(it[k].module), "%.*s", (int)ml, v[k]);
			snprintf(it[k].metric, sizeof(it[k].metric), "%s", rest);
			it[k].kind = !*rest || !strcmp(rest, "headline") ? SR_HEAD : !strcmp(rest, "fairness") ? SR_FAIR :
				     !strcmp(rest, "latency") ? SR_LAT : SR_METRIC;
			int run = 0, has = it[k].kind != SR_METRIC;
			for (int i = 0; i < n; i++)
				for (size_t g = 0; g < res[i].ngroups; g++)
					if (!strcmp(res[i].groups[g].module, it[k].module)) {
						run = 1;
						has |= bc_group_metric(&res[i].groups[g], rest) != NULL;
					}
			ok = run && has;
		}
		if (!ok && !t->summary_rows) {	/* the file's own list: a module these files did not run
						   (a part run with --only) is left out, not refused */
			it[k].module[0] = 0;
			continue;
		}
		if (!ok) {
			char *p = bc_printable(v[k]);
			fprintf(stderr, "benchcore %s: %s: item '%s': no file given ran that module or has that "
				"metric (an item is MODULE, MODULE.fairness, MODULE.latency or MODULE.METRIC, e.g. "
				"io.latency, redis.p50_ms)\n", cmd, from, p);
			free(p);
			free(it);
			bc_strv_free(v);
			*ni = (size_t)-1;
			return NULL;
		}
	}
	bc_strv_free(v);
	*ni = len;
	return it;
}

/* The closing line of one file against the first: "c7 better in 5 of 7,
   the same in 2" (the first study's conclusion), from the items' cells. */
static char *closing_line(const bc_results *res, int i, const size_t *t)
{
	static const char *const what[SO_N] = { "better in", "worse in", "the same in", "mixed in",
						"undecided in", "not compared in" };
	size_t all = 0;
	for (int k = 0; k < SO_N; k++)
		all += t[k];
	char *out = bc_xasprintf("%s against %s:", res[i].label, res[0].label), *tmp;
	int first = 1;
	for (int k = 0; k < SO_N; k++) {
		if (!t[k])
			continue;
		tmp = first ? bc_xasprintf("%s %s %s %zu of %zu", out, res[i].label, what[k], t[k], all) :
			      bc_xasprintf("%s, %s %zu", out, what[k], t[k]);
		free(out);
		out = tmp;
		first = 0;
	}
	return out;
}

int bc_summary_table(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t)
{
	size_t ni;
	sitem *items = summary_items(t, res, n, &ni, "compare");
	if (ni == (size_t)-1)
		return 2;
	bc_cmp_opts om = *o;
	om.compare_means = 1;
	sides s;
	sides_make(&s, res, n, &om);
	tab tb = { .ncols = (size_t)s.n };
	size_t tally[MAX_SIDES][SO_N] = { { 0 } };
	char *hrow[MAX_SIDES + 1];
	hrow[0] = bc_xstrdup("item");
	for (int i = 1; i < s.n; i++)
		hrow[i] = bc_xasprintf("%s vs %s", res[i].label, res[0].label);
	bc_tab_row(&tb, hrow);
	if (items) {
		for (size_t k = 0; k < ni; k++)
			if (items[k].module[0])
				summary_row(&tb, &s, res, &items[k], 1, tally);
	} else {
		size_t nmod;
		const char **mods = all_modules(res, s.n, &nmod);	/* the baseline's order, then the others' */
		for (size_t m = 0; m < nmod; m++)
			for (int kind = 0; kind < SR_N; kind++) {
				sitem it = { .kind = kind };
				snprintf(it.module, sizeof(it.module), "%s", mods[m]);
				summary_row(&tb, &s, res, &it, 0, tally);
			}
		free(mods);
	}
	bc_tab_note(&tb, bc_xstrdup("each item over every case (params x threads) of the module: one side wins when "
				 "it wins some and loses none; tie only when every case is equivalent; inconclusive "
				 "says how many cases were a tie and how many undecided"));
	for (int i = 1; i < s.n; i++)
		bc_tab_note(&tb, closing_line(res, i, tally[i]));
	bc_tab_print(f, &tb, t->format);
	sides_free(&s);
	free(items);
	return 0;
}

int bc_tab_check(const char *cmd, const bc_tab_opts *t, const bc_results *res, int n)
{
	char **names;
	size_t ng, ni;
	if (bc_tab_metrics(t, res, n, &names) < 0)
		return -1;
	bc_strv_free(names);
	if (t->by) {
		const bc_rgroup **gs = bc_table_groups(res, t, &ng);
		if (!gs)
			return -1;
		free(gs);
	}
	free(summary_items(t, res, n, &ni, cmd));
	return ni == (size_t)-1 ? -1 : 0;
}

/* ------------------------------------------------------------ --per-ghz */

static double ghz_of(const bc_rgroup *g, int *measured)
{
	*measured = g->freq_n > 0;
	if (g->freq_n)
		return g->freq_sum / (double)g->freq_n / 1000;
	return g->cpu_mhz_n ? g->cpu_mhz_sum / (double)g->cpu_mhz_n / 1000 : NAN;
}

/* The cases of --per-ghz with a clock on both sides, per file: compare's
   row and the clock ratio, judged together (judge/perghz.c) before the
   notes speak. */
typedef struct ghz_tally {
	bc_ghz_case *c[MAX_SIDES];
	const char **mod[MAX_SIDES];	/* each case's module (borrowed) */
	size_t n[MAX_SIDES], cap[MAX_SIDES];
	int nominal;		/* some case had only the kernel's claim */
} ghz_tally;

static void ghz_add(ghz_tally *y, int i, const bc_cmp_row *r, double rf, const char *module)
{
	if (y->n[i] == y->cap[i]) {
		y->cap[i] = y->cap[i] ? 2 * y->cap[i] : 16;
		y->c[i] = bc_xrealloc(y->c[i], y->cap[i], sizeof(*y->c[i]));
		y->mod[i] = bc_xrealloc(y->mod[i], y->cap[i], sizeof(*y->mod[i]));
	}
	y->c[i][y->n[i]] = (bc_ghz_case){ .row = r, .clock_ratio = rf };
	y->mod[i][y->n[i]++] = module;
}

static void ghz_free(ghz_tally *y)
{
	for (int i = 0; i < MAX_SIDES; i++) {
		free(y->c[i]);
		free(y->mod[i]);
	}
}

/* One row of --per-ghz: metric m of group g (of res[0]) on every side. */
static void ghz_row(tab *tb, const sides *s, const bc_rgroup *g, const bc_rmetric *m, const char *lab,
		    ghz_tally *y)
{
	char *row[MAX_SIDES + 2];
	bc_summary sa;
	int meas;
	bc_stats_summary(m->values, m->n, &sa);
	double ga = ghz_of(g, &meas);
	y->nominal |= !meas;
	row[0] = bc_xasprintf("%s%s%s %s", g->module, *lab ? " " : "", lab, m->name);
	/* no clock recorded (an older or foreign file): the value alone, never "@ nan = nan" */
	int ca = ga > 0 && isfinite(ga);
	row[1] = ca ? bc_xasprintf("%.4g @ %.2f = %.4g", sa.mean, ga, sa.mean / ga) :
		bc_xasprintf("%.4g @ no clock recorded", sa.mean);
	for (int i = 1; i < s->n; i++) {
		const bc_cmp_row *r = row_for(s, i, g, m->name);
		if (!r) {
			row[i + 1] = bc_xstrdup("-");
			continue;
		}
		double gb = ghz_of(r->gb, &meas), rt = r->sb.mean / sa.mean, rf = gb / ga;
		double dev = 100 * (rt / rf - 1);
		y->nominal |= !meas;
		if (!ca || !(gb > 0 && isfinite(gb))) {
			row[i + 1] = bc_xasprintf("%.4g @ no clock recorded; x%s", r->sb.mean,
						  bc_fmt_fig(rt, 3, 0, (char[BC_DOUBLE_TEXT]){ 0 }, BC_DOUBLE_TEXT));
			continue;
		}
		if (isfinite(dev) && isfinite(rf) && rf > 0)
			ghz_add(y, i, r, rf, g->module);
		char xr[BC_DOUBLE_TEXT], dv[BC_DOUBLE_TEXT];
		row[i + 1] = bc_xasprintf("%.4g @ %.2f = %.4g; x%s vs clock x%.3f (%s%%)", r->sb.mean, gb,
					  r->sb.mean / gb, bc_fmt_fig(rt, 3, 0, xr, sizeof(xr)), rf,
					  bc_fmt_fig(dev, 1, 1, dv, sizeof(dv)));
	}
	bc_tab_row(tb, row);
}

/* what would decide an undecided pair: "needs ~8 repeats", or, when only the
   measured interference kept the deviation from counting, a quieter run.
   malloc'd. */
static char *ghz_needs(size_t need)
{
	if (!need)
		return bc_xstrdup("the deviation is within what the measured interference could cause: a "
				  "quieter run decides it");
	return bc_xasprintf("needs %s%zu repeats", need >= 1000 ? ">" : "~", need);
}

/* "proportional (2 of 2)", "not proportional (1 of 2)", "undecided (needs ~8
   repeats)" for the cases of module (NULL: all) of side i. malloc'd. */
static char *ghz_word(const ghz_tally *y, int i, const char *module, int *verdict)
{
	bc_ghz_case *sub = bc_xmalloc((y->n[i] ? y->n[i] : 1) * sizeof(*sub));
	size_t m = 0, k[3], need;
	for (size_t j = 0; j < y->n[i]; j++)
		if (!module || !strcmp(y->mod[i][j], module))
			sub[m++] = y->c[i][j];
	int v = bc_ghz_overall(sub, m, k, &need);
	free(sub);
	if (verdict)
		*verdict = v;
	if (v == BC_GHZ_PROPORTIONAL)
		return bc_xasprintf("proportional (%zu of %zu)", k[BC_GHZ_PROPORTIONAL], m);
	if (v == BC_GHZ_NOT)
		return bc_xasprintf("not proportional (%zu of %zu)", k[BC_GHZ_NOT], m);
	char *nd = ghz_needs(need), *w = bc_xasprintf("undecided (%zu of %zu; %s)", k[BC_GHZ_UNDECIDED], m, nd);
	free(nd);
	return w;
}

/* With cases of several modules: "; per module: rsa proportional (2 of 2),
   io not proportional (2 of 2)" for side i; else "". malloc'd. */
static char *ghz_per_module(const ghz_tally *y, int i)
{
	const char *mods[64];
	size_t nm = 0;
	for (size_t j = 0; j < y->n[i]; j++) {
		size_t k = 0;
		while (k < nm && strcmp(mods[k], y->mod[i][j]))
			k++;
		if (k == nm && nm < 64)
			mods[nm++] = y->mod[i][j];
	}
	char *out = bc_xstrdup(""), *tmp;
	for (size_t k = 0; nm > 1 && k < nm; k++) {
		char *w = ghz_word(y, i, mods[k], NULL);
		tmp = bc_xasprintf("%s%s%s %s", out, *out ? ", " : "; per module: ", mods[k], w);
		free(w);
		free(out);
		out = tmp;
	}
	return out;
}

/* The notes of --per-ghz: what the cells say, then per file whether its
   throughput is proportional to the clock (the frequency study's verdict),
   from the judge's interval of each case (judge/perghz.c). */
static void ghz_notes(tab *tb, const bc_results *res, int n, const bc_cmp_opts *o, ghz_tally *y)
{
	bc_tab_note(tb, bc_xasprintf("GHz: the clock measured during each case (cpu_freq)%s; x: ratio to %s; "
				  "(+d%%): how far the throughput ratio is from the clock ratio",
				  y->nominal ? " (some cases only had the kernel's claim, cpu_mhz_mean: not measured)" :
				  "", res[0].label));
	for (int i = 1; i < n; i++) {
		if (!y->n[i]) {
			bc_tab_note(tb, bc_xasprintf("%s against %s: no case has a clock on both sides: whether "
						  "throughput is proportional to it cannot be told", res[i].label,
						  res[0].label));
			continue;
		}
		bc_ghz_judge(o, y->c[i], y->n[i]);
		double worst = 0, tol = 0;
		for (size_t j = 0; j < y->n[i]; j++) {
			if (fabs(y->c[i][j].dev) > fabs(worst))
				worst = y->c[i][j].dev;
			tol = fmax(tol, y->c[i][j].tolerance);
		}
		size_t k[3], need;
		int v = bc_ghz_overall(y->c[i], y->n[i], k, &need);
		char *per = ghz_per_module(y, i), wd[BC_DOUBLE_TEXT], *w;
		bc_fmt_fig(100 * worst, 1, 1, wd, sizeof(wd));
		if (v == BC_GHZ_PROPORTIONAL)
			w = bc_xasprintf("throughput is proportional to the clock (%zu of %zu cases", k[v], y->n[i]);
		else if (v == BC_GHZ_NOT)
			w = bc_xasprintf("throughput is not proportional to the clock (%zu of %zu cases not, %zu "
					 "undecided", k[v], y->n[i], k[BC_GHZ_UNDECIDED]);
		else {
			char *nd = ghz_needs(need);
			w = bc_xasprintf("whether throughput is proportional to the clock is undecided (%zu of %zu "
					 "cases undecided, %s%s", k[v], y->n[i], nd, need ? " on each side" : "");
			free(nd);
		}
		bc_tab_note(tb, bc_xasprintf("%s against %s: %s; largest deviation %s%%)%s; per case: the %g%% "
					  "interval of the ratio per GHz within +-%g%% is proportional, beyond it "
					  "(significant) not, as compare judges a tie or a difference", res[i].label,
					  res[0].label, w, wd, per, o->level * 100, tol * 100));
		free(w);
		free(per);
	}
}

int bc_per_ghz(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t)
{
	size_t ng;
	char **names;
	const bc_rgroup **gs;
	int nm = view_begin(res, n, t, &names, &gs, &ng);
	if (nm < 0)
		return 2;
	sides s;
	sides_make(&s, res, n, o);
	tab tb = { .ncols = (size_t)s.n + 1 };
	ghz_tally y = { 0 };
	header(&tb, res, s.n, "case (value @ GHz = per GHz)");
	json_t *labels = bc_label_ctx(&res[0]);
	for (size_t k = 0; k < ng; k++) {
		char *lab = bc_case_label_in(labels, gs[k], t->by ? strchr(t->by, '.') + 1 : NULL);
		for (int j = 0; j < (nm ? nm : 1); j++) {	/* several metrics: a row each */
			const bc_rmetric *m = nm ? bc_group_metric(gs[k], names[j]) : bc_primary_metric(gs[k]);
			if (m && m->n)
				ghz_row(&tb, &s, gs[k], m, lab, &y);
		}
		free(lab);
	}
	ghz_notes(&tb, res, s.n, o, &y);
	bc_tab_print(f, &tb, t->format);
	ghz_free(&y);
	json_decref(labels);
	sides_free(&s);
	bc_strv_free(names);
	free(gs);
	return 0;
}

/* -------------------------------------------------------------- --index */

/* The mean of k log ratios: sum, the variance of the sum and the sum of
   var_i^2 / df_i (Welch-Satterthwaite: the degrees of freedom of the sum),
   95% interval from the t distribution at those degrees of freedom. */
static void index_part(double sum, double var, double v2df, size_t k, const char *module, bc_index_part *p)
{
	double m = sum / (double)k, df = v2df > 0 ? var * var / v2df : 1e6;
	double h = (var > 0 ? bc_t_quantile_two_sided(0.05, df) : 0) * sqrt(var) / (double)k;
	*p = (bc_index_part){ .module = module, .index = 100 * exp(m), .low = 100 * exp(m - h),
			      .high = 100 * exp(m + h), .cases = k };
}

/* One headline row on the index's scale: its log ratio turned so that > 0
   is better for B, its variance and degrees of freedom: compare's own
   interval (logs of the values, Welch, Satterthwaite) when it drew one,
   else the delta method from each side's repeats. */
double bc_index_term(const bc_cmp_row *r, double *var, double *df)
{
	double sign = r->ma->higher_is_better ? 1 : -1;
	if (r->has_ci && r->w_log && r->w_df > 0) {
		*var = r->w_se * r->w_se;
		*df = r->w_df;
		return sign * r->w_d;
	}
	double va = r->sa.n > 1 ? r->sa.stddev * r->sa.stddev / (r->sa.n * r->sa.mean * r->sa.mean) : 0;
	double vb = r->sb.n > 1 ? r->sb.stddev * r->sb.stddev / (r->sb.n * r->sb.mean * r->sb.mean) : 0;
	*var = va + vb;
	*df = (double)(r->sa.n + r->sb.n) - 2 > 0 ? (double)(r->sa.n + r->sb.n) - 2 : 1;
	return sign * log(r->sb.mean / r->sa.mean);
}

int bc_index_undecided(const bc_cmp_row *r)
{
	return r->verdict == BC_V_INCONCLUSIVE || r->verdict == BC_V_SUSPECT;
}

size_t bc_index_compute(const bc_cmp *c, bc_index_part *out, size_t max)
{
	size_t np = 0;
	double gsum = 0, gvar = 0, gv2df = 0;
	size_t gk = 0, gund = 0;
	for (size_t i = 0; i < c->nrows && np + 1 < max; i++) {
		const char *mod = c->rows[i].ga->module;
		int first = 1;
		for (size_t j = 0; j < i && first; j++)
			first = !(c->rows[j].headline && !strcmp(c->rows[j].ga->module, mod));
		if (!c->rows[i].headline || !first)
			continue;
		double sum = 0, var = 0, v2df = 0, vi, dfi;
		size_t k = 0, und = 0;
		for (size_t j = i; j < c->nrows; j++) {
			const bc_cmp_row *r = &c->rows[j];
			if (!r->headline || strcmp(r->ga->module, mod) || !(r->sa.mean > 0) || !(r->sb.mean > 0))
				continue;
			sum += bc_index_term(r, &vi, &dfi);
			var += vi;
			v2df += vi * vi / dfi;
			und += bc_index_undecided(r);
			k++;
		}
		if (!k)
			continue;
		index_part(sum, var, v2df, k, mod, &out[np]);
		out[np++].undecided = und;
		/* every module weighs the same in the overall index, however many
		   cases it has (redis's 19 tests do not outvote one cpu case) */
		gsum += log(out[np - 1].index / 100);
		double kk = (double)k * k;
		gvar += var / kk;
		gv2df += v2df / (kk * kk);
		gund += und;
		gk++;
	}
	if (gk) {
		index_part(gsum, gvar, gv2df, gk, NULL, &out[np]);
		out[np].cases = 0;
		for (size_t i = 0; i < np; i++)
			out[np].cases += out[i].cases;
		out[np].undecided = gund;
		np++;
	}
	return np;
}

int bc_index(FILE *f, const bc_results *res, int n, const bc_cmp_opts *o, const bc_tab_opts *t)
{
	sides s;
	sides_make(&s, res, n, o);
	tab tb = { .ncols = (size_t)s.n + 1 };
	bc_index_part parts[MAX_SIDES][65];
	size_t np[MAX_SIDES] = { 0 };
	header(&tb, res, s.n, "index (baseline = 100)");
	for (int i = 1; i < s.n; i++)
		np[i] = bc_index_compute(&s.cmp[i], parts[i], 65);
	/* rows: the modules of the first comparison that has any, then overall */
	int ref = 1;
	while (ref < s.n && !np[ref])
		ref++;
	for (size_t p = 0; ref < s.n && p < np[ref]; p++) {
		const char *mod = parts[ref][p].module;
		char *row[MAX_SIDES + 2];
		row[0] = bc_xstrdup(mod ? mod : "overall (geometric mean of the modules)");
		row[1] = bc_xstrdup("100");
		for (int i = 1; i < s.n; i++) {
			const bc_index_part *x = NULL;
			for (size_t q = 0; q < np[i]; q++)
				if (mod ? parts[i][q].module && !strcmp(parts[i][q].module, mod) : !parts[i][q].module)
					x = &parts[i][q];
			char ix[3][BC_DOUBLE_TEXT], und[48] = "";
			if (x && x->undecided)
				snprintf(und, sizeof(und), ", %zu undecided", x->undecided);
			row[i + 1] = x ? bc_xasprintf("%s [%s, %s] (%zu case%s%s)", bc_fmt_fig(x->index, 1, 0, ix[0], 32),
						      bc_fmt_fig(x->low, 1, 0, ix[1], 32), bc_fmt_fig(x->high, 1, 0, ix[2], 32),
						      x->cases, x->cases == 1 ? "" : "s", und) : bc_xstrdup("-");
		}
		bc_tab_row(&tb, row);
	}
	bc_tab_print(f, &tb, t->format);
	if (t->format == BC_TAB_TEXT) {
		fprintf(f, "\nper module: 100 x the geometric mean of its cases' headline ratios against %s "
			"(lower-is-better metrics turned, so above 100 is better), 95%% interval from compare's own "
			"(Welch on the logs, its degrees of freedom: few repeats widen it); overall: the modules' "
			"geometric mean, each module weighing the same; undecided: cases compare calls "
			"inconclusive or suspect\ncases covered, with compare's verdict:\n", res[0].label);
		for (size_t r = 0; ref < s.n && r < s.cmp[ref].nrows; r++) {
			const bc_cmp_row *row = &s.cmp[ref].rows[r];
			if (row->headline && row->sa.mean > 0 && row->sb.mean > 0)
				fprintf(f, "  %s %s threads=%ld %s: %s%s\n", row->ga->module, row->ga->params_text,
					row->ga->threads, row->ma->name, bc_row_verdict(row),
					bc_index_undecided(row) ? " (undecided)" : "");
		}
	}
	sides_free(&s);
	return 0;
}
