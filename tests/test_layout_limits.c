/*
** test_layout_limits.c: the layout at its limits, with views built by hand
** and the fixed-width measure: cells too small for text, thousands of
** labels, constant and extreme values, tiny canvases and big text, many
** panels, twelve heads of 1024 tokens, empty views; and the memos and
** caches a layout keeps (they follow the view, belong to the caller, and
** do not grow in a steady state).
*/
#include "tlayout.h"
#include "tstages.h"
#include "view/layout.h"
#include "view/cmap.h"
#include "view/svg.h"
#include "core/util.h"
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"
#include "core/compute/attn.h"
#include "core/stage/stage.h"
#include "core/stage/slide.h"
#include "core/text/i18n.h"
#include "app/frame.h"
#include "app/state.h"

#include <dirent.h>
#include <stdlib.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MINUS_INF "\xe2\x88\x92\xe2\x88\x9e"

/*
** A layer of GPT-2 small at its full context: twelve heads of 1024 x 1024
** and the two 1024 x 768 matrices after them. With cells of CELL_MIN seven
** of them are wider than 1280 pixels; the page shrank every font and still
** ran off the canvas. Cells now go below CELL_MIN when nothing fits with
** it: the page stays inside the canvas, and from 1280 pixels wide its fonts
** shrink one step (0.85) at most (at 640x400 the labels alone leave no
** room, and they shrink further).
*/
START_TEST(test_twelve_heads_of_1024_fit)
{
    enum { N = 1024, D = 768, H = 12 };
    static char names[N][16], *toks[N], *dims[D];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "t%d", i);
        toks[i] = names[i];
    }
    for (int i = 0; i < D; i++) dims[i] = names[i];
    Mat *h[H + 2];
    View v = tl_view("Twelve heads");
    for (int i = 0; i < H; i++) {
        h[i] = tl_distributions(N, N);
        v.panels[i] = tl_heat("Head", h[i], toks, toks, "viridis", false, true, 2);
    }
    for (int i = H; i < H + 2; i++) {
        h[i] = tl_pattern(N, D, -2.0, 2.0);
        v.panels[i] = tl_heat("Joined", h[i], toks, dims, "RdBu", true, false, 2);
    }
    v.npanels = H + 2;
    View one = tl_view("Twelve heads");
    one.panels[0] = v.panels[0];
    one.npanels = 1;
    const int sizes[][2] = { { 1280, 720 }, { 1280, 800 }, { 1920, 1080 }, { 640, 400 } };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        char what[64];
        snprintf(what, sizeof what, "12 heads of 1024 at %dx%d", sizes[s][0], sizes[s][1]);
        DrawList *d = tl_lay(&v, sizes[s][0], sizes[s][1], false);
        DrawList *d1 = tl_lay(&one, sizes[s][0], sizes[s][1], false);
        tl_assert_page_clean(d, what);
        ck_assert_msg(sizes[s][0] < 1280 || tl_find_text(d, "Twelve heads")->size >= 0.85f * tl_find_text(d1, "Twelve heads")->size,
                      "%s: the title at %.1f px, %.1f px with one panel", what, tl_find_text(d, "Twelve heads")->size,
                      tl_find_text(d1, "Twelve heads")->size);
        draw_free(d1);
        draw_free(d);
    }
    for (int i = 0; i < H + 2; i++) mat_free(h[i]);
}
END_TEST


