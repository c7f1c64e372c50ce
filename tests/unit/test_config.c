/* site.conf validation: every error names file:line and what is valid. */
#include "unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "plan.h"
#include "settings.h"
#include "options.h"

static char path[64];

static int load_text(const char *text, bc_config *c, bc_err *e)
{
	snprintf(path, sizeof(path), "/tmp/bc-unit-conf.XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	bc_config_defaults(c);
	memset(e, 0, sizeof(*e));
	int rc = bc_config_load(c, path, e);
	unlink(path);
	return rc;
}

#define EXPECT_ERR(text, frag) do { bc_config c; bc_err e; \
	assert_int_equal(load_text(text, &c, &e), -1); \
	char all[4096]; snprintf(all, sizeof(all), "%s | %s | %s", e.msg, e.detail, e.hint); \
	if (!strstr(all, frag)) fail_msg("wanted \"%s\" in: %s", frag, all); \
	bc_config_free(&c); } while (0)

static void test_valid(void **st)
{
	(void)st;
	bc_config c;
	bc_err e;
	assert_int_equal(load_text("label = \"a\";\nthreads = [1, 2, 4];\ntime = 2.5;\nwarmup = 0;\n"
				   "modules = ( { name = \"cpu\"; max_prime = [100, 200]; repeat = 3; } );\n",
				   &c, &e), 0);
	assert_string_equal(c.label, "a");
	assert_int_equal(c.nmods, 1);
	assert_int_equal(c.mods[0].run.nthreads, 3);
	assert_int_equal(c.mods[0].run.threads[2], 4);
	assert_int_equal(c.mods[0].run.repeat, 3);
	assert_true(c.mods[0].run.time_s == 2.5);
	assert_int_equal(c.mods[0].ngiven, 1);
	assert_string_equal(c.mods[0].given[0].texts[1], "200");
	bc_config_free(&c);
}

static void test_errors(void **st)
{
	(void)st;
	EXPECT_ERR("bogus = 1;\nmodules = ({ name = \"cpu\"; });\n", ":1: unknown setting \"bogus\"");
	EXPECT_ERR("bogus = 1;\nmodules = ({ name = \"cpu\"; });\n", "Valid top-level settings: label");
	EXPECT_ERR("time = \"long\";\nmodules = ({ name = \"cpu\"; });\n", ":1: invalid value \"long\" for \"time\"");
	EXPECT_ERR("modules = ({ name = \"cpu\";\n threads = [0]; });\n", ":2: invalid value \"0\" for \"threads\"");
	EXPECT_ERR("repeat = 99999999999999999999999;\nmodules = ({ name = \"cpu\"; });\n", ":1: integer out of range");
	/* the same words from libconfig 1.5 (Debian 12: read as -1) and 1.7 (Debian 13: a syntax error) */
	EXPECT_ERR("modules = ({ name = \"cpu\";\n threads = [1, 99999999999999999999999]; });\n", ":2: integer out of range");
	EXPECT_ERR("label = \"99999999999999999999999\" x;\nmodules = ({ name = \"cpu\"; });\n", ":1: syntax error");
	EXPECT_ERR("modules = ({ threads = 1; });\n", "module entry without a name");
	EXPECT_ERR("modules = ({ name = \"cpu\";\n label = \"x\"; });\n", ":2: \"label\" is a global setting");
	EXPECT_ERR("time = 1;\nmodules = ( { name = \"cpu\"; } ;\n", ":2: syntax error");
	EXPECT_ERR("time = 1;\n", "no modules to run");
	EXPECT_ERR("arrival = \"bursty\";\nmodules = ({ name = \"cpu\"; });\n", "valid choices are poisson, fixed");
	EXPECT_ERR("time = [1, 2];\nmodules = ({ name = \"cpu\"; });\n", "takes one value, not a list");
}

/* Module options are checked against the module's own table. */
static const char *const modes[] = { "read", "write", NULL };
static const bench_option_v1 fake_opts[] = {
	{ .name = "block_size", .type = BENCH_OPT_SIZE, .def = "4K", .min = 1, .max = 1 << 30 },
	{ .name = "oper", .type = BENCH_OPT_ENUM, .def = "read", .choices = modes },
	{ .name = "fast", .type = BENCH_OPT_BOOL, .def = "false" },
	{ 0 }
};

static int plan_text(const char *text, bc_modplan *p, bc_err *e)
{
	bc_config c;
	bc_module m = { .desc = { .name = "fake", .options = fake_opts } };
	assert_int_equal(load_text(text, &c, e), 0);
	int rc = bc_plan_module(&c.mods[0], &m, p, e);
	if (rc == 0) {
		assert_int_equal(p->npoints, 6);
		bc_val pt[3];
		bc_plan_point(p, 5, pt);	/* last point: 2M, write */
		assert_int_equal(pt[0].i, 2 << 20);
		assert_string_equal(pt[1].s, "write");
	}
	p->mc = NULL;
	bc_config_free(&c);
	return rc;
}

/* benchcore serve's table: its defaults are the ones the old flag table
   wrote out (127.0.0.1, the module's port, 4 clients, 30 s, no duration
   limit, 64 threads, 512M), every value is checked as a run setting is,
   port = auto is the module's port and a number replaces it. */
