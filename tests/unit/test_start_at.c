/* --start-at's parser and its refusals (core/run/start_at.c), and the run and
   host ids (core/machine/identity.c). Times are checked against values computed
   independently: `date -u -d 2026-12-01T10:00:00Z +%s` = 1796119200. */
#include "unit.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "identity.h"
#include "start_at.h"

static double parsed(const char *text)
{
	double t = -1;
	bc_err e;
	assert_int_equal(bc_start_at_parse(text, &t, &e), 0);
	return t;
}

static void refused(const char *text)
{
	double t = -1;
	bc_err e;
	memset(&e, 0, sizeof(e));
	assert_int_equal(bc_start_at_parse(text, &t, &e), -1);
	assert_non_null(strstr(e.msg, "is not a time"));
	assert_true(e.hint[0] != '\0');
}

static void test_iso_zones(void **st)
{
	(void)st;
	assert_true(parsed("2026-12-01T10:00:00Z") == 1796119200.0);
	assert_true(parsed("2026-12-01t10:00:00z") == 1796119200.0);
	assert_true(parsed("2026-12-01T11:00:00+01:00") == 1796119200.0);
	assert_true(parsed("2026-12-01T05:30:00-0430") == 1796119200.0);
	assert_true(parsed("2026-12-01T12:00+02") == 1796119200.0);
	assert_true(parsed("2026-12-01T10:00:00.25Z") == 1796119200.25);
	assert_true(parsed("2026-12-01T10:00:00,5Z") == 1796119200.5);
}

static void test_local_and_epoch(void **st)
{
	(void)st;
	setenv("TZ", "Europe/Berlin", 1);	/* CET, +01:00 in December */
	tzset();
	assert_true(parsed("2026-12-01 11:00:00") == 1796119200.0);
	assert_true(parsed("1796119200") == 1796119200.0);
	assert_true(parsed("@1796119200.5") == 1796119200.5);
	/* HH:MM:SS is today's date in local time */
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	tm.tm_hour = 7, tm.tm_min = 8, tm.tm_sec = 9, tm.tm_isdst = -1;
	assert_true(parsed("07:08:09") == (double)mktime(&tm));
	unsetenv("TZ");
	tzset();
}

static void test_not_times(void **st)
{
	(void)st;
	refused("");
	refused("soon");
	refused("2026-02-30T10:00:00Z");	/* no 30 February */
	refused("2026-12-01T25:00:00Z");
	refused("2026-12-01T10:00:00+25:00");
	refused("2026-12-01T10:00:00Zjunk");
	refused("10:00:00.");
	refused("10h");
	refused("-5");
	refused("12e3x");
}

static void test_wait_refusals(void **st)
{
	(void)st;
	double now = (double)time(NULL);
	assert_int_equal(bc_start_at_wait(now - 60, "a minute ago"), 2);
	assert_int_equal(bc_start_at_wait(now + 8 * 86400.0, "next week and a day"), 2);
	/* slightly late is started at once: a slow host must not fail the fleet */
	assert_int_equal(bc_start_at_wait(now - 2, "two seconds ago"), 0);
}

static int is_hex32(const char *s)
{
	return strlen(s) == 32 && strspn(s, "0123456789abcdef") == 32;
}

static void test_ids(void **st)
{
	char a[BC_ID_HEX], b[BC_ID_HEX], h1[BC_ID_HEX], h2[BC_ID_HEX];
	(void)st;
	bc_run_id_new(a);
	bc_run_id_new(b);
	assert_true(is_hex32(a) && is_hex32(b));
	assert_string_not_equal(a, b);
	bc_host_id(h1);
	bc_host_id(h2);
	assert_true(is_hex32(h1));
	assert_string_equal(h1, h2);	/* stable for one host */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iso_zones),
		cmocka_unit_test(test_local_and_epoch),
		cmocka_unit_test(test_not_times),
		cmocka_unit_test(test_wait_refusals),
		cmocka_unit_test(test_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
