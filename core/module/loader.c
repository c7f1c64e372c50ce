/* Module loader: checking one file and opening it (the search path and the
   set of modules are modset.c's). Checks go from the most fundamental to
   the most specific (like PostgreSQL's magic block): trust of the file,
   dlopen, the entry symbol, the magic, the ABI major, the struct size,
   then the contents. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "abi.h"
#include "settings.h"
#include "probe.h"
#include "trust.h"

int bc_check_trust(const char *path, int is_dir, bc_err *e)
{
	/* a module file's own directory is as strict as the file: whoever can
	   add files there can add a module */
	return bc_trust_walk(path, path, !is_dir, is_dir ? "module directory" : "module file", e);
}

/* A RUNPATH/RPATH entry with $ORIGIN expanded; other $TOKENs cut the entry
   to the directory before them. A directory that does not exist is judged
   by its nearest existing parent, where someone could create it. */
static int check_runpath_dir(const char *path, const char *origin, const char *entry, const char *kind,
			     bc_err *e)
{
	char dir[PATH_MAX * 2];
	char *x = bc_origin_expand(entry, origin);
	snprintf(dir, sizeof(dir), "%s", x);
	free(x);
	if (!dir[0])
		snprintf(dir, sizeof(dir), ".");	/* an empty entry is the working directory */
	struct stat st;
	while (stat(dir, &st) != 0) {
		char *sl = strrchr(dir, '/');
		if (!sl)
			snprintf(dir, sizeof(dir), ".");
		else if (sl == dir)
			dir[1] = '\0';
		else
			*sl = '\0';
	}
	bc_err sub;
	if (bc_trust_walk(dir, dir, 0, "directory", &sub) == 0)
		return 0;
	bc_err_set(e, "refusing to load module \"%s\": its %s entry \"%s\" is not safe", path, kind, entry);
	bc_err_detail(e, "The dynamic linker looks for the module's libraries there: %s.", sub.msg);
	bc_err_hint(e, "%s; or relink the module without that %s entry (-Wl,-rpath)",
		    sub.hint[0] ? sub.hint : "fix the directory's owner or mode", kind);
	return -1;
}

/* The module's RUNPATH/RPATH, read from the file (nothing of it runs). */
static int check_runpath(const char *path, bc_err *e)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return 0;	/* dlopen says what is wrong with it */
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	const char *kind;
	char **ents = bc_elf_runpath(map, (size_t)st.st_size, &kind);
	munmap(map, (size_t)st.st_size);
	char real[PATH_MAX];
	int rc = 0;
	if (ents && realpath(path, real)) {
		char *sl = strrchr(real, '/');
		if (sl)
			*sl = '\0';
		for (char **p = ents; *p && !rc; p++)
			rc = check_runpath_dir(path, real, *p, kind, e);
	}
	bc_strv_free(ents);
	return rc;
}

