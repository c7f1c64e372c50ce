/* A user's string in Markdown (mdtext.h): a cell, a heading, a list item or
   a gate's line, printable and inert: every character that opens Markdown's
   inline syntax (emphasis, code, links, images, strikethrough, a cell's |)
   is escaped with a backslash, and <, > and & become entities, so a label
   or a host name holding raw HTML, a link or emphasis shows as the text it
   is. A bare URL is left as it is: GitHub links it, showing the same text. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "mdtext.h"
#include "util.h"

void bc_md_text(FILE *f, const char *s)
{
	char *p = bc_printable(s ? s : "");
	for (const char *q = p; *q; q++)
		if (*q == '<')
			fputs("&lt;", f);
		else if (*q == '>')
			fputs("&gt;", f);
		else if (*q == '&')
			fputs("&amp;", f);
		else {
			/* an _ within a word (block_size) opens nothing */
			int inword = *q == '_' && q > p && isalnum((unsigned char)q[-1]) && isalnum((unsigned char)q[1]);
			if (strchr("\\`*_[](){}#!|~", *q) && !inword)
				fputc('\\', f);
			fputc(*q, f);
		}
	free(p);
}
