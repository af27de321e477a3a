/*
** layout.c: a View on a canvas, as a DrawList.
**
** The page is built top to bottom: a header (stage title, lesson and
** position), the formula on a tinted strip, the panels, and the explanation.
** Only the panels and the explanation compete for room, and they are placed
** one of two ways: the explanation under the panels across the full width,
** or in a column at the right with the panels beside it. Both are planned
** without drawing; the column wins when its cells come out a quarter bigger
** (a wide window showing one square matrix), the strip otherwise.
**
** Heatmap panels in one row share one cell width, so that Q, K and V or the
** heads of a multi-head stage are drawn at the same scale. The width is
** found by bisection: fonts and label bands depend on the cells (labels
** shrink with the rows, column labels turn upright when the columns are
** narrow), and a row of panels only grows as its cells do. Each panel's
** cells are then as tall as its own rows allow, and panels that share row
** labels or a colour bar with a neighbour leave them out. Width left over
** goes to panels whose values had to be printed small. If the panels still
** do not fit (a tiny window, a huge text scale) the page is laid out again
** with smaller fonts.
**
** A run with rotate = 90 is aligned in its box in the turned frame, as the
** backends draw it: halign along the text (LEFT starts at the box's bottom),
** valign across it (TOP puts the glyphs' tops at the box's left side).
**
** Text never overlaps: every text run is placed in a band reserved for it,
** fonts are chosen so the text fits its band (ink height is 1.17 times the
** font size for DejaVu Sans), and what still does not fit is cut with an
** ellipsis or, for cell values, hidden. Nothing here allocates except the
** DrawList growing and the block colours of huge heatmaps, kept for the
** view's next layout; scratch strings live on the stack, and the planning
** memos (PlanMemo) in static tables.
*/
#include "layout.h"
#include "cmap.h"
#include "core/i18n.h"
#include "core/utf8.h"
#include "core/util.h"
#include "scale.h"
#include "text.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LH        1.25f   /* a line band, in font sizes */
#define BODY_LH   1.45f   /* line spacing of the explanation */
#define INK       1.17f   /* height the glyphs of a line really cover */
#define BAR_STEPS 64      /* thin rectangles in a colour bar */
#define HEAT_BLOCK 3.0f        /* side of a block of sub-pixel cells, in pixels at 1280x800 */
#define HEAT_IMAGE_MIN 1024    /* more blocks than this, without numbers: one image command */
#define CELL_ASPECT 1.6f  /* cells may be this much wider than tall */

static const char MINUS_INF[] = "\xe2\x88\x92\xe2\x88\x9e";

/* Sizes in pixels for this canvas and text scale. */
typedef struct Metrics {
    float u;                    /* canvas scale: 1 at 1280x800 */
    float margin, gap, gs, pad;
    float title, meta, formula, body, ptitle, axis, label, value, tick, legend;
    float min_font, max_cell, bar_w;
} Metrics;

/* How the labels along one side of a grid are set. */
typedef struct AxisPlan {
    float fs;                   /* font size; 0 = no labels */
    int step;                   /* label every step-th row/col */
    bool rot;                   /* column labels turned to read upward */
    float band;                 /* width (rows) or height (cols) they take */
    float lo_room, hi_room;     /* level labels may reach this far past the grid's ends */
} AxisPlan;

/* One panel's geometry, found before anything is drawn. */
typedef struct PanelPlan {
    Rect box;                   /* the whole panel */
    float cw, ch;               /* cell size (heatmaps) */
    float top_h, bot_h, left_w, right_w;   /* room around the grid */
    AxisPlan rows, cols;
    double lo, hi;              /* colour scale */
    double vmin, vmax;          /* finite range of the values */
    double nx_min, nx_max;      /* and of those printed with decimals */
    bool any_nx;
    bool any_nonfinite;
    int decimals;               /* digits printed in cells */
    bool compact;               /* printed as ".50" (no leading zero) */
    float value_fs;             /* 0 = values hidden */
    float tick_w;               /* widest colour-bar tick label */
    float ext;                  /* colour bar reaches this far past a short grid */
    bool share_rows;            /* the panel at the left shows the same row labels */
    bool share_bar;             /* the panel at the right shows the same colour bar */
    bool row_axis;              /* the row axis title fits beside the grid */
} PanelPlan;

/*
** Planning measures the same strings again and again (titles, tick labels,
** cell texts at each trial size), so widths are remembered for the length
** of one layout_view: a direct-mapped table keyed by a 64-bit hash of the
** text, its length, size, weight and the layout's number (so a new layout
** never reads an old answer, and nothing is cleared between layouts).
** Row and column labels, which can be a thousand to an axis, have tables
** of their own (PlanMemo).
*/
#define MCACHE 4096
typedef struct MeasureCache {
    uint64_t key[MCACHE];
    float w[MCACHE];
} MeasureCache;

/* Everything layout needs while it works. */
/* What planning needs to know of a panel's values, found in one pass per
** layout_view: sizing tries many cell sizes, and scanning a 256x256 matrix
** at each try used to be most of the layout's time. */
typedef struct PanelStats {
    double vmin, vmax;          /* finite range */
    bool any;                   /* at least one finite value */
    bool any_nonfinite;
    bool ints;                  /* every finite value is a whole number */
    double nx_min, nx_max;      /* range of the values other than exact 0 and 1 (printed with decimals) */
    bool any_nx;
} PanelStats;

/*
** Planning's other repeated work, remembered for one layout_view in tables
** of keys (hashes of what was asked) with the layout each slot belongs to:
** open addressing (memo_slot), where a slot of an earlier layout is free,
** so nothing is cleared between layouts and, within one, nothing is pushed
** out. Remembered:
**   - the widths of one axis's labels at one size (a run of the pool, each
**     measured the first time planning asks for it, -1 until then, indexed
**     by the label's position): planning tries many cell sizes but only a
**     few font sizes, and at each it reads a thinned axis's few drawn
**     labels or the labels up to the first that does not fit; with a table
**     each costs an array read instead of hashing the text, and no label
**     is measured twice at one size;
**   - the widest label a thinned axis draws, for each step and size;
**   - the cell texts of a panel's extremes, for each decimals and form;
**   - the widest tick label of a colour bar, for each scale and tick count;
**   - the number of lines a paragraph wraps to at a size and width.
*/
#define LWSLOTS 256
#define LWPOOL (1 << 17)
#define WIDEMEMO 512
#define TMEMO 128
#define TICKMEMO 256
#define WRAPMEMO 256
typedef struct PlanMemo {
    uint64_t lw_key[LWSLOTS], lw_gen[LWSLOTS];
    uint32_t lw_off[LWSLOTS];   /* the table's first width in the pool */
    float lw_inner[LWSLOTS];    /* the widest of its labels 1 .. n-2, or -1: not known yet */
    float pool[LWPOOL];
    uint32_t pool_used;
    uint64_t pool_gen;          /* the layout pool_used counts for */
    uint64_t wide_key[WIDEMEMO], wide_gen[WIDEMEMO];
    float wide_w[WIDEMEMO];
    uint64_t text_key[TMEMO], text_gen[TMEMO];
    struct CellTexts {          /* the texts that can be the widest in a cell (cell_texts) */
        char s[5][64];
        int n;
    } texts[TMEMO], spare;      /* spare: when the table is full */
    uint64_t tick_key[TICKMEMO], tick_gen[TICKMEMO];
    float tick_w[TICKMEMO];
    uint64_t wrap_key[WRAPMEMO], wrap_gen[WRAPMEMO];
    int wrap_lines[WRAPMEMO];
} PlanMemo;

/* What the block colours of a heatmap image were computed from. */
typedef struct ImageKey {
    uint64_t serial;            /* the view (View.serial, not 0) */
    const Mat *m;
    int rstep, cstep;
    double lo, hi;
    const Cmap *cm;
    Color masked;
} ImageKey;

/*
** What layout keeps from one call to the next (layout.h): the memos of one
** layout, keyed by its number, and per panel of the last view laid out its
** stats and the block colours of its image.
*/
struct LayoutCache {
    uint64_t layouts;           /* layouts run with it: the current one's number */
    MeasureCache measure;
    PlanMemo memo;
    uint64_t stats_serial;      /* the view stats_mat and stats belong to */
    const Mat *stats_mat[VIEW_MAX_PANELS];
    PanelStats stats[VIEW_MAX_PANELS];
    struct {
        ImageKey key;
        Color *px;              /* cap colours */
        size_t cap;
    } images[VIEW_MAX_PANELS];
};

typedef struct Page {
    LayoutOpts o;
    const Theme *th;
    DrawList *d;
    Metrics m;
    LayoutCache *lc;
    MeasureCache *cache;
    PlanMemo *memo;
    uint64_t gen;               /* this layout's number, part of every cache key */
    const View *v;
    PanelStats stats[VIEW_MAX_PANELS];
    bool rows_as_prev[VIEW_MAX_PANELS];     /* heatmap k labels its rows as heatmap k − 1 does */
    bool foot;                  /* a line is kept at the bottom for notes */
    bool hidden_values;         /* some panel's numbers could not be printed */
} Page;

/* ------------------------------------------------------------------ text */

/* A font size in whole pixels (backends cache glyphs per size), at least 1. */
static float fpx(float f)
{
    f = floorf(f);
    return f < 1 ? 1 : f;
}

/* One FNV-1a step over a 64-bit value. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ULL;
}

/* The slot of key h among n slots (bit 0 set: 0 marks an empty slot). */
static size_t slot(uint64_t h, size_t n)
{
    return (size_t)(h >> 40) % n;
}

/*
** The slot of key h in a memo table of n slots (keys, and the layout each
** slot belongs to): where h is (*hit), else the first free slot among the
** MEMO_PROBES from h's place on, a slot of an earlier layout being free
** (slots are never freed within a layout, so h is not further on). n when
** those are all taken by other keys: the caller then works without the
** memo, and a full table never costs more than MEMO_PROBES reads.
*/
#define MEMO_PROBES 16
static size_t memo_slot(const uint64_t *keys, const uint64_t *gens, size_t n, uint64_t h, uint64_t gen, bool *hit)
{
    *hit = false;
    for (size_t i = slot(h, n), tries = 0; tries < n && tries < MEMO_PROBES; i = i + 1 == n ? 0 : i + 1, tries++) {
        if (gens[i] != gen) return i;
        if (keys[i] == h) {
            *hit = true;
            return i;
        }
    }
    return n;
}

/* The width of s at a size, from the caller's measure (remembered). */
static float tw(const Page *p, const char *s, float size, int bold)
{
    uint64_t h = 1469598103934665603ULL;                /* FNV-1a */
    size_t n = 0;
    for (; s[n]; n++) h = mix(h, (unsigned char)s[n]);
    h = mix(mix(mix(mix(h, n), (uint64_t)(size * 64)), (uint64_t)(bold != 0)), p->gen) | 1;
    MeasureCache *c = p->cache;
    size_t i = slot(h, MCACHE);
    if (c->key[i] == h) return c->w[i];
    float w = p->o.measure(p->o.measure_ctx, s, size, bold);
    c->key[i] = h;
    c->w[i] = w;
    return w;
}

/* What text_wrap and text_fit measure with: the page's font at one size. */
typedef struct {
    const Page *p;
    float size;
    int bold;
} WrapFont;

/* Width of len bytes of s for text.h; a line too long to measure is too
** wide. */
static float wrap_measure(void *ctx, const char *s, size_t len)
{
    const WrapFont *f = ctx;
    char line[1024];
    if (len >= sizeof line) return FLT_MAX;
    memcpy(line, s, len);
    line[len] = '\0';
    return tw(f->p, line, f->size, f->bold);
}

/* Copy s into out (n bytes), cut with "…" to at most maxw pixels wide
** (text_fit, in the page's font). Returns the width kept. */
static float fit_text(const Page *p, const char *s, float size, int bold,
                      float maxw, char *out, size_t n)
{
    WrapFont f = { p, size, bold };
    return text_fit(s, maxw, wrap_measure, &f, out, n);
}

/* Push a text run with its style bits; returns the command's index. */
static int put_text(Page *p, Rect r, const char *s, float size, Color c,
                    HAlign ha, VAlign va, DrawRole role, int bold, int rot)
{
    int i = draw_text(p->d, r, s, size, c, ha, va, role);
    p->d->cmds[i].bold = (uint8_t)bold;
    p->d->cmds[i].rotate = (uint8_t)(rot ? 90 : 0);
    return i;
}

