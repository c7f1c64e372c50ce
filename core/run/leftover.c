/* Leftovers of dead runs: see leftover.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "leftover.h"
#include "util.h"

#define OWNER_MAGIC	"benchcore-owner 1"

typedef struct owner {
	int pid;
	unsigned long long start;	/* clock ticks after boot (/proc/PID/stat field 22) */
	char boot[40];			/* /proc/sys/kernel/random/boot_id, or "" */
	char pidns[40];			/* /proc/self/ns/pid's link ("pid:[N]"), or "" */
} owner;

/* The pid namespace this process sees pids in ("" when unknown). */
static void pid_ns(char *out, size_t n)
{
	ssize_t l = readlink("/proc/self/ns/pid", out, n - 1);
	out[l > 0 ? l : 0] = '\0';
}

/* Reads at most n - 1 bytes of a small file (regular only, never a FIFO). */
static ssize_t read_small(int dirfd, const char *path, char *buf, size_t n, int check_uid)
{
	struct stat st;
	int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	ssize_t got = -1;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (!check_uid || st.st_uid == geteuid()))
		got = read(fd, buf, n - 1);
	close(fd);
	if (got >= 0)
		buf[got] = '\0';
	return got;
}

static void boot_id(char *out, size_t n)
{
	if (read_small(AT_FDCWD, "/proc/sys/kernel/random/boot_id", out, n, 0) <= 0)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

/* pid's start time and state from /proc/PID/stat; 0, or -1 (no such process). */
static int proc_start(int pid, unsigned long long *start, char *state)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(AT_FDCWD, path, buf, sizeof(buf), 0) <= 0)
		return -1;
	char *p = strrchr(buf, ')');	/* "pid (comm) state ppid ..." : comm may hold spaces */
	if (!p || sscanf(p + 1, " %c", state) != 1)
		return -1;
	/* after the state come fields 4..21, then 22: starttime */
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p, " %llu", start) == 1 ? 0 : -1;
}

int bc_owner_mark(const char *dir)
{
	owner o = { .pid = (int)getpid() };
	char state, text[224];
	if (proc_start(o.pid, &o.start, &state))
		return -1;
	boot_id(o.boot, sizeof(o.boot));
	pid_ns(o.pidns, sizeof(o.pidns));
	int len = snprintf(text, sizeof(text), OWNER_MAGIC "\npid %d\nstart %llu\nboot %s\npidns %s\n", o.pid,
			   o.start, o.boot, o.pidns);
	char *tmp = bc_xasprintf("%s/" BC_OWNER_FILE ".tmp", dir), *path = bc_xasprintf("%s/" BC_OWNER_FILE, dir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), rc = -1;
	/* written whole, then renamed: a record is either there and complete or not */
	if (fd >= 0) {
		rc = bc_write_all(fd, text, (size_t)len) == 0 ? 0 : -1;
		rc = close(fd) == 0 && rc == 0 && rename(tmp, path) == 0 ? 0 : -1;
		if (rc)
			unlink(tmp);
	}
	free(tmp);
	free(path);
	return rc;
}

/* dir's owner record (dirfd: the directory); 0, or -1 when there is none
   that reads as benchcore's. */
