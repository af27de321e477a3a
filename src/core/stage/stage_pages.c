/*
** stage_pages.c: a stage split into pages that the back row can read.
**
** A stage shows what its builder adds. When that is more than the
** projector slide prints legibly (every number at the goal font on a
** 1280x720 slide, as the layout answers: stage_pager.c), the stage becomes
** sub-steps, as the K/V cache is: → and ← move through them, --export
** writes a file for each.
**
** A stage that shows each head alike (the builder passes a function that
** adds one head's panels: stage_by_heads) is planned in units of heads:
** all heads on one page when they fit, else as many heads a page as
** divide the heads evenly, else a head a page, and a head that does not
** fit alone in parts. Any other stage is one unit (stage_paginate, after
** its builder). A unit that does not fit is cut into parts in the order
** its builder added the panels, each part as many panels as fit (a panel
** that does not fit alone is a part by itself, and the layout then hides
** its numbers; one that goes with the panel before it, Panel.with_previous,
** is never cut from it).
**
** The pages of a stage are planned alike: every panel carries the values
** of its kind over all the heads (its span: the layout plans its digits
** and cells for them, so the page of head 2 looks like the page of head 1,
** and pressing H does not resize a slide), and the values of its scale
** group over every page (so the colours of two pages compare). Nothing is
** computed but value ranges.
*/
#include "stage_int.h"
#include "core/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define BALANCE_MAX 12          /* units of at most this many panels are cut as evenly as they fit */

/* How a stage's units (heads, or the whole stage) go onto pages. */
typedef struct Book {
    int nunits;                 /* units shown */
    int per_page;               /* units a page (when nparts is 1) */
    int nparts;                 /* parts a unit is cut into */
    int *start;                 /* nparts + 1: part i is the unit's panels start[i] .. start[i + 1] - 1 */
    int pages;
} Book;

/* A book of nunits units of m panels, per_page of them a page, whole (one
** part each). */
static Book book_whole(int nunits, int per_page, int m)
{
    Book b = { nunits, per_page, 1, xmalloc(sizeof *b.start * 2), per_page > 0 ? nunits / per_page : 0 };
    b.start[0] = 0;
    b.start[1] = m;
    return b;
}

/* Free what a book holds. */
static void book_free(Book *b)
{
    free(b->start);
    b->start = NULL;
}

/* Free what panel p owns. */
void stage_panel_free(Panel *p)
{
    int rows = p->m->rows, cols = p->m->cols;
    free(p->title);
    free(p->full_title);
    free(p->full_row_label);
    free(p->full_col_label);
    for (int i = 0; p->row_labels && i < rows; i++) free(p->row_labels[i]);
    free(p->row_labels);
    for (int i = 0; p->col_labels && i < cols; i++) free(p->col_labels[i]);
    free(p->col_labels);
    free(p->row_axis);
    free(p->col_axis);
    free(p->cmap);
    free(p->y_axis);
    for (int i = 0; p->series && i < p->m->cols; i++) free(p->series[i]);
    free(p->series);
    free(p->bounds);
    free(p->bound_label);
    free(p->cell_marks);
    for (int i = 0; p->row_blocks && i < p->nrow_blocks; i++) free(p->row_blocks[i]);
    free(p->row_blocks);
    for (int i = 0; p->col_blocks && i < p->ncol_blocks; i++) free(p->col_blocks[i]);
    free(p->col_blocks);
    mat_free(p->owned);
    memset(p, 0, sizeof *p);
}

/* A new panel at the end of v's, zeroed. */
Panel *stage_new_panel(View *v)
{
    assert(v->npanels >= 0 && v->npanels <= v->cap_panels);
    if (v->npanels == v->cap_panels) {
        v->cap_panels = v->cap_panels ? 2 * v->cap_panels : 8;
        v->panels = xrealloc(v->panels, sizeof *v->panels * (size_t)v->cap_panels);
    }
    Panel *p = &v->panels[v->npanels++];
    memset(p, 0, sizeof *p);
    return p;
}

/* Free every panel of v and their array. */
void stage_panels_free(View *v)
{
    for (int k = 0; k < v->npanels; k++) stage_panel_free(&v->panels[k]);
    free(v->panels);
    v->panels = NULL;
    v->npanels = v->cap_panels = 0;
}

