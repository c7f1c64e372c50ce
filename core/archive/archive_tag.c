/* Tags on stored runs (archive.h): `benchcore db tag RUN_ID baseline` marks
   a host's accepted run, and db:baseline@HOST reads it wherever a results
   file is read. One run per tag and host: tagging another run of the host
   moves the tag. Schema version 2's run_tags table (archive.c). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "archive_int.h"

static const char *const HOST_SQL = "SELECT host FROM runs WHERE run_id = ?";
static const char *const UNTAG_HOST_SQL = "DELETE FROM run_tags WHERE tag = ? AND host = ?";
static const char *const TAG_SQL = "INSERT INTO run_tags (tag, host, run_id, tagged_at) VALUES (?, ?, ?, ?)";
static const char *const UNTAG_SQL = "DELETE FROM run_tags WHERE tag = ? AND run_id = ?";
static const char *const HAS_SQL = "SELECT run_id FROM run_tags WHERE tag = ? AND run_id = ?";
static const char *const FIND_SQL = "SELECT run_id FROM run_tags WHERE tag = ? AND host = ?";
static const char *const OF_RUN_SQL = "SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag";

int bc_archive_tag_name_ok(const char *tag)
{
	size_t n = strspn(tag, "abcdefghijklmnopqrstuvwxyz0123456789_-");
	return n && n <= 40 && !tag[n] && strcmp(tag, "latest") != 0;
}

static int write_tx(bc_archive *a, int (*fn)(bc_archive *, const char *, const char *, bc_err *),
		    const char *run_id, const char *tag, bc_err *e)
{
	if (a->db->ops->begin_write(a->db, e))
		return -1;
	if (fn(a, run_id, tag, e)) {
		a->db->ops->rollback(a->db);
		return -1;
	}
	return a->db->ops->commit(a->db, e);
}

static int do_tag(bc_archive *a, const char *run_id, const char *tag, bc_err *e)
{
	char *host = NULL, now[32];
	bc_dbval p[] = { DBT(run_id) };
	if (ar_q(a, HOST_SQL, p, 1, ar_first_text, &host, e))
		return -1;
	if (!host) {
		char *sh = bc_printable(run_id);
		bc_err_set(e, "no run %s in the results archive %s", sh, a->db->shown);
		free(sh);
		return -1;
	}
	time_t t = time(NULL);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	bc_dbval q[] = { DBT(tag), DBT(host) }, r[] = { DBT(tag), DBT(host), DBT(run_id), DBT(now) };
	int rc = ar_q(a, UNTAG_HOST_SQL, q, 2, NULL, NULL, e) || ar_q(a, TAG_SQL, r, 4, NULL, NULL, e) ? -1 : 0;
	free(host);
	return rc;
}

static int do_untag(bc_archive *a, const char *run_id, const char *tag, bc_err *e)
{
	char *had = NULL;
	bc_dbval p[] = { DBT(tag), DBT(run_id) };
	if (ar_q(a, HAS_SQL, p, 2, ar_first_text, &had, e))
		return -1;
	if (!had) {
		char *st = bc_printable(tag), *sr = bc_printable(run_id);
		bc_err_set(e, "run %s has no tag %s", sr, st);
		bc_err_hint(e, "benchcore db list shows each run's tags");
		free(st);
		free(sr);
		return -1;
	}
	free(had);
	return ar_q(a, UNTAG_SQL, p, 2, NULL, NULL, e);
}

int bc_archive_tag(bc_archive *a, const char *run_id, const char *tag, bc_err *e)
{
	return write_tx(a, do_tag, run_id, tag, e);
}

int bc_archive_untag(bc_archive *a, const char *run_id, const char *tag, bc_err *e)
{
	return write_tx(a, do_untag, run_id, tag, e);
}

int bc_archive_tagged(bc_archive *a, const char *tag, const char *host, char **run_id, bc_err *e)
{
	*run_id = NULL;
	if (a->version < 2)
		return 0;	/* an archive from before tags has none */
	bc_dbval p[] = { DBT(tag), DBT(host) };
	return ar_q(a, FIND_SQL, p, 2, ar_first_text, run_id, e);
}

typedef struct tags_acc {
	char *text;
} tags_acc;

static int tag_row(void *arg, char **col, int ncol)
{
	tags_acc *t = arg;
	if (ncol < 1 || !col[0])
		return 0;
	char *n = bc_xasprintf("%s%s%s", t->text ? t->text : "", t->text ? "," : "", col[0]);
	free(t->text);
	t->text = n;
	return 0;
}

char *bc_archive_run_tags(bc_archive *a, const char *run_id, bc_err *e)
{
	tags_acc t = { 0 };
	if (a->version < 2)
		return bc_xstrdup("");
	bc_dbval p[] = { DBT(run_id) };
	if (ar_q(a, OF_RUN_SQL, p, 1, tag_row, &t, e)) {
		free(t.text);
		return NULL;
	}
	return t.text ? t.text : bc_xstrdup("");
}
