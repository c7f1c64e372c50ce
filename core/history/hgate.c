/* hgate.h: a new change for the worse at a series' newest run. */
#include <math.h>
#include <stdlib.h>
#include "hgate.h"

static int worse(const bc_cpoint *c, int higher_is_better)
{
	return higher_is_better ? c->after < c->before : c->after > c->before;
}

long bc_history_new_worse(const bc_hseries *s, const bc_cp_opts *o)
{
	if (!s->nch || s->n < 2)
		return -1;
	const bc_hchange *last = &s->ch[s->nch - 1];
	if (!worse(&last->cp, s->run[0]->higher_is_better))
		return -1;
	/* the same series without its newest run: a change of the same sign at
	   or near the same place is old news */
	double *y = malloc((s->n - 1) * sizeof(*y));
	if (!y)
		return (long)(s->nch - 1);	/* fail safe: the gate fails rather than passes */
	for (size_t i = 0; i + 1 < s->n; i++)
		y[i] = s->run[i]->mean;
	bc_cpoint *cp = NULL;
	size_t n = bc_changepoints(y, s->n - 1, o, &cp);
	int seen = 0;
	for (size_t i = 0; i < n && !seen; i++) {
		size_t d = cp[i].at > last->cp.at ? cp[i].at - last->cp.at : last->cp.at - cp[i].at;
		seen = d <= 2 && worse(&cp[i], s->run[0]->higher_is_better);
	}
	free(cp);
	free(y);
	return seen ? -1 : (long)(s->nch - 1);
}
