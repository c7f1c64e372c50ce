/* A run's changes to the machine (mset.h): the machine-wide lock, the
   journal of original values, apply with read-back, restore.

   The journal (STATE_DIR/journal, the directory 0700, the file 0600, both
   root's) holds one record per target, written before the target's first
   change: "file PATH ORIGINAL WRITTEN", "cmd NAME SET READ ORIGINAL
   WRITTEN", or a backend's own (f[0] its tag, bc_mrtypes). Fields are
   tab-separated with \\, \t and \n escaped. It is rewritten whole (temp,
   fsync, rename) at every change, so a reader never sees half of one. A
   cmd record's eighth field is the process group of its set command last
   started ("PGID START TOKEN", written before it runs): a restore kills
   what is left of it first. Every reader checks the directory, the file
   and each file record first (mtrust.c); a journal that fails is refused
   whole and left as it is.

   The lock (STATE_DIR/machine.lock) is an flock held for the whole run by
   a run that changes settings; the kernel releases it when the holder dies
   however it dies, so a journal without a held lock is a dead run's. The
   file's text names its holder for the refusal's message. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#define BC_MJOURNAL_HEADER "benchcore machine journal 1"
/* A cmd record: cmd NAME SET READ ORIGINAL WRITTEN TIMEOUT GROUP */
#define CMD_GROUP 7

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
	s->dfd = -1;
}

static void unpaths(bc_mstate *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->dfd >= 0)
		close(s->dfd);
	s->lock_fd = s->dfd = -1;
	free(s->dir);
	free(s->journal);
	free(s->lockfile);
	s->dir = s->journal = s->lockfile = NULL;
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
	esc(&buf, &len, &cap, BC_MJOURNAL_HEADER);
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
	/* in the checked directory (its descriptor): never a path swapped since */
	int fd = openat(s->dfd, "journal.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	int ok = fd >= 0 && bc_write_all(fd, buf, len) == 0 && fsync(fd) == 0;
	if (fd >= 0)
		ok = close(fd) == 0 && ok;
	ok = ok && renameat(s->dfd, "journal.tmp", s->dfd, "journal") == 0;
	if (!ok) {
		bc_err_set(e, "could not write the journal of original values %s: %s", s->journal, strerror(errno));
		bc_err_detail(e, "Nothing is changed without it: a run killed outright could not be undone.");
		unlinkat(s->dfd, "journal.tmp", 0);
	}
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

/* A record's field k set to v, the fields before it made "" if missing. */
static void set_field(bc_mentry *en, size_t k, const char *v)
{
	size_t len = bc_strv_len(en->f);
	if (k < len) {
		free(en->f[k]);
		en->f[k] = bc_xstrdup(v);
		return;
	}
	en->f = bc_xrealloc(en->f, k + 2, sizeof(*en->f));
	for (size_t i = len; i < k; i++)
		en->f[i] = bc_xstrdup("");
	en->f[k] = bc_xstrdup(v);
	en->f[k + 1] = NULL;
}

/* Is a loaded record one benchcore could have written? "" or why not. A
   file record's path becomes its real one: what is checked is written. */
static void record_ok(char **f, char *why, size_t n)
{
	char real[PATH_MAX];
	why[0] = '\0';
	if (strcmp(f[0], "file"))
		return;
	if (!f[1])
		snprintf(why, n, "names no file");
	else if (bc_mtrust_target(f[1], real, why, n) == 0 && strcmp(real, f[1])) {
		free(f[1]);
		f[1] = bc_xstrdup(real);
	}
}

/* Reads the journal's records into s (none when there is no journal),
   from the checked directory: 0, or -1 with e when the journal is not to
   be trusted (its file, its first line, a file record), nothing read. */
static int load(bc_mstate *s, bc_err *e)
{
	int fd = bc_mtrust_journal(s->dfd, s->journal, e);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	FILE *f = fdopen(fd, "r");
	char *line = NULL, why[PATH_MAX + 256] = "";
	size_t cap = 0;
	ssize_t l;
	int first = 1, bad = 0;
	while (f && !bad && (l = getline(&line, &cap, f)) > 0) {
		if (line[l - 1] == '\n')
			line[--l] = '\0';
		if (first) {	/* the header */
			first = 0;
			if (strcmp(line, BC_MJOURNAL_HEADER)) {
				snprintf(why, sizeof(why), "its first line is not \"" BC_MJOURNAL_HEADER "\"");
				bad = 1;
			}
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
		char rw[PATH_MAX + 200];
		record_ok(fs, rw, sizeof(rw));
		if (rw[0]) {
			snprintf(why, sizeof(why), "its record %zu (%s) %s", s->n, fs[0], rw);
			bad = 1;
		}
	}
	if (f && first && !bad) {
		snprintf(why, sizeof(why), "it is empty (a run writes its first line before anything else)");
		bad = 1;
	}
	free(line);
	if (f)
		fclose(f);
	else
		close(fd);
	if (!bad)
		return 0;
	clear(s);
	bc_err_set(e, "refusing the journal %s: %s", s->journal, why);
	bc_err_detail(e, "%s", !strncmp(why, "its record", 10) ? "A file record may name only a file in sysfs or "
		      "/proc/sys, as the settings write." : "A run writes its first line before any record.");
	bc_err_hint(e, "benchcore changed nothing and left it in place; remove it if no benchcore run wrote it");
	return -1;
}

/* The process groups of set commands a dead run had started: ended before
   anything is restored, so none of them writes its value afterwards. */
static void kill_groups(bc_mstate *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].f[0], "cmd") && bc_strv_len(s->e[i].f) > CMD_GROUP && s->e[i].f[CMD_GROUP][0]) {
			int k = bc_mgroup_kill(s->e[i].f[CMD_GROUP]);
			if (k)
				bc_warn("custom %s: killed %d process%s its set command had left running", s->e[i].f[1], k,
					k == 1 ? "" : "es");
		}
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

