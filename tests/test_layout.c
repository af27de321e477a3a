/*
** test_layout.c: views built by hand, laid out with the fixed-width measure.
**
** The invariants a class relies on: one cell per value in the colour of its
** value, the value printed in it and readable (4.5:1), masked cells grey and
** labelled "−∞", nothing outside the canvas, no two texts on top of each
** other. Text boxes are computed the way a backend places them (tlayout.c:
** tl_ink). The layout at its limits, and its memos and caches, are in
** test_layout_limits.c; lessons of up to 1,024 tokens laid out with the
** real font in test_layout_large.c.
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

static char *en7[] = { "the", "internationally", "recognised", "agreement", "was", "signed",
                       "yesterday" };
static char *es7[] = { "el", "acuerdo", "reconocido", "internacionalmente", "fue", "firmado",
                       "ayer" };
static char *heads5[] = { "head 1", "head 2", "head 3", "head 4", "head 5" };

/* Every cell of panel k: one rectangle, coloured from cm on [lo, hi],
** labelled with its value at dec decimals in a colour that reads on it. */
static void assert_cells(const DrawList *d, int k, const Mat *m, const char *cmap,
                         double lo, double hi, int dec)
{
    const Cmap *cm = cmap_get(cmap);
    ck_assert_int_eq(tl_count(d, DRAW_RECT, ROLE_CELL, k), m->rows * m->cols);
    for (int r = 0; r < m->rows; r++) {
        for (int c = 0; c < m->cols; c++) {
            const DrawCmd *cell = tl_find_cell(d, k, r, c);
            ck_assert_ptr_nonnull(cell);
            double t = (mat_get(m, r, c) - lo) / (hi - lo);
            ck_assert_msg(tl_same_color(cell->color, cmap_at(cm, t)), "cell %d,%d of panel %d", r, c, k);
        }
    }
    int texts = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *t = &d->cmds[i];
        if (t->role != ROLE_CELL_TEXT || t->panel != k) continue;
        texts++;
        char want[64];
        double v = mat_get(m, t->row, t->col);
        util_fmt_cell(want, sizeof want, v, dec, false);
        ck_assert_str_eq(draw_str(d, t), want);
        /* what is printed rounds to the true value at its precision */
        ck_assert(fabs(strtod(draw_str(d, t), NULL) - v) <= 0.5 * pow(10, -dec) + 1e-12);
        if (v != 0.0) ck_assert_str_ne(draw_str(d, t), "0");
        const DrawCmd *cell = tl_find_cell(d, k, t->row, t->col);
        ck_assert_ptr_nonnull(cell);
        ck_assert_msg(cmap_contrast(t->color, cell->color) >= 4.5, "contrast %.2f",
                      cmap_contrast(t->color, cell->color));
    }
    ck_assert_int_eq(texts, m->rows * m->cols);
}


START_TEST(test_weights_cells_colours_and_labels)
{
    Mat *W = tl_distributions(8, 8);
    View v = tl_view("Attention weights");
    v.panels[0] = tl_heat("Attention weights", W, tl_tok8, tl_tok8, "viridis", false, true, 2);
    v.npanels = 1;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    assert_cells(d, 0, W, "viridis", 0, 1, 2);
    /* row and column labels, one per token */
    ck_assert_int_eq(tl_count(d, DRAW_TEXT, ROLE_ROW_LABEL, 0), 8);
    ck_assert_int_eq(tl_count(d, DRAW_TEXT, ROLE_COL_LABEL, 0), 8);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role == ROLE_ROW_LABEL) ck_assert_str_eq(draw_str(d, c), tl_tok8[c->row]);
        if (c->role == ROLE_COL_LABEL) ck_assert_str_eq(draw_str(d, c), tl_tok8[c->col]);
    }
    /* a colour bar with 3 to 5 ticks, axis titles, the title */
    ck_assert_int_ge(tl_count(d, DRAW_RECT, ROLE_COLORBAR, 0), 32);
    ck_assert_int_ge(tl_count(d, DRAW_TEXT, ROLE_TICK_LABEL, 0), 3);
    ck_assert_int_le(tl_count(d, DRAW_TEXT, ROLE_TICK_LABEL, 0), 5);
    ck_assert_int_eq(tl_count(d, DRAW_TEXT, ROLE_AXIS_TITLE, 0), 2);
    ck_assert_ptr_nonnull(tl_find_text(d, "Attention weights"));
    ck_assert_ptr_nonnull(tl_find_text(d, "0.00"));
    ck_assert_ptr_nonnull(tl_find_text(d, "1.00"));
    tl_assert_page_clean(d, "8x8 weights");
    /* big enough for the back row: values at 14 px or more */
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_CELL_TEXT) ck_assert_float_ge(d->cmds[i].size, 14);
    draw_free(d);
    mat_free(W);
}
END_TEST

