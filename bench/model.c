/*
** model.c: a real model's layer at its full context, in the benchmark.
**
** GPT-2 small attends over 1024 tokens with 12 heads of 64 dimensions in a
** model 768 wide, each token seeing those before it. bench_model writes
** such a layer as a lesson (a causal mask; random weights of the scale of
** an initialised layer, numpy's generator) and measures
** what a teacher opening it waits for:
**
**   model_layer_first_frame_ms  parse, compute every matrix, lay out and
**                               draw the multi_head stage (12 heatmaps of
**                               1024 x 1024) at the window's 1280x800, in
**                               this process through the app's own state
**   model_layer_hover_ms        the pointer on a new cell of that stage:
**                               hover, explanation, outlines, frame, drawing
**   model_layer_step_ms         a step to the next stage or back (a new view,
**                               laid out for the first time), frame, drawing
**   model_layer_step_pointer_ms the same step with the pointer resting on the
**                               first cell of the frame before it, as the
**                               window draws it: the cell of the new view
**                               that is under the pointer is hovered and the
**                               frame drawn again (app_frame_pointer)
**   model_layer_rss_mb          peak memory of `attnlab --export` of the lesson
**   model_layer_matrices_mb     one copy of every matrix it holds: the inputs
**                               and everything the trace computes, the floor
**                               of the memory figure (target: at most twice
**                               this plus 30 MB)
**
** The drawing is the offscreen software renderer, as in frame_ms_NxN.
*/
#define _DEFAULT_SOURCE
#include "bench.h"
#include "timing.h"
#include "app/frame.h"
#include "app/state.h"
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"
#include "core/util.h"
#include "sdl/render.h"
#include "view/draw.h"

#include <stdio.h>
#include <stdlib.h>

/* The layer: tokens, model width, heads; the window's canvas. */
#define MODEL_N 1024
#define MODEL_D 768
#define MODEL_H 12
#define MODEL_W 1280
#define MODEL_HT 800

/* Write the lesson: X and the four projections drawn with numpy's seed 7,
** weights at the scale 1/sqrt(768) of an initialised layer, a causal mask;
** the stages a lesson about it shows (the heads, their weights and their
** entropies). */
static void write_model_lesson(const char *path)
{
    static const char *words[] = { "the", "old", "cat", "sat", "on", "my", "mat" };
    Buf b = { 0 };
    buf_printf(&b, "title: One layer of GPT-2 small at its full context\n\n"
                   "[setup: %d tokens, %d dimensions, %d heads]\nseed: 7\nheads: %d\nmask: causal\ntokens:",
               MODEL_N, MODEL_D, MODEL_H, MODEL_H);
    for (int i = 0; i < MODEL_N; i++) buf_printf(&b, " %s%d", words[i % 7], i / 7);
    buf_printf(&b, "\nX = randn %dx%d\n", MODEL_N, MODEL_D);
    for (int i = 0; i < 4; i++) buf_printf(&b, "W_%c = randn %dx%d * 0.036\n", "qkvo"[i], MODEL_D, MODEL_D);
    buf_puts(&b, "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\noutput: W_o\n\n"
                 "[multi_head: Twelve heads over the whole context]\n\nEvery head attends over all 1024 tokens.\n\n"
                 "[softmax: Each head's weights]\n\nEvery row is a distribution over 1024 keys.\n\n"
                 "[entropy: How spread out each head is]\n\nThe bound is ln(1024).\n");
    write_file(path, b.s, b.len);
    buf_free(&b);
}

/* The path of the lesson in the scratch directory (written once). */
static const char *model_path(Bench *B)
{
    static char path[128];
    if (!path[0]) {
        snprintf(path, sizeof path, "%s/model-layer.lesson", B->tmp);
        write_model_lesson(path);
    }
    return path;
}

/* Peak memory of exporting the lesson (all three stages) in a new process. */
void bench_model_rss(Bench *B)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/model", B->tmp);
    char *argv[] = { (char *)B->attnlab, "--export", dir, (char *)model_path(B), NULL };
    double ms;
    double mb = rss_of(argv, &ms);
    figure("model_layer_rss_mb", mb, "MB");
    if (B->detail) fprintf(stderr, "  model layer: exported in %.0f ms (wall, a new process)\n", ms);
}

/* Every matrix the lesson holds once: its inputs and the trace's own. */
static double matrices_mb(const AppState *a)
{
    double cells = 0;
    for (int s = 0; s < a->doc->L->nsetups; s++) {
        const Setup *su = &a->doc->L->setups[s];
        for (int i = 0; i < su->nmats; i++)
            if (!su->mats[i].borrowed) cells += (double)su->mats[i].m->rows * su->mats[i].m->cols;
        const TraceSetup *ts = &a->doc->T->s[s];
        for (int i = 0; i < ts->n; i++)
            if (ts->mats[i].owned) cells += (double)ts->mats[i].m->rows * ts->mats[i].m->cols;
    }
    return cells * sizeof(double) / (1024.0 * 1024.0);
}

