/*
** test_attn.c: attention operations against the seeds' numbers
** (reference/seed_tables.json, recomputed with numpy) and the invariants
** that must hold for any input.
*/
#include "suites.h"
#include "tjson.h"
#include "core/compute/attn.h"
#include "core/compute/rng.h"
#include "core/compute/trace.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static Tj *tables;

/* Load the seed tables. */
static void load_tables(void)
{
    tables = tjson_load("reference/seed_tables.json");
    ck_assert_ptr_nonnull(tables);
}

/* Free them. */
static void free_tables(void)
{
    tjson_free(tables);
    tables = NULL;
}

/* One seed's table. */
static Tj *seed_table(const char *prefix)
{
    for (int i = 0; i < tables->n; i++)
        if (!strncmp(tables->keys[i], prefix, 3)) return tables->items[i];
    ck_abort_msg("no table for seed %s", prefix);
    return NULL;
}

/* A matrix from a table, owned by the caller. */
static Mat *ref(Tj *t, const char *key)
{
    Mat *m = tjson_mat(tjson_get(t, key));
    ck_assert_msg(m != NULL, "reference %s missing", key);
    return m;
}

/* Scaled dot-product attention the way the seeds do it. */
static void sdpa(const Mat *Q, const Mat *K, const Mat *V, const Mat *mask, Mat **W_out, Mat **O_out)
{
    Mat *S = attn_scores(Q, K);
    Mat *Ss = attn_scale(S, attn_sqrt_dk(K->cols));
    Mat *Sm = mask ? attn_apply_mask(Ss, mask) : mat_copy(Ss);
    *W_out = attn_softmax(Sm);
    if (O_out) *O_out = attn_weighted_sum(*W_out, V);
    mat_free(S); mat_free(Ss); mat_free(Sm);
}

START_TEST(test_seed004_randint_weights)
{
    Tj *t = seed_table("004");
    Rng r;
    rng_seed(&r, 42);
    Mat *W[3];
    for (int k = 0; k < 3; k++) {
        W[k] = mat_create(3, 3);
        rng_fill_randint(&r, W[k], 0, 3);
    }
    Mat *wq = ref(t, "W_Q"), *wk = ref(t, "W_K"), *wv = ref(t, "W_V");
    ck_assert_mat_near(W[0], wq, 0);
    ck_assert_mat_near(W[1], wk, 0);
    ck_assert_mat_near(W[2], wv, 0);
    Mat *X = ref(t, "words");
    Mat *Q = attn_project(X, W[0]), *K = attn_project(X, W[1]), *V = attn_project(X, W[2]);
    Mat *rq = ref(t, "Q"), *rk = ref(t, "K"), *rv = ref(t, "V");
    ck_assert_mat_near(Q, rq, 0);
    ck_assert_mat_near(K, rk, 0);
    ck_assert_mat_near(V, rv, 0);
    Mat *S = attn_scores(Q, K), *rs = ref(t, "scores");
    ck_assert_mat_near(S, rs, 0);
    Mat *Wt, *O;
    sdpa(Q, K, V, NULL, &Wt, &O);
    Mat *rw = ref(t, "weights"), *ro = ref(t, "attention");
    ck_assert_mat_near(Wt, rw, 1e-9);
    ck_assert_mat_near(O, ro, 1e-9);
    for (int k = 0; k < 3; k++) mat_free(W[k]);
    Mat *all[] = { wq, wk, wv, X, Q, K, V, rq, rk, rv, S, rs, Wt, O, rw, ro };
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) mat_free(all[k]);
}
END_TEST

