/*
** stage_kv.c: decoding with a K/V cache, token by token, head by head.
**
** A model that writes one token at a time keeps the keys and values of the
** tokens before it: token t computes its q, k and v, appends k and v to
** the cache, and weighs the cached keys with its one row of weights. The
** stage shows that as a page per token, then the comparison of the
** decoded rows with the whole causal computation.
**
** With several heads (and no head chosen), every head decodes: a token's
** page shows each head's new q, its row of weights and its output, and the
** cache (new k, new v, K and V caches) of each K/V head once, beside the
** query heads that read it (with grouped-query heads, a group's). When
** they do not all print at the goal on the slide, a token takes several
** pages: as many heads a page as fit (whole groups, or a part of one), and
** when one head does not fit either, two sides, the scores' (q, k, the K
** cache, the weights) and the values' (v, the V cache, the weights, the
** output). Every token is cut alike, planned at the last token's size
** (the caches full) and for the values of every head, so that no panel
** moves or changes colour from one page to the next. The comparison is
** shown head by head as other stages are (stage_heads_paged).
*/
#include "stage_int.h"
#include "core/util.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The panels of a head on a decoding page, in the order of the slide. */
enum { KV_Q, KV_K, KV_V, KV_KC, KV_VC, KV_W, KV_OUT, KV_SLOTS };

/* Which slots each side shows: the scores' side and the values' side. */
static const bool kv_side[2][KV_SLOTS] = { { 1, 1, 0, 1, 0, 1, 0 }, { 0, 0, 1, 0, 1, 1, 1 } };

/* How a kv_cache stage's tokens go onto pages. */
typedef struct KvPlan {
    int first, n;               /* the heads shown: first … first + n − 1 */
    int per_page;               /* heads a page */
    int parts;                  /* 1, or 2: the scores' side and the values' side */
    int pages;                  /* a token's pages */
    StageVals span[KV_SLOTS];   /* each slot's values over every head and token */
} KvPlan;

/* A panel of a decoding step planned as on every step: at its full size
** (rows x cols, the cache of every token, with the title and the widest
** row and column labels it has on any step) and for the values of its
** slot over every head, so that it keeps its place, cells and colours from
** token to token and from head to head. */
static void kv_steady(Panel *p, int rows, int cols, char *full_title, char *full_label, char *full_col,
                      StageVals span)
{
    if (!p) {
        free(full_title);
        free(full_label);
        free(full_col);
        return;
    }
    p->full_rows = rows;
    p->full_cols = cols;
    p->full_title = full_title;
    p->full_row_label = full_label;
    p->full_col_label = full_col;
    stage_set_span(p, span, span);
}

/* " (head 2 of 4)" for the cache of query head h when every query head
** has its own, " (K/V head 1 of 2)" when a group shares it, "" with one head. */
static char *kv_cache_suffix(const Ctx *c, int h)
{
    int G = c->ts->kv_heads > 0 ? c->ts->kv_heads : c->H;
    if (c->H < 2 || G == c->H) return stage_head_suffix(c, h);
    return stage_fmt(_(" (K/V head %d of %d)"), trace_kv_head(c->ts, h), G);
}

/* The title of slot i of head h at token t (one line of the slide). */
static char *kv_title(const Ctx *c, int i, int h, int t)
{
    char *sx = i == KV_K || i == KV_V || i == KV_KC || i == KV_VC ? kv_cache_suffix(c, h) : stage_head_suffix(c, h), *s;
    switch (i) {
    case KV_Q: s = stage_fmt(_("new q%s"), sx); break;
    case KV_K: s = stage_fmt("%s%s", _("new k"), sx); break;
    case KV_V: s = stage_fmt("%s%s", _("new v"), sx); break;
    case KV_KC: s = stage_fmt(_("K cache: %d key%s"), t + 1, t ? "s" : ""); break;
    case KV_VC: s = stage_fmt(_("V cache: %d value%s"), t + 1, t ? "s" : ""); break;
    case KV_W: s = stage_fmt("%s%s", _("weights"), sx); break;
    default: s = stage_fmt("%s%s", _("output"), sx); break;
    }
    if (i == KV_KC || i == KV_VC) {
        char *whole = stage_fmt("%s%s", s, sx);
        free(s);
        s = whole;
    }
    free(sx);
    return s;
}