START_TEST(test_sequential_and_diverging_scales)
{
    Mat *A = tl_pattern(3, 3, 2, 10);          /* sequential: [min, max] */
    Mat *B = tl_pattern(3, 4, -1, 3);          /* diverging: [-3, 3] */
    View v = tl_view("Scales");
    v.panels[0] = tl_heat("plain", A, tl_tok3, tl_tok3, "magma", false, false, 1);
    v.panels[1] = tl_heat("signed", B, tl_tok3, tl_dims4, "RdBu", true, false, 2);
    v.npanels = 2;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    assert_cells(d, 0, A, "magma", 2, 10, 1);
    assert_cells(d, 1, B, "RdBu", -3, 3, 2);
    /* round ticks inside the scales; zero on the diverging one */
    const DrawCmd *t0 = tl_find_text(d, "0");
    ck_assert_ptr_nonnull(t0);
    ck_assert_int_eq(t0->role, ROLE_TICK_LABEL);
    ck_assert_int_eq(t0->panel, 1);
    ck_assert_ptr_nonnull(tl_find_text(d, "-2"));
    ck_assert_ptr_nonnull(tl_find_text(d, "10"));
    tl_assert_page_clean(d, "scales");
    draw_free(d);
    mat_free(A);
    mat_free(B);
}
END_TEST

START_TEST(test_masked_cells)
{
    Mat *S = tl_pattern(5, 5, -2, 2);
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++) mat_set(S, i, j, -INFINITY);
    View v = tl_view("Causal mask");
    v.panels[0] = tl_heat("Masked scores", S, tl_tok8, tl_tok8, "RdBu", true, false, 2);
    v.npanels = 1;
    Theme th = layout_theme(false);
    DrawList *d = tl_lay(&v, 1280, 800, false);
    int masked = 0, labels = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role == ROLE_MASKED && c->kind == DRAW_RECT) {
            masked++;
            ck_assert(isinf(mat_get(S, c->row, c->col)));
            ck_assert(tl_same_color(c->color, th.masked_bg));
        }
        if (c->role == ROLE_MASKED && c->kind == DRAW_TEXT) {
            labels++;
            ck_assert_str_eq(draw_str(d, c), MINUS_INF);
            ck_assert(cmap_contrast(c->color, th.masked_bg) >= 4.5);
        }
        if (c->role == ROLE_CELL) ck_assert(isfinite(mat_get(S, c->row, c->col)));
    }
    ck_assert_int_eq(masked, 10);
    ck_assert_int_eq(labels, 10);
    ck_assert_int_eq(tl_count(d, DRAW_RECT, ROLE_CELL, 0), 15);
    /* the masked grey is not a colour of the map */
    const Cmap *rdbu = cmap_get("RdBu");
    for (int i = 0; i < 256; i++) ck_assert(!tl_same_color(cmap_at(rdbu, (i + 0.5) / 256), th.masked_bg));
    /* the scale comes from the finite values only: |min| = |max| = 2 */
    const DrawCmd *c00 = tl_find_cell(d, 0, 0, 0);
    ck_assert(tl_same_color(c00->color, cmap_at(rdbu, (mat_get(S, 0, 0) + 2) / 4)));
    tl_assert_page_clean(d, "masked");
    draw_free(d);
    mat_free(S);
}
END_TEST

