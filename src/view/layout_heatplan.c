/*
** layout_heatplan.c: one heatmap panel planned for a cell size, nothing
** drawn: its colour scale (shared within a scale group), the digits and
** font of its cell numbers, its label bands, its colour bar and the room
** all of them take around the grid. The solver (layout_plan.c) calls it
** at every cell size it tries, so what is asked again is remembered.
*/
#include "layout_int.h"
#include "core/util.h"

#include <stdio.h>
#include <string.h>

/* The stats of panel pn (computed by layout_view). Found by its matrix, since
** planning may work on a copy of the view's panels. */
const PanelStats *lay_stats_of(const Page *p, const Panel *pn)
{
    static const PanelStats none = { 0, 0, false, false, true, 0, 0, false };
    for (int k = 0; k < p->v->npanels && k < VIEW_MAX_PANELS; k++)
        if (p->v->panels[k].m == pn->m) return &p->stats[k];
    return &none;
}

/* The range a heatmap is coloured by, from the stats of v's panels: the
** range the panel was given (a zoomed part keeps its whole's), else its own
** finite range, or that of every panel in its scale group; a panel planned
** alike on every page of its stage (has_span) adds its group's values over
** every page, so that the colours of two pages compare. */
bool lay_group_range(const View *v, const PanelStats *stats, const Panel *pn, double *lo, double *hi,
                     bool *nonfinite)
{
    static const PanelStats none = { 0, 0, false, false, true, 0, 0, false };
    const PanelStats *st = &none;                   /* found by its matrix: pn may be a copy */
    for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++)
        if (v->panels[k].m == pn->m) { st = &stats[k]; break; }
    *nonfinite = st->any_nonfinite;
    if (pn->scale_fixed) {
        *lo = pn->scale_lo;
        *hi = pn->scale_hi;
        return true;
    }
    bool any = st->any;
    *lo = st->vmin;
    *hi = st->vmax;
    if (pn->has_span && pn->group_hi >= pn->group_lo) {
        *lo = any ? fmin(*lo, pn->group_lo) : pn->group_lo;
        *hi = any ? fmax(*hi, pn->group_hi) : pn->group_hi;
        any = true;
    }
    if (pn->scale_group <= 0) return any;
    for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++) {
        const Panel *q = &v->panels[k];
        if (q->scale_group != pn->scale_group || q->kind != PANEL_HEATMAP || !stats[k].any) continue;
        if (!any || stats[k].vmin < *lo) *lo = stats[k].vmin;
        if (!any || stats[k].vmax > *hi) *hi = stats[k].vmax;
        any = true;
    }
    return any;
}

/* The colour scale of a heatmap: [0, 1] for distributions, symmetric
** around 0 when diverging, else the finite range (widened when constant);
** panels of one scale group share it. Computed so that nothing overflows
** for any finite values (the half-range, not the difference). */
void lay_heat_scale(const Page *p, const Panel *pn, PanelPlan *pp)
{
    const PanelStats *st = lay_stats_of(p, pn);
    double lo, hi;
    bool nonfinite;
    bool any = lay_group_range(p->v, p->stats, pn, &lo, &hi, &nonfinite);
    pp->vmin = st->vmin;
    pp->vmax = st->vmax;
    if (pn->has_span && st->any) {      /* digits as on the stage's other pages */
        pp->vmin = fmin(pp->vmin, pn->span_lo);
        pp->vmax = fmax(pp->vmax, pn->span_hi);
    }
    pp->nx_min = st->nx_min;
    pp->nx_max = st->nx_max;
    pp->any_nx = st->any_nx;
    pp->even = pn->even_decimals;
    pp->any_nonfinite = st->any_nonfinite;
    if (pn->probabilities) { lo = 0; hi = 1; }
    else if (pn->diverging) {
        double a = fmax(fabs(lo), fabs(hi));
        if (!(a > 0)) a = 1;
        lo = -a; hi = a;
    } else if (!any || !(hi > lo)) {
        if (lo > 0) lo = 0;
        else if (hi < 0) hi = 0;
        else { lo = 0; hi = 1; }
    }
    pp->lo = lo;
    pp->hi = hi;
}

/* The colormap a panel is drawn with. */
const Cmap *lay_cmap(const Page *p, const Panel *pn)
{
    const Cmap *c = p->o.cmap ? cmap_get(p->o.cmap) : NULL;
    if (!c) c = cmap_get(pn->cmap);
    if (!c) c = cmap_get(pn->diverging ? "RdBu" : "viridis");
    return c;
}

