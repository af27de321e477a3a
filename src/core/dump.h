/*
** dump.h: a lesson's stages as JSON, for checking numbers outside the
** program. Shape:
**   {"lesson": NAME, "title": TITLE, "stages": [{"index": 1, "id": "softmax",
**    "title": ..., "matrices": [{"name", "rows", "cols", "row_labels",
**    "col_labels", "data": [[...], ...]}]}]}
** Numbers carry 17 significant digits (they read back as the same doubles);
** −∞ (a masked score) is written as null.
*/
#ifndef ATTNLAB_DUMP_H
#define ATTNLAB_DUMP_H

#include "lesson.h"
#include "trace.h"
#include "util.h"

/* Append the JSON of every stage of L to out. */
void dump_json(const Lesson *L, const Trace *T, Buf *out);
/* Append s as a JSON string literal (quoted, escaped). */
void dump_string(Buf *out, const char *s);

#endif
