/* site.conf loading. libconfig parses; every check is ours, because libconfig
 * 1.5 reports neither unknown keys nor over-long integers (it reads those as
 * -1), so each setting is converted to text and validated like a command-line
 * value, with the file and line in every message. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libconfig.h>
#include "config.h"
#include "mset.h"
#include "settings.h"



/* Text of a scalar setting, or NULL (with e set) for a group or list. */
static char *scalar_text(const config_setting_t *s, const char *where, bc_err *e)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: {
		long long v = config_setting_get_int64(s);
		return bc_xasprintf("%lld", v);
	}
	case CONFIG_TYPE_FLOAT:
		return bc_xstrdup(bc_fmt_double(config_setting_get_float(s), (char[BC_DOUBLE_TEXT]){ 0 }, BC_DOUBLE_TEXT));
	case CONFIG_TYPE_STRING:
		return bc_xstrdup(config_setting_get_string(s));
	case CONFIG_TYPE_BOOL:
		return bc_xstrdup(config_setting_get_bool(s) ? "true" : "false");
	default:
		bc_err_set(e, "%s: \"%s\" must be a single value or a list of values", where,
			   config_setting_name(s) ? config_setting_name(s) : "value");
		return NULL;
	}
}

static char *where_of(const config_setting_t *s, const char *file)
{
	const char *f = config_setting_source_file(s);
	return bc_xasprintf("%s:%u", f ? f : file, config_setting_source_line(s));
}

/* libconfig 1.5 reads an integer literal too large for 64 bits as -1 without
   complaint. Such a -1 is caught by looking for "-1" on its source line. */
static int int_overflowed(const config_setting_t *s)
{
	int t = config_setting_type(s);
	if ((t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) || config_setting_get_int64(s) != -1)
		return 0;
	const char *f = config_setting_source_file(s);
	FILE *fp = f ? fopen(f, "re") : NULL;
	if (!fp)
		return 0;
	char line[4096];
	int found = 0;
	for (unsigned ln = 1; fgets(line, sizeof(line), fp); ln++)
		if (ln == config_setting_source_line(s)) {
			found = strstr(line, "-1") != NULL;
			break;
		}
	fclose(fp);
	return !found;
}

/* libconfig 1.7 (Debian 13) refuses such a literal itself, as a "syntax
   error" on its line: 1 when line ln of file holds a decimal integer outside
   64 bits (outside strings), the literal (cut to n - 1 bytes) in out; the
   error is then named as 1.5's -1 is above. */