/* The trace matrix slot i of head h shows: the cache of h's group by the
** group's first head, as the explanations name it. */
static TraceRef kv_ref(const Ctx *c, int i, int h)
{
    int g = trace_kv_first(c->ts, h);
    switch (i) {
    case KV_Q: return trace_ref(trace_score_q(c->su), h);
    case KV_K: case KV_KC: return trace_ref(trace_score_k(c->su), g);
    case KV_V: case KV_VC: return trace_ref(TK_V, g);
    case KV_W: return trace_ref(TK_KV_WEIGHTS, h);
    default: return trace_ref(TK_KV_OUTPUT, h);
    }
}

/* Add slot i of head h at token t (side: -1 both, else 0 or 1); its
** slot in slots[] when given. */
static void kv_panel(Ctx *c, int i, int h, int t, int side, const KvPlan *pl, int *slots)
{
    if (side >= 0 && !kv_side[side][i]) return;
    TraceRef ref = kv_ref(c, i, h);
    const Mat *m = trace_at(c->T, c->s, ref);
    int n = c->su->nq, w = m ? m->cols : 0, before = c->v->npanels;
    char *title = kv_title(c, i, h, t), *full = NULL, *label = NULL, *col = NULL;
    Panel *p;
    switch (i) {
    case KV_Q: case KV_K: case KV_V:        /* each as wide as it is: additive scores may read narrower keys */
        p = stage_part(c, ref, t, t + 1, 0, w, title, i == KV_Q ? LAB_Q : LAB_K, i == KV_Q ? LAB_QHEAD : i == KV_K ? LAB_KHEAD : LAB_VDIM,
                       "", AX_DIMS);
        break;
    case KV_KC: case KV_VC:
        p = stage_part(c, ref, 0, t + 1, 0, w, title, LAB_K, i == KV_KC ? LAB_KHEAD : LAB_VDIM,
                       i == KV_KC ? _("cached keys") : _("cached values"), AX_DIMS);
        full = kv_title(c, i, h, n - 1);
        label = stage_widest_label(c, LAB_K, n, ref.head);
        break;
    case KV_W:
        p = stage_as_weights(c, stage_part(c, ref, t, t + 1, 0, t + 1, title, LAB_Q, LAB_K, "", AX_KEYS));
        col = stage_widest_label(c, LAB_K, n, ref.head);
        break;
    default:
        p = stage_part(c, ref, t, t + 1, 0, w, title, LAB_Q, LAB_VDIM, "", AX_DIMS);
        break;
    }
    free(title);
    if (!label)                             /* one row, the token's: as wide as the widest token's */
        label = stage_widest_label(c, i == KV_K || i == KV_V ? LAB_K : LAB_Q, n, ref.head);
    kv_steady(p, i == KV_KC || i == KV_VC ? n : 1, i == KV_W ? n : w, full, label, col, pl->span[i]);
    if (slots && c->v->npanels > before) slots[before] = i;
}

/* Token t of heads h0 … h1: for each K/V head among them, its query heads'
** new q, its new k and v and its caches (once), then each query head's
** weights and output; only the slots of side (-1: every slot). */
static void kv_page(Ctx *c, int t, int h0, int h1, int side, const KvPlan *pl, int *slots)
{
    for (int a = h0; a <= h1;) {
        int b = a;
        while (b < h1 && trace_kv_head(c->ts, b + 1) == trace_kv_head(c->ts, a)) b++;
        for (int h = a; h <= b; h++) kv_panel(c, KV_Q, h, t, side, pl, slots);
        for (int i = KV_K; i <= KV_VC; i++) kv_panel(c, i, a, t, side, pl, slots);
        for (int h = a; h <= b; h++) kv_panel(c, KV_W, h, t, side, pl, slots);
        for (int h = a; h <= b; h++) kv_panel(c, KV_OUT, h, t, side, pl, slots);
        a = b + 1;
    }
}

/* Empty the view's panels, formula and note (a page built to be measured). */
static void kv_clear(View *v)
{
    for (int i = 0; i < v->npanels; i++) stage_panel_free(&v->panels[i]);
    v->npanels = 0;
    free(v->formula);
    free(v->note);
    v->formula = v->note = NULL;
}

/* Whether the last token's page of heads first … first + j − 1, side
** (-1 both), prints every number at the goal on the slide. */
static bool kv_fits(Ctx *c, const KvPlan *pl, int j, int side)
{
    View *keep = c->v, *v = xcalloc(1, sizeof *v);
    int slots[KV_SLOTS * LESSON_MAX_HEADS];     /* a slot a panel: at most every slot of every head */
    c->v = v;
    kv_page(c, c->su->nq - 1, pl->first, pl->first + j - 1, side, pl, slots);
    assert(v->npanels <= KV_SLOTS * LESSON_MAX_HEADS);
    bool fits = stage_page_fits(c, v->panels, v->npanels, "\xe2\x80\xa6", v->npanels);     /* a decoding page has its note */
    kv_clear(v);
    stage_panels_free(v);
    free(v);
    c->v = keep;
    return fits;
}

