/* A case's typed options struct (ABI 1.3, module.h's BENCH_OPT_AT): the
   resolved values written where the options table's offsets say, in the C
   type of each option's type. The loader has checked every offset against
   opts_size (core/module/abi.c), so the writes here need no checks. */
#include <string.h>
#include "engine.h"
#include "util.h"

void *bc_opts_block(const bench_module_v1 *d, const bc_val *vals)
{
	if (!d->opts_size)
		return NULL;
	unsigned char *b = bc_xcalloc(1, d->opts_size);
	for (size_t i = 0; d->options && d->options[i].name; i++) {
		const bench_option_v1 *o = &d->options[i];
		const bc_val *v = &vals[i];
		unsigned char *at = b + o->offset;
		int iv = (int)v->i;
		const char *s = v->s ? v->s : "";
		switch (o->type) {
		case BENCH_OPT_BOOL:
			iv = v->i != 0;
			/* fall through */
		case BENCH_OPT_ENUM:	/* the index into choices[] */
			memcpy(at, &iv, sizeof(iv));
			break;
		case BENCH_OPT_INT:
		case BENCH_OPT_SIZE:
			memcpy(at, &v->i, sizeof(v->i));
			break;
		case BENCH_OPT_DOUBLE:
			memcpy(at, &v->d, sizeof(v->d));
			break;
		case BENCH_OPT_STRING:	/* the case's own copy: lives until after destroy */
			memcpy(at, &s, sizeof(s));
			break;
		}
	}
	return b;
}
