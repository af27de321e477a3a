/*
** explain.c: cell explanations. Each kind of matrix has a small function
** that rebuilds its cell from the operands in the trace and prints the
** steps; the printed result is the trace's own value, so what the student
** reads is exactly what the heatmap shows.
*/
#include "explain_int.h"
#include "core/compute/attn.h"
#include "core/text/i18n.h"
#include "core/util.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TERMS 8     /* list every product up to this many */
#define SHOWN_TERMS 4   /* beyond it, show this many and the count */

/* Record an operand: (kind, head) row r, column c (-1: all of it). */
void ex_op(Ex *e, TraceRef ref, int r, int c)
{
    if (e->ex->nops < EXPLAIN_MAX_OPS) e->ex->ops[e->ex->nops++] = (ExplainOp){ ref, r, c };
}

/* A computed matrix of this cell's head. */
const Mat *ex_mat(const Ex *e, TraceKind k)
{
    return trace_at(e->T, e->s, trace_ref(k, e->head));
}

/* A number for the explain panel: 4 significant digits, typographic minus;
** more digits when 4 would make a fraction look whole (0.99999994 is not
** "1": only an exact whole number prints as one). */
void ex_num(Buf *b, double v, bool paren)
{
    char t[48];
    if (v == -INFINITY) { buf_puts(b, "\xe2\x88\x92\xe2\x88\x9e"); return; }
    /* a step whose value went past the doubles (an additive score's hidden
    ** units, whose tanh is still exact): said so, never "inf" or "nan" */
    if (!isfinite(v)) { buf_puts(b, "overflow"); return; }
    if (v == floor(v) && fabs(v) < 1e9) snprintf(t, sizeof t, "%.0f", v);
    else
        for (int digits = 4; digits <= 17; digits++) {
            snprintf(t, sizeof t, "%.*g", digits, v);
            if (strpbrk(t, ".e")) break;
        }
    if (!strcmp(t, "-0")) snprintf(t, sizeof t, "0");
    if (t[0] == '-') {
        if (paren) buf_puts(b, "(");
        buf_puts(b, "\xe2\x88\x92");
        buf_puts(b, t + 1);
        if (paren) buf_puts(b, ")");
    } else {
        buf_puts(b, t);
    }
}

/* The terms of one softmax weight: its max, its exponential, the sum. */
void ex_softmax_terms(Buf *b, double x, double mx, double sum, double v)
{
    ex_num(b, mx, false);
    buf_puts(b, _(", then exponentiate)\nexp("));
    ex_num(b, x, false);
    buf_puts(b, " \xe2\x88\x92 ");
    ex_num(b, mx, true);
    buf_puts(b, ") / \xce\xa3 = ");
    ex_num(b, exp(x - mx), false);
    buf_puts(b, " / ");
    ex_num(b, sum, false);
    buf_puts(b, " = ");
    ex_num(b, v, false);
}

/* "a×b + c×d + … = r" for the dot product of n pairs a[k*sa], b[k*sb]. */
void ex_dot_line(Buf *b, const double *a, int sa, const double *c, int sc, int n, double result)
{
    int shown = n <= MAX_TERMS ? n : SHOWN_TERMS;
    for (int k = 0; k < shown; k++) {
        if (k) buf_puts(b, " + ");
        ex_num(b, a[k * sa], true);
        buf_puts(b, "\xc3\x97");
        ex_num(b, c[k * sc], true);
    }
    if (shown < n) buf_printf(b, _(" + \xe2\x80\xa6 (%d products in all)"), n);
    buf_puts(b, " = ");
    ex_num(b, result, false);
}

/* Row i of a times column j of c, over the first n of each. */
void ex_row_col(Buf *b, const Mat *a, int i, const Mat *c, int j, int n, double result)
{
    assert(a && c && n >= 1 && n <= a->cols && n <= c->rows && j >= 0 && j < c->cols);
    ex_dot_line(b, mat_row(a, i), 1, mat_data(c) + j, c->cols, n, result);
}

/* A bias added after a dot line. */
void ex_bias_line(Ex *e, const char *bias, int j, double v)
{
    if (!bias) return;
    const Mat *b = trace_at(e->T, e->s, trace_input_ref(bias));
    ex_op(e, trace_input_ref(bias), 0, j);
    buf_printf(&e->out, "\n+ %s[1][%d] ", bias, j + 1);
    ex_num(&e->out, mat_get(b, 0, j), true);
    buf_puts(&e->out, " = ");
    ex_num(&e->out, v, false);
}

/* The name of the query (row) and key (column) tokens, for prose. */
const char *ex_qtok(const Ex *e, int i) { return i < e->su->nq ? e->su->qtokens[i] : "?"; }
const char *ex_ktok(const Ex *e, int j) { return j < e->su->nk ? e->su->ktokens[j] : "?"; }

