/* The run document's one reader and one writer (rundoc.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "rundoc.h"

/* A header member that must be a string when present. */
static int opt_str(json_t *root, const char *key, const char **out, const char *name, bc_err *e)
{
	json_t *v = json_object_get(root, key);
	*out = json_string_value(v);
	if (v && !json_is_string(v) && !json_is_null(v)) {
		bc_err_set(e, "%s: %s: not a string", name, key);
		return -1;
	}
	return 0;
}

static int read_parts(bc_rundoc *d, const char *name, bc_err *e)
{
	json_t *from = json_object_get(d->root, "merged_from"), *m;
	size_t i;
	if (!from)
		return 0;
	if (!json_is_array(from)) {
		bc_err_set(e, "%s: merged_from: not an array", name);
		return -1;
	}
	d->parts = bc_xcalloc(json_array_size(from) + 1, sizeof(*d->parts));
	json_array_foreach(from, i, m) {
		json_t *id = json_object_get(m, "run_id");
		if (!json_is_object(m) || (id && !json_is_string(id) && !json_is_null(id))) {
			bc_err_set(e, "%s: merged_from[%zu]: not {file, run_id, modules}", name, i);
			return -1;
		}
		d->parts[d->nparts++] = (bc_rundoc_part){ json_string_value(json_object_get(m, "file")),
							  json_string_value(id) };
	}
	return 0;
}

static int read_header(bc_rundoc *d, const char *name, bc_err *e)
{
	static const struct { const char *key; size_t off; } strs[] = {
		{ "schema", offsetof(bc_rundoc, schema) }, { "run_id", offsetof(bc_rundoc, run_id) },
		{ "host_id", offsetof(bc_rundoc, host_id) }, { "started_at", offsetof(bc_rundoc, started_at) },
		{ "finished_at", offsetof(bc_rundoc, finished_at) }, { "label", offsetof(bc_rundoc, label) },
		{ "benchcore_version", offsetof(bc_rundoc, version) }, { "status", offsetof(bc_rundoc, status) },
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (opt_str(d->root, strs[i].key, (const char **)((char *)d + strs[i].off), name, e))
			return -1;
	json_t *h = json_object_get(d->root, "host"), *c = json_object_get(d->root, "config");
	json_t *cs = json_object_get(d->root, "cases"), *pl = json_object_get(d->root, "cases_planned");
	const char *bad = h && !json_is_object(h) ? "host: not an object" : c && !json_is_object(c) ?
			  "config: not an object" : cs && !json_is_array(cs) ? "cases: not an array" : NULL;
	if (bad) {
		bc_err_set(e, "%s: %s", name, bad);
		return -1;
	}
	d->host = h;
	d->config = c;
	d->cases = cs;
	d->hostname = json_string_value(json_object_get(h, "hostname"));
	d->config_file = json_string_value(json_object_get(c, "file"));
	d->interrupted = json_is_true(json_object_get(d->root, "interrupted"));
	d->planned = json_is_integer(pl) && json_integer_value(pl) >= 0 && json_integer_value(pl) < LONG_MAX ?
		     (long)json_integer_value(pl) : -1;
	return read_parts(d, name, e);
}

int bc_rundoc_read(const char *buf, size_t len, const char *name, bc_rundoc *d, bc_err *e)
{
	json_error_t je;
	memset(d, 0, sizeof(*d));
	d->planned = -1;
	if (memchr(buf, '\0', len)) {
		bc_err_set(e, "%s: not a results file (it holds a NUL byte)", name);
		return -1;
	}
	d->root = json_loadb(buf, len, 0, &je);
	if (!d->root) {
		bc_err_set(e, "%s: line %d: %s", name, je.line, je.text);
		return -1;
	}
	json_t *root = d->root;
	d->root = NULL;
	return bc_rundoc_take(root, name, d, e);
}

int bc_rundoc_take(json_t *root, const char *name, bc_rundoc *d, bc_err *e)
{
	memset(d, 0, sizeof(*d));
	d->planned = -1;
	d->root = root;
	if (!json_is_object(d->root)) {
		bc_err_set(e, "%s: not a results file (not a JSON object)", name);
		bc_rundoc_free(d);
		return -1;
	}
	if (read_header(d, name, e)) {
		bc_rundoc_free(d);
		return -1;
	}
	return 0;
}

/* key set to s, in its place when the document has it (NULL: left out) */
static void put_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
	else if (!json_is_null(json_object_get(o, key)))
		json_object_del(o, key);
}

char *bc_rundoc_write(const bc_rundoc *d, size_t *len)
{
	json_t *o = json_copy(d->root);	/* members shared, order kept */
	put_str(o, "schema", d->schema);
	put_str(o, "run_id", d->run_id);
	put_str(o, "host_id", d->host_id);
	put_str(o, "started_at", d->started_at);
	put_str(o, "finished_at", d->finished_at);
	put_str(o, "label", d->label);
	put_str(o, "benchcore_version", d->version);
	put_str(o, "status", d->status);
	if (json_object_get(o, "interrupted") || d->interrupted)
		json_object_set_new(o, "interrupted", json_boolean(d->interrupted));
	if (d->planned >= 0)
		json_object_set_new(o, "cases_planned", json_integer(d->planned));
	char *s = json_dumps(o, JSON_INDENT(1));
	json_decref(o);
	if (!s)
		abort();
	*len = strlen(s);
	return s;
}

void bc_rundoc_free(bc_rundoc *d)
{
	free(d->parts);
	json_decref(d->root);
	memset(d, 0, sizeof(*d));
	d->planned = -1;
}
