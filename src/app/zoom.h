/*
** zoom.h: reading a large heatmap in the window by parts.
**
** A heatmap of 1024 x 1024 cells is drawn in blocks of cells a few pixels
** wide: no numbers, no labels, one colour for several cells. Zooming into
** it shows that heatmap alone, in the panels' whole area, a part of its
** matrix at a time: 1/2 of its rows and columns, then 1/4, ... down to a
** few cells, with their token labels and numbers when they fit. The part
** keeps the colour scale of the whole matrix (and of the heads it shares
** one with), so its colour bar and colours stay those of the whole; its
** cells are explained and outlined as in the whole, since a part knows
** where it sits (Panel.row_offset, col_offset).
**
** In the window: + and - over a heatmap or while one is zoomed (keys.c;
** elsewhere they are the text size, as Ctrl+ and Ctrl- always are),
** Ctrl+wheel at the pointer and a drag to move the part (window.c); Esc
** shows all of it (app_escape).
**
** The zoom belongs to the stage: a step to another stage ends it. It
** survives what rebuilds the view (an edit, a toggle, another head when
** the matrix is still shown) by finding its matrix again (AppZoom.ref).
** The view is rebuilt from the stage and cut to the part (app_zoom_view,
** which refresh_view in state.c calls).
**
**     app_zoom(a, panel, row, col, +1);   // in, about the cell (panel -1: the part's centre)
**     app_zoom_pan(a, -3.5, 0);           // 3.5 rows up
**     app_zoom_reset(a);                  // the whole stage again
*/
#ifndef ATTNLAB_ZOOM_H
#define ATTNLAB_ZOOM_H

#include "state.h"

/* Rows and columns of a part, at least this many (or the whole's, if fewer). */
#define ZOOM_MIN_CELLS 4

/* Zoom in (dir +1) or out (-1) keeping cell (row, col) of the view's panel
** where it is on screen; panel -1 (no cell under the pointer): about the
** middle of the zoomed part, or of the view's largest heatmap. Out of the
** last level is the whole stage again. A toast says when there is nothing
** to zoom (no heatmap, or one of a few cells) or predict mode is on. */
void app_zoom(AppState *a, int panel, int row, int col, int dir);
/* Move the zoomed part by drows rows and dcols columns (fractions add up
** while dragging), stopping at the matrix's edges. */
void app_zoom_pan(AppState *a, double drows, double dcols);
/* The whole stage again. */
void app_zoom_reset(AppState *a);
/* Whether a heatmap is zoomed into. */
bool app_zoomed(const AppState *a);
/* Cut a->view (just built for the stage) to the zoomed part, or end the
** zoom when the view no longer shows its matrix. The whole's colour range
** is read once (AppZoom.have_range, which state.c clears whenever the
** trace or what the stage shows changes). */
void app_zoom_view(AppState *a);

#endif
