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
 * --crash-after  exits with status 3 after N connections (a server that died) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = NULL;
	int child = 0, ignore = 0, never = 0, burn = 0;
	long crash_after = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--child"))
			child = 1;
		else if (!strcmp(argv[i], "--burn"))
			burn = child = 1;
		else if (!strcmp(argv[i], "--ignore-term"))
			ignore = 1;
		else if (!strcmp(argv[i], "--never-ready"))
			never = 1;
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
		dprintf(c, "pid=%d\n", (int)getpid());
		close(c);
	}
}
