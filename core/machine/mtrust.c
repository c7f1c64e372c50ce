/* Whether the journal of original values (mstate.c) may be believed: a
   journal tells root which files to write and which commands to run, so
   whoever can write it, or the directory it is in, would choose them. Every
   reader (benchcore restore, the start of every run) checks what the writer
   makes sure of: the directory and the file are the running user's (root),
   neither is a symbolic link, nobody else can write either, and each file
   record names a kind of file a setting writes (sysfs or /proc/sys, once
   every link in its path is resolved). The directory is opened once and the
   journal, its temporary file and the lock are reached through that
   descriptor (openat), so nothing can be swapped between the check and the
   use. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "mset.h"
#include "trust.h"

#define SYSFS_MAGIC_ 0x62656572
#define PROC_MAGIC_ 0x9fa0

static void refuse_hint(bc_err *e)
{
	bc_err_hint(e, "benchcore changed nothing and left it in place; a run keeps its journal in a directory only "
		    "root can write (/run/benchcore, 0700): remove this one if you did not put it there, or set "
		    "BENCHCORE_STATE_DIR to the directory of the run that was killed");
}

int bc_mtrust_dir(const char *dir, int create, bc_err *e)
{
	struct stat st;
	if (create && mkdir(dir, 0700) && errno != EEXIST) {
		bc_err_set(e, "could not create the state directory %s: %s", dir, strerror(errno));
		return -1;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		if (err == ENOENT && !create) {
			errno = ENOENT;
			return -1;
		}
		struct stat ls;
		int link = lstat(dir, &ls) == 0 && S_ISLNK(ls.st_mode);
		bc_err_set(e, "refusing the state directory %s: %s", dir, link ? "it is a symbolic link" :
			   err == ENOTDIR ? "it is not a directory" : strerror(err));
		if (link)
			bc_err_detail(e, "Whoever owns the link, or can replace it, would choose the journal of "
				      "original values that root reads and acts on.");
		refuse_hint(e);
		errno = err == ENOENT ? EACCES : err;
		return -1;
	}
	const char *why = NULL;
	if (fstat(fd, &st))
		why = strerror(errno);
	else if (st.st_uid != geteuid())
		why = "belongs to another user";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		why = "can be written by others";
	else if (create && (st.st_mode & 077))
		why = "can be read by others (a run makes it 0700)";
	if (why) {
		bc_err_set(e, "refusing the state directory %s: it %s (uid %u, mode %04o)", dir, why, (unsigned)st.st_uid,
			   (unsigned)(st.st_mode & 07777));
		bc_err_detail(e, "Whoever can write there chooses the files root writes and the commands root runs "
			      "when it restores from the journal.");
		refuse_hint(e);
		close(fd);
		errno = EACCES;
		return -1;
	}
	/* the directories above: nobody else can move it away and put another in its place */
	char real[PATH_MAX];
	if (realpath(dir, real)) {
		char *slash = strrchr(real, '/');
		if (slash && slash != real) {
			*slash = '\0';
			bc_err te;
			if (bc_trust_walk(real, real, BC_TRUST_USE | BC_TRUST_STICKY_OK, "the directory above the state "
					  "directory", &te)) {
				bc_err_set(e, "refusing the state directory %s: %s", dir, te.msg);
				bc_err_detail(e, "%s", te.detail);
				refuse_hint(e);
				close(fd);
				errno = EACCES;
				return -1;
			}
		}
	}
	return fd;
}

int bc_mtrust_journal(int dfd, const char *path, bc_err *e)
{
	struct stat st;
	int fd = openat(dfd, "journal", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		if (err == ENOENT)
			return -1;
		bc_err_set(e, "refusing the journal %s: %s", path, err == ELOOP ? "it is a symbolic link" : strerror(err));
		refuse_hint(e);
		errno = EACCES;
		return -1;
	}
	const char *why = NULL;
	if (fstat(fd, &st))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "is not a regular file";
	else if (st.st_uid != geteuid())
		why = "belongs to another user";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		why = "can be written by others";
	else if (st.st_nlink != 1)
		why = "has another name (a hard link)";
	else if (st.st_size > (16 << 20))
		why = "is over 16 MiB";
	if (why) {
		bc_err_set(e, "refusing the journal %s: it %s (uid %u, mode %04o)", path, why, (unsigned)st.st_uid,
			   (unsigned)(st.st_mode & 07777));
		bc_err_detail(e, "A run writes it 0600, root's; this one could have been written by someone else.");
		refuse_hint(e);
		close(fd);
		errno = EACCES;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* Is real (a resolved path) under root (a resolved directory)? */
static int under(const char *real, const char *root)
{
	size_t l = strlen(root);
	return l > 1 && !strncmp(real, root, l) && real[l] == '/';
}

int bc_mtrust_target(const char *path, char *real, char *why, size_t n)
{
	char fake[PATH_MAX];
	struct statfs fs;
	if (path[0] != '/' || !realpath(path, real)) {
		snprintf(why, n, "names %s, which %s", path, path[0] != '/' ? "is not an absolute path" :
			 "cannot be resolved");
		return -1;
	}
	/* the test hook of the CPU tree (BENCHCORE_SYSFS_CPU): set by whoever runs benchcore */
	const char *hook = getenv("BENCHCORE_SYSFS_CPU");
	if (hook && *hook && realpath(hook, fake) && under(real, fake))
		return 0;
	int sys = under(real, "/sys") && statfs(real, &fs) == 0 && fs.f_type == SYSFS_MAGIC_;
	int proc = under(real, "/proc/sys") && statfs(real, &fs) == 0 && fs.f_type == PROC_MAGIC_;
	if (sys || proc)
		return 0;
	snprintf(why, n, "names %s%s%s, not a file a setting writes (those are in sysfs and /proc/sys)", path,
		 strcmp(path, real) ? ", really " : "", strcmp(path, real) ? real : "");
	return -1;
}
