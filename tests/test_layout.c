/*
** test_layout.c: views built by hand, laid out with the fixed-width measure.
**
** The invariants a class relies on: one cell per value in the colour of its
** value, the value printed in it and readable (4.5:1), masked cells grey and
** labelled "−∞", nothing outside the canvas, no two texts on top of each
** other. Text boxes are computed the way a backend places them: the
** measured width by 1.17 times the font size, aligned in the command's box.
*/
#include "suites.h"
#include "tstages.h"
#include "view/layout.h"
#include "view/cmap.h"
#include "view/svg.h"
#include "core/util.h"
#include "core/lesson.h"
#include "core/trace.h"
#include "core/attn.h"
#include "core/stage.h"
#include "core/slide.h"
#include "core/i18n.h"
#include "app/frame.h"
#include "app/state.h"

#include <dirent.h>
#include <stdlib.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MINUS_INF "\xe2\x88\x92\xe2\x88\x9e"

static char *tok8[] = { "The", "cat", "sat", "on", "the", "mat", "because", "it" };
static char *tok3[] = { "I", "like", "tea" };
static char *dims4[] = { "d1", "d2", "d3", "d4" };
static char *en7[] = { "the", "internationally", "recognised", "agreement", "was", "signed",
                       "yesterday" };
static char *es7[] = { "el", "acuerdo", "reconocido", "internacionalmente", "fue", "firmado",
                       "ayer" };
static char *heads5[] = { "head 1", "head 2", "head 3", "head 4", "head 5" };
static char *paras[] = {
    "Each row is one query deciding where to look. Softmax turns its scores into positive "
    "weights that add up to exactly one, a budget of attention spread over the keys.",
    "Bright cells are the keys a query attends to most; hover one to see its arithmetic.",
};

typedef struct Box { float x0, y0, x1, y1; } Box;

/* A heatmap panel over m. */
static Panel heat(const char *title, const Mat *m, char **rl, char **cl, const char *cmap,
                  bool diverging, bool prob, int decimals)
{
    Panel p;
    memset(&p, 0, sizeof p);
    p.kind = PANEL_HEATMAP;
    p.title = (char *)title;
    p.m = m;
    p.row_labels = rl;
    p.col_labels = cl;
    p.row_axis = "queries";
    p.col_axis = "keys (attended to)";
    p.cmap = (char *)cmap;
    p.diverging = diverging;
    p.probabilities = prob;
    p.decimals = decimals;
    p.bounds = NULL;
    return p;
}

/* A view with a title, a formula, two paragraphs and no panels yet. */
static View view(const char *title)
{
    View v;
    memset(&v, 0, sizeof v);
    v.stage = 3;
    v.nstages = 9;
    v.lesson_title = "A tour of self-attention";
    v.title = (char *)title;
    v.formula = "softmax(Q\xc2\xb7K\xe1\xb5\x80 / \xe2\x88\x9a" "d_k)";
    v.paras = paras;
    v.npara = 2;
    return v;
}

/* rows x cols values spread over [lo, hi] in a fixed pattern. */
static Mat *pattern(int rows, int cols, double lo, double hi)
{
    Mat *m = mat_create(rows, cols);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            mat_set(m, i, j, lo + (hi - lo) * ((i * 7 + j * 3) % 11) / 10.0);
    return m;
}

/* Rows that are probability distributions (each sums to 1). */
static Mat *distributions(int rows, int cols)
{
    Mat *m = pattern(rows, cols, 0.1, 2.0);
    for (int i = 0; i < rows; i++) {
        double s = 0;
        for (int j = 0; j < cols; j++) s += mat_get(m, i, j);
        for (int j = 0; j < cols; j++) mat_set(m, i, j, mat_get(m, i, j) / s);
    }
    return m;
}

/* Lay v out with options o (fixed measure) into a new list, with a fresh
** layout cache. */
static DrawList *lay_with(const View *v, const LayoutOpts *o)
{
    DrawList *d = draw_create(o->width, o->height);
    LayoutCache *lc = layout_cache_create();
    layout_view(lc, v, o, d);
    layout_cache_free(lc);
    return d;
}

/* Lay v out at w x h in the light or dark theme. */
static DrawList *lay(const View *v, int w, int h, bool dark)
{
    Theme th = layout_theme(dark);
    LayoutOpts o = layout_defaults(w, h, &th, layout_measure_fixed, NULL);
    return lay_with(v, &o);
}

