/*
** sorter.c: the slide sorter: a stage's pages as a grid of small pictures
** (sorter.h).
*/
#include "sorter.h"
#include "frame.h"
#include "picture.h"
#include "core/text/i18n.h"
#include "core/util.h"
#include "view/cmap.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THUMB_MIN_TEXT 4.0f     /* text drawn smaller than this many pixels is left out of a picture */

struct AppSorter {
    int grid;                   /* the grid laid out (its first page / SORTER_GRID), or -1 */
    int n;                      /* its pages */
    DrawList *page[SORTER_GRID];    /* each laid out on the slide's canvas */
    char *caption[SORTER_GRID];     /* "page 3 · head 1 of 4 · weights" */
    LayoutCache *lc;
};

/* An empty sorter. */
AppSorter *app_sorter_create(void)
{
    AppSorter *s = xcalloc(1, sizeof *s);
    s->grid = -1;
    s->lc = layout_cache_create();
    return s;
}

/* Drop the pages laid out (the next look lays them out again). */
static void forget(AppSorter *s)
{
    for (int i = 0; i < SORTER_GRID; i++) {
        draw_free(s->page[i]);
        free(s->caption[i]);
        s->page[i] = NULL;
        s->caption[i] = NULL;
    }
    s->n = 0;
    s->grid = -1;
}

/* Release it. */
void app_sorter_free(AppSorter *s)
{
    if (!s) return;
    forget(s);
    layout_cache_free(s->lc);
    free(s);
}

/* The pages of the stage shown. */
static int pages(const AppState *a)
{
    return a->view ? a->view->nsteps : 0;
}

/* Lay out the pages of grid g of the stage shown, as the slide shows them
** (the window's theme, colormap and head). */
static void lay_out(AppState *a, int g)
{
    AppSorter *s = a->thumbs;
    forget(s);
    int n = pages(a), first = g * SORTER_GRID;
    if (!a->doc || first >= n) return;
    ShotOpts o = app_shot_defaults();
    o.dark = a->dark;
    o.cmap = a->cmap >= 0 ? cmap_names()[a->cmap] : NULL;
    for (int i = 0; i < SORTER_GRID && first + i < n; i++) {
        StageOpts so = { a->head, first + i, false, a->pager };
        View *v = stage_view_with(a->doc->L, a->doc->T, a->stage, &so);
        if (!v) break;
        s->page[i] = draw_create(o.width, o.height);
        app_shot_layout_view(a->measure, a->measure_ctx, s->lc, v, &o, s->page[i]);
        const char *words = v->step_label ? v->step_label : v->token >= 0 ? NULL : v->step_name;
        Buf b = {0};
        buf_printf(&b, _("page %d"), first + i + 1);
        if (v->token >= 0) {                /* a K/V cache's page: the token it decodes first */
            buf_printf(&b, "  \xc2\xb7  ");
            buf_printf(&b, _("token %d of %d"), v->token + 1, a->doc->L->setups[v->setup].nq);
        }
        if (words && words[0]) buf_printf(&b, "  \xc2\xb7  %s", words);
        s->caption[i] = buf_take(&b);
        stage_view_free(v);
        s->n = i + 1;
    }
    s->grid = g;
}

/* G. */
void app_sorter_toggle(AppState *a)
{
    if (a->sorter) {
        app_sorter_close(a);
        return;
    }
    if (!a->view) return;
    if (pages(a) < 2) {
        app_toast(a, _("this stage has one page"));
        return;
    }
    a->sorter = true;
    a->help = a->picker = false;
    a->sorter_sel = a->step < pages(a) ? a->step : pages(a) - 1;
    lay_out(a, a->sorter_sel / SORTER_GRID);
}

/* Esc. */
void app_sorter_close(AppState *a)
{
    a->sorter = false;
    forget(a->thumbs);
}

/* Page i selected, its grid laid out when it is not yet. */
void app_sorter_select(AppState *a, int i)
{
    int n = pages(a);
    if (!a->sorter || n < 1) return;
    a->sorter_sel = i < 0 ? 0 : i >= n ? n - 1 : i;
    if (a->sorter_sel / SORTER_GRID != a->thumbs->grid) lay_out(a, a->sorter_sel / SORTER_GRID);
}