/* Inputs: where the number comes from. */
static void ex_input(Ex *e, const char *name, int i, int j, double v)
{
    if (trace_input_computed(e->T, e->s, name)) {
        /* the residual stream: the one above, plus what the setup above added */
        const TraceSetup *up = &e->T->s[e->s - 1];
        if (up->su->post_norm) {                /* the block above ended in a norm: its last one's output */
            buf_printf(&e->out, _("%s[%d][%d] = the residual stream: what the setup above hands on, after its last norm "
                                  "(post-norm)\n= "), name, i + 1, j + 1);
            ex_num(&e->out, v, false);
            buf_puts(&e->out, _("\ncomputed, not written in the lesson: edit the setup above to change it"));
            return;
        }
        if (up->su->mlp.w_in) {                 /* the block above had an MLP: its stream after attention, plus it */
            buf_printf(&e->out, _("%s[%d][%d] = the residual stream: the setup above's stream after attention + its "
                                  "MLP's output\n= "), name, i + 1, j + 1);
            ex_num(&e->out, mat_get(trace_at(e->T, e->s - 1, trace_ref(TK_MID, 0)), i, j), false);
            buf_puts(&e->out, " + ");
            ex_num(&e->out, mat_get(trace_at(e->T, e->s - 1, trace_ref(TK_MLP_OUT, 0)), i, j), true);
            buf_puts(&e->out, " = ");
            ex_num(&e->out, v, false);
            buf_puts(&e->out, _("\ncomputed, not written in the lesson: edit the setup above to change it"));
            return;
        }
        TraceRef xin = trace_input_ref(up->su->queries.input);
        const Mat *x = trace_at(e->T, e->s - 1, xin), *o = trace_stream_out(e->T, e->s - 1);
        /* its operands belong to the setup above, not to this slide: none are outlined */
        buf_printf(&e->out, "%s[%d][%d] = the residual stream: %s of the setup above + its output%s\n= ", name, i + 1,
                   j + 1, up->su->queries.input, up->su->output_proj ? " after W_o" : "");
        ex_num(&e->out, mat_get(x, i, j), false);
        buf_puts(&e->out, " + ");
        ex_num(&e->out, mat_get(o, i, j), true);
        buf_puts(&e->out, " = ");
        ex_num(&e->out, v, false);
        buf_puts(&e->out, _("\ncomputed, not written in the lesson: edit the setup above to change it"));
        return;
    }
    const LessonMatrix *lm = lesson_matrix(e->su, name);
    buf_printf(&e->out, "%s[%d][%d] = ", name, i + 1, j + 1);
    ex_num(&e->out, v, false);
    if (!lm) return;
    if (lm->generated)
        buf_printf(&e->out, _("\ndrawn on line %d: %s = %s"), lm->line, name, lm->how);
    else
        buf_printf(&e->out, _("\nwritten in the lesson, line %d"), lm->line + 1 + i);
    if (lm->generated && e->su->seeded) buf_printf(&e->out, _(" (seed %lu)"), (unsigned long)e->su->seed);
    buf_puts(&e->out, _("\nan input: scroll over it to change it"));
}

/* Q, K, V: a projection X·W, or the input itself; a head's slice reads
** its own columns of the weight. */
static void ex_projection(Ex *e, TraceKind k, int i, int j, double v)
{
    const Operand *o = k == TK_Q ? &e->su->queries : k == TK_K ? &e->su->keys : &e->su->values;
    const char *which = trace_kind_name(k);
    TraceRef xr = trace_operand_input(e->su, o);
    char xname[LESSON_MAX_NAME + 16];
    if (xr.kind == TK_LN) snprintf(xname, sizeof xname, "LN(%s)", o->input);
    else if (xr.kind == TK_XPE) snprintf(xname, sizeof xname, "(X + PE)");
    else snprintf(xname, sizeof xname, "%s", o->input);
    const Mat *X = trace_at(e->T, e->s, xr);
    int w = k == TK_V ? e->ts->d_v : e->ts->d_k;
    int slot = e->head > 0 && k != TK_Q ? trace_kv_head(e->ts, e->head) : e->head;    /* K and V: the head's K/V head */
    int col = j + (e->head > 0 && e->ts->heads > 1 ? (slot - 1) * w : 0);
    ex_op(e, xr, i, -1);
    if (!o->weight) {
        buf_printf(&e->out, _("%s = %s, so %s[%d][%d] = %s[%d][%d] = "), which, xname, which, i + 1, j + 1,
                   xname, i + 1, col + 1);
        ex_num(&e->out, v, false);
        e->ex->ops[e->ex->nops - 1].col = col;
        return;
    }
    const Mat *W = trace_at(e->T, e->s, trace_input_ref(o->weight));
    ex_op(e, trace_input_ref(o->weight), -1, col);
    if (e->head > 0 && e->ts->heads > 1) buf_printf(&e->out, _("head %d of %d: "), e->head, e->ts->heads);
    buf_printf(&e->out, _("%s[%d][%d] = row %d of %s \xc2\xb7 column %d of %s\n= "), which, i + 1, j + 1, i + 1,
               xname, col + 1, o->weight);
    double b = o->bias ? mat_get(trace_at(e->T, e->s, trace_input_ref(o->bias)), 0, col) : 0;
    assert(X->cols == W->rows);
    ex_row_col(&e->out, X, i, W, col, X->cols, v - b);
    ex_bias_line(e, o->bias, col, v);
    if (e->head > 0 && e->ts->heads > 1 && slot != e->head)
        buf_printf(&e->out, "\n(head %d shares K/V head %d: columns %d\xe2\x80\x93%d of %s)", e->head, slot,
                   (slot - 1) * w + 1, slot * w, o->weight);
    else if (e->head > 0 && e->ts->heads > 1)
        buf_printf(&e->out, _("\n(head %d uses columns %d\xe2\x80\x93%d of %s)"), e->head, (e->head - 1) * w + 1,
                   e->head * w, o->weight);
}

/* The raw score: a dot product of a query row and a key row, or the
** additive form. */
static void ex_raw(Ex *e, int i, int j, double raw)
{
    TraceKind qk = trace_score_q(e->su), kk = trace_score_k(e->su);
    const Mat *Q = ex_mat(e, qk), *K = ex_mat(e, kk);
    ex_op(e, trace_ref(qk, e->head), i, -1);
    ex_op(e, trace_ref(kk, e->head), j, -1);
    if (e->su->score == SCORE_ADDITIVE) {
        const Mat *W1 = trace_at(e->T, e->s, trace_input_ref(e->su->add_w1));
        const Mat *W2 = trace_at(e->T, e->s, trace_input_ref(e->su->add_w2));
        const Mat *vv = trace_at(e->T, e->s, trace_input_ref(e->su->add_v));
        int u = vv->rows * vv->cols;
        buf_printf(&e->out, "score(%s, %s) = %s\xe1\xb5\x80\xc2\xb7tanh(q\xc2\xb7%s + k\xc2\xb7%s)\n= ",
                   ex_qtok(e, i), ex_ktok(e, j), e->su->add_v, e->su->add_w1, e->su->add_w2);
        int shown = u <= MAX_TERMS ? u : SHOWN_TERMS;
        for (int t = 0; t < shown; t++) {
            double a = 0, b = 0;
            for (int d = 0; d < Q->cols; d++) a += mat_get(Q, i, d) * mat_get(W1, d, t);
            for (int d = 0; d < K->cols; d++) b += mat_get(K, j, d) * mat_get(W2, d, t);
            if (t) buf_puts(&e->out, " + ");
            ex_num(&e->out, mat_data(vv)[t], true);
            buf_puts(&e->out, "\xc3\x97tanh(");
            ex_num(&e->out, a + b, false);
            buf_puts(&e->out, ")");
        }
        if (shown < u) buf_printf(&e->out, _(" + \xe2\x80\xa6 (%d terms)"), u);
        buf_puts(&e->out, " = ");
        ex_num(&e->out, raw, false);
        return;
    }
    if (e->ts->heads > 1) buf_printf(&e->out, _("head %d of %d: "), e->head, e->ts->heads);
    buf_printf(&e->out, "q\xc2\xb7k for query \xe2\x80\x9c%s\xe2\x80\x9d and key \xe2\x80\x9c%s\xe2\x80\x9d%s\n= ", ex_qtok(e, i), ex_ktok(e, j),
               qk == TK_QROT ? " (both rotated by RoPE)" : "");
    assert(Q->cols == K->cols);         /* the parser checked the widths */
    ex_dot_line(&e->out, mat_row(Q, i), 1, mat_row(K, j), 1, Q->cols, raw);
}

