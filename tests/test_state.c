/*
** test_state.c: the interactive program's actions, driven without a window.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "app/shot.h"
#include "app/state.h"
#include "app/prompt.h"
#include "app/frame.h"
#include "app/keys.h"
#include "view/layout.h"
#include "view/cmap.h"
#include "core/io/fileio.h"
#include "core/util.h"
#include "tjson.h"
#include "ttour.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define TOUR TTOUR_PATH

static AppState *a;

/* A state with the tour open (ttour_open), and freed. */
static void open_tour(void) { a = ttour_open(); }
static void close_tour(void) { app_free(a); }

/* Index of the stage with id in the open lesson. */
static int find_stage(StageId id)
{
    for (int k = 0; k < a->doc->L->nstages; k++)
        if (a->doc->L->stages[k].id == id) return k;
    ck_abort_msg("no stage %s", lesson_stage_name(id));
    return -1;
}

START_TEST(test_stepping)
{
    ck_assert_int_eq(a->stage, 0);
    app_next(a);
    ck_assert_int_eq(a->stage, 1);
    ck_assert_int_eq(a->view->stage, 1);
    app_prev(a);
    app_prev(a);                                 /* stays at the first */
    ck_assert_int_eq(a->stage, 0);
    app_last(a);
    ck_assert_int_eq(a->stage, a->doc->L->nstages - 1);
    app_next(a);                                 /* stays at the last */
    ck_assert_int_eq(a->stage, a->doc->L->nstages - 1);
    app_goto(a, 3);
    ck_assert_int_eq(a->stage, 2);
    app_goto(a, 99);
    ck_assert_int_eq(a->stage, 2);
    app_first(a);
    ck_assert_int_eq(a->stage, 0);
}
END_TEST

START_TEST(test_toggles)
{
    ck_assert(!a->dark);
    app_toggle_theme(a);
    ck_assert(a->dark);
    app_toggle_black(a);
    ck_assert(a->black);
    app_escape(a);
    ck_assert(!a->black);
    app_toggle_help(a);
    ck_assert(a->help);
    app_escape(a);
    ck_assert(!a->help);
    app_toggle_fullscreen(a);
    ck_assert(a->fullscreen);
    app_escape(a);
    ck_assert(!a->fullscreen);
    float s = a->text_scale;
    app_text_size(a, +1);
    ck_assert(a->text_scale > s);
    for (int i = 0; i < 50; i++) app_text_size(a, -1);
    ck_assert(a->text_scale >= 0.6f - 1e-6f);
    ck_assert_int_eq(a->cmap, -1);
    app_cycle_cmap(a);
    ck_assert_int_eq(a->cmap, 0);
    for (int i = 0; i < 7; i++) app_cycle_cmap(a);
    ck_assert_int_eq(a->cmap, -1);               /* back to the lesson's own */
}
END_TEST

START_TEST(test_scaling_and_temperature_recompute)
{
    app_goto(a, find_stage(STAGE_SOFTMAX) + 1);
    double w0 = mat_get(trace_get(a->doc->T, 0, "weights"), 0, 0);
    app_toggle_scaling(a);
    ck_assert_int_eq(a->doc->L->setups[0].score, SCORE_DOT);
    double w1 = mat_get(trace_get(a->doc->T, 0, "weights"), 0, 0);
    ck_assert(w1 != w0);
    /* unscaled = scaled with divisor 1: check one weight against the raw scores */
    const Mat *raw = trace_get(a->doc->T, 0, "raw_scores");
    double sum = 0;
    for (int j = 0; j < raw->cols; j++) sum += exp(mat_get(raw, 0, j));
    ck_assert_double_eq_tol(w1, exp(mat_get(raw, 0, 0)) / sum, 1e-12);
    app_toggle_scaling(a);
    ck_assert_double_eq(mat_get(trace_get(a->doc->T, 0, "weights"), 0, 0), w0);
    app_temperature(a, +1);
    ck_assert_double_eq_tol(a->doc->L->setups[0].temperature, 1.25, 1e-12);
    /* hotter is flatter: the largest weight of row 0 goes down */
    app_temperature(a, -1);
    ck_assert_double_eq(a->doc->L->setups[0].temperature, 1.0);
    for (int i = 0; i < 40; i++) app_temperature(a, -1);
    ck_assert_double_eq_tol(a->doc->L->setups[0].temperature, 0.1, 1e-12);
    ck_assert(mat_all_finite(trace_get(a->doc->T, 0, "weights")));
}
END_TEST

START_TEST(test_mask_toggle)
{
    int k = find_stage(STAGE_CAUSAL_MASK);
    app_goto(a, k + 1);
    int s = a->doc->L->stages[k].setup;
    ck_assert(mat_get(trace_get(a->doc->T, s, "weights"), 0, 1) == 0.0);
    app_toggle_mask(a);
    ck_assert_int_eq(a->doc->L->setups[s].mask, MASK_NONE);
    ck_assert(mat_get(trace_get(a->doc->T, s, "weights"), 0, 1) > 0.0);
    ck_assert_ptr_null(trace_get(a->doc->T, s, "mask"));
    app_toggle_mask(a);
    ck_assert_int_eq(a->doc->L->setups[s].mask, MASK_CAUSAL);
    ck_assert(mat_get(trace_get(a->doc->T, s, "weights"), 0, 1) == 0.0);
}
END_TEST

