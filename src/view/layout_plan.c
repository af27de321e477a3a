/*
** layout_plan.c: the solver. It plans for the numbers first.
**
** A heatmap whose numbers can be printed at all (alone on the page, at the
** legible floor: lay_plan_prints) gets cells that hold its widest number at
** one font: as wide as that number needs and as tall as the font, never
** square for their own sake. The panels of a row share that font, the
** largest with which the row fits its width and height, found by
** bisection over whole fonts up to the metrics' cell font. Where the row
** still has room, the cells grow past what the font needs (taller first,
** then both ways) up to the largest cell side, so a heatmap fills the room
** it is given. Heatmaps whose numbers cannot be printed get the width the
** others leave, in cells at most as tall as wide and as the row allows;
** a grid of a thousand rows keeps a grid's height (GRID_MIN) rather than
** a quarter of a pixel a row, and its few columns stay visible.
** Fonts, label bands and colour bars follow from the cells
** (layout_heatplan.c); panels that share row labels or a colour bar with a
** neighbour leave them out; every panel is at least as wide as its title
** and its axis title, so neither is cut. Many panels go in two rows, split
** where the numbers come out biggest, or, where that leaves the numbers
** under the cell font, in a stack of two to four rows of the whole width,
** each as high as it needs, at one font; a row that cannot print its
** numbers at the floor is planned as if it had none, and scores so. A page
** that fits no other way has its panels spread over three or four rows.
*/
#include "layout_int.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* True when a panel can be drawn as a heatmap. */
bool lay_is_heat(const Panel *pn)
{
    return pn->kind == PANEL_HEATMAP && pn->m && pn->m->rows > 0 && pn->m->cols > 0;
}

/* The rows and columns heatmap pn is planned with: its full size when it
** grows from one sub-step to the next (Panel.full_rows), else its matrix's. */
int lay_rows(const Panel *pn)
{
    return pn->full_rows > pn->m->rows ? pn->full_rows : pn->m->rows;
}

int lay_cols(const Panel *pn)
{
    return pn->full_cols > pn->m->cols ? pn->full_cols : pn->m->cols;
}

/* True when two optional strings are equal (both absent counts). */
static bool same_str(const char *a, const char *b)
{
    return (!a || !a[0]) ? (!b || !b[0]) : (b && strcmp(a, b) == 0);
}

/* True when two panels label their rows alike. */
bool lay_same_rows(const Panel *a, const Panel *b)
{
    if (a->m->rows != b->m->rows || lay_rows(a) != a->m->rows || lay_rows(b) != b->m->rows    /* not while growing */
        || !same_str(a->row_axis, b->row_axis))
        return false;
    if (!a->row_labels || !b->row_labels) return a->row_labels == b->row_labels;
    for (int i = 0; i < a->m->rows; i++)
        if (!same_str(a->row_labels[i], b->row_labels[i])) return false;
    return true;
}

/* The cell font the page's numbers are planned to reach first: VALUE_GOAL
** canvas units at the text scale, at most the metrics' cell font. */
float lay_value_goal(const Page *p)
{
    float ts = p->o.text_scale > 0 ? p->o.text_scale : 1;
    return fminf(p->m.value, fmaxf(lay_value_floor(p), lay_px(VALUE_GOAL * p->m.u * ts)));
}

/* What one arrangement is planned with: which heatmaps print their
** numbers (a row that cannot clears its own), and the plans. */
typedef struct Solve {
    const Page *p;
    const View *v;
    PanelPlan *plans;
    bool prints[VIEW_MAX_PANELS];
} Solve;

/*
** The scale of heatmap k in a row of panels [first, end), and what it can
** share with its neighbours, as side-by-side plots do: its row labels when
** the panel at its left has the same ones and is sized alike (both print
** their numbers, or neither), its colour bar when the panel at its right
** uses the same colours for the same values.
*/
static void plan_sharing(const Solve *z, int k, int first, int end, PanelPlan *pp)
{
    const Page *p = z->p;
    const Panel *pn = &z->v->panels[k];
    lay_heat_scale(p, pn, pp);
    pp->share_rows = k > first && p->rows_as_prev[k] && z->prints[k] == z->prints[k - 1];
    pp->share_bar = false;
    if (k + 1 < end && lay_is_heat(&z->v->panels[k + 1])) {
        PanelPlan next;
        lay_heat_scale(p, &z->v->panels[k + 1], &next);
        pp->share_bar = next.lo == pp->lo && next.hi == pp->hi
                     && lay_cmap(p, &z->v->panels[k + 1]) == lay_cmap(p, pn);
    }
}

/*
** How low the cells of heatmap pn, cw wide, may be made to fit its height:
** CELL_MIN, or lower for a matrix of so many rows that its grid would
** still be GRID_MIN canvas units tall (a thousand tokens in two rows of
** panels on a slide: the fonts keep their size, the grid gives way); when
** the page is tried with narrower cells (Page.cell_min), down to the
** height of the widest cells allowed at cw (cw / CELL_ASPECT), at least
** Page.cell_min, if that is lower, so that only a panel whose width did
** not fit goes further (and never higher than the grid's height asks).
*/
static float lowest_cell(const Page *p, const Panel *pn, float cw)
{
    float grid = fminf(CELL_MIN, GRID_MIN * p->m.u / lay_rows(pn));
    return p->cell_min < CELL_MIN ? fminf(grid, fmaxf(p->cell_min, fminf(CELL_MIN, cw / CELL_ASPECT))) : grid;
}

