/* What differs between the two machines of a comparison: the fingerprints
   (host objects) flattened to dotted names, the modules' facts from the
   cases' info, the differences between two of them (leaving out what moves
   by itself on one machine), and the one line naming the difference most
   likely to explain a result. compare.c calls bc_facts_diff for its
   host_diff; report.c reads bc_facts for its machine table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostdiff.h"
#include "options.h"
#include "util.h"

/* Fields that differ between any two runs on one machine, or that only
   restate others: never a reason to doubt a comparison. */
int bc_host_field_ignored(const char *f)
{
	static const char *const skip[] = {
		"hostname", "cpu_mhz.current", "cpu_mhz.measured", "cpu_mhz.measured_min",
		"cpu_mhz.measured_max", "warnings", "io.path", NULL
	};
	for (int i = 0; skip[i]; i++)
		if (strcmp(f, skip[i]) == 0)
			return 1;
	return 0;
}

static void flatten(json_t *dst, const char *prefix, json_t *v, int depth)
{
	const char *k;
	json_t *x;

	if (json_is_object(v) && depth < 4) {
		json_object_foreach(v, k, x) {
			char name[256];
			snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", k);
			flatten(dst, name, x, depth + 1);
		}
		return;
	}
	if (json_is_string(v)) {
		json_object_set(dst, prefix, v);
	} else {
		char *s = bc_json_text(v);
		json_object_set_new(dst, prefix, json_string(s));
		free(s);
	}
}

/* Figures that move by themselves on one machine: MemTotal (a VM's balloon,
   the kernel's own reservations) and the NUMA nodes' memory. Within
   BC_WOBBLE of each other they are the same fact; a real change of memory is
   a step far larger. */
#define BC_WOBBLE 0.05
static int near_bytes(double a, double b)
{
	return a > 0 && b > 0 && fabs(b / a - 1) < BC_WOBBLE;
}

static int same_numa(json_t *a, json_t *b)
{
	size_t i;
	json_t *na;
	if (!json_is_array(a) || !json_is_array(b) || json_array_size(a) != json_array_size(b))
		return 0;
	/* the layout (nodes and their CPUs) and the memory of all nodes together:
	   a VM's node memory moves by itself (6.3 GB -> 11.9 GB on one node between
	   two runs, memory hot-plugged or ballooned), a total within BC_WOBBLE is
	   the same machine's */
	double ta = 0, tb = 0;
	json_array_foreach(a, i, na) {
		json_t *nb = json_array_get(b, i);
		if (!json_equal(json_object_get(na, "node"), json_object_get(nb, "node")) ||
		    !json_equal(json_object_get(na, "cpus"), json_object_get(nb, "cpus")))
			return 0;
		ta += json_number_value(json_object_get(na, "memory_bytes"));
		tb += json_number_value(json_object_get(nb, "memory_bytes"));
	}
	return ta == tb || near_bytes(ta, tb);
}

static int wobbles(const char *k, json_t *va, json_t *vb)
{
	const char *a = json_string_value(va), *b = json_string_value(vb);
	if (!a || !b)
		return 0;
	if (!strcmp(k, "memory_bytes"))
		return near_bytes(strtod(a, NULL), strtod(b, NULL));
	if (!strcmp(k, "numa")) {
		json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
		int same = same_numa(ja, jb);
		json_decref(ja);
		json_decref(jb);
		return same;
	}
	return 0;
}

static void diff_one(json_t *out, const char *k, json_t *va, json_t *vb, const char *kind)
{
	if (bc_host_field_ignored(k))
		return;
	if (va && vb && (json_equal(va, vb) || (!strcmp(kind, "host") && wobbles(k, va, vb))))
		return;
	json_array_append_new(out, json_pack("{s:s, s:o, s:o, s:s}", "field", k,
		"a", va ? json_incref(va) : json_null(),
		"b", vb ? json_incref(vb) : json_null(), "kind", kind));
}

/* A module fact that is a figure of this run rather than a fact about the
   machine or the module: its value differs between the file's cases (a
   random seed, a check's measured p90), or it is a fractional number (a
   layout rate). Versions and settings stay. */