/* Whether j heads a page cut the heads shown alike: j divides them, and
** a page holds whole groups or a part of one that divides it. */
static bool kv_even(const Ctx *c, const KvPlan *pl, int j)
{
    int G = c->ts->kv_heads > 0 ? c->ts->kv_heads : c->H, s = c->H / G;
    return pl->n % j == 0 && (j % s == 0 || s % j == 0);
}

/*
** The plan: the values of each slot over every head, then the most heads
** a page whose last token prints at the goal whole, else the most whose
** two sides do, else a head a page in two sides (the layout then prints
** what it can).
*/
static KvPlan kv_plan(Ctx *c)
{
    KvPlan pl;
    memset(&pl, 0, sizeof pl);
    pl.first = c->sel ? c->sel : 1;
    pl.n = c->sel ? 1 : c->H;
    for (int i = 0; i < KV_SLOTS; i++) {
        pl.span[i] = (StageVals){ false, 0, 0, false, 0, 0, false, true };
        for (int h = 1; h <= c->H; h++)
            pl.span[i] = stage_vals_join(pl.span[i], stage_trace_vals(c->pager, c->T, trace_at(c->T, c->s, kv_ref(c, i, h))));
    }
    pl.per_page = 1;
    pl.parts = 2;
    if (c->whole) {                     /* every head of a token on one view (--dump's) */
        pl.per_page = pl.n;
        pl.parts = 1;
    }
    bool found = c->whole;
    for (int parts = 1; parts <= 2 && !found; parts++)
        for (int j = pl.n; j >= 1 && !found; j--) {
            if (!kv_even(c, &pl, j)) continue;
            found = parts == 1 ? kv_fits(c, &pl, j, -1) : kv_fits(c, &pl, j, 0) && kv_fits(c, &pl, j, 1);
            if (found) {
                pl.per_page = j;
                pl.parts = parts;
            }
        }
    pl.pages = pl.n / pl.per_page * pl.parts;
    return pl;
}

/* Head h's decoded rows beside the whole causal computation. */
static void kv_all_head(Ctx *c, int h)
{
    char *sx = stage_head_suffix(c, h);
    char *t[4] = { stage_fmt(_("decoded weights%s"), sx), stage_fmt(_("full weights%s"), sx),
                   stage_fmt(_("decoded outputs%s"), sx), stage_fmt(_("full outputs%s"), sx) };
    static const TraceKind k[4] = { TK_KV_WEIGHTS, TK_WEIGHTS, TK_KV_OUTPUT, TK_OUTPUT };
    for (int i = 0; i < 4; i++) {
        Panel *p = stage_heat(c, trace_ref(k[i], h), t[i], LAB_Q, i < 2 ? LAB_K : LAB_VDIM, AX_QUERIES, i < 2 ? AX_KEYS : AX_DIMS);
        if (i < 2) stage_as_weights(c, p);
        else stage_grouped(c, p, 1);
        free(t[i]);
    }
    free(sx);
}

/* The comparison's words: the largest difference over the heads shown. */
static void kv_all_words(Ctx *c, const KvPlan *pl)
{
    double dw = 0, dout = 0;
    for (int h = pl->first; h < pl->first + pl->n; h++) {
        dw = fmax(dw, mat_max_abs_diff(trace_at(c->T, c->s, trace_ref(TK_KV_WEIGHTS, h)),
                                       trace_at(c->T, c->s, trace_ref(TK_WEIGHTS, h))));
        dout = fmax(dout, mat_max_abs_diff(trace_at(c->T, c->s, trace_ref(TK_KV_OUTPUT, h)),
                                           trace_at(c->T, c->s, trace_ref(TK_OUTPUT, h))));
    }
    c->v->formula = xstrdup(_("row t decoded from the cache = row t of the full computation: the cache changes the cost, not the result"));
    c->v->note = stage_fmt(_("largest difference: %.3g in the weights, %.3g in the outputs"), dw, dout);
}

/* The pages the comparison takes (stage_heads_paged's). */
static int kv_all_pages(const Ctx *c)
{
    Ctx cc = *c;
    cc.v = xcalloc(1, sizeof *cc.v);
    cc.step = 0;
    cc.whole = false;
    stage_by_heads(&cc, kv_all_head);
    int n = cc.v->nsteps > 1 ? cc.v->nsteps : 1;
    stage_view_free(cc.v);
    return n;
}

