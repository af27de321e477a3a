/*
** test_drawn.c: what a formula names is drawn, on every page of its stage,
** laid out with DejaVu Sans on the projector slide (1280x720):
** qkv_projection shows the weights (and their biases) before Q, K and V;
** next_token frames each row's likeliest words and marks the word that
** really comes next; RoPE's angles print with one number of decimals.
** (The wide MLP's pages are measured with the slides suite.)
*/
#include "suites.h"
#include "tfonts.h"
#include "tstages.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "sdl/font.h"
#include "view/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v laid out on the projector slide with DejaVu Sans (caller frees). */
static DrawList *lay_slide(const View *v)
{
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(1280, 720, &th, font_measure, tfonts);
    DrawList *d = draw_create(1280, 720);
    LayoutCache *lc = layout_cache_create();
    layout_view(lc, v, &o, d);
    layout_cache_free(lc);
    return d;
}

/* The lesson at path and its trace in *T, or fail. */
static Lesson *load_run(const char *path, Trace **T)
{
    Error err;
    Lesson *L = lesson_load(path, &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    *T = attn_run(L, &err);
    ck_assert_msg(*T != NULL, "%s", eline(&err));
    return L;
}

/* A projection with biases, four tokens wide enough to take two pages. */
static const char *const BIAS_LESSON =
    "title: Biases\n[setup: s]\nseed: 5\ntokens: the cat sat down\nX = randn 4x4\n"
    "W_q = randn 4x4\nW_k = randn 4x4\nW_v = randn 4x4\nb_q = randn 1x4\nb_k = randn 1x4\nb_v = randn 1x4\n"
    "queries: X @ W_q + b_q\nkeys: X @ W_k + b_k\nvalues: X @ W_v + b_v\n"
    "[qkv_projection: Q, K, V with biases]\n\nEach projection adds its bias.\n";

/* Where the panels of a stage's pages come, in the order the slides show
** them (page by page, panel by panel): a running count. */
typedef struct Order {
    int seen;
    int weight[3], bias[3], made[3];    /* when W_q, b_q, Q ... were first seen (-1: never) */
    int weight_page[3], made_page[3];
    int page;
    const Trace *T;
    const char *bias_names[3];
    int bias_panels, bias_right;        /* bias panels, and those labelled, valued and coloured as they must */
} Order;

/* The index (0 … 2) of Q, K, V among names, or -1. */
static int role_of(const char *name, const char *const *names)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, names[i])) return i;
    return -1;
}

/* tstages_each_step callback: note where each weight, bias and product
** comes, and check each bias panel against the lesson's bias. */
static void note_order(const View *v, void *ctx)
{
    Order *o = ctx;
    static const char *const weights[3] = { "W_q", "W_k", "W_v" };
    static const TraceKind made[3] = { TK_Q, TK_K, TK_V };
    for (int k = 0; k < v->npanels; k++, o->seen++) {
        const Panel *p = &v->panels[k];
        int w = role_of(p->matrix, weights), b = role_of(p->matrix, o->bias_names);
        for (int i = 0; i < 3; i++)
            if (p->ref.kind == made[i] && p->ref.head == 0 && o->made[i] < 0) {
                o->made[i] = o->seen;
                o->made_page[i] = o->page;
            }
        if (w >= 0 && o->weight[w] < 0) {
            o->weight[w] = o->seen;
            o->weight_page[w] = o->page;
        }
        if (b < 0) continue;
        if (o->bias[b] < 0) o->bias[b] = o->seen;
        o->bias_panels++;
        const Mat *want = trace_get(o->T, 0, o->bias_names[b]);
        int wk = -1;                    /* its weight's panel on this page: there must be one */
        for (int j = 0; j < v->npanels; j++) if (!strcmp(v->panels[j].matrix, weights[b])) wk = j;
        bool right = want && p->m->rows == 1 && p->m->cols == want->cols && mat_max_abs_diff(p->m, want) == 0.0 &&
                     !strcmp(p->row_labels[0], o->bias_names[b]) && p->scale_group > 0 &&
                     wk >= 0 && v->panels[wk].scale_group == p->scale_group;
        o->bias_right += right;
    }
    o->page++;
}

