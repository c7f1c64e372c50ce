/* A run's points (core/result/points.c): the mean and 95% interval per group
   and metric that history and the archive read, and the query's filters. */
#include "unit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "points.h"

#define CASE(p, r, v) "{\"module\":\"cpu\",\"params\":" p ",\"threads\":1,\"repeat\":" #r \
	",\"status\":\"ok\",\"headline\":\"ops_per_sec\",\"metrics\":{\"ops_per_sec\":{\"value\":" #v ",\"unit\":\"events/s\"," \
	"\"higher_is_better\":true},\"other_per_sec\":{\"value\":1,\"unit\":\"x/s\",\"higher_is_better\":true}}}"

static const char DOC[] =
	"{\"schema\":\"benchcore/1\",\"run_id\":\"abc123\",\"started_at\":\"2026-12-01T10:00:00Z\","
	"\"label\":\"L\",\"host\":{\"hostname\":\"h1\",\"kernel\":\"6.1\"},\"cases\":["
	CASE("{\"max_prime\":100,\"test\":\"prime\"}", 1, 100) ","
	CASE("{\"max_prime\":100,\"test\":\"prime\"}", 2, 110) ","
	CASE("{\"max_prime\":100,\"test\":\"prime\"}", 3, 120) ","
	CASE("{\"max_prime\":200,\"test\":\"prime\"}", 1, 50) "]}";

static void load(bc_results *r)
{
	bc_err err = { 0 };
	assert_int_equal(bc_results_parse(DOC, strlen(DOC), "p.json", r, &err), 0);
}

static void test_primary_points(void **state)
{
	(void)state;
	bc_results r;
	bc_hpoint *p = NULL;
	size_t n = 0;
	load(&r);
	bc_history_query q = { .module = "cpu" };
	bc_points_from_results(&r, &q, &p, &n);
	assert_int_equal(n, 2);	/* one per group: its primary metric only */
	assert_string_equal(p[0].run_id, "abc123");
	assert_string_equal(p[0].started, "2026-12-01T10:00:00Z");
	assert_string_equal(p[0].host, "h1");
	assert_string_equal(p[0].metric, "ops_per_sec");
	assert_int_equal(p[0].n, 3);
	assert_true(fabs(p[0].mean - 110) < 1e-9);
	/* t(0.975, 2) = 4.303, s = 10, n = 3: half width 24.84 */
	assert_true(fabs(p[0].ci_high - p[0].mean - 24.84) < 0.01);
	assert_true(fabs(p[0].mean - p[0].ci_low - 24.84) < 0.01);
	assert_true(p[0].headline);
	assert_string_equal(json_string_value(json_object_get(p[0].hostobj, "kernel")), "6.1");
	assert_int_equal(p[1].n, 1);
	assert_true(p[1].ci_low == p[1].mean && p[1].ci_high == p[1].mean);
	bc_hpoints_free(p, n);
	bc_results_free(&r);
}

static void test_filters(void **state)
{
	(void)state;
	bc_results r;
	bc_hpoint *p = NULL;
	size_t n = 0;
	load(&r);
	const char *w200[] = { "max_prime=200" }, *wtext[] = { "test=prime", "max_prime=100" },
		   *wnone[] = { "max_prime=300" }, *wbad[] = { "max_prime" };
	bc_history_query q = { .module = "cpu", .where = w200, .nwhere = 1 };
	bc_points_from_results(&r, &q, &p, &n);
	assert_int_equal(n, 1);
	assert_true(fabs(p[0].mean - 50) < 1e-9);
	q.where = wtext;
	q.nwhere = 2;
	bc_points_from_results(&r, &q, &p, &n);	/* appends */
	assert_int_equal(n, 2);
	assert_true(fabs(p[1].mean - 110) < 1e-9);
	q.where = wnone;
	q.nwhere = 1;
	bc_points_from_results(&r, &q, &p, &n);
	q.where = wbad;
	bc_points_from_results(&r, &q, &p, &n);
	assert_int_equal(n, 2);	/* no match, and a pair without '=' matches nothing */
	bc_history_query other = { .module = "mem" }, host = { .module = "cpu", .host = "h2" },
			 metric = { .module = "cpu", .metric = "other_per_sec" };
	bc_points_from_results(&r, &other, &p, &n);
	bc_points_from_results(&r, &host, &p, &n);
	assert_int_equal(n, 2);
	bc_points_from_results(&r, &metric, &p, &n);
	assert_int_equal(n, 4);
	assert_string_equal(p[3].metric, "other_per_sec");
	assert_false(p[3].headline);
	bc_hpoints_free(p, n);
	p = NULL;
	n = 0;
	bc_points_from_results(&r, NULL, &p, &n);	/* every compared metric */
	assert_int_equal(n, 4);
	bc_hpoints_free(p, n);
	bc_results_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_primary_points),
		cmocka_unit_test(test_filters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
