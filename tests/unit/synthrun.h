/* What the unit tests of the runner share (test_run.c, test_resume.c):
   `benchcore run synth ...` in this process, in simulated time
   (core/engine/clock.h), against tests/modules/synth.c copied into a
   scratch directory that is also the run's TMPDIR; and readers of the
   results document (the run document's round trip checked on each).
   Static functions: each test binary takes what it uses. */
#ifndef BC_TEST_SYNTHRUN_H
#define BC_TEST_SYNTHRUN_H
#include "unit.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "clock.h"
#include "cli.h"
#include "rundoc.h"
#include "util.h"

#define UNUSED __attribute__((unused))

static char dir[64];		/* scratch: the module, TMPDIR, outputs */
static char modpath[128];	/* dir/mods: synth.so alone */
static unsigned nrun;
static int isolated;		/* 1: the cases run in child processes (isolate = true) */
static void *synth_so;		/* the copy of synth.so the loader finds loaded */

/* the whole of file p, NUL-terminated; n its length */
static UNUSED int slurp(const char *p, char **out, size_t *n)
{
	FILE *f = fopen(p, "rb");
	if (!f)
		return -1;
	size_t cap = 4096, len = 0;
	char *s = bc_xmalloc(cap);
	for (size_t k; (k = fread(s + len, 1, cap - len - 1, f)) > 0;) {
		len += k;
		if (cap - len < 2)
			s = bc_xrealloc(s, cap *= 2, 1);
	}
	fclose(f);
	s[len] = '\0';
	*out = s;
	*n = len;
	return 0;
}

/* fn (a bc_cmd_* of cli.h) on the words of line, stdout and stderr into
   dir/NAME.out and dir/NAME.err; its exit code. */
static UNUSED int run_cmd(int (*fn)(int, char **), const char *name, const char *words)
{
	char *line = bc_xstrdup(words);
	char *argv[64];
	int argc = 0;
	for (char *tok = strtok(line, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	char *out = bc_xasprintf("%s/%s.out", dir, name), *err = bc_xasprintf("%s/%s.err", dir, name);
	fflush(stdout);
	fflush(stderr);
	int o1 = dup(1), o2 = dup(2);
	int f1 = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), f2 = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(f1, 1);
	dup2(f2, 2);
	int rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(o1, 1);
	dup2(o2, 2);
	close(o1);
	close(o2);
	close(f1);
	close(f2);
	free(out);
	free(err);
	free(line);
	return rc;
}

/* `benchcore run synth --module-path ... ARGS -o dir/NAME.json` (run_cmd) */
static UNUSED int bc(const char *name, const char *args)
{
	char *line = bc_xasprintf("synth --module-path %s%s --report-interval 0 %s -o %s/%s.json", modpath,
				  isolated ? "" : " --no-isolate", args, dir, name);
	int rc = run_cmd(bc_cmd_run, name, line);
	free(line);
	nrun++;
	return rc;
}

/* dir/NAME.json as the run document's reader reads it (rundoc.h), which
   must give back its bytes when written again: every document a run, an
   interrupted run or a resumed one writes goes round. A new reference. */
static UNUSED json_t *doc(const char *name)
{
	char *p = bc_xasprintf("%s/%s.json", dir, name), *text = NULL;
	size_t n = 0, len;
	bc_rundoc d;
	bc_err e;
	assert_int_equal(slurp(p, &text, &n), 0);
	if (bc_rundoc_load(p, &d, &e))
		fail_msg("%s: %s", p, e.msg);
	char *w = bc_rundoc_write(&d, &len);
	if (len != n || memcmp(w, text, n))
		fail_msg("%s: read and written again, not the same bytes", p);
	json_t *root = json_incref(d.root);
	bc_rundoc_free(&d);
	free(w);
	free(text);
	free(p);
	return root;
}

static UNUSED __attribute__((noinline)) char *text(const char *name, const char *ext)
{
	char *p = bc_xasprintf("%s/%s.%s", dir, name, ext), *s = NULL;
	size_t n = 0;
	assert_int_equal(slurp(p, &s, &n), 0);
	free(p);
	return s;
}

static UNUSED json_t *cases(json_t *d) { return json_object_get(d, "cases"); }
static UNUSED json_t *at(json_t *d, size_t i) { return json_array_get(cases(d), i); }
static UNUSED long ival(json_t *o, const char *k) { return (long)json_integer_value(json_object_get(o, k)); }
static UNUSED double num(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }
static UNUSED const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }
static UNUSED double headline(json_t *c)
{
	return num(json_object_get(json_object_get(c, "metrics"), "events_per_sec"), "value");
}

/* Makes the scratch directory (TMPDIR = dir/tmp), copies synth.so into
   dir/mods and loads that copy, pointing its workers' sleep at sleep_ns;
   then starts simulated time. 0, or -1. */
static UNUSED int synthrun_setup(const char *name, void (*sleep_ns)(uint64_t))
{
	snprintf(dir, sizeof(dir), "/tmp/bc-unit-%s.XXXXXX", name);
	if (!mkdtemp(dir))
		return -1;
	snprintf(modpath, sizeof(modpath), "%s/mods", dir);
	char *tmp = bc_xasprintf("%s/tmp", dir);
	mkdir(modpath, 0755);
	mkdir(tmp, 0755);
	setenv("TMPDIR", tmp, 1);
	free(tmp);
	const char *tm = getenv("TESTMODS");
	char *src = bc_xasprintf("%s/synth.so", tm ? tm : "build/testmods"), *dst = bc_xasprintf("%s/synth.so", modpath);
	char *data = NULL;
	size_t n = 0;
	int rc = slurp(src, &data, &n);
	FILE *f = rc ? NULL : fopen(dst, "wb");
	if (f) {
		rc = fwrite(data, 1, n, f) == n ? 0 : -1;
		fclose(f);
		chmod(dst, 0755);
	}
	free(data);
	/* the loader's dlopen of this file finds this copy already loaded:
	   the same synth_sleep_ns */
	synth_so = rc || !f ? NULL : dlopen(dst, RTLD_NOW | RTLD_LOCAL);
	void (**hook)(uint64_t) = synth_so ? (void (**)(uint64_t))dlsym(synth_so, "synth_sleep_ns") : NULL;
	free(src);
	free(dst);
	if (!hook) {
		fprintf(stderr, "%s: cannot load synth.so from %s (TESTMODS)\n", name, tm ? tm : "build/testmods");
		return -1;
	}
	*hook = sleep_ns;
	return bc_clock_virtual_start(1000000000ull);
}

static UNUSED int synthrun_teardown(void)
{
	bc_clock_virtual_stop();
	if (getenv("BC_UNIT_KEEP"))
		return 0;
	char *cmd = bc_xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc;
}
#endif
