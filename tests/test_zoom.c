/*
** test_zoom.c: the window's zoom into a large heatmap (src/app/zoom.c),
** driven through the app's state and frame, without a window.
*/
#include "suites.h"
#include "app/frame.h"
#include "app/keys.h"
#include "app/state.h"
#include "app/zoom.h"
#include "core/util.h"
#include "view/cmap.h"
#include "view/layout.h"
#include "view/scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 200               /* tokens: 200 x 200 scores per head */
#define W 1280
#define H 800

static AppState *a;
static DrawList *d;

/* 200 tokens, two heads, signed scores on stage 2 and weights on stage 3;
** X editable on stage 1. */
static void open_big(void)
{
    Buf b = { 0 };
    buf_puts(&b, "title: Zoom\n\n[setup]\nseed: 5\nheads: 2\ntokens:");
    for (int i = 0; i < N; i++) buf_printf(&b, " t%d", i);
    buf_printf(&b, "\nX = randn %dx24\nW_q = randn 24x24 * 0.3\nW_k = randn 24x24 * 0.3\nW_v = randn 24x24 * 0.3\n"
                   "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\n\n[embeddings]\n\n[scaled_scores]\n\n[multi_head]\n",
               N);
    a = app_create();
    ck_assert_msg(app_open_text(a, "zoom.lesson", b.s, b.len) == 0, "%s", a->error);
    buf_free(&b);
    d = draw_create(W, H);
}

/* And close it. */
static void close_big(void)
{
    draw_free(d);
    app_free(a);
}

/* Lay the state out as the window would. */
static void frame(void)
{
    app_frame(a, W, H, layout_measure_fixed, NULL, d);
}

/* The first command of a role whose text is s, or NULL. */
static const DrawCmd *text_cmd(DrawRole role, const char *s)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == DRAW_TEXT && d->cmds[i].role == role && !strcmp(draw_str(d, &d->cmds[i]), s))
            return &d->cmds[i];
    return NULL;
}

/* Zoom in or out about cell (row, col) of the whole matrix of panel k (of
** the part when zoomed). */
static void zoom_at(int k, int row, int col, int dir)
{
    if (app_zoomed(a)) k = 0;
    const Panel *p = &a->view->panels[k];
    int r = row - (app_zoomed(a) ? p->row_offset : 0), c = col - (app_zoomed(a) ? p->col_offset : 0);
    ck_assert(r >= 0 && c >= 0 && r < p->m->rows && c < p->m->cols);
    app_zoom(a, k, r, c, dir);
}

/* The panel of the view showing the matrix called name. */
static int panel_named(const char *name)
{
    for (int k = 0; k < a->view->npanels; k++)
        if (!strcmp(a->view->panels[k].matrix, name)) return k;
    ck_abort_msg("no panel %s", name);
    return -1;
}

/* How many commands of a role the frame has. */
static int count_role(DrawRole role)
{
    int n = 0;
    for (int i = 0; i < d->n; i++) n += d->cmds[i].role == role;
    return n;
}

