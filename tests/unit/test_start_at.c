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

/* 2026-12-01T10:00:00Z: the "now" of the time-of-day cases */
#define NOW 1796119200.0

static double parsed_at(const char *text, double now)
{
	double t = -1;
	bc_err e;
	assert_int_equal(bc_start_at_parse_now(text, now, &t, &e), 0);
	return t;
}

static void in_zone(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
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
	/* HH:MM:SS is its next occurrence in local time: 11:00 CET now */
	assert_true(parsed_at("12:00:00", NOW) == NOW + 3600);
	assert_true(parsed_at("07:08:09", NOW) == 1796191689.0);	/* tomorrow's */
	unsetenv("TZ");
	tzset();
}

/* A zoned time of day is its next occurrence in that zone, whatever the
   local date: east of UTC it is already tomorrow, west of it still
   yesterday (values from Python's zoneinfo). */
static void test_time_of_day_zones(void **st)
{
	(void)st;
	in_zone("Pacific/Kiritimati");	/* UTC+14: 00:00 on 2 December there */
	assert_true(parsed_at("10:01:00Z", NOW) == NOW + 60);	/* not 86460 s away */
	assert_true(parsed_at("10:01Z", NOW) == NOW + 60);
	assert_true(parsed_at("00:01:00+14:00", NOW) == NOW + 60);
	assert_true(parsed_at("10:01:00.5Z", NOW) == NOW + 60.5);
	assert_true(parsed_at("09:00:00Z", NOW) == NOW + 23 * 3600);	/* past: tomorrow's */
	assert_true(parsed_at("10:01:00", NOW) == 1796155260.0);	/* local 10:01, on the 2nd */
	in_zone("America/Los_Angeles");	/* UTC-8: 23:00 on 1 December there */
	double late = 1796194800.0;	/* 2026-12-02T07:00:00Z */
	assert_true(parsed_at("07:01:00Z", late) == late + 60);	/* not refused as past */
	assert_true(parsed_at("23:01", late) == late + 60);
	assert_true(parsed_at("15:01:00+08:00", late) == late + 60);
	assert_true(parsed_at("22:00:00", late) == 1796277600.0);	/* an hour ago: tomorrow 22:00 */
	assert_true(parsed_at("06:59:58Z", late) == late - 2);	/* a slow host: now, not tomorrow */
	assert_true(parsed_at("22:59:58", late) == late - 2);
	/* 02:30 is not on the clock of 14 March 2027 (summer time): the 15th's */
	assert_true(parsed_at("02:30", 1805014800.0) == 1805103000.0);
	assert_true(parsed_at("2026-12-01T10:00:00Z", late) == NOW);	/* a date is that date */
	unsetenv("TZ");
	tzset();
}

/* Times no date can name are refused as out of range, before printing one. */
static void test_out_of_range(void **st)
{
	static const char *const huge[] = { "1e300", "@99999999999999999999", "253402300800",
					    "@6917529027641081856", NULL };
	(void)st;
	for (int i = 0; huge[i]; i++) {
		double t = -1;
		bc_err e;
		memset(&e, 0, sizeof(e));
		assert_int_equal(bc_start_at_parse(huge[i], &t, &e), -1);
		assert_non_null(strstr(e.msg, "is out of range"));
		assert_non_null(strstr(e.detail, "1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"));
	}
	assert_true(parsed("253402300799") == 253402300799.0);
	assert_true(parsed("9999-12-31T23:59:59Z") == 253402300799.0);
	assert_true(parsed("0") == 0.0);
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
	refused("24:00:00Z");
	refused("10:60Z");
	refused("10:00:61");
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
		cmocka_unit_test(test_time_of_day_zones),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_not_times),
		cmocka_unit_test(test_wait_refusals),
		cmocka_unit_test(test_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
