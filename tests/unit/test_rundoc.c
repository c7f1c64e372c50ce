/* The run document's reader and writer (core/result/rundoc.h): every fixture
   results file read and written again is the same JSON with its members in
   the same order, and writing that once more changes no byte; a file today's
   benchcore wrote (tests/fixtures/rundoc/, a real cpu run) comes back byte for
   byte (older files, python's or benchcore 0.1's shortest reals, come back
   with jansson's 17 digits: the same numbers); the typed header holds what
   the file says; a header member of the wrong type is refused by name. */
#include "unit.h"
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rundoc.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* the top-level member names, in order, as one string */
static char *key_order(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	const char *k;
	json_t *v;
	char *s = bc_xstrdup("");
	assert_non_null(o);
	json_object_foreach(o, k, v) {
		char *t = bc_xasprintf("%s%s\n", s, k);
		free(s);
		s = t;
	}
	json_decref(o);
	return s;
}

static void fixtures_round_trip(void **state)
{
	(void)state;
	glob_t g;
	assert_int_equal(glob("tests/fixtures/*.json", 0, NULL, &g), 0);
	assert_int_equal(glob("tests/fixtures/rundoc/*.json", GLOB_APPEND, NULL, &g), 0);
	assert_true(g.gl_pathc >= 10);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		size_t len, l1, l2;
		char *text = slurp(g.gl_pathv[i], &len);
		bc_rundoc d, d2;
		bc_err e;
		assert_int_equal(bc_rundoc_read(text, len, g.gl_pathv[i], &d, &e), 0);
		char *w1 = bc_rundoc_write(&d, &l1);
		json_t *a = json_loads(text, 0, NULL), *b = json_loads(w1, 0, NULL);
		if (!json_equal(a, b))
			fail_msg("%s: written again, not the same JSON", g.gl_pathv[i]);
		char *ka = key_order(text), *kb = key_order(w1);
		assert_string_equal(ka, kb);
		assert_int_equal(bc_rundoc_read(w1, l1, "again", &d2, &e), 0);
		char *w2 = bc_rundoc_write(&d2, &l2);
		assert_int_equal(l1, l2);
		assert_memory_equal(w1, w2, l1);
		/* a file today's benchcore wrote: byte for byte */
		if (strstr(g.gl_pathv[i], "/rundoc/")) {
			assert_int_equal(l1, len);
			assert_memory_equal(w1, text, len);
		}
		json_decref(a), json_decref(b);
		free(ka), free(kb), free(w1), free(w2), free(text);
		bc_rundoc_free(&d), bc_rundoc_free(&d2);
	}
	globfree(&g);
}

static void typed_header(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp("tests/fixtures/run-0.1.json", &len);
	json_t *o = json_loads(text, 0, NULL);
	bc_rundoc d;
	bc_err e;
	assert_int_equal(bc_rundoc_read(text, len, "run-0.1.json", &d, &e), 0);
	assert_string_equal(d.schema, json_string_value(json_object_get(o, "schema")));
	assert_true(!d.started_at == !json_object_get(o, "started_at"));
	assert_true(!d.hostname == !json_object_get(json_object_get(o, "host"), "hostname"));
	assert_int_equal(d.interrupted, json_is_true(json_object_get(o, "interrupted")));
	assert_int_equal(json_array_size(d.cases), json_array_size(json_object_get(o, "cases")));
	assert_int_equal(d.nparts, 0);
	/* a changed field is what is written */
	d.label = "relabelled";
	d.planned = 7;
	size_t l;
	char *w = bc_rundoc_write(&d, &l);
	json_t *b = json_loads(w, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(b, "label")), "relabelled");
	assert_int_equal(json_integer_value(json_object_get(b, "cases_planned")), 7);
	json_decref(b), json_decref(o);
	free(w), free(text);
	bc_rundoc_free(&d);
}

static void merged_parts_and_refusals(void **state)
{
	(void)state;
	bc_rundoc d;
	bc_err e;
	const char *m = "{\"schema\": \"benchcore/1\", \"run_id\": \"00112233445566778899aabbccddeeff\", "
			"\"merged_from\": [{\"file\": \"a.json\", \"run_id\": \"aa\"}, {\"file\": \"b.json\"}], \"cases\": []}";
	assert_int_equal(bc_rundoc_read(m, strlen(m), "m", &d, &e), 0);
	assert_int_equal(d.nparts, 2);
	assert_string_equal(d.parts[0].run_id, "aa");
	assert_null(d.parts[1].run_id);
	assert_string_equal(d.parts[1].file, "b.json");
	bc_rundoc_free(&d);
	static const char *const bad[][2] = {
		{ "{\"run_id\": 7}", "run_id: not a string" },
		{ "{\"host\": []}", "host: not an object" },
		{ "{\"cases\": {}}", "cases: not an array" },
		{ "{\"merged_from\": [1]}", "merged_from[0]" },
		{ "[1]", "not a JSON object" },
		{ "{\"label\": ", "line 1" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(bc_rundoc_read(bad[i][0], strlen(bad[i][0]), "x.json", &d, &e), -1);
		if (!strstr(e.msg, bad[i][1]))
			fail_msg("%s: \"%s\" does not say %s", bad[i][0], e.msg, bad[i][1]);
		assert_null(d.root);
	}
	assert_int_equal(bc_rundoc_read("{}\0x", 4, "nul.json", &d, &e), -1);
	assert_non_null(strstr(e.msg, "NUL"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixtures_round_trip),
		cmocka_unit_test(typed_header),
		cmocka_unit_test(merged_parts_and_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
