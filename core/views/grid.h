/* A table as compare's views build it (tables.c): a header row, rows of
   cells and the notes under it, printed in one of BC_TAB_* forms (grid.c). */
#ifndef BC_GRID_H
#define BC_GRID_H
#include <stdio.h>
#include <stddef.h>

/* The tables' forms: BC_TAB_JSON is {"columns": [...], "rows": [[...]],
   "notes": [...]} with every cell as the text shows it; BC_TAB_HTML a
   <table> and its notes as paragraphs, escaped (the report's). */
enum { BC_TAB_TEXT, BC_TAB_MARKDOWN, BC_TAB_CSV, BC_TAB_JSON, BC_TAB_HTML };

typedef struct tab {
	size_t ncols, nrows, cap;
	char **cells;		/* row-major; row 0 is the header */
	char **notes;		/* lines under the table (text, JSON, HTML) */
	size_t nnotes;
} tab;

/* A line under the table (t owns it). */
void bc_tab_note(tab *t, char *line);
/* A row of t->ncols cells (t owns them). */
void bc_tab_row(tab *t, char **row);
/* The table in form fmt (BC_TAB_*); text ends with the notes after a
   blank line, markdown and CSV are the table alone. Frees t. */
void bc_tab_print(FILE *f, tab *t, int fmt);
void bc_tab_free(tab *t);
#endif
