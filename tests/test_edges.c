/*
** test_edges.c: stages at the edges of the format. The most heads (16),
** every kind of stage over them, whole (--dump's view) and page by page;
** a setup given its weights after one with other scoring; the names of
** the values' columns on every panel made from them; lessons generated
** here, each of them valid, so that whatever the format allows is shown
** whole.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "tstages.h"
#include "core/compute/attn.h"
#include "core/stage/dump.h"
#include "core/stage/explain.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/stage/stage_table.h"
#include "core/compute/trace.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A set of names (of the matrices a view shows), small and unsorted. */
typedef struct Names {
    char **s;
    int n, cap;
} Names;

/* Whether set has name. */
static bool names_has(const Names *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->s[i], name)) return true;
    return false;
}

/* Add name to set (once). */
static void names_add(Names *set, const char *name)
{
    if (names_has(set, name)) return;
    if (set->n == set->cap) {
        set->cap = set->cap ? 2 * set->cap : 32;
        set->s = xrealloc(set->s, sizeof *set->s * (size_t)set->cap);
    }
    set->s[set->n++] = xstrdup(name);
}

/* Empty set. */
static void names_free(Names *set)
{
    for (int i = 0; i < set->n; i++) free(set->s[i]);
    free(set->s);
    memset(set, 0, sizeof *set);
}

/*
** A lesson of n tokens (the last a pad token) and 16 heads that every
** kind of stage but additive_scores (one head only) can show: ALiBi
** under a sliding window with padding, RoPE, grouped-query heads,
** sinusoidal positions, cross-attention, weights given as a model
** returns them, a whole block ending in the next token, and one more in
** the post-norm order continuing its stream, and every head of the two in
** one grid.
*/
static char *sixteen_heads_lesson(int n, int seed)
{
    Buf b = {0};
    buf_printf(&b, "title: Sixteen heads over %d tokens\n[setup]\nseed: %d\ntokens:", n, seed);
    for (int i = 1; i < n; i++) buf_printf(&b, " t%d", i);
    buf_printf(&b, " <p>\nX = randn %dx32\n", n);
    buf_puts(&b, "W_q = randn 32x32 * 0.3\nW_k = randn 32x32 * 0.3\nW_v = randn 32x32 * 0.3\n"
                 "b_q = randn 1x32 * 0.1\nb_k = randn 1x32 * 0.1\nb_v = randn 1x32 * 0.1\nW_o = randn 32x32 * 0.2\n"
                 "queries: X @ W_q + b_q\nkeys: X @ W_k + b_k\nvalues: X @ W_v + b_v\noutput: W_o\nheads: 16\n"
                 "mask: sliding 3 padding <p>\npositions: alibi\n"
                 "[embeddings]\n[raw_scores]\n[scaled_scores]\n[softmax]\n[weighted_sum]\n[qkv_projection]\n"
                 "[multi_head]\n[causal_mask]\n[entropy]\n[alibi]\n[kv_cache]\n[per_token]\n");
    buf_printf(&b, "query: %d\n", n - 1);
    buf_puts(&b, "[setup]\npositions: rope\nmask: causal\n[rope]\n[kv_cache]\n[online_softmax]\n"
                 "[setup]\npositions: none\nkv_heads: 4\nW_k = randn 32x8 * 0.3\nW_v = randn 32x8 * 0.3\n"
                 "b_k = randn 1x8 * 0.1\nb_v = randn 1x8 * 0.1\n[grouped_query]\n[kv_cache]\n[online_softmax]\n"
                 "[setup]\nkv_heads: 16\nmask: none\nW_k = randn 32x32 * 0.3\nW_v = randn 32x32 * 0.3\n"
                 "b_k = randn 1x32 * 0.1\nb_v = randn 1x32 * 0.1\npositions: sinusoidal\n[positional_encoding]\n");
    buf_puts(&b, "[setup]\npositions: none\nquery_tokens: a b c d e\nkey_tokens:");
    for (int i = 1; i <= n; i++) buf_printf(&b, " k%d", i);
    buf_printf(&b, "\nX = randn 5x32\nY = randn %dx32\nkeys: Y @ W_k + b_k\nvalues: Y @ W_v + b_v\n"
                   "[cross_attention]\n[multi_head]\n", n);
    buf_printf(&b, "[setup]\ntokens:");
    for (int i = 1; i <= n; i++) buf_printf(&b, " w%d", i);
    buf_printf(&b, "\nA = ones %dx%d * 1/%d\nattention: A\nheads: 16\nX = randn %dx32\nvalues: X @ W_v\n"
                   "[softmax]\n[multi_head]\n[per_token]\n[entropy]\n[weighted_sum]\n", n, 16 * n, n, n);
    buf_printf(&b, "[setup]\nattention: none\nX = randn %dx32\nqueries: X @ W_q + b_q\nkeys: X @ W_k + b_k\n"
                   "values: X @ W_v + b_v\nheads: 16\nmask: causal\n"
                   "g = ones 1x32\nbeta = zeros 1x32\nW_in = randn 32x64 * 0.1\nb_in = zeros 1x64\n"
                   "W_out = randn 64x32 * 0.1\nb_out = zeros 1x32\nW_U = randn 32x12\n"
                   "layer_norm: g beta\nmlp_norm: g beta\nmlp: W_in + b_in gelu_tanh W_out + b_out\nfinal_norm: g beta\n"
                   "unembed: W_U\nvocab: v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v11 v12\n"
                   "[layer_norm]\n[multi_head]\n[mlp]\n[next_token]\n"
                   "[setup]\nablate: 2 16\n[compare]\nshow: next_token\n[compare]\nshow: weights\nhead: 16\n"
                   "[compare]\nshow: output\nhead: 3\n[compare]\nshow: output\n"
                   "[setup: post-norm]\nablate: none\nnorm_order: post\nresidual: yes\n"
                   "[multi_head]\n[layer_norm]\n[mlp]\n[next_token]\n[model_view]\n", n);
    return buf_take(&b);
}

