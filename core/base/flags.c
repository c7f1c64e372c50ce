/* One parser and one help printer for every subcommand's flag table. */
#include <stdlib.h>
#include <string.h>
#include "flags.h"
#include "util.h"

size_t bc_flags_count(const bc_flag *tab)
{
	size_t n = 0;
	while (tab[n].lng)
		n++;
	return n;
}

static int in_scope(const bc_flag *f, unsigned scope)
{
	return !f->scope || !scope || (f->scope & scope);
}

static int usage(char ***rest, const char *cmd, const char *what, const char *flag)
{
	free(*rest);	/* on a usage error the caller gets no word list */
	*rest = NULL;
	fprintf(stderr, "benchcore%s%s: %s \"%s\"\nTry 'benchcore%s%s --help'.\n", *cmd ? " " : "", cmd,
		what, flag, *cmd ? " " : "", cmd);
	return 2;
}

int bc_flags_parse(const char *cmd, const bc_flag *tab, unsigned scope, int argc, char **argv,
		   bc_flag_fn fn, void *arg, char ***rest)
{
	size_t nrest = 0;
	int flags_done = 0;
	*rest = bc_xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const bc_flag *f = NULL;
		if (flags_done || a[0] != '-' || !a[1]) {
			(*rest)[nrest++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			flags_done = 1;
			continue;
		}
		for (const bc_flag *p = tab; p->lng && !f; p++) {
			size_t l = strlen(p->lng);
			if (a[1] == '-' && !strncmp(a + 2, p->lng, l) && (a[2 + l] == '\0' || a[2 + l] == '='))
				f = p, val = a[2 + l] == '=' ? a + 3 + l : NULL;
			else if (a[1] != '-' && p->shrt && a[1] == p->shrt)
				f = p, val = a[2] ? a + 2 : NULL;
		}
		if (!f || !in_scope(f, scope))
			return usage(rest, cmd, "unknown option", a);
		int optional = f->metavar && f->metavar[0] == '[';	/* "[=DB]": only --name=value */
		if (f->metavar && !val && !optional) {
			if (i + 1 >= argc)
				return usage(rest, cmd, "this option needs a value:", a);
			val = argv[++i];
		}
		if (!f->metavar && val)
			return usage(rest, cmd, "this option takes no value:", a);
		bc_err e = { .msg = "" };
		if (fn(arg, f, val, &e)) {
			if (e.msg[0])
				fprintf(stderr, "benchcore%s%s: %s\nTry 'benchcore%s%s --help'.\n", *cmd ? " " : "",
					cmd, e.msg, *cmd ? " " : "", cmd);
			free(*rest);
			*rest = NULL;
			return 2;
		}
	}
	return 0;
}

/* Words of text from p, wrapped to width columns after an indent. */
static void wrap(FILE *f, const char *text, int col, int indent, int width)
{
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " \n");
		if (col + 1 + (int)w > width && col > indent) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
		if (*p == '\n') {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		}
		while (*p == ' ' || *p == '\n')
			p++;
	}
	fputc('\n', f);
}

void bc_flags_help(FILE *f, const bc_flag *tab, unsigned scope)
{
	enum { INDENT = 26 };
	for (const bc_flag *p = tab; p->lng; p++) {
		if (!in_scope(p, scope))
			continue;
		char left[96];
		const char *sep = p->metavar && p->metavar[0] != '[' ? " " : "";
		if (p->shrt)
			snprintf(left, sizeof(left), "  -%c, --%s%s%s", p->shrt, p->lng, sep,
				 p->metavar ? p->metavar : "");
		else
			snprintf(left, sizeof(left), "      --%s%s%s", p->lng, sep, p->metavar ? p->metavar : "");
		int col = fprintf(f, "%s", left);
		if (col >= INDENT - 1) {
			fprintf(f, "\n%*s", INDENT, "");
			col = INDENT;
		} else {
			col += fprintf(f, "%*s", INDENT - col, "");
		}
		wrap(f, p->help, col, INDENT, 78);
	}
}
