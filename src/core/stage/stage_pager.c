/*
** stage_pager.c: where a stage's pages are cut, as the layout answers.
**
** A stage shows what its builder adds; when that is more than the
** projector slide prints at the goal font, the pager (stage_pages.c) cuts
** it into pages. Whether a page serves is the layout's to say: the caller
** of stage_view_with hands core a StagePager made with the layout's
** answer (src/view/layout_fit.c), the way the window hands the layout its
** text measure, so that a page is cut exactly where the layout needs it
** and nowhere else. A page asked about is a View like the one shown: the
** stage's title, its explanation, a formula line, the note line when the
** page will have one, and the panels planned as they will be.
**
** The pager keeps what it learns for the views built with it: every
** answer, keyed by what a layout reads of the page (a window stepping
** through a stage's pages asks nothing twice), and the values of the
** current trace's large matrices (a 1024-token model's heads hold millions
** of numbers, read once). Without a pager (NULL), a stage is cut only where
** its panels pass VIEW_MAX_PANELS, the most a page draws.
*/
#include "stage_int.h"
#include "core/util.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MEMO_SIZE     4096      /* answers kept (a power of two); full, it starts again */
#define VALS_KEPT     64        /* large matrices whose values are kept */
#define VALS_KEEP_MIN 4096      /* cells from which a matrix's values are kept */

struct StagePager {
    PageFitsFn fits;
    void *ctx;
    int used;                               /* answers in memo */
    struct { uint64_t key; bool fits; } memo[MEMO_SIZE];    /* key 0: an empty slot */
    uint64_t vals_serial;                   /* the trace vals belong to */
    int nvals;
    struct { const Mat *m; StageVals v; } vals[VALS_KEPT];
};

/* A pager asking fits. */
StagePager *stage_pager_create(PageFitsFn fits, void *ctx)
{
    StagePager *pg = xcalloc(1, sizeof *pg);
    pg->fits = fits;
    pg->ctx = ctx;
    return pg;
}

/* Release it. */
void stage_pager_free(StagePager *pg)
{
    free(pg);
}

/* ------------------------------------------------------------------ values */

/* The values of a matrix as the cells print them: range, the range of
** those other than exact 0 and 1, any masked, all whole. */
StageVals stage_vals(const Mat *m)
{
    StageVals v = { false, 0, 0, false, 0, 0, false, true };
    for (long i = 0, n = m ? (long)m->rows * m->cols : 0; i < n; i++) {
        double x = mat_data(m)[i];
        if (!isfinite(x)) { v.nonfinite = true; continue; }
        if (!v.any || x < v.lo) v.lo = x;
        if (!v.any || x > v.hi) v.hi = x;
        v.any = true;
        if (x != floor(x)) v.ints = false;
        if (x == 0.0 || x == 1.0) continue;
        if (!v.any_nx || x < v.nx_lo) v.nx_lo = x;
        if (!v.any_nx || x > v.nx_hi) v.nx_hi = x;
        v.any_nx = true;
    }
    return v;
}

/* The values of m, a matrix of the trace T: read once while T lives, with
** the pager's memory (none without a pager). */
StageVals stage_trace_vals(StagePager *pg, const Trace *T, const Mat *m)
{
    if (!pg || !T || !T->serial || !m || (long)m->rows * m->cols < VALS_KEEP_MIN) return stage_vals(m);
    if (pg->vals_serial != T->serial) {
        pg->vals_serial = T->serial;
        pg->nvals = 0;
    }
    for (int i = 0; i < pg->nvals; i++)
        if (pg->vals[i].m == m) return pg->vals[i].v;
    StageVals v = stage_vals(m);
    if (pg->nvals < VALS_KEPT) {
        pg->vals[pg->nvals].m = m;
        pg->vals[pg->nvals++].v = v;
    }
    return v;
}

/* The values of panel p's matrix: kept when it is borrowed from the trace,
** read again when the view built it. */
StageVals stage_panel_vals(const Ctx *c, const Panel *p)
{
    return p->owned ? stage_vals(p->m) : stage_trace_vals(c->pager, c->T, p->m);
}

/* a and b together. */
StageVals stage_vals_join(StageVals a, StageVals b)
{
    if (!a.any) { b.nonfinite |= a.nonfinite; return b; }
    if (b.any) {
        a.lo = fmin(a.lo, b.lo);
        a.hi = fmax(a.hi, b.hi);
    }
    if (b.any_nx) {
        a.nx_lo = a.any_nx ? fmin(a.nx_lo, b.nx_lo) : b.nx_lo;
        a.nx_hi = a.any_nx ? fmax(a.nx_hi, b.nx_hi) : b.nx_hi;
        a.any_nx = true;
    }
    a.nonfinite |= b.nonfinite;
    a.ints &= b.ints;
    return a;
}

/* ------------------------------------------------------------------- keys */