static int big_int_on_line(const char *file, int ln, char *out, size_t n)
{
	FILE *fp = fopen(file, "re");
	char line[4096];
	int found = 0, i = 0;
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp) && ++i < ln)
		;
	fclose(fp);
	if (i != ln)
		return 0;
	for (const char *p = line, *q = NULL; *p && !found; p++) {
		if (*p == '"') {	/* a string: skip to its closing quote */
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				break;
			continue;
		}
		if (*p == '#' || (*p == '/' && (p[1] == '/' || p[1] == '*')))
			break;
		if (!((*p >= '0' && *p <= '9') || (*p == '-' && p[1] >= '0' && p[1] <= '9')) ||
		    (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.')))
			continue;
		errno = 0;
		char *end;
		(void)strtoll(p, &end, 10);
		q = end;
		if (errno == ERANGE) {
			snprintf(out, n, "%.*s", (int)(q - p), p);
			found = 1;
		}
		p = q - 1;
	}
	return found;
}

/* Every element of a scalar or list/array setting, as text. */
static char **values_of(const config_setting_t *s, const char *where, bc_err *e)
{
	int t = config_setting_type(s);
	int n = (t == CONFIG_TYPE_LIST || t == CONFIG_TYPE_ARRAY) ? config_setting_length(s) : 1;
	char **v = bc_xcalloc((size_t)n + 1, sizeof(*v));
	if (n == 0) {
		bc_err_set(e, "%s: \"%s\" is an empty list", where, config_setting_name(s));
		free(v);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		const config_setting_t *el = (n == 1 && t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_ARRAY)
			? s : config_setting_get_elem(s, (unsigned)i);
		if (int_overflowed(el)) {
			bc_err_set(e, "%s: integer out of range in \"%s\"", where, config_setting_name(s));
			bc_err_detail(e, "Integers must fit in 64 bits.");
			bc_strv_free(v);
			return NULL;
		}
		if (!(v[i] = scalar_text(el, where, e))) {
			bc_strv_free(v);
			return NULL;
		}
	}
	return v;
}

/* A setting of the table from site.conf into base (see bc_setting_set). */
static int set_from(const bc_setting *st, void *base, const config_setting_t *s, const char *where, bc_err *e)
{
	char **v = values_of(s, where, e);
	if (!v)
		return -1;
	int rc = bc_setting_set(st, base, v, where, e);
	bc_strv_free(v);
	return rc;
}


/* custom = { name = "..."; set = "CMD {value}"; read = "CMD"; values = [...];
   timeout = 30; }, or a list of such groups (timeout: seconds each command
   may take, BC_MCOMMAND_TIMEOUT when not given). */
static int load_custom(bc_mconf *mc, const config_setting_t *g, const char *file, bc_err *e)
{
	char *w = where_of(g, file);
	const char *name = NULL, *set = NULL, *read = NULL;
	const config_setting_t *vals = config_setting_get_member(g, "values");
	int rc = -1;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP || !config_setting_lookup_string(g, "name", &name) ||
	    !config_setting_lookup_string(g, "set", &set) || !config_setting_lookup_string(g, "read", &read) || !vals) {
		bc_err_set(e, "%s: custom must be a group { name = \"...\"; set = \"CMD {value}\"; read = \"CMD\"; "
			   "values = [ ... ]; }", w);
		goto out;
	}
	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(name)) {
		bc_err_set(e, "%s: custom name \"%s\": letters, digits, _ and - only", w, name);
		goto out;
	}
	if (!strstr(set, "{value}")) {
		bc_err_set(e, "%s: custom \"%s\": set has no {value} (where the value goes)", w, name);
		goto out;
	}
	double timeout = 0;
	const config_setting_t *to = config_setting_get_member(g, "timeout");
	if (to) {
		int t = config_setting_type(to);
		timeout = t == CONFIG_TYPE_INT ? config_setting_get_int(to) : t == CONFIG_TYPE_FLOAT ?
			  config_setting_get_float(to) : -1;
		if (!(timeout > 0 && timeout <= 86400)) {
			char *wt = where_of(to, file);
			bc_err_set(e, "%s: custom \"%s\": timeout is a number of seconds above 0 and at most 86400", wt, name);
			free(wt);
			goto out;
		}
	}
	for (int i = 0; i < config_setting_length(g); i++) {
		const char *k = config_setting_name(config_setting_get_elem(g, (unsigned)i));
		if (strcmp(k, "name") && strcmp(k, "set") && strcmp(k, "read") && strcmp(k, "values") && strcmp(k, "timeout")) {
			bc_err_set(e, "%s: custom \"%s\": unknown key \"%s\" (it takes name, set, read, values, timeout)", w,
				   name, k);
			goto out;
		}
	}
	char *wv = where_of(vals, file), **v = values_of(vals, wv, e), *key = bc_xasprintf("custom.%s", name);
	if (v) {
		bc_given *gv = bc_mconf_give(mc, key, v, wv);
		free(gv->set);
		free(gv->read);
		gv->set = bc_xstrdup(set);
		gv->read = bc_xstrdup(read);
		gv->timeout = timeout;
		rc = 0;
	}
	free(key);
	free(wv);
out:
	free(w);
	return rc;
}

/* sysctl = { name = "vm.swappiness"; value = 10; } (value a list: a sweep),
   or a list of such groups: libconfig's setting names cannot hold a dot. */
static int load_sysctl(bc_mconf *mc, const config_setting_t *g, const char *file, bc_err *e)
{
	char *w = where_of(g, file);
	const char *name = NULL;
	const config_setting_t *val = config_setting_get_member(g, "value");
	int rc = -1;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP || !config_setting_lookup_string(g, "name", &name) || !val) {
		bc_err_set(e, "%s: sysctl must be a group { name = \"vm.swappiness\"; value = 10; } or a list ( { ... }, "
			   "{ ... } ); a list as value is a sweep", w);
	} else {
		char *wv = where_of(val, file), **v = values_of(val, wv, e), *key = bc_xasprintf("sysctl.%s", name);
		if (v) {
			bc_mconf_give(mc, key, v, wv);
			rc = 0;
		}
		free(key);
		free(wv);
	}
	free(w);
	return rc;
}