/* The scaled score: raw, then the division the trace applied (the head's
** own √d_k, the lesson's divisor, or none), then the temperature. */
static void ex_scaled(Ex *e, int i, int j, double v)
{
    double raw = mat_get(ex_mat(e, TK_RAW), i, j);
    ex_raw(e, i, j, raw);
    ex_op(e, trace_ref(TK_RAW, e->head), i, j);
    double div = e->ts->divisor;
    if (div != 1.0) {
        buf_puts(&e->out, "\n\xc3\xb7 ");
        if (e->su->divisor > 0) {
            ex_num(&e->out, div, false);
            buf_puts(&e->out, _(" (the lesson's divisor)"));
        } else {
            int dk = e->ts->d_k;
            buf_printf(&e->out, _("\xe2\x88\x9a%d (d_k = %d, %s; \xe2\x88\x9a%d = "), dk, dk,
                       e->ts->heads > 1 ? _("one head's width") : _("the width of the keys"), dk);
            ex_num(&e->out, div, false);
            buf_puts(&e->out, ")");
        }
        buf_puts(&e->out, " = ");
        ex_num(&e->out, raw / div, false);
    } else if (e->su->score == SCORE_DOT) {
        buf_puts(&e->out, _("\nnot divided: scaling is off"));
    }
    if (e->ts->temperature != 1.0) {
        buf_puts(&e->out, _("\n\xc3\xb7 temperature "));
        ex_num(&e->out, e->ts->temperature, false);
        buf_puts(&e->out, " = ");
        ex_num(&e->out, v, false);
    }
}

/* Is (i, j) masked? */
static bool masked(const Ex *e, int i, int j)
{
    const Mat *M = trace_at(e->T, e->s, trace_ref(TK_MASK, 0));
    return M && mat_get(M, i, j) == 0.0;
}

/* Which part of a mask made of parts hides key j from query i. */
static void why_parts(Ex *e, int i, int j)
{
    const Setup *su = e->su;
    unsigned p = su->mask_parts;
    bool prefix = (p & MASKP_PREFIX) && i < su->prefix && j < su->prefix;
    if ((p & MASKP_PADDING) && !strcmp(ex_qtok(e, i), su->pad_token))
        buf_printf(&e->out, "query %d is padding (%s): the padding mask blocks its whole row", i + 1, su->pad_token);
    else if ((p & MASKP_PADDING) && !strcmp(ex_ktok(e, j), su->pad_token))
        buf_printf(&e->out, "key %d is padding (%s): the padding mask blocks it for every query", j + 1, su->pad_token);
    else if ((p & MASKP_CAUSAL) && j > i && !prefix)
        buf_printf(&e->out, "key \xe2\x80\x9c%s\xe2\x80\x9d (position %d) comes after query \xe2\x80\x9c%s\xe2\x80\x9d (position %d)%s",
                   ex_ktok(e, j), j + 1, ex_qtok(e, i), i + 1, p & MASKP_PREFIX ? ", and not both are in the prefix" : ": blocked by the causal mask");
    else if ((p & MASKP_SLIDING) && i - j >= su->window)
        buf_printf(&e->out, "key %d is %d places back from query %d, outside the window of %d (it sees keys %d\xe2\x80\x93%d)",
                   j + 1, i - j, i + 1, su->window, i - su->window + 2, i + 1);
    else
        buf_puts(&e->out, "the mask blocks this key");
}

/* Why a key is hidden from a query. */
static void why_masked(Ex *e, int i, int j)
{
    if (e->su->mask == MASK_PARTS) {
        why_parts(e, i, j);
        return;
    }
    if (e->su->mask == MASK_CAUSAL)
        buf_printf(&e->out, _("key \xe2\x80\x9c%s\xe2\x80\x9d (position %d) comes after query \xe2\x80\x9c%s\xe2\x80\x9d (position %d): "
                   "blocked by the causal mask"), ex_ktok(e, j), j + 1, ex_qtok(e, i), i + 1);
    else
        buf_printf(&e->out, _("the lesson's mask %s blocks key \xe2\x80\x9c%s\xe2\x80\x9d for query \xe2\x80\x9c%s\xe2\x80\x9d"),
                   e->su->mask_matrix, ex_ktok(e, j), ex_qtok(e, i));
}

/* A mask cell. */
static void ex_mask(Ex *e, int i, int j, double v)
{
    buf_printf(&e->out, "mask[%d][%d] = %.0f\n", i + 1, j + 1, v);
    if (v == 0.0) why_masked(e, i, j);
    else buf_printf(&e->out, _("query \xe2\x80\x9c%s\xe2\x80\x9d may attend to key \xe2\x80\x9c%s\xe2\x80\x9d"), ex_qtok(e, i), ex_ktok(e, j));
}

