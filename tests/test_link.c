/*
** test_link.c: what the browser edition reads from the program: the slide
** as a link's fields and back (src/app/link.c), the slide as text with its
** numbers as printed (src/app/describe.c), and the user's list of
** languages (src/app/lang.c).
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "app/describe.h"
#include "app/frame.h"
#include "app/lang.h"
#include "app/link.h"
#include "app/state.h"
#include "core/text/i18n.h"
#include "core/util.h"
#include "view/cmap.h"
#include "view/layout.h"
#include "tjson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A state with lesson path open (lessons/...). */
static AppState *opened(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "../lessons/%s", name);
    AppState *a = app_create();
    ck_assert_msg(app_open(a, path) == 0, "%s", a->error);
    return a;
}

/* The setup of the stage shown. */
static const Setup *shown_setup(const AppState *a)
{
    return &a->doc->L->setups[a->doc->L->stages[a->stage].setup];
}

/* Index of the first stage with id. */
static int stage_of(const AppState *a, StageId id)
{
    for (int k = 0; k < a->doc->L->nstages; k++)
        if (a->doc->L->stages[k].id == id) return k;
    ck_abort_msg("no stage %s", lesson_stage_name(id));
    return -1;
}

START_TEST(test_fields_round_trip)
{
    AppState *a = opened("01-tour.lesson"), *b = opened("01-tour.lesson");
    char *f = app_link_fields(a);
    ck_assert_str_eq(f, "stage=1");                   /* only what differs from the lesson */
    free(f);
    app_goto(a, stage_of(a, STAGE_SOFTMAX) + 1);
    app_toggle_mask(a);
    app_toggle_scaling(a);
    app_temperature(a, +1);
    app_toggle_theme(a);
    a->cmap = 2;
    f = app_link_fields(a);
    char want[200];
    snprintf(want, sizeof want, "stage=%d&mask=on&scaling=off&temp=1.25&theme=dark&cmap=%s", a->stage + 1, cmap_names()[2]);
    ck_assert_str_eq(f, want);
    app_link_apply(b, f);
    ck_assert_int_eq(b->stage, a->stage);
    ck_assert_int_eq(shown_setup(b)->mask, MASK_CAUSAL);
    ck_assert_int_eq(shown_setup(b)->score, SCORE_DOT);
    ck_assert_double_eq(shown_setup(b)->temperature, 1.25);
    ck_assert(b->dark);
    ck_assert_int_eq(b->cmap, 2);
    ck_assert_str_eq(b->toast, "");                     /* following a link is not news */
    char *g = app_link_fields(b);
    ck_assert_str_eq(g, f);
    free(g);
    /* the same link again changes nothing; back to the lesson's settings */
    app_link_apply(b, f);
    ck_assert_int_eq(shown_setup(b)->mask, MASK_CAUSAL);
    app_link_apply(b, "stage=2&mask=off&scaling=on&temp=1&theme=light&cmap=none");
    ck_assert_int_eq(b->stage, 1);
    ck_assert_int_eq(shown_setup(b)->mask, MASK_NONE);
    ck_assert_int_eq(shown_setup(b)->score, SCORE_SCALED_DOT);
    ck_assert_int_eq(b->cmap, -1);
    free(f);
    app_free(a);
    app_free(b);
}
END_TEST

