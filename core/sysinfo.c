/* Placeholder until the fingerprint lands. */
#include <stdio.h>
#include <sys/utsname.h>
#include "sysinfo.h"

json_t *bc_sysinfo_host(const char *io_path)
{
	struct utsname u;
	json_t *h = json_object();
	(void)io_path;
	if (uname(&u) == 0) {
		json_object_set_new(h, "hostname", json_string(u.nodename));
		json_object_set_new(h, "kernel", json_string(u.release));
	}
	return h;
}

double bc_sysinfo_cpu_mhz(void) { return 0; }

int bc_cmd_sysinfo(int argc, char **argv)
{
	json_t *h = bc_sysinfo_host(NULL);
	(void)argc; (void)argv;
	json_dumpf(h, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(h);
	return 0;
}