/* The names of the matrices the panels of v show, into set. */
static void view_names(const View *v, Names *set)
{
    for (int k = 0; k < v->npanels; k++) names_add(set, v->panels[k].matrix);
}

/* Whether a name is head h's ("head3.weights" is head 3's); the rest after
** the dot in *what. */
static int head_of(const char *name, const char **what)
{
    int h = 0, used = 0;
    if (sscanf(name, "head%d.%n", &h, &used) != 1 || used == 0) return 0;
    *what = name + used;
    return h;
}

/*
** Stage k of L whole (every panel on one view, as --dump shows it) and
** page by page (as the slides show it): every page holds at most the
** panels a page can, the pages together show exactly what the whole
** does (at least its first step, for a stage that unfolds in time), and a
** stage that shows a head's matrix shows it for every head it is about
** (every one of the 16 query heads, or of the K/V heads).
*/
static void check_stage_whole(const Lesson *L, const Trace *T, int k, const char *what)
{
    StageOpts whole = { 0, 0, true, NULL };
    View *w = stage_view_with(L, T, k, &whole);
    ck_assert_ptr_nonnull(w);
    Names all = {0}, paged = {0};
    view_names(w, &all);
    int nsteps = 1;
    for (int step = 0; step < nsteps; step++) {
        StageOpts o = { 0, step, false, tstages_pager() };
        View *v = stage_view_with(L, T, k, &o);
        nsteps = v->nsteps;
        ck_assert_msg(v->npanels <= VIEW_MAX_PANELS, "%s: stage %d (%s) page %d shows %d panels", what, k + 1,
                      lesson_stage_name(w->id), step + 1, v->npanels);
        view_names(v, &paged);
        stage_view_free(v);
    }
    for (int i = 0; i < all.n; i++)
        ck_assert_msg(names_has(&paged, all.s[i]), "%s: stage %d (%s) shows %s whole, on none of its %d pages", what, k + 1,
                      lesson_stage_name(w->id), all.s[i], nsteps);
    /* a stage that unfolds in time (kv_cache's tokens, online_softmax's blocks) shows its first step whole */
    bool in_time = stage_kind(w->id)->steps != NULL;
    for (int i = 0; i < paged.n && !in_time; i++)
        ck_assert_msg(names_has(&all, paged.s[i]), "%s: stage %d (%s) shows %s on a page, not whole", what, k + 1,
                      lesson_stage_name(w->id), paged.s[i]);
    if (in_time) {
        Names t = all;
        all = paged;
        paged = t;
    }
    /* every head of every per-head matrix: the query heads, or each K/V head through its first query head */
    const TraceSetup *ts = &T->s[L->stages[k].setup];
    int H = ts->heads;
    bool one_head = w->id == STAGE_GROUPED_QUERY || w->id == STAGE_ONLINE_SOFTMAX || w->id == STAGE_COMPARE;
    for (int i = 0; i < all.n && H > 1 && !one_head; i++) {
        const char *rest;
        if (!head_of(all.s[i], &rest)) continue;
        for (int h = 1; h <= H; h++) {
            char name[64], first[64];
            snprintf(name, sizeof name, "head%d.%s", h, rest);
            snprintf(first, sizeof first, "head%d.%s", trace_kv_first(ts, h), rest);
            ck_assert_msg(names_has(&all, name) || names_has(&all, first), "%s: stage %d (%s) shows %s but not %s", what,
                          k + 1, lesson_stage_name(w->id), all.s[i], name);
        }
    }
    /* every matrix shown explains its first and last cell (a compare stage's differences are its own) */
    for (int i = 0; i < all.n && w->id != STAGE_COMPARE; i++) {
        const Mat *m = trace_get(T, L->stages[k].setup, all.s[i]);
        ck_assert_msg(m != NULL, "%s: stage %d (%s) shows %s, which names no matrix", what, k + 1, lesson_stage_name(w->id),
                      all.s[i]);
        for (int c = 0; c < 2; c++) {
            int r = c ? m->rows - 1 : 0, col = c ? m->cols - 1 : 0;
            char *ex = explain_cell(L, T, L->stages[k].setup, all.s[i], r, col);
            ck_assert_msg(ex && *ex, "%s: stage %d (%s): %s[%d][%d] has no explanation", what, k + 1,
                          lesson_stage_name(w->id), all.s[i], r + 1, col + 1);
            free(ex);
        }
    }
    names_free(&all);
    names_free(&paged);
    stage_view_free(w);
}

