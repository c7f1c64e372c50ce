/*
 * The marker: how benchcore knows a database is its own, and the only thing
 * that lets it drop one.
 *
 * benchcore_marker holds one row that benchcore writes: a random id of the
 * load (not of the run: a later run reusing the data keeps it), the scale,
 * the seed and NURand constants, complete (0 until the load committed), the
 * list of the tables the load creates, and a SHA-256 checksum over all of
 * these and the database's name. A database is benchcore's only when that
 * row verifies and every table, view, routine and event in it is on the
 * list. A table that someone else named benchcore_marker (an older
 * benchcore's marker, a forged one) does not verify; a database with a
 * table of the user's beside ours holds something not on the list: both are
 * refused and never dropped. The checksum tells benchcore's rows from
 * others; it is not a secret (someone who may drop the database can forge
 * it, and could drop the database himself).
 *
 * Dropping is table by table, the listed ones only, and the database last,
 * when nothing is left in it: what appears between the check and the drop
 * survives it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <openssl/sha.h>

#include "oltp.h"

#define MARKER_FORMAT	"benchcore-oltp-marker/2"

/* Every table a load creates, the marker first (oltp_load.c's schema). */
static const char oltp_marker_tables[] =
	"benchcore_marker,warehouse,district,customer,history,new_orders,orders,order_line,item,stock";

/* The row's fields as read or about to be written. */
struct marker_row {
	char id[33];
	unsigned warehouses;
	uint64_t seed;
	unsigned c_last, c_id, ol_i_id;
	int complete;
	char tables[sizeof(oltp_marker_tables)];
	char sum[65];
};

static void marker_sum(const oltp_state *s, const struct marker_row *r, char out[65])
{
	char text[512];
	unsigned char md[SHA256_DIGEST_LENGTH];
	int n = snprintf(text, sizeof(text), MARKER_FORMAT "|%s|%s|%u|%" PRIu64 "|%u|%u|%u|%d|%s", s->db,
			 r->id, r->warehouses, r->seed, r->c_last, r->c_id, r->ol_i_id, r->complete, r->tables);
	SHA256((const unsigned char *)text, (size_t)n, md);
	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
}

/* 1 when name is one of the comma-separated names in list. */
static int marker_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p; ) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == n && !strncmp(p, name, n))
			return 1;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/* The first object in the database not on list (into what), 0 when none,
   -1 on a query error (in what). */
static int marker_foreign_object(oltp_state *s, MYSQL *m, const char *list, char *what, size_t n)
{
	static const char *const q[][2] = {
		{ "table", "SELECT table_name FROM information_schema.tables WHERE table_schema = '%s'" },
		{ "routine", "SELECT routine_name FROM information_schema.routines WHERE routine_schema = '%s'" },
		{ "event", "SELECT event_name FROM information_schema.events WHERE event_schema = '%s'" },
	};
	char sql[256];
	for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
		snprintf(sql, sizeof(sql), q[k][1], s->db);
		if (mysql_real_query(m, sql, strlen(sql))) {
			snprintf(what, n, "%s", mysql_error(m));
			return -1;
		}
		MYSQL_RES *r = mysql_store_result(m);
		MYSQL_ROW row;
		int found = 0;
		while (r && !found && (row = mysql_fetch_row(r)))
			if (row[0] && (k > 0 || !marker_listed(list, row[0]))) {
				snprintf(what, n, "%s %.64s", q[k][0], row[0]);
				found = 1;
			}
		if (r)
			mysql_free_result(r);
		if (found)
			return 1;
	}
	return 0;
}

/* Reads the marker's one row. 0; 1 not benchcore's (why says how); -1 error. */
static int marker_fetch(oltp_state *s, MYSQL *m, struct marker_row *mr, char *why, size_t whyn)
{
	char sql[256];
	snprintf(sql, sizeof(sql), "SELECT id, warehouses, seed, c_last, c_id, ol_i_id, complete, tables, "
		 "checksum FROM `%s`.benchcore_marker LIMIT 2", s->db);
	if (mysql_real_query(m, sql, strlen(sql))) {
		unsigned e = mysql_errno(m);
		if (e == 1146)	/* no such table */
			snprintf(why, whyn, "database %s exists and has no benchcore marker table", s->db);
		else if (e == 1054)	/* unknown column */
			snprintf(why, whyn, "database %s has a benchcore_marker table that benchcore did not "
				 "write (%s)", s->db, mysql_error(m));
		else
			snprintf(why, whyn, "%s", mysql_error(m));
		return e == 1146 || e == 1054 ? 1 : -1;
	}
	MYSQL_RES *r = mysql_store_result(m);
	MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
	int rc = 1;
	if (!row || mysql_fetch_row(r))
		snprintf(why, whyn, "database %s has a benchcore_marker table with %s rows, not the one "
			 "benchcore writes", s->db, row ? "several" : "no");
	else if (!row[0] || !row[1] || !row[2] || !row[3] || !row[4] || !row[5] || !row[6] || !row[7] ||
		 !row[8] || strlen(row[7]) >= sizeof(mr->tables))
		snprintf(why, whyn, "database %s has a benchcore_marker row that benchcore did not write",
			 s->db);
	else {
		snprintf(mr->id, sizeof(mr->id), "%s", row[0]);
		mr->warehouses = (unsigned)strtoul(row[1], NULL, 10);
		mr->seed = strtoull(row[2], NULL, 10);
		mr->c_last = (unsigned)strtoul(row[3], NULL, 10);
		mr->c_id = (unsigned)strtoul(row[4], NULL, 10);
		mr->ol_i_id = (unsigned)strtoul(row[5], NULL, 10);
		mr->complete = atoi(row[6]);
		snprintf(mr->tables, sizeof(mr->tables), "%s", row[7]);
		snprintf(mr->sum, sizeof(mr->sum), "%s", row[8]);
		rc = 0;
	}
	if (r)
		mysql_free_result(r);
	return rc;
}