static int per_run(json_t *varies, const char *k, json_t *v)
{
	const char *s = json_string_value(v);
	char *end;
	if (varies && json_object_get(varies, k))
		return 1;
	if (!s || !*s)
		return 0;
	double d = strtod(s, &end);
	return !*end && isfinite(d) && d != floor(d);
}

json_t *bc_host_flatten(json_t *host)
{
	json_t *o = json_object();
	flatten(o, "", host, 0);
	return o;
}

json_t *bc_facts(const bc_results *r)
{
	json_t *o = bc_host_flatten(r->host);
	json_object_update_missing(o, r->info);
	return o;
}

/* Differences of two flattened fact objects into out, each marked kind;
   takes both references. */
static void diff_into(json_t *out, json_t *fa, json_t *fb, const char *kind)
{
	json_t *v;
	const char *k;

	json_object_foreach(fa, k, v)
		diff_one(out, k, v, json_object_get(fb, k), kind);
	json_object_foreach(fb, k, v)
		if (!json_object_get(fa, k))
			diff_one(out, k, NULL, v, kind);
	json_decref(fa);
	json_decref(fb);
}

/* A key the module itself called a figure of the run: its info key
   "per_run" lists them ("key_prefix", "load_rows,load_seconds": a random
   key prefix, the rows a load happened to insert), and "per_run" itself. */
static int declared_per_run(json_t *info, const char *k)
{
	const char *dot = strchr(k, '.');
	if (!dot)
		return 0;
	if (!strcmp(dot + 1, "per_run"))
		return 1;
	char key[256];
	snprintf(key, sizeof(key), "%.*s.per_run", (int)(dot - k), k);
	const char *list = json_string_value(json_object_get(info, key));
	size_t l = strlen(dot + 1);
	for (const char *p = list; p && *p; p += strcspn(p, ",")) {
		p += *p == ',';
		p += strspn(p, " ");
		if (!strncmp(p, dot + 1, l) && (p[l] == ',' || p[l] == ' ' || !p[l]))
			return 1;
	}
	return 0;
}

/* The module facts of one side (MODULE.KEY from cases' info) that are
   facts: not per-run figures of either side (declared by the module, or
   seen to vary), not host fields. New object. */
static json_t *module_facts(json_t *info, json_t *varies, json_t *oinfo, json_t *ovaries, json_t *host)
{
	json_t *o = json_object(), *v;
	const char *k;
	json_object_foreach(info, k, v)
		if (!json_object_get(host, k) && !per_run(varies, k, v) &&
		    !per_run(ovaries, k, json_object_get(oinfo, k)) && !declared_per_run(info, k) &&
		    !declared_per_run(oinfo, k))
			json_object_set(o, k, v);
	return o;
}

json_t *bc_facts_diff_parts(json_t *host_a, json_t *info_a, json_t *varies_a,
			    json_t *host_b, json_t *info_b, json_t *varies_b)
{
	json_t *out = json_array(), *ha = bc_host_flatten(host_a), *hb = bc_host_flatten(host_b);
	json_t *ma = module_facts(info_a, varies_a, info_b, varies_b, ha);
	json_t *mb = module_facts(info_b, varies_b, info_a, varies_a, hb);
	diff_into(out, ha, hb, "host");
	diff_into(out, ma, mb, "module");
	return out;
}

/* host without the facts a merged file's cases hold each for their own
   run and not alike (either side's host_varies): no claim either way */
static json_t *host_claimed(json_t *host, json_t *va, json_t *vb)
{
	json_t *h = json_deep_copy(host), *v;
	const char *k;
	json_object_foreach(va, k, v)
		json_object_del(h, k);
	json_object_foreach(vb, k, v)
		json_object_del(h, k);
	return h;
}

json_t *bc_facts_diff(const bc_results *a, const bc_results *b)
{
	json_t *ha = host_claimed(a->host, a->host_varies, b->host_varies);
	json_t *hb = host_claimed(b->host, a->host_varies, b->host_varies);
	json_t *out = bc_facts_diff_parts(ha, a->info, a->info_varies, hb, b->info, b->info_varies);
	json_decref(ha);
	json_decref(hb);
	return out;
}

json_t *bc_host_diff(json_t *ha, json_t *hb)
{
	json_t *out = json_array();
	diff_into(out, bc_host_flatten(ha), bc_host_flatten(hb), "host");
	return out;
}