START_TEST(test_limits_tiny_cells_hide_text)
{
    Mat *B = tl_pattern(60, 60, 0, 1);
    View v = tl_view("Sixty tokens");
    v.panels[0] = tl_heat("Weights", B, NULL, NULL, "viridis", false, true, 2);
    v.npanels = 1;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    ck_assert_int_eq(tl_count(d, DRAW_TEXT, ROLE_CELL_TEXT, -1), 0);
    /* 3600 cells and no numbers: one image command, not 3600 rectangles */
    ck_assert_int_eq(tl_count(d, DRAW_RECT, ROLE_CELL, 0), 0);
    ck_assert_int_eq(tl_count(d, DRAW_IMAGE, ROLE_CELL, 0), 1);
    const DrawCmd *img = NULL;
    for (int i = 0; i < d->n; i++) if (d->cmds[i].kind == DRAW_IMAGE) img = &d->cmds[i];
    const Color *px;
    const DrawImage *im = draw_image_of(d, img, &px);
    ck_assert_int_eq(im->rows, 60);
    ck_assert_int_eq(im->cols, 60);
    ck_assert_int_eq(im->rstep * im->cstep, 1);                 /* cells of a few pixels: a block each */
    const Cmap *cm = cmap_get("viridis");
    for (int r = 0; r < 60; r++)
        for (int c = 0; c < 60; c++) {
            DrawCmd b = draw_image_block(d, img, r, c);
            ck_assert(tl_same_color(b.color, cmap_at(cm, mat_get(B, r, c))));    /* weights: the scale is [0, 1] */
            ck_assert_int_eq(b.row, r);
            ck_assert_int_eq(b.col, c);
            ck_assert(b.r.x >= img->r.x && b.r.x + b.r.w <= img->r.x + img->r.w + 1e-3f);
            int hp, hr, hc;                                     /* the hit test finds the cell under its centre */
            ck_assert(draw_cell_at(d, b.r.x + b.r.w / 2, b.r.y + b.r.h / 2, &hp, &hr, &hc));
            ck_assert(hp == 0 && hr == r && hc == c);
            Rect at;
            ck_assert(draw_cell_rect(d, 0, r, c, &at));
            ck_assert(at.x == b.r.x && at.y == b.r.y && at.w == b.r.w && at.h == b.r.h);
        }
    tl_assert_page_clean(d, "60x60");
    draw_free(d);
    mat_free(B);
}
END_TEST

START_TEST(test_limits_many_labels_thin_out)
{
    static char names[120][24];
    static char *labels[120];
    for (int i = 0; i < 120; i++) {
        snprintf(names[i], sizeof names[i], "token%d", i);
        labels[i] = names[i];
    }
    Mat *B = tl_pattern(120, 120, -1, 1);
    View v = tl_view("Many tokens");
    v.panels[0] = tl_heat("Scores", B, labels, labels, "RdBu", true, false, -1);
    v.npanels = 1;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    int rows = tl_count(d, DRAW_TEXT, ROLE_ROW_LABEL, 0), cols = tl_count(d, DRAW_TEXT, ROLE_COL_LABEL, 0);
    ck_assert_int_gt(rows, 5);
    ck_assert_int_lt(rows, 120);
    ck_assert_int_gt(cols, 5);
    tl_assert_page_clean(d, "120x120");
    draw_free(d);
    mat_free(B);
}
END_TEST

START_TEST(test_limits_constant_and_degenerate)
{
    Mat *C = mat_create(3, 3), *one = mat_create(1, 1), *all = mat_create(2, 3), *Z = mat_create(2, 2);
    for (int i = 0; i < 9; i++) C->data[i] = 0.25;
    mat_set(one, 0, 0, -7.5);
    for (int i = 0; i < 6; i++) all->data[i] = -INFINITY;
    View v = tl_view("Degenerate");
    v.panels[0] = tl_heat("Constant", C, tl_tok3, tl_tok3, "viridis", false, false, 2);
    v.panels[1] = tl_heat("One", one, tl_tok3, tl_tok3, "plasma", false, false, 1);
    v.panels[2] = tl_heat("All masked", all, tl_tok3, tl_tok3, "RdBu", true, false, 2);
    v.panels[3] = tl_heat("Zeros, signed", Z, tl_tok3, tl_tok3, "RdBu", true, false, 2);
    v.npanels = 4;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    const DrawCmd *c0 = tl_find_cell(d, 0, 0, 0);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) ck_assert(tl_same_color(tl_find_cell(d, 0, r, c)->color, c0->color));
    ck_assert_ptr_nonnull(tl_find_text(d, "-7.5"));
    ck_assert_int_eq(tl_count(d, DRAW_RECT, ROLE_MASKED, 2), 6);
    ck_assert_int_eq(tl_count(d, DRAW_RECT, ROLE_CELL, 2), 0);
    /* zero on a diverging map is its middle */
    const Cmap *rdbu = cmap_get("RdBu");
    ck_assert(tl_same_color(tl_find_cell(d, 3, 0, 0)->color, cmap_at(rdbu, 0.5)));
    tl_assert_page_clean(d, "degenerate");
    draw_free(d);
    mat_free(C); mat_free(one); mat_free(all); mat_free(Z);
}
END_TEST