/* Which tables of a complete load are missing: the first, or NULL. */
static const char *marker_missing(oltp_state *s, MYSQL *m)
{
	static char name[32];
	char sql[256];
	for (const char *p = oltp_marker_tables; *p; ) {
		size_t l = strcspn(p, ",");
		int64_t n = 0;
		snprintf(name, sizeof(name), "%.*s", (int)l, p);
		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM information_schema.tables WHERE "
			 "table_schema = '%s' AND table_name = '%s'", s->db, name);
		if (oltp_query_int(m, sql, &n) || n != 1)
			return name;
		p += l + (p[l] == ',');
	}
	return NULL;
}

/* Verifies the row and what the database holds (see the file's comment). */
static int marker_verify(oltp_state *s, MYSQL *m, const struct marker_row *mr, char *why, size_t whyn)
{
	char sum[65], what[128];
	marker_sum(s, mr, sum);
	if (strcmp(sum, mr->sum)) {
		snprintf(why, whyn, "the benchcore_marker row in %s does not verify (its checksum is not the "
			 "one benchcore wrote: another program's or an older benchcore's table)", s->db);
		return MARK_FOREIGN;
	}
	/* only names benchcore itself would list (a verified row lists them) */
	for (const char *p = mr->tables; *p; ) {
		size_t l = strcspn(p, ",");
		char one[32];
		snprintf(one, sizeof(one), "%.*s", (int)(l < 31 ? l : 31), p);
		if (!marker_listed(oltp_marker_tables, one)) {
			snprintf(why, whyn, "the marker in %s lists a table benchcore never creates (%s)", s->db, one);
			return MARK_FOREIGN;
		}
		p += l + (p[l] == ',');
	}
	int f = marker_foreign_object(s, m, mr->tables, what, sizeof(what));
	if (f < 0) {
		snprintf(why, whyn, "%s", what);
		return -1;
	}
	if (f) {
		snprintf(why, whyn, "database %s holds %s, which benchcore did not create", s->db, what);
		return MARK_FOREIGN;
	}
	return MARK_OK;
}

int oltp_marker_read(oltp_state *s, MYSQL *m, char *why, size_t whyn)
{
	char sql[256];
	int64_t n;
	struct marker_row mr;
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = '%s'",
		 s->db);
	if (oltp_query_int(m, sql, &n)) {
		snprintf(why, whyn, "%s", mysql_error(m));
		return -1;
	}
	if (n == 0)
		return MARK_NONE;
	int rc = marker_fetch(s, m, &mr, why, whyn);
	if (rc)
		return rc > 0 ? MARK_FOREIGN : -1;
	if ((rc = marker_verify(s, m, &mr, why, whyn)) != MARK_OK)
		return rc;
	snprintf(s->marker_id, sizeof(s->marker_id), "%s", mr.id);
	const char *gone;
	if (mr.warehouses != s->warehouses) {
		snprintf(why, whyn, "it holds %u warehouses, not %u", mr.warehouses, s->warehouses);
		return MARK_REDO;
	}
	if (mr.complete != 1) {
		snprintf(why, whyn, "its load did not complete (interrupted)");
		return MARK_REDO;
	}
	if ((gone = marker_missing(s, m)) != NULL) {
		/* ours, but changed by someone else since: not ours to reload */
		snprintf(why, whyn, "its marker says the load of %u warehouse%s completed, but table %s is "
			 "missing: the database was changed outside benchcore", mr.warehouses,
			 mr.warehouses == 1 ? "" : "s", gone);
		return MARK_DAMAGED;
	}
	s->seed = mr.seed;
	s->c_load = (struct oltp_c){ mr.c_last, mr.c_id, mr.ol_i_id };
	return MARK_OK;
}

/* The row for s's load, complete or not. */
static void marker_row_of(const oltp_state *s, int complete, struct marker_row *mr)
{
	memset(mr, 0, sizeof(*mr));
	snprintf(mr->id, sizeof(mr->id), "%s", s->marker_id);
	mr->warehouses = s->warehouses;
	mr->seed = s->seed;
	mr->c_last = s->c_load.c_last;
	mr->c_id = s->c_load.c_id;
	mr->ol_i_id = s->c_load.ol_i_id;
	mr->complete = complete;
	snprintf(mr->tables, sizeof(mr->tables), "%s", oltp_marker_tables);
	marker_sum(s, mr, mr->sum);
}

