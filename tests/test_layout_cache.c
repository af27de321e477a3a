/*
** test_layout_cache.c: what a LayoutCache computes from a view's matrices,
** against the plain definitions; what it keeps from one layout to the
** next, against fresh layouts; and how often the window's frames plan a
** page.
*/
#include "suites.h"
#include "tstages.h"
#include "tlayout.h"
#include "view/layout_int.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "core/util.h"
#include "view/svg.h"
#include "app/frame.h"
#include "app/state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The stats as layout_cache.c defines them: the plain loop, in order. */
static PanelStats plain_stats(const Mat *m)
{
    PanelStats st = { 0, 0, false, false, true, 0, 0, false };
    for (long i = 0; i < (long)m->rows * m->cols; i++) {
        double x = m->data[i];
        if (!isfinite(x)) { st.any_nonfinite = true; continue; }
        if (!st.any || x < st.vmin) st.vmin = x;
        if (!st.any || x > st.vmax) st.vmax = x;
        st.any = true;
        if (x != floor(x)) st.ints = false;
        if (x == 0.0 || x == 1.0) continue;
        if (!st.any_nx || x < st.nx_min) st.nx_min = x;
        if (!st.any_nx || x > st.nx_max) st.nx_max = x;
        st.any_nx = true;
    }
    return st;
}

/* Bit for bit (the sign of a zero extreme counts). */
static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

START_TEST(test_stats_match_the_plain_loop)
{
    /* Sizes below, at and past the vector path's start, with every kind of
    ** value: zeros of both signs first or late, ones, whole numbers, ±∞,
    ** NaN, all negative, all non-finite. */
    static const double special[] = { 0.0, -0.0, 1.0, INFINITY, -INFINITY, NAN, 2.0, -3.0 };
    static const int sizes[][2] = { { 1, 1 }, { 3, 5 }, { 8, 8 }, { 1, 63 }, { 1, 64 }, { 9, 17 }, { 31, 33 },
                                    { 64, 64 }, { 3, 301 } };
    LayoutCache *c = layout_cache_create();
    View v;
    memset(&v, 0, sizeof v);
    v.panels = tl_panels();
    v.npanels = 1;                      /* serial 0: read afresh at every call */
    unsigned seed = 5;
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        for (int mode = 0; mode < 9; mode++) {
            Mat *m = mat_create(sizes[t][0], sizes[t][1]);
            long n = (long)m->rows * m->cols;
            for (long i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                double x = ((seed >> 8) & 0xFFFF) / 4096.0 - 8.0;
                int pick = (int)((seed >> 3) % 8);
                if (mode == 1 && (seed >> 20) % 5 == 0) x = special[pick];          /* a few of each */
                if (mode == 2) x = special[pick];                                   /* only specials */
                if (mode == 3) x = -fabs(x) - 1;                                    /* all negative */
                if (mode == 4) x = special[3 + (seed >> 9) % 3];                    /* nothing finite */
                if (mode == 5) x = i == n - 1 ? -0.0 : (i % 2 ? 0.0 : 1.0);         /* zeros and ones */
                if (mode == 6) x = i == n / 2 ? -0.0 : fabs(x) + 0.5;               /* one -0 among positives */
                if (mode == 7 || mode == 8) {       /* -0 first, +0 later in another lane: the extreme is -0 */
                    x = mode == 7 ? fabs(x) + 0.5 : -fabs(x) - 0.5;
                    if (i == 1 % n) x = -0.0;
                    if (i == 4 % n && n > 4) x = 0.0;
                }
                m->data[i] = x;
            }
            v.panels[0].m = m;
            PanelStats got = lay_view_stats(c, &v, 0), want = plain_stats(m);
            ck_assert_msg(got.any == want.any && got.any_nonfinite == want.any_nonfinite && got.ints == want.ints
                          && got.any_nx == want.any_nx, "flags, %dx%d mode %d", m->rows, m->cols, mode);
            if (want.any)
                ck_assert_msg(same_bits(got.vmin, want.vmin) && same_bits(got.vmax, want.vmax),
                              "range %g..%g, want %g..%g (%dx%d mode %d)", got.vmin, got.vmax, want.vmin, want.vmax,
                              m->rows, m->cols, mode);
            if (want.any_nx)
                ck_assert_msg(same_bits(got.nx_min, want.nx_min) && same_bits(got.nx_max, want.nx_max),
                              "range without 0 and 1, %dx%d mode %d", m->rows, m->cols, mode);
            mat_free(m);
        }
    }
    layout_cache_free(c);
}
END_TEST

