/*
** stage_fit.c: whether a set of panels prints its numbers legibly on the
** projector slide, estimated without a font.
**
** The stage pager (stage_pages.c) splits a stage into sub-steps so that
** each prints every number at VALUE_GOAL on a SLIDE_W x SLIDE_H slide.
** It cannot measure text (src/core knows no font), so this file models the
** layout (src/view/layout*.c) closely enough: the same design sizes
** (slide.h) scaled to the slide, text widths from DejaVu Sans's advances
** (digits, signs and the point exactly, letters on average, wide
** characters a full em), a panel as its title, column axis and labels
** above its grid, row labels and axis at its left, the colour bar at its
** right, and cells that hold the widest number at the goal font. Panels go
** in one row or two, side by side as the layout places them (sharing row
** labels and colour bars where it would), or in a stack of two to four
** rows each as high as it needs, under the explanation (room for
** it at its smallest font, at most PROSE_SHARE of the height) or beside it
** in a column. The estimate leans to the safe side: a page it accepts
** prints at the goal, and one it refuses is split.
*/
#include "stage_int.h"
#include "slide.h"
#include "utf8.h"
#include "util.h"

#include <assert.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

/* What the estimate adds for what it does not model (the layout's own
** constants, rounded up). */
#define HEADER_GS       1.4f    /* the header: its title's line and this many label gaps */
#define FORMULA_GAPS    0.8f    /* the formula strip: its line, a label gap and this many gaps */
#define BAR_GS          2.8f    /* a colour bar: its width, this many label gaps, and its widest tick */
#define TICK_EMS        3.2f    /* the widest tick label, in tick fonts */
#define ROW_AXIS_GS     1.0f    /* a row axis title: its line and a label gap */
#define LABEL_BAND      0.3f    /* upright column labels take at most this share of a row's height */
#define PROSE_SHARE     0.25f   /* the explanation is given at most this share of the height */
#define PROSE_EM        0.56f   /* the explanation's characters, on average, in font sizes */
#define LEVEL_SHRINK    0.7f    /* column labels shrink to this share to stay level */
#define BOLD            1.08f   /* bold text is this much wider */
#define SAFETY          1.03f   /* widths and heights planned this much larger */

/* The slide's sizes in pixels (slide.h's design sizes at the slide's u). */
typedef struct Slide {
    float u, W, H, gap, gs, pad, value, label, ptitle, axis, tick, body, bar;
} Slide;

/* The projector slide. */
static Slide slide(void)
{
    Slide s;
    s.u = fminf(SLIDE_W / DESIGN_W, SLIDE_H / DESIGN_H);
    float margin = SIZE_MARGIN * s.u, title = floorf(FONT_TITLE * s.u), formula = floorf(FONT_FORMULA * s.u);
    float meta = floorf(FONT_META * s.u);
    s.gap = SIZE_GAP * s.u;
    s.gs = SIZE_GS * s.u;
    s.pad = SIZE_PAD * s.u;
    s.value = floorf(VALUE_GOAL * s.u);
    s.label = floorf(FONT_LABEL * s.u);
    s.ptitle = floorf(FONT_PTITLE * s.u);
    s.axis = floorf(FONT_AXIS * s.u);
    s.tick = floorf(FONT_TICK * s.u);
    s.body = floorf(BODY_SHRINK * FONT_BODY * s.u);
    s.bar = SIZE_BAR * s.u;
    s.W = SLIDE_W - 2 * margin;
    s.H = SLIDE_H - 2 * margin - (LH * title + HEADER_GS * s.gs) - (LH * formula + s.gs + FORMULA_GAPS * s.gap)
        - (LH * meta + 0.5f * s.gs);
    return s;
}

/* The advance of a character in DejaVu Sans, in font sizes: digits, signs
** and the point as the font has them, letters on average, a character two
** columns wide a full em. */
static float advance(uint32_t cp)
{
    if (cp >= '0' && cp <= '9') return 0.636f;
    switch (cp) {
    case '.': case ',': case ' ': return 0.318f;
    case '-': return 0.361f;
    case 0x2212: case '+': case '=': return 0.838f;     /* − */
    case 0x221e: return 0.833f;                         /* ∞ */
    default: break;
    }
    if (cp >= 'A' && cp <= 'Z') return 0.70f;
    if (cp >= 'a' && cp <= 'z') return 0.60f;
    return utf8_cp_columns(cp) == 2 ? 1.0f : 0.65f;
}

