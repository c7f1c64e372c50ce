/* `benchcore compare` and `benchcore report`: read result files, match cases,
   decide verdicts, write text/JSON/CSV or a self-contained HTML page. */
#ifndef BC_COMPARE_H
#define BC_COMPARE_H
int bc_cmd_compare(int argc, char **argv);
int bc_cmd_report(int argc, char **argv);
#endif
