/*
** stage.h: what one stage of a lesson shows, as plain data.
**
** stage_view turns (Lesson, Trace, k, options) into a View: a title, the
** formula in plain Unicode, the explanation paragraphs, and panels. A panel
** is either a heatmap of one matrix from the trace (with row and column
** labels, axis titles, a colormap and how many decimals to print) or a line
** plot (each column of the matrix is a series over the rows, with an
** optional bound per row, drawn as a step line, such as ln(visible keys) for
** entropy). Matrices are borrowed from the Trace; labels and text are owned
** by the View.
**
** With several heads, every stage that shows scores, weights or outputs
** shows each head (panels titled "head h of H" that share one colour scale)
** or only the head the options or the stage's `head:` choose, and says so.
** Panels that are meant to be compared share a colour scale (scale_group).
**
** Stages that unfold in time (kv_cache: one token per sub-step; online_softmax:
** one block of keys per sub-step) have sub-steps: StageOpts.step picks one,
** View.nsteps says how many there are and View.step_name names it. So do
** stages with more panels than the projector slide prints legibly (every
** head's scores and weights, the inputs, weights and projections): they
** are split into pages, a head or a part at a time (stage_pages.c), where
** the layout says a page no longer prints its numbers at 14 px on a
** 1280x720 slide (StageOpts.pager: the caller hands core the layout's
** answer, stage_pager.c).
*/
#ifndef ATTNLAB_STAGE_H
#define ATTNLAB_STAGE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"

/* The panels one page of a slide shows at most (what the layout draws):
** the pager cuts every stage into pages of no more. A view of a whole
** stage (StageOpts.whole, --dump's) holds every panel, however many. */
#define VIEW_MAX_PANELS 40

typedef enum PanelKind { PANEL_HEATMAP, PANEL_PLOT } PanelKind;

/* Marks on a heatmap's cells (Panel.cell_marks, bits): a frame around the
** cell (one of its row's likeliest), a diamond at its corner (the word
** that really comes next). */
enum { PANEL_MARK_FRAME = 1, PANEL_MARK_DIAMOND = 2 };

typedef struct Panel {
    PanelKind kind;
    char *title;                /* "attention weights", "head 2 of 4" */
    char matrix[48];            /* the trace name of m: "weights", "head2.weights" */
    TraceRef ref;               /* the same, typed */
    const Mat *m;               /* borrowed from the Trace */
    char **row_labels;          /* m->rows labels (tokens, or d1, d2, ...) */
    char **col_labels;          /* m->cols labels */
    char *row_axis;             /* "queries", "tokens", "input dimensions" */
    char *col_axis;             /* "keys (attended to)", "dimensions" */
    char *cmap;                 /* colormap name: "viridis", "RdBu", ... */
    bool diverging;             /* signed values: colour centred on 0 */
    int decimals;               /* digits after the point for cell labels; -1 automatic */
    bool editable;              /* an input a student may change */
    bool probabilities;         /* rows are distributions: scale fixed to [0, 1] */
    int scale_group;            /* 0: own colour scale; else one scale for the group */
    bool scale_fixed;           /* coloured by [scale_lo, scale_hi] (the range a whole matrix and its
                                ** group have), not by its own values: a part the window zooms into */
    double scale_lo, scale_hi;
    int row_offset;             /* row r of m is row r + row_offset of the trace matrix */
    int col_offset;             /* column c of m is column c + col_offset of it */
    int full_rows, full_cols;   /* a part that grows from one sub-step to the next (a K/V cache) is
                                ** planned at this size and drawn as far as m goes (0: m's own), */
    char *full_title;           /* and as wide as this title, its title when full (NULL: none), */
    char *full_row_label;       /* with row labels as wide as this one, its widest when full (NULL: none), */
    char *full_col_label;       /* and column labels as long as this one (NULL: none) */
    Mat *owned;                 /* set when the view built m itself (freed with it) */
    int from;                   /* the setup m is read from, 1-based, when it is not the view's (a compare
                                ** stage's A and B); 0: the view's (stage_panel_setup) */
    bool difference;            /* m is B − A of the two panels before it (a compare stage), owned: whole,
                                ** not a part of a trace matrix (it keeps its name in --dump) */
    /* A panel planned alike on the sub-steps of its stage (each head's page,
    ** the parts of a split stage): the values of its own kind over every
    ** sub-step, which its digits and cells are planned for (span_lo …
    ** span_hi), and, in a scale group, those of its group over every
    ** sub-step, which it is coloured on (group_lo … group_hi). has_span
    ** false: its own values, and its view's panels for the group. */
    bool has_span;
    double span_lo, span_hi, group_lo, group_hi;
    uint64_t fit_key;           /* what a layout reads of it, as a key (on a page the pager asks about,
                                ** stage_pager.c: the layout's own memos use it); 0: none */
    bool head_picture;          /* of the panels a head adds, one that the stage's comparison page shows
                                ** for every head side by side (none marked: its weights, else its last) */
    bool must_print;            /* on a page the pager asks about: its numbers must print at the goal font,
                                ** whatever it could do alone (next_token's words, cut into pages to print) */
    bool with_previous;         /* shown on the page of the panel before it, never first on a page of its own
                                ** (a projection's bias, with its weight) */
    bool even_decimals;         /* every number with the same decimals, an exact 0 or 1 too ("0.00", not "0":
                                ** RoPE's angles), where other panels print those two as "0" and "1" */
    unsigned char *cell_marks;  /* m->rows x m->cols marks (PANEL_MARK_*, row by row) drawn on the cells, or NULL
                                ** (owned: next_token's likeliest words and the word that comes next) */
    int block_rows, block_cols; /* a grid of blocks (model_view: a head of a layer each), this many rows and
                                ** columns of the trace matrix a block (counted from its row 0 and column 0,
                                ** row_offset and col_offset away), drawn apart; 0: none */
    char **row_blocks;          /* nrow_blocks labels, one per block of rows ("Layer 3"), or NULL (a zoomed part:
                                ** its rows keep their own labels) */
    char **col_blocks;          /* ncol_blocks labels ("head 2"), or NULL */
    int nrow_blocks, ncol_blocks;
    /* plots */
    char *y_axis;               /* "entropy (nats)" */
    char **series;              /* m->cols series names */
    double *bounds;             /* m->rows values: a dashed step line (NULL: none) */
    char *bound_label;          /* "ln(visible keys): uniform" */
} Panel;

