/* A run's changes to the machine (mset.h): the machine-wide lock, the
   journal of original values, apply with read-back, restore.

   The journal (STATE_DIR/journal, the directory 0700, the file 0600, both
   root's) holds one record per target, written before the target's first
   change: "file PATH ORIGINAL WRITTEN", "cmd NAME SET READ ORIGINAL
   WRITTEN", or a backend's own (f[0] its tag, bc_mrtypes). Fields are
   tab-separated with \\, \t and \n escaped. It is rewritten whole (temp,
   fsync, rename) at every change, so a reader never sees half of one.

   The lock (STATE_DIR/machine.lock) is an flock held for the whole run by
   a run that changes settings; the kernel releases it when the holder dies
   however it dies, so a journal without a held lock is a dead run's. The
   file's text names its holder for the refusal's message. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "mset.h"
#include "fsdev.h"

/* The backends' own record types (#50's file systems add theirs here). */
static const bc_mrtype *const bc_mrtypes[] = { &bc_fs_mrtype, NULL };

const char *bc_mstate_dir(void)
{
	const char *d = getenv("BENCHCORE_STATE_DIR");
	return d && *d ? d : "/run/benchcore";
}

static void paths(bc_mstate *s)
{
	if (s->dir)
		return;
	s->dir = bc_xstrdup(bc_mstate_dir());
	s->journal = bc_xasprintf("%s/journal", s->dir);
	s->lockfile = bc_xasprintf("%s/machine.lock", s->dir);
	s->lock_fd = -1;
}

static void esc(char **buf, size_t *len, size_t *cap, const char *f)
{
	for (const char *p = f; ; p++) {
		if (*len + 3 >= *cap) {
			*cap = *cap * 2 + 64;
			*buf = bc_xrealloc(*buf, *cap, 1);
		}
		if (!*p)
			break;
		if (*p == '\\' || *p == '\t' || *p == '\n') {
			(*buf)[(*len)++] = '\\';
			(*buf)[(*len)++] = *p == '\t' ? 't' : *p == '\n' ? 'n' : '\\';
		} else {
			(*buf)[(*len)++] = *p;
		}
	}
	(*buf)[*len] = '\0';
}

static char *unesc(const char *a, size_t n)
{
	char *o = bc_xcalloc(n + 1, 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (a[i] == '\\' && i + 1 < n) {
			i++;
			o[k++] = a[i] == 't' ? '\t' : a[i] == 'n' ? '\n' : a[i];
		} else {
			o[k++] = a[i];
		}
	}
	return o;
}

static int save(bc_mstate *s, bc_err *e)
{
	size_t len = 0, cap = 256;
	char *buf = bc_xcalloc(cap, 1);
	esc(&buf, &len, &cap, "benchcore machine journal 1");
	buf[len++] = '\n';
	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = 0; s->e[i].f[j]; j++) {
			if (j)
				esc(&buf, &len, &cap, "");
			if (j)
				buf[len++] = '\t';
			esc(&buf, &len, &cap, s->e[i].f[j]);
		}
		esc(&buf, &len, &cap, "");
		buf[len++] = '\n';
		buf[len] = '\0';
	}
	char *tmp = bc_xasprintf("%s.tmp", s->journal);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	int ok = fd >= 0 && bc_write_all(fd, buf, len) == 0 && fsync(fd) == 0;
	if (fd >= 0)
		ok = close(fd) == 0 && ok;
	ok = ok && rename(tmp, s->journal) == 0;
	if (!ok) {
		bc_err_set(e, "could not write the journal of original values %s: %s", s->journal, strerror(errno));
		bc_err_detail(e, "Nothing is changed without it: a run killed outright could not be undone.");
		unlink(tmp);
	}
	free(tmp);
	free(buf);
	return ok ? 0 : -1;
}

static void add(bc_mstate *s, char **f)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->e = bc_xrealloc(s->e, s->cap, sizeof(*s->e));
	}
	s->e[s->n++].f = f;
}