static int owner_read(int dirfd, owner *o)
{
	char buf[512];
	memset(o, 0, sizeof(*o));
	if (read_small(dirfd, BC_OWNER_FILE, buf, sizeof(buf), 1) <= 0)
		return -1;
	if (strncmp(buf, OWNER_MAGIC "\n", sizeof(OWNER_MAGIC)))
		return -1;
	int have = 0;
	for (char *save = NULL, *l = strtok_r(buf + sizeof(OWNER_MAGIC), "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		have |= sscanf(l, "pid %d", &o->pid) == 1;
		have |= (sscanf(l, "start %llu", &o->start) == 1) << 1;
		sscanf(l, "boot %39s", o->boot);
		sscanf(l, "pidns %39s", o->pidns);
	}
	return have == 3 && o->pid > 0 ? 0 : -1;
}

/* 1 when the record's process still runs (same pid, same start, this boot). */
static int owner_alive(const owner *o)
{
	char boot[40], ns[40], state;
	unsigned long long start;
	boot_id(boot, sizeof(boot));
	if (o->boot[0] && boot[0] && strcmp(o->boot, boot))
		return 0;	/* made before the last reboot */
	pid_ns(ns, sizeof(ns));
	if (strcmp(o->pidns, ns))
		return 1;	/* a run in another container sharing this directory: its pids are not ours to judge */
	if (proc_start(o->pid, &start, &state))
		return 0;
	/* another process now has the pid; or the owner is a zombie, past cleaning up */
	return start == o->start && state != 'Z' && state != 'X';
}

/* benchcore*.XXXXXX: what run.c's make_tmpdir creates. */
static int is_ours(const char *name)
{
	size_t n = strlen(name);
	if (strncmp(name, "benchcore", 9) || n < 16 || name[n - 7] != '.')
		return 0;
	if (name[9] != '.' && name[9] != '-')
		return 0;
	for (size_t i = n - 6; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			return 0;
	return 1;
}

/* nftw has no argument: the walk in progress (main thread only). */
static uint64_t walk_bytes;
static unsigned walk_failed;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path, (void)flag, (void)ftw;
	walk_bytes += (uint64_t)st->st_blocks * 512u;
	return 0;
}

/* Everything but the top directory and its owner record, which go last:
   a removal cut short leaves a directory still known as a dead run's. */
static int rm_inner(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	if (ftw->level == 0 || (ftw->level == 1 && !strcmp(path + ftw->base, BC_OWNER_FILE)))
		return 0;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) != 0)
		walk_failed++;
	return 0;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	/* never hidden by -q: files are being removed */
	fputs("benchcore: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* One directory of parent: removes it when its run is dead. */
static void clean_one(int pfd, const char *parent, const char *name, int dry_run, int verbose,
		      bc_clean_stats *s)
{
	struct stat st;
	owner o;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return;
	char *path = bc_xasprintf("%s/%s", parent, name);
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int have = dfd >= 0 && owner_read(dfd, &o) == 0;
	if (dfd >= 0)
		close(dfd);
	if (!have) {
		s->unmarked++;
		if (verbose)
			say("kept %s: it has no owner record (%s), so it is not known to be a dead run's", path,
			    BC_OWNER_FILE);
	} else if (owner_alive(&o)) {
		s->alive++;
		if (verbose)
			say("kept %s: its run (pid %d) is still running", path, o.pid);
	} else {
		walk_bytes = 0;
		walk_failed = 0;
		nftw(path, add_size, 16, FTW_PHYS | FTW_MOUNT);
		uint64_t bytes = walk_bytes;
		if (!dry_run) {
			nftw(path, rm_inner, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
			char *rec = bc_xasprintf("%s/" BC_OWNER_FILE, path);
			if (!walk_failed && (unlink(rec) || rmdir(path)))
				walk_failed++;
			free(rec);
		}
		if (walk_failed) {
			s->failed++;
			say("could not remove all of %s (left by benchcore pid %d, no longer running): %u "
			    "entries remain", path, o.pid, walk_failed);
		} else {
			s->removed++;
			s->bytes += bytes;
			say("%s %s (%.1f MiB), left by benchcore pid %d, which is no longer running",
			    dry_run ? "would remove" : "removed", path, (double)bytes / 1048576.0, o.pid);
		}
	}
	free(path);
}

const char *bc_leftover_parent(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

bc_clean_stats bc_clean_leftovers(const char *parent, int dry_run, int verbose)
{
	bc_clean_stats s = { 0 };
	DIR *d = opendir(parent);
	struct dirent *de;
	if (!d) {
		if (verbose)
			say("cannot read %s: %s", parent, strerror(errno));
		return s;
	}
	while ((de = readdir(d)) != NULL)
		if (is_ours(de->d_name))
			clean_one(dirfd(d), parent, de->d_name, dry_run, verbose, &s);
	closedir(d);
	return s;
}