/* The views of every stage of text, whole and paged (check_stage_whole),
** and its dump, which must name in_dump; kinds (when not NULL) counts the
** stages of each kind. */
static void views_of_every_stage(const char *text, const char *name, const char *in_dump, int *kinds)
{
    Lesson *L;
    Trace *T = tstages_run(text, name, &L);
    for (int k = 0; k < L->nstages; k++) {
        if (kinds) kinds[L->stages[k].id]++;
        check_stage_whole(L, T, k, name);
    }
    Buf out = {0};
    dump_json(L, T, &out);
    ck_assert_msg(strstr(buf_str(&out), in_dump) != NULL, "%s: the dump has no %s", name, in_dump);
    buf_free(&out);
    trace_free(T);
    lesson_free(L);
}

START_TEST(test_sixteen_heads_every_stage_whole)
{
    static const int sizes[][2] = { { 8, 1 }, { 11, 7 }, { 16, 42 } };
    int kinds[STAGE_COUNT] = { 0 };
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        char *text = sixteen_heads_lesson(sizes[t][0], sizes[t][1]);
        char what[64];
        snprintf(what, sizeof what, "sixteen heads, %d tokens", sizes[t][0]);
        views_of_every_stage(text, what, "\"head16.weights\"", kinds);        /* the dump writes every head too */
        free(text);
    }
    for (int id = 0; id < STAGE_COUNT; id++)        /* every kind of stage but additive scores (one head only) */
        ck_assert_msg(kinds[id] > 0 || id == STAGE_ADDITIVE_SCORES, "no lesson here shows %s", lesson_stage_name(id));
}
END_TEST

