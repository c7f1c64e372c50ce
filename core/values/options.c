/* Parsing and checking option values against bench_option_v1 entries. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "options.h"
#include "util.h"

const char *bc_opt_type_name(bench_opt_type t)
{
	switch (t) {
	case BENCH_OPT_BOOL: return "bool";
	case BENCH_OPT_INT: return "int";
	case BENCH_OPT_SIZE: return "size";
	case BENCH_OPT_DOUBLE: return "double";
	case BENCH_OPT_STRING: return "string";
	case BENCH_OPT_ENUM: return "enum";
	}
	return "?";
}

void bc_choices_text(const bench_option_v1 *o, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (const char *const *c = o->choices; c && *c && off < n; c++)
		off += (size_t)snprintf(buf + off, n - off, "%s%s", c == o->choices ? "" : ", ", *c);
}

/* A size bound as bytes: a descriptor's double may be negative, NaN or past
   2^64, which no conversion to uint64_t may meet (undefined). */
uint64_t bc_size_bound(double x)
{
	if (!(x > 0))
		return 0;
	return x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)x;
}

static void bounds_text(const bench_option_v1 *o, char *buf, size_t n)
{
	if (o->type == BENCH_OPT_SIZE) {
		char a[32], b[32];
		bc_format_size(bc_size_bound(o->min), a, sizeof(a));
		bc_format_size(bc_size_bound(o->max), b, sizeof(b));
		snprintf(buf, n, "%s .. %s", a, b);
	} else if (o->type == BENCH_OPT_INT && o->max < 1e15) {
		snprintf(buf, n, "%.0f .. %.0f", o->min, o->max);	/* whole numbers in full */
	} else {
		snprintf(buf, n, "%g .. %g", o->min, o->max);
	}
}

int bc_val_check(const bench_option_v1 *o, const bc_val *v, bc_err *e)
{
	char b[96];
	if (o->min < o->max && (o->type == BENCH_OPT_INT || o->type == BENCH_OPT_SIZE ||
				 o->type == BENCH_OPT_DOUBLE)) {
		double x = o->type == BENCH_OPT_DOUBLE ? v->d : (double)v->i;
		if (x < o->min || x > o->max) {
			bounds_text(o, b, sizeof(b));
			bc_err_set(e, "value out of range: valid range is %s", b);
			return -1;
		}
	}
	return 0;
}

/* A list-valued STRING option (BENCH_OPT_LIST): items separated by ",",
   blanks around them dropped, each checked against choices[] when there are
   some (case-insensitively; kept in the choices' spelling). */
static int list_parse(const bench_option_v1 *o, const char *text, bc_val *v, bc_err *e)
{
	char buf[1024];
	char **items = bc_split(text, ',');
	size_t len = 0, cap = strlen(text) + 1;
	char *out = bc_xcalloc(cap, 1);
	int rc = 0;
	for (size_t i = 0; items[i] && !rc; i++) {
		char *it = items[i];
		while (*it == ' ' || *it == '\t')
			it++;
		size_t l = strlen(it);
		while (l && (it[l - 1] == ' ' || it[l - 1] == '\t'))
			it[--l] = '\0';
		const char *word = it;
		if (!l) {
			bc_err_set(e, "empty item in the list \"%s\"", text);
			rc = -1;
			break;
		}
		if (o->choices) {
			word = NULL;
			for (const char *const *c = o->choices; *c && !word; c++)
				if (!strcasecmp(*c, it))
					word = *c;
			if (!word) {
				bc_choices_text(o, buf, sizeof(buf));
				bc_err_set(e, "invalid item \"%s\": valid choices are %s", it, buf);
				rc = -1;
				break;
			}
		}
		if (len + strlen(word) + 2 > cap) {
			cap = (len + strlen(word) + 2) * 2;
			out = bc_xrealloc(out, cap, 1);
		}
		len += (size_t)sprintf(out + len, "%s%s", len ? "," : "", word);
	}
	if (!rc && !len) {
		bc_err_set(e, "the list is empty");
		rc = -1;
	}
	bc_strv_free(items);
	if (rc) {
		free(out);
		return -1;
	}
	v->s = out;
	return 0;
}

