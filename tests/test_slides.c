/*
** test_slides.c: every stage of the bundled lessons and of the lessons in
** slide-lessons/ (8 to 16 tokens, 1 to 4 heads, masks, grouped-query
** heads, RoPE, ALiBi, cross-attention, the K/V cache), every sub-step,
** laid out as --export draws it on the projector slide: 1280x720 measured
** with DejaVu Sans.
**
** What a class in a lecture hall relies on: no cell number is printed under
** 12 px and at least 90 % at 14 px or more where the slide allows it (a
** panel counts when it prints at 14 px, or would alone on the slide); a panel leaves its numbers out
** only when, alone on the slide, it could not print them at 12 px (numbers
** move into sub-steps, they are not hidden; the sub-steps of kv_cache and
** online_softmax, one a token or block, are not yet split further, and
** are only counted); and with several heads a stage shows, for every
** head, the matrices it shows for one head chosen alone (kv_cache and
** rope show one head by design, and are left out).
*/
#include "suites.h"
#include "tfonts.h"
#include "core/lesson.h"
#include "core/stage.h"
#include "core/trace.h"
#include "sdl/font.h"
#include "view/layout.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLIDE_W 1280
#define SLIDE_H 720

/* v laid out at w x h with DejaVu Sans (caller frees). */
static DrawList *lay_at(const View *v, int w, int h)
{
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(w, h, &th, font_measure, tfonts);
    DrawList *d = draw_create(w, h);
    LayoutCache *lc = layout_cache_create();
    layout_view(lc, v, &o, d);
    layout_cache_free(lc);
    return d;
}

/* v laid out on the projector slide (caller frees). */
static DrawList *lay_slide(const View *v)
{
    return lay_at(v, SLIDE_W, SLIDE_H);
}

/* The lesson at path and its trace in *T, or fail. */
static Lesson *load_run(const char *path, Trace **T)
{
    Error err;
    Lesson *L = lesson_load(path, &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    *T = attn_run(L, &err);
    ck_assert_msg(*T != NULL, "%s", eline(&err));
    return L;
}

/* What the walk adds up. */
typedef struct Tally {
    long printed, at14, under12;
    long could14;               /* numbers in panels that print at 14 px, or would alone */
    long canvas_bound;          /* numbers in panels that alone on the slide print under 14 px */
    int hidden_wrongly, slides;
    int hidden_in_time;         /* the same on a sub-step of kv_cache or online_softmax (counted, not failed) */
    char first_small[400], first_hidden[400];
} Tally;

/* The font panel k of v prints its numbers at alone on the slide, without
** the explanation (0: none). */
static float font_alone(const View *v, int k)
{
    View w = *v;
    w.panels[0] = v->panels[k];
    w.npanels = 1;
    w.npara = 0;
    DrawList *d = lay_slide(&w);
    float fs = 0;
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel == 0 && d->cmds[i].size > fs) fs = d->cmds[i].size;
    draw_free(d);
    return fs;
}

