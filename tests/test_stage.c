/*
** test_stage.c: stage views, cell explanations and the JSON dump, on small
** lessons whose numbers can be checked by hand.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "tjson.h"
#include "tstages.h"
#include "core/compute/attn.h"
#include "core/stage/dump.h"
#include "core/stage/explain.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/stage/stage_table.h"
#include "core/compute/trace.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* seed 002's printed Q, K, V, given directly, plus a causal setup. */
static const char *const QKV_LESSON =
    "title: Printed QKV\n"
    "[setup]\n"
    "tokens: cat sat mat\n"
    "Q =\n  0.6621 -0.1897 0.7634 0.6398\n  0.7188 0.1748 -0.6353 0.1173\n  -0.2029 -0.4216 0.7527 0.4176\n"
    "K =\n  0.6676 -0.399 -0.6836 0.0817\n  0.128 -0.1016 -0.3992 -0.8554\n  -0.4043 -0.3517 -0.2445 0.7821\n"
    "V =\n  0.6686 0.135 0.2327 0.5006\n  0.1441 0.6997 -0.2348 -0.3786\n  -0.2812 0.0947 0.3645 0.4999\n"
    "queries: Q\nkeys: K\nvalues: V\n"
    "[scaled_scores]\n[softmax]\n[weighted_sum]\n"
    "[setup]\nmask: causal\n[causal_mask]\n[entropy]\n"
    "[setup]\nmask: none\nheads: 2\n[multi_head]\n[per_token]\nquery: 2\n";

static Lesson *L;
static Trace *T;

/* Parse and run the lesson above. */
static void setup_lesson(void)
{
    T = tstages_run(QKV_LESSON, "qkv.lesson", &L);
}

/* Free them. */
static void teardown_lesson(void)
{
    trace_free(T);
    lesson_free(L);
}

/* Assert that text contains part. */
static void has(const char *text, const char *part)
{
    ck_assert_msg(text && strstr(text, part), "\"%s\"\ndoes not contain \"%s\"", text ? text : "(null)", part);
}

/* Assert that the explanation of cell (i, j) of matrix in setup s contains
** each part of the NULL-terminated list after j (EXPLAINS adds the NULL). */
static void explains(const Lesson *l, const Trace *t, int s, const char *matrix, int i, int j, ...)
{
    char *x = explain_cell(l, t, s, matrix, i, j);
    va_list ap;
    va_start(ap, j);
    for (const char *part; (part = va_arg(ap, const char *)) != NULL;) has(x, part);
    va_end(ap);
    free(x);
}
#define EXPLAINS(...) explains(__VA_ARGS__, (const char *)NULL)

/* Assert that text (an explanation or a title) names no infinity or NaN. */
static void no_inf_nan(const char *text)
{
    ck_assert_ptr_null(strstr(text, "inf"));
    ck_assert_ptr_null(strstr(text, "nan"));
}

/* Assert that the explanation of cell (i, j) of matrix in setup s names no
** infinity or NaN, and contains part (unless NULL). */
static void explains_finite(const Lesson *l, const Trace *t, int s, const char *matrix, int i, int j, const char *part)
{
    char *x = explain_cell(l, t, s, matrix, i, j);
    if (part) has(x, part);
    no_inf_nan(x);
    free(x);
}

/* Free a trace and its lesson. */
static void free_run(Trace *t, Lesson *l)
{
    trace_free(t);
    lesson_free(l);
}

START_TEST(test_view_softmax)
{
    View *v = tstages_view(L, T, 1);
    ck_assert_int_eq(v->id, STAGE_SOFTMAX);
    ck_assert_int_eq(v->npanels, 2);
    ck_assert_str_eq(v->title, "Softmax: scores become weights");
    has(v->formula, "softmax(Q\xc2\xb7K\xe1\xb5\x80 \xc3\xb7 \xe2\x88\x9a" "4)");
    const Panel *w = &v->panels[1];
    ck_assert_str_eq(w->matrix, "weights");
    ck_assert(w->probabilities);
    ck_assert_str_eq(w->cmap, "viridis");
    ck_assert_str_eq(w->row_labels[2], "mat");
    ck_assert_str_eq(w->col_labels[0], "cat");
    ck_assert_double_eq_tol(mat_get(w->m, 0, 0), 0.36975828935312194, 1e-12);
    ck_assert_str_eq(v->panels[0].cmap, "RdBu");        /* signed scores: diverging */
    ck_assert(v->panels[0].diverging);
    stage_view_free(v);
}
END_TEST

START_TEST(test_view_every_stage_has_panels)
{
    for (int k = 0; k < L->nstages; k++) {
        View *v = tstages_view(L, T, k);
        ck_assert_int_gt(v->npanels, 0);
        ck_assert_int_gt((int)strlen(v->formula), 0);
        for (int p = 0; p < v->npanels; p++) {
            ck_assert_ptr_nonnull(v->panels[p].m);
            ck_assert_ptr_nonnull(v->panels[p].row_labels[v->panels[p].m->rows - 1]);
        }
        stage_view_free(v);
    }
    ck_assert_ptr_null(tstages_view(L, T, L->nstages));
}
END_TEST

