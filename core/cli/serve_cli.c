/* `benchcore serve`: flags and config for a module's serve hook.
 *
 * One table drives parsing, site.conf keys and --help. The secret comes
 * from site.conf only (serve = { secret = "..."; } or secret_env /
 * secret_file, as module options do), never from the command line where ps
 * would show it, and it is never printed. */
#include <errno.h>
#include <libconfig.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "loader.h"
#include "serve_cli.h"
#include "settings.h"
#include "util.h"

enum { SV_MODULE, SV_BIND, SV_PORT, SV_ONCE, SV_MAXCL, SV_IDLE, SV_MAXDUR, SV_MAXTHR, SV_MAXMEM, SV_CONFIG,
       SV_MODPATH, SV_HELP };

typedef struct serve_flag {
	int id;
	const char *lng;	/* --flag; its site.conf key is the same with '_' for '-' */
	char shrt;
	const char *arg;	/* NULL: no value */
	int in_conf;		/* may be set in serve = { } */
	const char *help;	/* "%d" in the port's help is the default port */
} serve_flag;

static const serve_flag serve_flags[] = {
	{ SV_MODULE, "module", 0, "NAME", 1, "module to serve (default: the only loaded module with a serve hook)" },
	{ SV_BIND, "bind", 0, "ADDR", 1, "address to listen on (default 127.0.0.1; 0.0.0.0 or :: for every interface)" },
	{ SV_PORT, "port", 0, "N", 1, "TCP port (default %s; 0 = any free port)" },
	{ SV_ONCE, "once", 0, NULL, 1, "serve one test, then exit" },
	{ SV_MAXCL, "max-clients", 0, "N", 1, "tests at once; a client beyond them is told \"busy\" (default 4)" },
	{ SV_IDLE, "idle-timeout", 0, "S", 1, "drop a client whose connections are silent this long (default 30)" },
	{ SV_MAXDUR, "max-duration", 0, "S", 1, "stop a test running longer than this (default 0 = no limit)" },
	{ SV_MAXTHR, "max-threads", 0, "N", 1, "worker threads of all running tests together; a test beyond is refused (default 64)" },
	{ SV_MAXMEM, "max-memory", 0, "SIZE", 1, "buffers of all running tests together, e.g. 512M; a test beyond is refused (default 512M)" },
	{ SV_CONFIG, "config", 'c', "FILE", 0, "read serve = { secret = \"...\"; ... } (or secret_env / secret_file) from FILE" },
	{ SV_MODPATH, "module-path", 0, "DIR", 0, "search DIR for modules first" },
	{ SV_HELP, "help", 'h', NULL, 0, "this help" },
	{ 0, NULL, 0, NULL, 0, NULL }
};

typedef struct serve_opts {
	const char *given[SV_HELP + 1];	/* flag values as text, NULL = not given */
	char *conf[SV_HELP + 1];	/* the same from site.conf (malloc'd) */
	char *conf_where[SV_HELP + 1];
	char *secret;			/* malloc'd, wiped before free */
} serve_opts;

static int sv_stop_fd = -1;

static void sv_on_signal(int sig)
{
	int saved = errno;
	uint64_t one = 1;
	(void)sig;
	if (write(sv_stop_fd, &one, sizeof(one)) < 0) {
		/* nothing to do in a handler */
	}
	errno = saved;
}

/* The module's lines quote what peers sent (a parser's error text holds
   their bytes): escaped, so a peer cannot write to the operator's terminal. */
static void sv_log(int level, const char *fmt, ...)
{
	static const char *const tags[] = { "error: ", "warning: ", "", "debug: " };
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char *safe = bc_printable(msg);
	fprintf(stderr, "benchcore serve: %s%s\n", tags[level >= 0 && level <= 3 ? level : 2], safe);
	free(safe);
}

static void sv_listening(const char *addr, int port)
{
	printf("benchcore serve: listening on %s%s%s:%d\n", strchr(addr, ':') ? "[" : "", addr,
	       strchr(addr, ':') ? "]" : "", port);
	fflush(stdout);
}

