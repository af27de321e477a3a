/*
** layout_plan.c: the solver. Heatmap panels in one row share one cell
** width, so that Q, K and V or the heads of a multi-head stage are drawn
** at the same scale. The width is found by bisection: fonts and label
** bands depend on the cells (labels shrink with the rows, column labels
** turn upright when the columns are narrow), and a row of panels only
** grows as its cells do. Each panel's cells are then as tall as its own
** rows allow, and panels that share row labels or a colour bar with a
** neighbour leave them out. Width left over goes to panels whose values
** had to be printed small. Many panels go in two rows, split where the
** cells come out biggest.
*/
#include "layout_int.h"

#include <string.h>

/* True when a panel can be drawn as a heatmap. */
bool lay_is_heat(const Panel *pn)
{
    return pn->kind == PANEL_HEATMAP && pn->m && pn->m->rows > 0 && pn->m->cols > 0;
}

/* True when two optional strings are equal (both absent counts). */
static bool same_str(const char *a, const char *b)
{
    return (!a || !a[0]) ? (!b || !b[0]) : (b && strcmp(a, b) == 0);
}

/* True when two panels label their rows alike. */
bool lay_same_rows(const Panel *a, const Panel *b)
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
    lay_heat_scale(p, pn, pp);
    pp->share_rows = k > first && p->rows_as_prev[k];
    pp->share_bar = false;
    if (k + 1 < end && lay_is_heat(&v->panels[k + 1])) {
        PanelPlan next;
        lay_heat_scale(p, &v->panels[k + 1], &next);
        pp->share_bar = next.lo == pp->lo && next.hi == pp->hi
                     && lay_cmap(p, &v->panels[k + 1]) == lay_cmap(p, pn);
    }
}

/*
** How low a heatmap's cells of width cw may be made to fit its height:
** CELL_MIN; when the page is tried with narrower cells (Page.cell_min),
** down to the height of the widest cells allowed at cw (cw / CELL_ASPECT)
** if that is lower, so that only a panel whose width did not fit goes
** below CELL_MIN.
*/
static float lowest_cell(const Page *p, float cw)
{
    return p->cell_min < CELL_MIN ? fmaxf(p->cell_min, fminf(CELL_MIN, cw / CELL_ASPECT)) : CELL_MIN;
}