/* qkv_projection: W_q, W_k, W_v come before Q, K, V (the story's order),
** on every page and within one; each bias is a one-row panel with the
** lesson's numbers, its row labelled with its name, on its weight's page
** and colour scale. */
START_TEST(test_qkv_weights_before_what_they_make)
{
    Lesson *l;
    Trace *t = tstages_run(BIAS_LESSON, "bias.lesson", &l);
    Order o = { 0, { -1, -1, -1 }, { -1, -1, -1 }, { -1, -1, -1 }, { -1, -1, -1 }, { -1, -1, -1 }, 0, t,
                { "b_q", "b_k", "b_v" }, 0, 0 };
    tstages_each_step(l, t, 0, 0, note_order, &o);
    for (int i = 0; i < 3; i++) {
        ck_assert_msg(o.weight[i] >= 0 && o.made[i] >= 0 && o.bias[i] >= 0, "role %d: a panel missing", i);
        ck_assert_msg(o.weight[i] < o.made[i], "role %d: the product (panel %d) before its weight (panel %d)", i,
                      o.made[i], o.weight[i]);
        ck_assert_int_le(o.weight_page[i], o.made_page[i]);
        for (int j = 0; j < 3; j++) ck_assert_msg(o.weight[j] < o.made[i], "W %d after product %d", j, i);
        ck_assert_msg(o.bias[i] < o.made[i], "b %d after its product", i);
        if (i > 0) ck_assert_int_lt(o.weight[i - 1], o.weight[i]);
    }
    ck_assert_int_eq(o.bias_panels, 3);
    ck_assert_int_eq(o.bias_right, 3);
    View *v = tstages_view(l, t, 0);
    ck_assert_ptr_nonnull(strstr(v->formula, "Q = X\xc2\xb7W_q + b_q"));
    stage_view_free(v);
    trace_free(t);
    lesson_free(l);
}
END_TEST

/* Lesson 13's next_token marks, recomputed with numpy from --dump's
** top_probs.k3 (its 6 words are every word of the vocabulary, the, cat,
** sat, on, mat, dog): bit 1 where np.argsort(-P, kind="stable")[:, :3]
** puts a word, bit 2 on the token that comes next (the cat sat on the:
** cat, sat, on, the; the last row has none). */
static const int WANT_MARKS[5][6] = {
    { 0, 3, 0, 1, 1, 0 }, { 0, 0, 3, 1, 1, 0 }, { 1, 1, 0, 2, 0, 1 }, { 3, 0, 1, 0, 1, 0 }, { 0, 1, 1, 1, 0, 0 },
};

/* What the pages of next_token mark and draw, word by word. */
typedef struct Marks {
    const Trace *T;
    int s;
    int marks[5][6];                    /* the panels' marks, by vocabulary word (-1: not shown) */
    int frames[5][6], diamonds[5][6];   /* what the slide draws on each cell */
    int notes;                          /* pages whose note is the legend */
} Marks;

/* tstages_each_step callback: the marks of the probabilities, and the
** frames and diamonds the slide draws on them. */
static void note_marks(const View *v, void *ctx)
{
    Marks *mk = ctx;
    const Mat *ids = trace_at(mk->T, mk->s, trace_block_ref(TK_TOP_IDS, 0, 3));
    ck_assert_ptr_nonnull(ids);
    mk->notes += v->note && !strcmp(v->note, "framed: each row's 3 likeliest words; \xe2\x97\x86 the word that comes next "
                                              "\xc2\xb7 the likeliest word is the token that comes next in 2 of 4 rows");
    DrawList *d = lay_slide(v);
    for (int k = 0; k < v->npanels; k++) {
        const Panel *p = &v->panels[k];
        if (p->ref.kind != TK_TOP_PROBS) {
            ck_assert_ptr_null(p->cell_marks);
            continue;
        }
        ck_assert_ptr_nonnull(p->cell_marks);
        for (int r = 0; r < p->m->rows; r++)
            for (int c = 0; c < p->m->cols; c++) {
                int w = (int)ids->data[c + p->col_offset];
                mk->marks[r][w] = p->cell_marks[r * p->m->cols + c];
            }
        for (int i = 0; i < d->n; i++) {
            const DrawCmd *cmd = &d->cmds[i];
            if (cmd->role != ROLE_CELL_MARK || cmd->panel != k) continue;
            int w = (int)ids->data[cmd->col + p->col_offset];
            if (cmd->kind == DRAW_RECT) mk->frames[cmd->row][w]++;
            if (cmd->kind == DRAW_LINE) mk->diamonds[cmd->row][w]++;
        }
    }
    draw_free(d);
}

