/*
** cells.c: the cell cursor (cells.h), kept as the pinned cell.
*/
#include "cells.h"
#include "predict.h"
#include "core/text/i18n.h"

#include <assert.h>

/* Whether panel p of the view is a heatmap the cursor may stand on: one
** with cells, shown, or hidden by predict mode and taking guesses (its
** cells are then guessed, not explained). */
static bool usable(const AppState *a, int p)
{
    if (!a->view || p < 0 || p >= a->view->npanels) return false;
    const Panel *pn = &a->view->panels[p];
    bool hidden = p < 64 && (a->hidden >> p & 1);
    return pn->kind == PANEL_HEATMAP && pn->m && pn->m->rows > 0 && pn->m->cols > 0
        && (!hidden || (a->predict == PREDICT_GUESSING && app_guess_panel(a, p)));
}

/* Pin cell (row, col) of panel p, clamped to it, and explain it. */
static void stand(AppState *a, int p, int row, int col)
{
    assert(usable(a, p));
    const Mat *m = a->view->panels[p].m;
    row = row < 0 ? 0 : row >= m->rows ? m->rows - 1 : row;
    col = col < 0 ? 0 : col >= m->cols ? m->cols - 1 : col;
    a->cells = true;
    a->pinned = true;
    a->pin_panel = p;
    a->pin_row = row;
    a->pin_col = col;
    app_update_marks(a);
}

/* Whether the cursor is on: started, and its cell still pinned on a heatmap. */
bool app_cells_on(const AppState *a)
{
    return a->cells && a->pinned && usable(a, a->pin_panel);
}

/* Start the cursor. */
void app_cells_start(AppState *a)
{
    if (!a->view) return;
    for (int p = 0; p < a->view->npanels; p++)
        if (usable(a, p)) {
            stand(a, p, 0, 0);
            app_toast(a, "%s", _("step through the cells by keyboard: arrows, Tab, + and \xe2\x88\x92, Esc leaves"));
            return;
        }
    app_toast(a, "%s", _("this stage has no cells to step through"));
}

/* Move the cursor within its panel. */
void app_cells_move(AppState *a, int rows, int cols)
{
    if (app_cells_on(a)) stand(a, a->pin_panel, a->pin_row + rows, a->pin_col + cols);
}

/* The cursor to another heatmap. */
void app_cells_panel(AppState *a, int dir)
{
    if (!app_cells_on(a)) return;
    int n = a->view->npanels, p = a->pin_panel;
    for (int i = 1; i <= n; i++) {
        int q = ((p + dir * i) % n + n) % n;
        if (usable(a, q)) {
            stand(a, q, a->pin_row, a->pin_col);
            return;
        }
    }
}

/* Enter or Space on the cursor. */
void app_cells_press(AppState *a)
{
    if (!app_cells_on(a) || a->predict == PREDICT_OFF) return;
    int p = a->pin_panel, r = a->pin_row, c = a->pin_col;
    app_predict_click(a, p, r, c);
    if (usable(a, p)) stand(a, p, r, c);       /* the cursor stays where the guess went */
}

/* Leave the cursor. */
void app_cells_stop(AppState *a)
{
    a->cells = false;
    a->pinned = false;
    app_update_marks(a);
}