typedef struct View {
    uint64_t serial;            /* no other view has it (0: a view made by hand): what is computed
                                ** from its matrices, which do not change while it lives, can be kept */
    uint64_t trace_serial;      /* the serial of the trace its panels borrow from (0: by hand): what
                                ** is computed from those, not from a panel's own part, can be kept
                                ** from one view of the trace to the next */
    int stage;                  /* 0-based index in the lesson */
    int nstages;
    int setup;
    StageId id;
    int head;                   /* the head shown alone, or 0 for all heads */
    char *lesson_title;
    char *title;
    char *formula;              /* plain Unicode, e.g. "softmax(Q·Kᵀ ÷ √d_k)" */
    char *note;                 /* a line about the slide ("row 1 sees no key"), or NULL */
    int *blind_rows;            /* the queries (rows, 0-based) whose mask blocks every key: they attend to nothing,
                                ** their weights and outputs are 0 and their row labels start with STAGE_BLIND_MARK */
    int nblind;
    char **paras; int npara;
    Panel *panels;              /* npanels of them, in an array that grows as the builder adds: a
                                ** Panel pointer is good until the next panel is added */
    int npanels;
    int cap_panels;             /* room in panels */
    int step;                   /* the sub-step shown (0-based) */
    int nsteps;                 /* 1, or the sub-steps (kv_cache's tokens, a page per head, ...) */
    char *step_name;            /* "t3", "b2", "all", "final", "h2" (for file names), or NULL */
    char *step_label;           /* "head 2 of 4", "part 1 of 2" (in the header), or NULL */
    int token;                  /* kv_cache: the token the page decodes (0-based), or -1 (the comparison,
                                ** other stages) */
    int token_pages;            /* kv_cache: the sub-steps each token takes (the comparison's follow), else 0 */
    bool compare;               /* a page of panels to compare side by side on one colour scale rather than read
                                ** number by number: every head's picture (the first page of a stage whose heads
                                ** take several pages; clicking head h's panel goes to head_step[h]), or a
                                ** compare stage's A, B and B − A */
    int page_h0, page_h1;       /* the heads whose own panels the page shows (1-based, page_h0 … page_h1), or 0 */
    bool dense;                 /* a head's page of a stage whose heads would take more than STAGE_HEAD_PARTS
                                ** pages each at the goal font: its numbers print at the legible floor or more */
    int head_step[LESSON_MAX_HEADS + 1];    /* head_step[h]: the first sub-step showing head h's own panels
                                ** (every head, on a stage shown head by head in pages; on a K/V cache's
                                ** token page, that token's page of head h), else -1 */
    struct View *every_head;    /* one head chosen by the viewer (H) of a stage whose heads all fit one
                                ** page: that page, whose panel titles' font this view keeps, or NULL */
} View;