START_TEST(test_view_causal_and_heads)
{
    View *v = tstages_view(L, T, 3);
    ck_assert_int_eq(v->id, STAGE_CAUSAL_MASK);
    ck_assert_str_eq(v->panels[0].matrix, "mask");
    ck_assert_int_eq(v->panels[0].decimals, 0);
    ck_assert_str_eq(v->panels[1].matrix, "scaled_scores");       /* before the mask */
    ck_assert(isfinite(mat_get(v->panels[1].m, 0, 2)));
    ck_assert_int_eq(v->panels[1].scale_group, v->panels[2].scale_group);   /* before and after: one scale */
    ck_assert_int_gt(v->panels[1].scale_group, 0);
    ck_assert(isinf(mat_get(v->panels[2].m, 0, 2)));
    ck_assert(mat_get(v->panels[3].m, 0, 2) == 0.0);
    ck_assert_double_eq(mat_get(v->panels[3].m, 0, 0), 1.0);
    stage_view_free(v);
    v = tstages_view(L, T, 4);
    ck_assert_int_eq(v->panels[0].kind, PANEL_PLOT);
    ck_assert_double_eq_tol(v->panels[0].bounds[2], log(3.0), 1e-15);
    ck_assert_str_eq(v->panels[0].series[0], "single head");
    ck_assert_double_eq(mat_get(v->panels[0].m, 0, 0), 0.0);   /* the first token sees only itself */
    stage_view_free(v);
    v = tstages_view(L, T, 5);                          /* multi_head: each head's Q, K, weights, output, then concat */
    int nsteps = v->nsteps;
    stage_view_free(v);
    const char *want[] = { "head1.Q", "head1.K", "head1.weights", "head1.output",
                           "head2.Q", "head2.K", "head2.weights", "head2.output", "concat" };
    int seen = 0;
    for (int st = 0; st < nsteps; st++) {             /* in this order, over the sub-steps */
        StageOpts o = { 0, st, false, tstages_pager() };
        v = stage_view_with(L, T, 5, &o);
        for (int p = 0; p < v->npanels; p++) {
            ck_assert_int_lt(seen, 9);
            ck_assert_str_eq(v->panels[p].matrix, want[seen++]);
        }
        stage_view_free(v);
    }
    ck_assert_int_eq(seen, 9);
    v = tstages_view(L, T, 6);                          /* per_token, query 2 = "sat" */
    ck_assert_int_eq(v->panels[0].m->rows, 1);
    ck_assert_int_eq(v->panels[0].row_offset, 1);
    ck_assert_str_eq(v->panels[0].row_labels[0], "sat");
    ck_assert_double_eq(mat_get(v->panels[0].m, 0, 2), mat_get(trace_at(T, v->setup, v->panels[0].ref), 1, 2));
    stage_view_free(v);
}
END_TEST

/* `indices: yes` numbers the tokens on both axes from 1, per_token's one
** row by its place in the sentence, entropy's queries as well; the
** dimensions keep their own d1 …; without it, the labels are the tokens
** alone. */
START_TEST(test_indices_number_the_axes)
{
    Lesson *l;
    Trace *t = tstages_run("title: T\n[setup]\nseed: 1\ntokens: the cat sat\nX = randn 3x2\nqueries: X\n"
                           "[softmax]\nindices: yes\n\n[per_token]\nquery: 3\nindices: yes\n\n[softmax]\n"
                           "[entropy]\nindices: yes\n\n", "i.lesson", &l);
    View *v = tstages_view(l, t, 0);
    ck_assert_str_eq(v->panels[1].row_labels[0], "1 the");
    ck_assert_str_eq(v->panels[1].col_labels[2], "3 sat");
    stage_view_free(v);
    v = tstages_view(l, t, 1);
    ck_assert_str_eq(v->panels[0].row_labels[0], "3 sat");
    ck_assert_str_eq(v->panels[v->npanels - 1].col_labels[1], "d2");
    stage_view_free(v);
    v = tstages_view(l, t, 2);
    ck_assert_str_eq(v->panels[1].row_labels[0], "the");
    stage_view_free(v);
    v = tstages_view(l, t, 3);
    ck_assert_int_eq(v->panels[0].kind, PANEL_PLOT);
    ck_assert_str_eq(v->panels[0].row_labels[2], "3 sat");
    stage_view_free(v);
    free_run(t, l);
}
END_TEST

START_TEST(test_explain_scaled_score_by_hand)
{
    /* 0.6621·0.6676 − 0.1897·(−0.399) − 0.7634·0.6836 + 0.6398·0.0817 = 0.04812 */
    EXPLAINS(L, T, 0, "scaled_scores", 0, 0,
             "q\xc2\xb7k for query \xe2\x80\x9c" "cat\xe2\x80\x9d and key \xe2\x80\x9c" "cat\xe2\x80\x9d",
             "0.6621\xc3\x97" "0.6676 + (\xe2\x88\x92" "0.1897)\xc3\x97(\xe2\x88\x92" "0.399)", "= 0.04812",
             "\xc3\xb7 \xe2\x88\x9a" "4 (d_k = 4, the width of the keys; \xe2\x88\x9a" "4 = 2) = 0.02406");
}
END_TEST

START_TEST(test_explain_weight_and_output)
{
    /* exp(0.02406 − 0.05638) = 0.9682; the row's sum of exponentials is 2.618 */
    EXPLAINS(L, T, 0, "weights", 0, 0, "exp(0.02406 \xe2\x88\x92 0.05638) / \xce\xa3 = 0.9682 / 2.618 = 0.3698");
    EXPLAINS(L, T, 0, "output", 1, 2,
             "0.4255\xc3\x97" "0.2327 + 0.3111\xc3\x97(\xe2\x88\x92" "0.2348) + 0.2634\xc3\x97" "0.3645 = 0.122");
    /* given directly: an input */
    EXPLAINS(L, T, 0, "Q", 2, 3, "Q[3][4] = 0.4176\nwritten in the lesson, line 7", "an input");
}
END_TEST

START_TEST(test_explain_masked_cells)
{
    EXPLAINS(L, T, 1, "masked_scores", 0, 2,
             "\xe2\x88\x92\xe2\x88\x9e: key \xe2\x80\x9cmat\xe2\x80\x9d (position 3) comes after query \xe2\x80\x9c" "cat\xe2\x80\x9d (position 1): blocked by the causal mask",
             "exactly 0");
    EXPLAINS(L, T, 1, "weights", 0, 2, "weight 0 exactly");
    EXPLAINS(L, T, 1, "mask", 2, 0, "may attend");
    ck_assert_ptr_null(explain_cell(L, T, 0, "weights", 3, 0));
    ck_assert_ptr_null(explain_cell(L, T, 0, "nonexistent", 0, 0));
}
END_TEST

