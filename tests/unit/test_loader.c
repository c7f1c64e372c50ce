/* Module loader checks, with modules broken on purpose (tests/modules). */
#include "unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "abi.h"
#include "loader.h"
#include "probe.h"

static const char *mods(void)
{
	const char *d = getenv("TESTMODS");
	return d ? d : "build/testmods";
}

static void expect_load_error(const char *file, const char *frag)
{
	char path[512];
	bc_module m;
	bc_err e;
	snprintf(path, sizeof(path), "%s/%s", mods(), file);
	assert_int_equal(bc_module_load(path, &m, &e), -1);
	char all[4096];
	snprintf(all, sizeof(all), "%s | %s | %s", e.msg, e.detail, e.hint);
	if (!strstr(all, frag) || !strstr(e.msg, path))
		fail_msg("%s: wanted \"%s\" and the path in: %s", file, frag, all);
}

static void test_broken_modules(void **st)
{
	(void)st;
	expect_load_error("badmagic.so", "bad magic number");
	expect_load_error("abi2.so", "benchcore speaks ABI 1.x, module was built for 2.0");
	expect_load_error("noentry.so", "no bench_module_v1_entry symbol");
	expect_load_error("small.so", "descriptor too small");
	expect_load_error("nocallbacks.so", "missing callbacks");
	expect_load_error("missing.so", "could not read module file");
	expect_load_error("badname.so", "name is missing or not [a-z0-9_]+");	/* "bad\nname" */
}

/* ABI 1.3 on: a newer minor is refused only for what it uses that this host
   does not know, named; typed offsets must fit opts_size. */
static void test_newer_and_typed(void **st)
{
	(void)st;
	expect_load_error("meta_newflag.so", "built for ABI 1.5, it sets option flag 0x40 on option \"x\", "
			  "which benchcore 1.4 does not know");
	expect_load_error("meta_newfield.so", "built for ABI 1.5, it sets a descriptor field at byte");
	/* ABI 1.4: a module that says it needs a later host is refused by name */
	expect_load_error("meta_hostminor.so", "it needs a host of ABI 1.5, this benchcore speaks 1.4");
	expect_load_error("meta_newoptfield.so", "option \"fancy\" sets a field at byte 72 of its entry");
	expect_load_error("meta_offset.so", "option \"b\" has offset 8, outside its options struct");
	expect_load_error("meta_overlap.so", "options \"a\" and \"b\" share bytes");
	char path[512];
	bc_module m;
	bc_err e;
	snprintf(path, sizeof(path), "%s/newer.so", mods());
	assert_int_equal(bc_module_load(path, &m, &e), 0);
	assert_int_equal(m.desc.abi_minor, BENCH_ABI_MINOR + 1);
	assert_string_equal(m.desc.options[1].name, "word");
	assert_int_equal(m.desc.options[1].flags, BENCH_OPT_PLACEMENT);
	assert_null(m.desc.options[2].name);
	bc_module_free(&m);
	/* a 1.2 module's entries are shorter: each is read where it is */
	snprintf(path, sizeof(path), "%s/old12.so", mods());
	assert_int_equal(bc_module_load(path, &m, &e), 0);
	assert_string_equal(m.desc.options[7].name, "ratio");
	assert_int_equal(m.desc.options[7].type, BENCH_OPT_DOUBLE);
	assert_int_equal(m.desc.options[3].flags, BENCH_OPT_LIST);
	assert_string_equal(m.desc.options[3].choices[2], "blue");
	assert_null(m.desc.options[8].name);
	bc_module_free(&m);
	snprintf(path, sizeof(path), "%s/typed.so", mods());
	assert_int_equal(bc_module_load(path, &m, &e), 0);
	assert_true(m.desc.opts_size >= 40);
	assert_int_equal(m.desc.options[1].offset, 8);	/* count: after int on, aligned */
	bc_module_free(&m);
}

static void test_good_module(void **st)
{
	(void)st;
	char path[512];
	bc_module m;
	bc_err e;
	snprintf(path, sizeof(path), "%s/ops.so", mods());
	assert_int_equal(bc_module_load(path, &m, &e), 0);
	assert_string_equal(m.desc.name, "ops");
	assert_int_equal(m.nops, 2);
	assert_string_equal(m.ops[1], "set");
	bc_module_free(&m);
}

/* The module opened again (here, as a case's process does) must describe
   itself as its probe did: tests/modules/shape.c changes option "a", its op
   classes and metrics from its second load on; each difference is named. */
