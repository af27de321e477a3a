/*
** stage.c: what each stage shows.
**
** One function per stage id picks the matrices from the trace, labels their
** rows and columns with tokens or dimensions, chooses a colormap (viridis for
** weights, a diverging RdBu centred on 0 for signed matrices, Blues for the
** mask) and writes the formula from the setup as it is now (scaling on or
** off, mask on or off, temperature, head width), so no word on a slide is
** stale after a toggle. With several heads a stage shows every head, or the
** one head chosen, and never a matrix across heads. Nothing is computed here
** except one-row slices (per_token), one-column slices (entropy of one
** head), variances and the entropy bounds.
*/
#include "stage.h"
#include "stage_int.h"
#include "core/text/i18n.h"
#include "core/util.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default title of a stage id. */
const char *stage_default_title(StageId id)
{
    return (unsigned)id < STAGE_COUNT ? _(stage_kind(id)->title) : "";
}

/* Whether a paragraph tied to tie (Stage.para_ties: 0, every page) is on a
** page that shows heads h0 … h1's own panels (h0 0: none) or every head. */
bool stage_para_shown(unsigned tie, bool every, int h0, int h1)
{
    if (tie == 0 || every) return true;
    for (int h = h0 > 0 ? h0 : 1; h0 > 0 && h <= h1 && h <= LESSON_MAX_HEADS; h++)
        if (tie >> h & 1u) return true;
    return false;
}

/* printf into a new string. */
char *stage_fmt(const char *f, ...)
{
    Buf b = {0};
    va_list ap;
    va_start(ap, f);
    buf_vprintf(&b, f, ap);
    va_end(ap);
    return buf_take(&b);
}

/* Append a heatmap of ref; returns it, or NULL when the trace has no such
** matrix. */
Panel *stage_heat(Ctx *c, TraceRef ref, const char *title, LabelKind rows, LabelKind cols,
                       const char *row_axis, const char *col_axis)
{
    const Mat *m = trace_at(c->T, c->s, ref);
    View *v = c->v;
    if (!m) return NULL;
    Panel *p = stage_new_panel(v);
    p->kind = PANEL_HEATMAP;
    p->m = m;
    p->ref = ref;
    trace_name(ref, c->H, p->matrix, sizeof p->matrix);
    p->title = xstrdup(title);
    p->row_labels = stage_labels(c, rows, m->rows, ref.head);
    p->col_labels = stage_labels(c, cols, m->cols, ref.head);
    p->row_axis = xstrdup(row_axis);
    p->col_axis = xstrdup(col_axis);
    p->diverging = true;
    p->cmap = xstrdup(c->st->cmap ? c->st->cmap : "RdBu");
    p->decimals = c->st->decimals;
    p->editable = ref.kind == TK_INPUT && !trace_input_computed(c->T, c->s, ref.name);
    p->from = c->s != v->setup ? c->s + 1 : 0;
    return p;
}

/* The setup a panel's matrix is read from. */
int stage_panel_setup(const View *v, const Panel *p)
{
    return p->from > 0 ? p->from - 1 : v->setup;
}

/* An input matrix by name. */
Panel *stage_input(Ctx *c, const char *name, const char *title, LabelKind rows, LabelKind cols,
                        const char *row_axis, const char *col_axis)
{
    return stage_heat(c, trace_input_ref(name), title, rows, cols, row_axis, col_axis);
}

/* Make a panel show probabilities (weights): fixed [0, 1] scale, viridis. */
Panel *stage_as_weights(Ctx *c, Panel *p)
{
    if (!p) return NULL;
    p->probabilities = true;
    p->diverging = false;
    free(p->cmap);
    p->cmap = xstrdup(c->st->cmap ? c->st->cmap : "viridis");
    return p;
}

/* Put a panel in a colour-scale group, unless the stage says `scale: own`. */
Panel *stage_grouped(Ctx *c, Panel *p, int group)
{
    if (p && !c->st->own_scale) p->scale_group = group;
    return p;
}

/* " (head 2 of 4)" when one head of several is shown, else "". */
char *stage_head_suffix(const Ctx *c, int h)
{
    return c->H > 1 ? stage_fmt(_(" (head %d of %d)"), h, c->H) : xstrdup("");
}

/* What the scores before masking are called, following the setup now. */
const char *stage_scores_word(const Ctx *c)
{
    if (c->su->score == SCORE_ADDITIVE) return _("additive scores");
    if (c->ts->divisor == 1.0 && c->ts->temperature == 1.0) return _("scores (not scaled)");
    return _("scaled scores");
}

/*
** The division the setup applies, for formulas: "÷ √4", "÷ 2.5",
** "÷ √4 ÷ 1.5625 (temperature)", or "" when scores are not divided.
*/
char *stage_division_text(const Ctx *c)
{
    Buf b = {0};
    if (c->su->score == SCORE_SCALED_DOT && c->su->divisor > 0) buf_printf(&b, " \xc3\xb7 %g", c->su->divisor);
    else if (c->su->score == SCORE_SCALED_DOT) buf_printf(&b, " \xc3\xb7 \xe2\x88\x9a%d", c->ts->d_k);
    if (c->ts->temperature != 1.0) buf_printf(&b, _(" \xc3\xb7 %g (temperature)"), c->ts->temperature);
    if (!b.s) buf_puts(&b, "");
    return buf_take(&b);
}

/* The scores as a formula: "Q·Kᵀ ÷ √4", "vᵀ·tanh(…)", with the mask when on. */
static char *scores_formula(const Ctx *c)
{
    char *dv = stage_division_text(c);
    const char *base = c->su->score == SCORE_ADDITIVE ? "score(q, k)" : "Q\xc2\xb7K\xe1\xb5\x80";
    char *f = stage_fmt("%s%s%s%s", base, dv, c->su->positions == POS_ALIBI ? " + ALiBi bias" : "",
                        c->su->mask != MASK_NONE ? _(" + mask (\xe2\x88\x92\xe2\x88\x9e where blocked)") : "");
    free(dv);
    return f;
}

