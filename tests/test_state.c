/*
** test_state.c: the interactive program's actions, driven without a window.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "app/shot.h"
#include "app/state.h"
#include "app/frame.h"
#include "view/layout.h"
#include "core/fileio.h"
#include "core/util.h"
#include "tjson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define TOUR "../lessons/01-tour.lesson"

static AppState *a;

/* A state with the tour open. */
static void open_tour(void)
{
    a = app_create();
    ck_assert_msg(app_open(a, TOUR) == 0, "%s", a->error);
}

/* Free it. */
static void close_tour(void)
{
    app_free(a);
}

/* Index of the stage with id in the open lesson. */
static int find_stage(StageId id)
{
    for (int k = 0; k < a->L->nstages; k++)
        if (a->L->stages[k].id == id) return k;
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
    ck_assert_int_eq(a->stage, a->L->nstages - 1);
    app_next(a);                                 /* stays at the last */
    ck_assert_int_eq(a->stage, a->L->nstages - 1);
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
    double w0 = mat_get(trace_get(a->T, 0, "weights"), 0, 0);
    app_toggle_scaling(a);
    ck_assert_int_eq(a->L->setups[0].score, SCORE_DOT);
    double w1 = mat_get(trace_get(a->T, 0, "weights"), 0, 0);
    ck_assert(w1 != w0);
    /* unscaled = scaled with divisor 1: check one weight against the raw scores */
    const Mat *raw = trace_get(a->T, 0, "raw_scores");
    double sum = 0;
    for (int j = 0; j < raw->cols; j++) sum += exp(mat_get(raw, 0, j));
    ck_assert_double_eq_tol(w1, exp(mat_get(raw, 0, 0)) / sum, 1e-12);
    app_toggle_scaling(a);
    ck_assert_double_eq(mat_get(trace_get(a->T, 0, "weights"), 0, 0), w0);
    app_temperature(a, +1);
    ck_assert_double_eq_tol(a->L->setups[0].temperature, 1.25, 1e-12);
    /* hotter is flatter: the largest weight of row 0 goes down */
    app_temperature(a, -1);
    ck_assert_double_eq(a->L->setups[0].temperature, 1.0);
    for (int i = 0; i < 40; i++) app_temperature(a, -1);
    ck_assert_double_eq_tol(a->L->setups[0].temperature, 0.1, 1e-12);
    ck_assert(mat_all_finite(trace_get(a->T, 0, "weights")));
}
END_TEST

START_TEST(test_mask_toggle)
{
    int k = find_stage(STAGE_CAUSAL_MASK);
    app_goto(a, k + 1);
    int s = a->L->stages[k].setup;
    ck_assert(mat_get(trace_get(a->T, s, "weights"), 0, 1) == 0.0);
    app_toggle_mask(a);
    ck_assert_int_eq(a->L->setups[s].mask, MASK_NONE);
    ck_assert(mat_get(trace_get(a->T, s, "weights"), 0, 1) > 0.0);
    ck_assert_ptr_null(trace_get(a->T, s, "mask"));
    app_toggle_mask(a);
    ck_assert_int_eq(a->L->setups[s].mask, MASK_CAUSAL);
    ck_assert(mat_get(trace_get(a->T, s, "weights"), 0, 1) == 0.0);
}
END_TEST

START_TEST(test_heads)
{
    int k = find_stage(STAGE_MULTI_HEAD);
    app_goto(a, k + 1);
    int before = a->view->npanels;
    app_next_head(a);
    ck_assert_int_eq(a->head, 1);
    ck_assert_str_eq(a->view->panels[0].matrix, "head1.Q");
    ck_assert(a->view->npanels != before);
    app_next_head(a);
    app_next_head(a);
    ck_assert_int_eq(a->head, 0);               /* 2 heads: 1, 2, then all */
    ck_assert_str_eq(a->view->panels[0].matrix, "head1.weights");
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
    double s0 = mat_get(trace_get(a->T, 0, "raw_scores"), 0, 0);
    double later0 = mat_get(trace_at(a->T, 2, trace_ref(TK_WEIGHTS, 1)), 0, 0);
    ck_assert(app_scroll_edit(a, 0, 0, 0, +3, false));
    ck_assert_double_eq_tol(mat_get(a->view->panels[0].m, 0, 0), x0 + 0.3, 1e-12);
    ck_assert(mat_get(trace_get(a->T, 0, "raw_scores"), 0, 0) != s0);
    ck_assert(mat_get(trace_at(a->T, 2, trace_ref(TK_WEIGHTS, 1)), 0, 0) != later0);   /* inherited by setup 3 */
    ck_assert(app_is_edited(a, 0, "X", 0, 0));
    ck_assert(!app_is_edited(a, 0, "X", 0, 1));
    ck_assert(app_scroll_edit(a, 0, 0, 0, -1, true));
    ck_assert_double_eq_tol(mat_get(a->view->panels[0].m, 0, 0), x0 + 0.29, 1e-12);
    ck_assert(a->dirty);
    app_undo_all(a);
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 0, 0), x0);
    ck_assert_int_eq(a->nedits, 0);
    ck_assert_int_eq(a->stage, 0);
}
END_TEST

