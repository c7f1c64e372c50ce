/* The run document's reader and writer (core/result/rundoc.h): every results
   file in the tree (the fixtures, the fuzzers' results corpus) read and
   written again is the same JSON with its members in the same order, and
   writing that once more changes no byte; a file today's benchcore wrote
   (tests/fixtures/rundoc/, a real cpu run) comes back byte for byte (older
   files, python's or benchcore 0.1's shortest reals, come back with
   jansson's 17 digits: the same numbers); the typed header holds what the
   file says; a header member of the wrong type, a missing schema or cases
   array, a key given twice are refused by name, and no message names the
   file; a new run's document (the runner's) has benchcore's member order
   and its cases spliced from their texts as one tree would dump them.
   The runner's own files go round in test_run and test_resume
   (synthrun.h's doc()). */
#include "unit.h"
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* read, written, read, written: the same JSON (members in their order) the
   first time, the same bytes the second; a file today's benchcore wrote
   (tests/fixtures/rundoc/) the same bytes the first time. */
static void round_trip(const char *path)
{
	size_t len, l1, l2;
	char *text = slurp(path, &len);
	bc_rundoc d, d2;
	bc_err e;
	if (bc_rundoc_read(text, len, path, &d, &e))
		fail_msg("%s: %s", path, e.msg);
	char *w1 = bc_rundoc_write(&d, &l1);
	json_t *a = json_loads(text, 0, NULL), *b = json_loads(w1, 0, NULL);
	if (!json_equal(a, b))
		fail_msg("%s: written again, not the same JSON", path);
	char *ka = key_order(text), *kb = key_order(w1);
	assert_string_equal(ka, kb);
	assert_int_equal(bc_rundoc_read(w1, l1, "again", &d2, &e), 0);
	char *w2 = bc_rundoc_write(&d2, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(w1, w2, l1);
	if (strstr(path, "/rundoc/")) {
		assert_int_equal(l1, len);
		assert_memory_equal(w1, text, len);
	}
	json_decref(a), json_decref(b);
	free(ka), free(kb), free(w1), free(w2), free(text);
	bc_rundoc_free(&d), bc_rundoc_free(&d2);
}

static void fixtures_round_trip(void **state)
{
	(void)state;
	glob_t g;
	assert_int_equal(glob("tests/fixtures/*.json", 0, NULL, &g), 0);
	assert_int_equal(glob("tests/fixtures/rundoc/*.json", GLOB_APPEND, NULL, &g), 0);
	assert_true(g.gl_pathc >= 10);
	for (size_t i = 0; i < g.gl_pathc; i++)
		round_trip(g.gl_pathv[i]);
	globfree(&g);
}

/* Every results file anywhere under tests/, docs/ and examples/ (a JSON
   file whose schema is benchcore/1: the fixtures, the fuzzers' corpus,
   whatever comes later) is read by the one reader and goes round. */
static size_t nwalked;
static int walked(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	size_t n = strlen(path), len;
	if (type != FTW_F || n < 5 || strcmp(path + n - 5, ".json"))
		return 0;
	char *text = slurp(path, &len);
	json_t *o = json_loadb(text, len, 0, NULL);
	int results = json_is_object(o) && json_is_string(json_object_get(o, "schema")) &&
		      !strcmp(json_string_value(json_object_get(o, "schema")), "benchcore/1");
	json_decref(o);
	free(text);
	if (results) {
		round_trip(path);
		nwalked++;
	}
	return 0;
}

static void every_results_file_round_trip(void **state)
{
	(void)state;
	static const char *const roots[] = { "tests", "docs", "examples" };
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!access(roots[i], F_OK))
			assert_int_equal(nftw(roots[i], walked, 16, FTW_PHYS), 0);
	assert_true(nwalked >= 20);	/* 15 fixtures and the fuzzers' results corpus at least */
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
		{ "{\"schema\": \"benchcore/1\", \"run_id\": 7, \"cases\": []}", "run_id: not a string" },
		{ "{\"schema\": \"benchcore/1\", \"host\": [], \"cases\": []}", "host: not an object" },
		{ "{\"schema\": \"benchcore/1\", \"cases\": {}}", "cases: missing or not an array" },
		{ "{\"schema\": \"benchcore/1\"}", "cases: missing or not an array" },
		{ "{\"schema\": \"benchcore/1\", \"merged_from\": [1], \"cases\": []}", "merged_from[0]" },
		{ "{\"schema\": \"other/2\", \"cases\": []}", "not a benchcore/1 results file (schema is other/2)" },
		{ "{\"cases\": []}", "(schema is missing)" },
		{ "{\"schema\": 1, \"cases\": []}", "schema: not a string" },
		{ "[1]", "top level is not an object" },
		{ "{\"label\": ", "invalid JSON at line 1" },
		{ "{\"schema\": \"benchcore/1\", \"label\": \"a\", \"label\": \"b\", \"cases\": []}",
		  "duplicate object key" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(bc_rundoc_read(bad[i][0], strlen(bad[i][0]), "x.json", &d, &e), -1);
		if (!strstr(e.msg, bad[i][1]))
			fail_msg("%s: \"%s\" does not say %s", bad[i][0], e.msg, bad[i][1]);
		assert_null(strstr(e.msg, "x.json"));	/* the caller names the file */
		assert_null(d.root);
	}
	assert_int_equal(bc_rundoc_read("{}\0x", 4, "nul.json", &d, &e), -1);
	assert_non_null(strstr(e.msg, "NUL"));
	assert_int_equal(bc_rundoc_load("tests/fixtures/no-such.json", &d, &e), -1);
	assert_non_null(strstr(e.msg, "cannot open"));
	assert_int_equal(bc_rundoc_load("tests/fixtures", &d, &e), -1);
	assert_non_null(strstr(e.msg, "not a regular file"));
}

