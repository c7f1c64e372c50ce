/* Resolving module options into a parameter matrix. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plan.h"
#include "settings.h"

/* a secret file is one line; anything larger is not one */
#define MAX_SECRET_FILE (64 * 1024)

static void valid_keys(const bc_module *m, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const bench_option_v1 *opt = m->desc.options; opt && opt->name && o < n; opt++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", opt->name);
	if (o < n) {
		char run[512];
		bc_settings_names(run, sizeof(run), BC_SCOPE_RUN, BC_SCOPE_ENTRY);
		snprintf(buf + o, n - o, "%s(run settings) %s", o ? "; " : "", run);
	}
}

/* A secret option may be given indirectly: NAME_env = "VAR" or NAME_file =
   "/path" (first line). Returns the secret option and its value in *text
   (malloc'd), NULL when key is not such an indirection, or sets e. */
static const bench_option_v1 *secret_source(const bc_module *m, const bc_given *gv, char **text,
					     bc_err *e)
{
	size_t l = strlen(gv->key);
	int is_env = l > 4 && !strcmp(gv->key + l - 4, "_env");
	int is_file = l > 5 && !strcmp(gv->key + l - 5, "_file");
	if (!is_env && !is_file)
		return NULL;
	char *base = strndup(gv->key, l - (is_env ? 4 : 5));
	const bench_option_v1 *o = bc_opt_find(m->desc.options, base);
	free(base);
	if (!o || !(o->flags & BENCH_OPT_SECRET) || o->type != BENCH_OPT_STRING)
		return NULL;
	*text = NULL;
	if (bc_strv_len(gv->texts) != 1) {
		bc_err_set(e, "%s: \"%s\" takes one value", gv->where, gv->key);
		return o;
	}
	if (is_env) {
		const char *v = getenv(gv->texts[0]);
		if (!v)
			bc_err_set(e, "%s: environment variable \"%s\" (for option \"%s\") is not set",
				   gv->where, gv->texts[0], o->name);
		else
			*text = bc_xstrdup(v);
		return o;
	}
	/* a FIFO, device or directory would block or never end: refused at once */
	char line[4096] = "";
	bc_err why;
	int fd = bc_open_regular(gv->texts[0], MAX_SECRET_FILE, &why);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0) {
			bc_err_set(&why, "%s", strerror(errno));
			close(fd);
		}
		bc_err_set(e, "%s: could not read \"%s\" (for option \"%s\"): %s", gv->where,
			   gv->texts[0], o->name, why.msg);
		bc_err_hint(e, "%s_file names a regular file whose first line is the secret", o->name);
		return o;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	*text = bc_xstrdup(line);
	return o;
}

/* A password written into a config file that others can read is a leak
   waiting to happen: say so (the run goes on). */
static void warn_readable(const bc_given *gv, const bench_option_v1 *o)
{
	const char *colon = strrchr(gv->where, ':');
	struct stat st;
	if (!strncmp(gv->where, "command line", 12)) {
		/* every user can read another's command line in /proc/PID/cmdline */
		bc_warn("the secret option \"%s\" was given on the command line, where every user of this "
			"machine can read it (/proc/PID/cmdline); use %s_env=VARIABLE or %s_file=PATH instead",
			o->name, o->name, o->name);
		return;
	}
	if (!colon)
		return;
	char *file = strndup(gv->where, (size_t)(colon - gv->where));
	if (stat(file, &st) == 0 && (st.st_mode & S_IROTH))
		bc_warn("%s holds the secret option \"%s\" and is readable by others; "
			"chmod o-r it, or use %s_file or %s_env instead", file, o->name, o->name, o->name);
	free(file);
}

/* About share of a sweep's values, evenly spaced, the first and last kept. */
static size_t keep_share(size_t n, double share, size_t *idx)
{
	size_t k = (size_t)ceil(share * (double)n - 1e-9);
	if (k < 2)
		k = 2;	/* the first and the last, whatever the share */
	if (k >= n) {
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		return n;
	}
	for (size_t i = 0; i < k; i++)
		idx[i] = k == 1 ? 0 : (size_t)llround((double)i * (double)(n - 1) / (double)(k - 1));
	return k;
}

