/* Shared helpers: error reports, parsing of sizes and numbers, lists, files. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "util.h"

int bc_quiet;
int bc_case_warnings_later;

#define VFMT(buf, fmt) do { va_list ap; va_start(ap, fmt); \
	vsnprintf(buf, sizeof(buf), fmt, ap); va_end(ap); } while (0)

void bc_err_set(bc_err *e, const char *fmt, ...)
{
	e->detail[0] = e->hint[0] = '\0';
	VFMT(e->msg, fmt);
}
void bc_err_detail(bc_err *e, const char *fmt, ...) { VFMT(e->detail, fmt); }
void bc_err_hint(bc_err *e, const char *fmt, ...) { VFMT(e->hint, fmt); }

/* Every line benchcore prints to stderr goes through bc_printable: its
   parts often carry a module's text, a file name or a server's reply, none
   of which may move the cursor, retitle the terminal or forge a line.
   bc_printable leaves its own escapes alone, so text escaped earlier is
   printed as it is. */
static FILE *bc_term;

FILE *bc_stderr(void)
{
	return bc_term ? bc_term : stderr;
}

void bc_stderr_set(FILE *f)
{
	bc_term = f;
}

static void print_line(const char *prefix, const char *text)
{
	char *p = bc_text_dup(text);
	fprintf(bc_stderr(), "%s%s\n", prefix, p);
	free(p);
}

void bc_err_print(const bc_err *e)
{
	bc_err_print_as("benchcore", e);
}

void bc_err_print_as(const char *who, const bc_err *e)
{
	char *w = bc_text_dup(who);
	fprintf(bc_stderr(), "%s: ", w);
	free(w);
	print_line("error: ", e->msg);
	if (e->detail[0])
		print_line("DETAIL: ", e->detail);
	if (e->hint[0])
		print_line("HINT: ", e->hint);
}

void bc_warn(const char *fmt, ...)
{
	char buf[2048];
	VFMT(buf, fmt);
	print_line("benchcore: warning: ", buf);
}

void bc_info(const char *fmt, ...)
{
	char buf[2048];
	if (bc_quiet)
		return;
	VFMT(buf, fmt);
	print_line("", buf);
}

void bc_notice(const char *fmt, ...)
{
	char buf[2048];
	VFMT(buf, fmt);
	print_line("", buf);
}

uint64_t (*bc_now_hook)(void);
void (*bc_sleep_hook)(uint64_t t);

void bc_sleep_until(uint64_t t)
{
	if (bc_sleep_hook) {
		bc_sleep_hook(t);
		return;
	}
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u), .tv_nsec = (long)(t % 1000000000u) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

int bc_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned shift = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		default: return -1;
		}
		end++;
		if ((*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
			end += 2;
		else if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

void bc_format_size(uint64_t v, char *buf, size_t len)
{
	static const char suf[] = "KMGT";
	int i = -1;
	while (v && v % 1024 == 0 && i < 3) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, suf[i]);
}

const char *bc_fmt_double(double v, char *buf, size_t len)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, v);
		if (v != v || strtod(buf, NULL) == v)	/* NaN never equals itself: "nan" as is */
			break;
	}
	return buf;
}

const char *bc_fmt_fig(double v, int decimals, int sign, char *buf, size_t len)
{
	if (fabs(v) < 0.5 * pow(10, -decimals))
		v = 0;	/* a figure that rounds to zero has no sign (-0.0%: a rounding's) */
	if (fabs(v) < 1e12 || !isfinite(v))
		snprintf(buf, len, sign ? "%+.*f" : "%.*f", decimals, v);
	else
		snprintf(buf, len, sign ? "%+.6g" : "%.6g", v);
	return buf;
}

const char *bc_full_stop(const char *text)
{
	size_t n = text ? strlen(text) : 0;
	return n && !strchr(".!?:", text[n - 1]) ? "." : "";
}

