/* `benchcore report`: placeholder until the HTML report lands. */
#include <stdio.h>
#include "compare.h"

int bc_cmd_report(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "benchcore report: not built yet\n");
	return 2;
}