/* A biased score: the scaled score plus ALiBi's distance penalty. */
static void ex_biased(Ex *e, int i, int j, double v)
{
    double sc = mat_get(ex_mat(e, TK_SCALED), i, j), b = mat_get(ex_mat(e, TK_ALIBI), i, j);
    ex_op(e, trace_ref(TK_SCALED, e->head), i, j);
    ex_op(e, trace_ref(TK_ALIBI, e->head), i, j);
    ex_scaled(e, i, j, sc);
    buf_puts(&e->out, "\n+ ALiBi bias ");
    ex_num(&e->out, b, true);
    buf_puts(&e->out, " = ");
    ex_num(&e->out, v, false);
}

/* A masked score: the scaled score, or −∞. */
static void ex_masked(Ex *e, int i, int j, double v)
{
    ex_op(e, trace_ref(TK_MASK, 0), i, j);
    if (masked(e, i, j)) {
        buf_puts(&e->out, "\xe2\x88\x92\xe2\x88\x9e: ");
        why_masked(e, i, j);
        buf_puts(&e->out, _("\nexp(\xe2\x88\x92\xe2\x88\x9e) = 0, so this key's weight is exactly 0"));
        return;
    }
    ex_op(e, trace_ref(trace_mask_input(e->su), e->head), i, j);
    if (e->su->positions == POS_ALIBI) ex_biased(e, i, j, v);
    else ex_scaled(e, i, j, v);
    buf_puts(&e->out, _("\nnot masked: the score passes through"));
}

/* A weight the lesson gives (`attention: A`): where it comes from, and what
** its row sums to. */
static void ex_given_weight(Ex *e, int i, int j, double w)
{
    const LessonMatrix *A = lesson_matrix(e->su, e->su->attention);
    const Mat *W = ex_mat(e, TK_WEIGHTS);
    int col = (e->head - 1) * e->su->nk + j, seen = 0;
    ex_op(e, trace_input_ref(e->su->attention), i, col);
    if (e->ts->heads > 1) buf_printf(&e->out, _("head %d of %d: "), e->head, e->ts->heads);
    double sum = 0;
    for (int k = 0; k < W->cols; k++) {
        sum += mat_get(W, i, k);
        seen += !masked(e, i, k);
    }
    if (seen == 0) {                /* a padded query: the model gives it no weights at all */
        buf_printf(&e->out, _("every key is masked for query \xe2\x80\x9c%s\xe2\x80\x9d: there is nothing to attend to, "
                   "so all its weights are 0 (not NaN)"), ex_qtok(e, i));
        buf_puts(&e->out, "\n");
        why_masked(e, i, j);
        return;
    }
    if (masked(e, i, j)) {
        buf_puts(&e->out, _("weight 0 exactly: "));
        why_masked(e, i, j);
        return;
    }
    buf_printf(&e->out, _("weight given by the lesson, not computed here: %s[%d][%d] = "), A->name, i + 1, col + 1);
    ex_num(&e->out, w, false);
    if (A->generated) buf_printf(&e->out, _("\n%s = %s (line %d)"), A->name, A->how, A->line);
    else buf_printf(&e->out, _("\nwritten in the lesson, line %d"), A->line + 1 + i);
    buf_printf(&e->out, _("\nthe %d weights of \xe2\x80\x9c%s\xe2\x80\x9d sum to %.4f"), seen, ex_qtok(e, i), sum);
}

/* A weight: the softmax of its row of scores. */
static void ex_weight(Ex *e, int i, int j, double w)
{
    if (e->su->attention) {
        ex_given_weight(e, i, j, w);
        return;
    }
    TraceKind in = trace_softmax_input(e->su);
    const Mat *S = ex_mat(e, in);
    ex_op(e, trace_ref(in, e->head), i, -1);
    const double *row = mat_row(S, i);
    int n = S->cols, seen = 0;
    double mx = -INFINITY, sum = 0;
    for (int k = 0; k < n; k++) if (row[k] > mx) mx = row[k];
    if (e->ts->heads > 1) buf_printf(&e->out, _("head %d of %d: "), e->head, e->ts->heads);
    if (mx == -INFINITY) {
        buf_printf(&e->out, _("every key is masked for query \xe2\x80\x9c%s\xe2\x80\x9d: there is nothing to attend to, "
                   "so all its weights are 0 (not NaN)"), ex_qtok(e, i));
        return;
    }
    if (row[j] == -INFINITY) {
        buf_puts(&e->out, _("weight 0 exactly: "));
        why_masked(e, i, j);
        return;
    }
    for (int k = 0; k < n; k++) {
        sum += exp(row[k] - mx);
        seen += row[k] != -INFINITY;
    }
    buf_printf(&e->out, _("softmax over the row of \xe2\x80\x9c%s\xe2\x80\x9d (subtract its max "), ex_qtok(e, i));
    ex_softmax_terms(&e->out, row[j], mx, sum, w);
    if (seen < n) buf_printf(&e->out, _("\nthe %d weights of the keys it can see sum to 1"), seen);
    else buf_printf(&e->out, _("\nthe %d weights of this row sum to 1"), n);
}

/* An output cell: the weights of its row times a value column. */
static void ex_output(Ex *e, int i, int j, double v)
{
    const Mat *W = ex_mat(e, TK_WEIGHTS), *V = ex_mat(e, TK_V);
    ex_op(e, trace_ref(TK_WEIGHTS, e->head), i, -1);
    ex_op(e, trace_ref(TK_V, e->head), -1, j);
    if (e->ts->heads > 1) buf_printf(&e->out, _("head %d of %d: "), e->head, e->ts->heads);
    buf_printf(&e->out, _("output[%d][%d] = \xce\xa3 weight \xc3\x97 V[key][%d]\n= "), i + 1, j + 1, j + 1);
    assert(W->cols == V->rows);
    ex_row_col(&e->out, W, i, V, j, W->cols, v);
}

