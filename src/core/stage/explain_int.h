/*
** explain_int.h: what the explanations share, inside src/core only.
**
** explain.c explains the cells of attention (inputs, projections, scores,
** masks, weights, outputs, positions, decoding, the online softmax) and
** owns the helpers below; explain_block.c explains the rest of a
** transformer block (layer norms, the MLP, the residual stream, the next
** token) with them.
*/
#ifndef ATTNLAB_EXPLAIN_INT_H
#define ATTNLAB_EXPLAIN_INT_H

#include "explain.h"
#include "core/util.h"

/* What an explanation needs. */
typedef struct Ex {
    const Lesson *L;
    const Trace *T;
    const TraceSetup *ts;
    const Setup *su;
    int s;
    int head;           /* 1-based head of the cell, or 0 */
    Buf out;
    Explain *ex;
} Ex;

/* Record an operand: ref's row r, column c (-1: all of it). */
void ex_op(Ex *e, TraceRef ref, int r, int c);
/* A computed matrix of this cell's head. */
const Mat *ex_mat(const Ex *e, TraceKind k);
/* A number for the explain panel (4 significant digits, typographic
** minus; in parentheses when negative and paren is set). */
void ex_num(Buf *b, double v, bool paren);
/* "a×b + c×d + … = r" for the dot product of n pairs a[k*sa], c[k*sc]. */
void ex_dot_line(Buf *b, const double *a, int sa, const double *c, int sc, int n, double result);
/* The dot line of row i of a and the first n numbers of column j of c: the
** operands must be in the trace and fit (the parser checked their shapes;
** asserted). */
void ex_row_col(Buf *b, const Mat *a, int i, const Mat *c, int j, int n, double result);
/* The rest of a softmax line after "(subtract its max ": "M, then
** exponentiate)\nexp(x − M) / Σ = … / sum = v". */
void ex_softmax_terms(Buf *b, double x, double mx, double sum, double v);
/* The query (row) and key (column) tokens, for prose. */
const char *ex_qtok(const Ex *e, int i);
const char *ex_ktok(const Ex *e, int j);
/* "\n+ b[1][j] = … = v" after a dot line whose sum was v − b[j]: a bias
** added (nothing when bias is NULL). */
void ex_bias_line(Ex *e, const char *bias, int j, double v);

/* explain_block.c: a cell of the rest of a block; false for another kind. */
bool ex_block(Ex *e, TraceRef r, int i, int j, double v);
/* A cell of the joined heads that belongs to head h, switched off (col: its
** column there), or of what replaces h's output (TK_ABLATED, col -1). */
void ex_ablated(Ex *e, int h, int i, int j, int col, double v);

#endif
