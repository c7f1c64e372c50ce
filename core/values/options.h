/* Typed option values checked against a module's options table. Used by the
   config file, `run key=value` and the defaults in the table itself, so that
   all three accept exactly the same things. */
#ifndef BC_OPTIONS_H
#define BC_OPTIONS_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "benchcore/module.h"
#include "util.h"

typedef struct bc_val {
	int64_t i;	/* INT, SIZE (bytes), BOOL (0/1), ENUM (index in choices) */
	double d;	/* DOUBLE; INT and SIZE as a double too */
	char *s;	/* STRING, ENUM (the choice); owned */
} bc_val;

const char *bc_opt_type_name(bench_opt_type t);
/* Parses text as a value of option o (bounds and choices checked). On error
   returns -1 with a sentence in e->msg that names what is valid. */
int bc_val_parse(const bench_option_v1 *o, const char *text, bc_val *v, bc_err *e);
/* Default of o (text in the table, or empty/0/false). */
int bc_val_default(const bench_option_v1 *o, bc_val *v, bc_err *e);
/* Every default value of o: one, or the items of a BENCH_OPT_SWEEP_DEFAULT
   list. malloc'd array of *count values, or NULL with e set. */
bc_val *bc_val_defaults(const bench_option_v1 *o, size_t *count, bc_err *e);
int bc_val_check(const bench_option_v1 *o, const bc_val *v, bc_err *e);
void bc_val_copy(bc_val *dst, const bc_val *src);
void bc_val_free(bc_val *v);
/* Display text ("4K", "true", "<redacted>" for secrets); malloc'd. */
char *bc_val_text(const bench_option_v1 *o, const bc_val *v);
/* JSON value (size as bytes, bool as bool); secrets "<redacted>". */
json_t *bc_val_json(const bench_option_v1 *o, const bc_val *v);
/* A param's JSON value as people read it: a string as is, a real in its
   shortest round-trip form (bc_fmt_double), anything else as JSON. Malloc'd. */
char *bc_json_text(const json_t *v);
/* "a, b, c" of an enum's choices (static buffer per call site: caller's). */
void bc_choices_text(const bench_option_v1 *o, char *buf, size_t n);
/* A size option's bound (a descriptor's double) as bytes: 0 for a negative or NaN one,
   UINT64_MAX past 2^64 (the conversion itself would be undefined there). */
uint64_t bc_size_bound(double x);
const bench_option_v1 *bc_opt_find(const bench_option_v1 *opts, const char *name);
size_t bc_opt_count(const bench_option_v1 *opts);
#endif
