/* `benchcore sysinfo`: the machine fingerprint (core/machine/sysinfo.c) as
   text or JSON. The front end lives here, on the command line's floor; the
   machine group only gathers facts. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "flags.h"
#include "sysinfo.h"
#include "util.h"

/* "L1d 32K (sysfs), ..., L3 unknown (sysconf said 508M: implausible)" */
static void print_caches(json_t *o)
{
	const char *k;
	json_t *e;
	char sz[32];
	int first = 1;

	json_object_foreach(o, k, e) {
		json_t *b = json_object_get(e, "bytes"), *r = json_object_get(e, "rejected_bytes");
		printf("%s%s ", first ? "" : ", ", k);
		first = 0;
		if (b) {
			bc_format_size((uint64_t)json_integer_value(b), sz, sizeof(sz));
			printf("%s (%s)", sz, json_string_value(json_object_get(e, "source")));
		} else {
			fputs("unknown", stdout);
		}
		if (r) {
			bc_format_size((uint64_t)json_integer_value(r), sz, sizeof(sz));
			printf(" [%s said %s: implausible]", json_string_value(json_object_get(e,
			       "rejected_source")), sz);
		}
	}
	putchar('\n');
}

/* "12 not affected, 5 mitigated, 1 vulnerable (mds)": the sentences are in --json. */
static void print_mitigations(json_t *o)
{
	const char *k;
	json_t *e;
	int na = 0, mit = 0, vul = 0;
	char names[512] = "";
	json_object_foreach(o, k, e) {
		const char *s = json_string_value(e);
		if (!s)
			continue;
		if (!strncmp(s, "Not affected", 12)) {
			na++;
		} else if (!strncmp(s, "Vulnerable", 10)) {
			size_t l = strlen(names);
			snprintf(names + l, sizeof(names) - l, "%s%s", l ? ", " : "", k);
			vul++;
		} else {
			mit++;
		}
	}
	printf("%d not affected, %d mitigated, %d vulnerable%s%s%s\n", na, mit, vul, vul ? " (" : "",
	       names, vul ? ")" : "");
}

static void print_text(json_t *h)
{
	static const struct { const char *key, *title; } rows[] = {
		{ "hostname", "host" }, { "cpu_model", "cpu" }, { "cpu_id", "cpu id" },
		{ "arch", "architecture" },
		{ "sockets", "sockets" }, { "cores", "cores" }, { "threads", "threads" },
		{ "smt", "smt" }, { "usable_cpus", "usable cpus" }, { "numa", "numa" },
		{ "cpu_mhz", "cpu MHz" }, { "scaling_driver", "scaling driver" },
		{ "governor", "governor" }, { "boost", "turbo/boost" }, { "caches", "caches" },
		{ "virtualization", "virtualization" }, { "container", "container" },
		{ "memory_bytes", "memory" }, { "memory_limit_bytes", "memory limit" },
		{ "kernel", "kernel" }, { "mitigations", "mitigations" }, { "kernel_cmdline", "cmdline" },
		{ "os", "os" }, { "libc", "libc" }, { "thp", "transparent hugepages" },
		{ "compiler", "compiler" }, { "cflags", "cflags" }, { "libraries", "libraries" },
		{ "loaded", "loaded" }, { "io", "io target" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		json_t *v = json_object_get(h, rows[i].key), *x;
		const char *k;
		if (!v)
			continue;
		printf("%-22s ", rows[i].title);
		if (strcmp(rows[i].key, "caches") == 0) {
			print_caches(v);
		} else if (json_is_string(v)) {
			printf("%s\n", json_string_value(v));
		} else if (strcmp(rows[i].key, "mitigations") == 0) {
			print_mitigations(v);
		} else if (strcmp(rows[i].key, "loaded") == 0) {
			printf("%zu shared objects, each by its file (--json lists them)\n", json_object_size(v));
		} else if (json_is_integer(v) && strstr(rows[i].key, "memory")) {
			printf("%.1f GiB\n", json_integer_value(v) / 1073741824.0);
		} else if (json_is_object(v)) {
			int first = 1;
			json_object_foreach(v, k, x) {
				printf("%s%s=", first ? "" : ", ", k);
				first = 0;
				if (json_is_string(x))
					fputs(json_string_value(x), stdout);
				else if (json_is_real(x))
					printf("%.0f", json_real_value(x));
				else
					json_dumpf(x, stdout, JSON_ENCODE_ANY);
			}
			putchar('\n');
		} else {
			json_dumpf(v, stdout, JSON_ENCODE_ANY);
			putchar('\n');
		}
	}
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(h, "warnings"), i, w)
		printf("warning: %s\n", json_string_value(w));
}