START_TEST(test_zoom_shows_a_part_of_the_whole)
{
    app_goto(a, 2);                                    /* raw and scaled scores of two heads */
    int k = panel_named("head2.scaled_scores");
    TraceRef head2 = a->view->panels[k].ref;
    frame();
    ck_assert_int_eq(count_role(ROLE_CELL_TEXT), 0);  /* 200 x 200: too fine for numbers */
    /* In three steps about cell (120, 40) of head 2: a part of 25 x 25. */
    for (int i = 0; i < 3; i++) zoom_at(k, 120, 40, +1);
    ck_assert(app_zoomed(a));
    ck_assert_int_eq(a->view->npanels, 1);
    const Panel *p = &a->view->panels[0];
    ck_assert(trace_ref_eq(p->ref, head2, 2));
    ck_assert_int_eq(p->m->rows, 25);
    ck_assert_int_eq(p->m->cols, 25);
    /* The cell stays where it was in the part: 120 is 60% down the whole. */
    ck_assert_int_ge(120 - p->row_offset, 13);
    ck_assert_int_le(120 - p->row_offset, 16);
    ck_assert_int_ge(40 - p->col_offset, 4);
    ck_assert_int_le(40 - p->col_offset, 6);
    /* Its numbers are the whole's. */
    const Mat *whole = trace_at(a->doc->T, 0, head2);
    for (int i = 0; i < p->m->rows; i++)
        for (int j = 0; j < p->m->cols; j++)
            ck_assert(mat_get(p->m, i, j) == mat_get(whole, i + p->row_offset, j + p->col_offset));
    /* One more (13 x 13): the cells carry numbers and the rows their tokens. */
    zoom_at(k, 120, 40, +1);
    p = &a->view->panels[0];
    ck_assert_int_eq(p->m->rows, 13);
    frame();
    ck_assert_int_gt(count_role(ROLE_CELL_TEXT), 100);
    char tok[16];
    snprintf(tok, sizeof tok, "t%d", p->row_offset + 3);
    ck_assert_msg(text_cmd(ROLE_ROW_LABEL, tok) != NULL, "row label %s", tok);
    ck_assert_ptr_nonnull(strstr(a->view->note, "of 200 \xc3\x97 200"));
}
END_TEST

START_TEST(test_zoom_keeps_the_whole_colour_scale)
{
    app_goto(a, 2);
    /* The heads' scaled scores share one scale: symmetric about 0, to the
    ** largest |score| of both. */
    int k = panel_named("head1.scaled_scores");
    double amax = 0;
    for (int h = 0; h < a->view->npanels; h++) {
        const Mat *m = a->view->panels[h].m;
        if (a->view->panels[h].scale_group != a->view->panels[k].scale_group) continue;
        for (long i = 0; i < (long)m->rows * m->cols; i++) amax = fmax(amax, fabs(m->data[i]));
    }
    for (int i = 0; i < 3; i++) zoom_at(k, 10, 10, +1);
    const Panel *p = &a->view->panels[0];
    ck_assert(p->scale_fixed);
    frame();
    /* Every cell is coloured on the whole's scale, not the part's own. */
    Scale sc = scale_of(-amax, amax);
    const Cmap *cm = cmap_get(p->cmap);
    int cells = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_RECT || c->role != ROLE_CELL || c->panel != 0) continue;
        Color want = cmap_at(cm, scale_at(&sc, mat_get(p->m, c->row, c->col)));
        ck_assert_msg(!memcmp(&c->color, &want, sizeof want), "cell (%d,%d)", c->row, c->col);
        cells++;
    }
    ck_assert_int_eq(cells, p->m->rows * p->m->cols);
    ck_assert_int_gt(count_role(ROLE_COLORBAR), 0);     /* the colour bar stays */
}
END_TEST

START_TEST(test_zoom_explains_and_pins_the_same_cell)
{
    app_goto(a, 3);                                    /* multi_head: weights of both heads */
    int k = panel_named("head2.weights");
    app_hover(a, k, 150, 70);
    char *whole = app_explain(a);
    ck_assert_ptr_nonnull(whole);
    zoom_at(k, 150, 70, +1);
    zoom_at(k, 150, 70, +1);
    const Panel *p = &a->view->panels[0];
    int r = 150 - p->row_offset, c = 70 - p->col_offset;
    ck_assert(r >= 0 && r < p->m->rows && c >= 0 && c < p->m->cols);
    app_hover(a, 0, r, c);
    char *part = app_explain(a);
    ck_assert_str_eq(part, whole);
    /* Pinned, it stays pinned to the same cell while the part moves. */
    app_click(a, 0, r, c);
    ck_assert(a->pinned);
    app_zoom_pan(a, 3, -2);
    ck_assert(a->pinned);
    ck_assert_int_eq(a->pin_row + a->view->panels[0].row_offset, 150);
    ck_assert_int_eq(a->pin_col + a->view->panels[0].col_offset, 70);
    char *pinned = app_explain(a);
    ck_assert_str_eq(pinned, whole);
    free(whole);
    free(part);
    free(pinned);
}
END_TEST