int bc_file_sha256(const char *path, char hex[65], bc_err *e)
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
	unsigned mdlen = 0;
	/* never blocks: a FIFO put in the file's place is refused, not waited on */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
	if (!f) {
		bc_err_set(e, "could not read module file \"%s\": %s", path,
			   fd >= 0 ? "not a regular file" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	size_t n;
	while (ok && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, n);
	ok = ok && !ferror(f) && EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	fclose(f);
	if (!ok) {
		bc_err_set(e, "could not read module file \"%s\" to hash it", path);
		return -1;
	}
	for (unsigned i = 0; i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
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

/* Metrics the core writes into every case's metrics: a module's own metric of
   that name would overwrite it (or be overwritten). */
static const char *const core_metrics[] = { "events_per_sec", NULL };

static int refuse(bc_err *e, const char *path, const char *hint, const char *fmt, const char *a)
{
	char what[400];
	snprintf(what, sizeof(what), fmt, a);
	bc_err_set(e, "invalid module \"%s\": %s", path, what);
	bc_err_hint(e, "%s", hint);
	return -1;
}

/* The run settings ABI 1.2 modules already could not use as option names.
   A run setting added since (scale, profile, max_cases, ...) was free when
   a module of 1.3 or before was built: such a module keeps its option (its
   entry's key of that name is the run setting; the option is given on the
   command line as MODULE.OPTION or keeps its default). Each later run
   setting is reserved from the minor it ships with: BC_RESERVED_FROM. */
static const char *const reserved_v12[] = {
	"threads", "time", "warmup", "events", "repeat", "report_interval", "rate", "arrival", "keep",
	"isolate", "grace", "thread_init_timeout", "prepare_timeout", "repeat_order", "seed", "name",
	"enabled", NULL
};
#define BC_RESERVED_FROM	4

static int reserved_for(const bc_setting *st, uint32_t minor)
{
	if (minor >= BC_RESERVED_FROM)
		return 1;
	for (const char *const *n = reserved_v12; *n; n++)
		if (!strcmp(*n, st->opt.name))
			return 1;
	return 0;
}

/* Names that must be unique, and names the core already uses. */
static int check_names(const char *path, const bc_module *m, bc_err *e)
{
	const bench_module_v1 *d = &m->desc;
	for (const bench_option_v1 *o = d->options; o && o->name; o++) {
		for (const bench_option_v1 *p = d->options; p < o; p++)
			if (!strcmp(p->name, o->name))
				return refuse(e, path, "give every option its own name: the user's value would reach only one of them",
					      "option \"%s\" is declared twice", o->name);
		const bc_setting *st = bc_setting_find(o->name);
		if (st && st->scope >= BC_SCOPE_RUN && reserved_for(st, d->abi_minor))
				return refuse(e, path, "rename the option: a module entry's run settings (threads, time, "
					      "name, ...) take that key before any module option",
					      "option \"%s\" is named like a run setting", o->name);
	}
	for (unsigned i = 0; i < m->nops; i++)
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(m->ops[i], m->ops[j]))
				return refuse(e, path, "give every op class its own name: results are keyed by it",
					      "op class \"%s\" is declared twice", m->ops[i]);
	for (const bench_metric_v1 *mt = d->metrics; mt && mt->name; mt++) {
		for (const bench_metric_v1 *p = d->metrics; p < mt; p++)
			if (!strcmp(p->name, mt->name))
				return refuse(e, path, "give every metric its own name: results are keyed by it",
					      "metric \"%s\" is declared twice", mt->name);
		for (const char *const *c = core_metrics; *c; c++)
			if (!strcmp(*c, mt->name))
				return refuse(e, path, "rename the metric: the core reports one of that name for every case",
					      "metric \"%s\" is named like a core metric", mt->name);
	}
	return 0;
}

/* Bounds and the disk requirement's option. */
static int check_bounds(const char *path, const bench_module_v1 *d, bc_err *e)
{
	for (const bench_option_v1 *o = d->options; o && o->name; o++) {
		if (o->type != BENCH_OPT_INT && o->type != BENCH_OPT_SIZE && o->type != BENCH_OPT_DOUBLE)
			continue;
		if (!isfinite(o->min) || !isfinite(o->max)) {
			bc_err_set(e, "invalid module \"%s\": option \"%s\" has a bound that is not a finite number",
				   path, o->name);
			bc_err_hint(e, "set min and max to numbers (both 0: no bounds)");
			return -1;
		}
		if (o->min > o->max) {
			bc_err_set(e, "invalid module \"%s\": option \"%s\" has reversed bounds (min %g > max %g)",
				   path, o->name, o->min, o->max);
			bc_err_detail(e, "Bounds are checked only when min < max: these would silently check nothing.");
			bc_err_hint(e, "swap min and max");
			return -1;
		}
	}
	const char *dp = d->requires.disk_path_option;
	const bench_option_v1 *o = dp ? bc_opt_find(d->options, dp) : NULL;
	if (dp && !o)
		return refuse(e, path, "name a STRING option holding the path whose free space min_disk needs",
			      "requires.disk_path_option names \"%s\", which is not one of its options", dp);
	if (o && o->type != BENCH_OPT_STRING)
		return refuse(e, path, "name a STRING option holding the path whose free space min_disk needs",
			      "requires.disk_path_option names \"%s\", which is not a STRING option", dp);
	return 0;
}

static int has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* The contents: name, callbacks, tables. Defaults must parse so help is true. */
int bc_module_check(const char *path, bc_module *m, bc_err *e)
{
	const bench_module_v1 *d = &m->desc;
	bc_err ve;
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
		if ((o->flags & BENCH_OPT_SCALES) && o->type != BENCH_OPT_SIZE && o->type != BENCH_OPT_INT) {
			bc_err_set(e, "invalid module \"%s\": option \"%s\" is BENCH_OPT_SCALES but of type %s",
				   path, o->name, bc_opt_type_name(o->type));
			bc_err_detail(e, "The host scales SIZE and INT options only (the scale setting).");
			bc_err_hint(e, "drop BENCH_OPT_SCALES from the option, or make it SIZE or INT");
			return -1;
		}
		const char *ctl = has_control(o->def) ? "default" : NULL;
		for (const char *const *c = o->choices; c && *c && !ctl; c++)
			ctl = has_control(*c) ? "choices" : NULL;
		if (ctl) {
			/* values, not only shown: escaping them would change what the module gets */
			bc_err_set(e, "invalid module \"%s\": option \"%s\" has control characters in its %s",
				   path, o->name, ctl);
			bc_err_hint(e, "an option's default and choices are typed by users: use printable text");
			return -1;
		}
		size_t ndef;
		bc_val *defs = bc_val_defaults(o, &ndef, &ve);
		if (!defs) {
			bc_err_set(e, "invalid module \"%s\": default of option \"%s\": %s", path, o->name, ve.msg);
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
	return check_names(path, m, e) || check_bounds(path, d, e) || check_v11(path, d, e) ||
	       bc_abi_check_options(path, d, e) ? -1 : 0;
}

int bc_module_check_header(const char *path, const bench_module_v1 *d, bc_err *e)
{
	if (d->magic != BENCH_MODULE_MAGIC) {
		bc_err_set(e, "invalid module \"%s\": bad magic number", path);
		bc_err_detail(e, "Expected 0x%08x, found 0x%08x.", BENCH_MODULE_MAGIC, d->magic);
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
	return 0;
}

/* Only a regular file is a module: anything else (a FIFO, a device, a
   directory named x.so) is refused from its stat, never opened. */
static int regular_file(const char *path, bc_err *e)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		bc_err_set(e, "could not read module file \"%s\": %s", path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	bc_err_set(e, "refusing to load module file \"%s\": it is not a regular file (%s)", path,
		   S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" : S_ISSOCK(st.st_mode) ?
		   "a socket" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a file");
	bc_err_hint(e, "remove it from the module directory, or rename it so it does not end in .so");
	return -1;
}

/* Before any of the file's code runs: trust of it, its directories, its
   RUNPATH and every library it would load (deps.c); its hash. */
int bc_module_pre_checks(const char *path, char sha[65], bc_err *e)
{
	char *dir = bc_xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	int bad = bc_check_trust(slash ? (*dir ? dir : "/") : ".", 1, e) || regular_file(path, e) ||
		  bc_check_trust(path, 0, e) || check_runpath(path, e) || bc_check_deps(path, e) ||
		  bc_file_sha256(path, sha, e);
	free(dir);
	return bad ? -1 : 0;
}

/* After the probe: the libraries it pulled in, then the contents. */
int bc_module_post_checks(const char *path, bc_module *m, bc_err *e)
{
	for (const char **l = m->libs; l && *l; l++) {
		bc_err sub;
		if (bc_trust_walk(*l, *l, 0, "library", &sub)) {
			bc_err_set(e, "refusing to load module \"%s\": a library it loads is not safe", path);
			bc_err_detail(e, "%s", sub.msg);
			bc_err_hint(e, "%s", sub.hint[0] ? sub.hint : "fix the library's owner or mode");
			return -1;
		}
	}
	if (bc_module_check_header(path, &m->desc, e) || bc_module_check(path, m, e))
		return -1;
	m->path = bc_xstrdup(path);
	return 0;
}

int bc_module_load(const char *path, bc_module *m, bc_err *e)
{
	char sha[65] = "";
	memset(m, 0, sizeof(*m));
	if (bc_module_pre_checks(path, sha, e))
		return -1;
	bc_probe p = { .path = path };
	bc_probe_files(&p, 1);
	if (!p.ok) {
		*e = p.err;
		return -1;
	}
	*m = p.m;
	memcpy(m->sha256, sha, sizeof(sha));
	if (bc_module_post_checks(path, m, e)) {
		bc_module_free(m);
		return -1;
	}
	return 0;
}

int bc_module_open(bc_module *m, bc_err *e)
{
	char sha[65] = "";
	if (m->handle)
		return 0;
	if (bc_file_sha256(m->path, sha, e))
		return -1;
	if (m->sha256[0] && strcmp(sha, m->sha256)) {
		bc_err_set(e, "module file \"%s\" changed since benchcore checked it", m->path);
		bc_err_detail(e, "Its sha256 was %s when benchcore started and is %s now.", m->sha256, sha);
		bc_err_hint(e, "do not rebuild or replace modules while benchcore runs");
		return -1;
	}
	void *h = dlopen(m->path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		bc_err_set(e, "could not load module \"%s\"", m->path);
		bc_err_detail(e, "%s", dlerror());
		return -1;
	}
	const bench_module_v1 *(*entry)(void);
	*(void **)&entry = dlsym(h, BENCH_ENTRY_SYMBOL);
	const bench_module_v1 *d = entry ? entry() : NULL;
	if (!d) {
		bc_err_set(e, "module \"%s\" describes itself differently when opened again: its entry "
			   "function is gone or returned NULL", m->path);
		bc_err_hint(e, "its entry function must always return the same descriptor");
		return -1;	/* never dlclose: a library's destructors may not expect it */
	}
	/* the whole description, as the probe made it: the host fills options
	   and reads records by the probe's, never by a second one */
	if (bc_module_check_header(m->path, d, e) || bc_module_same(m, d, e))
		return -1;
	bench_module_v1 c;
	memset(&c, 0, sizeof(c));
	memcpy(&c, d, d->struct_size < sizeof(c) ? d->struct_size : sizeof(c));
	/* the tables stay the checked copies; the callbacks become the real ones */
#define REAL(f, stub) m->desc.f = c.f;
	BC_ABI_CALLBACKS(REAL)
#undef REAL
	m->handle = h;
	return 0;
}
