/*
** attn.c: attention, one operation at a time. Nothing here allocates behind
** the caller's back beyond the returned matrix, and no result is ever NaN for
** finite or ±∞ inputs: softmax handles -∞ (masked), all-masked rows and +∞.
*/
#include "attn.h"

#include <math.h>
#include <stddef.h>

/* Q·Kᵀ without building Kᵀ: each score is a dot product of two rows. */
Mat *attn_scores(const Mat *Q, const Mat *K)
{
    if (Q->cols != K->cols) {
        mat_fail("queries are %d wide but keys are %d wide", Q->cols, K->cols);
        return NULL;
    }
    Mat *S = mat_create(Q->rows, K->rows);
    for (int i = 0; i < Q->rows; i++) {
        const double *q = mat_row(Q, i);
        for (int j = 0; j < K->rows; j++) {
            const double *k = mat_row(K, j);
            double s = 0.0;
            for (int d = 0; d < Q->cols; d++) s += q[d] * k[d];
            mat_set(S, i, j, s);
        }
    }
    return S;
}

/* Elementwise division (not multiplication by 1/divisor, to match numpy's
** `scores / np.sqrt(d_k)` to the last bit). */
Mat *attn_scale(const Mat *S, double divisor)
{
    Mat *r = mat_copy(S);
    for (long i = 0; i < (long)S->rows * S->cols; i++) r->data[i] = S->data[i] / divisor;
    return r;
}

/* √d_k. */
double attn_sqrt_dk(int d_k)
{
    return sqrt((double)d_k);
}

/* Lower-triangular ones. */
Mat *attn_causal_mask(int n, int m)
{
    Mat *M = mat_create(n, m);
    if (!M) return NULL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m && j <= i; j++) mat_set(M, i, j, 1.0);
    return M;
}

/* 1 = blocked  ->  1 = may attend. Any nonzero counts as blocked. */
Mat *attn_mask_from_blocked(const Mat *blocked)
{
    Mat *M = mat_create(blocked->rows, blocked->cols);
    for (long i = 0; i < (long)M->rows * M->cols; i++) M->data[i] = blocked->data[i] != 0.0 ? 0.0 : 1.0;
    return M;
}

/* -∞ where the mask is 0. */
Mat *attn_apply_mask(const Mat *S, const Mat *mask)
{
    if (!mat_same_shape(S, mask)) {
        mat_fail("the mask is %dx%d but the scores are %dx%d", mask->rows, mask->cols, S->rows, S->cols);
        return NULL;
    }
    Mat *r = mat_copy(S);
    for (long i = 0; i < (long)S->rows * S->cols; i++)
        if (mask->data[i] == 0.0) r->data[i] = -INFINITY;
    return r;
}

/*
** Stable softmax of one row. Subtracting the row maximum keeps every exponent
** <= 0, so nothing overflows even for logits of 1e30. Masked entries (-∞)
** contribute exp(-∞) = 0 exactly. Two corner cases would otherwise give NaN:
** a row that is all -∞ (every key masked) has no maximum to subtract, and we
** return zeros: the query attends to nothing. A row containing +∞ splits all
** its weight equally among the +∞ entries, the limit of softmax.
*/
static void softmax_row(const double *in, double *out, int n)
{
    double mx = -INFINITY;
    for (int j = 0; j < n; j++) if (in[j] > mx) mx = in[j];
    if (mx == -INFINITY) {
        for (int j = 0; j < n; j++) out[j] = 0.0;
        return;
    }
    if (mx == INFINITY) {
        int count = 0;
        for (int j = 0; j < n; j++) count += in[j] == INFINITY;
        for (int j = 0; j < n; j++) out[j] = in[j] == INFINITY ? 1.0 / count : 0.0;
        return;
    }
    double sum = 0.0;
    for (int j = 0; j < n; j++) {
        out[j] = exp(in[j] - mx);
        sum += out[j];
    }
    for (int j = 0; j < n; j++) out[j] /= sum;
}

/* Softmax of every row. */
Mat *attn_softmax(const Mat *S)
{
    Mat *W = mat_create(S->rows, S->cols);
    for (int i = 0; i < S->rows; i++) softmax_row(mat_row(S, i), mat_row(W, i), S->cols);
    return W;
}

/* Weights times values. */
Mat *attn_weighted_sum(const Mat *W, const Mat *V)
{
    return mat_matmul(W, V);
}

/* X·W. */
Mat *attn_project(const Mat *X, const Mat *W)
{
    return mat_matmul(X, W);
}

/* One head's column block. */
Mat *attn_head_slice(const Mat *M, int heads, int h)
{
    if (heads < 1 || M->cols % heads != 0 || h < 0 || h >= heads) {
        mat_fail("cannot take head %d of %d from a matrix %d wide", h + 1, heads, M->cols);
        return NULL;
    }
    int w = M->cols / heads;
    return mat_col_block(M, h * w, w);
}

/* Heads side by side. */
Mat *attn_concat_heads(Mat *const *outs, int heads)
{
    return mat_hconcat(outs, heads);
}

/* Bahdanau: project every query and key once, then score each pair. */
Mat *attn_additive_scores(const Mat *Q, const Mat *K, const Mat *W1, const Mat *W2, const Mat *v)
{
    int u = v->rows * v->cols;
    if ((v->rows != 1 && v->cols != 1) || W1->cols != u || W2->cols != u) {
        mat_fail("additive scoring needs W1 and W2 %d wide and v a vector (got %dx%d, %dx%d, %dx%d)",
                 u, W1->rows, W1->cols, W2->rows, W2->cols, v->rows, v->cols);
        return NULL;
    }
    Mat *qp = mat_matmul(Q, W1);
    Mat *kp = qp ? mat_matmul(K, W2) : NULL;
    if (!qp || !kp) {
        mat_free(qp);
        return NULL;
    }
    Mat *S = mat_create(Q->rows, K->rows);
    for (int i = 0; i < Q->rows; i++) {
        const double *a = mat_row(qp, i);
        for (int j = 0; j < K->rows; j++) {
            const double *b = mat_row(kp, j);
            double s = 0.0;
            for (int t = 0; t < u; t++) s += v->data[t] * tanh(a[t] + b[t]);
            mat_set(S, i, j, s);
        }
    }
    mat_free(qp);
    mat_free(kp);
    return S;
}

/* -Σ w ln w per row; zero weights (masked keys) contribute nothing. */
Mat *attn_entropy(const Mat *W)
{
    Mat *E = mat_create(W->rows, 1);
    for (int i = 0; i < W->rows; i++) {
        const double *w = mat_row(W, i);
        double h = 0.0;
        for (int j = 0; j < W->cols; j++)
            if (w[j] > 0.0) h -= w[j] * log(w[j]);
        mat_set(E, i, 0, h == 0.0 ? 0.0 : h);
    }
    return E;
}