/* Where a text command's glyphs land. Turned runs are aligned in the
** turned frame: halign along the text (upward), valign across it. A
** line of text covers INK font sizes; a cell's number, digits centred in
** the cell, the CELL_INK its cell is planned with. */
static Box ink(const DrawList *d, const DrawCmd *c)
{
    bool digits = c->role == ROLE_CELL_TEXT || c->role == ROLE_MASKED;
    float w = layout_measure_fixed(NULL, draw_str(d, c), c->size, c->bold), h = (digits ? CELL_INK : INK) * c->size;
    bool rot = c->rotate == 90;
    float along_len = rot ? c->r.h : c->r.w, across_len = rot ? c->r.w : c->r.h;
    float a = c->halign == ALIGN_LEFT ? 0 : c->halign == ALIGN_RIGHT ? along_len - w : (along_len - w) / 2;
    float b = c->valign == VALIGN_TOP ? 0 : c->valign == VALIGN_BOTTOM ? across_len - h : (across_len - h) / 2;
    if (rot) {
        float y1 = c->r.y + c->r.h - a;
        return (Box){ c->r.x + b, y1 - w, c->r.x + b + h, y1 };
    }
    return (Box){ c->r.x + a, c->r.y + b, c->r.x + a + w, c->r.y + b + h };
}

/* What any command covers, strokes included. */
static Box extent(const DrawList *d, const DrawCmd *c)
{
    if (c->kind == DRAW_TEXT) return ink(d, c);
    float x0 = fminf(c->r.x, c->r.x + c->r.w), x1 = fmaxf(c->r.x, c->r.x + c->r.w);
    float y0 = fminf(c->r.y, c->r.y + c->r.h), y1 = fmaxf(c->r.y, c->r.y + c->r.h);
    float s = c->kind == DRAW_LINE || c->width > 0 ? c->width / 2 : 0;
    return (Box){ x0 - s, y0 - s, x1 + s, y1 + s };
}

/* True when two boxes share more than a sliver. */
static bool overlap(Box a, Box b)
{
    const float e = 0.25f;
    return a.x0 < b.x1 - e && b.x0 < a.x1 - e && a.y0 < b.y1 - e && b.y0 < a.y1 - e;
}

/* Everything inside the canvas, no two texts overlapping, cell texts in their cells. */
static void assert_page_clean(const DrawList *d, const char *what)
{
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        Box b = extent(d, c);
        ck_assert_msg(isfinite(b.x0) && isfinite(b.y0) && isfinite(b.x1) && isfinite(b.y1),
                      "%s: command %d has a non-finite box", what, i);
        ck_assert_msg(b.x0 >= -0.5f && b.y0 >= -0.5f && b.x1 <= d->width + 0.5f && b.y1 <= d->height + 0.5f,
                      "%s: command %d ('%s', role %d) leaves the canvas: %.1f %.1f %.1f %.1f",
                      what, i, draw_str(d, c), c->role, b.x0, b.y0, b.x1, b.y1);
        if (c->kind != DRAW_TEXT || !draw_str(d, c)[0]) continue;
        ck_assert_msg(c->size > 0, "%s: text without a size", what);
        if (c->role == ROLE_CELL_TEXT || c->role == ROLE_MASKED)
            ck_assert_msg(b.x0 >= c->r.x - 0.01f && b.x1 <= c->r.x + c->r.w + 0.01f
                          && b.y0 >= c->r.y - 0.01f && b.y1 <= c->r.y + c->r.h + 0.01f,
                          "%s: '%s' spills out of its cell", what, draw_str(d, c));
        for (int j = i + 1; j < d->n; j++) {
            const DrawCmd *o = &d->cmds[j];
            if (o->kind != DRAW_TEXT || !draw_str(d, o)[0]) continue;
            Box bo = ink(d, o);
            ck_assert_msg(!overlap(b, bo), "%s: '%s' (role %d, panel %d, %.1f %.1f %.1f %.1f) overlaps '%s' (role %d, panel %d, %.1f %.1f %.1f %.1f)", what,
                          draw_str(d, c), c->role, c->panel, b.x0, b.y0, b.x1, b.y1, draw_str(d, o), o->role, o->panel, bo.x0, bo.y0, bo.x1, bo.y1);
        }
    }
}

/* The filled cell rectangle of (panel, row, col), or NULL. */
static const DrawCmd *find_cell(const DrawList *d, int panel, int row, int col)
{
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind == DRAW_RECT && c->width == 0 && (c->role == ROLE_CELL || c->role == ROLE_MASKED)
            && c->panel == panel && c->row == row && c->col == col)
            return c;
    }
    return NULL;
}

/* How many commands have this kind and role (on a panel, or any when -1). */
static int count(const DrawList *d, DrawKind kind, DrawRole role, int panel)
{
    int n = 0;
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == kind && d->cmds[i].role == role && (panel < 0 || d->cmds[i].panel == panel))
            n++;
    return n;
}

/* The first text command whose string is s, or NULL. */
static const DrawCmd *find_text(const DrawList *d, const char *s)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == DRAW_TEXT && strcmp(draw_str(d, &d->cmds[i]), s) == 0) return &d->cmds[i];
    return NULL;
}

