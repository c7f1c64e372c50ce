/* A module's libraries, found as the dynamic linker would find them and
 * trust-checked before any of their code runs (issue 25). dlopen runs the
 * constructors of every library a module brings in, so checking what the
 * probe loaded (post_checks) comes too late: a library in a directory others
 * can write would already have run. Here the module's DT_NEEDED names are
 * resolved recursively in ld.so's order (glibc's _dl_map_object):
 *   a name with a slash as it is; the RPATH of the object (when it has no
 *   RUNPATH) and of its loaders; LD_LIBRARY_PATH; the object's RUNPATH;
 *   /etc/ld.so.cache; the system directories
 * each directory with its glibc-hwcaps and legacy HWCAP subdirectories
 * (tls, the platform) first. Every file
 * found is trust-checked with every directory above it; every directory the
 * linker searches before the one that holds the file is trust-checked too,
 * since whoever can write there could put a library of that name in front.
 * Names already loaded in this process (libc, ...) are not searched again,
 * like ld.so matches them by name. Main thread only. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "loader.h"
#include "probe.h"

#define MAX_OBJS	512	/* libraries in one module's closure */

/* Subdirectories ld.so tries in each directory before the directory itself
   (ld.so --help lists them), most specific first; "" is the directory. */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
static const char *const deps_subdirs[] = { "glibc-hwcaps/x86-64-v4/", "glibc-hwcaps/x86-64-v3/",
	"glibc-hwcaps/x86-64-v2/", "tls/x86_64/", "tls/", "x86_64/", "", NULL };
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
static const char *const deps_subdirs[] = { "tls/aarch64/", "tls/", "aarch64/", "", NULL };
#else
#define MULTIARCH ""
static const char *const deps_subdirs[] = { "tls/", "", NULL };
#endif
static const char *const deps_sysdirs[] = { "/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64", "/usr/lib64",
					   "/lib", "/usr/lib", NULL };

/* One object of the closure: the module (0) or a library. */
typedef struct dobj {
	char *path;			/* as found (shown) */
	char *real;			/* its real path */
	char *origin;			/* its real directory, for $ORIGIN */
	bc_elf_dyn dyn;
	int loader;			/* index of the object that needed it; -1 for the module */
} dobj;

typedef struct deps {
	const char *module;
	dobj objs[MAX_OBJS];
	size_t nobjs;
	char **names;			/* sonames resolved or loaded already */
	size_t nnames;
	char **dirs_ok;			/* directories trust-checked already */
	size_t ndirs;
	bc_err *e;
} deps;

/* ------------------------------------------------------------ the files */

/* Maps path when it is a regular file (opened without blocking: a FIFO is
   never waited on) and reads its dynamic section. 0, -1 not readable or
   not regular, -2 not a 64-bit ELF object. */
static int read_dyn(const char *path, bc_elf_dyn *d)
{
	memset(d, 0, sizeof(*d));
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	int rc = bc_elf_dynamic(map, (size_t)st.st_size, d) ? -2 : 0;
	munmap(map, (size_t)st.st_size);
	if (rc)
		bc_elf_dyn_free(d);
	return rc;
}

/* ------------------------------------------------------- ld.so.cache */

typedef struct cache_ent {
	const char *name, *path;
} cache_ent;

static char *deps_cache_data;
static cache_ent *deps_cache;
static size_t deps_ncache;

/* glibc's new format ("glibc-ld.so.cache1.1", alone or after the old
   one): a 48-byte header, 24-byte entries {flags, key, value, osversion,
   hwcap}, key and value offsets from the header's start. */
static void cache_parse(const char *buf, size_t n)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	const char *h = memmem(buf, n, magic, sizeof(magic) - 1);
	if (!h || (size_t)(buf + n - h) < 48)
		return;
	size_t avail = (size_t)(buf + n - h);
	uint32_t nlibs;
	memcpy(&nlibs, h + 20, 4);
	if (nlibs > (avail - 48) / 24)
		return;
	deps_cache = bc_xcalloc(nlibs + 1, sizeof(*deps_cache));
	for (uint32_t i = 0; i < nlibs; i++) {
		int32_t flags;
		uint32_t key, value;
		memcpy(&flags, h + 48 + 24 * (size_t)i, 4);
		memcpy(&key, h + 48 + 24 * (size_t)i + 4, 4);
		memcpy(&value, h + 48 + 24 * (size_t)i + 8, 4);
		if ((flags & 0xff) != 3 || key >= avail || value >= avail ||
		    !memchr(h + key, '\0', avail - key) || !memchr(h + value, '\0', avail - value))
			continue;	/* 3: FLAG_ELF_LIBC6; the machine is checked on the file */
		deps_cache[deps_ncache++] = (cache_ent){ h + key, h + value };
	}
}