int oltp_marker_create(oltp_state *s, MYSQL *m, char *err, size_t errn)
{
	unsigned char raw[16];
	struct marker_row mr;
	char sql[1152];
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		snprintf(err, errn, "no random bytes for the marker's id");
		return -1;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		sprintf(s->marker_id + 2 * i, "%02x", raw[i]);
	marker_row_of(s, 0, &mr);
	char cols[512], row[512];
	snprintf(cols, sizeof(cols), "`%s`.benchcore_marker (id CHAR(32) NOT NULL, warehouses INT NOT NULL, "
		 "seed BIGINT UNSIGNED NOT NULL, c_last INT NOT NULL, c_id INT NOT NULL, ol_i_id INT NOT NULL, "
		 "complete TINYINT NOT NULL, tables VARCHAR(255) NOT NULL, checksum CHAR(64) NOT NULL, "
		 "loaded_at DATETIME, loader VARCHAR(64))", s->db);
	snprintf(row, sizeof(row), "SELECT '%s' AS id, %u AS warehouses, %" PRIu64 " AS seed, %u AS c_last, "
		 "%u AS c_id, %u AS ol_i_id, 0 AS complete, '%s' AS tables, '%s' AS checksum, NOW() AS loaded_at, "
		 "'benchcore oltp' AS loader", mr.id, mr.warehouses, mr.seed, mr.c_last, mr.c_id, mr.ol_i_id,
		 mr.tables, mr.sum);
	/* one statement: the table never exists without its row */
	snprintf(sql, sizeof(sql), "CREATE TABLE %s %s", cols, row);
	if (oltp_exec(m, sql, err, errn) == 0)
		return 0;
	if (mysql_errno(m) != 1786)
		return -1;
	/* MySQL with enforce_gtid_consistency refuses CREATE ... SELECT (1786): two
	   statements; cut between them, the empty marker is refused, not dropped */
	snprintf(sql, sizeof(sql), "CREATE TABLE %s", cols);
	if (oltp_exec(m, sql, err, errn))
		return -1;
	snprintf(sql, sizeof(sql), "INSERT INTO `%s`.benchcore_marker (id, warehouses, seed, c_last, c_id, "
		 "ol_i_id, complete, tables, checksum, loaded_at, loader) %s", s->db, row);
	return oltp_exec(m, sql, err, errn);
}

int oltp_marker_complete(oltp_state *s, MYSQL *m, char *err, size_t errn)
{
	struct marker_row mr;
	char sql[512];
	marker_row_of(s, 1, &mr);
	snprintf(sql, sizeof(sql), "UPDATE `%s`.benchcore_marker SET complete = 1, checksum = '%s', "
		 "loaded_at = NOW() WHERE id = '%s'", s->db, mr.sum, mr.id);
	if (oltp_exec(m, sql, err, errn))
		return -1;
	if (mysql_affected_rows(m) != 1) {
		snprintf(err, errn, "the marker row of this load is gone from %s", s->db);
		return -1;
	}
	return 0;
}

int oltp_drop_ours(oltp_state *s, MYSQL *m, char *err, size_t errn)
{
	char sql[256], why[256];
	/* verified again right here: the database is checked at the moment it goes */
	int mark = oltp_marker_read(s, m, why, sizeof(why));
	if (mark == MARK_NONE)
		return 0;
	if (mark != MARK_OK && mark != MARK_REDO) {
		snprintf(err, errn, "%s", why);
		return -1;
	}
	if (oltp_exec(m, "SET SESSION foreign_key_checks = 0", err, errn))
		return -1;
	/* the marker last: a drop cut short leaves a database still known as ours */
	for (const char *p = strchr(oltp_marker_tables, ',') + 1; *p; ) {
		size_t l = strcspn(p, ",");
		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS `%s`.`%.*s`", s->db, (int)l, p);
		if (oltp_exec(m, sql, err, errn))
			return -1;
		p += l + (p[l] == ',');
	}
	snprintf(sql, sizeof(sql), "DROP TABLE `%s`.benchcore_marker", s->db);
	if (oltp_exec(m, sql, err, errn))
		return -1;
	return oltp_drop_if_empty(s, m, err, errn);
}

int oltp_drop_if_empty(oltp_state *s, MYSQL *m, char *err, size_t errn)
{
	char sql[128], what[128];
	int f = marker_foreign_object(s, m, "", what, sizeof(what));
	if (f < 0)
		snprintf(err, errn, "%s", what);
	else if (f)
		snprintf(err, errn, "database %s holds %s, which benchcore did not create: it is left as it is",
			 s->db, what);
	if (f)
		return -1;
	snprintf(sql, sizeof(sql), "DROP DATABASE `%s`", s->db);
	return oltp_exec(m, sql, err, errn);
}
