/*
** explain.h: the arithmetic behind one cell, as lines of text.
**
** explain_cell answers "why is this number what it is?" for any matrix of
** the trace: an input says where it came from (written on line N, or drawn
** with randn and seed 42); a projection or score lists the products it sums
** (every term when there are at most 8, else the first few and the count);
** a scaled score shows the division; a weight shows the exponentials and
** their sum; a masked cell says why it is −∞ and its weight exactly 0.
**
** Usage:  char *text = explain_cell(L, T, setup, "weights", i, j); ... free(text);
*/
#ifndef ATTNLAB_EXPLAIN_H
#define ATTNLAB_EXPLAIN_H

#include "lesson.h"
#include "trace.h"

/* Lines separated by '\n' (caller frees), or NULL if there is no such cell. */
char *explain_cell(const Lesson *L, const Trace *T, int setup, const char *matrix, int i, int j);

#endif
