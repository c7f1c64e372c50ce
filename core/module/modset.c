/* Finding modules (loader.h): the search path (the config's directories,
   $BENCHCORE_MODULE_PATH, the build's and the installed directory), every
   *.so in it probed and loaded (loader.c checks each one), the set of them
   by name with the first of a name shadowing the later ones, and what
   could not be loaded, said beside the name a user asked for. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "loader.h"
#include "probe.h"
#include "util.h"

static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *s = strrchr(buf, '/');
	if (s)
		*s = '\0';
	return bc_xstrdup(buf);
}

char **bc_module_search_path(char *const *config_dirs)
{
	size_t n = 0, cap = 16;
	char **v = bc_xcalloc(cap + 1, sizeof(*v));
#define ADD(p) do { if (n < cap) v[n++] = bc_xstrdup(p); } while (0)
	for (size_t i = 0; config_dirs && config_dirs[i]; i++)
		ADD(config_dirs[i]);
	const char *env = getenv("BENCHCORE_MODULE_PATH");
	if (env && *env) {
		char **parts = bc_split(env, ':');
		for (char **p = parts; *p; p++)
			if (**p)
				ADD(*p);
		bc_strv_free(parts);
	}
	char *ed = exe_dir();
	int relocated = 0;
	if (ed) {
		char *marker = bc_xasprintf("%s/.benchcore-build", ed);
		if (access(marker, F_OK) == 0) {
			char *md = bc_xasprintf("%s/modules", ed);
			ADD(md);
			free(md);
		}
		free(marker);
		/* an installed tree is relocatable: PREFIX/bin/benchcore finds PREFIX/lib/benchcore/modules */
		char *rel = bc_xasprintf("%s/../lib/benchcore/modules", ed), real[PATH_MAX];
		if (realpath(rel, real) && strcmp(real, BC_MODULEDIR)) {
			ADD(real);
			relocated = 1;	/* installed elsewhere: not another install's modules */
		}
		free(rel);
		free(ed);
	}
	if (!relocated)
		ADD(BC_MODULEDIR);
#undef ADD
	return v;
}