START_TEST(test_seed002_onehot_and_printed_qkv)
{
    Tj *t = seed_table("002");
    /* Step 1-4: one-hot words attend to each other with unscaled dot products */
    Mat *X = mat_create(3, 4);
    for (int i = 0; i < 3; i++) mat_set(X, i, i, 1.0);
    Mat *re = ref(t, "embeddings");
    ck_assert_mat_near(X, re, 0);
    Mat *S = attn_scores(X, X), *rs = ref(t, "raw_scores");
    ck_assert_mat_near(S, rs, 0);
    Mat *W = attn_softmax(S), *rw = ref(t, "weights");
    ck_assert_mat_near(W, rw, 1e-9);
    Mat *A = attn_weighted_sum(W, X), *ra = ref(t, "attended");
    ck_assert_mat_near(A, ra, 1e-9);
    /* Step 7-8: the printed Q, K, V with scaling by sqrt(4) */
    Mat *Q = ref(t, "Q"), *K = ref(t, "K"), *V = ref(t, "V");
    Mat *S2 = attn_scores(Q, K), *Ss = attn_scale(S2, attn_sqrt_dk(4)), *rss = ref(t, "scaled_scores");
    ck_assert_mat_near(Ss, rss, 1e-12);
    Mat *W2, *O2;
    sdpa(Q, K, V, NULL, &W2, &O2);
    Mat *rqw = ref(t, "qkv_weights"), *rqo = ref(t, "qkv_output");
    ck_assert_mat_near(W2, rqw, 1e-9);
    ck_assert_mat_near(O2, rqo, 1e-9);
    Mat *all[] = { X, re, S, rs, W, rw, A, ra, Q, K, V, S2, Ss, rss, W2, O2, rqw, rqo };
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) mat_free(all[k]);
}
END_TEST

/* Seed 001's X: sin(k·(i+1)·0.1) + 0.1·randn, row by row, after seed 42. */
static Mat *seed001_x(Rng *r)
{
    Mat *X = mat_create(8, 64);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 64; k++)
            mat_set(X, i, k, sin((double)(k * (i + 1)) * 0.1) + rng_randn(r) * 0.1);
    return X;
}

START_TEST(test_seed001_single_head_and_causal)
{
    Tj *t = seed_table("001");
    Rng r;
    rng_seed(&r, 42);
    Mat *X = seed001_x(&r);
    Mat *first = tjson_vec(tjson_get(t, "X_first_row_first_8"));
    for (int k = 0; k < 8; k++) ck_assert_double_eq_tol(mat_get(X, 0, k), mat_get(first, 0, k), 1e-12);
    Mat *W;
    sdpa(X, X, X, NULL, &W, NULL);
    Mat *rw = ref(t, "single_head_weights");
    ck_assert_mat_near(W, rw, 1e-9);
    /* Our entropy is exact; the reference adds 1e-10 inside the log, which
    ** moves each row's value by about n·1e-10 = 8e-10. */
    Mat *E = attn_entropy(W);
    Mat *re = tjson_vec(tjson_get(t, "single_head_entropy"));
    for (int i = 0; i < 8; i++) ck_assert_double_eq_tol(mat_get(E, i, 0), mat_get(re, 0, i), 1e-9);
    Mat *M = attn_causal_mask(8, 8);
    Mat *Wc;
    sdpa(X, X, X, M, &Wc, NULL);
    Mat *rc = ref(t, "causal_weights");
    ck_assert_mat_near(Wc, rc, 1e-9);
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++) ck_assert(mat_get(Wc, i, j) == 0.0);
    Mat *all[] = { X, first, W, rw, E, re, M, Wc, rc };
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) mat_free(all[k]);
}
END_TEST