static void clear(bc_mstate *s)
{
	for (size_t i = 0; i < s->n; i++)
		bc_strv_free(s->e[i].f);
	free(s->e);
	s->e = NULL;
	s->n = s->cap = 0;
}

/* Reads the journal's records into s (none when there is no journal). */
static int load(bc_mstate *s)
{
	bc_err why;
	int fd = bc_open_regular(s->journal, 16 << 20, &why);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	FILE *f = fdopen(fd, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t l;
	int first = 1;
	while (f && (l = getline(&line, &cap, f)) > 0) {
		if (line[l - 1] == '\n')
			line[--l] = '\0';
		if (first) {	/* the header */
			first = 0;
			continue;
		}
		size_t nf = 1;
		for (ssize_t i = 0; i < l; i++)
			nf += line[i] == '\t';
		char **fs = bc_xcalloc(nf + 1, sizeof(*fs));
		const char *a = line;
		for (size_t k = 0; k < nf; k++) {
			const char *t = strchr(a, '\t');
			size_t n = t ? (size_t)(t - a) : strlen(a);
			fs[k] = unesc(a, n);
			a += n + (t != NULL);
		}
		add(s, fs);
	}
	free(line);
	if (f)
		fclose(f);
	return 0;
}

static bc_mentry *find(bc_mstate *s, const char *type, const char *target)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].f[0], type) && s->e[i].f[1] && !strcmp(s->e[i].f[1], target))
			return &s->e[i];
	return NULL;
}

/* A cmd record's time limit: its field after the written value (a journal
   of a benchcore before the limit has none: the default). */
static double cmd_timeout(char *const *f)
{
	return bc_strv_len(f) > 6 ? strtod(f[6], NULL) : 0;
}

/* The current value of a file or cmd record's target; 0, or -1 (why in out). */
static int current(char *const *f, char *out, size_t n)
{
	if (!strcmp(f[0], "file")) {
		if (bc_mread(f[1], out, n)) {
			snprintf(out, n, "%s", strerror(errno));
			return -1;
		}
		return 0;
	}
	return bc_mcommand(f[3], NULL, cmd_timeout(f), out, n);
}

static int set_to(char *const *f, const char *v, char *why, size_t n)
{
	if (!strcmp(f[0], "file")) {
		if (bc_mwrite_file(f[1], v)) {
			snprintf(why, n, "%s", strerror(errno));
			return -1;
		}
		return 0;
	}
	return bc_mcommand(f[2], v, cmd_timeout(f), why, n);
}

/* Index of the original and written fields of a file or cmd record. */
static size_t orig_at(char *const *f)
{
	return !strcmp(f[0], "file") ? 2 : 4;
}

/* Puts record f back. dead: a dead run's record, restored only where the
   value is still the one written. 0 restored (or nothing to do), 1 left
   alone because someone changed it (said in why), -1 failed (why). */
static int restore_one(char *const *f, int dead, char *why, size_t n)
{
	if (strcmp(f[0], "file") && strcmp(f[0], "cmd")) {
		for (size_t i = 0; bc_mrtypes[i]; i++)
			if (!strcmp(bc_mrtypes[i]->tag, f[0]))
				return bc_mrtypes[i]->restore(f, dead, why, n);
		snprintf(why, n, "a record of unknown type \"%s\" (a newer benchcore's?)", f[0]);
		return -1;
	}
	size_t o = orig_at(f);
	if (bc_strv_len(f) < o + 2) {
		snprintf(why, n, "a truncated record");
		return -1;
	}
	char cur[512], back[512];
	if (current(f, cur, sizeof(cur))) {
		snprintf(why, n, "cannot read it: %s", cur);
		return -1;
	}
	char wrote[512];
	bc_mnormalize(f[o + 1], wrote, sizeof(wrote));	/* compared as the kernel shows it */
	if (!strcmp(cur, f[o]))
		return 0;
	if (dead && strcmp(cur, wrote)) {
		snprintf(why, n, "left as it is: it is \"%s\" now, not the \"%s\" benchcore wrote (someone changed it "
			 "since; it was \"%s\" before)", cur, f[o + 1], f[o]);
		return 1;
	}
	if (set_to(f, f[o], back, sizeof(back)) || current(f, back, sizeof(back)) || strcmp(back, f[o])) {
		snprintf(why, n, "could not put back \"%s\" (it is \"%s\"): %s", f[o], cur, back);
		return -1;
	}
	return 0;
}