/* True when two colours are the same. */
static bool same_color(Color a, Color b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

/* Every cell of panel k: one rectangle, coloured from cm on [lo, hi],
** labelled with its value at dec decimals in a colour that reads on it. */
static void assert_cells(const DrawList *d, int k, const Mat *m, const char *cmap,
                         double lo, double hi, int dec)
{
    const Cmap *cm = cmap_get(cmap);
    ck_assert_int_eq(count(d, DRAW_RECT, ROLE_CELL, k), m->rows * m->cols);
    for (int r = 0; r < m->rows; r++) {
        for (int c = 0; c < m->cols; c++) {
            const DrawCmd *cell = find_cell(d, k, r, c);
            ck_assert_ptr_nonnull(cell);
            double t = (mat_get(m, r, c) - lo) / (hi - lo);
            ck_assert_msg(same_color(cell->color, cmap_at(cm, t)), "cell %d,%d of panel %d", r, c, k);
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
        const DrawCmd *cell = find_cell(d, k, t->row, t->col);
        ck_assert_ptr_nonnull(cell);
        ck_assert_msg(cmap_contrast(t->color, cell->color) >= 4.5, "contrast %.2f",
                      cmap_contrast(t->color, cell->color));
    }
    ck_assert_int_eq(texts, m->rows * m->cols);
}

START_TEST(test_weights_cells_colours_and_labels)
{
    Mat *W = distributions(8, 8);
    View v = view("Attention weights");
    v.panels[0] = heat("Attention weights", W, tok8, tok8, "viridis", false, true, 2);
    v.npanels = 1;
    DrawList *d = lay(&v, 1280, 800, false);
    assert_cells(d, 0, W, "viridis", 0, 1, 2);
    /* row and column labels, one per token */
    ck_assert_int_eq(count(d, DRAW_TEXT, ROLE_ROW_LABEL, 0), 8);
    ck_assert_int_eq(count(d, DRAW_TEXT, ROLE_COL_LABEL, 0), 8);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role == ROLE_ROW_LABEL) ck_assert_str_eq(draw_str(d, c), tok8[c->row]);
        if (c->role == ROLE_COL_LABEL) ck_assert_str_eq(draw_str(d, c), tok8[c->col]);
    }
    /* a colour bar with 3 to 5 ticks, axis titles, the title */
    ck_assert_int_ge(count(d, DRAW_RECT, ROLE_COLORBAR, 0), 32);
    ck_assert_int_ge(count(d, DRAW_TEXT, ROLE_TICK_LABEL, 0), 3);
    ck_assert_int_le(count(d, DRAW_TEXT, ROLE_TICK_LABEL, 0), 5);
    ck_assert_int_eq(count(d, DRAW_TEXT, ROLE_AXIS_TITLE, 0), 2);
    ck_assert_ptr_nonnull(find_text(d, "Attention weights"));
    ck_assert_ptr_nonnull(find_text(d, "0.00"));
    ck_assert_ptr_nonnull(find_text(d, "1.00"));
    assert_page_clean(d, "8x8 weights");
    /* big enough for the back row: values at 14 px or more */
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_CELL_TEXT) ck_assert_float_ge(d->cmds[i].size, 14);
    draw_free(d);
    mat_free(W);
}
END_TEST

START_TEST(test_sequential_and_diverging_scales)
{
    Mat *A = pattern(3, 3, 2, 10);          /* sequential: [min, max] */
    Mat *B = pattern(3, 4, -1, 3);          /* diverging: [-3, 3] */
    View v = view("Scales");
    v.panels[0] = heat("plain", A, tok3, tok3, "magma", false, false, 1);
    v.panels[1] = heat("signed", B, tok3, dims4, "RdBu", true, false, 2);
    v.npanels = 2;
    DrawList *d = lay(&v, 1280, 800, false);
    assert_cells(d, 0, A, "magma", 2, 10, 1);
    assert_cells(d, 1, B, "RdBu", -3, 3, 2);
    /* round ticks inside the scales; zero on the diverging one */
    const DrawCmd *t0 = find_text(d, "0");
    ck_assert_ptr_nonnull(t0);
    ck_assert_int_eq(t0->role, ROLE_TICK_LABEL);
    ck_assert_int_eq(t0->panel, 1);
    ck_assert_ptr_nonnull(find_text(d, "-2"));
    ck_assert_ptr_nonnull(find_text(d, "10"));
    assert_page_clean(d, "scales");
    draw_free(d);
    mat_free(A);
    mat_free(B);
}
END_TEST

START_TEST(test_masked_cells)
{
    Mat *S = pattern(5, 5, -2, 2);
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++) mat_set(S, i, j, -INFINITY);
    View v = view("Causal mask");
    v.panels[0] = heat("Masked scores", S, tok8, tok8, "RdBu", true, false, 2);
    v.npanels = 1;
    Theme th = layout_theme(false);
    DrawList *d = lay(&v, 1280, 800, false);
    int masked = 0, labels = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role == ROLE_MASKED && c->kind == DRAW_RECT) {
            masked++;
            ck_assert(isinf(mat_get(S, c->row, c->col)));
            ck_assert(same_color(c->color, th.masked_bg));
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
    ck_assert_int_eq(count(d, DRAW_RECT, ROLE_CELL, 0), 15);
    /* the masked grey is not a colour of the map */
    const Cmap *rdbu = cmap_get("RdBu");
    for (int i = 0; i < 256; i++) ck_assert(!same_color(cmap_at(rdbu, (i + 0.5) / 256), th.masked_bg));
    /* the scale comes from the finite values only: |min| = |max| = 2 */
    const DrawCmd *c00 = find_cell(d, 0, 0, 0);
    ck_assert(same_color(c00->color, cmap_at(rdbu, (mat_get(S, 0, 0) + 2) / 4)));
    assert_page_clean(d, "masked");
    draw_free(d);
    mat_free(S);
}
END_TEST