START_TEST(test_failed_recompute_keeps_every_setting)
{
    /* inputs too large for the scores (1e200 squared): every recompute
    ** fails, and each toggle must leave its setting and the trace alone */
    int k = find_stage(STAGE_CAUSAL_MASK);
    app_goto(a, k + 1);
    int s = a->doc->L->stages[k].setup;
    Setup *su = &a->doc->L->setups[s];
    Mat *X = lesson_matrix(su, "X")->m;
    Mat *keep = mat_copy(X);
    for (int i = 0; i < X->rows * X->cols; i++) X->data[i] = 1e200;
    const Trace *T = a->doc->T;
    MaskKind mask = su->mask;
    ScoreKind score = su->score;
    double temperature = su->temperature;
    ck_assert_int_eq(mask, MASK_CAUSAL);
    app_toggle_mask(a);
    ck_assert_int_eq(su->mask, mask);
    ck_assert_ptr_eq(a->doc->T, T);
    ck_assert_msg(strstr(a->toast, "not a finite number") != NULL, "toast: %s", a->toast);
    app_toggle_scaling(a);
    ck_assert_int_eq(su->score, score);
    app_temperature(a, +1);
    ck_assert_double_eq(su->temperature, temperature);
    ck_assert_ptr_eq(a->doc->T, T);
    /* sane inputs again: the mask goes off and comes back as before */
    memcpy(X->data, keep->data, sizeof(double) * (size_t)(X->rows * X->cols));
    mat_free(keep);
    app_toggle_mask(a);
    ck_assert_int_eq(su->mask, MASK_NONE);
    ck_assert(mat_get(trace_get(a->doc->T, s, "weights"), 0, 1) > 0.0);
    app_toggle_mask(a);
    ck_assert_int_eq(su->mask, MASK_CAUSAL);
    ck_assert(mat_get(trace_get(a->doc->T, s, "weights"), 0, 1) == 0.0);
}
END_TEST

START_TEST(test_heads)
{
    int k = find_stage(STAGE_MULTI_HEAD);
    app_goto(a, k + 1);
    ck_assert_str_eq(a->view->panels[0].matrix, "head1.Q");
    app_next_head(a);
    ck_assert_int_eq(a->head, 1);
    ck_assert_str_eq(a->view->panels[0].matrix, "head1.Q");
    app_next_head(a);
    ck_assert_int_eq(a->head, 2);
    ck_assert_str_eq(a->view->panels[0].matrix, "head2.Q");
    for (int p = 0; p < a->view->npanels; p++)  /* head 2 alone: its panels and the joined heads */
        ck_assert(a->view->panels[p].ref.head == 2 || a->view->panels[p].ref.head == 0);
    app_next_head(a);
    ck_assert_int_eq(a->head, 0);               /* 2 heads: 1, 2, then all */
    ck_assert_str_eq(a->view->panels[0].matrix, "head1.Q");
}
END_TEST

/* H on kv_cache keeps the token shown: from the second page of token 3
** (every head) to token 3's first page of head 1, then of head 2, and
** back; from the comparison to the comparison; ← then moves from there. */
START_TEST(test_head_keeps_the_token)
{
    static const char text[] = "title: t\n[setup]\nseed: 3\ntokens: a b c d e f\nX = randn 6x8\nW_q = randn 8x8\n"
                               "W_k = randn 8x8\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X\nheads: 2\nmask: causal\n"
                               "[kv_cache]\n";
    AppState *s = app_create();
    ck_assert_msg(app_open_text(s, "t.lesson", text, sizeof text - 1) == 0, "%s", s->error);
    int per = s->view->token_pages;
    ck_assert_int_ge(per, 2);                       /* two heads: a page each at least */
    app_show(s, 2 * per + 1, 0);
    ck_assert_int_eq(s->view->token, 2);
    for (int h = 1; h <= 2; h++) {
        app_next_head(s);
        ck_assert_int_eq(s->head, h);
        ck_assert_int_eq(s->view->token, 2);
        ck_assert_int_eq(s->step, 2 * s->view->token_pages);
        ck_assert(s->view->step_name[0] == 't' && s->view->step_name[1] == '3');
    }
    app_next_head(s);                               /* every head again */
    ck_assert_int_eq(s->view->token, 2);
    ck_assert_int_eq(s->step, 2 * per);
    app_show(s, s->view->nsteps - 1, 0);            /* the comparison */
    app_next_head(s);
    ck_assert_int_eq(s->view->token, -1);
    ck_assert_int_eq(s->step, 6 * s->view->token_pages);
    ck_assert_str_eq(s->view->step_name, "all");
    app_prev(s);                                    /* the last token's last page */
    ck_assert_int_eq(s->view->token, 5);
    app_free(s);
}
END_TEST

/* A (ACT_ABLATE) switches the head shown off: its columns of the joined
** heads hold 0, then the column means of its output, then its output
** again; with every head shown and the pointer on none of them it asks
** for one and changes nothing (the pointer's head: test_predict.c). */
START_TEST(test_ablation_key)
{
    int k = find_stage(STAGE_MULTI_HEAD);
    app_goto(a, k + 1);
    int s = a->doc->L->stages[k].setup;
    app_do(a, ACT_ABLATE, 0);
    ck_assert_uint_eq(a->doc->L->setups[s].ablated, 0);
    ck_assert_ptr_nonnull(strstr(a->toast, "the head under the pointer"));
    app_next_head(a);                               /* head 1 */
    for (int press = 1; press <= 3; press++) {
        app_do(a, ACT_ABLATE, 0);
        const Mat *C = trace_at(a->doc->T, s, trace_ref(TK_CONCAT, 0));
        const Mat *O = trace_at(a->doc->T, s, trace_ref(TK_OUTPUT, 1));
        ck_assert_ptr_nonnull(C);
        ck_assert_ptr_nonnull(O);
        for (int j = 0; j < O->cols; j++) {
            double mean = 0;
            for (int i = 0; i < O->rows; i++) mean += mat_get(O, i, j) / O->rows;
            for (int i = 0; i < O->rows; i++) {
                double want = press == 1 ? 0 : press == 2 ? mean : mat_get(O, i, j);
                ck_assert_double_eq_tol(mat_get(C, i, j), want, 1e-12);
            }
        }
        ck_assert_uint_eq(a->doc->L->setups[s].ablated, press < 3 ? 1u : 0u);
    }
}
END_TEST

START_TEST(test_hover_pin_explain)
{
    app_goto(a, find_stage(STAGE_SOFTMAX) + 1);
    ck_assert_ptr_null(app_explain(a));
    app_hover(a, 1, 0, 2);
    char *t = app_explain(a);
    ck_assert_ptr_nonnull(t);
    ck_assert(strstr(t, "softmax over the row") != NULL);
    free(t);
    app_click(a, 1, 0, 2);
    app_hover(a, -1, -1, -1);
    int p, r, c;
    ck_assert(app_focus_cell(a, &p, &r, &c));
    ck_assert_int_eq(c, 2);
    app_click(a, 1, 0, 2);                       /* the same cell unpins */
    ck_assert(!app_focus_cell(a, &p, &r, &c));
}
END_TEST