START_TEST(test_no_overlap_at_every_size)
{
    Mat *W8 = tl_distributions(8, 8), *W3 = tl_distributions(3, 3), *X7 = tl_distributions(7, 7);
    Mat *Q = tl_pattern(8, 4, -1.5, 1.5), *K = tl_pattern(8, 4, -2, 1), *V = tl_pattern(8, 4, -1, 2.5);
    View a = tl_view("Attention weights"), b = tl_view("Three words"), c = tl_view("Cross-attention");
    View q = tl_view("Queries, keys and values");
    a.panels[0] = tl_heat("Weights", W8, tl_tok8, tl_tok8, "viridis", false, true, 2);
    a.npanels = 1;
    b.panels[0] = tl_heat("Weights", W3, tl_tok3, tl_tok3, "Blues", false, true, 2);
    b.npanels = 1;
    c.panels[0] = tl_heat("English queries, Spanish keys", X7, en7, es7, "magma", false, true, 2);
    c.npanels = 1;
    q.panels[0] = tl_heat("Q", Q, tl_tok8, tl_dims4, "RdBu", true, false, 2);
    q.panels[1] = tl_heat("K", K, tl_tok8, tl_dims4, "RdBu", true, false, 2);
    q.panels[2] = tl_heat("V", V, tl_tok8, tl_dims4, "RdBu", true, false, 2);
    q.npanels = 3;
    const View *views[] = { &a, &b, &c, &q };
    const int sizes[][2] = { { 1280, 800 }, { 1920, 1080 }, { 2560, 1600 }, { 1024, 640 } };
    for (int i = 0; i < 4; i++) {
        for (int s = 0; s < 4; s++) {
            for (int dark = 0; dark < 2; dark++) {
                char what[96];
                snprintf(what, sizeof what, "%s at %dx%d", views[i]->title, sizes[s][0], sizes[s][1]);
                DrawList *d = tl_lay(views[i], sizes[s][0], sizes[s][1], dark);
                ck_assert_int_eq(d->width, sizes[s][0]);
                tl_assert_page_clean(d, what);
                ck_assert_int_gt(tl_count(d, DRAW_TEXT, ROLE_CELL_TEXT, -1), 0);
                draw_free(d);
            }
        }
    }
    /* the cross-attention labels: long ones cut with "…" or turned upright */
    DrawList *d = tl_lay(&c, 1280, 800, false);
    ck_assert_int_eq(tl_count(d, DRAW_TEXT, ROLE_COL_LABEL, 0), 7);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *t = &d->cmds[i];
        if (t->role != ROLE_COL_LABEL && t->role != ROLE_ROW_LABEL) continue;
        const char *want = t->role == ROLE_COL_LABEL ? es7[t->col] : en7[t->row];
        const char *got = draw_str(d, t);
        size_t n = strlen(got);
        bool cut = n >= 3 && strcmp(got + n - 3, "\xe2\x80\xa6") == 0;
        ck_assert(strcmp(got, want) == 0 || (cut && strncmp(got, want, n - 3) == 0));
    }
    draw_free(d);
    mat_free(W8); mat_free(W3); mat_free(X7); mat_free(Q); mat_free(K); mat_free(V);
}
END_TEST

/* The size cell numbers of panel k are printed at (0: none). */
static float value_size(const DrawList *d, int k)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel == k) return d->cmds[i].size;
    return 0;
}

/* Panels compared, panels whose numbers got smaller, the first of those. */
typedef struct {
    int worse, compared;
    char first[700];
} Shrunk;

/* One stage at the normal size and one and two steps of + (a TStageFn). */
static void bigger_text_stage(const char *name, const Lesson *L, const Trace *T, int k, View *v, void *ctx)
{
    (void)L; (void)T;
    Shrunk *s = ctx;
    Theme th = layout_theme(false);
    float prev[VIEW_MAX_PANELS] = { 0 };
    for (int step = 0; step < 3; step++) {
        LayoutOpts o = layout_defaults(1280, 720, &th, layout_measure_fixed, NULL);
        o.text_scale = step == 0 ? 1.0f : step == 1 ? 1.15f : 1.3225f;
        DrawList *d = tl_lay_with(v, &o);
        for (int p = 0; p < v->npanels; p++) {
            float fs = value_size(d, p);
            if (step > 0 && prev[p] > 0) {
                s->compared++;
                if (fs < prev[p] && !s->worse++)
                    snprintf(s->first, sizeof s->first, "%s stage %d panel %d: %.0f px at scale %.2f, %.0f before",
                             name, k + 1, p, fs, o.text_scale, prev[p]);
            }
            if (step == 0) prev[p] = fs;               /* compared with the normal size */
        }
        draw_free(d);
    }
}

