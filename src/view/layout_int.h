/*
** layout_int.h: what the files of the layout share. Private to
** src/view/layout*.c; everyone else includes layout.h.
**
** The layout (layout.h) is split by job, each file one room:
**
**   layout.c           the page: sizes for the canvas, the header, the
**                      formula, the explanation, the footer, and
**                      layout_view, which plans the page and draws it
**   layout_plan.c      the solver: panels arranged in one or two rows,
**                      heatmap cells as big as the row lets them be
**   layout_heatplan.c  one heatmap panel planned for a cell size: its
**                      colour scale, cell numbers, label bands, colour bar
**   layout_labels.c    the labels along a grid's side: planned (size,
**                      step, level or upright) and drawn
**   layout_heat.c      a planned heatmap panel drawn
**   layout_plot.c      a plot panel drawn
**   layout_text.c      text: widths through the caller's measure, with
**                      the memos of one layout; fitting and wrapping
**   layout_cache.c     LayoutCache: its memory, and what it keeps of a
**                      view from one layout to the next
**   layout_keep.c      the last page laid out, kept without its outlines
**                      for the next frames of the same view
**   layout_fit.c       the stage pager's question: whether a page serves
**                      on the projector slide
**   scale.c            colour scales and ticks, pure numbers (scale.h)
**
** Data flows one way: layout_view computes the page's Metrics, the
** solver fills a PanelPlan per panel (nothing drawn), then the page and
** its panels are drawn from the plans into the DrawList. Every size is in
** pixels of the canvas; the tuned constants below are in the units each
** says (font sizes, canvas units where u = 1 at 1280x800, shares); the
** design sizes they scale are core/slide.h's, shared with the stage pager.
*/
#ifndef ATTNLAB_LAYOUT_INT_H
#define ATTNLAB_LAYOUT_INT_H

#include "layout.h"
#include "core/stage/slide.h"
#include "cmap.h"
#include "scale.h"
#include "text.h"

#include <math.h>
#include <stdint.h>

/* ------------------------------------------------------ tuned constants */

/* Text (and core/slide.h: the design sizes, line bands, the legible floor). */
#define TITLE_SHRINK    0.65f   /* the stage title shrinks to this share of its size before it is cut */

/* Canvas (its design size: core/slide.h). */
#define U_MIN           0.3f    /* sizes stop shrinking with the canvas below this u */
#define TEXT_SCALE_MIN  0.5f    /* the text scale asked for is held to this range */
#define TEXT_SCALE_MAX  4.0f

/* Heatmap cells. */
#define CELL_MIN        0.25f   /* the smallest cell side the solver tries, in pixels ... */
#define GRID_MIN        64      /* ... but a grid of more rows than this many canvas units hold at
                                   CELL_MIN may have lower cells, down to this height */
#define CELL_FLOOR      0.05f   /* ... unless a page does not fit with it even at the smallest
                                   fonts: then its cells may be this narrow (layout.c: page_fit) */
#define CELL_ASPECT     1.6f    /* cells may be this much wider than tall */
#define CELL_GAP_FROM   14      /* cells at least this many pixels each way are drawn apart ... */
#define CELL_GAP        1.5f    /* ... by this gap, in canvas units (at least a pixel): lay_cell_gap */
#define HEAT_BLOCK      3.0f    /* side of a block of sub-pixel cells, in canvas units */
#define HEAT_IMAGE_MIN  1024    /* more blocks than this, without numbers: one image command */

/* Labels along a grid. */
#define LABEL_BAND_MAX  0.3f    /* row labels take at most this share of a panel's share of the
                                   row's width, column labels of the row's height */
#define LEVEL_SHRINK_1  0.85f   /* column labels may shrink to these shares of the row labels' */
#define LEVEL_SHRINK_2  0.7f    /* size to stay level ... */
#define LEVEL_CUT_EMS   6       /* ... and columns this many font sizes wide keep them level, cut */