START_TEST(test_no_overlap_at_every_size)
{
    Mat *W8 = distributions(8, 8), *W3 = distributions(3, 3), *X7 = distributions(7, 7);
    Mat *Q = pattern(8, 4, -1.5, 1.5), *K = pattern(8, 4, -2, 1), *V = pattern(8, 4, -1, 2.5);
    View a = view("Attention weights"), b = view("Three words"), c = view("Cross-attention");
    View q = view("Queries, keys and values");
    a.panels[0] = heat("Weights", W8, tok8, tok8, "viridis", false, true, 2);
    a.npanels = 1;
    b.panels[0] = heat("Weights", W3, tok3, tok3, "Blues", false, true, 2);
    b.npanels = 1;
    c.panels[0] = heat("English queries, Spanish keys", X7, en7, es7, "magma", false, true, 2);
    c.npanels = 1;
    q.panels[0] = heat("Q", Q, tok8, dims4, "RdBu", true, false, 2);
    q.panels[1] = heat("K", K, tok8, dims4, "RdBu", true, false, 2);
    q.panels[2] = heat("V", V, tok8, dims4, "RdBu", true, false, 2);
    q.npanels = 3;
    const View *views[] = { &a, &b, &c, &q };
    const int sizes[][2] = { { 1280, 800 }, { 1920, 1080 }, { 2560, 1600 }, { 1024, 640 } };
    for (int i = 0; i < 4; i++) {
        for (int s = 0; s < 4; s++) {
            for (int dark = 0; dark < 2; dark++) {
                char what[96];
                snprintf(what, sizeof what, "%s at %dx%d", views[i]->title, sizes[s][0], sizes[s][1]);
                DrawList *d = lay(views[i], sizes[s][0], sizes[s][1], dark);
                ck_assert_int_eq(d->width, sizes[s][0]);
                assert_page_clean(d, what);
                ck_assert_int_gt(count(d, DRAW_TEXT, ROLE_CELL_TEXT, -1), 0);
                draw_free(d);
            }
        }
    }
    /* the cross-attention labels: long ones cut with "…" or turned upright */
    DrawList *d = lay(&c, 1280, 800, false);
    ck_assert_int_eq(count(d, DRAW_TEXT, ROLE_COL_LABEL, 0), 7);
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
        DrawList *d = lay_with(v, &o);
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

/* Stage k of a bundled lesson laid out at w x h (fixed measure). */
static DrawList *lay_lesson_stage(const char *file, int k, int w, int h)
{
    Error err;
    Lesson *L = lesson_load(file, &err);
    ck_assert_msg(L != NULL, "%s", err.msg);
    Trace *T = attn_run(L, &err);
    ck_assert_msg(T != NULL, "%s", err.msg);
    View *v = stage_view(L, T, k);
    DrawList *d = lay(v, w, h, false);
    stage_view_free(v);
    trace_free(T);
    lesson_free(L);
    return d;
}

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
    View v = view("Twelve heads");
    for (int i = 0; i < H; i++) {
        h[i] = distributions(N, N);
        v.panels[i] = heat("Head", h[i], toks, toks, "viridis", false, true, 2);
    }
    for (int i = H; i < H + 2; i++) {
        h[i] = pattern(N, D, -2.0, 2.0);
        v.panels[i] = heat("Joined", h[i], toks, dims, "RdBu", true, false, 2);
    }
    v.npanels = H + 2;
    View one = view("Twelve heads");
    one.panels[0] = v.panels[0];
    one.npanels = 1;
    const int sizes[][2] = { { 1280, 720 }, { 1280, 800 }, { 1920, 1080 }, { 640, 400 } };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        char what[64];
        snprintf(what, sizeof what, "12 heads of 1024 at %dx%d", sizes[s][0], sizes[s][1]);
        DrawList *d = lay(&v, sizes[s][0], sizes[s][1], false);
        DrawList *d1 = lay(&one, sizes[s][0], sizes[s][1], false);
        assert_page_clean(d, what);
        ck_assert_msg(sizes[s][0] < 1280 || find_text(d, "Twelve heads")->size >= 0.85f * find_text(d1, "Twelve heads")->size,
                      "%s: the title at %.1f px, %.1f px with one panel", what, find_text(d, "Twelve heads")->size,
                      find_text(d1, "Twelve heads")->size);
        draw_free(d1);
        draw_free(d);
    }
    for (int i = 0; i < H + 2; i++) mat_free(h[i]);
}
END_TEST