/* Set what a command belongs to. */
static void tag(Page *p, int i, int panel, int row, int col)
{
    p->d->cmds[i].panel = (int16_t)panel;
    p->d->cmds[i].row = (int16_t)row;
    p->d->cmds[i].col = (int16_t)col;
}

/* One axis's labels at one size, and their widths (NULL when the pool
** is full: then each is measured through tw). */
typedef struct LabelTable {
    const Page *p;
    char **labels;
    float size;
    float *w;
    float *inner;               /* the widest of labels 1 .. n-2 (PlanMemo.lw_inner) */
} LabelTable;

/* The width table of labels (n of them) at a size, for this layout. */
static LabelTable label_table(const Page *p, char **labels, int n, float size)
{
    LabelTable t = { p, labels, size, NULL, NULL };
    PlanMemo *m = p->memo;
    if (!labels || n <= 0) return t;
    if (m->pool_gen != p->gen) {
        m->pool_gen = p->gen;
        m->pool_used = 0;
    }
    uint64_t h = mix(mix(mix(0x9e3779b97f4a7c15ULL, (uint64_t)(uintptr_t)labels), (uint64_t)n), (uint64_t)(size * 64));
    bool hit;
    size_t i = memo_slot(m->lw_key, m->lw_gen, LWSLOTS, h, p->gen, &hit);
    if (i == LWSLOTS || (!hit && (uint32_t)n > LWPOOL - m->pool_used)) return t;
    if (!hit) {
        m->lw_key[i] = h;
        m->lw_gen[i] = p->gen;
        m->lw_off[i] = m->pool_used;
        m->lw_inner[i] = -1;
        m->pool_used += (uint32_t)n;
        for (int j = 0; j < n; j++) m->pool[m->lw_off[i] + (uint32_t)j] = -1;
    }
    t.w = m->pool + m->lw_off[i];
    t.inner = &m->lw_inner[i];
    return t;
}

/* The width of label i of a table (NULL labels are empty). */
static float label_w(const LabelTable *t, int i)
{
    if (!t->labels[i]) return 0;
    if (!t->w) return tw(t->p, t->labels[i], t->size, 0);
    if (t->w[i] < 0) t->w[i] = t->p->o.measure(t->p->o.measure_ctx, t->labels[i], t->size, 0);
    return t->w[i];
}

/* The widest of labels 0, step, 2*step, ... of n at a size: the ones a
** thinned axis draws, so a thinned axis of 1024 labels measures only the
** few it shows (remembered for each step and size). */
static float widest(const Page *p, char **labels, int n, int step, float size)
{
    if (!labels || n <= 0) return 0;
    if (step < 1) step = 1;
    PlanMemo *m = p->memo;
    uint64_t h = mix(mix(mix(mix(0x6a09e667f3bcc909ULL, (uint64_t)(uintptr_t)labels), (uint64_t)n), (uint64_t)step),
                     (uint64_t)(size * 64));
    bool hit;
    size_t k = memo_slot(m->wide_key, m->wide_gen, WIDEMEMO, h, p->gen, &hit);
    if (hit) return m->wide_w[k];
    LabelTable t = label_table(p, labels, n, size);
    float w = 0;
    for (int i = 0; i < n; i += step) {
        float x = label_w(&t, i);
        if (x > w) w = x;
    }
    if (k < WIDEMEMO) {
        m->wide_key[k] = h;
        m->wide_gen[k] = p->gen;
        m->wide_w[k] = w;
    }
    return w;
}

/* One paragraph wrapped to width w (text.h's rules: breaks between words,
** between CJK characters, never inside a character): the number of lines,
** their bytes in *out (free it). */
static int wrap_para(const Page *p, const char *s, float size, float w, TextLine **out)
{
    WrapFont f = { p, size, 0 };
    size_t len = strlen(s);
    TextLine first[64];
    int n = text_wrap(s, len, w, w, wrap_measure, &f, first, 64);
    *out = xmalloc(sizeof **out * (size_t)(n > 0 ? n : 1));
    if (n <= 64) memcpy(*out, first, sizeof *first * (size_t)n);
    else text_wrap(s, len, w, w, wrap_measure, &f, *out, n);
    return n;
}

/* How many lines a paragraph wraps to (planning asks again and again, at
** the few sizes and widths it tries: remembered for the layout). */
static int para_lines(const Page *p, const char *s, float size, float w)
{
    PlanMemo *m = p->memo;
    uint64_t h = mix(mix(mix(0x2545f4914f6cdd1dULL, (uint64_t)(uintptr_t)s), (uint64_t)(size * 64)), (uint64_t)(w * 64));
    bool hit;
    size_t k = memo_slot(m->wrap_key, m->wrap_gen, WRAPMEMO, h, p->gen, &hit);
    if (hit) return m->wrap_lines[k];
    WrapFont f = { p, size, 0 };
    int n = text_wrap(s, strlen(s), w, w, wrap_measure, &f, NULL, 0);
    if (k < WRAPMEMO) {
        m->wrap_key[k] = h;
        m->wrap_gen[k] = p->gen;
        m->wrap_lines[k] = n;
    }
    return n;
}

/* Copy line l of s into buf as a string, cut at a character
** boundary when it is too long. */
static void line_copy(const char *s, TextLine l, char *buf, size_t cap)
{
    size_t len = l.end - l.start;
    if (len >= cap) len = utf8_floor(s + l.start, l.end - l.start, cap - 1);
    memcpy(buf, s + l.start, len);
    buf[len] = '\0';
}

/*
** The explanation paragraphs in a column of width w from y, within max_h
** pixels (0 = unlimited). Returns the height used. A paragraph that would
** not fit whole is cut with "…" on its last line and nothing follows it.
*/
static float body_block(Page *p, const View *v, float size, float x, float y,
                        float w, float max_h, bool draw)
{
    float lh = BODY_LH * size, para_gap = 0.6f * lh, h = 0;
    for (int i = 0; i < v->npara; i++) {
        if (!v->paras[i] || !v->paras[i][0]) continue;
        float top = h > 0 ? h + para_gap : 0;
        int max_lines = 0;
        if (max_h > 0) {
            max_lines = (int)((max_h - top + (lh - INK * size) / 2) / lh);
            if (max_lines <= 0) break;
        }
        TextLine *lines = NULL;
        int all = draw ? wrap_para(p, v->paras[i], size, w, &lines) : para_lines(p, v->paras[i], size, w);
        int n = all;
        if (max_lines > 0 && all > max_lines) n = max_lines;
        bool rtl = draw && text_rtl(v->paras[i]);       /* Arabic, Hebrew: lines end on the left */
        for (int k = 0; draw && k < n; k++) {
            char line[1024];
            if (k == n - 1 && n < all)                  /* the last line there is room for: "…" */
                fit_text(p, v->paras[i] + lines[k].start, size, 0, w, line, sizeof line);
            else
                line_copy(v->paras[i], lines[k], line, sizeof line);
            put_text(p, (Rect){ x, y + top + k * lh, w, lh }, line, size, p->th->fg, rtl ? ALIGN_RIGHT : ALIGN_LEFT,
                     VALIGN_MIDDLE, ROLE_BODY, 0, 0);
        }
        free(lines);
        h = top + n * lh;
        if (n < all) break;
    }
    return h;
}

/* ----------------------------------------------------------- numbers */

/* One pass over a matrix for its PanelStats (in locals, which the
** compiler keeps in registers). */
static PanelStats panel_stats(const Mat *m)
{
    PanelStats st = { 0, 0, false, false, true, 0, 0, false };
    if (!m) return st;
    double vmin = 0, vmax = 0, nx_min = 0, nx_max = 0;
    bool any = false, any_nx = false, ints = true, nonfinite = false;
    const double *d = m->data;
    for (long i = 0, n = (long)m->rows * m->cols; i < n; i++) {
        double x = d[i];
        if (!isfinite(x)) { nonfinite = true; continue; }
        if (!any || x < vmin) vmin = x;
        if (!any || x > vmax) vmax = x;
        any = true;
        if (ints && x != floor(x)) ints = false;
        if (x == 0.0 || x == 1.0) continue;
        if (!any_nx || x < nx_min) nx_min = x;
        if (!any_nx || x > nx_max) nx_max = x;
        any_nx = true;
    }
    return (PanelStats){ vmin, vmax, any, nonfinite, ints, nx_min, nx_max, any_nx };
}

/* The stats of panel k of v: remembered for the last view laid out (its
** serial number says it is the same view, whose matrices have not changed),
** so that hovering, resizing and presenting do not read every value of a
** large lesson again at each layout. */
static PanelStats view_stats(LayoutCache *c, const View *v, int k)
{
    const Mat *m = v->panels[k].m;
    if (v->serial == 0) return panel_stats(m);
    if (c->stats_serial != v->serial) {
        c->stats_serial = v->serial;
        memset(c->stats_mat, 0, sizeof c->stats_mat);
    }
    if (!m || c->stats_mat[k] != m) {
        c->stats[k] = panel_stats(m);
        c->stats_mat[k] = m;
    }
    return c->stats[k];
}

/* The stats of panel pn (computed by layout_view). Found by its matrix, since
** planning may work on a copy of the view's panels. */
static const PanelStats *stats_of(const Page *p, const Panel *pn)
{
    static const PanelStats none = { 0, 0, false, false, true, 0, 0, false };
    for (int k = 0; k < p->v->npanels && k < VIEW_MAX_PANELS; k++)
        if (p->v->panels[k].m == pn->m) return &p->stats[k];
    return &none;
}

/* Digits to print when the lesson says "automatic": enough to tell values
** of this size apart (2 in general, 3 for tiny ones, fewer for big ones),
** 0 for whole numbers, and at least 2 for weights in (0, 1). */
static int auto_decimals(bool ints, double amax, bool probabilities)
{
    if (ints) return 0;
    if (probabilities) return amax > 0 && amax < 0.05 ? 3 : 2;
    if (amax >= 1000) return 0;
    if (amax >= 100) return 1;
    if (amax > 0 && amax < 0.05) return 3;
    return 2;
}

/* The finite range of a panel, or of every panel in its scale group. */
static bool group_range(const Page *p, const Panel *pn, double *lo, double *hi, bool *nonfinite)
{
    const PanelStats *st = stats_of(p, pn);
    bool any = st->any;
    *lo = st->vmin;
    *hi = st->vmax;
    *nonfinite = st->any_nonfinite;
    if (pn->scale_group <= 0) return any;
    for (int k = 0; k < p->v->npanels && k < VIEW_MAX_PANELS; k++) {
        const Panel *q = &p->v->panels[k];
        if (q->scale_group != pn->scale_group || q->kind != PANEL_HEATMAP || !p->stats[k].any) continue;
        if (!any || p->stats[k].vmin < *lo) *lo = p->stats[k].vmin;
        if (!any || p->stats[k].vmax > *hi) *hi = p->stats[k].vmax;
        any = true;
    }
    return any;
}

/* The colour scale of a heatmap: [0, 1] for distributions, symmetric
** around 0 when diverging, else the finite range (widened when constant);
** panels of one scale group share it. Computed so that nothing overflows
** for any finite values (the half-range, not the difference). */
static void heat_scale(const Page *p, const Panel *pn, PanelPlan *pp)
{
    const PanelStats *st = stats_of(p, pn);
    double lo, hi;
    bool nonfinite;
    bool any = group_range(p, pn, &lo, &hi, &nonfinite);
    pp->vmin = st->vmin;
    pp->vmax = st->vmax;
    pp->nx_min = st->nx_min;
    pp->nx_max = st->nx_max;
    pp->any_nx = st->any_nx;
    pp->any_nonfinite = st->any_nonfinite;
    if (pn->probabilities) { lo = 0; hi = 1; }
    else if (pn->diverging) {
        double a = fmax(fabs(lo), fabs(hi));
        if (!(a > 0)) a = 1;
        lo = -a; hi = a;
    } else if (!any || !(hi > lo)) {
        if (lo > 0) lo = 0;
        else if (hi < 0) hi = 0;
        else { lo = 0; hi = 1; }
    }
    pp->lo = lo;
    pp->hi = hi;
}

/* Where a value falls on the panel's scale, 0..1 (scale_frac). */
static double heat_t(const PanelPlan *pp, double x)
{
    return scale_frac(x, pp->lo, pp->hi);
}

/* The colormap a panel is drawn with. */
static const Cmap *panel_cmap(const Page *p, const Panel *pn)
{
    const Cmap *c = p->o.cmap ? cmap_get(p->o.cmap) : NULL;
    if (!c) c = cmap_get(pn->cmap);
    if (!c) c = cmap_get(pn->diverging ? "RdBu" : "viridis");
    return c;
}

