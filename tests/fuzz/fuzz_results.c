/* libFuzzer target for the results reader and everything downstream of it:
   whatever bc_results_parse() accepts must go through compare (against
   itself), the scaling view and the HTML report without a crash, a leak or
   undefined behaviour. Built and run by tests/fuzz/run_fuzz.sh results. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "compare_print.h"
#include "report.h"

static FILE *sink(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bc_results r[2];
	bc_cmp c;
	bc_cmp_opts o = BC_CMP_OPTS_DEFAULT;
	bc_scale_point pts[64];
	bc_err err;
	size_t n;

	if (bc_results_parse((const char *)data, size, "fuzz.json", &r[0], &err) < 0)
		return 0;
	json_decref(bc_groups_json(&r[0]));	/* merged percentiles of hostile histograms */
	bc_compare_pair(&r[0], &r[0], &o, &c);
	bc_compare_print_text(sink(), &c);
	bc_compare_print_csv(sink(), &c);
	json_decref(bc_compare_json(&c));
	free(bc_cmp_items(&c, &n));
	bc_cmp_free(&c);
	for (size_t i = 0; i < r[0].ngroups && i < 8; i++) {
		const bc_rmetric *m = bc_primary_metric(&r[0].groups[i]);
		if (m)
			bc_scaling(&r[0], r[0].groups[i].module, r[0].groups[i].params_key, m->name, pts, 64);
	}
	/* The same document twice: two systems in the report. */
	r[1] = r[0];
	bc_report_write(sink(), r, 2, &o, "fuzz", NULL, NULL);
	bc_results_free(&r[0]);
	return 0;
}