/* The arrows, PgUp and PgDn. */
void app_sorter_move(AppState *a, int d)
{
    int to = a->sorter_sel + d;
    if (to < 0 || to >= pages(a)) {     /* past the first or last page: to it, unless that turns no grid */
        if (d == SORTER_GRID || d == -SORTER_GRID) to = d > 0 ? pages(a) - 1 : 0;
        else return;
    }
    app_sorter_select(a, to);
}

/* Enter. */
void app_sorter_go(AppState *a)
{
    if (!a->sorter) return;
    int to = a->sorter_sel;
    app_sorter_close(a);
    app_show(a, to, a->head);
}

/* A new trace, lesson or measure: the grid again. */
void app_sorter_refresh(AppState *a)
{
    if (!a->sorter) return;
    if (pages(a) < 2) {
        app_sorter_close(a);
        return;
    }
    if (a->sorter_sel >= pages(a)) a->sorter_sel = pages(a) - 1;
    lay_out(a, a->sorter_sel / SORTER_GRID);
}

/* Where the sorter draws on a w x h canvas at text size size: its header
** line and the picture of each place of the grid, 16:9, with room for its
** caption under it. */
static void places(int w, int h, float size, Rect *head, Rect *pic)
{
    float margin = size, gap = size, cap = size * 1.6f;
    *head = (Rect){ margin, margin * 0.5f, (float)w - 2 * margin, size * 2.2f };
    float top = head->y + head->h + gap * 0.5f;
    float cw = ((float)w - 2 * margin - (SORTER_COLS - 1) * gap) / SORTER_COLS;
    float ch = ((float)h - top - margin - (SORTER_ROWS - 1) * gap) / SORTER_ROWS;
    float pw = fmaxf(1, fminf(cw, (ch - cap) * 16.0f / 9.0f)), ph = pw * 9.0f / 16.0f;
    for (int i = 0; i < SORTER_GRID; i++) {
        int r = i / SORTER_COLS, c = i % SORTER_COLS;
        pic[i] = (Rect){ margin + c * (cw + gap) + (cw - pw) / 2, top + r * (ch + gap), pw, ph };
    }
}

/* The page under a point. */
int app_sorter_at(const AppState *a, int w, int h, float x, float y)
{
    if (!a->sorter || a->thumbs->grid < 0) return -1;
    Rect head, pic[SORTER_GRID];
    places(w, h, app_frame_size(a, h), &head, pic);
    float cap = app_frame_size(a, h) * 1.6f;
    for (int i = 0; i < a->thumbs->n; i++)
        if (x >= pic[i].x && x < pic[i].x + pic[i].w && y >= pic[i].y && y < pic[i].y + pic[i].h + cap)
            return a->thumbs->grid * SORTER_GRID + i;
    return -1;
}

