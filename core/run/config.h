/* site.conf (libconfig syntax): reading it into a bc_config (runset.h).
 *
 * Global keys and run settings are checked here; a module's own options are
 * checked against its options table in plan.c, once the module is loaded.
 * Main thread only. */
#ifndef BC_CONFIG_H
#define BC_CONFIG_H
#include "config_model.h"

int bc_config_load(bc_config *c, const char *file, bc_err *e);
#endif
