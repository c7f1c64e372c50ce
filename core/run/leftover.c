/* Leftovers of dead runs: see leftover.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "leftover.h"
#include "trust.h"
#include "util.h"

/* Version 2 records the true start time. Version 1's was always 0 (field
   21 was read): a benchcore that still writes 1 reads 2 as no record at all
   and keeps it, where it would take a start it never sees for a reused pid. */
#define OWNER_MAGIC	"benchcore-owner 2"
#define OWNER_MAGIC_V1	"benchcore-owner 1"

typedef struct owner {
	int v1;				/* read from a version 1 record: start is not to be trusted */
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

/* pid's start time, state and command name (comm, n bytes) from
   /proc/PID/stat; 0, or -1 (no such process). */
static int proc_start(int pid, unsigned long long *start, char *state, char *comm, size_t n)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(AT_FDCWD, path, buf, sizeof(buf), 0) <= 0)
		return -1;
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses,
	   so the fields are counted from the last ')' */
	char *open = strchr(buf, '('), *p = strrchr(buf, ')');
	if (!open || !p || p < open)
		return -1;
	if (comm && n)
		snprintf(comm, n, "%.*s", (int)(p - open - 1), open + 1);
	if (sscanf(p + 1, " %c", state) != 1)
		return -1;
	/* the space before field k is the (k - 2)th after ')': stop at 22's,
	   starttime (field 21, itrealvalue, is always 0) */
	for (int field = 3; field <= 22 && p; field++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p + 1, "%llu", start) == 1 ? 0 : -1;
}

int bc_owner_mark(const char *dir)
{
	owner o = { .pid = (int)getpid() };
	char state, text[224];
	if (proc_start(o.pid, &o.start, &state, NULL, 0))
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
   that reads as benchcore's. A fact missing from it is left 0 or "" (have:
   1 pid, 2 start), for the judge to say it cannot judge. */
