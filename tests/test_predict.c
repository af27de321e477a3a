/*
** test_predict.c: predict mode and switching heads off on a stage cut into
** pages (src/app/predict.c, app_cycle_ablation in src/app/state.c), on
** the trained model of lessons/07-induction-head.lesson, whose multi_head
** stages open with every head's weights side by side and then give each
** head pages of its own: guesses kept per head while the pages turn and
** counted together at the reveal; A on the comparison page switching off
** the head under the pointer, and the slides after it saying so.
*/
#include "suites.h"
#include "app/state.h"
#include "app/frame.h"
#include "view/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INDUCTION "../lessons/07-induction-head.lesson"

static AppState *a;

/* A state on the induction lesson, and freed. */
static void open_induction(void)
{
    a = app_create();
    ck_assert_msg(app_open(a, INDUCTION) == 0, "%s", a->error);
}
/* Release the state. */
static void close_induction(void) { app_free(a); }

/* The panel of the view showing head h's weights, or -1. */
static int weights_of(int h)
{
    for (int k = 0; k < a->view->npanels; k++)
        if (a->view->panels[k].ref.kind == TK_WEIGHTS && a->view->panels[k].ref.head == h) return k;
    return -1;
}

/* → until a page shows head h's weights (and no other head's panels). */
static int turn_to_weights(int h)
{
    for (int n = 0; n < 100 && (weights_of(h) < 0 || a->view->compare); n++) app_next(a);
    ck_assert_int_ge(weights_of(h), 0);
    ck_assert(!a->view->compare);
    return weights_of(h);
}

/* ← until a page shows head h's weights on a page of its own. */
static int turn_back_to_weights(int h)
{
    for (int n = 0; n < 100 && (weights_of(h) < 0 || a->view->compare); n++) app_prev(a);
    ck_assert_int_ge(weights_of(h), 0);
    return weights_of(h);
}

/* The largest weight's column in row i of W. */
static int best(const Mat *W, int i)
{
    int b = 0;
    for (int j = 1; j < W->cols; j++) if (mat_get(W, i, j) > mat_get(W, i, b)) b = j;
    return b;
}

/* Check marks and crosses a frame of the state draws over the cells. */
static void count_marks(int *ticks, int *crosses)
{
    DrawList *d = draw_create(1280, 720);
    app_frame(a, 1280, 720, layout_measure_fixed, NULL, d);
    *ticks = *crosses = 0;
    for (int i = 0; i < d->n; i++) {
        if (d->cmds[i].kind != DRAW_TEXT || d->cmds[i].role != ROLE_OVERLAY) continue;
        *ticks += !strcmp(draw_str(d, &d->cmds[i]), "\xe2\x9c\x93");
        *crosses += !strcmp(draw_str(d, &d->cmds[i]), "\xe2\x9c\x97");
    }
    draw_free(d);
}

