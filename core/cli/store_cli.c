/* The archive on the command line: which archive a command means (--db,
 * $BENCHCORE_DB, the default), the db: references every command that reads
 * results files takes (set as the result reader's loader, so compare,
 * report, merge and a baseline all accept them), and a run's store at its
 * end (--store, the store setting). The run's lifecycle stays the runner's:
 * this only reads the final results file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "archive.h"
#include "cli.h"
#include "results.h"
#include "util.h"

static const char *db_flag;	/* --db of compare and report */

void bc_store_set_db(const char *db)
{
	db_flag = db;
}

/* "db:REF" -> the stored document */
static int load_db_ref(const char *ref, char **buf, size_t *len, bc_err *e)
{
	bc_archive *a = bc_archive_open(db_flag, 0, e);
	if (!a)
		return -1;
	char id[64];
	size_t others = 0;
	int rc = bc_archive_resolve(a, ref + 3, buf, len, id, &others, e);
	if (!rc && others) {
		char *sh = bc_printable(ref);
		fprintf(stderr, "benchcore: note: %s: %zu older run%s carry this label too; this is the newest (run_id "
			"%s; db:RUN_ID names one)\n", sh, others, others == 1 ? "" : "s", id);
		free(sh);
	}
	bc_archive_close(a);
	return rc;
}

char **bc_store_inputs(char *const *files, const char *db, int always)
{
	size_t n = bc_strv_len(files), k = 0;
	for (size_t i = 0; i < n && !always; i++)
		always = !strncmp(files[i], "db:", 3);
	char **ar = always ? bc_archive_files(db ? db : db_flag) : NULL;
	char **v = bc_xcalloc(n + bc_strv_len(ar) + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		v[k++] = bc_xstrdup(files[i]);
	for (size_t i = 0; ar && ar[i]; i++)
		v[k++] = ar[i];
	free(ar);
	return v;
}

void bc_store_init(void)
{
	bc_results_set_ref_loader("db:", load_db_ref);
}

/* The archive a run stores into: --store=DB, else the store setting
   ("default": the default archive), else the default. */
static const char *store_db(const char *flag, const char *setting)
{
	const char *db = flag && *flag ? flag : setting;
	return db && strcmp(db, "default") ? db : NULL;
}

int bc_store_check(const char *flag, const char *setting, const char *out)
{
	if (!out || !strcmp(out, "-")) {
		fprintf(stderr, "benchcore: error: --store: the archive keeps the run's results file: give "
			"-o FILE.json too\n");
		return 2;
	}
	bc_err e;
	bc_archive *a = bc_archive_open(store_db(flag, setting), 1, &e);
	if (a) {
		bc_archive_close(a);
		return 0;
	}
	if (bc_archive_transient) {	/* a full disk may be freed while the run goes */
		bc_warn("%s (the run goes on; storing it at the end may fail)", e.msg);
		return 0;
	}
	bc_err_print(&e);
	return 2;
}

/* Reads the results file whole (what the archive keeps, byte for byte). */
static char *read_doc(const char *path, size_t *len, bc_err *e)
{
	int fd = bc_open_regular(path, (off_t)256 << 20, e);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "rb");
	size_t cap = 1 << 16, n;
	char *buf = bc_xmalloc(cap + 1);
	*len = 0;
	while ((n = fread(buf + *len, 1, cap - *len, f)) > 0) {
		*len += n;
		if (*len == cap)
			buf = bc_xrealloc(buf, (cap *= 2) + 1, 1);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		bc_err_set(e, "cannot read it");
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

int bc_store_add_file(bc_archive *a, const char *path, int *what, char id[64], bc_err *e)
{
	size_t len;
	char *doc = read_doc(path, &len, e);
	if (!doc) {
		char *sh = bc_printable(path);
		char msg[sizeof(e->msg)];
		snprintf(msg, sizeof(msg), "%s", e->msg);
		bc_err_set(e, "%s: %s", sh, msg);
		free(sh);
		return -1;
	}
	char *name = bc_printable(path);
	int rc = bc_archive_add(a, doc, len, name, what, id, e);
	free(name);
	free(doc);
	return rc;
}

int bc_store_run(const char *flag, const char *setting, const char *json, int rc)
{
	bc_err e;
	int what = 0;
	char id[64];
	bc_archive *a = json ? bc_archive_open(store_db(flag, setting), 1, &e) : NULL;
	if (a && bc_store_add_file(a, json, &what, id, &e) == 0) {
		fprintf(stderr, "stored: run %s %s %s\n", id,
			what == BC_AR_SAME ? "was in" : what == BC_AR_REPLACED ? "replaced its partial row in" :
			"added to", bc_archive_name(a));
		bc_archive_close(a);
		return rc;
	}
	bc_archive_close(a);
	if (!json)	/* the results were not written: nothing to store */
		return rc;
	bc_err_print(&e);
	char *sh = bc_printable(json);
	fprintf(stderr, "benchcore: error: the run was not stored; its results are in %s (benchcore db add %s "
		"stores them later)\n", sh, sh);
	free(sh);
	return rc == 130 ? rc : 3;
}