/* The texts for a panel's values printed with decimals (compact or not),
** formatted the first time a layout asks (PlanMemo.texts). */
static const CellTexts *cell_texts(const Page *p, const PanelPlan *pp, int decimals, bool compact)
{
    PlanMemo *m = p->memo;
    double ends[4] = { pp->vmin, pp->vmax, pp->nx_min, pp->nx_max };
    uint64_t h = lay_mix(0x51afd7ed558ccd1ULL, (uint64_t)decimals * 8 + pp->even * 4 + compact * 2 + pp->any_nx);
    for (int i = 0; i < 4; i++) {
        uint64_t bits;
        memcpy(&bits, &ends[i], sizeof bits);
        h = lay_mix(h, bits);
    }
    h = lay_mix(h, (uint64_t)pp->any_nonfinite);
    bool hit;
    size_t k = lay_memo_slot(m->text_key, m->text_gen, TMEMO, h, p->gen, &hit);
    if (hit) return &m->texts[k];
    CellTexts *t = k < TMEMO ? &m->texts[k] : &m->spare;
    t->n = 0;
    for (int i = 0; i < (pp->any_nx ? 4 : 2); i++)
        util_fmt_cell_even(t->s[t->n++], sizeof t->s[0], ends[i], decimals, compact, pp->even);
    if (pp->any_nonfinite) snprintf(t->s[t->n++], sizeof t->s[0], "%s", MINUS_INF);
    if (k < TMEMO) {
        m->text_key[k] = h;
        m->text_gen[k] = p->gen;
    }
    return t;
}

/* The widest of t at a size. */
static float widest_text(const Page *p, const CellTexts *t, float size)
{
    float w = 0;
    for (int i = 0; i < t->n; i++) w = fmaxf(w, lay_width(p, t->s[i], size, 0));
    return w;
}

/* The widest cell text at a size (cell_texts). */
float lay_widest_value(const Page *p, const PanelPlan *pp, int decimals, bool compact, float size)
{
    return widest_text(p, cell_texts(p, pp, decimals, compact), size);
}

/* The smallest legible cell number on this canvas (VALUE_FLOOR scaled,
** never under FONT_MIN): below it a panel's numbers are hidden and the
** slide says so. */
float lay_value_floor(const Page *p)
{
    return lay_px(fmaxf(FONT_MIN, VALUE_FLOOR * p->m.u) * p->m.legible);
}

/* The largest font (at most the cell font) at which every value fits a
** cell of room_w x room_h, or 0 below the legible floor. The first guess
** scales the width at 100 px (text widths grow about linearly with size),
** then the font steps a pixel at a time: up while the next size fits
** (hinted widths grow in whole pixels, so a small font may fit where the
** guess says not), down while it does not. Under the floor's height, or
** in no width at all, that finds nothing, and nothing is measured. */
static float value_font(const Page *p, const PanelPlan *pp, int dec, bool compact, float room_w, float room_h)
{
    float top = lay_px(fminf(p->m.value, room_h / p->cell_ink)), fs = top;
    if (top < lay_value_floor(p) || room_w < 0) return 0;   /* what the steps below find: no room, no text */
    const CellTexts *t = cell_texts(p, pp, dec, compact);
    float w100 = widest_text(p, t, 100) / 100;
    if (w100 > 0) fs = fminf(fs, lay_px(room_w / w100));
    while (fs < top && widest_text(p, t, fs + 1) <= room_w) fs += 1;
    while (fs >= lay_value_floor(p) && widest_text(p, t, fs) > room_w) fs -= 1;
    return fs >= lay_value_floor(p) ? fs : 0;
}

/* The digits a panel's numbers are printed with: the lesson's `decimals:`,
** else what its values need (util_auto_decimals). */
static int value_decimals(const Page *p, const Panel *pn, const PanelPlan *pp)
{
    return pn->decimals >= 0 ? pn->decimals
         : util_auto_decimals(lay_stats_of(p, pn)->ints, fmax(fabs(pp->vmin), fabs(pp->vmax)), pn->probabilities);
}

