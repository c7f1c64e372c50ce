/* A stored document, compressed (docs/archive.md "Documents"): zlib's
 * deflate at its best level, in documents.zdoc. A results file is JSON
 * whose keys and host facts repeat case after case, so it shrinks about
 * tenfold; it is read whole only by export, db: references and a resume's
 * check, never by history (which reads runs and points), so the time to
 * inflate it is paid where a document is wanted anyway. Rows stored before
 * (schema 1, or written uncompressed) keep their text in document and are
 * read as they are. What comes back is the text stored, byte for byte. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "archive_int.h"

/* The results reader's own limit on a document (results_read.c). */
#define DOC_MAX	(256u << 20)

int ar_doc_pack(const char *doc, size_t len, unsigned char **z, size_t *zlen, bc_err *e)
{
	uLongf cap = compressBound((uLong)len);
	*z = bc_xmalloc(cap ? cap : 1);
	if (len > DOC_MAX || compress2(*z, &cap, (const Bytef *)doc, (uLong)len, Z_BEST_COMPRESSION) != Z_OK) {
		free(*z);
		*z = NULL;
		bc_err_set(e, "results document of %zu bytes: zlib could not compress it", len);
		return -1;
	}
	*zlen = cap;
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "\x..." (a BYTEA as both backends return it) to bytes; -1 when not that */
static int unhex(const char *h, unsigned char **b, size_t *n)
{
	size_t l = strlen(h);
	if (l < 2 || h[0] != '\\' || h[1] != 'x' || l % 2)
		return -1;
	*n = (l - 2) / 2;
	*b = bc_xmalloc(*n + 1);
	for (size_t i = 0; i < *n; i++) {
		int hi = hexval(h[2 + 2 * i]), lo = hexval(h[3 + 2 * i]);
		if (hi < 0 || lo < 0) {
			free(*b);
			return -1;
		}
		(*b)[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* inflate z[0..n) into a NUL-terminated text, growing to DOC_MAX */
static char *inflated(const unsigned char *z, size_t n, size_t *len)
{
	z_stream s = { 0 };
	size_t cap = n * 12 + 64, out = 0;
	char *t = bc_xmalloc(cap + 1);
	if (inflateInit(&s) != Z_OK) {
		free(t);
		return NULL;
	}
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)n;
	int rc;
	do {
		if (out == cap) {
			if (cap >= DOC_MAX)
				break;
			cap = cap * 2 > DOC_MAX ? DOC_MAX : cap * 2;
			t = bc_xrealloc(t, cap + 1, 1);
		}
		s.next_out = (Bytef *)t + out;
		s.avail_out = (uInt)(cap - out);
		rc = inflate(&s, Z_NO_FLUSH);
		out = cap - s.avail_out;
	} while (rc == Z_OK);
	inflateEnd(&s);
	if (rc != Z_STREAM_END || s.avail_in || memchr(t, '\0', out)) {
		free(t);
		return NULL;
	}
	t[out] = '\0';
	*len = out;
	return t;
}

char *ar_doc_text(const char *text, const char *zhex, const char *run_id, size_t *len, bc_err *e)
{
	if (!zhex) {	/* an uncompressed row (schema 1) */
		*len = strlen(text ? text : "");
		return bc_xstrdup(text ? text : "");
	}
	unsigned char *z;
	size_t n;
	char *t = NULL;
	if (!unhex(zhex, &z, &n)) {
		t = inflated(z, n, len);
		free(z);
	}
	if (!t) {
		bc_err_set(e, "the stored document of run %s is damaged: its compressed form does not inflate", run_id);
		bc_err_detail(e, "The archive keeps documents deflated (zlib); this one's bytes were changed.");
	}
	return t;
}