/*
** The widest the cells of heatmap pn may be when they are ch high:
** CELL_ASPECT times their height; and cells lower than a block of sub-pixel
** cells (HEAT_BLOCK, lay_draw_heat) as wide as a grid as wide as it is
** high needs, up to CELL_ASPECT blocks: a thousand rows of four columns
** show four columns, not a line one pixel wide.
*/
static float widest_cell(const Page *p, const Panel *pn, float ch)
{
    float blk = HEAT_BLOCK * p->m.u, w = CELL_ASPECT * ch;
    return ch < blk ? fmaxf(w, fminf(CELL_ASPECT * blk, ch * lay_rows(pn) / lay_cols(pn))) : w;
}

/*
** How far the cells of heatmap pn may be over the height they are given:
** a hundredth of a pixel, and on a grid of many rows so much less that the
** whole grid is over by half a pixel at most, as much as a row may be
** (plan_row): a thousand rows a hundredth of a pixel too tall each would
** push the grid ten pixels into the row below.
*/
static float cell_slack(const Panel *pn)
{
    return fminf(0.01f, 0.5f / lay_rows(pn));
}

/*
** The cells of printing heatmap k at solver size s: up to the metrics'
** cell font V, the cell that holds its numbers at font ⌊s⌋; past V, that
** cell at V grown by s / V, taller first, then both ways once square,
** never past the largest cell side (nor narrower than its numbers); a
** one-row heatmap's cells grow as wide, but at most ONE_ROW_GROW times as
** tall as at V.
*/
static void printed_cell(const Solve *z, int k, const PanelPlan *pp, float s, float *cw, float *ch)
{
    const Page *p = z->p;
    float V = p->m.value;
    lay_value_cell(p, &z->v->panels[k], pp, fminf(lay_px(s), V), cw, ch);
    if (s <= V) return;
    float most = lay_rows(&z->v->panels[k]) == 1 ? ONE_ROW_GROW * *ch : p->m.max_cell;    /* a row, not a bar */
    float h = fminf(*ch * s / V, fmaxf(*ch, p->m.max_cell));
    *cw = fmaxf(*cw, fminf(h, p->m.max_cell));
    *ch = fminf(h, fmaxf(*ch, most));
}

/*
** Heatmap k of a row [first, end) where it has a share of the width and
** the height H: printing ones with the cells of size s (printed_cell),
** others with cells at most c wide, as tall as wide (capped), lowered
** until grid, labels and title fit H, and then no wider than CELL_ASPECT
** times their height. Fills pp; returns the panel's width (at least its
** least width).
*/
static float fit_panel(const Solve *z, int k, int first, int end, float s, float c, float H, float share,
                       PanelPlan *pp)
{
    const Page *p = z->p;
    const Panel *pn = &z->v->panels[k];
    plan_sharing(z, k, first, end, pp);
    if (z->prints[k]) {
        float cw, ch;
        printed_cell(z, k, pp, s, &cw, &ch);
        lay_plan_heat(p, pn, pp, cw, ch, share, H);
    } else {
        float ch = fminf(c, p->m.max_cell), low = lowest_cell(p, pn, c);
        for (int it = 0; it < FIT_STEPS; it++) {
            lay_plan_heat(p, pn, pp, fminf(c, widest_cell(p, pn, ch)), ch, share, H);
            float room = (H - pp->top_h - pp->bot_h) / lay_rows(pn);
            if (ch <= room + cell_slack(pn) || ch <= low) break;
            ch = fmaxf(low, fminf(room, FIT_LOWER * ch));
        }
    }
    return fmaxf(pp->left_w + lay_cols(pn) * pp->cw + pp->right_w, p->min_w[k]);
}

/*
** Whether the panels [first, first+count) fit W x H with sizes s and c
** (fit_panel), plots counted at an equal share of W each: their widths and
** gaps within W, and every printing grid within H below the row's common
** top band (grids of a row start at one height).
*/
static bool row_fits(Solve *z, int first, int count, float s, float c, float W, float H)
{
    const Page *p = z->p;
    float gaps = p->m.gap * (count - 1), share = (W - gaps) / count, w = gaps, top = 0;
    for (int k = first; k < first + count; k++) {
        if (!lay_is_heat(&z->v->panels[k])) {
            w += share;
            continue;
        }
        z->plans[k].box.w = fit_panel(z, k, first, first + count, s, c, H, share, &z->plans[k]);
        w += z->plans[k].box.w;
        top = fmaxf(top, z->plans[k].top_h);
    }
    if (w > W) return false;
    for (int k = first; k < first + count; k++) {
        const PanelPlan *pp = &z->plans[k];
        if (z->prints[k] && lay_is_heat(&z->v->panels[k])
            && (top + lay_rows(&z->v->panels[k]) * pp->ch + pp->bot_h > H + 0.5f || pp->value_fs <= 0))
            return false;
    }
    return true;
}