/* ------------------------------------------------------ heatmap plan */

/* Labels stacked one per cell across the axis: as large as the cell allows,
** at least the minimum font, then every step-th label when cells are too
** small for all of them; band is the room the widest one needs. */
static void fit_across(const Page *p, AxisPlan *a, char **labels, int n, float cell, float fs_max, float cap)
{
    a->fs = fminf(fs_max, fpx(cell / LH));
    if (a->fs < p->m.min_font) {
        a->fs = p->m.min_font;
        a->step = (int)ceilf(LH * a->fs / cell);
    }
    a->band = fminf(widest(p, labels, n, a->step, a->fs), cap);
}

/* Row labels: one per row at a size the rows can hold (at most fs_max), or
** every step-th row at the smallest size. */
static AxisPlan plan_rows(const Page *p, char **labels, int n, float cell, float fs_max, float cap)
{
    AxisPlan a = { 0, 1, false, 0, 0, 0 };
    if (!labels || n <= 0) return a;
    fit_across(p, &a, labels, n, cell, fs_max, cap);
    return a;
}

/* Half the width level label i takes: its own half when it fits its
** column, half the column when it is long (it may be cut or spread). */
static float neighbour_half(const LabelTable *t, int i, float cell)
{
    float w = label_w(t, i);
    return w <= cell - 2 * t->p->m.pad ? w / 2 : cell / 2;
}

/*
** How wide level label c of n may be: its column, widened by what its
** neighbours leave free on both sides (a short word leaves half its column
** empty), or at the first and last column by lo_room and hi_room beyond the
** grid. Labels stay centred, so two neighbours never meet.
*/
static float level_room(const LabelTable *t, int n, int c, float cell, float lo_room, float hi_room)
{
    float pad = t->p->m.pad;
    float left = c == 0 ? cell / 2 + lo_room - pad : cell - pad - neighbour_half(t, c - 1, cell);
    float right = c == n - 1 ? cell / 2 + hi_room - pad : cell - pad - neighbour_half(t, c + 1, cell);
    return fmaxf(2 * fminf(left, right), cell - 2 * pad);
}

/* The widest of labels 1 .. n-2 of a table (all measured, once). */
static float inner_widest(const LabelTable *t, int n)
{
    if (*t->inner < 0) {
        float w = 0;
        for (int i = 1; i < n - 1; i++) w = fmaxf(w, label_w(t, i));
        *t->inner = w;
    }
    return *t->inner;
}

/* Whether label c fits its level room (is not wider than it). */
static bool level_fits_at(const LabelTable *t, int n, int c, float cell, float lo, float hi)
{
    return !t->labels[c] || !(label_w(t, c) > level_room(t, n, c, cell, lo, hi));
}

/*
** True when every label fits its level room at a size. Planning asks at
** many cell sizes: narrow cells fail at the first columns; past them, the
** widest inner label decides at once when it fits its own column (every
** inner label then does) or is wider than any room (2 × (cell − pad): it
** cannot fit), so only the cell sizes in between scan every label.
*/
static bool level_fits(const Page *p, char **labels, int n, float size, float cell, float lo, float hi)
{
    LabelTable t = label_table(p, labels, n, size);
    int c = 0;
    for (; c < n && c < 2; c++)
        if (!level_fits_at(&t, n, c, cell, lo, hi)) return false;
    if (n > 8 && t.inner) {
        float inner = inner_widest(&t, n), pad = p->m.pad;
        if (inner > 2 * (cell - pad)) return false;
        if (inner <= cell - 2 * pad) return level_fits_at(&t, n, n - 1, cell, lo, hi);
    }
    for (; c < n; c++)
        if (!level_fits_at(&t, n, c, cell, lo, hi)) return false;
    return true;
}

/*
** Column labels: level when they all fit their room at fs_max or a little
** smaller; level and cut with "…" when the columns are wide anyway; turned
** to read upward (at most cap long) when the columns are narrow.
*/
static AxisPlan plan_cols(const Page *p, char **labels, int n, float cell, float fs_max, float cap,
                          float lo_room, float hi_room)
{
    AxisPlan a = { 0, 1, false, 0, lo_room, hi_room };
    if (!labels || n <= 0) return a;
    float sizes[3] = { fs_max, fpx(fs_max * 0.85f), fpx(fs_max * 0.7f) };
    for (int i = 0; i < 3; i++) {
        if (sizes[i] < p->m.min_font) break;
        if (level_fits(p, labels, n, sizes[i], cell, lo_room, hi_room)) {
            a.fs = sizes[i];
            a.band = LH * a.fs;
            return a;
        }
    }
    if (cell - 2 * p->m.pad >= 6 * sizes[1] && sizes[1] >= p->m.min_font) {
        a.fs = sizes[1];
        a.band = LH * a.fs;
        return a;
    }
    a.rot = true;
    fit_across(p, &a, labels, n, cell, fs_max, cap);
    return a;
}

/* The texts that can be the widest in a cell: the extremes have the most
** characters, among all values and among those printed with decimals (not
** 0 or 1), and "−∞" when a value is masked. Formatted once, measured at
** each size the planning tries. */
typedef struct CellTexts CellTexts;

/* The texts for a panel's values printed with decimals (compact or not),
** formatted the first time a layout asks (PlanMemo). */
static const CellTexts *cell_texts(const Page *p, const PanelPlan *pp, int decimals, bool compact)
{
    PlanMemo *m = p->memo;
    double ends[4] = { pp->vmin, pp->vmax, pp->nx_min, pp->nx_max };
    uint64_t h = mix(0x51afd7ed558ccd1ULL, (uint64_t)decimals * 4 + compact * 2 + pp->any_nx);
    for (int i = 0; i < 4; i++) {
        uint64_t bits;
        memcpy(&bits, &ends[i], sizeof bits);
        h = mix(h, bits);
    }
    h = mix(h, (uint64_t)pp->any_nonfinite);
    bool hit;
    size_t k = memo_slot(m->text_key, m->text_gen, TMEMO, h, p->gen, &hit);
    if (hit) return &m->texts[k];
    CellTexts *t = k < TMEMO ? &m->texts[k] : &m->spare;
    t->n = 0;
    for (int i = 0; i < (pp->any_nx ? 4 : 2); i++) util_fmt_cell(t->s[t->n++], sizeof t->s[0], ends[i], decimals, compact);
    if (pp->any_nonfinite) snprintf(t->s[t->n++], sizeof t->s[0], "%s", MINUS_INF);
    if (k < TMEMO) {
        m->text_key[k] = h;
        m->text_gen[k] = p->gen;
    }
    return t;
}

/* The widest of t at a size. */
static float widest_text(const Page *p, const CellTexts *t, float size)
{
    float w = 0;
    for (int i = 0; i < t->n; i++) w = fmaxf(w, tw(p, t->s[i], size, 0));
    return w;
}

/* The widest cell text at a size (cell_texts). */
static float widest_value(const Page *p, const PanelPlan *pp, int decimals, bool compact, float size)
{
    return widest_text(p, cell_texts(p, pp, decimals, compact), size);
}

/* The smallest legible cell number on this canvas. */
static float value_floor(const Page *p)
{
    return fpx(fmaxf(9, LAYOUT_VALUE_FLOOR * p->m.u));
}

/* The largest font (at most the cell font) at which every value fits a
** cell of room_w x room_h, or 0 below the legible floor. */
static float value_font(const Page *p, const PanelPlan *pp, int dec, bool compact, float room_w, float room_h)
{
    const CellTexts *t = cell_texts(p, pp, dec, compact);
    float w100 = widest_text(p, t, 100) / 100;
    float fs = fpx(fminf(p->m.value, room_h / INK));
    if (w100 > 0) fs = fminf(fs, fpx(room_w / w100));
    while (fs >= value_floor(p) && widest_text(p, t, fs) > room_w) fs -= 1;
    return fs >= value_floor(p) ? fs : 0;
}

/*
** The cell font and decimals. The digits are decided by the values (or the
** lesson's `decimals:`), never by the room: a number is printed with all
** its digits, shortened to ".50" when that is what fits, or not at all
** (value_fs = 0; the slide then says the numbers are hidden).
*/
static void plan_values(const Page *p, const Panel *pn, PanelPlan *pp, float cw, float ch)
{
    int dec = pn->decimals >= 0 ? pn->decimals
            : auto_decimals(stats_of(p, pn)->ints, fmax(fabs(pp->vmin), fabs(pp->vmax)), pn->probabilities);
    float gapc = cw >= 14 && ch >= 14 ? fmaxf(1, 1.5f * p->m.u) : 0;
    float room_w = cw - gapc - 2 * p->m.pad, room_h = ch - gapc - p->m.pad;
    pp->decimals = dec;
    pp->compact = false;
    pp->value_fs = value_font(p, pp, dec, false, room_w, room_h);
    if (pp->value_fs == 0 && dec > 0) {
        pp->value_fs = value_font(p, pp, dec, true, room_w, room_h);
        pp->compact = pp->value_fs > 0;
    }
}

/* How many ticks a colour bar of height h asks for (1 to 5). */
static int bar_want(const Page *p, float h)
{
    int want = (int)(h / (1.5f * LH * p->m.tick)) + 1;
    return want > 5 ? 5 : want < 1 ? 1 : want;
}

/* Colour-bar ticks for a bar of height h. */
static Ticks bar_ticks(const Page *p, const PanelPlan *pp, float h)
{
    return scale_ticks(pp->lo, pp->hi, bar_want(p, h));
}

/* The widest tick label of a colour bar of height h (bar_ticks), formatted
** and measured once per layout for each scale and number of ticks. */
static float ticks_width(const Page *p, const PanelPlan *pp, float h)
{
    uint64_t lo, hi;
    memcpy(&lo, &pp->lo, sizeof lo);
    memcpy(&hi, &pp->hi, sizeof hi);
    PlanMemo *m = p->memo;
    uint64_t key = mix(mix(mix(mix(0x2127599bf4325c37ULL, lo), hi), (uint64_t)bar_want(p, h)), (uint64_t)(p->m.tick * 64));
    bool hit;
    size_t k = memo_slot(m->tick_key, m->tick_gen, TICKMEMO, key, p->gen, &hit);
    if (hit) return m->tick_w[k];
    Ticks t = bar_ticks(p, pp, h);
    float w = 0;
    char buf[64];
    for (int i = 0; i < t.n; i++) {
        scale_tick_text(buf, sizeof buf, &t, i);
        w = fmaxf(w, tw(p, buf, p->m.tick, 0));
    }
    if (k < TICKMEMO) {
        m->tick_key[k] = key;
        m->tick_gen[k] = p->gen;
        m->tick_w[k] = w;
    }
    return w;
}

/* The shortest colour bar that holds two tick labels. */
static float min_bar(const Page *p)
{
    return 1.6f * LH * p->m.tick;
}

/*
** Fonts, label bands and the room around the grid of a heatmap drawn with
** cells of cw x ch. cap_w and cap_h bound the label bands. Row and column
** labels start from one size, the largest the rows allow, so panels side by
** side label alike; long column labels may then shrink on their own.
*/
static void plan_heat(const Page *p, const Panel *pn, PanelPlan *pp, float cw, float ch,
                      float cap_w, float cap_h)
{
    const Metrics *m = &p->m;
    int rows = pn->m->rows, cols = pn->m->cols;
    char **rl = pp->share_rows ? NULL : pn->row_labels;
    pp->cw = cw;
    pp->ch = ch;
    /* the size rows allow, even when another panel prints them: panels side
    ** by side then label alike */
    float fs = fmaxf(m->min_font, fminf(m->label, fpx(ch / LH)));
    pp->rows = plan_rows(p, rl, rows, ch, fs, cap_w);
    float gh = rows * ch, half_tick = 0.6f * INK * m->tick;
    /* the row axis title reads upward beside the grid, whole, or not at all */
    pp->row_axis = !pp->share_rows && pn->row_axis && pn->row_axis[0]
                && tw(p, pn->row_axis, m->axis, 0) <= gh;
    pp->left_w = (pp->row_axis ? LH * m->axis + m->gs : 0) + (pp->rows.band > 0 ? pp->rows.band + m->gs : 0);
    /* level column labels may use the empty corner above the row labels,
    ** and the gap before the colour bar (or a little of the gap between panels) */
    pp->cols = plan_cols(p, pn->col_labels, cols, cw, fs, cap_h, pp->left_w,
                         pp->share_bar ? 0.25f * m->gap : 1.6f * m->gs);
    plan_values(p, pn, pp, cw, ch);

    pp->tick_w = 0;
    pp->ext = 0;
    if (!pp->share_bar) {
        pp->ext = gh < min_bar(p) ? (min_bar(p) - gh) / 2 : 0;
        pp->tick_w = ticks_width(p, pp, gh + 2 * pp->ext);
    }

    float title = LH * m->ptitle + m->gs;
    float above = (pn->col_axis && pn->col_axis[0] ? LH * m->axis : 0)
                + (pp->cols.band > 0 ? pp->cols.band + m->gs : 0);
    if (!pp->share_bar) above = fmaxf(above, pp->ext + half_tick);
    pp->top_h = title + above;
    pp->bot_h = pp->share_bar ? 0 : pp->ext + half_tick;
    pp->right_w = pp->share_bar ? 0 : 1.6f * m->gs + m->bar_w + 1.2f * m->gs + pp->tick_w;
}