/* Colour bar, in gaps between a label and what it names (Metrics.gs). */
#define BAR_STEPS       64      /* thin rectangles in a colour bar */
#define BAR_GAP         1.6f    /* from the grid to the bar */
#define BAR_TEXT_GAP    1.2f    /* from the bar to its tick labels */
#define BAR_TICK_LEN    0.7f    /* a tick mark */
#define BAR_TICK_LINES  1.5f    /* tick labels at least this many lines apart */
#define BAR_MAX_TICKS   5
#define BAR_MIN_LINES   1.6f    /* the shortest bar holds two tick labels: this many lines */
#define TICK_OVERHANG   0.6f    /* an end tick label reaches past the bar this share of its ink */
#define SHARED_BAR_ROOM 0.25f   /* level column labels may reach this share of the gap into a
                                   neighbour that shows the bar */

/* The solver (and core/slide.h: VALUE_GOAL, the cell font it plans for first). */
#define FIT_STEPS       8       /* lowering a panel's cells until it fits its height: at most 8 tries */
#define FIT_LOWER       0.98f   /* each lowering at least this much */
#define SOLVE_STEPS     24      /* bisection of a row's cell size: at most 24 halvings */
#define SOLVE_PRECISION 0.05f   /* or until the interval is this narrow, in pixels */
#define ALIGN_PASSES    3       /* aligning a row's grids: at most 3 passes */
#define UNPRINTED_CELL  2.0f    /* cells of a panel without numbers while the numbers of the others are
                                   planned, in pixels: they take the rest of the width after */
#define TEXT_FIT_STEPS  8       /* the panels' height under the explanation: at most 8 halvings */
#define PLOT_ROW_MIN    0.6f    /* a row of plots and heatmaps is at least this share of its height */
#define PLOT_MIN_W      14      /* a plot narrower than this many tick font sizes does not fit */
#define PLOT_MIN_H      9       /* nor one lower than this many */
#define PLOT_CELL_ASPECT 1.6f   /* a plot scores as a cell of min(w / 1.6, h) / 8 */
#define PLOT_CELLS      8
#define ROW_PLOT_ROWS   8       /* in sharing height, a row of plots counts as 8 rows of cells, */
#define ROW_LABEL_ROWS  10      /* and every row has 10 more for its labels and title */
#define TWO_ROW_GAIN    1.2f    /* two rows win over one when cells come out this much bigger */
#define SPLIT_GAIN      1.03f   /* one split of two rows wins over the one tried before it when cells come out this much bigger */
#define MAX_SPLITS      8       /* places to split the panels into two rows, at most */
#define ONE_ROW_GROW    2.0f    /* a one-row heatmap's cells grow at most this much taller than its font needs */

/* The page. */
#define COLUMN_LIMIT    0.45f   /* the explanation's column (COLUMN_SHARE, slide.h) never takes over this share */
#define BESIDE_GAIN     1.25f   /* the column wins when cells come out a quarter bigger */
#define SHRINK_STEP     0.85f   /* a page that does not fit is laid out again this much smaller, */
#define SHRINK_LAST     0.4f    /* down to this share */
#define FOOT_MIN_H      360     /* a notes line only on canvases this tall */
#define COLUMN_GAP      1.5f    /* panels stop this many gaps before the explanation's column, */
#define COLUMN_RULE     0.75f   /* and a rule separates them this many gaps before it */
#define RULE_DROP       0.4f    /* the header's rule: this many label gaps (gs) under the title, */
#define RULE_AFTER      1.4f    /* and what follows it (the formula) this many under the title */
#define FORMULA_PAD     1.6f    /* the formula's strip: this many gs of room at either end */
#define FORMULA_AFTER   0.8f    /* and this many gaps below it */
#define META_SHRINK     0.8f    /* the header's small line shrinks to this share to say what the page holds */
#define LESSON_MIN_EMS  4       /* the lesson's title in the header only in room for 4 font sizes */

/* Memo keys. */
#define KEY_SUBPX       64      /* sizes and widths in memo keys are kept to 1/64 px */