/* next_token: each row's 3 likeliest words framed, the word that comes
** next marked with a diamond, as numpy finds them, on the panel and on the
** slide (a frame is two rectangles: dark, lined light; a diamond two
** lines: ringed), with the legend in the note. */
START_TEST(test_next_token_marks_top_words_and_the_next)
{
    Trace *t;
    Lesson *l = load_run("../lessons/13-a-whole-block.lesson", &t);
    int k = 3;
    ck_assert_int_eq(l->stages[k].id, STAGE_NEXT_TOKEN);
    Marks mk;
    memset(&mk, 0, sizeof mk);
    memset(mk.marks, -1, sizeof mk.marks);
    mk.T = t;
    mk.s = l->stages[k].setup;
    tstages_each_step(l, t, k, 0, note_marks, &mk);
    for (int r = 0; r < 5; r++)
        for (int w = 0; w < 6; w++) {
            ck_assert_msg(mk.marks[r][w] == WANT_MARKS[r][w], "row %d word %d: marks %d, numpy %d", r, w, mk.marks[r][w],
                          WANT_MARKS[r][w]);
            ck_assert_int_eq(mk.frames[r][w], WANT_MARKS[r][w] & 1 ? 2 : 0);
            ck_assert_int_eq(mk.diamonds[r][w], WANT_MARKS[r][w] & 2 ? 2 : 0);
        }
    ck_assert_int_ge(mk.notes, 1);
    trace_free(t);
    lesson_free(l);
}
END_TEST

/* The digits after the point of a printed number ("2.00": 2, "0": 0). */
static int decimals_of(const char *s)
{
    const char *dot = strchr(s, '.');
    return dot ? (int)strlen(dot + 1) : 0;
}

/* RoPE's angles (lesson 08, stage 2): every number of the panel with the
** same decimals, the first position's 0 and θ_1's 1 too ("0.00", "1.00"). */
START_TEST(test_rope_angles_print_one_number_of_decimals)
{
    Trace *t;
    Lesson *l = load_run("../lessons/08-positions.lesson", &t);
    int k = 1;
    ck_assert_int_eq(l->stages[k].id, STAGE_ROPE);
    View *v = tstages_view(l, t, k);
    int a = stage_find_panel(v, trace_ref(TK_ROPE_ANGLES, 0), 1, -1);
    ck_assert_int_ge(a, 0);
    DrawList *d = lay_slide(v);
    int printed = 0, want = -1;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role != ROLE_CELL_TEXT || c->panel != a) continue;
        const char *s = d->text + c->text;
        if (want < 0) want = decimals_of(s);
        ck_assert_msg(decimals_of(s) == want, "cell (%d, %d) prints \"%s\", others %d decimals", c->row, c->col, s, want);
        printed++;
    }
    ck_assert_int_eq(printed, v->panels[a].m->rows * v->panels[a].m->cols);
    ck_assert_int_eq(want, 2);
    draw_free(d);
    stage_view_free(v);
    trace_free(t);
    lesson_free(l);
}
END_TEST

Suite *drawn_suite(void)
{
    Suite *s = suite_create("drawn");
    TCase *tc = tcase_create("formula");
    tcase_add_checked_fixture(tc, tfonts_setup, tfonts_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_qkv_weights_before_what_they_make);
    tcase_add_test(tc, test_next_token_marks_top_words_and_the_next);
    tcase_add_test(tc, test_rope_angles_print_one_number_of_decimals);
    suite_add_tcase(s, tc);
    return s;
}