START_TEST(test_scroll_edit_recomputes_downstream)
{
    /* X is an input of the embeddings stage; editing it changes the scores */
    app_goto(a, 1);
    ck_assert(a->view->panels[0].editable);
    double x0 = mat_get(a->view->panels[0].m, 0, 0);
    double s0 = mat_get(trace_get(a->doc->T, 0, "raw_scores"), 0, 0);
    double later0 = mat_get(trace_at(a->doc->T, 2, trace_ref(TK_WEIGHTS, 1)), 0, 0);
    ck_assert(app_scroll_edit(a, 0, 0, 0, +3, false));
    ck_assert_double_eq_tol(mat_get(a->view->panels[0].m, 0, 0), x0 + 0.3, 1e-12);
    ck_assert(mat_get(trace_get(a->doc->T, 0, "raw_scores"), 0, 0) != s0);
    ck_assert(mat_get(trace_at(a->doc->T, 2, trace_ref(TK_WEIGHTS, 1)), 0, 0) != later0);   /* inherited by setup 3 */
    ck_assert(doc_is_edited(a->doc, 0, "X", 0, 0));
    ck_assert(!doc_is_edited(a->doc, 0, "X", 0, 1));
    ck_assert(app_scroll_edit(a, 0, 0, 0, -1, true));
    ck_assert_double_eq_tol(mat_get(a->view->panels[0].m, 0, 0), x0 + 0.29, 1e-12);
    ck_assert(a->doc->dirty);
    /* hovering the edited cell tells what it was and what it is, not the
    ** line of the file it no longer matches */
    app_hover(a, 0, 0, 0);
    char *t = app_explain(a), want[120], was[40], now[40];
    util_fmt_shortest(was, sizeof was, x0);
    util_fmt_shortest(now, sizeof now, mat_get(a->view->panels[0].m, 0, 0));
    snprintf(want, sizeof want, "edited: was %s, now %s", was, now);
    ck_assert_msg(t && strstr(t, want) && !strstr(t, "written in the lesson"), "%s", t ? t : "(none)");
    free(t);
    app_hover(a, 0, 0, 1);
    t = app_explain(a);
    ck_assert(t && strstr(t, "written in the lesson"));
    free(t);
    app_undo_all(a);                                /* R: the file's number, one step to undo */
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 0, 0), x0);
    ck_assert_int_eq(a->doc->nedits, 2);            /* the edit and the reset */
    ck_assert_str_eq(a->toast, "lesson reset: 1 edit undone. Ctrl+Z brings it back");
    ck_assert_int_eq(a->stage, 0);
    ck_assert(app_undo(a));                         /* Ctrl+Z: the edit is back */
    ck_assert_double_eq_tol(mat_get(a->view->panels[0].m, 0, 0), x0 + 0.29, 1e-12);
    ck_assert(doc_is_edited(a->doc, 0, "X", 0, 0));
}
END_TEST

START_TEST(test_limits_edit_stays_finite)
{
    app_goto(a, 1);
    for (int i = 0; i < 200; i++) app_scroll_edit(a, 0, 1, 1, 1000000, false);
    ck_assert(mat_get(a->view->panels[0].m, 1, 1) <= 1e6);
    for (int s = 0; s < a->doc->T->nsetups; s++)
        ck_assert(mat_all_finite(trace_at(a->doc->T, s, trace_ref(TK_WEIGHTS, 1))) || s == 1);
    /* a computed (non-input) panel is not editable */
    app_goto(a, find_stage(STAGE_SOFTMAX) + 1);
    ck_assert(!app_scroll_edit(a, 1, 0, 0, 1, false));
}
END_TEST

START_TEST(test_save_roundtrip_atomic)
{
    char dir[] = "/tmp/attnlab-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/edited.lesson", dir);
    size_t len;
    FILE *f = fopen(TOUR, "rb");
    char *text = xmalloc(1 << 16);
    len = fread(text, 1, 1 << 16, f);
    fclose(f);
    ck_assert_int_eq(app_open_text(a, path, text, len), 0);
    free(text);
    app_goto(a, 1);
    ck_assert(app_scroll_edit(a, 0, 2, 1, 2, false));
    double edited = mat_get(a->view->panels[0].m, 2, 1);
    ck_assert_int_eq(app_save_lesson(a), 0);
    ck_assert(!a->doc->dirty);
    AppState *b = app_create();
    ck_assert_msg(app_open(b, path) == 0, "%s", b->error);
    app_goto(b, 1);
    ck_assert_double_eq(mat_get(b->view->panels[0].m, 2, 1), edited);
    ck_assert(mat_max_abs_diff(trace_get(a->doc->T, 2, "concat"), trace_get(b->doc->T, 2, "concat")) == 0.0);
    app_free(b);
    /* an unwritable target: the save fails, says why, and leaves no file */
    free(a->doc->path);
    snprintf(path, sizeof path, "%s/missing-dir/x.lesson", dir);
    a->doc->path = xstrdup(path);
    ck_assert(app_scroll_edit(a, 0, 2, 1, 1, false));
    ck_assert_int_eq(app_save_lesson(a), -1);
    ck_assert(strstr(a->toast, "cannot write") != NULL);
    ck_assert_int_ne(access(path, F_OK), 0);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_limits_save_file_size_limit)
{
    /* Ctrl+S under `ulimit -f` smaller than the lesson: the save fails with
    ** one message instead of SIGXFSZ killing the program; the file on disk
    ** is the one that was there, and no temporary is left beside it */
    char dir[] = "/tmp/attnlab-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/edited.lesson", dir);
    size_t len;
    Error fe;
    char *text = fileio_read(TOUR, 1 << 20, &len, &fe);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(fileio_write_atomic(path, text, len, false, &fe), 0);
    ck_assert_int_eq(app_open(a, path), 0);
    app_goto(a, 1);
    ck_assert(app_scroll_edit(a, 0, 2, 1, 2, false));
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 1024;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int r = app_save_lesson(a);
    setrlimit(RLIMIT_FSIZE, &old);
    ck_assert_int_eq(r, -1);
    char want[400];           /* the first save keeps FILE~ first: that write is the one refused */
    snprintf(want, sizeof want, "not saved: cannot keep the previous version: %s~: cannot write: File too large", path);
    ck_assert_str_eq(a->toast, want);
    ck_assert(a->doc->dirty);
    size_t back_len;
    char *back = fileio_read(path, 1 << 20, &back_len, &fe);
    ck_assert_ptr_nonnull(back);
    ck_assert(back_len == len && !memcmp(back, text, len));
    free(back);
    free(text);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A %s)\" = edited.lesson", dir);
    ck_assert_msg(system(cmd) == 0, "a temporary was left in %s", dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    /* a directory given as a lesson is an I/O error (exit status 1) */
    ck_assert_int_eq(app_open(a, "/tmp"), -1);
    ck_assert_str_eq(a->error, "/tmp: error: cannot read: a directory, not a regular file");
    ck_assert_int_eq(a->error_code, 1);
    ck_assert_int_eq(app_open_text(a, "bad.lesson", "title: T\n", 9), -1);
    ck_assert_int_eq(a->error_code, 2);
}
END_TEST

