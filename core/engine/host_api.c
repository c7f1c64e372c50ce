/* The host API (sdk/include/benchcore/module.h, bench_host_api_v1): what a
 * module may call, and the checks on what it records. The table is handed to
 * every module's init; its functions act on the case (bench_ctx) and the
 * worker threads (bench_thread) the engine runs (engine_int.h). Here: the
 * case's calls (options, messages and errors, op classes, percentiles and
 * totals, metrics and info, servers) and the table; the worker threads' hot
 * path (record, pace, claim, arrivals) is host_thread.c's. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine_int.h"
#include "sysinfo.h"
#include "util.h"

/* --------------------------------------------------------------- options */

/* A by-name getter that cannot answer (no such option, or a getter that
   does not read its type) is a bug in the module: the case fails, naming
   the option, rather than run with a 0 nobody asked for. The first one is
   the reason; any thread. */
static void __attribute__((format(printf, 2, 3))) opt_misuse(bench_ctx *x, const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&x->lock);
	if (!x->bad_opt[0]) {
		va_start(ap, fmt);
		vsnprintf(x->bad_opt, sizeof(x->bad_opt), fmt, ap);
		va_end(ap);
		bc_utf8_fix(x->bad_opt);
	}
	pthread_mutex_unlock(&x->lock);
}

#define T(type) (1u << (type))

/* What reads an option of type t, for the message. */
static const char *readers(bench_opt_type t)
{
	switch (t) {
	case BENCH_OPT_BOOL: return "opt_bool() or opt_int()";
	case BENCH_OPT_INT:
	case BENCH_OPT_SIZE: return "opt_int() or opt_double()";
	case BENCH_OPT_DOUBLE: return "opt_double()";
	case BENCH_OPT_STRING: return "opt_string()";
	case BENCH_OPT_ENUM: return "opt_enum() or opt_string()";
	}
	return "?";
}

/* The value of option name, when getter reads its type (types: a T() mask). */
static const bc_val *get_opt(bench_ctx *x, const char *name, unsigned types, const char *getter)
{
	const bench_option_v1 *o = x->d->options;
	for (size_t i = 0; name && o && o[i].name; i++)
		if (!strcmp(o[i].name, name)) {
			if (types & T(o[i].type))
				return &x->c->vals[i];
			opt_misuse(x, "%s(\"%s\"): option \"%s\" is of type %s; read it with %s", getter, name, name,
				   bc_opt_type_name(o[i].type), readers(o[i].type));
			return NULL;
		}
	opt_misuse(x, "%s(\"%.100s\"): module \"%s\" has no option \"%.100s\"", getter, name ? name : "(null)",
		   x->d->name, name ? name : "(null)");
	return NULL;
}

static int64_t api_opt_int(bench_ctx *x, const char *name)
{
	const bc_val *v = get_opt(x, name, T(BENCH_OPT_INT) | T(BENCH_OPT_SIZE) | T(BENCH_OPT_BOOL), "opt_int");
	return v ? v->i : 0;
}

static double api_opt_double(bench_ctx *x, const char *name)
{
	const bc_val *v = get_opt(x, name, T(BENCH_OPT_DOUBLE) | T(BENCH_OPT_INT) | T(BENCH_OPT_SIZE),
				  "opt_double");
	return v ? v->d : 0;
}

static int api_opt_bool(bench_ctx *x, const char *name)
{
	const bc_val *v = get_opt(x, name, T(BENCH_OPT_BOOL), "opt_bool");
	return v ? v->i != 0 : 0;
}

static const char *api_opt_string(bench_ctx *x, const char *name)
{
	const bc_val *v = get_opt(x, name, T(BENCH_OPT_STRING) | T(BENCH_OPT_ENUM), "opt_string");
	return v && v->s ? v->s : "";
}

static int api_opt_enum(bench_ctx *x, const char *name)
{
	const bc_val *v = get_opt(x, name, T(BENCH_OPT_ENUM), "opt_enum");
	return v ? (int)v->i : 0;
}

#undef T

/* ABI 1.3: the struct bc_opts_block() filled before init. */
static const void *api_options(bench_ctx *x) { return x->opts; }

