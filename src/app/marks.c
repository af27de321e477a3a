/*
** marks.c: the focused cell's explanation and outlines, and the edited
** cells, for a frame to draw (see marks.h).
*/
#include "marks.h"
#include "core/lesson/lessonsave.h"
#include "core/util.h"

#include <stdio.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Forget the explanation. */
void marks_hover_clear(MarksHover *h)
{
    if (h->on) explain_free(&h->ex);
    memset(h, 0, sizeof *h);
}

/* Where one operand of setup s shows on the view: a mark per panel showing
** its matrix (a one-row panel only when it holds the operand's row). */
static int op_marks(const Doc *d, const View *v, int s, const ExplainOp *op, LayoutMark *out, int max)
{
    int n = 0, heads = d->T->s[s].heads;
    for (int i = 0; i < v->npanels && n < max; i++) {
        const Panel *pn = &v->panels[i];
        if (pn->difference || stage_panel_setup(v, pn) != s || !trace_ref_eq(pn->ref, op->ref, heads)) continue;
        int r = op->row, c = op->col;
        if (pn->owned && pn->kind == PANEL_HEATMAP) {               /* a part of the matrix */
            if (r >= 0 && (r < pn->row_offset || r >= pn->row_offset + pn->m->rows)) continue;
            if (c >= 0 && (c < pn->col_offset || c >= pn->col_offset + pn->m->cols)) continue;
            r = r >= 0 ? r - pn->row_offset : -1;
            c = c >= 0 ? c - pn->col_offset : -1;
        }
        if (pn->kind == PANEL_PLOT && c >= 0) {
            c -= pn->col_offset;
            if (c < 0 || c >= pn->m->cols) continue;
        }
        out[n++] = (LayoutMark){ i, r, c };
    }
    return n;
}

/* An edited input explains itself: what it was and what it is, not where
** the file had it. */
static void explain_edit(Explain *ex, const Panel *pn, int row, int col, double was, double now)
{
    char before[48], after[48];
    util_fmt_shortest(before, sizeof before, was);
    util_fmt_shortest(after, sizeof after, now);
    Buf b = { 0 };
    buf_printf(&b, "%s[%d][%d] = %s\nedited: was %s, now %s\nCtrl+Z takes the edit back, R returns to the file",
               pn->ref.name, row + 1, col + 1, after, before, after);
    free(ex->text);
    ex->text = buf_take(&b);
}

/* A compare stage's difference (panel k, after A's and B's): B − A at the
** cell, with the two cells it subtracts outlined (nothing when the view
** holds the difference alone, zoomed in). */
static void explain_difference(MarksHover *h, const View *v, int k, int row, int col)
{
    if (k < 2) return;                  /* zoomed in: the difference alone, its number on the cell */
    const Panel *pa = &v->panels[k - 2], *pb = &v->panels[k - 1];
    if (row >= pa->m->rows || col >= pa->m->cols || row >= pb->m->rows || col >= pb->m->cols) return;
    char a[32], b[32], dv[32];
    util_fmt_shortest(a, sizeof a, mat_get(pa->m, row, col));
    util_fmt_shortest(b, sizeof b, mat_get(pb->m, row, col));
    util_fmt_shortest(dv, sizeof dv, mat_get(v->panels[k].m, row, col));
    Buf t = { 0 };
    buf_printf(&t, "B \xe2\x88\x92 A = %s \xe2\x88\x92 %s = %s", b, a, dv);
    h->ex.text = buf_take(&t);
    h->on = true;
    h->marks[h->nmarks++] = (LayoutMark){ k - 2, row, col };
    h->marks[h->nmarks++] = (LayoutMark){ k - 1, row, col };
}

/* Explain the focused cell and place its operands. */
void marks_hover(MarksHover *h, const Doc *d, const View *v, int panel, int row, int col, unsigned long long hidden)
{
    marks_hover_clear(h);
    if (!d || !v || panel < 0 || panel >= v->npanels) return;
    if (panel < 64 && (hidden >> panel) & 1) return;              /* no spoilers */
    const Panel *pn = &v->panels[panel];
    if (pn->difference) {
        explain_difference(h, v, panel, row, col);
        return;
    }
    int r = row + pn->row_offset, c = col + pn->col_offset, s = stage_panel_setup(v, pn);
    if (!explain_at(d->L, d->T, s, pn->ref, r, c, &h->ex)) return;
    double was;
    if (pn->ref.kind == TK_INPUT && doc_edit_origin(d, s, pn->ref.name, r, c, &was))
        explain_edit(&h->ex, pn, r, c, was, mat_get(pn->m, row, col));
    h->on = true;
    for (int k = 0; k < h->ex.nops && h->nmarks < LAYOUT_MAX_MARKS; k++)
        h->nmarks += op_marks(d, v, s, &h->ex.ops[k], h->marks + h->nmarks, LAYOUT_MAX_MARKS - h->nmarks);
}

/* Order of cells: panel, row, column. */
static int cell_cmp(const void *pa, const void *pb)
{
    const LayoutMark *a = pa, *b = pb;
    if (a->panel != b->panel) return a->panel < b->panel ? -1 : 1;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    return a->col < b->col ? -1 : a->col > b->col;
}

/* Add a cell to the list. */
static void add_cell(MarksEdited *e, int panel, int row, int col)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 16;
        e->cells = xrealloc(e->cells, sizeof *e->cells * (size_t)e->cap);
    }
    e->cells[e->n++] = (LayoutMark){ panel, row, col };
}

/*
** The edited cells of a view: for every edit in effect (applied, and not
** taken back by a reset above it: doc_edits_from), each panel that
** shows its matrix in the view's setup, or in one reading the same place of
** the text, gets the cell (row counted from the panel's first row, as the
** frame's cells are). Sorted and without repeats, for marks_is_edited.
*/
void marks_edited(MarksEdited *e, const Doc *d, const View *v)
{
    e->n = 0;
    if (!d || !v || d->nedits == 0) return;
    for (int k = doc_edits_from(d); k < d->nedits; k++) {
        const DocEdit *ed = &d->edits[k];
        assert(!ed->reset);
        for (int i = 0; i < v->npanels; i++) {
            const Panel *pn = &v->panels[i];
            if (strcmp(pn->matrix, ed->matrix)) continue;
            int r = ed->row - pn->row_offset, c = ed->col - pn->col_offset;    /* a zoomed part is offset */
            if (r < 0 || r >= pn->m->rows || c < 0 || c >= pn->m->cols) continue;
            if (ed->setup != v->setup && !lsave_shared(d->L, ed->setup, v->setup, ed->matrix, ed->row, ed->col)) continue;
            add_cell(e, i, r, c);
        }
    }
    if (e->n == 0) return;
    qsort(e->cells, (size_t)e->n, sizeof *e->cells, cell_cmp);
    int n = 0;
    for (int i = 0; i < e->n; i++)
        if (n == 0 || cell_cmp(&e->cells[n - 1], &e->cells[i]) != 0) e->cells[n++] = e->cells[i];
    e->n = n;
}

/* A binary search of the sorted list. */
bool marks_is_edited(const MarksEdited *e, int panel, int row, int col)
{
    LayoutMark key = { panel, row, col };
    return e->n > 0 && bsearch(&key, e->cells, (size_t)e->n, sizeof *e->cells, cell_cmp) != NULL;
}

/* Release the list. */
void marks_edited_free(MarksEdited *e)
{
    free(e->cells);
    memset(e, 0, sizeof *e);
}