/* A cell of the concatenation: which head it came from. */
static void ex_concat(Ex *e, int i, int j, double v)
{
    int w = e->ts->d_v, h = j / w;
    if (lesson_head_ablated(e->su, h + 1)) {
        ex_ablated(e, h + 1, i, j - h * w, j, v);
        return;
    }
    ex_op(e, trace_ref(TK_OUTPUT, h + 1), i, j - h * w);
    buf_printf(&e->out, _("concat[%d][%d] = head %d's output[%d][%d] = "), i + 1, j + 1, h + 1, i + 1, j - h * w + 1);
    ex_num(&e->out, v, false);
    buf_printf(&e->out, _("\ncolumns %d\xe2\x80\x93%d come from head %d"), h * w + 1, (h + 1) * w, h + 1);
}

/* The output projection. */
static void ex_final(Ex *e, int i, int j, double v)
{
    TraceRef cr = trace_joined(e->ts);
    const Mat *C = trace_at(e->T, e->s, cr);
    const Mat *W = trace_at(e->T, e->s, trace_input_ref(e->su->output_proj));
    ex_op(e, cr, i, -1);
    ex_op(e, trace_input_ref(e->su->output_proj), -1, j);
    buf_printf(&e->out, _("final[%d][%d] = row %d of %s \xc2\xb7 column %d of %s\n= "), i + 1, j + 1, i + 1,
               cr.kind == TK_CONCAT ? "concat" : "output", j + 1, e->su->output_proj);
    double b = e->su->output_bias ? mat_get(trace_at(e->T, e->s, trace_input_ref(e->su->output_bias)), 0, j) : 0;
    assert(C->cols == W->rows);
    ex_row_col(&e->out, C, i, W, j, C->cols, v - b);
    ex_bias_line(e, e->su->output_bias, j, v);
}

/* An entropy value: −Σ w·ln w over the keys the query can see. */
static void ex_entropy(Ex *e, int i, int j, double v)
{
    e->head = j + 1;
    const Mat *W = ex_mat(e, TK_WEIGHTS);
    ex_op(e, trace_ref(TK_WEIGHTS, e->head), i, -1);
    int n = W->cols, shown = 0, seen = 0;
    for (int k = 0; k < n; k++) seen += !masked(e, i, k);
    buf_printf(&e->out, _("entropy of \xe2\x80\x9c%s\xe2\x80\x9d"), ex_qtok(e, i));
    if (e->ts->heads > 1) buf_printf(&e->out, _(" in head %d of %d"), j + 1, e->ts->heads);
    buf_puts(&e->out, " = \xe2\x88\x92\xce\xa3 w\xc2\xb7ln w\n= \xe2\x88\x92(");
    for (int k = 0; k < n && shown < SHOWN_TERMS + (seen <= MAX_TERMS ? MAX_TERMS : 0); k++) {
        double w = mat_get(W, i, k);
        if (masked(e, i, k)) continue;
        if (shown++) buf_puts(&e->out, " + ");
        ex_num(&e->out, w, false);
        buf_puts(&e->out, "\xc2\xb7ln ");
        ex_num(&e->out, w, false);
    }
    if (shown < seen) buf_printf(&e->out, _(" + \xe2\x80\xa6 (%d terms)"), seen);
    buf_puts(&e->out, ") = ");
    ex_num(&e->out, v, false);
    buf_puts(&e->out, _(" nats"));
    if (seen == 0) buf_puts(&e->out, _("\nthe mask hides every key from this query: no weights, entropy 0"));
    else buf_printf(&e->out, seen == 1 ? _("\n0 if one key takes everything; at most ln %d = %.3f, when the %d key it can see share equally")
                                       : _("\n0 if one key takes everything; at most ln %d = %.3f, when the %d keys it can see share equally"),
                    seen, log((double)seen), seen);
}

/* A cell of one part of a mask. */
static void ex_mask_part(Ex *e, TraceKind k, int i, int j, double v)
{
    const Setup *su = e->su;
    buf_printf(&e->out, "%s[%d][%d] = %.0f\n", trace_kind_name(k), i + 1, j + 1, v);
    if (k == TK_MASK_CAUSAL)
        buf_printf(&e->out, "causal: key %d %s query %d", j + 1, j <= i ? "is not after" : "comes after", i + 1);
    else if (k == TK_MASK_WINDOW)
        buf_printf(&e->out, "window: query %d minus key %d is %d, %s %d (the causal part takes care of later keys)",
                   i + 1, j + 1, i - j, i - j < su->window ? "below" : "not below", su->window);
    else if (k == TK_MASK_PREFIX)
        buf_printf(&e->out, "prefix: %s (the first %d tokens see each other both ways; elsewhere the causal part decides)",
                   i < su->prefix && j < su->prefix ? "both are in the prefix" : "not both in the prefix", su->prefix);
    else
        buf_printf(&e->out, "padding: query \xe2\x80\x9c%s\xe2\x80\x9d and key \xe2\x80\x9c%s\xe2\x80\x9d: %s", ex_qtok(e, i), ex_ktok(e, j),
                   v != 0.0 ? "neither is padding" : "padding takes part, so the pair is blocked");
}

/* A cell of the sinusoidal encoding, or of X + PE. */
static void ex_positions(Ex *e, TraceKind k, int i, int j, double v)
{
    const Mat *P = trace_at(e->T, e->s, trace_ref(TK_PE, 0));
    double pe = mat_get(P, i, j);
    if (k == TK_XPE) {
        const char *x = e->su->queries.input;
        double xv = mat_get(trace_at(e->T, e->s, trace_input_ref(x)), i, j);
        ex_op(e, trace_input_ref(x), i, j);
        ex_op(e, trace_ref(TK_PE, 0), i, j);
        buf_printf(&e->out, "%s[%d][%d] + PE[%d][%d] = ", x, i + 1, j + 1, i + 1, j + 1);
        ex_num(&e->out, xv, false);
        buf_puts(&e->out, " + ");
        ex_num(&e->out, pe, true);
        buf_puts(&e->out, " = ");
        ex_num(&e->out, v, false);
        buf_puts(&e->out, "\nthe projections read this sum, so every query, key and value knows its position");
        return;
    }
    int d = P->cols, i2 = j - j % 2;
    double f = pow(10000.0, (double)i2 / d);
    const char *f1 = j % 2 ? "cos" : "sin";
    buf_printf(&e->out, "PE[%d][%d]: position %d, column %d of %d (pair %d)\n= %s((%d \xe2\x88\x92 1) / 10000^(%d/%d)) = %s(%d / ",
               i + 1, j + 1, i + 1, j + 1, d, i2 / 2 + 1, f1, i + 1, i2, d, f1, i);
    ex_num(&e->out, f, false);
    buf_puts(&e->out, ") = ");
    ex_num(&e->out, v, false);
    buf_printf(&e->out, "\ncolumns %d and %d share this frequency; later columns turn more slowly", i2 + 1, i2 + 2);
}

