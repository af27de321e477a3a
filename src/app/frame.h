/*
** frame.h: one frame of the interactive program, drawn from the state alone.
**
** app_frame lays out the current stage (layout_view) and adds what belongs
** to the program rather than the stage: marks on edited cells, predict-mode
** guesses, the explain panel beside the focused cell, the toast, a load
** error, the key overlay, the lesson picker, the slide sorter (sorter.h:
** in place of the stage), and the "edited, not saved"
** mark and any question the window asks (src/app/prompt.c). What goes over
** the cells (the explanation, its outlines, the edited cells) the state
** worked out when it changed (marks.h): a frame draws it as it is and
** computes nothing about the lesson. No SDL: the result is a DrawList any
** backend can draw, and tests can read.
*/
#ifndef ATTNLAB_FRAME_H
#define ATTNLAB_FRAME_H

#include "state.h"
#include "view/draw.h"
#include "view/layout.h"

/* The size of the program's own text on a canvas h pixels high (overlays,
** messages, the sorter), at the state's text size. */
float app_frame_size(const AppState *a, int h);
/* text cut with "…" to fit maxw at size (as measure measures it) into out. */
void app_fit_text(const char *text, float size, float maxw, MeasureFn measure, void *ctx, char *out, size_t n);
/* Draw the whole frame into out (cleared first). */
void app_frame(const AppState *a, int w, int h, MeasureFn measure, void *ctx, DrawList *out);
/* The frame as the window draws it with the pointer at (x, y) on the canvas
** (pixels; pointer false when it is not over it): app_frame, then, unless
** an explanation is pinned, when the pointer rests on another cell than
** the one hovered (a step brought a new view under it), that cell hovered
** (app_hover: the one change to the state) and the frame drawn again. The
** page is planned once: a frame keeps it from its first layout
** (LayoutOpts.keep_first), so the second copies it and draws the outlines
** and the explanation. */
void app_frame_pointer(AppState *a, int w, int h, MeasureFn measure, void *ctx, DrawList *out, bool pointer, float x,
                       float y);

#endif
