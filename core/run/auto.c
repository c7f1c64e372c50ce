/* repeat = "auto": one case against the rules of steady.h (auto.h); its
   "decided" is the judge's (judge/compare.h), the one verdict rule. */
#include <stdint.h>
#include <stdlib.h>
#include <jansson.h>
#include "results.h"
#include "auto.h"
#include "compare.h"
#include "engine.h"
#include "steady.h"

int bc_auto_look(const bc_results *groups, const bc_results *baseline, const bc_modplan *p, const bc_val *vals,
		 json_t *machine, unsigned threads, bc_auto_case *out)
{
	bc_case c = { .mod = p->mod, .vals = vals, .threads = threads };
	bc_case_result h;
	*out = (bc_auto_case){ .threshold = 0.02, .run = groups, .baseline = baseline };
	bc_case_header(&c, "ok", NULL, &h);
	h.machine = machine ? json_incref(machine) : NULL;
	json_t *kj = bc_case_key(&h);	/* its group's key: the options and the settings (machine.KEY) */
	char *key = json_dumps(kj, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(kj);
	const bc_rgroup *g = key ? bc_results_find(groups, p->mod->desc.name, key, (long)threads) : NULL;
	/* the baseline's case as compare will match it (placement options aside) */
	const bc_rgroup *gb = g && baseline ? bc_results_match(baseline, groups, g, NULL) : NULL;
	free(key);
	bc_case_free(&h);
	if (!g || !(out->hm = bc_primary_metric(g)))
		return 0;
	out->g = g;
	out->bm = gb ? bc_group_metric(gb, out->hm->name) : NULL;
	if (out->bm && out->bm->n < 2)
		out->bm = NULL;	/* nothing to decide against */
	out->threshold = bc_metric_threshold(g, out->hm);	/* compare's, without the user's overrides */
	return 1;
}

const char *bc_auto_stop(const bc_auto_case *a, const bc_runset *run)
{
	const bc_rmetric *hm = a->hm, *bm = a->bm;
	double thr = a->threshold;
	/* futile: far out of max_repeat's reach at its spread so far (the
	   baseline's own spread may be what no repeat here can narrow); the
	   rounds left go to the cases they can decide */
	size_t far = (size_t)BC_FUTILE_FACTOR * run->max_repeat;
	if (bm) {	/* decided against the baseline's case: compare's own verdict */
		if (bc_compare_decided(a->baseline, a->run, a->g))
			return "decided";
		if (hm->n >= 2 && !bc_decided(bm->values, bm->n, hm->values, hm->n, thr, BC_VERDICT_LEVEL, far))
			return "futile";
		return NULL;
	}
	if (bc_precise(hm->values, hm->n, run->min_repeat, thr, BC_PRECISE_FRACTION))
		return "precise";
	if (hm->n >= 2 && bc_repeats_for_precision(hm->values, hm->n, thr, BC_PRECISE_FRACTION, far) == SIZE_MAX)
		return "futile";
	return NULL;
}

size_t bc_auto_expected(const bc_auto_case *a, const bc_runset *run)
{
	const bc_rmetric *hm = a->hm, *bm = a->bm;
	size_t lo = run->min_repeat, hi = run->max_repeat;
	if (hm->n < 2)
		return hi;
	if (hm->n > lo)
		lo = hm->n;
	if (bm) {
		for (size_t n = lo; n <= hi; n++)
			if (bc_decided(bm->values, bm->n, hm->values, hm->n, a->threshold, BC_VERDICT_LEVEL, n))
				return n;
		return hi;
	}
	size_t need = bc_repeats_for_precision(hm->values, hm->n, a->threshold, BC_PRECISE_FRACTION, hi);
	return need == SIZE_MAX ? hi : need > lo ? need : lo;
}