START_TEST(test_explain_all_masked_row)
{
    const char *text = "title: T\n[setup]\ntokens: a b\nX =\n  1 2\n  3 4\nM =\n  0 0\n  1 1\nmask: allow M\n[causal_mask]\n";
    Lesson *l;
    Trace *t = tstages_run(text, "m.lesson", &l);
    const Mat *W = trace_get(t, 0, "weights");
    ck_assert(mat_get(W, 0, 0) == 0.0 && mat_get(W, 0, 1) == 0.0);
    EXPLAINS(l, t, 0, "weights", 0, 1, "every key is masked", "not NaN");
    free_run(t, l);
}
END_TEST

START_TEST(test_dump_is_json_with_nulls)
{
    Buf b = {0};
    dump_json(L, T, &b);
    Tj *j = tjson_parse(b.s);
    ck_assert_msg(j != NULL, "dump is not valid JSON");
    ck_assert_str_eq(tjson_get(j, "lesson")->str, "qkv");
    Tj *stages = tjson_get(j, "stages");
    ck_assert_int_eq(stages->n, L->nstages);
    Tj *causal = tjson_at(stages, 3);
    ck_assert_str_eq(tjson_get(causal, "id")->str, "causal_mask");
    Tj *masked = tjson_at(tjson_get(causal, "matrices"), 2);
    ck_assert_str_eq(tjson_get(masked, "name")->str, "masked_scores");
    Tj *row0 = tjson_at(tjson_get(masked, "data"), 0);
    ck_assert_int_eq(tjson_at(row0, 2)->kind, TJ_NULL);            /* −∞ is null */
    ck_assert_int_eq(tjson_at(row0, 0)->kind, TJ_NUM);
    /* 17 significant digits read back as the very same double */
    Tj *soft = tjson_at(tjson_get(tjson_at(stages, 1), "matrices"), 1);
    Mat *w = tjson_mat(tjson_get(soft, "data"));
    ck_assert(mat_max_abs_diff(w, trace_get(T, 0, "weights")) == 0.0);
    mat_free(w);
    tjson_free(j);
    buf_free(&b);
}
END_TEST

/* A matrix over DUMP_INLINE_CELLS is written once per setup, in the
** top-level table, and every stage that shows it refers to it; a small one
** stays in place. */
START_TEST(test_limits_dump_writes_big_matrices_once)
{
    const char *text = "title: T\n[setup]\nseed: 1\ntokens: a b c\nX = randn 3x400\nW = randn 400x3\n"
                       "queries: X @ W\nkeys: X @ W\nvalues: X @ W\n"
                       "[qkv_projection]\n[embeddings]\n[setup]\n[embeddings]\n";
    Lesson *l;
    Trace *t = tstages_run(text, "big.lesson", &l);
    Buf b = {0};
    dump_json(l, t, &b);
    Tj *j = tjson_parse(b.s);
    ck_assert_msg(j != NULL, "dump is not valid JSON");
    Tj *stages = tjson_get(j, "stages"), *table = tjson_get(j, "matrices");
    int refs = 0;
    for (int k = 0; k < stages->n; k++) {
        Tj *st = tjson_at(stages, k), *ms = tjson_get(st, "matrices");
        ck_assert_int_eq((int)tjson_get(st, "setup")->num, k < 2 ? 1 : 2);
        for (int i = 0; i < ms->n; i++) {
            Tj *m = tjson_at(ms, i);
            const char *name = tjson_get(m, "name")->str;
            bool big = tjson_get(m, "rows")->num * tjson_get(m, "cols")->num > DUMP_INLINE_CELLS;
            ck_assert_msg(big == (tjson_get(m, "data") == NULL), "%s: data in place iff small", name);
            if (!big) continue;
            ck_assert_int_eq(tjson_get(m, "shared")->kind, TJ_BOOL);
            refs++;
        }
    }
    ck_assert_int_eq(refs, 6);          /* qkv_projection: X, and W for each of Q, K, V; X in both embeddings */
    ck_assert_int_eq(table->n, 2);      /* setups 1 and 2 */
    Tj *one = tjson_get(table, "1"), *two = tjson_get(table, "2");
    ck_assert_int_eq(one->n, 2);
    ck_assert_int_eq(two->n, 1);
    Mat *x = tjson_mat(tjson_get(one, "X")), *w = tjson_mat(tjson_get(one, "W"));
    ck_assert(mat_max_abs_diff(x, trace_get(t, 0, "X")) == 0.0);
    ck_assert(mat_max_abs_diff(w, trace_get(t, 0, "W")) == 0.0);
    mat_free(x); mat_free(w);
    ck_assert_ptr_nonnull(tjson_get(two, "X"));
    tjson_free(j);
    buf_free(&b);
    free_run(t, l);
}
END_TEST