/* Keep panels [a, b) of those from `from` on, free the others after it. */
static void keep_panels(View *v, int from, int a, int b)
{
    int n = from;
    for (int k = from; k < v->npanels; k++) {
        if (k >= a && k < b) v->panels[n++] = v->panels[k];
        else stage_panel_free(&v->panels[k]);
    }
    v->npanels = n;
}

/* Whether panels[a, e) of a unit serve as a page. */
static bool part_fits(Ctx *c, const Panel *unit, int a, int e)
{
    return stage_page_fits(c, unit + a, e - a, c->note, e - a);
}

/* Whether panels[a, e) serve as a page in each of n units (a part of one
** panel always does: it is the least a page holds). */
static bool part_fits_all(Ctx *c, const Panel *const *units, int n, int a, int e)
{
    for (int u = 0; u < n && e - a > 1; u++)
        if (!part_fits(c, units[u], a, e)) return false;
    return true;
}

/* Cut a unit of m panels into parts greedily (each as many panels as
** serve in the first n units) into b. */
static void cut_greedy(Ctx *c, const Panel *const *units, int n, int m, Book *b)
{
    b->nparts = 0;
    for (int a = 0; a < m;) {
        int e = a + 1;
        while (e < m && part_fits_all(c, units, n, a, e + 1)) e++;
        int g = e;                                      /* a cut before a panel that goes with the one before it: */
        while (g < m && g > a && units[0][g].with_previous) g--;
        if (g > a) e = g;                               /* before the panels it goes with, */
        else while (e < m && units[0][e].with_previous) e++;    /* else after them */
        b->start[b->nparts++] = a;
        a = e;
    }
    b->start[b->nparts] = m;
}

/* The search for the most even cut of a unit into parts. */
typedef struct Balance {
    Ctx *c;
    const Panel *unit;
    int m, nparts;
    int start[BALANCE_MAX + 1];
    long best;                  /* the fewest cells of a part in the best cut so far (-1: none) */
    int best_start[BALANCE_MAX + 1];
} Balance;

/* The cells panels [a, e) show. */
static long part_cells(const Panel *unit, int a, int e)
{
    long n = 0;
    for (int k = a; k < e; k++) n += unit[k].kind == PANEL_HEATMAP ? (long)unit[k].m->rows * unit[k].m->cols : 0;
    return n;
}

/*
** Every cut of the unit into z->nparts parts that each fit, part i from
** z->start[i]: the one whose smallest part shows the most cells wins, so
** that V goes with the output it makes rather than leaving the output
** alone. (The fewest parts are known: the greedy cut found them.)
*/
static void balance(Balance *z, int i, long least)
{
    int from = z->start[i - 1];
    if (i == z->nparts) {
        if (!part_fits(z->c, z->unit, from, z->m)) return;
        long n = part_cells(z->unit, from, z->m), low = i == 1 || n < least ? n : least;
        if (low > z->best) {
            z->best = low;
            memcpy(z->best_start, z->start, sizeof z->start);
            z->best_start[z->nparts] = z->m;
        }
        return;
    }
    for (int e = from + 1; e <= z->m - (z->nparts - i); e++) {
        if (z->unit[e].with_previous) continue;         /* not a cut: it goes with the panel before it */
        if (e > from + 1 && !part_fits(z->c, z->unit, from, e)) break;
        long n = part_cells(z->unit, from, e);
        z->start[i] = e;
        balance(z, i + 1, i == 1 || n < least ? n : least);
    }
}

