/*
** layout_cache.c: a LayoutCache's memory (layout.h), and what a cache
** keeps of a view from one layout to the next: each panel's value stats
** and the block colours of a heatmap drawn as an image, each under the key
** layout.h documents.
*/
#include "layout_int.h"
#include "core/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* One pass over a matrix for its PanelStats (in locals, which the
** compiler keeps in registers). */
static PanelStats panel_stats(const Mat *m)
{
    PanelStats st = { 0, 0, false, false, true, 0, 0, false };
    if (!m) return st;
    double vmin = 0, vmax = 0, nx_min = 0, nx_max = 0;
    bool any = false, any_nx = false, ints = true, nonfinite = false;
    const double *d = m->data;
    for (long i = 0, n = (long)m->rows * m->cols; i < n; i++) {
        double x = d[i];
        if (!isfinite(x)) { nonfinite = true; continue; }
        if (!any || x < vmin) vmin = x;
        if (!any || x > vmax) vmax = x;
        any = true;
        if (ints && x != floor(x)) ints = false;
        if (x == 0.0 || x == 1.0) continue;
        if (!any_nx || x < nx_min) nx_min = x;
        if (!any_nx || x > nx_max) nx_max = x;
        any_nx = true;
    }
    return (PanelStats){ vmin, vmax, any, nonfinite, ints, nx_min, nx_max, any_nx };
}

/* The stats of panel k of v: remembered for the last view laid out (its
** serial number says it is the same view, whose matrices have not changed),
** so that hovering, resizing and presenting do not read every value of a
** large lesson again at each layout. */
PanelStats lay_view_stats(LayoutCache *c, const View *v, int k)
{
    assert(k >= 0 && k < VIEW_MAX_PANELS);
    const Mat *m = v->panels[k].m;
    if (v->serial == 0) return panel_stats(m);
    if (c->stats_serial != v->serial) {
        c->stats_serial = v->serial;
        memset(c->stats_mat, 0, sizeof c->stats_mat);
    }
    if (!m || c->stats_mat[k] != m) {
        c->stats[k] = panel_stats(m);
        c->stats_mat[k] = m;
    }
    return c->stats[k];
}

/* The block colours of image panel k, n of them into px, when c keeps them
** under key: true; false when it keeps none or others. */
bool lay_image_recall(const LayoutCache *c, int k, const ImageKey *key, Color *px, size_t n)
{
    assert(k >= 0 && k < VIEW_MAX_PANELS && key->serial != 0);
    const ImageKey *o = &c->images[k].key;
    if (!c->images[k].px || o->serial != key->serial || o->m != key->m || o->rstep != key->rstep
        || o->cstep != key->cstep || o->lo != key->lo || o->hi != key->hi || o->cm != key->cm
        || memcmp(&o->masked, &key->masked, sizeof key->masked) != 0)
        return false;
    assert(c->images[k].cap >= n);
    memcpy(px, c->images[k].px, n * sizeof *px);
    return true;
}

/* Keep the n block colours px of image panel k under key, in place of what
** was kept for the panel. */
void lay_image_keep(LayoutCache *c, int k, const ImageKey *key, const Color *px, size_t n)
{
    assert(k >= 0 && k < VIEW_MAX_PANELS && key->serial != 0);
    if (c->images[k].cap < n) {
        free(c->images[k].px);
        c->images[k].px = xmalloc(n * sizeof *px);
        c->images[k].cap = n;
    }
    memcpy(c->images[k].px, px, n * sizeof *px);
    c->images[k].key = *key;
}

/* Zeroed memory is an empty cache: no memo slot belongs to layout 1 or
** later, and no view has serial 0 remembered. */
LayoutCache *layout_cache_create(void)
{
    return xcalloc(1, sizeof(LayoutCache));
}

/* Free the kept image colours, then the cache. */
void layout_cache_free(LayoutCache *c)
{
    if (!c) return;
    for (int k = 0; k < VIEW_MAX_PANELS; k++) free(c->images[k].px);
    free(c);
}