/* Plots. */
#define PLOT_HEADROOM   0.08    /* the y axis ends this share of the half-range above the data */
#define PLOT_MAX_TICKS  7
#define PLOT_TICK_LINES 1.4f    /* y tick labels at least this many lines apart */
#define PLOT_LABEL_MAX  0.22f   /* x labels take at most this share of the panel's height */
#define LEGEND_MAX      0.3f    /* the legend takes at most this share of the panel's width */
#define LEGEND_SWATCH   2.2f    /* a legend swatch, in legend font sizes */
#define PLOT_AREA_MIN   20      /* no plot area smaller than 20 pixels a side */
#define MARKER_MIN      5       /* a marker's side: at least 5 pixels, */
#define MARKER_MAX      9       /* at most 9 canvas units, */
#define MARKER_ROW      0.4f    /* this share of a row's slot, */
#define MARKER_SLOT     0.8f    /* and this share of its series' part of the slot */

/* ------------------------------------------------------------ the plan */

/* Sizes in pixels for this canvas and text scale (layout.c: metrics). */
typedef struct Metrics {
    float u;                    /* canvas scale: 1 at 1280x800 */
    float margin, gap, gs, pad; /* page margin, between panels, between a label and what it names, in a cell */
    float title, meta, formula, body, ptitle, axis, label, value, tick, legend;   /* fonts */
    float note;                 /* the notes line's font: the header's (meta) on a page that did not shrink */
    float min_font, max_cell, bar_w;
    float body_min;             /* the explanation's least font (BODY_FLOOR): it shrinks no further, and is not cut */
    float label_min;            /* the least font of a grid's labels (LABEL_FLOOR) */
    float label_glance;         /* and of a heatmap's that prints no number on the page of every head side by
                                ** side (LABEL_GLANCE; label_min on other pages) */
    float legible;              /* LayoutOpts.legible_scale: every legible floor is multiplied by it */
    float read_min;             /* on a page shaped for a phone (legible above 1), the least font of the words
                                ** around the panels (the header's line, the formula, the notes line), which
                                ** wrap there rather than shrink below it or be cut; 0 elsewhere */
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
    bool even;                  /* an exact 0 or 1 printed with the decimals too (Panel.even_decimals) */
    float value_fs;             /* 0 = values hidden */
    float tick_w;               /* widest colour-bar tick label */
    float ext;                  /* colour bar reaches this far past a short grid */
    bool share_rows;            /* the panel at the left shows the same row labels */
    bool share_bar;             /* the panel at the right shows the same colour bar */
    bool row_axis;              /* the row axis title fits beside the grid */
} PanelPlan;

/* What planning needs to know of a panel's values, found in one pass
** (layout_cache.c): sizing tries many cell sizes, and scanning a 256x256
** matrix at each try used to be most of the layout's time. */
typedef struct PanelStats {
    double vmin, vmax;          /* finite range */
    bool any;                   /* at least one finite value */
    bool any_nonfinite;
    bool ints;                  /* every finite value is a whole number */
    double nx_min, nx_max;      /* range of the values other than exact 0 and 1 (printed with decimals) */
    bool any_nx;
} PanelStats;

/* The range a heatmap pn of v is coloured by (layout_heatplan.c), from the
** stats of v's panels (stats[k] of panel k): the range the panel was given,
** its own, or its scale group's. False when there is no finite value. */
bool lay_group_range(const View *v, const PanelStats *stats, const Panel *pn, double *lo, double *hi,
                     bool *nonfinite);

/* ----------------------------------------------------------- the memory */

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

/* The texts that can be the widest in a cell: the extremes have the most
** characters, among all values and among those printed with decimals (not
** 0 or 1), and "−∞" when a value is masked. Formatted once, measured at
** each size the planning tries. */
typedef struct CellTexts {
    char s[5][64];
    int n;
} CellTexts;

/*
** Planning's other repeated work, remembered for one layout_view in tables
** of keys (hashes of what was asked) with the layout each slot belongs to:
** open addressing (lay_memo_slot), where a slot of an earlier layout is
** free, so nothing is cleared between layouts and, within one, nothing is
** pushed out. Remembered:
**   - the widths of one axis's labels at one size (a run of the pool, each
**     measured the first time planning asks for it, -1 until then, indexed
**     by the label's position): planning tries many cell sizes but only a
**     few font sizes, and at each it reads a thinned axis's few drawn
**     labels or the labels up to the first that does not fit; with a table
**     each costs an array read instead of hashing the text, and no label
**     is measured twice at one size;
**   - the widest label a thinned axis draws, for each step and size;
**   (these two for every layout of one view with one measure, Page.label_gen:
**   a view's labels do not change while it lives, nor what a measure says;
**   the pool holds the tables of one label_gen, and when another starts it
**   over every table is forgotten, since a table of the earlier one would
**   point at widths written over: a window laid out at one size, then at
**   another (or a picture at the export's), then at the first again read
**   the second's widths for its labels)
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
    CellTexts texts[TMEMO], spare;          /* spare: when the table is full */
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