/* Every text of role r on panel k (up to 16) into out; returns how many. */
static int texts_of(const DrawList *d, DrawRole r, int k, const char *out[16])
{
    int n = 0;
    for (int i = 0; i < d->n && n < 16; i++)
        if (d->cmds[i].kind == DRAW_TEXT && d->cmds[i].role == r && d->cmds[i].panel == k)
            out[n++] = draw_str(d, &d->cmds[i]);
    return n;
}

/* Scales of ±1e308 (whose width overflows a double), of subnormal numbers
** (whose halves round to 0) and of one huge constant: positive and
** negative cells get the two ends of the map, tick labels are short,
** scientific where fixed decimals would not do, and nothing is NaN. */
START_TEST(test_limits_extreme_values)
{
    static const double cases[3][2] = { { 1e308, -1e308 }, { 4.9e-324, -4.9e-324 }, { 1.7e308, 1.7e308 } };
    const Cmap *rdbu = cmap_get("RdBu");
    long bad = svg_nonfinite_count();
    for (int t = 0; t < 3; t++) {
        Mat *m = mat_create(2, 2);
        mat_set(m, 0, 0, cases[t][0]); mat_set(m, 0, 1, cases[t][1]);
        mat_set(m, 1, 0, cases[t][1]); mat_set(m, 1, 1, cases[t][0]);
        View v = tl_view("Extreme");
        v.panels[0] = tl_heat("Signed", m, tl_tok3, tl_tok3, "RdBu", true, false, -1);
        v.panels[1] = tl_heat("Sequential", m, tl_tok3, tl_tok3, "viridis", false, false, -1);
        v.npanels = 2;
        DrawList *d = tl_lay(&v, 1280, 800, false);
        if (t < 2) {
            ck_assert(tl_same_color(tl_find_cell(d, 0, 0, 0)->color, cmap_at(rdbu, 1)));
            ck_assert(tl_same_color(tl_find_cell(d, 0, 0, 1)->color, cmap_at(rdbu, 0)));
            ck_assert(!tl_same_color(tl_find_cell(d, 1, 0, 0)->color, tl_find_cell(d, 1, 0, 1)->color));
        }
        const char *ticks[16];
        for (int k = 0; k < 2; k++) {
            int n = texts_of(d, ROLE_TICK_LABEL, k, ticks);
            ck_assert_int_ge(n, 1);
            for (int i = 0; i < n; i++) {
                ck_assert_msg(strlen(ticks[i]) <= 12, "tick label '%s' is too long", ticks[i]);
                ck_assert_msg(!strstr(ticks[i], "nan") && !strstr(ticks[i], "inf"), "tick '%s'", ticks[i]);
                double x = strtod(ticks[i], NULL);
                ck_assert_msg(x == 0 || fabs(x) >= 1e300 || (fabs(x) > 0 && fabs(x) < 1e-300),
                              "tick '%s' does not read as the ends of the scale", ticks[i]);
            }
            for (int i = 1; i < n; i++) ck_assert_str_ne(ticks[i - 1], ticks[i]);
        }
        if (t == 0) ck_assert_ptr_nonnull(tl_find_text(d, "1.00e+308"));
        if (t == 1) ck_assert_ptr_nonnull(tl_find_text(d, "4.94e-324"));
        char *svg = svg_write(d, NULL, NULL, NULL);
        ck_assert_ptr_null(strstr(svg, "nan"));
        ck_assert_ptr_null(strstr(svg, "inf"));
        free(svg);
        tl_assert_page_clean(d, "extreme values");
        draw_free(d);
        mat_free(m);
    }
    ck_assert_int_eq(svg_nonfinite_count(), bad);
}
END_TEST

