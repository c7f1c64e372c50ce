/* The names of verdicts and kinds (verdict.h), for every view and for
   compare.c's own reasons. */
#include <stddef.h>
#include "verdict.h"

const char *bc_verdict_name(int v)
{
	static const char *const names[] = { "win", "loss", "tie", "inconclusive", "suspect" };
	return v >= 0 && v < BC_V_N ? names[v] : "?";
}

const char *bc_suspect_word(size_t wins, size_t losses)
{
	return wins && losses ? "suspect (win and loss)" : wins ? "suspect win" : "suspect loss";
}

const char *bc_row_verdict(const bc_cmp_row *r)
{
	if (r->verdict != BC_V_SUSPECT)
		return bc_verdict_name(r->verdict);
	return r->direction == BC_V_WIN ? "suspect win" : "suspect loss";
}

const char *bc_kind_name(int kind)
{
	static const char *const names[] = { "throughput", "latency", "tail", "fairness" };
	return kind >= 0 && kind < BC_KIND_N ? names[kind] : "?";
}
