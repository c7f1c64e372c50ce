/* The case channel's messages (channel.h): the one encoder and the one
 * decoder, used by the case child and by the runner alike, so the two ends
 * cannot drift apart. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "channel.h"
#include "util.h"

static const char *const msg_tags[BC_MSG_NKINDS] = {
	[BC_MSG_PHASE] = "P", [BC_MSG_RESULT] = "J", [BC_MSG_SERVER] = "S",
	[BC_MSG_SERVER_OK] = "OK", [BC_MSG_SERVER_ERR] = "E",
};

static const struct {
	const char *name, *where;
} phases[BC_PHASE_N] = {
	[BC_PHASE_INIT] = { "init", "init" },
	[BC_PHASE_PREPARE] = { "prepare", "prepare" },
	[BC_PHASE_PREPARED] = { "prepared", "thread_init" },
	[BC_PHASE_WARMUP] = { "warmup", "warmup" },
	[BC_PHASE_MEASURE] = { "measure", "the measured window" },
	[BC_PHASE_FINISH] = { "finish", "finish" },
	[BC_PHASE_CLEANUP] = { "cleanup", "cleanup" },
	[BC_PHASE_DESTROY] = { "destroy", "destroy" },
};

static int phase_of(const char *s, size_t n)
{
	for (int i = 0; i < BC_PHASE_N; i++)
		if (strlen(phases[i].name) == n && !memcmp(phases[i].name, s, n))
			return i;
	return -1;
}

int bc_phase_parse(const char *name)
{
	return phase_of(name, strlen(name));
}

const char *bc_phase_name(bc_phase ph)
{
	return (unsigned)ph < BC_PHASE_N ? phases[ph].name : "?";
}

const char *bc_phase_where(bc_phase ph)
{
	return (unsigned)ph < BC_PHASE_N ? phases[ph].where : "the case";
}

int bc_msg_send(int fd, bc_msg_kind kind, const char *payload)
{
	char *esc = NULL;
	if ((unsigned)kind >= BC_MSG_NKINDS || !payload) {
		errno = EINVAL;
		return -1;
	}
	if (kind == BC_MSG_SERVER_ERR) {	/* a reason may hold anything: one JSON string */
		json_t *s = json_string(payload);
		payload = esc = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
		json_decref(s);
		if (!esc)	/* not UTF-8: said without its words rather than not at all */
			payload = "\"private server did not start\"";
	}
	if (strchr(payload, '\n')) {	/* the JSON is compact, a name one word: never */
		free(esc);
		errno = EINVAL;
		return -1;
	}
	/* one write: a message never interleaves with another thread's */
	char *line = bc_xasprintf("%s%s%s\n", msg_tags[kind], *payload ? " " : "", payload);
	int rc = bc_write_all(fd, line, strlen(line));
	free(line);
	free(esc);
	return rc;
}

/* SERVER_ERR: the JSON string in p[0..n) decoded over itself (never longer). */
static int unescape(char *p, size_t n, size_t *len)
{
	json_t *s = json_loadb(p, n, JSON_DECODE_ANY, NULL);
	int ok = json_is_string(s) && !memchr(json_string_value(s), '\0', json_string_length(s));
	if (ok) {
		*len = json_string_length(s);
		memcpy(p, json_string_value(s), *len);
		p[*len] = '\0';
	}
	json_decref(s);
	return ok ? 0 : -1;
}

/* The payload's form for its kind; m->payload and m->len are set. */
static const char *check_payload(bc_msg *m, char *p)
{
	switch (m->kind) {
	case BC_MSG_PHASE:
		if ((int)(m->phase = (bc_phase)phase_of(p, m->len)) < 0)
			return "an unknown phase";
		return NULL;
	case BC_MSG_RESULT:
	case BC_MSG_SERVER:
		return m->len ? NULL : "no JSON after its tag";
	case BC_MSG_SERVER_OK: {
		char *end;
		long pid = m->len ? strtol(p, &end, 10) : 0;
		if (m->len && (*end || pid <= 0 || pid > INT_MAX || p[0] < '0' || p[0] > '9'))
			return "a pid that is not a positive number";
		m->pid = (int)pid;
		return NULL;
	}
	case BC_MSG_SERVER_ERR:
		return unescape(p, m->len, &m->len) ? "a reason that is not a JSON string" : NULL;
	default:
		return "an unknown kind";
	}
}

int bc_msg_decode(char *line, size_t n, bc_msg *m, const char **why)
{
	memset(m, 0, sizeof(*m));
	const char *sp = memchr(line, ' ', n);
	size_t tn = sp ? (size_t)(sp - line) : n;
	int kind = -1;
	for (int k = 0; k < BC_MSG_NKINDS && kind < 0; k++)
		if (strlen(msg_tags[k]) == tn && !memcmp(msg_tags[k], line, tn))
			kind = k;
	*why = NULL;
	if (kind < 0)
		*why = "an unknown message";
	else if (memchr(line, '\0', n))
		*why = "a NUL byte in a message";
	if (*why)
		return -1;
	char *p = line + (sp ? tn + 1 : n);
	line[n] = '\0';
	m->kind = (bc_msg_kind)kind;
	m->payload = p;
	m->len = (size_t)(line + n - p);
	*why = check_payload(m, p);
	return *why ? -1 : 0;
}
