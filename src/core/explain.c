/*
** explain.c: cell explanations. Each kind of matrix has a small function
** that rebuilds its cell from the operands in the trace and prints the
** steps; the printed result is the trace's own value, so what the student
** reads is exactly what the heatmap shows.
*/
#include "explain.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TERMS 8     /* list every product up to this many */
#define SHOWN_TERMS 4   /* beyond it, show this many and the count */

/* What an explanation needs. */
typedef struct Ex {
    const Lesson *L;
    const Trace *T;
    const TraceSetup *ts;
    const Setup *su;
    int s;
    int head;           /* 1-based head of the cell, or 0 */
    Buf out;
    Explain *ex;
} Ex;

/* Record an operand: (kind, head) row r, column c (-1: all of it). */
static void op(Ex *e, TraceRef ref, int r, int c)
{
    if (e->ex->nops < EXPLAIN_MAX_OPS) e->ex->ops[e->ex->nops++] = (ExplainOp){ ref, r, c };
}

/* A computed matrix of this cell's head. */
static const Mat *mat_of(const Ex *e, TraceKind k)
{
    return trace_at(e->T, e->s, trace_ref(k, e->head));
}

/* A number for the explain panel: 4 significant digits, typographic minus. */
static void num(Buf *b, double v, bool paren)
{
    char t[48];
    if (v == -INFINITY) { buf_puts(b, "\xe2\x88\x92\xe2\x88\x9e"); return; }
    /* a step whose value went past the doubles (an additive score's hidden
    ** units, whose tanh is still exact): said so, never "inf" or "nan" */
    if (!isfinite(v)) { buf_puts(b, "overflow"); return; }
    if (v == floor(v) && fabs(v) < 1e9) snprintf(t, sizeof t, "%.0f", v);
    else snprintf(t, sizeof t, "%.4g", v);
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

/* "a×b + c×d + … = r" for the dot product of n pairs a[k*sa], b[k*sb]. */
static void dot_line(Buf *b, const double *a, int sa, const double *c, int sc, int n, double result)
{
    int shown = n <= MAX_TERMS ? n : SHOWN_TERMS;
    for (int k = 0; k < shown; k++) {
        if (k) buf_puts(b, " + ");
        num(b, a[k * sa], true);
        buf_puts(b, "\xc3\x97");
        num(b, c[k * sc], true);
    }
    if (shown < n) buf_printf(b, " + \xe2\x80\xa6 (%d products in all)", n);
    buf_puts(b, " = ");
    num(b, result, false);
}

/* The name of the query (row) and key (column) tokens, for prose. */
static const char *qtok(const Ex *e, int i) { return i < e->su->nq ? e->su->qtokens[i] : "?"; }
static const char *ktok(const Ex *e, int j) { return j < e->su->nk ? e->su->ktokens[j] : "?"; }

/* Inputs: where the number comes from. */
static void ex_input(Ex *e, const char *name, int i, int j, double v)
{
    const LessonMatrix *lm = lesson_matrix(e->su, name);
    buf_printf(&e->out, "%s[%d][%d] = ", name, i + 1, j + 1);
    num(&e->out, v, false);
    if (!lm) return;
    if (lm->generated)
        buf_printf(&e->out, "\ndrawn on line %d: %s = %s", lm->line, name, lm->how);
    else
        buf_printf(&e->out, "\nwritten in the lesson, line %d", lm->line + 1 + i);
    if (lm->generated && e->su->seeded) buf_printf(&e->out, " (seed %" PRIu32 ")", e->su->seed);
    buf_puts(&e->out, "\nan input: scroll over it to change it");
}

/* Q, K, V: a projection X·W, or the input itself; a head's slice reads
** its own columns of the weight. */
static void ex_projection(Ex *e, TraceKind k, int i, int j, double v)
{
    const Operand *o = k == TK_Q ? &e->su->queries : k == TK_K ? &e->su->keys : &e->su->values;
    const char *which = trace_kind_name(k);
    const Mat *X = trace_at(e->T, e->s, trace_input_ref(o->input));
    int w = k == TK_V ? e->ts->d_v : e->ts->d_k;
    int col = j + (e->head > 0 && e->ts->heads > 1 ? (e->head - 1) * w : 0);
    op(e, trace_input_ref(o->input), i, -1);
    if (!o->weight) {
        buf_printf(&e->out, "%s = %s, so %s[%d][%d] = %s[%d][%d] = ", which, o->input, which, i + 1, j + 1,
                   o->input, i + 1, col + 1);
        num(&e->out, v, false);
        e->ex->ops[e->ex->nops - 1].col = col;
        return;
    }
    const Mat *W = trace_at(e->T, e->s, trace_input_ref(o->weight));
    op(e, trace_input_ref(o->weight), -1, col);
    if (e->head > 0 && e->ts->heads > 1) buf_printf(&e->out, "head %d of %d: ", e->head, e->ts->heads);
    buf_printf(&e->out, "%s[%d][%d] = row %d of %s \xc2\xb7 column %d of %s\n= ", which, i + 1, j + 1, i + 1,
               o->input, col + 1, o->weight);
    dot_line(&e->out, mat_row(X, i), 1, W->data + col, W->cols, X->cols, v);
    if (e->head > 0 && e->ts->heads > 1)
        buf_printf(&e->out, "\n(head %d uses columns %d\xe2\x80\x93%d of %s)", e->head, (e->head - 1) * w + 1,
                   e->head * w, o->weight);
}

/* The raw score: a dot product of a query row and a key row, or the
** additive form. */
static void ex_raw(Ex *e, int i, int j, double raw)
{
    const Mat *Q = mat_of(e, TK_Q), *K = mat_of(e, TK_K);
    op(e, trace_ref(TK_Q, e->head), i, -1);
    op(e, trace_ref(TK_K, e->head), j, -1);
    if (e->su->score == SCORE_ADDITIVE) {
        const Mat *W1 = trace_at(e->T, e->s, trace_input_ref(e->su->add_w1));
        const Mat *W2 = trace_at(e->T, e->s, trace_input_ref(e->su->add_w2));
        const Mat *vv = trace_at(e->T, e->s, trace_input_ref(e->su->add_v));
        int u = vv->rows * vv->cols;
        buf_printf(&e->out, "score(%s, %s) = %s\xe1\xb5\x80\xc2\xb7tanh(q\xc2\xb7%s + k\xc2\xb7%s)\n= ",
                   qtok(e, i), ktok(e, j), e->su->add_v, e->su->add_w1, e->su->add_w2);
        int shown = u <= MAX_TERMS ? u : SHOWN_TERMS;
        for (int t = 0; t < shown; t++) {
            double a = 0, b = 0;
            for (int d = 0; d < Q->cols; d++) a += mat_get(Q, i, d) * mat_get(W1, d, t);
            for (int d = 0; d < K->cols; d++) b += mat_get(K, j, d) * mat_get(W2, d, t);
            if (t) buf_puts(&e->out, " + ");
            num(&e->out, vv->data[t], true);
            buf_puts(&e->out, "\xc3\x97tanh(");
            num(&e->out, a + b, false);
            buf_puts(&e->out, ")");
        }
        if (shown < u) buf_printf(&e->out, " + \xe2\x80\xa6 (%d terms)", u);
        buf_puts(&e->out, " = ");
        num(&e->out, raw, false);
        return;
    }
    if (e->ts->heads > 1) buf_printf(&e->out, "head %d of %d: ", e->head, e->ts->heads);
    buf_printf(&e->out, "q\xc2\xb7k for query \xe2\x80\x9c%s\xe2\x80\x9d and key \xe2\x80\x9c%s\xe2\x80\x9d\n= ", qtok(e, i), ktok(e, j));
    dot_line(&e->out, mat_row(Q, i), 1, mat_row(K, j), 1, Q->cols, raw);
}

/* The scaled score: raw, then the division the trace applied (the head's
** own √d_k, the lesson's divisor, or none), then the temperature. */
static void ex_scaled(Ex *e, int i, int j, double v)
{
    double raw = mat_get(mat_of(e, TK_RAW), i, j);
    ex_raw(e, i, j, raw);
    op(e, trace_ref(TK_RAW, e->head), i, j);
    double div = e->ts->divisor;
    if (div != 1.0) {
        buf_puts(&e->out, "\n\xc3\xb7 ");
        if (e->su->divisor > 0) {
            num(&e->out, div, false);
            buf_puts(&e->out, " (the lesson's divisor)");
        } else {
            int dk = e->ts->d_k;
            buf_printf(&e->out, "\xe2\x88\x9a%d (d_k = %d, %s; \xe2\x88\x9a%d = ", dk, dk,
                       e->ts->heads > 1 ? "one head's width" : "the width of the keys", dk);
            num(&e->out, div, false);
            buf_puts(&e->out, ")");
        }
        buf_puts(&e->out, " = ");
        num(&e->out, raw / div, false);
    } else if (e->su->score == SCORE_DOT) {
        buf_puts(&e->out, "\nnot divided: scaling is off");
    }
    if (e->ts->temperature != 1.0) {
        buf_puts(&e->out, "\n\xc3\xb7 temperature ");
        num(&e->out, e->ts->temperature, false);
        buf_puts(&e->out, " = ");
        num(&e->out, v, false);
    }
}

/* Is (i, j) masked? */
static bool masked(const Ex *e, int i, int j)
{
    const Mat *M = trace_at(e->T, e->s, trace_ref(TK_MASK, 0));
    return M && mat_get(M, i, j) == 0.0;
}

/* Why a key is hidden from a query. */
static void why_masked(Ex *e, int i, int j)
{
    if (e->su->mask == MASK_CAUSAL)
        buf_printf(&e->out, "key \xe2\x80\x9c%s\xe2\x80\x9d (position %d) comes after query \xe2\x80\x9c%s\xe2\x80\x9d (position %d): "
                   "blocked by the causal mask", ktok(e, j), j + 1, qtok(e, i), i + 1);
    else
        buf_printf(&e->out, "the lesson's mask %s blocks key \xe2\x80\x9c%s\xe2\x80\x9d for query \xe2\x80\x9c%s\xe2\x80\x9d",
                   e->su->mask_matrix, ktok(e, j), qtok(e, i));
}

/* A mask cell. */
static void ex_mask(Ex *e, int i, int j, double v)
{
    buf_printf(&e->out, "mask[%d][%d] = %.0f\n", i + 1, j + 1, v);
    if (v == 0.0) why_masked(e, i, j);
    else buf_printf(&e->out, "query \xe2\x80\x9c%s\xe2\x80\x9d may attend to key \xe2\x80\x9c%s\xe2\x80\x9d", qtok(e, i), ktok(e, j));
}

/* A masked score: the scaled score, or −∞. */
static void ex_masked(Ex *e, int i, int j, double v)
{
    op(e, trace_ref(TK_MASK, 0), i, j);
    if (masked(e, i, j)) {
        buf_puts(&e->out, "\xe2\x88\x92\xe2\x88\x9e: ");
        why_masked(e, i, j);
        buf_puts(&e->out, "\nexp(\xe2\x88\x92\xe2\x88\x9e) = 0, so this key's weight is exactly 0");
        return;
    }
    op(e, trace_ref(TK_SCALED, e->head), i, j);
    ex_scaled(e, i, j, v);
    buf_puts(&e->out, "\nnot masked: the score passes through");
}

/* A weight: the softmax of its row of scores. */
static void ex_weight(Ex *e, int i, int j, double w)
{
    TraceKind in = e->su->mask != MASK_NONE ? TK_MASKED : TK_SCALED;
    const Mat *S = mat_of(e, in);
    op(e, trace_ref(in, e->head), i, -1);
    const double *row = mat_row(S, i);
    int n = S->cols, seen = 0;
    double mx = -INFINITY, sum = 0;
    for (int k = 0; k < n; k++) if (row[k] > mx) mx = row[k];
    if (e->ts->heads > 1) buf_printf(&e->out, "head %d of %d: ", e->head, e->ts->heads);
    if (mx == -INFINITY) {
        buf_printf(&e->out, "every key is masked for query \xe2\x80\x9c%s\xe2\x80\x9d: there is nothing to attend to, "
                   "so all its weights are 0 (not NaN)", qtok(e, i));
        return;
    }
    if (row[j] == -INFINITY) {
        buf_puts(&e->out, "weight 0 exactly: ");
        why_masked(e, i, j);
        return;
    }
    for (int k = 0; k < n; k++) {
        sum += exp(row[k] - mx);
        seen += row[k] != -INFINITY;
    }
    buf_printf(&e->out, "softmax over the row of \xe2\x80\x9c%s\xe2\x80\x9d (subtract its max ", qtok(e, i));
    num(&e->out, mx, false);
    buf_puts(&e->out, ", then exponentiate)\nexp(");
    num(&e->out, row[j], false);
    buf_puts(&e->out, " \xe2\x88\x92 ");
    num(&e->out, mx, true);
    buf_puts(&e->out, ") / \xce\xa3 = ");
    num(&e->out, exp(row[j] - mx), false);
    buf_puts(&e->out, " / ");
    num(&e->out, sum, false);
    buf_puts(&e->out, " = ");
    num(&e->out, w, false);
    if (seen < n) buf_printf(&e->out, "\nthe %d weights of the keys it can see sum to 1", seen);
    else buf_printf(&e->out, "\nthe %d weights of this row sum to 1", n);
}

/* An output cell: the weights of its row times a value column. */
static void ex_output(Ex *e, int i, int j, double v)
{
    const Mat *W = mat_of(e, TK_WEIGHTS), *V = mat_of(e, TK_V);
    op(e, trace_ref(TK_WEIGHTS, e->head), i, -1);
    op(e, trace_ref(TK_V, e->head), -1, j);
    if (e->ts->heads > 1) buf_printf(&e->out, "head %d of %d: ", e->head, e->ts->heads);
    buf_printf(&e->out, "output[%d][%d] = \xce\xa3 weight \xc3\x97 V[key][%d]\n= ", i + 1, j + 1, j + 1);
    dot_line(&e->out, mat_row(W, i), 1, V->data + j, V->cols, W->cols, v);
}

/* A cell of the concatenation: which head it came from. */
static void ex_concat(Ex *e, int i, int j, double v)
{
    int w = e->ts->d_v, h = j / w;
    op(e, trace_ref(TK_OUTPUT, h + 1), i, j - h * w);
    buf_printf(&e->out, "concat[%d][%d] = head %d's output[%d][%d] = ", i + 1, j + 1, h + 1, i + 1, j - h * w + 1);
    num(&e->out, v, false);
    buf_printf(&e->out, "\ncolumns %d\xe2\x80\x93%d come from head %d", h * w + 1, (h + 1) * w, h + 1);
}

/* The output projection. */
static void ex_final(Ex *e, int i, int j, double v)
{
    TraceRef cr = e->ts->heads > 1 ? trace_ref(TK_CONCAT, 0) : trace_ref(TK_OUTPUT, 1);
    const Mat *C = trace_at(e->T, e->s, cr);
    const Mat *W = trace_at(e->T, e->s, trace_input_ref(e->su->output_proj));
    op(e, cr, i, -1);
    op(e, trace_input_ref(e->su->output_proj), -1, j);
    buf_printf(&e->out, "final[%d][%d] = row %d of %s \xc2\xb7 column %d of %s\n= ", i + 1, j + 1, i + 1,
               e->ts->heads > 1 ? "concat" : "output", j + 1, e->su->output_proj);
    dot_line(&e->out, mat_row(C, i), 1, W->data + j, W->cols, C->cols, v);
}

/* An entropy value: −Σ w·ln w over the keys the query can see. */
static void ex_entropy(Ex *e, int i, int j, double v)
{
    e->head = j + 1;
    const Mat *W = mat_of(e, TK_WEIGHTS);
    op(e, trace_ref(TK_WEIGHTS, e->head), i, -1);
    int n = W->cols, shown = 0, seen = 0;
    for (int k = 0; k < n; k++) seen += !masked(e, i, k);
    buf_printf(&e->out, "entropy of \xe2\x80\x9c%s\xe2\x80\x9d", qtok(e, i));
    if (e->ts->heads > 1) buf_printf(&e->out, " in head %d of %d", j + 1, e->ts->heads);
    buf_puts(&e->out, " = \xe2\x88\x92\xce\xa3 w\xc2\xb7ln w\n= \xe2\x88\x92(");
    for (int k = 0; k < n && shown < SHOWN_TERMS + (seen <= MAX_TERMS ? MAX_TERMS : 0); k++) {
        double w = mat_get(W, i, k);
        if (masked(e, i, k)) continue;
        if (shown++) buf_puts(&e->out, " + ");
        num(&e->out, w, false);
        buf_puts(&e->out, "\xc2\xb7ln ");
        num(&e->out, w, false);
    }
    if (shown < seen) buf_printf(&e->out, " + \xe2\x80\xa6 (%d terms)", seen);
    buf_puts(&e->out, ") = ");
    num(&e->out, v, false);
    buf_puts(&e->out, " nats");
    if (seen == 0) buf_puts(&e->out, "\nthe mask hides every key from this query: no weights, entropy 0");
    else buf_printf(&e->out, "\n0 if one key takes everything; at most ln %d = %.3f, when the %d key%s it can see share equally",
                    seen, log((double)seen), seen, seen == 1 ? "" : "s");
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
    e.head = ref.head > 0 ? ref.head : (ref.kind >= TK_RAW && ref.kind <= TK_OUTPUT) || e.ts->heads == 1 ? 1 : 0;
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
    case TK_FINAL: ex_final(&e, i, j, v); break;
    case TK_ENTROPY: ex_entropy(&e, i, j, v); break;
    default: buf_puts(&e.out, "?"); break;
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