/* Column labels turned to read upward when the columns are narrow: a label
** of one character ("I") stays level (turned, it reads as a dash), the
** longer ones turn. Lesson 6's last stage at 800x500 (the mask's columns
** are narrow; the scores' are as wide as their numbers, and level). */
START_TEST(test_one_letter_labels_stay_level)
{
    DrawList *d = lay_lesson_stage("../lessons/06-other-scores-and-masks.lesson", 6, 800, 500);
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
            View *v = stage_view(L, T, k);
            const int sizes[][2] = { { 1280, 800 }, { 1920, 1080 } };
            for (int s = 0; s < 2; s++)
                for (int dark = 0; dark < 2; dark++) {
                    char what[600];
                    snprintf(what, sizeof what, "%s stage %d at %dx%d%s", path, k + 1, sizes[s][0], sizes[s][1], dark ? " dark" : "");
                    DrawList *d = lay(v, sizes[s][0], sizes[s][1], dark);
                    assert_page_clean(d, what);
                    for (int p = 0; p < v->npanels; p++)
                        if (v->panels[p].kind == PANEL_HEATMAP)
                            ck_assert_msg(count(d, DRAW_RECT, ROLE_CELL, p) + count(d, DRAW_RECT, ROLE_MASKED, p)
                                          >= v->panels[p].m->rows * v->panels[p].m->cols, "%s: cells missing", what);
                    for (int i = 0; i < d->n; i++) {
                        const DrawCmd *t = &d->cmds[i];
                        if (t->role != ROLE_CELL_TEXT) continue;
                        const DrawCmd *cell = find_cell(d, t->panel, t->row, t->col);
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
        View *v = stage_view(L, T, k);
        for (int s = 0; s < 2; s++) {
            char what[1200];
            snprintf(what, sizeof what, "[%.200s] %.600s stage %d at %dx%d", lang, path, k + 1, sizes[s][0], sizes[s][1]);
            DrawList *d = lay(v, sizes[s][0], sizes[s][1], s == 1);
            assert_page_clean(d, what);
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
            Box b = ink(d, c);
            ck_assert_msg(b.x0 >= -0.5f && b.x1 <= d->width + 0.5f && b.y0 >= -0.5f && b.y1 <= d->height + 0.5f,
                          "%s: '%s' leaves the canvas", what, draw_str(d, c));
            for (int j = i + 1; j < d->n; j++)
                if (d->cmds[j].kind == DRAW_TEXT && d->cmds[j].role == ROLE_OVERLAY)
                    ck_assert_msg(!overlap(b, ink(d, &d->cmds[j])), "%s: '%s' overlaps '%s'", what, draw_str(d, c),
                                  draw_str(d, &d->cmds[j]));
        }
        draw_free(d);
    }
    app_free(a);
}

/* Paragraphs in Arabic end their lines on the left: every body line of
** lesson 12 is aligned right on one edge, and the tour's lines left. */
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
            View *v = stage_view(L, T, k);
            DrawList *d = lay(v, 1280, 720, false);
            float edge = -1;
            for (int i = 0; i < d->n; i++) {
                const DrawCmd *c = &d->cmds[i];
                if (c->role != ROLE_BODY || c->kind != DRAW_TEXT) continue;
                lines++;
                ck_assert_int_eq(c->halign, f == 0 ? ALIGN_RIGHT : ALIGN_LEFT);
                float e = f == 0 ? c->r.x + c->r.w : c->r.x;
                if (edge < 0) edge = e;
                ck_assert_float_eq_tol(e, edge, 0.01f);
            }
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
    View v = view("Entropy per head");
    Panel p;
    memset(&p, 0, sizeof p);
    p.kind = PANEL_PLOT;
    p.title = "Entropy of each query's weights";
    p.m = E;
    p.row_labels = tok8;
    p.row_axis = "query";
    p.y_axis = "entropy (nats)";
    p.series = heads5;
    double bounds[8];
    for (int i = 0; i < 8; i++) bounds[i] = log(8.0);
    p.bounds = bounds;
    p.bound_label = "ln 8 = 2.08 (uniform)";
    v.panels[0] = p;
    v.npanels = 1;
    DrawList *d = lay(&v, 1280, 800, false);
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
        for (int b = a + 1; b < 5; b++) ck_assert(!same_color(first[a], first[b]));
    ck_assert_ptr_nonnull(find_text(d, "ln 8 = 2.08 (uniform)"));
    for (int h = 0; h < 5; h++) ck_assert_ptr_nonnull(find_text(d, heads5[h]));
    ck_assert_int_eq(count(d, DRAW_TEXT, ROLE_ROW_LABEL, 0), 8);
    ck_assert_int_ge(count(d, DRAW_TEXT, ROLE_TICK_LABEL, 0), 3);
    ck_assert_ptr_nonnull(find_text(d, "entropy (nats)"));
    /* the bound sits above every point here: its line is higher than any marker */
    assert_page_clean(d, "plot");
    draw_free(d);
    /* no bound: no dashed line */
    v.panels[0].bounds = NULL;
    d = lay(&v, 1920, 1080, true);
    for (int i = 0; i < d->n; i++) ck_assert(!(d->cmds[i].kind == DRAW_LINE && d->cmds[i].dashed));
    assert_page_clean(d, "plot without bound");
    draw_free(d);
    mat_free(E);
}
END_TEST

