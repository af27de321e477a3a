/*
** layout_plot.c: a plot panel drawn: every column of the matrix a series
** of markers over its rows (categories), y with round ticks and gridlines,
** a legend at the right, and the dashed bound (a step line) with its label.
*/
#include "layout_int.h"
#include "core/util.h"

#include <stdio.h>

/* A series colour, distinct from its neighbours and readable on the theme. */
static Color series_color(const Page *p, int i)
{
    static const Color light[8] = {
        { 0, 114, 178, 255 }, { 213, 94, 0, 255 }, { 0, 150, 110, 255 }, { 190, 90, 150, 255 },
        { 200, 140, 0, 255 }, { 60, 60, 60, 255 }, { 86, 160, 220, 255 }, { 150, 60, 30, 255 },
    };
    static const Color dark[8] = {
        { 86, 180, 233, 255 }, { 240, 150, 40, 255 }, { 0, 200, 140, 255 }, { 240, 228, 66, 255 },
        { 220, 140, 190, 255 }, { 230, 230, 230, 255 }, { 255, 110, 80, 255 }, { 170, 150, 255, 255 },
    };
    return (p->th->dark ? dark : light)[i % 8];
}

/* A marker: filled square for even series, hollow for odd ones. */
static void marker(Page *p, float x, float y, float s, Color c, int series, int k)
{
    Rect b = { x - s / 2, y - s / 2, s, s };
    int i = series % 2 ? draw_frame(p->d, b, c, fmaxf(1.5f, s / 4), ROLE_PLOT)
                       : draw_rect(p->d, b, c, ROLE_PLOT);
    lay_tag(p, i, k, -1, series);
}

/* Where a plot's parts go, found before any of them is drawn. */
typedef struct PlotFrame {
    const Panel *pn;
    int k, rows, nser;
    double lo, hi;              /* the y range */
    Ticks t;                    /* its ticks */
    char **names;               /* the series' names (NULL: numbered) */
    float lfs, sw, leg_w;       /* legend font, swatch length, the legend's width */
    float yt_w;                 /* the widest y tick label */
    float px, pw, top, bottom, ph;   /* the plot area: left, width, top, bottom, height */
    float sx, ms;               /* a row's slot across, a marker's size */
    AxisPlan xl;                /* the x labels */
    bool has_x, has_y;          /* axis titles */
} PlotFrame;

/* The y range of a plot: from 0 (or below) to just above the data and the
** bound, rounded out to a step when that stays finite (see scale_ticks). */
static void plot_range(const Panel *pn, double *lo_out, double *hi_out)
{
    const Mat *mm = pn->m;
    double lo = 0, hi = 1;
    if (!mat_finite_range(mm, &lo, &hi)) { lo = 0; hi = 1; }
    if (lo > 0) lo = 0;
    for (int r = 0; pn->bounds && r < mm->rows; r++)
        if (isfinite(pn->bounds[r])) { hi = fmax(hi, pn->bounds[r]); lo = fmin(lo, pn->bounds[r]); }
    if (!(hi > lo)) hi = lo + fmax(1, fabs(lo) * 1e-9);
    if (!(hi > lo)) hi = nextafter(lo, INFINITY);
    double step = scale_nice_step(hi / 4 - lo / 4);
    double rhi = step > 0 ? ceil((hi + PLOT_HEADROOM * (hi / 2 - lo / 2)) / step) * step : hi;
    double rlo = step > 0 ? floor(lo / step) * step : lo;
    if (isfinite(rhi) && isfinite(rlo) && rhi > rlo) { hi = rhi; lo = rlo; }
    *lo_out = lo;
    *hi_out = hi;
}

/* The name of series s: its own, or its number (written into buf). */
static const char *series_name(char **names, int s, char *buf, size_t n)
{
    if (names && names[s]) return names[s];
    snprintf(buf, n, "%d", s + 1);
    return buf;
}

