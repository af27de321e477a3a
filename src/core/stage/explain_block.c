/*
** explain_block.c: the arithmetic behind the cells of the rest of a
** transformer block (see explain_int.h): a layer norm's standardised value
** and its γ and β, the residual stream's sums, the MLP's products and
** activation, the logits and the next token's softmax, and a head switched
** off in the joined heads. As in explain.c, every line ends in the trace's
** own value, and the operands it read are returned for outlining.
*/
#include "explain_int.h"
#include "core/compute/attn.h"
#include "core/text/i18n.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The layer norm of row i of x at column j: the row's mean and variance,
** the standardised value, then γ and β (hat_only: stop at x̂). */
static void norm_cell(Ex *e, TraceRef xr, const char *xname, const LayerNorm *n, int i, int j, double v, bool hat_only)
{
    const Mat *x = trace_at(e->T, e->s, xr);
    double mean, var, xv = mat_get(x, i, j);
    attn_row_moments(mat_row(x, i), x->cols, &mean, &var);
    double hat = (xv - mean) / sqrt(var + n->eps);
    ex_op(e, xr, i, -1);
    buf_printf(&e->out, _("the row of \xe2\x80\x9c%s\xe2\x80\x9d in %s: mean "), ex_qtok(e, i), xname);
    ex_num(&e->out, mean, false);
    buf_puts(&e->out, _(", variance "));
    ex_num(&e->out, var, false);
    buf_printf(&e->out, _(" (over its %d numbers)\n(x \xe2\x88\x92 mean) \xc3\xb7 \xe2\x88\x9a(var + \xce\xb5) = ("), x->cols);
    ex_num(&e->out, xv, false);
    buf_puts(&e->out, " \xe2\x88\x92 ");
    ex_num(&e->out, mean, true);
    buf_puts(&e->out, ") \xc3\xb7 \xe2\x88\x9a(");
    ex_num(&e->out, var, false);
    buf_printf(&e->out, " + %g) = ", n->eps);
    ex_num(&e->out, hat_only ? v : hat, false);
    if (hat_only) return;
    const Mat *g = trace_at(e->T, e->s, trace_input_ref(n->gamma)), *b = trace_at(e->T, e->s, trace_input_ref(n->beta));
    ex_op(e, trace_input_ref(n->gamma), 0, j);
    ex_op(e, trace_input_ref(n->beta), 0, j);
    buf_printf(&e->out, _("\n\xc3\x97 \xce\xb3 (%s[1][%d] = "), n->gamma, j + 1);
    ex_num(&e->out, mat_get(g, 0, j), false);
    buf_printf(&e->out, _(") + \xce\xb2 (%s[1][%d] = "), n->beta, j + 1);
    ex_num(&e->out, mat_get(b, 0, j), false);
    buf_puts(&e->out, ") = ");
    ex_num(&e->out, v, false);
}

/* What the block's first layer norm reads (X before attention, X +
** attention's output after it under `norm_order: post`), as a reference
** and a name. */
static TraceRef norm_input(const Ex *e, char *name, size_t n)
{
    bool pe = e->su->positions == POS_SINUSOIDAL;
    if (e->su->post_norm) {
        char x[LESSON_MAX_NAME + 8];
        snprintf(x, sizeof x, pe ? "%s + PE" : "%s", e->su->queries.input);
        snprintf(name, n, _("%s + attention"), x);
        return trace_ref(TK_ATTN_SUM, 0);
    }
    snprintf(name, n, pe ? "%s + PE" : "%s", e->su->queries.input);
    return pe ? trace_ref(TK_XPE, 0) : trace_input_ref(e->su->queries.input);
}

/* a + b = v, each a cell of the setup (the residual stream's sums). */
static void sum_cell(Ex *e, const char *what, TraceRef a, TraceRef b, int i, int j, double v)
{
    ex_op(e, a, i, j);
    ex_op(e, b, i, j);
    buf_printf(&e->out, "%s\n= ", what);
    ex_num(&e->out, mat_get(trace_at(e->T, e->s, a), i, j), false);
    buf_puts(&e->out, " + ");
    ex_num(&e->out, mat_get(trace_at(e->T, e->s, b), i, j), true);
    buf_puts(&e->out, " = ");
    ex_num(&e->out, v, false);
}

/* What attention hands on: W_o's output, or the joined heads. */
static TraceRef attention_out(const Ex *e)
{
    return e->su->output_proj ? trace_ref(TK_FINAL, 0) : trace_joined(e->ts);
}