const char *bc_human_size(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	int i = 0;
	while (i < 6 && (bytes >= 1024 || bytes <= -1024)) {
		bytes /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%.1f %s", bytes, units[i]);
	return buf;
}

int bc_parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int bc_parse_int64(const char *s, int64_t *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

char *bc_strv_join(char *const *v, const char *sep)
{
	size_t len = 1;
	for (size_t i = 0; v && v[i]; i++)
		len += strlen(v[i]) + strlen(sep);
	char *out = bc_xcalloc(len, 1), *p = out;
	for (size_t i = 0; v && v[i]; i++)
		p += sprintf(p, "%s%s", i ? sep : "", v[i]);
	return out;
}

char **bc_split(const char *s, char sep)
{
	size_t n = 1, k = 0;
	for (const char *p = s; *p; p++)
		n += (*p == sep);
	char **v = bc_xcalloc(n + 1, sizeof(*v));
	const char *start = s;
	for (const char *p = s;; p++) {
		if (*p == sep || !*p) {
			v[k++] = strndup(start, (size_t)(p - start));
			if (!*p)
				break;
			start = p + 1;
		}
	}
	return v;
}

void bc_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

size_t bc_strv_len(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

static void oom(void)
{
	fputs("benchcore: out of memory\n", stderr);
	abort();
}

void *bc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *bc_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		oom();
	return p;
}

void *bc_xrealloc(void *p, size_t n, size_t sz)
{
	if (sz && n > SIZE_MAX / sz)
		oom();	/* a count that overflows is no allocation anyone can make */
	p = realloc(p, n && sz ? n * sz : 1);
	if (!p)
		oom();
	return p;
}

char *bc_xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		oom();
	return p;
}

char *bc_xasprintf(const char *fmt, ...)
{
	char *p;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	return p;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	remove(path);
	return 0;
}

void bc_rmtree(const char *path)
{
	if (path && *path)
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int bc_write_atomic(const char *path, const char *data, size_t len, bc_err *e)
{
	struct iovec one = { .iov_base = (void *)data, .iov_len = len };
	return bc_write_atomic_v(path, &one, 1, e);
}

/* A whole piece, through EINTR and short writes: 0, or -1. */
static int write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

int bc_write_atomic_v(const char *path, const struct iovec *iov, size_t n, bc_err *e)
{
	/* the writer's pid in the name: a temporary left by a writer killed
	   outright is known as benchcore's and swept once that pid is gone
	   (bc_sweep_temps) */
	char *tmp = bc_xasprintf("%s.tmp.%ld.XXXXXX", path, (long)getpid());
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		bc_err_set(e, "could not write \"%s\": %s", path, strerror(errno));
		bc_err_hint(e, "check that the directory exists and is writable");
		free(tmp);
		return -1;
	}
	fchmod(fd, 0644);
	int ok = 1;
	for (size_t i = 0; ok && i < n; i++)
		ok = write_all(fd, iov[i].iov_base, iov[i].iov_len) == 0;
	ok = ok && fsync(fd) == 0;
	ok = (close(fd) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		bc_err_set(e, "could not write \"%s\": %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

void bc_csv_cell(FILE *f, const char *s)
{
	/* a cell a spreadsheet would run as a formula is kept as text */
	int formula = s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@';
	if (!formula && !strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

char *bc_printable(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = bc_xcalloc(n * 6 + 1, 1);
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		/* C1 controls (U+0080..U+009F) and the bidirectional overrides and
		   isolates (U+202A..U+202E, U+2066..U+2069) as UTF-8 sequences */
		if (c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			o += (size_t)sprintf(out + o, "\\u%04x", p[1]);
			p += 2;
			continue;
		}
		if (c == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
				  (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))) {
			o += (size_t)sprintf(out + o, "\\u%04x", 0x2000 + ((p[1] & 0x3f) << 6) + (p[2] & 0x3f));
			p += 3;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			o += (size_t)sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = (char)c;
		p++;
	}
	return out;
}

#define QUOTE_NL "\n    | "	/* how benchcore quotes a log's lines under a message */

char *bc_text_dup(const char *src)
{
	char *u = bc_xstrdup(src ? src : ""), *out = bc_xcalloc(1, 1);
	bc_utf8_fix(u);
	/* every control character is escaped, except the newlines benchcore
	   itself puts before a quoted line ("\n    | "): indented and marked,
	   such a line cannot pass for one of benchcore's */
	for (char *seg = u;;) {
		char *nl = strstr(seg, QUOTE_NL);
		if (nl)
			*nl = '\0';
		char *p = bc_printable(seg), *j = bc_xasprintf("%s%s%s", out, p, nl ? QUOTE_NL : "");
		free(p);
		free(out);
		out = j;
		if (!nl)
			break;
		seg = nl + strlen(QUOTE_NL);
	}
	free(u);
	return out;
}

void bc_text_copy(char *dst, size_t n, const char *src)
{
	char *p = bc_text_dup(src);
	snprintf(dst, n, "%s", p);
	bc_utf8_fix(dst);	/* a cut may split a character */
	free(p);
}

int bc_open_regular(const char *path, off_t max, bc_err *e)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		bc_err_set(e, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		bc_err_set(e, "not a regular file (%s)", S_ISFIFO(st.st_mode) ? "a FIFO" :
			   S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ?
			   "a device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
		close(fd);
		return -1;
	}
	if (st.st_size > max) {
		bc_err_set(e, "too large (%lld bytes; at most %lld)", (long long)st.st_size, (long long)max);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0. */
static size_t utf8_seq(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	if (!n || (n == 2 && c < 0xc2) || (n == 4 && c > 0xf4))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
		return 0;	/* overlong, or a UTF-16 surrogate */
	if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
		return 0;
	return n;
}

int bc_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = utf8_seq(p);
		if (!n)
			return 0;
		p += n;
	}
	return 1;
}

void bc_utf8_fix(char *s)
{
	unsigned char *p = (unsigned char *)s;
	while (*p) {
		size_t n = utf8_seq(p);
		if (!n)
			*p++ = '?';
		else
			p += n;
	}
}

int bc_output_ok(const char *path, char *const *inputs, bc_err *e)
{
	struct stat st, in;
	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			bc_err_set(e, "%s is not a regular file (%s): benchcore writes only regular files "
				   "(or - for stdout)", path, S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
				   S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a file");
			return -1;
		}
		for (size_t i = 0; inputs && inputs[i]; i++)
			if (stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
				bc_err_set(e, "%s is also an input (%s): it would be replaced", path, inputs[i]);
				return -1;
			}
	}
	/* the directory must take a new file (the write goes to a temporary
	   file there, renamed into place) */
	char *dir = bc_xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	const char *d = slash ? dir : ".";
	int ok = access(d, W_OK | X_OK) == 0;
	if (!ok)
		bc_err_set(e, "cannot write in %s: %s", d, strerror(errno));
	free(dir);
	return ok ? 0 : -2;
}

int bc_stdout_done(const char *cmd)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "benchcore %s: writing the output failed: %s\n", cmd, strerror(errno ? errno : EIO));
	return -1;
}

int bc_lock_output(const char *path, bc_err *e)
{
	char *lp = bc_xasprintf("%s.lock", path), buf[32] = "";
	int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		bc_err_set(e, "could not lock \"%s\": %s", lp, strerror(errno));
		free(lp);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		bc_err_set(e, "another benchcore run%s%s%s is writing \"%s\"", *buf ? " (pid " : "", buf,
			   *buf ? ")" : "", path);
		bc_err_hint(e, "wait for it to finish, or give this run another -o");
		close(fd);
		free(lp);
		return -1;
	}
	if (ftruncate(fd, 0) == 0) {
		int len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
		if (write(fd, buf, (size_t)len) < 0) {
			/* the pid is only a courtesy to the next run */
		}
	}
	free(lp);
	return fd;
}

void bc_unlock_output(const char *path, int fd)
{
	if (fd < 0 || !path)
		return;
	char *lp = bc_xasprintf("%s.lock", path);
	unlink(lp);
	close(fd);
	free(lp);
}

int bc_write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}