START_TEST(test_limits_non_finite_is_an_error)
{
    const char *text = "title: T\n[setup]\ntokens: a b\nX =\n  1e200 1\n  1 1e200\n[softmax]\n";
    Error err;
    Lesson *l = lesson_parse(text, strlen(text), "big.lesson", &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_ptr_null(attn_run(l, &err));
    has(eline(&err), "big.lesson:2:1: error: raw_scores[1][1] is infinite");
    has(eline(&err), "not a finite number");
    lesson_free(l);
}
END_TEST

START_TEST(test_residual_stream)
{
    /* two layers: layer 2's X is layer 1's X plus layer 1's output after W_o,
    ** and everything of layer 2 is computed from it */
    static const char text[] =
        "title: t\n[setup]\nseed: 5\ntokens: a b c d\nX = randn 4x4\nW_q = randn 4x4\nW_k = randn 4x4\n"
        "W_v = randn 4x4\nW_o = randn 4x4 * 0.5\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: 2\n"
        "mask: causal\noutput: W_o\n[softmax]\n[setup]\nresidual: yes\nW_q = randn 4x4\n[softmax]\n"
        "[setup]\n[embeddings]\n";
    Lesson *l;
    Trace *t = tstages_run(text, "r.lesson", &l);
    for (int s = 1; s <= 2; s++) {
        const Mat *x0 = trace_get(t, s - 1, "X"), *f0 = trace_get(t, s - 1, "final"), *x1 = trace_get(t, s, "X");
        ck_assert(trace_input_computed(t, s, "X"));
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) ck_assert(mat_get(x1, i, j) == mat_get(x0, i, j) + mat_get(f0, i, j));
        /* and layer s's queries come from it */
        Mat *q = mat_matmul(x1, lesson_matrix(&l->setups[s], "W_q")->m);
        ck_assert(mat_max_abs_diff(q, trace_get(t, s, "Q")) == 0.0);
        mat_free(q);
    }
    ck_assert(!trace_input_computed(t, 0, "X"));
    View *v = tstages_view(l, t, 2);
    ck_assert(!v->panels[0].editable);                 /* a computed X is not scroll-edited */
    stage_view_free(v);
    EXPLAINS(l, t, 1, "X", 2, 3, "the residual stream");
    free_run(t, l);
}
END_TEST

/* Variances of scores near the top of the doubles: computed without
** squaring the values themselves (1.3e154 squared sums past 1e308 though the
** variance, 1.69e308, is a double), and said in words when it overflows. */
START_TEST(test_limits_variance_of_huge_scores)
{
    static const char *const cases[2][2] = {
        { "1.14e77", "var 1.69e+308" },
        { "1e154", "var too large for a double" },
    };
    for (int i = 0; i < 2; i++) {
        char text[256];
        snprintf(text, sizeof text, "title: T\n[setup]\ntokens: a b\nX =\n  %s\n  -%s\n[scaled_scores]\n",
                 cases[i][0], cases[i][0]);
        Lesson *l;
        Trace *t = tstages_run(text, "v.lesson", &l);
        View *v = tstages_view(l, t, 0);
        ck_assert_int_eq(v->npanels, 2);
        for (int k = 0; k < 2; k++) {
            has(v->panels[k].title, cases[i][1]);
            no_inf_nan(v->panels[k].title);
        }
        stage_view_free(v);
        explains_finite(l, t, 0, "scaled_scores", 0, 1, NULL);
        free_run(t, l);
    }
}
END_TEST

/* An additive score whose hidden units overflow (tanh of them is still 1):
** the explanation says "overflow", never "inf". */
START_TEST(test_limits_explain_additive_overflow)
{
    const char *text = "title: T\n[setup]\ntokens: a b\nX =\n  1e200 1\n  1 1\n"
                       "W1 =\n  1e200 1\n  1 1\nW2 =\n  1e200 1\n  1 1\nv =\n  1\n  1\n"
                       "score: additive\nadditive: W1 W2 v\n[raw_scores]\n";
    Lesson *l;
    Trace *t = tstages_run(text, "a.lesson", &l);
    ck_assert_double_eq(mat_get(trace_get(t, 0, "raw_scores"), 0, 0), 2.0);
    explains_finite(l, t, 0, "raw_scores", 0, 0, "tanh(overflow)");
    free_run(t, l);
}
END_TEST

/* Weights given by the lesson (`attention: A`): the hover says which cell
** of A a weight is, with enough digits that 0.99999994 is not "1". */
START_TEST(test_explain_given_weights)
{
    const char *text = "title: T\n[setup]\ntokens: a b\nA = stack 2\n  1 0  1 0\n  0.00000006 0.99999994  0.5 0.5\n"
                       "attention: A\nmask: causal\n[softmax]\n";
    Lesson *l;
    Trace *t = tstages_run(text, "g.lesson", &l);
    ck_assert_double_eq(mat_get(trace_get(t, 0, "head2.weights"), 1, 0), 0.5);
    EXPLAINS(l, t, 0, "head1.weights", 1, 1,
             "head 1 of 2: weight given by the lesson, not computed here: A[2][2] = 0.9999999",   /* not "= 1" */
             "written in the lesson, line 6", "the 2 weights of \xe2\x80\x9c" "b\xe2\x80\x9d sum to 1.0000");
    EXPLAINS(l, t, 0, "head2.weights", 0, 1,
             "head 2 of 2: weight 0 exactly: key \xe2\x80\x9c" "b\xe2\x80\x9d (position 2) comes after query");
    EXPLAINS(l, t, 0, "head2.weights", 1, 0, "A[2][3] = 0.5");
    free_run(t, l);
}
END_TEST

START_TEST(test_custom_divisor_and_temperature)
{
    /* divisor replaces √d_k for scaled_dot; temperature divides after it; a
    ** plain dot product is not scaled at all */
    const char *text = "title: T\n[setup]\ntokens: a b\nX =\n  1 2\n  3 4\ndivisor: 5\ntemperature: 2\n[scaled_scores]\n"
                       "[setup]\nscore: dot\ntemperature: 1\n[softmax]\n";
    Lesson *l;
    Trace *t = tstages_run(text, "d.lesson", &l);
    /* raw[0][1] = 1·3 + 2·4 = 11 */
    ck_assert_double_eq(mat_get(trace_get(t, 0, "raw_scores"), 0, 1), 11.0);
    ck_assert_double_eq(mat_get(trace_get(t, 0, "scaled_scores"), 0, 1), 11.0 / 5 / 2);
    ck_assert_double_eq(mat_get(trace_get(t, 1, "scaled_scores"), 0, 1), 11.0);
    View *v = tstages_view(l, t, 0);
    has(v->formula, "\xc3\xb7 5 \xc3\xb7 2 (temperature)");     /* both divide: written as division */
    stage_view_free(v);
    EXPLAINS(l, t, 0, "scaled_scores", 0, 1, "\xc3\xb7 5 (the lesson's divisor) = 2.2", "\xc3\xb7 temperature 2 = 1.1");
    free_run(t, l);
}
END_TEST