/* Row i of in times column col of the input matrix w, plus bias b[col]. */
static void affine_cell(Ex *e, TraceRef in, const char *inname, const char *w, const char *b, int i, int col, double v)
{
    const Mat *X = trace_at(e->T, e->s, in), *W = trace_at(e->T, e->s, trace_input_ref(w));
    double bias = b ? mat_get(trace_at(e->T, e->s, trace_input_ref(b)), 0, col) : 0;
    ex_op(e, in, i, -1);
    ex_op(e, trace_input_ref(w), -1, col);
    buf_printf(&e->out, _("row %d of %s \xc2\xb7 column %d of %s\n= "), i + 1, inname, col + 1, w);
    assert(X->cols == W->rows);
    ex_row_col(&e->out, X, i, W, col, X->cols, v - bias);
    ex_bias_line(e, b, col, v);
}

/* The activation of a hidden unit. */
static void activation_cell(Ex *e, int i, int j, double v)
{
    double a = mat_get(trace_at(e->T, e->s, trace_ref(TK_MLP_PRE, 0)), i, j);
    ex_op(e, trace_ref(TK_MLP_PRE, 0), i, j);
    switch (e->su->mlp.act) {
    case MLP_RELU: buf_puts(&e->out, "relu(a) = max(0, a) = max(0, "); break;
    case MLP_GELU: buf_puts(&e->out, "gelu(a) = a\xc2\xb7\xce\xa6(a) = \xc2\xbd\xc2\xb7" "a\xc2\xb7(1 + erf(a \xc3\xb7 \xe2\x88\x9a" "2)), a = "); break;
    default: buf_puts(&e->out, "gelu_tanh(a) = \xc2\xbd\xc2\xb7" "a\xc2\xb7(1 + tanh(\xe2\x88\x9a(2/\xcf\x80)\xc2\xb7(a + 0.044715\xc2\xb7" "a\xc2\xb3))), a = ");
    }
    ex_num(&e->out, a, false);
    buf_puts(&e->out, e->su->mlp.act == MLP_RELU ? ") = " : "\n= ");
    ex_num(&e->out, v, false);
    buf_puts(&e->out, _("\nthe same function for every number: each hidden unit on its own"));
}

/* A logit: the (normed) stream's row times the unembedding's column of a word. */
static void logit_cell(Ex *e, int i, int col, double v)
{
    TraceKind in = trace_unembed_input(e->su);
    buf_printf(&e->out, _("the logit of \xe2\x80\x9c%s\xe2\x80\x9d after \xe2\x80\x9c%s\xe2\x80\x9d: "),
               col < e->su->nvocab ? e->su->vocab[col] : "?", ex_qtok(e, i));
    affine_cell(e, trace_ref(in, 0), in == TK_FINAL_LN ? "LN(x)" : "x", e->su->unembed, e->su->unembed_bias, i, col, v);
}

/* A probability: the softmax of the row of logits, over every word. */
static void prob_cell(Ex *e, int i, int col, double v)
{
    const Mat *Lg = trace_at(e->T, e->s, trace_ref(TK_LOGITS, 0));
    const double *row = mat_row(Lg, i);
    double mx = row[0], sum = 0;
    for (int k = 1; k < Lg->cols; k++) if (row[k] > mx) mx = row[k];
    for (int k = 0; k < Lg->cols; k++) sum += exp(row[k] - mx);
    buf_printf(&e->out, _("p(\xe2\x80\x9c%s\xe2\x80\x9d next, after \xe2\x80\x9c%s\xe2\x80\x9d) = softmax over the %d logits of "
                          "the row (subtract its max "), col < e->su->nvocab ? e->su->vocab[col] : "?", ex_qtok(e, i),
               Lg->cols);
    ex_softmax_terms(&e->out, row[col], mx, sum, v);
    buf_printf(&e->out, _("\nthe %d probabilities of the row sum to 1"), Lg->cols);
}

/* The vocabulary column of column j of a TK_TOP_* matrix of k words a row. */
static int top_column(const Ex *e, int k, int j)
{
    const Mat *ids = trace_at(e->T, e->s, trace_block_ref(TK_TOP_IDS, 0, k));
    return ids && j < ids->cols ? (int)mat_data(ids)[j] : 0;
}