/* scale < 1: shorter cases, fewer thread counts, smaller scalable sizes;
   every change said once, on stderr, before anything runs. */
int bc_plan_shrink(bc_modplan *p, double f, int keep_flags, char *said, size_t len)
{
	int changed = 0;
	size_t l = strlen(said);
	for (size_t i = 0; i < p->nopts; i++) {
		const bench_option_v1 *o = &p->mod->desc.options[i];
		if (!(o->flags & BENCH_OPT_SCALES) || (o->type != BENCH_OPT_INT && o->type != BENCH_OPT_SIZE))
			continue;
		int flag = 0;
		for (size_t g = 0; keep_flags && p->mc && g < p->mc->ngiven; g++)
			flag |= p->mc->given[g].flag && !strcmp(p->mc->given[g].key, o->name);
		if (flag) {	/* as the run settings' flags: the user's own value */
			if (l + 80 < len)
				l += (size_t)snprintf(said + l, len - l, " %s kept as given on the command line,", o->name);
			continue;
		}
		for (size_t j = 0; j < p->nvals[i]; j++) {
			bc_val *v = &p->vals[i][j];
			if (v->i == 0)
				continue;	/* 0 means "off" or "the module's own choice": no size to shrink */
			double to = floor((double)v->i * f);
			if (o->type == BENCH_OPT_SIZE && to >= 1048576)
				to = floor(to / 1048576) * 1048576;	/* whole MiB: block sizes divide it */
			if (o->min < o->max && to < o->min)
				to = o->min;
			if (to < 1)
				to = 1;
			if ((int64_t)to >= v->i)
				continue;
			char a[32], b[32];
			if (o->type == BENCH_OPT_SIZE) {
				bc_format_size((uint64_t)v->i, a, sizeof(a));
				bc_format_size((uint64_t)to, b, sizeof(b));
			} else {
				snprintf(a, sizeof(a), "%lld", (long long)v->i);
				snprintf(b, sizeof(b), "%lld", (long long)to);
			}
			if (l + 80 < len)
				l += (size_t)snprintf(said + l, len - l, " %s %s -> %s,", o->name, a, b);
			v->i = (int64_t)to;
			v->d = to;
			changed = 1;
		}
	}
	return changed;
}

static void scale_plan(bc_modplan *p)
{
	double f = p->run.scale;
	char said[1024] = "";
	size_t l = 0;
	if (f <= 0 || f >= 1)
		return;
	if (p->run.time_s > 0 && !(p->run.unscaled & BC_UNSCALED_TIME)) {
		l += (size_t)snprintf(said + l, sizeof(said) - l, " time %g -> %g s,", p->run.time_s,
				      p->run.time_s * f);
		p->run.time_s *= f;
	}
	if (p->run.warmup_s > 0 && !(p->run.unscaled & BC_UNSCALED_WARMUP)) {
		l += (size_t)snprintf(said + l, sizeof(said) - l, " warmup %g -> %g s,", p->run.warmup_s,
				      p->run.warmup_s * f);
		p->run.warmup_s *= f;
	}
	size_t idx[64], n = p->run.nthreads, k = keep_share(n, f, idx);
	if (k < n && !(p->run.unscaled & BC_UNSCALED_THREADS)) {
		unsigned kept[64];
		for (size_t i = 0; i < k; i++)
			kept[i] = p->run.threads[idx[i]];
		l += (size_t)snprintf(said + l, sizeof(said) - l, " threads %zu -> %zu counts (", n, k);
		for (size_t i = 0; i < k && l < sizeof(said); i++)
			l += (size_t)snprintf(said + l, sizeof(said) - l, "%s%u", i ? "," : "", kept[i]);
		l += (size_t)snprintf(said + l, sizeof(said) - l, "),");
		memcpy(p->run.threads, kept, k * sizeof(kept[0]));
		p->run.nthreads = k;
	}
	bc_plan_shrink(p, f, 1, said, sizeof(said));
	l = strlen(said);
	if (l && l < sizeof(said))
		said[l - 1] = '\0';
	if (l)
		bc_notice("scale %g, module %s:%s", f, p->mod->desc.name, said);
}