START_TEST(test_stats_are_kept_per_trace)
{
    /* The stats of a trace's matrix are read once for every view of that
    ** trace; a new trace (an edit computes one) reads them afresh, and a
    ** view's own part (a zoom) is always read afresh. */
    LayoutCache *c = layout_cache_create();
    Mat *m = mat_create(8, 8);
    for (int i = 0; i < 64; i++) m->data[i] = i;
    View v;
    memset(&v, 0, sizeof v);
    v.panels = tl_panels();
    v.npanels = 1;
    v.panels[0].m = m;
    v.serial = 1;
    v.trace_serial = 7;
    ck_assert_double_eq(lay_view_stats(c, &v, 0).vmax, 63);
    m->data[5] = 100;                   /* what an edit does to an input before the new trace */
    v.serial = 2;                       /* another view of the same trace: kept */
    ck_assert_double_eq(lay_view_stats(c, &v, 0).vmax, 63);
    v.serial = 3;
    v.trace_serial = 8;                 /* the new trace: read again */
    ck_assert_double_eq(lay_view_stats(c, &v, 0).vmax, 100);
    m->data[6] = 200;
    v.serial = 4;
    v.panels[0].owned = m;              /* a part the view made: never kept across views */
    ck_assert_double_eq(lay_view_stats(c, &v, 0).vmax, 200);
    mat_free(m);
    layout_cache_free(c);
}
END_TEST

/* A fixed-width measure that counts the token labels it is asked about. */
static int label_measures;
static float counting_measure(void *ctx, const char *text, float size, int bold)
{
    if (text[0] == 't' && text[1] >= '0' && text[1] <= '9') label_measures++;
    return layout_measure_fixed(ctx, text, size, bold);
}

START_TEST(test_labels_measured_once_a_view)
{
    /* Hovering lays a view out again and again: its labels (a thousand to
    ** an axis in a real model's layer) are measured for the first layout
    ** only; a new view measures them again. */
    Buf b = { 0 };
    buf_puts(&b, "title: T\n[setup]\nseed: 1\ntokens:");
    for (int i = 0; i < 300; i++) buf_printf(&b, " t%d", i);
    buf_puts(&b, "\nX = randn 300x8\n[softmax]\n");
    Error err;
    Lesson *L = lesson_parse(b.s, b.len, "t.lesson", &err);
    ck_assert_msg(L != NULL, "%s", err.msg);
    Trace *T = attn_run(L, &err);
    View *v = tstages_view(L, T, 0);
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(1280, 720, &th, counting_measure, NULL);
    LayoutCache *c = layout_cache_create();
    DrawList *d = draw_create(1280, 720), *d2 = draw_create(1280, 720);
    label_measures = 0;
    layout_view(c, v, &o, d);
    int first = label_measures;
    label_measures = 0;
    o.hover_panel = 0, o.hover_row = 3, o.hover_col = 4;
    layout_view(c, v, &o, d2);
    /* the drawn ones are fitted again (about 80 of 3500) */
    ck_assert_msg(label_measures * 20 < first, "%d label measures, the first layout %d", label_measures, first);
    o.hover_panel = o.hover_row = o.hover_col = -1;
    layout_view(c, v, &o, d2);
    ck_assert_int_eq(d2->n, d->n);                      /* the same layout */
    ck_assert_int_eq(memcmp(d2->cmds, d->cmds, sizeof *d->cmds * (size_t)d->n), 0);
    View *w = tstages_view(L, T, 0);                      /* a new view: measured again */
    label_measures = 0;
    layout_view(c, w, &o, d2);
    ck_assert_int_gt(label_measures, first / 2);
    stage_view_free(w);
    draw_free(d);
    draw_free(d2);
    layout_cache_free(c);
    stage_view_free(v);
    trace_free(T);
    lesson_free(L);
    buf_free(&b);
}
END_TEST

/* Stage k of L laid out with c at w x h as SVG text (caller frees). */
static char *svg_of(LayoutCache *c, const View *v, int w, int h)
{
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(w, h, &th, layout_measure_fixed, NULL);
    DrawList *d = draw_create(w, h);
    layout_view(c, v, &o, d);
    char *s = svg_write(d, "t", "d", NULL);
    draw_free(d);
    return s;
}

