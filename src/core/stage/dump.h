/*
** dump.h: a lesson's stages as JSON, for checking numbers outside the
** program. Shape:
**   {"lesson": NAME, "title": TITLE,
**    "stages": [{"index": 1, "id": "softmax", "setup": 1, "title": ...,
**                "matrices": [{"name", "rows", "cols", "row_labels",
**                              "col_labels", "data": [[...], ...]}]}],
**    "matrices": {"1": {"X": [[...], ...], ...}, ...}}
** A matrix of more than DUMP_INLINE_CELLS cells has "shared": true instead
** of "data": its rows are in the top-level "matrices" table, under its
** stage's setup (1-based, as a string) and its name, written once however
** many stages show it. A one-row slice a stage made (per_token) is always
** written in place. A panel whose matrix comes from another setup than its
** stage's (a compare stage's A and B) says which, "setup": N (1-based),
** and is shared under that setup; a compare stage's difference B − A is
** "NAME.diff" ("head4.weights.diff", "probs.diff"), always in place.
** Numbers carry 17 significant digits (they read back as the same doubles);
** −∞ (a masked score) is written as null. At most DUMP_MAX_NUMBERS numbers
** are written in all, the panels of every sub-step included; a matrix that would go past them is null as a whole
** ("data": null, or null in the table), so that the numbers of a dump take
** about 100 MB at most whatever the lesson (labels, repeated by every
** stage, add at most as much again).
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

#include "core/lesson/lesson.h"
#include "core/compute/trace.h"
#include "core/util.h"

/* Matrices with more cells than this are written once per setup. */
#define DUMP_INLINE_CELLS 1024
/* The most numbers one dump writes (the input-number limit of a lesson). */
#define DUMP_MAX_NUMBERS 4194304L

/* Append the JSON of every stage of L to out. */
void dump_json(const Lesson *L, const Trace *T, Buf *out);
/* The same for the stages k with keep[k] set (every stage when keep is
** NULL); each keeps its index in the lesson. */
void dump_json_stages(const Lesson *L, const Trace *T, const bool *keep, Buf *out);
/* Append s as a JSON string literal (quoted, escaped). */
void dump_string(Buf *out, const char *s);

#endif
