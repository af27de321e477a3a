/*
** test_slides.c: every stage of the bundled lessons and of the lessons in
** slide-lessons/ (8 to 16 tokens, 1 to 4 heads, masks, grouped-query
** heads, RoPE, ALiBi, cross-attention, the K/V cache), every sub-step,
** laid out as --export draws it on the projector slide: 1280x720 measured
** with DejaVu Sans.
**
** What a class in a lecture hall relies on: no cell number is printed under
** 12 px, at least 95 % at 14 px or more, and 99 % of those the slide allows
** at 14 px (a panel that would print at 14 px alone on the slide); a panel leaves its numbers out
** only when, alone on the slide, it could not print them at 12 px (numbers
** move into sub-steps, they are not hidden; kv_cache's tokens take two
** sub-steps each where one would hide numbers, while online_softmax's
** blocks and kv_cache's last page, the comparison, are not yet split
** further, and are only counted); and with several heads a stage shows, for every
** head, the matrices it shows for one head chosen alone (kv_cache too: each
** head's q, weights and output, and its K/V head's cache, on every token).
*/
#include "suites.h"
#include "tfonts.h"
#include "tstages.h"
#include "tslides.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/stage/stage_table.h"
#include "core/compute/trace.h"
#include "sdl/font.h"
#include "view/layout.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* What the walk adds up. */
typedef struct Tally {
    long printed, at14, under12;
    long could14;               /* numbers in panels that print at 14 px, or would alone */
    long canvas_bound;          /* numbers in panels that alone on the slide print under 14 px */
    long dense;                 /* numbers on dense pages (View.dense: a head's pages held to three), and on the
                                ** page of every head side by side, under 14 px */
    int hidden_wrongly, slides;
    int hidden_in_time;         /* the same on online_softmax's blocks or kv_cache's last comparison (counted) */
    int small_and_empty;        /* slides with numbers under 14 px and a third of the canvas empty below */
    char first_empty[400];
    char first_small[400], first_hidden[400];
} Tally;

/* The font panel k of v prints its numbers at alone on a w x h canvas,
** with the explanation, which every page carries whole (0: none). */
static float font_alone_at(const View *v, int k, int w, int h)
{
    View one = *v;
    Panel only = v->panels[k];
    one.panels = &only;
    one.npanels = 1;
    DrawList *d = tslides_lay_at(&one, w, h);
    float fs = 0;
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel == 0 && d->cmds[i].size > fs) fs = d->cmds[i].size;
    draw_free(d);
    return fs;
}

/* The same on the projector slide. */
static float font_alone(const View *v, int k)
{
    return font_alone_at(v, k, SLIDE_W, SLIDE_H);
}