/* A lesson with every new setting and stage. */
static const char *const MODERN_LESSON =
    "title: Modern\n"
    "[setup]\nseed: 3\ntokens: a b c d <pad>\nX = randn 5x8\nW_q = randn 8x8\nW_k = randn 8x4\nW_v = randn 8x2\n"
    "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: 2\nkv_heads: 1\nmask: causal sliding 2 padding <pad>\n"
    "positions: rope base 100\n"
    "[causal_mask]\n[rope]\n[raw_scores]\n[grouped_query]\n[kv_cache]\n[online_softmax]\nblock: 2\n[online_softmax]\nblock: 5\n"
    "[setup]\npositions: alibi\nmask: prefix 2\nkv_heads: 2\nW_k = randn 8x8\nW_v = randn 8x4\n[alibi]\n[causal_mask]\n[softmax]\n[alibi]\nhead: 2\n"
    "[setup]\npositions: sinusoidal\nmask: causal\n[positional_encoding]\n[qkv_projection]\n[kv_cache]\n";

/* Every cell of every panel of every sub-step explains itself, and every
** operand it names is a cell (or row, or column) of a matrix the trace has. */
START_TEST(test_modern_explain_every_cell)
{
    Lesson *l;
    Trace *t = tstages_run(MODERN_LESSON, "m.lesson", &l);
    int cells = 0;
    for (int k = 0; k < l->nstages; k++) {
        View *v0 = tstages_view(l, t, k);
        int n = v0->nsteps;
        stage_view_free(v0);
        for (int st = 0; st < n; st++) {
            StageOpts o = { 0, st, false, tstages_pager() };
            View *v = stage_view_with(l, t, k, &o);
            ck_assert_msg(v->npanels > 0, "stage %d step %d has no panels", k + 1, st);
            ck_assert(n == 1 || v->step_name);
            for (int p = 0; p < v->npanels; p++) {
                const Panel *pn = &v->panels[p];
                for (int i = 0; i < pn->m->rows; i++)
                    for (int j = 0; j < pn->m->cols; j++) {
                        Explain ex;
                        ck_assert_msg(explain_at(l, t, v->setup, pn->ref, i + pn->row_offset, j + pn->col_offset, &ex),
                                      "%s[%d][%d]", pn->matrix, i, j);
                        ck_assert_msg(strlen(ex.text) > 8 && strcmp(ex.text, "?") && !strstr(ex.text, "nan"),
                                      "%s[%d][%d]: %s", pn->matrix, i, j, ex.text);
                        for (int q = 0; q < ex.nops; q++) {
                            const Mat *m = trace_at(t, v->setup, ex.ops[q].ref);
                            ck_assert_msg(m != NULL, "%s: operand %d missing", pn->matrix, q);
                            ck_assert(ex.ops[q].row < m->rows && ex.ops[q].col < m->cols);
                        }
                        explain_free(&ex);
                        cells++;
                    }
            }
            stage_view_free(v);
        }
    }
    ck_assert_int_gt(cells, 1000);
    free_run(t, l);
}
END_TEST

/* Explanations say what the numbers are: a rotated entry, a bias, a masked
** window key, a cache step. */
START_TEST(test_modern_explain_words)
{
    Lesson *l;
    Trace *t = tstages_run(MODERN_LESSON, "m.lesson", &l);
    EXPLAINS(l, t, 0, "head1.Q_rot", 3, 1, "turns by a = ", "y' = x\xc2\xb7sin a + y\xc2\xb7" "cos a");
    EXPLAINS(l, t, 0, "mask", 3, 1, "outside the window of 2");
    EXPLAINS(l, t, 0, "mask", 4, 0, "is padding (<pad>)");
    EXPLAINS(l, t, 0, "head2.kv_weights", 1, 3, "not in the cache yet");
    EXPLAINS(l, t, 1, "head2.alibi", 3, 0, "slope m = 2^(\xe2\x88\x92" "8\xc2\xb7" "2/2) = 0.0039");
    EXPLAINS(l, t, 0, "head1.online_output.b2", 2, 0, "acc after block 3 (already divided by \xe2\x84\x93 = ");
    ck_assert_ptr_null(explain_cell(l, t, 0, "head1.online_output.b3", 2, 0));
    free_run(t, l);
}
END_TEST

/* Decoding from a K/V cache gives the rows of the full causal computation
** whatever the scores: dot, scaled (by √d_k or a divisor, with a
** temperature), additive with queries and keys of the same or different
** widths, and with every kind of position. */
static const char *const DECODE_LESSON =
    "title: Decoding\n"
    "[setup: scaled]\nseed: 5\ntokens: a b c d\nX = randn 4x4\nY = randn 4x2\nW1 = randn 4x3\nW2 = randn 2x3\n"
    "v = randn 1x3\nmask: causal\n[kv_cache]\n"
    "[setup: dot]\nscore: dot\n[kv_cache]\n"
    "[setup: divisor and temperature]\nscore: scaled_dot\ndivisor: 3\ntemperature: 0.7\n[kv_cache]\n"
    "[setup: additive]\nscore: additive\ntemperature: 1\nW2 = randn 4x3\nadditive: W1 W2 v\n[kv_cache]\n"
    "[setup: additive, keys narrower than queries]\nkeys: Y\nvalues: Y\nW2 = randn 2x3\n[kv_cache]\n"
    "[setup: additive with a temperature]\ntemperature: 2.5\n[kv_cache]\n"
    "[setup: additive with sinusoidal positions]\nkeys: X\nvalues: X\nW2 = randn 4x3\ntemperature: 1\npositions: sinusoidal\n"
    "[kv_cache]\n"
    "[setup: additive with ALiBi]\npositions: alibi\n[kv_cache]\n"
    "[setup: rope]\nscore: scaled_dot\npositions: rope\nheads: 2\n[kv_cache]\n"
    "[setup: alibi, two heads, a window]\npositions: alibi\nmask: sliding 2\n[kv_cache]\n";

