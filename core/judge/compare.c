/* The comparison itself: case matching, verdicts and thread scaling. What
   differs between the two machines is hostdiff.c's, interference's share of
   a verdict interference.c's (both in this room, neither calls back here);
   output formats are views/compare_print.c's, the HTML page
   pages/report.c's: they only present what this file decided. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "hostdiff.h"
#include "interference.h"
#include "util.h"

const char *bc_row_test_name(const bc_cmp *c, const bc_cmp_row *r)
{
	if (!r->tested)
		return "none";
	if (c->opts.test == BC_TEST_WELCH)
		return r->log_scale ? "welch-log" : "welch";
	return r->test.method == BC_MWU_EXACT ? "mwu-exact" : "mwu-normal";
}

/* Most specific first: the user's per-metric value, the user's per-kind
   value, the module's declaration (case.thresholds), the kind's default. */
static double pick_threshold(const bc_cmp_opts *o, const bc_rgroup *g, const bc_rmetric *m,
			     int kind, const char **src)
{
	json_t *decl = json_object_get(g->thresholds, m->name);

	for (size_t i = 0; i < o->nover; i++)
		if (strcmp(o->over[i].name, m->name) == 0) {
			*src = "--threshold-for";
			return o->over[i].frac;
		}
	for (size_t i = 0; i < o->nover; i++)
		if (strcmp(o->over[i].name, bc_kind_name(kind)) == 0) {
			*src = "--threshold-for";
			return o->over[i].frac;
		}
	if (json_is_number(decl)) {
		*src = "module";
		return json_number_value(decl) / 100;
	}
	*src = "default";
	return o->kind_threshold[kind];
}

/* Too few repeats for the test to ever reach alpha: say how many it needs
   instead of reporting a meaningless p. For MWU the best possible two-sided
   p with n1, n2 values is 2 / C(n1+n2, n1) (all of one sample above the
   other), so 3 against 3 can never go below 0.1. */
static int too_few(const bc_cmp_opts *o, bc_cmp_row *r, size_t na, size_t nb)
{
	size_t need = o->test == BC_TEST_WELCH ? 2 : bc_mwu_needed_n(o->alpha);

	if (na >= 2 && nb >= 2 && (o->test == BC_TEST_WELCH || bc_mwu_min_p(na, nb) <= o->alpha))
		return 0;
	r->need_n = need;
	snprintf(r->reason, sizeof(r->reason), "needs >=%zu repeats on each side (has %zu and %zu)",
		 need, na, nb);
	return 1;
}

/* Welch on the logs when every value is positive: benchmark metrics are
   rates and times whose noise is multiplicative (a slow repeat is 10%
   slower, not 100 events/s slower), and the verdict judges a ratio. */
static void run_welch(bc_cmp_row *r)
{
	const bc_rmetric *a = r->ma, *b = r->mb;
	double *la = bc_xmalloc(a->n * sizeof(*la)), *lb = bc_xmalloc(b->n * sizeof(*lb));
	int pos = 1;

	for (size_t i = 0; pos && i < a->n; i++)
		pos = a->values[i] > 0 ? (la[i] = log(a->values[i]), 1) : 0;
	for (size_t i = 0; pos && i < b->n; i++)
		pos = b->values[i] > 0 ? (lb[i] = log(b->values[i]), 1) : 0;
	r->log_scale = pos;
	if (pos)
		r->tested = bc_welch(la, a->n, lb, b->n, &r->test) == 0;
	else
		r->tested = bc_welch(a->values, a->n, b->values, b->n, &r->test) == 0;
	free(la);
	free(lb);
}

static int all_positive(const bc_rmetric *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (!(m->values[i] > 0))
			return 0;
	return 1;
}

/* Mean and sample variance of the values, or of their logs. */
static void moments(const bc_rmetric *m, int logs, double *mean, double *var)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < m->n; i++)
		s += logs ? log(m->values[i]) : m->values[i];
	*mean = s / m->n;
	for (size_t i = 0; i < m->n; i++) {
		double x = (logs ? log(m->values[i]) : m->values[i]) - *mean;
		q += x * x;
	}
	*var = m->n > 1 ? q / (m->n - 1) : 0;
}