static int is_so(const char *name)
{
	size_t l = strlen(name);
	return l > 3 && !strcmp(name + l - 3, ".so");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_fail(bc_modset *set, const char *path, const bc_err *e)
{
	set->fails = bc_xrealloc(set->fails, set->nfails + 1, sizeof(*set->fails));
	bc_loadfail *f = &set->fails[set->nfails++];
	f->path = bc_xstrdup(path);
	const char *base = strrchr(path, '/');
	f->stem = bc_xstrdup(base ? base + 1 : path);
	size_t n = strlen(f->stem);
	if (n > 3 && !strcmp(f->stem + n - 3, ".so"))
		f->stem[n - 3] = '\0';
	f->is_dir = 0;
	/* a load error quotes file names and what a probe printed: escaped once
	   for every place that shows it (list, help, run's warnings) */
	bc_text_copy(f->err.msg, sizeof(f->err.msg), e->msg);
	bc_text_copy(f->err.detail, sizeof(f->err.detail), e->detail);
	bc_text_copy(f->err.hint, sizeof(f->err.hint), e->hint);
	f->dup[0] = '\0';
}

/* A file found on the path, checked before its probe. */
typedef struct cand {
	char *path;
	size_t dir;			/* index in the search path */
	int pre_ok;
	char sha[65];
	bc_err err;
} cand;

static void list_dir(const char *dir, size_t di, cand **cs, size_t *nc)
{
	DIR *d = opendir(dir);
	if (!d)
		return;	/* a search dir that does not exist is normal */
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (is_so(de->d_name)) {
			names = bc_xrealloc(names, n + 1, sizeof(*names));
			names[n++] = bc_xstrdup(de->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*cs = bc_xrealloc(*cs, *nc + n + 1, sizeof(**cs));
	for (size_t i = 0; i < n; i++) {
		cand *c = &(*cs)[(*nc)++];
		memset(c, 0, sizeof(*c));
		c->path = bc_xasprintf("%s/%s", dir, names[i]);
		c->dir = di;
		c->pre_ok = bc_module_pre_checks(c->path, c->sha, &c->err) == 0;
		free(names[i]);
	}
	free(names);
}

static void note_shadow(bc_module *prev, const char *path)
{
	char *s = prev->shadows ? bc_xasprintf("%s, %s", prev->shadows, path) : bc_xstrdup(path);
	free(prev->shadows);
	prev->shadows = s;
}

/* A described module: kept, a duplicate in one directory (an error), or
   shadowed by one of an earlier directory (kept there, noted). */
static void add_module(bc_modset *set, bc_module *m, const cand *c, const size_t *mod_dir)
{
	bc_err e;
	bc_module *prev = (bc_module *)bc_modset_find(set, m->desc.name);
	if (prev && mod_dir[prev - set->mods] == c->dir) {
		bc_err_set(&e, "duplicate module name \"%s\" in \"%s\"", m->desc.name, c->path);
		bc_err_detail(&e, "\"%s\" already provides module \"%s\".", prev->path, m->desc.name);
		bc_err_hint(&e, "remove one of the two files, or give the module a unique name");
		add_fail(set, c->path, &e);
		snprintf(set->fails[set->nfails - 1].dup, sizeof(set->fails[0].dup), "%s", m->desc.name);
		bc_module_free(m);
	} else if (prev) {
		note_shadow(prev, c->path);	/* the earlier directory of the search path wins */
		bc_module_free(m);
	} else {
		set->mods = bc_xrealloc(set->mods, set->nmods + 1, sizeof(*set->mods));
		set->mods[set->nmods++] = *m;
	}
}

/* A directory named twice on the search path (dir and dir/, or through a
   symlink, found by device and inode) is searched once, at its first
   place: its files would otherwise shadow themselves. */
static void dedupe_dirs(char **dirs)
{
	size_t o = 0;
	for (size_t i = 0; dirs && dirs[i]; i++) {
		struct stat a, b;
		int known = stat(dirs[i], &a) == 0, dup = 0;
		for (size_t j = 0; j < o && !dup; j++)
			dup = !strcmp(dirs[i], dirs[j]) ||
			      (known && stat(dirs[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino);
		if (dup)
			free(dirs[i]);
		else
			dirs[o++] = dirs[i];
	}
	if (dirs)
		dirs[o] = NULL;
}

void bc_modset_load(bc_modset *set, char **dirs)
{
	memset(set, 0, sizeof(*set));
	dedupe_dirs(dirs);
	set->dirs = dirs;
	cand *cs = NULL;
	size_t nc = 0;
	for (size_t i = 0; dirs && dirs[i]; i++) {
		bc_err e;
		struct stat st;
		if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (bc_check_trust(dirs[i], 1, &e)) {	/* the directory itself, named as such */
			add_fail(set, dirs[i], &e);
			free(set->fails[set->nfails - 1].stem);
			set->fails[set->nfails - 1].stem = bc_xstrdup("(directory)");
			set->fails[set->nfails - 1].is_dir = 1;
			continue;
		}
		list_dir(dirs[i], i, &cs, &nc);
	}
	/* every trusted file is probed, all at once: a hang costs one timeout */
	bc_probe *pr = bc_xcalloc(nc + 1, sizeof(*pr));
	size_t np = 0;
	for (size_t i = 0; i < nc; i++)
		if (cs[i].pre_ok)
			pr[np++].path = cs[i].path;
	bc_probe_files(pr, np);
	size_t *mod_dir = bc_xcalloc(nc + 1, sizeof(size_t)), k = 0;
	for (size_t i = 0; i < nc; i++) {
		bc_err e;
		if (!cs[i].pre_ok) {
			add_fail(set, cs[i].path, &cs[i].err);
		} else if (!pr[k].ok) {
			add_fail(set, cs[i].path, &pr[k].err);
		} else if (memcpy(pr[k].m.sha256, cs[i].sha, sizeof(cs[i].sha)), bc_module_post_checks(cs[i].path, &pr[k].m, &e)) {
			add_fail(set, cs[i].path, &e);
			bc_module_free(&pr[k].m);
		} else {
			mod_dir[set->nmods] = cs[i].dir;
			add_module(set, &pr[k].m, &cs[i], mod_dir);
		}
		if (cs[i].pre_ok)
			k++;
		free(cs[i].path);
	}
	free(mod_dir);
	free(pr);
	free(cs);
}

const bc_module *bc_modset_find(const bc_modset *set, const char *name)
{
	for (size_t i = 0; i < set->nfails; i++)
		if (!strcmp(set->fails[i].dup, name))
			return NULL;	/* ambiguous: which of the two did the user mean? */
	for (size_t i = 0; i < set->nmods; i++)
		if (!strcmp(set->mods[i].desc.name, name))
			return &set->mods[i];
	return NULL;
}

const bc_loadfail *bc_modset_fail_for(const bc_modset *set, const char *name)
{
	for (size_t i = 0; i < set->nfails; i++)
		if (!strcmp(set->fails[i].stem, name) || !strcmp(set->fails[i].dup, name))
			return &set->fails[i];
	return NULL;
}

void bc_modset_missing(const bc_modset *set, const char *name, bc_err *e)
{
	const bc_loadfail *f = bc_modset_fail_for(set, name);
	if (f) {
		*e = f->err;
		return;
	}
	char looked[1024] = "", have[512] = "";
	size_t o = 0;
	for (size_t i = 0; set->dirs && set->dirs[i] && o < sizeof(looked); i++)
		o += (size_t)snprintf(looked + o, sizeof(looked) - o, "%s%s", i ? ", " : "", set->dirs[i]);
	o = 0;
	for (size_t i = 0; i < set->nmods && o < sizeof(have); i++)
		o += (size_t)snprintf(have + o, sizeof(have) - o, "%s%s", i ? ", " : "", set->mods[i].desc.name);
	bc_err_set(e, "module \"%s\" not found", name);
	bc_err_detail(e, "Looked for %s.so in: %s. Available modules: %s.", name, looked,
		      *have ? have : "none");
	bc_err_hint(e, "add its directory to module_path in the config or to BENCHCORE_MODULE_PATH");
}

void bc_modset_free(bc_modset *set)
{
	for (size_t i = 0; i < set->nmods; i++)
		bc_module_free(&set->mods[i]);
	for (size_t i = 0; i < set->nfails; i++) {
		free(set->fails[i].path);
		free(set->fails[i].stem);
	}
	free(set->mods);
	free(set->fails);
	bc_strv_free(set->dirs);
	memset(set, 0, sizeof(*set));
}
