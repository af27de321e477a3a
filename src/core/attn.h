/*
** attn.h: the operations of attention, each one small and exact.
**
** Conventions: a row is a token. Q is n x d_k (one query per row), K is m x d_k,
** V is m x d_v; weights are n x m and every row is a probability distribution
** over the keys. Masks are 0/1 matrices where 1 means "may attend" and 0 means
** "blocked"; masked scores are -∞ (never a large negative stand-in), and softmax
** turns them into exact zeros. Functions return new matrices (caller frees) or
** NULL with the reason in mat_error() when shapes do not fit.
*/
#ifndef ATTNLAB_ATTN_H
#define ATTNLAB_ATTN_H

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

#endif