static unsigned api_threads(bench_ctx *x) { return x->nthreads; }
static const char *api_scratch(bench_ctx *x) { return x->c->scratch; }
/* ABI 1.4: the run's seed, the window's length and the --events budget,
   from the case's run settings (the runner puts the drawn seed there). */
static uint64_t api_seed(bench_ctx *x) { return x->c->run.seed; }
static double api_time_s(bench_ctx *x) { return x->c->run.time_s; }
static uint64_t api_events(bench_ctx *x) { return x->c->run.events; }

/* -------------------------------------------------------------- messages */

/* A warning goes into the case's result as well as to stderr. */
static void keep_warning(bench_ctx *x, const char *msg)
{
	char *m = bc_text_dup(msg);
	pthread_mutex_lock(&x->lock);
	bc_case_add_warning(x->res, m);
	pthread_mutex_unlock(&x->lock);
	free(m);
}

static void api_log(bench_ctx *x, int level, const char *fmt, ...)
{
	static const char *names[] = { "error", "warning", "info", "debug" };
	char buf[1024];
	va_list ap;
	if (level > BENCH_LOG_INFO || (level == BENCH_LOG_INFO && bc_quiet))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char *p = bc_text_dup(buf);	/* one line, whatever the module wrote */
	if (level > BENCH_LOG_WARN || !bc_case_warnings_later)
		fprintf(bc_stderr(), "benchcore: %s: %s: %s\n", x->d->name, names[level < 0 ? 0 : level], p);
	free(p);
	if (level <= BENCH_LOG_WARN)
		keep_warning(x, buf);
}

void bc_ctx_warn(bench_ctx *x, const char *msg)
{
	if (!bc_case_warnings_later)
		fprintf(bc_stderr(), "benchcore: warning: %s\n", msg);
	keep_warning(x, msg);
}

static void api_set_error(bench_ctx *x, const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&x->lock);
	va_start(ap, fmt);
	char raw[sizeof(x->err)];
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	bc_text_copy(x->err, sizeof(x->err), raw);
	pthread_mutex_unlock(&x->lock);
}

static void copy_text(char *dst, size_t n, const char *src)
{
	/* a module's bytes always fit the JSON results, and never reach a
	   terminal raw: a server's reply quoted in an error can carry escapes */
	bc_text_copy(dst, n, src);
}

static void keep_error(bc_first_err *f, bench_thread *t, const char *msg, const char *detail,
		       const char *hint)
{
	if (!f->set) {
		f->set = 1;
		f->thread = t ? (int)t->idx : -1;
		copy_text(f->msg, sizeof(f->msg), msg && *msg ? msg : "failed");
		copy_text(f->detail, sizeof(f->detail), detail);
		copy_text(f->hint, sizeof(f->hint), hint);
	}
	f->count++;
}

/* The case's first error is kept, and the window's first apart: one in the
   measured window fails the case (engine.c), one before it that no
   BENCH_ERR followed is a warning. */
static void api_error(bench_ctx *x, bench_thread *t, const char *msg, const char *detail,
		      const char *hint)
{
	pthread_mutex_lock(&x->lock);
	keep_error(&x->first, t, msg, detail, hint);
	if (x->in_window)
		keep_error(&x->win, t, msg, detail, hint);
	pthread_mutex_unlock(&x->lock);
}

/* ABI 1.3: error() with a format; its text splits at the first two
   newlines into message, detail and hint (the rest). */
static void api_errorf(bench_ctx *x, bench_thread *t, const char *fmt, ...)
{
	char buf[1600] = "";
	char *detail = NULL, *hint = NULL, *nl;
	va_list ap;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
	}
	if ((nl = strchr(buf, '\n'))) {
		*nl = '\0';
		detail = nl + 1;
		if ((nl = strchr(detail, '\n'))) {
			*nl = '\0';
			hint = nl + 1;
			for (size_t n = strlen(hint); n && hint[n - 1] == '\n'; n--)
				hint[n - 1] = '\0';
		}
	}
	api_error(x, t, buf, detail, hint);
}