/* A set command's group, journalled before the command runs. */
struct group_ctx {
	bc_mstate *s;
	bc_mentry *en;
};

static int journal_group(void *ctx, const char *group)
{
	struct group_ctx *g = ctx;
	bc_err e;
	set_field(g->en, CMD_GROUP, group);
	if (g->s->dfd < 0)
		return 0;
	if (save(g->s, &e)) {
		bc_warn("%s", e.msg);
		return -1;
	}
	return 0;
}

static int set_to(bc_mstate *s, bc_mentry *en, const char *v, char *why, size_t n)
{
	char *const *f = en->f;
	if (!strcmp(f[0], "file")) {
		if (bc_mwrite_file(f[1], v)) {
			snprintf(why, n, "%s", strerror(errno));
			return -1;
		}
		return 0;
	}
	struct group_ctx g = { s, en };
	return bc_mcommand_in(f[2], v, cmd_timeout(f), journal_group, &g, why, n);
}

/* Index of the original and written fields of a file or cmd record. */
static size_t orig_at(char *const *f)
{
	return !strcmp(f[0], "file") ? 2 : 4;
}

/* Puts record en back. dead: a dead run's record, restored only where the
   value is still the one written. 0 restored, 2 already at its original
   (nothing to do), 1 left alone because someone changed it (said in why),
   -1 failed (why). */
static int restore_one(bc_mstate *s, bc_mentry *en, int dead, char *why, size_t n)
{
	char *const *f = en->f;
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
		return 2;
	if (dead && strcmp(cur, wrote)) {
		snprintf(why, n, "left as it is: it is \"%s\" now, not the \"%s\" benchcore wrote (someone changed it "
			 "since; it was \"%s\" before)", cur, f[o + 1], f[o]);
		return 1;
	}
	char *orig = bc_xstrdup(f[o]);	/* en->f may move (the group's field) */
	int bad = set_to(s, en, orig, back, sizeof(back)) || current(en->f, back, sizeof(back)) || strcmp(back, orig);
	if (bad)
		snprintf(why, n, "could not put back \"%s\" (it is \"%s\"): %s", orig, cur, back);
	free(orig);
	return bad ? -1 : 0;
}

