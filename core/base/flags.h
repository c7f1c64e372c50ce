/* Command-line flags of every subcommand, declared as tables. One parser
 * reads them and one printer writes their --help, so a flag cannot be
 * accepted without being documented or documented without being accepted.
 * Run settings become flags through settings.c's table (bc_flags_settings). */
#ifndef BC_FLAGS_H
#define BC_FLAGS_H
#include <stdio.h>
#include "util.h"

typedef struct bc_flag {
	const char *lng;	/* "threshold" for --threshold */
	char shrt;		/* 'o' for -o, or 0 */
	const char *metavar;	/* the value's name ("PCT"); NULL: a flag without value;
				   "[=NAME]": an optional value, given only as --flag=value */
	int code;		/* handed to the command's handler */
	const char *help;	/* one sentence or more; wrapped by the printer */
	unsigned scope;		/* sections of a command that accept it (bit mask; 0 = all) */
} bc_flag;

/* Called per flag given; val is NULL for a flag without value. Returns 0,
   or -1 after setting a one-line reason in e (or leaving e->msg empty when
   it printed its own message). */
typedef int (*bc_flag_fn)(void *arg, const bc_flag *f, const char *val, bc_err *e);

/* Parses argv[0..argc) against tab (terminated by lng == NULL), keeping the
   flags whose scope matches. "--name=value", "--name value", "-o value",
   "-ovalue"; "--" ends the flags. Words that are not flags go to *rest
   (NULL-terminated, malloc'd; the strings are argv's). On an unknown flag,
   a missing or unexpected value, or fn's -1: prints
   "benchcore CMD: ..." and "Try 'benchcore CMD --help'.", frees the word
   list (*rest = NULL) and returns 2. */
int bc_flags_parse(const char *cmd, const bc_flag *tab, unsigned scope, int argc, char **argv,
		   bc_flag_fn fn, void *arg, char ***rest);
/* "  -o, --output OUT.json   help wrapped at 78 columns" for every flag of scope. */
void bc_flags_help(FILE *f, const bc_flag *tab, unsigned scope);
/* Number of rows of tab. */
size_t bc_flags_count(const bc_flag *tab);
#endif