START_TEST(test_a_layout_is_the_same_whatever_came_before)
{
    /* A cache serves a window laid out at its size and, between frames,
    ** pictures at the export's size (the browser's S): each layout must be
    ** the one a fresh cache gives, whatever sizes came before it. Every
    ** stage of the trained-model lesson, the export's size between two of
    ** the window's and back. */
    Error err;
    Lesson *L = lesson_load("../lessons/07-induction-head.lesson", &err);
    ck_assert_msg(L != NULL, "%s", err.msg);
    Trace *T = attn_run(L, &err);
    ck_assert_msg(T != NULL, "%s", err.msg);
    for (int k = 0; k < L->nstages; k++) {
        View *v = tstages_view(L, T, k);
        LayoutCache *fresh = layout_cache_create(), *c = layout_cache_create();
        char *want = svg_of(fresh, v, 1280, 800), *small = svg_of(fresh, v, 1000, 640);
        const int sizes[][2] = { { 1000, 640 }, { 1280, 800 }, { 1000, 640 }, { 1280, 800 }, { 1280, 800 },
                                 { 1000, 640 } };
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            char *got = svg_of(c, v, sizes[i][0], sizes[i][1]);
            ck_assert_msg(!strcmp(got, sizes[i][0] == 1280 ? want : small),
                          "stage %d at %dx%d, layout %zu with one cache, differs from a fresh cache's", k + 1,
                          sizes[i][0], sizes[i][1], i + 1);
            free(got);
        }
        free(want);
        free(small);
        layout_cache_free(fresh);
        layout_cache_free(c);
        stage_view_free(v);
    }
    trace_free(T);
    lesson_free(L);
}
END_TEST

/* The frame of state a as SVG, with a's cache. */
static char *frame_svg(AppState *a, DrawList *d)
{
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    return svg_write(d, "t", "d", NULL);
}

START_TEST(test_a_step_under_the_pointer_is_planned_once)
{
    /* The window after a step, the pointer resting where a cell of the new
    ** stage is (app_frame_pointer): that cell is hovered and the page is
    ** planned once, not a second time for the outlines; the frame is the
    ** one a state that hovered the cell first draws. A shot of the frame
    ** (S lays it out again) plans nothing. */
    AppState *a = app_create(), *b = app_create();
    ck_assert_int_eq(app_open(a, "../lessons/01-tour.lesson"), 0);
    ck_assert_int_eq(app_open(b, "../lessons/01-tour.lesson"), 0);
    DrawList *d = draw_create(1280, 800);
    int hovered = 0;
    for (int k = 0; k < a->doc->L->nstages; k++) {
        app_goto(a, k + 1);
        app_goto(b, k + 1);
        app_frame(b, 1280, 800, layout_measure_fixed, NULL, d);
        Rect cell;
        if (!draw_cell_rect(d, 0, 1, 1, &cell)) continue;          /* a stage of plots */
        app_hover(b, 0, 1, 1);
        char *want = frame_svg(b, d);
        uint64_t before = a->layout->layouts;
        app_frame_pointer(a, 1280, 800, layout_measure_fixed, NULL, d, true, cell.x + cell.w / 2, cell.y + cell.h / 2);
        ck_assert_msg(a->hover_panel == 0 && a->hover_row == 1 && a->hover_col == 1, "stage %d: the cell under the "
                      "pointer is not hovered", k + 1);
        ck_assert_msg(a->layout->layouts - before == 1, "stage %d: %d pages planned for one frame", k + 1,
                      (int)(a->layout->layouts - before));
        char *got = svg_write(d, "t", "d", NULL);
        ck_assert_msg(!strcmp(got, want), "stage %d: the frame differs from a fresh one's", k + 1);
        free(got);
        got = frame_svg(a, d);
        ck_assert_msg(a->layout->layouts - before == 1 && !strcmp(got, want), "stage %d: the shot's frame", k + 1);
        free(got);
        free(want);
        hovered++;
    }
    ck_assert_int_ge(hovered, 8);
    draw_free(d);
    app_free(a);
    app_free(b);
}
END_TEST

/* The layout cache suite. */
Suite *layout_cache_suite(void)
{
    Suite *s = suite_create("layout_cache");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_stats_match_the_plain_loop);
    tcase_add_test(core, test_stats_are_kept_per_trace);
    tcase_add_test(core, test_labels_measured_once_a_view);
    tcase_add_test(core, test_a_layout_is_the_same_whatever_came_before);
    tcase_add_test(core, test_a_step_under_the_pointer_is_planned_once);
    suite_add_tcase(s, core);
    return s;
}