/*
** The frame of a plot in box: the legend's width at the right, the y tick
** labels and axis title at the left, the x labels and axis title below,
** the plot area between, its y ticks as many as its height holds, the
** slots and markers of the series. False when the area is too small to
** plot in.
*/
static bool plot_frame(const Page *p, const Panel *pn, int k, Rect box, PlotFrame *f)
{
    const Metrics *m = &p->m;
    char buf[64];
    f->pn = pn;
    f->k = k;
    f->rows = pn->m->rows;
    f->nser = pn->m->cols;
    plot_range(pn, &f->lo, &f->hi);
    f->t = scale_ticks(f->lo, f->hi, PLOT_MAX_TICKS);
    f->lfs = m->legend;
    f->sw = LEGEND_SWATCH * f->lfs;
    f->names = pn->series ? pn->series : pn->col_labels;
    float name_w = 0;
    for (int s = 0; s < f->nser; s++)
        name_w = fmaxf(name_w, lay_width(p, series_name(f->names, s, buf, sizeof buf), f->lfs, 0));
    if (pn->bounds && pn->bound_label) name_w = fmaxf(name_w, lay_width(p, pn->bound_label, f->lfs, 0));
    f->leg_w = fminf(f->sw + m->gs + name_w + 1, LEGEND_MAX * box.w);
    f->yt_w = 0;
    for (int i = 0; i < f->t.n; i++) {
        scale_tick_text(buf, sizeof buf, &f->t, i);
        f->yt_w = fmaxf(f->yt_w, lay_width(p, buf, m->tick, 0));
    }
    f->has_y = pn->y_axis && pn->y_axis[0];
    f->has_x = pn->row_axis && pn->row_axis[0];
    f->px = box.x + (f->has_y ? LH * m->axis + m->gs : 0) + f->yt_w + m->gs;
    f->pw = box.x + box.w - f->leg_w - m->gap - f->px;
    f->top = box.y + LH * m->ptitle + m->gs + TICK_OVERHANG * INK * m->tick;
    f->xl = lay_plan_cols(p, pn->row_labels, f->rows, f->pw / f->rows, m->label, PLOT_LABEL_MAX * box.h, 0, 0,
                           m->label_min, NULL);
    f->bottom = box.y + box.h - (f->has_x ? LH * m->axis : 0) - (f->xl.band > 0 ? f->xl.band + m->gs : 0) - m->gs;
    f->ph = f->bottom - f->top;
    if (f->pw < PLOT_AREA_MIN || f->ph < PLOT_AREA_MIN) return false;
    int want = (int)(f->ph / (PLOT_TICK_LINES * LH * m->tick)) + 1;
    f->t = scale_ticks(f->lo, f->hi, want < 2 ? 2 : want > PLOT_MAX_TICKS ? PLOT_MAX_TICKS : want);
    f->sx = f->pw / f->rows;
    float slot = f->sx / f->nser;
    f->ms = fmaxf(MARKER_MIN, fminf(MARKER_MAX * m->u, fminf(f->sx * MARKER_ROW, slot * MARKER_SLOT)));
    return true;
}

/* Where y value x is drawn. */
static float plot_y(const PlotFrame *f, double x)
{
    return f->bottom - f->ph * (float)scale_frac(x, f->lo, f->hi);
}

/* The gridlines with their y tick labels (never two closer than a line),
** the axes, the x labels and both axis titles. */
static void plot_axes(Page *p, const PlotFrame *f, Rect box)
{
    const Metrics *m = &p->m;
    const Theme *th = p->th;
    int k = f->k;
    char buf[256];
    float last = INFINITY;
    for (int i = 0; i < f->t.n; i++) {
        float y = plot_y(f, f->t.v[i]);
        lay_tag(p, draw_line(p->d, f->px, y, f->px + f->pw, y, th->frame, 1, ROLE_DECOR), k, -1, -1);
        if (fabsf(last - y) < LH * m->tick) continue;
        last = y;
        char cut[64];
        scale_tick_text(buf, sizeof buf, &f->t, i);
        lay_fit(p, buf, m->tick, 0, f->yt_w, cut, sizeof cut);
        Rect b = { f->px - m->gs - f->yt_w, y - LH * m->tick / 2, f->yt_w, LH * m->tick };
        lay_tag(p, lay_text(p, b, cut, m->tick, th->muted, ALIGN_RIGHT, VALIGN_MIDDLE, ROLE_TICK_LABEL, 0, 0),
                k, -1, -1);
    }
    float axis_w = fmaxf(1, 1.5f * m->u);
    lay_tag(p, draw_line(p->d, f->px, f->top, f->px, f->bottom, th->muted, axis_w, ROLE_DECOR), k, -1, -1);
    lay_tag(p, draw_line(p->d, f->px, f->bottom, f->px + f->pw, f->bottom, th->muted, axis_w, ROLE_DECOR), k, -1, -1);
    if (f->xl.fs > 0)
        lay_draw_cols(p, k, f->pn->row_labels, f->rows, &f->xl, f->sx, f->px, f->bottom, true, ROLE_ROW_LABEL);
    if (f->has_x) {
        lay_fit(p, f->pn->row_axis, m->axis, 0, f->pw, buf, sizeof buf);
        Rect b = { f->px, box.y + box.h - LH * m->axis, f->pw, LH * m->axis };
        lay_tag(p, lay_text(p, b, buf, m->axis, th->muted, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_AXIS_TITLE, 0, 0),
                k, -1, -1);
    }
    if (f->has_y) {
        lay_fit(p, f->pn->y_axis, m->axis, 0, f->ph, buf, sizeof buf);
        Rect b = { box.x, f->top, LH * m->axis, f->ph };
        lay_tag(p, lay_text(p, b, buf, m->axis, th->muted, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_AXIS_TITLE, 0, 1),
                k, -1, -1);
    }
}

/* A dashed line of the bound's colour and width, part of panel k. */
static void bound_line(Page *p, int k, float x0, float y0, float x1, float y1)
{
    int i = draw_line(p->d, x0, y0, x1, y1, p->th->fg, fmaxf(1.5f, 2 * p->m.u), ROLE_PLOT);
    p->d->cmds[i].dashed = 1;
    lay_tag(p, i, k, -1, -1);
}