/* The runner's document: bc_rundoc_new's members in benchcore's order,
   bc_rundoc_set in place or after the others, its cases spliced from texts
   exactly as one tree holding them dumps; bc_rundoc_write of that tree is
   the same bytes (the writer merge uses). */
static void new_document_and_pieces(void **state)
{
	(void)state;
	bc_rundoc d, d2;
	bc_err e;
	bc_rundoc_new(&d, "00112233445566778899aabbccddeeff", "h1", "2026-01-02T03:04:05Z", "lab",
		      json_pack("{s:s}", "hostname", "box"), json_pack("{s:s}", "file", "a.conf"),
		      json_pack("{s:s, s:i}", "repeat_order", "rounds", "seed", 5));
	assert_string_equal(d.status, "running");
	assert_true(d.interrupted);
	assert_string_equal(d.hostname, "box");
	assert_string_equal(d.config_file, "a.conf");
	bc_rundoc_set(&d, "cases_planned", json_integer(2));
	assert_int_equal(d.planned, 2);
	bc_rundoc_set(&d, "status", json_string("complete"));
	bc_rundoc_set(&d, "finished_at", json_string("2026-01-02T03:05:00Z"));
	bc_rundoc_set(&d, "interrupted", json_false());
	assert_string_equal(d.status, "complete");
	assert_false(d.interrupted);
	json_t *c1 = json_pack("{s:I, s:s, s:{s:f}, s:s}", "id", (json_int_t)1, "module", "cpu", "metrics", "x",
			       0.1, "note", "two\nlines");
	json_t *c2 = json_pack("{s:I, s:s, s:[]}", "id", (json_int_t)2, "module", "cpu", "ops");
	char *texts[2] = { bc_rundoc_case_text(c1), bc_rundoc_case_text(c2) };
	char *head;
	size_t n, len = 0, l2;
	struct iovec *v = bc_rundoc_pieces(&d, texts, 2, &head, &n);
	char *joined = bc_xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *t = bc_xasprintf("%s%.*s", joined, (int)v[i].iov_len, (const char *)v[i].iov_base);
		free(joined);
		joined = t;
		len += v[i].iov_len;
	}
	/* one tree holding them: the same bytes */
	json_t *whole = json_deep_copy(d.root);
	json_object_set_new(whole, "cases", json_pack("[O, O]", c1, c2));
	char *dump = json_dumps(whole, JSON_INDENT(1));
	assert_string_equal(joined, dump);
	char *order = key_order(joined);
	assert_string_equal(order, "schema\nbenchcore_version\nrun_id\nhost_id\nstarted_at\nstatus\ninterrupted\n"
			    "label\nhost\nconfig\nschedule\ncases\ngroups\ncases_planned\nfinished_at\n");
	/* read back and written by the one writer: the same bytes */
	assert_int_equal(bc_rundoc_read(joined, len, "joined", &d2, &e), 0);
	char *w = bc_rundoc_write(&d2, &l2);
	assert_int_equal(l2, len);
	assert_string_equal(w, joined);
	/* removed, then no case at all: "[]" */
	bc_rundoc_set(&d, "finished_at", NULL);
	assert_null(d.finished_at);
	free(v), free(head);
	v = bc_rundoc_pieces(&d, NULL, 0, &head, &n);
	json_object_del(whole, "finished_at");
	json_object_set_new(whole, "cases", json_array());
	free(dump);
	dump = json_dumps(whole, JSON_INDENT(1));
	free(joined);
	joined = bc_xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *t = bc_xasprintf("%s%.*s", joined, (int)v[i].iov_len, (const char *)v[i].iov_base);
		free(joined);
		joined = t;
	}
	assert_string_equal(joined, dump);
	free(v), free(head), free(joined), free(dump), free(order), free(w), free(texts[0]), free(texts[1]);
	json_decref(whole), json_decref(c1), json_decref(c2);
	bc_rundoc_free(&d), bc_rundoc_free(&d2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixtures_round_trip),
		cmocka_unit_test(typed_header),
		cmocka_unit_test(merged_parts_and_refusals),
		cmocka_unit_test(every_results_file_round_trip),
		cmocka_unit_test(new_document_and_pieces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
