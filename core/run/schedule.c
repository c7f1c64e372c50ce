/* The schedule: every module x point x threads x repeat. A module's cases
 * run in rounds by default (each case once, in a shuffled order, then again,
 * repeat times), so the repeats of a case sample the whole run and not one
 * minute of it; then the next module. Each case runs in a forked child by
 * default (isolate.c, its watchdog and containment), or in this process
 * (isolate = false, guarded against a module's exit(): inproc.c). Prepared data is made
 * once per data point (the module's data_options) and cleaned up after the
 * last case that uses it, whatever happened to that case; after a crash
 * before cleanup, once more in a fresh process, never after cleanup began.
 * A module directory and the module's servers live for all of its cases and
 * are removed and stopped after its last one, on every way out. Each case
 * ended goes into the results document (runner.c) at once. */
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "channel.h"
#include "runner.h"
#include "engine.h"
#include "leftover.h"
#include "output.h"
#include "fit.h"
#include "resume.h"
#include "auto.h"
#include "results.h"
#include "isolate.h"
#include "inproc.h"
#include "service.h"
#include "mrun.h"
#include "trust.h"

volatile sig_atomic_t bc_signals;
volatile sig_atomic_t bc_in_module, bc_self_signal;

static void failed_case(const bc_case *c, const char *reason, bc_case_result *cr)
{
	bc_case_header(c, "failed", reason, cr);
}

static size_t cases_of(const bc_modplan *p)
{
	return p->npoints * p->run.nthreads * p->run.repeat;
}

/* The first reason a case of p cannot run here (needs()). */
static const char *first_need(const bc_modplan *p)
{
	for (size_t i = 0; p->need_skip && i < p->npoints * p->run.nthreads; i++)
		if (p->need_skip[i])
			return p->need_skip[i];
	return "";
}

void bc_runner_show_plan(bc_runner *r, bc_modplan *plans, size_t n)
{
	size_t total = 0, skipped = 0;
	double secs = 0;
	for (size_t i = 0; i < n; i++) {
		size_t c = cases_of(&plans[i]);
		total += c;
		secs += c * (plans[i].run.warmup_s + plans[i].run.time_s);
		size_t sk = plans[i].skip_all ? c : r->force_module ? 0 : plans[i].need_skipped * plans[i].run.repeat;
		bc_info("plan: %s: %zu point%s x %zu thread count%s x %u repeat%s = %zu case%s%s", plans[i].mod->desc.name,
			plans[i].npoints, plans[i].npoints == 1 ? "" : "s", plans[i].run.nthreads,
			plans[i].run.nthreads == 1 ? "" : "s", plans[i].run.repeat, plans[i].run.repeat == 1 ? "" : "s",
			c, c == 1 ? "" : "s", "");
		if (plans[i].skip_all)
			bc_info("plan: %s: every case skipped: %s", plans[i].mod->desc.name, plans[i].skip_all);
		else if (sk)
			bc_info("plan: %s: %zu of them skipped, this machine cannot give what they need (first: %s)",
				plans[i].mod->desc.name, sk, first_need(&plans[i]));
		skipped += sk;
	}
	size_t kept = r->resume ? json_array_size(r->resume->kept) : 0;
	if (kept) {
		double share = total ? (double)(total > kept ? total - kept : 0) / (double)total : 0;
		bc_info("plan: resuming %s: %zu case%s kept, %zu to run (%zu interrupted, run again); about %.0f s left",
			r->out_json ? r->out_json : "", kept, kept == 1 ? "" : "s", total > kept ? total - kept : 0,
			r->resume->interrupted, secs * share);
	}
	if (skipped)
		bc_info("plan: %zu case%s to run, %zu skipped (said above); about %.0f s of warmup and "
			"measurement (plus prepare time)", total - skipped, total - skipped == 1 ? "" : "s", skipped,
			total ? secs * (double)(total - skipped) / (double)total : 0);
	else
		bc_info("plan: %zu case%s, about %.0f s of warmup and measurement (plus prepare time)",
			total, total == 1 ? "" : "s", secs);
	for (size_t i = 0; i < n; i++)
		if (plans[i].run.repeat > 1 && !plans[i].run.back_to_back) {
			bc_info("plan: repeats in rounds, shuffled with seed %u (seed = %u reproduces this order)",
				r->seed, r->seed);
			break;
		}
}

