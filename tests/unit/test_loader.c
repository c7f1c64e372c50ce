/* Module loader checks, with modules broken on purpose (tests/modules). */
#include "unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
		cmocka_unit_test(test_duplicate_and_dirs),
		cmocka_unit_test(test_writable_refused),
		cmocka_unit_test(test_elf_dynamic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
