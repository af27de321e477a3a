/*
** sorter.h: the slide sorter (G): the pages of the stage shown as a grid
** of small pictures, each with its header's words under it ("page 3 ·
** head 1 of 4 · weights"); the arrows or the pointer pick one, Enter or a
** click goes there, Esc (or G) leaves.
**
** A grid holds SORTER_COLS x SORTER_ROWS pages; a stage of more pages is
** shown a grid at a time, the one the selection is on (PgUp, PgDn, or
** the arrows past its edge, turn to the next). Each page of a grid is laid
** out once, on the slide's canvas, when its grid is first shown in an
** opening of the sorter (AppSorter keeps them, for the state that owns it:
** app_sorter_refresh lays them out again after a new trace, lesson or text
** measure); a frame copies them scaled into their cells (app_sorter_draw),
** text too small to read left out. While the sorter is open only its keys
** count (keys.c: KEYS_SORTER).
**
**   app_sorter_toggle(a);                 // G: open on the page shown
**   app_sorter_move(a, +1);               // →
**   app_sorter_go(a);                     // Enter: that page, the sorter closed
*/
#ifndef ATTNLAB_SORTER_H
#define ATTNLAB_SORTER_H

#include "state.h"
#include "view/draw.h"
#include "view/layout.h"

#define SORTER_COLS 4
#define SORTER_ROWS 3
#define SORTER_GRID (SORTER_COLS * SORTER_ROWS)   /* pages a grid shows */

/* The pages of one grid laid out (the state's a->thumbs). */
typedef struct AppSorter AppSorter;
/* An empty one. */
AppSorter *app_sorter_create(void);
/* Release it (NULL is fine). */
void app_sorter_free(AppSorter *s);

/* G: open the sorter on the page shown, or close it. */
void app_sorter_toggle(AppState *a);
/* Close it (Esc), keeping the page shown. */
void app_sorter_close(AppState *a);
/* Move the selection by d pages (±1 across, ±SORTER_COLS down, ±SORTER_GRID
** a grid), kept within the stage's pages. */
void app_sorter_move(AppState *a, int d);
/* Select page i (0-based; clamped). */
void app_sorter_select(AppState *a, int i);
/* Enter: show the selected page, the sorter closed. */
void app_sorter_go(AppState *a);
/* The pages of the grid shown laid out again (the trace, the lesson or the
** text measure changed), when the sorter is open. */
void app_sorter_refresh(AppState *a);
/* The page under (x, y) of a w x h canvas, or -1. */
int app_sorter_at(const AppState *a, int w, int h, float x, float y);
/* The sorter over the whole canvas, at text size size. */
void app_sorter_draw(const AppState *a, const Theme *th, int w, int h, float size, MeasureFn measure, void *ctx,
                     DrawList *out);

#endif