/* The largest size in [lo, hi] with which the row fits, s or c varying
** (the other held); lo when even it does not. */
static float bisect_row(Solve *z, int first, int count, bool vary_s, float s, float c, float lo, float hi, float W,
                        float H)
{
    if (row_fits(z, first, count, vary_s ? hi : s, vary_s ? c : hi, W, H)) return hi;
    float precision = lo < CELL_MIN ? SOLVE_PRECISION * z->p->cell_min : SOLVE_PRECISION;    /* thousands of columns */
    for (int it = 0; it < SOLVE_STEPS && hi - lo > precision; it++) {
        float mid = (lo + hi) / 2;
        if (row_fits(z, first, count, vary_s ? mid : s, vary_s ? c : mid, W, H)) lo = mid;
        else hi = mid;
    }
    return lo;
}

/*
** The sizes of one row in W x H: first the largest whole font its printing
** heatmaps fit with (the others' cells held at UNPRINTED_CELL), then the
** cells of the others as wide as the rest of the width allows, then, when
** the font is the full cell font, the printing cells grown into what is
** left. A row whose numbers do not fit at the floor gives up the numbers of
** those that take the most room, one panel at a time (z->prints cleared
** for it). *s and *c receive the sizes. A caller that holds the font at
** the cell font (a stack) passes grow false, and the cells do not grow.
*/
static void solve_row(Solve *z, int first, int count, float W, float H, bool grow, float *s, float *c)
{
    const Page *p = z->p;
    bool prints = false, free_cells = false;
    for (int k = first; k < first + count; k++) {
        if (!lay_is_heat(&z->v->panels[k])) continue;
        prints |= z->prints[k];
        free_cells |= !z->prints[k];
    }
    *s = 0;
    *c = UNPRINTED_CELL;
    float V = p->m.value, lo = lay_value_floor(p);
    while (prints && !row_fits(z, first, count, lo, *c, W, H)) {
        int widest = -1;                            /* give up the numbers that take the most room */
        for (int k = first; k < first + count; k++)
            if (z->prints[k] && lay_is_heat(&z->v->panels[k])
                && (widest < 0 || z->plans[k].box.w > z->plans[widest].box.w))
                widest = k;
        z->prints[widest] = false;
        for (int k = first; k < first + count && z->v->compare; k++) z->prints[k] = false;   /* heads compared: alike */
        free_cells = true;
        prints = false;
        for (int k = first; k < first + count; k++) prints |= z->prints[k] && lay_is_heat(&z->v->panels[k]);
    }
    if (prints) {
        int a = (int)lo, b = (int)V;               /* a fits; the largest whole font that does */
        while (a < b) {
            int mid = (a + b + 1) / 2;
            if (row_fits(z, first, count, (float)mid, *c, W, H)) a = mid;
            else b = mid - 1;
        }
        *s = (float)a;
    }
    if (free_cells) {                               /* as wide as the rest allows: even under UNPRINTED_CELL */
        float least = row_fits(z, first, count, *s, *c, W, H) ? *c : fminf(CELL_MIN, p->cell_min);
        *c = bisect_row(z, first, count, false, *s, *c, least, CELL_ASPECT * p->m.max_cell, W, H);
    }
    if (grow && prints && *s >= V) {
        float most = V;                             /* where every printing cell has stopped growing */
        for (int k = first; k < first + count; k++) {
            if (!z->prints[k] || !lay_is_heat(&z->v->panels[k])) continue;
            float cw, ch;
            printed_cell(z, k, &z->plans[k], V, &cw, &ch);
            most = fmaxf(most, V * p->m.max_cell / fmaxf(ch, 1));
        }
        *s = bisect_row(z, first, count, true, *s, *c, *s, most, W, H);
    }
}

/*
** Lower the unprinted panels of a row so that, with their grids starting
** at one height (the tallest top band), they end within H; and give panels
** that share row labels one row height. Returns the common top band.
*/
static float align_row(Solve *z, int first, int count, float H, float share)
{
    const Page *p = z->p;
    PanelPlan *plans = z->plans;
    float top = 0;
    for (int pass = 0; pass < ALIGN_PASSES; pass++) {
        top = 0;
        for (int k = first; k < first + count; k++)
            if (lay_is_heat(&z->v->panels[k])) top = fmaxf(top, plans[k].top_h);
        bool changed = false;
        for (int k = first; k < first + count; k++) {
            const Panel *pn = &z->v->panels[k];
            PanelPlan *pp = &plans[k];
            if (!lay_is_heat(pn) || z->prints[k]) continue;
            float ch = fminf(pp->ch, (H - top - pp->bot_h) / lay_rows(pn));
            float low = lowest_cell(p, pn, pp->cw);
            if (pp->share_rows && plans[k - 1].ch < ch) ch = plans[k - 1].ch;
            if (ch < pp->ch - cell_slack(pn)) {
                lay_plan_heat(p, pn, pp, fminf(pp->cw, widest_cell(p, pn, fmaxf(ch, low))), fmaxf(ch, low), share,
                              H);
                changed = true;
            }
        }
        /* a panel lowered for its right neighbour's sake: walk back the chain */
        for (int k = first + count - 1; k > first; k--) {
            PanelPlan *pp = &plans[k];
            if (!pp->share_rows || z->prints[k] || plans[k - 1].ch <= pp->ch + cell_slack(&z->v->panels[k]))
                continue;
            lay_plan_heat(p, &z->v->panels[k - 1], &plans[k - 1], plans[k - 1].cw, pp->ch, share, H);
            changed = true;
        }
        if (!changed) break;
    }
    return top;
}

