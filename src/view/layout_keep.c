/*
** layout_keep.c: the last page laid out, kept for the next frames of the
** same view (KeptPage in layout_int.h).
**
** The window lays its view out at every frame, and most frames differ
** from the last only in the outlines: the pointer moved to another cell
** (the explained cell and its operands), or the focus moved. Nothing else
** of the page depends on them: the outlines are drawn last in each heatmap
** panel, over its cells and colour bar, and no plan reads them. So the
** page is kept without them, with the place of each panel's outlines in
** its commands; a frame with the same key (PageKey: the view, canvas,
** text scale, measure, theme, colormap, blank panels and language) copies
** the kept commands and draws the outlines back in at their places, the
** same commands in the same order as a full layout would give.
*/
#include "layout_int.h"
#include "core/text/i18n.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* The key of the page o asks for of v; false when v cannot be kept (a
** view made by hand, serial 0, or a colormap name too long for the key). */
static bool page_key(const View *v, const LayoutOpts *o, PageKey *k)
{
    memset(k, 0, sizeof *k);
    if (!v || !v->serial || (o->cmap && strlen(o->cmap) >= sizeof k->cmap)) return false;
    k->serial = v->serial;
    k->width = o->width;
    k->height = o->height;
    k->text_scale = o->text_scale;
    k->measure = o->measure ? o->measure : layout_measure_fixed;
    k->measure_ctx = o->measure_ctx;
    k->theme = o->theme ? *o->theme : layout_theme(false);
    if (o->cmap) snprintf(k->cmap, sizeof k->cmap, "%s", o->cmap);
    k->hidden = o->hidden;
    snprintf(k->lang, sizeof k->lang, "%s", i18n_language());
    return true;
}

/* True when two keys ask for the same page (memset keys: no padding differs). */
static bool same_key(const PageKey *a, const PageKey *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* No outlines placed yet in the page being drawn. */
void lay_outlines_reset(LayoutCache *c)
{
    for (int k = 0; k < VIEW_MAX_PANELS; k++) c->drawn.at[k] = c->drawn.end[k] = -1;
}

/* v's page from the kept one, with o's outlines. */
bool lay_kept_draw(LayoutCache *c, const View *v, const LayoutOpts *o, DrawList *out)
{
    PageKey key;
    KeptPage *kp = &c->page;
    if (kp->seen < 2 || !page_key(v, o, &key) || !same_key(&key, &kp->key)) return false;
    Theme light = layout_theme(false);
    Page p;
    memset(&p, 0, sizeof p);
    p.o = *o;
    p.th = o->theme ? o->theme : &light;
    p.d = out;
    p.m.u = kp->at.u;
    p.lc = c;
    p.v = v;
    draw_copy_base(out, kp->list);
    int from = 0;
    for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++) {
        if (kp->at.at[k] < 0) continue;
        draw_copy_cmds(out, kp->list, from, kp->at.at[k]);
        from = kp->at.at[k];
        lay_draw_outlines(&p, v, k, &kp->at.plan[k]);
    }
    draw_copy_cmds(out, kp->list, from, kp->list->n);
    c->shrink = kp->shrink;                     /* as if laid out: head_cap reads it */
    return true;
}

/* Keep out, just laid out from v with o, without its outlines: at the
** second layout with one key (the first only notes the key), or at the
** first when o says keep_first. */
void lay_kept_store(LayoutCache *c, const View *v, const LayoutOpts *o, const DrawList *out)
{
    PageKey key;
    KeptPage *kp = &c->page;
    if (!page_key(v, o, &key)) {
        kp->seen = 0;
        return;
    }
    if (!same_key(&key, &kp->key) || kp->seen == 0) {
        memcpy(&kp->key, &key, sizeof key);    /* padding and all: the keys are compared whole */
        kp->seen = 1;
        if (!o->keep_first) return;
    }
    if (!kp->list) kp->list = draw_create(out->width, out->height);
    draw_copy_base(kp->list, out);
    kp->at = c->drawn;
    kp->shrink = c->shrink;
    int from = 0;
    for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++) {
        if (c->drawn.at[k] < 0) continue;
        assert(c->drawn.at[k] >= from && c->drawn.end[k] >= c->drawn.at[k]);
        draw_copy_cmds(kp->list, out, from, c->drawn.at[k]);
        kp->at.at[k] = kp->list->n;
        from = c->drawn.end[k];
    }
    draw_copy_cmds(kp->list, out, from, out->n);
    kp->seen = 2;
}

/* No page kept: the next layout plans its page. */
void layout_cache_forget_page(LayoutCache *c)
{
    if (c) c->page.seen = 0;
}