/* The back row asks for bigger text with +: the numbers in the cells never
** get smaller than at the normal size (every stage of every bundled lesson
** and script lesson, 1280x720, one and two steps of +). */
START_TEST(test_bigger_text_never_shrinks_numbers)
{
    Shrunk s = { 0, 0, "" };
    tstages_each("../lessons", bigger_text_stage, &s);
    tstages_each("scripts", bigger_text_stage, &s);
    ck_assert_int_gt(s.compared, 50);
    ck_assert_msg(s.worse == 0, "%d panels print smaller numbers with bigger text, e.g. %s", s.worse, s.first);
}
END_TEST


/* Column labels turned to read upward when the columns are narrow: a label
** of one character ("I") stays level (turned, it reads as a dash), the
** longer ones turn. Lesson 6's last stage at 800x500 (the mask's columns
** are narrow; the scores' are as wide as their numbers, and level). */
START_TEST(test_one_letter_labels_stay_level)
{
    DrawList *d = tl_lay_lesson_stage("../lessons/06-other-scores-and-masks.lesson", 6, 800, 500);
    int level_i = 0, turned = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_TEXT || c->role != ROLE_COL_LABEL) continue;
        if (!strcmp(draw_str(d, c), "I")) {
            ck_assert_int_eq(c->rotate, 0);
            level_i++;
        } else if (!strcmp(draw_str(d, c), "green")) {
            turned += c->rotate == 90;
        }
    }
    ck_assert_int_ge(level_i, 3);
    ck_assert_int_ge(turned, 1);        /* the mask's columns are narrow: its other labels are turned */
    draw_free(d);
}
END_TEST

START_TEST(test_bundled_lessons_clean)
{
    /* every stage of every bundled lesson, at the export size and full HD,
    ** light and dark: inside the canvas, no overlapping text, every cell
    ** present and every cell value readable against its cell */
    DIR *dir = opendir("../lessons");
    ck_assert_ptr_nonnull(dir);
    struct dirent *e;
    int stages = 0;
    while ((e = readdir(dir)) != NULL) {
        if (!strstr(e->d_name, ".lesson")) continue;
        char path[512];
        snprintf(path, sizeof path, "../lessons/%s", e->d_name);
        Error err;
        Lesson *L = lesson_load(path, &err);
        ck_assert_msg(L != NULL, "%s", eline(&err));
        Trace *T = attn_run(L, &err);
        ck_assert_ptr_nonnull(T);
        for (int k = 0; k < L->nstages; k++, stages++) {
            View *v = tstages_view(L, T, k);
            const int sizes[][2] = { { 1280, 800 }, { 1920, 1080 } };
            for (int s = 0; s < 2; s++)
                for (int dark = 0; dark < 2; dark++) {
                    char what[600];
                    snprintf(what, sizeof what, "%s stage %d at %dx%d%s", path, k + 1, sizes[s][0], sizes[s][1], dark ? " dark" : "");
                    DrawList *d = tl_lay(v, sizes[s][0], sizes[s][1], dark);
                    tl_assert_page_clean(d, what);
                    for (int p = 0; p < v->npanels; p++)     /* a cell each, or one image of them all (a big grid) */
                        if (v->panels[p].kind == PANEL_HEATMAP)
                            ck_assert_msg(tl_count(d, DRAW_RECT, ROLE_CELL, p) + tl_count(d, DRAW_RECT, ROLE_MASKED, p)
                                          >= v->panels[p].m->rows * v->panels[p].m->cols
                                          || tl_count(d, DRAW_IMAGE, ROLE_CELL, p) == 1, "%s: cells missing", what);
                    for (int i = 0; i < d->n; i++) {
                        const DrawCmd *t = &d->cmds[i];
                        if (t->role != ROLE_CELL_TEXT) continue;
                        const DrawCmd *cell = tl_find_cell(d, t->panel, t->row, t->col);
                        ck_assert_ptr_nonnull(cell);
                        ck_assert_msg(cmap_contrast(t->color, cell->color) >= 4.5, "%s: contrast %.2f", what,
                                      cmap_contrast(t->color, cell->color));
                    }
                    draw_free(d);
                }
            stage_view_free(v);
        }
        trace_free(T);
        lesson_free(L);
    }
    closedir(dir);
    ck_assert_int_ge(stages, 46);
}
END_TEST