/* h with v mixed in (a 64-bit FNV-1a step over its bytes). */
static uint64_t mix(uint64_t h, const void *v, size_t n)
{
    const unsigned char *b = v;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* h with a string mixed in (NULL and "" apart). */
static uint64_t mix_str(uint64_t h, const char *s)
{
    return s ? mix(h, s, strlen(s) + 1) : mix(h, "\xff", 1);
}

/* h with n strings mixed in. */
static uint64_t mix_strs(uint64_t h, char *const *s, int n)
{
    for (int i = 0; s && i < n; i++) h = mix_str(h, s[i]);
    return mix(h, &n, sizeof n);
}

/* h with a number mixed in. */
static uint64_t mix_num(uint64_t h, double x)
{
    return mix(h, &x, sizeof x);
}

/*
** What a layout reads of panel p, as a key: its kind, shape and the shape
** it is planned at, the values its numbers are printed for (vals: its own,
** or the span it is planned on), how they are printed, its texts. Two
** panels with one key are laid out alike.
*/
static uint64_t panel_key(const Panel *p, StageVals vals)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    int shape[9] = { p->kind, p->m ? p->m->rows : 0, p->m ? p->m->cols : 0, p->full_rows, p->full_cols, p->decimals,
                     p->probabilities, p->diverging, p->even_decimals };
    h = mix(h, shape, sizeof shape);
    if (p->has_span) {
        vals.lo = p->span_lo;
        vals.hi = p->span_hi;
    }
    double ends[4] = { vals.lo, vals.hi, vals.nx_lo, vals.nx_hi };
    bool flags[4] = { vals.any, vals.any_nx, vals.nonfinite, vals.ints };
    h = mix(h, ends, sizeof ends);
    h = mix(h, flags, sizeof flags);
    h = mix_str(mix_str(mix_str(mix_str(h, p->title), p->full_title), p->row_axis), p->col_axis);
    h = mix_str(mix_str(mix_str(mix_str(h, p->full_row_label), p->full_col_label), p->y_axis), p->bound_label);
    int rows = p->m ? p->m->rows : 0, cols = p->m ? p->m->cols : 0;
    h = mix_strs(mix_strs(h, p->row_labels, p->row_labels ? rows : 0), p->col_labels, p->col_labels ? cols : 0);
    h = mix_strs(h, p->series, p->series ? cols : 0);
    for (int i = 0; p->bounds && i < rows; i++) h = mix_num(h, p->bounds[i]);
    return h ? h : 1;
}

/* ------------------------------------------------------------------ pages */

/* Whether a page of panels[0 .. n) serves (those from must printing every
** number at the goal): the pager's answer, asked of the layout once for
** what it reads (the panels, as they will be planned, the explanation,
** the note line). */
bool stage_page_fits(Ctx *c, const Panel *panels, int n, const char *note, int must)
{
    assert(n >= 0);
    if (n > VIEW_MAX_PANELS) return false;              /* more than a page draws */
    StagePager *pg = c->pager;
    if (!pg || !pg->fits || n == 0) return true;
    Panel *copy = xmalloc(sizeof *copy * (size_t)n);
    /* the paragraphs the page will show: those tied to none, to its heads, or to every head (stage.c) */
    int h0 = 0, h1 = 0, npara = 0;
    for (int i = 0; i < n; i++) {
        int h = panels[i].ref.head;
        if (h > 0 && (h0 == 0 || h < h0)) h0 = h;
        if (h > h1) h1 = h;
    }
    char **paras = xmalloc(sizeof *paras * (size_t)(c->st->npara ? c->st->npara : 1));
    for (int i = 0; i < c->st->npara; i++)
        if (stage_para_shown(c->st->para_ties ? c->st->para_ties[i] : 0, c->H > 1 && h0 == 1 && h1 == c->H, h0, h1))
            paras[npara++] = c->st->paras[i];
    uint64_t key = mix_strs(0x84222325cbf29ce4ULL, paras, npara);
    key = mix_str(key, note && note[0] ? "note" : NULL);     /* a note is one line, whatever it says */
    key = mix(key, &c->dense, sizeof c->dense);
    for (int i = 0; i < n; i++) {
        copy[i] = panels[i];
        copy[i].fit_key = panel_key(&panels[i], stage_panel_vals(c, &panels[i]));
        copy[i].must_print = i >= must;
        key = mix(key, &copy[i].fit_key, sizeof copy[i].fit_key);
        key = mix(key, &copy[i].must_print, sizeof copy[i].must_print);
    }
    key = key ? key : 1;
    size_t slot = (size_t)(key & (MEMO_SIZE - 1));
    while (pg->memo[slot].key && pg->memo[slot].key != key) slot = (slot + 1) & (MEMO_SIZE - 1);
    bool fits;
    if (pg->memo[slot].key == key) {
        fits = pg->memo[slot].fits;
    } else {
        View page;                                      /* the page as it will be shown, to be laid out */
        memset(&page, 0, sizeof page);
        page.stage = (int)(c->st - c->L->stages);
        page.nstages = c->L->nstages;
        page.title = c->st->title ? c->st->title : (char *)stage_default_title(c->st->id);
        page.lesson_title = c->L->title;
        page.formula = "\xe2\x80\xa6";                  /* a formula is one line, whatever it says */
        page.note = note && note[0] ? (char *)note : NULL;
        page.paras = paras;
        page.npara = npara;
        page.panels = copy;
        page.npanels = page.cap_panels = n;
        page.token = -1;
        page.dense = c->dense;
        fits = pg->fits(pg->ctx, &page);
        if (pg->used >= MEMO_SIZE / 2) {                /* full enough: start again */
            memset(pg->memo, 0, sizeof pg->memo);
            pg->used = 0;
            slot = (size_t)(key & (MEMO_SIZE - 1));
        }
        pg->memo[slot].key = key;
        pg->memo[slot].fits = fits;
        pg->used++;
    }
    free(copy);
    free(paras);
    return fits;
}