START_TEST(test_seed001_four_heads)
{
    Tj *t = seed_table("001");
    Rng r;
    rng_seed(&r, 42);
    Mat *X = seed001_x(&r);
    double scale = sqrt(2.0 / (64 + 16));
    Mat *wq[4], *wk[4], *wv[4];
    for (int h = 0; h < 4; h++) { wq[h] = mat_create(64, 16); wk[h] = mat_create(64, 16); wv[h] = mat_create(64, 16); }
    rng_fill_randn_stack(&r, wq, 4, scale);
    rng_fill_randn_stack(&r, wk, 4, scale);
    rng_fill_randn_stack(&r, wv, 4, scale);
    Mat *wo = mat_create(64, 64);
    rng_fill_randn(&r, wo, scale);
    /* Stacks concatenated side by side are one projection whose column
    ** blocks are the heads: Q_h = X·W_q[h] = (X·[W_q[0]|...])[:, block h]. */
    Mat *WQ = mat_hconcat(wq, 4), *WK = mat_hconcat(wk, 4), *WV = mat_hconcat(wv, 4);
    Mat *Q = attn_project(X, WQ), *K = attn_project(X, WK), *V = attn_project(X, WV);
    Mat *outs[4];
    Tj *heads = tjson_get(t, "heads");
    for (int h = 0; h < 4; h++) {
        Mat *qh = attn_head_slice(Q, 4, h), *kh = attn_head_slice(K, 4, h), *vh = attn_head_slice(V, 4, h);
        Mat *W;
        sdpa(qh, kh, vh, NULL, &W, &outs[h]);
        Tj *rh = tjson_at(heads, h);
        Mat *rw = ref(rh, "weights");
        ck_assert_mat_near(W, rw, 1e-9);
        double mx = -1;
        for (long k = 0; k < 64; k++) if (W->data[k] > mx) mx = W->data[k];
        ck_assert_double_eq_tol(mx, tjson_get(rh, "max_weight")->num, 1e-9);
        Mat *E = attn_entropy(W);
        double mean = 0;
        for (int i = 0; i < 8; i++) mean += mat_get(E, i, 0) / 8;
        ck_assert_double_eq_tol(mean, tjson_get(rh, "mean_entropy")->num, 1e-9);
        mat_free(qh); mat_free(kh); mat_free(vh); mat_free(W); mat_free(rw); mat_free(E);
    }
    Mat *C = attn_concat_heads(outs, 4);
    Mat *O = attn_project(C, wo);
    Mat *row0 = tjson_vec(tjson_get(t, "mha_output_row0_first_8"));
    for (int k = 0; k < 8; k++) ck_assert_double_eq_tol(mat_get(O, 0, k), mat_get(row0, 0, k), 1e-9);
    for (int h = 0; h < 4; h++) { mat_free(wq[h]); mat_free(wk[h]); mat_free(wv[h]); mat_free(outs[h]); }
    Mat *all[] = { X, wo, WQ, WK, WV, Q, K, V, C, O, row0 };
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) mat_free(all[k]);
}
END_TEST

/* A random n x d matrix of unit gaussians. */
static Mat *randn_mat(Rng *r, int n, int d)
{
    Mat *m = mat_create(n, d);
    rng_fill_randn(r, m, 1.0);
    return m;
}

START_TEST(test_rows_sum_to_one)
{
    Rng r;
    rng_seed(&r, 3);
    Mat *S = randn_mat(&r, 7, 9);
    Mat *Sc = mat_scale(S, 25.0);
    Mat *W = attn_softmax(Sc);
    for (int i = 0; i < 7; i++) {
        double sum = 0;
        for (int j = 0; j < 9; j++) { sum += mat_get(W, i, j); ck_assert(mat_get(W, i, j) >= 0); }
        ck_assert_double_eq_tol(sum, 1.0, 1e-12);
    }
    mat_free(S); mat_free(Sc); mat_free(W);
}
END_TEST

START_TEST(test_masked_weights_exactly_zero)
{
    Rng r;
    rng_seed(&r, 5);
    Mat *S = randn_mat(&r, 6, 6);
    Mat *M = attn_causal_mask(6, 6);
    Mat *Sm = attn_apply_mask(S, M);
    Mat *W = attn_softmax(Sm);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            if (j > i) {
                ck_assert(isinf(mat_get(Sm, i, j)) && mat_get(Sm, i, j) < 0);
                ck_assert(mat_get(W, i, j) == 0.0);
            } else {
                ck_assert(mat_get(W, i, j) > 0.0);
            }
        }
    ck_assert_double_eq(mat_get(W, 0, 0), 1.0);
    mat_free(S); mat_free(M); mat_free(Sm); mat_free(W);
}
END_TEST

START_TEST(test_blocked_convention_converts)
{
    /* seed 003: scores + mask * -1e9, where 1 means blocked */
    double blocked[] = { 0, 1, 1, 0, 0, 1, 0, 0, 0 };
    Mat *B = mat_from(3, 3, blocked);
    Mat *A = attn_mask_from_blocked(B);
    Mat *C = attn_causal_mask(3, 3);
    ck_assert_double_eq(mat_max_abs_diff(A, C), 0);
    mat_free(B); mat_free(A); mat_free(C);
}
END_TEST