/* P on a page of the stage without weights, then guesses on head 1's
** weights page and on head 2's: the pages turn, the guesses stay, and the
** reveal counts both heads and marks each on its page. */
START_TEST(test_guesses_survive_the_pages)
{
    app_goto(a, 2);
    ck_assert(a->view->compare);
    app_next(a);                                                /* head 1's first page: no weights on it */
    ck_assert_int_lt(weights_of(1), 0);
    app_predict(a);
    ck_assert_int_eq(a->predict, PREDICT_GUESSING);
    ck_assert_msg(strstr(a->toast, "turn to a page with weights"), "%s", a->toast);
    int k = turn_to_weights(1);
    ck_assert_int_eq(a->predict, PREDICT_GUESSING);
    const Mat *W1 = a->view->panels[k].m;
    for (int i = 0; i < 4; i++) app_click(a, k, i, i < 2 ? best(W1, i) : (best(W1, i) + 1) % W1->cols);
    k = turn_to_weights(2);
    ck_assert_int_eq(a->predict, PREDICT_GUESSING);             /* still guessing */
    ck_assert(a->hidden & (1ULL << k));                         /* head 2's answer hides too */
    const Mat *W2 = a->view->panels[k].m;
    for (int i = 0; i < 3; i++) app_click(a, k, i, best(W2, i));
    ck_assert(!a->pinned);
    ck_assert_int_eq(a->guesses[1][0], best(W1, 0));            /* head 1's, kept */
    app_predict(a);
    ck_assert_int_eq(a->predict, PREDICT_REVEALED);
    ck_assert_int_eq(a->predict_right, 2 + 3);
    ck_assert_msg(strstr(a->toast, "head 1: 2 of 20 rows right") && strstr(a->toast, "head 2: 3 of 20 rows right"),
                  "%s", a->toast);
    int ticks, crosses;
    count_marks(&ticks, &crosses);
    ck_assert_int_eq(ticks, 3);                                 /* head 2's page: its three */
    ck_assert_int_eq(crosses, 0);
    turn_back_to_weights(1);
    ck_assert_int_eq(a->predict, PREDICT_REVEALED);
    count_marks(&ticks, &crosses);
    ck_assert_int_eq(ticks, 2);                                 /* head 1's page: two right, two wrong */
    ck_assert_int_eq(crosses, 2);
    app_show(a, 0, 0);                                          /* the comparison page: both heads */
    ck_assert(a->view->compare);
    count_marks(&ticks, &crosses);
    ck_assert_int_eq(ticks, 5);
    ck_assert_int_eq(crosses, 2);
    app_predict(a);
    ck_assert_int_eq(a->predict, PREDICT_OFF);
}
END_TEST

/* A guess on head 3's panel of the comparison page is head 3's guess on
** its own page too; another stage asks again. */
START_TEST(test_guesses_on_the_comparison_page)
{
    app_goto(a, 2);
    ck_assert(a->view->compare);
    app_predict(a);
    int k = weights_of(3);
    ck_assert_int_ge(k, 0);
    ck_assert(app_guess_panel(a, k));
    const Mat *W = a->view->panels[k].m;
    for (int i = 0; i < 5; i++) app_click(a, k, i, best(W, i));
    ck_assert(!a->pinned);                                      /* guesses, not pins nor a jump to its page */
    ck_assert_int_eq(a->step, 0);
    k = turn_to_weights(3);
    for (int i = 0; i < 5; i++) ck_assert_int_eq(app_guess(a, k, i), best(W, i));
    ck_assert_int_eq(app_guess(a, k, 5), -1);
    app_predict(a);
    ck_assert_int_eq(a->predict_right, 5);
    ck_assert_msg(strstr(a->toast, "head 3: 5 of 20 rows right") && !strstr(a->toast, "head 1"), "%s", a->toast);
    app_goto(a, 3);                                             /* another stage: the guesses were about stage 2 */
    ck_assert_int_eq(a->predict, PREDICT_GUESSING);
    for (int i = 0; i < 5; i++) ck_assert_int_eq(a->guesses[3][i], -1);
    ck_assert_int_eq(a->guess_kind[3], TK_COUNT);
}
END_TEST