/* The confidence interval of the change B/A - 1 at o->level, Welch-type:
   on the logs when every value is positive (the exp of the interval of the
   difference of the log means is an interval of the ratio of the geometric
   means, and multiplicative noise is symmetric there), else the difference
   of the means as a fraction of |mean A| (A's mean taken as exact).
   Satterthwaite's degrees of freedom: the two sides may differ in spread. */
static void interval(const bc_cmp_opts *o, bc_cmp_row *r)
{
	const bc_rmetric *a = r->ma, *b = r->mb;
	double ma, va, mb, vb, scale = 1, ea, eb, t;

	if (a->n < 2 || b->n < 2)
		return;
	r->w_log = all_positive(a) && all_positive(b);
	moments(a, r->w_log, &ma, &va);
	moments(b, r->w_log, &mb, &vb);
	if (!r->w_log && (scale = fabs(r->sa.mean)) == 0 && (scale = fabs(r->sb.mean)) == 0) {
		/* nothing to scale by: only "identical" can be said (fairness 0) */
		r->has_ci = va == 0 && vb == 0 && ma == mb;
		r->ci_lo = r->ci_hi = 0;
		return;
	}
	ea = va / a->n;
	eb = vb / b->n;
	r->w_d = (mb - ma) / scale;
	r->w_s = sqrt((va + vb) / 2) / scale;
	r->w_se = sqrt(ea + eb) / scale;
	r->w_df = ea + eb > 0 ? (ea + eb) * (ea + eb) / (ea * ea / (a->n - 1) + eb * eb / (b->n - 1))
			      : (double)(a->n + b->n - 2);
	t = r->w_se > 0 ? bc_t_quantile_two_sided(1 - o->level, r->w_df) : 0;
	r->ci_lo = r->w_d - t * r->w_se;
	r->ci_hi = r->w_d + t * r->w_se;
	if (r->w_log) {
		r->ci_lo = expm1(r->ci_lo);
		r->ci_hi = expm1(r->ci_hi);
	}
	r->has_ci = 1;
}

/* First pass: everything that does not depend on the other rows. */
static void measure_row(const bc_cmp_opts *o, bc_cmp_row *r)
{
	const bc_rmetric *a = r->ma, *b = r->mb;

	bc_stats_summary(a->values, a->n, &r->sa);
	bc_stats_summary(b->values, b->n, &r->sb);
	r->p_adj = NAN;
	r->ci_lo = r->ci_hi = NAN;
	if (a->n && b->n && all_positive(a) && all_positive(b)) {
		/* the ratio of the geometric means: the centre of the interval,
		   which is on the logs whenever every value is positive */
		double ma, va, mb, vb;
		moments(a, 1, &ma, &va);
		moments(b, 1, &mb, &vb);
		r->ratio = exp(mb - ma);
		r->change = expm1(mb - ma);
	} else if (r->sa.mean != 0) {
		r->ratio = r->sb.mean / r->sa.mean;
		r->change = r->ratio - 1;
		if (r->sa.mean < 0)	/* keep "change > 0" meaning "B is larger" */
			r->change = -r->change;
	} else {
		r->ratio = r->sb.mean == 0 ? 1 : NAN;
		r->change = r->sb.mean > 0 ? INFINITY : r->sb.mean < 0 ? -INFINITY : 0;
	}
	r->kind = bc_threshold_kind(a);
	r->headline = a == bc_primary_metric(r->ga);
	r->threshold = pick_threshold(o, r->ga, a, r->kind, &r->threshold_src);
	interval(o, r);
	bc_row_interference(o, r);
	if (too_few(o, r, a->n, b->n))
		return;
	if (o->test == BC_TEST_WELCH)
		run_welch(r);
	else
		r->tested = bc_mwu(a->values, a->n, b->values, b->n, &r->test) == 0;
	if (!r->tested)
		snprintf(r->reason, sizeof(r->reason), "test failed");
}

/* A change's place on the interval's working scale. */
static double on_scale(const bc_cmp_row *r, double change)
{
	if (!r->w_log)
		return change;
	return change > -1 ? log1p(change) : -INFINITY;
}

/* Repeats per side that would likely resolve an inconclusive row, from its
   own estimate and spread: enough that the interval clears the threshold
   (or fits inside it) with 80% probability, and for a difference also
   that the test reaches alpha. The usual sample-size formula
   n = 2 s^2 (q + z_0.8)^2 / gap^2, with q refined twice for the t
   quantile at the new degrees of freedom. */