START_TEST(test_all_masked_row_is_zero_not_nan)
{
    double s[] = { 1, 2, 3, 4, 5, 6 };
    double m[] = { 0, 0, 0, 1, 0, 1 };
    Mat *S = mat_from(2, 3, s), *M = mat_from(2, 3, m);
    Mat *Sm = attn_apply_mask(S, M);
    Mat *W = attn_softmax(Sm);
    for (int j = 0; j < 3; j++) ck_assert(mat_get(W, 0, j) == 0.0);
    ck_assert(mat_all_finite(W));
    ck_assert_double_eq_tol(mat_get(W, 1, 0) + mat_get(W, 1, 2), 1.0, 1e-15);
    Mat *E = attn_entropy(W);
    ck_assert(mat_get(E, 0, 0) == 0.0);
    mat_free(S); mat_free(M); mat_free(Sm); mat_free(W); mat_free(E);
}
END_TEST

START_TEST(test_shift_invariance)
{
    Rng r;
    rng_seed(&r, 11);
    Mat *S = randn_mat(&r, 4, 5);
    Mat *T = mat_copy(S);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++) mat_set(T, i, j, mat_get(T, i, j) + 100.0 * (i + 1));
    Mat *A = attn_softmax(S), *B = attn_softmax(T);
    ck_assert_mat_near(A, B, 1e-12);
    mat_free(S); mat_free(T); mat_free(A); mat_free(B);
}
END_TEST

START_TEST(test_sqrt_dk_normalises_variance)
{
    Rng r;
    rng_seed(&r, 2024);
    const int n = 200, d = 64;
    Mat *Q = randn_mat(&r, n, d), *K = randn_mat(&r, n, d);
    Mat *S = attn_scores(Q, K), *Ss = attn_scale(S, attn_sqrt_dk(d));
    double var[2];
    const Mat *ms[2] = { S, Ss };
    for (int k = 0; k < 2; k++) {
        double mean = 0, sq = 0;
        long N = (long)n * n;
        for (long i = 0; i < N; i++) mean += ms[k]->data[i];
        mean /= N;
        for (long i = 0; i < N; i++) sq += (ms[k]->data[i] - mean) * (ms[k]->data[i] - mean);
        var[k] = sq / N;
    }
    ck_assert_msg(fabs(var[0] / d - 1.0) < 0.1, "variance before scaling %g, expected about %d", var[0], d);
    ck_assert_msg(fabs(var[1] - 1.0) < 0.1, "variance after scaling %g, expected about 1", var[1]);
    mat_free(Q); mat_free(K); mat_free(S); mat_free(Ss);
}
END_TEST

START_TEST(test_additive_scores_by_hand)
{
    double q[] = { 1, 0 }, k[] = { 0, 1, 1, 1 };          /* 1 query, 2 keys */
    double w1[] = { 1, 0, 0, 1 }, w2[] = { 0.5, 0, 0, 0.5 }, v[] = { 2, -1 };
    Mat *Q = mat_from(1, 2, q), *K = mat_from(2, 2, k);
    Mat *W1 = mat_from(2, 2, w1), *W2 = mat_from(2, 2, w2), *V = mat_from(2, 1, v);
    Mat *S = attn_additive_scores(Q, K, W1, W2, V);
    ck_assert_int_eq(S->rows, 1);
    ck_assert_int_eq(S->cols, 2);
    ck_assert_double_eq_tol(mat_get(S, 0, 0), 2 * tanh(1.0) - tanh(0.5), 1e-15);
    ck_assert_double_eq_tol(mat_get(S, 0, 1), 2 * tanh(1.5) - tanh(0.5), 1e-15);
    Mat *bad = mat_create(3, 3);
    ck_assert_ptr_null(attn_additive_scores(Q, K, bad, W2, V));
    mat_free(Q); mat_free(K); mat_free(W1); mat_free(W2); mat_free(V); mat_free(S); mat_free(bad);
}
END_TEST