static void test_reopened_differently(void **st)
{
	(void)st;
	char path[512], dir[] = "/tmp/bc-shape.XXXXXX", loads[600];
	bc_module m;
	bc_err e;
	assert_non_null(mkdtemp(dir));
	setenv("BCTEST_SHAPE_DIR", dir, 1);
	snprintf(path, sizeof(path), "%s/shape.so", mods());
	assert_int_equal(bc_module_load(path, &m, &e), 0);
	assert_int_equal(m.desc.options[0].type, BENCH_OPT_INT);
	assert_int_equal(bc_module_open(&m, &e), -1);
	if (!strstr(e.msg, "describes itself differently when opened again: option \"a\": type string, was int") ||
	    !strstr(e.msg, path) || !e.detail[0] || !e.hint[0])
		fail_msg("wanted option a's type named: %s | %s | %s", e.msg, e.detail, e.hint);
	assert_int_equal(m.desc.options[0].type, BENCH_OPT_INT);	/* the checked copy stays */
	assert_null(m.handle);
	/* the same description compared field by field: a probe's description
	   of the module as it is now differs from the first in the same place,
	   and one edited by hand is named at the edit */
	bc_module m2;
	assert_int_equal(bc_module_load(path, &m2, &e), 0);	/* a third load: the second shape */
	assert_int_equal(m2.desc.options[0].type, BENCH_OPT_STRING);
	json_t *desc = (json_t *)bc_probe_description(&m2);
	json_t *ops = json_object_get(desc, "op_classes");
	json_array_set_new(ops, 0, json_string("tick"));
	bench_module_v1 d2 = m2.desc;
	d2.option_size = sizeof(bench_option_v1);	/* the parsed copy is in this host's layout */
	d2.op_classes = (const char *const[]){ "tock", "tack", NULL };
	assert_int_equal(bc_module_same(&m2, &d2, &e), -1);
	if (!strstr(e.msg, "op classes \"tock\",\"tack\", was \"tick\",\"tack\""))
		fail_msg("%s", e.msg);
	json_array_set_new(ops, 0, json_string("tock"));
	assert_int_equal(bc_module_same(&m2, &d2, &e), 0);
	d2.metrics = (const bench_metric_v1[]){ { "tocks_per_sec", "tocks/s", 0 }, { 0 } };
	assert_int_equal(bc_module_same(&m2, &d2, &e), -1);
	assert_non_null(strstr(e.msg, "metric \"tocks_per_sec\": higher_is_better false, was true"));
	d2.metrics = m2.desc.metrics;
	d2.requires.min_cpus = 4;
	assert_int_equal(bc_module_same(&m2, &d2, &e), -1);
	assert_non_null(strstr(e.msg, "requires: min_cpus 4, was 0"));
	bc_module_free(&m2);
	bc_module_free(&m);
	unsetenv("BCTEST_SHAPE_DIR");
	snprintf(loads, sizeof(loads), "%s/loads", dir);
	unlink(loads);
	rmdir(dir);
}

/* The layouts abi.c reads, on descriptors made here (no .so): entries of
   the 1.2 size, a nonsense option_size, a newer minor's oversized struct. */
static void test_option_layouts(void **st)
{
	(void)st;
	size_t old = offsetof(bench_option_v1, offset);
	unsigned char raw[3 * sizeof(bench_option_v1)] = { 0 };
	bench_option_v1 a = { .name = "a", .type = BENCH_OPT_INT, .flags = BENCH_OPT_SCALES };
	bench_option_v1 b = { .name = "b", .type = BENCH_OPT_BOOL, .def = "true" };
	memcpy(raw, &a, old);
	memcpy(raw + old, &b, old);	/* a 1.2 table: entries of the old size */
	bench_module_v1 d = { .abi_minor = 2, .struct_size = offsetof(bench_module_v1, opts_size),
			      .options = (const bench_option_v1 *)raw };
	bench_option_v1 *o;
	bc_err e;
	assert_int_equal(bc_abi_host_options("x.so", &d, &o, &e), 0);
	assert_string_equal(o[0].name, "a");
	assert_int_equal(o[0].flags, BENCH_OPT_SCALES);
	assert_string_equal(o[1].name, "b");
	assert_string_equal(o[1].def, "true");
	assert_int_equal(o[1].offset, 0);
	assert_null(o[2].name);
	free(o);
	d.abi_minor = 3;
	d.struct_size = sizeof(d);
	d.option_size = 60;	/* not a bench_option_v1 of any minor */
	assert_int_equal(bc_abi_host_options("x.so", &d, &o, &e), -1);
	assert_non_null(strstr(e.msg, "option_size is 60 bytes"));
	d.abi_minor = 3;	/* a minor this host knows: no bigger than its struct */
	d.struct_size = 0xffffff00u;
	assert_int_equal(bc_abi_check_newer("x.so", &d, &e), -1);
	assert_non_null(strstr(e.msg, "descriptor of 4294967040 bytes"));
	d.struct_size = sizeof(d);
	assert_int_equal(bc_abi_check_newer("x.so", &d, &e), 0);
	d.abi_minor = 9;
	d.struct_size = 1u << 30;
	assert_int_equal(bc_abi_check_newer("x.so", &d, &e), -1);
	assert_non_null(strstr(e.msg, "descriptor of 1073741824 bytes"));
}

