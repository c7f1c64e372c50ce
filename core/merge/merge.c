/* benchcore merge: the parts of one system's run, in one results document.
 *
 * A study is rerun in parts: the io module again after a fix (tmpfs-io.json
 * beside tmpfs.json), a module skipped the first time. Compare and report
 * take one file per system, so the parts become one document here. Only the
 * parts of one system merge: the same machine (host_id and the facts that
 * change results), the same label and benchcore version. A module whose cases
 * are in several files takes them all from the last file that has it (a
 * rerun of a module replaces it whole, so a case is never counted twice and
 * the repeats of one case come from one run). Each change is said on stderr;
 * the document records its sources (merged_from). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "merge.h"
#include "identity.h"
#include "loader.h"
#include "results.h"
#include "rundoc.h"
#include "util.h"

/* Host facts that must agree: a difference here is another system. */
static const char *const same_facts[] = { "arch", "cpu_model", "kernel", "os", NULL };

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* The first reason doc (file) is not a part of the same system as first. */
static int same_system(const bc_rundoc *first, const char *ffile, const bc_rundoc *doc, const char *file,
		       bc_err *e)
{
	const struct { const char *name, *a, *b; } top[] = {
		{ "schema", first->schema, doc->schema }, { "host_id", first->host_id, doc->host_id },
		{ "label", first->label, doc->label }, { "benchcore_version", first->version, doc->version },
	};
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (strcmp(or_empty(top[i].a), or_empty(top[i].b))) {
			bc_err_set(e, "%s is not a part of the same system's run as %s: %s \"%s\" vs \"%s\"", file,
				   ffile, top[i].name, or_empty(top[i].b), or_empty(top[i].a));
			bc_err_hint(e, "merge joins the parts of one system's run; compare two systems instead");
			return -1;
		}
	json_t *ha = first->host, *hb = doc->host;
	for (size_t i = 0; same_facts[i]; i++)
		if (strcmp(jstr(ha, same_facts[i]), jstr(hb, same_facts[i]))) {
			bc_err_set(e, "%s ran on a changed machine: host.%s \"%s\" vs \"%s\" in %s", file,
				   same_facts[i], jstr(hb, same_facts[i]), jstr(ha, same_facts[i]), ffile);
			bc_err_hint(e, "compare the two as systems of their own");
			return -1;
		}
	return 0;
}

/* index of the last document (of n) holding a case of module, or -1 */
static int owner_of(const bc_rundoc *docs, int n, const char *module)
{
	for (int i = n - 1; i >= 0; i--) {
		size_t k;
		json_t *c;
		json_array_foreach(docs[i].cases, k, c)
			if (!strcmp(jstr(c, "module"), module))
				return i;
	}
	return -1;
}

/* The merged config: the first file's, with each module's entries from the
   file its cases come from. */
static json_t *merged_config(const bc_rundoc *docs, int n, json_t *owners)
{
	json_t *cfg = json_deep_copy(docs[0].config);
	json_t *mods = json_array();
	if (!json_is_object(cfg))
		cfg = json_object();
	for (int i = 0; i < n; i++) {
		size_t k;
		json_t *m;
		json_array_foreach(json_object_get(docs[i].config, "modules"), k, m) {
			json_t *own = json_object_get(owners, jstr(m, "name"));
			if (own && json_integer_value(own) == i)
				json_array_append(mods, m);
		}
	}
	json_object_set_new(cfg, "modules", mods);
	return cfg;
}

/* A copied case's intervals_file names a file beside its own results file. */
static void keep_intervals_link(json_t *c, const char *file)
{
	const char *f = json_string_value(json_object_get(c, "intervals_file"));
	const char *slash = strrchr(file, '/');
	if (!f || f[0] == '/' || !slash)
		return;
	char *p = bc_xasprintf("%.*s/%s", (int)(slash - file), file, f);
	json_object_set_new(c, "intervals_file", json_string(p));
	free(p);
}

static void keep_run(bc_case_result *cr, const bc_rundoc *doc, json_t *merged);

