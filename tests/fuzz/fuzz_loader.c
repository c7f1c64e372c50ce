/* libFuzzer target for the loader's checks of what it cannot trust: the
   description a probe child sends over its pipe (bc_probe_parse, then every
   metadata check of bc_module_check on the result), and the ELF dynamic
   section a RUNPATH/RPATH and the DT_NEEDED names are read from (bc_elf_runpath,
   bc_elf_dynamic). The first byte
   chooses: even, the rest is a description; odd, the rest is an ELF file.
   Any bytes must be accepted or refused with a message, never crash, leak
   or hit undefined behaviour. Built and run by tests/fuzz/run_fuzz.sh loader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "loader.h"
#include "probe.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		const char *kind;
		char **v = bc_elf_runpath(data + 1, size - 1, &kind);
		for (char **p = v; p && *p; p++)
			if (strlen(*p) > size)	/* an entry comes from the input */
				abort();
		bc_strv_free(v);
		bc_elf_dyn d;	/* the DT_NEEDED reader of deps.c, on the same bytes */
		if (bc_elf_dynamic(data + 1, size - 1, &d) == 0)
			for (char **p = d.needed; p && *p; p++)
				if (strlen(*p) > size)
					abort();
		bc_elf_dyn_free(&d);
		return 0;
	}
	bc_module m;
	bc_err e;
	if (bc_probe_parse((const char *)data + 1, size - 1, "fuzz.so", &m, &e) == 0) {
		if (bc_module_check_header("fuzz.so", &m.desc, &e) == 0)
			bc_module_check("fuzz.so", &m, &e);
		bc_module_free(&m);
	}
	return 0;
}
