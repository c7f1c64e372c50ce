/* compare --split KEY FILE (docs/machine.md): one run that swept a machine
   setting (machine.KEY) or a module's option (its bare name: server_bin)
   read as one system per value, the first value (the config's order,
   "machine_sweep" or config.modules[].options in the file) the baseline.
   Each system is a reference "split:IDX:KEY:FILE" that bc_results_load reads
   here: the file's cases whose machine KEY (or params KEY) is the IDX-th
   value, that key taken out (so their groups match across the systems as one
   file's do), labelled "LABEL KEY=VALUE". Every view that reads files takes
   them unchanged. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "options.h"
#include "results.h"

/* Where a case records the key: "machine.KEY" under cases[].machine, an
   option's name under cases[].params. */
static int is_machine(const char *key)
{
	return !strncmp(key, "machine.", 8);
}

static const char *bare(const char *key)
{
	return is_machine(key) ? key + 8 : key;
}

static json_t *case_obj(json_t *c, const char *key)
{
	return json_object_get(c, is_machine(key) ? "machine" : "params");
}

/* The values an option was swept over as configured: the first module of
   config.modules whose options give the key two or more values. */
static json_t *configured(json_t *d, const char *key)
{
	if (is_machine(key))
		return json_object_get(json_object_get(d, "machine_sweep"), bare(key));
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(json_object_get(d, "config"), "modules"), i, m) {
		json_t *v = json_object_get(json_object_get(m, "options"), key);
		if (json_array_size(v) > 1)
			return v;
	}
	return NULL;
}

/* The values of key in the file: the sweep's order as configured, then any
   other value in the order the cases have them. A new array. */
static json_t *values_of(json_t *d, const char *key)
{
	json_t *vals = json_array(), *v, *c;
	size_t i;
	json_array_foreach(configured(d, key), i, v)
		if (json_is_string(v) || json_is_number(v) || json_is_boolean(v))
			json_array_append(vals, v);
	json_array_foreach(json_object_get(d, "cases"), i, c) {
		json_t *m = json_object_get(case_obj(c, key), bare(key));
		size_t j, seen = 0;
		json_t *w;
		json_array_foreach(vals, j, w)
			seen |= json_equal(w, m);
		if (m && !json_is_null(m) && !json_is_object(m) && !json_is_array(m) && !seen)
			json_array_append(vals, m);
	}
	return vals;
}

char **bc_split_refs(const char *file, const char *key, bc_err *e)
{
	bc_rundoc doc;
	if (bc_rundoc_load(file, &doc, e))
		return NULL;
	json_t *vals = values_of(doc.root, key);
	size_t n = json_array_size(vals);
	char **refs = NULL;
	const char *what = is_machine(key) ? "machine setting" : "option";
	if (strchr(key, ':') || !*bare(key)) {
		bc_err_set(e, "--split %s: not a machine setting's or an option's name", key);
	} else if (n < 2) {
		bc_err_set(e, "--split %s: %s has %s value of %s \"%s\" (a run that swept it has two or "
			   "more)", key, file, n ? "one" : "no", what, bare(key));
		bc_err_hint(e, "the keys a case records are under cases[].machine (machine.KEY) and cases[].params "
			    "(an option's name, e.g. server_bin)");
	} else {
		refs = bc_xcalloc(n + 1, sizeof(*refs));
		for (size_t i = 0; i < n; i++)
			refs[i] = bc_xasprintf("split:%zu:%s:%s", i, key, file);
	}
	json_decref(vals);
	bc_rundoc_free(&doc);
	return refs;
}

int bc_split_load(const char *ref, bc_results *r, bc_err *e)
{
	char key[256];
	unsigned long idx;
	int off = 0;
	*r = (bc_results){ 0 };
	if (sscanf(ref, "split:%lu:%255[^:]:%n", &idx, key, &off) != 2 || !off) {
		bc_err_set(e, "not a split reference (split:IDX:KEY:FILE)");
		return -1;
	}
	bc_rundoc doc;
	if (bc_rundoc_load(ref + off, &doc, e))
		return -1;
	json_t *vals = values_of(doc.root, key), *want = json_array_get(vals, idx), *kept = json_array(), *c;
	size_t i;
	int rc = -1;
	if (!want) {
		bc_err_set(e, "%s has no value %lu of \"%s\"", ref + off, idx, key);
		bc_rundoc_free(&doc);
		goto out;
	}
	json_array_foreach(doc.cases, i, c) {
		json_t *m = case_obj(c, key);
		if (!json_equal(json_object_get(m, bare(key)), want))
			continue;
		json_object_del(m, bare(key));
		json_array_append(kept, c);
	}
	char *wv = json_is_string(want) ? bc_xstrdup(json_string_value(want)) : bc_json_text(want);
	char *l = bc_xasprintf("%s %s=%s", doc.label ? doc.label : ref + off, key, wv);
	free(wv);
	bc_rundoc_set(&doc, "label", json_string(l));
	free(l);
	bc_rundoc_set(&doc, "cases", json_incref(kept));
	bc_rundoc_set(&doc, "groups", NULL);	/* regrouped from the kept cases */
	bc_rundoc_set(&doc, "cases_planned", NULL);
	rc = bc_results_from_doc(&doc, ref, r, e);	/* takes doc */
out:
	json_decref(kept);
	json_decref(vals);
	return rc;
}
