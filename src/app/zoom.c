/*
** zoom.c: one heatmap of the stage shown alone and in part (zoom.h).
**
** The part is kept as its first row and column in the whole heatmap and a
** level: at level L it shows ceil(n / 2^L) of the n rows (and likewise
** columns), never fewer than ZOOM_MIN_CELLS (or n when n is smaller).
** Zooming about a cell keeps that cell where it was in the part, and so
** under the pointer: the fraction of the part before it stays the same.
** Dragging moves the first row and column by fractions of a cell, which
** add up; the view shows the part from the nearest whole cell.
*/
#include "zoom.h"
#include "core/text/i18n.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Cells shown of an axis of n at a level. */
static int part_size(int n, int level)
{
    int k = n;
    for (int i = 0; i < level && k > 1; i++) k = (k + 1) / 2;
    int least = n < ZOOM_MIN_CELLS ? n : ZOOM_MIN_CELLS;
    return k < least ? least : k;
}

/* The first cell of a part that starts at x (a fraction), within an axis
** of n cells showing m of them. */
static int first_cell(double x, int n, int m)
{
    int i = (int)floor(x + 0.5);
    if (i > n - m) i = n - m;
    return i < 0 ? 0 : i;
}

/* Whether a heatmap is zoomed into. */
bool app_zoomed(const AppState *a)
{
    return a->zoom.on;
}

/* The part's note: which rows and columns of how many, and how to leave. */
static void set_note(View *v, int r0, int nr, int c0, int nc, int rows, int cols)
{
    Buf b = { 0 };
    if (v->note) buf_printf(&b, "%s \xc2\xb7 ", v->note);
    /* TRANSLATORS: the part of a large heatmap the window shows, e.g. "rows 257–320 and columns 1–64 of 1024 × 1024" */
    buf_printf(&b, _("rows %d\xe2\x80\x93%d and columns %d\xe2\x80\x93%d of %d \xc3\x97 %d; Esc shows all of it"),
               r0 + 1, r0 + nr, c0 + 1, c0 + nc, rows, cols);
    free(v->note);
    v->note = buf_take(&b);
}

/* Cut the view to the part (see zoom.h). */
void app_zoom_view(AppState *a)
{
    AppZoom *z = &a->zoom;
    if (!z->on || !a->view || !a->doc) return;
    int heads = a->doc->T->s[a->view->setup].heads;
    int k = stage_find_panel(a->view, z->ref, heads, -1);
    if (k < 0 || a->view->panels[k].kind != PANEL_HEATMAP) {
        z->on = false;                  /* the stage no longer shows it */
        return;
    }
    const Panel *p = &a->view->panels[k];
    if (!z->have_range) {
        z->have_range = true;
        if (!layout_panel_range(a->layout, a->view, k, &z->lo, &z->hi)) {
            z->lo = 0;
            z->hi = 1;
        }
    }
    z->rows = p->m->rows;
    z->cols = p->m->cols;
    int nr = part_size(z->rows, z->level), nc = part_size(z->cols, z->level);
    /* Fractions stay within the matrix too, so that dragging past an edge
    ** and back starts moving at once. */
    z->row0 = fmin(fmax(z->row0, 0), z->rows - nr);
    z->col0 = fmin(fmax(z->col0, 0), z->cols - nc);
    z->r0 = first_cell(z->row0, z->rows, nr);
    z->c0 = first_cell(z->col0, z->cols, nc);
    int base_r = p->row_offset, base_c = p->col_offset;
    if (!stage_view_zoom(a->view, k, z->r0, z->r0 + nr, z->c0, z->c0 + nc, z->lo, z->hi)) {
        z->on = false;
        return;
    }
    set_note(a->view, base_r + z->r0, nr, base_c + z->c0, nc, z->rows, z->cols);
}

/* A cell of the view as a cell of a trace matrix, to be found again in the
** next view. */
typedef struct Spot {
    bool set;
    TraceRef ref;
    int row, col;           /* in the trace matrix */
} Spot;

/* The spot of cell (row, col) of panel k of the view. */
static Spot spot_of(const AppState *a, int k, int row, int col)
{
    Spot s = { false, { 0 }, -1, -1 };
    if (!a->view || k < 0 || k >= a->view->npanels || row < 0 || col < 0) return s;
    const Panel *p = &a->view->panels[k];
    s.set = true;
    s.ref = p->ref;
    s.row = row + p->row_offset;
    s.col = col + p->col_offset;
    return s;
}