START_TEST(test_limits_auto_decimals)
{
    double big[] = { 123.456, -45.25, 0.5, 99.04 }, tiny[] = { 0.0012, 0.0301, 0.004, 0.011 };
    double ints[] = { 0, 1, 1, 0 };
    Mat *B = mat_from(2, 2, big), *T = mat_from(2, 2, tiny), *I = mat_from(2, 2, ints);
    View v = tl_view("Automatic decimals");
    v.panels[0] = tl_heat("big", B, tl_tok3, tl_tok3, "viridis", false, false, -1);
    v.panels[1] = tl_heat("tiny", T, tl_tok3, tl_tok3, "viridis", false, false, -1);
    v.panels[2] = tl_heat("mask", I, tl_tok3, tl_tok3, "Blues", false, false, -1);
    v.npanels = 3;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    ck_assert_ptr_nonnull(tl_find_text(d, "123.5"));
    ck_assert_ptr_nonnull(tl_find_text(d, "99.0"));
    ck_assert_ptr_nonnull(tl_find_text(d, "0.001"));
    ck_assert_ptr_nonnull(tl_find_text(d, "0.030"));
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role == ROLE_CELL_TEXT && c->panel == 2)
            ck_assert(strcmp(draw_str(d, c), "0") == 0 || strcmp(draw_str(d, c), "1") == 0);
    }
    tl_assert_page_clean(d, "decimals");
    draw_free(d);
    mat_free(B); mat_free(T); mat_free(I);
}
END_TEST

START_TEST(test_limits_small_canvas_and_big_text)
{
    Mat *W = tl_distributions(8, 8), *Q = tl_pattern(8, 4, -1, 1);
    View v = tl_view("A rather long title for a very small window that must be cut somewhere");
    v.panels[0] = tl_heat("Q", Q, tl_tok8, tl_dims4, "RdBu", true, false, 2);
    v.panels[1] = tl_heat("Weights", W, tl_tok8, tl_tok8, "viridis", false, true, 2);
    v.npanels = 2;
    Theme th = layout_theme(true);
    const int sizes[][2] = { { 320, 200 }, { 640, 400 }, { 1280, 800 }, { 3840, 2160 } };
    const float scales[] = { 0.5f, 1.0f, 2.0f, 3.0f };
    for (int s = 0; s < 4; s++) {
        for (int k = 0; k < 4; k++) {
            LayoutOpts o = layout_defaults(sizes[s][0], sizes[s][1], &th, NULL, NULL);
            o.text_scale = scales[k];
            DrawList *d = tl_lay_with(&v, &o);
            char what[64];
            snprintf(what, sizeof what, "%dx%d at text scale %.1f", sizes[s][0], sizes[s][1], scales[k]);
            tl_assert_page_clean(d, what);
            draw_free(d);
        }
    }
    mat_free(W); mat_free(Q);
}
END_TEST