START_TEST(test_entropy_uniform_is_ln_n)
{
    Mat *S = mat_create(3, 8);                 /* all-equal scores */
    Mat *W = attn_softmax(S);
    Mat *E = attn_entropy(W);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(mat_get(E, i, 0), log(8.0), 1e-12);
    mat_free(S); mat_free(W); mat_free(E);
}
END_TEST

START_TEST(test_limits_one_by_one_dk1)
{
    double q = 2, k = 3, v = -4;
    Mat *Q = mat_from(1, 1, &q), *K = mat_from(1, 1, &k), *V = mat_from(1, 1, &v);
    Mat *W, *O;
    sdpa(Q, K, V, NULL, &W, &O);
    ck_assert_double_eq(mat_get(W, 0, 0), 1.0);
    ck_assert_double_eq(mat_get(O, 0, 0), -4.0);
    Mat *S = attn_scores(Q, K), *Ss = attn_scale(S, attn_sqrt_dk(1));
    ck_assert_double_eq(mat_get(Ss, 0, 0), 6.0);
    mat_free(Q); mat_free(K); mat_free(V); mat_free(W); mat_free(O); mat_free(S); mat_free(Ss);
}
END_TEST

START_TEST(test_limits_cross_attention_shapes)
{
    Rng r;
    rng_seed(&r, 9);
    Mat *Q = randn_mat(&r, 2, 4), *K = randn_mat(&r, 5, 4), *V = randn_mat(&r, 5, 3);
    Mat *W, *O;
    sdpa(Q, K, V, NULL, &W, &O);
    ck_assert_int_eq(W->rows, 2);
    ck_assert_int_eq(W->cols, 5);
    ck_assert_int_eq(O->rows, 2);
    ck_assert_int_eq(O->cols, 3);
    /* causal on a non-square grid: query i sees keys 0..i */
    Mat *M = attn_causal_mask(2, 5);
    ck_assert_double_eq(mat_get(M, 1, 1), 1);
    ck_assert_double_eq(mat_get(M, 1, 2), 0);
    mat_free(Q); mat_free(K); mat_free(V); mat_free(W); mat_free(O); mat_free(M);
}
END_TEST

START_TEST(test_limits_shape_mismatch_reported)
{
    Mat *Q = mat_create(2, 4), *K = mat_create(3, 5), *V = mat_create(2, 2);
    ck_assert_ptr_null(attn_scores(Q, K));
    Mat *W = mat_create(2, 3);
    ck_assert_ptr_null(attn_weighted_sum(W, V));
    Mat *M = mat_create(3, 3);
    ck_assert_ptr_null(attn_apply_mask(W, M));
    ck_assert_ptr_null(attn_head_slice(K, 2, 0));      /* 2 does not divide 5 */
    ck_assert_ptr_null(attn_head_slice(Q, 2, 2));      /* no third head */
    mat_free(Q); mat_free(K); mat_free(V); mat_free(W); mat_free(M);
}
END_TEST

START_TEST(test_limits_huge_logits)
{
    double s[] = { 1e30, -1e30, 0, -1e30, 1e30, 1e30, INFINITY, 1, INFINITY };
    Mat *S = mat_from(3, 3, s);
    Mat *W = attn_softmax(S);
    ck_assert(mat_all_finite(W));
    ck_assert_double_eq(mat_get(W, 0, 0), 1.0);
    ck_assert_double_eq(mat_get(W, 0, 1), 0.0);
    ck_assert_double_eq(mat_get(W, 1, 1), 0.5);
    ck_assert_double_eq(mat_get(W, 2, 0), 0.5);
    ck_assert_double_eq(mat_get(W, 2, 1), 0.0);
    mat_free(S); mat_free(W);
}
END_TEST