static void serve_usage(FILE *f, const bc_module *m)
{
	char port[96] = "the module's serve_port";
	if (m)
		snprintf(port, sizeof(port), "%d, module %s", m->desc.serve_port, m->desc.name);
	fprintf(f, "usage: benchcore serve [options]\n\n"
		"Runs the server half of a module that measures between two machines, until\n"
		"SIGINT, SIGTERM or SIGHUP. Clients run `benchcore run MODULE server=HOST:PORT`.\n\n"
		"options:\n");
	for (const serve_flag *o = serve_flags; o->lng; o++) {
		char left[64], help[256];
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->shrt ? "-" : "", o->shrt ? o->shrt : ' ',
			 o->shrt ? ", " : "  ", o->lng, o->arg ? " " : "", o->arg ? o->arg : "");
		if (o->id == SV_PORT)
			snprintf(help, sizeof(help), o->help, port);
		else
			snprintf(help, sizeof(help), "%s", o->help);
		fprintf(f, "  %-28s %s\n", o->shrt ? left : left + 1, help);
	}
	fprintf(f, "\nsite.conf (-c): a group serve = { secret = \"...\"; port = N; ... } takes the\n"
		"options above with '_' for '-' (max_clients, idle_timeout, ...), the command line\n"
		"winning; the secret only from there, or as secret_env = \"VAR\" / secret_file = \"/path\".\n"
		"With a secret, clients prove they know it (HMAC challenge); it never crosses the wire.\n"
		"Exit status: 0 stopped by a signal (or --once done), 1 the server failed, 2 usage,\n"
		"config or module error.\n");
}

static int sv_usage_error(const char *fmt, const char *a)
{
	bc_err e;
	bc_err_set(&e, fmt, a);
	bc_err_hint(&e, "see benchcore serve --help");
	bc_err_print_as("benchcore serve", &e);
	return 2;
}

static const serve_flag *flag_by_conf_key(const char *key)
{
	for (const serve_flag *o = serve_flags; o->lng; o++) {
		char k[32];
		snprintf(k, sizeof(k), "%s", o->lng);
		for (char *p = k; *p; p++)
			if (*p == '-')
				*p = '_';
		if (o->in_conf && !strcmp(k, key))
			return o;
	}
	return NULL;
}

static int parse_args(int argc, char **argv, serve_opts *so)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const serve_flag *o = NULL;
		for (const serve_flag *p = serve_flags; p->lng && !o && a[0] == '-'; p++) {
			size_t l = strlen(p->lng);
			if (a[1] == '-' && !strncmp(a + 2, p->lng, l) && (a[2 + l] == '\0' || a[2 + l] == '='))
				o = p, val = a[2 + l] == '=' ? a + 3 + l : NULL;
			else if (a[1] != '-' && p->shrt && a[1] == p->shrt)
				o = p, val = a[2] ? a + 2 : NULL;
		}
		if (!o && !strncmp(a, "--secret", 8))
			return sv_usage_error("\"%s\": the secret is read from the config file only "
					      "(serve = { secret_file = \"...\"; }), never from the command line", a);
		if (!o)
			return sv_usage_error("unknown option or argument \"%s\"", a);
		if (o->arg && !val) {
			if (i + 1 >= argc)
				return sv_usage_error("option \"%s\" needs a value", a);
			val = argv[++i];
		}
		if (!o->arg && val)
			return sv_usage_error("option \"%s\" takes no value", a);
		so->given[o->id] = o->arg ? val : "true";
	}
	return 0;
}

static char *setting_text(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return bc_xasprintf("%lld", (long long)config_setting_get_int64(s));
	case CONFIG_TYPE_FLOAT:
		return bc_xstrdup(bc_fmt_double(config_setting_get_float(s), (char[BC_DOUBLE_TEXT]){ 0 }, BC_DOUBLE_TEXT));
	case CONFIG_TYPE_BOOL:
		return bc_xstrdup(config_setting_get_bool(s) ? "true" : "false");
	case CONFIG_TYPE_STRING:
		return bc_xstrdup(config_setting_get_string(s));
	default:
		return NULL;
	}
}

/* The secret from secret / secret_env / secret_file, as plan.c resolves a
   module's secret option. */