/* True when a panel can be drawn as a heatmap. */
static bool is_heat(const Panel *pn)
{
    return pn->kind == PANEL_HEATMAP && pn->m && pn->m->rows > 0 && pn->m->cols > 0;
}

/* True when two optional strings are equal (both absent counts). */
static bool same_str(const char *a, const char *b)
{
    return (!a || !a[0]) ? (!b || !b[0]) : (b && strcmp(a, b) == 0);
}

/* True when two panels label their rows alike. */
static bool same_rows(const Panel *a, const Panel *b)
{
    if (a->m->rows != b->m->rows || !same_str(a->row_axis, b->row_axis)) return false;
    if (!a->row_labels || !b->row_labels) return a->row_labels == b->row_labels;
    for (int i = 0; i < a->m->rows; i++)
        if (!same_str(a->row_labels[i], b->row_labels[i])) return false;
    return true;
}

/*
** The scale of heatmap k in a row of panels [first, end), and what it can
** share with its neighbours, as side-by-side plots do: its row labels when
** the panel at its left has the same ones, its colour bar when the panel
** at its right uses the same colours for the same values.
*/
static void plan_sharing(const Page *p, const View *v, int k, int first, int end, PanelPlan *pp)
{
    const Panel *pn = &v->panels[k];
    heat_scale(p, pn, pp);
    pp->share_rows = k > first && p->rows_as_prev[k];
    pp->share_bar = false;
    if (k + 1 < end && is_heat(&v->panels[k + 1])) {
        PanelPlan next;
        heat_scale(p, &v->panels[k + 1], &next);
        pp->share_bar = next.lo == pp->lo && next.hi == pp->hi
                     && panel_cmap(p, &v->panels[k + 1]) == panel_cmap(p, pn);
    }
}

/*
** Heatmap k with cells at most cw wide: as tall as wide (capped), lowered
** until its grid, labels and title fit height H, then no wider than
** CELL_ASPECT times its height. Fills pp; returns the panel's width.
*/
static float fit_panel(const Page *p, const View *v, int k, int first, int end,
                       float cw, float H, float cap_w, PanelPlan *pp)
{
    const Panel *pn = &v->panels[k];
    plan_sharing(p, v, k, first, end, pp);
    float ch = fminf(cw, p->m.max_cell);
    for (int it = 0; it < 8; it++) {
        plan_heat(p, pn, pp, fminf(cw, CELL_ASPECT * ch), ch, cap_w, 0.3f * H);
        float room = (H - pp->top_h - pp->bot_h) / pn->m->rows;
        if (ch <= room + 0.01f || ch <= 0.25f) break;
        ch = fmaxf(0.25f, fminf(room, 0.98f * ch));
    }
    return pp->left_w + pn->m->cols * pp->cw + pp->right_w;
}

/* The width the panels [first, first+count) take with cells at most cw wide,
** plots counted at an equal share of W each. */
static float row_width(const Page *p, const View *v, int first, int count, float cw, float W, float H)
{
    float gaps = p->m.gap * (count - 1), share = (W - gaps) / count, w = gaps;
    for (int k = first; k < first + count; k++) {
        PanelPlan pp;
        w += is_heat(&v->panels[k]) ? fit_panel(p, v, k, first, first + count, cw, H, 0.3f * share, &pp)
                                    : share;
    }
    return w;
}

/*
** The widest cells (at most cap) with which the panels of one row fit W:
** bisection, since a row only grows as its cells do. INFINITY when the row
** has no heatmap.
*/
static float solve_row(const Page *p, const View *v, int first, int count, float W, float H, float cap)
{
    bool any = false;
    for (int k = first; k < first + count; k++) any = any || is_heat(&v->panels[k]);
    if (!any) return INFINITY;
    float lo = 0.25f, hi = fminf(cap, CELL_ASPECT * p->m.max_cell);
    if (row_width(p, v, first, count, hi, W, H) <= W) return hi;
    for (int it = 0; it < 24 && hi - lo > 0.05f; it++) {
        float mid = (lo + hi) / 2;
        if (row_width(p, v, first, count, mid, W, H) <= W) lo = mid;
        else hi = mid;
    }
    return lo;
}

/*
** Lower the panels of a row so that, with their grids starting at one
** height (the tallest top band), they all end within H; and give panels
** that share row labels one row height. Returns the common top band.
*/
static float align_row(const Page *p, const View *v, int first, int count, PanelPlan *plans,
                       float H, float share)
{
    float top = 0;
    for (int pass = 0; pass < 3; pass++) {
        top = 0;
        for (int k = first; k < first + count; k++)
            if (is_heat(&v->panels[k])) top = fmaxf(top, plans[k].top_h);
        bool changed = false;
        for (int k = first; k < first + count; k++) {
            const Panel *pn = &v->panels[k];
            PanelPlan *pp = &plans[k];
            if (!is_heat(pn)) continue;
            float ch = fminf(pp->ch, (H - top - pp->bot_h) / pn->m->rows);
            if (pp->share_rows && plans[k - 1].ch < ch) ch = plans[k - 1].ch;
            if (ch < pp->ch - 0.01f) {
                plan_heat(p, pn, pp, fminf(pp->cw, CELL_ASPECT * fmaxf(ch, 0.25f)), fmaxf(ch, 0.25f),
                          0.3f * share, 0.3f * H);
                changed = true;
            }
        }
        /* a panel lowered for its right neighbour's sake: walk back the chain */
        for (int k = first + count - 1; k > first; k--) {
            PanelPlan *pp = &plans[k];
            if (!pp->share_rows || plans[k - 1].ch <= pp->ch + 0.01f) continue;
            plan_heat(p, &v->panels[k - 1], &plans[k - 1], plans[k - 1].cw, pp->ch, 0.3f * share, 0.3f * H);
            changed = true;
        }
        if (!changed) break;
    }
    return top;
}

/*
** Spare width in a row goes to panels whose values had to be printed
** smaller than the full cell font: their cells widen (up to CELL_ASPECT
** times their height) until the widest value fits at full size, or the
** spare width (less a fifth kept for spacing) runs out. Returns the row's
** new total panel width.
*/
static float widen_cells(const Page *p, const View *v, int first, int cnt, PanelPlan *plans,
                         float spare, float sum_w, float H, float share)
{
    float want[VIEW_MAX_PANELS], total = 0;
    for (int k = first; k < first + cnt; k++) {
        PanelPlan *pp = &plans[k];
        want[k] = 0;
        if ((pp->value_fs >= p->m.value && !pp->compact) || pp->ch < value_floor(p)) continue;
        float g = pp->cw >= 14 && pp->ch >= 14 ? fmaxf(1, 1.5f * p->m.u) : 0;
        float need = widest_value(p, pp, pp->decimals, false, p->m.value) + 2 * p->m.pad + g;
        need = fminf(need, CELL_ASPECT * pp->ch);
        if (need > pp->cw) want[k] = (need - pp->cw) * v->panels[k].m->cols;
        total += want[k];
    }
    if (total <= 0 || spare <= 0) return sum_w;
    float f = fminf(1, 0.8f * spare / total);
    for (int k = first; k < first + cnt; k++) {
        if (want[k] <= 0) continue;
        PanelPlan *pp = &plans[k];
        const Panel *pn = &v->panels[k];
        float cw = pp->cw + f * want[k] / pn->m->cols, top = pp->top_h;
        sum_w -= pp->box.w;
        plan_heat(p, pn, pp, cw, pp->ch, 0.3f * share, 0.3f * H);
        pp->top_h = fmaxf(pp->top_h, top);
        pp->box.w = pp->left_w + pn->m->cols * cw + pp->right_w;
        sum_w += pp->box.w;
    }
    return sum_w;
}

/* True when two panels hold heatmaps of the same shape. */
static bool same_shape(const Panel *a, const Panel *b)
{
    return is_heat(a) && is_heat(b) && a->m->rows == b->m->rows && a->m->cols == b->m->cols;
}

/*
** One row of panels [first, first+cnt) placed at y in area, at most H high,
** heatmap cells at most cw wide. Returns the row's height; adds each
** panel's log size to *log_sum and *scored; clears *fits when something
** does not find room.
*/
static float plan_row(const Page *p, const View *v, int first, int cnt, Rect area, float y, float H,
                      float cw, PanelPlan *plans, bool *fits, double *log_sum, int *scored)
{
    int nplot = 0;
    float gaps = p->m.gap * (cnt - 1), share = (area.w - gaps) / cnt;
    for (int k = first; k < first + cnt; k++) {
        memset(&plans[k], 0, sizeof plans[k]);
        if (is_heat(&v->panels[k])) fit_panel(p, v, k, first, first + cnt, cw, H, 0.3f * share, &plans[k]);
        else nplot++;
    }
    float top = align_row(p, v, first, cnt, plans, H, share), below = 0, sum_w = 0;
    for (int k = first; k < first + cnt; k++) {
        if (!is_heat(&v->panels[k])) continue;
        PanelPlan *pp = &plans[k];
        pp->box.w = pp->left_w + v->panels[k].m->cols * pp->cw + pp->right_w;
        sum_w += pp->box.w;
    }
    if (nplot == 0) sum_w = widen_cells(p, v, first, cnt, plans, area.w - gaps - sum_w, sum_w, H, share);
    for (int k = first; k < first + cnt; k++) {
        if (!is_heat(&v->panels[k])) continue;
        top = fmaxf(top, plans[k].top_h);
        below = fmaxf(below, v->panels[k].m->rows * plans[k].ch + plans[k].bot_h);
        *log_sum += log(fmax(plans[k].ch, 0.01));
        (*scored)++;
    }
    if (top + below > H + 0.5f || sum_w + gaps > area.w + 0.5f) *fits = false;
    float row_h = nplot == cnt ? H : fminf(H, top + below);
    if (nplot > 0 && nplot < cnt && row_h < 0.6f * H) row_h = fminf(H, 0.6f * H);
    float left = area.w - gaps - sum_w, plot_w = nplot ? left / nplot : 0;
    float extra = nplot ? 0 : fminf(left / (cnt + 1), 2 * p->m.gap);

    /* panels sharing labels or a bar sit closer; the group is centred */
    float total = sum_w + nplot * plot_w;
    for (int k = first; k + 1 < first + cnt; k++)
        total += plans[k].share_bar || plans[k + 1].share_rows ? p->m.gap * 0.6f : p->m.gap + extra;
    float x = area.x + (area.w - total) / 2;
    for (int k = first; k < first + cnt; k++) {
        PanelPlan *pp = &plans[k];
        if (!is_heat(&v->panels[k])) {
            pp->box = (Rect){ x, y, plot_w, row_h };
            if (plot_w < 14 * p->m.tick || row_h < 9 * p->m.tick) *fits = false;
            *log_sum += log(fmax(fminf(plot_w / 1.6f, row_h) / 8, 0.01));
            (*scored)++;
        } else {
            pp->box.x = x;
            pp->box.y = y;
            pp->box.h = row_h;
            pp->top_h = top;        /* grids of one row start at one height */
        }
        if (k + 1 < first + cnt)
            x += pp->box.w + (pp->share_bar || plans[k + 1].share_rows ? p->m.gap * 0.6f : p->m.gap + extra);
    }
    return row_h;
}

