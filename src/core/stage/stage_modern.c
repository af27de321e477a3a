/*
** stage_modern.c: the stages of attention as today's models use it.
**
** Masks made of parts (sliding window, prefix, padding), positions
** (sinusoidal, RoPE, ALiBi), grouped-query heads and FlashAttention's
** online softmax (decoding with a K/V cache is stage_kv.c's). Like
** stage.c, nothing is computed here but slices of trace matrices and the
** largest difference between two of them (for a note); the builders share
** stage.c's helpers through stage_int.h. The online softmax unfolds in
** sub-steps: c->step picks one, clamped to the last, and the view says how
** many there are (nsteps) and what the one shown is called (step_name).
*/
#include "stage_int.h"
#include "core/compute/attn.h"
#include "core/util.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UMINUS "\xe2\x88\x92"
#define TIMES "\xc2\xb7"
#define NOTIN "\xc2\xac"

/* Replace a panel's column labels by "<word> k" for k = first, first + 1, … */
static void label_cols(Panel *p, const char *word, int first)
{
    for (int j = 0; p && j < p->m->cols; j++) {
        free(p->col_labels[j]);
        p->col_labels[j] = stage_fmt("%s %d", word, first + j);
    }
}

/* Replace a panel's row labels by "<word> k" for k = 1, 2, … */
static void label_rows(Panel *p, const char *word)
{
    for (int i = 0; p && i < p->m->rows; i++) {
        free(p->row_labels[i]);
        p->row_labels[i] = stage_fmt("%s %d", word, i + 1);
    }
}

/* A slope as people write it: "1/4" when it is one over a whole number. */
static char *slope_text(double m)
{
    double inv = 1.0 / m;
    return fabs(inv - round(inv)) < 1e-9 * inv ? stage_fmt("1/%.0f", inv) : stage_fmt("%.3g", m);
}

/* The head a one-head stage shows: the chosen one, else head 1. */
static int shown_head(const Ctx *c)
{
    return c->sel ? c->sel : 1;
}

/* The sub-step to show among n, and the view's count. */
static int take_step(Ctx *c, int n)
{
    c->v->nsteps = n;
    c->v->step = c->step < n ? c->step : n - 1;
    return c->v->step;
}