/* A case, isolated in a child process or here. */
static void run_one(bc_case *c, case_link *l, int isolate, int *crashed, bc_case_result *cr)
{
	*crashed = 0;
	if (isolate)
		bc_run_isolated(c, l, crashed, cr);
	else
		bc_run_here(c, cr);
}

static void local_phase(void *arg, const char *phase)
{
	case_link *l = arg;
	int ph = bc_phase_parse(phase);
	if (ph == BC_PHASE_PREPARE)
		l->prepare_started = 1;
	else if (ph == BC_PHASE_PREPARED)
		l->prepared = 1;
	else if (ph == BC_PHASE_CLEANUP)
		l->cleaned = 1;
}

static int local_start_server(void *arg, const bench_server_spec_v1 *spec, char *err, size_t n)
{
	case_link *l = arg;
	bc_err e;
	if (bc_service_start(l->module, spec, l->dir, &e) != 0) {
		snprintf(err, n, "%s", e.msg);	/* the host API's form */
		return -1;
	}
	return bc_service_pid(l->module, spec->name);
}

/* ---------------------------------------------------------- requirements */

/* Free space for a path that may not exist yet (prepare creates it): that
   of its nearest existing parent, where it will be made. *at gets the
   directory measured (static storage: main thread only). */

static int unmet(const bc_modplan *p, const bc_val *point, char *why, size_t n)
{
	const bench_requirements_v1 *rq = &p->mod->desc.requires;
	char need[32], have[32];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (rq->min_cpus && cpus > 0 && (uint32_t)cpus < rq->min_cpus) {
		snprintf(why, n, "%s needs %u CPUs, this machine has %ld", p->mod->desc.name, rq->min_cpus, cpus);
		return 1;
	}
	bc_mem_room mem;
	bc_err me;
	/* the room a cgroup leaves binds too (the hook was checked before the plan) */
	if (rq->min_memory && bc_mem_avail(&mem, &me) == 0 && mem.avail && mem.avail < rq->min_memory) {
		char *w = bc_xasprintf("%s needs %s free memory, %s%s%s", p->mod->desc.name,
				       bc_human_size((double)rq->min_memory, need, sizeof(need)),
				       bc_human_size((double)mem.avail, have, sizeof(have)),
				       mem.limit ? " are left in the cgroup " : " are available",
				       mem.limit ? mem.cgroup : "");
		snprintf(why, n, "%s", w);
		free(w);
		return 1;
	}
	const bench_option_v1 *o = rq->disk_path_option ? bc_opt_find(p->mod->desc.options, rq->disk_path_option) : NULL;
	const char *path = o ? point[o - p->mod->desc.options].s : NULL, *at;
	double avail;
	if (rq->min_disk && path && bc_disk_avail(path, &avail, &at) == 0 && avail < (double)rq->min_disk) {
		int same = !strcmp(at, path);
		char *w = bc_xasprintf("%s needs %s free at %s, it has %s%s%s%s", p->mod->desc.name,
				       bc_human_size((double)rq->min_disk, need, sizeof(need)), path,
				       bc_human_size(avail, have, sizeof(have)), same ? "" : " (measured at ",
				       same ? "" : at, same ? "" : ", the nearest existing directory)");
		snprintf(why, n, "%s", w);
		free(w);
		return 1;
	}
	return 0;
}


/* ------------------------------------------------------------- schedule */

typedef struct slot {
	size_t point, ti;		/* index of the point and of the thread count */
	unsigned rep;			/* the repeat, which is also the round */
} slot;

typedef struct datapt {
	size_t last;			/* schedule index of its last case */
	int prepared;			/* its data is there: later cases skip prepare */
	int dirty;			/* a prepare ran since the last cleanup: cleanup is owed */
} datapt;

/* One module's run: its points, their data points, the order of its cases. */
typedef struct modrun {
	const bc_modplan *p;
	bc_val *vals;			/* npoints x nopts, pointing into the plan */
	size_t *dp;			/* each point's data point */
	datapt *dps;
	size_t ndp;
	char **skip;			/* each point: why its cases are skipped, or NULL */
	char **labels;			/* each point: its swept options */
	slot *sched;
	size_t nsched;
	const char **stopped;		/* repeat = auto, per point x thread count: why no more
					   rounds run (static strings), or NULL */
	size_t *expect;			/* repeat = auto, the same: repeats it will likely run
					   (auto_expected; 0: to be worked out again) */
	size_t ran;			/* cases of this module run so far (the ETA) */
	int reuse;			/* data_options declared: prepare once per data point */
	char *dir;			/* module_dir, for all of its cases */
	char **fsdirs;			/* machine.fs: each point's mount point (owned), or NULL */
	char *fsmod;			/* machine.fs: module_dir on the file system mounted now */
	unsigned fs_made;		/* bc_mrun_fs_made when this module's last case ran */
	case_link link;
} modrun;

