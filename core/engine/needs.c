/* A case's needs (ABI 1.3 needs()): the module computes them from the
   case's options before init; the host calls it here, with a context that
   has the case's options (typed struct and by-name getters) and nothing
   else running. In the process that loaded the module (run/fit.c's
   child), never in benchcore's own. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "engine_int.h"

const char *bc_scratch_parent(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

int bc_case_needs(const bc_case *c, bench_needs_v1 *out, bc_err *e)
{
	bench_ctx *x = bc_xcalloc(1, sizeof(*x));
	bc_case_result res;
	bc_case cc = *c;
	int rc;
	bc_case_init(&res);
	/* the case's own scratch directory is made when it runs: needs() sees
	   where it will be, so a module can declare the disk its files take */
	if (!cc.scratch)
		cc.scratch = bc_scratch_parent();
	x->c = &cc;
	x->d = &c->mod->desc;
	x->nops = c->mod->nops;
	x->ops = (const char **)c->mod->ops;
	x->nthreads = c->threads;
	x->stop_fd = -1;
	x->res = &res;
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->cond, NULL);
	x->opts = x->d->opts_size ? bc_opts_block(x->d, c->vals) : NULL;
	memset(out, 0, sizeof(*out));
	out->struct_size = sizeof(*out);
	x->in_init = 1;	/* the calls init may make about options */
	rc = x->d->needs ? x->d->needs(&bc_host_api, x, out) : BENCH_OK;
	x->in_init = 0;
	if (rc != BENCH_OK) {
		bc_err_set(e, "%s", x->first.set ? x->first.msg : x->err[0] ? x->err : "needs() failed");
		if (x->first.set) {	/* the module's errorf() gave them */
			bc_err_detail(e, "%s", x->first.detail);
			bc_err_hint(e, "%s", x->first.hint);
		}
	}
	free(x->opts);
	pthread_mutex_destroy(&x->lock);
	pthread_cond_destroy(&x->cond);
	bc_case_free(&res);
	free(x);
	return rc == BENCH_OK ? 0 : -1;
}