START_TEST(test_given_after_additive_scores)
{
    /* additive scores over queries and keys of other widths, then a setup
    ** given its weights, which has no keys: naming its values' columns read
    ** the keys' input (NULL) and crashed --dump and --export */
    views_of_every_stage("title: Given after additive\n[setup]\nseed: 1\nquery_tokens: a b\nkey_tokens: c d\n"
                         "X = randn 2x3\nY = randn 2x2\nW1 = randn 3x4\nW2 = randn 2x4\nv = randn 4x1\n"
                         "score: additive\nadditive: W1 W2 v\ndims: p q r\n[softmax]\n[additive_scores]\n"
                         "[setup]\nA = stack 2\n  0.5 0.5 1 0\n  0.3 0.7 0 1\nV_in = randn 2x4\nattention: A\nvalues: V_in\n"
                         "[multi_head]\n[weighted_sum]\n[cross_attention]\n",
                         "given-after-additive.lesson", "\"stages\"", NULL);
}
END_TEST

/* The column labels of the first panel of stage k (whole) showing matrix
** name, joined with spaces. */
static char *labels_of(const Lesson *L, const Trace *T, int k, const char *name)
{
    StageOpts whole = { 0, 0, true, NULL };
    View *v = stage_view_with(L, T, k, &whole);
    Buf b = {0};
    for (int i = 0; i < v->npanels; i++) {
        const Panel *p = &v->panels[i];
        if (strcmp(p->matrix, name)) continue;
        for (int j = 0; j < p->m->cols; j++) buf_printf(&b, "%s%s", j ? " " : "", p->col_labels[j]);
        break;
    }
    stage_view_free(v);
    return buf_take(&b);
}

