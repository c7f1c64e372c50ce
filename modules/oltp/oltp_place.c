/*
 * Where a private server's data lives (issue 52): in the module's directory,
 * which the host makes under $TMPDIR, or under the datadir option when it is
 * given (requires.disk_path_option = "datadir", whose default is empty: the
 * host then makes the module directory there, and machine.fs makes it on the
 * file system it mounted). Recorded like io's path: the directory's real
 * path and the mount holding it (type, options, mount point), read from
 * /proc/self/mountinfo. Main thread (init).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oltp.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void oltp_unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; )
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	*w = '\0';
}

/* The mount holding real path rp (the longest mount point that contains
   it; of equal ones the last, which is on top): 0, or -1. */
static int oltp_mount_of(const char *rp, char *point, char *type, char *opts, size_t n)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mp[PATH_MAX], mo[512], ty[64];
	/* n: the size of point, type and opts (PATH_MAX each) */
	size_t best = 0;
	int found = -1;
	while (f && fgets(line, sizeof(line), f)) {
		/* "id parent maj:min root mountpoint options [optional...] - type source super" */
		char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s %511s", mp, mo) != 2 ||
		    sscanf(dash + 3, "%63s", ty) != 1)
			continue;
		oltp_unescape(mp);
		size_t len = strlen(mp);
		int in = !strcmp(mp, "/") || (!strncmp(rp, mp, len) && (rp[len] == '/' || !rp[len]));
		if (in && len >= best) {
			best = len;
			snprintf(point, n, "%s", mp);
			snprintf(type, n, "%s", ty);
			snprintf(opts, n, "%s", mo);
			found = 0;
		}
	}
	if (f)
		fclose(f);
	return found;
}

int oltp_place(oltp_state *s, const char *datadir)
{
	const bench_host_api_v1 *api = s->api;
	const char *dir = api->module_dir(s->ctx);
	char want[PATH_MAX], have[PATH_MAX], point[PATH_MAX], type[PATH_MAX], opts[PATH_MAX], data[PATH_MAX + 8];
	if (!dir || !realpath(dir, have)) {
		api->set_error(s->ctx, "the module directory is not there");
		return BENCH_ERR;
	}
	if (datadir && *datadir) {
		size_t n;
		if (!realpath(datadir, want)) {
			api->errorf(s->ctx, NULL, "datadir \"%s\" is not a directory here\n"
				    "The private server's data directory is made in it.\ncreate it, or leave datadir unset "
				    "($TMPDIR)", datadir);
			return BENCH_ERR;
		}
		n = strlen(want);
		if (strncmp(have, want, n) || (have[n] != '/' && strcmp(want, "/"))) {
			api->errorf(s->ctx, NULL, "the private server's data would not be in datadir \"%s\" (it would be "
				    "in %s)\nbenchcore could not make the module's directory there (its warning at the "
				    "start says why).\nmake datadir a directory this user may write that others may not "
				    "(or sticky, like /tmp)", datadir, have);
			return BENCH_ERR;
		}
	}
	snprintf(data, sizeof(data), "%s/data", have);
	api->set_info(s->ctx, "datadir", data);
	if (oltp_mount_of(have, point, type, opts, sizeof(point)) == 0) {
		api->set_info(s->ctx, "datadir_fs_type", type);
		api->set_info(s->ctx, "datadir_mount_point", point);
		api->set_info(s->ctx, "datadir_mount_options", opts);
	}
	return BENCH_OK;
}