START_TEST(test_fields_carry_edits_and_heads_switched_off)
{
    /* two edits (one cell edited twice: its last value), a cell edited back
    ** to the file's value (not carried), a head off and one at its mean, in
    ** another setup than the stage shown: a new state given the fields has
    ** the same numbers in every matrix and the same fields */
    AppState *a = opened("04-heads-entropy-causal.lesson"), *b = opened("04-heads-entropy-causal.lesson");
    int s4 = -1;
    for (int s = 0; s < a->doc->L->nsetups && s4 < 0; s++)
        if (a->doc->L->setups[s].heads == 4) s4 = s;
    ck_assert_int_ge(s4, 0);
    const char *x = a->doc->L->setups[s4].queries.input;
    double x11 = mat_get(lesson_matrix(&a->doc->L->setups[s4], x)->m, 0, 0);
    double x23 = mat_get(lesson_matrix(&a->doc->L->setups[s4], x)->m, 1, 2);
    ck_assert(app_edit_cell(a, s4, x, 0, 0, 0.5));
    ck_assert(app_edit_cell(a, s4, x, 0, 0, -1.25));
    ck_assert(app_edit_cell(a, s4, x, 1, 2, 7));
    ck_assert(app_edit_cell(a, s4, x, 1, 2, x23));            /* back as it was: nothing to carry */
    ck_assert(app_set_ablation(a, s4, 2, 1));
    ck_assert(app_set_ablation(a, s4, 4, 2));
    ck_assert(!app_set_ablation(a, s4, 9, 1));                 /* no head 9 */
    app_goto(a, 2);
    char *f = app_link_fields(a), want[300];
    snprintf(want, sizeof want, "stage=2&ablate=%d.2,%d.4m&edits=%d.%s.1.1:-1.25", s4 + 1, s4 + 1, s4 + 1, x);
    ck_assert_str_eq(f, want);
    app_link_apply(b, f);
    ck_assert_str_eq(b->toast, "");
    ck_assert_int_eq(b->stage, 1);
    const Setup *sb = &b->doc->L->setups[s4];
    ck_assert_double_eq(mat_get(lesson_matrix(sb, x)->m, 0, 0), -1.25);
    ck_assert_double_eq(mat_get(lesson_matrix(sb, x)->m, 1, 2), x23);
    ck_assert_uint_eq(sb->ablated, 2u | 8u);
    ck_assert_uint_eq(sb->ablate_mean, 8u);
    const Mat *wa = trace_at(a->doc->T, s4, trace_ref(TK_WEIGHTS, 1)), *wb = trace_at(b->doc->T, s4, trace_ref(TK_WEIGHTS, 1));
    ck_assert_mem_eq(wa->data, wb->data, sizeof(double) * (size_t)wa->rows * (size_t)wa->cols);
    const Mat *fa = trace_at(a->doc->T, s4, trace_ref(TK_FINAL, 0)), *fb = trace_at(b->doc->T, s4, trace_ref(TK_FINAL, 0));
    if (fa) ck_assert_mem_eq(fa->data, fb->data, sizeof(double) * (size_t)fa->rows * (size_t)fa->cols);
    ck_assert(b->doc->dirty && b->doc->nedits == 1);         /* an edit of its own: undoable, saved on request */
    char *g = app_link_fields(b);
    ck_assert_str_eq(g, f);
    free(g);
    (void)x11;
    /* links that ask for what the lesson has not: said, and the rest shown */
    AppState *c = opened("04-heads-entropy-causal.lesson");
    app_link_apply(c, "stage=2&edits=1.X.1.1:0.5,1.nothing.1.1:2");
    ck_assert_int_eq(c->stage, 1);
    ck_assert_str_eq(c->toast, "this link's edits stop at \xe2\x80\x9c" "1.nothing.1.1:2\xe2\x80\x9d, which is no cell of this lesson");
    app_link_apply(c, "stage=2&edits=1.X.1.1:zero");
    ck_assert_str_eq(c->toast, "this link's edits stop at \xe2\x80\x9c" "1.X.1.1:zero\xe2\x80\x9d, which is no cell of this lesson");
    snprintf(want, sizeof want, "ablate=%d.12", s4 + 1);
    app_link_apply(c, want);
    snprintf(want, sizeof want, "this link's heads to switch off stop at \xe2\x80\x9c%d.12\xe2\x80\x9d, which this lesson does not have", s4 + 1);
    ck_assert_str_eq(c->toast, want);
    free(f);
    app_free(a);
    app_free(b);
    app_free(c);
}
END_TEST