/*
** The book of nunits units of m panels each (units[u], planned alike):
** every unit on one page when they fit, else the most units a page that
** divides them evenly (asked of the first units), else a unit a page cut
** into the fewest parts that fit (found greedily: each part as many panels
** as fit; a panel that fits nowhere is a part by itself), as evenly as
** they fit (balance), never cut before a panel that goes with the one before
** it. A head (heads) cut into more than STAGE_HEAD_PARTS
** parts is cut again with its pages asked as dense ones (c->dense: numbers
** at the legible floor serve), which it stays for its pages. Parts are
** planned on the first unit; when one does not serve in another unit, the
** cut is made again greedily over all of them.
*/
static Book plan_book(Ctx *c, const Panel *const *units, int m, int nunits, bool heads)
{
    assert(m >= 1 && nunits >= 1);
    Panel many[VIEW_MAX_PANELS];
    for (int k = nunits; k >= 1; k--) {
        if (nunits % k || k * m > VIEW_MAX_PANELS) continue;
        for (int i = 0; i < k; i++) memcpy(many + i * m, units[i], sizeof *many * (size_t)m);
        if (stage_page_fits(c, many, k * m, c->note, k * m)) return book_whole(nunits, k, m);
    }
    const Panel *unit = units[0];
    Book b = { nunits, 1, 0, xmalloc(sizeof *b.start * (size_t)(m + 1)), 0 };
    for (;;) {
        cut_greedy(c, units, 1, m, &b);
        if (b.nparts > 1 && m <= BALANCE_MAX) {
            Balance z = { c, unit, m, b.nparts, { 0 }, -1, { 0 } };
            balance(&z, 1, 0);
            if (z.best >= 0) memcpy(b.start, z.best_start, sizeof b.start[0] * (size_t)(b.nparts + 1));
        }
        bool every = true;              /* the parts, planned on the first unit, serve in every one (a head whose
                                        ** panels are titled or valued otherwise: an ablated head's zeros) */
        for (int i = 0; i < b.nparts && every; i++) every = part_fits_all(c, units, nunits, b.start[i], b.start[i + 1]);
        if (!every) cut_greedy(c, units, nunits, m, &b);
        if (!heads || c->dense || b.nparts <= STAGE_HEAD_PARTS) break;
        c->dense = true;                /* too many pages a head: the parts again, at the legible floor */
    }
    b.pages = nunits * b.nparts;
    return b;
}

/* The units and the panels of each unit that page p shows. */
static void page_of(const Book *b, int p, int *u0, int *u1, int *a, int *e)
{
    if (b->nparts > 1) {
        *u0 = p / b->nparts;
        *u1 = *u0 + 1;
        *a = b->start[p % b->nparts];
        *e = b->start[p % b->nparts + 1];
    } else {
        *u0 = p * b->per_page;
        *u1 = *u0 + b->per_page;
        *a = 0;
        *e = b->start[1];
    }
}

/* The values of scale group g among n panels (vals alongside). */
static StageVals group_vals(const Panel *const *ps, const StageVals *vals, int n, int g)
{
    StageVals v = { false, 0, 0, false, 0, 0, false, true };
    for (int i = 0; i < n; i++)
        if (ps[i]->scale_group == g) v = stage_vals_join(v, vals[i]);
    return v;
}

/* Give panel p its span (the values of its kind, span) and, in a scale
** group, its group's values. */
void stage_set_span(Panel *p, StageVals span, StageVals group)
{
    p->has_span = true;
    p->span_lo = span.any ? span.lo : 0;
    p->span_hi = span.any ? span.hi : 0;
    p->group_lo = group.any ? group.lo : p->span_lo;
    p->group_hi = group.any ? group.hi : p->span_hi;
}

/* Sub-step p of total as the view's page, and when it is one of book b's
** (p < b->pages), its name and its words (head_names: the heads the
** units are, or NULL). */
static void take_page(Ctx *c, const Book *b, const int *head_names, int p, int total)
{
    View *v = c->v;
    v->nsteps = total;
    v->step = p;
    if (total <= 1 || p >= b->pages) return;
    int u0, u1, a, e;
    page_of(b, p, &u0, &u1, &a, &e);
    int part = p % b->nparts + 1;
    if (head_names && (b->nunits > 1 || u1 - u0 > 1)) {
        stage_heads_page_words(c, head_names[u0], head_names[u1 - 1], part, b->nparts, &v->step_name, &v->step_label);
    } else if (b->nparts > 1) {
        v->step_name = stage_fmt("part%d", part);
        v->step_label = stage_fmt(_("part %d of %d"), part, b->nparts);
    }
}