static void test_serve_settings(void **st)
{
	(void)st;
	bc_serveset v;
	bc_err e;
	bc_serveset_defaults(&v);
	assert_null(v.module);
	assert_string_equal(v.bind, "127.0.0.1");
	assert_int_equal(v.port_auto, 1);
	assert_int_equal(v.once, 0);
	assert_int_equal(v.max_clients, 4);
	assert_true(v.idle_timeout == 30 && v.max_duration == 0);
	assert_int_equal(v.max_threads, 64);
	assert_true(v.max_memory == 512ull << 20);
	for (const bc_setting *s = bc_serve_settings; s->opt.name; s++) {
		assert_ptr_equal(bc_serve_setting_find(s->opt.name), s);
		assert_true(bc_setting_find(s->opt.name) != s);	/* never a run or top-level key */
		assert_int_equal(s->scope, BC_SCOPE_SERVE);
		assert_true(!s->flag == (s->store == BC_ST_NONE));	/* the secret: config only */
		if (s->flag)
			assert_true(s->metavar || s->flag_value);
	}
	char *port[] = { "5400", NULL }, *autop[] = { "auto", NULL }, *zero[] = { "0", NULL };
	char *mem[] = { "64K", NULL }, *bind[] = { "::", NULL };
	assert_int_equal(bc_setting_set(bc_serve_setting_find("port"), &v, port, "t", &e), 0);
	assert_true(v.port == 5400 && !v.port_auto);
	assert_int_equal(bc_setting_set(bc_serve_setting_find("port"), &v, autop, "t", &e), 0);
	assert_int_equal(v.port_auto, 1);
	assert_int_equal(bc_setting_set(bc_serve_setting_find("max_clients"), &v, zero, "t", &e), -1);
	assert_non_null(strstr(e.msg, "t: invalid value \"0\" for \"max_clients\""));
	assert_int_equal(bc_setting_set(bc_serve_setting_find("max_memory"), &v, mem, "t", &e), -1);
	assert_non_null(strstr(e.detail, "1M .. 1024T"));
	assert_int_equal(bc_setting_set(bc_serve_setting_find("bind"), &v, bind, "t", &e), 0);
	assert_string_equal(v.bind, "::");
	bc_serveset_free(&v);
	/* one flag per setting with a flag, coded by the row's index */
	bc_flag tab[32];
	char help[32][512];
	size_t n = bc_settings_flags(bc_serve_settings, tab, help, 32, 100, 0);
	assert_int_equal(n, 9);
	assert_string_equal(tab[1].lng, "bind");
	assert_int_equal(tab[1].code, 101);
	assert_string_equal(tab[1].help, "address to listen on; 0.0.0.0 or :: for every interface (default 127.0.0.1)");
}

static void test_module_options(void **st)
{
	(void)st;
	bc_modplan p;
	bc_err e;
	assert_int_equal(plan_text("modules = ({ name = \"fake\"; block_size = [\"4K\", \"16K\", \"2M\"];\n"
				   " oper = [\"read\", \"write\"]; });\n", &p, &e), 0);
	bc_plan_free(&p);
	assert_int_equal(plan_text("modules = ({ name = \"fake\";\n oper = \"copy\"; });\n", &p, &e), -1);
	assert_non_null(strstr(e.msg, ":2: module \"fake\", option \"oper\" (enum): invalid value \"copy\": valid choices are read, write"));
	bc_plan_free(&p);
	assert_int_equal(plan_text("modules = ({ name = \"fake\";\n blocksize = 4; });\n", &p, &e), -1);
	assert_non_null(strstr(e.msg, ":2: unknown option \"blocksize\""));
	assert_non_null(strstr(e.detail, "Valid keys: block_size, oper, fast"));
	bc_plan_free(&p);
	assert_int_equal(plan_text("modules = ({ name = \"fake\"; block_size = \"4Q\"; });\n", &p, &e), -1);
	assert_non_null(strstr(e.msg, "invalid size \"4Q\""));
	bc_plan_free(&p);
	assert_int_equal(plan_text("modules = ({ name = \"fake\"; block_size = \"2G\"; });\n", &p, &e), -1);
	assert_non_null(strstr(e.msg, "out of range: valid range is 1 .. 1G"));
	bc_plan_free(&p);
	assert_int_equal(plan_text("modules = ({ name = \"fake\"; fast = \"maybe\"; });\n", &p, &e), -1);
	assert_non_null(strstr(e.msg, "valid values are true, false"));
	bc_plan_free(&p);
}

/* The settings table: every default parses and lands (bc_config_defaults is
   the table), flags are unique, every run setting has a flag, lists are
   only where a list is stored, and a value is checked the same way whatever
   its source. */
