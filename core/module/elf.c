/* A module's RUNPATH/RPATH, read from its ELF file without loading it (the
   loader's trust check of the directories the dynamic linker would search).
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

char **bc_elf_runpath(const unsigned char *buf, size_t n, const char **kind)
{
	Elf64_Ehdr eh;
	*kind = "RUNPATH";
	if (n < sizeof(eh) || memcmp(buf, ELFMAG, SELFMAG) || buf[EI_CLASS] != ELFCLASS64)
		return NULL;
	memcpy(&eh, buf, sizeof(eh));
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > n ||
	    (n - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum)
		return NULL;
	uint64_t strtab = 0, strsz = 0, runpath = 0, rpath = 0;
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
		}
		break;
	}
	if (!have_run && !have_rp)
		return bc_xcalloc(1, sizeof(char *));
	int ok;
	size_t so = have_str ? vaddr_off(buf, n, &eh, strtab, &ok) : 0;
	uint64_t at = have_run ? runpath : rpath;	/* the linker ignores RPATH when RUNPATH is there */
	*kind = have_run ? "RUNPATH" : "RPATH";
	if (!have_str || !ok || at >= strsz || so > n || at >= n - so)
		return NULL;	/* a broken dynamic section: dlopen refuses it anyway */
	size_t lim = n - so - (size_t)at;
	if (strsz - at < lim)
		lim = (size_t)(strsz - at);
	const char *s = (const char *)buf + so + at;
	if (!memchr(s, '\0', lim))
		return NULL;
	return split_keep_empty(s);
}