/* One slide: its numbers' sizes (a panel under 14 px counts towards the
** 14 px share only when alone it would print at 14 px: where the canvas
** allows it), and panels without numbers. */
static void tally_slide(Tally *t, const char *name, int k, const View *v)
{
    DrawList *d = lay_slide(v);
    long cells[VIEW_MAX_PANELS] = { 0 };
    float font[VIEW_MAX_PANELS] = { 0 };
    t->slides++;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role != ROLE_CELL_TEXT || c->panel < 0 || c->panel >= VIEW_MAX_PANELS) continue;
        t->printed++;
        cells[c->panel]++;
        font[c->panel] = font[c->panel] > 0 ? (c->size < font[c->panel] ? c->size : font[c->panel]) : c->size;
        if (c->size < 12 && !t->under12++)
            snprintf(t->first_small, sizeof t->first_small, "%s stage %d step %d panel %d \"%s\": %.1f px", name,
                     k + 1, v->step + 1, c->panel, v->panels[c->panel].title, c->size);
    }
    draw_free(d);
    for (int p = 0; p < v->npanels; p++) {
        const Panel *pn = &v->panels[p];
        if (cells[p] > 0) {
            if (font[p] >= 14) t->at14 += cells[p], t->could14 += cells[p];
            else if (font_alone(v, p) >= 14) t->could14 += cells[p];
            else t->canvas_bound += cells[p];
            continue;
        }
        if (pn->kind != PANEL_HEATMAP || !pn->m || pn->m->rows * pn->m->cols == 0) continue;
        if (getenv("SLIDES_VERBOSE") && font_alone(v, p) >= 12)
            printf("HIDDEN %s stage %d step %d panel %d\n", name, k + 1, v->step + 1, p);
        if (font_alone(v, p) < 12) continue;
        if (v->id == STAGE_KV_CACHE || v->id == STAGE_ONLINE_SOFTMAX) {     /* sub-steps in time, not yet in parts */
            t->hidden_in_time++;
            continue;
        }
        if (!t->hidden_wrongly++)
            snprintf(t->first_hidden, sizeof t->first_hidden, "%s stage %d step %d panel %d \"%s\" (%dx%d)", name,
                     k + 1, v->step + 1, p, pn->title, pn->m->rows, pn->m->cols);
    }
}

/* The per-head matrices one head shows, as a set of trace kinds. */
typedef struct Kinds { bool k[TK_COUNT]; } Kinds;

/* Add the kinds of v's panels that belong to head h (or to no head). */
static void add_kinds(Kinds *s, const View *v, int h)
{
    for (int p = 0; p < v->npanels; p++) {
        const TraceRef *r = &v->panels[p].ref;
        if (r->kind >= 0 && r->kind < TK_COUNT && (r->head == h || r->head == 0)) s->k[r->kind] = true;
    }
}

/* Every sub-step of stage k with options o, each given to fn. */
static void each_step(const Lesson *L, const Trace *T, int k, int head, void (*fn)(const View *, void *), void *ctx)
{
    StageOpts o = { head, 0, false };
    View *v = stage_view_with(L, T, k, &o);
    int n = v->nsteps;
    fn(v, ctx);
    stage_view_free(v);
    for (int s = 1; s < n; s++) {
        o.step = s;
        v = stage_view_with(L, T, k, &o);
        fn(v, ctx);
        stage_view_free(v);
    }
}

/* What each_step's callbacks read. */
typedef struct Walk {
    Tally *t;
    const char *name;
    int k, head;
    Kinds kinds;
} Walk;

/* each_step callbacks: tally a slide; gather the kinds of a head. */
static void walk_tally(const View *v, void *ctx)
{
    Walk *w = ctx;
    tally_slide(w->t, w->name, w->k, v);
}

static void walk_kinds(const View *v, void *ctx)
{
    Walk *w = ctx;
    add_kinds(&w->kinds, v, w->head);
}

/* Heads compared, and the first stage where every-head misses something. */
typedef struct Complete {
    int compared, incomplete;
    char first[400];
} Complete;