static void cache_load(void)
{
	static int loaded;
	if (loaded)
		return;
	loaded = 1;
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 48 ||
	    st.st_size > (64 << 20)) {
		if (fd >= 0)
			close(fd);
		return;	/* no cache: the system directories still are searched */
	}
	deps_cache_data = bc_xmalloc((size_t)st.st_size);
	ssize_t got = read(fd, deps_cache_data, (size_t)st.st_size);
	close(fd);
	if (got == st.st_size)
		cache_parse(deps_cache_data, (size_t)got);
}

/* -------------------------------------------------------- the checks */

static int have_name(const deps *D, const char *name)
{
	for (size_t i = 0; i < D->nnames; i++)
		if (!strcmp(D->names[i], name))
			return 1;
	return 0;
}

static void add_name(deps *D, const char *name)
{
	D->names = bc_xrealloc(D->names, D->nnames + 1, sizeof(char *));
	if (!D->names)
		abort();
	D->names[D->nnames++] = bc_xstrdup(name);
}

/* The objects this process has loaded already, by file name: ld.so finds a
   DT_NEEDED name among them before it searches anything. */
static int add_loaded(struct dl_phdr_info *info, size_t sz, void *arg)
{
	(void)sz;
	const char *n = info->dlpi_name, *b = n ? strrchr(n, '/') : NULL;
	if (n && *n && !have_name(arg, b ? b + 1 : n))
		add_name(arg, b ? b + 1 : n);
	return 0;
}

/* A directory the linker searches: trusted like a RUNPATH entry (a missing
   one by its nearest existing parent, where someone could create it). */
static int dir_ok(deps *D, const char *dir, const char *name, const char *via)
{
	for (size_t i = 0; i < D->ndirs; i++)
		if (!strcmp(D->dirs_ok[i], dir))
			return 0;
	char d[PATH_MAX];
	struct stat st;
	snprintf(d, sizeof(d), "%s", *dir ? dir : ".");	/* an empty entry is the working directory */
	while (stat(d, &st) != 0) {
		char *sl = strrchr(d, '/');
		if (!sl)
			snprintf(d, sizeof(d), ".");
		else if (sl == d)
			d[1] = '\0';
		else
			*sl = '\0';
	}
	bc_err sub;
	if (bc_trust_walk(d, d, 0, "directory", &sub)) {
		bc_err_set(D->e, "refusing to load module \"%s\": the dynamic linker would look for its library "
			   "\"%s\" in \"%s\" (%s), which is not safe", D->module, name, dir, via);
		bc_err_detail(D->e, "Whoever can write there can put a library of that name in front of the real "
			      "one: %s.", sub.msg);
		bc_err_hint(D->e, "%s; or remove the directory from %s", sub.hint[0] ? sub.hint :
			    "fix the directory's owner or mode", via);
		return -1;
	}
	D->dirs_ok = bc_xrealloc(D->dirs_ok, D->ndirs + 1, sizeof(char *));
	if (!D->dirs_ok)
		abort();
	D->dirs_ok[D->ndirs++] = bc_xstrdup(dir);
	return 0;
}

/* entry with $ORIGIN expanded; another $TOKEN cuts it to the directory
   before it (malloc'd). */
char *bc_origin_expand(const char *entry, const char *origin)
{
	char dir[PATH_MAX * 2] = "";
	size_t o = 0;
	for (const char *c = entry; *c && o < sizeof(dir) - PATH_MAX;) {
		if (!strncmp(c, "$ORIGIN", 7) || !strncmp(c, "${ORIGIN}", 9)) {
			o += (size_t)snprintf(dir + o, sizeof(dir) - o, "%s", origin);
			c += c[1] == '{' ? 9 : 7;
		} else if (*c == '$') {
			char *sl = strrchr(dir, '/');
			o = sl ? (size_t)(sl - dir) : 0;
			dir[o] = '\0';
			break;
		} else {
			dir[o++] = *c++;
			dir[o] = '\0';
		}
	}
	return bc_xstrdup(dir);
}

/* name in dir (or one of the subdirectories ld.so tries first) as a usable
   object of the module's machine: 1 with out filled. */
static int find_in(const char *dir, const char *name, unsigned machine, char *out, size_t n)
{
	for (size_t i = 0; deps_subdirs[i]; i++) {
		snprintf(out, n, "%s/%s%s", *dir ? dir : ".", deps_subdirs[i], name);
		bc_elf_dyn d;
		if (read_dyn(out, &d) == 0) {
			int fits = d.machine == machine;
			bc_elf_dyn_free(&d);
			if (fits)
				return 1;	/* ld.so skips a file of another machine */
		}
	}
	return 0;
}

/* Searches the directories of one source in order; each searched one
   must be trusted. 1 found, 0 not there, -1 refused. */