int bc_plan_module(const bc_modconf *mc, const bc_module *m, bc_modplan *p, bc_err *e)
{
	char keys[1024];
	bc_err ve;
	memset(p, 0, sizeof(*p));
	p->mod = m;
	p->mc = mc;
	p->run = mc->run;
	p->nopts = bc_opt_count(m->desc.options);
	p->vals = bc_xcalloc(p->nopts, sizeof(*p->vals));
	p->nvals = bc_xcalloc(p->nopts, sizeof(*p->nvals));
	for (size_t g = 0; g < mc->ngiven; g++) {
		const bc_given *gv = &mc->given[g];
		const bench_option_v1 *o = bc_opt_find(m->desc.options, gv->key);
		char *secret = NULL;
		e->msg[0] = '\0';
		if (!o && (o = secret_source(m, gv, &secret, e)) != NULL) {
			if (!secret)
				goto fail;
			size_t i = (size_t)(o - m->desc.options);
			for (size_t j = 0; j < p->nvals[i]; j++)
				bc_val_free(&p->vals[i][j]);
			free(p->vals[i]);
			p->vals[i] = bc_xcalloc(1, sizeof(bc_val));
			p->vals[i][0].s = secret;
			p->nvals[i] = 1;
			continue;
		}
		if (o && (o->flags & BENCH_OPT_SECRET))
			warn_readable(gv, o);
		if (!o) {
			valid_keys(m, keys, sizeof(keys));
			bc_err_set(e, "%s: unknown option \"%s\" for module \"%s\"", gv->where, gv->key, m->desc.name);
			bc_err_detail(e, "Valid keys: %s.", keys);
			bc_err_hint(e, "see benchcore help %s", m->desc.name);
			goto fail;
		}
		size_t i = (size_t)(o - m->desc.options), n = bc_strv_len(gv->texts);
		char *joined[2] = { NULL, NULL };
		char **texts = gv->texts;
		if (n > 1 && (o->flags & BENCH_OPT_LIST)) {
			/* a list option's list is its one value, not a sweep */
			joined[0] = bc_strv_join(gv->texts, ",");
			texts = joined;
			n = 1;
		}
		if (n > 1 && (o->flags & BENCH_OPT_SECRET)) {
			bc_err_set(e, "%s: option \"%s\" of module \"%s\" is secret and cannot be swept", gv->where,
				   o->name, m->desc.name);
			bc_err_detail(e, "Secret values are never written, so the points of the sweep could not be told "
				      "apart in the results.");
			bc_err_hint(e, "give one value; run once per value, with a --label for each");
			goto fail;
		}
		if (n > 1 && (o->flags & BENCH_OPT_NOSWEEP)) {
			bc_err_set(e, "%s: option \"%s\" of module \"%s\" cannot be swept", gv->where, o->name, m->desc.name);
			bc_err_detail(e, "Give one value, not a list.");
			goto fail;
		}
		for (size_t j = 0; j < p->nvals[i]; j++)
			bc_val_free(&p->vals[i][j]);
		free(p->vals[i]);
		p->vals[i] = bc_xcalloc(n, sizeof(bc_val));
		p->nvals[i] = 0;
		for (size_t j = 0; j < n; j++) {
			if (bc_val_parse(o, texts[j], &p->vals[i][j], &ve)) {
				free(joined[0]);
				bc_err_set(e, "%s: module \"%s\", option \"%s\" (%s): %s", gv->where, m->desc.name,
					   o->name, bc_opt_type_name(o->type),
					   (o->flags & BENCH_OPT_SECRET) ? "invalid value" : ve.msg);
				bc_err_hint(e, "see benchcore help %s", m->desc.name);
				goto fail;
			}
			p->nvals[i]++;
		}
		free(joined[0]);
	}
	if (p->run.time_s <= 0 && p->run.events == 0) {
		bc_err_set(e, "%s: module \"%s\": time = 0 and no events limit: the cases would never end",
			   mc->where, m->desc.name);
		bc_err_hint(e, "set time (seconds) or events (a count), or both");
		goto fail;
	}
	if (p->run.repeat_auto) {
		if (p->run.min_repeat > p->run.max_repeat) {
			bc_err_set(e, "%s: module \"%s\": min_repeat (%u) is larger than max_repeat (%u)", mc->where,
				   m->desc.name, p->run.min_repeat, p->run.max_repeat);
			goto fail;
		}
		/* the schedule holds every round a case may need; undecided cases
		   alone run the rounds past min_repeat (schedule.c) */
		p->run.repeat = p->run.max_repeat;
	}
	if (p->run.warmup_auto)	/* the engine ends it once steady; everything else plans for the longest */
		p->run.warmup_s = p->run.max_warmup;
	p->npoints = 1;
	for (size_t i = 0; i < p->nopts; i++) {
		if (!p->nvals[i]) {
			/* checked at load: a module's defaults parse */
			p->vals[i] = bc_val_defaults(&m->desc.options[i], &p->nvals[i], &ve);
		}
		if (p->nvals[i] && p->npoints > SIZE_MAX / 1024 / p->nvals[i]) {
			bc_err_set(e, "%s: module \"%s\": the parameter matrix is too large to count", mc->where,
				   m->desc.name);
			bc_err_detail(e, "The product of the lists' lengths passes %zu points.", SIZE_MAX / 1024);
			goto fail;
		}
		p->npoints *= p->nvals[i];
	}
	scale_plan(p);
	return 0;
fail:
	bc_plan_free(p);
	return -1;
}