/* Matrices of one trace whose stats a cache keeps (layout_cache.c). */
#define LAYOUT_KEPT_STATS 128

/*
** What layout keeps from one call to the next (layout.h): the memos of one
** layout, keyed by its number, and per panel of the last view laid out its
** stats and the block colours of its image.
*/
/* The key of every head's panel-title font (head_title_cap in layout.c),
** and the font. */
typedef struct HeadCap {
    uint64_t serial;            /* the every-head view's (0: none kept) */
    int width, height;
    float text_scale;
    MeasureFn measure;
    void *measure_ctx;
    float title;
    float shrink;               /* the fonts' share that page was laid out at (page_fit) */
} HeadCap;

/*
** What decides a page, besides its outlines: the view, the canvas, the text
** scale, the measure, the theme, the colormap asked for, the panels drawn
** blank and the language of the program's own words (layout_keep.c).
*/
typedef struct PageKey {
    uint64_t serial;            /* the view's (never 0 for a kept page) */
    int width, height;
    float text_scale;
    MeasureFn measure;
    void *measure_ctx;
    Theme theme;
    char cmap[32];              /* "" for none */
    unsigned long long hidden;
    char lang[16];
} PageKey;

/*
** Where the outlines of each heatmap go in the page a layout drew: between
** commands at and end, from plan (layout_keep.c). Filled while a page is
** drawn; at is -1 for a panel that has none (not a heatmap).
*/
typedef struct Outlines {
    int at[VIEW_MAX_PANELS], end[VIEW_MAX_PANELS];
    PanelPlan plan[VIEW_MAX_PANELS];
    float u;                    /* the page's canvas scale (Metrics.u) */
} Outlines;

/*
** The last page laid out with the cache, without its outlines (hover,
** operands, focus), for the next frames of the same view: a frame that
** only moves the pointer copies it and draws the outlines into it. The
** copy is taken at the second layout with one key, so that a batch laying
** every view out once copies nothing.
*/
typedef struct KeptPage {
    PageKey key;
    int seen;                   /* layouts with this key: 1, keep the next; 2, list holds the page */
    DrawList *list;             /* the page without outlines (NULL until the first is kept) */
    Outlines at;                /* where the outlines go in list */
    float shrink;               /* the fonts' share it was laid out at (LayoutCache.shrink) */
} KeptPage;

struct LayoutCache {
    uint64_t layouts;           /* layouts run with it: the current one's number */
    LayoutFacts facts;          /* what the last page laid out found (layout_facts) */
    HeadCap head_cap;           /* the panel titles' font one head (H) keeps */
    float shrink;               /* the fonts' share of the last page laid out (page_try, or the kept one's) */
    Outlines drawn;             /* of the page being drawn */
    KeptPage page;
    MeasureCache measure;
    PlanMemo memo;
    uint64_t stats_serial;      /* the view stats_mat and stats belong to */
    const Mat *stats_mat[VIEW_MAX_PANELS];
    PanelStats stats[VIEW_MAX_PANELS];
    /* the stats of the trace's own matrices (not a view's parts), kept for
    ** the next views of the same trace: a step to another stage of a large
    ** lesson reads no value twice */
    uint64_t kept_trace;
    int nkept;
    struct { const Mat *m; PanelStats st; } kept[LAYOUT_KEPT_STATS];
    struct {
        ImageKey key;
        Color *px;              /* cap colours */
        size_t cap;
    } images[VIEW_MAX_PANELS];
};

