/*
** layout_heat.c: a planned heatmap panel drawn: its title and labels, one
** cell per value coloured on the panel's scale with its value in a colour
** that reads on it (or blocks of sub-pixel cells, or one image command for
** a huge grid), masked cells in the theme's grey with "−∞", the marks a
** builder put on cells (a frame, a diamond at the corner), the colour bar
** with its ticks, and the outlines of the hovered cell and its operands.
*/
#include "layout_int.h"
#include "core/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The rectangle of cell (r, c) of a planned panel, inset by the cell gap. */
static Rect cell_rect(const Page *p, const PanelPlan *pp, int r, int c)
{
    float g = lay_cell_gap(p, pp->cw, pp->ch);
    float x = pp->box.x + pp->left_w + c * pp->cw, y = pp->box.y + pp->top_h + r * pp->ch;
    return (Rect){ x + g / 2, y + g / 2, pp->cw - g, pp->ch - g };
}

/* A rectangle grown by d on every side. */
static Rect grow(Rect r, float d)
{
    return (Rect){ r.x - d, r.y - d, r.w + 2 * d, r.h + 2 * d };
}

/* Row labels at the left of the grid, column labels above it, and the
** axis titles: the column axis over the labels, the row axis turned
** upright at the left. */
static void draw_heat_labels(Page *p, const Panel *pn, int k, const PanelPlan *pp)
{
    char buf[256];
    const Metrics *m = &p->m;
    float gx = pp->box.x + pp->left_w, gy = pp->box.y + pp->top_h;
    int rows = pn->m->rows, cols = pn->m->cols, from = p->d->n;
    int br = pn->row_blocks ? pn->block_rows : 1, bc = pn->col_blocks ? pn->block_cols : 1;
    if (pp->rows.fs > 0)
        lay_draw_rows(p, k, pn->row_blocks ? pn->row_blocks : pn->row_labels, pn->row_blocks ? pn->nrow_blocks : rows,
                      &pp->rows, pp->ch * br, gx, gy);
    if (pp->cols.fs > 0)
        lay_draw_cols(p, k, pn->col_blocks ? pn->col_blocks : pn->col_labels, pn->col_blocks ? pn->ncol_blocks : cols,
                      &pp->cols, pp->cw * bc, gx, gy, false, ROLE_COL_LABEL);
    if (pn->row_blocks || pn->col_blocks)       /* a block's label names no one row or column */
        for (int i = from; i < p->d->n; i++) lay_tag(p, i, k, -1, -1);
    if (pn->col_axis && pn->col_axis[0]) {
        float cx = gx + lay_cols(pn) * pp->cw / 2;     /* over the whole grid, also where it has yet to grow */
        float half = fminf(cx - pp->box.x, gx + lay_cols(pn) * pp->cw + BAR_TEXT_GAP * m->gs - cx);  /* left of the ticks */
        float y = gy - (pp->cols.band > 0 ? pp->cols.band + m->gs : 0) - LH * m->axis;
        lay_fit(p, pn->col_axis, m->axis, 0, 2 * half, buf, sizeof buf);
        lay_tag(p, lay_text(p, (Rect){ cx - half, y, 2 * half, LH * m->axis }, buf, m->axis, p->th->muted,
                            ALIGN_CENTER, VALIGN_MIDDLE, ROLE_AXIS_TITLE, 0, 0), k, -1, -1);
    }
    if (pp->row_axis) {
        float gh = lay_rows(pn) * pp->ch;
        Rect b = { pp->box.x, gy, LH * m->axis, gh };
        lay_tag(p, lay_text(p, b, pn->row_axis, m->axis, p->th->muted, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_AXIS_TITLE,
                            0, 1), k, -1, -1);
    }
}