START_TEST(test_bad_lesson_keeps_previous)
{
    const char *bad = "title: T\n[setup]\ntokens: a\nX =\n  nan\n[softmax]\n";
    ck_assert_int_eq(app_open_text(a, "bad.lesson", bad, strlen(bad)), -1);
    ck_assert_str_eq(a->error, "bad.lesson:5:3: error: expected a finite number, found 'nan' (NaN and infinity are not allowed)");
    ck_assert_str_eq(a->doc->L->title, "A short tour of attention");     /* still the tour */
    ck_assert_int_eq(app_open(a, "/nonexistent.lesson"), -1);
    ck_assert(strstr(a->error, "cannot open") != NULL);
}
END_TEST

START_TEST(test_no_edit_of_given_attention)
{
    /* attention: A: a cell edit would leave a row that is not a distribution
    ** (found by the fuzzer), so the window refuses it, in this setup and in
    ** a setup before that shares A's text; the values stay editable */
    static const char text[] = "title: t\n[setup]\ntokens: a b\nA =\n  1 0\n  0.5 0.5\nX =\n  1 2\n  3 4\n"
                               "queries: X\n[embeddings]\n[setup]\nattention: A\nvalues: X\n[weighted_sum]\n";
    AppState *s = app_create();
    ck_assert_msg(app_open_text(s, "t.lesson", text, sizeof text - 1) == 0, "%s", s->error);
    ck_assert(!app_edit_cell(s, 1, "A", 1, 0, 0.7));
    ck_assert_ptr_nonnull(strstr(s->toast, "given attention weights"));
    ck_assert(!app_edit_cell(s, 0, "A", 1, 0, 0.7));      /* the first setup's A is the same text */
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[1], "A")->m, 1, 0), 0.5);
    ck_assert(!s->doc->dirty);
    ck_assert(app_edit_cell(s, 1, "X", 0, 0, 1.5));        /* the values are inputs like any other */
    app_free(s);
}
END_TEST

START_TEST(test_edits_of_inherited_matrices)
{
    /* setups 2 and 3 inherit X and W without copies; setup 2's override
    ** gives it (and setup 3, which inherits from it) a W of its own */
    static const char text[] = "title: t\n[setup]\nseed: 3\ntokens: a b\nX = randn 2x3\nW = randn 3x3\n"
                               "queries: X @ W\nkeys: X\nvalues: X\n[softmax]\n"
                               "[setup]\nW[1,1] = 7\n[softmax]\n[setup]\ntemperature: 2\n[softmax]\n";
    AppState *s = app_create();
    ck_assert_msg(app_open_text(s, "t.lesson", text, sizeof text - 1) == 0, "%s", s->error);
    const Setup *su = s->doc->L->setups;
    const Mat *x[3], *w[3];
    for (int i = 0; i < 3; i++) {
        x[i] = lesson_matrix(&su[i], "X")->m;
        w[i] = lesson_matrix(&su[i], "W")->m;
    }
    ck_assert(x[0] == x[1] && x[1] == x[2]);                    /* one X for the three */
    ck_assert(w[0] != w[1] && w[1] == w[2]);
    double w00 = mat_get(w[0], 0, 0);
    ck_assert(w00 != 7.0);
    ck_assert_double_eq(mat_get(w[2], 0, 0), 7.0);
    /* X[0][1] edited in setup 1 is every setup's X[0][1]: every trace changes */
    double before = mat_get(trace_at(s->doc->T, 2, trace_ref(TK_WEIGHTS, 1)), 0, 0);
    ck_assert(app_edit_cell(s, 0, "X", 0, 1, 2.5));
    for (int i = 0; i < 3; i++) ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[i], "X")->m, 0, 1), 2.5);
    ck_assert(mat_get(trace_at(s->doc->T, 2, trace_ref(TK_WEIGHTS, 1)), 0, 0) != before);
    /* W[0][0] in setup 1 is not the overridden cell of setups 2 and 3 */
    ck_assert(app_edit_cell(s, 0, "W", 0, 0, 0.25));
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[0], "W")->m, 0, 0), 0.25);
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[1], "W")->m, 0, 0), 7.0);
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[2], "W")->m, 0, 0), 7.0);
    /* ... and its other cells are every setup's */
    ck_assert(app_edit_cell(s, 0, "W", 2, 2, -1.5));
    for (int i = 0; i < 3; i++) ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[i], "W")->m, 2, 2), -1.5);
    /* the override edited in setup 3 is setup 2's line too, not setup 1's */
    ck_assert(app_edit_cell(s, 2, "W", 0, 0, 8));
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[0], "W")->m, 0, 0), 0.25);
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[1], "W")->m, 0, 0), 8.0);
    for (int i = 0; i < 4; i++) ck_assert(app_undo(s));
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[0], "W")->m, 0, 0), w00);
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[1], "W")->m, 0, 0), 7.0);
    ck_assert_double_eq(mat_get(lesson_matrix(&s->doc->L->setups[2], "X")->m, 0, 1), mat_get(x[0], 0, 1));
    app_free(s);
}
END_TEST