/* A sliding window of w: causal and window together keep keys i−w+1 … i. */
START_TEST(test_window_prefix_padding_masks)
{
    Mat *C = attn_causal_mask(5, 5), *W = attn_window_mask(5, 2), *S = attn_mask_and(C, W);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) ck_assert_double_eq(mat_get(S, i, j), j <= i && i - j < 2 ? 1.0 : 0.0);
    Mat *P = attn_prefix_mask(5, 3), *LM = attn_mask_or(C, P);
    ck_assert_double_eq(mat_get(LM, 0, 2), 1.0);    /* inside the prefix: both ways */
    ck_assert_double_eq(mat_get(LM, 2, 0), 1.0);
    ck_assert_double_eq(mat_get(LM, 2, 3), 0.0);    /* a prefix token does not see the rest */
    ck_assert_double_eq(mat_get(LM, 3, 4), 0.0);    /* the rest is causal */
    ck_assert_double_eq(mat_get(LM, 4, 3), 1.0);
    bool pad[5] = { false, false, false, true, true };
    Mat *D = attn_padding_mask(pad, 5, pad, 5);
    ck_assert_double_eq(mat_get(D, 0, 3), 0.0);
    ck_assert_double_eq(mat_get(D, 3, 0), 0.0);
    ck_assert_double_eq(mat_get(D, 2, 1), 1.0);
    /* a window as wide as the sequence is the causal mask itself */
    Mat *Wn = attn_window_mask(5, 5), *Sn = attn_mask_and(C, Wn);
    ck_assert_double_eq(mat_max_abs_diff(Sn, C), 0.0);
    ck_assert_ptr_null(attn_mask_and(C, D = (mat_free(D), attn_causal_mask(4, 5))));
    Mat *ms[] = { C, W, S, P, LM, D, Wn, Sn };
    for (int i = 0; i < 8; i++) mat_free(ms[i]);
}
END_TEST

/* PE by its formula at a few cells; RoPE keeps lengths and makes q·k
** depend on the distance only. */
START_TEST(test_sinusoidal_and_rope)
{
    Mat *PE = attn_sinusoidal(6, 8);
    ck_assert_double_eq(mat_get(PE, 0, 0), 0.0);
    ck_assert_double_eq(mat_get(PE, 0, 1), 1.0);
    ck_assert_double_eq_tol(mat_get(PE, 3, 2), sin(3 / pow(10000.0, 2.0 / 8)), 1e-15);
    ck_assert_double_eq_tol(mat_get(PE, 5, 7), cos(5 / pow(10000.0, 6.0 / 8)), 1e-15);
    Mat *A = attn_rope_angles(6, 4, 10000.0);
    ck_assert_double_eq_tol(mat_get(A, 2, 1), 2 * pow(10000.0, -0.5), 1e-15);
    double row[4] = { 0.3, -1.2, 0.7, 0.25 };
    Mat *X = mat_create(6, 4);
    for (int p = 0; p < 6; p++) memcpy(mat_row(X, p), row, sizeof row);
    Mat *R = attn_rope(X, A), *S = attn_scores(R, R);
    for (int p = 0; p < 6; p++) {
        double n0 = 0, n1 = 0;
        for (int c = 0; c < 4; c++) { n0 += row[c] * row[c]; n1 += mat_get(R, p, c) * mat_get(R, p, c); }
        ck_assert_double_eq_tol(n1, n0, 1e-14);
    }
    for (int m = 0; m < 6; m++)         /* identical vectors: the score depends on m − n only */
        for (int n = 0; n < 6; n++)
            if (m > 0 && n > 0) ck_assert_double_eq_tol(mat_get(S, m, n), mat_get(S, m - 1, n - 1), 1e-14);
    Mat *odd = mat_create(6, 3);
    ck_assert_ptr_null(attn_rope(odd, A));
    Mat *ms[] = { PE, A, X, R, S, odd };
    for (int i = 0; i < 6; i++) mat_free(ms[i]);
}
END_TEST