static size_t repeats_needed(const bc_cmp_opts *o, const bc_cmp_row *r)
{
	double hi = on_scale(r, r->threshold), lo = on_scale(r, -r->threshold), d = r->w_d;
	double gap, nn = 2, z80 = 0.8416;
	int inside = d > lo && d < hi;
	size_t n = r->sa.n < r->sb.n ? r->sa.n : r->sb.n;

	if (!r->has_ci || !(r->w_s > 0))
		return n < BC_TIE_MIN_N ? BC_TIE_MIN_N : n + 1;
	gap = inside ? fmin(hi - d, d - lo) : d >= hi ? d - hi : lo - d;
	for (int i = 0; i < 3 && gap > 0; i++) {
		double df = fmax(1, 2 * nn - 2);
		double q = bc_t_quantile_two_sided(1 - o->level, df) + z80;
		nn = 2 * r->w_s * r->w_s * q * q / (gap * gap);
		if (!inside) {	/* the test too, unadjusted: a lower bound */
			double qs = bc_t_quantile_two_sided(o->alpha, df) + z80;
			nn = fmax(nn, 2 * r->w_s * r->w_s * qs * qs / (d * d));
		}
		if (!(nn < 1000))
			return 1000;
	}
	if (!(gap > 0))
		return 1000;
	nn = ceil(nn);
	if (nn <= n)
		nn = n + 1;
	if (nn < BC_TIE_MIN_N)
		nn = BC_TIE_MIN_N;
	return (size_t)nn;
}

/* "+1.2% (90% CI +0.3% .. +2.1%)" */
static void change_text(const bc_cmp_opts *o, const bc_cmp_row *r, char *buf, size_t n)
{
	if (!isfinite(r->change))
		snprintf(buf, n, "change n/a");
	else if (r->has_ci && isfinite(r->ci_lo))
		snprintf(buf, n, "%+.1f%% (%g%% CI %+.1f%% .. %+.1f%%)", r->change * 100,
			 o->level * 100, r->ci_lo * 100, r->ci_hi * 100);
	else
		snprintf(buf, n, "%+.1f%% (no interval)", r->change * 100);
}

/* The two files come from one machine: the same host name, CPU model and
   CPU id (a kernel or a library may differ: that is what is compared). */
static int same_machine(const bc_results *ra, const bc_results *rb)
{
	static const char *const keys[] = { "hostname", "cpu_model", "cpu_id" };
	for (size_t i = 0; i < 3; i++) {
		json_t *a = json_object_get(ra->host, keys[i]), *b = json_object_get(rb->host, keys[i]);
		if (!a || !json_equal(a, b))
			return 0;
	}
	return 1;
}

/* A win or loss on one machine whose measured clock moved: per GHz (rates
   scale with the clock, times with its inverse), is the change still
   beyond the threshold? The probe itself wanders ~1%: smaller moves are
   not looked at. */
static int clock_explains(const bc_cmp_row *r, double *per_ghz)
{
	double cc = r->clock_change;
	if (!isfinite(cc) || fabs(cc) <= 0.01 || !isfinite(r->change))
		return 0;
	*per_ghz = r->ma->higher_is_better ? (1 + r->change) / (1 + cc) - 1 : (1 + r->change) * (1 + cc) - 1;
	return fabs(*per_ghz) < r->threshold;
}