/* Everything layout needs while it works. */
typedef struct Page {
    LayoutOpts o;
    const Theme *th;
    DrawList *d;
    Metrics m;
    LayoutCache *lc;
    MeasureCache *cache;
    PlanMemo *memo;
    uint64_t gen;               /* this layout's number, part of every memo key */
    uint64_t label_gen;         /* the key of the label widths (lw_*, wide_*): the view's and the
                                ** measure's, so that the layouts of one view (hover, resize) measure
                                ** its labels once; the layout's number for a view made by hand */
    const View *v;
    PanelStats stats[VIEW_MAX_PANELS];
    bool rows_as_prev[VIEW_MAX_PANELS];     /* heatmap k labels its rows as heatmap k − 1 does */
    bool foot;                  /* a line is kept at the bottom for notes */
    bool hidden_values;         /* some panel's numbers could not be printed */
    bool foot_hidden;           /* the notes line's room holds the sentence on numbers not printed (a phone's
                                ** notes line wraps: its height depends on it) */
    long printed;               /* numbers the page printed (of lay_printable) */
    bool draw_unfit;            /* draw the page also when its panels do not fit (false while
                                ** page_fit tries sizes it throws away if they do not) */
    bool prints[VIEW_MAX_PANELS];   /* heatmap k's numbers can be printed on this page (lay_plan_prints) */
    float min_w[VIEW_MAX_PANELS];   /* panel k is at least this wide: its title and axis title whole */
    float title_fs;             /* every panel title's font on this page (0: the metrics' own) */
    float title_cap;            /* the most that font may be (0: no limit): the page of every head's */
    float shrink_from;          /* the fonts' share page_fit starts from (0: 1): every head's page's */
    float cell_min;             /* the narrowest cells tried: CELL_MIN, or CELL_FLOOR */
    bool more_rows;             /* panels may go in three or four even rows (page_fit's last try) */
    float cell_ink;             /* a printed cell's height over its number's font: INK (room above
                                ** and below), or CELL_INK where that is what keeps numbers legible */
    bool fitted;                /* the last try found room for everything */
    bool probed;                /* a probe (LayoutOpts.probe) planned the page and drew nothing: */
    float probe_fs[VIEW_MAX_PANELS];    /* each panel's numbers' font, as planned */
    bool prose_cut;             /* the explanation drawn lacks lines (cut with "…") */
    float prose_fs;             /* the explanation's font as drawn (0: none) */
} Page;

/* One axis's labels at one size, and their widths (w NULL when the pool
** is full: then each is measured through lay_width). */
typedef struct LabelTable {
    const Page *p;
    char **labels;
    float size;
    float *w;
    float *inner;               /* the widest of labels 1 .. n-2 (PlanMemo.lw_inner) */
} LabelTable;

/* "−∞", as a masked cell prints it. */
#define MINUS_INF "\xe2\x88\x92\xe2\x88\x9e"

/* ---------------------------------------------------------- small helpers */

/* A font size in whole pixels (backends cache glyphs per size), at least 1. */
static inline float lay_px(float f)
{
    f = floorf(f);
    return f < 1 ? 1 : f;
}

/* One FNV-1a step over a 64-bit value. */
static inline uint64_t lay_mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ULL;
}

/* The slot of key h among n slots. */
static inline size_t lay_slot(uint64_t h, size_t n)
{
    return (size_t)(h >> 40) % n;
}

/* The gap between the cells of a grid of cw x ch cells: none when they are
** small, else CELL_GAP canvas units (at least a pixel). */
static inline float lay_cell_gap(const Page *p, float cw, float ch)
{
    return cw >= CELL_GAP_FROM && ch >= CELL_GAP_FROM ? fmaxf(1, CELL_GAP * p->m.u) : 0;
}

/*
** The slot of key h in a memo table of n slots (keys, and the layout each
** slot belongs to), for layout gen: where h is (*hit), else the first free
** slot among the MEMO_PROBES from h's place on, a slot of an earlier layout
** being free (slots are never freed within a layout, so h is not further
** on). n when those are all taken by other keys: the caller then works
** without the memo, and a full table never costs more than MEMO_PROBES
** reads. Inline, as the width lookups around it: planning asks millions
** of times a layout.
*/
#define MEMO_PROBES 16
static inline size_t lay_memo_slot(const uint64_t *keys, const uint64_t *gens, size_t n, uint64_t h, uint64_t gen,
                                   bool *hit)
{
    *hit = false;
    for (size_t i = lay_slot(h, n), tries = 0; tries < n && tries < MEMO_PROBES; i = i + 1 == n ? 0 : i + 1, tries++) {
        if (gens[i] != gen) return i;
        if (keys[i] == h) {
            *hit = true;
            return i;
        }
    }
    return n;
}

