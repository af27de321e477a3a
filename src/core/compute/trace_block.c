/*
** trace_block.c: the rest of a transformer block, after (and before)
** attention (see trace_int.h).
**
** A GPT-2 block reads its input x twice: once through a layer norm, by the
** projections (`layer_norm:`), and once as it is, the residual stream that
** attention's output is added to. Then the MLP reads that stream (through
** its own norm, `mlp_norm:`) and its output is added too:
**
**     mid  = x + attention(LN1(x))            TK_MID (only with an MLP)
**     post = mid + W_out·act(W_in·LN2(mid))   TK_STREAM
**
** and the next block continues from post (`residual: yes`). Under
** `norm_order: post` (BERT, and the first Transformer) each norm follows
** its residual add instead, and the projections read x as it is:
**
**     mid  = LN1(x + attention(x))            TK_ATTN_SUM, then TK_LN
**     post = LN2(mid + W_out·act(W_in·mid))   TK_MLP_SUM, then TK_STREAM
**
** The last one
** normalises it once more and multiplies by the unembedding: a row of
** logits per token, a column per word of the vocabulary, and their
** softmax, the probabilities of the next token. Every matrix is computed in
** double precision in the order PyTorch's modules compute it.
*/
#include "trace_int.h"
#include "attn.h"
#include "core/stage/stage_table.h"
#include "core/util.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The activation of x. */
double trace_activate(Activation a, double x)
{
    switch (a) {
    case MLP_RELU: return x > 0 ? x : 0.0;
    case MLP_GELU: return attn_gelu(x);
    default: assert(a == MLP_GELU_TANH); return attn_gelu_tanh(x);
    }
}

/* What the MLP reads. */
TraceKind trace_mlp_input(const Setup *su)
{
    return su->mlp_norm.gamma && !su->post_norm ? TK_MLP_LN : TK_MID;
}

/* What the unembedding reads. */
TraceKind trace_unembed_input(const Setup *su)
{
    return su->final_norm.gamma ? TK_FINAL_LN : TK_STREAM;
}

/* Whether setup k computes the stream after it. */
bool tr_needs_stream(const Lesson *L, int k)
{
    const Setup *su = &L->setups[k];
    return su->mlp.w_in || su->unembed || su->post_norm || (k + 1 < L->nsetups && L->setups[k + 1].residual);
}

/* input @ W + b (new), b optional. */
static Mat *affine(const TraceSetup *ts, const Mat *in, const char *w, const char *b)
{
    Mat *m = attn_project(in, tr_input(ts, w));
    if (m && b) {
        Mat *t = attn_add_row(m, tr_input(ts, b));
        mat_free(m);
        m = t;
    }
    return m;
}

/* A layer norm n of x: the standardised rows (stored as hat when hat is
** not TK_COUNT) times γ plus β, stored as out. */
static const Mat *norm(TraceSetup *ts, const LayerNorm *n, const Mat *x, TraceKind hat, TraceKind out)
{
    Mat *h = attn_norm_rows(x, n->eps);
    Mat *y = attn_scale_shift(h, tr_input(ts, n->gamma), tr_input(ts, n->beta));
    if (hat != TK_COUNT) tr_put(ts, hat, 0, 0, h, true);
    else mat_free(h);
    return tr_put(ts, out, 0, 0, y, true);
}

/* `layer_norm:` before the projections. */
bool tr_layer_norm(TraceSetup *ts, const Mat *x)
{
    return x && norm(ts, &ts->su->norm, x, TK_LN_HAT, TK_LN) != NULL;
}

/* The MLP on the stream after attention (mid): its output. */
static const Mat *mlp(TraceSetup *ts, const Mat *mid)
{
    const Setup *su = ts->su;
    const Mat *in = su->mlp_norm.gamma && !su->post_norm ? norm(ts, &su->mlp_norm, mid, TK_COUNT, TK_MLP_LN) : mid;
    const Mat *pre = in ? tr_put(ts, TK_MLP_PRE, 0, 0, affine(ts, in, su->mlp.w_in, su->mlp.b_in), true) : NULL;
    if (!pre) return NULL;
    Mat *act = mat_create(pre->rows, pre->cols);
    for (long i = 0; i < (long)pre->rows * pre->cols; i++) mat_data(act)[i] = trace_activate(su->mlp.act, mat_data(pre)[i]);
    tr_put(ts, TK_MLP_ACT, 0, 0, act, true);
    return tr_put(ts, TK_MLP_OUT, 0, 0, affine(ts, act, su->mlp.w_out, su->mlp.b_out), true);
}

