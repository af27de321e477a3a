/*
** picture.c: a stage as a picture, laid out, described and named
** (picture.h), for the desktop's exports and the browser's downloads alike.
*/
#include "picture.h"
#include "state.h"
#include "core/util.h"

#include <stdio.h>

/* The documented defaults. */
ShotOpts app_shot_defaults(void)
{
    ShotOpts o = { 1280, 720, 1, false, false, NULL, 0, false, NULL };
    return o;
}

/* A view laid out alone on the export canvas. */
void app_shot_layout_view(MeasureFn measure, void *ctx, LayoutCache *lc, const View *v, const ShotOpts *opts,
                          DrawList *d)
{
    int w = opts->width * opts->scale, h = opts->height * opts->scale;
    Theme th = layout_theme(opts->dark);
    LayoutOpts lo = layout_defaults(w, h, &th, measure, ctx);
    lo.cmap = opts->cmap;
    layout_view(lc, v, &lo, d);
}

/* Stage k laid out on the export canvas. */
void app_shot_layout(MeasureFn measure, void *ctx, LayoutCache *lc, const Lesson *L, const Trace *T, int k,
                     const ShotOpts *opts, DrawList *d)
{
    StageOpts so = { 0, opts->step, false, opts->pager };
    View *v = stage_view_with(L, T, k, &so);
    app_shot_layout_view(measure, ctx, lc, v, opts, d);
    stage_view_free(v);
}

/* The description stored in a picture of stage k: "softmax: Attention weights". */
void app_shot_desc(const Lesson *L, int k, char *desc, size_t n)
{
    snprintf(desc, n, "%s: %s", lesson_stage_name(L->stages[k].id),
             L->stages[k].title ? L->stages[k].title : stage_default_title(L->stages[k].id));
}

/*
** DIR/<lesson>-<NN>-<stage-id>[-<SS>[-<step>]].<ext>: sub-step t (0-based)
** of a stage with nsteps, numbered from 1 with as many digits as the last
** needs (at least two), then its name if it has one, so that the files of
** a folder sort in the lesson's order (…-kv_cache-01-t1 … -10-t10, then
** -11-all).
*/
char *app_shot_step_path(const char *dir, const Lesson *L, int k, int t, int nsteps, const char *step, bool svg)
{
    Buf b = {0};
    if (dir) buf_printf(&b, "%s/", dir);
    buf_printf(&b, "%s-%02d-%s", L->name, k + 1, lesson_stage_name(L->stages[k].id));
    if (nsteps > 1) {
        int digits = 2;
        for (int n = nsteps; n >= 100; n /= 10) digits++;
        buf_printf(&b, "-%0*d%s%s", digits, t + 1, step ? "-" : "", step ? step : "");
    }
    buf_printf(&b, ".%s", svg ? "svg" : "png");
    return buf_take(&b);
}

/* DIR/<lesson>-<NN>-<stage-id>.<ext>. */
char *app_shot_path(const char *dir, const Lesson *L, int k, bool svg)
{
    return app_shot_step_path(dir, L, k, 0, 1, NULL, svg);
}

/* The slide's file name: its stage, and its sub-step as the view has it. */
char *app_shot_slide_path(const AppState *a, const char *dir, bool svg)
{
    if (!a->doc) return NULL;
    const View *v = a->view;
    return app_shot_step_path(dir, a->doc->L, a->stage, a->step, v ? v->nsteps : 1, v ? v->step_name : NULL, svg);
}
