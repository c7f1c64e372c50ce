/* The report's sections (casesets.h): compare's match, file by file. */
#include <string.h>
#include "casesets.h"

/* Whether file i's case (module, pk) is a set's already. */
static int claimed(const bc_case_set *s, size_t ns, int i, const char *module, const char *pk)
{
	for (size_t k = 0; k < ns; k++)
		if (s[k].pk[i] && !strcmp(s[k].module, module) && !strcmp(s[k].pk[i], pk))
			return 1;
	return 0;
}

/* File j's case of set k: the first of file i's groups of it (any thread
   count) that compare matches in file j, when no other set has that case. */
static void match_into(const bc_case_set *sets, size_t ns, bc_case_set *k, const bc_results *res, int i, int j,
		       char *const *ignore)
{
	for (size_t g = 0; g < res[i].ngroups && !k->pk[j]; g++) {
		const bc_rgroup *gi = &res[i].groups[g], *gj;
		if (strcmp(gi->module, k->module) || strcmp(gi->params_key, k->pk[i]))
			continue;
		gj = bc_results_match(&res[j], &res[i], gi, ignore);
		if (gj && !claimed(sets, ns, j, gj->module, gj->params_key)) {
			k->pk[j] = gj->params_key;
			k->pt[j] = gj->params_text;
		}
	}
}

size_t bc_case_sets(const bc_results *res, int n, const bc_cmp_opts *o, bc_case_set *out, size_t max)
{
	char *ignore[BC_CMP_MAX_OVERRIDES + 1] = { NULL };
	size_t ns = 0;

	for (size_t i = 0; i < o->nignore; i++)	/* as bc_compare_pair matches */
		ignore[i] = (char *)o->ignore[i];
	if (n > BC_CASES_MAX_FILES)
		n = BC_CASES_MAX_FILES;
	for (int i = 0; i < n; i++)
		for (size_t g = 0; g < res[i].ngroups && ns < max; g++) {
			const bc_rgroup *gr = &res[i].groups[g];
			if (claimed(out, ns, i, gr->module, gr->params_key))
				continue;
			bc_case_set *k = &out[ns];
			*k = (bc_case_set){ .module = gr->module };
			k->pk[i] = gr->params_key;
			k->pt[i] = gr->params_text;
			for (int j = i + 1; j < n; j++)
				match_into(out, ns, k, res, i, j, ignore);
			ns++;
		}
	return ns;
}