/* Each part of a mask, as a panel (stage causal_mask adds the combination
** after them). */
void stage_mask_part_panels(Ctx *c)
{
    const Setup *su = c->su;
    unsigned parts = su->mask_parts;
    char *t;
    if (parts & MASKP_CAUSAL)
        stage_as_mask(c, stage_heat(c, trace_ref(TK_MASK_CAUSAL, 0), _("causal: j \xe2\x89\xa4 i"), LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    if (parts & MASKP_PREFIX) {
        t = stage_fmt(_("prefix: first %d"), su->prefix);
        stage_as_mask(c, stage_heat(c, trace_ref(TK_MASK_PREFIX, 0), t, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
        free(t);
    }
    if (parts & MASKP_SLIDING) {
        t = stage_fmt(_("window: i \xe2\x88\x92 j < %d"), su->window);
        stage_as_mask(c, stage_heat(c, trace_ref(TK_MASK_WINDOW, 0), t, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
        free(t);
    }
    if (parts & MASKP_PADDING) {
        t = stage_fmt(_("padding: no %s"), su->pad_token);
        stage_as_mask(c, stage_heat(c, trace_ref(TK_MASK_PAD, 0), t, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
        free(t);
    }
}

/* What a mask made of parts is: its formula (stage causal_mask; the note
** that padded queries see no key is every such stage's, stage.c's). */
void stage_mask_parts(Ctx *c)
{
    unsigned parts = c->su->mask_parts;
    Buf b = {0};
    buf_puts(&b, _("mask = "));
    if (parts & MASKP_PREFIX) buf_puts(&b, _("(causal or prefix)"));
    else if (parts & MASKP_CAUSAL) buf_puts(&b, _("causal"));
    if (parts & MASKP_SLIDING) buf_puts(&b, _(" and window"));
    if (parts & MASKP_PADDING) buf_printf(&b, _("%sno padding"), parts & MASKP_CAUSAL ? _(" and ") : "");
    buf_puts(&b, _("; masked scores are \xe2\x88\x92\xe2\x88\x9e where it is 0, weights = softmax(masked)"));
    c->v->formula = buf_take(&b);
}

/* PE, X and X + PE. */
void stage_positional(Ctx *c)
{
    const char *x = c->su->queries.input;
    stage_heat(c, trace_ref(TK_PE, 0), _("PE (sinusoidal)"), LAB_Q, LAB_QFEAT, _("positions"), AX_DIMS);
    stage_input(c, x, x, LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    char *t = stage_fmt(_("%s + PE (what the projections read)"), x);
    stage_heat(c, trace_ref(TK_XPE, 0), t, LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    free(t);
    /* TRANSLATORS: p and i count from 1, as every label does: the first position gets sin(0) */
    c->v->formula = stage_fmt(_("PE[p][2i\xe2\x88\x92" "1] = sin((p\xe2\x88\x92" "1) / 10000^(2(i\xe2\x88\x92" "1)/d)), "
                              "PE[p][2i] = cos(the same), p and i from 1, d = %d; Q, K, V are computed from %s + PE"),
                              c->ts->d_k * c->ts->kv_heads, x);
}

/* Head h's RoPE: the angles, then its Q and K before and after turning. */
static void rope_head(Ctx *c, int h)
{
    char *sx = stage_head_suffix(c, h);
    Panel *a = stage_heat(c, trace_ref(TK_ROPE_ANGLES, 0), _("angle (p\xe2\x88\x92" "1)\xc2\xb7\xce\xb8_i (radians)"), LAB_Q, LAB_DIM,
                          _("positions"), _("pairs i"));
    label_cols(a, _("pair"), 1);
    for (int i = 0; a && i < a->m->rows; i++) {     /* positions from 1, as the tokens count */
        free(a->row_labels[i]);
        a->row_labels[i] = stage_fmt("p = %d", i + 1);
    }
    if (a) {
        a->diverging = false;
        a->even_decimals = true;            /* the first position's 0 and θ_1's 1 as "0.00" and "1.00", as the rest */
        free(a->cmap);
        a->cmap = xstrdup(c->st->cmap ? c->st->cmap : "YlOrRd");
    }
    char *t[4] = { stage_fmt("Q%s", sx), stage_fmt(_("Q rotated%s"), sx), stage_fmt("K%s", sx), stage_fmt(_("K rotated%s"), sx) };
    static const TraceKind k[4] = { TK_Q, TK_QROT, TK_K, TK_KROT };
    for (int i = 0; i < 4; i++) {
        Panel *p = stage_grouped(c, stage_heat(c, trace_ref(k[i], h), t[i], i < 2 ? LAB_Q : LAB_K, i < 2 ? LAB_QHEAD : LAB_KHEAD,
                                               i < 2 ? AX_QUERIES : _("keys"), AX_DIMS), 1 + i / 2);
        if (p && i % 2) p->head_picture = true;     /* the turned Q and K of the heads, side by side */
        free(t[i]);
    }
    free(sx);
}

/* The angles, then Q and K before and after turning, head by head. */
void stage_rope(Ctx *c)
{
    stage_by_heads(c, rope_head);
    /* TRANSLATORS: p and i count from 1, as the labels p = 1, pair 1 do: the first position does not turn */
    c->v->formula = stage_fmt(_("\xce\xb8_i = %g^(\xe2\x88\x92" "2(i\xe2\x88\x92" "1)/%d); pair i (x, y) of position p "
                              "turns by (p\xe2\x88\x92" "1)\xc2\xb7\xce\xb8_i: "
                              "(x\xc2\xb7" "cos \xe2\x88\x92 y\xc2\xb7sin, x\xc2\xb7sin + y\xc2\xb7" "cos); "
                              "q_m\xc2\xb7k_n depends on m \xe2\x88\x92 n only"), c->su->rope_base, c->ts->d_k);
}

/* ALiBi's slopes as a formula in h: "2^(−8h/8)" for a power of two, else
** "2^(−8h/4) (h≤4), 2^(−8(2h−9)/8) (h>4)" for six heads: words are left
** to the formula around it, which is translated (attn_alibi_exponent). */
static char *alibi_rule(int H)
{
    int p = 1;
    while (2 * p <= H) p *= 2;
    if (p == H) return stage_fmt("2^(" UMINUS "8h/%d)", H);
    return stage_fmt("2^(" UMINUS "8h/%d) (h\xe2\x89\xa4%d), 2^(" UMINUS "8(2h" UMINUS "%d)/%d) (h>%d)", p, p, 2 * p + 1, 2 * p, p);
}

/* Head h's bias, and its scores before and after it on one scale (the
** biases of every head on one scale too, so that their slopes compare). */
static void alibi_head(Ctx *c, int h)
{
    char *sx = stage_head_suffix(c, h);
    char *m = slope_text(attn_alibi_slope(h, c->H));
    char *t1 = stage_fmt(_("bias, m = %s%s"), m, sx), *t2 = stage_fmt("%s%s", stage_scores_word(c), sx);
    char *t3 = stage_fmt(_("%s + bias%s"), stage_scores_word(c), sx);
    Panel *bias = stage_grouped(c, stage_heat(c, trace_ref(TK_ALIBI, h), t1, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS), 2);
    if (bias) bias->head_picture = true;       /* the heads' slopes compare side by side */
    stage_grouped(c, stage_heat(c, trace_ref(TK_SCALED, h), t2, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS), 1);
    stage_grouped(c, stage_heat(c, trace_ref(TK_BIASED, h), t3, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS), 1);
    free(sx); free(t1); free(t2); free(t3); free(m);
}

/* The bias of each head and the scores it changes, head by head. */
void stage_alibi(Ctx *c)
{
    Buf slopes = {0};
    for (int h = 1; h <= c->H && h <= 8; h++) {
        char *t = slope_text(attn_alibi_slope(h, c->H));
        buf_printf(&slopes, "%s%s", h > 1 ? ", " : "", t);
        free(t);
    }
    if (c->H > 8) buf_puts(&slopes, ", \xe2\x80\xa6");
    stage_by_heads(c, alibi_head);
    char *rule = alibi_rule(c->H);
    c->v->formula = stage_fmt(_("bias_h[i][j] = \xe2\x88\x92m_h\xc2\xb7|i \xe2\x88\x92 j|, m_h = %s = %s; "
                              "added to the scaled scores before the mask"), rule, slopes.s);
    free(rule);
    buf_free(&slopes);
}

/* Which query heads share which K/V head, and what the cache holds. */
void stage_grouped_query(Ctx *c)
{
    const TraceSetup *ts = c->ts;
    int H = c->H, G = ts->kv_heads;
    Panel *m = stage_as_mask(c, stage_heat(c, trace_ref(TK_KV_GROUPS, 0), _("who reads which"), LAB_DIM, LAB_DIM,
                                           _("query heads"), _("K/V heads")));
    label_rows(m, _("head"));
    label_cols(m, "K/V", 1);
    Panel *sz = stage_heat(c, trace_ref(TK_KV_SIZE, 0), _("numbers in the K/V cache"), LAB_DIM, LAB_DIM, _("K/V heads"), "");
    if (sz) {
        static const char *const cols[3] = { "K", "V", "K + V" };
        for (int j = 0; j < 3; j++) { free(sz->col_labels[j]); sz->col_labels[j] = xstrdup(cols[j]); }
        free(sz->row_labels[0]); sz->row_labels[0] = stage_fmt("H = %d", H);
        free(sz->row_labels[1]); sz->row_labels[1] = stage_fmt("G = %d", G);
        sz->diverging = false;
        sz->decimals = 0;
        free(sz->cmap);
        sz->cmap = xstrdup(c->st->cmap ? c->st->cmap : "Blues");
    }
    for (int g = 1; g <= G && g <= 4; g++) {          /* the keys of the first four K/V heads */
        int first = (g - 1) * H / G + 1, last = g * H / G;
        char *t = first == last ? stage_fmt(_("K for head %d"), first) : stage_fmt(_("K for heads %d\xe2\x80\x93%d"), first, last);
        stage_grouped(c, stage_heat(c, trace_ref(TK_K, first), t, LAB_K, LAB_KHEAD, _("keys"), AX_DIMS), 1);
        free(t);
    }
    char *part = G == H ? xstrdup(_("all")) : stage_fmt("1/%d", H / G);
    c->v->formula = stage_fmt(_("%d query heads share %d K/V head%s (%d per group): the cache holds %s of multi-head's "
                              "numbers, %d per token instead of %d"), H, G, G == 1 ? "" : "s", H / G, part,
                              (ts->d_k + ts->d_v) * G, (ts->d_k + ts->d_v) * H);
    free(part);
}

/* Block b of the online softmax: its scores and the running state. */
static void online_step(Ctx *c, int h, int B, int b)
{
    int nk = c->su->nk, nq = c->su->nq, dv = c->ts->d_v, j0 = b * B, j1 = j0 + B < nk ? j0 + B : nk;
    char *sx = stage_head_suffix(c, h);
    char *t0 = stage_fmt(_("block %d scores%s"), b + 1, sx);
    stage_part(c, trace_ref(trace_softmax_input(c->su), h), 0, nq, j0, j1, t0, LAB_Q, LAB_K, AX_QUERIES, _("keys"));
    static const TraceKind k[3] = { TK_OS_MAX, TK_OS_RESCALE, TK_OS_SUM };
    static const char *const what[3] = { N_("max m"), N_("rescale r"), N_("sum \xe2\x84\x93") };
    for (int i = 0; i < 3; i++)
        label_cols(stage_part(c, trace_block_ref(k[i], h, B), 0, nq, 0, b + 1, _(what[i]), LAB_Q, LAB_DIM, AX_QUERIES, ""),
                   _("block"), 1);
    char *t4 = stage_fmt(_("acc after block %d"), b + 1);
    Panel *acc = stage_part(c, trace_block_ref(TK_OS_ACC, h, B), 0, nq, b * dv, (b + 1) * dv, t4, LAB_Q, LAB_DIM, AX_QUERIES, AX_DIMS);
    if (acc) {                                      /* the columns of V_h, not of the whole history */
        char **names = stage_labels(c, LAB_VDIM, dv, h);
        for (int j = 0; j < dv; j++) {
            free(acc->col_labels[j]);
            acc->col_labels[j] = names[j];
        }
        free(names);
    }
    free(t0); free(t4); free(sx);
    c->v->formula = xstrdup("m_new = max(m_old, max s); r = exp(m_old " UMINUS " m_new); \xe2\x84\x93 = \xe2\x84\x93_old" TIMES "r + "
                            "\xce\xa3 exp(s " UMINUS " m_new); acc = (acc" TIMES "\xe2\x84\x93_old" TIMES "r + \xce\xa3 exp(s " UMINUS " m_new)"
                            TIMES "v) \xc3\xb7 \xe2\x84\x93");
    c->v->note = stage_fmt(_("block %d of %d: keys %d\xe2\x80\x93%d (%d a block); only this block's scores are in memory"), b + 1,
                           (nk + B - 1) / B, j0 + 1, j1, B);
}

/* The division and the comparison with the ordinary softmax. */
static void online_final(Ctx *c, int h, int B)
{
    char *sx = stage_head_suffix(c, h);
    char *t[3] = { stage_fmt(_("online: acc%s"), sx), stage_fmt(_("ordinary: softmax\xc2\xb7V%s"), sx),
                   stage_fmt(_("(online \xe2\x88\x92 ordinary) \xc3\xb7 \xce\xb5%s"), sx) };
    stage_grouped(c, stage_heat(c, trace_block_ref(TK_OS_OUT, h, B), t[0], LAB_Q, LAB_VDIM, AX_QUERIES, AX_DIMS), 1);
    stage_grouped(c, stage_heat(c, trace_ref(TK_OUTPUT, h), t[1], LAB_Q, LAB_VDIM, AX_QUERIES, AX_DIMS), 1);
    Panel *d = stage_heat(c, trace_block_ref(TK_OS_DIFF, h, B), t[2], LAB_Q, LAB_VDIM, AX_QUERIES, AX_DIMS);
    for (int i = 0; i < 3; i++) free(t[i]);
    free(sx);
    const Mat *D = d ? d->m : NULL;
    double mx = 0;
    for (long i = 0; D && i < (long)D->rows * D->cols; i++) mx = fmax(mx, fabs(mat_data(D)[i]));
    c->v->formula = xstrdup(_("output = acc after the last block: softmax\xc2\xb7V without ever holding a whole row of weights"));
    c->v->note = stage_fmt(_("largest |online \xe2\x88\x92 ordinary| = %.3g (\xce\xb5 = 2\xe2\x81\xbb\xe2\x81\xb5\xc2\xb2 "
                           "\xe2\x89\x88 2.2e\xe2\x88\x92" "16, the spacing of doubles near 1): the same up to rounding"),
                           mx * DBL_EPSILON);
}

/* FlashAttention's online softmax: a sub-step per block, then the end. */
void stage_online(Ctx *c)
{
    int B = lesson_stage_block(c->L, c->st), nb = (c->su->nk + B - 1) / B, b = take_step(c, stage_steps(c->L, c->st));
    int h = shown_head(c);
    assert(stage_steps(c->L, c->st) == nb + 1);         /* a page per block, then the last one */
    c->v->step_name = b < nb ? stage_fmt("b%d", b + 1) : xstrdup("final");
    if (b < nb) online_step(c, h, B, b);
    else online_final(c, h, B);
}
