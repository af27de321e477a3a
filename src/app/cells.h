/*
** cells.h: every cell by keyboard. Enter on the slide starts a cell cursor
** on the first cell of the first heatmap; the arrows move it within its
** panel, Tab and Shift+Tab go to the next or previous heatmap, + and −
** change it when it is an input, Enter or Space guesses it in predict mode,
** Esc leaves. The cursor is the pinned cell (state.h): its arithmetic is
** what the window's explain panel shows and the page's live region says,
** and a click, a tap or a stage change moves or ends it the same way.
**
**   app_cells_start(a);          // Enter: the cursor on panel 0's cell (1, 1)
**   app_cells_move(a, 0, +1);    // → : one cell right (clamped to the panel)
**   app_cells_panel(a, +1);      // Tab: the next heatmap, the same cell or its nearest
*/
#ifndef ATTNLAB_CELLS_H
#define ATTNLAB_CELLS_H

#include "state.h"

/* Whether the cell cursor is on (the keys of cells.h count). */
bool app_cells_on(const AppState *a);
/* Start the cursor on the first cell of the first heatmap shown (a toast
** says the keys); a toast says why when the stage has none. */
void app_cells_start(AppState *a);
/* Move the cursor by rows and cols, within its panel. */
void app_cells_move(AppState *a, int rows, int cols);
/* The cursor to the next (dir > 0) or previous heatmap, round the slide. */
void app_cells_panel(AppState *a, int dir);
/* Enter or Space on the cursor: a guess in predict mode (as a click). */
void app_cells_press(AppState *a);
/* Leave the cursor (Esc): the cell unpinned, the arrows step again. */
void app_cells_stop(AppState *a);

#endif