/* A on the comparison page switches off the head under the pointer (with
** none, a toast asks); the next-token slide after it names that head;
** its own page shows what replaced its output, 0 then its mean; on the
** joined heads, the head whose columns the pointer is on. */
START_TEST(test_ablation_under_the_pointer)
{
    const Setup *su = &a->doc->L->setups[0];
    app_goto(a, 6);
    ck_assert_ptr_null(a->view->note ? strstr(a->view->note, "switched off") : NULL);
    app_goto(a, 2);
    ck_assert(a->view->compare);
    app_cycle_ablation(a);
    ck_assert_uint_eq(su->ablated, 0);
    ck_assert_msg(strstr(a->toast, "the head under the pointer"), "%s", a->toast);
    app_hover(a, weights_of(2), 3, 1);
    app_cycle_ablation(a);
    su = &a->doc->L->setups[0];
    ck_assert_uint_eq(su->ablated, 1u << 1);
    ck_assert_uint_eq(su->ablate_mean, 0);
    ck_assert_str_eq(a->toast, "head 2: switched off, its output replaced by 0");
    ck_assert(a->view->compare);                                /* the page stays */
    app_goto(a, 6);                                             /* layer 2 continues layer 1's stream */
    ck_assert_ptr_nonnull(a->view->note);
    ck_assert_msg(strstr(a->view->note, "switched off in \xe2\x80\x9cLayer 1 of the trained model\xe2\x80\x9d: "
                                        "head 2 \xe2\x86\x92 0"), "%s", a->view->note);
    app_goto(a, 2);
    int out = -1;
    for (int n = 0; n < 100 && out < 0; n++) {
        app_next(a);
        for (int k = 0; k < a->view->npanels; k++)
            if (a->view->panels[k].ref.head == 2 && a->view->panels[k].ref.kind == TK_ABLATED) out = k;
    }
    ck_assert_int_ge(out, 0);
    ck_assert_str_eq(a->view->panels[out].title, "head 2 of 4: off (0 in its place)");
    const Mat *Z = a->view->panels[out].m;
    for (int i = 0; i < Z->rows; i++)
        for (int j = 0; j < Z->cols; j++) ck_assert_double_eq(mat_get(Z, i, j), 0.0);
    app_cycle_ablation(a);                                      /* head 2's own page: head 2, now its mean */
    su = &a->doc->L->setups[0];
    ck_assert_uint_eq(su->ablate_mean, 1u << 1);
    const Mat *O = trace_at(a->doc->T, 0, trace_ref(TK_OUTPUT, 2));
    const Mat *M = trace_at(a->doc->T, 0, trace_ref(TK_ABLATED, 2));
    ck_assert_ptr_nonnull(M);
    for (int j = 0; j < O->cols; j++) {
        double mean = 0;
        for (int i = 0; i < O->rows; i++) mean += mat_get(O, i, j) / O->rows;
        for (int i = 0; i < O->rows; i++) ck_assert_double_eq_tol(mat_get(M, i, j), mean, 1e-12);
    }
    out = -1;
    for (int k = 0; k < a->view->npanels; k++)
        if (a->view->panels[k].ref.kind == TK_ABLATED) out = k;
    ck_assert_int_ge(out, 0);
    ck_assert_str_eq(a->view->panels[out].title, "head 2 of 4: off (its mean over the tokens)");
    app_hover(a, out, 4, 2);                                    /* its cell says where the number comes from */
    char *ex = app_explain(a);
    ck_assert_msg(ex && strstr(ex, "head 2 is switched off (ablate:): in place of its output[5][3]")
                  && strstr(ex, "mean ablation: the mean of its output's column 3 over the 20 tokens"), "%s", ex);
    free(ex);
    for (int n = 0; n < 100 && a->view->page_h0; n++) app_next(a);    /* the joined heads */
    int c = -1;
    for (int k = 0; k < a->view->npanels; k++)
        if (a->view->panels[k].ref.kind == TK_CONCAT) c = k;
    ck_assert_int_ge(c, 0);
    app_hover(a, c, 0, 3 * a->doc->T->s[0].d_v + 1);            /* a column of head 4's block */
    app_cycle_ablation(a);
    ck_assert_uint_eq(a->doc->L->setups[0].ablated, (1u << 1) | (1u << 3));
    app_goto(a, 9);                                             /* the lesson's own: heads 1 and 3 of its layer 1 */
    ck_assert_msg(strstr(a->view->note, "head 1 \xe2\x86\x92 0, head 3 \xe2\x86\x92 0"), "%s", a->view->note);
}
END_TEST

/* The predict suite. */
Suite *predict_suite(void)
{
    Suite *s = suite_create("predict");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, open_induction, close_induction);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_guesses_survive_the_pages);
    tcase_add_test(core, test_guesses_on_the_comparison_page);
    tcase_add_test(core, test_ablation_under_the_pointer);
    suite_add_tcase(s, core);
    return s;
}