/* Second pass, after the adjustment: the verdict from the interval. */
static void judge_row(const bc_cmp_opts *o, bc_cmp_row *r)
{
	double t = r->threshold;
	size_t n = r->sa.n < r->sb.n ? r->sa.n : r->sb.n;
	int inside = r->has_ci && r->ci_lo > -t && r->ci_hi < t;
	int beyond = r->has_ci && (r->ci_lo > t || r->ci_hi < -t);
	char ch[160], more[24] = "";

	change_text(o, r, ch, sizeof(ch));
	r->verdict = BC_V_INCONCLUSIVE;
	if (inside && n >= BC_TIE_MIN_N) {
		r->verdict = BC_V_TIE;
		snprintf(r->reason, sizeof(r->reason), "equivalent: %s within the %g%% %s threshold",
			 ch, t * 100, bc_kind_name(r->kind));
		return;
	}
	if (!r->tested)
		return;		/* too few repeats: reason and need_n set by measure_row() */
	if (r->p_adj < o->alpha && beyond) {
		r->direction = (r->ma->higher_is_better ? r->change > 0 : r->change < 0) ?
			       BC_V_WIN : BC_V_LOSS;
		r->verdict = r->direction;
		int suspect = bc_interference_explains(o, r);
		double ghz;
		if (!suspect && clock_explains(r, &ghz)) {
			snprintf(r->reason, sizeof(r->reason), "%s on one machine whose measured clock moved "
				 "%+.1f%% between the runs: per GHz %+.1f%%, within the %g%% threshold",
				 bc_verdict_name(r->direction), r->clock_change * 100, ghz * 100, t * 100);
			suspect = 1;
		}
		if (suspect)
			r->verdict = BC_V_SUSPECT;
		return;
	}
	r->need_n = repeats_needed(o, r);
	snprintf(more, sizeof(more), "%s%zu", r->need_n >= 1000 ? ">" : "~", r->need_n);
	if (inside)
		snprintf(r->reason, sizeof(r->reason), "%s within the %g%% %s threshold, but a tie "
			 "needs >=%d repeats on each side", ch, t * 100, bc_kind_name(r->kind),
			 BC_TIE_MIN_N);
	else if (!(r->p_adj < o->alpha))
		snprintf(r->reason, sizeof(r->reason), "not significant (p adj %.3g >= %g): %s%s%g%% "
			 "%s threshold; needs %s repeats", r->p_adj, o->alpha, ch,
			 beyond ? " beyond the " : " reaches across the ", t * 100,
			 bc_kind_name(r->kind), more);
	else
		snprintf(r->reason, sizeof(r->reason), "%s reaches across the %g%% %s threshold; "
			 "needs %s repeats", ch, t * 100, bc_kind_name(r->kind), more);
}

static void first_pass(const bc_cmp_opts *o, const bc_rgroup *ga, const bc_rgroup *gb,
		       const bc_rmetric *ma, const bc_rmetric *mb, int one_machine, bc_cmp_row *r)
{
	*r = (bc_cmp_row){ .ga = ga, .gb = gb, .ma = ma, .mb = mb, .clock_change = NAN, .busy_pct = -1 };
	measure_row(o, r);
	if (one_machine && ga->freq_n && gb->freq_n && ga->freq_sum > 0)
		r->clock_change = (gb->freq_sum / (double)gb->freq_n) / (ga->freq_sum / (double)ga->freq_n) - 1;
}

/* one_machine: same_machine(c), judged once for the pair */
static void add_row(bc_cmp *c, const bc_rgroup *ga, const bc_rgroup *gb,
		    const bc_rmetric *ma, const bc_rmetric *mb, size_t *cap, int one_machine)
{
	if (c->nrows == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		c->rows = bc_xrealloc(c->rows, *cap, sizeof(*c->rows));
	}
	first_pass(&c->opts, ga, gb, ma, mb, one_machine, &c->rows[c->nrows++]);
}

/* The family is every tested row of this pair: a compare of 8 cases x 6
   metrics makes 48 tests, and at alpha 0.05 two or three of them come out
   "significant" by chance alone. Weighted Benjamini-Hochberg (Genovese,
   Roeder and Wasserman 2006: BH on p / w with weights averaging 1 keeps the
   false discovery rate at alpha over all tests) gives half of the budget to
   the headline metrics, the question the user asked of each case, and half
   to the details. Unweighted, one real 5% difference among 48 tests would
   need p < 0.001, out of reach of 5 repeats with 1% noise. */
static void adjust_and_judge(bc_cmp *c)
{
	double *p = bc_xmalloc(c->nrows * sizeof(*p)), wh = 1, ws = 1;
	size_t nh = 0;

	for (size_t i = 0; i < c->nrows; i++) {
		c->ntested += c->rows[i].tested;
		nh += c->rows[i].tested && c->rows[i].headline;
	}
	if (nh && nh < c->ntested) {
		wh = c->ntested / (2.0 * nh);
		ws = c->ntested / (2.0 * (c->ntested - nh));
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const bc_cmp_row *r = &c->rows[i];
		p[i] = r->tested ? fmin(1, r->test.p / (r->headline ? wh : ws)) : NAN;
	}
	bc_p_adjust(p, p, c->nrows, c->opts.adjust);
	for (size_t i = 0; i < c->nrows; i++) {
		bc_cmp_row *r = &c->rows[i];
		r->p_adj = p[i];
		judge_row(&c->opts, r);
		c->count[r->verdict]++;
		(r->headline ? c->count_head : c->count_sec)[r->verdict]++;
	}
	free(p);
}