/* One slide: its numbers' sizes (a panel under 14 px counts towards the
** 14 px share only when alone it would print at 14 px: where the canvas
** allows it), and panels without numbers. */
static void tally_slide(Tally *t, const char *name, int k, const View *v)
{
    if (v->compare) return;     /* the heads side by side: pictures, their numbers on each head's own pages */
    DrawList *d = tslides_lay(v);
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
    float least = INFINITY, bottom = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role == ROLE_CELL_TEXT) least = fminf(least, c->size);
        if (c->role >= ROLE_CELL && c->role <= ROLE_TICK_LABEL) bottom = fmaxf(bottom, c->r.y + c->r.h);
    }
    draw_free(d);
    if (least < 14 && bottom < 2 * SLIDE_H / 3 && !v->compare) {   /* (every head side by side: a picture each) */
        if (getenv("SLIDES_VERBOSE"))
            printf("EMPTY %s stage %d step %d: %.0f px numbers, empty below %.0f\n", name, k + 1, v->step + 1, least,
                   bottom);
        if (!t->small_and_empty++)
            snprintf(t->first_empty, sizeof t->first_empty, "%s stage %d step %d: numbers at %.0f px, nothing below %.0f px",
                     name, k + 1, v->step + 1, least, bottom);
    }
    for (int p = 0; p < v->npanels; p++) {
        const Panel *pn = &v->panels[p];
        if (cells[p] > 0 && (v->dense || v->compare) && font[p] < 14) {    /* held to three pages a head, or every
                                                                       ** head side by side: the floor or more */
            t->dense += cells[p];
            if (getenv("SLIDES_VERBOSE"))
                printf("DENSE %s stage %d step %d panel %d \"%s\" %ld numbers at %.0f\n", name, k + 1, v->step + 1, p,
                       pn->title, cells[p], font[p]);
            continue;
        }
        if (cells[p] > 0) {
            if (font[p] >= 14) t->at14 += cells[p], t->could14 += cells[p];
            else if (font_alone(v, p) >= 14) {
                t->could14 += cells[p];
                if (getenv("SLIDES_VERBOSE"))
                    printf("COULD %s stage %d step %d (%s) panel %d \"%s\" %ld numbers at %.0f\n", name, k + 1, v->step + 1,
                           v->step_name ? v->step_name : "", p, pn->title, cells[p], font[p]);
            }
            else {
                t->canvas_bound += cells[p];
                if (getenv("SLIDES_VERBOSE"))
                    printf("BOUND %s stage %d step %d panel %d \"%s\" %dx%d %ld numbers at %.1f (alone %.1f)\n", name, k + 1,
                           v->step + 1, p, pn->title, pn->m ? pn->m->rows : 0, pn->m ? pn->m->cols : 0, cells[p], font[p],
                           font_alone(v, p));
            }
            continue;
        }
        if (pn->kind != PANEL_HEATMAP || !pn->m || pn->m->rows * pn->m->cols == 0) continue;
        if (getenv("SLIDES_VERBOSE") && font_alone(v, p) >= 12)
            printf("HIDDEN %s stage %d step %d panel %d\n", name, k + 1, v->step + 1, p);
        if (font_alone(v, p) < 12) continue;
        if (v->id == STAGE_ONLINE_SOFTMAX || (v->id == STAGE_KV_CACHE && v->step == v->nsteps - 1)
            || v->compare) {            /* not yet in parts; every head side by side, as pictures */
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

/* What the callbacks of tstages_each_step read. */
typedef struct Walk {
    Tally *t;
    const char *name;
    int k, head;
    Kinds kinds;
} Walk;

/* tstages_each_step callbacks: tally a slide; gather the kinds of a head. */
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

/* What walk_lesson adds to. */
typedef struct Legible {
    Tally *t;
    Complete *cm;
} Legible;

/* Every stage of one lesson: its slides tallied, its heads compared. */
static void walk_lesson(const char *name, const Lesson *L, const Trace *T, void *ctx)
{
    Tally *t = ((Legible *)ctx)->t;
    Complete *cm = ((Legible *)ctx)->cm;
    for (int k = 0; k < L->nstages; k++) {
        Walk w = { t, name, k, 0, { { false } } };
        tstages_each_step(L, T, k, 0, walk_tally, &w);
        int H = T->s[L->stages[k].setup].heads;
        if (H < 2 || L->stages[k].head) continue;     /* one head by design */
        for (int h = 1; h <= H; h++) {     /* every head on the stage, against head h alone */
            Walk all = { t, name, k, h, { { false } } }, one = all;
            tstages_each_step(L, T, k, 0, walk_kinds, &all);
            tstages_each_step(L, T, k, h, walk_kinds, &one);
            cm->compared++;
            for (int x = 0; x < TK_COUNT; x++)
                if (one.kinds.k[x] && !all.kinds.k[x] && getenv("SLIDES_VERBOSE"))
                    printf("INCOMPLETE %s %s head %d %s\n", name, lesson_stage_name(L->stages[k].id), h,
                           trace_kind_name(x));
            for (int x = 0; x < TK_COUNT; x++)
                if (one.kinds.k[x] && !all.kinds.k[x] && !cm->incomplete++)
                    snprintf(cm->first, sizeof cm->first, "%s stage %d (%s): head %d alone shows %s, every head does not",
                             name, k + 1, lesson_stage_name(L->stages[k].id), h, trace_kind_name(x));
        }
    }
}

START_TEST(test_slides_print_every_number_legibly)
{
    Tally t;
    memset(&t, 0, sizeof t);
    Complete cm;
    memset(&cm, 0, sizeof cm);
    Legible lg = { &t, &cm };
    tslides_each_lesson(walk_lesson, &lg);
    printf("slides: %d slides, %ld numbers, %.1f %% at 14 px or more (%.1f %% of those the canvas allows at 14 px), "
           "%ld under 12 px\n", t.slides, t.printed, t.printed ? 100.0 * t.at14 / t.printed : 0.0,
           t.could14 ? 100.0 * t.at14 / t.could14 : 0.0, t.under12);
    printf("slides: %ld numbers in panels that alone print under 14 px, %ld on dense pages (three a head)\n",
           t.canvas_bound, t.dense);
    printf("slides: %d panels of online_softmax's blocks and kv_cache's comparisons leave out numbers they could print "
           "alone\n",
           t.hidden_in_time);
    printf("slides: %d slides print numbers under 14 px and leave the lowest third empty\n", t.small_and_empty);
    ck_assert_int_gt(t.slides, 150);
    ck_assert_msg(t.under12 == 0, "%ld numbers under 12 px, e.g. %s", t.under12, t.first_small);
    ck_assert_msg(t.at14 * 100 >= t.printed * 95, "%ld of %ld numbers at 14 px or more (95 %% wanted)", t.at14,
                  t.printed);
    ck_assert_msg(t.at14 * 100 >= t.could14 * 99, "%ld of the %ld numbers the canvas allows at 14 px get it (99 %% wanted)",
                  t.at14, t.could14);
    ck_assert_msg(t.small_and_empty == 0, "%d slides print small numbers above empty canvas, e.g. %s",
                  t.small_and_empty, t.first_empty);
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
    Lesson *L = tslides_load("../lessons/01-tour.lesson", &T);
    int panels = 0, nsteps = 1;
    for (int t = 0; t < nsteps; t++) {
        StageOpts o = { 0, t, false, tstages_pager() };
        View *v = stage_view_with(L, T, 1, &o);
        nsteps = v->nsteps;
        DrawList *d = tslides_lay_at(v, 1280, 800);
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
    StageOpts o = { 0, t, false, tstages_pager() };
    View *v = stage_view_with(L, T, k, &o);
    const Mat *m = v->panels[0].m;
    int best = 0;
    for (int i = 1; i < m->rows * m->cols; i++)
        if (fabs(m->data[i]) > fabs(m->data[best])) best = i;
    *value = m->data[best];
    DrawList *d = tslides_lay(v);
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
    Lesson *L = tslides_load("slide-lessons/sixteen-grouped-window.lesson", &T);
    ck_assert_int_eq(L->stages[2].id, STAGE_SCALED_SCORES);
    double raw, scaled;
    StageOpts o = { 0, 0, false, tstages_pager() };
    View *v = stage_view_with(L, T, 2, &o);
    int h2 = v->head_step[2];                           /* head 2's first page (after every head's) */
    stage_view_free(v);
    ck_assert_int_gt(h2, 0);
    Color a = strongest_cell(L, T, 2, h2, &raw), b = strongest_cell(L, T, 2, h2 + 1, &scaled);
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
    Lesson *L = tslides_load("../lessons/02-one-hot-to-qkv.lesson", &T);
    int k = 8;
    ck_assert_int_eq(L->stages[k].id, STAGE_QKV_PROJECTION);
    StageOpts o = { 0, 0, true, NULL };
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

/* The size of the first text drawn with role in d (0: none). */
static float role_size(const DrawList *d, DrawRole role)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == DRAW_TEXT && d->cmds[i].role == role) return d->cmds[i].size;
    return 0;
}

/* Every multi-head stage whose heads all fit one page, in the window's
** first size and on the slide: H (one head at a time) keeps the title,
** formula, explanation, panel and axis titles at the size they have with
** every head, where the tour's two heads had their panel titles grow from
** 15 to 21 px. */
/* What head_sizes adds up. */
typedef struct HeadSizes {
    int compared, changed;
    char first[400];
} HeadSizes;

/* One lesson's multi-head stages whose heads share a page, with and
** without H, in the window's first size and on the slide; each head also
** laid out with one cache kept over sizes and heads (the font of every
** head's titles is kept there, by size): at the other size first, then
** twice at this one, as the window's frames do. */
static void head_sizes(const char *name, const Lesson *L, const Trace *T, void *ctx)
{
    HeadSizes *hs = ctx;
    const int sizes[2][2] = { { 1280, 800 }, { SLIDE_W, SLIDE_H } };
    const DrawRole roles[] = { ROLE_TITLE, ROLE_BODY, ROLE_PANEL_TITLE, ROLE_AXIS_TITLE, ROLE_FORMULA };
    const char *role_names[] = { "title", "explanation", "panel title", "axis title", "formula" };
    for (int k = 0; k < L->nstages; k++) {
        int H = T->s[L->stages[k].setup].heads;
        if (H < 2 || L->stages[k].head) continue;
        StageOpts all = { 0, 0, false, tstages_pager() };
        View *v = stage_view_with(L, T, k, &all);
        if (v->nsteps > 1) {
            stage_view_free(v);
            continue;
        }
        LayoutCache *kept = layout_cache_create();
        for (int z = 0; z < 2; z++) {
            DrawList *d = tslides_lay_at(v, sizes[z][0], sizes[z][1]);
            for (int h = 1; h <= H; h++) {
                StageOpts one = { h, 0, false, tstages_pager() };
                View *w = stage_view_with(L, T, k, &one);
                draw_free(tslides_lay_kept(kept, w, sizes[1 - z][0], sizes[1 - z][1]));     /* the other size kept first */
                DrawList *dh[3] = { tslides_lay_at(w, sizes[z][0], sizes[z][1]), tslides_lay_kept(kept, w, sizes[z][0], sizes[z][1]),
                                    tslides_lay_kept(kept, w, sizes[z][0], sizes[z][1]) };
                for (int x = 0; x < 3; x++)
                    for (int r = 0; r < (int)(sizeof roles / sizeof *roles); r++) {
                        float a = role_size(d, roles[r]), b = role_size(dh[x], roles[r]);
                        hs->compared++;
                        if (a > 0 && b > 0 && fabsf(a - b) > 0.01f && !hs->changed++)
                            snprintf(hs->first, sizeof hs->first, "%s stage %d at %dx%d: %s %.1f px, head %d %.1f px%s",
                                     name, k + 1, sizes[z][0], sizes[z][1], role_names[r], a, h, b,
                                     x ? " (a kept cache)" : "");
                    }
                for (int x = 0; x < 3; x++) draw_free(dh[x]);
                stage_view_free(w);
            }
            draw_free(d);
        }
        layout_cache_free(kept);
        stage_view_free(v);
    }
}

START_TEST(test_head_keeps_text_size)
{
    HeadSizes h;
    memset(&h, 0, sizeof h);
    tslides_each_lesson(head_sizes, &h);
    ck_assert_int_gt(h.compared, 20);
    ck_assert_msg(h.changed == 0, "%d texts change size with H, e.g. %s", h.changed, h.first);
}
END_TEST

/* The smallest and largest size of the texts drawn with role in d. */
static void role_sizes(const DrawList *d, DrawRole role, float *lo, float *hi)
{
    *lo = INFINITY;
    *hi = 0;
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == DRAW_TEXT && d->cmds[i].role == role) {
            *lo = fminf(*lo, d->cmds[i].size);
            *hi = fmaxf(*hi, d->cmds[i].size);
        }
}

/* Slides whose panels used to leave the lower part of the canvas empty
** while printing 13-14 px numbers: one query of eleven tokens (four
** one-row panels a head, the weights' column labels smaller than the
** others'), the fifth step of a K/V cache (seven panels), and one query of
** twelve tokens in three heads (two half-empty pages a head). Now their
** rows take the canvas's width and height, and both heads of the first,
** stacked, print on one slide: every number at the size given or more, the
** numbers at one size across the panels, and where asked the column labels
** too; the twelve tokens take a page a head, after the page of every head
** side by side. */
START_TEST(test_slides_use_the_canvas)
{
    const struct { const char *path; int stage; const char *step; float least; bool labels_even; } slides[] = {
        { "slide-lessons/eleven-two-heads-causal.lesson", 8, NULL, 14, false },
        { "slide-lessons/eight-cache-online.lesson", 4, "t5", 14, true },
        { "slide-lessons/twelve-three-heads.lesson", 1, "h2", 16, false },
    };
    for (size_t i = 0; i < sizeof slides / sizeof *slides; i++) {
        Trace *T;
        Lesson *L = tslides_load(slides[i].path, &T);
        View *v = NULL;
        const char *want = slides[i].step;
        for (int t = 0; !v || (want && strncmp(v->step_name, want, strlen(want)) && t < v->nsteps); t++) {
            stage_view_free(v);
            StageOpts o = { 0, t, false, tstages_pager() };
            v = stage_view_with(L, T, slides[i].stage - 1, &o);
            ck_assert(want ? v->step_name != NULL : v->nsteps <= 1);
        }
        ck_assert_msg(!want || strcmp(v->step_name, want) == 0, "no page %s", want);
        if (want && strcmp(want, "h2") == 0) ck_assert_int_eq(v->nsteps, 4);      /* every head, then a page a head */
        ck_assert_int_ge(v->npanels, 4);
        DrawList *d = tslides_lay(v);
        float lo, hi, llo, lhi;
        role_sizes(d, ROLE_CELL_TEXT, &lo, &hi);
        role_sizes(d, ROLE_COL_LABEL, &llo, &lhi);
        ck_assert_msg(lo >= slides[i].least, "%s stage %d %s: numbers at %.1f px", slides[i].path, slides[i].stage,
                      want ? want : "", lo);
        ck_assert_msg(hi - lo < 0.01f && (!slides[i].labels_even || lhi - llo < 0.01f),
                      "%s stage %d %s: numbers at %.1f-%.1f px, column labels at %.1f-%.1f px", slides[i].path,
                      slides[i].stage, want ? want : "", lo, hi, llo, lhi);
        draw_free(d);
        stage_view_free(v);
        trace_free(T);
        lesson_free(L);
    }
}
END_TEST

/* What walk_window counts at the window's size. */
typedef struct Window {
    const char *name;
    int k, slides, hidden;
    int growing;                /* the same on K/V cache pages planned at the last token's size (counted) */
    char first[400];
} Window;

/* tstages_each_step callback: v at 1280x800, and every heatmap without numbers
** that alone at that size would print them. */
static void walk_window(const View *v, void *ctx)
{
    Window *w = ctx;
    if (v->compare) return;     /* the heads side by side: pictures, their numbers on each head's own pages */
    DrawList *d = tslides_lay_at(v, 1280, 800);
    w->slides++;
    for (int p = 0; p < v->npanels && p < VIEW_MAX_PANELS; p++) {
        const Panel *pn = &v->panels[p];
        if (pn->kind != PANEL_HEATMAP || !pn->m || pn->m->rows * pn->m->cols == 0) continue;
        int n = 0;
        for (int i = 0; i < d->n && !n; i++) n = d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel == p;
        if (n || v->compare || font_alone_at(v, p, 1280, 800) <= 0) continue;   /* every head's picture: no numbers */
        bool growing = false;
        for (int q = 0; q < v->npanels; q++) growing |= v->panels[q].full_cols > 0 || v->panels[q].full_rows > 0;
        if (growing) {          /* a row of 14 keys' weights beside a 14-key cache: not yet */
            w->growing++;
            continue;
        }
        if (getenv("SLIDES_VERBOSE"))
            printf("WHIDDEN %s stage %d step %d panel %d \"%s\"\n", w->name, w->k + 1, v->step + 1, p, pn->title);
        if (!w->hidden++)
            snprintf(w->first, sizeof w->first, "%s stage %d step %d panel %d \"%s\"", w->name, w->k + 1, v->step + 1, p,
                     pn->title);
    }
    draw_free(d);
}

/* Every stage and step of one lesson through walk_window. */
static void window_lesson(const char *name, const Lesson *L, const Trace *T, void *ctx)
{
    Window *w = ctx;
    w->name = name;
    for (w->k = 0; w->k < L->nstages; w->k++) tstages_each_step(L, T, w->k, 0, walk_window, w);
}

/* The window's own size, 1280x800: a K/V cache step of lesson 10, whose
** explanation beside the panels left room for all but one, printed every
** panel's numbers but new q's (drawn as 5 px cells with "a panel has too
** many cells" below): the explanation under the panels gives way first
** when some numbers would otherwise go. Over every stage and step of the
** bundled and test lessons and of twelve generated ones, no heatmap is
** drawn without numbers that alone at that size would print them (the
** tour's heads did, before a page that leaves numbers out was tried with
** smaller titles and labels). K/V cache pages are only counted: their
** panels are planned at the last token's size, and a long token's 14-key
** row of weights beside its 14-key cache does not print at 1280x800, whose
** legible floor is 13 px where the slide's is 12. */
START_TEST(test_window_size_prints_every_panel)
{
    Window w;
    memset(&w, 0, sizeof w);
    tslides_each_lesson(window_lesson, &w);
    tslides_each_generated(window_lesson, &w);
    printf("slides: %d pages at 1280x800, %d heatmaps without numbers they could print alone, %d on K/V cache pages\n",
           w.slides, w.hidden, w.growing);
    ck_assert_int_gt(w.slides, 500);
    ck_assert_msg(w.hidden == 0, "%d heatmaps at 1280x800 hide numbers they could print alone, e.g. %s", w.hidden,
                  w.first);
}
END_TEST

/* What the pager's pages and the layout's answers add up to. */
typedef struct Agree {
    int pages, stages_paged;
    int unfit, needless;        /* pages the layout says do not serve; stages cut that one page held */
    char first[400];
} Agree;

/* tstages_each_step callback: one page, asked of the layout as the pager asks. */
static void agree_page(const View *v, void *ctx)
{
    Agree *a = ctx;
    if (v->compare) return;     /* not cut by the pager: every head's picture, with numbers where they fit */
    a->pages++;
    LayoutFitter *f = layout_fitter_create(font_measure, tfonts);
    bool serves = layout_fitter_fits(f, v);
    layout_fitter_free(f);
    /* a page of one panel, or one of a stage in time (a K/V cache's side, an
    ** online softmax's block) at its smallest, is what it must be even when
    ** it does not serve: the layout then prints what it can */
    if (!serves && v->npanels > 1 && v->id != STAGE_KV_CACHE && v->id != STAGE_ONLINE_SOFTMAX && !v->compare
        && !a->unfit++)
        snprintf(a->first, sizeof a->first, "stage %d (%s) page %d of %d (%s): %d panels the layout says do not serve",
                 v->stage + 1, lesson_stage_name(v->id), v->step + 1, v->nsteps, v->step_label ? v->step_label : "",
                 v->npanels);
}

/* Every stage of one lesson: each page serves, and a stage cut into pages
** could not be one page (its panels together do not serve). */
static void agree_lesson(const char *name, const Lesson *L, const Trace *T, void *ctx)
{
    Agree *a = ctx;
    for (int k = 0; k < L->nstages; k++) {
        tstages_each_step(L, T, k, 0, agree_page, a);
        StageOpts whole = { 0, 0, true, NULL }, paged = { 0, 0, false, tstages_pager() };
        View *w = stage_view_with(L, T, k, &whole), *p = stage_view_with(L, T, k, &paged);
        bool in_time = stage_kind(L->stages[k].id)->steps != NULL;
        if (p->nsteps > 1 && !in_time && w->npanels <= VIEW_MAX_PANELS) {
            a->stages_paged++;
            View one = *w;                          /* the whole stage as one page, as the pager asks */
            one.formula = p->formula;
            one.note = p->note;
            Panel copy[VIEW_MAX_PANELS];
            memcpy(copy, w->panels, sizeof *copy * (size_t)w->npanels);
            for (int i = 1; i < w->npanels && w->id == STAGE_NEXT_TOKEN; i++)
                copy[i].must_print = true;          /* its words are cut so that every number prints */
            for (int i = 0; i < w->npanels && w->id == STAGE_MLP; i++)   /* so are its hidden units */
                copy[i].must_print = copy[i].ref.kind == TK_MLP_PRE || copy[i].ref.kind == TK_MLP_ACT;
            one.panels = copy;
            LayoutFitter *f = layout_fitter_create(font_measure, tfonts);
            if (layout_fitter_fits(f, &one) && !a->needless++)
                snprintf(a->first, sizeof a->first, "%s stage %d (%s): cut into %d pages, one page serves", name, k + 1,
                         lesson_stage_name(L->stages[k].id), p->nsteps);
            layout_fitter_free(f);
        }
        stage_view_free(w);
        stage_view_free(p);
    }
}

/*
** The pager and the layout agree: the pager cuts a stage where the layout
** says a page no longer serves (layout_fit.c), so every page it makes
** serves, and no stage is cut that one page would have held. Over the
** bundled lessons, the test lessons and generated ones.
*/
START_TEST(test_pager_and_layout_agree)
{
    Agree a;
    memset(&a, 0, sizeof a);
    tslides_each_lesson(agree_lesson, &a);
    tslides_each_generated(agree_lesson, &a);
    printf("slides: %d pages, %d of them the layout says do not serve; %d stages cut into pages, %d of them needlessly\n",
           a.pages, a.unfit, a.stages_paged, a.needless);
    ck_assert_int_gt(a.pages, 400);
    ck_assert_int_gt(a.stages_paged, 20);
    ck_assert_msg(a.unfit == 0 && a.needless == 0, "%s", a.first);
}
END_TEST

/* Where panel k of d sits: its first cell, its colour bar and its title. */
typedef struct Place { Rect cell, bar, title; } Place;

/* The places of d's panels (up to VIEW_MAX_PANELS), bars as their bounds. */
static void places_of(const DrawList *d, Place *pl, int n)
{
    memset(pl, 0, sizeof *pl * (size_t)n);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->panel < 0 || c->panel >= n) continue;
        Place *q = &pl[c->panel];
        if (c->role == ROLE_CELL && c->row == 0 && c->col == 0) q->cell = c->r;
        if (c->role == ROLE_PANEL_TITLE && q->title.w == 0) q->title = c->r;
        if (c->role == ROLE_COLORBAR) {
            if (q->bar.w == 0) q->bar = c->r;
            float x1 = fmaxf(q->bar.x + q->bar.w, c->r.x + c->r.w), y1 = fmaxf(q->bar.y + q->bar.h, c->r.y + c->r.h);
            q->bar.x = fminf(q->bar.x, c->r.x);
            q->bar.y = fminf(q->bar.y, c->r.y);
            q->bar.w = x1 - q->bar.x;
            q->bar.h = y1 - q->bar.y;
        }
    }
}