START_TEST(test_kv_cache_decodes_every_score_kind)
{
    Lesson *l;
    Trace *t = tstages_run(DECODE_LESSON, "decode.lesson", &l);
    ck_assert_int_eq(l->nsetups, 10);
    for (int s = 0; s < l->nsetups; s++)
        for (int h = 1; h <= t->s[s].heads; h++) {
            const Mat *kw = trace_at(t, s, trace_ref(TK_KV_WEIGHTS, h)), *w = trace_at(t, s, trace_ref(TK_WEIGHTS, h));
            const Mat *ko = trace_at(t, s, trace_ref(TK_KV_OUTPUT, h)), *o = trace_at(t, s, trace_ref(TK_OUTPUT, h));
            ck_assert_msg(kw && w && ko && o, "setup %d head %d", s + 1, h);
            ck_assert_msg(mat_max_abs_diff(kw, w) == 0.0, "setup %d (%s) head %d: decoded weights differ by %g",
                          s + 1, l->setups[s].title, h, mat_max_abs_diff(kw, w));
            ck_assert_msg(mat_max_abs_diff(ko, o) == 0.0, "setup %d (%s) head %d: decoded outputs differ by %g",
                          s + 1, l->setups[s].title, h, mat_max_abs_diff(ko, o));
        }
    /* the additive setups decode with additive scores, shown as such, with q as wide as it is */
    int k = 4;                          /* [kv_cache] of the narrow keys */
    View *v = tstages_view(l, t, k);
    has(v->formula, "v\xe1\xb5\x80\xc2\xb7tanh(q\xc2\xb7W1 + K_cache\xc2\xb7W2)");
    ck_assert_int_eq(v->panels[0].m->cols, 4);          /* q: X is 4 wide */
    ck_assert_int_eq(v->panels[1].m->cols, 2);          /* k: Y is 2 wide */
    stage_view_free(v);
    free_run(t, l);
}
END_TEST

/* qkv_projection shows what the projections read: with sinusoidal
** positions X + PE, so that the product on the slide holds; and each
** matrix once, a role used as it is with its input's own labels. */
START_TEST(test_qkv_projection_shows_its_inputs)
{
    const char *text = "title: T\n[setup]\nseed: 2\ntokens: a b c\nX = randn 3x4\nW_q = randn 4x2\nW_k = randn 4x2\n"
                       "queries: X @ W_q\nkeys: X @ W_k\nvalues: X\npositions: sinusoidal\n[qkv_projection]\n"
                       "[setup]\npositions: none\nQ = randn 3x4\nK = randn 3x4\nW_v = randn 4x2\nqueries: Q\nkeys: K\n"
                       "values: X @ W_v\ndims: p q r s\n[qkv_projection]\n";
    Lesson *l;
    Trace *t = tstages_run(text, "qkv.lesson", &l);
    View *v = tstages_view(l, t, 0);
    ck_assert(v->panels[0].ref.kind == TK_XPE);
    ck_assert_str_eq(v->panels[0].title, "X + PE = V");
    has(v->formula, "Q = (X + PE)\xc2\xb7W_q");
    int q = stage_find_panel(v, trace_ref(TK_Q, 0), 1, -1);
    ck_assert_int_ge(q, 0);
    ck_assert_str_eq(v->panels[q].title, "Q = (X + PE)\xc2\xb7W_q");
    Mat *prod = mat_matmul(v->panels[0].m, trace_get(t, 0, "W_q"));     /* the slide's product holds */
    ck_assert(mat_max_abs_diff(prod, v->panels[q].m) == 0.0);
    mat_free(prod);
    for (int i = 0; i < v->npanels; i++) ck_assert_str_ne(v->panels[i].matrix, "X");
    stage_view_free(v);
    v = tstages_view(l, t, 1);
    for (int i = 0; i < v->npanels; i++)
        for (int k = 0; k < i; k++)
            ck_assert_msg(trace_get(t, 1, v->panels[i].matrix) != trace_get(t, 1, v->panels[k].matrix),
                          "%s and %s are one matrix, shown twice", v->panels[i].matrix, v->panels[k].matrix);
    int qi = stage_find_panel(v, trace_input_ref("Q"), 1, -1);
    ck_assert_int_ge(qi, 0);
    ck_assert_str_eq(v->panels[qi].title, "Q = Q");
    ck_assert_str_eq(v->panels[qi].col_labels[0], "p");
    ck_assert(v->panels[qi].editable);
    stage_view_free(v);
    free_run(t, l);
}
END_TEST

/* per_token shows the scores its weights come from: with ALiBi and no
** divisor or mask, the biased scores beside the raw ones. */
START_TEST(test_per_token_shows_biased_scores)
{
    const char *text = "title: T\n[setup]\ntokens: a b c\nX =\n  1 0\n  0 1\n  1 1\nscore: dot\npositions: alibi\n"
                       "[per_token]\nquery: 3\n";
    Lesson *l;
    Trace *t = tstages_run(text, "pt.lesson", &l);
    View *v = tstages_view(l, t, 0);
    ck_assert_int_eq(v->npanels, 4);
    ck_assert(v->panels[0].ref.kind == TK_RAW);
    ck_assert_double_eq(v->panels[0].m->data[0], 1.0);
    ck_assert(v->panels[1].ref.kind == TK_BIASED);
    ck_assert_str_eq(v->panels[1].title, "scores (not scaled) + bias");
    ck_assert_double_eq(v->panels[1].m->data[0], 1.0 - 2.0 / 256);      /* one head's slope: 1/256 */
    Mat *w = attn_softmax(v->panels[1].m);                               /* the weights beside it come from it */
    ck_assert(mat_max_abs_diff(w, v->panels[2].m) == 0.0);
    mat_free(w);
    stage_view_free(v);
    free_run(t, l);
}
END_TEST

