/* Placeholder until compare/report land. */
#include <stdio.h>
#include "compare.h"

int bc_cmd_compare(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "benchcore: compare: not built yet\n"); return 2; }
int bc_cmd_report(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "benchcore: report: not built yet\n"); return 2; }