/* Population variance of the finite values of m, computed on values scaled
** by their largest magnitude so that no square overflows; NaN when empty. */
static double variance(const Mat *m)
{
    double big = 0, sum = 0, sq = 0;
    long n = 0, total = (long)m->rows * m->cols;
    for (long i = 0; i < total; i++)
        if (isfinite(mat_data(m)[i]) && fabs(mat_data(m)[i]) > big) big = fabs(mat_data(m)[i]);
    if (big == 0) big = 1;
    for (long i = 0; i < total; i++)
        if (isfinite(mat_data(m)[i])) { sum += mat_data(m)[i] / big; n++; }
    if (n == 0) return NAN;
    double mean = sum / n;
    for (long i = 0; i < total; i++)
        if (isfinite(mat_data(m)[i])) sq += (mat_data(m)[i] / big - mean) * (mat_data(m)[i] / big - mean);
    return sq / n * big * big;      /* may be +∞ for values near 1e308: the caller says so in words */
}

/* "var 1.23", or "var too large for a double" when it overflows one. */
static char *variance_text(const Mat *m)
{
    double x = variance(m);
    return isfinite(x) ? stage_fmt(_("var %.3g"), x) : xstrdup(_("var too large for a double"));
}

/* Panels for the inputs of queries, keys and values (each once). */
void stage_embeddings(Ctx *c)
{
    const Operand *o[3] = { &c->su->queries, &c->su->keys, &c->su->values };
    const char *seen[3];
    int nseen = 0;
    for (int i = 0; i < 3; i++) {
        bool dup = false;
        for (int k = 0; k < nseen; k++) dup |= !strcmp(seen[k], o[i]->input);
        if (dup) continue;
        seen[nseen++] = o[i]->input;
        char *t = stage_fmt("%s%s", o[i]->input,
                      i == 0 ? (c->su->cross ? _(" (query sentence)") : "") : i == 1 ? (c->su->cross ? _(" (key sentence)") : _(" (keys)")) : _(" (values)"));
        stage_input(c, o[i]->input, t, i == 0 ? LAB_Q : LAB_K, i == 0 ? LAB_QFEAT : LAB_KFEAT, _("tokens"), AX_DIMS);
        free(t);
    }
    const Mat *X = trace_at(c->T, c->s, trace_input_ref(c->su->queries.input));
    c->v->formula = stage_fmt(_("%s: one row per token, %d numbers per row"), c->su->queries.input, X ? X->cols : 0);
}

/* Head h's Q·Kᵀ, with its Q and K beside it when they are narrow enough
** to read. */
static void raw_head(Ctx *c, int h)
{
    TraceKind qk = trace_score_q(c->su), kk = trace_score_k(c->su);
    const Mat *Q = trace_at(c->T, c->s, trace_ref(qk, h)), *K = trace_at(c->T, c->s, trace_ref(kk, h));
    char *sx = stage_head_suffix(c, h);
    if (Q && K && Q->cols <= 16 && K->cols <= 16) {
        bool rot = qk == TK_QROT;
        char *t1 = stage_fmt("Q (queries%s)%s", rot ? ", rotated" : "", sx), *t2 = stage_fmt("K (keys%s)%s", rot ? ", rotated" : "", sx);
        stage_grouped(c, stage_heat(c, trace_ref(qk, h), t1, LAB_Q, LAB_QHEAD, AX_QUERIES, AX_DIMS), 2);
        stage_grouped(c, stage_heat(c, trace_ref(kk, h), t2, LAB_K, LAB_KHEAD, _("keys"), AX_DIMS), 3);
        free(t1); free(t2);
    }
    char *t = stage_fmt("%s%s", c->su->score == SCORE_ADDITIVE ? _("additive scores") : "Q\xc2\xb7K\xe1\xb5\x80", sx);
    stage_grouped(c, stage_heat(c, trace_ref(TK_RAW, h), t, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS), 1);
    free(t);
    free(sx);
}

/* Q·Kᵀ, head by head. */
void stage_raw_scores(Ctx *c)
{
    stage_by_heads(c, raw_head);
    bool self = !c->su->queries.weight && !c->su->keys.weight && !strcmp(c->su->queries.input, c->su->keys.input);
    c->v->formula = self ? stage_fmt(_("scores = %s\xc2\xb7%s\xe1\xb5\x80: the dot product of every token with every token"),
                               c->su->queries.input, c->su->keys.input)
                  : c->H > 1 ? stage_fmt(_("scores_h = Q_h\xc2\xb7K_h\xe1\xb5\x80: in each head, every query dotted with every key "
                                   "(%d numbers each)"), c->ts->d_k)
                  : xstrdup(_("scores = Q\xc2\xb7K\xe1\xb5\x80: the dot product of every query with every key"));
}

/* Head h's raw and scaled scores on one colour scale, with their
** variances. */
static void scaled_head(Ctx *c, int h)
{
    char *dv = stage_division_text(c);
    for (int pass = 0; pass < 2; pass++) {
        const Mat *m = trace_at(c->T, c->s, trace_ref(pass ? TK_SCALED : TK_RAW, h));
        if (!m) continue;
        char *var = variance_text(m), *who = c->H > 1 ? stage_fmt(_("head %d: "), h) : xstrdup("");
        char *t = pass ? stage_fmt("%s%s%s, %s", who, dv[0] ? "" : _("scores"), dv[0] ? dv + 1 : _(" (not scaled)"), var)
                       : stage_fmt("%sQ\xc2\xb7K\xe1\xb5\x80, %s", who, var);
        stage_grouped(c, stage_heat(c, trace_ref(pass ? TK_SCALED : TK_RAW, h), t, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS), 1);
        free(var); free(who); free(t);
    }
    free(dv);
}

/* Raw and scaled scores, head by head. */
void stage_scaled_scores(Ctx *c)
{
    stage_by_heads(c, scaled_head);
    char *dv = stage_division_text(c);
    c->v->formula = dv[0] ? stage_fmt(_("scaled = Q\xc2\xb7K\xe1\xb5\x80%s   (d_k = %d, the width of %s)"), dv, c->ts->d_k,
                                c->H > 1 ? _("one head's keys") : _("the keys"))
                          : xstrdup(_("scaled = Q\xc2\xb7K\xe1\xb5\x80 \xc3\xb7 1: scaling is off"));
    free(dv);
}

