/* Whether a file or directory can be trusted: its real path and every
   directory above it belong to root or to the user running benchcore, and
   nobody else can write there (directories further up may be writable by
   others when sticky, like /tmp: nobody can then rename or replace what is
   ours in them), as sudo and OpenSSH judge their files. Every symbolic
   link on the way as given must belong to root or to us too, in a
   directory that passes the same checks: whoever owns a link, or can
   replace it, chooses where the path leads. The module loader, the scratch
   directories of a run and the results archive use this one walk. */
#ifndef BC_TRUST_H
#define BC_TRUST_H
#include "util.h"

enum {
	BC_TRUST_STRICT_PARENT = 1,	/* the directory holding path as strict as path itself */
	BC_TRUST_STICKY_OK = 2,		/* path (a directory) may be writable by others when sticky */
	BC_TRUST_ANY_OWNER = 4,		/* judge write bits only, not owners (reading another user's files) */
	BC_TRUST_USE = 8,		/* messages say "refusing to use", not "refusing to load from" */
};

/* 0, or -1 with e saying what is wrong and how to fix it. shown: the path
   as messages name it; what: "module file", "directory", "library"... */
int bc_trust_walk(const char *shown, const char *path, int flags, const char *what, bc_err *e);
#endif