/* The width of s in font sizes. */
float stage_text_em(const char *s)
{
    float w = 0;
    while (s && *s) w += advance(utf8_next(&s));
    return w;
}

/* The widest of n labels, in font sizes. */
static float widest_em(char **labels, int n)
{
    float w = 0;
    for (int i = 0; labels && i < n; i++) w = fmaxf(w, stage_text_em(labels[i]));
    return w;
}

/* The values of a matrix as the cells print them: range, the range of
** those other than exact 0 and 1, any masked, all whole. */
StageVals stage_vals(const Mat *m)
{
    StageVals v = { false, 0, 0, false, 0, 0, false, true };
    for (long i = 0, n = m ? (long)m->rows * m->cols : 0; i < n; i++) {
        double x = m->data[i];
        if (!isfinite(x)) { v.nonfinite = true; continue; }
        if (!v.any || x < v.lo) v.lo = x;
        if (!v.any || x > v.hi) v.hi = x;
        v.any = true;
        if (x != floor(x)) v.ints = false;
        if (x == 0.0 || x == 1.0) continue;
        if (!v.any_nx || x < v.nx_lo) v.nx_lo = x;
        if (!v.any_nx || x > v.nx_hi) v.nx_hi = x;
        v.any_nx = true;
    }
    return v;
}

/*
** What stage_trace_vals keeps: the values of the large matrices of the last
** trace asked about (by its serial, which no other trace has). A stage's
** pages are planned on every head's values each time a view is built (every
** step, every head toggled), and a 1024-token model's heads hold millions of
** them; small matrices are read again, as cheaply as looked up.
*/
#define VALS_KEPT     64
#define VALS_KEEP_MIN 4096      /* cells from which a matrix's values are kept */
static struct {
    uint64_t serial;
    int n;
    struct { const Mat *m; StageVals v; } e[VALS_KEPT];
} kept_vals;

/* The values of m, a matrix of the trace T: read once while T lives. */
StageVals stage_trace_vals(const Trace *T, const Mat *m)
{
    if (!T || !T->serial || !m || (long)m->rows * m->cols < VALS_KEEP_MIN) return stage_vals(m);
    if (kept_vals.serial != T->serial) {
        kept_vals.serial = T->serial;
        kept_vals.n = 0;
    }
    for (int i = 0; i < kept_vals.n; i++)
        if (kept_vals.e[i].m == m) return kept_vals.e[i].v;
    StageVals v = stage_vals(m);
    if (kept_vals.n < VALS_KEPT) {
        kept_vals.e[kept_vals.n].m = m;
        kept_vals.e[kept_vals.n++].v = v;
    }
    return v;
}

/* The values of panel p's matrix: kept (stage_trace_vals) when it is
** borrowed from the trace, read again when the view built it. */
StageVals stage_panel_vals(const Ctx *c, const Panel *p)
{
    return p->owned ? stage_vals(p->m) : stage_trace_vals(c->T, p->m);
}

/* a and b together. */
StageVals stage_vals_join(StageVals a, StageVals b)
{
    if (!a.any) { b.nonfinite |= a.nonfinite; return b; }
    if (b.any) {
        a.lo = fmin(a.lo, b.lo);
        a.hi = fmax(a.hi, b.hi);
    }
    if (b.any_nx) {
        a.nx_lo = a.any_nx ? fmin(a.nx_lo, b.nx_lo) : b.nx_lo;
        a.nx_hi = a.any_nx ? fmax(a.nx_hi, b.nx_hi) : b.nx_hi;
        a.any_nx = true;
    }
    a.nonfinite |= b.nonfinite;
    a.ints &= b.ints;
    return a;
}

/* The widest number a panel with these values prints, in font sizes. */
static float widest_value_em(const Panel *p, StageVals v)
{
    int dec = p->decimals >= 0 ? p->decimals : util_auto_decimals(v.ints, fmax(fabs(v.lo), fabs(v.hi)), p->probabilities);
    double ends[4] = { v.lo, v.hi, v.nx_lo, v.nx_hi };
    float w = v.nonfinite ? stage_text_em("\xe2\x88\x92\xe2\x88\x9e") : 0;
    for (int i = 0; i < (v.any_nx ? 4 : v.any ? 2 : 0); i++) {
        char buf[64];
        util_fmt_cell(buf, sizeof buf, ends[i], dec, false);
        w = fmaxf(w, stage_text_em(buf));
    }
    return w;
}

