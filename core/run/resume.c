/* --resume (resume.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "resume.h"

#define MAX_RESULTS (256u << 20)

char *bc_resume_key(const char *module, json_t *params, long threads, long repeat)
{
	char *p = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
	char *k = bc_xasprintf("%s\n%ld\n%ld\n%s", module, threads, repeat, p ? p : "{}");
	free(p);
	return k;
}

int bc_resume_has(const bc_resume *r, const char *module, json_t *params, long threads, long repeat)
{
	char *k = bc_resume_key(module, params, threads, repeat);
	int has = json_object_get(r->keys, k) != NULL;
	free(k);
	return has;
}

/* The facts that make a machine the same machine for a measurement. */
static const char *const same_host[] = {
	"hostname", "kernel", "arch", "cpu_model", "threads", "memory_bytes", "os", NULL
};

static int host_changed(json_t *old, json_t *now, bc_err *e)
{
	for (int i = 0; same_host[i]; i++) {
		json_t *a = json_object_get(old, same_host[i]), *b = json_object_get(now, same_host[i]);
		if (a && b && json_equal(a, b))
			continue;
		if (!a && !b)
			continue;
		char *as = a ? json_dumps(a, JSON_ENCODE_ANY) : NULL, *bs = b ? json_dumps(b, JSON_ENCODE_ANY) : NULL;
		char *sa = bc_printable(as ? as : "absent"), *sb = bc_printable(bs ? bs : "absent");
		bc_err_set(e, "cannot resume: the machine changed");
		bc_err_detail(e, "host.%s was %s, is %s now.", same_host[i], sa, sb);
		free(as), free(bs), free(sa), free(sb);
		return 1;
	}
	json_t *ma = json_object_get(json_object_get(old, "cpu_id"), "microcode");
	json_t *mb = json_object_get(json_object_get(now, "cpu_id"), "microcode");
	if (ma && mb && !json_equal(ma, mb)) {
		bc_err_set(e, "cannot resume: the machine changed");
		bc_err_detail(e, "The CPU's microcode was %s, is %s now.", json_string_value(ma),
			      json_string_value(mb));
		return 1;
	}
	return 0;
}

/* The config as resolved, less what a resume may draw anew (an unset seed)
   and where a module was found (its file is checked by its sha256). */
static json_t *comparable(json_t *config)
{
	json_t *c = json_deep_copy(config), *m;
	size_t i;
	json_array_foreach(json_object_get(c, "modules"), i, m) {
		if (json_is_null(json_object_get(m, "seed")))
			json_object_del(m, "seed");
		json_object_del(m, "path");
	}
	return c;
}

static int config_changed(json_t *old, json_t *now, bc_err *e)
{
	json_t *a = comparable(old), *b = comparable(now);
	int same = json_equal(a, b);
	if (!same) {
		const char *k;
		json_t *v;
		char what[256] = "";
		json_object_foreach(b, k, v)
			if (!json_equal(v, json_object_get(a, k))) {
				snprintf(what, sizeof(what), " (first difference: \"%s\")", k);
				break;
			}
		bc_err_set(e, "cannot resume: the config is not the one the run started with%s", what);
		bc_err_detail(e, "Resuming measures the rest of the same plan; a changed setting, module option "
			      "or command-line flag would mix two plans in one file.");
		bc_err_hint(e, "give the same config and flags as the first time, or start a new run with another -o");
	}
	json_decref(a);
	json_decref(b);
	return !same;
}

static const bc_modplan *plan_of(const bc_modplan *plans, size_t n, const char *module)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(plans[i].mod->desc.name, module))
			return &plans[i];
	return NULL;
}

/* The ended cases into out->kept and out->keys; a module file that is not
   the one that measured them refuses the resume. */
static int keep_cases(json_t *cases, const bc_modplan *plans, size_t n, bc_resume *out, bc_err *e)
{
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c) {
		const char *mod = json_string_value(json_object_get(c, "module"));
		const char *st = json_string_value(json_object_get(c, "status"));
		const char *sha = json_string_value(json_object_get(c, "module_sha256"));
		json_t *params = json_object_get(c, "params");
		json_int_t id = json_integer_value(json_object_get(c, "id"));
		if (!mod || !st || !json_is_object(params)) {
			bc_err_set(e, "cannot resume: cases[%zu] is not a case benchcore wrote", i);
			return -1;
		}
		if (!strcmp(st, "interrupted")) {
			out->interrupted++;
			continue;
		}
		const bc_modplan *p = plan_of(plans, n, mod);
		if (p && sha && strcmp(sha, p->mod->sha256)) {
			bc_err_set(e, "cannot resume: module \"%s\" is not the file that measured the cases so far", mod);
			bc_err_detail(e, "Its sha256 was %.16s..., is %.16s... now (%s).", sha, p->mod->sha256, p->mod->path);
			bc_err_hint(e, "resume with the module that started the run, or start a new run");
			return -1;
		}
		char *k = bc_resume_key(mod, params, (long)json_integer_value(json_object_get(c, "threads")),
					(long)json_integer_value(json_object_get(c, "repeat")));
		json_object_set_new(out->keys, k, json_true());
		free(k);
		json_array_append(out->kept, c);
		if (id > 0 && (json_int_t)out->max_id < id)
			out->max_id = (unsigned)id;
	}
	return 0;
}

int bc_resume_open(const char *path, json_t *config_now, json_t *host_now, const bc_modplan *plans,
		   size_t n, bc_resume *out, bc_err *e)
{
	bc_err why;
	json_error_t je;
	*out = (bc_resume){ .kept = json_array(), .keys = json_object() };
	int fd = bc_open_regular(path, MAX_RESULTS, &why);
	if (fd < 0) {
		bc_err_set(e, "cannot resume from \"%s\": %s", path, why.msg);
		bc_err_hint(e, "--resume continues the run whose -o file this is; without the file, start a new run");
		goto fail;
	}
	out->doc = json_loadfd(fd, 0, &je);
	close(fd);
	json_t *d = out->doc;
	const char *ver = json_string_value(json_object_get(d, "benchcore_version"));
	if (!json_is_object(d) || !json_is_array(json_object_get(d, "cases"))) {
		bc_err_set(e, "cannot resume from \"%s\": not a benchcore results file", path);
		bc_err_detail(e, "%s", d ? "It has no cases[]." : je.text);
		goto fail;
	}
	if (!ver || strcmp(ver, BC_VERSION)) {
		bc_err_set(e, "cannot resume from \"%s\": it was written by benchcore %s, this is %s", path,
			   ver ? ver : "(unknown)", BC_VERSION);
		goto fail;
	}
	if (config_changed(json_object_get(d, "config"), config_now, e) ||
	    host_changed(json_object_get(d, "host"), host_now, e) ||
	    keep_cases(json_object_get(d, "cases"), plans, n, out, e))
		goto fail;
	out->seed = (uint32_t)json_integer_value(json_object_get(json_object_get(d, "schedule"), "seed"));
	return 0;
fail:
	bc_resume_free(out);
	return -1;
}

json_t *bc_resume_record(const bc_resume *r, const char *at)
{
	json_t *old = json_object_get(r->doc, "resumed");
	json_t *a = json_is_array(old) ? json_deep_copy(old) : json_array();
	json_array_append_new(a, json_pack("{s:s, s:I, s:I}", "at", at, "kept",
					   (json_int_t)json_array_size(r->kept), "rerun",
					   (json_int_t)r->interrupted));
	return a;
}

void bc_resume_free(bc_resume *r)
{
	json_decref(r->doc);
	json_decref(r->kept);
	json_decref(r->keys);
	*r = (bc_resume){ 0 };
}