/* A RoPE angle, or a rotated entry of Q or K. */
static void ex_rope(Ex *e, TraceKind k, int i, int j, double v)
{
    const Mat *A = trace_at(e->T, e->s, trace_ref(TK_ROPE_ANGLES, 0));
    int dk = e->ts->d_k, pair = k == TK_ROPE_ANGLES ? j : j / 2;
    double a = mat_get(A, i, pair), theta = pow(e->su->rope_base, -2.0 * pair / dk);
    if (k == TK_ROPE_ANGLES) {
        buf_printf(&e->out, "angle of pair %d at position %d\n= (p \xe2\x88\x92 1)\xc2\xb7\xce\xb8_%d with \xce\xb8_%d = %g^(\xe2\x88\x92%d/%d) = ",
                   j + 1, i + 1, j + 1, j + 1, e->su->rope_base, 2 * pair, dk);
        ex_num(&e->out, theta, false);
        buf_printf(&e->out, "\n= (%d \xe2\x88\x92 1) \xc3\x97 ", i + 1);
        ex_num(&e->out, theta, false);
        buf_puts(&e->out, " = ");
        ex_num(&e->out, v, false);
        buf_puts(&e->out, " radians");
        return;
    }
    TraceKind src = k == TK_QROT ? TK_Q : TK_K;
    const Mat *M = ex_mat(e, src);
    double x = mat_get(M, i, 2 * pair), y = mat_get(M, i, 2 * pair + 1);
    ex_op(e, trace_ref(src, e->head), i, 2 * pair);
    ex_op(e, trace_ref(src, e->head), i, 2 * pair + 1);
    ex_op(e, trace_ref(TK_ROPE_ANGLES, 0), i, pair);
    if (e->ts->heads > 1) buf_printf(&e->out, _("head %d of %d: "), e->head, e->ts->heads);
    buf_printf(&e->out, "%s rotated, row \xe2\x80\x9c%s\xe2\x80\x9d, pair %d (d%d, d%d): (x, y) = (", trace_kind_name(src), ex_qtok(e, i),
               pair + 1, 2 * pair + 1, 2 * pair + 2);
    ex_num(&e->out, x, false);
    buf_puts(&e->out, ", ");
    ex_num(&e->out, y, false);
    buf_puts(&e->out, ") turns by a = ");
    ex_num(&e->out, a, false);
    buf_puts(&e->out, j % 2 ? "\ny' = x\xc2\xb7" "sin a + y\xc2\xb7" "cos a = " : "\nx' = x\xc2\xb7" "cos a \xe2\x88\x92 y\xc2\xb7" "sin a = ");
    ex_num(&e->out, x, true);
    buf_puts(&e->out, j % 2 ? "\xc3\x97" : "\xc3\x97");
    ex_num(&e->out, j % 2 ? sin(a) : cos(a), true);
    buf_puts(&e->out, j % 2 ? " + " : " \xe2\x88\x92 ");
    ex_num(&e->out, y, true);
    buf_puts(&e->out, "\xc3\x97");
    ex_num(&e->out, j % 2 ? cos(a) : sin(a), true);
    buf_puts(&e->out, " = ");
    ex_num(&e->out, v, false);
    buf_puts(&e->out, "\na turn keeps the length; q\xc2\xb7k then depends on the difference of the two positions");
}

/* ALiBi's bias for query i and key j. */
static void ex_alibi(Ex *e, int i, int j, double v)
{
    double m = attn_alibi_slope(e->head, e->ts->heads);
    int a, b;
    attn_alibi_exponent(e->head, e->ts->heads, &a, &b);
    buf_printf(&e->out, "head %d of %d: slope m = 2^(\xe2\x88\x92" "8\xc2\xb7%d/%d) = ", e->head, e->ts->heads, a, b);
    ex_num(&e->out, m, false);
    buf_printf(&e->out, "\nbias = \xe2\x88\x92m\xc2\xb7|%d \xe2\x88\x92 %d| = \xe2\x88\x92", i + 1, j + 1);
    ex_num(&e->out, m, false);
    buf_printf(&e->out, "\xc3\x97%d = ", abs(i - j));
    ex_num(&e->out, v, false);
    buf_puts(&e->out, "\nthe farther the key, the lower its score; steeper slopes make a head more local");
}

/* Which query heads share a K/V head, and what a cache holds. */
static void ex_kv_tables(Ex *e, TraceKind k, int i, int j, double v)
{
    const TraceSetup *ts = e->ts;
    if (k == TK_KV_GROUPS) {
        buf_printf(&e->out, "query head %d reads K/V head \xe2\x8c\x8a(%d\xe2\x88\x92" "1)\xc2\xb7%d/%d\xe2\x8c\x8b + 1 = %d\n", i + 1, i + 1,
                   ts->kv_heads, ts->heads, trace_kv_head(ts, i + 1));
        buf_puts(&e->out, v != 0.0 ? "so this cell is 1" : "not this one, so this cell is 0");
        return;
    }
    int heads = i == 0 ? ts->heads : ts->kv_heads, w = j == 0 ? ts->d_k : j == 1 ? ts->d_v : ts->d_k + ts->d_v;
    buf_printf(&e->out, "%d tokens \xc3\x97 %d K/V head%s \xc3\x97 %d numbers (%s) = %.0f numbers per layer", e->su->nk, heads,
               heads == 1 ? "" : "s", w, j == 0 ? "a key" : j == 1 ? "a value" : "a key and a value", v);
}