/*
** Place every panel of v in area: the first split panels in one row, the
** rest (if any) in a second. The rows start with equal heights; when one
** leaves height unused the other gets it and both are planned again.
** Fills plans and returns a score (the geometric mean of the cell heights,
** plots counted by their size), in used_h how much of the area's height the
** panels take, and in fits whether everything found room.
*/
static float plan_panels(const Page *p, const View *v, Rect area, int split, PanelPlan *plans,
                         float *used_h, bool *fits)
{
    int n = v->npanels;
    if (split <= 0 || split > n) split = n;
    int nrows = split < n ? 2 : 1;
    int first[2] = { 0, split }, counts[2] = { split, n - split };
    float H = (area.h - p->m.gap * (nrows - 1)) / nrows;
    float Hs[2] = { H, H }, row_h[2] = { 0, 0 };
    if (nrows == 2) {           /* height in proportion to the rows of cells each holds, plus its labels */
        float want[2] = { 0, 0 };
        for (int r = 0; r < 2; r++) {
            int most = 0;
            for (int k = first[r]; k < first[r] + counts[r]; k++)
                if (is_heat(&v->panels[k]) && v->panels[k].m->rows > most) most = v->panels[k].m->rows;
            want[r] = (most ? most : 8) + 10;
        }
        Hs[0] = 2 * H * want[0] / (want[0] + want[1]);
        Hs[1] = 2 * H - Hs[0];
    }
    bool alike = false;
    for (int a = 0; a < split; a++)
        for (int b = split; b < n; b++) alike = alike || same_shape(&v->panels[a], &v->panels[b]);
    double log_sum = 0;
    int scored = 0;
    for (int pass = 0; pass < 2; pass++) {
        /* each row its own cell width, but one for both when they hold alike panels */
        float rcw[2] = { INFINITY, INFINITY };
        for (int r = 0; r < nrows; r++) rcw[r] = solve_row(p, v, first[r], counts[r], area.w, Hs[r], INFINITY);
        if (alike) rcw[0] = rcw[1] = fminf(rcw[0], rcw[1]);
        float y = area.y;
        *fits = true;
        log_sum = 0;
        scored = 0;
        for (int r = 0; r < nrows; r++) {
            row_h[r] = plan_row(p, v, first[r], counts[r], area, y, Hs[r], rcw[r], plans, fits,
                                &log_sum, &scored);
            y += row_h[r] + p->m.gap;
        }
        *used_h = y - p->m.gap - area.y;
        if (nrows == 1 || pass == 1) break;
        int lend = row_h[1] < Hs[1] - 2 ? 1 : row_h[0] < Hs[0] - 2 ? 0 : -1;
        if (lend < 0) break;
        Hs[lend] = row_h[lend] + 1;
        Hs[1 - lend] = area.h - p->m.gap - Hs[lend];
    }
    return scored ? (float)exp(log_sum / scored) : 0;
}

/*
** The best arrangement of the panels in area: one row when there are at
** most 4 panels, else (or when it gives cells a fifth bigger) two rows,
** split in the middle or where the panels change shape, so that the four
** heads of a stage share a row and the wide concatenation goes below.
** Arguments and result as plan_panels.
*/
static float plan_best(const Page *p, const View *v, Rect area, PanelPlan *plans, float *used_h,
                       bool *fits)
{
    int n = v->npanels;
    float score = -1;
    if (n <= 4) score = plan_panels(p, v, area, n, plans, used_h, fits);
    if (n < 2) return score;
    int cand[8], nc = 0;
    cand[nc++] = (n + 1) / 2;
    for (int k = 1; k < n && nc < 8; k++) {
        if (same_shape(&v->panels[k - 1], &v->panels[k]) || k == (n + 1) / 2) continue;
        if (k * 4 < n || (n - k) * 4 < n) continue;     /* keep the rows comparable */
        cand[nc++] = k;
    }
    PanelPlan two[VIEW_MAX_PANELS];
    bool one_row = n <= 4;
    for (int i = 0; i < nc; i++) {
        float used2 = 0;
        bool fits2 = false;
        float score2 = plan_panels(p, v, area, cand[i], two, &used2, &fits2);
        float need = one_row ? 1.2f : 1.0f;
        if (score < 0 || (fits2 && !*fits) || (fits2 == *fits && score2 > need * score)) {
            memcpy(plans, two, sizeof two[0] * (size_t)n);
            *used_h = used2;
            *fits = fits2;
            score = score2;
            one_row = false;
        }
    }
    return score;
}

/* ------------------------------------------------------ heatmap draw */

/* The rectangle of cell (r, c) of a planned panel, inset by the cell gap. */
static Rect cell_rect(const Page *p, const PanelPlan *pp, int r, int c)
{
    float g = pp->cw >= 14 && pp->ch >= 14 ? fmaxf(1, 1.5f * p->m.u) : 0;
    float x = pp->box.x + pp->left_w + c * pp->cw, y = pp->box.y + pp->top_h + r * pp->ch;
    return (Rect){ x + g / 2, y + g / 2, pp->cw - g, pp->ch - g };
}

/* A rectangle grown by d on every side. */
static Rect grow(Rect r, float d)
{
    return (Rect){ r.x - d, r.y - d, r.w + 2 * d, r.h + 2 * d };
}

/* The panel title, cut to the panel's width. */
static void draw_panel_title(Page *p, const Panel *pn, int k, Rect box)
{
    char buf[256];
    if (!pn->title || !pn->title[0]) return;
    float fs = p->m.ptitle;                 /* shrink to 70% before cutting a word */
    while (fs > fmaxf(p->m.min_font, fpx(0.7f * p->m.ptitle)) && tw(p, pn->title, fs, 1) > box.w) fs -= 1;
    fit_text(p, pn->title, fs, 1, box.w, buf, sizeof buf);
    int i = put_text(p, (Rect){ box.x, box.y, box.w, LH * p->m.ptitle }, buf, fs,
                     p->th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_PANEL_TITLE, 1, 0);
    tag(p, i, k, -1, -1);
}

/*
** Where label i of n cells of size cell goes when every step-th is shown:
** the middle of its block of cells, kept so that a label ext long stays
** within the grid when the grid is long enough.
*/
static float label_centre(int i, int n, int step, float cell, float ext)
{
    int k = n - i < step ? n - i : step;
    float c = (i + k / 2.0f) * cell, len = n * cell;
    if (len >= ext) {
        if (c < ext / 2) c = ext / 2;
        if (c > len - ext / 2) c = len - ext / 2;
    }
    return c;
}

/* Row labels at the left of the grid and column labels above it. */
static void draw_heat_labels(Page *p, const Panel *pn, int k, const PanelPlan *pp)
{
    char buf[256];
    const Metrics *m = &p->m;
    float gx = pp->box.x + pp->left_w, gy = pp->box.y + pp->top_h;
    int rows = pn->m->rows, cols = pn->m->cols;
    if (pp->rows.fs > 0) {
        float fs = pp->rows.fs, lh = LH * fs, last = -INFINITY;
        for (int r = 0; r < rows; r += pp->rows.step) {
            float c = label_centre(r, rows, pp->rows.step, pp->ch, lh);
            if (!pn->row_labels[r] || c - last < lh - 0.01f) continue;
            last = c;
            fit_text(p, pn->row_labels[r], fs, 0, pp->rows.band, buf, sizeof buf);
            Rect b = { gx - m->gs - pp->rows.band, gy + c - lh / 2, pp->rows.band, lh };
            tag(p, put_text(p, b, buf, fs, p->th->fg, ALIGN_RIGHT, VALIGN_MIDDLE, ROLE_ROW_LABEL, 0, 0),
                k, r, -1);
        }
    }
    if (pp->cols.fs > 0) {
        float fs = pp->cols.fs, lh = LH * fs, band = pp->cols.band, last = -INFINITY;
        for (int c = 0; c < cols; c += pp->cols.step) {
            float mid = label_centre(c, cols, pp->cols.step, pp->cw, pp->cols.rot ? lh : pp->cw);
            if (!pn->col_labels[c] || (pp->cols.rot && mid - last < lh - 0.01f)) continue;
            last = mid;
            float cx = gx + mid;
            Rect b;
            if (pp->cols.rot) {
                fit_text(p, pn->col_labels[c], fs, 0, band, buf, sizeof buf);
                b = (Rect){ cx - lh / 2, gy - m->gs - band, lh, band };
            } else {
                LabelTable t = label_table(p, pn->col_labels, cols, fs);
                float room = level_room(&t, cols, c, pp->cw, pp->cols.lo_room, pp->cols.hi_room);
                fit_text(p, pn->col_labels[c], fs, 0, room, buf, sizeof buf);
                b = (Rect){ cx - room / 2, gy - m->gs - band, room, band };
            }
            /* upright labels start at the grid and read upward */
            tag(p, put_text(p, b, buf, fs, p->th->fg, pp->cols.rot ? ALIGN_LEFT : ALIGN_CENTER,
                            VALIGN_MIDDLE, ROLE_COL_LABEL, 0, pp->cols.rot),
                k, -1, c);
        }
    }
    /* axis titles: the column axis over the labels, the row axis turned upright */
    if (pn->col_axis && pn->col_axis[0]) {
        float cx = gx + cols * pp->cw / 2;
        float half = fminf(cx - pp->box.x, pp->box.x + pp->box.w - pp->right_w + 1.2f * m->gs - cx);
        float y = gy - (pp->cols.band > 0 ? pp->cols.band + m->gs : 0) - LH * m->axis;
        fit_text(p, pn->col_axis, m->axis, 0, 2 * half, buf, sizeof buf);
        tag(p, put_text(p, (Rect){ cx - half, y, 2 * half, LH * m->axis }, buf, m->axis,
                        p->th->muted, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_AXIS_TITLE, 0, 0), k, -1, -1);
    }
    if (pp->row_axis) {
        float gh = rows * pp->ch;
        Rect b = { pp->box.x, gy, LH * m->axis, gh };
        tag(p, put_text(p, b, pn->row_axis, m->axis, p->th->muted, ALIGN_CENTER, VALIGN_MIDDLE,
                        ROLE_AXIS_TITLE, 0, 1), k, -1, -1);
    }
}

/* The vertical colour bar at the right of the grid, with its ticks. */
static void draw_colorbar(Page *p, const Panel *pn, int k, const PanelPlan *pp, const Cmap *cm)
{
    char buf[64];
    const Metrics *m = &p->m;
    float gx = pp->box.x + pp->left_w + pn->m->cols * pp->cw;
    float gy = pp->box.y + pp->top_h, gh = pn->m->rows * pp->ch;
    Rect bar = { gx + 1.6f * m->gs, gy - pp->ext, m->bar_w, gh + 2 * pp->ext };
    for (int i = 0; i < BAR_STEPS; i++) {
        float y0 = bar.y + bar.h * (BAR_STEPS - 1 - i) / BAR_STEPS;
        float y1 = bar.y + bar.h * (BAR_STEPS - i) / BAR_STEPS;
        if (i < BAR_STEPS - 1) y0 -= 0.5f;     /* overlap: no seams when antialiased */
        Color c = cmap_at(cm, (i + 0.5) / BAR_STEPS);
        tag(p, draw_rect(p->d, (Rect){ bar.x, y0, bar.w, y1 - y0 }, c, ROLE_COLORBAR), k, -1, -1);
    }
    tag(p, draw_frame(p->d, bar, p->th->frame, 1, ROLE_DECOR), k, -1, -1);
    Ticks t = bar_ticks(p, pp, bar.h);
    float lh = LH * m->tick, last = INFINITY;
    for (int i = 0; i < t.n; i++) {
        float y = bar.y + bar.h * (float)(1 - heat_t(pp, t.v[i]));
        if (fabsf(last - y) < lh) continue;        /* never crowd two labels */
        last = y;
        tag(p, draw_line(p->d, bar.x + bar.w, y, bar.x + bar.w + 0.7f * m->gs, y, p->th->muted,
                         fmaxf(1, p->m.u), ROLE_DECOR), k, -1, -1);
        scale_tick_text(buf, sizeof buf, &t, i);
        char cut[64];
        fit_text(p, buf, m->tick, 0, pp->tick_w, cut, sizeof cut);
        Rect b = { bar.x + bar.w + 1.2f * m->gs, y - lh / 2, pp->tick_w, lh };
        tag(p, put_text(p, b, cut, m->tick, p->th->muted, ALIGN_LEFT, VALIGN_MIDDLE,
                        ROLE_TICK_LABEL, 0, 0), k, -1, -1);
    }
}

