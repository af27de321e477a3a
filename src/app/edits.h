/*
** edits.h: editing input cells, with undo, redo and a return to the file.
**
** An edit sets one cell of an input matrix. The cell is set in every setup
** that reads it from the same place of the lesson's text (lsave_shared), so
** an edit of an inherited matrix is one edit of the line that defines it,
** exactly as saving writes it. Edits go on a stack of (setup, matrix, row,
** col, old, new): Ctrl+Z steps back, Ctrl+Shift+Z or Ctrl+Y forward.
** Scrolling the same cell again extends the edit on top of the stack, so one
** undo takes back one cell however many wheel steps it took. R returns to
** the file as it was loaded, whether or not it was saved since.
**
** Usage:
**   app_set_cell(a, setup, "X", 0, 1, 0.5);     // what scroll editing calls
**   app_edit_push(a, setup, "X", 0, 1, old, 0.5);
**   app_undo(a); app_redo(a); app_undo_all(a);
*/
#ifndef ATTNLAB_EDITS_H
#define ATTNLAB_EDITS_H

#include "state.h"

/* old moved by steps of 0.1 (fine: 0.01). A value written with few
** decimals stays on its decimal grid: 0.9 + 3 steps is 1.2 exactly (as
** strtod reads "1.2"), not 1.2000000000000002. */
double app_edit_step(double old, int steps, bool fine);
/* Set a cell everywhere its value is read from the same text and recompute;
** -1 (nothing changed) if the result would overflow. */
int app_set_cell(AppState *a, int setup, const char *matrix, int row, int col, double v);
/* Record an edit on the undo stack (the redo steps are dropped). */
void app_edit_push(AppState *a, int setup, const char *matrix, int row, int col, double old, double now);
/* Step back through the edits; false if there is none. */
bool app_undo(AppState *a);
/* Step forward again; false if there is nothing to redo. */
bool app_redo(AppState *a);
/* R: back to the file as loaded, every edit gone. */
void app_undo_all(AppState *a);
/* Whether (setup, matrix, row, col) holds an edit. */
bool app_is_edited(const AppState *a, int setup, const char *matrix, int row, int col);
/* The value (setup, matrix, row, col) had before its first edit still
** applied; false when the cell holds no edit. */
bool app_edit_origin(const AppState *a, int setup, const char *matrix, int row, int col, double *was);
/* Re-derive a->dirty: do the numbers differ from the file on disk? */
void app_update_dirty(AppState *a);
/* Apply the edits on the stack again (after the lesson was reloaded); those
** whose cell no longer exists are dropped. */
void app_edits_replay(AppState *a);

#endif