/* What most often explains a difference between two machines, most
   fundamental first: each entry names the facts (a dotted prefix matches
   every field below it; "*_version" a module fact's key by its end) and
   what to call them. */
#define CAUSE_FIELDS 14
static const struct { const char *what; const char *const fields[CAUSE_FIELDS]; } causes[] = {
	{ "architecture", { "arch" } },	/* a mixed fleet: x86-64 against arm64 */
	{ "CPU", { "cpu_model", "cpu_id.vendor", "cpu_id.family", "cpu_id.model", "cpu_id.stepping" } },
	{ "usable CPUs", { "usable_cpus.count", "threads", "cores", "sockets" } },
	{ "clock", { "governor", "cpu_mhz.max", "cpu_mhz.min", "boost", "scaling_driver" } },
	{ "kernel", { "kernel" } },
	{ "mitigations", { "mitigations." } },
	{ "microcode", { "cpu_id.microcode" } },
	{ "file system", { "io.fs_type", "io.mount_options", "io.disk.", "io.scheduler", "io.device" } },
	/* a module fact (the io module's info): a block on 4 KiB pages is a DMA
	   segment per page, on a huge page one; it moved dd-style I/O up to 2x */
	{ "I/O buffer", { "io.buffer_pages" } },
	/* the operating system's release and what it brought: the C library,
	   the compiler that built benchcore, the libraries loaded (by version
   call and by file), the modules'
	   library and server versions (redis.server_version, oltp.client_library) */
	{ "userland", { "os", "os_name", "os_version", "os_codename", "libc", "compiler", "libraries.", "loaded.",
			"*_version", "*.server_name", "*.libraries_loaded", "*.client_library" } },
	{ "kernel command line", { "kernel_cmdline" } },
	{ "memory", { "memory_bytes", "memory_limit_bytes", "numa", "thp" } },
	{ "virtualization", { "virtualization", "container" } },
};
#define NCAUSES (sizeof(causes) / sizeof(causes[0]))
#define HARDWARE_CAUSES 3	/* architecture, CPU, usable CPUs: the same hardware when none differs */

static int field_of(const char *field, const char *pat)
{
	size_t l = strlen(pat), fl = strlen(field);
	if (pat[0] == '*')	/* a module's fact (MODULE.KEY) by the end of its key; not its own version */
		return strchr(field, '.') && fl >= l - 1 && !strcmp(field + fl - (l - 1), pat + 1) &&
		       !(fl >= 15 && !strcmp(field + fl - 15, ".module_version"));
	return pat[l - 1] == '.' ? !strncmp(field, pat, l) : !strcmp(field, pat);
}

static int cause_has(size_t i, const char *field)
{
	for (int j = 0; j < CAUSE_FIELDS && causes[i].fields[j]; j++)
		if (field_of(field, causes[i].fields[j]))
			return 1;
	return 0;
}

const char *bc_fact_cause(const char *field, size_t *rank)
{
	for (size_t i = 0; i < NCAUSES; i++)
		if (cause_has(i, field)) {
			if (rank)
				*rank = i;
			return causes[i].what;
		}
	return NULL;
}

int bc_clock_moved(json_t *host_a, json_t *host_b, double *ma, double *mb)
{
	json_t *a = json_object_get(host_a, "cpu_mhz"), *b = json_object_get(host_b, "cpu_mhz");
	*ma = json_number_value(json_object_get(a, "measured"));
	*mb = json_number_value(json_object_get(b, "measured"));
	if (!(*ma > 0 && *mb > 0 && fabs(*mb / *ma - 1) > 0.03))
		return 0;
	double alo = json_number_value(json_object_get(a, "measured_min"));
	double ahi = json_number_value(json_object_get(a, "measured_max"));
	double blo = json_number_value(json_object_get(b, "measured_min"));
	double bhi = json_number_value(json_object_get(b, "measured_max"));
	if (alo > 0 && alo <= *ma && *ma <= ahi && blo > 0 && blo <= *mb && *mb <= bhi)
		return *mb > *ma ? blo > ahi : bhi < alo;
	return 1;
}