/* The gap after panel k of a row: panels that share labels or a colour
** bar sit closer; others get extra, the row's spare width spread out. */
static float gap_after(const Page *p, const PanelPlan *plans, int k, float extra)
{
    return plans[k].share_bar || plans[k + 1].share_rows ? p->m.gap * SHARED_GAP : p->m.gap + extra;
}

/* True when two panels hold heatmaps of the same shape. */
static bool same_shape(const Panel *a, const Panel *b)
{
    return lay_is_heat(a) && lay_is_heat(b) && lay_rows(a) == lay_rows(b) && lay_cols(a) == lay_cols(b);
}

/* What plan_row adds up for the score of an arrangement. */
typedef struct Tally {
    bool fits;
    float font;                 /* smallest printed font so far (INFINITY: none yet) */
    long printed;               /* numbers printed */
    double log_sum;             /* of cell heights and plot sizes */
    int scored;
} Tally;

/*
** One row of panels [first, first+cnt) placed at y in area, at most H high,
** with sizes s and c (solve_row). Returns the row's height; adds to the
** tally each panel's printed font and log size, and clears its fits when
** something does not find room.
*/
static float plan_row(Solve *z, int first, int cnt, Rect area, float y, float H, float s, float c, Tally *t)
{
    const Page *p = z->p;
    const View *v = z->v;
    PanelPlan *plans = z->plans;
    int nplot = 0;
    float gaps = p->m.gap * (cnt - 1), share = (area.w - gaps) / cnt;
    for (int k = first; k < first + cnt; k++) {
        memset(&plans[k], 0, sizeof plans[k]);
        if (lay_is_heat(&v->panels[k])) fit_panel(z, k, first, first + cnt, s, c, H, share, &plans[k]);
        else nplot++;
    }
    float top = align_row(z, first, cnt, H, share), below = 0, sum_w = 0;
    for (int k = first; k < first + cnt; k++) {
        if (!lay_is_heat(&v->panels[k])) continue;
        PanelPlan *pp = &plans[k];
        pp->box.w = fmaxf(pp->left_w + lay_cols(&v->panels[k]) * pp->cw + pp->right_w, p->min_w[k]);
        sum_w += pp->box.w;
        top = fmaxf(top, pp->top_h);
        below = fmaxf(below, lay_rows(&v->panels[k]) * pp->ch + pp->bot_h);
        t->log_sum += log(fmax(pp->ch, 0.01));
        t->scored++;
        if (z->prints[k]) {
            t->font = fminf(t->font, pp->value_fs);
            t->printed += (long)v->panels[k].m->rows * v->panels[k].m->cols;
        }
    }
    if (top + below > H + 0.5f || sum_w + gaps > area.w + 0.5f) t->fits = false;
    float row_h = nplot == cnt ? H : fminf(H, top + below);
    if (nplot > 0 && nplot < cnt && row_h < PLOT_ROW_MIN * H) row_h = fminf(H, PLOT_ROW_MIN * H);
    float left = area.w - gaps - sum_w, plot_w = nplot ? left / nplot : 0;
    float extra = nplot ? 0 : fmaxf(0, fminf(left / (cnt + 1), 2 * p->m.gap));

    /* panels sharing labels or a bar sit closer; the group is centred */
    float total = sum_w + nplot * plot_w;
    for (int k = first; k + 1 < first + cnt; k++) total += gap_after(p, plans, k, extra);
    float x = area.x + fmaxf(0, (area.w - total) / 2);
    for (int k = first; k < first + cnt; k++) {
        PanelPlan *pp = &plans[k];
        if (!lay_is_heat(&v->panels[k])) {
            pp->box = (Rect){ x, y, plot_w, row_h };
            if (plot_w < PLOT_MIN_W * p->m.tick || row_h < PLOT_MIN_H * p->m.tick) t->fits = false;
            t->log_sum += log(fmax(fminf(plot_w / PLOT_CELL_ASPECT, row_h) / PLOT_CELLS, 0.01));
            t->scored++;
        } else {
            pp->box.x = x;
            pp->box.y = y;
            pp->box.h = row_h;
            pp->top_h = top;        /* grids of one row start at one height */
        }
        if (k + 1 < first + cnt) x += pp->box.w + gap_after(p, plans, k, extra);
    }
    return row_h;
}

/* True when the panels after split repeat those before it, shape for
** shape (a head's panels above, the next head's below). */
static bool rows_repeat(const View *v, int split)
{
    if (2 * split != v->npanels) return false;
    for (int k = 0; k < split; k++)
        if (!same_shape(&v->panels[k], &v->panels[split + k])) return false;
    return true;
}

/*
** On a page of heads compared (View.compare) every head prints its numbers
** or none does, whichever row it sits in. True when the rows, solved apart,
** disagree (one prints, another gave its numbers up), after which no panel
** prints (z->prints cleared) and the rows must be solved again.
*/
static bool compare_mixed(Solve *z)
{
    const View *v = z->v;
    if (!v->compare) return false;
    bool some = false, lost = false;
    for (int k = 0; k < v->npanels; k++) {
        if (!lay_is_heat(&v->panels[k]) || !z->p->prints[k]) continue;
        some |= z->prints[k];
        lost |= !z->prints[k];
    }
    if (!some || !lost) return false;
    for (int k = 0; k < v->npanels; k++) z->prints[k] = false;
    return true;
}