START_TEST(test_fields_steps_heads_and_odd_links)
{
    AppState *a = opened("10-inference.lesson");
    int kv = stage_of(a, STAGE_KV_CACHE);
    int last = a->doc->L->nstages - 1;
    app_link_apply(a, "stage=99");                      /* no stage 99: the last, and a note that says so */
    ck_assert_int_eq(a->stage, last);
    char want[160];
    snprintf(want, sizeof want, "this link asks for stage 99; the lesson has %d: here is the last", last + 1);
    ck_assert_str_eq(a->toast, want);
    app_link_apply(a, "lesson=10-inference&stage=x");
    ck_assert_int_eq(a->stage, last);
    ck_assert_str_eq(a->toast, "this link's stage \xe2\x80\x9cx\xe2\x80\x9d is no stage number");
    app_link_apply(a, "lesson=10-inference&foo=bar&stage=1");
    ck_assert_int_eq(a->stage, 0);
    ck_assert_str_eq(a->toast, "this link's field \xe2\x80\x9c" "foo\xe2\x80\x9d means nothing here: the rest is shown");
    char link[64];
    snprintf(link, sizeof link, "%d", kv + 1);           /* a bare number is a stage */
    app_link_apply(a, link);
    ck_assert_int_eq(a->stage, kv);
    snprintf(link, sizeof link, "stage=%d&step=3", kv + 1);
    app_link_apply(a, link);
    ck_assert_int_eq(a->step, 2);
    char *f = app_link_fields(a);
    ck_assert_msg(strstr(f, "&step=3") && (strstr(f, "&step=3")[7] == '\0' || strstr(f, "&step=3")[7] == '&'), "%s", f);
    free(f);
    snprintf(link, sizeof link, "stage=%d&step=999", kv + 1);
    app_link_apply(a, link);
    ck_assert_int_eq(a->step, a->view->nsteps - 1);
    app_free(a);

    a = opened("04-heads-entropy-causal.lesson");
    int sm = -1;                                          /* a stage of four heads */
    for (int k = 0; k < a->doc->L->nstages && sm < 0; k++)
        if (a->doc->L->setups[a->doc->L->stages[k].setup].heads == 4 && a->doc->L->stages[k].id == STAGE_MULTI_HEAD) sm = k;
    ck_assert_int_ge(sm, 0);
    snprintf(link, sizeof link, "stage=%d&head=3", sm + 1);
    app_link_apply(a, link);
    ck_assert_int_eq(a->head, 3);
    ck_assert_int_eq(a->view->head, 3);
    f = app_link_fields(a);
    ck_assert_msg(strstr(f, "&head=3"), "%s", f);
    free(f);
    snprintf(link, sizeof link, "stage=%d&head=77", sm + 1);
    app_link_apply(a, link);
    ck_assert_int_eq(a->head, 0);
    app_free(a);
}
END_TEST

START_TEST(test_description_holds_the_printed_numbers)
{
    /* every number a cell prints on the slide is the table's entry for that cell */
    AppState *a = opened("01-tour.lesson");
    app_goto(a, stage_of(a, STAGE_SOFTMAX) + 1);
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    char *json = app_describe(a, d, true);
    Tj *t = tjson_parse(json);
    ck_assert_msg(t != NULL, "%s", json);
    ck_assert_str_eq(tjson_get(t, "title")->str, a->view->title);
    ck_assert_str_eq(tjson_get(t, "formula")->str, a->view->formula);
    ck_assert_int_eq((int)tjson_get(t, "stage")->num, a->stage + 1);
    ck_assert_int_eq(tjson_get(t, "paras")->n, a->view->npara);
    Tj *panels = tjson_get(t, "panels");
    ck_assert_int_eq(panels->n, a->view->npanels);
    int printed = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_TEXT || (c->role != ROLE_CELL_TEXT && c->role != ROLE_MASKED)) continue;
        Tj *p = tjson_at(panels, c->panel);
        const char *cell = tjson_at(tjson_at(tjson_get(p, "cells"), c->row), c->col)->str;
        ck_assert_str_eq(cell, draw_str(d, c));
        printed++;
    }
    ck_assert_int_ge(printed, 16);
    /* the rows asked for one by one are the same rows, clamped to the panel */
    for (int k = 0; k < panels->n; k++) {
        Tj *cells = tjson_get(tjson_at(panels, k), "cells");
        for (int r = 0; r < cells->n; r++) {
            char *rows = app_describe_rows(a, d, k, r, r + 1);
            Tj *one = tjson_parse(rows);
            ck_assert_int_eq(one->n, 1);
            Tj *want = tjson_at(cells, r), *got = tjson_at(one, 0);
            ck_assert_int_eq(got->n, want->n);
            for (int c = 0; c < want->n; c++) ck_assert_str_eq(tjson_at(got, c)->str, tjson_at(want, c)->str);
            tjson_free(one);
            free(rows);
        }
        char *all = app_describe_rows(a, d, k, -5, 1 << 20);
        Tj *t_all = tjson_parse(all);
        ck_assert_int_eq(t_all->n, cells->n);
        tjson_free(t_all);
        free(all);
    }
    ck_assert_ptr_null(app_describe_rows(a, d, panels->n, 0, 1));
    ck_assert_ptr_null(app_describe_rows(a, d, -1, 0, 1));
    Tj *p0 = tjson_at(panels, 0);
    ck_assert_str_eq(tjson_at(tjson_get(p0, "rows"), 0)->str, a->view->panels[0].row_labels[0]);
    ck_assert_str_eq(tjson_at(tjson_get(p0, "cols"), 1)->str, a->view->panels[0].col_labels[1]);
    tjson_free(t);
    free(json);
    /* predict mode: the weights give nothing away */
    app_predict(a);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    json = app_describe(a, d, true);
    t = tjson_parse(json);
    bool hidden = false;
    for (int k = 0; k < tjson_get(t, "panels")->n; k++) {
        Tj *p = tjson_at(tjson_get(t, "panels"), k);
        if (tjson_get(p, "hidden")->num) {
            hidden = true;
            ck_assert_int_eq(tjson_get(p, "cells")->n, 0);
            ck_assert_ptr_null(app_describe_rows(a, d, k, 0, 1));
        }
    }
    ck_assert(hidden);
    tjson_free(t);
    free(json);
    json = app_describe(a, d, false);                     /* the words alone */
    t = tjson_parse(json);
    ck_assert_str_eq(tjson_get(t, "title")->str, a->view->title);
    ck_assert_int_eq(tjson_get(tjson_at(tjson_get(t, "panels"), 0), "cells")->n, 0);
    tjson_free(t);
    free(json);
    draw_free(d);
    app_free(a);
}
END_TEST