/* Decoding step i: a weight over the cached keys, or an output. The cache
** read is named by the first head of the group that shares it, as the
** kv_cache stage shows it (once per group). */
static void ex_kv(Ex *e, TraceKind k, int i, int j, double v)
{
    const Mat *W = ex_mat(e, TK_KV_WEIGHTS);
    int cache = e->head > 0 ? trace_kv_first(e->ts, e->head) : e->head;
    if (k == TK_KV_OUTPUT) {
        const Mat *V = ex_mat(e, TK_V);
        ex_op(e, trace_ref(TK_KV_WEIGHTS, e->head), i, -1);
        ex_op(e, trace_ref(TK_V, cache), -1, j);
        buf_printf(&e->out, "step %d: output[%d] = \xce\xa3 weight \xc3\x97 cached V[key][%d] over %d cached key%s\n= ", i + 1, j + 1,
                   j + 1, i + 1, i ? "s" : "");
        ex_row_col(&e->out, W, i, V, j, i + 1, v);
        return;
    }
    if (j > i) {
        buf_printf(&e->out, "step %d: key %d is not in the cache yet (it arrives at step %d), so there is no weight: 0", i + 1,
                   j + 1, j + 1);
        return;
    }
    TraceKind in = trace_softmax_input(e->su);
    const Mat *S = ex_mat(e, in);
    ex_op(e, trace_ref(trace_score_q(e->su), e->head), i, -1);
    ex_op(e, trace_ref(trace_score_k(e->su), cache), j, -1);
    ex_op(e, trace_ref(in, e->head), i, j);
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c <= i; c++) if (mat_get(S, i, c) > mx) mx = mat_get(S, i, c);
    buf_printf(&e->out, "step %d (\xe2\x80\x9c%s\xe2\x80\x9d): its q against cached key %d gives the score ", i + 1, ex_qtok(e, i), j + 1);
    ex_num(&e->out, mat_get(S, i, j), false);
    if (mx == -INFINITY) {
        buf_puts(&e->out, "\nevery cached key is masked: the weights are 0");
        return;
    }
    for (int c = 0; c <= i; c++) if (mat_get(S, i, c) != -INFINITY) sum += exp(mat_get(S, i, c) - mx);
    buf_printf(&e->out, "\nsoftmax over the %d cached keys: exp(s \xe2\x88\x92 ", i + 1);
    ex_num(&e->out, mx, true);
    buf_puts(&e->out, ") / ");
    ex_num(&e->out, sum, false);
    buf_puts(&e->out, " = ");
    ex_num(&e->out, v, false);
    buf_puts(&e->out, "\nthe same row the full causal computation gives, computed from the cache alone");
}

/* The online softmax: running max, rescale, sum, accumulator, output. */
static void ex_online(Ex *e, TraceRef r, int i, int j, double v)
{
    int B = r.block, dv = e->ts->d_v, b = r.kind == TK_OS_ACC ? j / dv : j, nk = e->su->nk;
    int j0 = b * B, j1 = j0 + B < nk ? j0 + B : nk;
    TraceKind in = trace_softmax_input(e->su);
    const Mat *Mx = trace_at(e->T, e->s, trace_block_ref(TK_OS_MAX, e->head, B));
    const Mat *Sm = trace_at(e->T, e->s, trace_block_ref(TK_OS_SUM, e->head, B));
    double mold = b ? mat_get(Mx, i, b - 1) : -INFINITY, mnew = r.kind == TK_OS_OUT || r.kind == TK_OS_DIFF ? 0 : mat_get(Mx, i, b);
    if (r.kind != TK_OS_OUT && r.kind != TK_OS_DIFF) {
        ex_op(e, trace_ref(in, e->head), i, -1);
        buf_printf(&e->out, "row \xe2\x80\x9c%s\xe2\x80\x9d, block %d (keys %d\xe2\x80\x93%d): m_old = ", ex_qtok(e, i), b + 1, j0 + 1, j1);
        ex_num(&e->out, mold, false);
        buf_puts(&e->out, ", m_new = max(m_old, block's scores) = ");
        ex_num(&e->out, mnew, false);
        buf_puts(&e->out, "\n");
    }
    switch (r.kind) {
    case TK_OS_MAX:
        buf_puts(&e->out, mnew == -INFINITY ? "no key visible yet: m stays \xe2\x88\x92\xe2\x88\x9e" : "the largest score seen so far");
        break;
    case TK_OS_RESCALE:
        if (mnew == -INFINITY) buf_puts(&e->out, "nothing seen yet: nothing to rescale, factor 1");
        else { buf_puts(&e->out, "exp(m_old \xe2\x88\x92 m_new) = "); ex_num(&e->out, v, false); }
        buf_puts(&e->out, "\nthe old sum was taken against m_old; this factor moves it to m_new");
        break;
    case TK_OS_SUM:
        buf_puts(&e->out, "\xe2\x84\x93 = \xe2\x84\x93_old\xc3\x97rescale + \xce\xa3 exp(s \xe2\x88\x92 m_new) over the block = ");
        ex_num(&e->out, b ? mat_get(Sm, i, b - 1) : 0.0, false);
        buf_puts(&e->out, "\xc3\x97");
        ex_num(&e->out, mat_get(trace_at(e->T, e->s, trace_block_ref(TK_OS_RESCALE, e->head, B)), i, b), false);
        buf_puts(&e->out, " + \xe2\x80\xa6 = ");
        ex_num(&e->out, v, false);
        break;
    case TK_OS_ACC:
        buf_printf(&e->out, "acc[%d] = (acc_old\xc3\x97\xe2\x84\x93_old\xc3\x97rescale + \xce\xa3 exp(s \xe2\x88\x92 m_new)\xc3\x97V[key][%d] "
                   "over the block) \xc3\xb7 \xe2\x84\x93 = ", j % dv + 1, j % dv + 1);
        ex_num(&e->out, v, false);
        buf_puts(&e->out, "\nkept divided by \xe2\x84\x93: a weighted average of the values seen so far");
        ex_op(e, trace_ref(TK_V, e->head), -1, j % dv);
        break;
    default: {
        const Mat *O = trace_at(e->T, e->s, trace_block_ref(TK_OS_OUT, e->head, B)), *A = trace_at(e->T, e->s, trace_block_ref(TK_OS_ACC, e->head, B));
        int last = Mx->cols - 1;
        double ord = mat_get(ex_mat(e, TK_OUTPUT), i, j);
        ex_op(e, trace_block_ref(TK_OS_ACC, e->head, B), i, last * dv + j);
        ex_op(e, trace_ref(TK_OUTPUT, e->head), i, j);
        buf_printf(&e->out, "online output = acc after block %d (already divided by \xe2\x84\x93 = ", last + 1);
        ex_num(&e->out, mat_get(Sm, i, last), false);
        buf_puts(&e->out, ") = ");
        ex_num(&e->out, mat_get(A, i, last * dv + j), false);
        buf_puts(&e->out, "\nordinary softmax\xc2\xb7V gives ");
        ex_num(&e->out, ord, false);
        buf_printf(&e->out, "\nthe difference is %.3g = ", mat_get(O, i, j) - ord);
        ex_num(&e->out, v, false);
        buf_puts(&e->out, " \xc3\x97 \xce\xb5 (\xce\xb5 = 2\xe2\x81\xbb\xe2\x81\xb5\xc2\xb2): rounding in the last bits");
    }
    }
}

