/* The case channel's messages (core/run/channel.c): what the encoder writes
   is what the decoder reads back, on a real socket pair, and a line that is
   not one of benchcore's messages is refused with a reason, never taken
   for part of one. */
#include "unit.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "channel.h"

/* Sends one message and reads its line back; returns its length (no newline). */
static size_t round_trip(bc_msg_kind kind, const char *payload, char *line, size_t cap)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(bc_msg_send(sv[0], kind, payload), 0);
	close(sv[0]);
	ssize_t got, len = 0;
	while ((got = read(sv[1], line + len, cap - 1 - (size_t)len)) > 0)
		len += got;
	close(sv[1]);
	assert_true(len > 0 && line[len - 1] == '\n');	/* one line, whole */
	assert_null(memchr(line, '\n', (size_t)len - 1));
	line[len - 1] = '\0';
	return (size_t)len - 1;
}

static void test_round_trips(void **st)
{
	(void)st;
	char line[256];
	bc_msg m;
	const char *why;
	size_t n = round_trip(BC_MSG_PHASE, "prepared", line, sizeof(line));
	assert_string_equal(line, "P prepared");	/* the wire as before the types */
	assert_int_equal(bc_msg_decode(line, n, &m, &why), 0);
	assert_int_equal(m.kind, BC_MSG_PHASE);
	assert_int_equal(m.phase, BC_PHASE_PREPARED);
	assert_string_equal(bc_phase_where(m.phase), "thread_init");

	n = round_trip(BC_MSG_RESULT, "{\"status\":\"ok\"}", line, sizeof(line));
	assert_int_equal(bc_msg_decode(line, n, &m, &why), 0);
	assert_int_equal(m.kind, BC_MSG_RESULT);
	assert_string_equal(m.payload, "{\"status\":\"ok\"}");
	assert_int_equal(m.len, strlen(m.payload));

	n = round_trip(BC_MSG_SERVER_OK, "4242", line, sizeof(line));
	assert_string_equal(line, "OK 4242");
	assert_int_equal(bc_msg_decode(line, n, &m, &why), 0);
	assert_int_equal(m.kind, BC_MSG_SERVER_OK);
	assert_int_equal(m.pid, 4242);

	/* a reason may hold a newline, quotes, any UTF-8: still one line */
	n = round_trip(BC_MSG_SERVER_ERR, "port \"6379\" busy\nsee the log: é", line, sizeof(line));
	assert_int_equal(bc_msg_decode(line, n, &m, &why), 0);
	assert_int_equal(m.kind, BC_MSG_SERVER_ERR);
	assert_string_equal(m.payload, "port \"6379\" busy\nsee the log: é");
}

static void test_phases(void **st)
{
	(void)st;
	for (int i = 0; i < BC_PHASE_N; i++)
		assert_int_equal(bc_phase_parse(bc_phase_name((bc_phase)i)), i);
	assert_int_equal(bc_phase_parse("measured"), -1);
	assert_int_equal(bc_phase_parse(""), -1);
	assert_string_equal(bc_phase_where(BC_PHASE_MEASURE), "the measured window");
	assert_string_equal(bc_phase_where((bc_phase)-1), "the case");
}

static void refused(const char *text, size_t n, const char *reason)
{
	char line[128];
	bc_msg m;
	const char *why = NULL;
	memcpy(line, text, n);
	line[n] = '\n';
	assert_int_equal(bc_msg_decode(line, n, &m, &why), -1);
	assert_non_null(why);
	if (!strstr(why, reason))
		fail_msg("\"%.*s\": \"%s\", not \"%s\"", (int)n, text, why, reason);
}

static void test_refused(void **st)
{
	(void)st;
	refused("", 0, "unknown message");
	refused("xJ {}", 5, "unknown message");		/* a tag inside a line is no tag */
	refused(" J {}", 5, "unknown message");
	refused("PX measure", 10, "unknown message");
	refused("P measured", 10, "unknown phase");
	refused("P", 1, "unknown phase");
	refused("J", 1, "no JSON");
	refused("J ", 2, "no JSON");
	refused("S", 1, "no JSON");
	refused("J {\"a\":\0}", 9, "NUL byte");
	refused("OK -1", 5, "positive number");
	refused("OK 12x", 6, "positive number");
	refused("OK +5", 5, "positive number");
	refused("OK 99999999999", 14, "positive number");
	refused("E oops", 6, "JSON string");
	refused("E 42", 4, "JSON string");
	refused("E \"a\\u0000b\"", 12, "JSON string");	/* a NUL inside the reason */
	char line[8] = "OK";
	bc_msg m;
	const char *why;
	assert_int_equal(bc_msg_decode(line, 2, &m, &why), 0);	/* a pid not said */
	assert_int_equal(m.pid, 0);
}

static void test_send_refuses(void **st)
{
	(void)st;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	errno = 0;
	assert_int_equal(bc_msg_send(sv[0], BC_MSG_RESULT, "{\n}"), -1);	/* would be two lines */
	assert_int_equal(errno, EINVAL);
	assert_int_equal(bc_msg_send(sv[0], BC_MSG_NKINDS, "x"), -1);
	assert_int_equal(bc_msg_send(sv[0], BC_MSG_PHASE, NULL), -1);
	close(sv[1]);
	signal(SIGPIPE, SIG_IGN);	/* as the runner and its cases have it (suite.c) */
	assert_int_equal(bc_msg_send(sv[0], BC_MSG_PHASE, "init"), -1);	/* the other end gone */
	close(sv[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_send_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
