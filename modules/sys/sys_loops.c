/* sys: the loops each test times (see sys.c for what each is and why). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sys.h"

#define SYS_PIPE_BYTES	512	/* UnixBench's pipe: 512 bytes a loop */

static int sys_fail(struct sys_thread *t, const char *what)
{
	t->s->api->errorf(t->s->ctx, t->bt, "%s: %s", what, strerror(errno));
	return -1;
}

/* UnixBench's mix: a descriptor duplicated and closed, the pid (the raw
   system call: glibc does not cache it, but say so), the uid, the umask. */
static int sys_mix(struct sys_thread *t, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		int fd = dup(STDERR_FILENO);
		if (fd < 0)
			return sys_fail(t, "dup");
		close(fd);
		syscall(SYS_getpid);
		getuid();
		umask(022);
	}
	return 0;
}

static int sys_getpid(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		syscall(SYS_getpid);
	return 0;
}

static int sys_pipe(struct sys_thread *t, uint64_t n)
{
	char buf[SYS_PIPE_BYTES] = { 0 };
	for (uint64_t i = 0; i < n; i++)
		if (write(t->pipe[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    read(t->pipe[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return sys_fail(t, "pipe");
	return 0;
}

/* One command to the helper and its reply. */
static int sys_ask(struct sys_thread *t, const char *cmd, uint64_t n)
{
	char line[512];
	int len = snprintf(line, sizeof(line), "%s %llu %lld\n", cmd, (unsigned long long)n,
			   (long long)t->s->o->concurrency);
	if (write(t->cmd, line, (size_t)len) != len)
		return sys_fail(t, "the helper process stopped");
	if (!fgets(line, sizeof(line), t->reply)) {
		errno = EPIPE;
		return sys_fail(t, "the helper process did not answer");
	}
	if (strncmp(line, "ok", 2)) {
		line[strcspn(line, "\n")] = '\0';
		t->s->api->errorf(t->s->ctx, t->bt, "sys-helper %s: %s", cmd, line + (line[0] == 'e' ? 4 : 0));
		return -1;
	}
	return 0;
}

static int sys_copy(struct sys_thread *t, uint64_t n)
{
	size_t bs = (size_t)t->s->o->buffer_size;
	for (uint64_t i = 0; i < n; i++) {
		if (t->block == t->blocks) {	/* the whole file copied: again from the start */
			if (lseek(t->src, 0, SEEK_SET) || lseek(t->dst, 0, SEEK_SET))
				return sys_fail(t, "lseek");
			t->block = 0;
		}
		if (read(t->src, t->buf, bs) != (ssize_t)bs)
			return sys_fail(t, "read");
		if (write(t->dst, t->buf, bs) != (ssize_t)bs)
			return sys_fail(t, "write");
		t->block++;
	}
	return 0;
}

int sys_loops(struct sys_thread *t, uint64_t n)
{
	switch (t->s->o->test) {
	case SYS_SYSCALL: return sys_mix(t, n);
	case SYS_GETPID: return sys_getpid(n);
	case SYS_PIPE: return sys_pipe(t, n);
	case SYS_CTX: return sys_ask(t, "ctx", n);
	case SYS_SPAWN: return sys_ask(t, "spawn", n);
	case SYS_EXECL: return sys_ask(t, "execl", n);
	case SYS_FILE_COPY: return sys_copy(t, n);
	case SYS_SHELL: return sys_ask(t, "shell", n);
	}
	return -1;
}

/* A new file at path (O_EXCL: never one that is there), named for this run. */
static int sys_new_file(struct sys_state *s, struct sys_thread *t, const char *kind, char **path)
{
	*path = NULL;
	if (asprintf(path, "%s/benchcore-sys.%ld.%u.%s", s->o->path, (long)getpid(), t->index, kind) < 0)
		return -1;
	int fd = open(*path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		int e = errno;
		s->api->errorf(s->ctx, NULL, "file_copy cannot create %s: %s\n%s\n%s", *path, strerror(e),
			       e == EEXIST ? "A file of that name is there; benchcore never opens a file it did "
			       "not create." : "", "set path to a directory you can write");
		free(*path);
		*path = NULL;
	}
	return fd;
}

int sys_copy_prepare(struct sys_state *s, struct sys_thread *t)
{
	size_t bs = (size_t)s->o->buffer_size;
	if (!(t->buf = malloc(bs)))
		return s->api->set_error(s->ctx, "out of memory"), BENCH_ERR;
	memset(t->buf, 'b', bs);
	if ((t->src = sys_new_file(s, t, "src", &t->src_path)) < 0 ||
	    (t->dst = sys_new_file(s, t, "dst", &t->dst_path)) < 0)
		return BENCH_ERR;
	/* max_blocks KiB, as UnixBench's fstime sizes it (at least one buffer) */
	t->blocks = s->o->max_blocks * 1024 / s->o->buffer_size;
	if (t->blocks < 1)
		t->blocks = 1;
	for (int64_t i = 0; i < t->blocks; i++)
		if (write(t->src, t->buf, bs) != (ssize_t)bs)
			return s->api->errorf(s->ctx, NULL, "file_copy: writing %s: %s", t->src_path,
					      strerror(errno)), BENCH_ERR;
	if (lseek(t->src, 0, SEEK_SET))
		return s->api->errorf(s->ctx, NULL, "lseek: %s", strerror(errno)), BENCH_ERR;
	t->block = 0;
	return BENCH_OK;
}

void sys_copy_cleanup(struct sys_thread *t)
{
	if (t->src >= 0)
		close(t->src);
	if (t->dst >= 0)
		close(t->dst);
	t->src = t->dst = -1;
	/* only the names this case created (O_EXCL above) */
	if (t->src_path)
		unlink(t->src_path);
	if (t->dst_path)
		unlink(t->dst_path);
	free(t->src_path);
	free(t->dst_path);
	free(t->buf);
	t->src_path = t->dst_path = t->buf = NULL;
}

/* The shell test's script: ordinary text tools over a text file, each
   copy's files named by its pid so concurrent copies never meet. */
static const char sys_script[] =
	"set -e\n"
	"sort <input.txt >s.$$\n"
	"od s.$$ | sort -n -k 1 >o.$$\n"
	"grep the s.$$ | tee g.$$ | wc >w.$$\n"
	"rm -f s.$$ o.$$ g.$$ w.$$\n";

/* A text of 400 lines of words (a fixed sequence: every run sorts the same). */
static int sys_write_text(const char *path)
{
	static const char *const words[] = { "the", "kernel", "forks", "a", "process", "and", "waits",
		"for", "its", "child", "pipe", "reads", "writes", "buffer", "scheduler", "switches", "context",
		"file", "system", "call", "returns", "to", "user", "space", "shell", "runs", "sort" };
	FILE *f = fopen(path, "wx");
	unsigned x = 12345;
	if (!f)
		return -1;
	for (int l = 0; l < 400; l++) {
		int n = 4 + (int)(x % 9);
		for (int w = 0; w < n; w++) {
			x = x * 1103515245u + 12345u;
			fprintf(f, "%s%s", w ? " " : "", words[(x >> 16) % (sizeof(words) / sizeof(words[0]))]);
		}
		fputc('\n', f);
	}
	return fclose(f);
}

int sys_shell_prepare(struct sys_state *s)
{
	const char *dir = s->api->scratch_dir(s->ctx);
	char input[PATH_MAX + 16];
	snprintf(s->shdir, sizeof(s->shdir), "%s", dir);
	snprintf(s->script, sizeof(s->script), "%s/script.sh", dir);
	snprintf(input, sizeof(input), "%s/input.txt", dir);
	FILE *f = fopen(s->script, "wx");
	if (!f || fputs(sys_script, f) == EOF || fclose(f) || sys_write_text(input))
		return s->api->errorf(s->ctx, NULL, "shell: cannot write its script in %s: %s", dir,
				      strerror(errno)), BENCH_ERR;
	return BENCH_OK;
}

void sys_shell_cleanup(struct sys_state *s)
{
	char input[PATH_MAX + 16];
	if (!s->script[0])
		return;
	snprintf(input, sizeof(input), "%s/input.txt", s->shdir);
	unlink(s->script);
	unlink(input);
	s->script[0] = '\0';
}