/* Lay out every stage of the lesson at path in the language in use. */
static int lessons_clean_in(const char *path, const char *lang)
{
    Error err;
    Lesson *L = lesson_load(path, &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    Trace *T = attn_run(L, &err);
    ck_assert_ptr_nonnull(T);
    const int sizes[][2] = { { 1280, 720 }, { 1920, 1080 } };
    for (int k = 0; k < L->nstages; k++) {
        View *v = tstages_view(L, T, k);
        for (int s = 0; s < 2; s++) {
            char what[1200];
            snprintf(what, sizeof what, "[%.200s] %.600s stage %d at %dx%d", lang, path, k + 1, sizes[s][0], sizes[s][1]);
            DrawList *d = tl_lay(v, sizes[s][0], sizes[s][1], s == 1);
            tl_assert_page_clean(d, what);
            draw_free(d);
        }
        stage_view_free(v);
    }
    int n = L->nstages;
    trace_free(T);
    lesson_free(L);
    return n;
}

/* The help overlay and the lesson picker in the language in use: every
** line of them on a 1280x720 canvas, none over another. */
static void overlays_fit_in(const char *lang)
{
    AppState *a = app_create();
    for (int which = 0; which < 2; which++) {
        if (which == 0) app_toggle_help(a);
        else app_toggle_picker(a);
        DrawList *d = draw_create(1280, 720);
        app_frame(a, 1280, 720, layout_measure_fixed, NULL, d);
        char what[300];
        snprintf(what, sizeof what, "[%.200s] %s", lang, which ? "picker" : "help");
        for (int i = 0; i < d->n; i++) {
            const DrawCmd *c = &d->cmds[i];
            if (c->kind != DRAW_TEXT || c->role != ROLE_OVERLAY) continue;
            Box b = tl_ink(d, c);
            ck_assert_msg(b.x0 >= -0.5f && b.x1 <= d->width + 0.5f && b.y0 >= -0.5f && b.y1 <= d->height + 0.5f,
                          "%s: '%s' leaves the canvas", what, draw_str(d, c));
            for (int j = i + 1; j < d->n; j++)
                if (d->cmds[j].kind == DRAW_TEXT && d->cmds[j].role == ROLE_OVERLAY)
                    ck_assert_msg(!tl_overlap(b, tl_ink(d, &d->cmds[j])), "%s: '%s' overlaps '%s'", what, draw_str(d, c),
                                  draw_str(d, &d->cmds[j]));
        }
        draw_free(d);
    }
    app_free(a);
}

/* Paragraphs in Arabic end their lines on the left: every body line of
** lesson 12 is aligned right on one edge, and the tour's lines left; the
** stage title and the formula stand on that edge too (the title at the
** right, the lesson and stage at the left), and in the tour at the left. */
START_TEST(test_rtl_paragraphs_align_right)
{
    const char *files[2] = { "../lessons/12-arabic-pronoun.lesson", "../lessons/01-tour.lesson" };
    for (int f = 0; f < 2; f++) {
        Error err;
        Lesson *L = lesson_load(files[f], &err);
        ck_assert_msg(L != NULL, "%s", eline(&err));
        Trace *T = attn_run(L, &err);
        ck_assert_ptr_nonnull(T);
        int lines = 0;
        for (int k = 0; k < L->nstages; k++) {
            View *v = tstages_view(L, T, k);
            DrawList *d = tl_lay(v, 1280, 720, false);
            float edge = -1;
            const DrawCmd *title = NULL, *meta = NULL, *formula = NULL;
            for (int i = 0; i < d->n; i++) {
                const DrawCmd *c = &d->cmds[i];
                if (c->kind == DRAW_TEXT && c->role == ROLE_TITLE) *(title ? &meta : &title) = meta ? meta : c;
                if (c->kind == DRAW_TEXT && c->role == ROLE_FORMULA) formula = c;
                if (c->role != ROLE_BODY || c->kind != DRAW_TEXT) continue;
                lines++;
                ck_assert_int_eq(c->halign, f == 0 ? ALIGN_RIGHT : ALIGN_LEFT);
                float e = f == 0 ? c->r.x + c->r.w : c->r.x;
                if (edge < 0) edge = e;
                ck_assert_float_eq_tol(e, edge, 0.01f);
            }
            ck_assert(title && meta && formula);
            /* the title and the formula within 64 px of their side of the 1280 px slide */
            float te = f == 0 ? 1280 - (title->r.x + title->r.w) : title->r.x;
            float fe = f == 0 ? 1280 - (formula->r.x + formula->r.w) : formula->r.x;
            ck_assert_msg(te < 64 && fe < 64, "stage %d: the title %g px and the formula %g px from their side", k + 1, te, fe);
            ck_assert(f == 0 ? meta->r.x < title->r.x : meta->r.x > title->r.x);
            for (int i = 0; i < d->n; i++)          /* panel titles on the same side as the stage's */
                if (d->cmds[i].kind == DRAW_TEXT && d->cmds[i].role == ROLE_PANEL_TITLE)
                    ck_assert_int_eq(d->cmds[i].halign, f == 0 ? ALIGN_RIGHT : ALIGN_LEFT);
            draw_free(d);
            stage_view_free(v);
        }
        ck_assert_int_gt(lines, 3);
        trace_free(T);
        lesson_free(L);
    }
}
END_TEST

START_TEST(test_bundled_lessons_every_language)
{
    /* the bundled lessons once per shipped catalogue ($ATTNLAB_LOCALE, as
    ** the Makefile sets it): translated titles, axes, formulas, notes and
    ** overlays stay on the canvas and clear of each other */
    const char *root = getenv("ATTNLAB_LOCALE") ? getenv("ATTNLAB_LOCALE") : "../build/locale";
    DIR *ld = opendir(root);
    ck_assert_msg(ld != NULL, "no catalogues in %s", root);
    struct dirent *le;
    int langs = 0;
    while ((le = readdir(ld)) != NULL) {
        if (le->d_name[0] == '.') continue;
        char mo[512];
        snprintf(mo, sizeof mo, "%s/%s/LC_MESSAGES/attnlab.mo", root, le->d_name);
        Error ierr;
        I18nCatalog *cat = i18n_catalog_load(mo, &ierr);
        ck_assert_msg(cat != NULL, "%s", eline(&ierr));
        i18n_use(le->d_name, cat);
        ck_assert_str_ne(_("queries"), "queries");
        DIR *dir = opendir("../lessons");
        ck_assert_ptr_nonnull(dir);
        struct dirent *e;
        int stages = 0;
        while ((e = readdir(dir)) != NULL) {
            if (!strstr(e->d_name, ".lesson")) continue;
            char path[512];
            snprintf(path, sizeof path, "../lessons/%s", e->d_name);
            stages += lessons_clean_in(path, le->d_name);
        }
        closedir(dir);
        ck_assert_int_ge(stages, 46);
        overlays_fit_in(le->d_name);
        langs++;
    }
    closedir(ld);
    i18n_reset();
    ck_assert_int_ge(langs, 8);
}
END_TEST

START_TEST(test_plot_panel)
{
    Mat *E = mat_create(8, 5);
    for (int i = 0; i < 8; i++)
        for (int h = 0; h < 5; h++) mat_set(E, i, h, 0.3 + 0.35 * h + 0.05 * ((i * 3 + h) % 4));
    View v = tl_view("Entropy per head");
    Panel p;
    memset(&p, 0, sizeof p);
    p.kind = PANEL_PLOT;
    p.title = "Entropy of each query's weights";
    p.m = E;
    p.row_labels = tl_tok8;
    p.row_axis = "query";
    p.y_axis = "entropy (nats)";
    p.series = heads5;
    double bounds[8];
    for (int i = 0; i < 8; i++) bounds[i] = log(8.0);
    p.bounds = bounds;
    p.bound_label = "ln 8 = 2.08 (uniform)";
    v.panels[0] = p;
    v.npanels = 1;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    int lines = 0, dashed = 0, points = 0;
    Color first[5];
    int seen = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind == DRAW_RECT && c->role == ROLE_CELL && c->panel == 0) points++;   /* hover areas */
        if (c->kind != DRAW_LINE || c->role != ROLE_PLOT) continue;
        if (c->dashed) { dashed++; continue; }
        if (c->row >= 0) lines++;           /* a line joining two points */
        if (c->col >= 0 && c->col < 5 && !(seen & (1 << c->col))) { first[c->col] = c->color; seen |= 1 << c->col; }
    }
    ck_assert_int_eq(lines, 0);             /* tokens are categories: points are not joined */
    ck_assert_int_eq(points, 8 * 5);        /* every point can be hovered */
    ck_assert_int_eq(dashed, 8 + 1);        /* one level step per query, all at ln 8, and its legend swatch */
    ck_assert_int_eq(seen, 31);
    for (int a = 0; a < 5; a++)             /* every series its own colour */
        for (int b = a + 1; b < 5; b++) ck_assert(!tl_same_color(first[a], first[b]));
    ck_assert_ptr_nonnull(tl_find_text(d, "ln 8 = 2.08 (uniform)"));
    for (int h = 0; h < 5; h++) ck_assert_ptr_nonnull(tl_find_text(d, heads5[h]));
    ck_assert_int_eq(tl_count(d, DRAW_TEXT, ROLE_ROW_LABEL, 0), 8);
    ck_assert_int_ge(tl_count(d, DRAW_TEXT, ROLE_TICK_LABEL, 0), 3);
    ck_assert_ptr_nonnull(tl_find_text(d, "entropy (nats)"));
    /* the bound sits above every point here: its line is higher than any marker */
    tl_assert_page_clean(d, "plot");
    draw_free(d);
    /* no bound: no dashed line */
    v.panels[0].bounds = NULL;
    d = tl_lay(&v, 1920, 1080, true);
    for (int i = 0; i < d->n; i++) ck_assert(!(d->cmds[i].kind == DRAW_LINE && d->cmds[i].dashed));
    tl_assert_page_clean(d, "plot without bound");
    draw_free(d);
    mat_free(E);
}
END_TEST