/* True when a panel of rows [a0, a1) has the shape of one of [b0, b1). */
static bool rows_alike(const View *v, int a0, int a1, int b0, int b1)
{
    for (int a = a0; a < a1; a++)
        for (int b = b0; b < b1; b++)
            if (same_shape(&v->panels[a], &v->panels[b])) return true;
    return false;
}

/*
** Place every panel of v in area in nrows rows, row r holding the panels
** from start[r] up to the next row's start (start[nrows] is the count). The
** rows start with heights in proportion to the rows of cells each holds;
** when some leave height unused they keep only what they use and the others
** share the rest, and all are planned again. Rows that hold alike panels
** print at one font.
*/
static PlanScore plan_rows(const Page *p, const View *v, Rect area, const int *start, int nrows, PanelPlan *plans)
{
    int first[MAX_ROWS], counts[MAX_ROWS];
    float Hs[MAX_ROWS], row_h[MAX_ROWS], want[MAX_ROWS], sum = 0;
    float H = area.h - p->m.gap * (nrows - 1);
    for (int r = 0; r < nrows; r++) {           /* height in proportion to the rows of cells each holds, plus its labels */
        first[r] = start[r];
        counts[r] = start[r + 1] - start[r];
        int most = 0;
        for (int k = first[r]; k < first[r] + counts[r]; k++)
            if (lay_is_heat(&v->panels[k]) && lay_rows(&v->panels[k]) > most) most = lay_rows(&v->panels[k]);
        want[r] = (float)((most ? most : ROW_PLOT_ROWS) + ROW_LABEL_ROWS);
        sum += want[r];
    }
    float given = 0;
    for (int r = 0; r < nrows; r++) {
        Hs[r] = nrows == 1 ? H : r + 1 < nrows ? H * want[r] / sum : H - given;
        given += Hs[r];
    }
    Solve z = { p, v, plans, { false } };
    Tally t = { true, INFINITY, 0, 0, 0 };
    float used = 0;
    for (int pass = 0; pass < 2; pass++) {
        memcpy(z.prints, p->prints, sizeof z.prints);
        float s[MAX_ROWS], c[MAX_ROWS];
        for (int r = 0; r < nrows; r++) solve_row(&z, first[r], counts[r], area.w, Hs[r], true, &s[r], &c[r]);
        if (compare_mixed(&z))
            for (int r = 0; r < nrows; r++) solve_row(&z, first[r], counts[r], area.w, Hs[r], true, &s[r], &c[r]);
        if (nrows == 2 && s[0] > 0 && s[1] > 0 && rows_alike(v, first[0], first[1], first[1], first[1] + counts[1]))
            s[0] = s[1] = fminf(s[0], s[1]);
        float y = area.y;
        t = (Tally){ true, INFINITY, 0, 0, 0 };
        for (int r = 0; r < nrows; r++) {
            row_h[r] = plan_row(&z, first[r], counts[r], area, y, Hs[r], s[r], c[r], &t);
            y += row_h[r] + p->m.gap;
        }
        used = y - p->m.gap - area.y;
        if (nrows == 1 || pass == 1) break;
        bool lends[MAX_ROWS];
        int nlend = 0;
        for (int r = 0; r < nrows; r++) nlend += lends[r] = row_h[r] < Hs[r] - 2;
        if (nlend == 0) break;
        if (nlend == nrows) {                   /* every row leaves some: the first keeps the rest */
            lends[0] = false;
            nlend--;
        }
        float rest = H, keep = 0;
        for (int r = 0; r < nrows; r++) {
            if (lends[r]) rest -= Hs[r] = row_h[r] + 1;
            else keep += Hs[r];
        }
        for (int r = 0; r < nrows; r++)
            if (!lends[r]) Hs[r] = nlend == nrows - 1 ? rest : rest * Hs[r] / keep;
    }
    PlanScore sc = { t.fits, t.printed, isfinite(t.font) ? t.font : 0, t.scored ? (float)exp(t.log_sum / t.scored) : 0,
                     used };
    return sc;
}

/*
** What the stacks of one plan_best share, the room of a row being the same
** in every stack of one number of rows: each row's sizes (solve_row), the
** numbers it gives up, and its height at each whole font (plan_row), so
** that the thirty-five ways of cutting eight panels in four rows plan each
** of their rows once. A row depends only on its own panels, so what it
** gives is the same whatever is above or below it.
*/
typedef struct StackMemo {
    int n, fonts;               /* panels, whole fonts remembered (0 .. fonts-1) */
    float room;                 /* the row height the entries were planned for */
    struct StackRow {
        bool solved;
        float s, c;
        uint64_t gave_up;       /* panels of the row that gave up their numbers */
        float *need;            /* height at each whole font; NAN: not yet planned */
    } rows[MANY_ROWS_MAX][MANY_ROWS_MAX + 1];
    float *heights;             /* the storage of every row's need */
} StackMemo;

/* A memo for the stacks of a page of n panels (n <= MANY_ROWS_MAX), or
** NULL when there is no memory (the stacks are then planned row by row
** each time). */
static StackMemo *stack_memo_create(const Page *p, int n)
{
    assert(n <= MANY_ROWS_MAX && VIEW_MAX_PANELS <= 64);
    StackMemo *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->n = n;
    m->fonts = (int)p->m.value + 2;
    m->heights = malloc(sizeof(float) * (size_t)(n * (n + 1) * m->fonts));
    if (!m->heights) {
        free(m);
        return NULL;
    }
    return m;
}