static const char sysinfo_help[] =
"usage: benchcore sysinfo [--json] [--io-path PATH]\n"
"\n"
"Prints the machine fingerprint that every result file records as \"host\":\n"
"CPU model, identity (family/model/stepping, microcode, result-changing\n"
"flags) and topology, usable CPUs (affinity, cgroup quota), NUMA nodes,\n"
"memory and its cgroup limit, the kernel's CPU mitigations, frequencies, governor, turbo/boost, cache sizes\n"
"(and where each came from), virtualization,\n"
"memory, kernel and command line, OS release (name, version, codename), libc,\n"
"transparent hugepages, compiler and flags of this benchcore, the core's library\n"
"versions by their own calls (jansson, libconfig, OpenSSL, SQLite, libpq, zlib) and\n"
"every shared object loaded with its file (modules record their own libraries,\n"
"loaded ones and servers in each case's info), and the\n"
"file system, mount options (the superblock's too), I/O scheduler and disk\n"
"(model, size, rotational, queue depth) of PATH. Ends with warnings about settings that make results\n"
"vary (governor not 'performance', turbo/boost) or facts it cannot know\n"
"(a last-level cache size hidden or implausible).\n"
"\n"
"Options:\n";

enum { F_JSON = 1, F_IO_PATH, F_HELP };
static const bc_flag sysinfo_flags[] = {
	{ "json", 0, NULL, F_JSON, "the JSON object (schema: docs/results.md, \"host\")" },
	{ "io-path", 0, "PATH", F_IO_PATH, "describe the file system holding PATH (default: .)" },
	{ "help", 'h', NULL, F_HELP, "this text" },
	{ NULL }
};

typedef struct sysinfo_args {
	const char *io;
	int json, help;
} sysinfo_args;

static int on_sysinfo_flag(void *arg, const bc_flag *f, const char *val, bc_err *e)
{
	sysinfo_args *a = arg;
	(void)e;
	if (f->code == F_JSON)
		a->json = 1;
	else if (f->code == F_IO_PATH)
		a->io = val;
	else
		a->help = 1;
	return 0;
}

int bc_cmd_sysinfo(int argc, char **argv)
{
	sysinfo_args a = { .io = "." };
	char **rest;
	json_t *h;

	if (bc_flags_parse("sysinfo", sysinfo_flags, 0, argc - 1, argv + 1, on_sysinfo_flag, &a, &rest))
		return 2;
	if (rest[0] && !a.help) {
		fprintf(stderr, "benchcore sysinfo: unexpected argument \"%s\"\n"
			"Try 'benchcore sysinfo --help'.\n", rest[0]);
		free(rest);
		return 2;
	}
	free(rest);
	if (a.help) {
		fputs(sysinfo_help, stdout);
		bc_flags_help(stdout, sysinfo_flags, 0);
		return 0;
	}
	const char *io = a.io;
	int json = a.json;
	if (access(io, F_OK) < 0) {
		fprintf(stderr, "benchcore sysinfo: --io-path %s: does not exist\n", io);
		return 2;
	}
	h = bc_sysinfo_host(io);
	if (json) {
		json_dumpf(h, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		putchar('\n');
	} else {
		print_text(h);
	}
	json_decref(h);
	return bc_stdout_done("sysinfo") ? 2 : 0;
}
