/* Private servers (core/run/service.c): the spec's JSON round trip, the log tail
 * in a failure, the registry (one server per module and name, restarted
 * when it died), and stops that leave nothing behind. Uses the stand-in
 * server from $TESTMODS when there. */
#include "unit.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "service.h"
#include "util.h"

static char dir[64];

static int setup(void **st)
{
	(void)st;
	snprintf(dir, sizeof(dir), "/tmp/bc-unit-svc.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	bc_service_stop_all();
	bc_rmtree(dir);
	return 0;
}

static void test_spec_json(void **st)
{
	(void)st;
	const char *argv[] = { "redis-server", "--port", "0", NULL }, *env[] = { "A=b", NULL };
	bench_server_spec_v1 s = { .name = "redis", .argv = argv, .env = env, .ready_unix = "/x/s.sock",
				   .ready_timeout_s = 2.5, .stop_signal = SIGINT };
	json_t *j = bc_service_spec_json(&s);
	char *text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	j = json_loads(text, 0, NULL);
	free(text);
	bench_server_spec_v1 *p = bc_service_spec_parse(j);
	assert_non_null(p);
	assert_string_equal(p->name, "redis");
	assert_string_equal(p->argv[2], "0");
	assert_null(p->argv[3]);
	assert_string_equal(p->env[0], "A=b");
	assert_string_equal(p->ready_unix, "/x/s.sock");
	assert_null(p->workdir);
	assert_true(p->ready_timeout_s == 2.5);
	assert_int_equal(p->stop_signal, SIGINT);
	bc_service_spec_free(p);
	json_decref(j);
	j = json_pack("{s:s}", "name", "x");	/* no argv */
	assert_null(bc_service_spec_parse(j));
	json_decref(j);
}

static int start(const char *mod, const char *name, const char *const *argv, double timeout, char *err)
{
	char sock[128];
	snprintf(sock, sizeof(sock), "%s/%s.sock", dir, name);
	bench_server_spec_v1 s = { .name = name, .argv = argv, .ready_unix = sock, .ready_timeout_s = timeout };
	bc_err e;
	int rc = bc_service_start(mod, &s, dir, &e);
	snprintf(err, 1024, "%s", rc ? e.msg : "");
	return rc;
}

static void test_failures(void **st)
{
	(void)st;
	char err[1024];
	/* never ready: the last 10 lines of its log, unprintable bytes as '?' */
	const char *chatty[] = { "/bin/sh", "-c", "for i in $(seq 30); do echo line $i; done; "
				 "printf '\\377x\\n'; exec sleep 30", NULL };
	assert_int_equal(start("m", "chatty", chatty, 0.5, err), -1);
	if (!strstr(err, "not ready within 0.5 s") || !strstr(err, "| line 22") || strstr(err, "| line 21") ||
	    !strstr(err, "| ?x"))
		fail_msg("unexpected message: %s", err);
	assert_int_equal(bc_service_count(), 0);
	/* exits at once, says nothing */
	const char *quiet[] = { "/bin/true", NULL };
	assert_int_equal(start("m", "quiet", quiet, 5, err), -1);
	if (!strstr(err, "exited with status 0 before it was ready") || !strstr(err, "is empty"))
		fail_msg("unexpected message: %s", err);
	/* a spec without a readiness check is refused before anything runs */
	bench_server_spec_v1 s = { .name = "x", .argv = quiet };
	bc_err e;
	assert_int_equal(bc_service_start("m", &s, dir, &e), -1);
	assert_non_null(strstr(e.msg, "no readiness check"));
}

/* The pid the stand-in answers with on its socket, or -1. */
static long ask(const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[64] = "";
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s.sock", dir, name);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ssize_t got = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	return got > 4 ? atol(buf + 4) : -1;
}

static void test_registry(void **st)
{
	(void)st;
	const char *tm = getenv("TESTMODS");
	char bin[512], sock_a[128], sock_b[128], err[1024];
	if (!tm)
		skip();
	snprintf(bin, sizeof(bin), "%s/standin_server", tm);
	snprintf(sock_a, sizeof(sock_a), "%s/a.sock", dir);
	snprintf(sock_b, sizeof(sock_b), "%s/b.sock", dir);
	const char *argv_a[] = { bin, sock_a, NULL }, *argv_b[] = { bin, sock_b, "--crash-after=2", NULL };
	assert_int_equal(start("m1", "a", argv_a, 10, err), 0);
	long pid = ask("a");
	assert_true(pid > 0);
	assert_int_equal(start("m1", "a", argv_a, 10, err), 0);	/* found, not started again */
	assert_int_equal(ask("a"), pid);
	assert_int_equal(bc_service_count(), 1);
	/* b answers the readiness probe and one question, then exits */
	assert_int_equal(start("m2", "b", argv_b, 10, err), 0);
	long pid_b = ask("b");
	assert_true(pid_b > 0 && pid_b != pid);
	usleep(200000);
	assert_int_equal(start("m2", "b", argv_b, 10, err), 0);	/* died: started again */
	assert_true(ask("b") != pid_b);
	assert_int_equal(bc_service_count(), 2);
	bc_service_stop_module("m1");
	assert_int_equal(bc_service_count(), 1);
	assert_int_equal(kill((pid_t)pid, 0), -1);	/* reaped: no such process */
	bc_service_stop_all();
	assert_int_equal(bc_service_count(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_json),
		cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
