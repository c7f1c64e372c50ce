/* machine.mkfs_options and machine.mount_options as the plan checks them
   (fsdev_int.h): they may add options, never operands. mkfs.btrfs takes
   every path after its options as one more device to format, mke2fs a
   second operand as the size, and mount a source or a target: a word the
   tool would read as an operand is refused before anything is made, and
   run_mkfs ends the options with "--" before the device (mke2fs 1.47,
   mkfs.xfs 6.1 and mkfs.btrfs 6.2 all take it).

   Which words are options' values is the tool's getopt string, copied per
   type: a value follows an option that takes one (-L label, -O
   ^has_journal, -m 0, -E lazy_itable_init=0), or is attached to it (-m0,
   --label=x). An option this table does not know is taken for one without
   a value, so a word after it is refused: a false refusal, never a device
   slipped through. No word may name a path either: a '/' anywhere (-J
   device=/dev/x, -l logdev=/dev/x, -r rtdev=... put an external journal,
   log or realtime section on another device) or an existing file or
   directory by a relative name (each comma-separated piece, and what
   follows its '=', looked up from the current directory). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "fsdev_int.h"

/* Short options taking a value (the tool's getopt string without the
   colons), and long ones (getopt_long's required_argument). */
static const struct opt_table {
	const char *type, *short_val;
	const char *const *long_val;
} opt_tables[] = {
	{ "ext4",	"bdegilmorstCEGIJLMNORTUz",	NULL },
	{ "xfs",	"bcdilLmnprs",			NULL },
	{ "btrfs",	"AbldmnrsLROU",	(const char *const[]){ "alloc-start", "byte-count", "csum",
		"checksum", "data", "leafsize", "label", "metadata", "nodesize", "rootdir",
		"sectorsize", "features", "runtime-features", "uuid", NULL } },
};

static const struct opt_table *table_of(const char *type)
{
	for (size_t i = 0; i < sizeof opt_tables / sizeof opt_tables[0]; i++)
		if (!strcmp(opt_tables[i].type, type))
			return &opt_tables[i];
	return NULL;
}

static int refused(bc_err *e, const char *setting, const char *word, const char *why)
{
	bc_err_set(e, "machine.%s: \"%s\" is refused: %s", setting, word, why);
	bc_err_detail(e, "%s may add options, never another device, file or operand; nothing was "
		      "changed", setting);
	return -1;
}

/* A piece of a value (between commas, and after its '=') that names a
   path here. */
static int names_path(const char *piece, size_t len)
{
	char p[BC_FS_OPTS];
	struct stat st;
	if (!len || len >= sizeof p)
		return 0;
	memcpy(p, piece, len);
	p[len] = 0;
	return lstat(p, &st) == 0;
}

static int value_ok(const char *setting, const char *word, const char *v, bc_err *e)
{
	if (strchr(v, '/'))
		return refused(e, setting, word, "it names a path");
	for (const char *s = v; *s;) {
		size_t len = strcspn(s, ",");
		const char *eq = memchr(s, '=', len);
		if (names_path(s, len) || (eq && names_path(eq + 1, len - (size_t)(eq + 1 - s))))
			return refused(e, setting, word, "it names an existing file or directory");
		s += len + (s[len] == ',');
	}
	return 0;
}

static int long_takes(const struct opt_table *t, const char *name, size_t len)
{
	for (const char *const *l = t->long_val; l && *l; l++)
		if (strlen(*l) == len && !strncmp(*l, name, len))
			return 1;
	return 0;
}

/* One option word: 1 when the next word is its value, 0 when not, -1 when
   refused. */
static int option_word(const struct opt_table *t, const char *w, bc_err *e)
{
	if (w[1] == '-') {
		const char *eq = strchr(w, '=');
		if (eq)
			return value_ok("mkfs_options", w, eq + 1, e);
		return long_takes(t, w + 2, strlen(w + 2));
	}
	for (const char *c = w + 1; *c; c++)
		if (strchr(t->short_val, *c))
			return c[1] ? value_ok("mkfs_options", w, c + 1, e) : 1;
	return 0;
}

int bc_fs_mkfs_opts_check(const char *type, const char *opts, bc_err *e)
{
	const struct opt_table *t = table_of(type);
	char **w = bc_split(opts, ' ');
	const char *pending = NULL;	/* the option whose value comes next */
	int rc = 0;
	for (size_t i = 0; t && w[i] && !rc; i++) {
		if (!w[i][0])
			continue;
		if (pending) {
			rc = value_ok("mkfs_options", w[i], w[i], e);
			pending = NULL;
		} else if (w[i][0] != '-' || !strcmp(w[i], "-") || !strcmp(w[i], "--")) {
			rc = refused(e, "mkfs_options", w[i], strchr(w[i], '/') ? "it names a path"
				     : "not an option (mkfs would take it as another device or a size)");
		} else if (strchr(w[i], '/')) {
			rc = refused(e, "mkfs_options", w[i], "it names a path");
		} else {
			int r = option_word(t, w[i], e);
			rc = r < 0 ? -1 : 0;
			pending = r == 1 ? w[i] : NULL;
		}
	}
	if (!rc && pending)
		rc = refused(e, "mkfs_options", pending, "its value is missing (the last word is an "
			     "option that takes one)");
	if (rc)
		bc_err_hint(e, "options as mkfs.%s documents them: -L label, -O feature, -m 0, "
			    "-E key=value", type);
	bc_strv_free(w);
	return rc;
}

/* mount(8)'s -o: a comma list of words, each a name or name=value of
   letters, digits and _ . : + ^ @ -, the name beginning with a letter, a
   digit or '_' (no blank, quote, '/' or empty item), and no value naming
   an existing path: no source, target or device such as btrfs's
   device=/dev/x or ext4's journal_path=. */
int bc_fs_mount_opts_check(const char *opts, bc_err *e)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:=+^@-";
	if (!opts[0] || !strcmp(opts, "defaults"))
		return 0;
	for (const char *s = opts;; s++) {
		size_t len = strcspn(s, ",");
		const char *eq = memchr(s, '=', len);
		const char *why = NULL;
		char item[BC_FS_OPTS];
		snprintf(item, sizeof item, "%.*s", (int)len, s);
		if (strchr(item, '/'))
			why = "it names a path";
		else if (!len || strspn(s, ok) < len || strchr("-.:=+^@", s[0]))
			why = "not a comma-separated list of option words (name or name=value)";
		else if (eq && names_path(eq + 1, len - (size_t)(eq + 1 - s)))
			why = "it names an existing file or directory";
		if (why) {
			refused(e, "mount_options", len ? item : opts, why);
			bc_err_hint(e, "mount -o's options, as noatime,commit=60 or compress=zstd:3");
			return -1;
		}
		s += len;
		if (!*s)
			return 0;
	}
}