static size_t stride(const bc_modplan *p)
{
	return p->nopts ? p->nopts : 1;
}

/* The module directory in parent (NULL: $TMPDIR), a new private one. */
static char *make_tmpdir(const char *parent, const char *what, char **why)
{
	bc_err e;
	if (parent ? bc_trust_walk(parent, parent, BC_TRUST_STICKY_OK | BC_TRUST_USE, "directory", &e) :
		     bc_tmpdir_check(&e)) {	/* checked at the run's start; again here, where it is used */
		*why = bc_xstrdup(e.msg);
		return NULL;
	}
	char *tmpl = bc_xasprintf("%s/benchcore%s.XXXXXX", parent ? parent : bc_scratch_parent(), what);
	if (mkdtemp(tmpl)) {
		/* the record lets a later run remove it if this one is killed
		   outright; without it the directory is only never cleaned by others */
		bc_owner_mark(tmpl);
		return tmpl;
	}
	*why = bc_xasprintf("could not create a directory %s: %s", tmpl, strerror(errno));
	free(tmpl);
	return NULL;
}

/* Where the user placed the module's directory: a module whose disk path
   option (requires.disk_path_option) defaults to empty keeps its files in
   module_dir() (oltp's private server's data directory), so that option
   given names the directory module_dir() is made in (oltp datadir=/mnt/xfs);
   NULL: $TMPDIR, as for every other module. */
static const char *placed_parent(const bc_modplan *p)
{
	const char *name = p->mod->desc.requires.disk_path_option;
	const bench_option_v1 *o = name ? bc_opt_find(p->mod->desc.options, name) : NULL;
	if (!o || o->type != BENCH_OPT_STRING || (o->def && *o->def))
		return NULL;
	for (size_t i = 0; i < p->mc->ngiven; i++)
		if (!strcmp(p->mc->given[i].key, name)) {
			const char *v = p->nvals[o - p->mod->desc.options] == 1 ? p->vals[o - p->mod->desc.options][0].s : NULL;
			return v && *v ? v : NULL;
		}
	return NULL;
}

static char *skip_reason(bc_runner *r, const bc_modplan *p, const bc_val *point)
{
	char why[256];
	if (unmet(p, point, why, sizeof(why)) && !r->force_module)
		return bc_xstrdup(why);
	if (r->cfg->skip_heavy && p->mod->desc.requires.heavy)
		return bc_xasprintf("%s is marked heavy and skip_heavy = true", p->mod->desc.name);
	if (p->run.profile_small && p->mod->desc.requires.heavy)
		return bc_xasprintf("%s is marked heavy and profile = \"small\"", p->mod->desc.name);
	return NULL;
}

/* The options that shape the prepared data: the module's data_options, or
   all of them when it declares none (each point prepares for itself, as
   in ABI 1.0). */
static unsigned char *data_mask(const bc_modplan *p, int *reuse)
{
	const bench_module_v1 *d = &p->mod->desc;
	unsigned char *mask = bc_xcalloc(stride(p), 1);
	*reuse = d->data_options != NULL;
	for (size_t k = 0; k < p->nopts; k++)
		mask[k] = !*reuse;
	for (const char *const *n = d->data_options; n && *n; n++) {
		const bench_option_v1 *o = bc_opt_find(d->options, *n);
		if (o)
			mask[o - d->options] = 1;
		else
			bc_warn("%s: data_options names \"%s\", which is not one of its options (ignored)", d->name, *n);
	}
	return mask;
}

static int same_val(const bc_val *a, const bc_val *b)
{
	return a->i == b->i && a->d == b->d && !strcmp(a->s ? a->s : "", b->s ? b->s : "");
}