static int conf_secret(serve_opts *so, const char *key, const char *text, const char *where,
		       const char *file, bc_err *e)
{
	if (so->secret) {
		bc_err_set(e, "%s: a second secret source \"%s\"", where, key);
		bc_err_detail(e, "Give one of secret, secret_env and secret_file.");
		return -1;
	}
	if (!strcmp(key, "secret_env")) {
		const char *v = getenv(text);
		if (!v) {
			bc_err_set(e, "%s: environment variable \"%s\" (for the serve secret) is not set", where, text);
			return -1;
		}
		so->secret = bc_xstrdup(v);
	} else if (!strcmp(key, "secret_file")) {
		char line[4096] = "";
		bc_err why;
		/* a FIFO or device is refused at once, never waited on */
		int fd = bc_open_regular(text, 1 << 20, &why);
		FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
		if (!f) {
			bc_err_set(e, "%s: could not read \"%s\" (for the serve secret): %s", where, text,
				   fd < 0 ? why.msg : strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
		line[strcspn(line, "\r\n")] = '\0';
		so->secret = bc_xstrdup(line);
	} else {
		struct stat st;
		so->secret = bc_xstrdup(text);
		if (stat(file, &st) == 0 && (st.st_mode & S_IROTH))
			bc_warn("%s holds the serve secret and is readable by others; chmod o-r it, "
				"or use secret_file or secret_env instead", file);
	}
	if (!so->secret[0]) {
		bc_err_set(e, "%s: the serve secret is empty", where);
		bc_err_hint(e, "give a secret of a few random words, or remove the key to serve without one");
		return -1;
	}
	return 0;
}

static int conf_serve_group(serve_opts *so, const config_setting_t *g, const char *file, bc_err *e)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		char *where = bc_xasprintf("%s:%u", file, config_setting_source_line(s));
		char *text = setting_text(s);
		const serve_flag *o = flag_by_conf_key(key);
		int rc = 0;
		if (!text) {
			bc_err_set(e, "%s: \"%s\" must be a single value", where, key);
			rc = -1;
		} else if (!strcmp(key, "secret") || !strcmp(key, "secret_env") || !strcmp(key, "secret_file")) {
			rc = conf_secret(so, key, text, where, file, e);
		} else if (o) {
			free(so->conf[o->id]);
			free(so->conf_where[o->id]);
			so->conf[o->id] = text;
			so->conf_where[o->id] = where;
			text = where = NULL;
		} else {
			bc_err_set(e, "%s: unknown setting \"%s\" in serve", where, key);
			bc_err_detail(e, "serve takes: secret, secret_env, secret_file, module, bind, port, once, "
				      "max_clients, idle_timeout, max_duration, max_threads, max_memory.");
			rc = -1;
		}
		if (text && (!strcmp(key, "secret") || !strcmp(key, "secret_env") || !strcmp(key, "secret_file")))
			memset(text, 0, strlen(text));
		free(text);
		free(where);
		if (rc)
			return -1;
	}
	return 0;
}

/* site.conf: the serve group; other top-level settings belong to
   `benchcore -c` and are left alone, unknown ones are refused. */
static int conf_load(serve_opts *so, const char *file, bc_err *e)
{
	config_t cfg;
	int rc = -1;
	bc_err why;
	/* a FIFO as -c would hang config_read_file: refused before a read */
	int fd = bc_open_regular(file, 16 << 20, &why);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		bc_err_set(e, "could not read config file \"%s\": %s", file, fd < 0 ? why.msg : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	config_init(&cfg);
	int ok = config_read(&cfg, f);
	fclose(f);
	if (!ok) {
		const char *ef = config_error_file(&cfg);
		bc_err_set(e, "%s:%d: syntax error: %s", ef ? ef : file, config_error_line(&cfg),
			   config_error_text(&cfg));
		goto out;
	}
	config_setting_t *root = config_root_setting(&cfg);
	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
		const char *key = config_setting_name(s);
		int known = !strcmp(key, "serve");
		const bc_setting *st = bc_setting_find(key);
		known |= st && st->scope <= BC_SCOPE_RUN;
		if (!known) {
			bc_err_set(e, "%s:%u: unknown setting \"%s\"", file, config_setting_source_line(s), key);
			bc_err_hint(e, "benchcore serve reads serve = { secret = \"...\"; port = N; ... }");
			goto out;
		}
		if (!strcmp(key, "serve")) {
			if (config_setting_type(s) != CONFIG_TYPE_GROUP) {
				bc_err_set(e, "%s:%u: \"serve\" must be a group: serve = { secret_file = \"...\"; }",
					   file, config_setting_source_line(s));
				goto out;
			}
			if (conf_serve_group(so, s, file, e))
				goto out;
		}
	}
	rc = 0;
out:
	config_destroy(&cfg);
	return rc;
}