START_TEST(test_limits_edit_stays_finite)
{
    app_goto(a, 1);
    for (int i = 0; i < 200; i++) app_scroll_edit(a, 0, 1, 1, 1000000, false);
    ck_assert(mat_get(a->view->panels[0].m, 1, 1) <= 1e6);
    for (int s = 0; s < a->T->nsetups; s++)
        ck_assert(mat_all_finite(trace_at(a->T, s, trace_ref(TK_WEIGHTS, 1))) || s == 1);
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
    ck_assert(!a->dirty);
    AppState *b = app_create();
    ck_assert_msg(app_open(b, path) == 0, "%s", b->error);
    app_goto(b, 1);
    ck_assert_double_eq(mat_get(b->view->panels[0].m, 2, 1), edited);
    ck_assert(mat_max_abs_diff(trace_get(a->T, 2, "concat"), trace_get(b->T, 2, "concat")) == 0.0);
    app_free(b);
    /* an unwritable target: the save fails, says why, and leaves no file */
    free(a->path);
    snprintf(path, sizeof path, "%s/missing-dir/x.lesson", dir);
    a->path = xstrdup(path);
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
    char path[256], msg[300];
    snprintf(path, sizeof path, "%s/edited.lesson", dir);
    size_t len;
    FileioError fe;
    char *text = fileio_read(TOUR, 1 << 20, &len, &fe);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(fileio_write_atomic(path, text, len, false, msg, sizeof msg), 0);
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
    char want[400];
    snprintf(want, sizeof want, "%s: cannot write: File too large", path);
    ck_assert_str_eq(a->toast, want);
    ck_assert(a->dirty);
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
    ck_assert_str_eq(a->L->title, "A short tour of attention");     /* still the tour */
    ck_assert_int_eq(app_open(a, "/nonexistent.lesson"), -1);
    ck_assert(strstr(a->error, "cannot open") != NULL);
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

START_TEST(test_shot_name)
{
    app_goto(a, 5);
    char *n = app_shot_path("shots", a->L, a->stage, false);
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
    ck_assert_str_eq(a->L->title, "From one-hot words to queries, keys and values");
    ck_assert_int_eq(a->stage, 0);
    app_toggle_picker(a);
    app_toggle_help(a);                                /* help replaces the picker */
    ck_assert(a->help && !a->picker);
}
END_TEST

START_TEST(test_limits_save_refuses_what_would_not_load)
{
    /* 300x300 random numbers written out at full precision are far over the
    ** 1 MiB file limit: the save is refused and the file is left alone */
    char dir[] = "/tmp/attnlab-big-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/big.lesson", dir);
    const char *text = "title: Big\n[setup]\nseed: 1\ntokens: a b\nX = randn 2x300\nW = randn 300x300\nqueries: X @ W\n[softmax]\n";
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    ck_assert_int_eq(app_open(a, path), 0);
    ck_assert_int_eq(app_save_lesson(a), -1);
    ck_assert(strstr(a->toast, "not saved") != NULL);
    size_t len;
    char *now = tjson_read_file(path, &len);
    ck_assert_str_eq(now, text);
    free(now);
    remove(path);
    rmdir(dir);
}
END_TEST

/* Count commands of a role whose text contains part (any text if NULL). */
static int count_role(const DrawList *d, DrawRole role, const char *part)
{
    int n = 0;
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == role && (!part || (d->cmds[i].kind == DRAW_TEXT && strstr(draw_str(d, &d->cmds[i]), part))))
            n++;
    return n;
}

START_TEST(test_frame_overlays)
{
    DrawList *d = draw_create(1280, 800);
    app_goto(a, find_stage(STAGE_SOFTMAX) + 1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(count_role(d, ROLE_CELL, NULL), 32);      /* two 4x4 panels */
    ck_assert_int_eq(count_role(d, ROLE_OVERLAY, NULL), 0);
    app_hover(a, 1, 2, 3);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_gt(count_role(d, ROLE_OVERLAY, "softmax over the row of \xe2\x80\x9csat\xe2\x80\x9d"), 0);
    for (int i = 0; i < d->n; i++) {                             /* the panel stays on the canvas */
        const DrawCmd *c = &d->cmds[i];
        if (c->role != ROLE_OVERLAY) continue;
        ck_assert(c->r.x >= 0 && c->r.y >= 0 && c->r.x + c->r.w <= 1280 + 1 && c->r.y + c->r.h <= 800 + 1);
    }
    app_toggle_help(a);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(count_role(d, ROLE_OVERLAY, "causal mask on / off"), 1);
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
    int before = count_role(d, ROLE_OVERLAY, NULL);
    ck_assert(app_scroll_edit(a, 0, 1, 2, 1, false));
    app_hover(a, -1, -1, -1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(count_role(d, ROLE_OVERLAY, NULL), before + 2);   /* corner mark and frame */
    const char *bad = "title: T\n[setup]\ntokens: a\n[softmax]\n";
    ck_assert_int_eq(app_open_text(a, "bad.lesson", bad, strlen(bad)), -1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(count_role(d, ROLE_OVERLAY, "bad.lesson:2:1: error"), 1);
    ck_assert_int_gt(count_role(d, ROLE_CELL, NULL), 0);             /* the previous lesson stays */
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
    LayoutMark marks[16];
    int n = app_marks(a, marks, 16), in_cache = 0;
    for (int i = 0; i < n; i++) in_cache += a->view->panels[marks[i].panel].m->rows == 3 && marks[i].row == 1;
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
    tcase_add_test(core, test_hover_pin_explain);
    tcase_add_test(core, test_scroll_edit_recomputes_downstream);
    tcase_add_test(core, test_predict_mode);
    tcase_add_test(core, test_shot_name);
    tcase_add_test(core, test_picker);
    tcase_add_test(core, test_frame_overlays);
    tcase_add_test(core, test_frame_marks_edits_and_errors);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, open_tour, close_tour);
    tcase_add_test(limits, test_limits_edit_stays_finite);
    tcase_add_test(limits, test_save_roundtrip_atomic);
    tcase_add_test(limits, test_limits_save_file_size_limit);
    tcase_add_test(limits, test_bad_lesson_keeps_previous);
    tcase_add_test(limits, test_limits_save_refuses_what_would_not_load);
    suite_add_tcase(s, limits);
    return s;
}