/* A cell of the rest of a block. */
bool ex_block(Ex *e, TraceRef r, int i, int j, double v)
{
    const Setup *su = e->su;
    char name[LESSON_MAX_NAME + 64];        /* the name and "+ attention" in any language, whole */
    switch (r.kind) {
    case TK_LN_HAT:
        norm_cell(e, norm_input(e, name, sizeof name), name, &su->norm, i, j, v, true);
        buf_puts(&e->out, _("\nevery row now has mean 0 and variance 1 (almost: \xce\xb5 keeps the division finite)"));
        return true;
    case TK_LN:
        norm_cell(e, norm_input(e, name, sizeof name), name, &su->norm, i, j, v, false);
        return true;
    case TK_MLP_LN:
        norm_cell(e, trace_ref(TK_MID, 0), "x", &su->mlp_norm, i, j, v, false);
        return true;
    case TK_ATTN_SUM:
        sum_cell(e, _("the stream after attention, before its norm: X + the attention's output"),
                 su->positions == POS_SINUSOIDAL ? trace_ref(TK_XPE, 0) : trace_input_ref(su->queries.input),
                 attention_out(e), i, j, v);
        return true;
    case TK_MLP_SUM:
        sum_cell(e, _("the stream after the MLP, before its norm: the stream after attention + the MLP's output"),
                 trace_ref(TK_MID, 0), trace_ref(TK_MLP_OUT, 0), i, j, v);
        return true;
    case TK_FINAL_LN:
        norm_cell(e, trace_ref(TK_STREAM, 0), "x", &su->final_norm, i, j, v, false);
        return true;
    case TK_MID:
        if (su->post_norm) {            /* the first norm's output */
            norm_cell(e, norm_input(e, name, sizeof name), name, &su->norm, i, j, v, false);
            return true;
        }
        sum_cell(e, _("the stream after attention: X + the attention's output"), trace_input_ref(su->queries.input),
                 attention_out(e), i, j, v);
        return true;
    case TK_STREAM:
        if (su->post_norm && !su->mlp.w_in)
            norm_cell(e, norm_input(e, name, sizeof name), name, &su->norm, i, j, v, false);
        else if (su->post_norm && su->mlp_norm.gamma)
            norm_cell(e, trace_ref(TK_MLP_SUM, 0), "x + MLP(x)", &su->mlp_norm, i, j, v, false);
        else if (su->post_norm)
            sum_cell(e, _("the stream after the MLP, before its norm: the stream after attention + the MLP's output"),
                     trace_ref(TK_MID, 0), trace_ref(TK_MLP_OUT, 0), i, j, v);
        else if (su->mlp.w_in)
            sum_cell(e, _("the stream after the block: the stream after attention + the MLP's output"), trace_ref(TK_MID, 0),
                     trace_ref(TK_MLP_OUT, 0), i, j, v);
        else
            sum_cell(e, _("the stream after the block: X + the attention's output"), trace_input_ref(su->queries.input),
                     attention_out(e), i, j, v);
        return true;
    case TK_MLP_PRE:
        affine_cell(e, trace_ref(trace_mlp_input(su), 0), trace_mlp_input(su) == TK_MLP_LN ? "LN(x)" : "x", su->mlp.w_in,
                    su->mlp.b_in, i, j, v);
        return true;
    case TK_MLP_ACT: activation_cell(e, i, j, v); return true;
    case TK_MLP_OUT:
        affine_cell(e, trace_ref(TK_MLP_ACT, 0), lesson_activation_name(su->mlp.act), su->mlp.w_out, su->mlp.b_out, i, j, v);
        return true;
    case TK_LOGITS: logit_cell(e, i, j, v); return true;
    case TK_TOP_LOGITS: logit_cell(e, i, top_column(e, r.block, j), v); return true;
    case TK_PROBS: ex_op(e, trace_ref(TK_LOGITS, 0), i, -1); prob_cell(e, i, j, v); return true;
    case TK_TOP_PROBS:
        ex_op(e, trace_block_ref(TK_TOP_LOGITS, 0, r.block), i, -1);
        prob_cell(e, i, top_column(e, r.block, j), v);
        return true;
    default: return false;
    }
}

/* A cell of the joined heads from head h, switched off (col: its column
** there), or of what replaces the head's output (col -1): 0, or its mean. */
void ex_ablated(Ex *e, int h, int i, int j, int col, double v)
{
    const Mat *O = trace_at(e->T, e->s, trace_ref(TK_OUTPUT, h));
    if (col >= 0) buf_printf(&e->out, _("concat[%d][%d]: head %d is switched off (ablate:)"), i + 1, col + 1, h);
    else buf_printf(&e->out, _("head %d is switched off (ablate:): in place of its output[%d][%d] the joined heads "
                               "get"), h, i + 1, j + 1);
    if (!(e->su->ablate_mean & (1u << (h - 1)))) {
        buf_puts(&e->out, _("\nzero ablation: 0 in place of its output, whatever its weights say"));
        return;
    }
    ex_op(e, trace_ref(TK_OUTPUT, h), -1, j);
    buf_printf(&e->out, _("\nmean ablation: the mean of its output's column %d over the %d tokens = "), j + 1, O->rows);
    ex_num(&e->out, v, false);
    buf_puts(&e->out, _("\nthe same in every row: what it says about this token is gone"));
}
