/*
** layout.h: a View laid out on a canvas as a DrawList.
**
** The page, top to bottom: the stage title and its position in the lesson,
** the formula, the panels side by side (wrapping to a second row when there
** are many), and the explanation paragraphs wrapped to the width. A heatmap
** panel has its title, column labels above, row labels at the left, axis
** titles, one cell per value with the value printed when it fits, and a
** colour bar with ticks. A plot panel has axes, ticks, a legend and an
** optional dashed bound. Sizes scale with the canvas and with text_scale.
**
**     LayoutCache *lc = layout_cache_create();      // one per window, batch or test
**     Theme th = layout_theme(false);
**     LayoutOpts o = layout_defaults(1280, 720, &th, measure, ctx);
**     layout_view(lc, view, &o, list);               // again at every frame
**     layout_cache_free(lc);
*/
#ifndef ATTNLAB_LAYOUT_H
#define ATTNLAB_LAYOUT_H

#include <stdbool.h>
#include "draw.h"
#include "core/stage/stage.h"

/* Panel k of a View is panel k of its DrawList: one limit for both. */
_Static_assert(VIEW_MAX_PANELS == DRAW_MAX_PANELS, "a View and a DrawList hold the same number of panels");

typedef struct Theme {
    bool dark;
    Color bg, fg, muted, panel_bg, frame, masked_bg, masked_fg, accent, highlight;
} Theme;

/* An outlined operand: a cell, a whole row (col -1) or column (row -1) of a panel. */
typedef struct LayoutMark {
    int panel, row, col;
} LayoutMark;

#define LAYOUT_MAX_MARKS 16

typedef struct LayoutOpts {
    int width, height;          /* canvas in pixels */
    float text_scale;           /* 1.0 normal; the app's +/- change it */
    float legible_scale;        /* 1.0 normal: the legible floors (numbers, labels) scaled with the text for a
                                ** screen read at arm's length (the browser's phone layout) */
    const Theme *theme;
    MeasureFn measure;
    void *measure_ctx;
    const char *cmap;           /* override every panel's colormap, or NULL */
    int focus_panel;            /* -1, or a panel to frame */
    int hover_panel, hover_row, hover_col;   /* the cell explained; -1 when none */
    LayoutMark marks[LAYOUT_MAX_MARKS];      /* its operands, outlined */
    int nmarks;
    unsigned long long hidden; /* predict mode: panels (bit k) drawn blank */
    bool probe;                 /* the pager's question (layout_fit.c): one try at the full fonts, and
                                ** when it does not fit, nothing drawn (layout_facts says so) */
    bool keep_first;            /* keep the page from the first layout of a view: the caller
                                   lays it out again at once (the window, for the cell the
                                   pointer rests on); else from the second (see below) */
} LayoutOpts;

/*
** LayoutCache: what layout keeps from one call to the next, owned by its
** caller. Two kinds of memory:
**   - answers found while one layout works (text widths, label widths,
**     cell texts, tick labels, paragraph line counts), keyed by the
**     layout's number in this cache: a new layout never reads an old
**     answer, so a text measure or options that change between layouts
**     need nothing;
**   - for each panel of the last view laid out, its value range and the
**     block colours of a heatmap drawn as an image, keyed by View.serial
**     and the panel's matrix address (the colours also by block size,
**     colour scale, colormap and masked colour);
**   - the last page laid out, without the outlines of the hovered cell,
**     its operands and the focus, keyed by View.serial and every option
**     but those: the next layout of the same view that differs only in
**     its outlines copies it and draws them (a hover frame). The page is
**     kept (copied) at the second layout with one key, so that a batch of
**     pictures, each laid out once, copies nothing; at the first when the
**     options say keep_first.
** The second kind is valid while a view's values stay as they were when it
** got its serial: stage_view gives every view a new serial, so a view whose
** values change must be made again (or laid out with a fresh cache). A view
** made by hand (serial 0) is read afresh at every layout. A cache serves one
** layout at a time; layouts that run at once need a cache each.
** Whatever a cache keeps, a layout with it is the one a fresh cache gives,
** whichever views, canvases and options it laid out before.
*/
typedef struct LayoutCache LayoutCache;

/* A new, empty cache (about 0.6 MB). */
LayoutCache *layout_cache_create(void);
/* Release it (NULL is fine). */
void layout_cache_free(LayoutCache *c);
/* Forget the page kept for the next frames (layout_view then plans it
** again: the benchmark times planning this way). */
void layout_cache_forget_page(LayoutCache *c);

/* The range of values heatmap panel k of v is coloured by, before the
** scale is made symmetric (diverging) or fixed to [0, 1] (probabilities):
** its finite values', its scale group's, or the range it was given. The
** window's zoom gives a part of a matrix its whole's range. Reads the
** values through c's stats (layout.h's second kind of memory). False when
** k is not a heatmap or holds no finite value. */
bool layout_panel_range(LayoutCache *c, const View *v, int k, double *lo, double *hi);

/* The light or dark theme. */
Theme layout_theme(bool dark);
/* Options with defaults: no hover, scale 1, no override. */
LayoutOpts layout_defaults(int width, int height, const Theme *theme,
                           MeasureFn measure, void *ctx);
/* Lay out v into out (cleared first), with and into the cache c. */
void layout_view(LayoutCache *c, const View *v, const LayoutOpts *o, DrawList *out);

/* What a page laid out found, for those who ask whether it serves (the
** stage pager: layout_fits_slide). */
typedef struct LayoutFacts {
    bool fitted;                /* room for everything (else drawn overlapping, the last resort) */
    float shrink;               /* the share of their full size its fonts were laid out at (1: full) */
    long printed, printable;    /* the numbers it printed, of those its panels can print */
    float value_min;            /* the smallest cell number printed (0: none) */
    float value_fs[VIEW_MAX_PANELS];    /* each panel's numbers' font (0: none printed) */
    float value_goal;           /* the font the numbers are planned to reach first */
    bool prose_cut;             /* the explanation lacks lines ("…") */
    float prose_fs, prose_full; /* the explanation's font as drawn (0: none), and its full size */
    float prose_floor;          /* the least it may be (BODY_FLOOR on this canvas) */
} LayoutFacts;
/* What the last page layout_view laid out with c found (kept pages: the
** page they copy). */
LayoutFacts layout_facts(const LayoutCache *c);

/* LayoutFitter: the layout's answer to the stage pager (layout_fit.c):
** whether a page serves on the projector slide, measured with a text
** measure; it lays pages out in a cache of its own. */
typedef struct LayoutFitter LayoutFitter;
/* A fitter measuring text with measure and ctx (NULL: the fixed measure). */
LayoutFitter *layout_fitter_create(MeasureFn measure, void *ctx);
/* Judge pages on a taller canvas (aspect: height / width) with text scaled
** up: the browser's phone layout. The projector slide otherwise. */
void layout_fitter_shape(LayoutFitter *f, float aspect, float text_scale);
/* Release it (NULL is fine). */
void layout_fitter_free(LayoutFitter *f);
/* A PageFitsFn (core/stage.h): whether page prints every number it can at
** the goal font (or at what a panel prints alone, when less) on the
** projector slide, at its full fonts, with its explanation whole and at
** least at its floor (BODY_FLOOR: 14 px); fitter
** is a LayoutFitter. */
bool layout_fitter_fits(void *fitter, const View *page);
/* A fixed-width measure (0.55·size per character) for tests and fallbacks. */
float layout_measure_fixed(void *ctx, const char *text, float size, int bold);

#endif