START_TEST(test_no_edit_of_a_transposed_matrix)
{
    /* B = transpose A was taken when its line was read: editing A could not
    ** be saved so that both read back as shown, so the window refuses it */
    static const char text[] = "title: t\n[setup]\ntokens: a b\nA =\n  1 2\n  3 4\nB = transpose A\n"
                               "queries: A\nkeys: B\nvalues: A\n[embeddings]\n";
    AppState *s = app_create();
    ck_assert_msg(app_open_text(s, "t.lesson", text, sizeof text - 1) == 0, "%s", s->error);
    ck_assert_str_eq(s->view->panels[0].matrix, "A");
    ck_assert(!app_scroll_edit(s, 0, 0, 1, 1, false));
    ck_assert_double_eq(mat_get(s->view->panels[0].m, 0, 1), 2.0);
    ck_assert_ptr_nonnull(strstr(s->toast, "transpose"));
    ck_assert(!s->doc->dirty);
    ck_assert(app_scroll_edit(s, 1, 0, 1, 1, false));        /* B itself is fine */
    app_free(s);
}
END_TEST

START_TEST(test_predict_mode)
{
    app_goto(a, find_stage(STAGE_SOFTMAX) + 1);
    app_predict(a);
    ck_assert_int_eq(a->predict, PREDICT_GUESSING);
    ck_assert_int_eq(a->predict_panel, 1);
    const Mat *W = a->view->panels[1].m;
    for (int i = 0; i < W->rows; i++) {                 /* guess right on every row but the last */
        int best = 0;
        for (int j = 1; j < W->cols; j++) if (mat_get(W, i, j) > mat_get(W, i, best)) best = j;
        app_click(a, 1, i, i == W->rows - 1 ? (best + 1) % W->cols : best);
    }
    app_hover(a, 1, 0, 0);
    ck_assert_ptr_null(app_explain(a));                 /* no spoilers while guessing */
    app_hover(a, 0, 0, 0);
    ck_assert_ptr_null(app_explain(a));                 /* the scores give the answer away too */
    ck_assert(app_hidden_panels(a) & 1);                /* and are hidden */
    ck_assert(app_hidden_panels(a) & 2);
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    for (int i = 0; i < d->n; i++)                      /* no number of either panel is on screen */
        if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel <= 1) ck_assert_str_eq(draw_str(d, &d->cmds[i]), "?");
    app_predict(a);
    ck_assert_int_eq(a->predict, PREDICT_REVEALED);
    ck_assert_int_eq(a->predict_right, W->rows - 1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    int ticks = 0, crosses = 0;
    for (int i = 0; i < d->n; i++) {
        if (d->cmds[i].kind != DRAW_TEXT || d->cmds[i].role != ROLE_OVERLAY) continue;
        ticks += !strcmp(draw_str(d, &d->cmds[i]), "\xe2\x9c\x93");
        crosses += !strcmp(draw_str(d, &d->cmds[i]), "\xe2\x9c\x97");
    }
    ck_assert_int_eq(ticks, W->rows - 1);               /* right and wrong are told apart */
    ck_assert_int_eq(crosses, 1);
    draw_free(d);
    app_predict(a);
    ck_assert_int_eq(a->predict, PREDICT_OFF);
}
END_TEST

/* Predict marks on a weights panel drawn as one image command (edit marks
** take the same path): 48 tokens in a small window, too fine for numbers. */
/* A new state on a lesson of n tokens t0 t1 ... drawn with seed, the
** setup's other lines and its stages in rest. */
static AppState *open_generated(int seed, int n, const char *rest)
{
    char text[4096];
    snprintf(text, sizeof text, "title: Generated\n[setup]\nseed: %d\ntokens:", seed);
    for (int i = 0; i < n; i++) snprintf(text + strlen(text), sizeof text - strlen(text), " t%d", i);
    snprintf(text + strlen(text), sizeof text - strlen(text), "\n%s", rest);
    AppState *s = app_create();
    ck_assert_msg(app_open_text(s, "generated.lesson", text, strlen(text)) == 0, "%s", s->error);
    return s;
}

/* The first image command of panel k in d, with its colours. */
static const DrawImage *panel_image(const DrawList *d, int k, const Color **px)
{
    for (int i = 0; i < d->n; i++) {
        const DrawImage *im = draw_image_of(d, &d->cmds[i], px);
        if (im && d->cmds[i].panel == k) return im;
    }
    return NULL;
}

START_TEST(test_edit_redraws_a_kept_image)
{
    /* layout keeps an image's colours for the view's next frame; an edit
    ** makes a new view, so the next frame shows the new value at once, even
    ** when the matrix is the same object and its colour scale is unchanged */
    AppState *s = open_generated(5, 60, "X = randn 60x40\nqueries: X\n[embeddings]\n");
    DrawList *d = draw_create(640, 400);
    app_frame(s, 640, 400, layout_measure_fixed, NULL, d);
    const Color *px;
    const DrawImage *im = panel_image(d, 0, &px);
    ck_assert_msg(im != NULL, "60x40 embeddings on 640x400 are one image");
    ck_assert_int_eq(im->rstep, 1);
    ck_assert_int_eq(im->cstep, 1);
    const Mat *X = s->view->panels[0].m;
    double amax = 0;
    for (long i = 1; i < 60L * 40; i++) amax = fmax(amax, fabs(X->data[i]));
    ck_assert(fabs(X->data[0]) < amax);                         /* the scale does not hang on X[0][0] */
    int far = 0;                                                /* a cell drawn in another colour */
    while (++far < 60 * 40 && !memcmp(&px[far], &px[0], sizeof *px)) continue;
    ck_assert_int_lt(far, 60 * 40);
    Color before = px[0], want = px[far];
    double v = X->data[far];
    app_frame(s, 640, 400, layout_measure_fixed, NULL, d);     /* the same view: the same colours */
    im = panel_image(d, 0, &px);
    ck_assert(!memcmp(&px[0], &before, sizeof before));
    ck_assert(app_edit_cell(s, 0, "X", 0, 0, v));
    ck_assert_ptr_eq(s->view->panels[0].m, X);                  /* the same matrix, a new view */
    app_frame(s, 640, 400, layout_measure_fixed, NULL, d);
    im = panel_image(d, 0, &px);
    ck_assert_ptr_nonnull(im);
    ck_assert_msg(!memcmp(&px[0], &want, sizeof want), "X[0][0] = %g is drawn %d,%d,%d, not %d,%d,%d", v,
                  px[0].r, px[0].g, px[0].b, want.r, want.g, want.b);
    draw_free(d);
    app_free(s);
}
END_TEST