/* Numbers the distinct data points; points with equal data options share one. */
static void find_data_points(modrun *m)
{
	const bc_modplan *p = m->p;
	unsigned char *mask = data_mask(p, &m->reuse);
	m->dp = bc_xcalloc(p->npoints ? p->npoints : 1, sizeof(*m->dp));
	for (size_t i = 0; i < p->npoints; i++) {
		size_t j = 0;
		for (; j < i; j++) {
			size_t k = 0;
			if (p->nmdims && i / p->optpoints != j / p->optpoints)
				continue;	/* another machine combination (a file system) prepares anew */
			while (k < p->nopts && (!mask[k] || same_val(&m->vals[i * stride(p) + k], &m->vals[j * stride(p) + k])))
				k++;
			if (k == p->nopts)
				break;
		}
		m->dp[i] = j < i ? m->dp[j] : m->ndp++;
	}
	m->dps = bc_xcalloc(m->ndp ? m->ndp : 1, sizeof(*m->dps));
	free(mask);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Rounds: every (point, threads) once in a shuffled order, repeat times (one
   round needs no shuffle: there are no repeats to spread). back_to_back:
   each case's repeats one after another, in plan order. */
static void build_schedule(modrun *m, uint32_t seed)
{
	const bc_modplan *p = m->p;
	size_t per = p->npoints * p->run.nthreads, k = 0;
	m->nsched = per * p->run.repeat;
	m->sched = bc_xcalloc(m->nsched ? m->nsched : 1, sizeof(*m->sched));
	if (p->run.back_to_back) {
		for (size_t pt = 0; pt < p->npoints; pt++)
			for (size_t ti = 0; ti < p->run.nthreads; ti++)
				for (unsigned rep = 1; rep <= p->run.repeat; rep++)
					m->sched[k++] = (slot){ pt, ti, rep };
	} else {
		/* the module's own stream: its order does not depend on other modules */
		uint64_t st = (uint64_t)seed << 32;
		for (const char *c = p->mod->desc.name; *c; c++)
			st = (st ^ (unsigned char)*c) * 0x100000001b3ull;
		for (unsigned rep = 1; rep <= p->run.repeat; rep++) {
			slot *round = m->sched + k;
			for (size_t pt = 0; pt < p->npoints; pt++)
				for (size_t ti = 0; ti < p->run.nthreads; ti++)
					m->sched[k++] = (slot){ pt, ti, rep };
			for (size_t i = per; p->run.repeat > 1 && i > 1; i--) {	/* Fisher-Yates */
				size_t j = (size_t)(splitmix(&st) % i);
				slot t = round[i - 1];
				round[i - 1] = round[j];
				round[j] = t;
			}
		}
	}
	for (size_t i = 0; i < m->nsched; i++)
		m->dps[m->dp[m->sched[i].point]].last = i;
}

/* machine.fs: the module's files go to the file system made for the
   point (its disk_path_option, when the config does not give it). */
static void fs_path(modrun *m, const bc_modplan *p, size_t pt, bc_val *v)
{
	const char *name = p->mod->desc.requires.disk_path_option;
	const bench_option_v1 *o = name ? bc_opt_find(p->mod->desc.options, name) : NULL;
	if (!p->nmdims || !o)
		return;
	for (size_t i = 0; i < p->mc->ngiven; i++)
		if (!strcmp(p->mc->given[i].key, name))
			return;
	char *dir = bc_plan_fsdir(p, pt);
	if (!dir)
		return;
	if (!m->fsdirs)
		m->fsdirs = bc_xcalloc(p->npoints + 1, sizeof(*m->fsdirs));
	m->fsdirs[pt] = dir;
	v[o - p->mod->desc.options].s = dir;
}

static void modrun_init(modrun *m, bc_runner *r, const bc_modplan *p)
{
	memset(m, 0, sizeof(*m));
	m->p = p;
	m->vals = bc_xcalloc(p->npoints * stride(p) + 1, sizeof(*m->vals));
	m->skip = bc_xcalloc(p->npoints + 1, sizeof(*m->skip));
	m->labels = bc_xcalloc(p->npoints + 1, sizeof(*m->labels));
	for (size_t pt = 0; pt < p->npoints; pt++) {
		bc_val *v = m->vals + pt * stride(p);
		bc_plan_point(p, pt, v);
		m->labels[pt] = bc_plan_point_label(p, v);
		if (p->nmdims) {	/* the machine settings, after the options */
			char *ml = bc_plan_mlabel(p, pt), *l = bc_xasprintf("%s%s%s", m->labels[pt],
									    *m->labels[pt] && *ml ? " " : "", ml);
			free(ml);
			free(m->labels[pt]);
			m->labels[pt] = l;
		}
		m->skip[pt] = skip_reason(r, p, v);
		fs_path(m, p, pt, v);
	}
	find_data_points(m);
	build_schedule(m, p->run.seed_set ? p->run.seed : r->seed);
	m->stopped = bc_xcalloc(p->npoints * p->run.nthreads + 1, sizeof(*m->stopped));
	m->expect = bc_xcalloc(p->npoints * p->run.nthreads + 1, sizeof(*m->expect));
	char *why = NULL;
	size_t n = strlen(p->mod->desc.name) + 2;
	char *tag = bc_xasprintf("-%.*s", (int)(n > 24 ? 22 : n - 2), p->mod->desc.name);
	if (!(m->dir = make_tmpdir(placed_parent(p), tag, &why))) {	/* module_dir() then falls back to scratch_dir() */
		bc_warn("%s: %s", p->mod->desc.name, why);
		free(why);
	}
	free(tag);
	if (p->mod->shadows)
		bc_warn("module \"%s\" is %s; %s also call%s itself \"%s\" and is not used (it comes later on the search path)",
			p->mod->desc.name, p->mod->path, p->mod->shadows, strchr(p->mod->shadows, ',') ? "" : "s",
			p->mod->desc.name);
	m->link.module = p->mod->desc.name;
	m->link.dir = m->dir;
}

static void modrun_free(modrun *m)
{
	for (size_t pt = 0; pt < m->p->npoints; pt++) {
		free(m->labels[pt]);
		free(m->skip[pt]);
	}
	free(m->labels);
	for (size_t pt = 0; m->fsdirs && pt < m->p->npoints; pt++)
		free(m->fsdirs[pt]);
	free(m->fsdirs);
	free(m->fsmod);
	free(m->stopped);
	free(m->expect);
	free(m->skip);
	free(m->vals);
	free(m->dp);
	free(m->dps);
	free(m->sched);
	free(m->dir);
}


/* Runs init + cleanup of the module for data point d in a fresh process (or
   this one, isolate = false), like case c; nothing is measured. */
static void cleanup_data(modrun *m, const bc_case *c, datapt *d)
{
	uint64_t stop_at = bc_stop_deadline();
	if (stop_at && bc_now_ns() >= stop_at && d->dirty && m->p->mod->desc.cleanup && !m->p->run.keep) {
		bc_warn("%s: cleanup not run: the %d s after the stop request are over (its prepared data "
			"may be left behind)", m->p->mod->desc.name, STOP_GRACE_S);
	} else if (d->dirty && m->p->mod->desc.cleanup && !m->p->run.keep) {
		bc_case cc = *c;
		int crashed;
		bc_case_result cr;
		cc.cleanup_only = 1;
		cc.progress = 0;
		run_one(&cc, &m->link, m->p->run.isolate, &crashed, &cr);
		bc_case_free(&cr);
	}
	d->dirty = d->prepared = 0;
}

static bc_case case_of(bc_runner *r, modrun *m, size_t i)
{
	const bc_modplan *p = m->p;
	const slot *s = &m->sched[i];
	const datapt *d = &m->dps[m->dp[s->point]];
	bc_case c = {
		.mod = p->mod, .vals = m->vals + s->point * stride(p), .run = p->run,
		.threads = p->run.threads[s->ti], .repeat = s->rep, .pct = r->cfg->pct,
		.npct = r->cfg->npct, .progress = r->progress, .module_dir = m->dir,
		/* without data_options prepare and cleanup run in every case (module.h) */
		.do_prepare = !m->reuse || !d->prepared, .do_cleanup = !m->reuse || i == d->last,
		.on_phase = local_phase, .start_server = local_start_server, .arg = &m->link,
	};
	/* the seed the rounds were shuffled with, given or drawn: api->seed() */
	c.run.seed = p->run.seed_set ? p->run.seed : r->seed;
	if (p->need_mem) {
		size_t k = s->point * p->run.nthreads + s->ti;
		c.need_memory = p->need_mem[k];
		c.need_disk = p->need_disk[k];
		c.need_path = p->need_path[k];
	}
	return c;
}

/* machine.fs: a file system made since this module's last case holds none
   of its prepared data (prepared again), and the module's directory (oltp's
   datadir) and the case's scratch directory go on the one mounted. */
static void fs_case(bc_runner *r, modrun *m, bc_case *c, char **scratch)
{
	unsigned made = bc_mrun_fs_made(r->mrun);
	if (made != m->fs_made) {
		for (size_t i = 0; i < m->ndp; i++)
			m->dps[i].prepared = m->dps[i].dirty = 0;
		c->do_prepare = 1;
		m->fs_made = made;
	}
	const char *dir = bc_mrun_fs_dir(r->mrun);
	if (!dir)
		return;
	free(m->fsmod);
	m->fsmod = bc_xasprintf("%s/benchcore-%s", dir, m->p->mod->desc.name);
	if (mkdir(m->fsmod, 0700) == 0 || errno == EEXIST)
		c->module_dir = m->fsmod;
	char *s2 = bc_xasprintf("%s/scratch.XXXXXX", dir);
	if (!mkdtemp(s2)) {
		free(s2);
		return;
	}
	bc_rmtree(*scratch);
	free(*scratch);
	*scratch = s2;
	c->scratch = s2;
}

static void run_case(bc_runner *r, modrun *m, bc_case *c, const char *label, const slot *s)
{
	datapt *d = &m->dps[m->dp[s->point]];
	char *why = NULL, *scratch = make_tmpdir(NULL, "", &why);
	bc_case_result cr;
	if (!scratch) {
		failed_case(c, why, &cr);
		bc_runner_record(r, &cr, label, m->labels[s->point], s->rep);
		free(why);
		return;
	}
	c->scratch = scratch;
	if (!m->p->run.isolate)
		bc_keep_stdout(r);
	int crashed = 0;
	char mwhy[1024];
	if (bc_mrun_apply(r->mrun, m->p, s->point, r->text, mwhy, sizeof(mwhy))) {
		failed_case(c, mwhy, &cr);
		bc_mrun_verify(m->p, s->point, &cr);
		bc_runner_record(r, &cr, label, m->labels[s->point], s->rep);
		bc_rmtree(scratch);
		free(scratch);
		return;
	}
	fs_case(r, m, c, &scratch);
	m->link.prepared = m->link.cleaned = m->link.prepare_started = m->link.timed_out = 0;
	bc_here_set(r, &m->dir, label, m->labels[s->point], s->rep);
	run_one(c, &m->link, m->p->run.isolate, &crashed, &cr);
	bc_here_set(r, &m->dir, NULL, NULL, 0);	/* a cleanup after it is no case of its own */
	bc_needs_used(c, &cr, m->link.disk_used);
	if (c->do_prepare && m->link.prepare_started)
		d->dirty = 1;
	if (m->link.prepared)
		d->prepared = 1;
	else if (c->do_prepare)
		d->prepared = 0;	/* prepare failed or never ran: the next case tries again */
	if (m->link.cleaned)
		d->prepared = d->dirty = 0;
	bc_mrun_verify(m->p, s->point, &cr);
	bc_runner_record(r, &cr, label, m->labels[s->point], s->rep);
	if (crashed && !m->link.cleaned && (d->dirty || m->link.prepare_started)) {
		/* the module died holding what it prepared: a fresh process removes
		   it, and the next case of this data point prepares again. Once its
		   cleanup began (it crashed or timed out in cleanup or destroy) it
		   is never run again: a hang would only hang again. */
		d->dirty = 1;
		cleanup_data(m, c, d);
	} else if (crashed) {
		d->prepared = 0;
	}
	bc_rmtree(scratch);
	free(scratch);
}

/* repeat = auto: what the run knows of point pt x thread count ti so far. */
static int auto_look(bc_runner *r, modrun *m, size_t pt, size_t ti, bc_auto_case *a)
{
	const bc_modplan *p = m->p;
	json_t *mj = bc_plan_mjson(p, pt);	/* a setting's values are cases of their own */
	int rc = bc_auto_look(&r->groups, r->baseline, p, m->vals + pt * stride(p), mj, p->run.threads[ti], a);
	json_decref(mj);
	return rc;
}

/* repeat = auto: why the case of slot s need not run, or NULL. */
static const char *auto_stop(bc_runner *r, modrun *m, const slot *s)
{
	const bc_modplan *p = m->p;
	size_t k = s->point * p->run.nthreads + s->ti;
	if (!p->run.repeat_auto || s->rep <= p->run.min_repeat)
		return NULL;
	if (m->stopped[k])
		return m->stopped[k];
	if (p->run.time_budget > 0 && (double)(bc_now_ns() - r->t0) / 1e9 > p->run.time_budget)
		return "budget";
	bc_auto_case a;
	return auto_look(r, m, s->point, s->ti, &a) ? bc_auto_stop(&a, &p->run) : NULL;
}

/* repeat = auto, for the ETA: the repeats point pt x thread count ti will
   likely run in all. */
static size_t auto_expected(bc_runner *r, modrun *m, size_t pt, size_t ti)
{
	bc_auto_case a;
	return auto_look(r, m, pt, ti, &a) ? bc_auto_expected(&a, &m->p->run) : m->p->run.max_repeat;
}

/* The last case run of point x thread count of m records why its repeats
   stopped (in the struct and in the document written so far). */
static void mark_stop(bc_runner *r, modrun *m, size_t pt, size_t ti, const char *why)
{
	const bc_modplan *p = m->p;
	m->stopped[pt * p->run.nthreads + ti] = why;
	bc_case_result h;
	bc_case c = { .mod = p->mod, .vals = m->vals + pt * stride(p), .threads = p->run.threads[ti] };
	bc_case_header(&c, "ok", NULL, &h);
	json_t *mj = bc_plan_mjson(p, pt);	/* the last case of this point under its settings */
	for (size_t i = r->ncases; i-- > 0;) {
		const bc_case_result *cr = &r->cases[i];
		if (cr->threads != (long)c.threads || strcmp(cr->module, p->mod->desc.name) ||
		    !json_equal(cr->params, h.params) || (mj || cr->machine ? !mj || !cr->machine ||
		    !json_equal(cr->machine, mj) : 0))
			continue;
		bc_runner_repeat_stop(r, i, why);
		break;
	}
	json_decref(mj);
	bc_case_free(&h);
}



static void run_slot(bc_runner *r, modrun *m, size_t i)
{
	const bc_modplan *p = m->p;
	const slot *s = &m->sched[i];
	const char *pl = m->labels[s->point];
	bc_case c = case_of(r, m, i);
	const char *stop = auto_stop(r, m, s);
	if (stop) {
		if (!m->stopped[s->point * p->run.nthreads + s->ti])
			mark_stop(r, m, s->point, s->ti, stop);
		return;
	}
	if (r->resume) {	/* a case the interrupted run finished: kept, not run */
		bc_case_result h;
		bc_case_header(&c, "ok", NULL, &h);
		json_t *mj = bc_plan_mjson(p, s->point);	/* the settings are part of the case's identity */
		int kept = bc_resume_has(r->resume, p->mod->desc.name, h.params, mj, (long)c.threads, (long)s->rep);
		json_decref(mj);
		bc_case_free(&h);
		if (kept)
			return;
	}
	c.id = r->next_id++;
	char *label = bc_xasprintf("%s%s%s threads=%u %s %u/%u", p->mod->desc.name, *pl ? " " : "", pl,
				   c.threads, p->run.back_to_back ? "repeat" : "round", s->rep, p->run.repeat);
	const char *need = p->need_skip && !r->force_module ? p->need_skip[s->point * p->run.nthreads + s->ti] : NULL;
	if (m->skip[s->point] || need) {
		bc_case_result cr;
		bc_case_header(&c, "skipped", m->skip[s->point] ? m->skip[s->point] : need, &cr);
		bc_mrun_verify(p, s->point, &cr);
		bc_runner_record(r, &cr, label, pl, s->rep);
	} else {
		run_case(r, m, &c, label, s);
	}
	m->ran++;
	m->expect[s->point * p->run.nthreads + s->ti] = 0;	/* a new value: worked out again */
	free(label);
}

/* Cleanup still owed for data point k (its last case did not clean up, or
   the run stops early): like that last case, in a scratch dir of its own. */
static void settle(bc_runner *r, modrun *m, size_t k)
{
	datapt *d = &m->dps[k];
	char *why = NULL, *scratch;
	if (!d->dirty)
		return;
	if (!(scratch = make_tmpdir(NULL, "", &why))) {
		bc_warn("%s: cleanup skipped: %s", m->p->mod->desc.name, why);
		free(why);
		return;
	}
	bc_case c = case_of(r, m, d->last);
	c.scratch = scratch;
	bc_here_set(r, &m->dir, NULL, NULL, 0);
	cleanup_data(m, &c, d);
	bc_rmtree(scratch);
	free(scratch);
}

/* After case i of m: the time left, from the cases left (those a repeat =
   auto case no longer needs, or a resume kept, left out) and the time the
   run's cases have taken so far, so it follows what the machine does. With
   repeat = auto, from the cases each undecided one will likely still run
   (auto_expected), the later modules' in the same proportion; the bound
   (every case to max_repeat) is said beside it. */
static void show_eta(bc_runner *r, modrun *m, size_t i, size_t later)
{
	const bc_modplan *p = m->p;
	size_t left = 0, likely = 0;
	for (size_t j = i + 1; j < m->nsched; j++) {
		const slot *s = &m->sched[j];
		size_t k = s->point * p->run.nthreads + s->ti;
		if (m->stopped[k])
			continue;
		left++;
		if (!p->run.repeat_auto)
			continue;
		if (!m->expect[k])
			m->expect[k] = auto_expected(r, m, s->point, s->ti);
		likely += s->rep <= m->expect[k];
	}
	if (r->ncases == r->eta_seen)
		return;		/* nothing ran (kept, or no longer needed) */
	r->eta_seen = r->ncases;
	r->done++;
	if (!r->progress || bc_quiet || !(left + later))
		return;
	double share = 1;	/* of the bound, this module likely runs */
	if (p->run.repeat_auto && m->ran + left > 0)
		share = (double)(m->ran + likely) / (double)(m->ran + left);
	double cases = p->run.repeat_auto ? (double)likely + share * (double)later : (double)(left + later);
	double per = (double)(bc_now_ns() - r->t0) / 1e9 / (double)r->done, secs = ceil(per * cases);
	if (!p->run.repeat_auto) {
		fprintf(r->text, "    eta: about %.0f %s left, %zu case%s\n", secs >= 120 ? secs / 60 : secs,
			secs >= 120 ? "min" : "s", left + later, left + later == 1 ? "" : "s");
		return;
	}
	size_t n = (size_t)ceil(cases), bound = left + later;
	fprintf(r->text, "    eta: about %.0f %s left, %zu case%s likely, %zu at most (repeat = auto stops "
		"decided ones early)\n", secs >= 120 ? secs / 60 : secs, secs >= 120 ? "min" : "s", n,
		n == 1 ? "" : "s", bound);
}

/* All of a module's cases; then what it leaves is removed, on every way out.
   later: the cases of the modules after it (for the ETA). */
static void run_module(bc_runner *r, const bc_modplan *p, size_t later)
{
	modrun m;
	modrun_init(&m, r, p);
	for (size_t i = 0; i < m.nsched && !bc_stop_requested; i++) {
		run_slot(r, &m, i);
		show_eta(r, &m, i, later);
		size_t k = m.dp[m.sched[i].point];
		if (i == m.dps[k].last)
			settle(r, &m, k);
	}
	for (size_t k = 0; k < m.ndp; k++)	/* interrupted: data points not finished */
		settle(r, &m, k);
	for (size_t pt = 0; p->run.repeat_auto && !bc_stop_requested && pt < p->npoints; pt++)
		for (size_t ti = 0; ti < p->run.nthreads; ti++)
			if (!m.stopped[pt * p->run.nthreads + ti] && !m.skip[pt])
				mark_stop(r, &m, pt, ti, "max_repeat");
	if (p->run.repeat_auto)
		r->write_failed = bc_runner_write(r, 0) != 0;
	bc_service_stop_module(p->mod->desc.name);
	if (m.dir)
		bc_rmtree(m.dir);
	modrun_free(&m);
}

int bc_runner_run(bc_runner *r, bc_modplan *plans, size_t n)
{
	r->t0 = bc_now_ns();
	r->eta_seen = r->ncases;	/* a resume's kept cases are not this run's pace */
	size_t planned = 0;
	for (size_t i = 0; i < n; i++)
		planned += cases_of(&plans[i]);
	/* what a whole run writes (repeat = auto: at most): a reader tells a
	   partial file by it and status */
	bc_rundoc_set(&r->doc, "cases_planned", json_integer((json_int_t)planned));
	/* what runs killed outright left (their owner is gone): see leftover.h */
	bc_clean_leftovers(bc_leftover_parent(), 0, 0);
	for (size_t i = 0; i < n && !bc_stop_requested; i++) {
		size_t later = 0;
		for (size_t j = i + 1; j < n; j++)
			later += cases_of(&plans[j]);
		run_module(r, &plans[i], later);
	}
	bc_service_stop_all();
	if (bc_stop_requested)
		r->interrupted = 1;
	r->write_failed = bc_runner_write(r, 1) != 0;
	bc_results_done(&r->groups);
	bc_print_summary(r->text, r->cases, r->ncases, &r->groups);
	if (r->write_failed) {
		/* never "written" when it was not: the reason is printed above */
		fprintf(stderr, "benchcore: error: the results were NOT saved%s%s%s\n",
			r->out_json ? " to " : "", r->out_json ? r->out_json : "",
			r->out_csv ? " (or the CSV)" : "");
		return 3;
	}
	if (r->out_json && strcmp(r->out_json, "-"))
		bc_info("results written to %s", r->out_json);
	if (r->interrupted)
		return 130;
	return r->failed ? 1 : 0;
}