/* The value of flag id: command line, else site.conf, else def. */
static const char *opt_text(const serve_opts *so, int id, const char *def, const char **where)
{
	*where = "command line";
	if (so->given[id])
		return so->given[id];
	*where = so->conf_where[id];
	return so->conf[id] ? so->conf[id] : def;
}

static int opt_num(const serve_opts *so, int id, const char *def, double lo, double hi, int integer,
		   double *out, bc_err *e)
{
	const char *where, *text = opt_text(so, id, def, &where);
	if (bc_parse_double(text, out) || *out < lo || *out > hi || (integer && *out != (double)(long long)*out)) {
		bc_err_set(e, "%s: invalid value \"%s\" for %s", where ? where : "default", text,
			   serve_flags[id].lng);
		bc_err_detail(e, "%s takes %s from %g to %g.", serve_flags[id].lng,
			      integer ? "an integer" : "a number", lo, hi);
		return -1;
	}
	return 0;
}

static const bc_module *pick_module(const bc_modset *set, const char *name, bc_err *e)
{
	const bc_module *found = NULL;
	char names[512] = "";
	size_t n = 0, o = 0;
	if (name) {
		found = bc_modset_find(set, name);
		if (!found) {
			bc_modset_missing(set, name, e);
			return NULL;
		}
		if (!found->desc.serve) {
			bc_err_set(e, "module \"%s\" has no server half", name);
			bc_err_hint(e, "benchcore serve runs modules that measure against a peer machine");
			return NULL;
		}
		return found;
	}
	for (size_t i = 0; i < set->nmods; i++)
		if (set->mods[i].desc.serve) {
			found = &set->mods[i];
			n++;
			if (o < sizeof(names))
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? ", " : "",
						      set->mods[i].desc.name);
		}
	if (n == 1)
		return found;
	if (n == 0) {
		bc_err_set(e, "no loaded module has a server half");
		bc_err_hint(e, "see benchcore list; a module with a serve hook must be built and found");
	} else {
		bc_err_set(e, "several modules have a server half: %s", names);
		bc_err_hint(e, "choose one with --module NAME");
	}
	return NULL;
}

static void opts_free(serve_opts *so)
{
	for (int i = 0; i <= SV_HELP; i++) {
		free(so->conf[i]);
		free(so->conf_where[i]);
	}
	if (so->secret) {
		memset(so->secret, 0, strlen(so->secret));
		free(so->secret);
	}
}

static int opt_size(const serve_opts *so, int id, const char *def, uint64_t lo, uint64_t *out, bc_err *e)
{
	const char *where, *text = opt_text(so, id, def, &where);
	if (bc_parse_size(text, out) || *out < lo) {
		bc_err_set(e, "%s: invalid value \"%s\" for %s", where ? where : "default", text, serve_flags[id].lng);
		bc_err_detail(e, "%s takes a size of at least %lluM: a number with K, M, G or T.", serve_flags[id].lng,
			      (unsigned long long)(lo >> 20));
		return -1;
	}
	return 0;
}