/* Every stage of every lesson in dir. */
static void walk_dir(const char *dir, Tally *t, Complete *cm)
{
    DIR *dp = opendir(dir);
    ck_assert_ptr_nonnull(dp);
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!strstr(e->d_name, ".lesson")) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        Trace *T;
        Lesson *L = load_run(path, &T);
        for (int k = 0; k < L->nstages; k++) {
            Walk w = { t, e->d_name, k, 0, { { false } } };
            each_step(L, T, k, 0, walk_tally, &w);
            int H = T->s[L->stages[k].setup].heads;
            StageId id = L->stages[k].id;
            if (H < 2 || L->stages[k].head || id == STAGE_KV_CACHE || id == STAGE_ROPE) continue;     /* one head by design */
            for (int h = 1; h <= H; h++) {     /* every head on the stage, against head h alone */
                Walk all = { t, e->d_name, k, h, { { false } } }, one = all;
                each_step(L, T, k, 0, walk_kinds, &all);
                each_step(L, T, k, h, walk_kinds, &one);
                cm->compared++;
                for (int x = 0; x < TK_COUNT; x++)
                    if (one.kinds.k[x] && !all.kinds.k[x] && getenv("SLIDES_VERBOSE"))
                        printf("INCOMPLETE %s %s head %d %s\n", e->d_name, lesson_stage_name(L->stages[k].id), h,
                               trace_kind_name(x));
                for (int x = 0; x < TK_COUNT; x++)
                    if (one.kinds.k[x] && !all.kinds.k[x] && !cm->incomplete++)
                        snprintf(cm->first, sizeof cm->first, "%s stage %d (%s): head %d alone shows %s, every head does not",
                                 e->d_name, k + 1, lesson_stage_name(L->stages[k].id), h, trace_kind_name(x));
            }
        }
        trace_free(T);
        lesson_free(L);
    }
    closedir(dp);
}

START_TEST(test_slides_print_every_number_legibly)
{
    Tally t;
    memset(&t, 0, sizeof t);
    Complete cm;
    memset(&cm, 0, sizeof cm);
    walk_dir("../lessons", &t, &cm);
    walk_dir("slide-lessons", &t, &cm);
    printf("slides: %d slides, %ld numbers, %.1f %% at 14 px or more (%.1f %% of those the canvas allows at 14 px), "
           "%ld under 12 px\n", t.slides, t.printed, t.printed ? 100.0 * t.at14 / t.printed : 0.0,
           t.could14 ? 100.0 * t.at14 / t.could14 : 0.0, t.under12);
    printf("slides: %ld numbers in panels that alone print under 14 px\n", t.canvas_bound);
    printf("slides: %d panels of kv_cache and online_softmax sub-steps leave out numbers they could print alone\n",
           t.hidden_in_time);
    ck_assert_int_gt(t.slides, 150);
    ck_assert_msg(t.under12 == 0, "%ld numbers under 12 px, e.g. %s", t.under12, t.first_small);
    ck_assert_msg(t.at14 * 10 >= t.could14 * 9, "%ld of %ld numbers at 14 px or more (90 %% wanted)", t.at14, t.could14);
    ck_assert_msg(t.hidden_wrongly == 0, "%d panels hide numbers they could print alone, e.g. %s", t.hidden_wrongly,
                  t.first_hidden);
    ck_assert_int_gt(cm.compared, 30);
    ck_assert_msg(cm.incomplete == 0, "%d heads incomplete, e.g. %s", cm.incomplete, cm.first);
}
END_TEST

/* The tour's projections (seven 4x4 panels) in the window's first size,
** 1280x800: every panel, on whichever sub-step it is, prints its numbers
** at 13 px or more, where four panels in one row used to print theirs at
** 10 px while the three below had 18. */
START_TEST(test_seven_panels_print_legibly)
{
    Trace *T;
    Lesson *L = load_run("../lessons/01-tour.lesson", &T);
    int panels = 0, nsteps = 1;
    for (int t = 0; t < nsteps; t++) {
        StageOpts o = { 0, t, false };
        View *v = stage_view_with(L, T, 1, &o);
        nsteps = v->nsteps;
        DrawList *d = lay_at(v, 1280, 800);
        for (int k = 0; k < v->npanels; k++, panels++) {
            float fs = 0;
            for (int i = 0; i < d->n; i++)
                if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel == k) fs = d->cmds[i].size;
            ck_assert_msg(fs >= 13, "sub-step %d panel %d prints its numbers at %.0f px", t + 1, k, fs);
        }
        draw_free(d);
        stage_view_free(v);
    }
    ck_assert_int_eq(panels, 7);
    trace_free(T);
    lesson_free(L);
}
END_TEST