/*
** Outlines on panel k: each mark the caller gave (the operands of the
** explained cell: a cell, a row or a column), the explained cell itself
** drawn heavier, and the focus frame.
*/
static void draw_highlights(Page *p, const View *v, int k, const PanelPlan *pp)
{
    const Mat *m = v->panels[k].m;
    float u = p->m.u, gx = pp->box.x + pp->left_w, gy = pp->box.y + pp->top_h;
    for (int i = 0; i < p->o.nmarks && i < LAYOUT_MAX_MARKS; i++) {
        const LayoutMark *mk = &p->o.marks[i];
        if (mk->panel != k || mk->row >= m->rows || mk->col >= m->cols || (mk->row < 0 && mk->col < 0)) continue;
        Rect b = mk->row < 0 ? (Rect){ gx + mk->col * pp->cw, gy, pp->cw, m->rows * pp->ch }
               : mk->col < 0 ? (Rect){ gx, gy + mk->row * pp->ch, m->cols * pp->cw, pp->ch }
                             : (Rect){ gx + mk->col * pp->cw, gy + mk->row * pp->ch, pp->cw, pp->ch };
        tag(p, draw_frame(p->d, grow(b, 1.5f * u), p->th->highlight, fmaxf(2, 2.5f * u), ROLE_DECOR),
            k, mk->row, mk->col);
    }
    int r = p->o.hover_row, c = p->o.hover_col;
    if (p->o.hover_panel == k && r >= 0 && c >= 0 && r < m->rows && c < m->cols) {
        Rect b = { gx + c * pp->cw, gy + r * pp->ch, pp->cw, pp->ch };
        tag(p, draw_frame(p->d, grow(b, 2 * u), p->th->highlight, fmaxf(2, 3.5f * u), ROLE_DECOR), k, r, c);
        tag(p, draw_frame(p->d, b, p->th->bg, fmaxf(1, 1.5f * u), ROLE_DECOR), k, r, c);
    }
    if (p->o.focus_panel == k) {
        Rect b = { gx, gy, m->cols * pp->cw, m->rows * pp->ch };
        tag(p, draw_frame(p->d, grow(b, 5 * u), p->th->accent, fmaxf(1, 2 * u), ROLE_DECOR), k, -1, -1);
    }
}

/* The colours of the blocks of grid g (each the colour of its first cell)
** into px. */
static void fill_image(const Page *p, const Mat *m, const PanelPlan *pp, const DrawImage *g, const Cmap *cm, Color *px)
{
    int brows, bcols;
    draw_image_size(g, &brows, &bcols);
    Scale sc = scale_of(pp->lo, pp->hi);
    for (int i = 0; i < brows; i++)
        for (int j = 0; j < bcols; j++) {
            double x = mat_get(m, i * g->rstep, j * g->cstep);
            px[(size_t)i * (size_t)bcols + (size_t)j] = isfinite(x) ? cmap_at(cm, scale_at(&sc, x)) : p->th->masked_bg;
        }
}

/* The block colours of image panel k, drawn as grid g (each block the
** colour of its first cell), into px, the draw list's arena. Remembered
** per panel for the last view: a layout of a large lesson would otherwise
** read a block's first cell in every row of blocks of every matrix again,
** one cache miss a block. */
static void image_colors(Page *p, const View *v, int k, const PanelPlan *pp, const DrawImage *g, Color *px)
{
    const Mat *m = v->panels[k].m;
    const Cmap *cm = panel_cmap(p, &v->panels[k]);
    int rstep = g->rstep, cstep = g->cstep, brows, bcols;
    draw_image_size(g, &brows, &bcols);
    size_t n = (size_t)brows * (size_t)bcols;
    ImageKey key = { v->serial, m, rstep, cstep, pp->lo, pp->hi, cm, p->th->masked_bg };
    bool keep = v->serial != 0 && k < VIEW_MAX_PANELS;
    if (!keep) {
        fill_image(p, m, pp, g, cm, px);
        return;
    }
    const ImageKey *o = &p->lc->images[k].key;
    Color **memo = &p->lc->images[k].px;
    if (*memo && o->serial == key.serial && o->m == m && o->rstep == rstep && o->cstep == cstep
        && o->lo == key.lo && o->hi == key.hi && o->cm == cm && !memcmp(&o->masked, &key.masked, sizeof key.masked)) {
        memcpy(px, *memo, n * sizeof *px);
        return;
    }
    fill_image(p, m, pp, g, cm, px);
    if (p->lc->images[k].cap < n) {
        free(*memo);
        *memo = xmalloc(n * sizeof *px);
        p->lc->images[k].cap = n;
    }
    memcpy(*memo, px, n * sizeof *px);
    p->lc->images[k].key = key;
}

/*
** A heatmap panel: title, labels, one cell per value coloured on the
** panel's scale with its value printed in a colour that reads on it,
** masked cells in the theme's grey with "−∞", the colour bar, highlights.
*/
static void draw_heat(Page *p, const View *v, int k, const PanelPlan *pp)
{
    const Panel *pn = &v->panels[k];
    const Mat *m = pn->m;
    const Cmap *cm = panel_cmap(p, pn);
    bool hidden = k < 64 && (p->o.hidden >> k) & 1;
    char buf[64];
    draw_panel_title(p, pn, k, pp->box);
    draw_heat_labels(p, pn, k, pp);
    if (pp->value_fs <= 0 && !hidden) p->hidden_values = true;
    /* Cells narrower than a pixel cannot be told apart: draw one rectangle
    ** per block of them HEAT_BLOCK units on a side (the colour of its first
    ** cell), so a 1024x1024 matrix costs thousands of blocks, not a
    ** million, and a page of such panels at most one block per HEAT_BLOCK²
    ** units of its area (a bounded SVG). More than HEAT_IMAGE_MIN blocks
    ** without numbers or gaps are one image command (draw.h), which the
    ** backends draw block by block: the same pixels and SVG, a fraction of
    ** the commands. */
    float blk = HEAT_BLOCK * p->m.u;
    int rstep = pp->ch >= 1 ? 1 : (int)ceilf(blk / fmaxf(pp->ch, 1e-3f));
    int cstep = pp->cw >= 1 ? 1 : (int)ceilf(blk / fmaxf(pp->cw, 1e-3f));
    DrawImage g = { m->rows, m->cols, rstep, cstep, pp->cw, pp->ch };
    int brows, bcols;
    draw_image_size(&g, &brows, &bcols);
    Rect c0 = cell_rect(p, pp, 0, 0);
    if (!hidden && pp->value_fs <= 0 && brows * bcols > HEAT_IMAGE_MIN && c0.w == pp->cw && c0.h == pp->ch) {
        /* no numbers and no gaps between cells: the blocks as one image
        ** command, drawn by the backends exactly as these rectangles were */
        Color *px;
        tag(p, draw_image(p->d, c0.x, c0.y, &g, ROLE_CELL, &px), k, 0, 0);
        image_colors(p, v, k, pp, &g, px);
    } else {
        for (int r = 0; r < m->rows; r += rstep) {
            for (int c = 0; c < m->cols; c += cstep) {
                double x = mat_get(m, r, c);
                Rect b = draw_block_rect(cell_rect(p, pp, r, c), r, c, &g);
                if (hidden) {
                    tag(p, draw_rect(p->d, b, p->th->panel_bg, ROLE_CELL), k, r, c);
                    if (pp->value_fs > 0)
                        tag(p, put_text(p, b, "?", pp->value_fs, p->th->muted, ALIGN_CENTER, VALIGN_MIDDLE,
                                        ROLE_CELL_TEXT, 0, 0), k, r, c);
                } else if (!isfinite(x)) {
                    tag(p, draw_rect(p->d, b, p->th->masked_bg, ROLE_MASKED), k, r, c);
                    if (pp->value_fs > 0) {
                        util_fmt_num(buf, sizeof buf, x, 0);
                        tag(p, put_text(p, b, buf, pp->value_fs, p->th->masked_fg, ALIGN_CENTER,
                                        VALIGN_MIDDLE, ROLE_MASKED, 0, 0), k, r, c);
                    }
                } else {
                    Color col = cmap_at(cm, heat_t(pp, x));
                    tag(p, draw_rect(p->d, b, col, ROLE_CELL), k, r, c);
                    if (pp->value_fs > 0) {
                        util_fmt_cell(buf, sizeof buf, x, pp->decimals, pp->compact);
                        tag(p, put_text(p, b, buf, pp->value_fs, cmap_text_for(col), ALIGN_CENTER,
                                        VALIGN_MIDDLE, ROLE_CELL_TEXT, 0, 0), k, r, c);
                    }
                }
            }
        }
    }
    if (!pp->share_bar) draw_colorbar(p, pn, k, pp, cm);
    draw_highlights(p, v, k, pp);
}

/* --------------------------------------------------------- plot draw */

/* A series colour, distinct from its neighbours and readable on the theme. */
static Color series_color(const Page *p, int i)
{
    static const Color light[8] = {
        { 0, 114, 178, 255 }, { 213, 94, 0, 255 }, { 0, 150, 110, 255 }, { 190, 90, 150, 255 },
        { 200, 140, 0, 255 }, { 60, 60, 60, 255 }, { 86, 160, 220, 255 }, { 150, 60, 30, 255 },
    };
    static const Color dark[8] = {
        { 86, 180, 233, 255 }, { 240, 150, 40, 255 }, { 0, 200, 140, 255 }, { 240, 228, 66, 255 },
        { 220, 140, 190, 255 }, { 230, 230, 230, 255 }, { 255, 110, 80, 255 }, { 170, 150, 255, 255 },
    };
    return (p->th->dark ? dark : light)[i % 8];
}

/* A marker: filled square for even series, hollow for odd ones. */
static void marker(Page *p, float x, float y, float s, Color c, int series, int k)
{
    Rect b = { x - s / 2, y - s / 2, s, s };
    int i = series % 2 ? draw_frame(p->d, b, c, fmaxf(1.5f, s / 4), ROLE_PLOT)
                       : draw_rect(p->d, b, c, ROLE_PLOT);
    tag(p, i, k, -1, series);
}