/* machine = { thp = ["always", "never"]; sysctl = { name = "vm.swappiness"; value = 10; }; ... } */
static int load_machine(bc_mconf *mc, const config_setting_t *g, const char *file, bc_err *e)
{
	char *w = where_of(g, file), names[512];
	int rc = 0;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
		bc_err_set(e, "%s: \"machine\" must be a group { thp = \"never\"; ... }", w);
		free(w);
		return -1;
	}
	mc->set = 1;
	for (int i = 0; !rc && i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		char *ws = where_of(s, file);
		if (!strcmp(key, "sysctl")) {
			int list = config_setting_type(s) == CONFIG_TYPE_LIST;
			for (int j = 0; !rc && j < (list ? config_setting_length(s) : 1); j++)
				rc = load_sysctl(mc, list ? config_setting_get_elem(s, (unsigned)j) : s, file, e);
		} else if (!strcmp(key, "custom")) {
			int list = config_setting_type(s) == CONFIG_TYPE_LIST;
			for (int j = 0; !rc && j < (list ? config_setting_length(s) : 1); j++)
				rc = load_custom(mc, list ? config_setting_get_elem(s, (unsigned)j) : s, file, e);
		} else if (!strcmp(key, "device") || (bc_mkind_find(key) && !(bc_mkind_find(key)->flags & BC_MKF_SUB))) {
			char **v = values_of(s, ws, e);
			if (v)
				bc_mconf_give(mc, key, v, ws);
			rc = v ? 0 : -1;
		} else {
			bc_mkind_names(names, sizeof(names));
			bc_err_set(e, "%s: unknown machine setting \"%s\"", ws, key);
			bc_err_detail(e, "A machine group takes: %s, device.", names);
			bc_err_hint(e, "sysctl = { name = \"vm.swappiness\"; value = 10; }; custom = { name; set; read; values; } (see docs/machine.md)");
			rc = -1;
		}
		free(ws);
	}
	free(w);
	return rc;
}

static int load_module_entry(bc_config *c, const config_setting_t *g, bc_err *e)
{
	char *where = where_of(g, c->file);
	char buf[512];
	int rc = -1;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
		bc_err_set(e, "%s: each entry of \"modules\" must be a group { name = \"...\"; ... }", where);
		goto out;
	}
	const char *name = NULL;
	if (!config_setting_lookup_string(g, "name", &name)) {
		bc_err_set(e, "%s: module entry without a name", where);
		bc_err_hint(e, "add name = \"cpu\"; (see benchcore list for the modules)");
		goto out;
	}
	bc_modconf *m = bc_config_add_module(c, name, where);
	/* run settings of the entry apply after the global ones, whatever the order */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < config_setting_length(g); i++) {
			const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
			const char *key = config_setting_name(s);
			char *w = where_of(s, c->file);
			int bad = 0;
			const bc_setting *st = bc_setting_find(key);
			if (pass == 0 && !st && !strcmp(key, "machine")) {
				bad = load_machine(&m->machine, s, c->file, e);
			} else if (pass == 1 && !st && !strcmp(key, "machine")) {
				bad = 0;
			} else if (pass == 0 && st && st->scope == BC_SCOPE_ENTRY && st->store != BC_ST_NONE) {
				bad = set_from(st, m, s, w, e);
			} else if (pass == 0 && st && st->scope == BC_SCOPE_RUN) {
				bad = set_from(st, &m->run, s, w, e);
			} else if (pass == 1 && (!st || st->scope == BC_SCOPE_GLOBAL)) {
				if (st) {
					bc_settings_names(buf, sizeof(buf), BC_SCOPE_RUN, BC_SCOPE_ENTRY);
					bc_err_set(e, "%s: \"%s\" is a global setting, not allowed in a module entry", w, key);
					bc_err_detail(e, "A module entry takes: %s, and the module's options.", buf);
					bad = 1;
				} else {
					char **v = values_of(s, w, e);
					bad = !v;
					if (v)
						bc_modconf_give(m, key, v, w);
				}
			}
			free(w);
			if (bad)
				goto out;
		}
	rc = 0;
out:
	free(where);
	return rc;
}

