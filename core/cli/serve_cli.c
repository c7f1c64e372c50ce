/* `benchcore serve`: flags and config for a module's serve hook.
 *
 * Its settings are rows of settings.c's bc_serve_settings: one table gives
 * the defaults, the checks, the flags, the serve = { } keys, --help and
 * docs/settings.md. The secret comes from site.conf only (serve = { secret
 * = "..."; } or secret_env / secret_file, as module options do), never from
 * the command line where ps would show it, and it is never printed. */
#include <errno.h>
#include <libconfig.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "flags.h"
#include "loader.h"
#include "serve_cli.h"
#include "settings.h"
#include "util.h"

/* serve's own flags; the settings' flags come first (serve_flags). */
enum { SV_CONFIG = 1, SV_MODPATH, SV_HELP, SV_NEWSECRET, SV_SETTING = 100 };

static const bc_flag sv_own_flags[] = {
	{ "config", 'c', "FILE", SV_CONFIG, "read serve = { secret = \"...\"; ... } (or secret_env / secret_file) "
	  "from FILE", 0 },
	{ "module-path", 0, "DIR", SV_MODPATH, "search DIR for modules first", 0 },
	{ "new-secret", 0, "FILE", SV_NEWSECRET, "make a new random secret in FILE (a new file, 0600; never "
	  "one that is there) and serve with it: copy FILE to each client and give it there as "
	  "secret_file=FILE", 0 },
	{ "help", 'h', NULL, SV_HELP, "this help", 0 },
	{ NULL }
};

#define SV_MAX_FLAGS 32		/* rows of serve's flag table, its end included */

/* The command line is read twice: its own flags first (the config file to
   read, --help), then, once the file's values are in, the settings' flags
   over them. */
typedef struct serve_opts {
	const char *config, *modpath;
	const char *new_secret;		/* --new-secret FILE */
	int help;
	const char *module;		/* --module as given, for --help's port */
	int apply;			/* the second pass: settings' flags applied */
	bc_serveset set;
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

/* One flag per setting that has one, then serve's own; port's help names
   the default port of port_of (NULL: none known). */
static const bc_flag *serve_flags(const bc_module *port_of)
{
	static bc_flag tab[SV_MAX_FLAGS];
	static char help[SV_MAX_FLAGS][512];
	size_t n = bc_settings_flags(bc_serve_settings, tab, help, SV_MAX_FLAGS - 4, SV_SETTING, 0);
	for (size_t i = 0; i < n; i++) {
		const bc_setting *s = &bc_serve_settings[tab[i].code - SV_SETTING];
		if (!s->auto_offset)
			continue;
		if (port_of)	/* port: "auto" is the module's */
			snprintf(help[i], sizeof(help[i]), "%s (default %d, module %s)", s->flag_help,
				 port_of->desc.serve_port, port_of->desc.name);
		else
			snprintf(help[i], sizeof(help[i]), "%s (default: the module's serve_port)", s->flag_help);
	}
	for (const bc_flag *f = sv_own_flags; f->lng; f++)
		tab[n++] = *f;
	tab[n] = (bc_flag){ NULL };
	return tab;
}

static void serve_usage(FILE *f, const bc_module *m)
{
	fprintf(f, "usage: benchcore serve [options]\n\n"
		"Runs the server half of a module that measures between two machines, until\n"
		"SIGINT, SIGTERM or SIGHUP. Clients run `benchcore run MODULE server=HOST:PORT`.\n\n"
		"options:\n");
	bc_flags_help(f, serve_flags(m), 0);
	fprintf(f, "\nsite.conf (-c): a group serve = { secret = \"...\"; port = N; ... } takes the\n"
		"options above with '_' for '-' (max_clients, idle_timeout, ...), the command line\n"
		"winning; the secret only from there, or as secret_env = \"VAR\" / secret_file = \"/path\";\n"
		"or one command: benchcore serve --bind 0.0.0.0 --new-secret /path (a new random secret\n"
		"in a new 0600 file, copied to the clients as their secret_file).\n"
		"With a secret, clients prove they know it (HMAC challenge); it never crosses the wire.\n"
		"See benchcore help settings. Exit status: 0 stopped by a signal (or --once done),\n"
		"1 the server failed, 2 usage, config or module error.\n");
}

static int on_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	serve_opts *so = arg;
	switch (f->code) {
	case SV_CONFIG: so->config = val; return 0;
	case SV_MODPATH: so->modpath = val; return 0;
	case SV_HELP: so->help = 1; return 0;
	case SV_NEWSECRET: so->new_secret = val; return 0;
	}
	const bc_setting *s = &bc_serve_settings[f->code - SV_SETTING];
	if (!so->apply) {
		if (s->store == BC_ST_STRING && s->offset == offsetof(bc_serveset, module))
			so->module = val;
		return 0;
	}
	char *texts[] = { (char *)(val ? val : s->flag_value), NULL }, where[96];
	bc_err ve;
	snprintf(where, sizeof(where), "command line (--%s)", f->lng);
	if (bc_setting_set(s, &so->set, texts, where, &ve)) {
		bc_err_print(&ve);
		e->msg[0] = '\0';	/* said */
		return -1;
	}
	return 0;
}

