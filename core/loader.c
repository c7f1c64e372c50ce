/* Module loader. Checks go from the most fundamental to the most specific
   (like PostgreSQL's magic block): trust of the file, dlopen, the entry
   symbol, the magic, the ABI major, the struct size, then the contents. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "loader.h"
#include "options.h"

int bc_check_trust(const char *path, int is_dir, bc_err *e)
{
	struct stat st;
	const char *what = is_dir ? "module directory" : "module file";
	if (stat(path, &st) != 0) {
		bc_err_set(e, "could not read %s \"%s\": %s", what, path, strerror(errno));
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		bc_err_set(e, "refusing to load from %s \"%s\": it is writable by %s", what, path,
			   (st.st_mode & S_IWOTH) ? "others" : "its group");
		bc_err_detail(e, "Anyone who can write there could make benchcore run their code.");
		bc_err_hint(e, "chmod go-w \"%s\"", path);
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		bc_err_set(e, "refusing to load from %s \"%s\": owned by another user (uid %u)", what,
			   path, (unsigned)st.st_uid);
		bc_err_hint(e, "modules must belong to root or to the user running benchcore");
		return -1;
	}
	return 0;
}

static int valid_name(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int is_metric(const bench_module_v1 *d, const char *name)
{
	if (!strcmp(name, "events_per_sec"))
		return 1;
	for (const bench_metric_v1 *mt = d->metrics; mt && mt->name; mt++)
		if (!strcmp(mt->name, name))
			return 1;
	return 0;
}

/* ABI 1.1 fields: data options name options, the headline a metric. */
static int check_v11(const char *path, const bench_module_v1 *d, bc_err *e)
{
	for (const char *const *o = d->data_options; o && *o; o++)
		if (!bc_opt_find(d->options, *o)) {
			bc_err_set(e, "invalid module \"%s\": data_options names \"%s\", which is not one "
				   "of its options", path, *o);
			bc_err_hint(e, "list in data_options only option names from the options table");
			return -1;
		}
	if (d->headline_metric && !is_metric(d, d->headline_metric)) {
		bc_err_set(e, "invalid module \"%s\": headline_metric \"%s\" is not one of its metrics",
			   path, d->headline_metric);
		bc_err_hint(e, "name a metrics[] entry, or events_per_sec");
		return -1;
	}
	for (const bench_threshold_v1 *t = d->thresholds; t && t->metric; t++)
		if (!(t->pct >= 0 && t->pct <= 1000)) {
			bc_err_set(e, "invalid module \"%s\": threshold of \"%s\" is %g%%, not 0 .. 1000",
				   path, t->metric, t->pct);
			return -1;
		}
	return 0;
}