START_TEST(test_limits_many_panels_wrap)
{
    Mat *h[8];
    View v = tl_view("Eight heads");
    for (int i = 0; i < 8; i++) {
        h[i] = tl_distributions(6, 6);
        v.panels[i] = tl_heat("Head", h[i], tl_tok8, tl_tok8, "viridis", false, true, 2);
    }
    v.npanels = 8;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    float y0 = tl_find_cell(d, 0, 0, 0)->r.y, y4 = tl_find_cell(d, 4, 0, 0)->r.y;
    ck_assert_float_gt(y4, y0);                 /* the fifth panel starts a second row */
    ck_assert_float_eq_tol(tl_find_cell(d, 3, 0, 0)->r.y, y0, 0.01);
    for (int i = 0; i < 8; i++) ck_assert_int_eq(tl_count(d, DRAW_RECT, ROLE_CELL, i), 36);
    tl_assert_page_clean(d, "8 panels");
    draw_free(d);
    for (int i = 0; i < 8; i++) mat_free(h[i]);
}
END_TEST

START_TEST(test_limits_empty_view_and_missing_parts)
{
    View v;
    memset(&v, 0, sizeof v);
    DrawList *d = tl_lay(&v, 1280, 800, false);
    tl_assert_page_clean(d, "empty view");
    draw_free(d);
    v = tl_view("No panels");
    v.formula = NULL;
    d = tl_lay(&v, 1280, 800, false);
    ck_assert_int_ge(tl_count(d, DRAW_TEXT, ROLE_BODY, -1), 2);
    tl_assert_page_clean(d, "no panels");
    draw_free(d);
    Panel p;
    memset(&p, 0, sizeof p);
    p.kind = PANEL_HEATMAP;
    p.bounds = NULL;
    v.panels[0] = p;                        /* no title, no matrix */
    v.npanels = 1;
    v.paras = NULL;
    v.npara = 0;
    d = tl_lay(&v, 1280, 800, false);
    tl_assert_page_clean(d, "no matrix");
    draw_free(d);
}
END_TEST

START_TEST(test_limits_steady_state_does_not_grow)
{
    Mat *W = tl_distributions(8, 8);
    View v = tl_view("Twice");
    v.panels[0] = tl_heat("Weights", W, tl_tok8, tl_tok8, "viridis", false, true, 2);
    v.npanels = 1;
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(1280, 800, &th, NULL, NULL);
    DrawList *d = draw_create(1280, 800);
    LayoutCache *lc = layout_cache_create();
    layout_view(lc, &v, &o, d);
    int n = d->n, cap = d->cap;
    size_t tcap = d->tcap;
    DrawCmd *cmds = d->cmds;
    for (int i = 0; i < 5; i++) layout_view(lc, &v, &o, d);
    ck_assert_int_eq(d->n, n);
    ck_assert_int_eq(d->cap, cap);
    ck_assert_uint_eq(d->tcap, tcap);
    ck_assert_ptr_eq(d->cmds, cmds);
    layout_cache_free(lc);
    draw_free(d);
    mat_free(W);
}
END_TEST

/* The block colours of the first image command of d, as 0xRRGGBB, in n. */
static unsigned *image_colors_of(const DrawList *d, int *n)
{
    for (int i = 0; i < d->n; i++) {
        const Color *px;
        const DrawImage *im = draw_image_of(d, &d->cmds[i], &px);
        if (!im) continue;
        int br, bc;
        draw_image_size(im, &br, &bc);
        *n = br * bc;
        unsigned *out = xmalloc(sizeof *out * (size_t)*n);
        for (int k = 0; k < *n; k++) out[k] = (unsigned)px[k].r << 16 | (unsigned)px[k].g << 8 | px[k].b;
        return out;
    }
    *n = 0;
    return NULL;
}