/* The paper's slopes: for 8 heads 1/2, 1/4, …, 1/256; for a head count
** that is not a power of two, those of the power below, then every other
** slope of the power above (the paper's code, get_slopes). */
/* A setup of more scores than it keeps (5 × 1000 × 1000, no mask, no
** ALiBi): a head's scores are made again once, whatever is asked and how
** often; a kind it has not (masked scores, ALiBi's bias) makes nothing. */
START_TEST(test_scores_made_again_once)
{
    enum { N = 1000 };
    Buf b = { 0 };
    buf_puts(&b, "title: t\n[setup]\nseed: 1\ntokens:");
    for (int i = 0; i < N; i++) buf_printf(&b, " w%d", i);
    buf_printf(&b, "\nX = randn %dx10\nW_q = randn 10x10\nW_k = randn 10x10\nW_v = randn 10x10\nheads: 5\n[multi_head]\n", N);
    Error err;
    Lesson *L = lesson_parse(buf_str(&b), b.len, "t.lesson", &err);
    buf_free(&b);
    ck_assert_msg(L != NULL, "%s", err.msg);
    Trace *T = attn_run(L, &err);
    ck_assert_ptr_nonnull(T);
    ck_assert(T->s[0].scores_later);
    int kept = T->s[0].n;
    ck_assert_ptr_null(trace_at(T, 0, trace_ref(TK_MASKED, 2)));       /* none to make */
    ck_assert_ptr_null(trace_at(T, 0, trace_ref(TK_ALIBI, 2)));
    ck_assert_int_eq(T->s[0].n, kept);
    const Mat *raw = trace_at(T, 0, trace_ref(TK_RAW, 2));
    ck_assert_ptr_nonnull(raw);
    int made = T->s[0].n;
    ck_assert_int_eq(made, kept + 2);                                   /* raw and scaled */
    for (int k = 0; k < 3; k++) {
        ck_assert_ptr_eq(trace_at(T, 0, trace_ref(TK_RAW, 2)), raw);
        ck_assert_ptr_nonnull(trace_at(T, 0, trace_ref(TK_SCALED, 2)));
        ck_assert_ptr_null(trace_at(T, 0, trace_ref(TK_MASKED, 2)));
    }
    ck_assert_int_eq(T->s[0].n, made);
    trace_free(T);
    lesson_free(L);
}
END_TEST

START_TEST(test_alibi)
{
    for (int h = 1; h <= 8; h++) ck_assert_double_eq(attn_alibi_slope(h, 8), 1.0 / (1 << h));
    ck_assert_double_eq(attn_alibi_slope(1, 4), 0.25);
    /* not a power of two: the slopes of 4 heads, then every other slope of 8 */
    static const double six[6] = { 0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125 };
    for (int h = 1; h <= 6; h++) ck_assert_double_eq(attn_alibi_slope(h, 6), six[h - 1]);
    static const double three[3] = { 1.0 / 16, 1.0 / 256, 0.25 };
    for (int h = 1; h <= 3; h++) ck_assert_double_eq(attn_alibi_slope(h, 3), three[h - 1]);
    ck_assert_double_eq(attn_alibi_slope(1, 1), 1.0 / 256);
    /* 12 heads: 8's slopes, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 */
    for (int h = 9; h <= 12; h++) ck_assert_double_eq_tol(attn_alibi_slope(h, 12), pow(2.0, -(2 * (h - 8) - 1) / 2.0), 1e-16);
    Mat *B = attn_alibi_bias(4, 4, 0.5);
    ck_assert_double_eq(mat_get(B, 3, 0), -1.5);
    ck_assert_double_eq(mat_get(B, 0, 3), -1.5);
    ck_assert_double_eq(mat_get(B, 2, 2), 0.0);
    mat_free(B);
}
END_TEST

