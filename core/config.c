/* site.conf loading. libconfig parses; every check is ours, because libconfig
 * 1.5 reports neither unknown keys nor over-long integers (it reads those as
 * -1), so each setting is converted to text and validated like a command-line
 * value, with the file and line in every message. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "config.h"

const bc_keydoc bc_config_keys[] = {
	{ "label", "string", "host name", "name of this system in compare and report", 1 },
	{ "module_path", "list of strings", "none", "directories searched for modules before the built-in ones", 1 },
	{ "output", "string", "none", "JSON results file (like -o)", 1 },
	{ "csv", "string", "none", "CSV results file (like --csv)", 1 },
	{ "percentiles", "list of numbers", "[50, 90, 95, 99, 99.9, 99.99]", "latency percentiles to report", 1 },
	{ "skip_heavy", "bool", "false", "skip modules that declare themselves heavy (small VMs)", 1 },
	{ "modules", "list of groups", "none", "the modules to run, each ( { name = \"cpu\"; ... } )", 1 },
	{ "threads", "int or list of ints", "1", "worker threads; a list is a sweep", 2 },
	{ "time", "seconds", "10", "measured window; 0 = until events are done", 2 },
	{ "warmup", "seconds", "1", "run before measuring; nothing from it is reported", 2 },
	{ "events", "int", "0", "stop after this many events (0 = no limit)", 2 },
	{ "repeat", "int", "1", "repeats of every case (compare needs 5 or more)", 2 },
	{ "report_interval", "seconds", "1", "interval of the progress reports (sub-second allowed)", 2 },
	{ "rate", "events/s", "0", "open loop: total arrival rate (0 = closed loop)", 2 },
	{ "arrival", "poisson|fixed", "poisson", "open-loop arrival process", 2 },
	{ "keep", "bool", "false", "keep prepared data (skip cleanup)", 2 },
	{ "isolate", "bool", "true", "run each case in a child process", 2 },
	{ "grace", "seconds", "10", "how long past warmup + time a case may run before it is killed", 2 },
	{ "thread_init_timeout", "seconds", "60", "how long the threads' thread_init may take before the case fails", 2 },
	{ "prepare_timeout", "seconds", "1800", "how long prepare of one case may take before it is killed", 2 },
	{ "init_timeout", "seconds", "60", "how long init of one case may take before it is killed", 2 },
	{ "max_error_rate", "share 0..1", "0.01", "a case whose failed operations exceed this share of all fails (1 = never; all failed always fails)", 2 },
	{ "repeat_order", "rounds|back_to_back", "rounds", "rounds: every case of a module once (shuffled), then again, repeat times; back_to_back: the repeats of a case one after another", 2 },
	{ "seed", "int", "random", "seed of the shuffled order of rounds (recorded in the results: give it to reproduce an order)", 2 },
	{ "name", "string", "required", "the module's name (see benchcore list)", 3 },
	{ "enabled", "bool", "true", "false skips the module", 3 },
	{ NULL, NULL, NULL, NULL, 0 }
};

static const double default_pct[] = { 50, 90, 95, 99, 99.9, 99.99 };

void bc_config_init(bc_config *c)
{
	memset(c, 0, sizeof(*c));
	c->run.threads[0] = 1;
	c->run.nthreads = 1;
	c->run.time_s = 10;
	c->run.warmup_s = 1;
	c->run.repeat = 1;
	c->run.report_interval = 1;
	c->run.isolate = 1;
	c->run.grace = 10;
	c->run.thread_init_timeout = 60;
	c->run.prepare_timeout = 1800;
	c->run.init_timeout = 60;
	c->run.max_error_rate = 0.01;
	memcpy(c->pct, default_pct, sizeof(default_pct));
	c->npct = sizeof(default_pct) / sizeof(default_pct[0]);
}

int bc_is_run_key(const char *key)
{
	for (const bc_keydoc *k = bc_config_keys; k->name; k++)
		if (k->scope == 2 && !strcmp(k->name, key))
			return 1;
	return 0;
}

static int keydoc_valid(const char *key, int scope_a, int scope_b)
{
	for (const bc_keydoc *k = bc_config_keys; k->name; k++)
		if ((k->scope == scope_a || k->scope == scope_b) && !strcmp(k->name, key))
			return 1;
	return 0;
}

static void keys_text(char *buf, size_t n, int scope_a, int scope_b)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const bc_keydoc *k = bc_config_keys; k->name && o < n; k++)
		if (k->scope == scope_a || k->scope == scope_b)
			o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", k->name);
}

static int num_in(const char *key, const char *text, double lo, double hi, double *out,
		  const char *where, bc_err *e)
{
	if (bc_parse_double(text, out) || *out < lo || *out > hi) {
		bc_err_set(e, "%s: invalid value \"%s\" for \"%s\"", where, text, key);
		bc_err_detail(e, "\"%s\" takes a number from %g to %g.", key, lo, hi);
		return -1;
	}
	return 0;
}

static int bool_text(const char *key, const char *text, int *out, const char *where, bc_err *e)
{
	if (!strcmp(text, "true") || !strcmp(text, "false")) {
		*out = !strcmp(text, "true");
		return 0;
	}
	bc_err_set(e, "%s: invalid value \"%s\" for \"%s\"", where, text, key);
	bc_err_detail(e, "\"%s\" takes true or false.", key);
	return -1;
}

int bc_runset_set(bc_runset *r, const char *key, const char *text, const char *where, bc_err *e)
{
	double d;
	if (!strcmp(key, "threads")) {
		char **parts = bc_split(text, ',');
		size_t n = bc_strv_len(parts);
		int rc = 0;
		if (n > sizeof(r->threads) / sizeof(r->threads[0])) {
			bc_err_set(e, "%s: too many thread counts (at most 64)", where);
			rc = -1;
		}
		for (size_t i = 0; i < n && !rc; i++) {
			rc = num_in(key, parts[i], 1, 4096, &d, where, e);
			if (!rc && d != floor(d)) {
				bc_err_set(e, "%s: invalid value \"%s\" for \"threads\"", where, parts[i]);
				bc_err_detail(e, "\"threads\" takes whole numbers from 1 to 4096.");
				rc = -1;
			}
			if (!rc)	/* only a checked value: (unsigned)-2.0 is undefined */
				r->threads[i] = (unsigned)d;
		}
		if (!rc)
			r->nthreads = n;
		bc_strv_free(parts);
		return rc;
	}
	if (!strcmp(key, "time"))
		return num_in(key, text, 0, 1e7, &r->time_s, where, e);
	if (!strcmp(key, "warmup"))
		return num_in(key, text, 0, 1e7, &r->warmup_s, where, e);
	if (!strcmp(key, "grace"))
		return num_in(key, text, 0, 1e7, &r->grace, where, e);
	if (!strcmp(key, "thread_init_timeout"))
		return num_in(key, text, 0.01, 1e7, &r->thread_init_timeout, where, e);
	if (!strcmp(key, "prepare_timeout"))
		return num_in(key, text, 0.01, 1e7, &r->prepare_timeout, where, e);
	if (!strcmp(key, "init_timeout"))
		return num_in(key, text, 0.01, 1e7, &r->init_timeout, where, e);
	if (!strcmp(key, "max_error_rate"))
		return num_in(key, text, 0, 1, &r->max_error_rate, where, e);
	if (!strcmp(key, "rate"))
		return num_in(key, text, 0, 1e9, &r->rate, where, e);
	if (!strcmp(key, "seed")) {
		int64_t v;
		if (bc_parse_int64(text, &v) || v < 0 || v > UINT32_MAX) {
			bc_err_set(e, "%s: invalid value \"%s\" for \"seed\"", where, text);
			bc_err_detail(e, "\"seed\" takes a whole number from 0 to 4294967295.");
			return -1;
		}
		r->seed = (uint32_t)v;
		r->seed_set = 1;
		return 0;
	}
	if (!strcmp(key, "repeat_order")) {
		if (strcmp(text, "rounds") && strcmp(text, "back_to_back")) {
			bc_err_set(e, "%s: invalid value \"%s\" for \"repeat_order\"", where, text);
			bc_err_detail(e, "valid choices are rounds, back_to_back");
			return -1;
		}
		r->back_to_back = !strcmp(text, "back_to_back");
		return 0;
	}
	if (!strcmp(key, "report_interval")) {
		if (num_in(key, text, 0, 1e6, &r->report_interval, where, e))
			return -1;
		if (r->report_interval > 0 && r->report_interval < 0.01) {
			bc_err_set(e, "%s: \"report_interval\" %s is too short", where, text);
			bc_err_detail(e, "The shortest interval is 0.01 s; 0 turns interval reports off.");
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "events") || !strcmp(key, "repeat")) {
		int64_t v;
		if (bc_parse_int64(text, &v) || v < (key[0] == 'r' ? 1 : 0) || v > (key[0] == 'r' ? 10000 : INT64_MAX)) {
			bc_err_set(e, "%s: invalid value \"%s\" for \"%s\"", where, text, key);
			bc_err_detail(e, "\"%s\" takes a whole number %s.", key,
				      key[0] == 'r' ? "from 1 to 10000" : "of 0 or more");
			return -1;
		}
		if (key[0] == 'r')
			r->repeat = (unsigned)v;
		else
			r->events = (uint64_t)v;
		return 0;
	}
	if (!strcmp(key, "arrival")) {
		if (strcmp(text, "poisson") && strcmp(text, "fixed")) {
			bc_err_set(e, "%s: invalid value \"%s\" for \"arrival\"", where, text);
			bc_err_detail(e, "valid choices are poisson, fixed");
			return -1;
		}
		r->arrival_fixed = !strcmp(text, "fixed");
		return 0;
	}
	if (!strcmp(key, "keep"))
		return bool_text(key, text, &r->keep, where, e);
	if (!strcmp(key, "isolate"))
		return bool_text(key, text, &r->isolate, where, e);
	bc_err_set(e, "%s: unknown setting \"%s\"", where, key);
	return -1;
}

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
		return bc_xasprintf("%.17g", config_setting_get_float(s));
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