/* Where a spot is in the current view: false when it is not shown. */
static bool find_spot(const AppState *a, const Spot *s, int *k, int *row, int *col)
{
    if (!s->set || !a->view) return false;
    int heads = a->doc->T->s[a->view->setup].heads;
    for (int i = 0; i < a->view->npanels; i++) {
        const Panel *p = &a->view->panels[i];
        if (!trace_ref_eq(p->ref, s->ref, heads) || p->kind != PANEL_HEATMAP) continue;
        int r = s->row - p->row_offset, c = s->col - p->col_offset;
        if (r < 0 || c < 0 || r >= p->m->rows || c >= p->m->cols) continue;
        *k = i;
        *row = r;
        *col = c;
        return true;
    }
    return false;
}

/* Rebuild the view after the zoom changed, keeping the pinned cell pinned
** where it is still shown. The hover is dropped (nothing is explained from
** cells of the old view): the window finds the cell under the pointer
** again when it draws. */
static void rebuild(AppState *a)
{
    Spot pin = a->pinned ? spot_of(a, a->pin_panel, a->pin_row, a->pin_col) : (Spot){ false, { 0 }, -1, -1 };
    a->hover_panel = a->hover_row = a->hover_col = -1;
    a->pinned = false;
    app_rebuild_view(a);
    int k, row, col;
    if (find_spot(a, &pin, &k, &row, &col)) app_click(a, k, row, col);
}

/* The view's largest heatmap (most cells), or -1. */
static int largest_heatmap(const View *v)
{
    int best = -1;
    double most = 0;
    for (int i = 0; v && i < v->npanels; i++) {
        const Panel *p = &v->panels[i];
        double n = (double)p->m->rows * p->m->cols;
        if (p->kind == PANEL_HEATMAP && n > most) {
            most = n;
            best = i;
        }
    }
    return best;
}

/* Zoom in or out about a cell (see zoom.h). */
void app_zoom(AppState *a, int panel, int row, int col, int dir)
{
    AppZoom *z = &a->zoom;
    if (!a->view || dir == 0 || (dir < 0 && !z->on)) return;
    if (a->predict != PREDICT_OFF) {
        app_toast(a, "%s", _("zoom is off while the class predicts (P ends it)"));
        return;
    }
    if (panel < 0 || panel >= a->view->npanels) {
        panel = z->on ? 0 : largest_heatmap(a->view);
        row = col = -1;
    }
    const Panel *p = panel >= 0 ? &a->view->panels[panel] : NULL;
    if (!p || p->kind != PANEL_HEATMAP) {
        if (!z->on) app_toast(a, "%s", _("nothing to zoom into on this stage"));
        return;
    }
    /* The part shown now, in cells of the whole: all of it when not zoomed. */
    int rows = z->on ? z->rows : p->m->rows, cols = z->on ? z->cols : p->m->cols;
    int r0 = z->on ? z->r0 : 0, c0 = z->on ? z->c0 : 0, level = z->on ? z->level : 0;
    int nr = part_size(rows, level), nc = part_size(cols, level);
    if (row < 0 || col < 0 || row >= p->m->rows || col >= p->m->cols) {
        row = p->m->rows / 2;                       /* no cell: the middle */
        col = p->m->cols / 2;
    }
    double at_r = r0 + row + 0.5, at_c = c0 + col + 0.5;          /* the cell's centre, in the whole */
    double fr = (at_r - r0) / nr, fc = (at_c - c0) / nc;           /* and where it is in the part */
    int next = level + dir;
    int nr2 = part_size(rows, next), nc2 = part_size(cols, next);
    if (dir > 0 && nr2 == nr && nc2 == nc) {
        app_toast(a, "%s", z->on ? _("zoomed in as far as it goes") : _("this heatmap is small enough to read whole"));
        return;
    }
    if (next <= 0) {
        app_zoom_reset(a);
        return;
    }
    if (!z->on) {
        z->on = true;
        z->ref = p->ref;
        z->have_range = false;
    }
    z->level = next;
    z->row0 = at_r - fr * nr2;
    z->col0 = at_c - fc * nc2;
    rebuild(a);
}

/* Move the part. */
void app_zoom_pan(AppState *a, double drows, double dcols)
{
    AppZoom *z = &a->zoom;
    if (!z->on || !(isfinite(drows) && isfinite(dcols))) return;
    int r0 = z->r0, c0 = z->c0;
    z->row0 += drows;
    z->col0 += dcols;
    int nr = part_size(z->rows, z->level), nc = part_size(z->cols, z->level);
    z->row0 = fmin(fmax(z->row0, 0), z->rows - nr);
    z->col0 = fmin(fmax(z->col0, 0), z->cols - nc);
    if (first_cell(z->row0, z->rows, nr) != r0 || first_cell(z->col0, z->cols, nc) != c0) rebuild(a);
}

/* The whole stage again. */
void app_zoom_reset(AppState *a)
{
    if (!a->zoom.on) return;
    a->zoom.on = false;
    rebuild(a);
}