/*
** Layout remembers a view's value ranges and the colours of its huge
** heatmaps from one layout to the next, by the view's serial number. A view
** made by hand (serial 0) is read afresh every time, and a new serial means
** new values even when the matrix sits at the same address: changed values
** change the colours and the colour bar at once.
*/
START_TEST(test_layout_memos_follow_the_view)
{
    Mat *M = tl_pattern(64, 64, 0, 1);
    View v = tl_view("Remembered");
    v.panels[0] = tl_heat("values", M, NULL, NULL, "viridis", false, false, 2);
    v.npanels = 1;
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(640, 400, &th, NULL, NULL);
    DrawList *d = draw_create(640, 400);
    LayoutCache *lc = layout_cache_create();
    for (unsigned long long serial = 0; serial < 2; serial++) {
        v.serial = serial ? 1000000007ULL : 0;
        for (long i = 0; i < 64L * 64; i++) M->data[i] = (double)(i % 97) / 96.0;
        layout_view(lc, &v, &o, d);
        int n1, n2, n3;
        unsigned *a = image_colors_of(d, &n1);
        ck_assert_msg(a && n1 > 1024, "a 64x64 panel on 640x400 is one image (%d blocks)", n1);
        layout_view(lc, &v, &o, d);             /* the same view again: the same picture */
        unsigned *b = image_colors_of(d, &n2);
        ck_assert_int_eq(n1, n2);
        ck_assert(memcmp(a, b, sizeof *a * (size_t)n1) == 0);
        /* new values in the same matrix: a view made by hand sees them; a
        ** view from stage_view would be a new one, with a new serial */
        for (long i = 0; i < 64L * 64; i++) M->data[i] = 10.0 * (double)((i * 7) % 89) - 400.0;
        if (serial) v.serial++;
        layout_view(lc, &v, &o, d);
        unsigned *c = image_colors_of(d, &n3);
        ck_assert_int_eq(n1, n3);
        const Color *px;
        const DrawImage *im = NULL;
        for (int i = 0; i < d->n && !im; i++) im = draw_image_of(d, &d->cmds[i], &px);
        const Cmap *cm = cmap_get("viridis");
        int br, bc;
        draw_image_size(im, &br, &bc);
        for (int i = 0; i < br; i++)
            for (int j = 0; j < bc; j++) {
                double x = mat_get(M, i * im->rstep, j * im->cstep);
                double t = (x + 400.0) / 880.0;     /* either side of a bin's edge */
                ck_assert_msg(tl_same_color(px[i * bc + j], cmap_at(cm, t - 1e-9))
                              || tl_same_color(px[i * bc + j], cmap_at(cm, t + 1e-9)),
                              "block (%d, %d) of serial %llu", i, j, serial);
            }
        ck_assert(memcmp(a, c, sizeof *a * (size_t)n1) != 0);
        ck_assert_ptr_nonnull(tl_find_text(d, "-250"));        /* the colour bar's new ticks */
        free(a);
        free(b);
        free(c);
    }
    layout_cache_free(lc);
    draw_free(d);
    mat_free(M);
}
END_TEST

/* True when two lists draw the same: every command alike, its text and its
** image colours too. */
static bool same_list(const DrawList *a, const DrawList *b)
{
    if (a->n != b->n || a->width != b->width || a->height != b->height) return false;
    for (int i = 0; i < a->n; i++) {
        const DrawCmd *x = &a->cmds[i], *y = &b->cmds[i];
        if (x->kind != y->kind || x->role != y->role || !tl_same_color(x->color, y->color)
            || memcmp(&x->r, &y->r, sizeof x->r) != 0 || x->width != y->width || x->size != y->size
            || x->halign != y->halign || x->valign != y->valign || x->bold != y->bold || x->rotate != y->rotate
            || x->dashed != y->dashed || x->panel != y->panel || x->row != y->row || x->col != y->col)
            return false;
        if (x->kind == DRAW_TEXT && strcmp(draw_str(a, x), draw_str(b, y)) != 0) return false;
        const Color *px, *py;
        const DrawImage *ix = draw_image_of(a, x, &px), *iy = draw_image_of(b, y, &py);
        if (!ix) continue;
        int br, bc;
        draw_image_size(ix, &br, &bc);
        if (memcmp(ix, iy, sizeof *ix) != 0 || memcmp(px, py, sizeof *px * (size_t)(br * bc)) != 0) return false;
    }
    return true;
}