/* The kinds of masks made of parts, positions, K/V heads, decoding and the
** online softmax; false for a kind it does not know. */
static bool explain_modern(Ex *e, TraceRef r, int i, int j, double v)
{
    switch (r.kind) {
    case TK_MASK_CAUSAL: case TK_MASK_WINDOW: case TK_MASK_PREFIX: case TK_MASK_PAD: ex_mask_part(e, r.kind, i, j, v); return true;
    case TK_PE: case TK_XPE: ex_positions(e, r.kind, i, j, v); return true;
    case TK_ROPE_ANGLES: case TK_QROT: case TK_KROT: ex_rope(e, r.kind, i, j, v); return true;
    case TK_ALIBI: ex_alibi(e, i, j, v); return true;
    case TK_KV_GROUPS: case TK_KV_SIZE: ex_kv_tables(e, r.kind, i, j, v); return true;
    case TK_KV_WEIGHTS: case TK_KV_OUTPUT: ex_kv(e, r.kind, i, j, v); return true;
    case TK_OS_MAX: case TK_OS_SUM: case TK_OS_RESCALE: case TK_OS_ACC: case TK_OS_OUT: case TK_OS_DIFF: ex_online(e, r, i, j, v); return true;
    default: return false;
    }
}

/*
** A cell of model_view's grid: the weight it copies, named by its layer
** and head and explained in its own setup. Its operands are that setup's,
** not on the grid's slide, so none is outlined.
*/
static bool explain_grid(const Lesson *L, const Trace *T, int setup, int i, int j, Explain *ex)
{
    int setups[LESSON_MAX_SETUPS];
    lesson_grid_setups(L, setup, setups);
    const Setup *su = &L->setups[setup];
    int l = i / su->nq, h = j / su->nk + 1, s = setups[l];
    Explain w;
    if (!explain_at(L, T, s, trace_ref(TK_WEIGHTS, h), i % su->nq, j % su->nk, &w)) return false;
    Buf b = {0};
    if (L->setups[s].title) buf_printf(&b, "%s: ", L->setups[s].title);    /* the weight's own text names its head */
    else buf_printf(&b, _("setup %d: "), s + 1);
    buf_puts(&b, w.text);
    explain_free(&w);
    memset(ex, 0, sizeof *ex);
    ex->text = buf_take(&b);
    return true;
}

/* Explain one cell of ref. */
bool explain_at(const Lesson *L, const Trace *T, int setup, TraceRef ref, int i, int j, Explain *ex)
{
    const Mat *m = trace_at(T, setup, ref);
    if (!L || !m || setup >= L->nsetups || i < 0 || j < 0 || i >= m->rows || j >= m->cols) return false;
    Ex e;
    memset(&e, 0, sizeof e);
    memset(ex, 0, sizeof *ex);
    e.L = L;
    e.T = T;
    e.s = setup;
    e.ts = &T->s[setup];
    e.su = &L->setups[setup];
    e.ex = ex;
    e.head = ref.head > 0 ? ref.head : trace_kind_per_head(ref.kind) || e.ts->heads == 1 ? 1 : 0;
    if (ref.kind == TK_GRID) return explain_grid(L, T, setup, i, j, ex);
    double v = mat_get(m, i, j);
    switch (ref.kind) {
    case TK_INPUT: ex_input(&e, ref.name, i, j, v); break;
    case TK_Q: case TK_K: case TK_V: ex_projection(&e, ref.kind, i, j, v); break;
    case TK_RAW: ex_raw(&e, i, j, v); break;
    case TK_SCALED: ex_scaled(&e, i, j, v); break;
    case TK_MASK: ex_mask(&e, i, j, v); break;
    case TK_MASKED: ex_masked(&e, i, j, v); break;
    case TK_WEIGHTS: ex_weight(&e, i, j, v); break;
    case TK_OUTPUT: ex_output(&e, i, j, v); break;
    case TK_CONCAT: ex_concat(&e, i, j, v); break;
    case TK_ABLATED: ex_ablated(&e, e.head, i, j, -1, v); break;
    case TK_FINAL: ex_final(&e, i, j, v); break;
    case TK_ENTROPY: ex_entropy(&e, i, j, v); break;
    case TK_BIASED: ex_biased(&e, i, j, v); break;
    default: if (!explain_modern(&e, ref, i, j, v) && !ex_block(&e, ref, i, j, v)) buf_puts(&e.out, "?"); break;
    }
    ex->text = buf_take(&e.out);
    return true;
}

/* Release an explanation's text. */
void explain_free(Explain *ex)
{
    if (ex) free(ex->text);
}

/* The text alone, for a matrix named as in --dump. */
char *explain_cell(const Lesson *L, const Trace *T, int setup, const char *matrix, int i, int j)
{
    TraceRef r;
    Explain ex;
    if (!trace_parse_name(T, setup, matrix, &r) || !explain_at(L, T, setup, r, i, j, &ex)) return NULL;
    return ex.text;
}