START_TEST(test_zoom_pans_within_the_edges)
{
    app_goto(a, 2);
    zoom_at(panel_named("head1.raw_scores"), 100, 100, +1);     /* 100 x 100 of 200 */
    const Panel *p = &a->view->panels[0];
    ck_assert_int_eq(p->m->rows, 100);
    int r0 = p->row_offset;
    for (int i = 0; i < 3; i++) app_zoom_pan(a, 0.4, 0);     /* fractions add up */
    ck_assert_int_eq(a->view->panels[0].row_offset, r0 + 1);
    app_zoom_pan(a, -1e6, 1e6);                         /* far past the edges */
    ck_assert_int_eq(a->view->panels[0].row_offset, 0);
    ck_assert_int_eq(a->view->panels[0].col_offset, 100);
    app_zoom_pan(a, 2, -2);                             /* and back at once */
    ck_assert_int_eq(a->view->panels[0].row_offset, 2);
    ck_assert_int_eq(a->view->panels[0].col_offset, 98);
    app_zoom_pan(a, NAN, 1);                            /* nothing */
    ck_assert_int_eq(a->view->panels[0].row_offset, 2);
}
END_TEST

START_TEST(test_zoom_out_and_reset_give_the_stage_back)
{
    app_goto(a, 2);
    frame();
    DrawList *before = draw_create(W, H);
    app_frame(a, W, H, layout_measure_fixed, NULL, before);
    int n = a->view->npanels;
    for (int i = 0; i < 5; i++) zoom_at(1, 30, 30, +1);
    ck_assert_int_eq(a->view->panels[0].m->rows, 7);   /* 200 / 32, rounded up */
    while (app_zoomed(a)) app_zoom(a, -1, -1, -1, -1);
    ck_assert_int_eq(a->view->npanels, n);
    frame();
    ck_assert_int_eq(d->n, before->n);
    ck_assert_int_eq(memcmp(d->cmds, before->cmds, sizeof *d->cmds * (size_t)d->n), 0);
    app_zoom(a, 0, 10, 10, +1);
    app_zoom_reset(a);
    ck_assert(!app_zoomed(a));
    ck_assert_int_eq(a->view->npanels, n);
    /* As far in as it goes: a few cells, never fewer. */
    for (int i = 0; i < 20; i++) app_zoom(a, 0, 0, 0, +1);
    ck_assert_int_eq(a->view->panels[0].m->rows, ZOOM_MIN_CELLS);
    ck_assert_int_eq(a->view->panels[0].m->cols, ZOOM_MIN_CELLS);
    draw_free(before);
}
END_TEST

START_TEST(test_zoom_edits_the_cell_under_the_pointer_and_ends_with_the_stage)
{
    app_goto(a, 1);                                    /* X: 200 x 24, editable */
    for (int i = 0; i < 3; i++) zoom_at(0, 80, 20, +1);
    const Panel *p = &a->view->panels[0];
    ck_assert(p->editable);
    int r = 80 - p->row_offset, c = 20 - p->col_offset, row0 = p->row_offset;
    ck_assert(p->col_offset > 0);
    const Mat *X = lesson_matrix(&a->doc->L->setups[0], "X")->m;
    double before = mat_get(X, 80, 20);
    ck_assert(app_scroll_edit(a, 0, r, c, 1, false));
    X = lesson_matrix(&a->doc->L->setups[0], "X")->m;
    ck_assert_double_eq_tol(mat_get(X, 80, 20), before + 0.1, 1e-12);
    ck_assert(app_zoomed(a));                           /* recomputed (p is gone), still zoomed there */
    ck_assert_int_eq(a->view->panels[0].row_offset, row0);
    app_next(a);
    ck_assert(!app_zoomed(a));
    ck_assert_int_eq(a->view->npanels, 4);
}
END_TEST