/* What the estimate reads of a panel shown with values v. */
StageFit stage_fit_of(const Panel *p, StageVals v)
{
    StageFit f;
    memset(&f, 0, sizeof f);
    f.p = p;
    f.heat = p->kind == PANEL_HEATMAP && p->m && p->m->rows > 0 && p->m->cols > 0;
    if (!f.heat) return f;
    f.rows = p->full_rows > p->m->rows ? p->full_rows : p->m->rows;     /* planned at its full size */
    f.cols = p->full_cols > p->m->cols ? p->full_cols : p->m->cols;
    f.value_em = widest_value_em(p, v);
    f.row_em = fmaxf(widest_em(p->row_labels, p->m->rows), stage_text_em(p->full_row_label));
    f.col_em = widest_em(p->col_labels, p->m->cols);
    f.title_em = BOLD * stage_text_em(p->title);
    f.col_axis_em = stage_text_em(p->col_axis);
    f.row_axis_em = stage_text_em(p->row_axis);
    return f;
}

/* True when two optional strings are equal (both absent counts). */
static bool same_str(const char *a, const char *b)
{
    return (!a || !a[0]) ? (!b || !b[0]) : (b && strcmp(a, b) == 0);
}

/* True when panel b would show its row labels at a's (the layout then
** draws them once, between the two). */
static bool shares_rows(const StageFit *a, const StageFit *b)
{
    const Panel *p = a->p, *q = b->p;
    if (a->rows != b->rows || a->rows != p->m->rows || b->rows != q->m->rows || !same_str(p->row_axis, q->row_axis)
        || !p->row_labels || !q->row_labels)
        return false;
    for (int i = 0; i < a->rows; i++)
        if (!same_str(p->row_labels[i], q->row_labels[i])) return false;
    return true;
}

/* True when panel a leaves its colour bar to b at its right: both weights
** (one fixed scale), or both in one scale group. */
static bool shares_bar(const StageFit *a, const StageFit *b)
{
    const Panel *p = a->p, *q = b->p;
    if (!same_str(p->cmap, q->cmap)) return false;
    return (p->probabilities && q->probabilities) || (p->scale_group > 0 && p->scale_group == q->scale_group);
}

/* The size of one heatmap at the goal font: width and height, given
** whether it shows its row labels and colour bar, in a row H high. */
static void panel_size(const Slide *s, const StageFit *f, bool rows_shown, bool bar_shown, float H, float *w,
                       float *h)
{
    float g = fmaxf(1, 1.5f * s->u);
    float cw = f->value_em * s->value + 2 * s->pad + g, ch = CELL_INK * s->value + s->pad + g;
    float lf = fminf(s->label, floorf(ch / LH));
    float left = 0;
    if (rows_shown) {
        left = f->row_em > 0 ? f->row_em * lf + s->gs : 0;
        if (f->row_axis_em > 0 && f->row_axis_em * s->axis <= f->rows * ch) left += LH * s->axis + ROW_AXIS_GS * s->gs;
    }
    float right = bar_shown ? s->bar + BAR_GS * s->gs + TICK_EMS * s->tick * 0.636f : 0;
    float cols_band = 0;
    if (f->col_em > 0) {
        bool level = LEVEL_SHRINK * f->col_em * lf <= 1.5f * (cw - 2 * s->pad);    /* neighbours leave room */
        cols_band = (level ? LH * lf : fminf(f->col_em * lf, LABEL_BAND * H)) + s->gs;
    }
    float top = LH * s->ptitle + s->gs + (f->col_axis_em > 0 ? LH * s->axis : 0) + cols_band;
    *w = SAFETY * fmaxf(left + f->cols * cw + right,
                        fmaxf(f->title_em * floorf(SHRINK_BEFORE_CUT * s->ptitle), f->col_axis_em * s->axis));
    *h = SAFETY * (top + f->rows * ch + 0.6f * INK * s->tick);
}

/* The width and height of panels [a, b) in one row H high. */
static void row_size(const Slide *s, const StageFit *f, int a, int b, float H, float *w, float *h)
{
    *w = 0;
    *h = 0;
    for (int k = a; k < b; k++) {
        float pw = 0, ph = 0;
        if (f[k].heat) {
            bool rows_shown = !(k > a && f[k - 1].heat && shares_rows(&f[k - 1], &f[k]));
            bool bar_shown = !(k + 1 < b && f[k + 1].heat && shares_bar(&f[k], &f[k + 1]));
            panel_size(s, &f[k], rows_shown, bar_shown, H, &pw, &ph);
        } else {
            pw = 14 * s->tick;          /* a plot, at the least the layout draws one */
            ph = 9 * s->tick;
        }
        bool close = k > a && ((f[k - 1].heat && f[k].heat && shares_bar(&f[k - 1], &f[k]))
                               || (f[k].heat && f[k - 1].heat && shares_rows(&f[k - 1], &f[k])));
        *w += pw + (k > a ? (close ? SHARED_GAP : 1) * s->gap : 0);
        *h = fmaxf(*h, ph);
    }
}