/*
** A line plot: every column of the matrix is a series over its rows, x at
** category positions labelled with the row labels, y with round ticks and
** gridlines, a legend at the right, and the dashed bound with its label.
*/
static void draw_plot(Page *p, const View *v, int k, const PanelPlan *pp)
{
    const Panel *pn = &v->panels[k];
    const Metrics *m = &p->m;
    const Theme *th = p->th;
    Rect box = pp->box;
    char buf[256];
    draw_panel_title(p, pn, k, box);
    const Mat *mm = pn->m;
    if (!mm || mm->rows <= 0 || mm->cols <= 0) return;
    int rows = mm->rows, nser = mm->cols;

    /* the y range: from 0 (or below) to just above the data and the bound */
    double lo = 0, hi = 1;
    if (!mat_finite_range(mm, &lo, &hi)) { lo = 0; hi = 1; }
    if (lo > 0) lo = 0;
    for (int r = 0; pn->bounds && r < mm->rows; r++)
        if (isfinite(pn->bounds[r])) { hi = fmax(hi, pn->bounds[r]); lo = fmin(lo, pn->bounds[r]); }
    if (!(hi > lo)) hi = lo + fmax(1, fabs(lo) * 1e-9);
    if (!(hi > lo)) hi = nextafter(lo, INFINITY);
    /* rounded out to a step when that stays finite (see scale_ticks) */
    double step = scale_nice_step(hi / 4 - lo / 4);
    double rhi = step > 0 ? ceil((hi + 0.08 * (hi / 2 - lo / 2)) / step) * step : hi;
    double rlo = step > 0 ? floor(lo / step) * step : lo;
    if (isfinite(rhi) && isfinite(rlo) && rhi > rlo) { hi = rhi; lo = rlo; }
    Ticks t = scale_ticks(lo, hi, 7);

    /* legend column at the right */
    float lfs = m->legend, sw = 2.2f * lfs;
    char **names = pn->series ? pn->series : pn->col_labels;
    float name_w = 0;
    for (int s = 0; s < nser; s++) {
        if (names && names[s]) name_w = fmaxf(name_w, tw(p, names[s], lfs, 0));
        else { snprintf(buf, sizeof buf, "%d", s + 1); name_w = fmaxf(name_w, tw(p, buf, lfs, 0)); }
    }
    if (pn->bounds && pn->bound_label) name_w = fmaxf(name_w, tw(p, pn->bound_label, lfs, 0));
    float leg_w = fminf(sw + m->gs + name_w + 1, 0.3f * box.w);

    /* left: y axis title and tick labels */
    float yt_w = 0;
    for (int i = 0; i < t.n; i++) {
        scale_tick_text(buf, sizeof buf, &t, i);
        yt_w = fmaxf(yt_w, tw(p, buf, m->tick, 0));
    }
    bool has_y = pn->y_axis && pn->y_axis[0], has_x = pn->row_axis && pn->row_axis[0];
    float px = box.x + (has_y ? LH * m->axis + m->gs : 0) + yt_w + m->gs;
    float pw = box.x + box.w - leg_w - 2 * m->gap / 2 - px;
    float top = box.y + LH * m->ptitle + m->gs + 0.6f * INK * m->tick;
    AxisPlan xl = plan_cols(p, pn->row_labels, rows, pw / rows, m->label, 0.22f * box.h, 0, 0);
    float bottom = box.y + box.h - (has_x ? LH * m->axis : 0) - (xl.band > 0 ? xl.band + m->gs : 0) - m->gs;
    float ph = bottom - top;
    if (pw < 20 || ph < 20) return;
    int want = (int)(ph / (1.4f * LH * m->tick)) + 1;
    t = scale_ticks(lo, hi, want < 2 ? 2 : want > 7 ? 7 : want);

    /* gridlines and y ticks (never two labels closer than a line) */
    float last = INFINITY;
    for (int i = 0; i < t.n; i++) {
        float y = bottom - ph * (float)scale_frac(t.v[i], lo, hi);
        tag(p, draw_line(p->d, px, y, px + pw, y, th->frame, 1, ROLE_DECOR), k, -1, -1);
        if (fabsf(last - y) < LH * m->tick) continue;
        last = y;
        char cut[64];
        scale_tick_text(buf, sizeof buf, &t, i);
        fit_text(p, buf, m->tick, 0, yt_w, cut, sizeof cut);
        Rect b = { px - m->gs - yt_w, y - LH * m->tick / 2, yt_w, LH * m->tick };
        tag(p, put_text(p, b, cut, m->tick, th->muted, ALIGN_RIGHT, VALIGN_MIDDLE, ROLE_TICK_LABEL, 0, 0),
            k, -1, -1);
    }
    tag(p, draw_line(p->d, px, top, px, bottom, th->muted, fmaxf(1, 1.5f * m->u), ROLE_DECOR), k, -1, -1);
    tag(p, draw_line(p->d, px, bottom, px + pw, bottom, th->muted, fmaxf(1, 1.5f * m->u), ROLE_DECOR), k, -1, -1);

    /* x labels and axis titles */
    float sx = pw / rows;
    if (xl.fs > 0) {
        last = -INFINITY;
        for (int r = 0; r < rows; r += xl.step) {
            float lh = LH * xl.fs, mid = label_centre(r, rows, xl.step, sx, xl.rot ? lh : sx);
            if (!pn->row_labels[r] || (xl.rot && mid - last < lh - 0.01f)) continue;
            last = mid;
            float cx = px + mid;
            Rect b;
            if (xl.rot) {
                fit_text(p, pn->row_labels[r], xl.fs, 0, xl.band, buf, sizeof buf);
                b = (Rect){ cx - lh / 2, bottom + m->gs, lh, xl.band };
            } else {
                LabelTable lt = label_table(p, pn->row_labels, rows, xl.fs);
                float room = level_room(&lt, rows, r, sx, 0, 0);
                fit_text(p, pn->row_labels[r], xl.fs, 0, room, buf, sizeof buf);
                b = (Rect){ cx - room / 2, bottom + m->gs, room, xl.band };
            }
            /* upright ones end at the axis */
            tag(p, put_text(p, b, buf, xl.fs, th->fg, xl.rot ? ALIGN_RIGHT : ALIGN_CENTER,
                            xl.rot ? VALIGN_MIDDLE : VALIGN_TOP, ROLE_ROW_LABEL, 0, xl.rot),
                k, r, -1);
        }
    }
    if (has_x) {
        fit_text(p, pn->row_axis, m->axis, 0, pw, buf, sizeof buf);
        Rect b = { px, box.y + box.h - LH * m->axis, pw, LH * m->axis };
        tag(p, put_text(p, b, buf, m->axis, th->muted, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_AXIS_TITLE, 0, 0),
            k, -1, -1);
    }
    if (has_y) {
        fit_text(p, pn->y_axis, m->axis, 0, ph, buf, sizeof buf);
        Rect b = { box.x, top, LH * m->axis, ph };
        tag(p, put_text(p, b, buf, m->axis, th->muted, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_AXIS_TITLE, 0, 1),
            k, -1, -1);
    }

    /* the bound: a dashed step line, level over each row's category (its
    ** label is in the legend) */
    if (pn->bounds) {
        float last_y = 0;
        for (int r = 0; r < rows; r++) {
            float y = bottom - ph * (float)scale_frac(pn->bounds[r], lo, hi);
            int i = draw_line(p->d, px + r * sx, y, px + (r + 1) * sx, y, th->fg, fmaxf(1.5f, 2 * m->u), ROLE_PLOT);
            p->d->cmds[i].dashed = 1;
            tag(p, i, k, -1, -1);
            if (r > 0 && fabsf(y - last_y) > 0.5f) {
                i = draw_line(p->d, px + r * sx, last_y, px + r * sx, y, th->fg, fmaxf(1.5f, 2 * m->u), ROLE_PLOT);
                p->d->cmds[i].dashed = 1;
                tag(p, i, k, -1, -1);
            }
            last_y = y;
        }
    }

    /* the series: a marker per point (the rows are categories, so no line
    ** joins them), side by side within a row's slot, its value printed
    ** above it when there is room, and a hit area for hovering */
    float slot = sx / nser, ms = fmaxf(5, fminf(9 * m->u, fminf(sx * 0.4f, slot * 0.8f)));
    for (int s = 0; s < nser; s++) {
        Color c = series_color(p, s);
        for (int r = 0; r < rows; r++) {
            double x = mat_get(mm, r, s);
            if (!isfinite(x)) continue;
            float X = px + r * sx + (nser > 1 ? (s + 0.5f) * slot : 0.5f * sx);
            float Y = bottom - ph * (float)scale_frac(x, lo, hi);
            Rect hit = { X - fmaxf(slot, ms) / 2, Y - ms, fmaxf(slot, ms), 2 * ms };
            int i = draw_rect(p->d, hit, (Color){ 0, 0, 0, 0 }, ROLE_CELL);
            tag(p, i, k, r, s);
            marker(p, X, Y, ms, c, s, k);
            char num[32];
            util_fmt_cell(num, sizeof num, x, pn->decimals >= 0 ? pn->decimals : 2, false);
            float nw = tw(p, num, m->tick, 0), lh = LH * m->tick;
            if (nw <= slot - m->pad && Y - ms / 2 - lh >= top) {
                Rect b = { X - nw / 2 - m->pad / 2, Y - ms / 2 - lh, nw + m->pad, lh };
                tag(p, draw_rect(p->d, b, th->bg, ROLE_DECOR), k, r, s);
                tag(p, put_text(p, b, num, m->tick, th->fg, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_PLOT, 0, 0), k, r, s);
            }
        }
    }

    /* the legend: a swatch with its marker, then the name */
    float lx = box.x + box.w - leg_w, llh = LH * lfs;
    if (nser * llh > ph) { lfs = fpx(fmaxf(m->min_font, ph / nser / LH)); llh = LH * lfs; }
    for (int s = 0; s < nser && (s + 1) * llh <= ph + 0.01f; s++) {
        Color c = series_color(p, s);
        float y = top + s * llh + llh / 2;
        tag(p, draw_line(p->d, lx, y, lx + sw, y, c, fmaxf(2, 2.5f * m->u), ROLE_PLOT), k, -1, s);
        marker(p, lx + sw / 2, y, ms, c, s, k);
        const char *name = names && names[s] ? names[s] : NULL;
        if (!name) { snprintf(buf, sizeof buf, "%d", s + 1); name = buf; }
        char cut[256];
        fit_text(p, name, lfs, 0, leg_w - sw - m->gs, cut, sizeof cut);
        Rect b = { lx + sw + m->gs, y - llh / 2, leg_w - sw - m->gs, llh };
        tag(p, put_text(p, b, cut, lfs, th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_PLOT, 0, 0), k, -1, s);
    }
    if (pn->bounds && pn->bound_label && (nser + 1) * llh <= ph + 0.01f) {
        float y = top + nser * llh + llh / 2;
        int i = draw_line(p->d, lx, y, lx + sw, y, th->fg, fmaxf(1.5f, 2 * m->u), ROLE_PLOT);
        p->d->cmds[i].dashed = 1;
        tag(p, i, k, -1, -1);
        char cut[256];
        fit_text(p, pn->bound_label, lfs, 0, leg_w - sw - m->gs, cut, sizeof cut);
        Rect b = { lx + sw + m->gs, y - llh / 2, leg_w - sw - m->gs, llh };
        tag(p, put_text(p, b, cut, lfs, th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_PLOT, 0, 0), k, -1, -1);
    }
}

/* A panel with nothing to draw: its title and a short note. */
static void draw_empty(Page *p, const View *v, int k, const PanelPlan *pp)
{
    draw_panel_title(p, &v->panels[k], k, pp->box);
    Rect b = { pp->box.x, pp->box.y + LH * p->m.ptitle + p->m.gs, pp->box.w, LH * p->m.axis };
    char buf[64];
    fit_text(p, _("(no values)"), p->m.axis, 0, b.w, buf, sizeof buf);
    tag(p, put_text(p, b, buf, p->m.axis, p->th->muted, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_DECOR, 0, 0),
        k, -1, -1);
}

/* ------------------------------------------------------------- page */

/* The text scale asked for, within 0.5 … 3. */
static float text_scale_of(const LayoutOpts *o)
{
    float ts = o->text_scale > 0 ? o->text_scale : 1;
    return ts < 0.5f ? 0.5f : ts > 3 ? 3 : ts;
}

/* Sizes for the canvas: everything scales with the smaller of the canvas
** ratios to 1280x800, fonts also with text_scale and shrink (below 1 only
** when the page did not fit). */
static Metrics metrics(const LayoutOpts *o, float shrink, float label_scale)
{
    Metrics m;
    float u = fminf(o->width / 1280.0f, o->height / 800.0f);
    if (u < 0.3f) u = 0.3f;
    float ts = text_scale_of(o);
    float s = u * fminf(ts, label_scale) * shrink, sv = u * ts * shrink;
    m.u = u;
    m.margin = 36 * u;
    m.gap = 30 * u;
    m.gs = 8 * u;
    m.pad = 5 * u;
    m.title = fpx(34 * s);
    m.meta = fpx(17 * s);
    m.formula = fpx(25 * s);
    m.body = fpx(20 * s);
    m.ptitle = fpx(22 * s);
    m.axis = fpx(17 * s);
    m.label = fpx(19 * s);
    m.value = fpx(23 * sv);
    m.tick = fpx(16 * s);
    m.legend = fpx(17 * s);
    m.min_font = fpx(9 * fmaxf(1, u));
    m.max_cell = 100 * sv;
    m.bar_w = 18 * u;
    return m;
}

/*
** The header, on one line in the same place on every slide: the stage
** title at the left, "lesson · stage k / n" small at the right. The title
** keeps its words: it shrinks (to 65%) before anything of it is cut; the
** lesson's title gives way first, the stage counter never.
*/
static float draw_header(Page *p, const View *v, float x0, float x1, float y)
{
    const Metrics *m = &p->m;
    char count[64], lesson[300], meta[400], buf[300];
    count[0] = lesson[0] = meta[0] = '\0';
    if (v->nstages > 0) snprintf(count, sizeof count, _("stage %d / %d"), v->stage + 1, v->nstages);
    const char *title = v->title ? v->title : "", *sep = "  \xc2\xb7  ";
    float w = x1 - x0, th = LH * m->title, fs = m->title;
    float count_w = count[0] ? tw(p, count, m->meta, 0) : 0;
    while (fs > fpx(0.65f * m->title) && tw(p, title, fs, 1) + m->gap + count_w > w) fs -= 1;
    float title_w = fit_text(p, title, fs, 1, w - (count[0] ? m->gap + count_w : 0), buf, sizeof buf);
    put_text(p, (Rect){ x0, y, title_w + 1, th }, buf, fs, p->th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_TITLE, 1, 0);
    float room = w - title_w - m->gap - count_w - (count[0] ? tw(p, sep, m->meta, 0) : 0);
    if (v->lesson_title && v->lesson_title[0] && room > 4 * m->meta)
        fit_text(p, v->lesson_title, m->meta, 0, room, lesson, sizeof lesson);
    snprintf(meta, sizeof meta, "%s%s%s", lesson, lesson[0] && count[0] ? sep : "", count);
    if (meta[0]) {
        float meta_w = tw(p, meta, m->meta, 0);
        put_text(p, (Rect){ x1 - meta_w, y, meta_w, th }, meta, m->meta, p->th->muted,
                 ALIGN_RIGHT, VALIGN_MIDDLE, ROLE_TITLE, 0, 0);
    }
    y += th;
    draw_line(p->d, x0, y + 0.4f * m->gs, x1, y + 0.4f * m->gs, p->th->frame, fmaxf(1, m->u), ROLE_DECOR);
    return y + 1.4f * m->gs;
}

