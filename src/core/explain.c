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
    const Setup *su;
    int s;
    int head;           /* 1-based head, 0 for the whole */
    char base[48];      /* the name without "headN." */
    Buf out;
} Ex;

/* A number for the explain panel: 4 significant digits, typographic minus. */
static void num(Buf *b, double v, bool paren)
{
    char t[48];
    if (v == -INFINITY) { buf_puts(b, "\xe2\x88\x92\xe2\x88\x9e"); return; }
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

/* The matrix of this setup called name (head-qualified when a head is set). */
static const Mat *mat_of(const Ex *e, const char *name)
{
    char full[64];
    if (e->head > 0) {
        snprintf(full, sizeof full, "head%d.%s", e->head, name);
        return trace_get(e->T, e->s, full);
    }
    return trace_get(e->T, e->s, name);
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

/* Q, K, V: a projection X·W, or the input itself. */
static void ex_projection(Ex *e, const char *which, int i, int j, double v)
{
    const Operand *o = which[0] == 'Q' ? &e->su->queries : which[0] == 'K' ? &e->su->keys : &e->su->values;
    const Mat *X = trace_get(e->T, e->s, o->input);
    int col = j;
    if (e->head > 0) col += (e->head - 1) * (trace_get(e->T, e->s, which)->cols / e->su->heads);
    if (!o->weight) {
        buf_printf(&e->out, "%s = %s, so %s[%d][%d] = %s[%d][%d] = ", which, o->input, which, i + 1, j + 1, o->input, i + 1, col + 1);
        num(&e->out, v, false);
        return;
    }
    const Mat *W = trace_get(e->T, e->s, o->weight);
    if (e->head > 0) buf_printf(&e->out, "head %d: ", e->head);
    buf_printf(&e->out, "%s[%d][%d] = row %d of %s \xc2\xb7 column %d of %s\n= ", which, i + 1, j + 1, i + 1, o->input, col + 1, o->weight);
    dot_line(&e->out, mat_row(X, i), 1, W->data + col, W->cols, X->cols, v);
    if (e->head > 0) buf_printf(&e->out, "\n(head %d uses columns %d\xe2\x80\x93%d of %s)", e->head,
                                (e->head - 1) * (W->cols / e->su->heads) + 1, e->head * (W->cols / e->su->heads), o->weight);
}

/* The raw score: a dot product, or the additive form. */
static void ex_raw(Ex *e, int i, int j, double raw)
{
    const Mat *Q = mat_of(e, "Q"), *K = mat_of(e, "K");
    if (e->su->score == SCORE_ADDITIVE) {
        const Mat *W1 = trace_get(e->T, e->s, e->su->add_w1), *W2 = trace_get(e->T, e->s, e->su->add_w2);
        const Mat *vv = trace_get(e->T, e->s, e->su->add_v);
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
    buf_printf(&e->out, "q\xc2\xb7k for query \xe2\x80\x9c%s\xe2\x80\x9d and key \xe2\x80\x9c%s\xe2\x80\x9d\n= ", qtok(e, i), ktok(e, j));
    dot_line(&e->out, mat_row(Q, i), 1, mat_row(K, j), 1, Q->cols, raw);
}

/* The scaled score: raw, then the division. */
static void ex_scaled(Ex *e, int i, int j, double v)
{
    const Mat *R = mat_of(e, "raw_scores");
    double raw = mat_get(R, i, j);
    ex_raw(e, i, j, raw);
    const TraceSetup *ts = &e->T->s[e->s];
    bool scaled = e->su->score == SCORE_SCALED_DOT, custom = scaled && e->su->divisor > 0;
    double div = e->head > 0 ? ts->divisor : custom ? e->su->divisor
               : scaled ? sqrt((double)mat_of(e, "K")->cols) : 1.0;
    if (div != 1.0) {
        buf_puts(&e->out, "\n\xc3\xb7 ");
        if (custom) num(&e->out, div, false);
        else {
            int dk = (int)lround(div * div);
            buf_printf(&e->out, "\xe2\x88\x9a%d (d_k = %d, \xe2\x88\x9a%d = ", dk, dk, dk);
            num(&e->out, div, false);
            buf_puts(&e->out, ")");
        }
        buf_puts(&e->out, " = ");
        num(&e->out, raw / div, false);
    }
    if (ts->temperature != 1.0) {
        buf_puts(&e->out, "\n\xc3\xb7 temperature ");
        num(&e->out, ts->temperature, false);
        buf_puts(&e->out, " = ");
        num(&e->out, v, false);
    }
}

/* Is (i, j) masked? */
static bool masked(const Ex *e, int i, int j)
{
    const Mat *M = trace_get(e->T, e->s, "mask");
    return M && mat_get(M, i, j) == 0.0;
}

/* Why a key is hidden from a query. */
static void why_masked(Ex *e, int i, int j)
{
    if (e->su->mask == MASK_CAUSAL)
        buf_printf(&e->out, "\xe2\x80\x9c%s\xe2\x80\x9d (position %d) comes after \xe2\x80\x9c%s\xe2\x80\x9d (position %d): "
                   "a causal mask hides the future", ktok(e, j), j + 1, qtok(e, i), i + 1);
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
    if (masked(e, i, j)) {
        buf_puts(&e->out, "\xe2\x88\x92\xe2\x88\x9e: ");
        why_masked(e, i, j);
        buf_puts(&e->out, "\nexp(\xe2\x88\x92\xe2\x88\x9e) = 0, so this key's weight is exactly 0");
        return;
    }
    ex_scaled(e, i, j, v);
    buf_puts(&e->out, "\nnot masked: the score passes through");
}

/* A weight: the softmax of its row. */
static void ex_weight(Ex *e, int i, int j, double w)
{
    const Mat *S = e->su->mask != MASK_NONE ? mat_of(e, "masked_scores")
                 : mat_of(e, e->head > 0 ? "scores" : "scaled_scores");
    const double *row = mat_row(S, i);
    int n = S->cols;
    double mx = -INFINITY, sum = 0;
    for (int k = 0; k < n; k++) if (row[k] > mx) mx = row[k];
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
    for (int k = 0; k < n; k++) sum += exp(row[k] - mx);
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
    buf_printf(&e->out, "\nthe %d weights of this row sum to 1", n);
}

/* An output cell: the weighted sum of a value column. */
static void ex_output(Ex *e, int i, int j, double v)
{
    const Mat *W = mat_of(e, "weights"), *V = mat_of(e, "V");
    buf_printf(&e->out, "output[%d][%d] = \xce\xa3 weight \xc3\x97 V[key][%d]\n= ", i + 1, j + 1, j + 1);
    dot_line(&e->out, mat_row(W, i), 1, V->data + j, V->cols, W->cols, v);
}

/* A cell of the concatenation: which head it came from. */
static void ex_concat(Ex *e, int i, int j, double v)
{
    int w = trace_get(e->T, e->s, "concat")->cols / e->su->heads;
    int h = j / w;
    buf_printf(&e->out, "concat[%d][%d] = head %d's output[%d][%d] = ", i + 1, j + 1, h + 1, i + 1, j - h * w + 1);
    num(&e->out, v, false);
    buf_printf(&e->out, "\ncolumns %d\xe2\x80\x93%d come from head %d", h * w + 1, (h + 1) * w, h + 1);
}

/* The output projection. */
static void ex_final(Ex *e, int i, int j, double v)
{
    const Mat *C = trace_get(e->T, e->s, e->su->heads > 1 ? "concat" : "output");
    const Mat *W = trace_get(e->T, e->s, e->su->output_proj);
    buf_printf(&e->out, "final[%d][%d] = row %d of %s \xc2\xb7 column %d of %s\n= ", i + 1, j + 1, i + 1,
               e->su->heads > 1 ? "concat" : "output", j + 1, e->su->output_proj);
    dot_line(&e->out, mat_row(C, i), 1, W->data + j, W->cols, C->cols, v);
}

/* An entropy value. */
static void ex_entropy(Ex *e, int i, int j, double v)
{
    char name[48];
    if (e->su->heads > 1) snprintf(name, sizeof name, "head%d.weights", j + 1);
    else snprintf(name, sizeof name, "weights");
    const Mat *W = trace_get(e->T, e->s, name);
    int n = W->cols, shown = n <= MAX_TERMS ? n : SHOWN_TERMS;
    buf_printf(&e->out, "entropy of \xe2\x80\x9c%s\xe2\x80\x9d", qtok(e, i));
    if (e->su->heads > 1) buf_printf(&e->out, " in head %d", j + 1);
    buf_puts(&e->out, " = \xe2\x88\x92\xce\xa3 w\xc2\xb7ln w\n= \xe2\x88\x92(");
    for (int k = 0; k < shown; k++) {
        double w = mat_get(W, i, k);
        if (k) buf_puts(&e->out, " + ");
        num(&e->out, w, false);
        buf_puts(&e->out, "\xc2\xb7ln ");
        num(&e->out, w, false);
    }
    if (shown < n) buf_printf(&e->out, " + \xe2\x80\xa6 (%d terms)", n);
    buf_puts(&e->out, ") = ");
    num(&e->out, v, false);
    buf_printf(&e->out, " nats\n0 if one key takes everything; at most ln %d = %.3f when all share equally", n, log((double)n));
}

/* Explain one cell. */
char *explain_cell(const Lesson *L, const Trace *T, int setup, const char *matrix, int i, int j)
{
    const Mat *m = trace_get(T, setup, matrix);
    if (!L || !m || setup >= L->nsetups || i < 0 || j < 0 || i >= m->rows || j >= m->cols) return NULL;
    Ex e;
    memset(&e, 0, sizeof e);
    e.L = L;
    e.T = T;
    e.s = setup;
    e.su = &L->setups[setup];
    const char *dot = strchr(matrix, '.');
    if (!strncmp(matrix, "head", 4) && dot) {
        e.head = atoi(matrix + 4);
        snprintf(e.base, sizeof e.base, "%s", dot + 1);
    } else {
        snprintf(e.base, sizeof e.base, "%s", matrix);
    }
    double v = mat_get(m, i, j);
    const char *b = e.base;
    if (trace_is_input(T, setup, matrix)) ex_input(&e, matrix, i, j, v);
    else if (!strcmp(b, "Q") || !strcmp(b, "K") || !strcmp(b, "V")) ex_projection(&e, b, i, j, v);
    else if (!strcmp(b, "raw_scores")) ex_raw(&e, i, j, v);
    else if (!strcmp(b, "scaled_scores") || !strcmp(b, "scores")) ex_scaled(&e, i, j, v);
    else if (!strcmp(b, "mask")) ex_mask(&e, i, j, v);
    else if (!strcmp(b, "masked_scores")) ex_masked(&e, i, j, v);
    else if (!strcmp(b, "weights")) ex_weight(&e, i, j, v);
    else if (!strcmp(b, "output")) ex_output(&e, i, j, v);
    else if (!strcmp(b, "concat")) ex_concat(&e, i, j, v);
    else if (!strcmp(b, "final")) ex_final(&e, i, j, v);
    else if (!strcmp(b, "entropy")) ex_entropy(&e, i, j, v);
    else { buf_printf(&e.out, "%s[%d][%d] = ", matrix, i + 1, j + 1); num(&e.out, v, false); }
    return buf_take(&e.out);
}
