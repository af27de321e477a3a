/*
** stage_block.c: the stages of the rest of a transformer block (see
** stage_int.h): the layer norm before attention, the MLP after it, and
** the next token, from the unembedding's logits to the probabilities of
** each word; and the line a slide carries when heads are switched off.
**
** Like stage.c, nothing is computed here but labels, the marks on the
** probabilities (each row's k likeliest words framed, the word that really
** comes next marked) and one count: how many rows' likeliest word is the
** token that really comes next.
*/
#include "stage_int.h"
#include "core/util.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A one-row input (γ, β) titled title, its row labelled with its name. */
static Panel *row_input(Ctx *c, const char *name, const char *title)
{
    Panel *p = stage_input(c, name, title, LAB_DIM, LAB_QFEAT, "", AX_DIMS);
    if (p) {
        free(p->row_labels[0]);
        p->row_labels[0] = xstrdup(name);
    }
    return p;
}

/* The layer norm of the block: what it reads (X before attention; X +
** attention's output after it, under `norm_order: post`), its rows
** standardised, γ, β and the result. */
void stage_layer_norm(Ctx *c)
{
    const Setup *su = c->su;
    bool pe = su->positions == POS_SINUSOIDAL;
    char *xin = pe ? stage_fmt("%s + PE", su->queries.input) : xstrdup(su->queries.input);
    char *x = su->post_norm ? stage_fmt(_("x = %s + attention"), xin) : xstrdup(xin);
    char *hat = stage_fmt(_("x\xcc\x82 = (%s \xe2\x88\x92 mean) \xc3\xb7 \xe2\x88\x9a(var + \xce\xb5)"),
                          su->post_norm ? "x" : x);
    TraceRef in = su->post_norm ? trace_ref(TK_ATTN_SUM, 0) : pe ? trace_ref(TK_XPE, 0) : trace_input_ref(su->queries.input);
    free(xin);
    stage_heat(c, in, x, LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    stage_heat(c, trace_ref(TK_LN_HAT, 0), hat, LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    row_input(c, su->norm.gamma, _("\xce\xb3 (gain)"));
    row_input(c, su->norm.beta, _("\xce\xb2 (bias)"));
    stage_heat(c, trace_ref(TK_LN, 0), _("LN = x\xcc\x82\xc2\xb7\xce\xb3 + \xce\xb2"), LAB_Q,
               LAB_QFEAT, _("tokens"), AX_DIMS);
    /* post-norm: the first panel's title (x = X + attention) says what is normalised */
    c->v->formula = stage_fmt(_("LN(x) = (x \xe2\x88\x92 mean(x)) \xc3\xb7 \xe2\x88\x9a(var(x) + \xce\xb5) \xc2\xb7 \xce\xb3 + \xce\xb2, "
                                "each token's row on its own (\xce\xb5 = %g)"), su->norm.eps);
    free(x);
    free(hat);
}

/* A weight and its bias as a formula writes them: "W_fc + b_fc", "W_fc". */
static char *affine_text(const char *w, const char *b)
{
    return b ? stage_fmt("%s + %s", w, b) : xstrdup(w);
}

/* The most blocks of hidden units the MLP is cut into (past that, a wide
** layer is drawn whole, its numbers left to the hover). */
#define MLP_MAX_BLOCKS 16

/* Hidden units [a, e) of the MLP before and after the activation (titled
** t_pre and t_act, with the units they show when they are not all), each
** planned for its whole matrix's values, so that every block reads alike,
** the units after the activation on the page of the same units before. */
static void hidden_panels(Ctx *c, int a, int e, int n, const char *t_pre, const char *t_act)
{
    static const TraceKind kinds[2] = { TK_MLP_PRE, TK_MLP_ACT };
    const char *titles[2] = { t_pre, t_act };
    for (int i = 0; i < 2; i++) {
        TraceRef ref = trace_ref(kinds[i], 0);
        if (a == 0 && e == n) {
            stage_heat(c, ref, titles[i], LAB_Q, LAB_DIM, _("tokens"), _("hidden units"));
            continue;
        }
        char *t = stage_fmt(_("%s, units %d\xe2\x80\x93%d of %d"), titles[i], a + 1, e, n);
        Panel *p = stage_part(c, ref, 0, c->su->nq, a, e, t, LAB_Q, LAB_DIM, _("tokens"), _("hidden units"));
        free(t);
        if (!p) continue;
        StageVals all = stage_trace_vals(c->pager, c->T, trace_at(c->T, c->s, ref));
        stage_set_span(p, all, all);
        p->with_previous = i == 1;
    }
}

/*
** How many hidden units of n a block of the MLP shows: all when the
** layer before and after the activation prints every number together on
** a slide, else as many as do (found in steps of a quarter), spread evenly
** over the blocks; all when that takes more than MLP_MAX_BLOCKS blocks.
*/
static int hidden_block(Ctx *c, int n, const char *t_pre, const char *t_act)
{
    View *v = c->v;
    if (c->whole || !c->pager || n < 2) return n;
    int from = v->npanels, fit = n;
    for (;;) {
        hidden_panels(c, 0, fit, n, t_pre, t_act);
        bool fits = stage_page_fits(c, &v->panels[from], v->npanels - from, c->note, 0);
        while (v->npanels > from) stage_panel_free(&v->panels[--v->npanels]);
        if (fits || fit <= 1) break;
        fit = fit > 8 ? fit * 3 / 4 : fit - 1;
    }
    int blocks = (n + fit - 1) / fit;
    return blocks > MLP_MAX_BLOCKS ? n : (n + blocks - 1) / blocks;
}

/* The MLP: the stream after attention, the hidden units before and after
** the activation (in blocks of units, the layer before and after the
** activation side by side, when the slide does not print a whole row of
** them: GPT-2's MLP is four times as wide as the stream), the MLP's
** output and the stream after the block. */
void stage_mlp(Ctx *c)
{
    const Setup *su = c->su;
    const char *act = lesson_activation_name(su->mlp.act);
    char *in = affine_text(su->mlp.w_in, su->mlp.b_in), *out = affine_text(su->mlp.w_out, su->mlp.b_out);
    bool pre_ln = su->mlp_norm.gamma && !su->post_norm, post_ln = su->mlp_norm.gamma && su->post_norm;
    const char *x = pre_ln ? "LN(x)" : "x";
    char *t_pre = stage_fmt("%s\xc2\xb7%s", x, in), *t_act = stage_fmt("%s(%s\xc2\xb7%s)", act, x, in);
    stage_heat(c, trace_ref(TK_MID, 0), su->post_norm ? _("x = the stream after attention, normalised")
               : _("x = the stream after attention"), LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    if (pre_ln)
        stage_heat(c, trace_ref(TK_MLP_LN, 0), _("LN(x): the MLP's input"), LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    const Mat *pre = trace_at(c->T, c->s, trace_ref(TK_MLP_PRE, 0));
    int n = pre ? pre->cols : 0, w = hidden_block(c, n, t_pre, t_act);
    for (int a = 0; a < n; a += w) hidden_panels(c, a, a + w < n ? a + w : n, n, t_pre, t_act);
    stage_heat(c, trace_ref(TK_MLP_OUT, 0), _("MLP output"), LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    if (post_ln)
        stage_heat(c, trace_ref(TK_MLP_SUM, 0), _("x + MLP(x)"), LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    stage_heat(c, trace_ref(TK_STREAM, 0), post_ln ? _("LN(x + MLP(x)): the block's output") : _("x + MLP(x)"), LAB_Q,
               LAB_QFEAT, _("tokens"), AX_DIMS);
    c->v->formula = post_ln ? stage_fmt(_("MLP(x) = %s(%s\xc2\xb7%s)\xc2\xb7%s, and the block hands on LN(x + MLP(x)) "
                                          "(post-norm): each token on its own, no attention"), act, x, in, out)
                            : stage_fmt(_("MLP(x) = %s(%s\xc2\xb7%s)\xc2\xb7%s, and the block hands on x + MLP(x): "
                                          "each token on its own, no attention"), act, x, in, out);
    free(in); free(out); free(t_pre); free(t_act);
}

/* The vocabulary's column of word w, or -1. */
static int word_index(const Setup *su, const char *w)
{
    for (int i = 0; i < su->nvocab; i++)
        if (!strcmp(su->vocab[i], w)) return i;
    return -1;
}

/* The word of the vocabulary that really comes after row r (the token
** after it, when it is a word of the vocabulary), or -1. */
static int next_word(const Ctx *c, int r)
{
    return r + 1 < c->su->nq ? word_index(c->su, c->su->qtokens[r + 1]) : -1;
}

/* The slide's line: the legend of the marks (each row's k likeliest words
** framed, ◆ the word that comes next), and how many rows' likeliest word
** is the token after them, of the rows whose next token is a word of the
** vocabulary. */
static char *next_token_note(const Ctx *c, int k)
{
    const Mat *P = trace_at(c->T, c->s, trace_ref(TK_PROBS, 0));
    int right = 0, of = 0;
    for (int i = 0; P && i + 1 < c->su->nq; i++) {
        int want = next_word(c, i), best = 0;
        if (want < 0) continue;
        for (int j = 1; j < P->cols; j++)
            if (mat_get(P, i, j) > mat_get(P, i, best)) best = j;
        of++;
        right += best == want;
    }
    if (!of) return stage_fmt(_("framed: each row's %d likeliest words"), k);
    char *legend = stage_fmt(_("framed: each row's %d likeliest words; \xe2\x97\x86 the word that comes next"), k);
    char *score = stage_fmt(_("the likeliest word is the token that comes next in %d of %d rows"), right, of);
    char *note = stage_fmt("%s \xc2\xb7 %s", legend, score);
    free(legend);
    free(score);
    return note;
}

/* The marks on columns [a, e) of the probabilities next_token shows for k
** (words ids): a frame on each row's k likeliest words of the whole
** vocabulary, a diamond on the word that comes next (row by row). */
static unsigned char *word_marks(const Ctx *c, int k, const Mat *ids, int a, int e)
{
    const Mat *P = trace_at(c->T, c->s, trace_ref(TK_PROBS, 0));
    if (!P || k < 1 || k > P->cols) return NULL;
    unsigned char *marks = xcalloc((size_t)P->rows * (size_t)(e - a), 1);
    int *top = xmalloc(sizeof *top * (size_t)k);
    bool *likely = xcalloc((size_t)P->cols, sizeof *likely);     /* the row's top k, as a set (cleared after) */
    for (int r = 0; r < P->rows; r++) {
        trace_row_top(mat_row(P, r), P->cols, k, top);
        for (int t = 0; t < k; t++) likely[top[t]] = true;
        int next = next_word(c, r);
        for (int j = a; j < e; j++) {
            int w = (int)mat_data(ids)[j];
            unsigned char *mk = &marks[(size_t)r * (size_t)(e - a) + (size_t)(j - a)];
            if (likely[w]) *mk |= PANEL_MARK_FRAME;
            if (next == w) *mk |= PANEL_MARK_DIAMOND;
        }
        for (int t = 0; t < k; t++) likely[top[t]] = false;
    }
    free(likely);
    free(top);
    return marks;
}

/* The logits and probabilities of words [a, e) of those next_token shows
** for k, each panel planned for its whole matrix's values (every page of
** words alike, one colour scale). */
static void word_panels(Ctx *c, int k, int a, int e, const char *t_logits)
{
    int nq = c->su->nq;
    static const TraceKind kinds[2] = { TK_TOP_LOGITS, TK_TOP_PROBS };
    const char *titles[2] = { t_logits, _("probability of the next word") };
    for (int i = 0; i < 2; i++) {
        TraceRef ref = trace_block_ref(kinds[i], 0, k);
        const Mat *m = trace_at(c->T, c->s, ref);
        Panel *p = a == 0 && e == m->cols ? stage_heat(c, ref, titles[i], LAB_Q, LAB_WORDS, _("tokens"), _("words"))
                                          : stage_part(c, ref, 0, nq, a, e, titles[i], LAB_Q, LAB_WORDS, _("tokens"), _("words"));
        if (i == 1 && p) {
            stage_as_weights(c, p);
            p->cell_marks = word_marks(c, k, trace_at(c->T, c->s, trace_block_ref(TK_TOP_IDS, 0, k)), a, e);
        }
        if (p && (a > 0 || e < m->cols)) {
            StageVals all = stage_trace_vals(c->pager, c->T, m);
            stage_set_span(p, all, all);
        }
    }
}

/*
** The words a page of next_token shows at most: all n when the stream (the
** panel last added) and the two panels of every word serve as one page,
** else the most that do beside the stream on the first page (found in
** steps of a quarter), the same on every page; all n when not even one
** serves (cutting would not print them).
*/
static int words_a_page(Ctx *c, int k, int n, const char *t_logits)
{
    View *v = c->v;
    int from = v->npanels - 1, fit = n;                 /* the stream */
    assert(from >= 0);
    for (;;) {
        word_panels(c, k, 0, fit, t_logits);
        bool fits = stage_page_fits(c, &v->panels[from], v->npanels - from, v->note ? v->note : c->note, 1);
        while (v->npanels > from + 1) stage_panel_free(&v->panels[--v->npanels]);
        if (fits) return fit;
        if (fit <= 1) return n;                         /* no page of fewer words serves: all on one, their
                                                        ** numbers read by hovering or in the tables */
        fit = fit > 8 ? fit * 3 / 4 : fit - 1;
    }
}

/* The next token: the stream the unembedding reads, and for the words
** among some row's k likeliest, their logits and probabilities; every one
** of those words, on pages of as many as the slide prints (the stream on
** the first). */
void stage_next_token(Ctx *c)
{
    const Setup *su = c->su;
    int k = lesson_stage_top(c->L, c->st);
    const Mat *ids = trace_at(c->T, c->s, trace_block_ref(TK_TOP_IDS, 0, k));
    int n = ids ? ids->cols : 0;
    bool ln = su->final_norm.gamma != NULL;
    char *t_logits = stage_fmt(_("logits = %s\xc2\xb7%s%s%s"), ln ? "LN(x)" : "x", su->unembed,
                               su->unembed_bias ? " + " : "", su->unembed_bias ? su->unembed_bias : "");
    stage_heat(c, trace_ref(trace_unembed_input(su), 0), ln ? _("LN(x): the stream after the last block, normalised")
               : _("x: the stream after the last block"), LAB_Q, LAB_QFEAT, _("tokens"), AX_DIMS);
    c->v->note = next_token_note(c, k);
    int per = c->whole || n < 1 ? n : words_a_page(c, k, n, t_logits);
    int pages = per > 0 ? (n + per - 1) / per : 1, p = c->step < pages ? c->step : pages - 1;
    if (p > 0) stage_panel_free(&c->v->panels[--c->v->npanels]);     /* the stream: on the first page */
    int a = p * per, e = a + per < n ? a + per : n;
    word_panels(c, k, a, e, t_logits);
    if (pages > 1) {
        c->v->nsteps = pages;
        c->v->step = p;
        c->v->step_name = stage_fmt("w%d", p + 1);
        c->v->step_label = stage_fmt(_("words %d\xe2\x80\x93%d of %d"), a + 1, e, n);
        c->paged = true;
    }
    c->v->formula = stage_fmt(_("p(next word) = softmax(logits) over all %d words; shown: every word among some row's "
                                "%d likeliest"), su->nvocab, k);
    free(t_logits);
}

/* The heads switched off in setup su of H heads: "head 1 → 0, head 3 →
** its mean over the tokens", appended to b. */
void stage_ablated_heads(Buf *b, const Setup *su, int H)
{
    const char *sep = "";
    for (int h = 1; h <= H; h++) {
        if (!lesson_head_ablated(su, h)) continue;
        buf_puts(b, sep);
        buf_printf(b, (su->ablate_mean & (1u << (h - 1))) ? _("head %d \xe2\x86\x92 its mean over the tokens")
                                                          : _("head %d \xe2\x86\x92 0"), h);
        sep = ", ";
    }
}

/*
** The line for a slide whose numbers come after heads switched off: those
** of its own setup ("switched off (ablated): head 1 → 0, head 3 → its mean
** over the tokens"), then those of every setup above whose stream it
** continues (`residual: yes`, setup after setup), named by its title:
** "switched off in “Layer 1”: head 1 → 0". NULL when none is.
*/
char *stage_ablation_note(const Ctx *c)
{
    Buf b = {0};
    if (c->su->ablated) {
        buf_puts(&b, _("switched off (ablated): "));
        stage_ablated_heads(&b, c->su, c->H);
    }
    for (int s = c->s; s > 0 && c->L->setups[s].residual; s--) {
        const Setup *up = &c->L->setups[s - 1];
        if (!up->ablated) continue;
        if (b.len) buf_puts(&b, "; ");
        if (up->title) buf_printf(&b, _("switched off in \xe2\x80\x9c%s\xe2\x80\x9d: "), up->title);
        else buf_printf(&b, _("switched off in setup %d: "), s);
        stage_ablated_heads(&b, up, c->T->s[s - 1].heads);
    }
    return b.len ? buf_take(&b) : NULL;
}
