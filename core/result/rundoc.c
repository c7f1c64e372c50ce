/* The run document's one reader and one writer (rundoc.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rundoc.h"

static const struct {
	const char *key;
	size_t off;
} strs[] = {
	{ "schema", offsetof(bc_rundoc, schema) }, { "run_id", offsetof(bc_rundoc, run_id) },
	{ "host_id", offsetof(bc_rundoc, host_id) }, { "started_at", offsetof(bc_rundoc, started_at) },
	{ "finished_at", offsetof(bc_rundoc, finished_at) }, { "label", offsetof(bc_rundoc, label) },
	{ "benchcore_version", offsetof(bc_rundoc, version) }, { "status", offsetof(bc_rundoc, status) },
};
#define NSTRS (sizeof(strs) / sizeof(strs[0]))

/* The typed header members, in the order they are checked. */
static const char *const typed[] = {
	"schema", "run_id", "host_id", "started_at", "finished_at", "label", "benchcore_version", "status",
	"host", "config", "cases", "interrupted", "cases_planned", "merged_from", NULL
};

static int read_parts(bc_rundoc *d, json_t *from, bc_err *e)
{
	json_t *m;
	size_t i;
	free(d->parts);
	d->parts = NULL;
	d->nparts = 0;
	if (!from)
		return 0;
	if (!json_is_array(from)) {
		bc_err_set(e, "merged_from: not an array");
		return -1;
	}
	d->parts = bc_xcalloc(json_array_size(from) + 1, sizeof(*d->parts));
	json_array_foreach(from, i, m) {
		json_t *id = json_object_get(m, "run_id");
		if (!json_is_object(m) || (id && !json_is_string(id) && !json_is_null(id))) {
			bc_err_set(e, "merged_from[%zu]: not {file, run_id, modules}", i);
			return -1;
		}
		d->parts[d->nparts++] = (bc_rundoc_part){ json_string_value(json_object_get(m, "file")),
							  json_string_value(id) };
	}
	return 0;
}

/* The header member key into its typed field (none: nothing to do): 0, or
   -1 with e naming it when it has the wrong type. */
static int read_member(bc_rundoc *d, const char *key, bc_err *e)
{
	json_t *v = json_object_get(d->root, key);
	for (size_t i = 0; i < NSTRS; i++)
		if (!strcmp(key, strs[i].key)) {
			if (v && !json_is_string(v) && !json_is_null(v)) {
				bc_err_set(e, "%s: not a string", key);
				return -1;
			}
			*(const char **)((char *)d + strs[i].off) = json_string_value(v);
			return 0;
		}
	if (!strcmp(key, "host") || !strcmp(key, "config")) {
		if (v && !json_is_object(v)) {
			bc_err_set(e, "%s: not an object", key);
			return -1;
		}
		if (key[0] == 'h') {
			d->host = v;
			d->hostname = json_string_value(json_object_get(v, "hostname"));
		} else {
			d->config = v;
			d->config_file = json_string_value(json_object_get(v, "file"));
		}
	} else if (!strcmp(key, "cases")) {
		if (!json_is_array(v)) {
			bc_err_set(e, "cases: missing or not an array");
			return -1;
		}
		d->cases = v;
	} else if (!strcmp(key, "interrupted")) {
		d->interrupted = json_is_true(v);
	} else if (!strcmp(key, "cases_planned")) {
		d->planned = json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < LONG_MAX ?
			     (long)json_integer_value(v) : -1;
	} else if (!strcmp(key, "merged_from")) {
		return read_parts(d, v, e);
	}
	return 0;
}

static int read_header(bc_rundoc *d, bc_err *e)
{
	if (read_member(d, "schema", e))
		return -1;
	if (!d->schema || strcmp(d->schema, "benchcore/1")) {
		char *s = bc_printable(d->schema ? d->schema : "missing");
		bc_err_set(e, "not a benchcore/1 results file (schema is %.64s)", s);
		free(s);
		return -1;
	}
	for (size_t i = 1; typed[i]; i++)
		if (read_member(d, typed[i], e))
			return -1;
	return 0;
}

static void empty(bc_rundoc *d)
{
	memset(d, 0, sizeof(*d));
	d->planned = -1;
}

int bc_rundoc_read(const char *buf, size_t len, const char *name, bc_rundoc *d, bc_err *e)
{
	json_error_t je;
	empty(d);
	if (memchr(buf, '\0', len)) {
		bc_err_set(e, "not a results file (it holds a NUL byte)");
		return -1;
	}
	/* a key given twice would let one file say two things */
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		bc_err_set(e, "invalid JSON at line %d column %d: %s", je.line, je.column, je.text);
		return -1;
	}
	return bc_rundoc_take(root, name, d, e);
}