/* Frees a memo (NULL is fine). */
static void stack_memo_free(StackMemo *m)
{
    if (!m) return;
    free(m->heights);
    free(m);
}

/* Forgets what a memo holds, for rows room high. */
static void stack_memo_reset(StackMemo *m, float room)
{
    if (!m) return;
    m->room = room;
    for (int a = 0; a < m->n; a++)
        for (int b = 0; b <= m->n; b++) {
            struct StackRow *r = &m->rows[a][b];
            r->solved = false;
            r->need = m->heights + (a * (m->n + 1) + b) * m->fonts;
            for (int f = 0; f < m->fonts; f++) r->need[f] = NAN;
        }
}

/* solve_row for the rows of a stack, through the memo when there is one:
** the sizes into *s and *c, and the numbers the row gives up cleared in
** z->prints, as solve_row does. */
static void stack_solve_row(StackMemo *m, Solve *z, int first, int count, float W, float H, float *s, float *c)
{
    if (!m) {
        solve_row(z, first, count, W, H, false, s, c);
        return;
    }
    assert(H == m->room && first + count <= m->n);
    struct StackRow *r = &m->rows[first][count];
    if (!r->solved) {
        bool before[VIEW_MAX_PANELS];
        memcpy(before, z->prints, sizeof before);
        solve_row(z, first, count, W, H, false, &r->s, &r->c);
        r->gave_up = 0;
        for (int k = first; k < first + count; k++)
            if (before[k] && !z->prints[k]) r->gave_up |= (uint64_t)1 << k;
        r->solved = true;
    }
    for (int k = first; k < first + count; k++)
        if (r->gave_up >> k & 1) z->prints[k] = false;
    *s = r->s;
    *c = r->c;
}

/* The height plan_row gives a row of a stack at font s, the room high,
** through the memo when there is one (the plans it leaves are then those
** of some earlier row: only the height is wanted). */
static float stack_row_need(StackMemo *m, Solve *z, int first, int count, Rect area, float room, float s, float c)
{
    Tally t = { true, INFINITY, 0, 0, 0 };
    int f = (int)s;
    if (!m || s != (float)f || f < 0 || f >= m->fonts) return plan_row(z, first, count, area, area.y, room, s, c, &t);
    float *need = &m->rows[first][count].need[f];
    if (isnan(*need)) *need = plan_row(z, first, count, area, area.y, room, s, c, &t);
    return *need;
}

/*
** The panels of v in a stack of nrows rows, row r from
** start[r]: every row at one font, the largest with which each row fits the
** width and all of them the height (none past the metrics' cell font, so
** that a row of one-row panels does not grow into a bar), one under the
** other, STACK_GAP gaps apart; the height they leave goes to the
** explanation below. m (or NULL) remembers rows across the stacks of one
** page. A stack that must print every number at font beat or more to be
** taken (beat > 0) stops, and does not fit, as soon as a row gives up
** numbers or the font comes under beat (numbers print at most at the font
** their cells are sized for, value_font).
*/
static PlanScore plan_stack(const Page *p, const View *v, Rect area, const int *start, int nrows, PanelPlan *plans,
                            StackMemo *m, float beat)
{
    Solve z = { p, v, plans, { false } };
    memcpy(z.prints, p->prints, sizeof z.prints);
    float s = p->m.value, c[MAX_ROWS], need[MAX_ROWS], gap = STACK_GAP * p->m.gap, room = area.h - gap * (nrows - 1);
    bool prints = false;
    for (int r = 0; r < nrows; r++) {           /* each row alone at the whole height: the most it allows */
        float sr;
        stack_solve_row(m, &z, start[r], start[r + 1] - start[r], area.w, room, &sr, &c[r]);
        if (sr > 0) s = fminf(s, sr), prints = true;
        bool gave_up = false;
        for (int k = start[r]; k < start[r + 1]; k++) gave_up |= p->prints[k] && !z.prints[k];
        if (beat > 0 && (gave_up || floorf(s) < beat)) return (PlanScore){ false, 0, 0, 0, 0 };
    }
    if (compare_mixed(&z)) {                    /* heads compared: none prints; the memo knows rows that did */
        m = NULL;
        prints = false;
        for (int r = 0; r < nrows; r++) {
            float sr;
            solve_row(&z, start[r], start[r + 1] - start[r], area.w, room, false, &sr, &c[r]);
        }
    }
    s = prints ? floorf(s) : 0;
    for (;; s -= 1) {                           /* the largest whole font whose rows fit the height together */
        if (s < beat) return (PlanScore){ false, 0, 0, 0, 0 };
        float sum = 0;
        for (int r = 0; r < nrows; r++)
            sum += need[r] = stack_row_need(m, &z, start[r], start[r + 1] - start[r], area, room, s, c[r]);
        if (sum <= room + 0.5f || !prints || s - 1 < lay_value_floor(p)) break;
    }
    float y = area.y;
    Tally t = { true, INFINITY, 0, 0, 0 };
    for (int r = 0; r < nrows; r++)
        y += plan_row(&z, start[r], start[r + 1] - start[r], area, y, need[r], s, c[r], &t) + gap;
    if (y - gap > area.y + area.h + 0.5f) t.fits = false;
    PlanScore sc = { t.fits, t.printed, isfinite(t.font) ? t.font : 0, t.scored ? (float)exp(t.log_sum / t.scored) : 0,
                     y - gap - area.y };
    return sc;
}

