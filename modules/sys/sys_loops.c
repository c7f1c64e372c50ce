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

static const char *const sys_helper_cmds[] = {
	[SYS_PIPE] = "pipe", [SYS_CTX] = "ctx", [SYS_SPAWN] = "spawn", [SYS_EXECL] = "execl",
	[SYS_FILE_COPY] = "copy", [SYS_SHELL] = "shell" };

int sys_send(struct sys_thread *t, uint64_t n)
{
	const struct sys_opts *o = t->s->o;
	int64_t arg = o->test == SYS_FILE_COPY ? o->buffer_size : o->test == SYS_SHELL ? o->concurrency : 0;
	char line[128];
	int len = snprintf(line, sizeof(line), "%s %llu %lld\n", sys_helper_cmds[o->test], (unsigned long long)n,
			   (long long)arg);
	if (write(t->cmd, line, (size_t)len) != len)
		return sys_fail(t, "the helper process stopped");
	return 0;
}

int sys_answer(struct sys_thread *t, uint64_t *ns)
{
	char line[512];
	unsigned long long v = 0;
	if (!fgets(line, sizeof(line), t->reply)) {
		errno = EPIPE;
		return sys_fail(t, "the helper process did not answer");
	}
	if (strncmp(line, "ok ", 3) || sscanf(line + 3, "%llu", &v) != 1) {
		line[strcspn(line, "\n")] = '\0';
		t->s->api->errorf(t->s->ctx, t->bt, "sys-helper %s: %s", sys_helper_cmds[t->s->o->test],
				  line + (line[0] == 'e' ? 4 : 0));
		return -1;
	}
	*ns = v;
	return 0;
}