static bool finite_surely(const TraceSetup *ts, const Mat *in);

/* After attention: the stream, the MLP, the next token. */
bool tr_block(TraceSetup *ts, const Lesson *L, int k, const Mat *x)
{
    const Setup *su = ts->su;
    if (!tr_needs_stream(L, k)) return true;
    const Mat *out = tr_find(ts, TK_FINAL, 0, 0);
    if (!out) {
        TraceRef j = trace_joined(ts);
        out = tr_find(ts, j.kind, j.head, 0);
    }
    if (!x || !out) return false;
    const Mat *post;
    if (su->post_norm) {
        assert(su->norm.gamma);
        /* the stream starts with the positions in it, as the first Transformer adds them to the embeddings */
        const Mat *in = su->positions == POS_SINUSOIDAL ? tr_find(ts, TK_XPE, 0, 0) : x;
        const Mat *sum = in ? tr_put(ts, TK_ATTN_SUM, 0, 0, mat_add(in, out), true) : NULL;
        const Mat *mid = sum ? norm(ts, &su->norm, sum, TK_LN_HAT, TK_LN) : NULL;
        if (!su->mlp.w_in) {
            post = mid ? tr_put(ts, TK_STREAM, 0, 0, (Mat *)mid, false) : NULL;
        } else {
            const Mat *m = mid && tr_put(ts, TK_MID, 0, 0, (Mat *)mid, false) ? mlp(ts, mid) : NULL;
            const Mat *s2 = m ? tr_put(ts, TK_MLP_SUM, 0, 0, mat_add(mid, m), true) : NULL;
            post = !s2 ? NULL : su->mlp_norm.gamma ? norm(ts, &su->mlp_norm, s2, TK_COUNT, TK_STREAM)
                                                   : tr_put(ts, TK_STREAM, 0, 0, (Mat *)s2, false);
        }
    } else if (su->mlp.w_in) {
        const Mat *mid = tr_put(ts, TK_MID, 0, 0, mat_add(x, out), true), *m = mid ? mlp(ts, mid) : NULL;
        post = m ? tr_put(ts, TK_STREAM, 0, 0, mat_add(mid, m), true) : NULL;
    } else {
        post = tr_put(ts, TK_STREAM, 0, 0, mat_add(x, out), true);
    }
    if (!post) return false;
    if (!su->unembed) return true;
    const Mat *in = su->final_norm.gamma ? norm(ts, &su->final_norm, post, TK_COUNT, TK_FINAL_LN) : post;
    if (!in) return false;
    if (finite_surely(ts, in)) {
        ts->unembed_later = true;               /* a vocabulary's logits only when a stage, hover or dump asks */
        return true;
    }
    return tr_unembed(ts);
}

/* The largest |x| of m (a view's read where it is: no doubles made). */
static double max_abs(const Mat *m)
{
    if (!m->data && m->f32) return FLT_MAX;         /* a float's own bound: no pass over the model's numbers */
    double big = 0;
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++) big = fmax(big, fabs(mat_peek(m, i, j)));
    return big;
}

/* Whether in·W_U + b cannot leave the doubles' range (so its logits and
** their softmax are finite, as check_finite would ask of them after the
** run): then they can wait until asked for. A big vocabulary only: a
** lesson's small one is computed with the rest. */
static bool finite_surely(const TraceSetup *ts, const Mat *in)
{
    const Setup *su = ts->su;
    const Mat *W = tr_input(ts, su->unembed), *b = su->unembed_bias ? tr_input(ts, su->unembed_bias) : NULL;
    if (!W || W->cols < TRACE_UNEMBED_LATER) return false;
    double bound = max_abs(in) * max_abs(W) * W->rows + (b ? max_abs(b) : 0);
    return isfinite(bound) && bound < 1e300;
}

