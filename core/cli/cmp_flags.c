/* The verdict flags compare and report share (cmp_flags.h): one parser, so
   the two commands accept and refuse exactly the same values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cmp_flags.h"
#include "results.h"
#include "util.h"

/* A percentage: "2", "0.5%", 0..1000. */
static int parse_pct(const char *s, double *frac)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%") != 0) || !(v >= 0) || v > 1000)
		return -1;
	*frac = v / 100;
	return 0;
}

static int set_override(bc_cmp_opts *o, const char *arg, bc_err *e)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0, i;
	double frac;

	if (!eq || len == 0 || len >= sizeof(o->over[0].name) || parse_pct(eq + 1, &frac) < 0) {
		bc_err_set(e, "--threshold-for %s: wants METRIC=PCT or KIND=PCT (KIND: "
			   "throughput, latency, tail, fairness), e.g. read.p99_ms=15", arg);
		return -1;
	}
	for (i = 0; i < o->nover; i++)	/* the last one given wins */
		if (strlen(o->over[i].name) == len && !strncmp(o->over[i].name, arg, len))
			break;
	if (i == BC_CMP_MAX_OVERRIDES) {
		bc_err_set(e, "--threshold-for %s: at most %d of them", arg,
			   BC_CMP_MAX_OVERRIDES);
		return -1;
	}
	memcpy(o->over[i].name, arg, len);
	o->over[i].name[len] = '\0';
	o->over[i].frac = frac;
	if (i == o->nover)
		o->nover++;
	return 0;
}

/* An option's name ([a-z0-9_]+), or a machine setting's as cases record
   it (machine.fs, machine.sysctl.vm.swappiness): two files run under
   different settings match with --match-ignore machine.KEY. */
static int ignorable(const char *s)
{
	const char *chars = "abcdefghijklmnopqrstuvwxyz0123456789_";
	if (!strncmp(s, "machine.", 8) && s[8])
		return strspn(s + 8, "abcdefghijklmnopqrstuvwxyz0123456789_.") == strlen(s + 8);
	return strspn(s, chars) == strlen(s);
}

/* --match-ignore a,b: option names or machine.KEY, each kept once. */
static int add_ignore(bc_cmp_opts *o, const char *arg, bc_err *e)
{
	char **v = bc_split(arg, ',');
	int rc = 0;
	for (char **p = v; *p && !rc; p++) {
		size_t l = strlen(*p), dup = 0;
		if (!l || l >= sizeof(o->ignore[0]) || !ignorable(*p)) {
			bc_err_set(e, "--match-ignore %s: wants option names (lower case, digits, _) or "
				   "machine.KEY, e.g. server or path,socket or machine.fs", arg);
			rc = -1;
			break;
		}
		for (size_t i = 0; i < o->nignore; i++)
			dup |= !strcmp(o->ignore[i], *p);
		if (dup)
			continue;
		if (o->nignore == BC_CMP_MAX_OVERRIDES) {
			bc_err_set(e, "--match-ignore: at most %d options", BC_CMP_MAX_OVERRIDES);
			rc = -1;
			break;
		}
		snprintf(o->ignore[o->nignore++], sizeof(o->ignore[0]), "%s", *p);
	}
	bc_strv_free(v);
	return rc;
}

static const char *split_key;	/* --split: one process, one command line */
static char **split_refs;	/* the references' strings, freed at exit */

static void free_split(void)
{
	bc_strv_free(split_refs);
}

int bc_cmp_split_pending(void)
{
	return split_key != NULL;
}

int bc_cmp_split_files(const char *cmd, char ***files, int *n)
{
	bc_err e;
	if (!split_key)
		return 0;
	if (*n != 1) {
		fprintf(stderr, "benchcore %s: --split %s takes one results file (got %d)\n", cmd, split_key, *n);
		return -1;
	}
	char **refs = bc_split_refs((*files)[0], split_key, &e);
	if (!refs) {
		fprintf(stderr, "benchcore %s: %s\n", cmd, e.msg);
		if (e.hint[0])
			fprintf(stderr, "HINT: %s\n", e.hint);
		return -1;
	}
	free(*files);	/* the words of argv: only the array is ours */
	/* the command frees the array it holds: a copy, the strings kept here */
	split_refs = refs;
	atexit(free_split);
	*files = bc_xcalloc(bc_strv_len(refs) + 1, sizeof(char *));
	memcpy(*files, refs, bc_strv_len(refs) * sizeof(char *));
	*n = (int)bc_strv_len(refs);
	return 0;
}

int bc_cmp_option(bc_cmp_opts *o, int code, const char *arg, bc_err *e)
{
	char *end;

	switch (code) {
	case BC_OPT_THRESHOLD:
		if (parse_pct(arg, &o->kind_threshold[BC_KIND_THROUGHPUT]) == 0)
			return 0;
		bc_err_set(e, "--threshold %s: wants a percentage from 0 to 1000, "
			   "e.g. 2 or 0.5%%", arg);
		return -1;
	case BC_OPT_THRESHOLD_FOR:
		return set_override(o, arg, e);
	case BC_OPT_ALPHA:
		o->alpha = strtod(arg, &end);
		if (end != arg && !*end && o->alpha > 0 && o->alpha < 1)
			return 0;
		bc_err_set(e, "--alpha %s: wants a number between 0 and 1", arg);
		return -1;
	case BC_OPT_LEVEL:
		if (parse_pct(arg, &o->level) == 0 && o->level >= 0.5 && o->level <= 0.999)
			return 0;
		bc_err_set(e, "--level %s: wants a confidence in percent from 50 to 99.9, "
			   "e.g. 90", arg);
		return -1;
	case BC_OPT_TEST:
		if (!strcmp(arg, "mwu") || !strcmp(arg, "welch")) {
			o->test = strcmp(arg, "welch") == 0 ? BC_TEST_WELCH : BC_TEST_MWU;
			return 0;
		}
		bc_err_set(e, "--test %s: wants welch or mwu", arg);
		return -1;
	case BC_OPT_ADJUST:
		if (!strcmp(arg, "bh") || !strcmp(arg, "holm") || !strcmp(arg, "none")) {
			o->adjust = !strcmp(arg, "bh") ? BC_ADJ_BH : !strcmp(arg, "holm") ?
				    BC_ADJ_HOLM : BC_ADJ_NONE;
			return 0;
		}
		bc_err_set(e, "--adjust %s: wants bh, holm or none", arg);
		return -1;
	case BC_OPT_MATCH_IGNORE:
		return add_ignore(o, arg, e);
	case BC_OPT_DB:
		bc_store_set_db(arg);
		return 0;
	case BC_OPT_SPLIT:
		split_key = arg;
		return 0;
	case BC_OPT_BUSY:
		if (parse_pct(arg, &o->busy_pct) == 0 && o->busy_pct <= 1) {
			o->busy_pct *= 100;	/* kept in percent */
			o->busy_set = 1;
			return 0;
		}
		bc_err_set(e, "--busy-threshold %s: wants a percentage from 0 to 100, e.g. 5", arg);
		return -1;
	}
	bc_err_set(e, "unknown option");
	return -1;
}
