/* --resume (resume.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine.h"
#include "resume.h"

/* The machine settings as a key's part ("" without: a case of a plan
   without settings). */
static char *machine_text(json_t *machine)
{
	char *m = json_is_object(machine) && json_object_size(machine) ?
		  json_dumps(machine, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	return m ? m : bc_xstrdup("");
}

char *bc_resume_key(const char *module, json_t *params, json_t *machine, long threads, long repeat)
{
	char *p = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS), *m = machine_text(machine);
	char *k = bc_xasprintf("%s\n%ld\n%ld\n%s\n%s", module, threads, repeat, p ? p : "{}", m);
	free(p);
	free(m);
	return k;
}

int bc_resume_has(const bc_resume *r, const char *module, json_t *params, json_t *machine, long threads,
		  long repeat)
{
	char *k = bc_resume_key(module, params, machine, threads, repeat);
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

/* The repeats p's schedule may hold (repeat = auto: up to its maximum). */
static unsigned repeats_of(const bc_modplan *p)
{
	return p->run.repeat_auto && p->run.max_repeat > p->run.repeat ? p->run.max_repeat : p->run.repeat;
}

static char *plan_key(const char *module, json_t *params, json_t *machine, long threads)
{
	char *p = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS), *m = machine_text(machine);
	char *k = bc_xasprintf("%s\n%ld\n%s\n%s", module, threads, p ? p : "{}", m);
	free(p);
	free(m);
	return k;
}

/* plan_key() of every point x thread count the plans run (their params as
   a case of them records them) -> true; *total: the cases they may run. */
static json_t *planned(const bc_modplan *plans, size_t n, uint64_t *total)
{
	json_t *set = json_object();
	*total = 0;
	for (size_t k = 0; k < n; k++) {
		const bc_modplan *p = &plans[k];
		bc_val *vals = bc_xcalloc(p->nopts ? p->nopts : 1, sizeof(*vals));
		for (size_t pt = 0; pt < p->npoints; pt++) {
			bc_plan_point(p, pt, vals);
			for (size_t ti = 0; ti < p->run.nthreads; ti++) {
				bc_case c = { .mod = p->mod, .vals = vals, .run = p->run, .threads = p->run.threads[ti] };
				bc_case_result h;
				bc_case_header(&c, "ok", NULL, &h);
				json_t *mj = bc_plan_mjson(p, pt);	/* the settings the case of pt records */
				char *key = plan_key(p->mod->desc.name, h.params, mj, (long)c.threads);
				json_decref(mj);
				json_object_set_new(set, key, json_true());
				free(key);
				bc_case_free(&h);
			}
		}
		*total += (uint64_t)p->npoints * p->run.nthreads * repeats_of(p);
		free(vals);
	}
	return set;
}

/* "cases[3], id 4 (cpu, threads 2, repeat 1, {"max_prime":300})": a case
   as the file has it, made printable. malloc'd. */