START_TEST(test_header_formula_body)
{
    Mat *W = distributions(4, 4);
    View v = view("Attention weights");
    v.panels[0] = heat("Weights", W, tok8, tok8, "viridis", false, true, 2);
    v.npanels = 1;
    DrawList *d = lay(&v, 1280, 800, false);
    const DrawCmd *t = find_text(d, "Attention weights");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->role, ROLE_TITLE);
    ck_assert_int_eq(t->bold, 1);
    const DrawCmd *meta = find_text(d, "A tour of self-attention  \xc2\xb7  stage 4 / 9");
    ck_assert_ptr_nonnull(meta);
    ck_assert_float_lt(meta->size, t->size);
    ck_assert_int_eq(count(d, DRAW_TEXT, ROLE_FORMULA, -1), 1);
    ck_assert_int_ge(count(d, DRAW_TEXT, ROLE_BODY, -1), 2);
    /* the body, rejoined, says the paragraphs word for word */
    char all[1024] = "";
    for (int i = 0; i < d->n; i++) {
        if (d->cmds[i].role != ROLE_BODY) continue;
        if (all[0]) strcat(all, " ");
        strcat(all, draw_str(d, &d->cmds[i]));
    }
    char want[1024];
    snprintf(want, sizeof want, "%s %s", paras[0], paras[1]);
    ck_assert_str_eq(all, want);
    assert_page_clean(d, "header");
    draw_free(d);
    mat_free(W);
}
END_TEST

START_TEST(test_hover_highlights_related_cells)
{
    Mat *S = pattern(4, 4, -1, 1), *W = distributions(4, 4), *V = pattern(4, 2, 0, 1);
    View v = view("Hover");
    v.panels[0] = heat("Scores", S, tok8, tok8, "RdBu", true, false, 2);
    v.panels[1] = heat("Weights", W, tok8, tok8, "viridis", false, true, 2);
    v.panels[2] = heat("V", V, tok8, dims4, "viridis", false, false, 2);
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
    DrawList *d = lay_with(&v, &o);
    bool cell = false, row_scores = false, col_v = false, other = false;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_RECT || c->width <= 0 || !same_color(c->color, th.highlight)) continue;
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
    const DrawCmd *c23 = find_cell(d, 1, 2, 3);
    int hp, hr, hc;
    ck_assert(draw_cell_at(d, c23->r.x + c23->r.w / 2, c23->r.y + c23->r.h / 2, &hp, &hr, &hc));
    ck_assert_int_eq(hp, 1);
    ck_assert_int_eq(hr, 2);
    ck_assert_int_eq(hc, 3);
    assert_page_clean(d, "hover");
    draw_free(d);
    mat_free(S); mat_free(W); mat_free(V);
}
END_TEST

START_TEST(test_hidden_panel_shows_no_values)
{
    Mat *S = pattern(4, 4, -1, 1), *W = distributions(4, 4);
    View v = view("Predict");
    v.panels[0] = heat("Scores", S, tok8, tok8, "RdBu", true, false, 2);
    v.panels[1] = heat("Weights", W, tok8, tok8, "viridis", false, true, 2);
    v.npanels = 2;
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(1280, 800, &th, NULL, NULL);
    o.hidden = 1ULL << 1;
    DrawList *d = lay_with(&v, &o);
    ck_assert_int_eq(count(d, DRAW_RECT, ROLE_CELL, 1), 16);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->panel != 1) continue;
        if (c->role == ROLE_CELL) ck_assert(same_color(c->color, th.panel_bg));
        if (c->role == ROLE_CELL_TEXT) ck_assert_str_eq(draw_str(d, c), "?");
    }
    assert_cells(d, 0, S, "RdBu", -1, 1, 2);
    assert_page_clean(d, "hidden");
    draw_free(d);
    mat_free(S); mat_free(W);
}
END_TEST