static int owner_read(int dirfd, owner *o, int *have)
{
	char buf[512];
	memset(o, 0, sizeof(*o));
	*have = 0;
	if (read_small(dirfd, BC_OWNER_FILE, buf, sizeof(buf), 1) <= 0)
		return -1;
	if (!strncmp(buf, OWNER_MAGIC_V1 "\n", sizeof(OWNER_MAGIC_V1)))
		o->v1 = 1;
	else if (strncmp(buf, OWNER_MAGIC "\n", sizeof(OWNER_MAGIC)))
		return -1;
	for (char *save = NULL, *l = strtok_r(buf + sizeof(OWNER_MAGIC), "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		*have |= sscanf(l, "pid %d", &o->pid) == 1 && o->pid > 0;
		*have |= (sscanf(l, "start %llu", &o->start) == 1) << 1;
		sscanf(l, "boot %39s", o->boot);
		sscanf(l, "pidns %39s", o->pidns);
	}
	return 0;
}

enum { OWNER_DEAD, OWNER_ALIVE, OWNER_UNKNOWN };

/* Whether the record's process still runs (same pid, same start, this
   boot): OWNER_DEAD, OWNER_ALIVE, or OWNER_UNKNOWN with why (a record
   without the facts to judge by, or whose pids are not this namespace's). */
static int owner_judge(const owner *o, int have, char *why, size_t n)
{
	char boot[40], ns[40], state, comm[32];
	unsigned long long start;
	boot_id(boot, sizeof(boot));
	if (o->boot[0] && boot[0] && strcmp(o->boot, boot))
		return OWNER_DEAD;	/* made before the last reboot */
	pid_ns(ns, sizeof(ns));
	if (!(have & 1) || !(have & 2) || !o->pidns[0] || !ns[0]) {
		snprintf(why, n, "its owner record has no %s", !(have & 1) ? "pid" : !(have & 2) ? "start time" :
			 !o->pidns[0] ? "pid namespace (a pid of which namespace?)" : "pid namespace here");
		return OWNER_UNKNOWN;
	}
	if (strcmp(o->pidns, ns)) {
		/* a run in another container sharing this directory */
		snprintf(why, n, "its run (pid %d) is in another pid namespace (%s; this is %s), where its pid "
			 "cannot be looked up", o->pid, o->pidns, ns);
		return OWNER_UNKNOWN;
	}
	if (proc_start(o->pid, &start, &state, comm, sizeof(comm)))
		return OWNER_DEAD;
	if (state == 'Z' || state == 'X')
		return OWNER_DEAD;	/* the owner is a zombie, past cleaning up */
	if (!o->v1)
		return start == o->start ? OWNER_ALIVE : OWNER_DEAD;	/* else another process has the pid */
	/* An older benchcore's record (start 0 whatever the truth): a process
	   that is no benchcore is not its owner; one that is cannot be told
	   from it. */
	if (strcmp(comm, "benchcore"))
		return OWNER_DEAD;
	snprintf(why, n, "its owner record is an older benchcore's (version 1, no true start time) and pid %d "
		 "is a benchcore", o->pid);
	return OWNER_UNKNOWN;
}

/* benchcore*.XXXXXX: what schedule.c's make_tmpdir creates. */
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

/* The walk of one dead run's directory: what it found and could not remove. */
typedef struct walk {
	uint64_t mnt;		/* the directory's mount: nothing on another is touched */
	uint64_t bytes;
	unsigned failed;	/* entries that could not be removed */
	unsigned mounts;	/* mount points inside, not crossed */
	char *mount_at;		/* the first of them (for the message; malloc'd) */
	int remove;
} walk;

/* The mount id of dirfd/name (name "" : dirfd itself); 0, or -1. A bind
   mount of the same file system has the same st_dev: only the mount id
   tells it from a directory. statx's STATX_MNT_ID (Linux 5.8), else
   /proc/self/fdinfo's mnt_id (3.15). */
static int mount_id(int dirfd, const char *name, uint64_t *id)
{
	struct statx sx;
	int flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | (*name ? 0 : AT_EMPTY_PATH);
	if (statx(dirfd, name, flags, STATX_MNT_ID, &sx) == 0 && (sx.stx_mask & STATX_MNT_ID)) {
		*id = sx.stx_mnt_id;
		return 0;
	}
	int fd = openat(dirfd, *name ? name : ".", O_PATH | O_NOFOLLOW | O_CLOEXEC), rc = -1;
	char path[64], buf[512];
	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (read_small(AT_FDCWD, path, buf, sizeof(buf), 0) > 0) {
		char *l = strstr(buf, "mnt_id:");
		unsigned long long v;
		if (l && sscanf(l, "mnt_id: %llu", &v) == 1) {
			*id = v;
			rc = 0;
		}
	}
	close(fd);
	return rc;
}

#define WALK_DEPTH 200	/* two descriptors a level, well within the usual 1024 */

/* Counts (and with w->remove, removes) what is inside dfd, depth first,
   by descriptor (no path is resolved twice, no symlink followed), never
   onto another mount. At depth 0 the owner record stays: it goes last. */
static void walk_dir(int dfd, int depth, const char *where, walk *w)
{
	int fd2 = dup(dfd);
	DIR *d = fd2 >= 0 ? fdopendir(fd2) : NULL;
	struct dirent *de;
	if (!d) {
		if (fd2 >= 0)
			close(fd2);
		w->failed++;
		return;
	}
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		struct stat st;
		uint64_t id;
		if (!strcmp(name, ".") || !strcmp(name, "..") || (depth == 0 && !strcmp(name, BC_OWNER_FILE)))
			continue;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			w->failed++;
			continue;
		}
		if (mount_id(dfd, name, &id) || id != w->mnt) {
			/* a mount point (or one whose mount cannot be told): its
			   contents are another file system's, or a bind mount's */
			if (!w->mounts++)
				w->mount_at = bc_xasprintf("%s/%s", where, name);
			w->failed += w->remove;
			continue;
		}
		w->bytes += (uint64_t)st.st_blocks * 512u;
		if (S_ISDIR(st.st_mode)) {
			int sub = depth < WALK_DEPTH ? openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
			if (sub < 0) {
				w->failed++;
				continue;
			}
			char *below = bc_xasprintf("%s/%s", where, name);
			walk_dir(sub, depth + 1, below, w);
			free(below);
			close(sub);
		}
		if (w->remove && unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0)
			w->failed++;
	}
	closedir(d);
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

/* Removes parent/name (pfd, dfd: their descriptors), a dead run's (o). */
static void remove_dead(int pfd, int dfd, const char *path, const char *name, const owner *o, int dry_run,
			bc_clean_stats *s)
{
	walk w = { .remove = !dry_run };
	if (mount_id(dfd, "", &w.mnt) == 0)
		walk_dir(dfd, 0, path, &w);
	else
		w.failed++;
	/* the owner record and the directory last: a removal cut short leaves
	   a directory still known as a dead run's */
	if (!dry_run && !w.failed && (unlinkat(dfd, BC_OWNER_FILE, 0) || unlinkat(pfd, name, AT_REMOVEDIR)))
		w.failed++;
	char *mounts = w.mounts ? bc_xasprintf("; %u mount point%s inside (%s%s) %s never crossed", w.mounts,
					       w.mounts == 1 ? "" : "s", w.mount_at, w.mounts == 1 ? "" : ", ...",
					       w.mounts == 1 ? "is" : "are") : bc_xstrdup("");
	if (w.failed) {
		s->failed++;
		say("could not remove all of %s (left by benchcore pid %d, no longer running): %u entries remain%s",
		    path, o->pid, w.failed, mounts);
	} else {
		s->removed++;
		s->bytes += w.bytes;
		say("%s %s (%.1f MiB), left by benchcore pid %d, which is no longer running%s",
		    dry_run ? "would remove" : "removed", path, (double)w.bytes / 1048576.0, o->pid, mounts);
	}
	free(mounts);
	free(w.mount_at);
}