/*
** Heatmap k with cells at most cw wide, in a row where it has a share of
** the width: as tall as wide (capped), lowered until its grid, labels and
** title fit height H, then no wider than CELL_ASPECT times its height.
** Fills pp; returns the panel's width.
*/
static float fit_panel(const Page *p, const View *v, int k, int first, int end,
                       float cw, float H, float share, PanelPlan *pp)
{
    const Panel *pn = &v->panels[k];
    plan_sharing(p, v, k, first, end, pp);
    float ch = fminf(cw, p->m.max_cell), low = lowest_cell(p, cw);
    for (int it = 0; it < FIT_STEPS; it++) {
        lay_plan_heat(p, pn, pp, fminf(cw, CELL_ASPECT * ch), ch, share, H);
        float room = (H - pp->top_h - pp->bot_h) / pn->m->rows;
        if (ch <= room + 0.01f || ch <= low) break;
        ch = fmaxf(low, fminf(room, FIT_LOWER * ch));
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
        w += lay_is_heat(&v->panels[k]) ? fit_panel(p, v, k, first, first + count, cw, H, share, &pp) : share;
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
    for (int k = first; k < first + count; k++) any = any || lay_is_heat(&v->panels[k]);
    if (!any) return INFINITY;
    float lo = CELL_MIN, hi = fminf(cap, CELL_ASPECT * p->m.max_cell), precision = SOLVE_PRECISION;
    if (row_width(p, v, first, count, hi, W, H) <= W) return hi;
    if (p->cell_min < lo && hi > lo && row_width(p, v, first, count, lo, W, H) > W) {
        /* too wide even with CELL_MIN: below it, a thousand columns within
        ** a few pixels */
        hi = lo;
        lo = p->cell_min;
        precision = SOLVE_PRECISION * p->cell_min;
    }
    for (int it = 0; it < SOLVE_STEPS && hi - lo > precision; it++) {
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
    for (int pass = 0; pass < ALIGN_PASSES; pass++) {
        top = 0;
        for (int k = first; k < first + count; k++)
            if (lay_is_heat(&v->panels[k])) top = fmaxf(top, plans[k].top_h);
        bool changed = false;
        for (int k = first; k < first + count; k++) {
            const Panel *pn = &v->panels[k];
            PanelPlan *pp = &plans[k];
            if (!lay_is_heat(pn)) continue;
            float ch = fminf(pp->ch, (H - top - pp->bot_h) / pn->m->rows);
            float low = lowest_cell(p, pp->cw);
            if (pp->share_rows && plans[k - 1].ch < ch) ch = plans[k - 1].ch;
            if (ch < pp->ch - 0.01f) {
                lay_plan_heat(p, pn, pp, fminf(pp->cw, CELL_ASPECT * fmaxf(ch, low)), fmaxf(ch, low), share,
                              H);
                changed = true;
            }
        }
        /* a panel lowered for its right neighbour's sake: walk back the chain */
        for (int k = first + count - 1; k > first; k--) {
            PanelPlan *pp = &plans[k];
            if (!pp->share_rows || plans[k - 1].ch <= pp->ch + 0.01f) continue;
            lay_plan_heat(p, &v->panels[k - 1], &plans[k - 1], plans[k - 1].cw, pp->ch, share, H);
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
        if ((pp->value_fs >= p->m.value && !pp->compact) || pp->ch < lay_value_floor(p)) continue;
        float g = lay_cell_gap(p, pp->cw, pp->ch);
        float need = lay_widest_value(p, pp, pp->decimals, false, p->m.value) + 2 * p->m.pad + g;
        need = fminf(need, CELL_ASPECT * pp->ch);
        if (need > pp->cw) want[k] = (need - pp->cw) * v->panels[k].m->cols;
        total += want[k];
    }
    if (total <= 0 || spare <= 0) return sum_w;
    float f = fminf(1, WIDEN_SHARE * spare / total);
    for (int k = first; k < first + cnt; k++) {
        if (want[k] <= 0) continue;
        PanelPlan *pp = &plans[k];
        const Panel *pn = &v->panels[k];
        float cw = pp->cw + f * want[k] / pn->m->cols, top = pp->top_h;
        sum_w -= pp->box.w;
        lay_plan_heat(p, pn, pp, cw, pp->ch, share, H);
        pp->top_h = fmaxf(pp->top_h, top);
        pp->box.w = pp->left_w + pn->m->cols * cw + pp->right_w;
        sum_w += pp->box.w;
    }
    return sum_w;
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
    return lay_is_heat(a) && lay_is_heat(b) && a->m->rows == b->m->rows && a->m->cols == b->m->cols;
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
        if (lay_is_heat(&v->panels[k])) fit_panel(p, v, k, first, first + cnt, cw, H, share, &plans[k]);
        else nplot++;
    }
    float top = align_row(p, v, first, cnt, plans, H, share), below = 0, sum_w = 0;
    for (int k = first; k < first + cnt; k++) {
        if (!lay_is_heat(&v->panels[k])) continue;
        PanelPlan *pp = &plans[k];
        pp->box.w = pp->left_w + v->panels[k].m->cols * pp->cw + pp->right_w;
        sum_w += pp->box.w;
    }
    if (nplot == 0) sum_w = widen_cells(p, v, first, cnt, plans, area.w - gaps - sum_w, sum_w, H, share);
    for (int k = first; k < first + cnt; k++) {
        if (!lay_is_heat(&v->panels[k])) continue;
        top = fmaxf(top, plans[k].top_h);
        below = fmaxf(below, v->panels[k].m->rows * plans[k].ch + plans[k].bot_h);
        *log_sum += log(fmax(plans[k].ch, 0.01));
        (*scored)++;
    }
    if (top + below > H + 0.5f || sum_w + gaps > area.w + 0.5f) *fits = false;
    float row_h = nplot == cnt ? H : fminf(H, top + below);
    if (nplot > 0 && nplot < cnt && row_h < PLOT_ROW_MIN * H) row_h = fminf(H, PLOT_ROW_MIN * H);
    float left = area.w - gaps - sum_w, plot_w = nplot ? left / nplot : 0;
    float extra = nplot ? 0 : fminf(left / (cnt + 1), 2 * p->m.gap);

    /* panels sharing labels or a bar sit closer; the group is centred */
    float total = sum_w + nplot * plot_w;
    for (int k = first; k + 1 < first + cnt; k++) total += gap_after(p, plans, k, extra);
    float x = area.x + (area.w - total) / 2;
    for (int k = first; k < first + cnt; k++) {
        PanelPlan *pp = &plans[k];
        if (!lay_is_heat(&v->panels[k])) {
            pp->box = (Rect){ x, y, plot_w, row_h };
            if (plot_w < PLOT_MIN_W * p->m.tick || row_h < PLOT_MIN_H * p->m.tick) *fits = false;
            *log_sum += log(fmax(fminf(plot_w / PLOT_CELL_ASPECT, row_h) / PLOT_CELLS, 0.01));
            (*scored)++;
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
                if (lay_is_heat(&v->panels[k]) && v->panels[k].m->rows > most) most = v->panels[k].m->rows;
            want[r] = (most ? most : ROW_PLOT_ROWS) + ROW_LABEL_ROWS;
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

/* The smallest size at which a heatmap of plans prints its values (a
** panel without numbers aside); INFINITY when none prints any. */
static float smallest_values(const View *v, const PanelPlan *plans)
{
    float least = INFINITY;
    for (int k = 0; k < v->npanels; k++)
        if (lay_is_heat(&v->panels[k]) && plans[k].value_fs > 0) least = fminf(least, plans[k].value_fs);
    return least;
}

/*
** The best arrangement of the panels in area: one row when there are at
** most ONE_ROW_MAX panels, else (or when it gives cells a fifth bigger)
** two rows, split in the middle (either side of it for an odd count) or
** where the panels change shape, so that the four heads of a stage share a
** row and the wide concatenation goes below. Of two splits whose cells come
** out as big, the one whose smallest printed values are bigger wins: seven
** 4x4 panels go 3 + 4 when four in the top row would print their numbers at
** 10 px. Arguments and result as plan_panels.
*/
float lay_plan_best(const Page *p, const View *v, Rect area, PanelPlan *plans, float *used_h, bool *fits)
{
    int n = v->npanels;
    float score = -1;
    if (n <= ONE_ROW_MAX) score = plan_panels(p, v, area, n, plans, used_h, fits);
    if (n < 2) return score;
    int cand[MAX_SPLITS], nc = 0;
    cand[nc++] = (n + 1) / 2;
    if (n % 2 && n / 2 * ROW_MIN_SHARE >= n) cand[nc++] = n / 2;
    for (int k = 1; k < n && nc < MAX_SPLITS; k++) {
        if (same_shape(&v->panels[k - 1], &v->panels[k]) || k == (n + 1) / 2 || (n % 2 && k == n / 2)) continue;
        if (k * ROW_MIN_SHARE < n || (n - k) * ROW_MIN_SHARE < n) continue;     /* keep the rows comparable */
        cand[nc++] = k;
    }
    PanelPlan two[VIEW_MAX_PANELS];
    bool one_row = n <= ONE_ROW_MAX;
    float values = score < 0 ? 0 : smallest_values(v, plans);
    for (int i = 0; i < nc; i++) {
        float used2 = 0;
        bool fits2 = false;
        float score2 = plan_panels(p, v, area, cand[i], two, &used2, &fits2);
        float need = one_row ? TWO_ROW_GAIN : 1.0f, values2 = smallest_values(v, two);
        bool close = !one_row && fabsf(score2 - score) <= SPLIT_TIE * score;
        bool better = close && values2 != values ? values2 > values : score2 > need * score;
        if (score < 0 || (fits2 && !*fits) || (fits2 == *fits && better)) {
            memcpy(plans, two, sizeof two[0] * (size_t)n);
            *used_h = used2;
            *fits = fits2;
            score = score2;
            values = values2;
            one_row = false;
        }
    }
    return score;
}