/* One pass over the command line (so->apply says which). 0, or 2 (said). */
static int parse_args(int argc, char **argv, serve_opts *so)
{
	char **rest = NULL;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--secret", 8)) {
			bc_err e;
			bc_err_set(&e, "\"%s\": the secret is read from the config file only "
				   "(serve = { secret_file = \"...\"; }), never from the command line", argv[i]);
			bc_err_hint(&e, "see benchcore serve --help");
			bc_err_print_as("benchcore serve", &e);
			return 2;
		}
	if (bc_flags_parse("serve", serve_flags(NULL), 0, argc - 1, argv + 1, on_flag, so, &rest))
		return 2;
	int rc = 0;
	if (rest[0]) {
		fprintf(stderr, "benchcore serve: unexpected argument \"%s\"\nTry 'benchcore serve --help'.\n",
			rest[0]);
		rc = 2;
	}
	free(rest);
	return rc;
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
		const bc_setting *row = bc_serve_setting_find(key);
		int secret = row && row->store == BC_ST_NONE, rc;
		if (!text) {
			bc_err_set(e, "%s: \"%s\" must be a single value", where, key);
			rc = -1;
		} else if (secret) {
			rc = conf_secret(so, key, text, where, file, e);
		} else if (row) {
			char *texts[] = { text, NULL };
			rc = bc_setting_set(row, &so->set, texts, where, e);
		} else {
			char names[512];
			size_t o = 0;
			for (const bc_setting *r = bc_serve_settings; r->opt.name && o < sizeof(names); r++)
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? ", " : "", r->opt.name);
			bc_err_set(e, "%s: unknown setting \"%s\" in serve", where, key);
			bc_err_detail(e, "serve takes: %s.", names);
			rc = -1;
		}
		if (text && secret)
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

/* --new-secret FILE: 32 random bytes as hex into a new file of this user's
   only (O_EXCL: never a file or link that is there), and the secret served
   with. The secret itself is never printed; the file's name is. */
static int new_secret(serve_opts *so, bc_err *e)
{
	unsigned char raw[32];
	char hex[2 * sizeof(raw) + 2];
	if (so->secret) {
		bc_err_set(e, "--new-secret %s, and the config file gives a secret too", so->new_secret);
		bc_err_detail(e, "Give one of them.");
		return -1;
	}
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		bc_err_set(e, "--new-secret: no random bytes from the kernel: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	explicit_bzero(raw, sizeof(raw));
	size_t len = strlen(hex);
	hex[len++] = '\n';
	int fd = open(so->new_secret, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int bad = fd < 0 ? errno : (write(fd, hex, len) != (ssize_t)len || fsync(fd)) ? (errno ? errno : EIO) : 0;
	if (fd >= 0)
		close(fd);
	if (bad) {
		bc_err_set(e, "--new-secret: cannot make \"%s\": %s", so->new_secret, strerror(bad));
		if (bad == EEXIST)
			bc_err_hint(e, "give a new name; to serve with that file's secret: -c FILE with "
				    "serve = { secret_file = \"%s\"; }", so->new_secret);
		else if (fd >= 0)
			unlink(so->new_secret);	/* made here a moment ago, O_EXCL */
		explicit_bzero(hex, sizeof(hex));
		return -1;
	}
	hex[len - 1] = '\0';
	so->secret = bc_xstrdup(hex);
	explicit_bzero(hex, sizeof(hex));
	sv_log(2, "a new secret is in %s (mode 0600; the secret is not printed): copy the file to each client "
	       "and run there: benchcore run net server=THIS_HOST:PORT secret_file=FILE", so->new_secret);
	return 0;
}

static void opts_free(serve_opts *so)
{
	bc_serveset_free(&so->set);
	if (so->secret) {
		memset(so->secret, 0, strlen(so->secret));
		free(so->secret);
	}
}

/* The hook's arguments from the settings (the port once the module is
   known). */
static void serve_settings(const serve_opts *so, bench_serve_v1 *a)
{
	const bc_serveset *v = &so->set;
	a->struct_size = sizeof(*a);
	a->bind = v->bind;
	a->once = v->once;
	a->max_clients = v->max_clients;
	a->idle_timeout_s = v->idle_timeout;
	a->max_duration_s = v->max_duration;
	a->max_threads = v->max_threads;
	a->max_memory = v->max_memory;
	a->secret = so->secret;
	a->log = sv_log;
	a->listening = sv_listening;
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
	bc_serveset_defaults(&so.set);
	if (parse_args(argc, argv, &so)) {
		opts_free(&so);
		return 2;
	}
	char *dirs[2] = { (char *)so.modpath, NULL };
	bc_modset_load(&set, bc_module_search_path(dirs[0] ? dirs : NULL));
	const bc_module *m = NULL;
	if (so.help) {
		bc_err ignored;
		serve_usage(stdout, pick_module(&set, so.module, &ignored));
		rc = 0;
		goto out;
	}
	if (so.config && conf_load(&so, so.config, &e)) {
		bc_err_print(&e);
		goto out;
	}
	so.apply = 1;
	if (parse_args(argc, argv, &so))
		goto out;
	if (!(m = pick_module(&set, so.set.module, &e))) {
		bc_err_print(&e);
		goto out;
	}
	if (so.new_secret && new_secret(&so, &e)) {
		bc_err_print_as("benchcore serve", &e);
		goto out;
	}
	serve_settings(&so, &a);
	a.port = so.set.port_auto ? m->desc.serve_port : (int)so.set.port;
	rc = serve_run((bc_module *)m, &a);	/* the set owns it; opening fills its callbacks */
out:
	bc_modset_free(&set);
	opts_free(&so);
	return rc;
}
