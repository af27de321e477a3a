/*
** picture.h: a stage as a picture, the part the desktop and the browser
** share: how the stage is laid out for it (alone on its canvas, no
** overlays), the description it carries and the name of its file. The
** desktop draws and writes it (shot.h: `--export`, the window's S); the
** page draws it on a canvas and downloads it (web/platform.c). So a
** picture of the same page gets the same layout and the same file name in
** both editions. Nothing here includes SDL: text is measured by the
** caller's MeasureFn (font_measure with a FontSet on the desktop, the
** page's canvas in the browser).
**
** Usage:
**   ShotOpts o = app_shot_defaults();
**   app_shot_layout(font_measure, fonts, lc, L, T, k, &o, d);
**   char *path = app_shot_step_path("shots", L, k, t, nsteps, step_name, o.svg);
**   char desc[300]; app_shot_desc(L, k, desc, sizeof desc);
*/
#ifndef ATTNLAB_PICTURE_H
#define ATTNLAB_PICTURE_H

#include <stdbool.h>
#include <stddef.h>
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "view/draw.h"
#include "view/layout.h"

typedef struct AppState AppState;   /* state.h */

typedef struct ShotOpts {
    int width, height;      /* before scale */
    int scale;              /* 1, or 2 for print */
    bool dark;
    bool svg;               /* SVG instead of PNG */
    const char *cmap;       /* override every panel's colormap, or NULL */
    int step;               /* the sub-step of a stage that has them (0-based) */
    bool pdf;               /* app_export: one PDF per lesson (handout.h), not a picture per stage */
    StagePager *pager;      /* where stages are cut into pages (NULL: at VIEW_MAX_PANELS); not owned */
} ShotOpts;

/* Defaults: 1280x720 (a 16:9 slide), scale 1, light, PNG. */
ShotOpts app_shot_defaults(void);
/* Lay out stage k of L (its sub-step opts->step, the stage's own heads) on
** the canvas of opts into d (cleared first), text measured by measure with
** ctx, with the layout cache lc (one for a batch of pictures). */
void app_shot_layout(MeasureFn measure, void *ctx, LayoutCache *lc, const Lesson *L, const Trace *T, int k,
                     const ShotOpts *opts, DrawList *d);
/* The same for a view already built (the browser's slide as shown: its
** head, its zoomed part); opts->step is not read. */
void app_shot_layout_view(MeasureFn measure, void *ctx, LayoutCache *lc, const View *v, const ShotOpts *opts,
                          DrawList *d);
/* The description a picture of stage k carries: "softmax: Attention weights". */
void app_shot_desc(const Lesson *L, int k, char *desc, size_t n);
/* The file name of stage k: DIR/<lesson>-<NN>-<stage-id>.<png|svg> (caller frees). */
char *app_shot_path(const char *dir, const Lesson *L, int k, bool svg);
/* The same for sub-step t (0-based) of nsteps: DIR/<lesson>-<NN>-<stage-id>-<SS>-<step>.<ext>,
** SS the sub-step from 1 (two digits or more, so that files sort in the
** lesson's order), step the view's step_name ("t3"; NULL for none); a
** stage without sub-steps (nsteps 1) as app_shot_path. dir NULL: the
** name alone, without a directory. */
char *app_shot_step_path(const char *dir, const Lesson *L, int k, int t, int nsteps, const char *step, bool svg);
/* The file name of the slide the state shows (its stage and sub-step), in
** dir (NULL: the name alone); NULL when no lesson is open. */
char *app_shot_slide_path(const AppState *a, const char *dir, bool svg);

#endif
