/*
** stage.h: what one stage of a lesson shows, as plain data.
**
** stage_view turns (Lesson, Trace, k) into a View: a title, the formula in
** plain Unicode, the explanation paragraphs, and panels. A panel is either a
** heatmap of one matrix from the trace (with row and column labels, axis
** titles, a colormap and how many decimals to print) or a line plot (each
** column of the matrix is a series over the rows, with an optional
** horizontal bound such as ln(n) for entropy). Matrices are borrowed from the
** Trace; labels and text are owned by the View.
*/
#ifndef ATTNLAB_STAGE_H
#define ATTNLAB_STAGE_H

#include <stdbool.h>
#include "lesson.h"
#include "trace.h"

#define VIEW_MAX_PANELS 24

typedef enum PanelKind { PANEL_HEATMAP, PANEL_PLOT } PanelKind;

typedef struct Panel {
    PanelKind kind;
    char *title;                /* "Attention weights", "Head 2" */
    char matrix[48];            /* the trace name of m: "weights", "head2.weights" */
    const Mat *m;               /* borrowed from the Trace */
    char **row_labels;          /* m->rows labels (tokens, or d1, d2, ...) */
    char **col_labels;          /* m->cols labels */
    char *row_axis;             /* "queries", "tokens", "input dimensions" */
    char *col_axis;             /* "keys (attended to)", "dimensions" */
    char *cmap;                 /* colormap name: "viridis", "RdBu", ... */
    bool diverging;             /* signed values: colour centred on 0 */
    int decimals;               /* digits after the point for cell labels */
    bool editable;              /* an input a student may change */
    bool probabilities;         /* rows are distributions: scale fixed to [0, 1] */
    int row_offset;             /* row r of m is row r + row_offset of the trace matrix */
    Mat *owned;                 /* set when the view built m itself (freed with it) */
    /* plots */
    char *y_axis;               /* "entropy (nats)" */
    char **series;              /* m->cols series names */
    double bound;               /* a dashed horizontal line; NaN for none */
    char *bound_label;          /* "ln 8 = 2.08 (uniform)" */
} Panel;

typedef struct View {
    int stage;                  /* 0-based index in the lesson */
    int nstages;
    int setup;
    StageId id;
    char *lesson_title;
    char *title;
    char *formula;              /* plain Unicode, e.g. "softmax(Q·Kᵀ / √d_k)" */
    char **paras; int npara;
    Panel panels[VIEW_MAX_PANELS];
    int npanels;
} View;

/* The view of stage k (0-based) of L, reading matrices from T. NULL if k is
** out of range. */
View *stage_view(const Lesson *L, const Trace *T, int k);
/* Release a view (not the matrices it borrows). */
void stage_view_free(View *v);
/* The default title of a stage id ("Attention weights", ...). */
const char *stage_default_title(StageId id);

#endif