/* The bound: a dashed step line, level over each row's category (its
** label is in the legend). */
static void plot_bound(Page *p, const PlotFrame *f)
{
    float last_y = 0;
    for (int r = 0; r < f->rows; r++) {
        float y = plot_y(f, f->pn->bounds[r]), x = f->px + r * f->sx;
        bound_line(p, f->k, x, y, f->px + (r + 1) * f->sx, y);
        if (r > 0 && fabsf(y - last_y) > 0.5f) bound_line(p, f->k, x, last_y, x, y);
        last_y = y;
    }
}

/* The series: a marker per point (the rows are categories, so no line
** joins them), side by side within a row's slot, its value printed above
** it when there is room, and a hit area for hovering. */
static void plot_series(Page *p, const PlotFrame *f)
{
    const Metrics *m = &p->m;
    float slot = f->sx / f->nser, ms = f->ms;
    int k = f->k;
    for (int s = 0; s < f->nser; s++) {
        Color c = series_color(p, s);
        for (int r = 0; r < f->rows; r++) {
            double x = mat_get(f->pn->m, r, s);
            if (!isfinite(x)) continue;
            float X = f->px + r * f->sx + (f->nser > 1 ? (s + 0.5f) * slot : 0.5f * f->sx);
            float Y = plot_y(f, x);
            Rect hit = { X - fmaxf(slot, ms) / 2, Y - ms, fmaxf(slot, ms), 2 * ms };
            lay_tag(p, draw_rect(p->d, hit, (Color){ 0, 0, 0, 0 }, ROLE_CELL), k, r, s);
            marker(p, X, Y, ms, c, s, k);
            char num[32];
            util_fmt_cell(num, sizeof num, x, f->pn->decimals >= 0 ? f->pn->decimals : 2, false);
            float nw = lay_width(p, num, m->tick, 0), lh = LH * m->tick;
            if (nw <= slot - m->pad && Y - ms / 2 - lh >= f->top) {
                Rect b = { X - nw / 2 - m->pad / 2, Y - ms / 2 - lh, nw + m->pad, lh };
                lay_tag(p, draw_rect(p->d, b, p->th->bg, ROLE_DECOR), k, r, s);
                lay_tag(p, lay_text(p, b, num, m->tick, p->th->fg, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_PLOT, 0, 0),
                        k, r, s);
            }
        }
    }
}

/* One legend entry at height y: the swatch (a line already drawn by the
** caller), then the name cut to what is left of the legend's width. */
static void legend_name(Page *p, const PlotFrame *f, float lx, float y, float lfs, float llh, const char *name,
                        int series)
{
    char cut[256];
    float w = f->leg_w - f->sw - p->m.gs;
    lay_fit(p, name, lfs, 0, w, cut, sizeof cut);
    Rect b = { lx + f->sw + p->m.gs, y - llh / 2, w, llh };
    lay_tag(p, lay_text(p, b, cut, lfs, p->th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_PLOT, 0, 0), f->k, -1, series);
}

/* The legend at the right: a swatch with its marker and the name of each
** series that fits the height, then the bound's dashed swatch and label. */
static void plot_legend(Page *p, const PlotFrame *f, Rect box)
{
    const Metrics *m = &p->m;
    char buf[32];
    float lfs = f->lfs, lx = box.x + box.w - f->leg_w, llh = LH * lfs;
    if (f->nser * llh > f->ph) { lfs = lay_px(fmaxf(m->min_font, f->ph / f->nser / LH)); llh = LH * lfs; }
    for (int s = 0; s < f->nser && (s + 1) * llh <= f->ph + 0.01f; s++) {
        Color c = series_color(p, s);
        float y = f->top + s * llh + llh / 2;
        lay_tag(p, draw_line(p->d, lx, y, lx + f->sw, y, c, fmaxf(2, 2.5f * m->u), ROLE_PLOT), f->k, -1, s);
        marker(p, lx + f->sw / 2, y, f->ms, c, s, f->k);
        legend_name(p, f, lx, y, lfs, llh, series_name(f->names, s, buf, sizeof buf), s);
    }
    if (f->pn->bounds && f->pn->bound_label && (f->nser + 1) * llh <= f->ph + 0.01f) {
        float y = f->top + f->nser * llh + llh / 2;
        bound_line(p, f->k, lx, y, lx + f->sw, y);
        legend_name(p, f, lx, y, lfs, llh, f->pn->bound_label, -1);
    }
}

/*
** A line plot: every column of the matrix is a series over its rows, x at
** category positions labelled with the row labels, y with round ticks and
** gridlines, a legend at the right, and the dashed bound with its label.
*/
void lay_draw_plot(Page *p, const View *v, int k, const PanelPlan *pp)
{
    const Panel *pn = &v->panels[k];
    lay_panel_title(p, pn, k, pp->box);
    if (!pn->m || pn->m->rows <= 0 || pn->m->cols <= 0) return;
    PlotFrame f;
    if (!plot_frame(p, pn, k, pp->box, &f)) return;
    plot_axes(p, &f, pp->box);
    if (pn->bounds) plot_bound(p, &f);
    plot_series(p, &f);
    plot_legend(p, &f, pp->box);
}