/* cases (renumbered), groups and merged_from of the merged document */
static int add_cases(json_t *out, const bc_rundoc *docs, char **files, int n, json_t *owners, bc_err *e)
{
	json_t *cases = json_array(), *from = json_array();
	bc_results g;
	bc_results_init(&g, "merge");
	json_int_t id = 0;
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		size_t k, used = 0, dropped = 0;
		json_t *c, *mods = json_object(), *names = json_array();
		const char *name;
		json_t *v;
		json_array_foreach(docs[i].cases, k, c) {
			const char *mod = jstr(c, "module");
			if (json_integer_value(json_object_get(owners, mod)) != i) {
				dropped++;
				continue;
			}
			json_t *cc = json_deep_copy(c);
			json_object_set_new(cc, "id", json_integer(++id));
			keep_intervals_link(cc, files[i]);
			bc_case_result cr;
			if (bc_case_from_json(cc, (size_t)id - 1, &cr, e)) {
				json_decref(cc);
				rc = -1;
				break;
			}
			keep_run(&cr, &docs[i], json_object_get(out, "host"));
			json_decref(cc);
			cc = bc_case_to_json(&cr);	/* the one writer, with its run */
			bc_results_add_case(&g, &cr);
			bc_case_free(&cr);
			json_array_append_new(cases, cc);
			json_object_set_new(mods, mod, json_true());
			used++;
		}
		if (dropped)
			bc_info("merge: %s: %zu case%s left out, their modules' cases come from a later file", files[i],
				dropped, dropped == 1 ? "" : "s");
		if (used)
			bc_info("merge: %s: %zu case%s", files[i], used, used == 1 ? "" : "s");
		json_object_foreach(mods, name, v)
			json_array_append_new(names, json_string(name));
		json_decref(mods);
		/* the part's own facts: its host and span, as that run recorded them */
		json_array_append_new(from, json_pack("{s:s, s:s?, s:o, s:s?, s:s?, s:O?}", "file", files[i],
						      "run_id", docs[i].run_id, "modules", names, "started_at",
						      docs[i].started_at, "finished_at", docs[i].finished_at,
						      "host", docs[i].host));
	}
	bc_results_done(&g);
	if (!rc) {
		json_object_set_new(out, "cases", cases);
		json_object_set_new(out, "groups", bc_groups_json(&g));
		json_object_set_new(out, "merged_from", from);
	} else {
		json_decref(cases);
		json_decref(from);
	}
	bc_results_free(&g);
	return rc;
}

/* 1 when part i gave the merged document cases */
static int gave_cases(json_t *owners, int i)
{
	const char *mod;
	json_t *own;
	json_object_foreach(owners, mod, own)
		if (json_integer_value(own) == i)
			return 1;
	return 0;
}

/* The merged host: the facts every part that gave cases holds with one
   value (the machine's: arch, CPU, kernel...). A fact that was so only
   while one part ran (its measured clock, other_run_settings, host.io of
   the disk a module ran on) is claimed of no other part's cases: it stays
   with that part's cases (keep_run) and in merged_from. */
static void merged_host(json_t *out, const bc_rundoc *docs, int n, json_t *owners)
{
	int first = 0;
	while (first < n - 1 && !gave_cases(owners, first))
		first++;
	if (!json_is_object(docs[first].host))
		return;
	json_t *host = json_deep_copy(docs[first].host);
	const char *k;
	json_t *v, *tmp;
	json_object_foreach_safe(host, tmp, k, v)
		for (int i = first + 1; i < n; i++)
			if (gave_cases(owners, i) && !json_equal(v, json_object_get(docs[i].host, k))) {
				json_object_del(host, k);
				break;
			}
	json_object_set_new(out, "host", host);
}

/* A case of part doc keeps its run: the part's run_id (or the one it
   kept from an earlier merge) and the part's host facts the merged host
   does not hold (the case's own from an earlier merge first). */