/* The name and the header's words of a page showing heads h0 … h1 of c->H,
** part (1-based) of nparts: "h2" (head 2 of 4), "h1-2" (heads 1–2 of 4),
** "h2-1" (head 2 of 4, part 1 of 2), "h1-2-1" (heads 1–2 of 4, part 1 of 2). */
void stage_heads_page_words(const Ctx *c, int h0, int h1, int part, int nparts, char **name, char **label)
{
    if (h1 > h0) {
        char *heads = stage_fmt(_("heads %d\xe2\x80\x93%d of %d"), h0, h1, c->H);
        if (nparts > 1) {
            char *of = stage_fmt(_("part %d of %d"), part, nparts);
            *name = stage_fmt("h%d-%d-%d", h0, h1, part);
            *label = stage_fmt("%s, %s", heads, of);
            free(of);
            free(heads);
        } else {
            *name = stage_fmt("h%d-%d", h0, h1);
            *label = heads;
        }
    } else if (nparts > 1) {
        *name = stage_fmt("h%d-%d", h0, part);
        *label = stage_fmt(_("head %d of %d, part %d of %d"), h0, c->H, part, nparts);
    } else {
        *name = stage_fmt("h%d", h0);
        *label = stage_fmt(_("head %d of %d"), h0, c->H);
    }
}

/* Which of the m panels a head adds (its scratch view's, panels) its
** picture on the comparison page is: those the builder marked, else its
** last weights, else its last panel. Returns how many. */
static int pick_pictures(const Panel *panels, int m, bool *pick)
{
    int n = 0, weights = -1;
    for (int r = 0; r < m; r++) {
        pick[r] = panels[r].head_picture;
        n += pick[r];
        if (panels[r].probabilities) weights = r;
    }
    if (n == 0 && m > 0) {
        pick[weights >= 0 ? weights : m - 1] = true;
        n = 1;
    }
    return n;
}

/* What a head's panel shows, its title without the head: "weights" of
** "head 2 of 4: weights", "Q rotated" of "Q rotated (head 2 of 4)". */
static char *panel_kind(const Panel *p)
{
    const char *t = p->title ? p->title : "", *colon = strstr(t, ": "), *paren = strstr(t, " (");
    if (colon) return xstrdup(colon + 2);
    size_t n = paren ? (size_t)(paren - t) : strlen(t);
    char *k = xmalloc(n + 1);
    memcpy(k, t, n);
    k[n] = '\0';
    return k;
}

/* The header's words for a page of head h's own panels: "head 2 of 4 ·
** weights, output" ("weights, output" of a stage of one head). */
static void page_holds(const Ctx *c, int h)
{
    View *v = c->v;
    Buf b = {0};
    const char *sep = "";
    if (c->H > 1) {             /* (of one head, only what the page holds) */
        buf_printf(&b, _("head %d of %d"), h, c->H);
        sep = "  \xc2\xb7  ";
    }
    for (int k = 0; k < v->npanels; k++) {
        char *kind = panel_kind(&v->panels[k]);
        buf_printf(&b, "%s%s", sep, kind);
        free(kind);
        sep = ", ";
    }
    free(v->step_label);
    v->step_label = buf_take(&b);
}

/* Panel pn of head h as the comparison page shows it beside the others:
** titled "head h: weights", and, when many share the page, without axis
** titles (the page's header names them once). */
static void compare_panel(Panel *pn, int h, int many)
{
    char *kind = panel_kind(pn);
    free(pn->title);
    pn->title = stage_fmt(_("head %d: %s"), h, kind);
    free(kind);
    if (many > 4) {
        free(pn->row_axis);
        free(pn->col_axis);
        pn->row_axis = pn->col_axis = NULL;
    }
}

/* Scratch views: one per head, one for what every head shares, and one
** for the tail. */
typedef struct Scratch {
    View *heads;                /* H views, head h in heads[h - 1] */
    View lead;                  /* the panels every head adds alike (find_shared), taken out of the heads' */
    View tail;
    int m;                      /* panels a head adds (after the lead is taken out) */
    bool shared[VIEW_MAX_PANELS];   /* of the panels one(c, h) adds, those in the lead */
    int nshared;
} Scratch;

