/*
** explain.h: the arithmetic behind one cell, as lines of text, with the
** cells it was computed from.
**
** explain_at answers "why is this number what it is?" for any matrix of the
** trace: an input says where it came from (written on line N, or drawn with
** randn and seed 42, or edited); a projection or score lists the products it
** sums (every term when there are at most 8, else the first few and the
** count); a scaled score shows the division by the head's own √d_k; a weight
** shows the exponentials and their sum; a masked cell says why it is −∞ and
** its weight exactly 0. Along with the text it returns its operands: the
** matrices, rows and columns it read. The window outlines exactly those, so
** what is lit is what the arithmetic used.
**
** Usage:
**   Explain ex;
**   if (explain_at(L, T, setup, trace_ref(TK_WEIGHTS, 2), i, j, &ex)) {
**       puts(ex.text);  for (k < ex.nops) outline ex.ops[k];
**       explain_free(&ex);
**   }
*/
#ifndef ATTNLAB_EXPLAIN_H
#define ATTNLAB_EXPLAIN_H

#include "core/lesson/lesson.h"
#include "core/compute/trace.h"

#define EXPLAIN_MAX_OPS 6

/* One operand: a cell, a whole row (col = -1) or a whole column (row = -1). */
typedef struct ExplainOp {
    TraceRef ref;
    int row, col;
} ExplainOp;

typedef struct Explain {
    char *text;                 /* lines separated by '\n' (owned) */
    ExplainOp ops[EXPLAIN_MAX_OPS];
    int nops;
} Explain;

/* Explain cell (i, j) of ref in setup s. False (ex untouched) if there is no
** such cell. */
bool explain_at(const Lesson *L, const Trace *T, int setup, TraceRef ref, int i, int j, Explain *ex);
/* Release the text. */
void explain_free(Explain *ex);
/* The text alone for a matrix named as in --dump (caller frees), or NULL. */
char *explain_cell(const Lesson *L, const Trace *T, int setup, const char *matrix, int i, int j);

#endif
