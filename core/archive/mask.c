/* Which archive a name means, and its password kept out of every message.
 * A PostgreSQL archive is named by a URL (postgresql:// or postgres://, the
 * scheme in any case, as RFC 3986 allows) or by a key=value connection
 * string (host=... dbname=... password=...). Messages can hold it in many
 * forms: benchcore's own (the name before a reason), libpq's (which repeat
 * the URL, or one token of it, such as an undecodable password). So one
 * function masks any text: the password of every URL and every password=
 * in it, and every occurrence of the given connection string's own
 * password, as written, percent-decoded or encoded. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "archive.h"
#include "db.h"

#define MASK		"***"
#define MIN_SECRET	4	/* a shorter password is masked where it stands, not everywhere */

/* The length of a PostgreSQL URL scheme at p, or 0. */
static size_t scheme_len(const char *p)
{
	if (!strncasecmp(p, "postgresql://", 13))
		return 13;
	if (!strncasecmp(p, "postgres://", 11))
		return 11;
	return 0;
}

/* key=value: the first word is a name followed by "=" (libpq's keywords are
   lower-case letters and underscores). */
static int is_conninfo(const char *db)
{
	const char *p = db;
	while (isspace((unsigned char)*p))
		p++;
	const char *k = p;
	while (islower((unsigned char)*p) || *p == '_')
		p++;
	if (p == k)
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '=';
}

int bc_archive_is_url(const char *db)
{
	return db && (scheme_len(db) || is_conninfo(db));
}

/* s with [from, to) replaced by MASK (s freed). */
static char *cut(char *s, size_t from, size_t to)
{
	char *r = bc_xasprintf("%.*s" MASK "%s", (int)from, s, s + to);
	free(s);
	return r;
}

/* In a URL that starts at s + i: the userinfo ends at the URL's last "@"
   (a password may hold a raw "/", "?" or "#"; hosts, ports and names hold
   no "@"); its password is what follows the first ":". The URL ends at
   white space or a quote in a message, at the end of s when s is the URL
   given (whole: its password may hold those too). *from, *to: the
   password, when there is one. */
static int url_password(const char *s, size_t i, int whole, size_t *from, size_t *to)
{
	size_t start = i + scheme_len(s + i), at = 0;
	size_t end = whole ? strlen(s) : start + strcspn(s + start, " \t\n\"'");
	for (size_t k = start; k < end; k++)
		if (s[k] == '@')
			at = k;
	const char *colon = at ? memchr(s + start, ':', at - start) : NULL;
	if (!colon)
		return 0;
	*from = (size_t)(colon - s) + 1;
	*to = at;
	return 1;
}

/* A "password=" at s + i (at the text's start, after white space, "?" or
   "&"): the value, quoted ('...' with \ escapes) or up to white space, "&"
   or "#". */
static int keyword_password(const char *s, size_t i, size_t *from, size_t *to)
{
	if (strncasecmp(s + i, "password", 8) || (i && !strchr(" \t\n?&'\"", s[i - 1])))
		return 0;
	size_t k = i + 8;
	while (s[k] == ' ' || s[k] == '\t')
		k++;
	if (s[k] != '=')
		return 0;
	k++;
	while (s[k] == ' ' || s[k] == '\t')
		k++;
	*from = k;
	if (s[k] == '\'') {
		for (k++; s[k] && s[k] != '\''; k++)
			if (s[k] == '\\' && s[k + 1])
				k++;
		*to = s[k] ? k + 1 : k;
	} else {
		*to = k + strcspn(s + k, " \t\n&#\"'");
	}
	return 1;
}

/* Every password by its place in the text: URLs' and password='s. */
static char *mask_places(char *s)
{
	for (size_t i = 0; s[i]; i++) {
		size_t from, to;
		if ((scheme_len(s + i) && url_password(s, i, 0, &from, &to)) || keyword_password(s, i, &from, &to)) {
			s = cut(s, from, to);
			i = from + strlen(MASK) - 1;
		}
	}
	return s;
}

/* %XX decoded (an undecodable % kept as it is). */
static char *decoded(const char *s, size_t n)
{
	char *r = bc_xmalloc(n + 1), *o = r;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			char hex[3] = { s[i + 1], s[i + 2], 0 };
			*o++ = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return r;
}

/* A quoted conninfo value without its quotes and escapes. */
static char *unquoted(const char *s, size_t n)
{
	char *r = bc_xmalloc(n + 1), *o = r;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'')
			continue;
		if (s[i] == '\\' && i + 1 < n)
			i++;
		*o++ = s[i];
	}
	*o = '\0';
	return r;
}

/* Every occurrence of secret in s masked (s freed). */
static char *mask_all(char *s, const char *secret)
{
	size_t n = strlen(secret);
	if (n < MIN_SECRET)
		return s;
	for (char *p = strstr(s, secret); p; p = strstr(s, secret)) {
		size_t at = (size_t)(p - s);
		s = cut(s, at, at + n);
	}
	return s;
}