/* grouped_query shows the keys of the first four K/V heads, however many
** there are. */
START_TEST(test_grouped_query_shows_keys)
{
    for (int G = 1; G <= 8; G *= 2) {
        char text[400];
        snprintf(text, sizeof text, "title: T\n[setup]\nseed: 1\ntokens: a b\nX = randn 2x16\nW_q = randn 16x16\n"
                 "W_k = randn 16x%d\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_k\nheads: 8\nkv_heads: %d\n"
                 "[grouped_query]\n", 2 * G, G);
        Lesson *l;
        Trace *t = tstages_run(text, "gq.lesson", &l);
        View *v = tstages_view(l, t, 0);
        int keys = 0;
        for (int i = 0; i < v->npanels; i++) keys += v->panels[i].ref.kind == TK_K;
        ck_assert_msg(keys == (G < 4 ? G : 4), "G = %d: %d panels of keys", G, keys);
        stage_view_free(v);
        trace_free(t);
        lesson_free(l);
    }
}
END_TEST

/* The numbers of a JSON value: every number, and every null in an array
** (−∞ in a row of numbers; a matrix over the budget is "data": null). */
static int64_t json_numbers(const Tj *t)
{
    if (!t) return 0;
    if (t->kind == TJ_NUM) return 1;
    if (t->kind != TJ_ARR && t->kind != TJ_OBJ) return 0;
    int64_t n = 0;
    for (int i = 0; i < t->n; i++)
        n += t->kind == TJ_ARR && t->items[i]->kind == TJ_NULL ? 1 : json_numbers(t->items[i]);
    return n;
}

/* The sub-step pages count against the dump's budget like any other
** panel: with 3.9 million numbers on the pages of an online softmax and a
** K/V cache, and two big embeddings, the dump writes at most
** DUMP_MAX_NUMBERS in all. */
START_TEST(test_limits_dump_budget_counts_sub_steps)
{
    Buf text = {0};
    buf_puts(&text, "title: T\n[setup]\nseed: 1\ntokens:");
    for (int i = 0; i < 256; i++) buf_printf(&text, " t%d", i);
    buf_puts(&text, "\nX = randn 256x8\nmask: causal\n[online_softmax]\nblock: 3\n[kv_cache]\n");
    for (int k = 0; k < 2; k++) buf_puts(&text, "[setup]\nmask: none\nX = randn 256x1024\n[embeddings]\n");
    Lesson *l;
    Trace *t = tstages_run(text.s, "budget.lesson", &l);
    Buf b = {0};
    dump_json(l, t, &b);
    Tj *j = tjson_parse(b.s);
    ck_assert_ptr_nonnull(j);
    Tj *steps = tjson_get(tjson_at(tjson_get(j, "stages"), 0), "steps");
    ck_assert_int_eq(steps->n, 87);
    int64_t in_steps = json_numbers(steps), all = json_numbers(tjson_get(j, "stages")) + json_numbers(tjson_get(j, "matrices"));
    ck_assert_int_gt(in_steps, 3000000);
    ck_assert_msg(all <= DUMP_MAX_NUMBERS, "the dump writes %lld numbers", (long long)all);
    ck_assert_int_gt(all, DUMP_MAX_NUMBERS - 262144);       /* and stops only at a matrix that would not fit */
    tjson_free(j);
    buf_free(&b);
    free_run(t, l);
    buf_free(&text);
}
END_TEST

/* Given weights with a padded query's row of zeros are accepted under
** `mask: padding TOKEN`, and hovering such a weight says why it is 0. */
START_TEST(test_given_padded_query)
{
    const char *text = "title: T\n[setup]\ntokens: the cat <pad>\nA =\n  1 0 0\n  0.5 0.5 0\n  0 0 0\nattention: A\n"
                       "mask: causal padding <pad>\n[softmax]\n";
    Lesson *l;
    Trace *t = tstages_run(text, "pad.lesson", &l);
    EXPLAINS(l, t, 0, "weights", 2, 0,
             "every key is masked for query \xe2\x80\x9c<pad>\xe2\x80\x9d: there is nothing to attend to",
             "query 3 is padding (<pad>): the padding mask blocks its whole row");
    EXPLAINS(l, t, 0, "weights", 1, 0, "weight given by the lesson");
    View *v = tstages_view(l, t, 0);
    has(v->note, "sees no key");
    stage_view_free(v);
    free_run(t, l);
}
END_TEST

/* Every stage id has its row, in order, with a name the parser reads back
** and a title; rows with sub-step cells count their sub-steps. */
START_TEST(test_stage_table_rows)
{
    for (int i = 0; i < STAGE_COUNT; i++) {
        const StageKind *k = stage_kind((StageId)i);
        StageId back;
        ck_assert_int_eq(k->id, i);
        ck_assert(lesson_stage_from_name(k->name, &back));
        ck_assert_int_eq(back, i);
        ck_assert_str_eq(lesson_stage_name((StageId)i), k->name);
        ck_assert_int_gt((int)strlen(k->title), 0);
        ck_assert(k->build != NULL);
        if (k->cells) ck_assert(k->steps != NULL);
        if (k->blocks) ck_assert(k->cells != NULL);
        for (int j = 0; j < i; j++) ck_assert_str_ne(stage_kind((StageId)j)->name, k->name);
    }
}
END_TEST

/* The scores and everything computed from them give away which key a
** query attends to most. */
static bool gives_answer_away(TraceKind k)
{
    return k == TK_RAW || k == TK_SCALED || k == TK_BIASED || k == TK_MASKED || k == TK_WEIGHTS || k == TK_OUTPUT
        || k == TK_ABLATED || k == TK_CONCAT || k == TK_FINAL || k == TK_ENTROPY || k == TK_KV_WEIGHTS || k == TK_KV_OUTPUT
        || (k >= TK_OS_MAX && k <= TK_OS_DIFF) || k == TK_TOP_LOGITS || k == TK_TOP_PROBS;
}