START_TEST(test_nothing_to_zoom_and_predict)
{
    AppState *s = app_create();
    ck_assert_int_eq(app_open(s, "../lessons/01-tour.lesson"), 0);
    app_zoom(s, 0, 1, 1, +1);                           /* 4 x 4: read whole */
    ck_assert(!app_zoomed(s));
    ck_assert_ptr_nonnull(strstr(s->toast, "small enough"));
    app_free(s);
    app_goto(a, 3);
    app_predict(a);
    app_zoom(a, 0, 5, 5, +1);
    ck_assert(!app_zoomed(a));
    app_predict(a);
    app_predict(a);
    int whole = a->view->npanels;                       /* the page: each head's Q, K, weights and output */
    app_zoom(a, 0, 5, 5, +1);
    ck_assert(app_zoomed(a));
    app_predict(a);                                     /* predicting ends the zoom */
    ck_assert(!app_zoomed(a));
    ck_assert_int_eq(a->view->npanels, whole);
    ck_assert_int_gt(whole, 1);
}
END_TEST

START_TEST(test_help_says_how_to_zoom)
{
    app_toggle_help(a);
    frame();
    bool zoom = false, text = false;
    for (int i = 0; i < d->n; i++) {
        if (d->cmds[i].kind != DRAW_TEXT) continue;
        const char *s = draw_str(d, &d->cmds[i]);
        zoom |= strstr(s, "over a heatmap: zoom in, out") != NULL;
        text |= strstr(s, "Ctrl++  Ctrl+\xe2\x88\x92") != NULL;
    }
    ck_assert(zoom && text);
}
END_TEST

START_TEST(test_keys_zoom_over_a_heatmap_and_size_text_elsewhere)
{
    app_goto(a, 2);
    int k = panel_named(a->view->panels[1].matrix);
    float scale = a->text_scale;
    app_hover(a, -1, -1, -1);                           /* the pointer off the heatmaps: + is the text size */
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, '+', 0), ACT_ZOOM_IN);
    ck_assert(!app_zoomed(a));
    ck_assert(a->text_scale > scale);
    scale = a->text_scale;
    app_hover(a, k, 40, 60);                            /* over a heatmap: + zooms about that cell */
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, '=', 0), ACT_ZOOM_IN);
    ck_assert(app_zoomed(a));
    ck_assert(a->text_scale == scale);
    ck_assert_int_eq(a->view->panels[0].m->rows, N / 2);
    app_key(a, EDITION_DESKTOP, '+', KEYMOD_CTRL);      /* Ctrl+ +: always the text size */
    ck_assert(a->text_scale > scale);
    ck_assert_int_eq(a->view->panels[0].m->rows, N / 2);
    app_hover(a, -1, -1, -1);                           /* zoomed: - zooms out wherever the pointer is */
    app_key(a, EDITION_DESKTOP, '+', 0);
    ck_assert_int_eq(a->view->panels[0].m->rows, N / 4);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, '-', 0), ACT_ZOOM_OUT);
    ck_assert_int_eq(a->view->panels[0].m->rows, N / 2);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_ESCAPE, 0), ACT_ESCAPE);      /* Esc: all of it */
    ck_assert(!app_zoomed(a));
    ck_assert_int_eq(app_key(a, EDITION_WEB, '+', 0), ACT_BIGGER);                 /* the page has no zoom */
}
END_TEST

/* The zoom suite. */
Suite *zoom_suite(void)
{
    Suite *s = suite_create("zoom");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, open_big, close_big);
    tcase_add_test(core, test_zoom_shows_a_part_of_the_whole);
    tcase_add_test(core, test_zoom_keeps_the_whole_colour_scale);
    tcase_add_test(core, test_zoom_explains_and_pins_the_same_cell);
    tcase_add_test(core, test_zoom_pans_within_the_edges);
    tcase_add_test(core, test_zoom_out_and_reset_give_the_stage_back);
    tcase_add_test(core, test_zoom_edits_the_cell_under_the_pointer_and_ends_with_the_stage);
    tcase_add_test(core, test_nothing_to_zoom_and_predict);
    tcase_add_test(core, test_help_says_how_to_zoom);
    tcase_add_test(core, test_keys_zoom_over_a_heatmap_and_size_text_elsewhere);
    suite_add_tcase(s, core);
    return s;
}