static const bc_rgroup **push_group(const bc_rgroup **v, size_t *n, const bc_rgroup *g)
{
	v = bc_xrealloc(v, *n + 1, sizeof(*v));
	v[(*n)++] = g;
	return v;
}

/* busy_threshold: the runs' own setting when both say the same */
static void pair_busy(const bc_results *a, const bc_results *b, bc_cmp_opts *o)
{
	json_t *ta = json_object_get(a->config, "busy_threshold"), *tb = json_object_get(b->config, "busy_threshold");
	if (!o->busy_set && json_is_number(ta) && json_is_number(tb) &&
	    json_number_value(ta) == json_number_value(tb) && json_number_value(ta) >= 0 &&
	    json_number_value(ta) <= 100)
		o->busy_pct = json_number_value(ta);
}

int bc_compare_decided(const bc_results *baseline, const bc_results *run, const bc_rgroup *g)
{
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	const bc_rgroup *ga = bc_results_match(baseline, run, g, NULL);
	const bc_rmetric *ma = ga ? bc_primary_metric(ga) : NULL, *mb = ma ? bc_group_metric(g, ma->name) : NULL;
	bc_cmp_row r;
	if (!mb || !ma->n || !mb->n)
		return 0;
	pair_busy(baseline, run, &o);
	first_pass(&o, ga, g, ma, mb, same_machine(baseline, run), &r);
	/* the family's adjustment, whatever the cases still to come: weighted
	   BH gives a headline row p_adj <= p x 2 x (headline rows), and there
	   are at most as many as the baseline has groups */
	r.p_adj = r.tested ? fmin(1, r.test.p * 2 * (double)(baseline->ngroups ? baseline->ngroups : 1)) : NAN;
	judge_row(&o, &r);
	return r.verdict == BC_V_WIN || r.verdict == BC_V_LOSS || r.verdict == BC_V_TIE;
}

void bc_compare_pair(const bc_results *a, const bc_results *b,
		     const bc_cmp_opts *o, bc_cmp *out)
{
	size_t cap = 0;
	char *ignore[BC_CMP_MAX_OVERRIDES + 1] = { NULL };

	*out = (bc_cmp){ .a = a, .b = b, .opts = *o };
	pair_busy(a, b, &out->opts);
	int one_machine = same_machine(a, b);
	for (size_t i = 0; i < o->nignore; i++)
		ignore[i] = (char *)o->ignore[i];
	for (size_t i = 0; i < a->ngroups; i++) {
		const bc_rgroup *ga = &a->groups[i];
		const bc_rgroup *gb = bc_results_match(b, a, ga, ignore);
		if (!gb) {
			out->only_a = push_group(out->only_a, &out->nonly_a, ga);
			continue;
		}
		for (size_t j = 0; j < ga->nmetrics; j++) {
			const bc_rmetric *ma = &ga->metrics[j];
			const bc_rmetric *mb = bc_group_metric(gb, ma->name);
			int judged = ma->compared || (o->compare_means && ma->pct && !strcmp(ma->pct, "mean"));
			if (judged && mb && ma->n && mb->n)
				add_row(out, ga, gb, ma, mb, &cap, one_machine);
		}
	}
	for (size_t i = 0; i < b->ngroups; i++) {
		const bc_rgroup *gb = &b->groups[i];
		if (!bc_results_match(a, b, gb, ignore))
			out->only_b = push_group(out->only_b, &out->nonly_b, gb);
	}
	adjust_and_judge(out);
	/* the machines and what the modules recorded about their libraries,
	   servers and targets (MODULE.KEY from each case's info) */
	out->host_diff = bc_facts_diff(a, b);
}