/* The panels of v in one row, or in two split before panel split. */
static PlanScore plan_panels(const Page *p, const View *v, Rect area, int split, PanelPlan *plans)
{
    int n = v->npanels;
    if (split <= 0 || split > n) split = n;
    int start[3] = { 0, split, n };
    return split < n ? plan_rows(p, v, area, start, 2, plans) : plan_rows(p, v, area, (int[]){ 0, n }, 1, plans);
}

/* True when arrangement a is better than b: it fits where b does not,
** prints more numbers, prints them bigger, or has cells gain times as
** big. */
bool lay_score_better(PlanScore a, PlanScore b, float gain)
{
    if (a.fits != b.fits) return a.fits;
    if (a.printed != b.printed) return a.printed > b.printed;
    if (a.font != b.font) return a.font > b.font;
    return a.cells > gain * b.cells;
}

/* Whether a plan serves a probe (LayoutOpts.probe; want >= 0): it fits and
** prints all want numbers at the goal font at least. */
static bool serves(const Page *p, PlanScore s, long want)
{
    return want >= 0 && s.fits && s.printed >= want && s.font >= lay_value_goal(p);
}

/*
** The best arrangement of the panels in area: one row when there are at
** most ONE_ROW_MAX panels, else (or when it prints bigger numbers, or
** gives cells a fifth bigger) two rows, split in the middle or where the
** panels change shape, so that the four heads of a stage share a row and
** the wide concatenation goes below. Splits either side of the middle
** count alike: seven 4x4 panels go 3 + 4 when four in the top row would
** print their numbers smaller. A split whose rows repeat each other, a
** head's panels above the next head's, gives way to another on the size
** of the cells only when they come out TWO_ROW_GAIN bigger (a 2 + 4 split
** of two heads' Q, K and scores had cells a sixth bigger); any other split
** takes over from the one before it only with cells SPLIT_GAIN bigger, so
** that two splits within a hair of each other (as two text measures see
** them: the browser's and the program's) go the same way. Pages that fit
** no other way (Page.more_rows) try three and four rows.
*/
static PlanScore plan_best(const Page *p, const View *v, Rect area, PanelPlan *plans)
{
    int n = v->npanels;
    PlanScore best = { false, -1, -1, -1, 0 };
    bool have = false;
    long want = p->o.probe ? lay_printable(p, v) : -1;     /* a probe stops at the first plan that serves */
    if (n <= ONE_ROW_MAX) {
        best = plan_panels(p, v, area, n, plans);
        have = true;
        if (serves(p, best, want)) return best;
    }
    if (n < 2) return best;
    /* the middle first, then where the panels change shape, then the others nearest the middle */
    int cand[MAX_SPLITS], nc = 0, mid = (n + 1) / 2;
    cand[nc++] = mid;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 1; d < n && nc < MAX_SPLITS; d++)
            for (int sgn = -1; sgn <= 1 && nc < MAX_SPLITS; sgn += 2) {
                int k = mid + sgn * d;
                if (k < 1 || k >= n || k * ROW_MIN_SHARE < n || (n - k) * ROW_MIN_SHARE < n) continue;
                if (same_shape(&v->panels[k - 1], &v->panels[k]) != (pass == 1)) continue;
                cand[nc++] = k;
            }
    PanelPlan two[VIEW_MAX_PANELS];
    bool one_row = n <= ONE_ROW_MAX, repeat = false;
    for (int i = 0; i < nc; i++) {
        PlanScore s2 = plan_panels(p, v, area, cand[i], two);
        if (!have || lay_score_better(s2, best, one_row || repeat ? TWO_ROW_GAIN : SPLIT_GAIN)) {
            memcpy(plans, two, sizeof two[0] * (size_t)n);
            best = s2;
            have = true;
            one_row = false;
            repeat = rows_repeat(v, cand[i]);
            if (serves(p, best, want)) return best;
        }
    }
    /* the last try of a page that fits nowhere else (Page.more_rows):
    ** three or four rows, the panels spread evenly over them */
    for (int nrows = 3; p->more_rows && !best.fits && nrows <= MAX_ROWS && nrows <= n; nrows++) {
        int start[MAX_ROWS + 1];
        for (int r = 0; r <= nrows; r++) start[r] = (r * n + nrows - 1) / nrows;
        PlanScore sr = plan_rows(p, v, area, start, nrows, two);
        if (lay_score_better(sr, best, 1.0f)) {
            memcpy(plans, two, sizeof two[0] * (size_t)n);
            best = sr;
        }
    }
    /* a stack of two to four rows at one font, every way of cutting the
    ** panels in order, where the rows above leave the numbers small: each
    ** row has the whole width, and only the height it needs. A stack is
    ** taken only when it prints numbers, so a page none of whose heatmaps
    ** can print them (lay_plan_prints) tries none. */
    bool any_prints = false;
    for (int k = 0; k < n; k++) any_prints |= p->prints[k] && lay_is_heat(&v->panels[k]);
    StackMemo *memo = NULL;
    long all = lay_printable(p, v);
    for (int nrows = 2; any_prints && nrows <= MAX_ROWS && nrows <= n && n <= MANY_ROWS_MAX; nrows++) {
        if (best.fits && best.printed > 0 && best.font >= p->m.value) break;
        if (!memo) memo = stack_memo_create(p, n);
        stack_memo_reset(memo, area.h - STACK_GAP * p->m.gap * (nrows - 1));
        int start[MAX_ROWS + 1] = { 0 };
        for (int r = 1; r < nrows; r++) start[r] = r;
        start[nrows] = n;
        PlanScore fewer = best;
        int best_cuts = -1;
        for (;;) {
            /* where the best so far prints every number, a stack must reach its font */
            float beat = best.fits && best.printed >= all ? best.font : 0;
            PlanScore sr = plan_stack(p, v, area, start, nrows, two, memo, beat);
            int cuts = 0;                       /* rows that end where the panels change shape */
            for (int r = 1; r < nrows; r++) cuts += !same_shape(&v->panels[start[r] - 1], &v->panels[start[r]]);
            bool tie = best_cuts >= 0 && sr.fits == best.fits && sr.printed == best.printed && sr.font == best.font;
            if (sr.fits && sr.printed > 0                 /* a stack is for numbers, and must fit */
                && ((lay_score_better(sr, best, sr.font > fewer.font ? 1.0f : TWO_ROW_GAIN)
                     && (sr.font > fewer.font || sr.printed > fewer.printed || !fewer.fits))
                    || (tie && cuts > best_cuts))) {
                memcpy(plans, two, sizeof two[0] * (size_t)n);
                best = sr;
                best_cuts = cuts;
                if (serves(p, best, want)) {
                    stack_memo_free(memo);
                    return best;
                }
            }
            int r = nrows - 1;                  /* the next cut, as an odometer */
            while (r >= 1 && start[r] + 1 >= start[r + 1]) r--;
            if (r < 1) break;
            start[r]++;
            for (int q = r + 1; q < nrows; q++) start[q] = start[q - 1] + 1;
        }
    }
    stack_memo_free(memo);
    return best;
}