static int search(deps *D, char **dirs, const char *origin, const char *name, const char *via, char *out,
		  size_t n)
{
	for (char **p = dirs; p && *p; p++) {
		char *dir = origin ? bc_origin_expand(*p, origin) : bc_xstrdup(*p);
		int found = find_in(dir, name, D->objs[0].dyn.machine, out, n);
		int bad = !found && dir_ok(D, dir, name, via);	/* the file's own directory: see lib_ok */
		free(dir);
		if (bad)
			return -1;
		if (found)
			return 1;
	}
	return 0;
}

/* Where ld.so would find name, needed by object k: 1 found (out), 0 not
   found (dlopen will fail: nothing runs), -1 refused (D->e). */
static int resolve(deps *D, size_t k, const char *name, char *out, size_t n)
{
	if (strchr(name, '/')) {
		snprintf(out, n, "%s", name);
		return 1;
	}
	int r;
	const dobj *o = &D->objs[k];
	for (int l = (int)k; !o->dyn.runpath && l >= 0; l = D->objs[l].loader)
		if (!D->objs[l].dyn.runpath &&
		    (r = search(D, D->objs[l].dyn.rpath, D->objs[l].origin, name, "an RPATH", out, n)))
			return r;
	const char *llp = getenv("LD_LIBRARY_PATH");
	if (llp && *llp) {
		char **v = bc_split(llp, ':');
		r = search(D, v, NULL, name, "LD_LIBRARY_PATH", out, n);
		bc_strv_free(v);
		if (r)
			return r;
	}
	if ((r = search(D, o->dyn.runpath, o->origin, name, "a RUNPATH", out, n)))
		return r;
	cache_load();
	for (size_t i = 0; i < deps_ncache; i++) {
		bc_elf_dyn d;
		if (strcmp(deps_cache[i].name, name) || read_dyn(deps_cache[i].path, &d))
			continue;
		int fits = d.machine == D->objs[0].dyn.machine;
		bc_elf_dyn_free(&d);
		if (fits) {
			snprintf(out, n, "%s", deps_cache[i].path);
			return 1;
		}
	}
	for (const char *const *s = deps_sysdirs; *s; s++)
		if (**s && find_in(*s, name, D->objs[0].dyn.machine, out, n))
			return 1;
	return 0;
}

/* The file found: it and every directory above it. */
static int lib_ok(deps *D, size_t k, const char *name, const char *path)
{
	bc_err sub;
	if (bc_trust_walk(path, path, 0, "library", &sub) == 0)
		return 0;
	bc_err_set(D->e, "refusing to load module \"%s\": a library it loads is not safe", D->module);
	bc_err_detail(D->e, "%s (\"%s\", needed by %s; nothing of it was run)", sub.msg, name, D->objs[k].path);
	bc_err_hint(D->e, "%s", sub.hint[0] ? sub.hint : "fix the library's owner or mode");
	return -1;
}

static int add_obj(deps *D, const char *path, int loader)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return 0;
	for (size_t i = 0; i < D->nobjs; i++)
		if (!strcmp(D->objs[i].real, real))
			return 0;	/* seen */
	if (D->nobjs == MAX_OBJS)
		return 0;
	dobj *o = &D->objs[D->nobjs];
	if (read_dyn(real, &o->dyn))
		return 0;	/* not an ELF object: dlopen refuses it, nothing runs */
	o->path = bc_xstrdup(path);
	o->real = bc_xstrdup(real);
	char *sl = strrchr(real, '/');
	if (sl)
		*sl = '\0';
	o->origin = bc_xstrdup(sl == real ? "/" : real);
	o->loader = loader;
	D->nobjs++;
	return 0;
}

static void deps_free(deps *D)
{
	for (size_t i = 0; i < D->nobjs; i++) {
		free(D->objs[i].path);
		free(D->objs[i].real);
		free(D->objs[i].origin);
		bc_elf_dyn_free(&D->objs[i].dyn);
	}
	for (size_t i = 0; i < D->nnames; i++)
		free(D->names[i]);
	free(D->names);
	for (size_t i = 0; i < D->ndirs; i++)
		free(D->dirs_ok[i]);
	free(D->dirs_ok);
}

int bc_check_deps(const char *path, bc_err *e)
{
	deps *D = bc_xcalloc(1, sizeof(*D));
	D->module = path;
	D->e = e;
	dl_iterate_phdr(add_loaded, D);
	add_obj(D, path, -1);
	int rc = 0;
	/* breadth first, like the linker's load order */
	for (size_t k = 0; k < D->nobjs && !rc; k++) {
		dobj *o = &D->objs[k];
		for (char **nm = o->dyn.needed; nm && *nm && !rc; nm++) {
			char found[PATH_MAX * 2 + 64];
			if (have_name(D, *nm))
				continue;
			int r = resolve(D, k, *nm, found, sizeof(found));
			if (r < 0)
				rc = -1;
			else if (r > 0 && !(rc = lib_ok(D, k, *nm, found))) {
				add_name(D, *nm);
				add_obj(D, found, (int)k);
			}
		}
	}
	deps_free(D);
	free(D);
	return rc;
}
