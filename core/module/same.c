/* The module opened in a case's process against what its probe described
   (probe.h, bc_module_same). The host fills the module's typed options,
   names its op classes and metrics and reads its records by the probe's
   description; a descriptor that changes between processes (a constructor
   that counts its loads, one that reads the environment) would have the
   host's int read as a pointer. Both sides are described by the same code
   (bc_probe_describe_host), so any difference is a real one: the first is
   named, most fundamental first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "probe.h"
#include "util.h"

#define SHOWN	160		/* bytes of one value in the message */

/* The keys of a description, most fundamental first; then any other but
   "libs" (the probe's own addition). */
static const char *const root_order[] = {
	"magic", "abi_major", "abi_minor", "struct_size", "reserved", "name", "options", "op_classes",
	"metrics", "headline_metric", "thresholds", "data_options", "requires", "opts_size", "callbacks",
	"serve_port", "version", "summary", NULL
};

/* A value as the message shows it: escaped strings, a type by name, flags
   in hex, a string vector joined by commas. */
static void shown(const json_t *v, const char *key, char *buf, size_t n)
{
	char *t = NULL;
	if (!v || json_is_null(v)) {
		snprintf(buf, n, "none");
	} else if (!strcmp(key, "type") && json_is_integer(v)) {
		snprintf(buf, n, "%s", bc_opt_type_name((bench_opt_type)json_integer_value(v)));
	} else if (!strcmp(key, "flags") && json_is_integer(v)) {
		snprintf(buf, n, "0x%llx", (unsigned long long)json_integer_value(v));
	} else if (json_is_string(v)) {
		t = bc_text_dup(json_string_value(v));
		snprintf(buf, n, "\"%.*s\"", (int)(n > 3 ? n - 3 : 0), t);
	} else if (json_is_array(v)) {
		size_t off = 0, i;
		json_t *x;
		buf[0] = '\0';
		json_array_foreach(v, i, x) {
			char one[SHOWN];
			shown(x, "", one, sizeof(one));
			off += (size_t)snprintf(buf + off, off < n ? n - off : 0, "%s%s", i ? "," : "", one);
		}
		if (!json_array_size(v))
			snprintf(buf, n, "none");
	} else {
		t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(buf, n, "%s", t ? t : "?");
	}
	free(t);
}

/* "WHAT: KEY X, was Y" into out; 1 when was and now differ. */
static int differs(const char *what, const char *key, const json_t *was, const json_t *now, char *out, size_t n)
{
	if ((!was || json_is_null(was)) && (!now || json_is_null(now)))
		return 0;
	if (was && now && json_equal((json_t *)was, (json_t *)now))
		return 0;
	char a[SHOWN], b[SHOWN];
	shown(was, key, a, sizeof(a));
	shown(now, key, b, sizeof(b));
	snprintf(out, n, "%s%s%s %s, was %s", what, *what ? " " : "", key, b, a);
	return 1;
}

/* Two objects, field by field (was's order, then fields only now has). */
static int object_diff(const char *what, const json_t *was, const json_t *now, char *out, size_t n)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)was, k, v)
		if (differs(what, k, v, json_object_get(now, k), out, n))
			return 1;
	json_object_foreach((json_t *)now, k, v)
		if (!json_object_get(was, k) && differs(what, k, NULL, v, out, n))
			return 1;
	return 0;
}

static const char *entry_name(const json_t *e, const char *id)
{
	const char *s = json_string_value(json_object_get(e, id));
	return s ? s : "?";
}

/* A table of objects (options, metrics, thresholds), entry by entry: one
   new, gone or renamed, else its first field that differs. */
static int table_diff(const char *what, const char *id, const json_t *was, const json_t *now, char *out, size_t n)
{
	size_t nw = json_array_size(was), nn = json_array_size(now);
	for (size_t i = 0; i < nw || i < nn; i++) {
		const json_t *a = json_array_get(was, i), *b = json_array_get(now, i);
		char *ea = a ? bc_text_dup(entry_name(a, id)) : NULL, *eb = b ? bc_text_dup(entry_name(b, id)) : NULL;
		int d = 1;
		if (!a)
			snprintf(out, n, "%s \"%.100s\" is new (it had %zu %ss)", what, eb, nw, what);
		else if (!b)
			snprintf(out, n, "%s \"%.100s\" is gone (it has %zu %ss)", what, ea, nn, what);
		else if (strcmp(entry_name(a, id), entry_name(b, id)))
			snprintf(out, n, "%s %zu is \"%.100s\", was \"%.100s\"", what, i + 1, eb, ea);
		else {
			char label[160];
			snprintf(label, sizeof(label), "%s \"%.100s\":", what, ea);
			d = object_diff(label, a, b, out, n);
		}
		free(ea);
		free(eb);
		if (d)
			return 1;
	}
	return 0;
}

static int key_diff(const char *key, const json_t *was, const json_t *now, char *out, size_t n)
{
	const json_t *a = json_object_get(was, key), *b = json_object_get(now, key);
	if (!strcmp(key, "options"))
		return table_diff("option", "name", a, b, out, n);
	if (!strcmp(key, "metrics"))
		return table_diff("metric", "name", a, b, out, n);
	if (!strcmp(key, "thresholds"))
		return table_diff("threshold", "metric", a, b, out, n);
	if (!strcmp(key, "requires") && json_is_object(a) && json_is_object(b))
		return object_diff("requires:", a, b, out, n);
	char label[64];
	snprintf(label, sizeof(label), "%s", key);
	for (char *c = label; *c; c++)
		if (*c == '_')
			*c = ' ';	/* op_classes: "op classes" */
	return differs("", label, a, b, out, n);
}

/* The first difference between two descriptions, in root_order. */
static int description_diff(const json_t *was, const json_t *now, char *out, size_t n)
{
	for (size_t i = 0; root_order[i]; i++)
		if (key_diff(root_order[i], was, now, out, n))
			return 1;
	const char *k;
	json_t *v;
	for (int side = 0; side < 2; side++)
		json_object_foreach((json_t *)(side ? now : was), k, v) {
			int listed = !strcmp(k, "libs");
			for (size_t i = 0; root_order[i] && !listed; i++)
				listed = !strcmp(k, root_order[i]);
			if (!listed && key_diff(k, was, now, out, n))
				return 1;
		}
	return 0;
}

int bc_module_same(const bc_module *m, const bench_module_v1 *d, bc_err *e)
{
	const json_t *was = bc_probe_description(m);
	char *text = bc_probe_describe_host(m->path, d, e);
	if (!text)
		return -1;
	json_t *now = json_loads(text, 0, NULL);
	free(text);
	/* a module not described by a probe (a unit test's own): its name */
	json_t *own = was ? NULL : json_pack("{s:s?}", "name", m->desc.name);
	char what[700] = "its description could not be read back";
	int diff = !now || (was ? description_diff(was, now, what, sizeof(what)) :
			    key_diff("name", own, now, what, sizeof(what)));
	json_decref(own);
	json_decref(now);
	if (!diff)
		return 0;
	bc_err_set(e, "module \"%s\" describes itself differently when opened again: %s", m->path, what);
	bc_err_detail(e, "benchcore checked the module in a probe process and fills its options, names its "
		      "op classes and metrics and reads its records by that description; in this process its "
		      "entry function returned another one.");
	bc_err_hint(e, "the descriptor must be the same in every process: do not change it in a constructor "
		    "or make it depend on the environment or on how often the module was loaded");
	return -1;
}
