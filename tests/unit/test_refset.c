/* Reference sets (compare --index SET, refset.c) read as hostile input
   (issue 48): a scale of 0, -10 or "x" and a baseline of 1e-308 or 1e300
   are refused, naming the file and the field, where they were taken for
   a scale of 1 and printed as "Score 0.0"; a set that holds is computed
   and printed as before. The results are tests/fixtures/cmp-a.json (cpu,
   cpu_max_prime=10000, events_per_sec; one copy: 1000 events/s). */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "refset.h"
#include "util.h"

static char dir[] = "/tmp/bc-refset-XXXXXX";
static char *dirs[2] = { dir, NULL };
static bc_results res;

/* NAME.refset.json: one test of cmp-a.json's case; scale and baseline
   as JSON text ("" leaves the field out) */
static void write_set(const char *name, const char *scale, const char *baseline)
{
	char *p = bc_xasprintf("%s/%s.refset.json", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "{\"score\": \"Score\"%s%s, \"tests\": [{\"title\": \"Events\"%s%s, \"unit\": \"ev/s\", "
		"\"module\": \"cpu\", \"metric\": \"events_per_sec\", \"params\": {\"cpu_max_prime\": 10000}}]}\n",
		*scale ? ", \"scale\": " : "", scale, *baseline ? ", \"baseline\": " : "", baseline);
	fclose(f);
	free(p);
}

/* The model of set name, or NULL with the error's text in msg. */
static json_t *model(const char *name, char *msg, size_t n)
{
	bc_err e = { 0 };
	bc_cmp_opts o = { 0 };
	json_t *m = bc_refset_model(name, dirs, &res, 1, &o, &e);
	snprintf(msg, n, "%s", e.msg);
	return m;
}

static int setup(void **st)
{
	(void)st;
	bc_err e = { 0 };
	if (!mkdtemp(dir) || bc_results_load("tests/fixtures/cmp-a.json", &res, &e))
		return -1;
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	char *cmd = bc_xasprintf("rm -rf %s", dir);
	int rc = system(cmd);
	free(cmd);
	bc_results_free(&res);
	return rc;
}

static void test_bad_numbers_refused(void **st)
{
	(void)st;
	static const struct { const char *scale, *baseline, *says; } bad[] = {
		{ "0", "1000", "\"scale\" is 0: wants a number from" },
		{ "-10", "1000", "\"scale\" is -10: wants a number from" },
		{ "\"x\"", "1000", "\"scale\" is \"x\": wants a number from" },
		{ "1e300", "1000", "\"scale\" is 1e+300" },
		{ "10", "1e-308", "tests[0]: \"baseline\" is 1e-308: wants a number from" },
		{ "10", "1e300", "tests[0]: \"baseline\" is 1e+300" },
		{ "10", "0", "tests[0]: \"baseline\" is 0" },
		{ "10", "\"1000\"", "tests[0]: \"baseline\" is \"1000\"" },
		{ "10", "", "tests[0]: \"baseline\" is missing" },
	};
	char msg[1024];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_set("bad", bad[i].scale, bad[i].baseline);
		json_t *m = model("bad", msg, sizeof(msg));
		if (m || !strstr(msg, bad[i].says) || !strstr(msg, "/bad.refset.json"))
			fail_msg("scale %s, baseline %s: %s (wanted \"%s\")", bad[i].scale, bad[i].baseline,
				 m ? "accepted" : msg, bad[i].says);
	}
}

static void test_good_set(void **st)
{
	(void)st;
	char msg[1024];
	/* no scale: 1; the index is the mean of cmp-a.json's repeats over 1000 */
	write_set("good", "", "1000");
	json_t *m = model("good", msg, sizeof(msg));
	assert_non_null(m);
	json_t *tab = json_array_get(json_object_get(json_array_get(json_object_get(m, "files"), 0), "tables"), 0);
	json_t *t = json_array_get(json_object_get(tab, "tests"), 0);
	double idx = json_number_value(json_object_get(t, "index"));
	double result = json_number_value(json_object_get(t, "result"));
	if (!(result > 0 && fabs(idx - result / 1000) < 1e-9 * idx))
		fail_msg("index %g of a result %g against 1000", idx, result);
	assert_true(json_number_value(json_object_get(tab, "score")) == idx);
	json_decref(m);
	write_set("good", "10", "1e-6");	/* the least baseline: a large index, still a figure */
	m = model("good", msg, sizeof(msg));
	assert_non_null(m);
	tab = json_array_get(json_object_get(json_array_get(json_object_get(m, "files"), 0), "tables"), 0);
	assert_true(fabs(json_number_value(json_object_get(tab, "score")) - result / 1e-6 * 10) < 1e-6 * result / 1e-6 * 10);
	json_decref(m);
}

static void test_broken_file(void **st)
{
	(void)st;
	char msg[1024], *p = bc_xasprintf("%s/broken.refset.json", dir);
	FILE *f = fopen(p, "w");
	fputs("{\"score\": \"S\",\n \"tests\": [ {\"title\": 1,}\n]}\n", f);
	fclose(f);
	assert_null(model("broken", msg, sizeof(msg)));
	char *want = bc_xasprintf("%s:2: ", p);	/* file:line */
	if (!strstr(msg, want))
		fail_msg("%s", msg);
	free(want);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_numbers_refused),
		cmocka_unit_test(test_good_set),
		cmocka_unit_test(test_broken_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
