/* A stand-in for a private server, for tests/integration/test_service.sh:
 * listens on a unix socket and answers every connection with "pid=N\n"
 * (its own pid), so a module can tell which server it reached.
 *   standin_server SOCKET [--child] [--burn] [--ignore-term] [--never-ready] [--crash-after=N]
 * --child        forks a worker into its process group that ignores SIGTERM,
 *                like a server's helper that outlives a polite stop
 * --burn         like --child, and the worker burns CPU instead of sleeping: a
 *                server whose work the case's measurement must count as its own
 * --ignore-term  ignores SIGTERM itself (the host must escalate to SIGKILL)
 * --never-ready  never listens, and says so in its log
 * --crash-after  exits with status 3 after N connections (a server that died)
 * --daemonize    forks, and the parent exits 0 at once; the child makes a
 *                session of its own and serves, named bcstandin-dmn (like
 *                redis-server --daemonize yes)
 * --daemonize-late  the same, but the parent exits only 0.5 s later, when the
 *                child is already serving (ready before its parent is gone)
 * --setsid-child starts a helper in a session of its own, named bcstandin-sid,
 *                which outlives a kill of the server's process group
 * --setsid-child-late  the same, started at the first connection (after the
 *                server was found ready)
 * --hugemem=MB   maps MB of anonymous memory, 2 MiB aligned, and writes every
 *                page before listening: a server whose heap THP can back with
 *                huge pages (test_machine's thp check reads its AnonHugePages) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* A helper in a session of its own (--setsid-child). */
static void standin_helper(void)
{
	if (fork() != 0)
		return;
	setsid();
	prctl(PR_SET_NAME, "bcstandin-sid");
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	int child = 0, ignore = 0, never = 0, daemonize = 0, sid_child = 0, burn = 0;
	long crash_after = -1, hugemem = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--child"))
			child = 1;
		else if (!strcmp(argv[i], "--burn"))
			burn = child = 1;
		else if (!strcmp(argv[i], "--ignore-term"))
			ignore = 1;
		else if (!strcmp(argv[i], "--never-ready"))
			never = 1;
		else if (!strcmp(argv[i], "--daemonize"))
			daemonize = 1;
		else if (!strcmp(argv[i], "--daemonize-late"))
			daemonize = 2;
		else if (!strcmp(argv[i], "--setsid-child"))
			sid_child = 1;
		else if (!strcmp(argv[i], "--setsid-child-late"))
			sid_child = 2;
		else if (!strncmp(argv[i], "--hugemem=", 10))
			hugemem = atol(argv[i] + 10);
		else if (!strncmp(argv[i], "--crash-after=", 14))
			crash_after = atol(argv[i] + 14);
		else
			path = argv[i];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);	/* a readiness probe hangs up without reading */
	printf("standin: pid %d starting\n", (int)getpid());
	if (!path) {
		printf("standin: no socket path given\n");
		return 2;
	}
	if (daemonize) {
		pid_t d = fork();
		if (d != 0) {
			printf("standin: daemonized as pid %d\n", (int)d);
			if (daemonize == 2)
				usleep(500000);
			return d > 0 ? 0 : 1;
		}
		setsid();
		prctl(PR_SET_NAME, "bcstandin-dmn");
	}
	if (sid_child == 1)
		standin_helper();
	if (child) {
		pid_t w = fork();
		if (w == 0) {
			volatile unsigned long spin = 0;
			signal(SIGTERM, SIG_IGN);
			while (burn)
				spin++;
			for (;;)
				pause();
		}
		printf("standin: worker pid %d\n", (int)w);
	}
	if (hugemem > 0) {	/* 2 MiB aligned within a larger mapping, every page written */
		size_t len = (size_t)hugemem << 20, al = 2u << 20;
		char *m = mmap(NULL, len + al, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			perror("standin: mmap");
			return 1;
		}
		char *p = (char *)(((unsigned long)m + al - 1) & ~(unsigned long)(al - 1));
		for (size_t o = 0; o < len; o += 4096)
			p[o] = 1;
		printf("standin: %ld MiB written\n", hugemem);
	}
	if (ignore)
		signal(SIGTERM, SIG_IGN);
	if (never) {
		printf("standin: not listening, on purpose\n");
		for (;;)
			pause();
	}
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0) {
		perror("standin: listen");
		return 1;
	}
	printf("standin: listening on %s\n", path);
	for (long n = 0;; n++) {
		if (n == crash_after) {
			printf("standin: exiting after %ld connections, on purpose\n", n);
			return 3;
		}
		int c = accept(fd, NULL, NULL);
		if (c < 0)
			continue;
		if (sid_child == 2 && n == 1)	/* n 0: the readiness probe */
			standin_helper();
		dprintf(c, "pid=%d\n", (int)getpid());
		close(c);
	}
}
