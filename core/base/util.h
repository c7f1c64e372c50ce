/* Small shared helpers: error reports in three parts, sizes, clocks, lists.
   Everything here is safe to call from any thread unless noted. */
#ifndef BC_UTIL_H
#define BC_UTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* An error a user can cause, told like PostgreSQL does: a short lower-case
   primary message, a detail sentence and a hint (both optional). */
typedef struct bc_err {
	char msg[1024];
	char detail[1536];
	char hint[512];
} bc_err;

void bc_err_set(bc_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bc_err_detail(bc_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bc_err_hint(bc_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "benchcore: error: msg" plus DETAIL:/HINT: lines to stderr. */
void bc_err_print(const bc_err *e);
/* The same under another name: "benchcore serve: error: ..." */
void bc_err_print_as(const char *who, const bc_err *e);

void bc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where benchcore's own messages and progress go: stderr, except in a case's
   process, whose fd 2 is a pipe the runner copies escaped (what a module
   writes to stderr) while benchcore keeps the terminal (bc_stderr_set). */
FILE *bc_stderr(void);
void bc_stderr_set(FILE *f);
void bc_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An info line said even under -q: what the run changed from what it was
   asked (--scale, profile = small), which a quiet run's reader must see. */
void bc_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int bc_quiet;	/* -q: no info lines */
/* check-module: a case's warnings are printed once, in its table, not also
   on stderr as they happen (they are kept in the case's result either way) */
extern int bc_case_warnings_later;

/* The time source of the whole program: CLOCK_MONOTONIC ns, unless a test
   installed a simulated clock (core/engine/clock.h sets these hooks; the
   check is one predicted branch on the hot path). */
extern uint64_t (*bc_now_hook)(void);
extern void (*bc_sleep_hook)(uint64_t t);
static inline uint64_t bc_now_ns(void)
{
	if (__builtin_expect(bc_now_hook != NULL, 0))
		return bc_now_hook();
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* Sleeps until the CLOCK_MONOTONIC time t (ns); returns early on a signal. */
void bc_sleep_until(uint64_t t);

/* "4096", "4K", "16k", "2M", "1G", "1T" (powers of 1024) -> bytes; -1 on error. */
int bc_parse_size(const char *s, uint64_t *out);
/* Formats bytes as "4K"/"2M" when exact, else a plain number. */
void bc_format_size(uint64_t v, char *buf, size_t len);
/* Bytes for people: "512 B", "1.0 MiB", "2.5 GiB" (the largest unit of
   1024 that keeps the figure at least 1). Returns buf. */
const char *bc_human_size(double bytes, char *buf, size_t len);
/* A value as the shortest text that reads back as the same double: 0.2,
   not 0.20000000000000001 (%.15g, else %.16g, else %.17g). Every option or
   param value printed for people or spreadsheets goes through it. Returns
   buf (BC_DOUBLE_TEXT bytes are enough). */
#define BC_DOUBLE_TEXT 32
/* "." when a help sentence does not end in . ! ? or :, else "": printed
   after it, so that what follows ("Range: 1 .. 64.", "Choices: a, b.") is a
   sentence of its own, never run into the help. */
const char *bc_full_stop(const char *text);
const char *bc_fmt_double(double v, char *buf, size_t len);
/* A figure for people: decimals after the point while |v| < 1e12 (what a
   measurement gives: 83720418 events/s), else 6 significant digits
   (1e+300, never 300 digits); sign: a + on positives (changes). Returns buf
   (BC_DOUBLE_TEXT bytes are enough). */
const char *bc_fmt_fig(double v, int decimals, int sign, char *buf, size_t len);
int bc_parse_double(const char *s, double *out);
int bc_parse_int64(const char *s, int64_t *out);

/* Comma-separated list split into a NULL-terminated, malloc'd vector (free with bc_strv_free). */
char **bc_split(const char *s, char sep);
/* The strings of a NULL-terminated vector joined by sep (malloc'd). */
char *bc_strv_join(char *const *v, const char *sep);
/* One CSV text cell (RFC 4180 quoting); a cell starting with = + - @ gets a
   leading ' so a spreadsheet shows it instead of running it. Numbers are
   printed by the caller. */
void bc_csv_cell(FILE *f, const char *s);
/* A copy of s safe to print on a terminal or in a report: control
   characters as \xNN, C1 controls and the bidirectional overrides and
   isolates as \uNNNN, everything else kept (malloc'd). */
char *bc_printable(const char *s);
/* A module's text (a summary, an option's help, a unit, error(),
   set_error(), log(), a server's reply) as benchcore keeps and shows it:
   valid UTF-8 (other bytes become '?') and bc_printable, cut to n bytes;
   only the newlines of benchcore's own quoting ("\n    | " before a line of
   a server's log) stay. The one escaping every module-provided text goes
   through. */
void bc_text_copy(char *dst, size_t n, const char *src);
/* The same, malloc'd and uncut. */
char *bc_text_dup(const char *src);
/* 1 when s is valid UTF-8 (what JSON results can hold). */
int bc_utf8_valid(const char *s);
/* Replaces each byte that is not part of valid UTF-8 with '?', in place:
   text from a module always fits the results. */
void bc_utf8_fix(char *s);
/* Opens an input file for reading only when it is a regular file of at
   most max bytes (a FIFO, device or directory is refused at once, never
   waited on or read): the descriptor, or -1 with a reason in e (a fragment
   the caller puts after the path, "cannot open: ..."). */
int bc_open_regular(const char *path, off_t max, bc_err *e);
/* May path be written as an output? "-" (stdout) or a regular file or a
   new name, in a directory benchcore can write, and none of inputs[]
   (NULL-terminated, may be NULL). 0, or -1 with a reason in e (naming the
   path; the caller puts the flag before it); -2 (e too) when it is refused
   only because its directory cannot take a new file: the output could not
   be written (exit status 3 for compare's and history's --junit). */
int bc_output_ok(const char *path, char *const *inputs, bc_err *e);
/* Flushes stdout; -1 after a message naming cmd when anything written to
   it was lost (a full disk, a closed pipe). */
int bc_stdout_done(const char *cmd);
/* Writes all n bytes (retrying short writes and EINTR): 0, or -1. */
int bc_write_all(int fd, const char *s, size_t n);
/* Takes PATH.lock for a run that writes PATH (flock, so a crashed run leaves
   no lock behind): the descriptor, or -1 with e naming the other run. */
int bc_lock_output(const char *path, bc_err *e);
/* Releases and removes it. */
void bc_unlock_output(const char *path, int fd);
void bc_strv_free(char **v);
size_t bc_strv_len(char *const *v);

void *bc_xmalloc(size_t n);
void *bc_xcalloc(size_t n, size_t sz);
/* realloc of n items of sz bytes (the product checked for overflow). */
void *bc_xrealloc(void *p, size_t n, size_t sz);
char *bc_xstrdup(const char *s);
char *bc_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Removes a directory tree (scratch dirs); ignores errors. */
void bc_rmtree(const char *path);

/* Writes data to path atomically: a temp file in the same directory
   (PATH.tmp.PID.XXXXXX, PID the writer's), fsync, rename. */
int bc_write_atomic(const char *path, const char *data, size_t len, bc_err *e);
/* The same for a file of n pieces written one after another (a document
   too large to hold twice: the runner's). */
struct iovec;
int bc_write_atomic_v(const char *path, const struct iovec *iov, size_t n, bc_err *e);
#endif
