/*
** dump.h: a lesson's stages as JSON, for checking numbers outside the
** program. Shape:
**   {"lesson": NAME, "title": TITLE, "stages": [{"index": 1, "id": "softmax",
**    "title": ..., "matrices": [{"name", "rows", "cols", "row_labels",
**    "col_labels", "data": [[...], ...]}]}]}
** Numbers carry 17 significant digits (they read back as the same doubles);
** −∞ (a masked score) is written as null.
**
** Names (trace_name): with one head "Q", "K", "V", "raw_scores",
** "scaled_scores", "masked_scores", "weights", "output", "mask", "final",
** "entropy"; with H heads the per-head matrices are "headH.Q", "headH.K",
** "headH.V", "headH.raw_scores", "headH.scaled_scores",
** "headH.masked_scores", "headH.weights" and "headH.output" (H from 1), and
** the whole ones are "Q", "K", "V", "mask", "concat", "final" and "entropy"
** (one column per head). Inputs keep their lesson names. A one-row panel
** (per_token) is "NAME[R]" with R its 1-based row; one head's entropy is
** "entropy[head H]".
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