static char *join(char **v)
{
	size_t len = 1;
	for (char **p = v; *p; p++)
		len += strlen(*p) + 1;
	char *s = bc_xcalloc(len, 1);
	for (char **p = v; *p; p++) {
		if (p != v)
			strcat(s, ",");
		strcat(s, *p);
	}
	return s;
}

static int set_run_from(bc_runset *r, const config_setting_t *s, const char *where, bc_err *e)
{
	const char *key = config_setting_name(s);
	char **v = values_of(s, where, e);
	if (!v)
		return -1;
	if (strcmp(key, "threads") && bc_strv_len(v) > 1) {
		bc_err_set(e, "%s: \"%s\" takes one value, not a list", where, key);
		bc_err_hint(e, "only threads and module options can be swept");
		bc_strv_free(v);
		return -1;
	}
	char *text = join(v);
	int rc = bc_runset_set(r, key, text, where, e);
	free(text);
	bc_strv_free(v);
	return rc;
}

bc_modconf *bc_config_add_module(bc_config *c, const char *name, const char *where)
{
	c->mods = realloc(c->mods, (c->nmods + 1) * sizeof(*c->mods));
	bc_modconf *m = &c->mods[c->nmods++];
	memset(m, 0, sizeof(*m));
	m->name = bc_xstrdup(name);
	m->where = bc_xstrdup(where);
	m->enabled = 1;
	m->run = c->run;
	return m;
}