START_TEST(test_header_formula_body)
{
    Mat *W = tl_distributions(4, 4);
    View v = tl_view("Attention weights");
    v.panels[0] = tl_heat("Weights", W, tl_tok8, tl_tok8, "viridis", false, true, 2);
    v.npanels = 1;
    DrawList *d = tl_lay(&v, 1280, 800, false);
    const DrawCmd *t = tl_find_text(d, "Attention weights");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->role, ROLE_TITLE);
    ck_assert_int_eq(t->bold, 1);
    const DrawCmd *meta = tl_find_text(d, "A tour of self-attention  \xc2\xb7  stage 4 / 9");
    ck_assert_ptr_nonnull(meta);
    ck_assert_float_lt(meta->size, t->size);
    ck_assert_int_eq(tl_count(d, DRAW_TEXT, ROLE_FORMULA, -1), 1);
    ck_assert_int_ge(tl_count(d, DRAW_TEXT, ROLE_BODY, -1), 2);
    /* the body, rejoined, says the paragraphs word for word */
    char all[1024] = "";
    for (int i = 0; i < d->n; i++) {
        if (d->cmds[i].role != ROLE_BODY) continue;
        if (all[0]) strcat(all, " ");
        strcat(all, draw_str(d, &d->cmds[i]));
    }
    char want[1024];
    snprintf(want, sizeof want, "%s %s", tl_paras[0], tl_paras[1]);
    ck_assert_str_eq(all, want);
    tl_assert_page_clean(d, "header");
    draw_free(d);
    mat_free(W);
}
END_TEST

