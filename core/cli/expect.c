/* check-module --expect FILE: a module's own regression test (PGXS's
 * REGRESS plays this part for a PostgreSQL extension). FILE holds
 * invariants of the figures, one a line, each checked in every case of the
 * results: "PATH OP VALUE", PATH a dotted path into the case (status,
 * ops.insert.count, metrics.rows_per_sec.value, info.rows), OP one of == !=
 * < <= > >=, VALUE a number or a word ("ok"); # starts a comment. Main
 * thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cli.h"
#include "rundoc.h"
#include "util.h"

/* case[PATH], or NULL. */
static json_t *at_path(json_t *c, const char *path)
{
	char *p = bc_xstrdup(path), *save = NULL;
	for (char *k = strtok_r(p, ".", &save); k && c; k = strtok_r(NULL, ".", &save))
		c = json_object_get(c, k);
	free(p);
	return c;
}

static int holds(double a, const char *op, double b)
{
	return !strcmp(op, "==") ? a == b : !strcmp(op, "!=") ? a != b : !strcmp(op, "<") ? a < b :
	       !strcmp(op, "<=") ? a <= b : !strcmp(op, ">") ? a > b : a >= b;
}

/* One invariant against one case: 1 when it holds, else 0 with what was found. */
static int check_one(json_t *c, const char *path, const char *op, const char *want, char *got, size_t n)
{
	json_t *v = at_path(c, path);
	char *end;
	double w = strtod(want, &end);
	int numeric = *want && !*end;
	if (!v) {
		snprintf(got, n, "absent");
		return 0;
	}
	if (json_is_number(v) && numeric) {
		snprintf(got, n, "%.17g", json_number_value(v));
		return holds(json_number_value(v), op, w);
	}
	if (json_is_string(v) && (!strcmp(op, "==") || !strcmp(op, "!="))) {
		char *s = bc_printable(json_string_value(v));
		snprintf(got, n, "\"%s\"", s);
		free(s);
		return (strcmp(json_string_value(v), want) == 0) == !strcmp(op, "==");
	}
	snprintf(got, n, "%s, which %s cannot compare", json_is_string(v) ? "a string" : "not a number", op);
	return 0;
}

static const char *const expect_ops[] = { "==", "!=", "<=", ">=", "<", ">", NULL };

int bc_expect_check(const char *expect, const char *results)
{
	FILE *f = fopen(expect, "re");
	bc_rundoc doc;
	bc_err le;
	bc_rundoc_load(results, &doc, &le);	/* unreadable or absent: no case, said below */
	json_t *cases = doc.cases;
	char line[1024], path[256], op[8], want[256], got[300];
	int bad = 0, lineno = 0, rules = 0;
	if (!f || !json_array_size(cases)) {
		fprintf(stderr, "benchcore check-module: error: %s\n", !f ? "cannot read the --expect file" :
			"the results have no case to check");
		if (f)
			fclose(f);
		bc_rundoc_free(&doc);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		int k = sscanf(line, "%255s %7s %255s", path, op, want);
		if (k <= 0)
			continue;
		int known = 0;
		for (const char *const *o = expect_ops; *o; o++)
			known |= !strcmp(*o, op);
		if (k != 3 || !known) {
			fprintf(stderr, "%s:%d: error: not PATH OP VALUE (OP one of == != < <= > >=)\n", expect, lineno);
			bad = -1;
			break;
		}
		rules++;
		for (size_t i = 0; i < json_array_size(cases); i++) {
			json_t *c = json_array_get(cases, i);
			if (check_one(c, path, op, want, got, sizeof(got)))
				continue;
			printf("  %s:%d: case %lld: %s is %s, wanted %s %s\n", expect, lineno,
			       (long long)json_integer_value(json_object_get(c, "id")), path, got, op, want);
			bad++;
		}
	}
	fclose(f);
	if (bad >= 0)
		printf("%s: %d invariant%s x %zu case%s: %s\n", bad ? "FAIL" : "PASS", rules, rules == 1 ? "" : "s",
		       json_array_size(cases), json_array_size(cases) == 1 ? "" : "s",
		       bad ? "some do not hold" : "every one holds");
	bc_rundoc_free(&doc);
	return bad;
}