/* The vertical colour bar at the right of the grid, with its ticks. */
static void draw_colorbar(Page *p, const Panel *pn, int k, const PanelPlan *pp, const Cmap *cm)
{
    char buf[64];
    const Metrics *m = &p->m;
    float gx = pp->box.x + pp->left_w + lay_cols(pn) * pp->cw;
    float gy = pp->box.y + pp->top_h, gh = lay_rows(pn) * pp->ch;
    Rect bar = { gx + BAR_GAP * m->gs, gy - pp->ext, m->bar_w, gh + 2 * pp->ext };
    for (int i = 0; i < BAR_STEPS; i++) {
        float y0 = bar.y + bar.h * (BAR_STEPS - 1 - i) / BAR_STEPS;
        float y1 = bar.y + bar.h * (BAR_STEPS - i) / BAR_STEPS;
        if (i < BAR_STEPS - 1) y0 -= 0.5f;     /* overlap: no seams when antialiased */
        Color c = cmap_at(cm, (i + 0.5) / BAR_STEPS);
        lay_tag(p, draw_rect(p->d, (Rect){ bar.x, y0, bar.w, y1 - y0 }, c, ROLE_COLORBAR), k, -1, -1);
    }
    lay_tag(p, draw_frame(p->d, bar, p->th->frame, 1, ROLE_DECOR), k, -1, -1);
    Ticks t = lay_bar_ticks(p, pp, bar.h);
    float lh = LH * m->tick, last = INFINITY;
    for (int i = 0; i < t.n; i++) {
        float y = bar.y + bar.h * (float)(1 - scale_frac(t.v[i], pp->lo, pp->hi));
        if (fabsf(last - y) < lh) continue;        /* never crowd two labels */
        last = y;
        lay_tag(p, draw_line(p->d, bar.x + bar.w, y, bar.x + bar.w + BAR_TICK_LEN * m->gs, y, p->th->muted,
                             fmaxf(1, p->m.u), ROLE_DECOR), k, -1, -1);
        scale_tick_text(buf, sizeof buf, &t, i);
        char cut[64];
        lay_fit(p, buf, m->tick, 0, pp->tick_w, cut, sizeof cut);
        Rect b = { bar.x + bar.w + BAR_TEXT_GAP * m->gs, y - lh / 2, pp->tick_w, lh };
        lay_tag(p, lay_text(p, b, cut, m->tick, p->th->muted, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_TICK_LABEL, 0, 0),
                k, -1, -1);
    }
}

/* The first boundary of blocks of size b after the start of a part
** offset cells into the whole (b when the part starts a block). */
static int first_boundary(int b, int offset)
{
    int r = (b - offset % b) % b;
    return r ? r : b;
}

/* The blocks of a grid of blocks (model_view's heads of layers) set apart
** by lines of the background between them, where the whole's blocks meet
** (a zoomed part too). */
static void draw_block_gaps(Page *p, const Panel *pn, int k, const PanelPlan *pp)
{
    int br = pn->block_rows, bc = pn->block_cols;
    float gx = pp->box.x + pp->left_w, gy = pp->box.y + pp->top_h, w = fmaxf(3, 6 * p->m.u);
    float gw = pn->m->cols * pp->cw, gh = pn->m->rows * pp->ch;
    for (int r = br > 0 ? first_boundary(br, pn->row_offset) : 0; br > 0 && r < pn->m->rows; r += br)
        lay_tag(p, draw_line(p->d, gx, gy + r * pp->ch, gx + gw, gy + r * pp->ch, p->th->bg, w, ROLE_DECOR), k, -1, -1);
    for (int c = bc > 0 ? first_boundary(bc, pn->col_offset) : 0; bc > 0 && c < pn->m->cols; c += bc)
        lay_tag(p, draw_line(p->d, gx + c * pp->cw, gy, gx + c * pp->cw, gy + gh, p->th->bg, w, ROLE_DECOR), k, -1, -1);
}

/*
** Outlines on panel k: each mark the caller gave (the operands of the
** explained cell: a cell, a row or a column), the explained cell itself
** drawn heavier, and the focus frame.
*/
void lay_draw_outlines(Page *p, const View *v, int k, const PanelPlan *pp)
{
    const Mat *m = v->panels[k].m;
    float u = p->m.u, gx = pp->box.x + pp->left_w, gy = pp->box.y + pp->top_h;
    for (int i = 0; i < p->o.nmarks && i < LAYOUT_MAX_MARKS; i++) {
        const LayoutMark *mk = &p->o.marks[i];
        if (mk->panel != k || mk->row >= m->rows || mk->col >= m->cols || (mk->row < 0 && mk->col < 0)) continue;
        Rect b = mk->row < 0 ? (Rect){ gx + mk->col * pp->cw, gy, pp->cw, m->rows * pp->ch }
               : mk->col < 0 ? (Rect){ gx, gy + mk->row * pp->ch, m->cols * pp->cw, pp->ch }
                             : (Rect){ gx + mk->col * pp->cw, gy + mk->row * pp->ch, pp->cw, pp->ch };
        lay_tag(p, draw_frame(p->d, grow(b, 1.5f * u), p->th->highlight, fmaxf(2, 2.5f * u), ROLE_DECOR),
            k, mk->row, mk->col);
    }
    int r = p->o.hover_row, c = p->o.hover_col;
    if (p->o.hover_panel == k && r >= 0 && c >= 0 && r < m->rows && c < m->cols) {
        Rect b = { gx + c * pp->cw, gy + r * pp->ch, pp->cw, pp->ch };
        lay_tag(p, draw_frame(p->d, grow(b, 2 * u), p->th->highlight, fmaxf(2, 3.5f * u), ROLE_DECOR), k, r, c);
        lay_tag(p, draw_frame(p->d, b, p->th->bg, fmaxf(1, 1.5f * u), ROLE_DECOR), k, r, c);
    }
    if (p->o.focus_panel == k) {
        Rect b = { gx, gy, m->cols * pp->cw, m->rows * pp->ch };
        lay_tag(p, draw_frame(p->d, grow(b, 5 * u), p->th->accent, fmaxf(1, 2 * u), ROLE_DECOR), k, -1, -1);
    }
}

