/*
** attn.c: attention, one operation at a time. Nothing here allocates behind
** the caller's back beyond the returned matrix, and no result is ever NaN for
** finite or ±∞ inputs: softmax handles -∞ (masked), all-masked rows and +∞.
*/
#include "attn.h"
#include "core/util.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Q·Kᵀ: each score the dot product of a query and a key, summed in order. */
Mat *attn_scores(const Mat *Q, const Mat *K)
{
    if (Q->cols != K->cols) return NULL;     /* queries and keys of different widths */
    return mat_matmul_t(Q, K);
}

/* Elementwise division (not multiplication by 1/divisor, to match numpy's
** `scores / np.sqrt(d_k)` to the last bit). */
Mat *attn_scale(const Mat *S, double divisor)
{
    Mat *r = mat_copy(S);
    for (long i = 0; i < (long)S->rows * S->cols; i++) mat_data(r)[i] = mat_data(S)[i] / divisor;
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
    for (int i = 0; i < n; i++) {
        double *row = mat_row(M, i);
        for (int j = 0; j < m && j <= i; j++) row[j] = 1.0;
    }
    return M;
}

/* 1 = blocked  ->  1 = may attend. Any nonzero counts as blocked. */
Mat *attn_mask_from_blocked(const Mat *blocked)
{
    Mat *M = mat_create(blocked->rows, blocked->cols);
    for (long i = 0; i < (long)M->rows * M->cols; i++) mat_data(M)[i] = mat_data(blocked)[i] != 0.0 ? 0.0 : 1.0;
    return M;
}