START_TEST(test_value_dims_label_everything_made_from_v)
{
    Lesson *L;
    Trace *T = tstages_run("title: Named values\n[setup]\nseed: 1\ntokens: a b c d\nX = randn 4x4\n"
                           "W_q = randn 4x4\nW_k = randn 4x4\nW_v = randn 4x4\n"
                           "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: 2\nmask: causal\n"
                           "value_dims: animate feminine plural verb\n"
                           "[qkv_projection]\n[qkv_projection]\nindices: yes\n[weighted_sum]\nindices: yes\n"
                           "[online_softmax]\nblock: 2\nhead: 2\n[kv_cache]\n",
                           "named-values.lesson", &L);
    struct { int stage, step; const char *matrix, *want; } cases[] = {
        { 0, 0, "V", "animate feminine plural verb" },
        { 0, 0, "head1.V", "animate feminine" },
        { 0, 0, "head2.V", "plural verb" },
        { 0, 0, "head2.Q", "d3 d4" },
        { 1, 0, "V", "1 animate 2 feminine 3 plural 4 verb" },
        { 1, 0, "head2.V", "3 plural 4 verb" },     /* numbered as in the whole matrix, as d3 d4 are */
        { 1, 0, "head2.K", "d3 d4" },
        { 2, 0, "head2.output", "3 plural 4 verb" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = labels_of(L, T, cases[i].stage, cases[i].matrix);
        ck_assert_msg(!strcmp(got, cases[i].want), "stage %d, %s: labels '%s', expected '%s'", cases[i].stage + 1,
                      cases[i].matrix, got, cases[i].want);
        free(got);
    }
    /* online_softmax's running output, its final output and the difference, and the K/V cache's values and outputs */
    int steps[2] = { 0, 0 };
    for (int s = 3; s <= 4; s++) {
        View *v = tstages_view(L, T, s);
        steps[s - 3] = v->nsteps;
        stage_view_free(v);
    }
    const char *per_stage[2][4] = { { "head2.online_acc.b2", "head2.online_output.b2", "head2.output", "head2.online_diff.b2" },
                                    { "head2.V", "head2.kv_output", "head2.output", NULL } };
    int found[2][4] = { { 0 } };
    for (int s = 0; s < 2; s++)
        for (int step = 0; step < steps[s]; step++) {
            StageOpts o = { 0, step, false, tstages_pager() };
            View *v = stage_view_with(L, T, 3 + s, &o);
            for (int i = 0; i < v->npanels; i++)
                for (int j = 0; j < 4 && per_stage[s][j]; j++) {
                    const Panel *p = &v->panels[i];
                    if (strcmp(p->matrix, per_stage[s][j]) || p->kind != PANEL_HEATMAP) continue;
                    found[s][j]++;
                    ck_assert_msg(!strcmp(p->col_labels[0], "plural") && !strcmp(p->col_labels[p->m->cols - 1], "verb"),
                                  "%s on page %d of %s: labels '%s' … '%s'", p->matrix, step + 1,
                                  lesson_stage_name(v->id), p->col_labels[0], p->col_labels[p->m->cols - 1]);
                }
            stage_view_free(v);
        }
    for (int s = 0; s < 2; s++)
        for (int j = 0; j < 4 && per_stage[s][j]; j++)
            ck_assert_msg(found[s][j] > 0, "no page shows %s", per_stage[s][j]);
    trace_free(T);
    lesson_free(L);
}
END_TEST

START_TEST(test_one_input_for_two_roles_names_both)
{
    Lesson *L;
    Trace *T = tstages_run("title: Keys and values from B\n[setup]\nseed: 2\ntokens: a b c\nX = randn 3x4\nB = randn 3x4\n"
                           "W_q = randn 4x4\nqueries: X @ W_q\nkeys: B\nvalues: B\n[qkv_projection]\n"
                           "[setup]\nvalue_dims: w x y z\n[qkv_projection]\n",
                           "two-roles.lesson", &L);
    for (int k = 0; k < 2; k++) {
        StageOpts whole = { 0, 0, true, NULL };
        View *v = stage_view_with(L, T, k, &whole);
        int titled[2] = { 0, 0 };               /* panels of B titled with K, with V */
        for (int i = 0; i < v->npanels; i++) {
            if (strcmp(v->panels[i].matrix, "B")) continue;
            const char *t = v->panels[i].title;
            titled[0] += strstr(t, "K") != NULL;
            titled[1] += strstr(t, "V") != NULL;
            if (k == 1 && strstr(t, "V")) ck_assert_str_eq(v->panels[i].col_labels[0], "w");
        }
        ck_assert_msg(titled[0] == 1 && titled[1] == 1, "stage %d: B titled as K on %d panels, as V on %d", k + 1, titled[0],
                      titled[1]);
        stage_view_free(v);
    }
    trace_free(T);
    lesson_free(L);
}
END_TEST

START_TEST(test_next_token_shows_every_word_asked_for)
{
    /* top: 1000 over 1,000 words: every word, whole in --dump's view and on
    ** pages of the slide (each word once), never 40 words cut without one */
    Buf b = {0};
    buf_puts(&b, "title: Every word\n[setup]\nseed: 1\ntokens: a b c\nX = randn 3x4\nW_U = randn 4x1000\nunembed: W_U\nvocab:");
    for (int i = 1; i <= 1000; i++) buf_printf(&b, " w%d", i);
    buf_puts(&b, "\n[next_token]\ntop: 1000\n[next_token]\ntop: 2\n");
    Lesson *L;
    Trace *T = tstages_run(buf_str(&b), "every-word.lesson", &L);
    StageOpts whole = { 0, 0, true, NULL };
    View *w = stage_view_with(L, T, 0, &whole);
    int k = stage_find_panel(w, trace_block_ref(TK_TOP_PROBS, 0, 1000), 1, -1);
    ck_assert_int_ge(k, 0);
    const Mat *P = w->panels[k].m;
    ck_assert_int_eq(P->cols, 1000);
    for (int i = 0; i < P->rows; i++) {
        double sum = 0;
        for (int j = 0; j < P->cols; j++) sum += mat_get(P, i, j);
        ck_assert_double_eq_tol(sum, 1.0, 1e-12);
    }
    stage_view_free(w);
    int shown[1000] = { 0 }, pages = 1;
    for (int step = 0; step < pages; step++) {
        StageOpts o = { 0, step, false, tstages_pager() };
        View *v = stage_view_with(L, T, 0, &o);
        pages = v->nsteps;
        int q = stage_find_panel(v, trace_block_ref(TK_TOP_PROBS, 0, 1000), 1, -1);
        ck_assert_int_ge(q, 0);
        const Panel *p = &v->panels[q];
        for (int j = 0; j < p->m->cols; j++) {
            char want[16];
            snprintf(want, sizeof want, "w%d", p->col_offset + j + 1);
            ck_assert_str_eq(p->col_labels[j], want);
            shown[p->col_offset + j]++;
        }
        stage_view_free(v);
    }
    ck_assert_int_gt(pages, 1);
    for (int j = 0; j < 1000; j++) ck_assert_msg(shown[j] == 1, "word %d shown on %d pages", j + 1, shown[j]);
    View *two = tstages_view(L, T, 1);            /* a few words: one page */
    ck_assert_int_eq(two->nsteps, 1);
    stage_view_free(two);
    trace_free(T);
    lesson_free(L);
    buf_free(&b);
}
END_TEST

START_TEST(test_rows_that_see_no_key_are_marked)
{
    /* padded queries see no key: weights and outputs 0 where PyTorch gives
    ** NaN; every stage that shows their rows marks them, says so in its
    ** note, and the dump lists them */
    Lesson *L;
    Trace *T = tstages_run("title: Padding\n[setup]\nseed: 1\ntokens: the cat <pad> <pad>\nX = randn 4x4\n"
                           "mask: padding <pad>\n[softmax]\n[weighted_sum]\n[entropy]\n[setup]\nheads: 2\n"
                           "[multi_head]\n[per_token]\nquery: 3\n[causal_mask]\n[raw_scores]\n",
                           "padding.lesson", &L);
    for (int k = 0; k < L->nstages; k++) {
        int pages = 1, marked = 0;
        for (int step = 0; step < pages; step++) {
            StageOpts o = { 0, step, false, tstages_pager() };
            View *v = stage_view_with(L, T, k, &o);
            pages = v->nsteps;
            ck_assert_int_eq(v->nblind, 2);
            ck_assert_int_eq(v->blind_rows[0], 2);
            ck_assert_int_eq(v->blind_rows[1], 3);
            ck_assert_msg(v->note && strstr(v->note, "2 queries see no key"), "stage %d: note '%s'", k + 1, v->note);
            for (int i = 0; i < v->npanels; i++) {
                const Panel *p = &v->panels[i];
                for (int r = 0; p->row_labels && r < p->m->rows; r++) {
                    const char *l = p->row_labels[r];
                    bool pad = strstr(l, "<pad>") != NULL, mark = !strncmp(l, STAGE_BLIND_MARK, strlen(STAGE_BLIND_MARK));
                    /* marked: a padded query; a padded query's row of weights: marked (V's rows are keys) */
                    ck_assert_msg(mark ? pad : !(pad && p->probabilities), "stage %d, %s: row label '%s'", k + 1, p->matrix, l);
                    marked += mark;
                }
                for (int j = 0; p->col_labels && j < p->m->cols; j++)     /* keys are not marked */
                    ck_assert_msg(strncmp(p->col_labels[j], STAGE_BLIND_MARK, strlen(STAGE_BLIND_MARK)), "stage %d: %s",
                                  k + 1, p->col_labels[j]);
            }
            stage_view_free(v);
        }
        ck_assert_msg(marked > 0, "stage %d marks no row", k + 1);
    }
    Buf out = {0};
    dump_json(L, T, &out);
    ck_assert_ptr_nonnull(strstr(buf_str(&out), "\"queries_without_keys\": [3, 4]"));
    buf_free(&out);
    trace_free(T);
    lesson_free(L);
}
END_TEST

/* Every head of every layer: the grid holds each setup's weights in its
** block, skips a setup of other heads, labels its blocks, explains a cell
** in the weight's own setup, and is refused past its size. */
START_TEST(test_model_view_grid)
{
    static const char *const text =
        "title: Three layers\n[setup: Layer 1]\nseed: 4\ntokens: a b c d e\nX = randn 5x8\nW_q = randn 8x8\n"
        "W_k = randn 8x8\nW_v = randn 8x8\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: 4\nmask: causal\n"
        "[multi_head]\n[setup: Two heads]\nheads: 2\n[setup: Layer 2]\nheads: 4\nW_q = randn 8x8\n"
        "[setup: Layer 3]\nW_k = randn 8x8\n[model_view]\n";
    Lesson *L;
    Trace *T = tstages_run(text, "grid.lesson", &L);
    const Mat *g = trace_at(T, 3, trace_ref(TK_GRID, 0));
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(g->rows, 15);
    ck_assert_int_eq(g->cols, 20);
    static const int layers[3] = { 0, 2, 3 };            /* "Two heads" is not one of them */
    for (int l = 0; l < 3; l++)
        for (int h = 1; h <= 4; h++) {
            const Mat *w = trace_at(T, layers[l], trace_ref(TK_WEIGHTS, h));
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++)
                    ck_assert(mat_get(g, 5 * l + i, 5 * (h - 1) + j) == mat_get(w, i, j));
        }
    View *v = stage_view(L, T, 1);
    ck_assert_int_eq(v->npanels, 1);
    const Panel *p = &v->panels[0];
    ck_assert_str_eq(p->matrix, "heads_grid");
    ck_assert_int_eq(p->block_rows, 5);
    ck_assert_int_eq(p->block_cols, 5);
    ck_assert_str_eq(p->row_blocks[1], "Layer 2");
    ck_assert_str_eq(p->col_blocks[3], "head 4");
    ck_assert_str_eq(p->row_labels[7], "c");
    ck_assert(p->probabilities);
    /* zoomed in: a part keeps where the whole's blocks meet, its rows and columns their tokens */
    ck_assert(stage_view_zoom(v, 0, 3, 12, 7, 18, 0, 1));
    p = &v->panels[0];
    ck_assert_ptr_null(p->row_blocks);
    ck_assert_int_eq(p->block_rows, 5);
    ck_assert_int_eq(p->row_offset, 3);
    ck_assert_str_eq(p->row_labels[0], "d");
    ck_assert_str_eq(p->col_labels[0], "c");
    stage_view_free(v);
    char *ex = explain_cell(L, T, 3, "heads_grid", 7, 12);          /* layer 2, head 3, query c, key c */
    ck_assert_msg(ex && !strncmp(ex, "Layer 2: ", 9) && strstr(ex, "softmax"), "%s", ex);
    free(ex);
    trace_free(T);
    lesson_free(L);

    Buf b = {0};                                        /* 3 layers x 16 heads over 600 tokens: 17,280,000 weights */
    buf_puts(&b, "title: Too many\n[setup]\nseed: 1\ntokens:");
    for (int i = 0; i < 600; i++) buf_printf(&b, " t%d", i);
    buf_puts(&b, "\nX = randn 600x16\nheads: 16\n[setup]\n[setup]\n[model_view]\n");
    Error err;
    L = lesson_parse(buf_str(&b), b.len, "big.lesson", &err);
    ck_assert_ptr_null(L);
    ck_assert_msg(!strcmp(err.msg, "stage model_view: 3 layers of 16 heads over 600x600 tokens make a grid of "
                  "1800x9600 weights, over the limit of 16777216 cells; use fewer tokens"), "%s", err.msg);
    ck_assert_int_eq(err.line, 9);
    buf_free(&b);
}
END_TEST