/* What a warning calls a record: a file's path, a setting's name, a
   backend record's own label. */
static const char *label(char *const *f)
{
	static char buf[PATH_MAX];
	for (size_t i = 0; bc_mrtypes[i]; i++)
		if (!strcmp(bc_mrtypes[i]->tag, f[0]) && bc_mrtypes[i]->label)
			return bc_mrtypes[i]->label(f, buf, sizeof(buf));
	return f[1] ? f[1] : "";
}

/* Restores every record, last first; a failure is tried once more after the
   others (a frequency's min before its max). Counts each outcome in c (may
   be NULL); fail (s->n flags, may be NULL) marks what could not be undone. */
static void restore_all(bc_mstate *s, int dead, FILE *say, bc_mcounts *c, unsigned char *fail)
{
	bc_mcounts mine = { 0 };
	unsigned char *own = fail ? NULL : bc_xcalloc(s->n + 1, 1);
	if (!c)
		c = &mine;
	if (!fail)
		fail = own;
	char why[2048];
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = s->n; i-- > 0;) {
			if (pass && !fail[i])
				continue;
			int rc = restore_one(s, &s->e[i], dead, why, sizeof(why));
			fail[i] = rc < 0;
			c->restored += rc == 0;
			c->already += rc == 2;
			c->changed += rc == 1;
			c->failed += rc < 0 && pass;
			if (say && ((rc == 1 && !pass) || (rc < 0 && pass)))
				fprintf(say, "benchcore: warning: %s %s: %s%s\n", s->e[i].f[0], label(s->e[i].f), why,
					rc < 0 ? " (kept in the journal: benchcore restore tries again)" : "");
		}
	free(own);
}

/* After a restore: the journal keeps only what could not be undone (a
   later restore tries again), or goes. 0, or -1 with e. */
static int keep_failed(bc_mstate *s, const unsigned char *fail, bc_err *e)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (fail[i])
			s->e[k++] = s->e[i];
		else
			bc_strv_free(s->e[i].f);
	}
	s->n = k;
	if (k)
		return save(s, e);
	unlinkat(s->dfd, "journal", 0);
	return 0;
}

static int make_dir(bc_mstate *s, bc_err *e)
{
	s->dfd = bc_mtrust_dir(s->dir, 1, e);
	return s->dfd < 0 ? -1 : 0;
}

