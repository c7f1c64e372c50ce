/* A table as compare's views build it, and its five forms: text, markdown,
   CSV, JSON and the report's HTML (grid.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "svg.h"
#include "grid.h"
#include "util.h"


void bc_tab_note(tab *t, char *line)
{
	t->notes = bc_xrealloc(t->notes, t->nnotes + 1, sizeof(char *));
	t->notes[t->nnotes++] = line;
}

void bc_tab_row(tab *t, char **row)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = bc_xrealloc(t->cells, t->cap * t->ncols, sizeof(char *));
	}
	memcpy(t->cells + t->nrows * t->ncols, row, t->ncols * sizeof(char *));
	t->nrows++;
}

/* Display width of UTF-8 text: code points, not bytes. */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* {"columns": header, "rows": [[cell...]], "notes": [line...]}. */
static void tab_json(FILE *f, const tab *t)
{
	json_t *rows = json_array(), *cols = json_array(), *notes = json_array();
	for (size_t r = 0; r < t->nrows; r++) {
		json_t *row = r ? json_array() : cols;
		for (size_t c = 0; c < t->ncols; c++) {
			json_t *v = json_string(t->cells[r * t->ncols + c]);	/* NULL when not UTF-8 */
			json_array_append_new(row, v ? v : json_string("?"));
		}
		if (r)
			json_array_append_new(rows, row);
	}
	for (size_t i = 0; i < t->nnotes; i++) {
		json_t *v = json_string(t->notes[i]);
		json_array_append_new(notes, v ? v : json_string("?"));
	}
	json_t *doc = json_pack("{s:o, s:o, s:o}", "columns", cols, "rows", rows, "notes", notes);
	json_dumpf(doc, f, JSON_INDENT(1));
	fputc('\n', f);
	json_decref(doc);
}

static void tab_html(FILE *f, const tab *t)
{
	fputs("<table>\n", f);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("<tr>", f);
		for (size_t c = 0; c < t->ncols; c++) {
			fputs(r ? "<td>" : "<th>", f);
			bc_html_escape(f, t->cells[r * t->ncols + c]);
			fputs(r ? "</td>" : "</th>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < t->nnotes; i++) {
		fputs("<p class='note'>", f);
		bc_html_escape(f, t->notes[i]);
		fputs("</p>\n", f);
	}
}

void bc_tab_free(tab *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->cells);
	free(t->notes);
	*t = (tab){ 0 };
}

/* The table in form fmt; text ends with the notes after a blank line,
   markdown and CSV are the table alone. Frees t. */
void bc_tab_print(FILE *f, tab *t, int fmt)
{
	size_t w[64] = { 0 };
	if (fmt == BC_TAB_JSON || fmt == BC_TAB_HTML) {
		(fmt == BC_TAB_JSON ? tab_json : tab_html)(f, t);
		bc_tab_free(t);
		return;
	}
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols && c < 64; c++) {
			size_t l = width(t->cells[r * t->ncols + c]);
			if (l > w[c])
				w[c] = l;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			if (fmt == BC_TAB_CSV) {
				if (c)
					fputc(',', f);
				bc_csv_cell(f, s);
			} else if (fmt == BC_TAB_MARKDOWN) {
				fputs(c ? " | " : "| ", f);
				for (const char *p = s; *p; p++)	/* a | inside a cell ends it */
					fputs(*p == '|' ? "\\|" : (char[]){ *p, 0 }, f);
			} else {
				fprintf(f, "%s%s", c ? "  " : "", s);
				if (c + 1 < t->ncols)
					for (size_t k = width(s); k < w[c < 64 ? c : 63]; k++)
						fputc(' ', f);
			}
		}
		fputs(fmt == BC_TAB_MARKDOWN ? " |\n" : "\n", f);
		if (r == 0 && fmt == BC_TAB_MARKDOWN) {
			for (size_t c = 0; c < t->ncols; c++)
				fputs(c ? " | ---" : "| ---", f);
			fputs(" |\n", f);
		}
	}
	if (fmt == BC_TAB_TEXT && t->nnotes)
		fputc('\n', f);
	for (size_t i = 0; fmt == BC_TAB_TEXT && i < t->nnotes; i++)
		fprintf(f, "%s\n", t->notes[i]);
	bc_tab_free(t);
}