/* The contents: name, callbacks, tables. Defaults must parse so help is true. */
static int check_contents(const char *path, bc_module *m, bc_err *e)
{
	const bench_module_v1 *d = &m->desc;
	char err[512];
	if (!valid_name(d->name)) {
		bc_err_set(e, "invalid module \"%s\": name is missing or not [a-z0-9_]+", path);
		return -1;
	}
	for (size_t i = 0; i < sizeof(d->reserved) / sizeof(d->reserved[0]); i++)
		if (d->reserved[i]) {
			bc_err_set(e, "invalid module \"%s\": reserved slot %zu is not NULL", path, i);
			bc_err_hint(e, "the module was built for a newer ABI minor or its descriptor is corrupt; rebuild it against this SDK");
			return -1;
		}
	if (!d->event == !d->thread_run) {
		bc_err_set(e, "invalid module \"%s\": missing callbacks", path);
		bc_err_detail(e, "Module \"%s\" must set exactly one of event and thread_run (it sets %s).",
			      d->name, d->event ? "both" : "neither");
		return -1;
	}
	m->nops = 0;
	if (!d->op_classes) {
		m->ops[m->nops++] = "event";
	} else {
		for (const char *const *o = d->op_classes; *o; o++) {
			if (m->nops == BENCH_MAX_OP_CLASSES || !valid_name(*o)) {
				bc_err_set(e, "invalid module \"%s\": op class \"%s\" is invalid or beyond the limit of %d",
					   path, *o, BENCH_MAX_OP_CLASSES);
				return -1;
			}
			m->ops[m->nops++] = *o;
		}
		if (m->nops == 0) {
			bc_err_set(e, "invalid module \"%s\": op_classes is empty", path);
			return -1;
		}
	}
	for (const bench_option_v1 *o = d->options; o && o->name; o++) {
		if (!valid_name(o->name) || o->type < BENCH_OPT_BOOL || o->type > BENCH_OPT_ENUM ||
		    (o->type == BENCH_OPT_ENUM && (!o->choices || !o->choices[0])) ||
		    ((o->flags & BENCH_OPT_LIST) && o->type != BENCH_OPT_STRING)) {
			bc_err_set(e, "invalid module \"%s\": option \"%s\" has a bad name, type or choices",
				   path, o->name);
			return -1;
		}
		size_t ndef;
		bc_val *defs = bc_val_defaults(o, &ndef, err, sizeof(err));
		if (!defs) {
			bc_err_set(e, "invalid module \"%s\": default of option \"%s\": %s", path, o->name, err);
			return -1;
		}
		for (size_t j = 0; j < ndef; j++)
			bc_val_free(&defs[j]);
		free(defs);
		if ((o->flags & BENCH_OPT_SWEEP_DEFAULT) && (o->flags & (BENCH_OPT_NOSWEEP | BENCH_OPT_LIST | BENCH_OPT_SECRET))) {
			bc_err_set(e, "invalid module \"%s\": option \"%s\" has a sweep as its default but cannot be swept",
				   path, o->name);
			return -1;
		}
	}
	for (const bench_metric_v1 *mt = d->metrics; mt && mt->name; mt++)
		if (!valid_name(mt->name)) {
			bc_err_set(e, "invalid module \"%s\": metric name \"%s\" is not [a-z0-9_]+", path, mt->name);
			return -1;
		}
	return check_v11(path, d, e);
}

int bc_module_load(const char *path, bc_module *m, bc_err *e)
{
	memset(m, 0, sizeof(*m));
	char *dir = bc_xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	int bad = bc_check_trust(slash ? (*dir ? dir : "/") : ".", 1, e) || bc_check_trust(path, 0, e);
	free(dir);
	if (bad)
		return -1;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		bc_err_set(e, "could not load module \"%s\"", path);
		bc_err_detail(e, "%s", dlerror());
		bc_err_hint(e, "check its dependencies with: ldd %s", path);
		return -1;
	}
	const bench_module_v1 *(*entry)(void);
	*(void **)&entry = dlsym(h, BENCH_ENTRY_SYMBOL);
	if (!entry) {
		bc_err_set(e, "invalid module \"%s\": no %s symbol", path, BENCH_ENTRY_SYMBOL);
		bc_err_detail(e, "Every benchcore module exports one entry function.");
		bc_err_hint(e, "define it with BENCH_MODULE(descriptor) from <benchcore/module.h>; is this a benchcore module?");
		return -1;	/* never dlclose: a library's destructors may not expect it */
	}
	const bench_module_v1 *d = entry();
	if (!d || d->magic != BENCH_MODULE_MAGIC) {
		bc_err_set(e, "invalid module \"%s\": bad magic number", path);
		bc_err_detail(e, "Expected 0x%08x, found 0x%08x.", BENCH_MODULE_MAGIC, d ? d->magic : 0);
		bc_err_hint(e, "start the descriptor with BENCH_MODULE_HEADER");
		return -1;
	}
	if (d->abi_major != BENCH_ABI_MAJOR) {
		bc_err_set(e, "incompatible module \"%s\": ABI mismatch", path);
		bc_err_detail(e, "benchcore speaks ABI %d.x, module was built for %u.%u.",
			      BENCH_ABI_MAJOR, d->abi_major, d->abi_minor);
		bc_err_hint(e, "rebuild the module against the SDK of this benchcore (pkg-config benchcore)");
		return -1;
	}
	size_t need = offsetof(bench_module_v1, reserved);
	if (d->struct_size < need) {
		bc_err_set(e, "invalid module \"%s\": descriptor too small", path);
		bc_err_detail(e, "struct_size is %u bytes, ABI %d.0 needs at least %zu.",
			      d->struct_size, BENCH_ABI_MAJOR, need);
		bc_err_hint(e, "set struct_size with BENCH_MODULE_HEADER and rebuild");
		return -1;
	}
	memcpy(&m->desc, d, d->struct_size < sizeof(m->desc) ? d->struct_size : sizeof(m->desc));
	if (check_contents(path, m, e))
		return -1;
	m->path = bc_xstrdup(path);
	return 0;
}

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
		if (realpath(rel, real) && strcmp(real, BC_MODULEDIR))
			ADD(real);
		free(rel);
		free(ed);
	}
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
	set->fails = realloc(set->fails, (set->nfails + 1) * sizeof(*set->fails));
	bc_loadfail *f = &set->fails[set->nfails++];
	f->path = bc_xstrdup(path);
	const char *base = strrchr(path, '/');
	f->stem = bc_xstrdup(base ? base + 1 : path);
	f->stem[strlen(f->stem) - 3] = '\0';
	f->err = *e;
	f->dup[0] = '\0';
}

