/*
** layout_fit.c: the stage pager's question, answered by the layout.
**
** Core cuts a stage into pages (src/core/stage/stage_pages.c) asking, of a page
** as it will be shown, whether it serves on the projector slide (SLIDE_W x
** SLIDE_H): laid out at its full fonts, with room for everything, its
** explanation whole, and every heatmap's numbers printed at the goal font
** (VALUE_GOAL), or at what the panel prints alone on the slide with the
** page's explanation when that is less (a 20 x 20 matrix of "−12.34"
** prints at 13 px even alone, and must not take a page of its own for it);
** the explanation is on every page of a stage, whole and at its floor
** (BODY_FLOOR, 14 px): a page that cannot hold it with its panels is
** cut further, a panel alone gives way to it. A dense page (View.dense: a
** head's part of a stage whose heads would otherwise take more than
** STAGE_HEAD_PARTS pages each) serves when its panels print their numbers
** at all (at the legible floor or more); a panel marked must_print
** (next_token's words, cut into pages to print) is not excused. The answer comes from
** layout_view itself, with the caller's text measure, so that a page is
** cut exactly where the layout needs it.
**
**   LayoutFitter *lf = layout_fitter_create(measure, ctx);
**   StagePager *pg = stage_pager_create(layout_fitter_fits, lf);
**   ... views built with StageOpts.pager = pg ...
**   stage_pager_free(pg);
**   layout_fitter_free(lf);
**
** A fitter lays pages out in a cache of its own (never the window's: a
** question asked while a frame is drawn must not change it), and keeps
** what each panel prints alone, by the panel's fit_key and the page's
** explanation and note line.
*/
#include "layout_int.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

#define ALONE_KEPT 256          /* panels whose font alone is kept */

struct LayoutFitter {
    LayoutCache *lc;
    DrawList *d;
    MeasureFn measure;
    void *ctx;
    int width, height;          /* the page it judges: the projector slide, or a phone's (layout_fitter_shape) */
    float text_scale;
    int nalone, next;
    struct { uint64_t key; float font; } alone[ALONE_KEPT];
};

/* A fitter measuring with measure (and ctx). */
LayoutFitter *layout_fitter_create(MeasureFn measure, void *ctx)
{
    LayoutFitter *f = xcalloc(1, sizeof *f);
    f->lc = layout_cache_create();
    f->d = draw_create(SLIDE_W, SLIDE_H);
    f->measure = measure;
    f->ctx = ctx;
    f->width = SLIDE_W;
    f->height = SLIDE_H;
    f->text_scale = 1;
    return f;
}

/* Judge pages on a canvas of width SLIDE_W and aspect (height / width,
** at least the slide's) with text scaled by text_scale (at least 1): a
** phone held upright, its text as the browser sets it. */
void layout_fitter_shape(LayoutFitter *f, float aspect, float text_scale)
{
    float least = (float)SLIDE_H / SLIDE_W;
    f->width = SLIDE_W;
    f->height = (int)(SLIDE_W * (aspect > least && aspect < 8 ? aspect : least) + 0.5f);
    f->text_scale = text_scale >= 1 && text_scale <= 4 ? text_scale : 1;
    draw_free(f->d);
    f->d = draw_create(f->width, f->height);
    f->nalone = f->next = 0;
}

/* Release it. */
void layout_fitter_free(LayoutFitter *f)
{
    if (!f) return;
    layout_cache_free(f->lc);
    draw_free(f->d);
    free(f);
}

/* v laid out on the projector slide (or the fitter's shape) into f's list,
** as the pager's question (probe: at the full fonts, planned only) or as
** it is drawn; what it found. */
static LayoutFacts lay_slide(LayoutFitter *f, const View *v, bool probe)
{
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(f->width, f->height, &th, f->measure, f->ctx);
    o.text_scale = f->text_scale;
    o.legible_scale = f->text_scale;
    o.probe = probe;
    layout_view(f->lc, v, &o, f->d);
    return layout_facts(f->lc);
}

/* h with the bytes of s mixed in (lay_mix; NULL apart from ""). */
static uint64_t mix_text(uint64_t h, const char *s)
{
    if (!s) return lay_mix(h, 0x1ff);
    for (; *s; s++) h = lay_mix(h, (unsigned char)*s);
    return lay_mix(h, 0x1fe);
}

/* The font panel k of page prints its numbers at alone on the slide,
** with the page's explanation and note line, laid out as it is drawn
** (0: none), kept by its fit_key and those. */
static float alone_font(LayoutFitter *f, const View *page, int k)
{
    uint64_t key = page->panels[k].fit_key;
    if (key) {
        for (int i = 0; i < page->npara; i++) key = mix_text(key, page->paras[i]);
        key = mix_text(key, page->note && page->note[0] ? "note" : NULL);
        key = key ? key : 1;
    }
    for (int i = 0; key && i < f->nalone; i++)
        if (f->alone[i].key == key) return f->alone[i].font;
    View one = *page;
    one.panels = &page->panels[k];
    one.npanels = one.cap_panels = 1;
    float font = lay_slide(f, &one, false).value_fs[0];    /* as drawn: smaller titles if that prints it */
    if (key) {
        int slot = f->nalone < ALONE_KEPT ? f->nalone++ : f->next++ % ALONE_KEPT;
        f->alone[slot].key = key;
        f->alone[slot].font = font;
    }
    return font;
}

/* Whether page serves on the projector slide (see the top of the file). */
bool layout_fitter_fits(void *fitter, const View *page)
{
    LayoutFitter *f = fitter;
    if (page->npanels > VIEW_MAX_PANELS) return false;
    LayoutFacts facts = lay_slide(f, page, true);
    if (!facts.fitted || facts.shrink < 1 || facts.prose_cut) return false;
    if (facts.prose_fs > 0 && facts.prose_fs < facts.prose_floor) return false;
    for (int k = 0; k < page->npanels; k++) {
        if (page->panels[k].kind != PANEL_HEATMAP || facts.value_fs[k] >= facts.value_goal - 0.01f) continue;
        if (page->panels[k].must_print) return false;  /* no excuse (next_token's pages of words) */
        float alone = alone_font(f, page, k);
        float want = alone < facts.value_goal ? alone : facts.value_goal;
        if (page->dense) want = alone > 0 ? 0.5f : 0;     /* printed (at the legible floor or more) serves */
        if (facts.value_fs[k] < want - 0.01f) return false;
    }
    return true;
}