START_TEST(test_limits_tiny_cells_hide_text)
{
    Mat *B = pattern(60, 60, 0, 1);
    View v = view("Sixty tokens");
    v.panels[0] = heat("Weights", B, NULL, NULL, "viridis", false, true, 2);
    v.npanels = 1;
    DrawList *d = lay(&v, 1280, 800, false);
    ck_assert_int_eq(count(d, DRAW_TEXT, ROLE_CELL_TEXT, -1), 0);
    /* 3600 cells and no numbers: one image command, not 3600 rectangles */
    ck_assert_int_eq(count(d, DRAW_RECT, ROLE_CELL, 0), 0);
    ck_assert_int_eq(count(d, DRAW_IMAGE, ROLE_CELL, 0), 1);
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
            ck_assert(same_color(b.color, cmap_at(cm, mat_get(B, r, c))));    /* weights: the scale is [0, 1] */
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
    assert_page_clean(d, "60x60");
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
    Mat *B = pattern(120, 120, -1, 1);
    View v = view("Many tokens");
    v.panels[0] = heat("Scores", B, labels, labels, "RdBu", true, false, -1);
    v.npanels = 1;
    DrawList *d = lay(&v, 1280, 800, false);
    int rows = count(d, DRAW_TEXT, ROLE_ROW_LABEL, 0), cols = count(d, DRAW_TEXT, ROLE_COL_LABEL, 0);
    ck_assert_int_gt(rows, 5);
    ck_assert_int_lt(rows, 120);
    ck_assert_int_gt(cols, 5);
    assert_page_clean(d, "120x120");
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
    View v = view("Degenerate");
    v.panels[0] = heat("Constant", C, tok3, tok3, "viridis", false, false, 2);
    v.panels[1] = heat("One", one, tok3, tok3, "plasma", false, false, 1);
    v.panels[2] = heat("All masked", all, tok3, tok3, "RdBu", true, false, 2);
    v.panels[3] = heat("Zeros, signed", Z, tok3, tok3, "RdBu", true, false, 2);
    v.npanels = 4;
    DrawList *d = lay(&v, 1280, 800, false);
    const DrawCmd *c0 = find_cell(d, 0, 0, 0);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) ck_assert(same_color(find_cell(d, 0, r, c)->color, c0->color));
    ck_assert_ptr_nonnull(find_text(d, "-7.5"));
    ck_assert_int_eq(count(d, DRAW_RECT, ROLE_MASKED, 2), 6);
    ck_assert_int_eq(count(d, DRAW_RECT, ROLE_CELL, 2), 0);
    /* zero on a diverging map is its middle */
    const Cmap *rdbu = cmap_get("RdBu");
    ck_assert(same_color(find_cell(d, 3, 0, 0)->color, cmap_at(rdbu, 0.5)));
    assert_page_clean(d, "degenerate");
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
        View v = view("Extreme");
        v.panels[0] = heat("Signed", m, tok3, tok3, "RdBu", true, false, -1);
        v.panels[1] = heat("Sequential", m, tok3, tok3, "viridis", false, false, -1);
        v.npanels = 2;
        DrawList *d = lay(&v, 1280, 800, false);
        if (t < 2) {
            ck_assert(same_color(find_cell(d, 0, 0, 0)->color, cmap_at(rdbu, 1)));
            ck_assert(same_color(find_cell(d, 0, 0, 1)->color, cmap_at(rdbu, 0)));
            ck_assert(!same_color(find_cell(d, 1, 0, 0)->color, find_cell(d, 1, 0, 1)->color));
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
        if (t == 0) ck_assert_ptr_nonnull(find_text(d, "1.00e+308"));
        if (t == 1) ck_assert_ptr_nonnull(find_text(d, "4.94e-324"));
        char *svg = svg_write(d, NULL, NULL, NULL);
        ck_assert_ptr_null(strstr(svg, "nan"));
        ck_assert_ptr_null(strstr(svg, "inf"));
        free(svg);
        assert_page_clean(d, "extreme values");
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
    View v = view("Automatic decimals");
    v.panels[0] = heat("big", B, tok3, tok3, "viridis", false, false, -1);
    v.panels[1] = heat("tiny", T, tok3, tok3, "viridis", false, false, -1);
    v.panels[2] = heat("mask", I, tok3, tok3, "Blues", false, false, -1);
    v.npanels = 3;
    DrawList *d = lay(&v, 1280, 800, false);
    ck_assert_ptr_nonnull(find_text(d, "123.5"));
    ck_assert_ptr_nonnull(find_text(d, "99.0"));
    ck_assert_ptr_nonnull(find_text(d, "0.001"));
    ck_assert_ptr_nonnull(find_text(d, "0.030"));
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role == ROLE_CELL_TEXT && c->panel == 2)
            ck_assert(strcmp(draw_str(d, c), "0") == 0 || strcmp(draw_str(d, c), "1") == 0);
    }
    assert_page_clean(d, "decimals");
    draw_free(d);
    mat_free(B); mat_free(T); mat_free(I);
}
END_TEST

