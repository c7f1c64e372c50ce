/* The trust walk (trust.h): the module loader's check of its files, shared
 * with every other place where another user's write could change what
 * benchcore runs or keeps (a run's scratch directories, the archive). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trust.h"

/* One path's owner and mode. level 0: the path itself; 1: the directory
   holding it (as strict); 2: a directory further up, which may be writable
   by others when sticky (/tmp): they cannot replace what is ours in it. */
static int trust_stat(const char *shown, const char *real, const struct stat *st, int level, int flags,
		      const char *what, bc_err *e)
{
	int sticky_ok = level == 2 || (level == 0 && (flags & BC_TRUST_STICKY_OK));
	int w = (st->st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && (st->st_mode & S_ISVTX));
	const char *by = (st->st_mode & S_IWOTH) ? "others" : "its group";
	const char *verb = (flags & BC_TRUST_USE) ? "refusing to use" : "refusing to load from";
	char who[PATH_MAX + 64];
	if (!level && !strcmp(shown, real))
		snprintf(who, sizeof(who), "it is");
	else
		snprintf(who, sizeof(who), "%s \"%s\"%s is", level ? "directory" : "its real path", real,
			 level ? " above it" : "");
	if (w) {
		bc_err_set(e, "%s %s \"%s\": %s writable by %s%s", verb, what, shown, who, by,
			   (st->st_mode & S_ISVTX) ? " (sticky is not enough here)" : "");
		if (flags & BC_TRUST_USE)
			bc_err_detail(e, "Anyone who can write to %s can rename or replace what benchcore makes "
				      "and keeps there.", real);
		else
			bc_err_detail(e, "Anyone who can write to %s can make benchcore run their code.", real);
		bc_err_hint(e, "chmod go-w \"%s\"%s", real, (flags & BC_TRUST_USE) ? ", or use another directory" : "");
		return -1;
	}
	if (!(flags & BC_TRUST_ANY_OWNER) && st->st_uid != 0 && st->st_uid != geteuid()) {
		if (!level && !strcmp(shown, real))
			bc_err_set(e, "%s %s \"%s\": owned by another user (uid %u)", verb, what, shown,
				   (unsigned)st->st_uid);
		else
			bc_err_set(e, "%s %s \"%s\": %s owned by another user (uid %u)", verb, what, shown, who,
				   (unsigned)st->st_uid);
		if (flags & BC_TRUST_USE)
			bc_err_hint(e, "it and the directories above it must belong to root or to the user "
				    "running benchcore");
		else
			bc_err_hint(e, "modules, their directories and the directories above them must belong to root "
				    "or to the user running benchcore");
		return -1;
	}
	return 0;
}

/* Every directory above real (a real path), up to /. */
static int walk_up(const char *shown, char *real, int flags, const char *what, bc_err *e)
{
	struct stat st;
	for (int level = 0;; level++) {
		char *slash = strrchr(real, '/');
		if (!slash || slash == real) {
			if (!strcmp(real, "/"))
				break;
			real[1] = '\0';
		} else {
			*slash = '\0';
		}
		if (stat(real, &st) != 0) {
			bc_err_set(e, "could not read directory \"%s\" above %s \"%s\": %s", real, what, shown,
				   strerror(errno));
			return -1;
		}
		if (trust_stat(shown, real, &st, (flags & BC_TRUST_STRICT_PARENT) && level == 0 ? 1 : 2, flags,
			       what, e))
			return -1;
		if (!strcmp(real, "/"))
			break;
	}
	return 0;
}

/* Each symbolic link in path as given: ours or root's, and in a directory
   nobody else may write (it could be replaced by another link). */
static int links_ok(const char *shown, const char *path, int flags, const char *what, bc_err *e)
{
	char *p = bc_xstrdup(path);
	int rc = 0;
	size_t len = strlen(p);
	for (size_t i = 1; i <= len && !rc; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char keep = p[i];
		struct stat st;
		p[i] = '\0';
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
			char real[PATH_MAX];
			char *dup = bc_xstrdup(p), *sl = strrchr(dup, '/');
			if (sl)
				*(sl == dup ? sl + 1 : sl) = '\0';
			if (!(flags & BC_TRUST_ANY_OWNER) && st.st_uid != 0 && st.st_uid != geteuid()) {
				bc_err_set(e, "%s %s \"%s\": the symbolic link \"%s\" on its way is owned by another "
					   "user (uid %u)", (flags & BC_TRUST_USE) ? "refusing to use" :
					   "refusing to load from", what, shown, p, (unsigned)st.st_uid);
				bc_err_hint(e, "give the path without that link, or have root or you own it");
				rc = -1;
			} else if (!realpath(sl ? dup : ".", real)) {
				bc_err_set(e, "could not read the directory of \"%s\": %s", p, strerror(errno));
				rc = -1;
			} else {
				/* the link's own directory as a directory above a file: sticky is enough */
				size_t n = strlen(real);
				if (n + 2 < sizeof(real))
					strcpy(real + n, n > 1 ? "/x" : "x");
				rc = walk_up(shown, real, flags & ~BC_TRUST_STRICT_PARENT, what, e);
			}
			free(dup);
		}
		p[i] = keep;
	}
	free(p);
	return rc;
}

int bc_trust_walk(const char *shown, const char *path, int flags, const char *what, bc_err *e)
{
	char real[PATH_MAX];
	struct stat st;
	if (!realpath(path, real) || stat(real, &st) != 0) {
		bc_err_set(e, "could not read %s \"%s\": %s", what, shown, strerror(errno));
		return -1;
	}
	if (trust_stat(shown, real, &st, 0, flags, what, e) || walk_up(shown, real, flags, what, e))
		return -1;
	return links_ok(shown, path, flags, what, e);
}