/* The formula and note of token t's page. */
static void kv_words(Ctx *c, int t)
{
    char *dv_text = stage_division_text(c);
    char *score = c->su->score == SCORE_ADDITIVE
        ? stage_fmt("%s\xe1\xb5\x80\xc2\xb7tanh(q\xc2\xb7%s + K_cache\xc2\xb7%s)", c->su->add_v, c->su->add_w1, c->su->add_w2)
        : xstrdup("q\xc2\xb7K_cache\xe1\xb5\x80");
    c->v->formula = stage_fmt(_("step %d: append k and v to the cache; weights = softmax(%s%s%s%s); "
                              "output = weights\xc2\xb7V_cache"), t + 1, score, dv_text,
                              c->su->positions == POS_ALIBI ? _(" + bias") : "", c->su->mask == MASK_CAUSAL ? "" : _(" + mask"));
    free(score);
    free(dv_text);
    c->v->note = stage_fmt(_("token %d of %d: %d key%s and value%s cached; nothing about the earlier tokens is computed again"),
                           t + 1, c->su->nq, t + 1, t ? "s" : "", t ? "s" : "");
}

/* Name page p of token t ("t3", "t3-1", "t3-h2", "t3-h1-2-1") and give
** the header its words. */
static void kv_name(Ctx *c, const KvPlan *pl, int t, int p)
{
    View *v = c->v;
    int part = p % pl->parts + 1, h0 = pl->first + p / pl->parts * pl->per_page, h1 = h0 + pl->per_page - 1;
    if (pl->per_page < pl->n) {
        char *name;
        stage_heads_page_words(c, h0, h1, part, pl->parts, &name, &v->step_label);
        v->step_name = stage_fmt("t%d-%s", t + 1, name);
        free(name);
    } else if (pl->parts > 1) {
        v->step_name = stage_fmt("t%d-%d", t + 1, part);
        v->step_label = stage_fmt(_("part %d of %d"), part, pl->parts);
    } else {
        v->step_name = stage_fmt("t%d", t + 1);
    }
}

/* Which heads page p of token t shows (View.page_h0 … page_h1) and where
** token t's pages of each head start (View.head_step), when its heads
** take pages of their own. */
static void kv_heads_of(Ctx *c, const KvPlan *pl, int t, int p)
{
    if (c->whole || pl->per_page >= pl->n) return;
    View *v = c->v;
    v->page_h0 = pl->first + p / pl->parts * pl->per_page;
    v->page_h1 = v->page_h0 + pl->per_page - 1;
    for (int h = pl->first; h < pl->first + pl->n; h++)
        v->head_step[h] = t * pl->pages + (h - pl->first) / pl->per_page * pl->parts;
}

/*
** Decoding with a K/V cache: the pages of every token, then those of the
** comparison. --dump's whole views show a token (or the comparison) a
** step, every head on it.
*/
void stage_kv_cache(Ctx *c)
{
    int n = c->su->nq;
    assert(stage_steps(c->L, c->st) == n + 1);          /* a token after another, then the comparison */
    KvPlan pl = kv_plan(c);
    int tokens = n * pl.pages, total = tokens + (c->whole ? 1 : kv_all_pages(c));
    int s = c->step < total ? c->step : total - 1;
    c->v->token_pages = pl.pages;
    if (s >= tokens) {                                  /* the comparison, head by head */
        Ctx cc = *c;
        cc.step = s - tokens;
        stage_by_heads(&cc, kv_all_head);
        View *v = c->v;
        v->step += tokens;
        for (int h = 1; h <= LESSON_MAX_HEADS; h++)   /* where each head's pages of the comparison start */
            if (v->head_step[h] >= 0) v->head_step[h] += tokens;
        char *name = v->step_name;
        v->step_name = name ? stage_fmt("all-%s", name) : xstrdup("all");
        free(name);
        v->nsteps = total;
        kv_all_words(c, &pl);
        return;
    }
    c->v->nsteps = total;
    c->v->step = s;
    int t = s / pl.pages, p = s % pl.pages;
    c->v->token = t;
    if (c->whole) {
        kv_page(c, t, pl.first, pl.first + pl.n - 1, -1, &pl, NULL);
    } else {
        int h0 = pl.first + p / pl.parts * pl.per_page;
        kv_page(c, t, h0, h0 + pl.per_page - 1, pl.parts > 1 ? p % pl.parts : -1, &pl, NULL);
    }
    kv_name(c, &pl, t, p);
    kv_heads_of(c, &pl, t, p);
    kv_words(c, t);
}