int bc_rundoc_load(const char *path, bc_rundoc *d, bc_err *e)
{
	empty(d);
	int fd = bc_open_regular(path, BC_RUNDOC_MAX, e);
	if (fd < 0)
		return -1;
	size_t cap = 1 << 16, len = 0;
	char *buf = bc_xrealloc(NULL, cap, 1);
	int bad = 0;
	for (;;) {
		if (len == cap) {	/* it grew since it was opened */
			if (cap >= BC_RUNDOC_MAX) {
				bc_err_set(e, "larger than %u MiB: not a results file", BC_RUNDOC_MAX >> 20);
				bad = 1;
				break;
			}
			cap *= 2;
			buf = bc_xrealloc(buf, cap, 1);
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			bc_err_set(e, "read error: %s", strerror(errno));
			bad = 1;
		}
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	int rc = bad ? -1 : bc_rundoc_read(buf, len, path, d, e);
	free(buf);
	return rc;
}

int bc_rundoc_take(json_t *root, const char *name, bc_rundoc *d, bc_err *e)
{
	(void)name;	/* the caller names the file in its own message */
	empty(d);
	d->root = root;
	if (!json_is_object(d->root)) {
		bc_err_set(e, "not a benchcore results file (top level is not an object)");
		bc_rundoc_free(d);
		return -1;
	}
	if (read_header(d, e)) {
		bc_rundoc_free(d);
		return -1;
	}
	return 0;
}

void bc_rundoc_new(bc_rundoc *d, const char *run_id, const char *host_id, const char *started_at,
		   const char *label, json_t *host, json_t *config, json_t *schedule)
{
	bc_err e;
	json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:o, s:o, s:o, s:[], s:[]}", "schema",
				 "benchcore/1", "benchcore_version", BC_VERSION, "run_id", run_id, "host_id",
				 host_id, "started_at", started_at, "status", "running", "interrupted", 1, "label",
				 label, "host", host, "config", config, "schedule", schedule, "cases", "groups");
	if (!root || bc_rundoc_take(root, "a new run", d, &e))
		abort();	/* our own members: cannot happen */
}

void bc_rundoc_set(bc_rundoc *d, const char *key, json_t *v)
{
	bc_err e;
	if (v)
		json_object_set_new(d->root, key, v);
	else
		json_object_del(d->root, key);
	if (read_member(d, key, &e))
		abort();	/* a member of the wrong type: the caller's bug */
}

char *bc_rundoc_case_text(json_t *c)
{
	char *s = json_dumps(c, JSON_INDENT(1));
	if (!s)
		abort();
	size_t nl = 0, len = strlen(s);
	for (size_t i = 0; i < len; i++)
		nl += s[i] == '\n';
	char *t = bc_xcalloc(len + 2 * nl + 1, 1), *o = t;
	for (size_t i = 0; i < len; i++) {
		*o++ = s[i];
		if (s[i] == '\n')	/* a string's newline is "\\n" in JSON: only layout here */
			*o++ = ' ', *o++ = ' ';
	}
	free(s);
	return t;
}

/* key set to s, in its place when the document has it (NULL: left out) */
static void put_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
	else if (!json_is_null(json_object_get(o, key)))
		json_object_del(o, key);
}

/* The header as written: root's members (shared, in their order) with the
   typed fields as they are now, and its cases array empty. */
static json_t *header(const bc_rundoc *d)
{
	json_t *o = json_copy(d->root);
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
	if (json_object_get(o, "cases"))
		json_object_set_new(o, "cases", json_array());
	return o;
}

struct iovec *bc_rundoc_pieces(const bc_rundoc *d, char *const *texts, size_t ncases, char **head, size_t *n)
{
	/* the header's dump with its empty "cases" replaced by the texts, laid
	   out as jansson lays out an array at depth 1, so that the document is
	   never held whole beside its cases. The key is found as a top-level
	   one: a newline, one space, the key (a string's newline is "\n"). */
	static const char key[] = "\n \"cases\": []";
	json_t *o = header(d);
	char *h = json_dumps(o, JSON_INDENT(1)), *at = h ? strstr(h, key) : NULL;
	json_decref(o);
	if (!h || (!at && ncases))
		abort();	/* cases without a cases member: the caller's bug */
	struct iovec *v = bc_xcalloc(2 * ncases + 3, sizeof(*v));
	size_t k = 0;
	if (!at) {	/* an older document without cases */
		v[k++] = (struct iovec){ h, strlen(h) };
		*head = h;
		*n = k;
		return v;
	}
	char *open = at + sizeof(key) - 3;	/* the '[' */
	v[k++] = (struct iovec){ h, (size_t)(open - h) };
	for (size_t i = 0; i < ncases; i++) {
		v[k++] = (struct iovec){ (void *)(i ? ",\n  " : "[\n  "), 4 };
		v[k++] = (struct iovec){ texts[i], strlen(texts[i]) };
	}
	/* then the header's own "]" on: "[]" when there is no case, else "\n ]" */
	v[k++] = ncases ? (struct iovec){ (void *)"\n ", 2 } : (struct iovec){ (void *)"[", 1 };
	v[k++] = (struct iovec){ open + 1, strlen(open + 1) };
	*head = h;
	*n = k;
	return v;
}

char *bc_rundoc_write(const bc_rundoc *d, size_t *len)
{
	size_t nc = json_array_size(d->cases), n, total = 0;
	char **texts = bc_xcalloc(nc + 1, sizeof(*texts)), *head;
	for (size_t i = 0; i < nc; i++)
		texts[i] = bc_rundoc_case_text(json_array_get(d->cases, i));
	struct iovec *v = bc_rundoc_pieces(d, texts, nc, &head, &n);
	for (size_t i = 0; i < n; i++)
		total += v[i].iov_len;
	char *s = bc_xcalloc(total + 1, 1), *o = s;
	for (size_t i = 0; i < n; i++) {
		memcpy(o, v[i].iov_base, v[i].iov_len);
		o += v[i].iov_len;
	}
	for (size_t i = 0; i < nc; i++)
		free(texts[i]);
	free(texts);
	free(v);
	free(head);
	*len = total;
	return s;
}

void bc_rundoc_free(bc_rundoc *d)
{
	free(d->parts);
	json_decref(d->root);
	empty(d);
}
