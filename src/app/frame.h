/*
** frame.h: one frame of the interactive program, drawn from the state alone.
**
** app_frame lays out the current stage (layout_view) and adds what belongs
** to the program rather than the stage: marks on edited cells, predict-mode
** guesses, the explain panel beside the focused cell, the toast, a load
** error, the key overlay, the lesson picker, and the "edited, not saved"
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

/* Draw the whole frame into out (cleared first). */
void app_frame(const AppState *a, int w, int h, MeasureFn measure, void *ctx, DrawList *out);

#endif
