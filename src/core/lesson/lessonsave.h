/*
** lessonsave.h: saving edited numbers into a lesson's own text.
**
** A lesson file is the teacher's: comments, alignment, generators, seeds and
** prose must survive a save. So a save is never a rewrite from parsed data;
** it is the original text with the edited numbers changed in place:
**   - a cell of a written-out matrix: that number's text is replaced (padded
**     or trimmed within the spaces around it to keep a column aligned);
**   - a cell set by an override line `NAME[ROW,COL] = VALUE`: its number
**     (the line goes when the value is set back to the one underneath);
**   - a cell of a generated matrix (randn, identity, ...): a new override
**     line after the definition (after the last override of that matrix in
**     the same setup, if there is one).
** Numbers are written in the shortest form that reads back to the same
** double (util_fmt_shortest), with trailing zeros when the numbers around
** it have more decimals. Every other byte, line ends and a BOM included,
** stays as it was; saving with no edits gives the same bytes.
**
** A cell's value comes from one place in the text (its "source"): the last
** override of that cell in its setup or an earlier one, else the matrix's
** definition. Setups that inherit the matrix share the source, so an edit
** is one change of the text and of every setup that reads that place.
**
** Usage:
**   Lesson *base = lesson_parse(text, len, path, &err);      // spans for text
**   LsaveEdit *e; int n = lsave_diff(base, edited, &e);       // cells that differ
**   char *out = lsave_apply(text, len, base, e, n, &out_len, msg, sizeof msg);
**   free(e); ... fileio_write_atomic(path, out, out_len, ...); free(out);
*/
#ifndef ATTNLAB_LESSONSAVE_H
#define ATTNLAB_LESSONSAVE_H

#include <stdbool.h>
#include <stddef.h>
#include "lesson.h"

/* One edited cell: the matrix as named in a setup, 0-based row and column
** (a stack's columns side by side), its new value. */
typedef struct LsaveEdit {
    int setup;
    char matrix[LESSON_MAX_NAME + 1];
    int row, col;
    double value;
} LsaveEdit;

/* Where a cell's value is written: the matrix's definition (Lesson.defs)
** and the override line that sets the cell last, or -1. */
typedef struct LsaveSource { int def, ovr; } LsaveSource;

/* The source of a cell of a matrix in a setup; false if there is no such cell. */
bool lsave_source(const Lesson *L, int setup, const char *matrix, int row, int col, LsaveSource *out);
/* True if the cell reads the same place of the text in setups s1 and s2. */
bool lsave_shared(const Lesson *L, int s1, int s2, const char *matrix, int row, int col);
/* True when some `transpose` line reads matrix (as setup s has it) in s or
** in any other setup that has it from the same text, earlier or later. Such a cell is not edited: the transpose was taken when its
** line was read, and no saved text could keep both as the screen showed. */
bool lsave_feeds_transpose(const Lesson *L, int s, const char *matrix);
/* True if the matrix is given attention weights (`attention: NAME`) in setup
** s or in any setup sharing its text: each of its rows must stay a
** distribution, so the window does not edit it cell by cell either. */
bool lsave_gives_attention(const Lesson *L, int s, const char *matrix);
/* The cells of input matrices whose values differ (bit for bit) between
** base and edited, two parses of the same structure: their count, and an
** array in *out (caller frees; NULL when 0). -1 if the structures differ
** (other setups, matrices or shapes). */
int lsave_diff(const Lesson *base, const Lesson *edited, LsaveEdit **out);
/* The text with the edits made in place (caller frees; *out_len its length),
** base being the lesson parsed from text. NULL with err filled (about no
** file) if an edit names no cell (ERR_INVALID) or the result would not load
** back to the edited values (ERR_RUNTIME). */
char *lsave_apply(const char *text, size_t len, const Lesson *base, const LsaveEdit *edits, int n,
                  size_t *out_len, Error *err);

#endif