/* Head h's scores in, weights out. */
static void softmax_head(Ctx *c, int h)
{
    char *sx = stage_head_suffix(c, h);
    char *t1 = stage_fmt("%s%s", c->su->mask != MASK_NONE ? _("masked scores") : stage_scores_word(c), sx);
    char *t2 = stage_fmt(_("attention weights%s"), sx);
    stage_grouped(c, stage_heat(c, trace_ref(trace_softmax_input(c->su), h), t1, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS), 1);
    stage_as_weights(c, stage_heat(c, trace_ref(TK_WEIGHTS, h), t2, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    free(sx); free(t1); free(t2);
}

/* Scores in, weights out, head by head. */
void stage_softmax(Ctx *c)
{
    stage_by_heads(c, softmax_head);
    char *sf = scores_formula(c);
    c->v->formula = stage_fmt(_("weights = softmax(%s), each row sums to 1"), sf);
    free(sf);
}

/* Head h's weights times its values. */
static void weighted_head(Ctx *c, int h)
{
    char *sx = stage_head_suffix(c, h);
    char *t1 = stage_fmt(_("weights%s"), sx), *t2 = stage_fmt(_("V (values)%s"), sx), *t3 = stage_fmt(_("output = weights\xc2\xb7V%s"), sx);
    stage_as_weights(c, stage_heat(c, trace_ref(TK_WEIGHTS, h), t1, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    stage_grouped(c, stage_heat(c, trace_ref(TK_V, h), t2, LAB_K, LAB_VDIM, _("keys"), AX_DIMS), 2);
    stage_grouped(c, stage_heat(c, trace_ref(TK_OUTPUT, h), t3, LAB_Q, LAB_VDIM, AX_QUERIES, AX_DIMS), 2);
    free(sx); free(t1); free(t2); free(t3);
}

/* Weights times values, head by head. */
void stage_weighted_sum(Ctx *c)
{
    stage_by_heads(c, weighted_head);
    c->v->formula = xstrdup(c->H > 1 ? _("output_h = weights_h\xc2\xb7V_h: in each head, each query's output is a blend of the value rows")
                                     : _("output = weights\xc2\xb7V: each query's output is a blend of the value rows"));
}

/*
** The split into heads (qkv_projection with two heads or more): Q, K and
** V cut into the columns each head reads, Q_h, K_h and V_h for every head
** (or the chosen one). With fewer K/V heads than query heads (kv_heads),
** K and V are cut into the K/V heads, each shown once, named for the
** query heads that read it.
*/
static void split_heads(Ctx *c)
{
    if (c->H < 2) return;
    int G = c->ts->kv_heads > 0 ? c->ts->kv_heads : c->H;
    static const TraceKind kind[3] = { TK_Q, TK_K, TK_V };
    static const char *const role[3] = { "Q", "K", "V" };
    for (int h = 1; h <= c->H; h++) {
        if (c->sel && h != c->sel) continue;
        int g = trace_kv_head(c->ts, h);
        bool first_of_group = h == 1 || trace_kv_head(c->ts, h - 1) != g || c->sel;
        for (int i = 0; i < 3; i++) {
            if (i > 0 && !first_of_group) continue;         /* a K/V head shown once */
            char *t = i == 0 || G == c->H ? stage_fmt(_("%s_%d: head %d's columns"), role[i], h, h)
                                          : stage_fmt(_("%s of K/V head %d of %d"), role[i], g, G);
            stage_heat(c, trace_ref(kind[i], h), t, i == 0 ? LAB_Q : LAB_K, i == 0 ? LAB_QHEAD : i == 1 ? LAB_KHEAD : LAB_VDIM,
                       i == 0 ? AX_QUERIES : _("keys"), AX_DIMS);
            free(t);
        }
    }
}

/*
** The weights of the projections, W_q, W_k, W_v in turn, each with its
** bias when it has one (`queries: X @ W_q + b_q`): a one-row panel after
** it, always on its page, its row labelled with its name, on one colour
** scale with it (groups 11 to 13).
*/
static void qkv_weights(Ctx *c)
{
    const Operand *o[3] = { &c->su->queries, &c->su->keys, &c->su->values };
    for (int i = 0; i < 3; i++) {
        if (!o[i]->weight) continue;
        Panel *w = stage_grouped(c, stage_input(c, o[i]->weight, o[i]->weight, i == 0 ? LAB_QFEAT : LAB_KFEAT, LAB_DIM,
                                                _("input dimensions"), _("output dimensions")), 11 + i);
        if (!o[i]->bias) continue;
        Panel *b = stage_grouped(c, stage_input(c, o[i]->bias, o[i]->bias, LAB_DIM, LAB_DIM, "", _("output dimensions")),
                                 11 + i);
        if (b && b->m->rows == 1) {
            free(b->row_labels[0]);
            b->row_labels[0] = xstrdup(o[i]->bias);
        }
        if (b && w) b->with_previous = true;
    }
}

/*
** Inputs, weights and projections, in the order they are made: the input
** of every projection (X + PE with sinusoidal positions, which is what the
** projections read), then the weights (and biases), then Q, K and V made
** from them, on every page the order of the story. Each matrix is shown
** once. A role that is an
** input used as it is (`keys: K`) is that input's own panel, titled with
** the role, and keeps its feature labels; an input both projected and used
** as a role, or used as it is by two roles, is shown once, titled with
** every role (`K = B = V`), unless `value_dims:` names V's columns: V is
** then a panel of its own, labelled with them.
*/
void stage_qkv(Ctx *c)
{
    const Operand *o[3] = { &c->su->queries, &c->su->keys, &c->su->values };
    static const TraceKind out[3] = { TK_Q, TK_K, TK_V };
    static const char *const role[3] = { "Q", "K", "V" };
    bool pe = c->su->positions == POS_SINUSOIDAL;
    char *in[3], *w[3];                     /* what each role reads, and its weight and bias, as the slide writes them */
    for (int i = 0; i < 3; i++) {
        TraceKind k = trace_operand_input(c->su, o[i]).kind;
        in[i] = k == TK_LN ? stage_fmt(pe ? "LN(%s + PE)" : "LN(%s)", o[i]->input)
              : pe ? stage_fmt("%s + PE", o[i]->input) : xstrdup(o[i]->input);
        w[i] = o[i]->bias ? stage_fmt("%s + %s", o[i]->weight, o[i]->bias) : xstrdup(o[i]->weight ? o[i]->weight : "I");
    }
    int shown[3] = { -1, -1, -1 };          /* the panel (index: pointers go stale as panels are added) of role i's input */
    for (int i = 0; i < 3; i++) {           /* every input a projection reads, once */
        if (!o[i]->weight) continue;
        for (int k = 0; k < 3 && shown[i] < 0; k++) if (shown[k] >= 0 && !strcmp(o[k]->input, o[i]->input)) shown[i] = shown[k];
        if (shown[i] >= 0) continue;
        if (stage_heat(c, trace_operand_input(c->su, o[i]), in[i], i == 0 ? LAB_Q : LAB_K,
                       i == 0 ? LAB_QFEAT : LAB_KFEAT, _("tokens"), AX_DIMS))
            shown[i] = c->v->npanels - 1;
    }
    qkv_weights(c);
    /* the token matrices in one row (they share their rows) */
    for (int i = 0; i < 3; i++) {
        LabelKind rows = i == 0 ? LAB_Q : LAB_K;
        const char *axis = i == 0 ? AX_QUERIES : _("keys");
        if (o[i]->weight) {
            char *t = stage_fmt(pe ? "%s = (%s)\xc2\xb7%s" : "%s = %s\xc2\xb7%s", role[i], in[i], w[i]);
            stage_heat(c, trace_ref(out[i], 0), t, rows, i == 2 ? LAB_VDIM : LAB_DIM, axis, AX_DIMS);
            free(t);
            continue;
        }
        int same = -1;                      /* the input shown already: add the role to its title */
        bool own_names = i == 2 && c->su->value_dims;   /* V named by value_dims: its own panel, with its names */
        for (int k = 0; k < 3 && same < 0 && !own_names; k++)
            if (shown[k] >= 0 && !strcmp(o[k]->input, o[i]->input)) same = shown[k];
        if (same >= 0) {
            Panel *p = &c->v->panels[same];
            char *t = stage_fmt("%s = %s", p->title, role[i]);
            free(p->title);
            p->title = t;
            continue;
        }
        char *t = stage_fmt("%s = %s", role[i], in[i]);
        if (stage_heat(c, trace_operand_input(c->su, o[i]), t, rows, i == 0 ? LAB_QFEAT : i == 1 ? LAB_KFEAT : LAB_VDIM, axis,
                       AX_DIMS) && !own_names)
            shown[i] = c->v->npanels - 1;
        free(t);
    }
    split_heads(c);
    char *heads = c->H > 1 ? stage_fmt(_("; %d heads take %d columns each"), c->H, c->ts->d_k) : xstrdup("");
    const char *fmt = pe ? "Q = (%s)\xc2\xb7%s    K = (%s)\xc2\xb7%s    V = (%s)\xc2\xb7%s%s"
                         : "Q = %s\xc2\xb7%s    K = %s\xc2\xb7%s    V = %s\xc2\xb7%s%s";
    c->v->formula = stage_fmt(fmt, in[0], w[0], in[1], w[1], in[2], w[2], heads);
    free(heads);
    for (int i = 0; i < 3; i++) {
        free(in[i]);
        free(w[i]);
    }
}

/* Head h of multi_head: its Q, K, weights and output; a head switched off
** shows, in place of its output, what the joined heads hold instead (its
** zeros or its mean: TK_ABLATED), which is all that reaches W_o. */
static void multi_head_head(Ctx *c, int h)
{
    static const TraceKind parts[4] = { TK_Q, TK_K, TK_WEIGHTS, TK_OUTPUT };
    static const char *const names[4] = { "Q", "K", N_("weights"), N_("output") };
    for (int i = 0; i < 4; i++) {
        bool off = i == 3 && lesson_head_ablated(c->su, h);
        bool mean = off && (c->su->ablate_mean & (1u << (h - 1)));
        char *t = mean ? stage_fmt(_("head %d of %d: off (its mean over the tokens)"), h, c->H)
                : off ? stage_fmt(_("head %d of %d: off (0 in its place)"), h, c->H)
                      : stage_fmt(_("head %d of %d: %s"), h, c->H, i >= 2 ? _(names[i]) : names[i]);
        Panel *p = stage_heat(c, trace_ref(off ? TK_ABLATED : parts[i], h), t, i == 1 ? LAB_K : LAB_Q,
                              i == 2 ? LAB_K : i == 3 ? LAB_VDIM : LAB_DIM, i == 1 ? _("keys") : AX_QUERIES,
                              i == 2 ? AX_KEYS : AX_DIMS);
        if (i == 2) stage_as_weights(c, p);
        free(t);
    }
}

/* What multi_head shows of no head: the joined heads and W_o's output
** (with its bias, `output: W_o + b_o`). */
static void multi_head_joined(Ctx *c)
{
    stage_heat(c, trace_ref(TK_CONCAT, 0), _("concatenated heads"), LAB_Q, LAB_VDIM, AX_QUERIES, AX_DIMS);
    if (!c->su->output_proj) return;
    char *bias = c->su->output_bias ? stage_fmt(" + %s", c->su->output_bias) : xstrdup("");
    char *t = stage_fmt("%s%s", _("output = concat\xc2\xb7W_o"), bias);
    stage_heat(c, trace_ref(TK_FINAL, 0), t, LAB_Q, LAB_DIM, AX_QUERIES, AX_DIMS);
    free(t);
    free(bias);
}

/* Every head's Q, K, weights and output (a head a page, or as many as
** fit), then the concatenation and the output projection. */
void stage_multi_head(Ctx *c)
{
    stage_heads_paged(c, multi_head_head, multi_head_joined);
    char *bias = c->su->output_bias ? stage_fmt(" + %s", c->su->output_bias) : xstrdup("");
    char *dv = stage_division_text(c);
    c->v->formula = stage_fmt("head_h = softmax(Q_h\xc2\xb7K_h\xe1\xb5\x80%s)\xc2\xb7V_h    "
                        "MultiHead = Concat(head_1 \xe2\x80\xa6 head_%d)%s%s", dv, c->H,
                        c->su->output_proj ? "\xc2\xb7W_o" : "", bias);
    free(dv);
    free(bias);
}

/* The mask (its parts first, when it is made of parts), then head h's
** scores before and after it on one scale, and its weights. */
static void mask_head(Ctx *c, int h)
{
    if (c->su->mask == MASK_PARTS) stage_mask_part_panels(c);
    stage_as_mask(c, stage_heat(c, trace_ref(TK_MASK, 0), c->su->mask == MASK_CAUSAL ? _("causal mask (1 = may attend)")
                                : c->su->mask == MASK_PARTS ? _("combined mask") : _("mask (1 = may attend)"),
                                LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    char *sx = stage_head_suffix(c, h);
    char *t1 = stage_fmt(_("%s, before%s"), stage_scores_word(c), sx), *t2 = stage_fmt(_("masked scores%s"), sx);
    char *t3 = stage_fmt(_("weights%s"), sx);
    stage_grouped(c, stage_heat(c, trace_ref(trace_mask_input(c->su), h), t1, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS), 1);
    stage_grouped(c, stage_heat(c, trace_ref(TK_MASKED, h), t2, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS), 1);
    stage_as_weights(c, stage_heat(c, trace_ref(TK_WEIGHTS, h), t3, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    free(sx); free(t1); free(t2); free(t3);
}

/* Mask, scores before and after it, and the weights, head by head. */
void stage_causal_mask(Ctx *c)
{
    if (c->su->mask == MASK_PARTS && !c->st->title) {
        free(c->v->title);
        c->v->title = xstrdup(_("The mask, part by part"));
    }
    stage_by_heads(c, mask_head);
    if (c->su->mask == MASK_PARTS) {            /* its formula and note */
        stage_mask_parts(c);
        return;
    }
    c->v->formula = xstrdup(c->su->mask == MASK_BLOCK
        ? _("masked = scores where the lesson's mask is 0, \xe2\x88\x92\xe2\x88\x9e where it is 1 (blocked); weights = softmax(masked)")
        : _("masked = scores where mask = 1, \xe2\x88\x92\xe2\x88\x9e where mask = 0; weights = softmax(masked)"));
}

/* Keys query row r may see: all without a mask, else the 1s of its mask row. */
static int visible_keys(const Ctx *c, int r)
{
    const Mat *M = trace_at(c->T, c->s, trace_ref(TK_MASK, 0));
    if (!M) return c->su->nk;
    const double *row = mat_row(M, r);
    int n = 0;
    for (int j = 0; j < M->cols; j++) n += row[j] != 0.0;
    return n;
}

/* The entropy plot: a point per query and head, with ln(visible keys) as
** a step line (the most a row can reach). */
void stage_entropy(Ctx *c)
{
    const Mat *E = trace_at(c->T, c->s, trace_ref(TK_ENTROPY, 0));
    View *v = c->v;
    if (!E) return;
    Panel *p = stage_new_panel(v);
    p->kind = PANEL_PLOT;
    p->ref = trace_ref(TK_ENTROPY, 0);
    snprintf(p->matrix, sizeof p->matrix, "entropy");
    p->m = E;
    int ncol = E->cols, col0 = 0;
    if (c->sel && c->H > 1) {                    /* one head: its column alone */
        Mat *one = mat_create(E->rows, 1);
        for (int r = 0; r < E->rows; r++) mat_set(one, r, 0, mat_get(E, r, c->sel - 1));
        p->owned = one;
        p->m = one;
        ncol = 1;
        col0 = c->sel - 1;
    }
    p->col_offset = col0;
    p->title = c->sel && c->H > 1 ? stage_fmt(_("entropy of each query's weights (head %d of %d)"), c->sel, c->H)
                                  : xstrdup(_("entropy of each query's weights"));
    p->row_labels = stage_labels(c, LAB_Q, E->rows, 0);     /* numbered with `indices: yes`, as the heatmaps */
    p->col_labels = xmalloc(sizeof *p->col_labels * (size_t)ncol);
    p->series = xmalloc(sizeof *p->series * (size_t)ncol);
    for (int k = 0; k < ncol; k++) {
        p->series[k] = c->H == 1 ? xstrdup(_("single head")) : stage_fmt(_("head %d"), col0 + k + 1);
        p->col_labels[k] = xstrdup(p->series[k]);
    }
    p->row_axis = xstrdup(_("query"));
    p->col_axis = xstrdup(_("head"));
    p->y_axis = xstrdup(_("entropy (nats)"));
    p->cmap = xstrdup("viridis");
    p->decimals = c->st->decimals >= 0 ? c->st->decimals : 2;
    p->bounds = xmalloc(sizeof *p->bounds * (size_t)E->rows);
    bool varies = false;
    for (int r = 0; r < E->rows; r++) {
        int n = visible_keys(c, r);
        p->bounds[r] = n > 0 ? log((double)n) : 0;
        varies |= n != c->su->nk;
    }
    p->bound_label = varies ? xstrdup(_("ln(keys it can see)")) : stage_fmt("ln %d = %.2f", c->su->nk, log((double)c->su->nk));
    v->formula = varies
        ? xstrdup(_("H(row) = \xe2\x88\x92\xce\xa3 w\xc2\xb7ln w: 0 when one key takes all, ln n when the n keys a query can see share equally"))
        : stage_fmt(_("H(row) = \xe2\x88\x92\xce\xa3 w\xc2\xb7ln w: 0 when one key takes all, ln %d = %.2f when all %d share equally"),
              c->su->nk, log((double)c->su->nk), c->su->nk);
}

/* Head h's weights and output across two sentences. */
static void cross_head(Ctx *c, int h)
{
    char *sx = stage_head_suffix(c, h);
    char *t1 = stage_fmt(_("attention weights%s"), sx), *t2 = stage_fmt(_("output = weights\xc2\xb7V%s"), sx);
    stage_as_weights(c, stage_heat(c, trace_ref(TK_WEIGHTS, h), t1, LAB_Q, LAB_K, _("queries (target sentence)"), _("keys (source sentence)")));
    stage_grouped(c, stage_heat(c, trace_ref(TK_OUTPUT, h), t2, LAB_Q, LAB_VDIM, AX_QUERIES, AX_DIMS), 2);
    free(sx); free(t1); free(t2);
}

/* Weights and output across two sentences, head by head. */
void stage_cross(Ctx *c)
{
    stage_by_heads(c, cross_head);
    char *sf = scores_formula(c);
    c->v->formula = stage_fmt(_("queries from %s, keys and values from %s: weights = softmax(%s)"),
                        c->su->queries.input, c->su->keys.input, sf);
    free(sf);
}

/* Bahdanau scores and the weights they give. */
void stage_additive(Ctx *c)
{
    stage_input(c, c->su->add_w1, c->su->add_w1, LAB_DIM, LAB_DIM, _("query dimensions"), _("hidden units"));
    stage_input(c, c->su->add_w2, c->su->add_w2, LAB_DIM, LAB_DIM, _("key dimensions"), _("hidden units"));
    stage_heat(c, trace_ref(TK_RAW, 1), _("additive scores"), LAB_Q, LAB_K, AX_QUERIES, AX_KEYS);
    stage_as_weights(c, stage_heat(c, trace_ref(TK_WEIGHTS, 1), _("attention weights"), LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    c->v->formula = stage_fmt("score(q, k) = %s\xe1\xb5\x80\xc2\xb7tanh(q\xc2\xb7%s + k\xc2\xb7%s)", c->su->add_v, c->su->add_w1, c->su->add_w2);
}

/* A one-row panel: row r of a trace matrix. */
Panel *stage_row(Ctx *c, TraceRef ref, int r, const char *title, LabelKind cols, const char *col_axis)
{
    const Mat *m = trace_at(c->T, c->s, ref);
    if (!m || r >= m->rows) return NULL;
    Panel *p = stage_heat(c, ref, title, LAB_Q, cols, AX_QUERIES, col_axis);
    if (!p) return NULL;
    Mat *row = mat_create(1, m->cols);
    memcpy(mat_data(row), mat_row(m, r), sizeof(double) * (size_t)m->cols);
    for (int i = 0; i < m->rows; i++) free(p->row_labels[i]);
    p->row_labels[0] = stage_query_label(c, r);
    if (c->st->indices) p->row_labels[0] = stage_with_index(p->row_labels[0], r);
    p->owned = row;
    p->m = row;
    p->row_offset = r;
    return p;
}

/* Rows [r0, r1) and columns [c0, c1) of a trace matrix, as a panel of its
** own (row_offset and col_offset say where it sits in the whole). */
Panel *stage_part(Ctx *c, TraceRef ref, int r0, int r1, int c0, int c1, const char *title, LabelKind rows,
                  LabelKind cols, const char *row_axis, const char *col_axis)
{
    const Mat *m = trace_at(c->T, c->s, ref);
    if (!m || r0 < 0 || c0 < 0 || r1 > m->rows || c1 > m->cols || r0 >= r1 || c0 >= c1) return NULL;
    Panel *p = stage_heat(c, ref, title, rows, cols, row_axis, col_axis);
    if (!p) return NULL;
    Mat *part = mat_create(r1 - r0, c1 - c0);
    for (int i = r0; i < r1; i++)
        memcpy(mat_row(part, i - r0), mat_row(m, i) + c0, sizeof(double) * (size_t)(c1 - c0));
    char **rl = p->row_labels, **cl = p->col_labels;
    p->row_labels = xmalloc(sizeof *rl * (size_t)(r1 - r0));
    p->col_labels = xmalloc(sizeof *cl * (size_t)(c1 - c0));
    for (int i = 0; i < m->rows; i++) {
        if (i >= r0 && i < r1) p->row_labels[i - r0] = rl[i];
        else free(rl[i]);
    }
    for (int j = 0; j < m->cols; j++) {
        if (j >= c0 && j < c1) p->col_labels[j - c0] = cl[j];
        else free(cl[j]);
    }
    free(rl);
    free(cl);
    p->owned = part;
    p->m = part;
    p->row_offset = r0;
    p->col_offset = c0;
    return p;
}

/* A 0/1 mask panel. */
Panel *stage_as_mask(Ctx *c, Panel *p)
{
    if (!p) return NULL;
    p->diverging = false;
    p->probabilities = true;
    free(p->cmap);
    p->cmap = xstrdup(c->st->cmap ? c->st->cmap : "Blues");
    p->decimals = 0;
    return p;
}

/* What softmax reads, as per_token's panel names it: the scores as they
** are after scaling, the temperature, ALiBi's bias and the mask, as the
** setup is now (K, M and [ ] change it). */
static char *softmax_input_title(const Ctx *c, const char *sx)
{
    bool scaled = c->ts->divisor != 1.0 || c->ts->temperature != 1.0;
    bool alibi = c->su->positions == POS_ALIBI, masked = c->su->mask != MASK_NONE;
    if (masked && alibi) return stage_fmt(scaled ? _("scaled + bias, masked%s") : _("scores + bias, masked%s"), sx);
    if (masked) return stage_fmt(scaled ? _("masked, scaled%s") : _("masked scores%s"), sx);
    if (alibi) return stage_fmt(_("%s + bias%s"), stage_scores_word(c), sx);
    return stage_fmt("%s%s", stage_scores_word(c), sx);
}

/* Head h's walk-through of one query: its scores, what softmax reads of
** them when that is not the scores themselves, its weights and output;
** the two rows of scores on one scale. */
static void per_token_head(Ctx *c, int h)
{
    int r = c->st->query > 0 ? c->st->query - 1 : 0;
    char *sx = stage_head_suffix(c, h);
    char *t1 = stage_fmt(_("scores q\xc2\xb7k%s"), sx), *t2 = softmax_input_title(c, sx);
    char *t3 = stage_fmt(_("weights%s"), sx), *t4 = stage_fmt(_("output%s"), sx);
    stage_grouped(c, stage_row(c, trace_ref(TK_RAW, h), r, t1, LAB_K, AX_KEYS), 1);
    if (trace_softmax_input(c->su) != TK_RAW && (c->ts->divisor != 1.0 || c->ts->temperature != 1.0
                                                 || c->su->mask != MASK_NONE || c->su->positions == POS_ALIBI))
        stage_grouped(c, stage_row(c, trace_ref(trace_softmax_input(c->su), h), r, t2, LAB_K, AX_KEYS), 1);
    stage_as_weights(c, stage_row(c, trace_ref(TK_WEIGHTS, h), r, t3, LAB_K, AX_KEYS));
    stage_row(c, trace_ref(TK_OUTPUT, h), r, t4, LAB_VDIM, AX_DIMS);
    free(sx); free(t1); free(t2); free(t3); free(t4);
}

/* Seed 004's walk-through: one query's scores, weights and output, head
** by head. */
void stage_per_token(Ctx *c)
{
    int r = c->st->query > 0 ? c->st->query - 1 : 0;
    stage_by_heads(c, per_token_head);
    c->v->formula = stage_fmt(_("for the query \xe2\x80\x9c%s\xe2\x80\x9d: a score per key, softmax, then the weighted sum of the values"),
                        c->su->qtokens[r]);
}

/* A line for the slide when some query sees no key at all. */
static char *blind_rows_note(const Ctx *c)
{
    const View *v = c->v;
    if (!v->nblind) return NULL;
    const char *first = c->su->qtokens[v->blind_rows[0]];
    return v->nblind == 1 ? stage_fmt(_("\xe2\x80\x9c%s\xe2\x80\x9d sees no key (\xe2\x88\x85): the mask blocks its whole row, so its "
                                        "weights and output are all 0"), first)
                          : stage_fmt(_("%d queries see no key (\xe2\x88\x85; the first is \xe2\x80\x9c%s\xe2\x80\x9d): their weights and "
                                        "outputs are all 0"), v->nblind, first);
}

/* The queries of the setup whose mask blocks every key, into v (nothing
** without a mask); a flag per query, or NULL when there are none. */
static bool *find_blind_rows(const Ctx *c, View *v)
{
    if (c->su->mask == MASK_NONE) return NULL;
    bool *blind = xcalloc((size_t)c->su->nq, sizeof *blind);
    for (int r = 0; r < c->su->nq; r++) {
        if (visible_keys(c, r) > 0) continue;
        blind[r] = true;
        v->blind_rows = xrealloc(v->blind_rows, sizeof *v->blind_rows * (size_t)(v->nblind + 1));
        v->blind_rows[v->nblind++] = r;
    }
    if (v->nblind) return blind;
    free(blind);
    return NULL;
}

/* Join a second line to a view's note: "first; second". */
static void add_note(View *v, char *more)
{
    if (!more) return;
    if (!v->note) {
        v->note = more;
        return;
    }
    char *both = stage_fmt("%s; %s", v->note, more);
    free(v->note);
    free(more);
    v->note = both;
}

/*
** A setup given its weights (`attention: A`): the stages show the same
** panels (those of scores are absent from the trace), but the formula
** says where the weights came from, and the softmax stage's default title
** does not claim a softmax happened here. Each function below is the
** given_text of its stages' rows (stage_table.c).
*/

/* Where the given weights come from: the generator as written, or the line. */
static char *given_how(const Ctx *c)
{
    const LessonMatrix *A = lesson_matrix(c->su, c->su->attention);
    assert(A);                  /* the parser checked the name */
    return A->generated ? xstrdup(A->how) : stage_fmt(_("written on line %d"), A->line);
}

/* Replace the built formula by f. */
static void given_formula(Ctx *c, char *f)
{
    free(c->v->formula);
    c->v->formula = f;
}

/* softmax and cross_attention: the weights as given. */
void stage_given_weights(Ctx *c)
{
    char *how = given_how(c);
    if (!c->st->title) {
        free(c->v->title);
        c->v->title = xstrdup(_("Attention weights, as given"));
    }
    given_formula(c, stage_fmt(_("weights = %s, given by the lesson (%s): each row sums to 1"), c->su->attention, how));
    free(how);
}

/* multi_head: every head's own given weights. */
void stage_given_multi_head(Ctx *c)
{
    char *how = given_how(c);
    given_formula(c, c->su->values.input
        ? stage_fmt(_("head_h = weights_h\xc2\xb7V_h with the weights given by the lesson (%s)    "
                      "MultiHead = Concat(head_1 \xe2\x80\xa6 head_%d)%s"), how, c->H, c->su->output_proj ? "\xc2\xb7W_o" : "")
        : stage_fmt(_("%d heads, each with its own weights, given by the lesson (%s)"), c->H, how));
    free(how);
}

/* per_token: the query's row of the given weights. */
void stage_given_per_token(Ctx *c)
{
    int r = c->st->query > 0 ? c->st->query - 1 : 0;
    given_formula(c, c->su->values.input
        ? stage_fmt(_("for the query \xe2\x80\x9c%s\xe2\x80\x9d: its row of the given weights, then the weighted sum "
                      "of the values"), c->su->qtokens[r])
        : stage_fmt(_("for the query \xe2\x80\x9c%s\xe2\x80\x9d: its row of the given weights"), c->su->qtokens[r]));
}

/* causal_mask: given weights agree with the mask. */
void stage_given_mask(Ctx *c)
{
    given_formula(c, xstrdup(_("the given weights are 0 wherever the mask is 0: the model could not look there")));
}

/* Views made so far: the serial of the next is one more (never 0). */
static uint64_t views;

/* Build the view of stage k with options. */
View *stage_view_with(const Lesson *L, const Trace *T, int k, const StageOpts *o)
{
    if (!L || !T || k < 0 || k >= L->nstages) return NULL;
    View *v = xcalloc(1, sizeof *v);
    v->serial = ++views;
    v->trace_serial = T->serial;
    const Stage *st = &L->stages[k];
    Ctx c = { .L = L, .T = T, .ts = &T->s[st->setup], .st = st, .su = &L->setups[st->setup], .v = v, .s = st->setup,
              .H = 1, .sel = 0, .step = o && o->step > 0 ? o->step : 0, .paged = false,
              .whole = o && o->whole, .pager = o ? o->pager : NULL };
    c.H = c.ts->heads;
    int want = o && o->head > 0 ? o->head : st->head;
    c.sel = c.H > 1 && want >= 1 && want <= c.H ? want : 0;
    v->stage = k;
    v->nstages = L->nstages;
    v->setup = c.s;
    v->id = st->id;
    v->head = c.sel;
    v->token = -1;
    for (int h = 0; h <= LESSON_MAX_HEADS; h++) v->head_step[h] = -1;
    v->lesson_title = xstrdup(L->title);
    v->title = xstrdup(st->title ? st->title : stage_default_title(st->id));
    const StageKind *kind = stage_kind(st->id);
    bool *blind = kind->blind_note ? find_blind_rows(&c, v) : NULL;
    c.blind = blind;
    char *early = blind_rows_note(&c);              /* the note the pages will carry: the pager leaves room */
    bool own_words = kind->own_ablation_words;     /* a comparison names what differs itself: heads off in B */
    if (!early && !own_words) early = stage_ablation_note(&c);  /* (one line, whatever it says) */
    c.note = early;
    kind->build(&c);
    if (!kind->steps) stage_paginate(&c);
    if (c.su->attention && kind->given_text) kind->given_text(&c);
    if (v->nsteps < 1) v->nsteps = 1;
    if (!v->formula) v->formula = xstrdup("");
    char *own = v->note;                            /* the heads switched off first: the cause of what it says */
    v->note = own_words ? NULL : stage_ablation_note(&c);
    add_note(v, own);
    add_note(v, blind_rows_note(&c));
    free(blind);
    free(early);
    /* the paragraphs of this page: those tied to no page, to the heads it shows, or to every head side by side */
    bool every = v->compare || c.whole || (c.H > 1 && v->page_h0 == 1 && v->page_h1 == c.H);
    v->npara = 0;
    v->paras = xmalloc(sizeof *v->paras * (size_t)(st->npara ? st->npara : 1));
    for (int i = 0; i < st->npara; i++)
        if (stage_para_shown(st->para_ties ? st->para_ties[i] : 0, every, v->page_h0, v->page_h1))
            v->paras[v->npara++] = xstrdup(st->paras[i]);
    if (c.sel && !st->head && !c.whole) {           /* H on a stage whose heads may share a page */
        StageOpts all = { 0, 0, false, c.pager };
        v->every_head = stage_view_with(L, T, k, &all);
        if (v->every_head->nsteps > 1 || v->every_head->head) {
            stage_view_free(v->every_head);
            v->every_head = NULL;
        }
    }
    return v;
}

/* The view with the stage's own options. */
View *stage_view(const Lesson *L, const Trace *T, int k)
{
    return stage_view_with(L, T, k, NULL);
}

/* The panel showing ref (and trace row r for one-row panels). */
int stage_find_panel(const View *v, TraceRef ref, int heads, int r)
{
    for (int i = 0; v && i < v->npanels; i++) {
        const Panel *p = &v->panels[i];
        if (!trace_ref_eq(p->ref, ref, heads)) continue;
        if (p->owned && p->kind == PANEL_HEATMAP && r >= 0 && r != p->row_offset) continue;
        return i;
    }
    return -1;
}

/* Free a list of n strings. */
static void free_strs(char **s, int n)
{
    if (!s) return;
    for (int i = 0; i < n; i++) free(s[i]);
    free(s);
}

/* Keep n of the n0 labels, from first; free the others. */
static char **keep_labels(char **labels, int n0, int first, int n)
{
    char **kept = xmalloc(sizeof *kept * (size_t)n);
    for (int i = 0; i < n0; i++) {
        if (i >= first && i < first + n) kept[i - first] = labels[i];
        else free(labels[i]);
    }
    free(labels);
    return kept;
}

/* The marks of cells [r0, r1) x [c0, c1) of a grid cols wide (NULL: none). */
static unsigned char *keep_marks(unsigned char *marks, int cols, int r0, int r1, int c0, int c1)
{
    if (!marks) return NULL;
    unsigned char *kept = xmalloc((size_t)(r1 - r0) * (size_t)(c1 - c0));
    for (int i = r0; i < r1; i++) memcpy(kept + (size_t)(i - r0) * (size_t)(c1 - c0), marks + (size_t)i * (size_t)cols + c0, (size_t)(c1 - c0));
    free(marks);
    return kept;
}

/* Panel k alone, cut to a part of its matrix, with its whole's colours. */
bool stage_view_zoom(View *v, int k, int r0, int r1, int c0, int c1, double lo, double hi)
{
    if (!v || k < 0 || k >= v->npanels) return false;
    Panel *p = &v->panels[k];
    const Mat *m = p->m;
    if (p->kind != PANEL_HEATMAP || r0 < 0 || c0 < 0 || r1 > m->rows || c1 > m->cols || r0 >= r1 || c0 >= c1)
        return false;
    Mat *part = mat_create(r1 - r0, c1 - c0);
    for (int i = r0; i < r1; i++)
        memcpy(mat_row(part, i - r0), mat_row(m, i) + c0, sizeof(double) * (size_t)(c1 - c0));
    p->row_labels = keep_labels(p->row_labels, m->rows, r0, r1 - r0);
    p->col_labels = keep_labels(p->col_labels, m->cols, c0, c1 - c0);
    p->cell_marks = keep_marks(p->cell_marks, m->cols, r0, r1, c0, c1);
    free_strs(p->row_blocks, p->nrow_blocks);      /* a part of a grid of blocks: its rows' and columns' own labels */
    free_strs(p->col_blocks, p->ncol_blocks);
    p->row_blocks = p->col_blocks = NULL;
    p->nrow_blocks = p->ncol_blocks = 0;
    p->has_span = false;
    p->full_rows = p->full_cols = 0;       /* the part as it is */
    free(p->full_title);
    free(p->full_row_label);
    free(p->full_col_label);
    p->full_title = p->full_row_label = p->full_col_label = NULL;
    mat_free(p->owned);
    p->owned = part;
    p->m = part;
    p->row_offset += r0;
    p->col_offset += c0;
    p->scale_group = 0;
    p->scale_fixed = true;
    p->scale_lo = lo;
    p->scale_hi = hi;
    for (int i = 0; i < v->npanels; i++)
        if (i != k) stage_panel_free(&v->panels[i]);
    v->panels[0] = *p;
    v->npanels = 1;
    v->serial = ++views;
    return true;
}

/* Release a view. */
void stage_view_free(View *v)
{
    if (!v) return;
    stage_panels_free(v);
    free(v->blind_rows);
    free(v->lesson_title);
    free(v->title);
    free(v->formula);
    free(v->note);
    free(v->step_name);
    free(v->step_label);
    free_strs(v->paras, v->npara);
    stage_view_free(v->every_head);
    free(v);
}