bc_cmp_item *bc_cmp_items(const bc_cmp *c, size_t *n)
{
	bc_cmp_item *it = calloc(c->nrows ? c->nrows : 1, sizeof(*it));

	if (!it)
		abort();
	*n = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const bc_cmp_row *r = &c->rows[i];
		size_t k = 0;
		while (k < *n && (strcmp(it[k].module, r->ga->module) || strcmp(it[k].metric, r->ma->name)))
			k++;
		if (k == *n)
			it[(*n)++] = (bc_cmp_item){ .module = r->ga->module, .metric = r->ma->name };
		it[k].count[r->verdict]++;
		if (r->verdict == BC_V_SUSPECT)
			*(r->direction == BC_V_WIN ? &it[k].suspect_win : &it[k].suspect_loss) += 1;
	}
	for (size_t k = 0; k < *n; k++) {
		const size_t *v = it[k].count;
		it[k].result = v[BC_V_WIN] && !v[BC_V_LOSS] ? BC_ITEM_B_WINS :
			       v[BC_V_LOSS] && !v[BC_V_WIN] ? BC_ITEM_A_WINS :
			       v[BC_V_WIN] ? BC_ITEM_MIXED :
			       v[BC_V_SUSPECT] ? BC_ITEM_SUSPECT :
			       /* "the same" only when every case of it is */
			       v[BC_V_TIE] && !v[BC_V_INCONCLUSIVE] ? BC_ITEM_TIE : BC_ITEM_INCONCLUSIVE;
	}
	return it;
}

static double magnitude(const bc_cmp_row *r)
{
	return r->ratio > 0 ? fabs(log(r->ratio)) : fabs(r->change);
}

size_t bc_cmp_largest(const bc_cmp *c, size_t *idx, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nrows; i++) {
		const bc_cmp_row *r = &c->rows[i];
		size_t k;
		if (!r->headline || !isfinite(r->change) || r->change == 0)
			continue;
		for (k = n; k > 0 && magnitude(&c->rows[idx[k - 1]]) < magnitude(r); k--)
			if (k < max)
				idx[k] = idx[k - 1];
		if (k < max) {
			idx[k] = i;
			n += n < max;
		}
	}
	return n;
}

void bc_cmp_free(bc_cmp *c)
{
	free(c->rows);
	free(c->only_a);
	free(c->only_b);
	json_decref(c->host_diff);
	*c = (bc_cmp){ 0 };
}

void bc_cmp_matching_note(FILE *f, const bc_cmp_opts *o)
{
	fputs("matching: module, params and threads; options that say where a workload ran "
	      "(placement: server, path, socket...) are left out when that leaves one case to match", f);
	for (size_t i = 0; i < o->nignore; i++)
		fprintf(f, "%s%s", i ? ", " : "; left out too (--match-ignore): ", o->ignore[i]);
	fputc('\n', f);
}

static int cmp_point(const void *x, const void *y)
{
	const bc_scale_point *a = x, *b = y;
	return (a->threads > b->threads) - (a->threads < b->threads);
}

size_t bc_scaling(const bc_results *r, const char *module, const char *params_key,
		  const char *metric, bc_scale_point *pts, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ngroups && n < max; i++) {
		const bc_rgroup *g = &r->groups[i];
		const bc_rmetric *m;
		bc_summary s;
		if (strcmp(g->module, module) || strcmp(g->params_key, params_key))
			continue;
		m = bc_group_metric(g, metric);
		if (!m || !m->n)
			continue;
		bc_stats_summary(m->values, m->n, &s);
		pts[n++] = (bc_scale_point){ .threads = g->threads, .mean = s.mean };
	}
	qsort(pts, n, sizeof(*pts), cmp_point);
	for (size_t i = 0; i < n; i++) {
		double base = pts[0].mean;
		pts[i].speedup = base != 0 ? pts[i].mean / base : NAN;
		pts[i].efficiency = pts[i].speedup * pts[0].threads / pts[i].threads;
	}
	return n;
}

size_t bc_repeats_needed(const bc_cmp_opts *o, const bc_cmp_row *r)
{
	return repeats_needed(o, r);
}

int bc_cmp_interference_cause(const bc_cmp *c, char *buf, size_t n)
{
	double sa = -1, sb = -1;
	for (size_t i = 0; i < c->nrows; i++) {
		sa = fmax(sa, c->rows[i].share_a);
		sb = fmax(sb, c->rows[i].share_b);
	}
	int ha = sa >= c->opts.busy_pct, hb = sb >= c->opts.busy_pct;
	*buf = 0;
	if (!ha && !hb)
		return 0;
	if (ha && hb)
		snprintf(buf, n, "interference (steal and other processes took %.0f%% of A's CPUs' time, %.0f%% "
			 "of B's)", sa, sb);
	else
		snprintf(buf, n, "interference (steal and other processes took %.0f%% of %s's CPUs' time)",
			 ha ? sa : sb, ha ? "A" : "B");
	return 1;
}
