/* benchcore db add|list|export|tag|untag: the results archive's own commands
 * (docs/archive.md). Each takes --db FILE|URL; without it $BENCHCORE_DB,
 * else the default file. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "archive.h"
#include "cli.h"
#include "flags.h"
#include "util.h"

enum { D_DB = 1, D_HOST, D_LABEL, D_SINCE, D_MODULE, D_JSON, D_OUT, D_HELP };
enum { S_ADD = 1, S_LIST = 2, S_EXPORT = 4, S_TAG = 8 };
static const bc_flag db_flags[] = {
	{ "db", 0, "DB", D_DB, "the archive DB: a SQLite file, or postgresql://[user@]host/db or a libpq "
	  "key=value string (a password is better kept in ~/.pgpass than in the URL; it is never printed); "
	  "default $BENCHCORE_DB, else $XDG_DATA_HOME/benchcore/results.db (~/.local/share/benchcore/results.db)" },
	{ "host", 0, "HOST", D_HOST, "only runs of this host name", S_LIST },
	{ "label", 0, "LABEL", D_LABEL, "only runs with this label", S_LIST },
	{ "since", 0, "DATE", D_SINCE, "only runs started at or after DATE (ISO 8601: 2026-11-01, "
	  "2026-11-01T12:00:00Z; UTC)", S_LIST },
	{ "module", 0, "NAME", D_MODULE, "only runs that ran this module", S_LIST },
	{ "json", 0, NULL, D_JSON, "one JSON array of the runs, for scripts", S_LIST },
	{ "output", 'o', "FILE", D_OUT, "write the document to FILE (atomically) instead of stdout", S_EXPORT },
	{ "help", 'h', NULL, D_HELP, "this text" },
	{ NULL }
};

typedef struct db_args {
	const char *db, *out;
	bc_archive_filter f;
	int json, help;
} db_args;

static int on_db_flag(void *arg, const bc_flag *fl, const char *val, bc_err *e)
{
	db_args *a = arg;
	(void)e;
	switch (fl->code) {
	case D_DB: a->db = val; break;
	case D_HOST: a->f.host = val; break;
	case D_LABEL: a->f.label = val; break;
	case D_SINCE: a->f.since = val; break;
	case D_MODULE: a->f.module = val; break;
	case D_JSON: a->json = 1; break;
	case D_OUT: a->out = val; break;
	default: a->help = 1;
	}
	return 0;
}

static void db_help(FILE *f)
{
	fprintf(f, "usage: benchcore db add FILE.json... [--db DB]\n"
		"       benchcore db list [--host H] [--label L] [--since DATE] [--module M] [--json] [--db ...]\n"
		"       benchcore db export RUN_ID|REF [-o FILE] [--db ...]\n"
		"       benchcore db tag RUN_ID|REF TAG [--db ...]     (e.g. baseline)\n"
		"       benchcore db untag RUN_ID|REF TAG [--db ...]\n\n"
		"The results archive: every run kept in SQLite (a file) or PostgreSQL, its results\n"
		"document as written plus the rows history reads (docs/archive.md). A run goes in\n"
		"when it ends with --store (or the store setting), or later with db add, which is\n"
		"idempotent by run_id: a file already stored is said so, the same run resumed\n"
		"further replaces its partial row, another document under a stored run_id is\n"
		"refused. compare and report read stored runs wherever they read files:\n"
		"db:RUN_ID (or 8+ of its first hex digits), db:latest, db:latest@HOST, db:LABEL\n"
		"(the newest run with that label, said when older ones carry it too);\n"
		"db export takes the same references (without db:) and writes the document as added.\n"
		"db tag marks a stored run with TAG (a-z, 0-9, _ and -; not latest), one run per\n"
		"tag and host: tagging another run of the host moves it. db:TAG@HOST then reads\n"
		"that run (db:baseline@web01: the accepted run a CI gate compares with; a tag\n"
		"beats a label of the same text); db untag takes it off; db list shows the tags.\n\n"
		"options of db add:\n");
	bc_flags_help(f, db_flags, S_ADD);
	fprintf(f, "\noptions of db list:\n");
	bc_flags_help(f, db_flags, S_LIST);
	fprintf(f, "\noptions of db export:\n");
	bc_flags_help(f, db_flags, S_EXPORT);
	fprintf(f, "\nExit status: 0 done; 1 some file was not added (each said why, the rest were);\n"
		"2 usage, or the archive could not be opened (a newer schema, a symlink, a read-only file),\n"
		"or db tag/untag found no such run (untag: no such tag on it).\n"
		"A writer waits for another one at most 60 s, or $BENCHCORE_DB_WAIT seconds.\n");
}

static int db_add(const db_args *a, char **files)
{
	bc_err e;
	if (!files[0])
		return bc_usage_error("%s", "db add: which results files? (benchcore db add FILE.json...)");
	bc_archive *ar = bc_archive_open(a->db, 1, &e);
	if (!ar) {
		bc_err_print(&e);
		return 2;
	}
	int failed = 0;
	for (char **p = files; *p; p++) {
		int what = 0;
		char id[64];
		char *sh = bc_printable(*p);
		if (bc_store_add_file(ar, *p, &what, id, &e)) {
			bc_err_print(&e);
			failed = 1;
		} else {
			printf("%s: run %s %s\n", sh, id, what == BC_AR_SAME ? "already stored" :
			       what == BC_AR_REPLACED ? "replaced its partial row" : "added");
		}
		free(sh);
	}
	printf("archive: %s\n", bc_archive_name(ar));
	bc_archive_close(ar);
	return failed;
}

static void print_cell(const char *s, int width)
{
	char *p = bc_printable(s && *s ? s : "-");
	printf("%-*.*s ", width, width, p);
	free(p);
}

static void list_text(bc_archive *ar, const bc_archive_run *r, size_t n)
{
	printf("%-12s %-20s %-16s %-16s %-14s %-8s %-11s %s\n", "run_id", "started", "host", "label", "config",
	       "version", "status", "cases");
	for (size_t i = 0; i < n; i++) {
		bc_err e;
		char *tags = bc_archive_run_tags(ar, r[i].run_id, &e);
		print_cell(r[i].run_id, 12), print_cell(r[i].started, 20), print_cell(r[i].host, 16);
		print_cell(r[i].label, 16), print_cell(r[i].config, 14), print_cell(r[i].version, 8);
		print_cell(r[i].status, 11);
		if (r[i].planned >= 0 && r[i].planned != r[i].ncases)
			printf("%ld of %ld", r[i].ncases, r[i].planned);
		else
			printf("%ld", r[i].ncases);
		printf("%s%s\n", tags && *tags ? "  tags: " : "", tags ? tags : "");
		free(tags);
	}
}

static void list_json(bc_archive *ar, const bc_archive_run *r, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		bc_err e;
		char *tags = bc_archive_run_tags(ar, r[i].run_id, &e);
		char **v = bc_split(tags ? tags : "", ',');
		json_t *jt = json_array();
		for (char **p = v; *p; p++)
			if (**p)
				json_array_append_new(jt, json_string(*p));
		bc_strv_free(v);
		free(tags);
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o}", "run_id",
						     r[i].run_id, "started", r[i].started, "host", r[i].host, "label",
						     r[i].label, "config", r[i].config, "benchcore_version",
						     r[i].version, "status", r[i].status, "cases", (json_int_t)r[i].ncases,
						     "cases_planned", r[i].planned >= 0 ?
						     json_integer(r[i].planned) : json_null());
		json_object_set_new(o, "tags", jt);
		json_array_append_new(arr, o);
	}
	char *s = json_dumps(arr, JSON_INDENT(2));
	if (s)
		printf("%s\n", s);
	free(s);
	json_decref(arr);
}

static int db_list(const db_args *a, char **rest)
{
	bc_err e;
	if (rest[0])
		return bc_usage_error("db list: unexpected argument \"%s\"", rest[0]);
	bc_archive *ar = bc_archive_open(a->db, 0, &e);
	bc_archive_run *runs = NULL;
	size_t n = 0;
	if (!ar || bc_archive_list(ar, &a->f, &runs, &n, &e)) {
		bc_err_print(&e);
		bc_archive_close(ar);
		return 2;
	}
	if (a->json)
		list_json(ar, runs, n);
	else
		list_text(ar, runs, n);
	bc_archive_runs_free(runs, n);
	bc_archive_close(ar);
	return bc_stdout_done("db list") ? 2 : 0;
}

static int db_export(const db_args *a, char **rest)
{
	bc_err e;
	if (!rest[0] || rest[1])
		return bc_usage_error("%s", "db export: one RUN_ID (benchcore db list shows them)");
	/* never over the archive it reads (or its -wal and -shm) */
	char **inputs = bc_store_inputs(NULL, a->db, 1);
	int bad = a->out && strcmp(a->out, "-") && bc_output_ok(a->out, inputs, &e);
	bc_strv_free(inputs);
	if (bad) {
		fprintf(stderr, "benchcore db export: -o %s\n", e.msg);
		return 2;
	}
	bc_archive *ar = bc_archive_open(a->db, 0, &e);
	char *doc = NULL;
	size_t len = 0;
	int rc = 0;
	char id[64];
	size_t others;
	if (!ar || bc_archive_resolve(ar, rest[0], &doc, &len, id, &others, &e))
		rc = 2;
	else if (a->out && strcmp(a->out, "-"))
		rc = bc_write_atomic(a->out, doc, len, &e) ? 2 : 0;
	else
		rc = fwrite(doc, 1, len, stdout) != len || bc_stdout_done("db export") ? 2 : 0;
	if (rc && e.msg[0])
		bc_err_print(&e);
	free(doc);
	bc_archive_close(ar);
	return rc;
}

