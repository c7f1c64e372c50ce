/* benchcore merge: the parts of one system's run as one results document
   (merge.c has the rule). */
#ifndef BC_MERGE_H
#define BC_MERGE_H
#include <jansson.h>
#include "rundoc.h"
#include "util.h"

/* docs[0..n) are validated results documents read from files[0..n) (n >= 2),
   as the run document's reader reads them (rundoc.h). Returns the merged
   document (new reference), or NULL with e set when a file is not a part of
   the same system's run as the first. */
json_t *bc_merge_docs(const bc_rundoc *docs, char **files, int n, bc_err *e);
#endif