/* -∞ where the mask is 0. */
Mat *attn_apply_mask(const Mat *S, const Mat *mask)
{
    if (!mat_same_shape(S, mask)) return NULL;     /* a mask of another shape than the scores */
    Mat *r = mat_copy(S);
    for (long i = 0; i < (long)S->rows * S->cols; i++)
        if (mat_data(mask)[i] == 0.0) mat_data(r)[i] = -INFINITY;
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

/* A bias row added to every row. */
Mat *attn_add_row(const Mat *M, const Mat *b)
{
    if (b->rows != 1 || b->cols != M->cols) return NULL;     /* not one row of M's width */
    Mat *r = mat_copy(M);
    for (int i = 0; i < M->rows; i++) {
        double *out = mat_row(r, i);
        for (int j = 0; j < M->cols; j++) out[j] += mat_data(b)[j];
    }
    return r;
}

/* The mean of a row, then the mean of the squared differences from it. */
void attn_row_moments(const double *x, int n, double *mean, double *var)
{
    double s = 0, q = 0;
    for (int j = 0; j < n; j++) s += x[j];
    *mean = s / n;
    for (int j = 0; j < n; j++) q += (x[j] - *mean) * (x[j] - *mean);
    *var = q / n;
}

/* Rows standardised. */
Mat *attn_norm_rows(const Mat *X, double eps)
{
    Mat *r = mat_create(X->rows, X->cols);
    for (int i = 0; i < X->rows; i++) {
        double mean, var;
        const double *x = mat_row(X, i);
        double *out = mat_row(r, i);
        attn_row_moments(x, X->cols, &mean, &var);
        double sd = sqrt(var + eps);
        for (int j = 0; j < X->cols; j++) out[j] = (x[j] - mean) / sd;
    }
    return r;
}

/* γ and β applied column by column. */
Mat *attn_scale_shift(const Mat *Xhat, const Mat *gamma, const Mat *beta)
{
    if (gamma->rows != 1 || beta->rows != 1 || gamma->cols != Xhat->cols || beta->cols != Xhat->cols) return NULL;
    Mat *r = mat_create(Xhat->rows, Xhat->cols);
    for (int i = 0; i < Xhat->rows; i++) {
        const double *x = mat_row(Xhat, i);
        double *out = mat_row(r, i);
        for (int j = 0; j < Xhat->cols; j++) out[j] = x[j] * mat_data(gamma)[j] + mat_data(beta)[j];
    }
    return r;
}

/* GELU, exact. */
double attn_gelu(double x)
{
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

/* GELU through tanh (GPT-2). */
double attn_gelu_tanh(double x)
{
    const double pi = 3.14159265358979323846;
    return 0.5 * x * (1.0 + tanh(sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
}

/* One head's column block. */
Mat *attn_head_slice(const Mat *M, int heads, int h)
{
    if (heads < 1 || M->cols % heads != 0 || h < 0 || h >= heads) return NULL;     /* no such head, or heads that do not divide the width */
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
    if ((v->rows != 1 && v->cols != 1) || W1->cols != u || W2->cols != u) return NULL;     /* W1, W2 not as wide as v, or v not a vector */
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
            for (int t = 0; t < u; t++) s += mat_data(v)[t] * tanh(a[t] + b[t]);
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

/* i − j < w. */
Mat *attn_window_mask(int n, int w)
{
    Mat *M = mat_create(n, n);
    if (!M) return NULL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) mat_set(M, i, j, i - j < w ? 1.0 : 0.0);
    return M;
}

/* The top-left p x p block. */
Mat *attn_prefix_mask(int n, int p)
{
    Mat *M = mat_create(n, n);
    if (!M) return NULL;
    for (int i = 0; i < n && i < p; i++)
        for (int j = 0; j < n && j < p; j++) mat_set(M, i, j, 1.0);
    return M;
}

/* Neither the query nor the key is padding. */
Mat *attn_padding_mask(const bool *qpad, int nq, const bool *kpad, int nk)
{
    Mat *M = mat_create(nq, nk);
    if (!M) return NULL;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) mat_set(M, i, j, qpad[i] || kpad[j] ? 0.0 : 1.0);
    return M;
}

/* a and b, or a or b, elementwise (any nonzero counts as 1). */
static Mat *mask_combine(const Mat *a, const Mat *b, bool both)
{
    if (!mat_same_shape(a, b)) return NULL;     /* masks of different shapes */
    Mat *M = mat_create(a->rows, a->cols);
    for (long i = 0; i < (long)a->rows * a->cols; i++) {
        bool x = mat_data(a)[i] != 0.0, y = mat_data(b)[i] != 0.0;
        mat_data(M)[i] = (both ? x && y : x || y) ? 1.0 : 0.0;
    }
    return M;
}

/* Both masks allow. */
Mat *attn_mask_and(const Mat *a, const Mat *b) { return mask_combine(a, b, true); }
/* Either mask allows. */
Mat *attn_mask_or(const Mat *a, const Mat *b) { return mask_combine(a, b, false); }

/*
** The sinusoidal encoding. Column pairs share a frequency 1/10000^(2i/d),
** from one turn per 2π positions down to one per 2π·10000: every position
** gets a distinct pattern, and PE[p + k] is a fixed rotation of PE[p].
** The exponent is computed as numpy writes it, 2i/d, then pow.
*/
Mat *attn_sinusoidal(int n, int d)
{
    Mat *M = mat_create(n, d);
    if (!M) return NULL;
    for (int p = 0; p < n; p++)
        for (int c = 0; c < d; c++) {
            int i2 = c - c % 2;
            double a = p / pow(10000.0, (double)i2 / d);
            mat_set(M, p, c, c % 2 ? cos(a) : sin(a));
        }
    return M;
}

/* p·θ_i with θ_i = base^(−2i/d). */
Mat *attn_rope_angles(int n, int d, double base)
{
    Mat *M = mat_create(n, d / 2);
    if (!M) return NULL;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < d / 2; i++) mat_set(M, p, i, p * pow(base, -2.0 * i / d));
    return M;
}

/* Turn each pair of a row by its angle. */
Mat *attn_rope(const Mat *M, const Mat *angles)
{
    if (M->cols % 2 || angles->cols != M->cols / 2 || angles->rows != M->rows) return NULL;     /* angles that do not fit the pairs of M */
    Mat *R = mat_create(M->rows, M->cols);
    for (int p = 0; p < M->rows; p++)
        for (int i = 0; i < M->cols / 2; i++) {
            double a = mat_get(angles, p, i), c = cos(a), s = sin(a);
            double x = mat_get(M, p, 2 * i), y = mat_get(M, p, 2 * i + 1);
            mat_set(R, p, 2 * i, x * c - y * s);
            mat_set(R, p, 2 * i + 1, x * s + y * c);
        }
    return R;
}

/*
** The ALiBi paper's slopes (Press et al., and its code's get_slopes): for
** H a power of two, the geometric sequence 2^(−8h/H). For other H, the
** first P = the largest power of two below H heads take P's slopes, and
** the other H − P take every other slope of 2P heads, the odd ones:
** 2^(−8(2k − 1)/2P) for k = 1 … H − P. Six heads: 1/4, 1/16, 1/64, 1/256,
** then 1/2 and 1/8.
*/
void attn_alibi_exponent(int h, int heads, int *num, int *den)
{
    assert(heads >= 1 && h >= 1 && h <= heads);
    int p = 1;
    while (2 * p <= heads) p *= 2;
    if (h <= p) {
        *num = h;
        *den = p;
    } else {
        *num = 2 * (h - p) - 1;
        *den = 2 * p;
    }
}

/* 2^(−8·num/den) of attn_alibi_exponent. */
double attn_alibi_slope(int h, int heads)
{
    int num, den;
    attn_alibi_exponent(h, heads, &num, &den);
    return pow(2.0, -8.0 * num / den);
}

/* −slope·|i − j|. */
Mat *attn_alibi_bias(int n, int m, double slope)
{
    Mat *B = mat_create(n, m);
    if (!B) return NULL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) mat_set(B, i, j, -slope * fabs((double)(i - j)));
    return B;
}

/* Release an OnlineSoftmax's matrices. */
void attn_online_free(OnlineSoftmax *os)
{
    mat_free(os->max); mat_free(os->sum); mat_free(os->rescale); mat_free(os->acc); mat_free(os->out);
    os->max = os->sum = os->rescale = os->acc = os->out = NULL;
}

/* One block of keys [j0, j1) for row i: update m, ℓ and the running
** output acc (d values) in place; returns the rescale factor. */
static double online_block(const double *s, const Mat *V, int j0, int j1, double *m, double *l, double *acc)
{
    double mx = *m;
    for (int j = j0; j < j1; j++) if (s[j] > mx) mx = s[j];
    /* nothing visible yet: nothing to rescale (and exp(−∞ − −∞) is NaN) */
    double r = mx == -INFINITY ? 1.0 : exp(*m - mx);
    double old = *l * r, lnew = old;
    for (int j = j0; j < j1; j++)
        if (s[j] != -INFINITY) lnew += exp(s[j] - mx);
    *m = mx;
    *l = lnew;
    if (lnew == 0.0) return r;              /* still nothing seen: acc stays 0 */
    /* acc = (acc·ℓ_old·r + Σ e·v) ÷ ℓ, as old/ℓ·acc + Σ (e/ℓ)·v: the factors
    ** sum to 1, so no partial sum goes past the largest |v| */
    double keep = old / lnew;
    for (int c = 0; c < V->cols; c++) acc[c] *= keep;
    for (int j = j0; j < j1; j++) {
        if (s[j] == -INFINITY) continue;
        double w = exp(s[j] - mx) / lnew;
        const double *v = mat_row(V, j);
        for (int c = 0; c < V->cols; c++) acc[c] += w * v[c];
    }
    return r;
}

/*
** FlashAttention's softmax, one block of keys at a time. Each row keeps a
** running maximum m, a running sum ℓ of exp(s − m) and the running output
** acc: the values seen so far, weighted by exp(s − m) ÷ ℓ. When a block
** raises the maximum from m_old to m_new, the sum so far was computed
** against the old maximum, so it is multiplied by r = exp(m_old − m_new)
** before the block's own terms are added; acc, already divided by the old
** ℓ, is multiplied by ℓ_old·r ÷ ℓ_new. Keeping acc divided by ℓ, as
** FlashAttention does, keeps it a weighted average of values: it cannot
** overflow when softmax(S)·V does not. After the last block, acc is
** softmax(S)·V, up to rounding.
*/
bool attn_online_softmax(const Mat *S, const Mat *V, int block, OnlineSoftmax *os)
{
    memset(os, 0, sizeof *os);
    if (block < 1 || S->cols != V->rows) return false;     /* no block, or values that are not one per key */
    int n = S->rows, nk = S->cols, d = V->cols, nb = (nk + block - 1) / block;
    os->max = mat_create(n, nb);
    os->sum = mat_create(n, nb);
    os->rescale = mat_create(n, nb);
    os->acc = mat_create(n, nb * d);
    os->out = mat_create(n, d);
    if (!os->max || !os->sum || !os->rescale || !os->acc || !os->out) {
        attn_online_free(os);
        return false;
    }
    double *acc = xcalloc((size_t)(d ? d : 1), sizeof *acc);
    for (int i = 0; i < n; i++) {
        double m = -INFINITY, l = 0.0;
        for (int c = 0; c < d; c++) acc[c] = 0.0;
        for (int b = 0; b < nb; b++) {
            int j1 = (b + 1) * block < nk ? (b + 1) * block : nk;
            mat_set(os->rescale, i, b, online_block(mat_row(S, i), V, b * block, j1, &m, &l, acc));
            mat_set(os->max, i, b, m);
            mat_set(os->sum, i, b, l);
            memcpy(mat_row(os->acc, i) + (size_t)b * d, acc, sizeof *acc * (size_t)d);
        }
        memcpy(mat_row(os->out, i), acc, sizeof *acc * (size_t)d);
    }
    free(acc);
    return true;
}
