/*
** marks.h: what a frame draws over a view's cells, worked out when
** something changes, never while drawing.
**
** The explain panel belongs to one focused cell (pinned, else hovered): its
** explanation (explain_at; for an edited input, what it was and what it is
** now) and its operands, outlined where the view shows them. Edited input
** cells carry a mark of their own. The interactive state (state.c) works
** both out when the pointer moves to another cell, a cell is pinned, the
** view changes (a stage, a head, a sub-step, new numbers) or predict mode
** hides panels; a frame (frame.c) draws what they hold.
**
** Usage:
**   MarksHover h = { 0 };
**   marks_hover(&h, doc, view, panel, row, col, hidden);   // the cell under the pointer
**   if (h.on) draw(h.ex.text, h.marks, h.nmarks);
**   MarksEdited e = { 0 };
**   marks_edited(&e, doc, view);                  // after every change of the view
**   if (marks_is_edited(&e, panel, row, col)) ...
**   marks_hover_clear(&h); marks_edited_free(&e);
*/
#ifndef ATTNLAB_MARKS_H
#define ATTNLAB_MARKS_H

#include <stdbool.h>
#include "doc.h"
#include "core/stage/explain.h"
#include "core/stage/stage.h"
#include "view/layout.h"

/* The focused cell's explanation and the cells it read. */
typedef struct MarksHover {
    bool on;                            /* a cell is explained: ex and marks hold it */
    Explain ex;                         /* its text (owned) and operands */
    LayoutMark marks[LAYOUT_MAX_MARKS]; /* the operands, as cells of the view's panels */
    int nmarks;
} MarksHover;

/* The edited input cells a view shows, sorted by panel, row, column. */
typedef struct MarksEdited {
    LayoutMark *cells;                  /* owned */
    int n, cap;
} MarksEdited;

/* Explain cell (row, col) of panel (-1: none) of view v of document d,
** in place of what h held. Nothing is explained on a panel hidden by
** predict mode (bit k of hidden = panel k): no spoilers. */
void marks_hover(MarksHover *h, const Doc *d, const View *v, int panel, int row, int col, unsigned long long hidden);
/* Forget the explanation. */
void marks_hover_clear(MarksHover *h);
/* The edited cells of v (d's applied edits), in place of what e held. */
void marks_edited(MarksEdited *e, const Doc *d, const View *v);
/* Whether cell (row, col) of panel is edited. */
bool marks_is_edited(const MarksEdited *e, int panel, int row, int col);
/* Release the list. */
void marks_edited_free(MarksEdited *e);

#endif