/* Restores every record, last first; a failure is tried once more after the
   others (a frequency's min before its max). Returns the count left. */
static int restore_all(bc_mstate *s, int dead, FILE *say, int *restored)
{
	int left = 0;
	unsigned char *fail = bc_xcalloc(s->n + 1, 1);
	char why[2048];
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = s->n; i-- > 0;) {
			if (pass && !fail[i])
				continue;
			int rc = restore_one(s->e[i].f, dead, why, sizeof(why));
			fail[i] = rc < 0;
			if (rc == 0 && restored)
				(*restored)++;
			if ((rc == 1 && !pass) || (rc < 0 && pass)) {
				left++;
				if (say)
					fprintf(say, "benchcore: warning: %s %s: %s\n", s->e[i].f[0], s->e[i].f[1] ? s->e[i].f[1] : "",
						why);
			}
		}
	free(fail);
	return left;
}

static int make_dir(bc_mstate *s, bc_err *e)
{
	struct stat st;
	if (mkdir(s->dir, 0700) && errno != EEXIST) {
		bc_err_set(e, "could not create the state directory %s: %s", s->dir, strerror(errno));
		return -1;
	}
	if (lstat(s->dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		bc_err_set(e, "the state directory %s is not a directory of this user's that only it can read", s->dir);
		bc_err_hint(e, "remove it, or set BENCHCORE_STATE_DIR to a fresh directory");
		return -1;
	}
	return 0;
}

int bc_mstate_holder(char *buf, size_t n)
{
	bc_mstate s = { 0 };
	paths(&s);
	buf[0] = '\0';
	int fd = open(s.lockfile, O_RDONLY | O_CLOEXEC);
	int held = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	if (held) {
		ssize_t r = read(fd, buf, n - 1);
		buf[r > 0 ? r : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (!*buf)
			snprintf(buf, n, "a benchcore run");
	}
	if (fd >= 0)
		close(fd);
	free(s.dir);
	free(s.journal);
	free(s.lockfile);
	return held;
}

/* The pid the holder wrote ("pid N: ..."), or 0. */
static pid_t holder_pid(int fd)
{
	char who[64] = "";
	ssize_t r = pread(fd, who, sizeof(who) - 1, 0);
	who[r > 0 ? r : 0] = '\0';
	long pid = 0;
	return sscanf(who, "pid %ld:", &pid) == 1 && pid > 0 ? (pid_t)pid : 0;
}

/* The lock is held though the run that wrote its holder is gone (SIGKILL):
   the processes it forked (a case process, a workload's own children) hold
   the same open file until they have exited, which a child stopping its
   I/O may take seconds to do. Waits up to 15 s for them; 1 when the lock
   is taken, 0 when the holder is alive or the wait ran out. */
static int holder_dead_wait(int fd)
{
	pid_t pid = holder_pid(fd);
	if (pid <= 0 || !(kill(pid, 0) && errno == ESRCH))
		return 0;
	for (int i = 0; i < 150; i++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 1;
		if (i == 5)
			bc_warn("the run that held this machine's settings (pid %ld) is gone; waiting for the processes it "
				"started to exit", (long)pid);
		usleep(100000);
	}
	return 0;
}

/* Takes the lock of s (nonblocking, but see holder_dead_wait); 0, or -1 with the holder in e. */
static int take_lock(bc_mstate *s, bc_err *e)
{
	s->lock_fd = open(s->lockfile, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->lock_fd < 0) {
		bc_err_set(e, "could not open the machine lock %s: %s", s->lockfile, strerror(errno));
		return -1;
	}
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) && !holder_dead_wait(s->lock_fd)) {
		char who[512] = "";
		ssize_t r = pread(s->lock_fd, who, sizeof(who) - 1, 0);
		who[r > 0 ? r : 0] = '\0';
		who[strcspn(who, "\n")] = '\0';
		bc_err_set(e, "another run holds this machine's settings: %s%s", *who ? who : "(holder unknown)",
			holder_pid(s->lock_fd) > 0 && kill(holder_pid(s->lock_fd), 0) && errno == ESRCH
				? " (that process is gone, but processes it started still hold the lock)" : "");
		bc_err_detail(e, "Two runs changing machine settings at once would each measure the other's.");
		bc_err_hint(e, "wait for it to end, or run without machine settings");
		close(s->lock_fd);
		s->lock_fd = -1;
		return -1;
	}
	return 0;
}