/* Predict mode with two heads: a click in head 2's weights is a guess, not
** a pin; the reveal counts each head and marks the answers in both; on
** per_token the scores stay in sight; a stage without weights hides
** nothing. */
START_TEST(test_predict_every_head)
{
    AppState *s = open_generated(3, 4, "X = randn 4x4\nqueries: X\nkeys: X\nvalues: X\nheads: 2\n[softmax]\n"
                                 "[per_token]\nquery: 2\n[raw_scores]\n");
    ck_assert_int_eq(s->view->nsteps, 1);                       /* both heads on one slide */
    app_predict(s);
    int w[2] = { -1, -1 }, n = 0;
    for (int k = 0; k < s->view->npanels; k++)
        if (app_guess_panel(s, k)) w[n++] = k;
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(s->view->panels[w[1]].ref.head, 2);
    int right = 0;
    for (int h = 0; h < 2; h++) {                                /* every row of head 1, the first two of head 2 */
        const Mat *W = s->view->panels[w[h]].m;
        for (int i = 0; i < (h ? 2 : W->rows); i++) {
            int best = 0;
            for (int j = 1; j < W->cols; j++) if (mat_get(W, i, j) > mat_get(W, i, best)) best = j;
            app_click(s, w[h], i, best);
            right++;
        }
    }
    ck_assert(!s->pinned);                                      /* guesses, not pins */
    ck_assert_int_ge(app_guess(s, w[1], 0), 0);
    ck_assert_int_eq(app_guess(s, w[1], 2), -1);
    app_predict(s);
    ck_assert_int_eq(s->predict, PREDICT_REVEALED);
    ck_assert_int_eq(s->predict_right, right);
    ck_assert_ptr_nonnull(strstr(s->toast, "head 1: 4 of 4 rows right"));
    ck_assert_ptr_nonnull(strstr(s->toast, "head 2: 2 of 4 rows right"));
    DrawList *d = draw_create(1280, 720);
    app_frame(s, 1280, 720, layout_measure_fixed, NULL, d);
    int ticks[2] = { 0, 0 };
    for (int i = 0; i < d->n; i++)                              /* a check mark on each right guess, in both heads */
        if (d->cmds[i].kind == DRAW_TEXT && d->cmds[i].role == ROLE_OVERLAY
            && !strcmp(draw_str(d, &d->cmds[i]), "\xe2\x9c\x93"))
            for (int h = 0; h < 2; h++) {
                const Rect *r = &d->cmds[i].r;
                for (int j = 0; j < d->n; j++)
                    if (d->cmds[j].role == ROLE_CELL && d->cmds[j].panel == w[h] && r->x >= d->cmds[j].r.x - 0.5f
                        && r->x + r->w <= d->cmds[j].r.x + d->cmds[j].r.w + 0.5f && r->y >= d->cmds[j].r.y - 0.5f
                        && r->y + r->h <= d->cmds[j].r.y + d->cmds[j].r.h + 0.5f) {
                        ticks[h]++;
                        break;
                    }
            }
    ck_assert_int_eq(ticks[0], 4);
    ck_assert_int_eq(ticks[1], 2);
    app_goto(s, 2);                                             /* per_token: its scores stay */
    ck_assert_int_eq(s->predict, PREDICT_GUESSING);
    for (int k = 0; k < s->view->npanels; k++)
        if (s->view->panels[k].ref.kind == TK_RAW) ck_assert(!(app_hidden_panels(s) & (1ULL << k)));
    ck_assert(app_hidden_panels(s) != 0);                       /* its weights do not */
    app_goto(s, 3);                                             /* raw_scores: no weights, nothing hidden */
    ck_assert_int_eq(app_hidden_panels(s), 0);
    draw_free(d);
    app_free(s);
}
END_TEST

START_TEST(test_predict_marks_on_an_image)
{
    AppState *s = open_generated(2, 48, "X = randn 48x4\nqueries: X\n[softmax]\n");
    DrawList *d = draw_create(480, 300);
    app_frame(s, 480, 300, layout_measure_fixed, NULL, d);
    int images = 0;
    for (int i = 0; i < d->n; i++) images += d->cmds[i].kind == DRAW_IMAGE && d->cmds[i].panel == 1;
    ck_assert_int_eq(images, 1);                                 /* the weights: one image */
    app_predict(s);
    const Mat *W = s->view->panels[1].m;
    for (int i = 0; i < W->rows; i++) app_click(s, 1, i, 0);     /* guess the first key everywhere */
    app_predict(s);
    int right = s->predict_right;
    app_frame(s, 480, 300, layout_measure_fixed, NULL, d);
    int ticks = 0, crosses = 0;
    for (int i = 0; i < d->n; i++) {
        if (d->cmds[i].kind != DRAW_TEXT || d->cmds[i].role != ROLE_OVERLAY) continue;
        ticks += !strcmp(draw_str(d, &d->cmds[i]), "\xe2\x9c\x93");
        crosses += !strcmp(draw_str(d, &d->cmds[i]), "\xe2\x9c\x97");
    }
    ck_assert_int_eq(ticks, right);                              /* a mark per guessed row, on the image */
    ck_assert_int_eq(crosses, W->rows - right);
    draw_free(d);
    app_free(s);
}
END_TEST

START_TEST(test_shot_name)
{
    app_goto(a, 5);
    char *n = app_shot_path("shots", a->doc->L, a->stage, false);
    ck_assert_str_eq(n, "shots/01-tour-05-softmax.png");
    free(n);
}
END_TEST

START_TEST(test_picker)
{
    app_toggle_picker(a);
    ck_assert(a->picker);
    ck_assert_int_ge(a->picker_n, 6);
    ck_assert_int_eq(a->picker_sel, 0);                /* the open lesson is selected */
    ck_assert_str_eq(a->picker_titles[0], "A short tour of attention");
    app_picker_move(a, -1);                            /* wraps around */
    ck_assert_int_eq(a->picker_sel, a->picker_n - 1);
    app_picker_move(a, +1);
    app_picker_move(a, +1);
    app_picker_open(a);
    ck_assert(!a->picker);
    ck_assert_str_eq(a->doc->L->title, "From one-hot words to queries, keys and values");
    ck_assert_int_eq(a->stage, 0);
    app_toggle_picker(a);
    app_toggle_help(a);                                /* help replaces the picker */
    ck_assert(a->help && !a->picker);
}
END_TEST


