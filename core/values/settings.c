/* benchcore's own settings: one table (see settings.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "config_model.h"
#include "options.h"
#include "settings.h"

static int interval_rule(const bc_val *v, bc_err *e)
{
	if (v->d > 0 && v->d < 0.01) {
		bc_err_set(e, "too short: the shortest interval is 0.01 s; 0 turns interval reports off");
		return -1;
	}
	return 0;
}

static const char *const arrivals[] = { "poisson", "fixed", NULL };
static const char *const orders[] = { "rounds", "back_to_back", NULL };
static const char *const profiles[] = { "default", "small", NULL };

#define RUN(f) offsetof(bc_runset, f)
#define CFG(f) offsetof(bc_config, f)
#define ENT(f) offsetof(bc_modconf, f)
#define SRV(f) offsetof(bc_serveset, f)

const bc_setting bc_settings[] = {
	/* site.conf's top level */
	{ { "label", BENCH_OPT_STRING, NULL, "name of this system in compare and report (default: the host name)" },
	  BC_SCOPE_GLOBAL, BC_ST_STRING, CFG(label) },
	{ { "module_path", BENCH_OPT_STRING, NULL, "directories searched for modules before the built-in ones" },
	  BC_SCOPE_GLOBAL, BC_ST_STRV, CFG(module_path) },
	{ { "output", BENCH_OPT_STRING, NULL, "JSON results file (like -o)" },
	  BC_SCOPE_GLOBAL, BC_ST_STRING, CFG(output) },
	{ { "csv", BENCH_OPT_STRING, NULL, "CSV results file (like --csv)" },
	  BC_SCOPE_GLOBAL, BC_ST_STRING, CFG(csv) },
	{ { "baseline", BENCH_OPT_STRING, NULL, "repeat = auto: a results file (another machine's run of "
	    "this config) to decide against: a case stops repeating once its verdict against that file's case "
	    "is known (win, loss or tie), not only once it is precise" },
	  BC_SCOPE_GLOBAL, BC_ST_STRING, CFG(baseline) },
	{ { "fail_on", BENCH_OPT_STRING, NULL, "the CI gate at the run's end (like --fail-on): \"loss\", "
	    "\"loss,suspect\" or with inconclusive: exit status 4 when a headline row of the run against "
	    "baseline has a verdict in the list, as compare --fail-on judges it (a case without a partner in "
	    "baseline, or failed, fails too); needs baseline and an output file" },
	  BC_SCOPE_GLOBAL, BC_ST_STRING, CFG(fail_on) },
	{ { "busy_threshold", BENCH_OPT_DOUBLE, "5", "interference weighed, in percent of the time of a case's "
	    "CPUs that steal and other processes took: below it, it is not counted against a verdict. compare "
	    "uses the files' value when both record the same (else 5, or --busy-threshold); repeat = auto's "
	    "\"decided\" judges with it", .min = 0, .max = 100 },
	  BC_SCOPE_GLOBAL, BC_ST_DOUBLE, CFG(busy_threshold) },
	{ { "summary_rows", BENCH_OPT_STRING, NULL, "the rows of compare --summary-table and of the report's "
	    "summary per module, in this order: MODULE (its headline), MODULE.fairness (stddev of events per "
	    "thread), MODULE.latency (the mean latency of its op classes) or MODULE.METRIC; e.g. the first "
	    "study's seven: [\"cpu\", \"cpu.fairness\", \"mem\", \"mem.fairness\", \"io\", \"io.latency\", "
	    "\"oltp\"] (default: every item; --summary-rows beats it)" },
	  BC_SCOPE_GLOBAL, BC_ST_STRV, CFG(summary_rows) },
	{ { "report", BENCH_OPT_STRING, NULL, "HTML report of the run, written from the results file at the "
	    "end (like --report; needs an output file)" },
	  BC_SCOPE_GLOBAL, BC_ST_STRING, CFG(report) },
	{ { "store", BENCH_OPT_STRING, NULL, "add the run to this results archive when it ends (like --store): a "
	    "SQLite file, or postgresql://... (docs/archive.md); \"default\": the default archive; needs an "
	    "output file" },
	  BC_SCOPE_GLOBAL, BC_ST_STRING, CFG(store) },
	{ { "percentiles", BENCH_OPT_DOUBLE, "50,90,95,99,99.9,99.99", "latency percentiles to report (at most 16)",
	    .min = 0.0001, .max = 100 },
	  BC_SCOPE_GLOBAL, BC_ST_PCTS, CFG(pct) },
	{ { "skip_heavy", BENCH_OPT_BOOL, "false", "skip modules that declare themselves heavy (small VMs)" },
	  BC_SCOPE_GLOBAL, BC_ST_BOOL, CFG(skip_heavy) },
	{ { "modules", BENCH_OPT_STRING, NULL, "the modules to run: modules = ( { name = \"...\"; ... }, ... );" },
	  BC_SCOPE_GLOBAL, BC_ST_NONE, 0 },
	{ { "serve", BENCH_OPT_STRING, NULL, "benchcore serve's settings, e.g. serve = { secret_file = \"...\"; port = 5301; }; "
	    "(its keys: the `benchcore serve` table below); a run leaves it alone" },
	  BC_SCOPE_GLOBAL, BC_ST_NONE, 0 },
	/* run settings: top level, a module entry, the command line */
	{ { "threads", BENCH_OPT_INT, "1", "worker threads; a list is a sweep", .min = 1, .max = 4096 },
	  BC_SCOPE_RUN, BC_ST_THREADS, RUN(threads), "threads", "1,2,4" },
	{ { "time", BENCH_OPT_DOUBLE, "10", "measured seconds per case; 0 = until events are done", .min = 0, .max = 1e7 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(time_s), "time", "S" },
	{ { "warmup", BENCH_OPT_DOUBLE, "1", "seconds run before measuring; nothing from them is reported; "
	    "\"auto\": until the throughput is steady (its fitted line drifts <= 2% and every value is "
	    "within 10% of the mean over the last warmup_window seconds, sampled 5 times, or over 2, 4, ... "
	    "times that for a bursty workload), at most max_warmup",
	  .min = 0, .max = 1e7 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(warmup_s), "warmup", "S|auto", .auto_offset = RUN(warmup_auto) },
	{ { "max_warmup", BENCH_OPT_DOUBLE, "300", "warmup = auto: the longest warmup, seconds", .min = 0.1,
	    .max = 1e7 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(max_warmup), "max-warmup", "S" },
	{ { "warmup_window", BENCH_OPT_DOUBLE, "2", "warmup = auto: the seconds over which the throughput must "
	    "be steady (fio's ss_dur); longer for workloads that ramp slowly (a device's write cache, a "
	    "buffer pool)", .min = 0.05, .max = 1e6 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(warmup_window), "warmup-window", "S" },
	{ { "events", BENCH_OPT_INT, "0", "stop after this many events: the measured window runs exactly this "
	    "many operations, done or failed, whatever the warmup (0 = no limit)", .min = 0, .max = 9.2e18 },
	  BC_SCOPE_RUN, BC_ST_U64, RUN(events), "events", "N" },
	{ { "repeat", BENCH_OPT_INT, "1", "repeats of every case (compare: 2 or more per side for a test, 5 or more "
	    "to resolve small differences); \"auto\": rounds go on, min_repeat to max_repeat, only for the "
	    "cases whose headline is not yet known to within the practical threshold (95% interval of its "
	    "mean; against baseline's cases when set), and that could be within 2 x max_repeat", .min = 1, .max = 10000 },
	  BC_SCOPE_RUN, BC_ST_UNSIGNED, RUN(repeat), "repeat", "N|auto", .auto_offset = RUN(repeat_auto) },
	{ { "min_repeat", BENCH_OPT_INT, "3", "repeat = auto: repeats every case gets", .min = 2, .max = 10000 },
	  BC_SCOPE_RUN, BC_ST_UNSIGNED, RUN(min_repeat), "min-repeat", "N" },
	{ { "max_repeat", BENCH_OPT_INT, "20", "repeat = auto: repeats no case goes beyond", .min = 2, .max = 10000 },
	  BC_SCOPE_RUN, BC_ST_UNSIGNED, RUN(max_repeat), "max-repeat", "N" },
	{ { "time_budget", BENCH_OPT_DOUBLE, "0", "repeat = auto: seconds after which no new round starts "
	    "(0 = none); cases left undecided say so", .min = 0, .max = 1e9 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(time_budget), "time-budget", "S" },
	{ { "report_interval", BENCH_OPT_DOUBLE, "1", "seconds between interval reports (sub-second allowed; 0 = off)",
	    .min = 0, .max = 1e6 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(report_interval), "report-interval", "S", .check = interval_rule },
	{ { "rate", BENCH_OPT_DOUBLE, "0", "open loop: total arrivals per second (0 = closed loop); latency counts "
	    "from the intended start", .min = 0, .max = 1e9 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(rate), "rate", "N" },
	{ { "arrival", BENCH_OPT_ENUM, "poisson", "open-loop arrival process", arrivals },
	  BC_SCOPE_RUN, BC_ST_CHOICE, RUN(arrival_fixed), "arrival", "poisson|fixed" },
	{ { "keep", BENCH_OPT_BOOL, "false", "keep prepared data (no cleanup)" },
	  BC_SCOPE_RUN, BC_ST_BOOL, RUN(keep), "keep", NULL, "true" },
	{ { "isolate", BENCH_OPT_BOOL, "true", "run each case in a child process (a crash fails only that case)" },
	  BC_SCOPE_RUN, BC_ST_BOOL, RUN(isolate), "no-isolate", NULL, "false",
	  "run cases in this process instead of a child per case (isolate = false)" },
	{ { "grace", BENCH_OPT_DOUBLE, "10", "a case still running at warmup + time + grace seconds is killed and "
	    "failed", .min = 0, .max = 1e7 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(grace), "grace", "S" },
	{ { "thread_init_timeout", BENCH_OPT_DOUBLE, "60", "seconds the threads' thread_init may take before the "
	    "case fails", .min = 0.01, .max = 1e7 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(thread_init_timeout), "thread-init-timeout", "S" },
	{ { "init_timeout", BENCH_OPT_DOUBLE, "60", "seconds init of one case may take before it is killed and "
	    "failed", .min = 0.01, .max = 1e7 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(init_timeout), "init-timeout", "S" },
	{ { "prepare_timeout", BENCH_OPT_DOUBLE, "1800", "seconds prepare of one case may take before it is "
	    "killed and failed", .min = 0.01, .max = 1e7 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(prepare_timeout), "prepare-timeout", "S" },
	{ { "cleanup_timeout", BENCH_OPT_DOUBLE, "0", "seconds each of finish, cleanup and destroy of one case may "
	    "take before it is killed and failed, never run again (0 = warmup + time + grace of the case; time "
	    "counts as 60 for a case bounded by events)", .min = 0, .max = 1e7 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(cleanup_timeout), "cleanup-timeout", "S" },
	{ { "max_error_rate", BENCH_OPT_DOUBLE, "0.01", "a case whose failed operations exceed this share of all "
	    "its operations fails (1 = never; a case whose every operation failed always fails)", .min = 0, .max = 1 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(max_error_rate), "max-error-rate", "SHARE" },
	{ { "repeat_order", BENCH_OPT_ENUM, "rounds", "rounds: every case of a module once in a shuffled order, then "
	    "again, repeat times (the repeats sample the module's whole run); back_to_back: a case's repeats one "
	    "after another", orders },
	  BC_SCOPE_RUN, BC_ST_CHOICE, RUN(back_to_back), "repeat-order", "ORDER" },
	{ { "seed", BENCH_OPT_INT, NULL, "seed of the shuffle within rounds (default: random; the one used is "
	    "recorded as schedule.seed: give it to reproduce an order)", .min = 0, .max = 4294967295.0 },
	  BC_SCOPE_RUN, BC_ST_SEED, RUN(seed), "seed", "N" },
	{ { "max_cases", BENCH_OPT_INT, "10000", "the most cases a run starts without being asked to: a plan "
	    "beyond it is refused with its size and duration (raise it to confirm)", .min = 1, .max = 1e12 },
	  BC_SCOPE_RUN, BC_ST_U64, RUN(max_cases), "max-cases", "N" },
	{ { "scale", BENCH_OPT_DOUBLE, "1", "a quick try of a long study: multiplies time, warmup and the "
	    "sizes a module marks as scalable (io file size, oltp warehouses...) by it and keeps about that share "
	    "of a thread sweep (its first and last counts kept); time, warmup or threads given by their flag "
	    "(--time, --warmup, --threads) and module options given on the command line (io.file_size=16M "
	    "after -c, or key=value after run MODULE) stay as given; each change is said at the start, "
	    "even with -q, and the cases record what ran", .min = 0.001, .max = 1 },
	  BC_SCOPE_RUN, BC_ST_DOUBLE, RUN(scale), "scale", "F" },
	{ { "profile", BENCH_OPT_ENUM, "default", "small: for a small VM: modules marked heavy are skipped, and "
	    "the sizes a module marks as scalable are halved (not below their minimum) until each case needs at "
	    "most half of the free disk and memory its module states (needs()); each change is said and the "
	    "cases record what ran", profiles },
	  BC_SCOPE_RUN, BC_ST_CHOICE, RUN(profile_small), "profile", "default|small" },
	/* a module entry only */
	{ { "name", BENCH_OPT_STRING, NULL, "the module's name (see benchcore list); required" },
	  BC_SCOPE_ENTRY, BC_ST_NONE, 0 },
	{ { "enabled", BENCH_OPT_BOOL, "true", "false skips the module" },
	  BC_SCOPE_ENTRY, BC_ST_BOOL, ENT(enabled) },
	{ { NULL } }
};

/* The secret comes from the config file only (never the command line, where
   ps would show it) and is never printed: its rows have no flag, and
   serve_cli.c resolves them as plan.c resolves a module's secret option. */
const bc_setting bc_serve_settings[] = {
	{ { "module", BENCH_OPT_STRING, NULL, "module to serve; unset: the only loaded module with a serve hook" },
	  BC_SCOPE_SERVE, BC_ST_STRING, SRV(module), "module", "NAME" },
	{ { "bind", BENCH_OPT_STRING, "127.0.0.1", "address to listen on; 0.0.0.0 or :: for every interface" },
	  BC_SCOPE_SERVE, BC_ST_STRING, SRV(bind), "bind", "ADDR" },
	{ { "port", BENCH_OPT_INT, "auto", "TCP port; 0 = any free port; \"auto\": the module's serve_port",
	    .min = 0, .max = 65535 },
	  BC_SCOPE_SERVE, BC_ST_UNSIGNED, SRV(port), "port", "N", NULL, "TCP port; 0 = any free",
	  .auto_offset = SRV(port_auto) },
	{ { "once", BENCH_OPT_BOOL, "false", "serve one test, then exit" },
	  BC_SCOPE_SERVE, BC_ST_BOOL, SRV(once), "once", NULL, "true" },
	{ { "max_clients", BENCH_OPT_INT, "4", "tests at once; a client beyond them is told \"busy\"", .min = 1,
	    .max = 4096 },
	  BC_SCOPE_SERVE, BC_ST_UNSIGNED, SRV(max_clients), "max-clients", "N" },
	{ { "idle_timeout", BENCH_OPT_DOUBLE, "30", "seconds after which a client whose connections are silent "
	    "is dropped", .min = 0.1, .max = 86400 },
	  BC_SCOPE_SERVE, BC_ST_DOUBLE, SRV(idle_timeout), "idle-timeout", "S" },
	{ { "max_duration", BENCH_OPT_DOUBLE, "0", "seconds after which a running test is stopped; 0 = no limit",
	    .min = 0, .max = 1e7 },
	  BC_SCOPE_SERVE, BC_ST_DOUBLE, SRV(max_duration), "max-duration", "S" },
	{ { "max_threads", BENCH_OPT_INT, "64", "worker threads of all running tests together; a test beyond is "
	    "refused", .min = 1, .max = 1024 },
	  BC_SCOPE_SERVE, BC_ST_UNSIGNED, SRV(max_threads), "max-threads", "N" },
	{ { "max_memory", BENCH_OPT_SIZE, "512M", "buffers of all running tests together, e.g. 1G; a test beyond "
	    "is refused", .min = 1 << 20, .max = 1125899906842624.0 },
	  BC_SCOPE_SERVE, BC_ST_U64, SRV(max_memory), "max-memory", "SIZE" },
	{ { "secret", BENCH_OPT_STRING, NULL, "the secret clients must prove (HMAC challenge; it never crosses the "
	    "wire); unset: no authentication. Never on the command line; give one of secret, secret_env and "
	    "secret_file" },
	  BC_SCOPE_SERVE, BC_ST_NONE, 0 },
	{ { "secret_env", BENCH_OPT_STRING, NULL, "the environment variable that holds the secret" },
	  BC_SCOPE_SERVE, BC_ST_NONE, 0 },
	{ { "secret_file", BENCH_OPT_STRING, NULL, "a file whose first line is the secret" },
	  BC_SCOPE_SERVE, BC_ST_NONE, 0 },
	{ { NULL } }
};

const bc_setting *bc_setting_find(const char *name)
{
	for (const bc_setting *s = bc_settings; s->opt.name; s++)
		if (!strcmp(s->opt.name, name))
			return s;
	return NULL;
}

const bc_setting *bc_serve_setting_find(const char *name)
{
	for (const bc_setting *s = bc_serve_settings; s->opt.name; s++)
		if (!strcmp(s->opt.name, name))
			return s;
	return NULL;
}

const bc_setting *bc_setting_by_flag(const char *flag)
{
	for (const bc_setting *s = bc_settings; s->opt.name; s++)
		if (s->flag && !strcmp(s->flag, flag))
			return s;
	return NULL;
}

static int takes_list(const bc_setting *s)
{
	return s->store == BC_ST_THREADS || s->store == BC_ST_STRV || s->store == BC_ST_PCTS;
}

static size_t list_max(const bc_setting *s)
{
	return s->store == BC_ST_THREADS ? 64 : s->store == BC_ST_PCTS ? BC_MAX_PCT : SIZE_MAX;
}

int bc_setting_set(const bc_setting *s, void *base, char *const *texts, const char *where, bc_err *e)
{
	bc_err ve;
	size_t n = bc_strv_len((char **)texts);
	char *p = (char *)base + s->offset;
	const char *name = s->opt.name;

	if (n == 0) {
		bc_err_set(e, "%s: \"%s\" is an empty list", where, name);
		return -1;
	}
	if (s->auto_offset && n == 1) {
		int is_auto = !strcasecmp(texts[0], "auto");
		*(int *)((char *)base + s->auto_offset) = is_auto;
		if (is_auto)
			return 0;
	}
	if (n > 1 && !takes_list(s)) {
		bc_err_set(e, "%s: \"%s\" takes one value, not a list", where, name);
		bc_err_hint(e, "only threads and module options can be swept");
		return -1;
	}
	if (n > list_max(s)) {
		bc_err_set(e, "%s: too many values for \"%s\" (at most %zu)", where, name, list_max(s));
		return -1;
	}
	if (s->store == BC_ST_STRV) {
		bc_strv_free(*(char ***)p);
		char **v = bc_xcalloc(n + 1, sizeof(*v));
		for (size_t i = 0; i < n; i++)
			v[i] = bc_xstrdup(texts[i]);
		*(char ***)p = v;
		return 0;
	}
	bc_val *vals = bc_xcalloc(n, sizeof(*vals));
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		rc = bc_val_parse(&s->opt, texts[i], &vals[i], &ve);
		if (!rc && s->opt.type == BENCH_OPT_DOUBLE && (s->store == BC_ST_DOUBLE || s->store == BC_ST_PCTS) &&
		    !(vals[i].d == vals[i].d))
			rc = -1, bc_err_set(&ve, "not a number");
		if (!rc && s->check)
			rc = s->check(&vals[i], &ve);
		if (rc) {
			bc_err_set(e, "%s: invalid value \"%s\" for \"%s\"", where, texts[i], name);
			bc_err_detail(e, "%s.", ve.msg);
			if (s->opt.type == BENCH_OPT_ENUM)
				bc_err_hint(e, "\"%s\" takes one of the choices named above", name);
		}
	}
	if (!rc) {
		switch (s->store) {
		case BC_ST_NONE: case BC_ST_STRV:
			break;
		case BC_ST_BOOL: *(int *)p = (int)vals[0].i; break;
		case BC_ST_DOUBLE: *(double *)p = vals[0].d; break;
		case BC_ST_U64: *(uint64_t *)p = (uint64_t)vals[0].i; break;
		case BC_ST_UNSIGNED: *(unsigned *)p = (unsigned)vals[0].i; break;
		case BC_ST_CHOICE: *(int *)p = (int)vals[0].i; break;
		case BC_ST_SEED: {
			bc_runset *r = (bc_runset *)base;
			r->seed = (uint32_t)vals[0].i;
			r->seed_set = 1;
			break;
		}
		case BC_ST_THREADS: {
			bc_runset *r = (bc_runset *)base;
			for (size_t i = 0; i < n; i++)
				r->threads[i] = (unsigned)vals[i].i;
			r->nthreads = n;
			break;
		}
		case BC_ST_STRING:
			free(*(char **)p);
			*(char **)p = vals[0].s;
			vals[0].s = NULL;
			break;
		case BC_ST_PCTS: {
			bc_config *c = (bc_config *)base;
			for (size_t i = 0; i < n; i++)
				c->pct[i] = vals[i].d;
			c->npct = n;
			break;
		}
		}
	}
	for (size_t i = 0; i < n; i++)
		bc_val_free(&vals[i]);
	free(vals);
	return rc;
}

static void set_default(const bc_setting *s, void *base)
{
	bc_err e;
	char **texts = bc_split(s->opt.def, ',');
	if (bc_setting_set(s, base, texts, "default", &e))
		abort();	/* the table contradicts itself: caught by every test */
	bc_strv_free(texts);
}

void bc_settings_defaults(bc_config *c)
{
	memset(c, 0, sizeof(*c));
	for (const bc_setting *s = bc_settings; s->opt.name; s++)
		if (s->opt.def && s->store != BC_ST_NONE && s->scope != BC_SCOPE_ENTRY)
			/* no default: unset (the host name, a random seed) */
			set_default(s, s->scope == BC_SCOPE_RUN ? (void *)&c->run : (void *)c);
}

void bc_serveset_defaults(bc_serveset *sv)
{
	memset(sv, 0, sizeof(*sv));
	for (const bc_setting *s = bc_serve_settings; s->opt.name; s++)
		if (s->opt.def && s->store != BC_ST_NONE)
			set_default(s, sv);
}

void bc_serveset_free(bc_serveset *sv)
{
	free(sv->module);
	free(sv->bind);
	memset(sv, 0, sizeof(*sv));
}

size_t bc_settings_flags(const bc_setting *tab, bc_flag *out, char (*help)[512], size_t cap, int code0,
			 unsigned scope)
{
	size_t n = 0;
	for (const bc_setting *s = tab; s->opt.name && n < cap; s++) {
		if (!s->flag)
			continue;
		if (s->flag_help)
			snprintf(help[n], sizeof(help[n]), "%s", s->flag_help);
		else if (!s->metavar || !s->opt.def)
			snprintf(help[n], sizeof(help[n]), "%s", s->opt.help);
		else
			snprintf(help[n], sizeof(help[n]), "%s (default %s)", s->opt.help, s->opt.def);
		out[n] = (bc_flag){ s->flag, 0, s->metavar, code0 + (int)(s - tab), help[n], scope };
		n++;
	}
	return n;
}

void bc_settings_names(char *buf, size_t n, int scope_a, int scope_b)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const bc_setting *s = bc_settings; s->opt.name && o < n; s++)
		if (s->scope == scope_a || s->scope == scope_b)
			o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", s->opt.name);
}

static const char *type_text(const bc_setting *s, char *buf, size_t n)
{
	switch (s->store) {
	case BC_ST_THREADS: return "int or list of ints";
	case BC_ST_STRV: return "list of strings";
	case BC_ST_PCTS: return "list of numbers";
	case BC_ST_NONE: return s->scope != BC_SCOPE_GLOBAL ? "string" :
			 !strcmp(s->opt.name, "modules") ? "list of groups" : "group";
	case BC_ST_CHOICE:
		bc_choices_text(&s->opt, buf, n);
		return buf;
	default:
		return s->opt.type == BENCH_OPT_DOUBLE ? "number" : bc_opt_type_name(s->opt.type);
	}
}

void bc_settings_doc(FILE *f, int markdown)
{
	static const char *const scope_title[] = { NULL, "Top level only", "Run settings: top level, a module "
		"entry, or `benchcore run --flag`", "A module entry only", "`benchcore serve`: the group serve = "
		"{ ... } of its config file (-c), or `benchcore serve --flag`" };
	char tbuf[256], range[96];
	for (int scope = BC_SCOPE_GLOBAL; scope <= BC_SCOPE_SERVE; scope++) {
		fprintf(f, markdown ? "\n### %s\n\n| key | flag | type | default | meaning |\n|---|---|---|---|---|\n"
			: "\n%s:\n", scope_title[scope]);
		const bc_setting *tab = scope == BC_SCOPE_SERVE ? bc_serve_settings : bc_settings;
		for (const bc_setting *s = tab; s->opt.name; s++) {
			if (s->scope != scope)
				continue;
			const char *def = s->opt.def ? s->opt.def : "";
			range[0] = '\0';
			if (s->opt.min < s->opt.max && s->opt.type == BENCH_OPT_SIZE) {
				char a[32], b[32];
				bc_format_size((uint64_t)s->opt.min, a, sizeof(a));
				bc_format_size((uint64_t)s->opt.max, b, sizeof(b));
				snprintf(range, sizeof(range), " Range: %s .. %s.", a, b);
			} else if (s->opt.min < s->opt.max && s->opt.type != BENCH_OPT_ENUM) {
				snprintf(range, sizeof(range), " Range: %g .. %g.", s->opt.min, s->opt.max);
			}
			char flag[64] = "";
			if (s->flag)
				snprintf(flag, sizeof(flag), "--%s%s%s", s->flag, s->metavar ? " " : "",
					 s->metavar ? s->metavar : "");
			const char *stop = *range ? bc_full_stop(s->opt.help) : "";	/* the help ends first */
			if (markdown)
				fprintf(f, "| `%s` | %s%s%s | %s | %s%s%s | %s%s%s |\n", s->opt.name, *flag ? "`" : "",
					flag, *flag ? "`" : "", type_text(s, tbuf, sizeof(tbuf)), *def ? "`" : "", def,
					*def ? "`" : "", s->opt.help, stop, range);
			else
				fprintf(f, "  %-20s %-16s %-12s %s%s%s\n", s->opt.name, type_text(s, tbuf, sizeof(tbuf)),
					*def ? def : "-", s->opt.help, stop, range);
		}
	}
}