START_TEST(test_hover_highlights_related_cells)
{
    Mat *S = tl_pattern(4, 4, -1, 1), *W = tl_distributions(4, 4), *V = tl_pattern(4, 2, 0, 1);
    View v = tl_view("Hover");
    v.panels[0] = tl_heat("Scores", S, tl_tok8, tl_tok8, "RdBu", true, false, 2);
    v.panels[1] = tl_heat("Weights", W, tl_tok8, tl_tok8, "viridis", false, true, 2);
    v.panels[2] = tl_heat("V", V, tl_tok8, tl_dims4, "viridis", false, false, 2);
    v.npanels = 3;
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(1280, 800, &th, NULL, NULL);
    o.hover_panel = 1;
    o.hover_row = 2;
    o.hover_col = 3;
    /* the caller marks the operands: row 2 of the scores, column 1 of V */
    o.marks[0] = (LayoutMark){ 0, 2, -1 };
    o.marks[1] = (LayoutMark){ 2, -1, 1 };
    o.nmarks = 2;
    DrawList *d = tl_lay_with(&v, &o);
    bool cell = false, row_scores = false, col_v = false, other = false;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_RECT || c->width <= 0 || !tl_same_color(c->color, th.highlight)) continue;
        if (c->panel == 1 && c->row == 2 && c->col == 3) cell = true;
        else if (c->panel == 0 && c->row == 2 && c->col == -1) row_scores = true;
        else if (c->panel == 2 && c->row == -1 && c->col == 1) col_v = true;
        else other = true;
    }
    ck_assert(cell);
    ck_assert(row_scores);
    ck_assert(col_v);
    ck_assert(!other);                      /* nothing but the operands is lit */
    /* the hit test finds the hovered cell again */
    const DrawCmd *c23 = tl_find_cell(d, 1, 2, 3);
    int hp, hr, hc;
    ck_assert(draw_cell_at(d, c23->r.x + c23->r.w / 2, c23->r.y + c23->r.h / 2, &hp, &hr, &hc));
    ck_assert_int_eq(hp, 1);
    ck_assert_int_eq(hr, 2);
    ck_assert_int_eq(hc, 3);
    tl_assert_page_clean(d, "hover");
    draw_free(d);
    mat_free(S); mat_free(W); mat_free(V);
}
END_TEST

