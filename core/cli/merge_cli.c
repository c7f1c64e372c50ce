/* benchcore merge A.json B.json ... -o OUT.json: the parts of one system's run
 * (a module rerun, a module run later) as one results file (merge.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "flags.h"
#include "merge.h"
#include "results.h"
#include "util.h"

enum { M_OUT = 1, M_FORCE, M_HELP };
static const bc_flag merge_flags[] = {
	{ "output", 'o', "OUT.json", M_OUT, "write the merged results here (- for stdout); required" },
	{ "force", 0, NULL, M_FORCE, "overwrite OUT.json if it exists" },
	{ "help", 'h', NULL, M_HELP, "this text" },
	{ NULL }
};

typedef struct merge_args {
	const char *out;
	int force, help;
} merge_args;

static int on_merge_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	merge_args *a = arg;
	(void)e;
	if (f->code == M_OUT)
		a->out = val;
	else if (f->code == M_FORCE)
		a->force = 1;
	else
		a->help = 1;
	return 0;
}

static void merge_help(void)
{
	printf("usage: benchcore merge A.json B.json [C.json ...] -o OUT.json [--force]\n\n"
	       "Joins the parts of one system's run into one results file, for compare and report: a\n"
	       "module rerun after a fix, or run later. The files must come from the same machine\n"
	       "(host_id, arch, CPU, kernel, OS), label and benchcore version. A module whose cases are\n"
	       "in several files takes them all from the last file that has it (a rerun replaces it);\n"
	       "each such choice is said. The result records its sources in merged_from.\n\n"
	       "Options:\n");
	bc_flags_help(stdout, merge_flags, 1);
	printf("\nExit status: 0 written, 2 usage error or files that are not one system's, 3 not written.\n");
}

/* OUT must not be one of the inputs (the archive a db: reference reads
   among them), nor an existing file without --force. */
static int out_ok(const merge_args *a, char **files)
{
	struct stat so, si;
	if (!strcmp(a->out, "-") || stat(a->out, &so) != 0)
		return 0;
	char **inputs = bc_store_inputs(files, NULL, 0);	/* a db: reference reads the archive */
	for (size_t i = 0; inputs[i]; i++)
		if (stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			fprintf(stderr, "benchcore merge: error: -o %s is one of the files to merge (%s)\n", a->out,
				inputs[i]);
			bc_strv_free(inputs);
			return -1;
		}
	bc_strv_free(inputs);
	if (!S_ISREG(so.st_mode)) {
		fprintf(stderr, "benchcore merge: error: -o %s exists and is not a regular file\n", a->out);
		return -1;
	}
	if (!a->force) {
		fprintf(stderr, "benchcore merge: error: %s exists\nHINT: give another name, or --force to "
			"overwrite it\n", a->out);
		return -1;
	}
	return 0;
}

static int write_out(const char *out, json_t *doc)
{
	bc_rundoc d;
	bc_err e;
	int rc = 0;
	size_t len;
	if (bc_rundoc_take(doc, "the merged document", &d, &e)) {
		fprintf(stderr, "benchcore merge: error: %s\n", e.msg);
		return 3;
	}
	char *s = bc_rundoc_write(&d, &len);	/* the run document's one writer */
	bc_rundoc_free(&d);
	if (!strcmp(out, "-")) {
		if (fputs(s, stdout) == EOF || fputc('\n', stdout) == EOF || fflush(stdout))
			rc = 3;
	} else if (bc_write_atomic(out, s, strlen(s), &e)) {
		fprintf(stderr, "benchcore merge: error: %s not written: %s\n", out, e.msg);
		rc = 3;
	}
	free(s);
	if (!rc && strcmp(out, "-"))
		fprintf(stderr, "merged: %s\n", out);
	return rc;
}

int bc_cmd_merge(int argc, char **argv)
{
	merge_args a = { 0 };
	char **rest;
	if (bc_flags_parse("merge", merge_flags, 1, argc - 1, argv + 1, on_merge_flag, &a, &rest))
		return 2;
	int n = (int)bc_strv_len(rest), rc = 2;
	if (a.help) {
		merge_help();
		free(rest);
		return 0;
	}
	if (n < 2 || !a.out) {
		fprintf(stderr, "benchcore merge: error: %s\nTry 'benchcore merge --help'.\n",
			n < 2 ? "give two or more results files" : "no output file given (-o OUT.json)");
		free(rest);
		return 2;
	}
	bc_results *res = bc_xcalloc((size_t)n, sizeof(*res));
	bc_rundoc *docs = bc_xcalloc((size_t)n, sizeof(*docs));
	bc_err e;
	if (out_ok(&a, rest) || bc_load_all("merge", rest, n, res))
		goto out;
	for (int i = 0; i < n; i++) {
		/* validated above; read again as the document it is */
		if (bc_rundoc_load(rest[i], &docs[i], &e)) {
			char *name = bc_printable(rest[i]);
			fprintf(stderr, "benchcore merge: %s: %s\n", name, e.msg);
			free(name);
			goto freeres;
		}
	}
	json_t *m = bc_merge_docs(docs, rest, n, &e);
	if (!m)
		bc_err_print_as("benchcore merge", &e);
	else
		rc = write_out(a.out, m);	/* takes m */
freeres:
	for (int i = 0; i < n; i++)
		bc_results_free(&res[i]);
out:
	for (int i = 0; i < n; i++)
		bc_rundoc_free(&docs[i]);
	free(docs);
	free(res);
	free(rest);
	return rc;
}