START_TEST(test_long_toast_fits)
{
    /* a message wider than a phone's canvas is drawn smaller, then cut, never past the edges */
    DrawList *d = draw_create(390, 700);
    app_toast(a, "downloaded 02-one-hot-to-qkv-09-qkv_projection-with-a-name-longer-than-any-screen.png");
    for (int w = 390; w <= 1280; w += 445) {
        app_frame(a, w, 700, layout_measure_fixed, NULL, d);
        int found = 0;
        for (int i = 0; i < d->n; i++) {
            const DrawCmd *c = &d->cmds[i];
            if (c->role != ROLE_OVERLAY || c->kind != DRAW_TEXT || strncmp(draw_str(d, c), "downloaded", 10)) continue;
            float tw = layout_measure_fixed(NULL, draw_str(d, c), c->size, 0);
            float x = c->r.x + (c->r.w - tw) / 2;
            ck_assert_msg(x >= 0 && x + tw <= (float)w + 0.5f, "%d px: the message runs from %g to %g", w, x, x + tw);
            found++;
        }
        ck_assert_int_eq(found, 1);
    }
    draw_free(d);
}
END_TEST

START_TEST(test_frame_overlays)
{
    DrawList *d = draw_create(1280, 800);
    app_goto(a, find_stage(STAGE_SOFTMAX) + 1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_CELL, NULL), 32);      /* two 4x4 panels */
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, NULL), 0);
    app_hover(a, 1, 2, 3);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_gt(ttour_count_role(d, ROLE_OVERLAY, "softmax over the row of \xe2\x80\x9csat\xe2\x80\x9d"), 0);
    for (int i = 0; i < d->n; i++) {                             /* the panel stays on the canvas */
        const DrawCmd *c = &d->cmds[i];
        if (c->role != ROLE_OVERLAY) continue;
        ck_assert(c->r.x >= 0 && c->r.y >= 0 && c->r.x + c->r.w <= 1280 + 1 && c->r.y + c->r.h <= 800 + 1);
    }
    app_toggle_help(a);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "causal mask on / off"), 1);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "quit (asks first if edits are not saved)"), 1);   /* the desktop's keys */
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "download this stage as SVG"), 0);
    a->web = true;                                               /* the browser's help is HTML (the page's) */
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "download this stage as SVG"), 0);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "quit (asks first if edits are not saved)"), 0);
    a->web = false;
    app_hover(a, -1, -1, -1);                                    /* the explain box has its own rules */
    int sizes[3][2] = { { 480, 300 }, { 200, 120 }, { 8, 8 } };  /* the key list shrinks to fit small windows */
    for (int k = 0; k < 3; k++) {
        int w = sizes[k][0], h = sizes[k][1];
        app_frame(a, w, h, layout_measure_fixed, NULL, d);
        for (int i = 0; i < d->n; i++) {
            const DrawCmd *c = &d->cmds[i];
            if (c->role != ROLE_OVERLAY || c->kind != DRAW_TEXT) continue;
            ck_assert_msg(c->size >= 1, "%dx%d: text of size %g", w, h, c->size);
            if (k < 2) ck_assert_msg(c->r.x >= 0 && c->r.y >= 0 && c->r.x + c->r.w <= w + 1 && c->r.y + c->r.h <= h + 1,
                                     "%dx%d: key list text leaves the window: %g,%g %gx%g size %g", w, h, c->r.x, c->r.y, c->r.w, c->r.h, c->size);
        }
    }
    app_toggle_help(a);
    app_toggle_black(a);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(d->n, 0);
    ck_assert_int_eq(d->background.r + d->background.g + d->background.b, 0);
    app_toggle_black(a);
    draw_free(d);
}
END_TEST

START_TEST(test_frame_marks_edits_and_errors)
{
    DrawList *d = draw_create(1280, 800);
    app_goto(a, 1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    int before = ttour_count_role(d, ROLE_OVERLAY, NULL);
    ck_assert(app_scroll_edit(a, 0, 1, 2, 1, false));
    app_hover(a, -1, -1, -1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    /* corner mark and frame on the cell, and the "edited, not saved" mark (box and text) */
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, NULL), before + 4);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "edited, not saved"), 1);
    const char *bad = "title: T\n[setup]\ntokens: a\n[softmax]\n";
    ck_assert_int_eq(app_open_text(a, "bad.lesson", bad, strlen(bad)), -1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "bad.lesson:2:1: error"), 1);
    ck_assert_int_gt(ttour_count_role(d, ROLE_CELL, NULL), 0);             /* the previous lesson stays */
    draw_free(d);
}
END_TEST

/* The explanation worked out from scratch for the focused cell (caller frees). */
static char *explain_now(const AppState *s, int panel, int row, int col)
{
    const Panel *pn = &s->view->panels[panel];
    Explain ex;
    ck_assert(explain_at(s->doc->L, s->doc->T, s->view->setup, pn->ref, row + pn->row_offset, col + pn->col_offset, &ex));
    return ex.text;
}