static void say_holder(int fd)
{
	char cmd[256] = "", *p = bc_xasprintf("/proc/%ld/cmdline", (long)getpid());
	int cf = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t r = cf >= 0 ? read(cf, cmd, sizeof(cmd) - 1) : 0;
	if (cf >= 0)
		close(cf);
	free(p);
	for (ssize_t i = 0; i < r - 1; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	char when[32];
	time_t t = time(NULL);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	char *text = bc_xasprintf("pid %ld: %s (since %s)\n", (long)getpid(), r > 0 ? cmd : "benchcore", when);
	if (ftruncate(fd, 0) == 0)
		(void)!pwrite(fd, text, strlen(text), 0);
	free(text);
}

int bc_mstate_begin(bc_mstate *s, bc_err *e)
{
	paths(s);
	if (make_dir(s, e) || take_lock(s, e)) {
		free(s->dir);
		free(s->journal);
		free(s->lockfile);
		s->dir = s->journal = s->lockfile = NULL;
		return -1;
	}
	/* a dead run's journal first: its originals are the machine's */
	if (load(s) == 0 && s->n) {
		bc_warn("a benchcore run that ended without restoring changed this machine's settings: restoring them "
			"from %s", s->journal);
		restore_all(s, 1, stderr, NULL);
	}
	clear(s);
	unlink(s->journal);
	say_holder(s->lock_fd);
	s->began = 1;
	return 0;
}

int bc_mstate_record(bc_mstate *s, char *const *fields, bc_err *e)
{
	char **f = bc_xcalloc(bc_strv_len(fields) + 1, sizeof(*f));
	for (size_t i = 0; fields[i]; i++)
		f[i] = bc_xstrdup(fields[i]);
	add(s, f);
	return save(s, e);
}

static int in_want(const bc_mwrites *want, char *const *f)
{
	for (size_t i = 0; i < want->n; i++)
		if (((want->w[i].type == 'f' && !strcmp(f[0], "file")) || (want->w[i].type == 'c' && !strcmp(f[0], "cmd"))) &&
		    !strcmp(want->w[i].path, f[1]))
			return 1;
	return 0;
}

/* The journal's record of w, made (its original read) when w's target is
   new; NULL with e when the original cannot be read. */
static bc_mentry *entry_of(bc_mstate *s, const bc_mwrite *w, bc_err *e)
{
	const char *type = w->type == 'f' ? "file" : "cmd";
	bc_mentry *en = find(s, type, w->path);
	if (en)
		return en;
	char orig[512];
	char **f = bc_xcalloc(8, sizeof(*f));
	f[0] = bc_xstrdup(type);
	f[1] = bc_xstrdup(w->path);
	if (w->type == 'c') {
		f[2] = bc_xstrdup(w->set);
		f[3] = bc_xstrdup(w->read);
	}
	if (w->type == 'c' ? bc_mcommand(w->read, NULL, w->timeout, orig, sizeof(orig)) : current(f, orig, sizeof(orig))) {
		bc_err_set(e, "%s: could not read %s: %s", w->key, w->path, orig);
		bc_strv_free(f);
		return NULL;
	}
	size_t o = orig_at(f);
	f[o] = bc_xstrdup(orig);
	f[o + 1] = bc_xstrdup(orig);
	if (w->type == 'c')
		f[o + 2] = bc_xasprintf("%g", w->timeout > 0 ? w->timeout : BC_MCOMMAND_TIMEOUT);
	add(s, f);
	return &s->e[s->n - 1];
}

/* One write of the combination: journalled, written, read back. */
static int apply_one(bc_mstate *s, const bc_mwrite *w, int *changed, bc_err *e)
{
	bc_mentry *en = entry_of(s, w, e);
	if (!en)
		return -1;
	char cur[512], why[512], want[512];
	size_t o = orig_at(en->f);
	bc_mnormalize(w->value, want, sizeof(want));	/* as the kernel shows it: "4096 87380" for tabs */
	if (current(en->f, cur, sizeof(cur)) == 0 && !strcmp(cur, want) && !strcmp(en->f[o + 1], w->value))
		return 0;
	free(en->f[o + 1]);
	en->f[o + 1] = bc_xstrdup(w->value);
	if (save(s, e))	/* journalled before the machine changes */
		return -1;
	*changed = 1;
	if (set_to(en->f, w->value, why, sizeof(why))) {
		bc_err_set(e, "%s: could not write \"%s\" to %s: %s", w->key, w->value, w->path, why);
		return -1;
	}
	if (current(en->f, cur, sizeof(cur)) || strcmp(cur, want)) {
		bc_err_set(e, "%s: wrote \"%s\" to %s, but it reads back \"%s\"", w->key, w->value, w->path, cur);
		bc_err_detail(e, "The kernel (or the hypervisor) did not take the value.");
		return -1;
	}
	return 0;
}

int bc_mstate_apply(bc_mstate *s, const bc_mwrites *want, int *changed, bc_err *e)
{
	char why[2048];
	*changed = 0;
	/* targets the combination leaves alone go back first, last changed first */
	for (size_t i = s->n; i-- > 0;) {
		char **f = s->e[i].f;
		if ((strcmp(f[0], "file") && strcmp(f[0], "cmd")) || in_want(want, f))
			continue;
		size_t o = orig_at(f);
		if (!strcmp(f[o], f[o + 1]))
			continue;
		if (restore_one(f, 0, why, sizeof(why)) < 0) {
			bc_err_set(e, "%s: %s", f[1], why);
			return -1;
		}
		free(f[o + 1]);
		f[o + 1] = bc_xstrdup(f[o]);
		*changed = 1;
	}
	if (*changed && save(s, e))
		return -1;
	for (size_t i = 0; i < want->n; i++)
		if (apply_one(s, &want->w[i], changed, e))
			return -1;
	return 0;
}

const char *bc_mstate_written(const bc_mstate *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].f[0], "file") && !strcmp(s->e[i].f[1], path))
			return s->e[i].f[3];
	return NULL;
}