static char *case_named(size_t i, json_t *c)
{
	const char *mod = json_string_value(json_object_get(c, "module"));
	json_t *id = json_object_get(c, "id");
	char *ids = id ? json_dumps(id, JSON_ENCODE_ANY) : NULL;
	char *p = json_dumps(json_object_get(c, "params"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	char *raw = bc_xasprintf("cases[%zu], id %.40s (%s, threads %lld, repeat %lld, %.200s%s)", i,
				 ids ? ids : "none", mod ? mod : "?",
				 (long long)json_integer_value(json_object_get(c, "threads")),
				 (long long)json_integer_value(json_object_get(c, "repeat")), p ? p : "no params",
				 p && strlen(p) > 200 ? "..." : "");
	char *shown = bc_printable(raw);
	free(ids), free(p), free(raw);
	return shown;
}

/* A case the file should not hold: refused, named. */
static int forged(bc_err *e, size_t i, json_t *c, const char *what, const char *detail)
{
	char *name = case_named(i, c);
	bc_err_set(e, "cannot resume: %s %s", name, what);
	bc_err_detail(e, "%s", detail);
	bc_err_hint(e, "the file is not this run's or was edited: start a new run with another -o");
	free(name);
	return -1;
}

/* One case against the plan, and against the cases before it (seen: their
   bc_resume_key()s, ids: their ids, each -> true; this one's are added). */
static int check_case(size_t i, json_t *c, const bc_modplan *plans, size_t n, json_t *plan, json_t *seen,
		      json_t *ids, bc_err *e)
{
	const char *mod = json_string_value(json_object_get(c, "module"));
	json_t *id = json_object_get(c, "id");
	long threads = (long)json_integer_value(json_object_get(c, "threads"));
	json_int_t rep = json_integer_value(json_object_get(c, "repeat"));
	const bc_modplan *p = plan_of(plans, n, mod);
	char buf[64];
	if (!json_is_integer(id) || json_integer_value(id) < 1)
		return forged(e, i, c, "has no id benchcore writes",
			      "benchcore numbers a run's cases 1, 2, 3, ... and never writes another id.");
	snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(id));
	if (json_object_get(ids, buf))
		return forged(e, i, c, "has the id of an earlier case",
			      "Each case has its own id: the intervals file and the reports tell cases apart by it.");
	json_object_set_new(ids, buf, json_true());
	if (!p)
		return forged(e, i, c, "is of a module the config does not run",
			      "A run's file holds cases of its config's modules only.");
	char *pk = plan_key(mod, json_object_get(c, "params"), json_object_get(c, "machine"), threads);
	int in_plan = json_object_get(plan, pk) != NULL && rep >= 1 && rep <= (json_int_t)repeats_of(p);
	free(pk);
	if (!in_plan)
		return forged(e, i, c, "is not a case of this plan",
			      "Its params, thread count or repeat are none that the config runs.");
	char *k = bc_resume_key(mod, json_object_get(c, "params"), json_object_get(c, "machine"), threads, (long)rep);
	int again = json_object_get(seen, k) != NULL;
	json_object_set_new(seen, k, json_true());
	free(k);
	if (again)
		return forged(e, i, c, "is an earlier case again",
			      "A run measures each case once: a second copy would count in every statistic twice.");
	return 0;
}

/* The ended cases into out->kept and out->keys; a module file that is not
   the one that measured them refuses the resume, and so does a case the
   plan does not hold, a case or an id that comes twice, or an id so large
   that the ids to come would not fit. */
static int keep_cases(json_t *cases, const bc_modplan *plans, size_t n, bc_resume *out, bc_err *e)
{
	size_t i;
	json_t *c;
	uint64_t total;
	json_t *plan = planned(plans, n, &total), *ids = json_object(), *seen = json_object();
	int rc = 0;
	json_array_foreach(cases, i, c) {
		const char *mod = json_string_value(json_object_get(c, "module"));
		const char *st = json_string_value(json_object_get(c, "status"));
		const char *sha = json_string_value(json_object_get(c, "module_sha256"));
		json_t *params = json_object_get(c, "params");
		if (!mod || !st || !json_is_object(params)) {
			bc_err_set(e, "cannot resume: cases[%zu] is not a case benchcore wrote", i);
			rc = -1;
			break;
		}
		if ((rc = check_case(i, c, plans, n, plan, seen, ids, e)))
			break;
		json_int_t id = json_integer_value(json_object_get(c, "id"));
		if ((uint64_t)id > out->max_id)
			out->max_id = (uint64_t)id;	/* an interrupted case's too: its id is not reused */
		if ((uint64_t)id > (uint64_t)INT64_MAX - total) {
			rc = forged(e, i, c, "has an id that leaves no room for the cases to come",
				    "Ids are 64-bit signed integers in the results: this one is too close to the largest.");
			break;
		}
		if (!strcmp(st, "interrupted")) {
			out->interrupted++;
			continue;
		}
		const bc_modplan *p = plan_of(plans, n, mod);
		if (sha && strcmp(sha, p->mod->sha256)) {
			bc_err_set(e, "cannot resume: module \"%s\" is not the file that measured the cases so far", mod);
			bc_err_detail(e, "Its sha256 was %.16s..., is %.16s... now (%s).", sha, p->mod->sha256, p->mod->path);
			bc_err_hint(e, "resume with the module that started the run, or start a new run");
			rc = -1;
			break;
		}
		char *k = bc_resume_key(mod, params, json_object_get(c, "machine"),
					(long)json_integer_value(json_object_get(c, "threads")),
					(long)json_integer_value(json_object_get(c, "repeat")));
		json_object_set_new(out->keys, k, json_true());
		free(k);
		json_array_append(out->kept, c);
	}
	json_decref(plan);
	json_decref(seen);
	json_decref(ids);
	return rc;
}

int bc_resume_open(const char *path, json_t *config_now, json_t *host_now, const bc_modplan *plans,
		   size_t n, bc_resume *out, bc_err *e)
{
	bc_err why;
	*out = (bc_resume){ .kept = json_array(), .keys = json_object() };
	/* the run document's one reader: the header checked there */
	if (bc_rundoc_load(path, &out->doc, &why)) {
		bc_err_set(e, "cannot resume from \"%s\": %s", path, why.msg);
		if (why.detail[0])
			bc_err_detail(e, "%s", why.detail);
		struct stat st;
		if (stat(path, &st) || !S_ISREG(st.st_mode))	/* not the document: it is not there */
			bc_err_hint(e, "--resume continues the run whose -o file this is; without the file, start a new "
				    "run");
		goto fail;
	}
	const bc_rundoc *d = &out->doc;
	if (!d->version || strcmp(d->version, BC_VERSION)) {
		bc_err_set(e, "cannot resume from \"%s\": it was written by benchcore %s, this is %s", path,
			   d->version ? d->version : "(unknown)", BC_VERSION);
		goto fail;
	}
	if (config_changed(d->config, config_now, e) || host_changed(d->host, host_now, e) ||
	    keep_cases(d->cases, plans, n, out, e))
		goto fail;
	out->seed = (uint32_t)json_integer_value(json_object_get(json_object_get(d->root, "schedule"), "seed"));
	return 0;
fail:
	bc_resume_free(out);
	return -1;
}

json_t *bc_resume_record(const bc_resume *r, const char *at)
{
	json_t *old = json_object_get(r->doc.root, "resumed");
	json_t *a = json_is_array(old) ? json_deep_copy(old) : json_array();
	json_array_append_new(a, json_pack("{s:s, s:I, s:I}", "at", at, "kept",
					   (json_int_t)json_array_size(r->kept), "rerun",
					   (json_int_t)r->interrupted));
	return a;
}

void bc_resume_free(bc_resume *r)
{
	bc_rundoc_free(&r->doc);
	json_decref(r->kept);
	json_decref(r->keys);
	*r = (bc_resume){ 0 };
}