/* Set what command i of the page's list belongs to. */
static inline void lay_tag(Page *p, int i, int panel, int row, int col)
{
    p->d->cmds[i].panel = (int16_t)panel;
    p->d->cmds[i].row = (int16_t)row;
    p->d->cmds[i].col = (int16_t)col;
}

/* The width of s at a size and weight (the caller's measure, remembered;
** layout_text.c). */
float lay_width(const Page *p, const char *s, float size, int bold);

/* The width of label i of a table (a NULL label is empty): measured the
** first time it is asked at this size, then read from the table. */
static inline float lay_label_w(const LabelTable *t, int i)
{
    if (!t->labels[i]) return 0;
    if (!t->w) return lay_width(t->p, t->labels[i], t->size, 0);
    if (t->w[i] < 0) t->w[i] = t->p->o.measure(t->p->o.measure_ctx, t->labels[i], t->size, 0);
    return t->w[i];
}

/* ------------------------------------------------- layout_cache.c */

/* The stats of panel k of v, remembered in c for the view's next layout. */
PanelStats lay_view_stats(LayoutCache *c, const View *v, int k);
/* The block colours of image panel k kept in c under key: copied into px
** (n colours), true; false when c keeps none or others. */
bool lay_image_recall(const LayoutCache *c, int k, const ImageKey *key, Color *px, size_t n);
/* Keep the n block colours px of image panel k under key. */
void lay_image_keep(LayoutCache *c, int k, const ImageKey *key, const Color *px, size_t n);

/* ------------------------------------------------- layout_text.c */

/* Copy s into out (n bytes), cut with "…" to at most maxw pixels wide.
** Returns the width kept. */
float lay_fit(const Page *p, const char *s, float size, int bold, float maxw, char *out, size_t n);
/* Push a text run with its style bits (rot: turned to read upward);
** returns the command's index. */
int lay_text(Page *p, Rect r, const char *s, float size, Color c, HAlign ha, VAlign va, DrawRole role, int bold,
             int rot);
/* The width table of n labels at a size, for this layout. */
LabelTable lay_label_table(const Page *p, char **labels, int n, float size);
/* The widest of labels 0, step, 2*step, ... of n at a size. */
float lay_widest(const Page *p, char **labels, int n, int step, float size);
/* One paragraph wrapped to width w: its number of lines, their bytes in
** *out (free it). */
int lay_wrap(const Page *p, const char *s, float size, float w, TextLine **out);
/* How many lines a paragraph wraps to at a size and width (remembered). */
int lay_para_lines(const Page *p, const char *s, float size, float w);

/* ------------------------------------------------- layout_labels.c */

/* Row labels of n rows of size cell (labels NULL: none). */
AxisPlan lay_plan_rows(const Page *p, char **labels, int n, float cell, float fs_max, float cap, float least);
/* Column labels of n columns of size cell: level, level and cut, or
** upright, never under least; level ones may reach lo_room and hi_room
** past the grid; planned for the longest label to come (NULL: these). */
AxisPlan lay_plan_cols(const Page *p, char **labels, int n, float cell, float fs_max, float cap, float lo_room,
                       float hi_room, float least, const char *longest);
/* Draw the row labels planned by lay_plan_rows against the grid's left
** edge x1, n rows of size cell from y0, tagged as rows of panel k. */
void lay_draw_rows(Page *p, int k, char **labels, int n, const AxisPlan *a, float cell, float x1, float y0);
/* Draw the labels of a side planned by lay_plan_cols along n cells of size
** cell from x0, in the band above the grid's edge at y (below false) or
** under it; each tagged with its index as a column (role COL_LABEL) or a
** row (role ROW_LABEL) of panel k. */
void lay_draw_cols(Page *p, int k, char **labels, int n, const AxisPlan *a, float cell, float x0, float y,
                   bool below, DrawRole role);

/* ------------------------------------------------- layout_heatplan.c */