/* Build every head (and the tail) into scratch views. */
static void scratch_build(Ctx *c, StageHeadFn one, StageFn tail, Scratch *z)
{
    z->heads = xcalloc((size_t)c->H, sizeof *z->heads);
    memset(&z->tail, 0, sizeof z->tail);
    memset(&z->lead, 0, sizeof z->lead);
    memset(z->shared, 0, sizeof z->shared);
    z->nshared = 0;
    z->m = -1;
    for (int h = 1; h <= c->H; h++) {
        Ctx cc = *c;
        cc.v = &z->heads[h - 1];
        one(&cc, h);
        assert(z->m < 0 || z->heads[h - 1].npanels == z->m);     /* every head shows the same panels */
        if (z->m < 0 || z->heads[h - 1].npanels < z->m) z->m = z->heads[h - 1].npanels;
    }
    if (tail) {
        Ctx cc = *c;
        cc.v = &z->tail;
        tail(&cc);
    }
}

/* Free the scratch views. */
static void scratch_free(Scratch *z, int H)
{
    for (int h = 0; h < H; h++) stage_panels_free(&z->heads[h]);
    stage_panels_free(&z->tail);
    stage_panels_free(&z->lead);
    free(z->heads);
}

/* Drop, of the panels [from, from + m) of v that one(c, h) added, those
** marked in drop (keep false) or those not marked (keep true). */
static void sift_panels(View *v, int from, const bool *drop, int m, bool keep)
{
    int n = from;
    for (int k = from; k < v->npanels; k++) {
        if (k - from < m && drop[k - from] != keep) stage_panel_free(&v->panels[k]);
        else v->panels[n++] = v->panels[k];
    }
    v->npanels = n;
}

/*
** The panels every head adds alike, a matrix of no head in each head's
** unit at the same place (the mask): marked in z->shared and moved into
** z->lead, out of the heads' units, so that the stage shows them once,
** ahead of the heads, instead of once a head. Only with several heads
** shown, some panels of their own, and room for the lead beside the heads'
** pictures on the comparison page.
*/
static void find_shared(Scratch *z, int H, int n, int npick)
{
    int m = z->m;
    if (n < 2 || m < 2 || m > VIEW_MAX_PANELS) return;
    for (int r = 0; r < m; r++) {
        const TraceRef *ref = &z->heads[0].panels[r].ref;
        bool same = ref->kind >= 0 && ref->kind != TK_INPUT && ref->head == 0;
        for (int h = 1; h < H && same; h++)
            same = z->heads[h].panels[r].ref.kind == ref->kind && z->heads[h].panels[r].ref.head == 0;
        z->shared[r] = same;
        z->nshared += same;
    }
    if (z->nshared == 0 || z->nshared == m || n * npick + z->nshared > VIEW_MAX_PANELS) {
        memset(z->shared, 0, sizeof z->shared);
        z->nshared = 0;
        return;
    }
    z->lead.panels = xcalloc((size_t)z->nshared, sizeof *z->lead.panels);
    z->lead.cap_panels = z->nshared;
    for (int r = 0; r < m; r++)
        if (z->shared[r]) z->lead.panels[z->lead.npanels++] = z->heads[0].panels[r];
    for (int r = 0, k = 0; r < m; r++)
        if (!z->shared[r]) z->heads[0].panels[k++] = z->heads[0].panels[r];
    z->heads[0].npanels = m - z->nshared;
    for (int h = 1; h < H; h++) sift_panels(&z->heads[h], 0, z->shared, m, false);
    z->m = m - z->nshared;
}

/* The lead (find_shared) into the view: head h's panels, of which only
** those every head adds alike are kept, planned for their own values. */
static void add_lead(Ctx *c, StageHeadFn one, int h, const Scratch *z)
{
    int before = c->v->npanels;
    one(c, h);
    sift_panels(c->v, before, z->shared, z->m + z->nshared, true);
    for (int k = before; k < c->v->npanels; k++) {
        Panel *pn = &c->v->panels[k];
        StageVals own = stage_panel_vals(c, pn);
        stage_set_span(pn, own, own);
    }
}