int sys_loops(struct sys_thread *t, uint64_t n)
{
	switch (t->s->o->test) {
	case SYS_SYSCALL: return sys_mix(t, n);
	case SYS_GETPID: return sys_getpid(n);
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
	char *buf = malloc(bs);
	int rc = BENCH_ERR;
	if (!buf)
		return s->api->set_error(s->ctx, "out of memory"), BENCH_ERR;
	memset(buf, 'b', bs);
	if ((t->src = sys_new_file(s, t, "src", &t->src_path)) < 0 ||
	    (t->dst = sys_new_file(s, t, "dst", &t->dst_path)) < 0)
		goto out;
	/* max_blocks KiB, as UnixBench's fstime sizes it (at least one buffer) */
	int64_t blocks = s->o->max_blocks * 1024 / s->o->buffer_size;
	for (int64_t i = 0; i < (blocks < 1 ? 1 : blocks); i++)
		if (write(t->src, buf, bs) != (ssize_t)bs) {
			s->api->errorf(s->ctx, NULL, "file_copy: writing %s: %s", t->src_path, strerror(errno));
			goto out;
		}
	if (fsync(t->src) || lseek(t->src, 0, SEEK_SET)) {
		s->api->errorf(s->ctx, NULL, "file_copy: syncing %s: %s", t->src_path, strerror(errno));
		goto out;
	}
	rc = BENCH_OK;
out:
	free(buf);
	return rc;
}

/* The descriptors once the helper has its own copies: with the case's copy
   open too, the kernel would lock the file's position on every call. */
void sys_copy_handed_over(struct sys_thread *t)
{
	if (t->src >= 0)
		close(t->src);
	if (t->dst >= 0)
		close(t->dst);
	t->src = t->dst = -1;
}

void sys_copy_cleanup(struct sys_thread *t)
{
	sys_copy_handed_over(t);
	/* only the names this case created (O_EXCL above) */
	if (t->src_path)
		unlink(t->src_path);
	if (t->dst_path)
		unlink(t->dst_path);
	free(t->src_path);
	free(t->dst_path);
	t->src_path = t->dst_path = NULL;
}

/* The shell test's scripts, as UnixBench's multi.sh and tst.sh are laid
   out (their text is benchcore's own): one loop is one run of the outer
   script, which starts $1 copies of the inner one at once and waits for
   each; the inner runs ordinary text tools over a text file, its files
   named by its pid so concurrent copies never meet. */
static const char sys_outer[] =
	"pids=\n"
	"i=0\n"
	"while [ $i -lt \"$1\" ]; do\n"
	"\t/bin/sh ./copy.sh & pids=\"$pids $!\"\n"
	"\ti=$((i + 1))\n"
	"done\n"
	"for p in $pids; do wait $p || exit 1; done\n";
static const char sys_inner[] =
	"set -e\n"
	"sort <input.txt >s.$$\n"
	"od s.$$ | sort -n -k 1 >o.$$\n"
	"grep the s.$$ | tee g.$$ | wc >w.$$\n"
	"rm -f s.$$ o.$$ g.$$ w.$$\n";
static const char *const sys_shell_files[] = { "script.sh", "copy.sh", "input.txt" };

/* A text of words of about the size of UnixBench's sort.src (8,546 bytes),
   a fixed sequence: every run sorts the same. */
static int sys_write_text(FILE *f)
{
	static const char *const words[] = { "the", "kernel", "forks", "a", "process", "and", "waits",
		"for", "its", "child", "pipe", "reads", "writes", "buffer", "scheduler", "switches", "context",
		"file", "system", "call", "returns", "to", "user", "space", "shell", "runs", "sort" };
	unsigned x = 12345;
	long bytes = 0;
	while (bytes < 8546) {
		int n = 4 + (int)(x % 9);
		for (int w = 0; w < n; w++) {
			x = x * 1103515245u + 12345u;
			bytes += fprintf(f, "%s%s", w ? " " : "", words[(x >> 16) % (sizeof(words) / sizeof(words[0]))]);
		}
		bytes += fputc('\n', f) != EOF;
	}
	return 0;
}

/* The scratch directory, opened without following a link and checked:
   ours, a directory, nobody else's to write or even read. The host made it
   so (mkdtemp in a parent it trusts); checked here again because the
   helper runs a shell on what lies in it. */
static int sys_shell_open_dir(struct sys_state *s, const char *dir)
{
	struct stat st;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return s->api->errorf(s->ctx, NULL, "shell: cannot open its scratch directory %s: %s", dir,
				      strerror(errno)), -1;
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return s->api->errorf(s->ctx, NULL, "shell: its scratch directory %s is not private (owner uid %u, "
				      "mode %04o): its scripts are not run from it", dir, (unsigned)st.st_uid,
				      (unsigned)(st.st_mode & 07777)), -1;
	}
	/* above the helper's 0..5, so the dup2 onto 5 at its start is the only one */
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, 6);
	close(fd);
	if (hi < 0)
		return s->api->errorf(s->ctx, NULL, "fcntl: %s", strerror(errno)), -1;
	return hi;
}

int sys_shell_prepare(struct sys_state *s)
{
	const char *dir = s->api->scratch_dir(s->ctx);
	snprintf(s->shdir, sizeof(s->shdir), "%s", dir);
	if ((s->shfd = sys_shell_open_dir(s, dir)) < 0)
		return BENCH_ERR;
	for (int i = 0; i < 3; i++) {
		/* new files only (O_EXCL), never through a link */
		int fd = openat(s->shfd, sys_shell_files[i], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0600);
		FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f && fd >= 0)
			close(fd);
		if (!f || (i == 2 ? sys_write_text(f) : fputs(i ? sys_inner : sys_outer, f)) == EOF || fclose(f))
			return s->api->errorf(s->ctx, NULL, "shell: cannot write its scripts in %s: %s", dir,
					      strerror(errno)), BENCH_ERR;
	}
	return BENCH_OK;
}

void sys_shell_cleanup(struct sys_state *s)
{
	if (s->shfd < 0)
		return;
	for (int i = 0; i < 3; i++)
		unlinkat(s->shfd, sys_shell_files[i], 0);
	close(s->shfd);
	s->shfd = -1;
}
