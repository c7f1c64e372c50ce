/* A module's dynamic section (DT_NEEDED, RUNPATH, RPATH), read from its ELF
   file without loading it: what the loader needs to find, as the dynamic
   linker would, every library the module brings in, and to trust-check
   them and the directories searched before any of their code runs.
   Every offset is checked against the buffer: the input is untrusted (a fuzz
   target, tests/fuzz/fuzz_loader.c). */
#include <elf.h>
#include <stdint.h>
#include <string.h>
#include "probe.h"
#include "util.h"

/* File offset of virtual address v through the PT_LOAD segments; 0 if none. */
static size_t vaddr_off(const unsigned char *buf, size_t n, const Elf64_Ehdr *eh, uint64_t v, int *ok)
{
	*ok = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, buf + eh->e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && v >= ph.p_vaddr && v - ph.p_vaddr < ph.p_filesz &&
		    ph.p_offset <= n && v - ph.p_vaddr < n - ph.p_offset) {
			*ok = 1;
			return (size_t)(ph.p_offset + (v - ph.p_vaddr));
		}
	}
	return 0;
}

static char **split_keep_empty(const char *s)
{
	size_t n = 1;
	for (const char *c = s; *c; c++)
		n += *c == ':';
	char **v = bc_xcalloc(n + 1, sizeof(char *));
	size_t k = 0;
	for (const char *c = s;; c++)
		if (*c == ':' || !*c) {
			v[k] = bc_xmalloc((size_t)(c - s) + 1);
			memcpy(v[k], s, (size_t)(c - s));
			v[k++][c - s] = '\0';
			s = c + 1;
			if (!*c)
				break;
		}
	return v;
}

/* The string at offset at of the dynamic string table, or NULL when it
   does not lie inside the table and the buffer. */
static const char *dyn_str(const unsigned char *buf, size_t n, size_t so, uint64_t strsz, uint64_t at)
{
	if (at >= strsz || so > n || at >= n - so)
		return NULL;
	size_t lim = n - so - (size_t)at;
	if (strsz - at < lim)
		lim = (size_t)(strsz - at);
	const char *s = (const char *)buf + so + at;
	return memchr(s, '\0', lim) ? s : NULL;
}

#define MAX_NEEDED 1024		/* DT_NEEDED entries read; more is a broken file */

int bc_elf_dynamic(const unsigned char *buf, size_t n, bc_elf_dyn *out)
{
	Elf64_Ehdr eh;
	memset(out, 0, sizeof(*out));
	if (n < sizeof(eh) || memcmp(buf, ELFMAG, SELFMAG) || buf[EI_CLASS] != ELFCLASS64)
		return -1;
	memcpy(&eh, buf, sizeof(eh));
	out->machine = eh.e_machine;
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > n ||
	    (n - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum)
		return -1;
	uint64_t strtab = 0, strsz = 0, runpath = 0, rpath = 0, needed[MAX_NEEDED];
	size_t nneeded = 0;
	int have_str = 0, have_run = 0, have_rp = 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, buf + eh.e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_DYNAMIC || ph.p_offset > n || ph.p_filesz > n - ph.p_offset)
			continue;
		for (size_t k = 0; k + 1 <= ph.p_filesz / sizeof(Elf64_Dyn); k++) {
			Elf64_Dyn dy;
			memcpy(&dy, buf + ph.p_offset + k * sizeof(dy), sizeof(dy));
			if (dy.d_tag == DT_NULL)
				break;
			if (dy.d_tag == DT_STRTAB) strtab = dy.d_un.d_ptr, have_str = 1;
			else if (dy.d_tag == DT_STRSZ) strsz = dy.d_un.d_val;
			else if (dy.d_tag == DT_RUNPATH) runpath = dy.d_un.d_val, have_run = 1;
			else if (dy.d_tag == DT_RPATH) rpath = dy.d_un.d_val, have_rp = 1;
			else if (dy.d_tag == DT_NEEDED && nneeded < MAX_NEEDED) needed[nneeded++] = dy.d_un.d_val;
		}
		break;
	}
	out->needed = bc_xcalloc(nneeded + 1, sizeof(char *));
	if (!have_run && !have_rp && !nneeded)
		return 0;
	int ok;
	size_t so = have_str ? vaddr_off(buf, n, &eh, strtab, &ok) : 0;
	if (!have_str || !ok)
		return -1;	/* a broken dynamic section: dlopen refuses it anyway */
	const char *s;
	if (have_run && (s = dyn_str(buf, n, so, strsz, runpath)))
		out->runpath = split_keep_empty(s);
	if (have_rp && (s = dyn_str(buf, n, so, strsz, rpath)))
		out->rpath = split_keep_empty(s);
	if ((have_run && !out->runpath) || (have_rp && !out->rpath))
		return -1;
	for (size_t i = 0, k = 0; i < nneeded; i++) {
		if (!(s = dyn_str(buf, n, so, strsz, needed[i])))
			return -1;
		out->needed[k++] = bc_xstrdup(s);
	}
	return 0;
}

void bc_elf_dyn_free(bc_elf_dyn *d)
{
	bc_strv_free(d->needed);
	bc_strv_free(d->runpath);
	bc_strv_free(d->rpath);
	memset(d, 0, sizeof(*d));
}

char **bc_elf_runpath(const unsigned char *buf, size_t n, const char **kind)
{
	bc_elf_dyn d;
	*kind = "RUNPATH";
	if (bc_elf_dynamic(buf, n, &d)) {
		bc_elf_dyn_free(&d);
		return NULL;
	}
	/* the linker ignores RPATH when RUNPATH is there */
	char **v = d.runpath ? d.runpath : d.rpath;
	*kind = d.runpath ? "RUNPATH" : "RPATH";
	if (d.runpath)
		d.runpath = NULL;
	else
		d.rpath = NULL;
	bc_elf_dyn_free(&d);
	return v ? v : bc_xcalloc(1, sizeof(char *));
}
