/* The per-GHz verdict (perghz.h): compare's interval of each row, moved by
   the clock ratio, judged as compare.c judges a tie or a difference. */
#include <math.h>
#include <stdlib.h>
#include "interference.h"
#include "perghz.h"
#include "util.h"

/* x (a change B/A - 1) per GHz: rates over the clock ratio, times by it. */
static double per_ghz(double x, double rf, int hib)
{
	return hib ? (1 + x) / rf - 1 : (1 + x) * rf - 1;
}

/* r moved onto the per-GHz scale: the estimate, the interval and the
   spread (for the repeats it needs) as compare computed them, divided by
   the clock ratio. */
static void shifted(const bc_cmp_row *r, double rf, bc_cmp_row *s)
{
	int hib = r->ma->higher_is_better;
	*s = *r;
	s->change = per_ghz(r->change, rf, hib);
	if (!r->has_ci)
		return;
	s->ci_lo = per_ghz(r->ci_lo, rf, hib);
	s->ci_hi = per_ghz(r->ci_hi, rf, hib);
	if (r->w_log) {
		s->w_d = r->w_d + (hib ? -log(rf) : log(rf));
	} else {
		double k = hib ? 1 / rf : rf;
		s->w_d = per_ghz(r->w_d, rf, hib);
		s->w_s = r->w_s * k;
		s->w_se = r->w_se * k;
	}
}

/* a deviation per GHz beyond the tolerance that the interference measured
   on the hit side could cause is no "not proportional" (compare calls such a
   difference suspect): undecided */
static int interference_explains(const bc_cmp_opts *o, bc_cmp_row *s)
{
	s->direction = (s->ma->higher_is_better ? s->change > 0 : s->change < 0) ? BC_V_WIN : BC_V_LOSS;
	return bc_interference_explains(o, s);
}

void bc_ghz_judge(const bc_cmp_opts *o, bc_ghz_case *cs, size_t n)
{
	double *p = bc_xmalloc((n ? n : 1) * sizeof(*p));
	bc_cmp_row *s = bc_xmalloc((n ? n : 1) * sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		const bc_cmp_row *r = cs[i].row;
		shifted(r, cs[i].clock_ratio, &s[i]);
		cs[i].tolerance = fmax(r->threshold, BC_GHZ_TOLERANCE_PCT / 100);
		s[i].threshold = cs[i].tolerance;
		cs[i].dev = s[i].change;
		cs[i].lo = r->has_ci ? s[i].ci_lo : NAN;
		cs[i].hi = r->has_ci ? s[i].ci_hi : NAN;
		p[i] = NAN;
		if (r->has_ci && r->sa.n >= 2 && r->sb.n >= 2)
			p[i] = s[i].w_se > 0 ? bc_t_two_sided_p(s[i].w_d / s[i].w_se, s[i].w_df) :
			       s[i].w_d == 0 ? 1 : 0;
	}
	bc_p_adjust(p, p, n, o->adjust);
	for (size_t i = 0; i < n; i++) {
		bc_ghz_case *c = &cs[i];
		size_t nn = c->row->sa.n < c->row->sb.n ? c->row->sa.n : c->row->sb.n;
		double t = c->tolerance;
		int inside = isfinite(c->lo) && c->lo > -t && c->hi < t;
		int beyond = isfinite(c->lo) && (c->lo > t || c->hi < -t);
		c->p_adj = p[i];
		c->need_n = 0;
		if (inside && nn >= BC_TIE_MIN_N)
			c->verdict = BC_GHZ_PROPORTIONAL;
		else if (beyond && p[i] < o->alpha && !interference_explains(o, &s[i]))
			c->verdict = BC_GHZ_NOT;
		else if (beyond && p[i] < o->alpha)
			c->verdict = BC_GHZ_UNDECIDED;	/* need_n 0: more repeats beside the same load decide nothing */
		else {
			c->verdict = BC_GHZ_UNDECIDED;
			c->need_n = isfinite(c->lo) ? bc_repeats_needed(o, &s[i]) :
				    nn < BC_TIE_MIN_N ? BC_TIE_MIN_N : nn + 1;
		}
	}
	free(p);
	free(s);
}

int bc_ghz_overall(const bc_ghz_case *cs, size_t n, size_t k[3], size_t *need)
{
	k[0] = k[1] = k[2] = 0;
	*need = 0;
	for (size_t i = 0; i < n; i++) {
		k[cs[i].verdict]++;
		if (cs[i].verdict == BC_GHZ_UNDECIDED && cs[i].need_n > *need)
			*need = cs[i].need_n;
	}
	return k[BC_GHZ_NOT] ? BC_GHZ_NOT : n && k[BC_GHZ_PROPORTIONAL] == n ? BC_GHZ_PROPORTIONAL :
	       BC_GHZ_UNDECIDED;
}