/* Cause i's differing facts in diff: how many, and the first. */
static size_t cause_hits(size_t i, json_t *diff, json_t **first)
{
	size_t k, hits = 0;
	json_t *d;
	*first = NULL;
	json_array_foreach(diff, k, d)
		if (cause_has(i, json_string_value(json_object_get(d, "field")))) {
			hits++;
			*first = *first ? *first : d;
		}
	return hits;
}

static void print_fact(FILE *f, json_t *d, const char *sep)
{
	char *fs = bc_printable(json_string_value(json_object_get(d, "field")));
	json_t *a = json_object_get(d, "a"), *b = json_object_get(d, "b");
	char *as = bc_printable(json_is_string(a) ? json_string_value(a) : "(absent)");
	char *bs = bc_printable(json_is_string(b) ? json_string_value(b) : "(absent)");
	fprintf(f, "%s%s: %.40s -> %.40s", sep, fs, as, bs);
	free(fs), free(as), free(bs);
}

/* The userland's differences by name, one of each kind, at most four: the
   release (os, or its version when the pretty name is the same), libc, a
   server's name and version (redis -> valkey), the first library, the
   compiler; the count of the rest. */
static void print_userland(FILE *f, json_t *diff, size_t hits)
{
	static const char *const order[] = { "os", "os_version", "libc", "*.server_name", "*.server_version",
					      "libraries.", "compiler", "loaded.", "*_version", "*.client_library",
					      "*.libraries_loaded" };
	int said = 0, os = 0;
	json_t *shown[4];
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]) && said < 4; o++) {
		size_t k;
		json_t *d;
		json_array_foreach(diff, k, d) {
			const char *fld = json_string_value(json_object_get(d, "field"));
			int dup = 0;
			for (int i = 0; i < said; i++)
				dup |= shown[i] == d;
			if (dup || !field_of(fld, order[o]) || (o == 1 && os))
				continue;
			os |= o == 0;
			print_fact(f, d, said ? "; " : " (");
			shown[said++] = d;
			break;	/* one of each kind */
		}
	}
	if (hits > (size_t)said)
		fprintf(f, ", and %zu more", hits - (size_t)said);
	fputc(')', f);
}

void bc_facts_explain(FILE *f, json_t *diff, json_t *host_a, json_t *host_b, const char *first_cause)
{
	int said = 0;
	if (first_cause && *first_cause) {	/* measured in the cases: before anything the hosts differ in */
		fprintf(f, "what differs, most likely to explain a difference: %s", first_cause);
		said++;
	}
	double ma, mb;
	json_t *first;
	/* two releases of an operating system on the same hardware (the same
	   architecture, CPU and usable CPUs): what the study compares is the
	   userland, named first, before the kernel that came with it */
	size_t userland = 0, order[NCAUSES], n = 0;
	while (strcmp(causes[userland].what, "userland"))
		userland++;
	int same_hw = 1;
	for (size_t i = 0; i < HARDWARE_CAUSES; i++)
		same_hw &= cause_hits(i, diff, &first) == 0;
	int ul_first = same_hw && cause_hits(userland, diff, &first);
	if (ul_first)
		order[n++] = userland;
	for (size_t i = 0; i < NCAUSES; i++)
		if (i != userland || !ul_first)
			order[n++] = i;
	/* two of the hosts' facts, after what was measured in the cases (a
	   loaded pair's interference must not crowd out what the runs differ in) */
	int facts = 0;
	for (size_t o = 0; o < n && facts < 2; o++) {
		size_t i = order[o], hits = cause_hits(i, diff, &first);
		int clk = !strcmp(causes[i].what, "clock") && bc_clock_moved(host_a, host_b, &ma, &mb);
		if (!hits && !clk)
			continue;
		fprintf(f, "%s%s", said ? "; " : "what differs, most likely to explain a difference: ", causes[i].what);
		if (clk) {
			fprintf(f, " (%.0f -> %.0f MHz measured)", ma, mb);
		} else if (i == userland) {
			print_userland(f, diff, hits);
		} else {
			print_fact(f, first, " (");
			fprintf(f, "%s)", hits > 1 ? ", and more" : "");
		}
		said++;
		facts++;
	}
	if (said)
		fputc('\n', f);
}
