/*
** layout_cache.c: a LayoutCache's memory (layout.h), and what a cache
** keeps of a view from one layout to the next: each panel's value stats
** and the block colours of a heatmap drawn as an image, each under the key
** layout.h documents.
*/
#include "layout_int.h"
#include "core/util.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
** A panel's value stats: the range of its finite values, whether any is
** not finite, whether all are whole, and the range of those other than 0
** and 1. The plain loop says what they are:
**
**     for each value x, in order:
**         not finite: note it, next
**         vmin = x when x < vmin (or x is the first finite value); vmax alike
**         ints = false when x is not whole
**         x is not 0 or 1: nx_min, nx_max likewise
**
** The first layout of a stage of a real model's layer reads twelve
** matrices of a million values here, so on CPUs with AVX2 the extremes are
** found four values at a time (ranges), the plain loop serving the rest.
** Minimum and maximum do not depend on the order of the values but for one
** thing: 0.0 and -0.0 compare equal, so a zero extreme is the matrix's
** first zero, with its sign, which the fast path looks up afterwards.
** Whether every value is whole is settled by the first that is not,
** almost always among the first few, so it stays a plain loop in both.
*/

/* The plain loop over values [i, n) of d, continuing st's ranges. */
static void stats_plain(const double *d, long i, long n, PanelStats *st)
{
    for (; i < n; i++) {
        double x = d[i];
        if (!isfinite(x)) { st->any_nonfinite = true; continue; }
        if (!st->any || x < st->vmin) st->vmin = x;
        if (!st->any || x > st->vmax) st->vmax = x;
        st->any = true;
        if (x == 0.0 || x == 1.0) continue;
        if (!st->any_nx || x < st->nx_min) st->nx_min = x;
        if (!st->any_nx || x > st->nx_max) st->nx_max = x;
        st->any_nx = true;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The four extremes of [0, n4) of d (n4 a multiple of 4) into st, four
** lanes at a time; a lane's ±∞ means it saw no value. */
__attribute__((target("avx2"))) static void stats_avx2(const double *d, long n4, PanelStats *st)
{
    const __m256d inf = _mm256_set1_pd(INFINITY), ninf = _mm256_set1_pd(-INFINITY);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
    __m256d lo = inf, hi = ninf, nlo = inf, nhi = ninf, bad = zero;
    for (long i = 0; i < n4; i += 4) {
        __m256d x = _mm256_loadu_pd(d + i);
        __m256d fin = _mm256_cmp_pd(_mm256_and_pd(x, abs_mask), inf, _CMP_LT_OQ);    /* false for NaN, ±∞ */
        __m256d nx = _mm256_and_pd(fin, _mm256_and_pd(_mm256_cmp_pd(x, zero, _CMP_NEQ_OQ),
                                                      _mm256_cmp_pd(x, one, _CMP_NEQ_OQ)));
        bad = _mm256_or_pd(bad, _mm256_xor_pd(fin, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))));
        /* min_pd(a, b) is a < b ? a : b: the plain loop's update */
        lo = _mm256_min_pd(_mm256_blendv_pd(inf, x, fin), lo);
        hi = _mm256_max_pd(_mm256_blendv_pd(ninf, x, fin), hi);
        nlo = _mm256_min_pd(_mm256_blendv_pd(inf, x, nx), nlo);
        nhi = _mm256_max_pd(_mm256_blendv_pd(ninf, x, nx), nhi);
    }
    double l[4], h[4], nl[4], nh[4];
    _mm256_storeu_pd(l, lo);
    _mm256_storeu_pd(h, hi);
    _mm256_storeu_pd(nl, nlo);
    _mm256_storeu_pd(nh, nhi);
    st->any_nonfinite = _mm256_movemask_pd(bad) != 0;
    for (int j = 0; j < 4; j++) {
        if (l[j] != INFINITY && (!st->any || l[j] < st->vmin)) st->vmin = l[j];
        if (h[j] != -INFINITY && (!st->any || h[j] > st->vmax)) st->vmax = h[j];
        st->any |= l[j] != INFINITY;
        if (nl[j] != INFINITY && (!st->any_nx || nl[j] < st->nx_min)) st->nx_min = nl[j];
        if (nh[j] != -INFINITY && (!st->any_nx || nh[j] > st->nx_max)) st->nx_max = nh[j];
        st->any_nx |= nl[j] != INFINITY;
    }
}