/* Predict mode hides (stage_hides) exactly the panels that give the answer
** away (per_token's row of scores stays: the class guesses from it), on
** every stage of every bundled lesson, every head and sub-step;
** the bundled lessons show every kind of stage. */
START_TEST(test_stage_table_predict_hides_the_answer)
{
    DIR *dir = opendir("../lessons");
    ck_assert_ptr_nonnull(dir);
    struct dirent *e;
    bool seen[STAGE_COUNT] = { false };
    int hidden = 0, shown = 0;
    while ((e = readdir(dir))) {
        if (!strstr(e->d_name, ".lesson")) continue;
        char path[512];
        Error err;
        snprintf(path, sizeof path, "../lessons/%s", e->d_name);
        Lesson *l = lesson_load(path, &err);
        ck_assert_msg(l != NULL, "%s", eline(&err));
        Trace *t = attn_run(l, &err);
        ck_assert_msg(t != NULL, "%s", eline(&err));
        for (int k = 0; k < l->nstages; k++) {
            seen[l->stages[k].id] = true;
            for (int h = 0; h <= l->setups[l->stages[k].setup].heads; h++)
                for (int step = 0, n = 1; step < n; step++) {
                    StageOpts o = { h, step, false, tstages_pager() };
                    View *v = stage_view_with(l, t, k, &o);
                    n = v->nsteps;
                    for (int i = 0; i < v->npanels; i++) {
                        TraceKind kind = v->panels[i].ref.kind;
                        bool clue = (v->id == STAGE_PER_TOKEN && (kind == TK_RAW || kind == TK_SCALED || kind == TK_BIASED
                                                                  || kind == TK_MASKED))  /* what the class guesses from */
                                    || v->id == STAGE_COMPARE;      /* two results and their difference, on purpose */
                        ck_assert_msg(stage_hides(v->id, kind) == (gives_answer_away(kind) && !clue), "%s stage %d (%s): panel %s",
                                      e->d_name, k + 1, lesson_stage_name(v->id), v->panels[i].matrix);
                        if (stage_hides(v->id, kind)) hidden++; else shown++;
                    }
                    stage_view_free(v);
                }
        }
        trace_free(t);
        lesson_free(l);
    }
    closedir(dir);
    for (int i = 0; i < STAGE_COUNT; i++)
        ck_assert_msg(seen[i], "no bundled lesson shows %s: add it to one", lesson_stage_name((StageId)i));
    ck_assert_int_gt(hidden, 100);
    ck_assert_int_gt(shown, 100);
}
END_TEST

/* The message for a stage a setup given its weights cannot show lists the
** stages the table lets it show. */
START_TEST(test_stage_table_given_message)
{
    const char *text = "title: t\n[setup]\ntokens: a b\nA =\n  1 0\n  0.5 0.5\nattention: A\n[raw_scores]\n";
    Error err;
    ck_assert_ptr_null(lesson_parse(text, strlen(text), "given.lesson", &err));
    const char *list = strstr(eline(&err), "it can show ");
    ck_assert_ptr_nonnull(list);
    char words[400];
    snprintf(words, sizeof words, "%s", list + strlen("it can show "));
    int listed = 0;
    for (char *w = strtok(words, ", "); w; w = strtok(NULL, ", ")) {
        StageId id;
        if (!lesson_stage_from_name(w, &id)) continue;          /* "and", "with", "values" */
        bool with_values = strstr(eline(&err), ", with values, ") && strstr(list, w) > strstr(list, "with values");
        ck_assert_int_eq(stage_kind(id)->given, with_values ? GIVEN_WITH_VALUES : GIVEN_YES);
        listed++;
    }
    int can = 0;
    for (int i = 0; i < STAGE_COUNT; i++) can += stage_kind((StageId)i)->given != GIVEN_NO;
    ck_assert_int_eq(listed, can);
}
END_TEST

/* The stage/explain/dump suite. */
Suite *stage_suite(void)
{
    Suite *s = suite_create("stage");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup_lesson, teardown_lesson);
    tcase_add_test(core, test_view_softmax);
    tcase_add_test(core, test_view_every_stage_has_panels);
    tcase_add_test(core, test_view_causal_and_heads);
    tcase_add_test(core, test_indices_number_the_axes);
    tcase_add_test(core, test_explain_scaled_score_by_hand);
    tcase_add_test(core, test_explain_weight_and_output);
    tcase_add_test(core, test_explain_masked_cells);
    tcase_add_test(core, test_dump_is_json_with_nulls);
    tcase_add_test(core, test_modern_explain_every_cell);
    tcase_add_test(core, test_modern_explain_words);
    tcase_add_test(core, test_kv_cache_decodes_every_score_kind);
    tcase_add_test(core, test_qkv_projection_shows_its_inputs);
    tcase_add_test(core, test_per_token_shows_biased_scores);
    tcase_add_test(core, test_grouped_query_shows_keys);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_explain_all_masked_row);
    tcase_add_test(limits, test_limits_non_finite_is_an_error);
    tcase_add_test(limits, test_limits_dump_writes_big_matrices_once);
    tcase_add_test(limits, test_limits_dump_budget_counts_sub_steps);
    tcase_add_test(limits, test_custom_divisor_and_temperature);
    tcase_add_test(core, test_residual_stream);
    tcase_add_test(limits, test_limits_variance_of_huge_scores);
    tcase_add_test(limits, test_limits_explain_additive_overflow);
    tcase_add_test(core, test_explain_given_weights);
    tcase_add_test(core, test_given_padded_query);
    tcase_add_test(core, test_stage_table_rows);
    tcase_add_test(core, test_stage_table_predict_hides_the_answer);
    tcase_add_test(core, test_stage_table_given_message);
    suite_add_tcase(s, limits);
    return s;
}