/* Copy laid-out page src into rectangle to of out, scaled: every command
** becomes part of the overlay (no cell to hover), text too small to read
** is left out. */
static void copy_scaled(DrawList *out, const DrawList *src, Rect to)
{
    float s = to.w / (float)src->width;
    draw_rect(out, to, src->background, ROLE_OVERLAY);
    for (int i = 0; i < src->n; i++) {
        const DrawCmd *c = &src->cmds[i];
        DrawCmd d = *c;
        d.r = (Rect){ to.x + c->r.x * s, to.y + c->r.y * s, c->r.w * s, c->r.h * s };
        d.role = ROLE_OVERLAY;
        d.panel = d.row = d.col = -1;
        if (c->kind == DRAW_TEXT) {
            d.size = c->size * s;
            if (d.size >= THUMB_MIN_TEXT) draw_push(out, &d, draw_str(src, c));
        } else if (c->kind == DRAW_IMAGE) {
            const Color *px;
            const DrawImage *im = draw_image_of(src, c, &px);
            DrawImage m = *im;
            int brows, bcols;
            Color *to_px;
            m.cw *= s;
            m.ch *= s;
            draw_image_size(im, &brows, &bcols);
            int k = draw_image(out, d.r.x, d.r.y, &m, ROLE_OVERLAY, &to_px);
            memcpy(to_px, px, sizeof *px * (size_t)brows * (size_t)bcols);
            out->cmds[k].panel = out->cmds[k].row = out->cmds[k].col = -1;
        } else {
            if (d.width > 0) d.width = fmaxf(c->width * s, 0.5f);
            if (c->kind == DRAW_RECT && (c->role == ROLE_CELL || c->role == ROLE_MASKED) && d.width == 0) {
                /* to whole pixels, outward: the gaps between cells, a fraction of
                ** a pixel now, would show as stripes where they round up */
                float x1 = ceilf(d.r.x + d.r.w), y1 = ceilf(d.r.y + d.r.h);
                d.r.x = floorf(d.r.x);
                d.r.y = floorf(d.r.y);
                d.r.w = x1 - d.r.x;
                d.r.h = y1 - d.r.y;
            }
            draw_push(out, &d, NULL);
        }
    }
}

/* The sorter. */
void app_sorter_draw(const AppState *a, const Theme *th, int w, int h, float size, MeasureFn measure, void *ctx,
                     DrawList *out)
{
    const AppSorter *s = a->thumbs;
    Rect head, pic[SORTER_GRID];
    places(w, h, size, &head, pic);
    draw_rect(out, (Rect){ 0, 0, (float)w, (float)h }, th->bg, ROLE_OVERLAY);
    int n = pages(a), first = s->grid * SORTER_GRID;
    char title[400], hint[300], cut[400];
    snprintf(title, sizeof title, _("%s: pages %d\xe2\x80\x93%d of %d"), a->view && a->view->title ? a->view->title : "",
             first + 1, first + s->n, n);
    snprintf(hint, sizeof hint, "%s", n > SORTER_GRID ? _("arrows, mouse: pick  \xc2\xb7  Enter: go  \xc2\xb7  Esc: back  \xc2\xb7  PgUp PgDn: more")
                                                      : _("arrows, mouse: pick  \xc2\xb7  Enter: go  \xc2\xb7  Esc: back"));
    float hw = fminf(measure(ctx, hint, size * 0.8f, 0), head.w * 0.5f);
    app_fit_text(hint, size * 0.8f, hw, measure, ctx, cut, sizeof cut);
    draw_text(out, (Rect){ head.x + head.w - hw, head.y, hw, head.h }, cut, size * 0.8f, th->muted, ALIGN_RIGHT,
              VALIGN_MIDDLE, ROLE_OVERLAY);
    app_fit_text(title, size * 1.1f, head.w - hw - size, measure, ctx, cut, sizeof cut);
    int t = draw_text(out, head, cut, size * 1.1f, th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
    out->cmds[t].bold = 1;
    for (int i = 0; i < s->n; i++) {
        Rect r = pic[i];
        bool sel = first + i == a->sorter_sel, shown = first + i == a->step;
        copy_scaled(out, s->page[i], r);
        float fw = sel ? fmaxf(3, size * 0.25f) : 1;
        draw_frame(out, (Rect){ r.x - fw, r.y - fw, r.w + 2 * fw, r.h + 2 * fw }, sel ? th->accent : th->frame, fw,
                   ROLE_OVERLAY);
        Rect cap = { r.x, r.y + r.h + size * 0.2f, r.w, size * 1.3f };
        if (sel) draw_rect(out, cap, th->accent, ROLE_OVERLAY);
        Color fg = sel ? cmap_text_for(th->accent) : shown ? th->fg : th->muted;
        app_fit_text(s->caption[i], size * 0.8f, cap.w - size * 0.4f, measure, ctx, cut, sizeof cut);
        int k = draw_text(out, (Rect){ cap.x + size * 0.2f, cap.y, cap.w - size * 0.4f, cap.h }, cut, size * 0.8f, fg,
                          ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
        out->cmds[k].bold = shown;
    }
}