/* Whether this CPU has AVX2 (asked once). */
static bool have_avx2(void)
{
    static int has = -1;
    if (has < 0) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("avx2") != 0;
    }
    return has;
}

/* The first zero of the n values at d (there is one), with its sign. */
static double first_zero(const double *d, long n)
{
    long i = 0;
    while (i < n && d[i] != 0.0) i++;
    assert(i < n);
    return d[i];
}
#endif

/* One pass over a matrix for its PanelStats. */
static PanelStats panel_stats(const Mat *m)
{
    PanelStats st = { 0, 0, false, false, true, 0, 0, false };
    if (!m) return st;
    const double *d = mat_data(m);
    long n = (long)m->rows * m->cols, i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (n >= 64 && have_avx2()) {
        i = n & ~3L;
        stats_avx2(d, i, &st);
        stats_plain(d, i, n, &st);
        if (st.any && st.vmin == 0.0) st.vmin = first_zero(d, n);
        if (st.any && st.vmax == 0.0) st.vmax = first_zero(d, n);
        i = n;
    }
#endif
    stats_plain(d, i, n, &st);
    for (long k = 0; k < n && st.ints; k++)
        if (isfinite(d[k]) && d[k] != floor(d[k])) st.ints = false;
    return st;
}

/* The stats of a matrix panel k borrows from the view's trace: kept for
** every view of that trace (a trace's matrices never change while it
** lives, and its serial is never another's). */
static PanelStats trace_stats(LayoutCache *c, const View *v, const Mat *m)
{
    if (c->kept_trace != v->trace_serial) {
        c->kept_trace = v->trace_serial;
        c->nkept = 0;
    }
    for (int i = 0; i < c->nkept; i++)
        if (c->kept[i].m == m) return c->kept[i].st;
    PanelStats st = panel_stats(m);
    if (c->nkept < LAYOUT_KEPT_STATS) {
        c->kept[c->nkept].m = m;
        c->kept[c->nkept++].st = st;
    }
    return st;
}

/* The stats of panel k of v: remembered for the last view laid out (its
** serial number says it is the same view, whose matrices have not changed),
** so that hovering, resizing and presenting do not read every value of a
** large lesson again at each layout; and for a matrix of the trace itself
** (a panel that owns no part of its own), for every view of that trace. */
PanelStats lay_view_stats(LayoutCache *c, const View *v, int k)
{
    assert(k >= 0 && k < VIEW_MAX_PANELS);
    const Panel *p = &v->panels[k];
    const Mat *m = p->m;
    if (v->serial == 0) return panel_stats(m);
    if (c->stats_serial != v->serial) {
        c->stats_serial = v->serial;
        memset(c->stats_mat, 0, sizeof c->stats_mat);
    }
    if (!m || c->stats_mat[k] != m) {
        c->stats[k] = m && !p->owned && v->trace_serial ? trace_stats(c, v, m) : panel_stats(m);
        c->stats_mat[k] = m;
    }
    return c->stats[k];
}

/* The range panel k of v is coloured by, read through the cache's stats. */
bool layout_panel_range(LayoutCache *c, const View *v, int k, double *lo, double *hi)
{
    if (!v || k < 0 || k >= v->npanels || v->panels[k].kind != PANEL_HEATMAP) return false;
    PanelStats stats[VIEW_MAX_PANELS];
    const Panel *pn = &v->panels[k];
    for (int j = 0; j < v->npanels && j < VIEW_MAX_PANELS; j++) {
        const Panel *q = &v->panels[j];
        bool needed = j == k || (pn->scale_group > 0 && q->scale_group == pn->scale_group);
        stats[j] = needed ? lay_view_stats(c, v, j) : (PanelStats){ 0, 0, false, false, true, 0, 0, false };
    }
    bool nonfinite;
    return lay_group_range(v, stats, pn, lo, hi, &nonfinite);
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

/* Free the kept image colours and page, then the cache. */
void layout_cache_free(LayoutCache *c)
{
    if (!c) return;
    for (int k = 0; k < VIEW_MAX_PANELS; k++) free(c->images[k].px);
    draw_free(c->page.list);
    free(c);
}