/*
** The smallest cell that holds every number of a panel at font f, whole
** (not shortened to ".50"): the widest number and a pad at either side
** across, the font's ink and a pad down, each with the gap between cells
** when the cell is big enough to have one (lay_cell_gap). The solver sizes
** the cells of a panel whose numbers are printed this way, so that cells
** are as wide as their numbers, not square. pp holds the panel's scale
** (lay_heat_scale).
*/
void lay_value_cell(const Page *p, const Panel *pn, const PanelPlan *pp, float f, float *cw, float *ch)
{
    float w = lay_widest_value(p, pp, value_decimals(p, pn, pp), false, f) + 2 * p->m.pad;
    float h = p->cell_ink * f + p->m.pad + 0.01f;       /* a hair over, so that rounding keeps the font */
    float g = lay_cell_gap(p, w + 1, h + 1);
    *cw = w + g + 0.01f;
    *ch = h + g;
}

/*
** Whether a probe's page (LayoutOpts.probe) surely cannot print its
** numbers in W x H: the cells of the heatmaps that can print theirs
** (lay_plan_prints), each at its least (the legible floor, the short form
** ".50", as low as the digits allow, no gap), already need more than the
** whole area. A quick no, before every arrangement is tried.
*/
bool lay_probe_hopeless(const Page *p, const View *v, float W, float H)
{
    float f = lay_value_floor(p);
    double need = 0;
    for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++) {
        const Panel *pn = &v->panels[k];
        if (!p->prints[k] || !lay_is_heat(pn)) continue;
        PanelPlan pp;
        lay_heat_scale(p, pn, &pp);
        float w = lay_widest_value(p, &pp, value_decimals(p, pn, &pp), true, f) + 2 * p->m.pad;
        float h = CELL_INK * f + p->m.pad;
        need += (double)pn->m->rows * pn->m->cols * w * h;
    }
    return need > (double)W * H;
}

/*
** The cell font and decimals. The digits are decided by the values (or the
** lesson's `decimals:`), never by the room: a number is printed with all
** its digits, shortened to ".50" when that is what fits, or not at all
** (value_fs = 0; the slide then says the numbers are hidden).
*/
static void plan_values(const Page *p, const Panel *pn, PanelPlan *pp, float cw, float ch)
{
    int dec = value_decimals(p, pn, pp);
    float gapc = lay_cell_gap(p, cw, ch);
    float room_w = cw - gapc - 2 * p->m.pad, room_h = ch - gapc - p->m.pad;
    pp->decimals = dec;
    pp->compact = false;
    pp->value_fs = value_font(p, pp, dec, false, room_w, room_h);
    if (pp->value_fs == 0 && dec > 0) {
        pp->value_fs = value_font(p, pp, dec, true, room_w, room_h);
        pp->compact = pp->value_fs > 0;
    }
}

/* How many ticks a colour bar of height h asks for (1 to BAR_MAX_TICKS). */
static int bar_want(const Page *p, float h)
{
    int want = (int)(h / (BAR_TICK_LINES * LH * p->m.tick)) + 1;
    return want > BAR_MAX_TICKS ? BAR_MAX_TICKS : want < 1 ? 1 : want;
}

/* Colour-bar ticks for a bar of height h. */
Ticks lay_bar_ticks(const Page *p, const PanelPlan *pp, float h)
{
    return scale_ticks(pp->lo, pp->hi, bar_want(p, h));
}

/* The widest tick label of a colour bar of height h (lay_bar_ticks),
** formatted and measured once per layout for each scale and number of
** ticks. */
static float ticks_width(const Page *p, const PanelPlan *pp, float h)
{
    uint64_t lo, hi;
    memcpy(&lo, &pp->lo, sizeof lo);
    memcpy(&hi, &pp->hi, sizeof hi);
    PlanMemo *m = p->memo;
    uint64_t key = lay_mix(lay_mix(lay_mix(lay_mix(0x2127599bf4325c37ULL, lo), hi), (uint64_t)bar_want(p, h)),
                           (uint64_t)(p->m.tick * KEY_SUBPX));
    bool hit;
    size_t k = lay_memo_slot(m->tick_key, m->tick_gen, TICKMEMO, key, p->gen, &hit);
    if (hit) return m->tick_w[k];
    Ticks t = lay_bar_ticks(p, pp, h);
    float w = 0;
    char buf[64];
    for (int i = 0; i < t.n; i++) {
        scale_tick_text(buf, sizeof buf, &t, i);
        w = fmaxf(w, lay_width(p, buf, p->m.tick, 0));
    }
    if (k < TICKMEMO) {
        m->tick_key[k] = key;
        m->tick_gen[k] = p->gen;
        m->tick_w[k] = w;
    }
    return w;
}