/* Settings whose values are no secret: where the archive is and who
   connects. Any other value of a connection string (password, sslpassword,
   a misspelt "pasword" alike) is masked wherever it appears. */
static int safe_key(const char *k, size_t n)
{
	static const char *const safe[] = { "host", "hostaddr", "port", "dbname", "user", "sslmode",
		"connect_timeout", "application_name", "target_session_attrs", NULL };
	for (const char *const *p = safe; *p; p++)
		if (strlen(*p) == n && !strncmp(*p, k, n))
			return 1;
	return 0;
}

/* One value of conn, [from, to), masked in s in every form: as written,
   decoded (%XX in a URL; quotes and escapes in key=value), encoded. */
static char *mask_value(char *s, const char *conn, size_t from, size_t to, int url)
{
	char *raw = bc_xasprintf("%.*s", (int)(to - from), conn + from);
	char *plain = url || conn[from] != '\'' ? decoded(raw, strlen(raw)) : unquoted(raw, strlen(raw));
	char *enc = bc_db_pg_encode(raw);
	s = mask_all(mask_all(mask_all(s, raw), plain), enc);
	free(raw);
	free(plain);
	free(enc);
	return s;
}

/* s masked of the secrets conn holds: a URL's password and the values of
   its query's other settings; a key=value string's values but the safe
   ones. */
static char *mask_secrets(char *s, const char *conn)
{
	size_t from, to, i = 0;
	int url = scheme_len(conn) != 0;
	if (url) {
		if (url_password(conn, 0, 1, &from, &to))
			s = mask_value(s, conn, from, to, 1);
		const char *at = strrchr(conn, '@'), *q = strchr(at ? at : conn, '?');
		if (!q)
			return s;
		i = (size_t)(q - conn) + 1;
	}
	while (conn[i]) {
		while (url ? conn[i] == '&' : isspace((unsigned char)conn[i]))
			i++;
		size_t k = i;
		while (conn[i] && conn[i] != '=' && !isspace((unsigned char)conn[i]) && conn[i] != '&')
			i++;
		size_t klen = i - k;
		while (conn[i] == ' ' || conn[i] == '\t')
			i++;
		if (conn[i] != '=')
			break;	/* not a setting: libpq refuses it, naming no value */
		for (i++; conn[i] == ' ' || conn[i] == '\t'; i++)
			;
		from = i;
		if (!url && conn[i] == '\'') {
			for (i++; conn[i] && conn[i] != '\''; i++)
				if (conn[i] == '\\' && conn[i + 1])
					i++;
			i += conn[i] != '\0';
		} else {
			i += strcspn(conn + i, url ? "&#" : " \t\n");
		}
		if (!safe_key(conn + k, klen))
			s = mask_value(s, conn, from, i, url);
	}
	return s;
}

char *bc_db_pg_encode(const char *s)
{
	char *r = bc_xmalloc(strlen(s) * 3 + 1), *o = r;
	for (; *s; s++)
		if (strchr("/?#[]@ ", *s) || (unsigned char)*s < 0x20)
			o += sprintf(o, "%%%02X", (unsigned char)*s);
		else
			*o++ = *s;
	*o = '\0';
	return r;
}

char *bc_db_pg_conninfo(const char *conn)
{
	size_t sl = scheme_len(conn), from, to;
	if (!sl)
		return bc_xstrdup(conn);
	const char *lower = tolower((unsigned char)conn[8]) == 'q' ? "postgresql://" : "postgres://";
	if (!url_password(conn, 0, 1, &from, &to)) {
		/* no password: the user name alone, up to the last "@" */
		const char *at = strrchr(conn + sl, '@');
		if (!at)
			return bc_xasprintf("%s%s", lower, conn + sl);
		char *u = bc_xasprintf("%.*s", (int)(at - conn - (long)sl), conn + sl);
		char *eu = bc_db_pg_encode(u), *r = bc_xasprintf("%s%s%s", lower, eu, at);
		free(u);
		free(eu);
		return r;
	}
	char *u = bc_xasprintf("%.*s", (int)(from - 1 - sl), conn + sl);
	char *pw = bc_xasprintf("%.*s", (int)(to - from), conn + from);
	char *eu = bc_db_pg_encode(u), *ep = bc_db_pg_encode(pw);
	char *r = bc_xasprintf("%s%s:%s%s", lower, eu, ep, conn + to);
	free(u);
	free(pw);
	free(eu);
	free(ep);
	return r;
}

char *bc_archive_mask(const char *text, const char *conn)
{
	char *s = bc_xstrdup(text ? text : "");
	if (conn)
		s = mask_secrets(s, conn);
	return mask_places(s);
}

void bc_archive_mask_err(bc_err *e, const char *conn)
{
	char *parts[3] = { e->msg, e->detail, e->hint };
	size_t sizes[3] = { sizeof(e->msg), sizeof(e->detail), sizeof(e->hint) };
	for (int i = 0; i < 3; i++) {
		char *m = bc_archive_mask(parts[i], conn);
		snprintf(parts[i], sizes[i], "%s", m);
		free(m);
	}
}