/* Online softmax equals softmax·V for every block size, masked rows
** included, and its last running sum is the row's Σ exp(s − max). */
START_TEST(test_online_softmax)
{
    Rng r;
    rng_seed(&r, 7);
    int n = 7, d = 3;
    Mat *S = mat_create(n, n), *V = mat_create(n, d);
    for (long i = 0; i < (long)n * n; i++) S->data[i] = 3 * rng_randn(&r);
    for (long i = 0; i < (long)n * d; i++) V->data[i] = rng_randn(&r);
    Mat *C = attn_causal_mask(n, n), *M = attn_apply_mask(S, C);
    for (int j = 0; j < n; j++) mat_set(M, 4, j, -INFINITY);       /* a row that sees nothing */
    Mat *W = attn_softmax(M), *O = attn_weighted_sum(W, V);
    for (int b = 1; b <= n; b++) {
        OnlineSoftmax os;
        ck_assert(attn_online_softmax(M, V, b, &os));
        ck_assert_int_eq(os.max->cols, (n + b - 1) / b);
        ck_assert_mat_near(os.out, O, 1e-14);
        ck_assert_double_eq(mat_get(os.out, 4, 0), 0.0);
        ck_assert_double_eq(mat_get(os.sum, 4, os.sum->cols - 1), 0.0);
        ck_assert(mat_get(os.max, 4, 0) == -INFINITY);
        double mx = mat_get(M, 6, 0), sum = 0;
        for (int j = 1; j < n; j++) mx = fmax(mx, mat_get(M, 6, j));
        for (int j = 0; j < n; j++) sum += exp(mat_get(M, 6, j) - mx);
        ck_assert_double_eq_tol(mat_get(os.sum, 6, os.sum->cols - 1), sum, 1e-13);
        for (long i = 0; i < (long)os.rescale->rows * os.rescale->cols; i++)
            ck_assert(os.rescale->data[i] >= 0 && os.rescale->data[i] <= 1);
        attn_online_free(&os);
    }
    OnlineSoftmax bad;
    ck_assert(!attn_online_softmax(M, V, 0, &bad));
    Mat *ms[] = { S, V, C, M, W, O };
    for (int i = 0; i < 6; i++) mat_free(ms[i]);
}
END_TEST

/* Values near the largest double: softmax·V is finite, and so is every
** state of the online softmax, which keeps its accumulator divided by ℓ. */
START_TEST(test_limits_online_softmax_huge_values)
{
    Mat *S = mat_create(2, 3), *V = mat_create(3, 2);
    mat_set(S, 1, 2, 1.0);
    for (int j = 0; j < 3; j++) {
        mat_set(V, j, 0, 1.5e308);
        mat_set(V, j, 1, j == 1 ? -1.7e308 : 1.7e308);
    }
    Mat *W = attn_softmax(S), *O = attn_weighted_sum(W, V);
    ck_assert(mat_all_finite(O));
    for (int b = 1; b <= 3; b++) {
        OnlineSoftmax os;
        ck_assert(attn_online_softmax(S, V, b, &os));
        ck_assert_msg(mat_all_finite(os.acc) && mat_all_finite(os.out), "block %d overflows", b);
        for (int i = 0; i < 2; i++)
            for (int c = 0; c < 2; c++)
                ck_assert_double_eq_tol(mat_get(os.out, i, c) / 1e308, mat_get(O, i, c) / 1e308, 1e-15);
        attn_online_free(&os);
    }
    mat_free(S); mat_free(V); mat_free(W); mat_free(O);
}
END_TEST

/* The attention suite. */
Suite *attn_suite(void)
{
    Suite *s = suite_create("attn");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, load_tables, free_tables);
    tcase_add_test(core, test_seed004_randint_weights);
    tcase_add_test(core, test_seed002_onehot_and_printed_qkv);
    tcase_add_test(core, test_seed001_single_head_and_causal);
    tcase_add_test(core, test_seed001_four_heads);
    tcase_add_test(core, test_rows_sum_to_one);
    tcase_add_test(core, test_masked_weights_exactly_zero);
    tcase_add_test(core, test_blocked_convention_converts);
    tcase_add_test(core, test_all_masked_row_is_zero_not_nan);
    tcase_add_test(core, test_shift_invariance);
    tcase_add_test(core, test_sqrt_dk_normalises_variance);
    tcase_add_test(core, test_additive_scores_by_hand);
    tcase_add_test(core, test_entropy_uniform_is_ln_n);
    tcase_add_test(core, test_window_prefix_padding_masks);
    tcase_add_test(core, test_sinusoidal_and_rope);
    tcase_add_test(core, test_alibi);
    tcase_add_test(core, test_online_softmax);
    tcase_add_test(core, test_scores_made_again_once);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_one_by_one_dk1);
    tcase_add_test(limits, test_limits_cross_attention_shapes);
    tcase_add_test(limits, test_limits_shape_mismatch_reported);
    tcase_add_test(limits, test_limits_huge_logits);
    tcase_add_test(limits, test_limits_online_softmax_huge_values);
    suite_add_tcase(s, limits);
    return s;
}