/* Post-norm with sinusoidal positions: the first residual sum starts from
** X + PE (the stream carries the positions, as the first Transformer's
** does), and the block hands on the norm of the second sum. */
START_TEST(test_post_norm_with_positions)
{
    Lesson *L;
    Trace *T = tstages_run("title: t\n[setup]\nseed: 2\ntokens: a b c\nX = randn 3x4\nW_q = randn 4x4\n"
                           "W_k = randn 4x4\nW_v = randn 4x4\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\n"
                           "positions: sinusoidal\ng = ones 1x4\nb = zeros 1x4\nW_in = randn 4x8\nW_out = randn 8x4\n"
                           "layer_norm: g b\nmlp_norm: g b\nmlp: W_in relu W_out\nnorm_order: post\n"
                           "[layer_norm]\n[mlp]\n", "post.lesson", &L);
    const Mat *xpe = trace_at(T, 0, trace_ref(TK_XPE, 0)), *out = trace_at(T, 0, trace_ref(TK_CONCAT, 0));
    const Mat *sum = trace_at(T, 0, trace_ref(TK_ATTN_SUM, 0)), *ln = trace_at(T, 0, trace_ref(TK_LN, 0));
    const Mat *mid = trace_at(T, 0, trace_ref(TK_MID, 0)), *msum = trace_at(T, 0, trace_ref(TK_MLP_SUM, 0));
    const Mat *mout = trace_at(T, 0, trace_ref(TK_MLP_OUT, 0)), *post = trace_at(T, 0, trace_ref(TK_STREAM, 0));
    if (!out) out = trace_at(T, 0, trace_ref(TK_OUTPUT, 1));
    ck_assert(xpe && out && sum && ln && mid && msum && mout && post);
    ck_assert_ptr_eq(mid, ln);                          /* the stream after attention is the first norm's output */
    for (int i = 0; i < 3; i++) {
        double m = 0, v = 0;
        for (int j = 0; j < 4; j++) {
            ck_assert(mat_get(sum, i, j) == mat_get(xpe, i, j) + mat_get(out, i, j));
            ck_assert(mat_get(msum, i, j) == mat_get(mid, i, j) + mat_get(mout, i, j));
            m += mat_get(post, i, j) / 4;
        }
        for (int j = 0; j < 4; j++) v += (mat_get(post, i, j) - m) * (mat_get(post, i, j) - m) / 4;
        ck_assert_msg(fabs(m) < 1e-12 && fabs(v - 1) < 1e-4, "row %d of the output: mean %g, variance %g", i, m, v);
    }
    char *ex = explain_cell(L, T, 0, "attn_sum", 1, 2);
    ck_assert_msg(ex && strstr(ex, "X + the attention's output"), "%s", ex);
    free(ex);
    trace_free(T);
    lesson_free(L);
}
END_TEST

/* The suite. */
Suite *edges_suite(void)
{
    Suite *s = suite_create("edges");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sixteen_heads_every_stage_whole);
    tcase_add_test(tc, test_given_after_additive_scores);
    tcase_add_test(tc, test_value_dims_label_everything_made_from_v);
    tcase_add_test(tc, test_one_input_for_two_roles_names_both);
    tcase_add_test(tc, test_next_token_shows_every_word_asked_for);
    tcase_add_test(tc, test_rows_that_see_no_key_are_marked);
    tcase_add_test(tc, test_model_view_grid);
    tcase_add_test(tc, test_post_norm_with_positions);
    suite_add_tcase(s, tc);
    return s;
}
