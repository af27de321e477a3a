/*
** attn.h: the operations of attention, each one small and exact.
**
** Conventions: a row is a token. Q is n x d_k (one query per row), K is m x d_k,
** V is m x d_v; weights are n x m and every row is a probability distribution
** over the keys. Masks are 0/1 matrices where 1 means "may attend" and 0 means
** "blocked"; masked scores are -∞ (never a large negative stand-in), and softmax
** turns them into exact zeros. Functions return new matrices (caller frees) or
** NULL when shapes do not fit (see mat.h).
*/
#ifndef ATTNLAB_ATTN_H
#define ATTNLAB_ATTN_H

#include <stdbool.h>
#include "mat.h"

/* Raw similarity scores Q·Kᵀ (n x m). NULL if Q and K widths differ. */
Mat *attn_scores(const Mat *Q, const Mat *K);
/* Scores divided by divisor (√d_k, a custom number, or a temperature). */
Mat *attn_scale(const Mat *S, double divisor);
/* The usual divisor √d_k. */
double attn_sqrt_dk(int d_k);
/* The causal mask for n queries over m keys: 1 where key j <= query i. */
Mat *attn_causal_mask(int n, int m);
/* Convert a mask in the "1 means blocked" convention (additive, seed 003's
** scores + mask * -1e9) to ours, where 1 means "may attend". */
Mat *attn_mask_from_blocked(const Mat *blocked);
/* Scores with -∞ wherever mask is 0. NULL if shapes differ. */
Mat *attn_apply_mask(const Mat *S, const Mat *mask);
/* Row softmax, stable (subtracts the row maximum). -∞ gives exactly 0; a row
** whose every entry is -∞ gives all zeros; +∞ entries share the row equally. */
Mat *attn_softmax(const Mat *S);
/* The attended output W·V (n x d_v). NULL if W's width differs from V's rows. */
Mat *attn_weighted_sum(const Mat *W, const Mat *V);
/* A projection X·W (queries, keys, values, or the output projection W_o). */
Mat *attn_project(const Mat *X, const Mat *W);
/* Head h (0-based) of `heads`: columns [h·w, (h+1)·w) with w = cols/heads.
** NULL if heads does not divide the width. */
Mat *attn_head_slice(const Mat *M, int heads, int h);
/* The heads' outputs side by side (n x Σ widths). */
Mat *attn_concat_heads(Mat *const *outs, int heads);
/* Additive (Bahdanau) scores: S[i][j] = vᵀ·tanh(q_i·W1 + k_j·W2), with
** W1 d_q x u, W2 d_k x u, and v holding u values (1 x u or u x 1). */
Mat *attn_additive_scores(const Mat *Q, const Mat *K, const Mat *W1, const Mat *W2, const Mat *v);
/* Entropy in nats of each row of weights, -Σ w·ln w with 0·ln 0 = 0 (n x 1). */
Mat *attn_entropy(const Mat *W);

/* ---- masks built from parts (1 = may attend) ---- */
/* The window part of a sliding-window mask: 1 where i − j < w (a key at
** most w − 1 places back; later keys are left to the causal part). */
Mat *attn_window_mask(int n, int w);
/* The prefix part of a prefix-LM mask: 1 where both i and j are below p. */
Mat *attn_prefix_mask(int n, int p);
/* The padding part: 0 in the rows of pad queries and the columns of pad
** keys (qpad[i], kpad[j] true for padding), 1 elsewhere. */
Mat *attn_padding_mask(const bool *qpad, int nq, const bool *kpad, int nk);
/* Elementwise and (both) or or (either) of two 0/1 masks of one shape. */
Mat *attn_mask_and(const Mat *a, const Mat *b);
Mat *attn_mask_or(const Mat *a, const Mat *b);

/* ---- positions ---- */
/* The sinusoidal encoding of "Attention Is All You Need" (n x d):
** PE[p][2i] = sin(p / 10000^(2i/d)), PE[p][2i+1] = cos(the same). */
Mat *attn_sinusoidal(int n, int d);
/* RoPE's angles (n x d/2): angle[p][i] = p·θ_i with θ_i = base^(−2i/d). */
Mat *attn_rope_angles(int n, int d, double base);
/* Rotate each pair (2i, 2i+1) of row p of M by angle[p][i]:
** (x, y) -> (x·cos a − y·sin a, x·sin a + y·cos a). NULL if shapes differ. */
Mat *attn_rope(const Mat *M, const Mat *angles);
/* ALiBi's slope for head h of H (1-based), as the paper assigns them:
** 2^(−8h/H) when H is a power of two; otherwise the slopes of the largest
** power of two P below H, then every other slope of 2P (see attn.c). */
double attn_alibi_slope(int h, int heads);
/* The slope as 2^(−8·num/den): (h, H) for a power of two, else (h, P) for
** h ≤ P and (2(h − P) − 1, 2P) after. */
void attn_alibi_exponent(int h, int heads, int *num, int *den);
/* ALiBi's bias (n x m): −slope·|i − j|. */
Mat *attn_alibi_bias(int n, int m, double slope);

/* ---- the rest of a transformer block ---- */
/* M plus the row b added to every row (a bias). NULL if b is not one row of
** M's width. */
Mat *attn_add_row(const Mat *M, const Mat *b);
/* Each row standardised as nn.LayerNorm does before its γ and β:
** (x − mean)/√(var + eps), var the mean of (x − mean)² (not n − 1). */
Mat *attn_norm_rows(const Mat *X, double eps);
/* The mean and variance of one row of n numbers, as attn_norm_rows takes them. */
void attn_row_moments(const double *x, int n, double *mean, double *var);
/* x̂·γ + β, column by column (γ and β one row each). NULL if they do not fit. */
Mat *attn_scale_shift(const Mat *Xhat, const Mat *gamma, const Mat *beta);
/* GELU with erf, 0.5·x·(1 + erf(x/√2)) (nn.GELU()), and with tanh,
** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (GPT-2's, nn.GELU(approximate='tanh')). */
double attn_gelu(double x);
double attn_gelu_tanh(double x);

/* ---- FlashAttention's online softmax ---- */
/* The states after each block of keys: for nb blocks of `block` keys,
** max, sum and rescale are n x nb (column b: after block b), acc is
** n x nb·d_v (block b's accumulator in columns b·d_v …), out n x d_v. */
typedef struct OnlineSoftmax {
    Mat *max;       /* running maximum m (−∞ until a visible key is seen) */
    Mat *sum;       /* running sum ℓ of exp(s − m) */
    Mat *rescale;   /* exp(m_old − m_new): how much the old sum shrinks */
    Mat *acc;       /* running output Σ exp(s − m)·v ÷ ℓ, a weighted average of the values seen */
    Mat *out;       /* acc after the last block (0 for a row that sees no key) */
} OnlineSoftmax;
/* Softmax(S)·V in blocks of keys, never holding a whole row of weights.
** False (os zeroed) if shapes do not fit or block < 1. */
bool attn_online_softmax(const Mat *S, const Mat *V, int block, OnlineSoftmax *os);
/* Release the matrices of an OnlineSoftmax. */
void attn_online_free(OnlineSoftmax *os);

#endif