START_TEST(test_hidden_panel_shows_no_values)
{
    Mat *S = tl_pattern(4, 4, -1, 1), *W = tl_distributions(4, 4);
    View v = tl_view("Predict");
    v.panels[0] = tl_heat("Scores", S, tl_tok8, tl_tok8, "RdBu", true, false, 2);
    v.panels[1] = tl_heat("Weights", W, tl_tok8, tl_tok8, "viridis", false, true, 2);
    v.npanels = 2;
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(1280, 800, &th, NULL, NULL);
    o.hidden = 1ULL << 1;
    DrawList *d = tl_lay_with(&v, &o);
    ck_assert_int_eq(tl_count(d, DRAW_RECT, ROLE_CELL, 1), 16);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->panel != 1) continue;
        if (c->role == ROLE_CELL) ck_assert(tl_same_color(c->color, th.panel_bg));
        if (c->role == ROLE_CELL_TEXT) ck_assert_str_eq(draw_str(d, c), "?");
    }
    assert_cells(d, 0, S, "RdBu", -1, 1, 2);
    tl_assert_page_clean(d, "hidden");
    draw_free(d);
    mat_free(S); mat_free(W);
}
END_TEST


/* The layout suite. */
Suite *layout_suite(void)
{
    Suite *s = suite_create("layout");
    TCase *core = tcase_create("core");
    /* a hang limit (times CK_TIMEOUT_MULTIPLIER): the bundled lessons in
    ** every language take about 10 s on an idle machine; the layout and
    ** export suites together took 125 s while six other processes kept
    ** both cores busy */
    tcase_set_timeout(core, 300);
    tcase_add_test(core, test_weights_cells_colours_and_labels);
    tcase_add_test(core, test_sequential_and_diverging_scales);
    tcase_add_test(core, test_masked_cells);
    tcase_add_test(core, test_no_overlap_at_every_size);
    tcase_add_test(core, test_plot_panel);
    tcase_add_test(core, test_bundled_lessons_clean);
    tcase_add_test(core, test_rtl_paragraphs_align_right);
    tcase_add_test(core, test_bigger_text_never_shrinks_numbers);
    tcase_add_test(core, test_bundled_lessons_every_language);
    tcase_add_test(core, test_header_formula_body);
    tcase_add_test(core, test_hover_highlights_related_cells);
    tcase_add_test(core, test_hidden_panel_shows_no_values);
    tcase_add_test(core, test_one_letter_labels_stay_level);
    suite_add_tcase(s, core);
    suite_add_tcase(s, layout_limits_tcase());
    suite_add_tcase(s, layout_large_tcase());
    return s;
}