/* The window's work for one frame: the state drawn into the list, the list
** onto the canvas. */
typedef struct ModelRun {
    AppState *a;
    DrawList *d;
    Offscreen *o;
    FontSet *fonts;
    const char *path;
    int i;                      /* which sample this is (hover and step walk on) */
    int split;                  /* print each sample's parts (--detail) */
    bool pointer;               /* the pointer rests at (x, y) on the canvas */
    float x, y;
} ModelRun;

/* Draw the state; *lay (if not NULL) gets the time of the frame alone. */
static void frame(ModelRun *m, double *lay)
{
    double t0 = bench_now_ms();
    app_frame_pointer(m->a, MODEL_W, MODEL_HT, font_measure, m->fonts, m->d, m->pointer, m->x, m->y);
    if (lay) *lay = bench_now_ms() - t0;
    render_drawlist(m->o->render, m->d, NULL);
}

/* Open the lesson in a fresh state and draw the multi_head stage. */
static double first_once(void *ctx)
{
    ModelRun *m = ctx;
    if (m->a) app_free(m->a);
    double t0 = bench_now_ms();
    m->a = app_create();
    if (app_open(m->a, m->path) != 0) die("%s", m->a->error);
    frame(m, NULL);
    return bench_now_ms() - t0;
}

/* The pointer onto the next cell of a walk across the heads' panels. */
static double hover_once(void *ctx)
{
    ModelRun *m = ctx;
    int p = m->i % m->a->view->npanels, r = (m->i * 389) % MODEL_N, c = (m->i * 631 + 17) % MODEL_N;
    m->i++;
    double t0 = bench_now_ms();
    app_hover(m->a, p, r, c);
    double t1 = bench_now_ms(), lay;
    frame(m, &lay);
    double t = bench_now_ms() - t0;
    if (m->split) fprintf(stderr, "    hover %d,%d,%d: state %.2f, frame %.2f, draw %.2f ms\n", p, r, c, t1 - t0, lay,
                          t - (t1 - t0) - lay);
    return t;
}

/* One step: forward through the stages, then back to the first (with the
** pointer, where the first cell of the frame before it was). */
static double step_once(void *ctx)
{
    ModelRun *m = ctx;
    Rect cell;
    if (m->pointer && draw_cell_rect(m->d, 0, 0, 0, &cell)) {
        m->x = cell.x + cell.w / 2;
        m->y = cell.y + cell.h / 2;
    }
    double t0 = bench_now_ms();
    if (m->a->stage + 1 < m->a->doc->L->nstages) app_next(m->a);
    else app_first(m->a);
    double t1 = bench_now_ms(), lay;
    frame(m, &lay);
    double t = bench_now_ms() - t0;
    if (m->split) fprintf(stderr, "    step to stage %d%s: state %.2f, frame %.2f, draw %.2f ms\n", m->a->stage + 1,
                          m->a->hover_panel >= 0 ? " (a cell under the pointer)" : "", t1 - t0, lay, t - (t1 - t0) - lay);
    return t;
}

/* The in-process figures. */
void bench_model(Bench *B)
{
    Error rerr;
    ModelRun m = { NULL, draw_create(MODEL_W, MODEL_HT), render_offscreen_create(MODEL_W, MODEL_HT, B->fonts, &rerr),
                   B->fonts, model_path(B), 0, 0, false, MODEL_W / 2.0f, MODEL_HT / 2.0f };
    if (!m.o) die("offscreen: %s", rerr.msg);
    double first = measure(first_once, &m, 1, B->quick ? 1 : 3, B->quick ? 1 : 3, 0);
    figure("model_layer_first_frame_ms", first, "ms");
    if (B->detail) {
        double t0 = bench_now_ms();
        AppState *a = app_create();
        Error err;
        Lesson *L = lesson_load(m.path, &err);
        double t1 = bench_now_ms();
        Trace *T = L ? attn_run(L, &err) : NULL;
        double t2 = bench_now_ms();
        if (!T) die("%s", err.msg);
        fprintf(stderr, "  model layer: parse %.0f ms, compute %.0f ms\n", t1 - t0, t2 - t1);
        trace_free(T);
        lesson_free(L);
        app_free(a);
    }
    double hover = measure(hover_once, &m, 3, B->quick ? 5 : 30, B->quick ? 5 : 200, B->quick ? 0 : 1000);
    figure("model_layer_hover_ms", hover, "ms");
    m.split = B->detail;
    for (int i = 0; B->detail && i < 4; i++) hover_once(&m);
    m.split = 0;
    double step = measure(step_once, &m, 3, B->quick ? 3 : 12, B->quick ? 3 : 12, 0);
    figure("model_layer_step_ms", step, "ms");
    m.split = B->detail;
    for (int i = 0; B->detail && i < 6; i++) step_once(&m);
    m.split = 0;
    m.pointer = true;
    step = measure(step_once, &m, 3, B->quick ? 3 : 12, B->quick ? 3 : 12, 0);
    figure("model_layer_step_pointer_ms", step, "ms");
    m.split = B->detail;
    for (int i = 0; B->detail && i < 6; i++) step_once(&m);
    m.pointer = false;
    figure("model_layer_matrices_mb", matrices_mb(m.a), "MB");
    app_free(m.a);
    render_offscreen_free(m.o);
    draw_free(m.d);
}