/* What goes over the cells is worked out when the pointer, the pin, the
** numbers, the stage or predict mode change; a frame draws what the state
** holds and works out nothing. */
START_TEST(test_marks_follow_events)
{
    DrawList *d = draw_create(1280, 800);
    int k = find_stage(STAGE_SOFTMAX);
    app_goto(a, k + 1);
    ck_assert(!a->explained.on);
    app_hover(a, 1, 0, 2);                                       /* the pointer moves: worked out */
    ck_assert(a->explained.on);
    char *want = explain_now(a, 1, 0, 2);
    ck_assert_str_eq(a->explained.ex.text, want);
    free(want);
    ck_assert_int_gt(a->explained.nmarks, 0);
    /* the frame draws the stored text as it is */
    free(a->explained.ex.text);
    a->explained.ex.text = xstrdup("the explanation as stored");
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "the explanation as stored"), 1);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "softmax over the row"), 0);
    /* new numbers under the pointer: worked out again */
    app_toggle_scaling(a);
    want = explain_now(a, 1, 0, 2);
    ck_assert_str_eq(a->explained.ex.text, want);
    free(want);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "softmax over the row"), 1);
    app_toggle_scaling(a);
    /* predict mode hides the answer, and the reveal shows it again */
    app_predict(a);
    ck_assert(!a->explained.on);
    ck_assert_uint_eq(a->hidden & 2, 2);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "softmax over the row"), 0);
    app_predict(a);
    ck_assert(a->explained.on);
    ck_assert_uint_eq(a->hidden, 0);
    app_predict(a);
    /* a pin stays explained when the pointer leaves; Esc unpins */
    app_click(a, 1, 0, 2);
    app_hover(a, -1, -1, -1);
    ck_assert(a->explained.on);
    app_close_overlay(a);
    ck_assert(!a->explained.on);
    ck_assert_int_eq(a->explained.nmarks, 0);
    /* another stage: nothing focused */
    app_hover(a, 1, 0, 2);
    app_next(a);
    ck_assert(!a->explained.on);
    /* edited cells: marked after the edit, unmarked after the undo */
    app_goto(a, 1);
    ck_assert_int_eq(a->edited.n, 0);
    ck_assert(app_scroll_edit(a, 0, 1, 2, 1, false));
    ck_assert_int_eq(a->edited.n, 1);
    ck_assert(marks_is_edited(&a->edited, 0, 1, 2));
    ck_assert(!marks_is_edited(&a->edited, 0, 2, 1));
    app_goto(a, 3);                                              /* raw scores: no input shown */
    ck_assert_int_eq(a->edited.n, 0);
    app_goto(a, 1);
    ck_assert_int_eq(a->edited.n, 1);
    ck_assert(app_undo(a));
    ck_assert_int_eq(a->edited.n, 0);
    draw_free(d);
}
END_TEST

/* → and ← walk through the sub-steps of a stage before leaving it, and a
** hovered cache cell outlines its operands inside the cache panels. */
START_TEST(test_substeps)
{
    static const char *const text =
        "title: Steps\n[setup]\nseed: 1\ntokens: a b c\nX = randn 3x4\nW_q = randn 4x4\nW_k = randn 4x4\nW_v = randn 4x2\n"
        "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nmask: causal\n[softmax]\n[kv_cache]\n[online_softmax]\nblock: 2\n";
    ck_assert_int_eq(app_open_text(a, "steps.lesson", text, strlen(text)), 0);
    app_next(a);
    ck_assert_int_eq(a->stage, 1);
    ck_assert_int_eq(a->view->nsteps, 4);                   /* three tokens, then the comparison */
    ck_assert_str_eq(a->view->step_name, "t1");
    app_next(a);
    app_next(a);
    ck_assert_int_eq(a->stage, 1);
    ck_assert_str_eq(a->view->step_name, "t3");
    int k = -1;                                             /* the K cache of step 3: rows 0-2 */
    for (int i = 0; i < a->view->npanels; i++)
        if (a->view->panels[i].ref.kind == TK_KV_WEIGHTS) k = i;
    ck_assert_int_ge(k, 0);
    app_hover(a, k, 0, 1);                                  /* the weight of key b for query c */
    const LayoutMark *marks = a->explained.marks;
    int in_cache = 0;
    for (int i = 0; i < a->explained.nmarks; i++) in_cache += a->view->panels[marks[i].panel].m->rows == 3 && marks[i].row == 1;
    ck_assert_int_ge(in_cache, 1);                          /* key b's row, inside the K cache */
    app_next(a);
    ck_assert_str_eq(a->view->step_name, "all");
    app_next(a);
    ck_assert_int_eq(a->stage, 2);
    ck_assert_str_eq(a->view->step_name, "b1");
    app_prev(a);                                            /* back: the last sub-step of kv_cache */
    ck_assert_int_eq(a->stage, 1);
    ck_assert_str_eq(a->view->step_name, "all");
    app_prev(a);
    ck_assert_str_eq(a->view->step_name, "t3");
    app_goto(a, 1);
    ck_assert_int_eq(a->view->nsteps, 1);
    ck_assert_ptr_null(a->view->step_name);
}
END_TEST

/* The app-state suite. */
Suite *state_suite(void)
{
    Suite *s = suite_create("state");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, open_tour, close_tour);
    tcase_add_test(core, test_stepping);
    tcase_add_test(core, test_substeps);
    tcase_add_test(core, test_toggles);
    tcase_add_test(core, test_scaling_and_temperature_recompute);
    tcase_add_test(core, test_mask_toggle);
    tcase_add_test(core, test_heads);
    tcase_add_test(core, test_head_keeps_the_token);
    tcase_add_test(core, test_ablation_key);
    tcase_add_test(core, test_hover_pin_explain);
    tcase_add_test(core, test_scroll_edit_recomputes_downstream);
    tcase_add_test(core, test_predict_mode);
    tcase_add_test(core, test_no_edit_of_a_transposed_matrix);
    tcase_add_test(core, test_no_edit_of_given_attention);
    tcase_add_test(core, test_shot_name);
    tcase_add_test(core, test_picker);
    tcase_add_test(core, test_frame_overlays);
    tcase_add_test(core, test_long_toast_fits);
    tcase_add_test(core, test_frame_marks_edits_and_errors);
    tcase_add_test(core, test_marks_follow_events);
    tcase_add_test(core, test_failed_recompute_keeps_every_setting);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, open_tour, close_tour);
    tcase_add_test(limits, test_limits_edit_stays_finite);
    tcase_add_test(limits, test_save_roundtrip_atomic);
    tcase_add_test(limits, test_limits_save_file_size_limit);
    tcase_add_test(limits, test_bad_lesson_keeps_previous);
    tcase_add_test(limits, test_edits_of_inherited_matrices);
    tcase_add_test(core, test_predict_marks_on_an_image);
    tcase_add_test(core, test_predict_every_head);
    tcase_add_test(core, test_edit_redraws_a_kept_image);
    suite_add_tcase(s, limits);
    return s;
}