START_TEST(test_description_of_masks_and_plots)
{
    /* −∞ as the slide prints it; a plot's series and its bound */
    AppState *a = opened("04-heads-entropy-causal.lesson");
    DrawList *d = draw_create(1280, 800);
    for (int k = 0; k < a->doc->L->nstages; k++) {
        app_goto(a, k + 1);
        app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
        char *json = app_describe(a, d, true);
        Tj *t = tjson_parse(json);
        ck_assert_msg(t != NULL, "%s", json);
        for (int i = 0; i < tjson_get(t, "panels")->n; i++) {
            Tj *p = tjson_at(tjson_get(t, "panels"), i);
            const Panel *pn = &a->view->panels[i];
            Tj *cells = tjson_get(p, "cells");
            ck_assert_int_eq(cells->n, pn->m->rows);
            int cols = pn->m->cols + (pn->kind == PANEL_PLOT && pn->bounds ? 1 : 0);
            ck_assert_int_eq(tjson_get(p, "cols")->n, cols);
            for (int r = 0; r < pn->m->rows; r++) {
                ck_assert_int_eq(tjson_at(cells, r)->n, cols);
                for (int c = 0; c < pn->m->cols; c++)
                    if (isinf(mat_get(pn->m, r, c)))
                        ck_assert_str_eq(tjson_at(tjson_at(cells, r), c)->str, "\xe2\x88\x92\xe2\x88\x9e");
            }
        }
        tjson_free(t);
        free(json);
    }
    draw_free(d);
    app_free(a);
}
END_TEST

START_TEST(test_languages_in_order)
{
    /* LANGUAGE lists the user's languages: the first with a catalogue
    ** wins (pt_BR and pt have none, es has), English where it comes first */
    setenv("LANG", "pt_BR.UTF-8", 1);
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    setenv("LANGUAGE", "pt_BR:pt:es:de", 1);
    ck_assert_int_eq(app_use_language(NULL), 0);
    ck_assert_str_eq(i18n_language(), "es");
    setenv("LANGUAGE", "en_GB:de", 1);
    ck_assert_int_eq(app_use_language(NULL), -1);
    setenv("LANGUAGE", "xx:zz", 1);                     /* none of them: the locale's */
    setenv("LANG", "de_DE.UTF-8", 1);
    ck_assert_int_eq(app_use_language(NULL), 0);
    ck_assert_str_eq(i18n_language(), "de_DE");            /* the catalogue of de */
    setenv("LANG", "C", 1);                              /* the C locale: LANGUAGE is not read */
    setenv("LANGUAGE", "fr", 1);
    ck_assert_int_eq(app_use_language(NULL), -1);
    ck_assert_int_eq(app_use_language("ja"), 0);         /* a lesson's language still wins */
    ck_assert_str_eq(i18n_language(), "ja");
    i18n_reset();
}
END_TEST

/* The suite. */
Suite *link_suite(void)
{
    Suite *s = suite_create("link");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_fields_round_trip);
    tcase_add_test(core, test_fields_carry_edits_and_heads_switched_off);
    tcase_add_test(core, test_fields_steps_heads_and_odd_links);
    tcase_add_test(core, test_description_holds_the_printed_numbers);
    tcase_add_test(core, test_description_of_masks_and_plots);
    tcase_add_test(core, test_languages_in_order);
    suite_add_tcase(s, core);
    return s;
}