/* The shortest colour bar that holds two tick labels. */
static float min_bar(const Page *p)
{
    return BAR_MIN_LINES * LH * p->m.tick;
}

/*
** Fonts, label bands and the room around the grid of a heatmap drawn with
** cells of cw x ch, in a row where it has a share of the width and the
** height H (the label bands take at most LABEL_BAND_MAX of them). Row and
** column labels start from one size, the largest the rows allow, so panels
** side by side label alike; long column labels may then shrink on their own.
*/
void lay_plan_heat(const Page *p, const Panel *pn, PanelPlan *pp, float cw, float ch, float share, float H)
{
    const Metrics *m = &p->m;
    float cap_w = LABEL_BAND_MAX * share, cap_h = LABEL_BAND_MAX * H;
    int rows = pn->m->rows, cols = pn->m->cols;
    char **rl = pp->share_rows ? NULL : pn->row_labels;
    pp->cw = cw;
    pp->ch = ch;
    plan_values(p, pn, pp, cw, ch);
    /* the size rows allow, even when another panel prints them: panels side
    ** by side then label alike; never under the labels' floor (lower on the
    ** page of every head side by side, where the panel prints no number) */
    float least = pp->value_fs > 0 ? m->label_min : m->label_glance;
    /* a grid of blocks (model_view) labels its blocks, each as a row or column of the block's size */
    int br = pn->row_blocks ? pn->block_rows : 1, bc = pn->col_blocks ? pn->block_cols : 1;
    if (pn->row_blocks) {
        rl = pp->share_rows ? NULL : pn->row_blocks;
        rows = pn->nrow_blocks;
    }
    if (pn->col_blocks) cols = pn->ncol_blocks;
    float fs = fmaxf(least, fminf(m->label, lay_px(ch * br / LH)));
    pp->rows = lay_plan_rows(p, rl, rows, ch * br, fs, cap_w, least);
    if (rl && pn->full_row_label && pp->rows.fs > 0)   /* a part that grows: as wide as when full */
        pp->rows.band = fminf(fmaxf(pp->rows.band, lay_width(p, pn->full_row_label, pp->rows.fs, 0)), cap_w);
    float gh = lay_rows(pn) * ch, half_tick = TICK_OVERHANG * INK * m->tick;
    /* the row axis title reads upward beside the grid, whole, or not at all */
    pp->row_axis = !pp->share_rows && pn->row_axis && pn->row_axis[0]
                && lay_width(p, pn->row_axis, m->axis, 0) <= gh;
    pp->left_w = (pp->row_axis ? LH * m->axis + m->gs : 0) + (pp->rows.band > 0 ? pp->rows.band + m->gs : 0);
    /* level column labels may use the empty corner above the row labels
    ** (not when rows are lower than the smallest label, whose first one
    ** then reaches above the grid), and the gap before the colour bar (or a
    ** little of the gap between panels) */
    float corner = INK * least > ch ? 0 : pp->left_w;
    pp->cols = lay_plan_cols(p, pn->col_blocks ? pn->col_blocks : pn->col_labels, cols, cw * bc, fs, cap_h, corner,
                             pp->share_bar ? SHARED_BAR_ROOM * m->gap : BAR_GAP * m->gs, least, pn->full_col_label);

    pp->tick_w = 0;
    pp->ext = 0;
    if (!pp->share_bar) {
        pp->ext = gh < min_bar(p) ? (min_bar(p) - gh) / 2 : 0;
        pp->tick_w = ticks_width(p, pp, gh + 2 * pp->ext);
    }

    float title = LH * m->ptitle + m->gs;
    float above = (pn->col_axis && pn->col_axis[0] ? LH * m->axis : 0)
                + (pp->cols.band > 0 ? pp->cols.band + m->gs : 0);
    if (!pp->share_bar) above = fmaxf(above, pp->ext + half_tick);
    pp->top_h = title + above;
    pp->bot_h = pp->share_bar ? 0 : pp->ext + half_tick;
    pp->right_w = pp->share_bar ? 0 : BAR_GAP * m->gs + m->bar_w + BAR_TEXT_GAP * m->gs + pp->tick_w;
}