static int serve_settings(const serve_opts *so, const bc_module *m, bench_serve_v1 *a, bc_err *e)
{
	double port, maxcl, idle, maxdur, maxthr;
	uint64_t maxmem;
	const char *where, *once = opt_text(so, SV_ONCE, "false", &where);
	char def_port[16];
	snprintf(def_port, sizeof(def_port), "%d", m->desc.serve_port);
	if (opt_num(so, SV_PORT, def_port, 0, 65535, 1, &port, e) ||
	    opt_num(so, SV_MAXCL, "4", 1, 4096, 1, &maxcl, e) ||
	    opt_num(so, SV_IDLE, "30", 0.1, 86400, 0, &idle, e) ||
	    opt_num(so, SV_MAXDUR, "0", 0, 1e7, 0, &maxdur, e) ||
	    opt_num(so, SV_MAXTHR, "64", 1, 1024, 1, &maxthr, e) ||
	    opt_size(so, SV_MAXMEM, "512M", 1 << 20, &maxmem, e))
		return -1;
	if (strcmp(once, "true") && strcmp(once, "false")) {
		bc_err_set(e, "%s: invalid value \"%s\" for once", where, once);
		bc_err_detail(e, "once takes true or false.");
		return -1;
	}
	a->struct_size = sizeof(*a);
	a->bind = opt_text(so, SV_BIND, "127.0.0.1", &where);
	a->port = (int)port;
	a->once = !strcmp(once, "true");
	a->max_clients = (unsigned)maxcl;
	a->idle_timeout_s = idle;
	a->max_duration_s = maxdur;
	a->max_threads = (unsigned)maxthr;
	a->max_memory = maxmem;
	a->secret = so->secret;
	a->log = sv_log;
	a->listening = sv_listening;
	return 0;
}

static int serve_run(bc_module *m, bench_serve_v1 *a)
{
	bc_err e;
	/* described by a probe so far: open it here, in the serving process */
	if (bc_module_open(m, &e)) {
		bc_err_print(&e);
		return 1;
	}
	struct sigaction sa = { .sa_handler = sv_on_signal }, ign = { .sa_handler = SIG_IGN };
	sv_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sv_stop_fd < 0) {
		fprintf(stderr, "benchcore serve: error: eventfd: %s\n", strerror(errno));
		return 1;
	}
	a->stop_fd = sv_stop_fd;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &ign, NULL);	/* a client vanishing must not end the server */
	if (!a->secret && strcmp(a->bind, "127.0.0.1") && strcmp(a->bind, "::1") && strcmp(a->bind, "localhost"))
		sv_log(1, "no secret set: anyone who reaches %s can run tests (serve = { secret_file = ...; })", a->bind);
	sv_log(2, "module %s %s, %s, max %u clients, %u threads, %llu MiB", m->desc.name,
	       m->desc.version ? m->desc.version : "", a->secret ? "clients must prove the secret" : "no authentication",
	       a->max_clients, a->max_threads, (unsigned long long)(a->max_memory >> 20));
	int rc = m->desc.serve(a);
	sv_log(2, "stopped");
	close(sv_stop_fd);
	sv_stop_fd = -1;
	return rc == BENCH_OK ? 0 : 1;
}

int bc_cmd_serve(int argc, char **argv)
{
	serve_opts so;
	bc_modset set;
	bc_err e;
	bench_serve_v1 a;
	int rc = 2;
	memset(&so, 0, sizeof(so));
	memset(&a, 0, sizeof(a));
	if (parse_args(argc, argv, &so))
		return 2;
	char *dirs[2] = { (char *)so.given[SV_MODPATH], NULL };
	bc_modset_load(&set, bc_module_search_path(dirs[0] ? dirs : NULL));
	const bc_module *m = NULL;
	if (so.given[SV_HELP]) {
		bc_err ignored;
		serve_usage(stdout, pick_module(&set, so.given[SV_MODULE], &ignored));
		rc = 0;
		goto out;
	}
	if (so.given[SV_CONFIG] && conf_load(&so, so.given[SV_CONFIG], &e)) {
		bc_err_print(&e);
		goto out;
	}
	const char *where, *name = opt_text(&so, SV_MODULE, NULL, &where);
	if (!(m = pick_module(&set, name, &e)) || serve_settings(&so, m, &a, &e)) {
		bc_err_print(&e);
		goto out;
	}
	rc = serve_run((bc_module *)m, &a);	/* the set owns it; opening fills its callbacks */
out:
	bc_modset_free(&set);
	opts_free(&so);
	return rc;
}
