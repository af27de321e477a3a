/*
** tlayout.c: what the layout suites share: hand-made views and panels, laying
** them out with the fixed-width measure, and the checks every page must
** pass (nothing outside the canvas, no two texts on top of each other, a
** cell's number inside its cell).
*/
#include "tlayout.h"
#include "tstages.h"
#include "core/compute/attn.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "core/stage/slide.h"
#include "core/util.h"

#include <math.h>
#include <string.h>

char *tl_tok8[] = { "The", "cat", "sat", "on", "the", "mat", "because", "it" };
char *tl_tok3[] = { "I", "like", "tea" };
char *tl_dims4[] = { "d1", "d2", "d3", "d4" };
char *tl_paras[] = {
    "Each row is one query deciding where to look. Softmax turns its scores into positive "
    "weights that add up to exactly one, a budget of attention spread over the keys.",
    "Bright cells are the keys a query attends to most; hover one to see its arithmetic.",
};

/* A heatmap panel over m. */
Panel tl_heat(const char *title, const Mat *m, char **rl, char **cl, const char *cmap,
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

/* Room for the panels of a view made by hand, one of eight in turn. */
Panel *tl_panels(void)
{
    static Panel pool[8][VIEW_MAX_PANELS];
    static int next;
    Panel *p = pool[next++ % 8];
    memset(p, 0, sizeof pool[0]);
    return p;
}

/* A view with a title, a formula, two paragraphs and no panels yet. */
View tl_view(const char *title)
{
    View v;
    memset(&v, 0, sizeof v);
    v.panels = tl_panels();
    v.cap_panels = VIEW_MAX_PANELS;
    v.stage = 3;
    v.nstages = 9;
    v.lesson_title = "A tour of self-attention";
    v.title = (char *)title;
    v.formula = "softmax(Q\xc2\xb7K\xe1\xb5\x80 / \xe2\x88\x9a" "d_k)";
    v.paras = tl_paras;
    v.npara = 2;
    return v;
}

/* rows x cols values spread over [lo, hi] in a fixed pattern. */
Mat *tl_pattern(int rows, int cols, double lo, double hi)
{
    Mat *m = mat_create(rows, cols);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            mat_set(m, i, j, lo + (hi - lo) * ((i * 7 + j * 3) % 11) / 10.0);
    return m;
}

/* Rows that are probability distributions (each sums to 1). */
Mat *tl_distributions(int rows, int cols)
{
    Mat *m = tl_pattern(rows, cols, 0.1, 2.0);
    for (int i = 0; i < rows; i++) {
        double s = 0;
        for (int j = 0; j < cols; j++) s += mat_get(m, i, j);
        for (int j = 0; j < cols; j++) mat_set(m, i, j, mat_get(m, i, j) / s);
    }
    return m;
}

/* Lay v out with options o (fixed measure) into a new list, with a fresh
** layout cache. */
DrawList *tl_lay_with(const View *v, const LayoutOpts *o)
{
    DrawList *d = draw_create(o->width, o->height);
    LayoutCache *lc = layout_cache_create();
    layout_view(lc, v, o, d);
    layout_cache_free(lc);
    return d;
}

/* Lay v out at w x h in the light or dark theme. */
DrawList *tl_lay(const View *v, int w, int h, bool dark)
{
    Theme th = layout_theme(dark);
    LayoutOpts o = layout_defaults(w, h, &th, layout_measure_fixed, NULL);
    return tl_lay_with(v, &o);
}

/* Where a text command's glyphs land, its width measured with measure.
** Turned runs are aligned in the turned frame: halign along the text
** (upward), valign across it. A line of text covers INK font sizes; a
** cell's number, digits centred in the cell, the CELL_INK its cell is
** planned with. */
Box tl_ink_with(const DrawList *d, const DrawCmd *c, MeasureFn measure, void *ctx)
{
    bool digits = c->role == ROLE_CELL_TEXT || c->role == ROLE_MASKED;
    float w = measure(ctx, draw_str(d, c), c->size, c->bold), h = (digits ? CELL_INK : INK) * c->size;
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

/* The same with the fixed-width measure. */
Box tl_ink(const DrawList *d, const DrawCmd *c)
{
    return tl_ink_with(d, c, layout_measure_fixed, NULL);
}

/* What any command covers, strokes included, text measured with measure. */
Box tl_extent_with(const DrawList *d, const DrawCmd *c, MeasureFn measure, void *ctx)
{
    if (c->kind == DRAW_TEXT) return tl_ink_with(d, c, measure, ctx);
    float x0 = fminf(c->r.x, c->r.x + c->r.w), x1 = fmaxf(c->r.x, c->r.x + c->r.w);
    float y0 = fminf(c->r.y, c->r.y + c->r.h), y1 = fmaxf(c->r.y, c->r.y + c->r.h);
    float s = c->kind == DRAW_LINE || c->width > 0 ? c->width / 2 : 0;
    return (Box){ x0 - s, y0 - s, x1 + s, y1 + s };
}

/* True when two boxes share more than a sliver. */
bool tl_overlap(Box a, Box b)
{
    const float e = 0.25f;
    return a.x0 < b.x1 - e && b.x0 < a.x1 - e && a.y0 < b.y1 - e && b.y0 < a.y1 - e;
}

/* Everything inside the canvas, no two texts overlapping, cell texts in their cells. */
void tl_assert_page_clean(const DrawList *d, const char *what)
{
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        Box b = tl_extent_with(d, c, layout_measure_fixed, NULL);
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
            Box bo = tl_ink(d, o);
            ck_assert_msg(!tl_overlap(b, bo), "%s: '%s' (role %d, panel %d, %.1f %.1f %.1f %.1f) overlaps '%s' (role %d, panel %d, %.1f %.1f %.1f %.1f)", what,
                          draw_str(d, c), c->role, c->panel, b.x0, b.y0, b.x1, b.y1, draw_str(d, o), o->role, o->panel, bo.x0, bo.y0, bo.x1, bo.y1);
        }
    }
}

/* The filled cell rectangle of (panel, row, col), or NULL. */
const DrawCmd *tl_find_cell(const DrawList *d, int panel, int row, int col)
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
int tl_count(const DrawList *d, DrawKind kind, DrawRole role, int panel)
{
    int n = 0;
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == kind && d->cmds[i].role == role && (panel < 0 || d->cmds[i].panel == panel))
            n++;
    return n;
}

/* The first text command whose string is s, or NULL. */
const DrawCmd *tl_find_text(const DrawList *d, const char *s)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == DRAW_TEXT && strcmp(draw_str(d, &d->cmds[i]), s) == 0) return &d->cmds[i];
    return NULL;
}

/* True when two colours are the same. */
bool tl_same_color(Color a, Color b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

/* Stage k of a bundled lesson laid out at w x h (fixed measure). */
DrawList *tl_lay_lesson_stage(const char *file, int k, int w, int h)
{
    Error err;
    Lesson *L = lesson_load(file, &err);
    ck_assert_msg(L != NULL, "%s", err.msg);
    Trace *T = attn_run(L, &err);
    ck_assert_msg(T != NULL, "%s", err.msg);
    View *v = tstages_view(L, T, k);
    DrawList *d = tl_lay(v, w, h, false);
    stage_view_free(v);
    trace_free(T);
    lesson_free(L);
    return d;
}