void bc_modconf_give(bc_modconf *m, const char *key, char **texts, const char *where)
{
	for (size_t i = 0; i < m->ngiven; i++)
		if (!strcmp(m->given[i].key, key)) {	/* a later value wins (command line over file) */
			bc_strv_free(m->given[i].texts);
			free(m->given[i].where);
			m->given[i].texts = texts;
			m->given[i].where = bc_xstrdup(where);
			return;
		}
	m->given = realloc(m->given, (m->ngiven + 1) * sizeof(*m->given));
	m->given[m->ngiven++] = (bc_given){ bc_xstrdup(key), texts, bc_xstrdup(where) };
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
			if (pass == 0 && !strcmp(key, "enabled")) {
				char **v = values_of(s, w, e);
				bad = !v || bool_text(key, v[0], &m->enabled, w, e);
				bc_strv_free(v);
			} else if (pass == 0 && bc_is_run_key(key)) {
				bad = set_run_from(&m->run, s, w, e);
			} else if (pass == 1 && !bc_is_run_key(key) && strcmp(key, "name") && strcmp(key, "enabled")) {
				if (keydoc_valid(key, 1, 1)) {
					keys_text(buf, sizeof(buf), 2, 3);
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
	char *w = where_of(s, c->file);
	char buf[512];
	int rc = -1;
	char **v = NULL;
	if (!keydoc_valid(key, 1, 2)) {
		keys_text(buf, sizeof(buf), 1, 2);
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
	if (bc_is_run_key(key)) {
		rc = set_run_from(&c->run, s, w, e);
		goto out;
	}
	if (!(v = values_of(s, w, e)))
		goto out;
	if (!strcmp(key, "module_path")) {
		/* a relative entry is relative to the config file, not to wherever
		   benchcore happens to be started */
		const char *slash = c->file ? strrchr(c->file, '/') : NULL;
		for (size_t i = 0; v[i] && slash; i++)
			if (v[i][0] != '/') {
				char *abs = bc_xasprintf("%.*s/%s", (int)(slash - c->file), c->file, v[i]);
				free(v[i]);
				v[i] = abs;
			}
		bc_strv_free(c->module_path);
		c->module_path = v;
		v = NULL;
	} else if (!strcmp(key, "percentiles")) {
		size_t n = bc_strv_len(v);
		if (n > BC_MAX_PCT) {
			bc_err_set(e, "%s: at most %d percentiles", w, BC_MAX_PCT);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (num_in(key, v[i], 0.0001, 100, &c->pct[i], w, e))
				goto out;
		c->npct = n;
	} else if (!strcmp(key, "skip_heavy")) {
		if (bool_text(key, v[0], &c->skip_heavy, w, e))
			goto out;
	} else {
		if (bc_strv_len(v) != 1 || config_setting_type(s) != CONFIG_TYPE_STRING) {
			bc_err_set(e, "%s: \"%s\" takes one string", w, key);
			goto out;
		}
		char **dst = !strcmp(key, "label") ? &c->label : !strcmp(key, "output") ? &c->output : &c->csv;
		free(*dst);
		*dst = bc_xstrdup(v[0]);
	}
	rc = 0;
out:
	bc_strv_free(v);
	free(w);
	return rc;
}

int bc_config_load(bc_config *c, const char *file, bc_err *e)
{
	config_t cfg;
	struct stat st;
	int rc = -1;
	if (stat(file, &st) != 0) {
		bc_err_set(e, "could not read config file \"%s\": %s", file, strerror(errno));
		return -1;
	}
	config_init(&cfg);
	if (!config_read_file(&cfg, file)) {
		const char *ef = config_error_file(&cfg);
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

void bc_config_free(bc_config *c)
{
	for (size_t i = 0; i < c->nmods; i++) {
		bc_modconf *m = &c->mods[i];
		for (size_t j = 0; j < m->ngiven; j++) {
			free(m->given[j].key);
			free(m->given[j].where);
			bc_strv_free(m->given[j].texts);
		}
		free(m->given);
		free(m->name);
		free(m->where);
	}
	free(c->mods);
	free(c->file);
	free(c->label);
	free(c->output);
	free(c->csv);
	bc_strv_free(c->module_path);
	memset(c, 0, sizeof(*c));
}