static void keep_run(bc_case_result *cr, const bc_rundoc *doc, json_t *merged)
{
	const char *k;
	json_t *v;
	if (!cr->run.set) {
		cr->run.set = 1;
		bc_case_set_str(&cr->run.run_id, doc->run_id);
	}
	json_object_foreach(doc->host, k, v) {
		if (json_equal(v, json_object_get(merged, k)) || (cr->run.host && json_object_get(cr->run.host, k)))
			continue;
		if (!cr->run.host)
			cr->run.host = json_object();
		json_object_set(cr->run.host, k, v);
	}
}

/* cases_planned of the merged run: its cases, and the cases each part that
   gave some planned and never ran (a partial part stays partial); status
   the first part's that is not complete, else complete. */
static void merged_plan(json_t *out, const bc_rundoc *docs, int n, json_t *owners)
{
	json_int_t planned = (json_int_t)json_array_size(json_object_get(out, "cases"));
	int known = 1;
	const char *status = NULL;
	for (int i = 0; i < n; i++) {
		int gave = 0;
		const char *mod;
		json_t *own;
		json_object_foreach(owners, mod, own)
			gave |= json_integer_value(own) == i;
		const char *st = docs[i].status;
		if (st && strcmp(st, "complete") && !status)
			status = st;
		if (!gave)
			continue;
		json_int_t ran = (json_int_t)json_array_size(docs[i].cases);
		if (docs[i].planned < 0)
			known = 0;
		else if (docs[i].planned > ran)
			planned += docs[i].planned - ran;
	}
	if (known)
		json_object_set_new(out, "cases_planned", json_integer(planned));
	else
		json_object_del(out, "cases_planned");
	if (json_object_get(out, "status"))
		json_object_set_new(out, "status", json_string(status ? status : "complete"));
}

/* The run's span: the earliest start and the latest end (ISO 8601 UTC
   strings order as their times do); interrupted when any part was. */
static void set_span(json_t *out, const bc_rundoc *docs, int n)
{
	const char *start = NULL, *end = NULL;
	int interrupted = 0;
	for (int i = 0; i < n; i++) {
		const char *s = docs[i].started_at, *f = docs[i].finished_at;
		if (s && (!start || strcmp(s, start) < 0))
			start = s;
		if (f && (!end || strcmp(f, end) > 0))
			end = f;
		interrupted |= docs[i].interrupted;
	}
	if (start)
		json_object_set_new(out, "started_at", json_string(start));
	if (end)
		json_object_set_new(out, "finished_at", json_string(end));
	json_object_set_new(out, "interrupted", json_boolean(interrupted));
}

json_t *bc_merge_docs(const bc_rundoc *docs, char **files, int n, bc_err *e)
{
	for (int i = 1; i < n; i++)
		if (same_system(&docs[0], files[0], &docs[i], files[i], e))
			return NULL;
	json_t *owners = json_object();
	for (int i = 0; i < n; i++) {
		size_t k;
		json_t *c;
		json_array_foreach(docs[i].cases, k, c) {
			const char *mod = jstr(c, "module");
			if (json_object_get(owners, mod))
				continue;
			int own = owner_of(docs, n, mod);
			json_object_set_new(owners, mod, json_integer(own));
			for (int j = 0; j < own; j++)
				if (owner_of(docs, j + 1, mod) == j)
					bc_info("merge: module %s: the cases of %s replace those of %s", mod, files[own],
						files[j]);
		}
	}
	json_t *out = json_deep_copy(docs[0].root);
	char run_id[BC_ID_HEX];
	bc_run_id_new(run_id);
	json_object_set_new(out, "run_id", json_string(run_id));
	json_object_set_new(out, "config", merged_config(docs, n, owners));
	set_span(out, docs, n);
	merged_host(out, docs, n, owners);
	if (add_cases(out, docs, files, n, owners, e)) {
		json_decref(out);
		out = NULL;
	} else {
		merged_plan(out, docs, n, owners);
	}
	json_decref(owners);
	return out;
}