/*
** A LayoutCache belongs to its caller: two of them laid out in turn with two
** views keep out of each other's way (each view comes out as with a fresh
** cache), and what a cache remembers is keyed as layout.h says: values
** changed under an unchanged serial are not seen by the cache that laid the
** view out, and are by a fresh one.
*/
START_TEST(test_layout_caches_are_the_callers)
{
    Mat *A = tl_pattern(64, 64, 0, 1), *B = tl_pattern(48, 80, -3, 5);
    View va = tl_view("First"), vb = tl_view("Second");
    va.panels[0] = tl_heat("values", A, NULL, NULL, "viridis", false, false, 2);
    vb.panels[0] = tl_heat("values", B, NULL, NULL, "RdBu", true, false, 2);
    va.npanels = vb.npanels = 1;
    va.serial = 7001;
    vb.serial = 7002;
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(640, 400, &th, NULL, NULL);
    DrawList *fa = tl_lay_with(&va, &o), *fb = tl_lay_with(&vb, &o);     /* each with a fresh cache */
    LayoutCache *ca = layout_cache_create(), *cb = layout_cache_create();
    DrawList *d = draw_create(640, 400);
    for (int i = 0; i < 3; i++) {
        layout_view(ca, &va, &o, d);
        ck_assert_msg(same_list(d, fa), "the first view, turn %d", i);
        layout_view(cb, &vb, &o, d);
        ck_assert_msg(same_list(d, fb), "the second view, turn %d", i);
    }
    int n0, n1;
    unsigned *before = image_colors_of(fa, &n0);
    ck_assert_msg(before && n0 > 1024, "a 64x64 panel on 640x400 is one image (%d blocks)", n0);
    for (long i = 0; i < 64L * 64; i++) A->data[i] = 1.0 - A->data[i];    /* same serial, same scale */
    layout_view(ca, &va, &o, d);
    unsigned *kept = image_colors_of(d, &n1);
    ck_assert(n1 == n0 && memcmp(kept, before, sizeof *kept * (size_t)n0) == 0);
    free(kept);
    DrawList *fresh = tl_lay_with(&va, &o);
    unsigned *now = image_colors_of(fresh, &n1);
    ck_assert(n1 == n0 && memcmp(now, before, sizeof *now * (size_t)n0) != 0);
    free(now);
    free(before);
    draw_free(fresh);
    layout_cache_free(ca);
    layout_cache_free(cb);
    layout_cache_free(NULL);
    draw_free(d);
    draw_free(fa);
    draw_free(fb);
    mat_free(A);
    mat_free(B);
}
END_TEST

