/* A 1.3 host meets 1.4 modules (#51, ABI 1.4): core/module/abi.c built
 * against the frozen 1.3 header (tests/abi13), exactly the descriptor checks
 * a benchcore of ABI 1.3 makes, linked with this build's other objects. A
 * 1.4 module that says it needs a 1.4 host (host_minor = 4) is refused,
 * naming the module's file, its minor and the host's; a 1.4 module that
 * sets nothing new, and the 1.3 fixture, load as before. */
#include "unit.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "abi.h"

#if BENCH_ABI_MINOR != 3
#error "test_oldhost.c is built against the frozen ABI 1.3 header (tests/abi13)"
#endif

static const bench_module_v1 *entry_of(const char *file, char *path, size_t n)
{
	const char *d = getenv("TESTMODS");
	snprintf(path, n, "%s/%s", d ? d : "build/testmods", file);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("dlopen %s: %s", path, dlerror());
	const bench_module_v1 *(*fn)(void);
	*(void **)&fn = dlsym(h, BENCH_ENTRY_SYMBOL);
	assert_non_null(fn);
	return fn();
}

static void test_host_minor_refused(void **unused)
{
	(void)unused;
	char path[512];
	bc_err e;
	const bench_module_v1 *d = entry_of("needs14.so", path, sizeof(path));
	assert_int_equal(d->abi_minor, 4);
	assert_int_equal(bc_abi_check_newer(path, d, &e), -1);
	if (!strstr(e.msg, path) || !strstr(e.msg, "built for ABI 1.4") || !strstr(e.msg, "benchcore 1.3 does not know"))
		fail_msg("the 1.3 host's refusal names the file and both minors: %s", e.msg);
	if (!strstr(e.hint, "ABI 1.4"))
		fail_msg("... and says which benchcore runs it: %s", e.hint);
}

static void test_plain_14_and_13_load(void **unused)
{
	(void)unused;
	char path[512];
	bc_err e;
	const bench_module_v1 *d = entry_of("typed.so", path, sizeof(path));	/* 1.4, nothing new set */
	assert_int_equal(d->abi_minor, 4);
	assert_int_equal(bc_abi_check_newer(path, d, &e), 0);
	d = entry_of("old13.so", path, sizeof(path));
	assert_int_equal(d->abi_minor, 3);
	assert_int_equal(bc_abi_check_newer(path, d, &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_minor_refused),
		cmocka_unit_test(test_plain_14_and_13_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