static void test_duplicate_and_dirs(void **st)
{
	(void)st;
	bc_modset set;
	char **dirs = calloc(2, sizeof(char *));
	dirs[0] = strdup(mods());
	bc_modset_load(&set, dirs);
	assert_null(bc_modset_find(&set, "dup"));	/* two files claim it: ambiguous */
	const bc_loadfail *f = bc_modset_fail_for(&set, "dup");
	assert_non_null(f);
	assert_non_null(strstr(f->err.msg, "duplicate module name \"dup\""));
	assert_non_null(bc_modset_find(&set, "faulty"));
	bc_err e;
	bc_modset_missing(&set, "nosuch", &e);
	assert_non_null(strstr(e.msg, "module \"nosuch\" not found"));
	assert_non_null(strstr(e.detail, mods()));
	bc_modset_free(&set);
}

static void test_writable_refused(void **st)
{
	(void)st;
	char dir[] = "/tmp/bc-unit-mods.XXXXXX", path[600], cmd[1400];
	bc_module m;
	bc_err e;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ops.so", dir);
	snprintf(cmd, sizeof(cmd), "cp %s/ops.so %s", mods(), path);
	assert_int_equal(system(cmd), 0);
	chmod(dir, 0775);
	assert_int_equal(bc_module_load(path, &m, &e), -1);
	assert_non_null(strstr(e.msg, "writable by its group"));
	assert_non_null(strstr(e.hint, "chmod go-w"));
	chmod(dir, 0755);
	chmod(path, 0646);
	assert_int_equal(bc_module_load(path, &m, &e), -1);
	assert_non_null(strstr(e.msg, "writable by others"));
	chmod(path, 0755);
	assert_int_equal(bc_module_load(path, &m, &e), 0);
	bc_module_free(&m);
	unlink(path);
	rmdir(dir);
}

/* The dynamic section as ld.so reads it, from the file's bytes: the
   DT_NEEDED names of a real module; broken or cut buffers refused. */
static void test_elf_dynamic(void **st)
{
	(void)st;
	char path[512];
	snprintf(path, sizeof(path), "%s/ops.so", mods());
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static unsigned char buf[4 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	bc_elf_dyn d;
	assert_int_equal(bc_elf_dynamic(buf, n, &d), 0);
	assert_true(d.machine != 0);
	int libc = 0;
	for (char **p = d.needed; p && *p; p++)
		libc |= !strncmp(*p, "libc.so", 7);
	assert_true(libc);
	assert_null(d.runpath);
	bc_elf_dyn_free(&d);
	for (size_t cut = 0; cut < n; cut += n / 97 + 1) {	/* any prefix: refused or read, never past it */
		if (bc_elf_dynamic(buf, cut, &d) == 0)
			for (char **p = d.needed; p && *p; p++)
				assert_true(strlen(*p) < cut);
		bc_elf_dyn_free(&d);
	}
	memcpy(buf, "\177ELG", 4);
	assert_int_equal(bc_elf_dynamic(buf, n, &d), -1);
	bc_elf_dyn_free(&d);
	bc_err e;
	assert_int_equal(bc_check_deps(path, &e), 0);	/* libc and the like: trusted */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broken_modules),
		cmocka_unit_test(test_good_module),
		cmocka_unit_test(test_reopened_differently),
		cmocka_unit_test(test_newer_and_typed),
		cmocka_unit_test(test_option_layouts),
		cmocka_unit_test(test_duplicate_and_dirs),
		cmocka_unit_test(test_writable_refused),
		cmocka_unit_test(test_elf_dynamic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