/*
** A stage shown head by head: one(c, h) adds head h's panels, the same
** panels for every head; then tail(c), when given, adds what belongs to
** no head (multi_head's joined heads). Every head is built once into a
** scratch view to plan the book and the spans (all heads, even when one
** is chosen: the slide of a chosen head is planned as the page of that
** head is); then the page asked for is built into the view. What every
** head adds alike (the mask: find_shared) is shown once, ahead of the
** heads: on their one page when it fits there, else on the comparison
** page. The tail shares the last page when everything fits one, else it
** has pages of its own after the heads'.
*/
void stage_heads_paged(Ctx *c, StageHeadFn one, StageFn tail)
{
    int H = c->H, heads[LESSON_MAX_HEADS], n = 0;
    assert(H >= 1 && H <= LESSON_MAX_HEADS);
    for (int h = 1; h <= H; h++)
        if (!c->sel || h == c->sel) heads[n++] = h;
    if (c->whole) {             /* every head, then the tail, on one view */
        for (int u = 0; u < n; u++) one(c, heads[u]);
        if (tail) tail(c);
        c->paged = true;
        return;
    }
    Scratch z;
    scratch_build(c, one, tail, &z);
    bool pick[VIEW_MAX_PANELS] = { false };
    if (z.m > 0 && z.m <= VIEW_MAX_PANELS) find_shared(&z, H, n, pick_pictures(z.heads[0].panels, z.m, pick));
    int m = z.m > 0 ? z.m : 0, nt = z.tail.npanels, nl = z.lead.npanels;
    /* the values of each kind of panel over the heads, and of each scale group */
    StageVals *span = xmalloc(sizeof *span * (size_t)(m + 1)), *vals = xmalloc(sizeof *vals * (size_t)(H * m + nt + 1));
    const Panel **all = xmalloc(sizeof *all * (size_t)(H * m + nt + 1));
    for (int r = 0; r < m; r++) {
        span[r] = (StageVals){ false, 0, 0, false, 0, 0, false, true };
        for (int h = 0; h < H; h++) {
            all[h * m + r] = &z.heads[h].panels[r];
            vals[h * m + r] = stage_panel_vals(c, &z.heads[h].panels[r]);
            span[r] = stage_vals_join(span[r], vals[h * m + r]);
        }
    }
    for (int k = 0; k < nt; k++) {
        all[H * m + k] = &z.tail.panels[k];
        vals[H * m + k] = stage_panel_vals(c, &z.tail.panels[k]);
    }
    /* the panels planned as every page will show them: for their kind's values, on their group's colours */
    for (int h = 0; h < H; h++)
        for (int r = 0; r < m; r++) {
            Panel *pn = &z.heads[h].panels[r];
            stage_set_span(pn, span[r], pn->scale_group > 0 ? group_vals(all, vals, H * m + nt, pn->scale_group) : span[r]);
        }
    for (int k = 0; k < nt; k++) {
        Panel *pn = &z.tail.panels[k];
        StageVals own = vals[H * m + k];
        stage_set_span(pn, own, pn->scale_group > 0 ? group_vals(all, vals, H * m + nt, pn->scale_group) : own);
    }
    const Panel **units = xmalloc(sizeof *units * (size_t)n), *tail_unit = z.tail.panels;
    for (int u = 0; u < n; u++) units[u] = z.heads[heads[u] - 1].panels;
    c->dense = false;
    Book b = m > 0 ? plan_book(c, units, m, n, H > 1) : book_whole(n, n, 0);
    bool dense = c->dense;
    c->dense = false;
    Book bt = book_whole(1, 1, nt);
    bt.pages = 0;
    bool tail_alone = false, lead_on_page = false;
    Panel every[VIEW_MAX_PANELS];
    if (nl > 0 && b.pages == 1 && nl + n * m <= VIEW_MAX_PANELS) {     /* the lead on the heads' one page */
        memcpy(every, z.lead.panels, sizeof *every * (size_t)nl);
        for (int u = 0; u < n; u++) memcpy(every + nl + u * m, units[u], sizeof *every * (size_t)m);
        lead_on_page = stage_page_fits(c, every, nl + n * m, c->note, nl + n * m);
    }
    if (nt > 0) {               /* the tail on the heads' one page, or pages of its own */
        int l = lead_on_page ? nl : 0;
        tail_alone = b.pages > 1 || l + n * m + nt > VIEW_MAX_PANELS;
        if (!tail_alone) {
            if (l) memcpy(every, z.lead.panels, sizeof *every * (size_t)l);
            for (int u = 0; u < n; u++) memcpy(every + l + u * m, units[u], sizeof *every * (size_t)m);
            memcpy(every + l + n * m, tail_unit, sizeof *every * (size_t)nt);
            tail_alone = !stage_page_fits(c, every, l + n * m + nt, c->note, l + n * m + nt);
        }
        if (tail_alone) {
            book_free(&bt);
            bt = plan_book(c, &tail_unit, nt, 1, false);
        }
    }
    /* the heads side by side first, when they take several pages, or to show once what they share */
    int npick = m <= VIEW_MAX_PANELS ? pick_pictures(z.heads[0].panels, m, pick) : 0;
    int lead_cmp = nl > 0 && !lead_on_page ? nl : 0;
    int cmp = n > 1 && (b.pages > 1 || lead_cmp) && npick > 0 && n * npick + lead_cmp <= VIEW_MAX_PANELS;
    assert(cmp || !lead_cmp);       /* (find_shared leaves room for the lead on the comparison page) */
    int pages = cmp + b.pages + (tail_alone ? bt.pages : 0);
    int pp = c->step < pages ? c->step : pages - 1, p = pp - cmp;
    bool on_tail = tail_alone && p >= b.pages, on_cmp = p < 0;
    take_page(c, &b, heads, p < 0 ? b.pages : p, pages);
    c->v->step = pp;
    for (int u = 0; u < n; u++) {   /* where each head's own pages start */
        int first = b.nparts > 1 ? u * b.nparts : u / (b.per_page > 0 ? b.per_page : 1);
        c->v->head_step[heads[u]] = b.pages > 1 || cmp ? cmp + first : -1;
    }
    if (on_tail) {              /* what belongs to no head, after the heads */
        c->v->step_name = bt.pages > 1 ? stage_fmt("joined%d", p - b.pages + 1) : xstrdup("joined");
        c->v->step_label = bt.pages > 1 ? stage_fmt(_("the heads joined, part %d of %d"), p - b.pages + 1, bt.pages)
                                        : xstrdup(_("the heads joined"));
    }
    bool spans = H > 1 || pages > 1;
    if (on_cmp) {               /* every head's picture, each kind on one scale over the heads */
        c->v->compare = true;
        c->v->step_name = xstrdup("heads");
        c->v->step_label = stage_fmt(_("heads 1\xe2\x80\x93%d side by side"), H);
        if (lead_cmp) add_lead(c, one, heads[0], &z);
        for (int u = 0; u < n; u++) {
            int before = c->v->npanels, kept = before;
            one(c, heads[u]);
            if (nl) sift_panels(c->v, before, z.shared, m + nl, false);
            for (int k = before; k < c->v->npanels; k++) {
                int r = k - before;
                if (r >= m || !pick[r]) {
                    stage_panel_free(&c->v->panels[k]);
                    continue;
                }
                Panel *pn = &c->v->panels[kept++];
                *pn = c->v->panels[k];
                compare_panel(pn, heads[u], n * npick + lead_cmp);
                stage_set_span(pn, span[r], pn->scale_group > 0 ? group_vals(all, vals, H * m + nt, pn->scale_group) : span[r]);
            }
            c->v->npanels = kept;
        }
    } else if (!on_tail) {
        int u0 = 0, u1 = n, a = 0, e = m;
        if (b.pages > 1) page_of(&b, p, &u0, &u1, &a, &e);
        c->v->dense = dense;
        c->v->page_h0 = heads[u0];
        c->v->page_h1 = heads[(u1 < n ? u1 : n) - 1];
        if (lead_on_page) add_lead(c, one, heads[0], &z);
        for (int u = u0; u < u1 && u < n; u++) {
            int before = c->v->npanels;
            one(c, heads[u]);
            if (nl) sift_panels(c->v, before, z.shared, m + nl, false);
            keep_panels(c->v, before, before + a, before + e);
            for (int k = before; spans && k < c->v->npanels && k - before + a < m; k++) {
                Panel *pn = &c->v->panels[k];
                stage_set_span(pn, span[k - before + a], pn->scale_group > 0 ? group_vals(all, vals, H * m + nt, pn->scale_group)
                                                                       : span[k - before + a]);
            }
        }
    }
    if (!on_cmp && !on_tail && b.nparts > 1) page_holds(c, heads[p / b.nparts]);
    if (tail && (on_tail || (!tail_alone && !on_cmp))) {
        int before = c->v->npanels, a = 0, e = nt;
        if (on_tail && bt.pages > 1) {
            int u0, u1;
            page_of(&bt, p - b.pages, &u0, &u1, &a, &e);
        }
        tail(c);
        keep_panels(c->v, before, before + a, before + e);
        for (int k = before; spans && k < c->v->npanels; k++) {
            Panel *pn = &c->v->panels[k];
            StageVals own = vals[H * m + a + k - before];
            stage_set_span(pn, own, pn->scale_group > 0 ? group_vals(all, vals, H * m + nt, pn->scale_group) : own);
        }
    }
    scratch_free(&z, H);
    book_free(&b);
    book_free(&bt);
    free(units);
    free(all);
    free(vals);
    free(span);
    c->paged = true;
}