/* Op class and distribution names: what results and compare key on. */
static int valid_op_name(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

static int api_set_op_classes(bench_ctx *x, const char *const *names)
{
	size_t n = 0;
	if (!x->in_init || x->ndists) {
		api_set_error(x, "set_op_classes: call it from init, before dist()");
		return BENCH_ERR;
	}
	while (names && names[n])
		n++;
	if (n < 1 || n > BENCH_MAX_OP_CLASSES) {
		api_set_error(x, "set_op_classes: %zu op classes given, 1 .. %d allowed", n,
			      BENCH_MAX_OP_CLASSES);
		return BENCH_ERR;
	}
	for (size_t i = 0; i < n; i++) {
		if (!valid_op_name(names[i])) {
			api_set_error(x, "set_op_classes: op class \"%s\" is not 1..64 of [A-Za-z0-9_.-]",
				      names[i]);
			return BENCH_ERR;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(names[i], names[j])) {
				api_set_error(x, "set_op_classes: op class \"%s\" given twice", names[i]);
				return BENCH_ERR;
			}
	}
	bc_strv_free(x->own_ops);
	x->own_ops = bc_xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		x->own_ops[i] = bc_xstrdup(names[i]);
	x->ops = (const char **)x->own_ops;
	x->nops = (unsigned)n;
	return BENCH_OK;
}

static int api_dist(bench_ctx *x, unsigned op, const char *name)
{
	if (!x->in_init) {
		api_set_error(x, "dist: call it from init");
		return -1;
	}
	if (op >= x->nops || !valid_op_name(name) || x->ndists >= BENCH_MAX_OP_CLASSES) {
		api_set_error(x, "dist: bad op class %u or name \"%s\"", op, name ? name : "(null)");
		return -1;
	}
	for (unsigned i = 0; i < x->ndists; i++)
		if (x->dists[i].op == op && !strcmp(x->dists[i].name, name))
			return (int)i;
	x->dists = bc_xrealloc(x->dists, x->ndists + 1, sizeof(*x->dists));
	x->dists[x->ndists].op = op;
	x->dists[x->ndists].name = bc_xstrdup(name);
	return (int)x->ndists++;
}

void bc_prep_print(bench_ctx *x, uint64_t now, int final)
{
	struct bc_prep *p = &x->prep;
	double el = (double)(now - p->t0) / 1e9, rate = el > 0 ? p->done / el : 0;
	char eta[32] = "";
	if (rate > 0 && p->total > p->done && !final)
		snprintf(eta, sizeof(eta), " ETA %.0fs", (double)(p->total - p->done) / rate);
	char line[256];
	snprintf(line, sizeof(line), "[ prepare ] %llu/%llu %s (%.1f%%) %.0f %s/s%s",
		 (unsigned long long)p->done, (unsigned long long)p->total, p->unit,
		 p->total ? 100.0 * p->done / p->total : 0.0, rate, p->unit, eta);
	if (x->c->progress == 2) {
		fprintf(bc_stderr(), "\r\033[K%s%s", line, final ? "\n" : "");
		p->open = !final;
	} else {
		fprintf(bc_stderr(), "%s\n", line);
	}
}

static void api_progress(bench_ctx *x, uint64_t done, uint64_t total, const char *unit)
{
	struct bc_prep *p = &x->prep;
	if (!x->in_prepare)
		return;
	uint64_t now = bc_now_ns();
	if (!p->t0)
		p->t0 = p->last_print = now;
	p->done = done;
	p->total = total;
	copy_text(p->unit, sizeof(p->unit), unit && *unit ? unit : "units");
	if (bc_quiet || !x->c->progress)
		return;
	/* a terminal line 4x a second; plain lines at the report interval (or 10 s) */
	double step = x->c->progress == 2 ? 0.25 : x->c->run.report_interval > 0 ? x->c->run.report_interval : 10;
	if ((double)(now - p->last_print) / 1e9 >= step) {
		p->last_print = now;
		bc_prep_print(x, now, 0);
	}
}

/* Slot k of the threads' ops[] merged: the pct-th percentile, count, mean. */
static void slot_summary(bench_ctx *x, unsigned k, double pct, uint64_t *ns, uint64_t *count,
			 double *mean)
{
	uint64_t mn = UINT64_MAX, mx = 0, n = 0, sum = 0;
	if (!x->fin_hist)
		x->fin_hist = bc_xcalloc(1, sizeof(bc_hist));
	memset(x->fin_hist, 0, sizeof(bc_hist));
	for (unsigned i = 0; i < x->nthreads; i++) {
		const bc_opstat *st = &x->t[i]->ops[k];
		bc_hist_merge(x->fin_hist, &st->hist);
		n += st->count;
		sum += st->lat_sum;
		if (st->count && st->min < mn)
			mn = st->min;
		if (st->max > mx)
			mx = st->max;
	}
	*ns = n ? bc_hist_percentile(x->fin_hist, pct, mn, mx) : 0;
	if (count)
		*count = n;
	if (mean)
		*mean = n ? (double)sum / (double)n : 0;
}

static int api_percentile(bench_ctx *x, unsigned op, double pct, uint64_t *ns)
{
	*ns = 0;
	if (!x->in_finish || op >= x->nops || !(pct > 0 && pct <= 100))
		return BENCH_ERR;
	slot_summary(x, op, pct, ns, NULL, NULL);
	return BENCH_OK;
}

static int api_dist_percentile(bench_ctx *x, int id, double pct, uint64_t *ns, uint64_t *count,
			       double *mean)
{
	*ns = 0;
	if (!x->in_finish || id < 0 || (unsigned)id >= x->ndists || !(pct > 0 && pct <= 100))
		return BENCH_ERR;
	slot_summary(x, x->nops + (unsigned)id, pct, ns, count, mean);
	return BENCH_OK;
}

static int api_totals(bench_ctx *x, unsigned op, bench_totals_v1 *out)
{
	memset(out, 0, sizeof(*out));
	if (op >= x->nops)
		return BENCH_ERR;
	for (unsigned i = 0; i < x->nthreads; i++) {
		out->count += x->t[i]->ops[op].count;
		out->errors += x->t[i]->ops[op].errors;
		out->bytes += x->t[i]->ops[op].bytes;
	}
	out->seconds = (double)(x->t1 - x->t0) / 1e9;
	out->threads = x->nthreads;
	return BENCH_OK;
}

static void api_report_metric(bench_ctx *x, const char *name, double value)
{
	for (const bench_metric_v1 *m = x->d->metrics; m && m->name; m++)
		if (!strcmp(m->name, name)) {
			if (!isfinite(value)) {	/* never stored as a number: the case fails with why */
				pthread_mutex_lock(&x->lock);
				if (!x->bad_metric[0])
					snprintf(x->bad_metric, sizeof(x->bad_metric), "metric \"%s\" reported as %g "
						 "(not a finite number)", name, value);
				pthread_mutex_unlock(&x->lock);
				return;
			}
			pthread_mutex_lock(&x->lock);
			bc_case_set_metric(x->res, name, m->unit ? m->unit : "", value, m->higher_is_better);
			pthread_mutex_unlock(&x->lock);
			return;
		}
	api_log(x, BENCH_LOG_ERROR, "reported undeclared metric \"%s\" (ignored)", name);
}

/* set_info keeps facts (versions, file systems): a few dozen. Beyond this
   many keys a case's info is a data dump that would make every later step
   (the report to the runner, the results file, compare) slow: further new
   keys are dropped and the case warns once, naming the first. */
#define BC_MAX_INFO	256

static int has_info(const bc_case_result *r, const char *key)
{
	for (size_t i = 0; i < r->ninfo; i++)
		if (!strcmp(r->info[i].key, key))
			return 1;
	return 0;
}

static void api_set_info(bench_ctx *x, const char *key, const char *value)
{
	char *k = bc_xstrdup(key ? key : "?"), *v = bc_xstrdup(value ? value : "");
	bc_utf8_fix(k);
	bc_utf8_fix(v);
	pthread_mutex_lock(&x->lock);
	int drop = x->res->ninfo >= BC_MAX_INFO && !has_info(x->res, k);
	if (!drop)
		bc_case_set_info(x->res, k, v);
	unsigned first_drop = drop && !x->info_dropped++;
	pthread_mutex_unlock(&x->lock);
	if (first_drop) {
		char *w = bc_xasprintf("%s: set_info: more than %d keys; \"%s\" and every later new key are "
				       "dropped (info holds facts such as versions, not data)", x->d->name,
				       BC_MAX_INFO, k);
		bc_ctx_warn(x, w);
		free(w);
	}
	free(k);
	free(v);
}

static int api_cancelled(bench_ctx *x)
{
	(void)x;
	return bc_stop_requested != 0;
}

static const char *api_module_dir(bench_ctx *x)
{
	return x->c->module_dir ? x->c->module_dir : x->c->scratch;
}

static int api_server_start(bench_ctx *x, const bench_server_spec_v1 *spec)
{
	char err[1024] = "";
	if (!spec || !spec->name || !spec->argv || !spec->argv[0]) {
		api_set_error(x, "server_start: the spec needs a name and argv");
		return BENCH_ERR;
	}
	if (!x->c->start_server) {
		api_set_error(x, "server_start: private servers are not available here");
		return BENCH_ERR;
	}
	int pid = x->c->start_server(x->c->arg, spec, err, sizeof(err));
	if (pid < 0) {
		api_set_error(x, "%s", err[0] ? err : "the private server did not start");
		return BENCH_ERR;
	}
	/* the run's own server: its whole process group is the workload's CPU,
	   not "other processes" (a pid that vanished meanwhile: nothing to count) */
	bc_err de;
	if (pid > 0 && bc_declare(x, pid, 1, spec->name, &de) == 0)
		for (unsigned i = 0; i < x->ndeclared; i++)
			x->declared[i].server |= x->declared[i].pid == pid;	/* watched through the window */
	return BENCH_OK;
}

static int api_declare_process(bench_ctx *x, int pid, const char *name)
{
	bc_err err;
	if (!x->in_init && !x->in_prepare) {
		api_set_error(x, "declare_process: only in init or prepare (the measured window's "
			      "accounting starts after them)");
		return BENCH_ERR;
	}
	if (bc_declare(x, pid, 0, name, &err) != 0) {
		api_set_error(x, "%s", err.msg);
		return BENCH_ERR;
	}
	return BENCH_OK;
}

static uint64_t api_cache_size(bench_ctx *x, unsigned level, unsigned *found, const char **source)
{
	(void)x;
	return bc_sysinfo_cache(level, found, source);
}

const bench_host_api_v1 bc_host_api = {
	.magic = BENCH_MODULE_MAGIC,
	.abi_major = BENCH_ABI_MAJOR,
	.abi_minor = BENCH_ABI_MINOR,
	.struct_size = sizeof(bench_host_api_v1),
	.opt_int = api_opt_int,
	.opt_double = api_opt_double,
	.opt_bool = api_opt_bool,
	.opt_string = api_opt_string,
	.opt_enum = api_opt_enum,
	.threads = api_threads,
	.scratch_dir = api_scratch,
	.log = api_log,
	.set_error = api_set_error,
	.now_ns = bc_api_now,
	.thread_index = bc_api_thread_index,
	.should_stop = bc_api_should_stop,
	.pace = bc_api_pace,
	.record = bc_api_record,
	.record_error = bc_api_record_error,
	.totals = api_totals,
	.report_metric = api_report_metric,
	.set_info = api_set_info,
	.cancelled = api_cancelled,
	.measuring = bc_api_measuring,
	.record_n = bc_api_record_n,
	.module_dir = api_module_dir,
	.server_start = api_server_start,
	.cache_size = api_cache_size,
	.stop_fd = bc_api_stop_fd,
	.stopping = bc_api_stopping,
	.claim = bc_api_claim,
	.next_arrival = bc_api_next_arrival,
	.set_op_classes = api_set_op_classes,
	.error = api_error,
	.dist = api_dist,
	.record_dist = bc_api_record_dist,
	.progress = api_progress,
	.percentile = api_percentile,
	.dist_percentile = api_dist_percentile,
	.options = api_options,
	.errorf = api_errorf,
	.record_unfinished = bc_api_record_unfinished,
	.warmup_n = bc_api_warmup_n,
	.declare_process = api_declare_process,
	.seed = api_seed,
	.time_s = api_time_s,
	.events = api_events,
};