/* True when two rectangles are as wide and as high, to a hundredth of a
** pixel. */
static bool same_size(Rect a, Rect b)
{
    return fabsf(a.w - b.w) < 0.01f && fabsf(a.h - b.h) < 0.01f;
}

/* Every kv_cache stage, on the slide: from the second token to the last,
** each panel (new q, k, v, the caches sized for every token, the weights,
** the output) keeps the size of its cells and of its colour bar as on the
** second token's page of the same heads and part (the page named alike
** after its token: "t2-h2-1" and "t9-h2-1"), where the caches' cells and
** bars used to change as they grew. (A panel may still move by a few
** pixels as the labels and titles beside it grow; the first token's page,
** with one key, is planned apart; and pages whose numbers are at the 12 px
** floor, sixteen tokens' values side, still differ by a pixel or so from
** one token to the next, and are left out.) */
/* What kv_places adds up. */
typedef struct KvSizes {
    int stages, compared, floor_pages;
} KvSizes;

/* The pages of one token seen first, by what follows the token in their names. */
typedef struct KvFirst {
    char what[32];
    int npanels;
    Place pl[VIEW_MAX_PANELS];
} KvFirst;

/* One lesson's kv_cache stages: each token's panels against the second's. */
static void kv_places(const char *name, const Lesson *L, const Trace *T, void *ctx)
{
    KvSizes *ks = ctx;
    for (int k = 0; k < L->nstages; k++) {
        if (L->stages[k].id != STAGE_KV_CACHE) continue;
        ks->stages++;
        KvFirst *first = calloc(64, sizeof *first);
        int nfirst = 0, nsteps = 1;
        for (int t = 0; t < nsteps; t++) {
            StageOpts o = { 0, t, false, tstages_pager() };
            View *v = stage_view_with(L, T, k, &o);
            nsteps = v->nsteps;
            const char *what = v->step_name + strspn(v->step_name + 1, "0123456789") + 1;   /* after "t<token>" */
            bool t1 = !strncmp(v->step_name, "t1", 2) && (v->step_name[2] == 0 || v->step_name[2] == '-');
            if (v->step_name[0] != 't' || t1) {     /* the comparison; the first token (above) */
                stage_view_free(v);
                continue;
            }
            DrawList *d = tslides_lay(v);
            Place pl[VIEW_MAX_PANELS];
            places_of(d, pl, v->npanels);
            float lo, hi;
            role_sizes(d, ROLE_CELL_TEXT, &lo, &hi);
            int f = 0;
            while (f < nfirst && strcmp(first[f].what, what)) f++;
            if (lo <= 12) {                         /* at the floor: see above */
                ks->floor_pages++;
            } else if (f == nfirst) {
                ck_assert_int_lt(nfirst, 64);
                snprintf(first[f].what, sizeof first[f].what, "%s", what);
                first[f].npanels = v->npanels;
                memcpy(first[f].pl, pl, sizeof pl);
                nfirst++;
            } else {
                ck_assert_int_eq(v->npanels, first[f].npanels);
                for (int p = 0; p < v->npanels; p++, ks->compared++)
                    ck_assert_msg(same_size(pl[p].cell, first[f].pl[p].cell) && same_size(pl[p].bar, first[f].pl[p].bar),
                                  "%s stage %d %s: panel %d \"%s\" changed size: cells %.1fx%.1f, bar %.1fx%.1f, "
                                  "were %.1fx%.1f, %.1fx%.1f", name, k + 1, v->step_name, p, v->panels[p].title,
                                  pl[p].cell.w, pl[p].cell.h, pl[p].bar.w, pl[p].bar.h, first[f].pl[p].cell.w,
                                  first[f].pl[p].cell.h, first[f].pl[p].bar.w, first[f].pl[p].bar.h);
            }
            draw_free(d);
            stage_view_free(v);
        }
        free(first);
    }
}

START_TEST(test_kv_cache_panels_stay)
{
    KvSizes ks;
    memset(&ks, 0, sizeof ks);
    tslides_each_lesson(kv_places, &ks);
    printf("slides: kv_cache panels compared %d times, %d pages at the 12 px floor left out\n", ks.compared,
           ks.floor_pages);
    ck_assert_int_ge(ks.stages, 4);
    ck_assert_int_gt(ks.compared, 150);
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
    tcase_add_test(tc, test_head_keeps_text_size);
    tcase_add_test(tc, test_slides_use_the_canvas);
    tcase_add_test(tc, test_kv_cache_panels_stay);
    tcase_add_test(tc, test_window_size_prints_every_panel);
    tcase_add_test(tc, test_pager_and_layout_agree);
    suite_add_tcase(s, tc);
    return s;
}