/* A stage shown head by head, with nothing else. */
void stage_by_heads(Ctx *c, StageHeadFn one)
{
    stage_heads_paged(c, one, NULL);
}

/*
** A stage built whole (one unit): when its panels do not fit the slide,
** keep those of the part asked for, each panel planned for its own values
** and coloured on its group's over every part.
*/
void stage_paginate(Ctx *c)
{
    View *v = c->v;
    int m = v->npanels;
    if (m <= 1 || c->paged || c->whole) return;
    StageVals *vals = xmalloc(sizeof *vals * (size_t)m), *groups = xmalloc(sizeof *groups * (size_t)m);
    const Panel **ps = xmalloc(sizeof *ps * (size_t)m), *unit = v->panels;
    for (int k = 0; k < m; k++) {
        ps[k] = &v->panels[k];
        vals[k] = stage_panel_vals(c, &v->panels[k]);
    }
    Book b = plan_book(c, &unit, m, 1, false);
    for (int k = 0; k < m && b.pages > 1; k++) groups[k] = v->panels[k].scale_group > 0 ? group_vals(ps, vals, m, v->panels[k].scale_group)
                                                                      : vals[k];
    if (b.pages > 1) {
        int p = c->step < b.pages ? c->step : b.pages - 1, u0, u1, a, e;
        take_page(c, &b, NULL, p, b.pages);
        page_of(&b, p, &u0, &u1, &a, &e);
        for (int k = a; k < e; k++)
            if (!v->panels[k].has_span) stage_set_span(&v->panels[k], vals[k], groups[k]);   /* a builder's plan stays */
        keep_panels(v, 0, a, e);
        c->paged = true;
    }
    book_free(&b);
    free(vals);
    free(groups);
    free(ps);
}