/* The logits and probabilities, now. */
bool tr_unembed(TraceSetup *ts)
{
    const Setup *su = ts->su;
    ts->unembed_later = false;
    const Mat *in = tr_find(ts, trace_unembed_input(su), 0, 0);
    const Mat *logits = in ? tr_put(ts, TK_LOGITS, 0, 0, affine(ts, in, su->unembed, su->unembed_bias), true) : NULL;
    return logits && tr_put(ts, TK_PROBS, 0, 0, attn_softmax(logits), true);
}

/* Whether column a of row ranks above column b: a larger number, or the
** same number earlier in the row. */
static bool ranks_above(const double *row, int a, int b)
{
    return row[a] > row[b] || (row[a] == row[b] && a < b);
}

/* Sift entry i of a heap of n columns down, the lowest ranked at the root. */
static void sift_down(const double *row, int *heap, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, low = i;
        if (l < n && ranks_above(row, heap[low], heap[l])) low = l;
        if (r < n && ranks_above(row, heap[low], heap[r])) low = r;
        if (low == i) return;
        int t = heap[i]; heap[i] = heap[low]; heap[low] = t;
        i = low;
    }
}

/* The columns of the k largest numbers of a row of n (ties: the first),
** into top (k of them, largest first): a heap of the k best so far, its
** lowest at the root, then sorted (n·log k: a 50,257-word row for any k). */
void trace_row_top(const double *row, int n, int k, int *top)
{
    assert(k >= 1 && k <= n);
    for (int j = 0; j < k; j++) top[j] = j;
    for (int i = k / 2 - 1; i >= 0; i--) sift_down(row, top, k, i);
    for (int j = k; j < n; j++)
        if (ranks_above(row, j, top[0])) {
            top[0] = j;
            sift_down(row, top, k, 0);
        }
    for (int m = k - 1; m > 0; m--) {         /* heap sort: the lowest goes last */
        int t = top[0]; top[0] = top[m]; top[m] = t;
        sift_down(row, top, m, 0);
    }
}

/*
** The words a next_token stage shows for k: every word among the k
** likeliest of some row, in the vocabulary's order (at most the whole
** vocabulary, LESSON_MAX_VOCAB words: never more columns than a matrix
** may have). TK_TOP_IDS holds their columns, TK_TOP_LOGITS and
** TK_TOP_PROBS those columns of the logits and probabilities.
*/
bool tr_top(TraceSetup *ts, int k)
{
    const Mat *P = tr_find(ts, TK_PROBS, 0, 0), *Lg = tr_find(ts, TK_LOGITS, 0, 0);
    if (!P || !Lg || k < 1 || k > P->cols) return false;
    int V = P->cols, *top = xmalloc(sizeof *top * (size_t)k), *w = xmalloc(sizeof *w * (size_t)V), n = 0;
    bool *in = xcalloc((size_t)V, sizeof *in);
    for (int i = 0; i < P->rows; i++) {
        trace_row_top(mat_row(P, i), V, k, top);
        for (int t = 0; t < k; t++) in[top[t]] = true;
    }
    for (int j = 0; j < V; j++) if (in[j]) w[n++] = j;
    assert(n >= k && n <= V);
    Mat *ids = mat_create(1, n), *tl = mat_create(P->rows, n), *tp = mat_create(P->rows, n);
    for (int c = 0; c < n; c++) {
        mat_data(ids)[c] = w[c];
        for (int i = 0; i < P->rows; i++) {
            mat_set(tl, i, c, mat_get(Lg, i, w[c]));
            mat_set(tp, i, c, mat_get(P, i, w[c]));
        }
    }
    free(top); free(w); free(in);
    tr_put(ts, TK_TOP_IDS, 0, k, ids, true);
    tr_put(ts, TK_TOP_LOGITS, 0, k, tl, true);
    return tr_put(ts, TK_TOP_PROBS, 0, k, tp, true) != NULL;
}