static void load_dir(bc_modset *set, const char *dir, size_t first_in_dir)
{
	DIR *d = opendir(dir);
	bc_err e;
	if (!d)
		return;	/* a search dir that does not exist is normal */
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (is_so(de->d_name)) {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = bc_xstrdup(de->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *path = bc_xasprintf("%s/%s", dir, names[i]);
		bc_module m;
		if (bc_module_load(path, &m, &e)) {
			add_fail(set, path, &e);
		} else {
			const bc_module *prev = bc_modset_find(set, m.desc.name);
			size_t at = prev ? (size_t)(prev - set->mods) : 0;
			if (prev && at >= first_in_dir) {
				bc_err_set(&e, "duplicate module name \"%s\" in \"%s\"", m.desc.name, path);
				bc_err_detail(&e, "\"%s\" already provides module \"%s\".", prev->path, m.desc.name);
				bc_err_hint(&e, "remove one of the two files, or give the module a unique name");
				add_fail(set, path, &e);
				snprintf(set->fails[set->nfails - 1].dup, sizeof(set->fails[0].dup), "%s", m.desc.name);
				free(m.path);
			} else if (prev) {
				free(m.path);	/* shadowed by an earlier directory of the search path */
			} else {
				set->mods = realloc(set->mods, (set->nmods + 1) * sizeof(*set->mods));
				set->mods[set->nmods++] = m;
			}
		}
		free(path);
		free(names[i]);
	}
	free(names);
}

void bc_modset_load(bc_modset *set, char **dirs)
{
	memset(set, 0, sizeof(*set));
	set->dirs = dirs;
	for (size_t i = 0; dirs && dirs[i]; i++) {
		bc_err e;
		struct stat st;
		if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (bc_check_trust(dirs[i], 1, &e)) {
			char *p = bc_xasprintf("%s/(directory).so", dirs[i]);
			add_fail(set, p, &e);
			free(p);
			continue;
		}
		load_dir(set, dirs[i], set->nmods);
	}
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
		free(set->mods[i].path);
	for (size_t i = 0; i < set->nfails; i++) {
		free(set->fails[i].path);
		free(set->fails[i].stem);
	}
	free(set->mods);
	free(set->fails);
	bc_strv_free(set->dirs);
	memset(set, 0, sizeof(*set));
}