/* The pages of stage k: those of its first page's view. */
int stage_pages(const Lesson *L, const Trace *T, int k, StagePager *pg)
{
    StageOpts o = { 0, 0, false, pg };
    View *v = stage_view_with(L, T, k, &o);
    int n = v ? v->nsteps : 0;
    stage_view_free(v);
    return n;
}

/* A bound on the shapes of stage k's pages: every page built, its cells,
** its labels and room for its text counted. */
int64_t stage_shapes_bound(const Lesson *L, const Trace *T, int k, StagePager *pg)
{
    int64_t all = 0;
    int pages = 1;
    for (int step = 0; step < pages; step++) {
        StageOpts o = { 0, step, false, pg };
        View *v = stage_view_with(L, T, k, &o);
        if (!v) break;
        pages = v->nsteps;
        int64_t n = 512 + 64 * (int64_t)v->npara;       /* header, formula, notes, prose lines, colour bars */
        for (int i = 0; i < v->npanels; i++) {
            const Mat *m = v->panels[i].m;
            n += 64 + 2 * (int64_t)m->rows * m->cols + m->rows + m->cols;     /* a cell: a rectangle and its number */
        }
        all += n < STAGE_PAGE_MAX_SHAPES ? n : STAGE_PAGE_MAX_SHAPES;
        stage_view_free(v);
    }
    return all;
}