/* A head takes at most this many pages (a stage of H heads: the comparison,
** STAGE_HEAD_PARTS × H, and the joined heads): past it, the pages of its
** parts serve with numbers at the legible floor (View.dense). */
#define STAGE_HEAD_PARTS 3

/* What a query's row label starts with when its mask blocks every key (it
** attends to nothing): "∅ ", first, so that a label cut short keeps it. */
#define STAGE_BLIND_MARK "\xe2\x88\x85 "

/* The layout's answer to the pager: whether page, a View as it will be
** shown, prints every number it can at the goal font on the projector
** slide, with its explanation whole (src/view/layout_fit.c). */
typedef bool (*PageFitsFn)(void *ctx, const View *page);

/*
** StagePager: where the views built with it cut their stages into pages,
** and what it keeps from one view to the next (stage_pager.c). Its caller
** (the window, an export, a test) owns it and hands it the layout's answer
** (fits, with ctx), as it hands the layout a text measure; the views of one
** pager show the same pages. A view built without one (StageOpts.pager
** NULL) is cut only where its panels pass VIEW_MAX_PANELS.
*/
typedef struct StagePager StagePager;
/* A pager asking fits (NULL: as without a pager). */
StagePager *stage_pager_create(PageFitsFn fits, void *ctx);
/* Release it (NULL is fine). */
void stage_pager_free(StagePager *pg);

/* What the viewer chose on top of the lesson. */
typedef struct StageOpts {
    int head;                   /* 0: the stage's own `head:` (else all); h: show head h */
    int step;                   /* the sub-step (0-based; clamped to the stage's last) */
    bool whole;                 /* every head and part on one view, not cut into pages for the slide
                                ** (--dump's): step then counts the stage's steps in time only (a
                                ** K/V cache's tokens, an online softmax's blocks) */
    StagePager *pager;          /* where pages are cut (NULL: at VIEW_MAX_PANELS) */
} StageOpts;

/* What exporting the pictures of a lesson may draw, at most: the pages of
** its stages (every sub-step, head and part of one), and the shapes drawn
** on them (draw_shapes: rectangles, texts, lines, each block of a fine
** heatmap), so that a short lesson within every other limit still exports
** in seconds and within a few hundred MB (docs/lesson-format.md). */
#define EXPORT_MAX_PAGES  1024
#define EXPORT_MAX_SHAPES (INT64_C(1) << 22)
/* The most shapes one page draws: cells finer than a pixel are drawn in
** blocks 3 units on a side (one per 9 square units of the 1280x800 canvas,
** in proportion on others), and what is not a cell is a few hundred. */
#define STAGE_PAGE_MAX_SHAPES (1280 * 800 / 9 + 4096)

/* The view of stage k (0-based) of L, reading matrices from T, with the
** stage's own options. NULL if k is out of range. */
View *stage_view(const Lesson *L, const Trace *T, int k);
/* The same with the viewer's options (o may be NULL). */
View *stage_view_with(const Lesson *L, const Trace *T, int k, const StageOpts *o);
/* Release a view (not the matrices it borrows). */
void stage_view_free(View *v);
/* The pages stage k of L is shown on (and exports to), cut by pg: its
** sub-steps, heads and parts, 1 when it has none. */
int stage_pages(const Lesson *L, const Trace *T, int k, StagePager *pg);
/* At least as many shapes as the pages of stage k cut by pg draw
** (draw_shapes), from the views alone: each page's cells and labels, and
** some for its text, at most STAGE_PAGE_MAX_SHAPES a page. */
int64_t stage_shapes_bound(const Lesson *L, const Trace *T, int k, StagePager *pg);
/* The setup (0-based) panel p of v reads its matrix from: its own for a
** compare stage's A and B, else the view's. */
int stage_panel_setup(const View *v, const Panel *p);
/* The default title of a stage id ("Attention weights", ...). */
const char *stage_default_title(StageId id);
/* The panel of v showing ref (and, for a one-row panel, trace row r; -1 any),
** or -1. */
int stage_find_panel(const View *v, TraceRef ref, int heads, int r);
/* Zoom: keep only heatmap panel k of v, cut to rows [r0, r1) and columns
** [c0, c1) of its matrix (a part with its labels, its offsets saying where
** it sits), coloured by the range [lo, hi] its whole had. v gets a new
** serial (its matrices changed). False, v unchanged, when k is not a
** heatmap or the rows or columns are not within its matrix. */
bool stage_view_zoom(View *v, int k, int r0, int r1, int c0, int c1, double lo, double hi);

#endif