int bc_val_parse(const bench_option_v1 *o, const char *text, bc_val *v, bc_err *e)
{
	char buf[1024];
	uint64_t u;
	memset(v, 0, sizeof(*v));
	if (!bc_utf8_valid(text)) {	/* results are UTF-8 JSON: refuse what they could not keep */
		bc_err_set(e, "not valid UTF-8 text (results keep every value as UTF-8); "
			   "give the value in UTF-8, e.g. rename a Latin-1 path");
		return -1;
	}
	switch (o->type) {
	case BENCH_OPT_BOOL:
		if (!strcasecmp(text, "true") || !strcmp(text, "1") || !strcasecmp(text, "on") ||
		    !strcasecmp(text, "yes"))
			v->i = 1;
		else if (!strcasecmp(text, "false") || !strcmp(text, "0") || !strcasecmp(text, "off") ||
			 !strcasecmp(text, "no"))
			v->i = 0;
		else {
			bc_err_set(e, "invalid bool \"%s\": valid values are true, false", text);
			return -1;
		}
		v->d = (double)v->i;
		return 0;
	case BENCH_OPT_INT:
		if (bc_parse_int64(text, &v->i)) {
			bc_err_set(e, "invalid integer \"%s\"", text);
			return -1;
		}
		v->d = (double)v->i;
		break;
	case BENCH_OPT_SIZE:
		if (bc_parse_size(text, &u) || u > INT64_MAX) {
			bc_err_set(e, "invalid size \"%s\": give bytes with an optional K, M, G or T suffix (powers of 1024), e.g. 4K", text);
			return -1;
		}
		v->i = (int64_t)u;
		v->d = (double)u;
		break;
	case BENCH_OPT_DOUBLE:
		if (bc_parse_double(text, &v->d)) {
			bc_err_set(e, "invalid number \"%s\"", text);
			return -1;
		}
		break;
	case BENCH_OPT_STRING:
		if (o->flags & BENCH_OPT_LIST)
			return list_parse(o, text, v, e);
		v->s = bc_xstrdup(text);
		return 0;
	case BENCH_OPT_ENUM:
		for (const char *const *c = o->choices; c && *c; c++)
			if (!strcasecmp(*c, text)) {	/* kept in the choices' spelling */
				v->i = c - o->choices;
				v->s = bc_xstrdup(*c);
				return 0;
			}
		bc_choices_text(o, buf, sizeof(buf));
		bc_err_set(e, "invalid value \"%s\": valid choices are %s", text, buf);
		return -1;
	}
	return bc_val_check(o, v, e);
}

bc_val *bc_val_defaults(const bench_option_v1 *o, size_t *count, bc_err *e)
{
	*count = 0;
	if (!(o->flags & BENCH_OPT_SWEEP_DEFAULT) || !o->def) {
		bc_val *v = bc_xcalloc(1, sizeof(*v));
		if (bc_val_default(o, v, e)) {
			free(v);
			return NULL;
		}
		*count = 1;
		return v;
	}
	char **items = bc_split(o->def, ',');
	size_t k = bc_strv_len(items);
	bc_val *v = bc_xcalloc(k, sizeof(*v));
	for (size_t i = 0; i < k; i++) {
		if (bc_val_parse(o, items[i], &v[i], e)) {
			for (size_t j = 0; j < i; j++)
				bc_val_free(&v[j]);
			free(v);
			bc_strv_free(items);
			return NULL;
		}
	}
	bc_strv_free(items);
	*count = k;
	return v;
}

int bc_val_default(const bench_option_v1 *o, bc_val *v, bc_err *e)
{
	if (o->def && (o->flags & BENCH_OPT_SWEEP_DEFAULT)) {
		size_t k;
		bc_val *all = bc_val_defaults(o, &k, e);
		if (!all)
			return -1;
		*v = all[0];
		for (size_t j = 1; j < k; j++)
			bc_val_free(&all[j]);
		free(all);
		return 0;
	}
	if (o->def)
		return bc_val_parse(o, o->def, v, e);
	memset(v, 0, sizeof(*v));
	if (o->type == BENCH_OPT_STRING)
		v->s = bc_xstrdup("");
	else if (o->type == BENCH_OPT_ENUM)
		v->s = bc_xstrdup(o->choices && o->choices[0] ? o->choices[0] : "");
	return 0;
}

void bc_val_copy(bc_val *dst, const bc_val *src)
{
	*dst = *src;
	if (src->s)
		dst->s = bc_xstrdup(src->s);
}

void bc_val_free(bc_val *v)
{
	free(v->s);
	v->s = NULL;
}

char *bc_val_text(const bench_option_v1 *o, const bc_val *v)
{
	char b[64];
	if (o->flags & BENCH_OPT_SECRET)
		return bc_xstrdup("<redacted>");
	switch (o->type) {
	case BENCH_OPT_BOOL: return bc_xstrdup(v->i ? "true" : "false");
	case BENCH_OPT_INT: return bc_xasprintf("%lld", (long long)v->i);
	case BENCH_OPT_SIZE: bc_format_size((uint64_t)v->i, b, sizeof(b)); return bc_xstrdup(b);
	case BENCH_OPT_DOUBLE: return bc_xstrdup(bc_fmt_double(v->d, b, sizeof(b)));
	default: return bc_xstrdup(v->s ? v->s : "");
	}
}

char *bc_json_text(const json_t *v)
{
	char buf[BC_DOUBLE_TEXT];
	if (json_is_string(v))
		return bc_xstrdup(json_string_value(v));
	if (json_is_real(v))
		return bc_xstrdup(bc_fmt_double(json_real_value(v), buf, sizeof(buf)));
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS) : NULL;
	return s ? s : bc_xstrdup("?");
}

json_t *bc_val_json(const bench_option_v1 *o, const bc_val *v)
{
	if (o->flags & BENCH_OPT_SECRET)
		return json_string("<redacted>");
	switch (o->type) {
	case BENCH_OPT_BOOL: return json_boolean(v->i);
	case BENCH_OPT_INT:
	case BENCH_OPT_SIZE: return json_integer(v->i);
	case BENCH_OPT_DOUBLE: return json_real(v->d);
	default: return json_string(v->s ? v->s : "");
	}
}

const bench_option_v1 *bc_opt_find(const bench_option_v1 *opts, const char *name)
{
	for (const bench_option_v1 *o = opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

size_t bc_opt_count(const bench_option_v1 *opts)
{
	size_t n = 0;
	while (opts && opts[n].name)
		n++;
	return n;
}