/* The colour of the cell of panel 0 of sub-step t of stage k holding the
** largest magnitude (*value receives it). */
static Color strongest_cell(const Lesson *L, const Trace *T, int k, int t, double *value)
{
    StageOpts o = { 0, t, false };
    View *v = stage_view_with(L, T, k, &o);
    const Mat *m = v->panels[0].m;
    int best = 0;
    for (int i = 1; i < m->rows * m->cols; i++)
        if (fabs(m->data[i]) > fabs(m->data[best])) best = i;
    *value = m->data[best];
    DrawList *d = lay_slide(v);
    Color c = { 0, 0, 0, 0 };
    bool found = false;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *cmd = &d->cmds[i];
        if (cmd->kind == DRAW_RECT && cmd->role == ROLE_CELL && cmd->panel == 0 && cmd->row == best / m->cols
            && cmd->col == best % m->cols) {
            c = cmd->color;
            found = true;
        }
    }
    ck_assert_msg(found, "no cell drawn for sub-step %d", t + 1);
    draw_free(d);
    stage_view_free(v);
    return c;
}

/* The pages of one stage share their colour scale: head 2's raw scores
** (its first page, up to 2.85) and its scaled ones (its second, up to
** 2.02) do not reach the same end colour, as they would each on a scale
** of its own. */
START_TEST(test_pages_share_one_colour_scale)
{
    Trace *T;
    Lesson *L = load_run("slide-lessons/sixteen-grouped-window.lesson", &T);
    ck_assert_int_eq(L->stages[2].id, STAGE_SCALED_SCORES);
    double raw, scaled;
    Color a = strongest_cell(L, T, 2, 2, &raw), b = strongest_cell(L, T, 2, 3, &scaled);
    ck_assert_double_eq_tol(scaled * sqrt(2.0), raw, 1e-9);         /* the same cell, divided by √2 */
    ck_assert_msg(a.r != b.r || a.g != b.g || a.b != b.b, "%.2f and %.2f are drawn in one colour", raw, scaled);
    trace_free(T);
    lesson_free(L);
}
END_TEST

/* qkv_projection with two heads ends with the split into heads (lesson
** 02, as seed 002 prints "Head 0 Q values"): Q_h, K_h and V_h for each
** head, head 2's columns named d3 and d4, equal to columns 3-4 of Q. */
START_TEST(test_qkv_splits_heads)
{
    Trace *T;
    Lesson *L = load_run("../lessons/02-one-hot-to-qkv.lesson", &T);
    int k = 8;
    ck_assert_int_eq(L->stages[k].id, STAGE_QKV_PROJECTION);
    StageOpts o = { 0, 0, true };
    View *v = stage_view_with(L, T, k, &o);
    const char *want[] = { "head1.Q", "head1.K", "head1.V", "head2.Q", "head2.K", "head2.V" };
    int first = v->npanels - 6;
    ck_assert_int_ge(first, 0);
    for (int i = 0; i < 6; i++) ck_assert_str_eq(v->panels[first + i].matrix, want[i]);
    const Panel *q2 = &v->panels[first + 3];
    ck_assert_str_eq(q2->col_labels[0], "d3");
    ck_assert_str_eq(q2->col_labels[1], "d4");
    const Mat *Q = trace_at(T, L->stages[k].setup, trace_ref(TK_Q, 0));
    for (int r = 0; r < Q->rows; r++)
        for (int c = 0; c < 2; c++) ck_assert_double_eq(mat_get(q2->m, r, c), mat_get(Q, r, 2 + c));
    stage_view_free(v);
    trace_free(T);
    lesson_free(L);
}
END_TEST

Suite *slides_suite(void)
{
    Suite *s = suite_create("slides");
    TCase *tc = tcase_create("projector");
    tcase_add_checked_fixture(tc, tfonts_setup, tfonts_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_slides_print_every_number_legibly);
    tcase_add_test(tc, test_seven_panels_print_legibly);
    tcase_add_test(tc, test_pages_share_one_colour_scale);
    tcase_add_test(tc, test_qkv_splits_heads);
    suite_add_tcase(s, tc);
    return s;
}