START_TEST(test_limits_small_canvas_and_big_text)
{
    Mat *W = distributions(8, 8), *Q = pattern(8, 4, -1, 1);
    View v = view("A rather long title for a very small window that must be cut somewhere");
    v.panels[0] = heat("Q", Q, tok8, dims4, "RdBu", true, false, 2);
    v.panels[1] = heat("Weights", W, tok8, tok8, "viridis", false, true, 2);
    v.npanels = 2;
    Theme th = layout_theme(true);
    const int sizes[][2] = { { 320, 200 }, { 640, 400 }, { 1280, 800 }, { 3840, 2160 } };
    const float scales[] = { 0.5f, 1.0f, 2.0f, 3.0f };
    for (int s = 0; s < 4; s++) {
        for (int k = 0; k < 4; k++) {
            LayoutOpts o = layout_defaults(sizes[s][0], sizes[s][1], &th, NULL, NULL);
            o.text_scale = scales[k];
            DrawList *d = lay_with(&v, &o);
            char what[64];
            snprintf(what, sizeof what, "%dx%d at text scale %.1f", sizes[s][0], sizes[s][1], scales[k]);
            assert_page_clean(d, what);
            draw_free(d);
        }
    }
    mat_free(W); mat_free(Q);
}
END_TEST

START_TEST(test_limits_many_panels_wrap)
{
    Mat *h[8];
    View v = view("Eight heads");
    for (int i = 0; i < 8; i++) {
        h[i] = distributions(6, 6);
        v.panels[i] = heat("Head", h[i], tok8, tok8, "viridis", false, true, 2);
    }
    v.npanels = 8;
    DrawList *d = lay(&v, 1280, 800, false);
    float y0 = find_cell(d, 0, 0, 0)->r.y, y4 = find_cell(d, 4, 0, 0)->r.y;
    ck_assert_float_gt(y4, y0);                 /* the fifth panel starts a second row */
    ck_assert_float_eq_tol(find_cell(d, 3, 0, 0)->r.y, y0, 0.01);
    for (int i = 0; i < 8; i++) ck_assert_int_eq(count(d, DRAW_RECT, ROLE_CELL, i), 36);
    assert_page_clean(d, "8 panels");
    draw_free(d);
    for (int i = 0; i < 8; i++) mat_free(h[i]);
}
END_TEST

START_TEST(test_limits_empty_view_and_missing_parts)
{
    View v;
    memset(&v, 0, sizeof v);
    DrawList *d = lay(&v, 1280, 800, false);
    assert_page_clean(d, "empty view");
    draw_free(d);
    v = view("No panels");
    v.formula = NULL;
    d = lay(&v, 1280, 800, false);
    ck_assert_int_ge(count(d, DRAW_TEXT, ROLE_BODY, -1), 2);
    assert_page_clean(d, "no panels");
    draw_free(d);
    Panel p;
    memset(&p, 0, sizeof p);
    p.kind = PANEL_HEATMAP;
    p.bounds = NULL;
    v.panels[0] = p;                        /* no title, no matrix */
    v.npanels = 1;
    v.paras = NULL;
    v.npara = 0;
    d = lay(&v, 1280, 800, false);
    assert_page_clean(d, "no matrix");
    draw_free(d);
}
END_TEST

START_TEST(test_limits_steady_state_does_not_grow)
{
    Mat *W = distributions(8, 8);
    View v = view("Twice");
    v.panels[0] = heat("Weights", W, tok8, tok8, "viridis", false, true, 2);
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
    Mat *M = pattern(64, 64, 0, 1);
    View v = view("Remembered");
    v.panels[0] = heat("values", M, NULL, NULL, "viridis", false, false, 2);
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
                ck_assert_msg(same_color(px[i * bc + j], cmap_at(cm, t - 1e-9))
                              || same_color(px[i * bc + j], cmap_at(cm, t + 1e-9)),
                              "block (%d, %d) of serial %llu", i, j, serial);
            }
        ck_assert(memcmp(a, c, sizeof *a * (size_t)n1) != 0);
        ck_assert_ptr_nonnull(find_text(d, "-250"));        /* the colour bar's new ticks */
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
        if (x->kind != y->kind || x->role != y->role || !same_color(x->color, y->color)
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
    Mat *A = pattern(64, 64, 0, 1), *B = pattern(48, 80, -3, 5);
    View va = view("First"), vb = view("Second");
    va.panels[0] = heat("values", A, NULL, NULL, "viridis", false, false, 2);
    vb.panels[0] = heat("values", B, NULL, NULL, "RdBu", true, false, 2);
    va.npanels = vb.npanels = 1;
    va.serial = 7001;
    vb.serial = 7002;
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(640, 400, &th, NULL, NULL);
    DrawList *fa = lay_with(&va, &o), *fb = lay_with(&vb, &o);     /* each with a fresh cache */
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
    DrawList *fresh = lay_with(&va, &o);
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
    Mat *A = distributions(6, 6), *B = pattern(64, 64, -2, 3);
    View v = view("Kept");
    v.panels[0] = heat("weights", A, toks, toks, "viridis", false, true, 2);
    v.panels[1] = heat("scores", B, NULL, NULL, "RdBu", true, false, 2);
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
            DrawList *fresh = lay_with(&v, &o);
            ck_assert_msg(same_list(d, fresh), "key %zu, outlines %d", k, i);
            ck_assert(d->npanels == fresh->npanels && same_color(d->background, fresh->background));
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
    suite_add_tcase(s, limits);
    return s;
}