int bc_mstate_holder(char *buf, size_t n)
{
	bc_mstate s = { 0 };
	bc_err e;
	paths(&s);
	buf[0] = '\0';
	s.dfd = bc_mtrust_dir(s.dir, 0, &e);	/* another user's directory holds nothing of ours */
	int fd = s.dfd < 0 ? -1 : openat(s.dfd, "machine.lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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
	unpaths(&s);
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
	s->lock_fd = openat(s->dfd, "machine.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
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
	if (make_dir(s, e) || take_lock(s, e) || load(s, e)) {
		unpaths(s);
		return -1;
	}
	/* a dead run's journal first: its originals are the machine's */
	if (s->n) {
		bc_warn("a benchcore run that ended without restoring changed this machine's settings: restoring them "
			"from %s", s->journal);
		kill_groups(s);
		bc_mcounts c = { 0 };
		unsigned char *fail = bc_xcalloc(s->n + 1, 1);
		restore_all(s, 1, stderr, &c, fail);
		int kept = keep_failed(s, fail, e);
		free(fail);
		if (kept || c.failed) {
			if (!kept) {
				bc_err_set(e, "%d setting%s a dead run changed could not be put back (named above)", c.failed,
					   c.failed == 1 ? "" : "s");
				bc_err_detail(e, "A run on top of them would measure a machine nobody chose; they stay in "
					      "the journal %s.", s->journal);
				bc_err_hint(e, "undo what the warnings name, then benchcore restore");
			}
			clear(s);
			unpaths(s);
			return -1;
		}
	}
	clear(s);
	unlinkat(s->dfd, "journal", 0);
	say_holder(s->lock_fd);
	s->began = 1;
	return 0;
}

int bc_mstate_record(bc_mstate *s, char *const *fields, bc_err *e)
{
	char **f = bc_xcalloc(bc_strv_len(fields) + 1, sizeof(*f));
	for (size_t i = 0; fields[i]; i++)
		f[i] = bc_xstrdup(fields[i]);
	/* the same thing recorded again (a file system once its loop device is
	   known: the same label) replaces its record: one entry per thing made */
	char a[PATH_MAX], b[PATH_MAX];
	for (size_t t = 0; bc_mrtypes[t]; t++) {
		if (strcmp(bc_mrtypes[t]->tag, f[0]) || !bc_mrtypes[t]->label || !*bc_mrtypes[t]->label(f, a, sizeof(a)))
			continue;
		for (size_t i = 0; i < s->n; i++)
			if (!strcmp(s->e[i].f[0], f[0]) && !strcmp(bc_mrtypes[t]->label(s->e[i].f, b, sizeof(b)), a)) {
				bc_strv_free(s->e[i].f);
				s->e[i].f = f;
				return save(s, e);
			}
	}
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
	if (set_to(s, en, w->value, why, sizeof(why))) {
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
		if (restore_one(s, &s->e[i], 0, why, sizeof(why)) < 0) {
			bc_err_set(e, "%s: %s", s->e[i].f[1], why);
			return -1;
		}
		f = s->e[i].f;	/* moved when its command's group was journalled */
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
	if (!s->began)
		return 0;
	s->began = 0;
	bc_mcounts c = { 0 };
	unsigned char *fail = bc_xcalloc(s->n + 1, 1);
	restore_all(s, 0, stderr, &c, fail);
	bc_err e;
	if (keep_failed(s, fail, &e))
		bc_err_print(&e);
	free(fail);
	clear(s);
	if (c.failed)
		bc_warn("%d machine setting%s could not be restored: the journal %s keeps %s for benchcore restore",
			c.failed, c.failed == 1 ? "" : "s", s->journal, c.failed == 1 ? "it" : "them");
	if (s->lock_fd >= 0 && !c.failed && ftruncate(s->lock_fd, 0))
		c.failed += 0;
	unpaths(s);
	return c.failed;
}

int bc_mstate_recover(FILE *f, bc_mcounts *c)
{
	bc_mstate s = { 0 };
	bc_err e;
	int rc = 0;
	memset(c, 0, sizeof(*c));
	paths(&s);
	s.dfd = bc_mtrust_dir(s.dir, 0, &e);
	if (s.dfd < 0 && errno == ENOENT) {
		unpaths(&s);
		return 0;
	}
	if (s.dfd < 0 || faccessat(s.dfd, "journal", F_OK, AT_SYMLINK_NOFOLLOW)) {
		/* no journal: nothing to do; a directory refused: said unless it surely holds none */
		int has = s.dfd < 0 ? faccessat(AT_FDCWD, s.journal, F_OK, AT_SYMLINK_NOFOLLOW) == 0 : 0;
		int none = s.dfd >= 0 || (!has && errno == ENOENT);
		if (has) {
			char d[sizeof(e.detail)];
			snprintf(d, sizeof(d), "%s", e.detail);
			bc_err_detail(&e, "%s%sIt holds a journal (%s): not read.", d, d[0] ? " " : "", s.journal);
		}
		if (!none && f)
			bc_err_print(&e);
		c->refused = !none;
		unpaths(&s);
		return none ? 0 : -1;
	}
	if (take_lock(&s, &e) || load(&s, &e)) {
		if (f)
			bc_err_print(&e);
		c->refused = 1;
		rc = -1;
	} else if (s.n) {
		kill_groups(&s);
		unsigned char *fail = bc_xcalloc(s.n + 1, 1);
		restore_all(&s, 1, f, c, fail);
		if (keep_failed(&s, fail, &e) && f)
			bc_err_print(&e);
		free(fail);
		rc = c->changed + c->failed;
	} else {
		unlinkat(s.dfd, "journal", 0);	/* a journal with no record: nothing was changed */
	}
	clear(&s);
	unpaths(&s);
	return rc;
}