/* The colours of the blocks of grid g (each the colour of its first cell)
** into px: its colour on the panel's scale, the masked grey when it is not
** finite. */
static void fill_image(const Page *p, const Mat *m, const PanelPlan *pp, const DrawImage *g, const Cmap *cm, Color *px)
{
    int brows, bcols;
    draw_image_size(g, &brows, &bcols);
    Scale sc = scale_of(pp->lo, pp->hi);
    assert(bcols < 1 || (bcols - 1) * g->cstep < m->cols);         /* every block's first cell is in m */
    for (int i = 0; i < brows; i++) {
        const double *row = mat_row(m, i * g->rstep);
        for (int j = 0; j < bcols; j++) {
            double x = row[j * g->cstep];
            px[(size_t)i * (size_t)bcols + (size_t)j] = isfinite(x) ? cmap_at(cm, scale_at(&sc, x)) : p->th->masked_bg;
        }
    }
}

/* The block colours of image panel k, drawn as grid g (each block the
** colour of its first cell), into px, the draw list's arena. Kept in the
** LayoutCache for the view's next layout: a layout of a large lesson would
** otherwise read a block's first cell in every row of blocks of every
** matrix again, one cache miss a block. */
static void image_colors(Page *p, const View *v, int k, const PanelPlan *pp, const DrawImage *g, Color *px)
{
    const Mat *m = v->panels[k].m;
    const Cmap *cm = lay_cmap(p, &v->panels[k]);
    int brows, bcols;
    draw_image_size(g, &brows, &bcols);
    size_t n = (size_t)brows * (size_t)bcols;
    ImageKey key = { v->serial, m, g->rstep, g->cstep, pp->lo, pp->hi, cm, p->th->masked_bg };
    bool keep = v->serial != 0 && k < VIEW_MAX_PANELS;
    if (keep && lay_image_recall(p->lc, k, &key, px, n)) return;
    fill_image(p, m, pp, g, cm, px);
    if (keep) lay_image_keep(p->lc, k, &key, px, n);
}

/* One cell (or block of cells, rectangle b) of panel k holding x: hidden
** (predict mode) as a blank with "?", masked in the theme's grey with
** "−∞", else in its colour on the scale sc, its number in a colour that
** reads on it. */
static void draw_cell(Page *p, const PanelPlan *pp, const Cmap *cm, const Scale *sc, bool hidden, Rect b, double x,
                      int k, int r, int c)
{
    char buf[64];
    const Theme *th = p->th;
    if (hidden) {
        lay_tag(p, draw_rect(p->d, b, th->panel_bg, ROLE_CELL), k, r, c);
        if (pp->value_fs > 0)
            lay_tag(p, lay_text(p, b, "?", pp->value_fs, th->muted, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_CELL_TEXT, 0, 0),
                    k, r, c);
    } else if (!isfinite(x)) {
        lay_tag(p, draw_rect(p->d, b, th->masked_bg, ROLE_MASKED), k, r, c);
        if (pp->value_fs > 0) {
            util_fmt_num(buf, sizeof buf, x, 0);
            lay_tag(p, lay_text(p, b, buf, pp->value_fs, th->masked_fg, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_MASKED, 0, 0),
                    k, r, c);
        }
    } else {
        Color col = cmap_at(cm, scale_at(sc, x));
        lay_tag(p, draw_rect(p->d, b, col, ROLE_CELL), k, r, c);
        if (pp->value_fs > 0) {
            util_fmt_cell_even(buf, sizeof buf, x, pp->decimals, pp->compact, pp->even);
            lay_tag(p, lay_text(p, b, buf, pp->value_fs, cmap_text_for(col), ALIGN_CENTER, VALIGN_MIDDLE,
                                ROLE_CELL_TEXT, 0, 0), k, r, c);
        }
    }
}

