/* libFuzzer target for the config loader: any bytes as site.conf must either
   load or be refused with a message, never crash, leak or hit undefined
   behaviour; what loads is then checked against a module's options table
   (plan.c), the second half of validation. Built and run by
   tests/fuzz/run_fuzz.sh config. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "plan.h"

static const char *const fz_modes[] = { "read", "write", NULL };
static const bench_option_v1 fz_options[] = {
	{ .name = "block_size", .type = BENCH_OPT_SIZE, .def = "4K", .min = 1, .max = 1 << 30 },
	{ .name = "oper", .type = BENCH_OPT_ENUM, .def = "read", .choices = fz_modes },
	{ .name = "ratio", .type = BENCH_OPT_DOUBLE, .def = "0.5", .min = 0, .max = 1 },
	{ .name = "count", .type = BENCH_OPT_INT, .def = "10" },
	{ .name = "fast", .type = BENCH_OPT_BOOL, .def = "false" },
	{ .name = "password", .type = BENCH_OPT_STRING, .flags = BENCH_OPT_SECRET },
	{ 0 }
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	bc_config c;
	bc_err e;
	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/bc-fuzz-config.%d", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	bc_config_defaults(&c);
	if (bc_config_load(&c, path, &e) == 0) {
		bc_module m = { .desc = { .name = "fz", .options = fz_options } };
		for (size_t i = 0; i < c.nmods; i++) {
			bc_modplan p;
			if (bc_plan_module(&c.mods[i], &m, &p, &e) == 0) {
				bc_val pt[8];
				bc_plan_point(&p, p.npoints - 1, pt);
				free(bc_plan_point_label(&p, pt));
				bc_plan_free(&p);
			}
		}
	}
	bc_config_free(&c);
	return 0;
}
