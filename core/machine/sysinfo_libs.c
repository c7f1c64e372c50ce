/* The userland in the fingerprint (issue 60): the libraries the core is
   linked with, each by its own version call (what is loaded, not what the
   headers said at build time), and every shared object in the process with
   the file it was loaded from. Two releases of an operating system on the
   same hardware differ in these and in os-release; sysinfo.c puts them in
   the host object, the engine adds a module's own objects to its case's
   info (bc_loaded_after). */
#include <jansson.h>
#include <libconfig.h>
#include <libpq-fe.h>
#include <limits.h>
#include <link.h>
#include <openssl/crypto.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "sysinfo.h"
#include "sysinfo_int.h"
#include "util.h"

void bc_si_libraries(json_t *h)
{
	json_t *libs = json_object();
	char buf[64];
	int pq = PQlibVersion();

	json_object_set_new(libs, "jansson", json_string(jansson_version_str()));
	/* libconfig has no version call: the headers it was built against */
	snprintf(buf, sizeof(buf), "%d.%d.%d", LIBCONFIG_VER_MAJOR, LIBCONFIG_VER_MINOR,
		 LIBCONFIG_VER_REVISION);
	json_object_set_new(libs, "libconfig", json_string(buf));
	json_object_set_new(libs, "openssl", json_string(OpenSSL_version(OPENSSL_VERSION)));
	json_object_set_new(libs, "sqlite", json_string(sqlite3_libversion()));
	/* 150012 is 15.12, 100100 10.1, 90624 9.6.24 */
	if (pq >= 100000)
		snprintf(buf, sizeof(buf), "%d.%d", pq / 10000, pq % 10000);
	else
		snprintf(buf, sizeof(buf), "%d.%d.%d", pq / 10000, pq / 100 % 100, pq % 100);
	json_object_set_new(libs, "libpq", json_string(buf));
	json_object_set_new(libs, "zlib", json_string(zlibVersion()));
	json_object_set_new(h, "libraries", libs);
}

/* One loaded object: its name as the linker has it (the soname the program
   asked for, "libssl.so.3") and the file behind it, links resolved
   ("/usr/lib/x86_64-linux-gnu/libssl.so.3", "libhiredis.so.1.1.0"): the
   version a package put there. The program itself and the vDSO have no file. */
typedef struct {
	const char *after;	/* collect the objects after this file (NULL: all) */
	int seen;		/* after was passed */
	json_t *out;		/* name -> file */
} loaded_walk;

static int loaded_one(struct dl_phdr_info *info, size_t size, void *data)
{
	loaded_walk *w = data;
	const char *name = info->dlpi_name;
	char real[PATH_MAX];
	(void)size;
	if (!name || name[0] != '/')
		return 0;
	if (!realpath(name, real))
		snprintf(real, sizeof(real), "%s", name);
	if (w->after && !w->seen) {
		w->seen = !strcmp(real, w->after);
		return 0;
	}
	if (w->after && strstr(name, "/modules/"))
		return 0;	/* another benchcore module opened in this process */
	json_object_set_new(w->out, strrchr(name, '/') + 1, json_string(real));
	return 0;
}

void bc_si_loaded(json_t *h)
{
	loaded_walk w = { .out = json_object() };
	dl_iterate_phdr(loaded_one, &w);
	json_object_set_new(h, "loaded", w.out);
}

char *bc_loaded_after(const char *path)
{
	char real[PATH_MAX];
	loaded_walk w = { .after = real, .out = json_object() };
	const char *k;
	json_t *v;
	if (!path || !realpath(path, real)) {
		json_decref(w.out);
		return NULL;
	}
	dl_iterate_phdr(loaded_one, &w);
	char *s = NULL;
	json_object_foreach(w.out, k, v) {
		char *n = bc_xasprintf("%s%s%s %s", s ? s : "", s ? ", " : "", k, json_string_value(v));
		free(s);
		s = n;
	}
	json_decref(w.out);
	return s;
}