/*
** The marks on panel k's cells (Panel.cell_marks): a frame in the text's
** colour around a cell, over the gap between cells, lined inside in the
** background's, so that it reads on any colour; a diamond (a square turned by 45°: a line as long as it is
** wide, drawn along the diagonal) in the highlight colour on the cell's
** top right corner, ringed in the background's. Nothing on a hidden panel.
*/
static void draw_cell_marks(Page *p, const Panel *pn, int k, const PanelPlan *pp)
{
    const Mat *m = pn->m;
    float u = p->m.u, gx = pp->box.x + pp->left_w, gy = pp->box.y + pp->top_h;
    float hd = fminf(fmaxf(0.22f * fminf(pp->cw, pp->ch), 4 * u), 9 * u);  /* the diamond's half diagonal */
    for (int pass = 0; pass < 2; pass++)            /* the frames, then the diamonds over them */
        for (int r = 0; r < m->rows; r++)
            for (int c = 0; c < m->cols; c++) {
                unsigned char mk = pn->cell_marks[(size_t)r * (size_t)m->cols + (size_t)c];
                Rect b = { gx + c * pp->cw, gy + r * pp->ch, pp->cw, pp->ch };
                if (pass == 0 && (mk & PANEL_MARK_FRAME)) {
                    float w = fmaxf(2, 2.5f * u), lw = fmaxf(1, 1.5f * u);
                    lay_tag(p, draw_frame(p->d, b, p->th->fg, w, ROLE_CELL_MARK), k, r, c);
                    lay_tag(p, draw_frame(p->d, grow(b, -(w + lw) / 2), p->th->bg, lw, ROLE_CELL_MARK), k, r, c);
                }
                if (pass == 1 && (mk & PANEL_MARK_DIAMOND)) {
                    float x = b.x + b.w - 2 * u, y = b.y + 2 * u;
                    for (int ring = 0; ring < 2; ring++) {
                        float h = ring ? hd : hd + 1.5f * u;
                        lay_tag(p, draw_line(p->d, x - h / 2, y - h / 2, x + h / 2, y + h / 2, ring ? p->th->highlight : p->th->bg,
                                             h * 1.41421356f, ROLE_CELL_MARK), k, r, c);
                    }
                }
            }
}

/*
** A heatmap panel: title, labels, its cells, the colour bar, highlights;
** a part that grows from one sub-step to the next (a K/V cache) framed at
** the size it grows to, so that its colour bar stays with it.
**
** Cells narrower than a pixel cannot be told apart: one rectangle is drawn
** per block of them HEAT_BLOCK units on a side (the colour of its first
** cell), so a 1024x1024 matrix costs thousands of blocks, not a million,
** and a page of such panels at most one block per HEAT_BLOCK² units of its
** area (a bounded SVG). More than HEAT_IMAGE_MIN blocks without numbers or
** gaps are one image command (draw.h), which the backends draw block by
** block: the same pixels and SVG, a fraction of the commands.
*/
void lay_draw_heat(Page *p, const View *v, int k, const PanelPlan *pp)
{
    const Panel *pn = &v->panels[k];
    const Mat *m = pn->m;
    const Cmap *cm = lay_cmap(p, pn);
    bool hidden = k < 64 && (p->o.hidden >> k) & 1;
    lay_panel_title(p, pn, k, pp->box);
    draw_heat_labels(p, pn, k, pp);
    if (pp->value_fs <= 0 && !hidden) p->hidden_values = true;
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
        lay_tag(p, draw_image(p->d, c0.x, c0.y, &g, ROLE_CELL, &px), k, 0, 0);
        image_colors(p, v, k, pp, &g, px);
    } else {
        Scale sc = scale_of(pp->lo, pp->hi);
        for (int r = 0; r < m->rows; r += rstep)
            for (int c = 0; c < m->cols; c += cstep)
                draw_cell(p, pp, cm, &sc, hidden, draw_block_rect(cell_rect(p, pp, r, c), r, c, &g), mat_get(m, r, c),
                          k, r, c);
    }
    if (pn->cell_marks && !hidden && pp->ch >= 1 && pp->cw >= 1) draw_cell_marks(p, pn, k, pp);
    draw_block_gaps(p, pn, k, pp);
    if (lay_rows(pn) > m->rows || lay_cols(pn) > m->cols) {   /* a cache that grows: the room it grows into */
        Rect room = { pp->box.x + pp->left_w, pp->box.y + pp->top_h, lay_cols(pn) * pp->cw, lay_rows(pn) * pp->ch };
        lay_tag(p, draw_frame(p->d, room, p->th->frame, fmaxf(1, p->m.u), ROLE_DECOR), k, -1, -1);
    }
    if (!pp->share_bar) draw_colorbar(p, pn, k, pp, cm);
    Outlines *o = &p->lc->drawn;                /* where they go, for a kept page (layout_keep.c) */
    if (k < VIEW_MAX_PANELS) {
        o->at[k] = p->d->n;
        o->plan[k] = *pp;
        o->u = p->m.u;
    }
    lay_draw_outlines(p, v, k, pp);
    if (k < VIEW_MAX_PANELS) o->end[k] = p->d->n;
}