/* The formula on a tinted strip, shrunk (then cut) to the width. Returns
** the next y. */
static float draw_formula(Page *p, const View *v, float x0, float x1, float y)
{
    if (!v->formula || !v->formula[0]) return y;
    const Metrics *m = &p->m;
    float padx = 1.6f * m->gs, pady = 0.5f * m->gs, room = x1 - x0 - 2 * padx;
    float fs = m->formula;
    while (fs > fpx(0.7f * m->formula) && tw(p, v->formula, fs, 0) > room) fs -= 1;
    char buf[512];
    float w = fit_text(p, v->formula, fs, 0, room, buf, sizeof buf);
    Rect strip = { x0, y, w + 2 * padx, LH * fs + 2 * pady };
    draw_rect(p->d, strip, p->th->panel_bg, ROLE_DECOR);
    draw_rect(p->d, (Rect){ x0, y, fmaxf(2, 4 * m->u), strip.h }, p->th->accent, ROLE_DECOR);
    put_text(p, (Rect){ x0 + padx, y + pady, w, LH * fs }, buf, fs, p->th->fg, ALIGN_LEFT, VALIGN_MIDDLE,
             ROLE_FORMULA, 0, 0);
    return y + strip.h + m->gap * 0.8f;
}

/* The notes line at the bottom: the view's own note (a row that sees no
** key) and, when some numbers were too small to print, where to read them. */
static void draw_footer(Page *p, const View *v, float x0, float x1, float y)
{
    char line[600], buf[600];
    snprintf(line, sizeof line, "%s%s%s", v->note ? v->note : "", v->note && p->hidden_values ? "   \xc2\xb7   " : "",
             p->hidden_values ? _("some numbers are too small to print here: hover a cell to read it, or press \xe2\x88\x92 for smaller text") : "");
    fit_text(p, line, p->m.meta, 0, x1 - x0, buf, sizeof buf);
    put_text(p, (Rect){ x0, y, x1 - x0, LH * p->m.meta }, buf, p->m.meta, p->th->muted, ALIGN_LEFT, VALIGN_MIDDLE,
             ROLE_BODY, 0, 0);
}

/* The light or dark theme. Text colours reach 4.5:1 on their backgrounds. */
Theme layout_theme(bool dark)
{
    Theme t;
    t.dark = dark;
    if (!dark) {
        t.bg = (Color){ 252, 252, 250, 255 };
        t.fg = (Color){ 22, 24, 29, 255 };
        t.muted = (Color){ 84, 89, 99, 255 };
        t.panel_bg = (Color){ 238, 240, 244, 255 };
        t.frame = (Color){ 196, 200, 208, 255 };
        t.masked_bg = (Color){ 204, 206, 212, 255 };
        t.masked_fg = (Color){ 40, 42, 48, 255 };
        t.accent = (Color){ 37, 99, 235, 255 };
        t.highlight = (Color){ 220, 38, 38, 255 };
    } else {
        t.bg = (Color){ 24, 26, 31, 255 };
        t.fg = (Color){ 236, 238, 241, 255 };
        t.muted = (Color){ 168, 173, 183, 255 };
        t.panel_bg = (Color){ 38, 41, 49, 255 };
        t.frame = (Color){ 74, 80, 92, 255 };
        t.masked_bg = (Color){ 64, 67, 76, 255 };
        t.masked_fg = (Color){ 232, 232, 236, 255 };
        t.accent = (Color){ 96, 165, 250, 255 };
        t.highlight = (Color){ 250, 204, 21, 255 };
    }
    return t;
}

/* Defaults: nothing hovered or hidden, scale 1, the fixed measure if none. */
LayoutOpts layout_defaults(int width, int height, const Theme *theme,
                           MeasureFn measure, void *ctx)
{
    LayoutOpts o;
    memset(&o, 0, sizeof o);
    o.width = width;
    o.height = height;
    o.text_scale = 1;
    o.theme = theme;
    o.measure = measure ? measure : layout_measure_fixed;
    o.measure_ctx = ctx;
    o.cmap = NULL;
    o.focus_panel = -1;
    o.hover_panel = o.hover_row = o.hover_col = -1;
    o.nmarks = 0;
    o.hidden = 0;
    return o;
}

/* Zeroed memory is an empty cache: no memo slot belongs to layout 1 or
** later, and no view has serial 0 remembered. */
LayoutCache *layout_cache_create(void)
{
    return xcalloc(1, sizeof(LayoutCache));
}

/* Free the kept image colours, then the cache. */
void layout_cache_free(LayoutCache *c)
{
    if (!c) return;
    for (int k = 0; k < VIEW_MAX_PANELS; k++) free(c->images[k].px);
    free(c);
}

/* 0.55 x size per character (utf8_count). */
float layout_measure_fixed(void *ctx, const char *text, float size, int bold)
{
    (void)ctx;
    (void)bold;
    return 0.55f * size * (float)utf8_count(text);
}

/*
** The page. Header and formula first; then the two arrangements of panels
** and explanation are planned and the better one drawn. With the text
** below, the panels get what the text leaves, but never less than 45% of
** the height: past that the text font shrinks, and past the smallest text
** font the text is cut with "…". Returns false when the panels did not
** find room.
*/
static bool layout_page(Page *p, const View *v)
{
    const Metrics *m = &p->m;
    DrawList *out = p->d;
    float foot_h = p->foot ? LH * m->meta + 0.5f * m->gs : 0;
    float x0 = m->margin, x1 = p->o.width - m->margin, y1 = p->o.height - m->margin - foot_h;
    float y = draw_header(p, v, x0, x1, m->margin);
    y = draw_formula(p, v, x0, x1, y);
    float avail = y1 - y, W = x1 - x0;
    int np = v->npanels < 0 ? 0 : v->npanels > VIEW_MAX_PANELS ? VIEW_MAX_PANELS : v->npanels;
    View vv = *v;
    vv.npanels = np;
    bool has_body = false;
    for (int i = 0; i < v->npara; i++) if (v->paras[i] && v->paras[i][0]) has_body = true;

    if (np == 0) {
        body_block(p, v, m->body, x0, y, W, avail, true);
        return true;
    }

    PanelPlan below[VIEW_MAX_PANELS], beside[VIEW_MAX_PANELS];
    float used_below = 0, used_beside = 0;
    bool fit_below = false, fit_beside = false;

    /* arrangement A: text across the bottom */
    float fs = m->body, min_fs = fpx(fmaxf(m->min_font + 2, 0.75f * m->body)), body_h = 0;
    float min_panels = 0.45f * avail;
    if (has_body) {
        for (;;) {
            body_h = body_block(p, v, fs, x0, 0, W, 0, false);
            if (avail - body_h - m->gap >= min_panels || fs <= min_fs) break;
            fs -= 1;
        }
    }
    float panels_h = has_body ? fmaxf(min_panels, avail - body_h - m->gap) : avail;
    float score_below = plan_best(p, &vv, (Rect){ x0, y, W, panels_h }, below, &used_below, &fit_below);

    /* arrangement B: text in a column at the right, when it fits there whole */
    float score_beside = -1, col_w = fminf(fmaxf(0.3f * W, 300 * m->u), 470 * m->u);
    if (has_body && col_w < 0.45f * W) {
        float h = body_block(p, v, m->body, 0, 0, col_w, 0, false);
        if (h <= avail) {
            Rect area = { x0, y, W - col_w - m->gap * 1.5f, avail };
            score_beside = plan_best(p, &vv, area, beside, &used_beside, &fit_beside);
        }
    }

    PanelPlan *plans = below;
    bool fits = fit_below;
    if ((fit_beside && !fit_below) || (fit_beside == fit_below && score_beside > score_below * 1.25f)) {
        plans = beside;
        fits = fit_beside;
        float bx = x1 - col_w;
        draw_line(out, bx - 0.75f * m->gap, y, bx - 0.75f * m->gap, y + avail, p->th->frame,
                  fmaxf(1, m->u), ROLE_DECOR);
        body_block(p, v, m->body, bx, y, col_w, avail, true);
    } else if (has_body) {
        float by = y + used_below + m->gap;
        body_block(p, v, fs, x0, by, W, y1 - by, true);
    }
    for (int k = 0; k < np; k++) {
        const Panel *pn = &v->panels[k];
        if (is_heat(pn)) draw_heat(p, v, k, &plans[k]);
        else if (pn->kind == PANEL_PLOT && pn->m && pn->m->rows > 0 && pn->m->cols > 0)
            draw_plot(p, v, k, &plans[k]);
        else draw_empty(p, v, k, &plans[k]);
    }
    if (p->foot) draw_footer(p, v, x0, x1, y1 + 0.5f * m->gs);
    return fits;
}

/* One layout of the page with labels and titles at label_scale (cell
** numbers at the full text scale): smaller fonts until it fits, and a line
** for notes when some numbers could not be printed. */
static void lay_page(Page *p, const View *v, float label_scale)
{
    DrawList *out = p->d;
    for (float shrink = 1;; shrink *= 0.85f) {
        p->m = metrics(&p->o, shrink, label_scale);
        p->foot = v && v->note;
        draw_clear(out, p->o.width, p->o.height, p->th->bg);
        p->hidden_values = false;
        bool ok = !v || layout_page(p, v);
        if (v && p->hidden_values && !p->foot && p->o.height >= 360) {   /* again, with room to say so */
            p->foot = true;
            draw_clear(out, p->o.width, p->o.height, p->th->bg);
            if (!layout_page(p, v)) {                  /* no room for the note: without it */
                p->foot = false;
                draw_clear(out, p->o.width, p->o.height, p->th->bg);
                layout_page(p, v);
            }
        }
        if (ok || shrink < 0.4f) break;
    }
}

/* The font of the numbers of panel k in d, or 0 when none is printed. */
static float cell_font(const DrawList *d, int k)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel == k) return d->cmds[i].size;
    return 0;
}

/*
** Lay out v. A page whose panels do not find room (a small window, a big
** text scale) is laid out again with every font 15% smaller, down to 40%.
** Bigger text (+, for the back row) must never print the numbers in the
** cells smaller: the page is laid out at scale 1 first, and when a panel's
** numbers come out smaller at the scale asked for, titles and labels grow
** only half as much, then not at all, while the numbers keep the full scale;
** a slide where even that shrinks them stays as it was at scale 1.
*/
void layout_view(LayoutCache *c, const View *v, const LayoutOpts *opts, DrawList *out)
{
    assert(c && opts && out);
    Theme light = layout_theme(false);
    Page p;
    p.lc = c;
    p.cache = &c->measure;
    p.memo = &c->memo;
    p.gen = ++c->layouts;
    p.o = *opts;
    if (!p.o.measure) p.o.measure = layout_measure_fixed;
    p.th = p.o.theme ? p.o.theme : &light;
    p.d = out;
    p.v = v;
    for (int k = 0; v && k < v->npanels && k < VIEW_MAX_PANELS; k++) {
        const Panel *pn = &v->panels[k];
        p.stats[k] = view_stats(c, v, k);
        p.rows_as_prev[k] = k > 0 && is_heat(pn) && is_heat(pn - 1) && same_rows(pn - 1, pn);
    }
    float ts = text_scale_of(&p.o);
    if (!v || ts <= 1) {
        lay_page(&p, v, ts);
    } else {
        float base[VIEW_MAX_PANELS];
        Page q = p;
        q.o.text_scale = 1;
        lay_page(&q, v, 1);
        for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++) base[k] = cell_font(out, k);
        const float tries[3] = { ts, 1 + (ts - 1) / 2, 1 };
        bool smaller = true;
        for (int t = 0; t < 3 && smaller; t++) {
            lay_page(&p, v, tries[t]);
            smaller = false;
            for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++)
                smaller |= base[k] > 0 && cell_font(out, k) < base[k];
        }
        if (smaller) lay_page(&q, v, 1);        /* bigger text does not fit this slide: as it was */
    }
    for (int k = 0; v && k < v->npanels && k < DRAW_MAX_PANELS; k++) {
        snprintf(out->panels[k].matrix, sizeof out->panels[k].matrix, "%s", v->panels[k].matrix);
        out->panels[k].head = v->panels[k].ref.head;
        out->panels[k].row0 = v->panels[k].row_offset;
        out->npanels = k + 1;
    }
}