/* Whether panels f[0 .. n) fit W x H in a stack of rows cut before the
** panels start[1 .. nrows) (start[nrows] = n), each row as high as it
** needs, STACK_GAP gaps apart, as the layout stacks two to four rows. */
static bool stack_fits(const Slide *s, const StageFit *f, const int *start, int nrows, float W, float H)
{
    float used = (float)(nrows - 1) * STACK_GAP * s->gap;
    for (int r = 0; r < nrows && used <= H; r++) {
        float w, h;
        row_size(s, f, start[r], start[r + 1], H, &w, &h);
        if (w > W) return false;
        used += h;
    }
    return used <= H;
}

/* Whether panels f[0 .. n) fit W x H in one row, in two (split as the
** layout splits them), or in a stack of two to four rows at one font (up
** to MANY_ROWS_MAX panels, every way of cutting them in order). */
static bool panels_fit(const Slide *s, const StageFit *f, int n, float W, float H)
{
    float w, h, w2, h2;
    row_size(s, f, 0, n, H, &w, &h);
    if (n <= ONE_ROW_MAX && w <= W && h <= H) return true;     /* one row, as the layout tries it */
    for (int k = 1; k < n; k++) {
        if (k * ROW_MIN_SHARE < n || (n - k) * ROW_MIN_SHARE < n) continue;     /* as the layout splits */
        row_size(s, f, 0, k, H, &w, &h);
        row_size(s, f, k, n, H, &w2, &h2);
        if (w <= W && w2 <= W && h + s->gap + h2 <= H) return true;
    }
    for (int nrows = 2; nrows <= MAX_ROWS && nrows <= n && n <= MANY_ROWS_MAX; nrows++) {
        int start[MAX_ROWS + 1];
        for (int r = 0; r < nrows; r++) start[r] = r;
        start[nrows] = n;
        for (;;) {
            if (stack_fits(s, f, start, nrows, W, H)) return true;
            int r = nrows - 1;                  /* the next cut, as an odometer */
            while (r >= 1 && start[r] + 1 >= start[r + 1]) r--;
            if (r < 1) break;
            start[r]++;
            for (int q = r + 1; q < nrows; q++) start[q] = start[q - 1] + 1;
        }
    }
    return false;
}

/* The height the explanation paras take at width W and font fs, lines
** estimated from its characters. */
static float prose_height(char *const *paras, int npara, float W, float fs)
{
    float lh = BODY_LH * fs, h = 0;
    for (int i = 0; i < npara; i++) {
        if (!paras[i] || !paras[i][0]) continue;
        float lines = ceilf(PROSE_EM * fs * (float)utf8_count(paras[i]) / W);
        h += (h > 0 ? PARA_GAP * lh : 0) + lines * lh;
    }
    return h;
}

/* Whether panel f alone on the projector slide, without the explanation,
** prints its numbers at the legible floor (else the layout draws it
** without them wherever it goes). */
bool stage_prints_alone(const StageFit *f)
{
    Slide s = slide();
    s.value = VALUE_FLOOR * s.u;
    return panels_fit(&s, f, 1, s.W, s.H);
}

/* Whether panels f[0 .. n) (at most a page's VIEW_MAX_PANELS) print their
** numbers at the goal font on the projector slide, with the explanation paras under them (at most
** PROSE_SHARE of the height) or beside them, whole, in a column. */
bool stage_fits_slide(const StageFit *f, int n, char *const *paras, int npara)
{
    if (n > VIEW_MAX_PANELS) return false;      /* more than a page shows */
    Slide s = slide();
    float below = fminf(prose_height(paras, npara, s.W, s.body), PROSE_SHARE * s.H);
    if (panels_fit(&s, f, n, s.W, s.H - (below > 0 ? below + s.gap : 0))) return true;
    if (below <= 0) return false;
    float col = fminf(fmaxf(COLUMN_SHARE * s.W, COLUMN_MIN * s.u), COLUMN_MAX * s.u);
    return prose_height(paras, npara, col, floorf(FONT_BODY * s.u)) <= s.H
        && panels_fit(&s, f, n, s.W - col - 1.5f * s.gap, s.H);
}