static void test_settings_table(void **st)
{
	(void)st;
	bc_config c;
	bc_err e;
	bc_config_defaults(&c);
	assert_int_equal(c.run.nthreads, 1);
	assert_int_equal(c.run.threads[0], 1);
	assert_true(c.run.time_s == 10 && c.run.warmup_s == 1 && c.run.grace == 10);
	assert_true(c.run.prepare_timeout == 1800 && c.run.thread_init_timeout == 60);
	assert_int_equal(c.run.repeat, 1);
	assert_int_equal(c.run.isolate, 1);
	assert_int_equal(c.run.seed_set, 0);
	assert_int_equal(c.npct, 6);
	assert_true(c.pct[5] == 99.99);
	for (const bc_setting *s = bc_settings; s->opt.name; s++) {
		assert_ptr_equal(bc_setting_find(s->opt.name), s);
		if (s->scope == BC_SCOPE_RUN)
			assert_non_null(s->flag);
		if (s->flag) {
			assert_ptr_equal(bc_setting_by_flag(s->flag), s);
			assert_true(s->metavar || s->flag_value);
		}
		assert_non_null(s->opt.help);
	}
	char *one[] = { "1,2", NULL }, *two[] = { "1", "2", NULL }, *neg[] = { "-1", NULL };
	assert_int_equal(bc_setting_set(bc_setting_find("time"), &c.run, one, "t", &e), -1);
	assert_non_null(strstr(e.msg, "t: invalid value \"1,2\" for \"time\""));
	assert_int_equal(bc_setting_set(bc_setting_find("time"), &c.run, two, "t", &e), -1);
	assert_non_null(strstr(e.msg, "takes one value, not a list"));
	assert_int_equal(bc_setting_set(bc_setting_find("threads"), &c.run, two, "t", &e), 0);
	assert_int_equal(c.run.nthreads, 2);
	assert_int_equal(bc_setting_set(bc_setting_find("grace"), &c.run, neg, "t", &e), -1);
	assert_non_null(strstr(e.detail, "valid range is 0 .. 1e+07"));
	char *order[] = { "BACK_TO_BACK", NULL };
	assert_int_equal(bc_setting_set(bc_setting_find("repeat_order"), &c.run, order, "t", &e), 0);
	assert_int_equal(c.run.back_to_back, 1);
	bc_config_free(&c);
}

static void test_sizes(void **st)
{
	(void)st;
	uint64_t v;
	assert_int_equal(bc_parse_size("4K", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(bc_parse_size("2MiB", &v), 0);
	assert_int_equal(v, 2 << 20);
	assert_int_equal(bc_parse_size("-1", &v), -1);
	assert_int_equal(bc_parse_size("99999999999999999999", &v), -1);
	assert_int_equal(bc_parse_size("20000000T", &v), -1);
	char buf[32];
	bc_format_size(16384, buf, sizeof(buf));
	assert_string_equal(buf, "16K");
}

/* Values for people: the shortest text that reads back as the double; figures bounded. */
static void test_value_text(void **st)
{
	(void)st;
	char b[BC_DOUBLE_TEXT];
	assert_string_equal(bc_fmt_double(0.2, b, sizeof(b)), "0.2");
	assert_string_equal(bc_fmt_double(1.1, b, sizeof(b)), "1.1");
	assert_string_equal(bc_fmt_double(0.1 + 0.2, b, sizeof(b)), "0.30000000000000004");	/* not 0.3 */
	assert_true(strtod(bc_fmt_double(1.0 / 3, b, sizeof(b)), NULL) == 1.0 / 3);
	assert_string_equal(bc_fmt_double(1e300, b, sizeof(b)), "1e+300");
	assert_string_equal(bc_fmt_fig(83720418.2, 0, 0, b, sizeof(b)), "83720418");
	assert_string_equal(bc_fmt_fig(1e300, 1, 0, b, sizeof(b)), "1e+300");
	assert_string_equal(bc_fmt_fig(-0.5, 1, 1, b, sizeof(b)), "-0.5");
	assert_string_equal(bc_fmt_fig(2.25e15, 1, 1, b, sizeof(b)), "+2.25e+15");
	json_t *j = json_real(0.2);
	char *t = bc_json_text(j);
	assert_string_equal(t, "0.2");
	free(t);
	json_decref(j);
	assert_string_equal(bc_full_stop("how to misbehave"), ".");
	assert_string_equal(bc_full_stop("ends."), "");
	assert_string_equal(bc_full_stop(""), "");
}

/* A size option's bounds from a descriptor (a hostile module's): a negative,
   NaN or huge double is no undefined conversion (the loader fuzzer's find). */
static void test_size_bounds(void **state)
{
	(void)state;
	assert_true(bc_size_bound(-8) == 0);
	assert_true(bc_size_bound(0.0 / 0.0) == 0);
	assert_true(bc_size_bound(1e30) == UINT64_MAX);
	assert_true(bc_size_bound(4096) == 4096);
	bench_option_v1 o = { .name = "bytes", .type = BENCH_OPT_SIZE, .def = "4K", .help = "h",
			      .min = -8, .max = 1e30 };
	bc_val v = { .i = 1 << 20 };
	bc_err e;
	assert_int_equal(bc_val_check(&o, &v, &e), 0);	/* 1M is inside -8 .. 1e30 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_settings_table),
		cmocka_unit_test(test_serve_settings),
		cmocka_unit_test(test_module_options),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_size_bounds),
		cmocka_unit_test(test_value_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
