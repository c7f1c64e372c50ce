/* history.c on points built here: series split by host and case and put in
   time order whatever order the runs came in, a run given twice kept once,
   and the facts that changed at a change point named, most fundamental
   first (the clock, kernel, microcode, versions, then the rest), looked
   for beside the change point when nothing changed at it, or none. */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history.h"
#include "history_html.h"
#include "history_print.h"
#include "util.h"

typedef struct facts {
	const char *kernel, *microcode, *openssl, *version;
	double mhz;		/* cpu_mhz.measured, 0: none */
} facts;

static bc_hpoint point(const char *host, long threads, int day, double mean, const facts *f)
{
	json_t *h = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "hostname", host, "kernel", f->kernel,
			      "cpu_id", "microcode", f->microcode, "libraries", "openssl", f->openssl);
	if (f->mhz > 0)
		json_object_set_new(h, "cpu_mhz", json_pack("{s:f, s:f, s:f}", "measured", f->mhz,
							    "measured_min", f->mhz * 0.99, "measured_max", f->mhz * 1.01));
	return (bc_hpoint){
		.run_id = bc_xasprintf("%s-%02d", host, day), .started = bc_xasprintf("2026-11-%02dT01:00:00Z", day),
		.host = bc_xstrdup(host), .label = bc_xstrdup("nightly"), .module = bc_xstrdup("cpu"),
		.params_key = bc_xstrdup("{\"cpu_max_prime\":10000}"), .params_text = bc_xstrdup("cpu_max_prime=10000"),
		.threads = threads, .metric = bc_xstrdup("events_per_sec"), .unit = bc_xstrdup("events/s"),
		.higher_is_better = 1, .headline = 1, .mean = mean, .ci_low = mean - 2, .ci_high = mean + 2, .n = 5,
		.hostobj = h, .info = json_object(), .version = bc_xstrdup(f->version),
		.module_version = bc_xstrdup("1.0"),
	};
}

/* Noise that repeats: +-0.5% around the level. */
static const double wiggle[] = { 0.004, -0.003, 0.001, -0.005, 0.002, 0.0, -0.002, 0.005, -0.001, 0.003 };

static const facts before = { "6.1.0-17-amd64", "0x42e", "3.0.11", "0.1.0", 3000 };
static const facts after = { "6.1.0-18-amd64", "0x42f", "3.0.13", "0.2.0", 2500 };

static void test_named_in_order(void **st)
{
	(void)st;
	bc_hpoint *p = calloc(24, sizeof(*p));
	size_t n = 0;
	/* given newest first: history sorts by started */
	for (int day = 12; day >= 1; day--)
		p[n++] = point("db1", 1, day, 1000 * (day > 6 ? 0.9 : 1) * (1 + wiggle[day % 10]),
			       day > 6 ? &after : &before);
	bc_history h;
	bc_history_build(&h, p, n, NULL);
	assert_int_equal(h.nseries, 1);
	assert_int_equal(h.nruns, 12);
	const bc_hseries *s = &h.series[0];
	for (size_t i = 1; i < s->n; i++)
		assert_true(strcmp(s->run[i - 1]->started, s->run[i]->started) < 0);
	assert_int_equal(s->nch, 1);
	const bc_hchange *c = &s->ch[0];
	assert_int_equal(c->cp.at, 6);
	assert_int_equal(c->facts_at, 6);
	assert_int_equal(c->nfacts, 5);
	assert_string_equal(c->facts[0], "clock: 3000 -> 2500 MHz measured");
	assert_string_equal(c->facts[1], "kernel: 6.1.0-17-amd64 -> 6.1.0-18-amd64");
	assert_string_equal(c->facts[2], "microcode (cpu_id.microcode): 0x42e -> 0x42f");
	/* a library of the OS is the userland's (issue 60), ranked with the
	   machine's facts, before benchcore's own version */
	assert_string_equal(c->facts[3], "userland (libraries.openssl): 3.0.11 -> 3.0.13");
	assert_string_equal(c->facts[4], "benchcore version: 0.1.0 -> 0.2.0");
	assert_null(c->facts[5]);
	assert_true(fabs(c->cp.change + 0.1) < 0.01);
	assert_int_equal(bc_history_change_at(s, 6), 0);
	assert_int_equal(bc_history_change_at(s, 5), -1);
	bc_history_free(&h);
}