int bc_mstate_end(bc_mstate *s)
{
	int left = 0;
	if (!s->began)
		return 0;
	s->began = 0;
	left = restore_all(s, 0, stderr, NULL);
	clear(s);
	if (left)
		bc_warn("%d machine setting%s could not be restored: the journal %s is kept", left, left == 1 ? "" : "s",
			s->journal);
	else
		unlink(s->journal);
	if (s->lock_fd >= 0) {
		if (!left && ftruncate(s->lock_fd, 0))
			left += 0;
		close(s->lock_fd);
		s->lock_fd = -1;
	}
	free(s->dir);
	free(s->journal);
	free(s->lockfile);
	s->dir = s->journal = s->lockfile = NULL;
	return left;
}

int bc_mstate_recover(FILE *f, int *restored)
{
	bc_mstate s = { 0 };
	bc_err e;
	int rc = 0;
	*restored = 0;
	paths(&s);
	if (access(s.journal, F_OK)) {
		free(s.dir);
		free(s.journal);
		free(s.lockfile);
		return 0;
	}
	if (take_lock(&s, &e)) {
		if (f)
			fprintf(f, "benchcore: %s\n", e.msg);
		rc = -1;
	} else {
		load(&s);
		rc = restore_all(&s, 1, f, restored);
		clear(&s);
		unlink(s.journal);	/* what was left is named; the journal has done its work */
		close(s.lock_fd);
	}
	free(s.dir);
	free(s.journal);
	free(s.lockfile);
	return rc;
}