/*
** A page laid out again with only other outlines (the pointer on another
** cell, other operands, the focus) comes from the page the cache kept
** (layout_keep.c): every frame must be the list a fresh cache lays out,
** commands, strings, images and panels alike, also when the view is drawn
** blank in part, in the dark theme, at a bigger text scale or smaller,
** and when the key changes back.
*/
START_TEST(test_kept_page_is_a_fresh_layout)
{
    static char *toks[6] = { "the", "cat", "sat", "on", "the", "mat" };
    Mat *A = tl_distributions(6, 6), *B = tl_pattern(64, 64, -2, 3);
    View v = tl_view("Kept");
    v.panels[0] = tl_heat("weights", A, toks, toks, "viridis", false, true, 2);
    v.panels[1] = tl_heat("scores", B, NULL, NULL, "RdBu", true, false, 2);
    v.npanels = 2;
    v.serial = 7101;
    Theme light = layout_theme(false), dark = layout_theme(true);
    LayoutCache *c = layout_cache_create();
    DrawList *d = draw_create(10, 10);
    const struct { int w, h; const Theme *th; float ts; unsigned long long hidden; } keys[] = {
        { 1280, 720, &light, 1, 0 }, { 1280, 720, &light, 1, 1 }, { 1280, 720, &dark, 1, 0 },
        { 1280, 720, &light, 1.5f, 0 }, { 900, 700, &light, 1, 2 }, { 1280, 720, &light, 1, 0 },
    };
    const int hovers[5][3] = { { -1, -1, -1 }, { 0, 2, 3 }, { 1, 40, 7 }, { 1, 40, 7 }, { 0, 5, 0 } };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        for (int i = 0; i < 5; i++) {
            LayoutOpts o = layout_defaults(keys[k].w, keys[k].h, keys[k].th, NULL, NULL);
            o.text_scale = keys[k].ts;
            o.hidden = keys[k].hidden;
            o.hover_panel = hovers[i][0];
            o.hover_row = hovers[i][1];
            o.hover_col = hovers[i][2];
            o.focus_panel = i % 3 - 1;
            o.marks[o.nmarks++] = (LayoutMark){ hovers[i][0] < 0 ? 0 : hovers[i][0], hovers[i][1], -1 };
            o.marks[o.nmarks++] = (LayoutMark){ 1, -1, i };
            layout_view(c, &v, &o, d);
            DrawList *fresh = tl_lay_with(&v, &o);
            ck_assert_msg(same_list(d, fresh), "key %zu, outlines %d", k, i);
            ck_assert(d->npanels == fresh->npanels && tl_same_color(d->background, fresh->background));
            ck_assert(memcmp(d->panels, fresh->panels, sizeof d->panels) == 0);
            draw_free(fresh);
        }
    layout_cache_free(c);
    draw_free(d);
    mat_free(A);
    mat_free(B);
}
END_TEST

START_TEST(test_limits_fixed_measure)
{
    ck_assert_float_eq(layout_measure_fixed(NULL, "", 20, 0), 0);
    ck_assert_float_eq_tol(layout_measure_fixed(NULL, "abcd", 20, 0), 44, 1e-4);
    ck_assert_float_eq_tol(layout_measure_fixed(NULL, MINUS_INF, 10, 1), 11, 1e-4);
    Theme light = layout_theme(false), dark = layout_theme(true);
    ck_assert(!light.dark);
    ck_assert(dark.dark);
    ck_assert(cmap_contrast(light.fg, light.bg) >= 7);
    ck_assert(cmap_contrast(dark.fg, dark.bg) >= 7);
    ck_assert(cmap_contrast(light.muted, light.bg) >= 4.5);
    ck_assert(cmap_contrast(dark.muted, dark.bg) >= 4.5);
    ck_assert(cmap_contrast(light.masked_fg, light.masked_bg) >= 4.5);
    ck_assert(cmap_contrast(dark.masked_fg, dark.masked_bg) >= 4.5);
}
END_TEST

/* The limits, memos and caches, one case with its hang limit. */
TCase *layout_limits_tcase(void)
{
    TCase *limits = tcase_create("limits");
    tcase_set_timeout(limits, 60);
    tcase_add_test(limits, test_limits_tiny_cells_hide_text);
    tcase_add_test(limits, test_limits_many_labels_thin_out);
    tcase_add_test(limits, test_limits_constant_and_degenerate);
    tcase_add_test(limits, test_limits_extreme_values);
    tcase_add_test(limits, test_limits_auto_decimals);
    tcase_add_test(limits, test_limits_small_canvas_and_big_text);
    tcase_add_test(limits, test_limits_many_panels_wrap);
    tcase_add_test(limits, test_twelve_heads_of_1024_fit);
    tcase_add_test(limits, test_limits_empty_view_and_missing_parts);
    tcase_add_test(limits, test_limits_steady_state_does_not_grow);
    tcase_add_test(limits, test_limits_fixed_measure);
    tcase_add_test(limits, test_layout_memos_follow_the_view);
    tcase_add_test(limits, test_layout_caches_are_the_callers);
    tcase_add_test(limits, test_kept_page_is_a_fresh_layout);
    return limits;
}
