/* Test module: its entry function returns NULL (refused at load). */
#include <stddef.h>
#include "benchcore/module.h"
__attribute__((visibility("default"))) const bench_module_v1 *bench_module_v1_entry(void);
__attribute__((visibility("default"))) const bench_module_v1 *bench_module_v1_entry(void) { return NULL; }