void bc_plan_point(const bc_modplan *p, size_t idx, bc_val *out)
{
	/* the last option varies fastest */
	for (size_t i = p->nopts; i-- > 0;) {
		out[i] = p->vals[i][idx % p->nvals[i]];
		idx /= p->nvals[i];
	}
}

char *bc_plan_point_label(const bc_modplan *p, const bc_val *point)
{
	size_t cap = 256, len = 0;
	char *s = bc_xcalloc(cap, 1);
	for (size_t i = 0; i < p->nopts; i++) {
		const bench_option_v1 *o = &p->mod->desc.options[i];
		if (p->nvals[i] < 2)
			continue;	/* only what varies tells cases apart */
		char *v = bc_val_text(o, &point[i]);
		size_t need = strlen(o->name) + strlen(v) + 3;
		if (len + need >= cap) {
			cap = (len + need) * 2;
			s = bc_xrealloc(s, cap, 1);
		}
		len += (size_t)sprintf(s + len, "%s%s=%s", len ? " " : "", o->name, v);
		free(v);
	}
	return s;
}

void bc_plan_free(bc_modplan *p)
{
	for (size_t i = 0; i < p->nopts; i++) {
		for (size_t j = 0; j < p->nvals[i]; j++)
			bc_val_free(&p->vals[i][j]);
		free(p->vals[i]);
	}
	free(p->vals);
	free(p->nvals);
	for (size_t i = 0; p->need_path && i < p->npoints * p->run.nthreads; i++)
		free(p->need_path[i]);
	free(p->need_path);
	free(p->need_mem);
	free(p->need_disk);
	p->need_mem = p->need_disk = NULL;
	p->need_path = NULL;
	for (size_t i = 0; p->need_skip && i < p->npoints * p->run.nthreads; i++)
		free(p->need_skip[i]);
	free(p->need_skip);
	free(p->skip_all);
	bc_plan_mfree(p);
	memset(p, 0, sizeof(*p));
}
