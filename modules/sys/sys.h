/* sys: shared by sys.c (the module, its helper process) and sys_loops.c
   (the loops each test times). */
#ifndef SYS_H
#define SYS_H
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <benchcore/module.h>

#define SYS_BATCH_NS	2000000u	/* ~2 ms of loops a timed batch */
#define SYS_BATCH_HELPER_NS 10000000u	/* ~10 ms when the helper runs them */
#define SYS_BATCH_MAX	1000000u

enum sys_test { SYS_SYSCALL, SYS_GETPID, SYS_PIPE, SYS_CTX, SYS_SPAWN, SYS_EXECL, SYS_FILE_COPY, SYS_SHELL };

/* The options as the host fills them for each case (ABI 1.3). */
struct sys_opts {
	int test;
	int64_t buffer_size, max_blocks, concurrency;
	const char *path;
};

struct sys_state;

/* One worker's own: written by its thread only (prepare and cleanup on the
   main thread, before and after the workers). */
struct sys_thread {
	struct sys_state *s;
	bench_thread *bt;
	unsigned index;
	uint64_t batch;			/* loops in the next timed batch */
	uint64_t sent[2];		/* helper tests: the batches asked for, oldest first */
	unsigned pending;		/* how many of them */
	int sent_counted[2];		/* ... each asked for in the window (else warmup's) */
	pid_t helper;			/* its sys-helper, or 0 */
	int cmd;			/* commands to the helper */
	FILE *reply;			/* its replies */
	int src, dst;			/* file_copy: its two files, until the helper has them */
	char *src_path, *dst_path;
};

struct sys_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	const struct sys_opts *o;
	unsigned threads;
	uint64_t batch_cap;		/* largest batch: SYS_BATCH_MAX, less under --events */
	struct sys_thread *th;
	char helper[PATH_MAX + 16];	/* sys-helper beside this module */
	char shdir[PATH_MAX];		/* shell: the case's scratch directory (messages) */
	int shfd;			/* ... open (O_NOFOLLOW), checked private: the helper
					   runs the scripts in it through this descriptor, so
					   a directory renamed and replaced by its path is never
					   the one they run from; -1 when none */
};

/* Every test but the system calls without a descriptor runs in the helper
   process (sys-helper: small and single-threaded, as UnixBench's programs). */
static inline int sys_uses_helper(int test)
{
	return test != SYS_SYSCALL && test != SYS_GETPID;
}

/* n loops of syscall or getpid on the calling thread: 0, or -1 after an
   error naming what failed. */
int sys_loops(struct sys_thread *t, uint64_t n);
/* The helper's tests: a command for n loops of t's test to its helper; its
   answer, the loops' time as the helper measured it (ns). 0, or -1 after an
   error naming what failed. */
int sys_send(struct sys_thread *t, uint64_t n);
int sys_answer(struct sys_thread *t, uint64_t *ns);
/* file_copy: t's source file of max_blocks KiB and its destination, both
   new (O_EXCL: a file that is there is never opened), in path; the source
   written and synced (UnixBench syncs before its copy). */
int sys_copy_prepare(struct sys_state *s, struct sys_thread *t);
/* Closes the case's copies of t's two files once its helper holds them. */
void sys_copy_handed_over(struct sys_thread *t);
void sys_copy_cleanup(struct sys_thread *t);
/* shell: the scripts and their input text in the case's scratch
   directory, opened once and checked ours and private (0700): written and
   removed through that descriptor, never by path. */
int sys_shell_prepare(struct sys_state *s);
void sys_shell_cleanup(struct sys_state *s);
#endif