static int load_global(bc_config *c, const config_setting_t *s, bc_err *e)
{
	const char *key = config_setting_name(s);
	const bc_setting *st = bc_setting_find(key);
	char *w = where_of(s, c->file);
	char buf[512];
	int rc = -1;
	if (!st && !strcmp(key, "machine")) {
		rc = load_machine(&c->machine, s, c->file, e);
		goto out;
	}
	if (!st || st->scope == BC_SCOPE_ENTRY) {
		bc_settings_names(buf, sizeof(buf), BC_SCOPE_GLOBAL, BC_SCOPE_RUN);
		bc_err_set(e, "%s: unknown setting \"%s\"", w, key);
		bc_err_detail(e, "Valid top-level settings: %s.", buf);
		bc_err_hint(e, "module options go inside an entry of modules = ( { name = \"...\"; ... } )");
		goto out;
	}
	if (!strcmp(key, "modules")) {
		if (config_setting_type(s) != CONFIG_TYPE_LIST && config_setting_type(s) != CONFIG_TYPE_GROUP) {
			bc_err_set(e, "%s: \"modules\" must be a list of groups: modules = ( { name = \"cpu\"; } );", w);
			goto out;
		}
		rc = 0;
		goto out;	/* read after all globals, so entries inherit them */
	}
	if (st->store == BC_ST_NONE) {	/* another command's group (serve) */
		if (config_setting_type(s) != CONFIG_TYPE_GROUP) {
			bc_err_set(e, "%s: \"%s\" must be a group { ... }", w, key);
			goto out;
		}
		rc = 0;
		goto out;
	}
	if (st->store == BC_ST_STRING && config_setting_type(s) != CONFIG_TYPE_STRING) {
		bc_err_set(e, "%s: \"%s\" takes one string", w, key);
		goto out;
	}
	rc = set_from(st, st->scope == BC_SCOPE_RUN ? (void *)&c->run : (void *)c, s, w, e);
	if (!rc && st->store == BC_ST_STRV && !strcmp(key, "module_path")) {
		/* a relative entry is relative to the config file, not to wherever
		   benchcore happens to be started */
		const char *slash = c->file ? strrchr(c->file, '/') : NULL;
		for (size_t i = 0; c->module_path[i] && slash; i++)
			if (c->module_path[i][0] != '/') {
				char *abs = bc_xasprintf("%.*s/%s", (int)(slash - c->file), c->file, c->module_path[i]);
				free(c->module_path[i]);
				c->module_path[i] = abs;
			}
	}
out:
	free(w);
	return rc;
}

#define MAX_CONFIG (1 << 20)

/* A config file, and every file it @includes, must be a regular file of at
   most 1 MiB: a FIFO would block libconfig forever, /dev/zero would be read
   without end, and a config this large is a mistake. */
static int check_input(const char *file, const char *from, int from_line, int level, bc_err *e)
{
	char line[4096];
	bc_err why;
	if (level > 8) {
		bc_err_set(e, "%s:%d: @include nested more than 8 deep (a file including itself?)", from,
			   from_line);
		return -1;
	}
	int fd = bc_open_regular(file, MAX_CONFIG, &why);
	if (fd < 0) {
		if (level == 0) {
			bc_err_set(e, "could not read config file \"%s\": %s", file, why.msg);
		} else {
			bc_err_set(e, "%s:%d: @include \"%s\": %s", from, from_line, file, why.msg);
			bc_err_hint(e, "a relative @include path is read from the current directory, as libconfig does");
		}
		return -1;
	}
	FILE *f = fdopen(fd, "r");
	int rc = 0, depth = 0, lineno = 0;
	while (f && !rc && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *q, *end;
		lineno++;
		if (strncmp(p, "@include", 8) || !(q = strchr(p + 8, '"')) || !(end = strchr(q + 1, '"')))
			continue;
		*end = '\0';
		if (++depth > 32) {
			bc_err_set(e, "%s:%d: too many @include lines", file, lineno);
			rc = -1;
		} else {
			rc = check_input(q + 1, file, lineno, level + 1, e);
		}
	}
	if (f)
		fclose(f);
	else
		close(fd);
	return rc;
}

int bc_config_load(bc_config *c, const char *file, bc_err *e)
{
	config_t cfg;
	int rc = -1;
	if (check_input(file, file, 0, 0, e))
		return -1;
	config_init(&cfg);
	if (!config_read_file(&cfg, file)) {
		const char *ef = config_error_file(&cfg);
		char big[64];
		if (big_int_on_line(ef ? ef : file, config_error_line(&cfg), big, sizeof(big))) {
			bc_err_set(e, "%s:%d: integer out of range: %s", ef ? ef : file, config_error_line(&cfg), big);
			bc_err_detail(e, "Integers must fit in 64 bits.");
			goto out;
		}
		bc_err_set(e, "%s:%d: syntax error: %s", ef ? ef : file, config_error_line(&cfg),
			   config_error_text(&cfg));
		bc_err_hint(e, "site.conf uses libconfig syntax: key = value; lists in [ ], groups in { }, module entries in ( )");
		goto out;
	}
	free(c->file);
	c->file = bc_xstrdup(file);
	config_setting_t *root = config_root_setting(&cfg);
	for (int i = 0; i < config_setting_length(root); i++)
		if (load_global(c, config_setting_get_elem(root, (unsigned)i), e))
			goto out;
	config_setting_t *mods = config_lookup(&cfg, "modules");
	for (int i = 0; mods && i < config_setting_length(mods); i++)
		if (load_module_entry(c, config_setting_get_elem(mods, (unsigned)i), e))
			goto out;
	if (c->nmods == 0) {
		bc_err_set(e, "%s: no modules to run", file);
		bc_err_hint(e, "add modules = ( { name = \"cpu\"; } );");
		goto out;
	}
	rc = 0;
out:
	config_destroy(&cfg);
	return rc;
}