/* db tag REF TAG / db untag REF TAG */
static int db_tag(const db_args *a, char **rest, int untag)
{
	bc_err e;
	const char *cmd = untag ? "untag" : "tag";
	if (!rest[0] || !rest[1] || rest[2])
		return bc_usage_error("db %s: RUN_ID TAG, e.g. 3f2a9c01 baseline (benchcore db list shows the runs)",
				      cmd);
	if (!bc_archive_tag_name_ok(rest[1])) {
		char *sh = bc_printable(rest[1]);
		int rc = bc_usage_error("db tag: the tag \"%s\" wants a-z, 0-9, _ and - (up to 40; not latest), "
					"e.g. baseline", sh);
		free(sh);
		return rc;
	}
	bc_archive *ar = bc_archive_open(a->db, 1, &e);
	char *doc = NULL, id[64];
	size_t len, others;
	int rc = 0;
	if (!ar || bc_archive_resolve(ar, rest[0], &doc, &len, id, &others, &e) ||
	    (untag ? bc_archive_untag(ar, id, rest[1], &e) : bc_archive_tag(ar, id, rest[1], &e))) {
		bc_err_print(&e);
		rc = 2;
	} else {
		char *sh = bc_printable(rest[1]);
		printf("run %s %s %s\n", id, untag ? "no longer tagged" : "tagged", sh);
		free(sh);
	}
	free(doc);
	bc_archive_close(ar);
	return rc;
}

int bc_cmd_db(int argc, char **argv)
{
	db_args a = { 0 };
	char **rest;
	const char *sub = argc > 1 ? argv[1] : "";
	unsigned scope = !strcmp(sub, "add") ? S_ADD : !strcmp(sub, "list") ? S_LIST :
			 !strcmp(sub, "export") ? S_EXPORT : !strcmp(sub, "tag") || !strcmp(sub, "untag") ? S_TAG : 0;
	if (!scope) {
		if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help"))
			return db_help(stdout), 0;
		db_help(stderr);
		return 2;
	}
	char cmd[32];
	snprintf(cmd, sizeof(cmd), "db %s", sub);
	if (bc_flags_parse(cmd, db_flags, scope, argc - 2, argv + 2, on_db_flag, &a, &rest))
		return 2;
	int rc;
	if (a.help)
		rc = (db_help(stdout), 0);
	else if (scope == S_ADD)
		rc = db_add(&a, rest);
	else if (scope == S_LIST)
		rc = db_list(&a, rest);
	else if (scope == S_TAG)
		rc = db_tag(&a, rest, !strcmp(sub, "untag"));
	else
		rc = db_export(&a, rest);
	free(rest);
	return rc;
}