/* One directory of parent: removes it when its run is dead. */
static void clean_one(int pfd, const char *parent, const char *name, int dry_run, int verbose,
		      bc_clean_stats *s)
{
	struct stat st;
	owner o;
	char why[200];
	int have;
	uint64_t here, there;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return;
	char *path = bc_xasprintf("%s/%s", parent, name);
	int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || owner_read(dfd, &o, &have)) {
		s->unmarked++;
		if (verbose)
			say("kept %s: it has no owner record (%s), so it is not known to be a dead run's", path,
			    BC_OWNER_FILE);
	} else if (mount_id(pfd, "", &here) || mount_id(dfd, "", &there) || here != there) {
		s->unknown++;
		say("kept %s: it is a mount point (or its mount cannot be told), and a sweep never crosses one", path);
	} else {
		int j = owner_judge(&o, have, why, sizeof(why));
		if (j == OWNER_ALIVE) {
			s->alive++;
			if (verbose)
				say("kept %s: its run (pid %d) is still running", path, o.pid);
		} else if (j == OWNER_UNKNOWN) {
			/* said even without -v: a directory that may stay for good */
			s->unknown++;
			say("kept %s: cannot judge whether its run is alive: %s", path, why);
		} else {
			remove_dead(pfd, dfd, path, name, &o, dry_run, s);
		}
	}
	if (dfd >= 0)
		close(dfd);
	free(path);
}

const char *bc_leftover_parent(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

int bc_tmpdir_check(bc_err *e)
{
	const char *t = bc_leftover_parent(), *env = getenv("TMPDIR");
	if (!bc_trust_walk(t, t, BC_TRUST_STICKY_OK | BC_TRUST_USE, env && *env ? "$TMPDIR" : "directory", e))
		return 0;
	bc_err_detail(e, "A run makes its private directories there (scripts the shell test runs, servers' "
		      "data); whoever may rename them there could put their own in their place.");
	return -1;
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

/* Whether name is base.tmp.PID.XXXXXX; *pid gets PID. */
static int is_temp_of(const char *name, const char *base, long *pid)
{
	size_t b = strlen(base), n = strlen(name);
	if (strncmp(name, base, b) || strncmp(name + b, ".tmp.", 5) || n < b + 5 + 2 + 7)
		return 0;
	char *end;
	errno = 0;
	*pid = strtol(name + b + 5, &end, 10);
	if (errno || *pid <= 0 || end == name + b + 5 || *end != '.' || strlen(end) != 7)
		return 0;
	for (const char *c = end + 1; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			return 0;
	return 1;
}

/* 1 when a live process holds path.lock (a run writing path). */
static int lock_held(const char *path)
{
	char *lp = bc_xasprintf("%s.lock", path);
	int fd = open(lp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), held = 0;
	free(lp);
	if (fd < 0)
		return errno != ENOENT;	/* cannot be told: taken for held */
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || flock(fd, LOCK_SH | LOCK_NB) != 0)
		held = 1;
	close(fd);
	return held;
}

unsigned bc_sweep_temps(const char *path, int locked)
{
	if (!path || !*path || !strcmp(path, "-") || (!locked && lock_held(path)))
		return 0;
	char *dir = bc_xstrdup(path), *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : dir;
	if (slash)
		*slash = '\0';
	DIR *d = opendir(slash ? (*dir ? dir : "/") : ".");
	unsigned gone = 0;
	struct dirent *de;
	long pid;
	while (d && *base && (de = readdir(d)) != NULL) {
		struct stat st;
		if (!is_temp_of(de->d_name, base, &pid) || pid == (long)getpid() || pid > INT32_MAX)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		/* alive, or not ours to signal: kept (a reused pid only delays it) */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0) {
			gone++;
			say("removed %s%s%s, a temporary file that benchcore pid %ld (no longer running) left while "
			    "writing %s", slash ? dir : "", slash ? "/" : "", de->d_name, pid, path);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return gone;
}