/* How many numbers the page's heatmaps can print (lay_plan_prints). */
long lay_printable(const Page *p, const View *v)
{
    long n = 0;
    for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++)
        if (p->prints[k] && lay_is_heat(&v->panels[k])) n += (long)v->panels[k].m->rows * v->panels[k].m->cols;
    return n;
}

/*
** The best arrangement of the panels in area (plan_best), their cells
** first as tall as a line of text (INK: room above and below the number);
** where that leaves some numbers unprinted or under the goal font, again
** with cells only as tall as the digits need (CELL_INK), which a matrix of
** twenty rows on a slide needs for 14 px, and the better of the two.
*/
PlanScore lay_plan_best(Page *p, const View *v, Rect area, PanelPlan *plans)
{
    assert(p->cell_ink == INK);
    PlanScore best = plan_best(p, v, area, plans);
    long want = lay_printable(p, v);
    if (want == 0 || (best.fits && best.printed >= want && best.font >= lay_value_goal(p))) return best;
    PanelPlan tight[VIEW_MAX_PANELS];
    p->cell_ink = CELL_INK;
    PlanScore st = plan_best(p, v, area, tight);
    p->cell_ink = INK;
    if (!lay_score_better(st, best, 1.0f)) return best;
    memcpy(plans, tight, sizeof tight[0] * (size_t)(v->npanels < VIEW_MAX_PANELS ? v->npanels : VIEW_MAX_PANELS));
    return st;
}

/*
** Which heatmaps print their numbers on this page: those whose numbers
** fit at the legible floor with the panel alone in W x H, in cells as low
** as their digits allow (CELL_INK) (a 64-column
** matrix on a slide does not, and is then drawn without numbers wherever
** it goes); and each panel's least width, its title at the smallest
** panel-title font and, for one that prints its numbers, its column axis
** title whole.
*/
void lay_plan_prints(Page *p, const View *v, float W, float H)
{
    const Metrics *m = &p->m;
    float least = fmaxf(m->min_font, lay_px(SHRINK_BEFORE_CUT * m->ptitle)), fl = lay_value_floor(p);
    Solve z = { p, v, NULL, { false } };
    p->cell_ink = CELL_INK;                     /* a number needs no more than its digits' height */
    for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++) {
        const Panel *pn = &v->panels[k];
        p->min_w[k] = pn->title && pn->title[0] ? lay_width(p, pn->title, least, 1) : 0;
        if (pn->full_title && pn->full_title[0])        /* as wide as when it has grown */
            p->min_w[k] = fmaxf(p->min_w[k], lay_width(p, pn->full_title, least, 1));
        p->prints[k] = false;
        if (!lay_is_heat(pn) || m->value < fl) continue;
        PanelPlan pp;
        z.prints[k] = true;
        plan_sharing(&z, k, k, k + 1, &pp);
        float cw, ch;
        printed_cell(&z, k, &pp, fl, &cw, &ch);
        lay_plan_heat(p, pn, &pp, cw, ch, W, H);
        p->prints[k] = pp.value_fs > 0 && pp.left_w + lay_cols(pn) * pp.cw + pp.right_w <= W
                    && pp.top_h + lay_rows(pn) * pp.ch + pp.bot_h <= H;
        if (p->prints[k] && pn->col_axis && pn->col_axis[0])     /* its column axis title whole (not a picture's) */
            p->min_w[k] = fmaxf(p->min_w[k], lay_width(p, pn->col_axis, m->axis, 0));
    }
    p->cell_ink = INK;
}