/* The stats of panel pn (computed by layout_view). */
const PanelStats *lay_stats_of(const Page *p, const Panel *pn);
/* The colour scale of a heatmap into pp (lo, hi and its value ranges). */
void lay_heat_scale(const Page *p, const Panel *pn, PanelPlan *pp);
/* The colormap a panel is drawn with. */
const Cmap *lay_cmap(const Page *p, const Panel *pn);
/* The smallest legible cell number on this canvas. */
float lay_value_floor(const Page *p);
/* The widest cell text of a panel at a size. */
float lay_widest_value(const Page *p, const PanelPlan *pp, int decimals, bool compact, float size);
/* Colour-bar ticks for a bar of height h. */
Ticks lay_bar_ticks(const Page *p, const PanelPlan *pp, float h);
/* The smallest cell that holds every number of panel pn at font f, whole,
** for pp's scale. */
void lay_value_cell(const Page *p, const Panel *pn, const PanelPlan *pp, float f, float *cw, float *ch);
/* Whether the numbers of v's heatmaps surely cannot print in W x H (a
** probe's quick no). */
bool lay_probe_hopeless(const Page *p, const View *v, float W, float H);
/* Fonts, label bands and the room around the grid of heatmap pn drawn with
** cells of cw x ch in a row where it has a share of the width and height H. */
void lay_plan_heat(const Page *p, const Panel *pn, PanelPlan *pp, float cw, float ch, float share, float H);

/* ------------------------------------------------- layout_plan.c */

/* The rows and columns a heatmap is planned with (Panel.full_rows). */
int lay_rows(const Panel *pn);
int lay_cols(const Panel *pn);
/* True when a panel can be drawn as a heatmap. */
bool lay_is_heat(const Panel *pn);
/* True when two panels label their rows alike. */
bool lay_same_rows(const Panel *a, const Panel *b);
/* How good an arrangement of panels is: whether everything found room,
** how many numbers it prints, the smallest font they got (0: none
** printed), and the geometric mean of its cells' heights (plots counted by
** their size). */
typedef struct PlanScore {
    bool fits;
    long printed;
    float font;
    float cells;
    float used_h;               /* the height the panels take */
} PlanScore;

/* The cell font the page's numbers are planned to reach first. */
float lay_value_goal(const Page *p);
/* Which heatmaps of v can print their numbers on this page: those that
** could alone in an area W x H (p->prints), and each panel's least width
** (p->min_w). */
void lay_plan_prints(Page *p, const View *v, float W, float H);
/* How many numbers the heatmaps lay_plan_prints found printable hold. */
long lay_printable(const Page *p, const View *v);
/* The best arrangement of v's panels in area into plans, in cells as tall
** as a line of text, or as their digits where that prints more or bigger. */
PlanScore lay_plan_best(Page *p, const View *v, Rect area, PanelPlan *plans);
/* True when arrangement a is better than b (gain: how much bigger a's cells
** must be when their fonts are alike). */
bool lay_score_better(PlanScore a, PlanScore b, float gain);

/* ------------------------------------------------- drawing */

/* Heatmap panel k from its plan (layout_heat.c). */
void lay_draw_heat(Page *p, const View *v, int k, const PanelPlan *pp);
/* Plot panel k in its box (layout_plot.c). */
void lay_draw_plot(Page *p, const View *v, int k, const PanelPlan *pp);
/* A panel's title at the top of box, shrunk then cut to its width (layout.c). */
void lay_panel_title(Page *p, const Panel *pn, int k, Rect box);
/* The outlines over heatmap panel k: the caller's marks, the explained
** cell, the focus frame (layout_heat.c). */
void lay_draw_outlines(Page *p, const View *v, int k, const PanelPlan *pp);

/* ------------------------------------------------- the kept page (layout_keep.c) */

/* A new page is being drawn: no outlines placed yet. */
void lay_outlines_reset(LayoutCache *c);
/* Draw v's page from the kept one when o asks for the same page; false
** when none is kept for it. */
bool lay_kept_draw(LayoutCache *c, const View *v, const LayoutOpts *o, DrawList *out);
/* After a layout of v into out: keep the page (at the second layout with
** this key) for the next frames. */
void lay_kept_store(LayoutCache *c, const View *v, const LayoutOpts *o, const DrawList *out);

#endif