/* The step two runs before the kernel changed (the method placed it
   early): named at run 8, said so; with no change within two runs: none. */
static void test_beside_and_none(void **st)
{
	(void)st;
	facts k17 = before, k18 = before;
	k18.kernel = "6.1.0-18-amd64";
	bc_hpoint *p = calloc(30, sizeof(*p));
	size_t n = 0;
	for (int day = 1; day <= 12; day++)
		p[n++] = point("db1", 1, day, 1000 * (day > 6 ? 0.9 : 1) * (1 + wiggle[day % 10]),
			       day > 8 ? &k18 : &k17);
	for (int day = 1; day <= 12; day++)
		p[n++] = point("db1", 2, day, 2000 * (day > 6 ? 0.9 : 1) * (1 + wiggle[day % 10]),
			       day > 9 ? &k18 : &k17);
	bc_history h;
	bc_history_build(&h, p, n, NULL);
	assert_int_equal(h.nseries, 2);
	const bc_hseries *s1 = &h.series[0], *s2 = &h.series[1];
	assert_int_equal(s1->run[0]->threads, 1);
	assert_int_equal(s1->nch, 1);
	assert_int_equal(s1->ch[0].cp.at, 6);
	assert_int_equal(s1->ch[0].facts_at, 8);
	assert_int_equal(s1->ch[0].nfacts, 1);
	assert_string_equal(s1->ch[0].facts[0], "kernel: 6.1.0-17-amd64 -> 6.1.0-18-amd64");
	/* three runs after: too far to be this change's */
	assert_int_equal(s2->nch, 1);
	assert_int_equal(s2->ch[0].cp.at, 6);
	assert_null(s2->ch[0].facts);
	assert_int_equal(s2->ch[0].facts_at, 6);
	bc_history_free(&h);
}

/* Two hosts are two series; a run given twice is one point; a mean that is
   not a number is left out; fewer than 6 runs are not tested; a point
   with NULL strings and no host object prints in every form. */
static void test_series_and_drops(void **st)
{
	(void)st;
	bc_hpoint *p = calloc(12, sizeof(*p));
	size_t n = 0;
	for (int day = 1; day <= 4; day++)
		p[n++] = point("db2", 1, day, 1000, &before);
	p[n++] = point("db2", 1, 2, 1000, &before);	/* db2-02 again */
	p[n++] = point("db1", 1, 1, NAN, &before);
	p[n++] = point("db1", 1, 2, 990, &before);
	/* a backend's point with its strings and objects left NULL */
	p[n] = point("db3", 1, 1, 10, &before);
	free(p[n].unit), free(p[n].label), free(p[n].started), free(p[n].params_text);
	json_decref(p[n].hostobj), json_decref(p[n].info);
	p[n].unit = p[n].label = p[n].started = p[n].params_text = NULL;
	p[n].hostobj = p[n].info = NULL;
	n++;
	bc_history h;
	bc_history_build(&h, p, n, NULL);
	assert_int_equal(h.nseries, 3);
	assert_string_equal(h.series[0].run[0]->host, "db1");
	assert_string_equal(h.series[2].run[0]->unit, "");
	FILE *devnull = fopen("/dev/null", "w");
	bc_history_print(devnull, &h, BC_HIST_TEXT);
	bc_history_print(devnull, &h, BC_HIST_CSV);
	bc_history_print(devnull, &h, BC_HIST_MARKDOWN);
	assert_int_equal(bc_history_html(devnull, &h, "t"), 0);
	fclose(devnull);
	assert_int_equal(h.series[0].n, 1);
	assert_int_equal(h.series[1].n, 4);
	assert_int_equal(h.dropped, 2);
	assert_int_equal(h.nruns, 6);
	assert_false(h.series[1].tested);
	assert_int_equal(bc_history_changes(&h), 0);
	bc_history_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_in_order),
		cmocka_unit_test(test_beside_and_none),
		cmocka_unit_test(test_series_and_drops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
