/*
** test_keys.c: the key table of both editions (src/app/keys.c): its rows
** agree with the words the help shows, no key means two things, and a
** press does what the row says in each context.
*/
#include "suites.h"
#include "app/cells.h"
#include "app/frame.h"
#include "app/keys.h"
#include "app/predict.h"
#include "app/prompt.h"
#include "app/state.h"
#include "core/util.h"
#include "view/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOUR "../lessons/01-tour.lesson"
#define QKV "../lessons/02-one-hot-to-qkv.lesson"     /* 13 stages */

/* A binding as the help writes it ("Ctrl+Shift+Z", "→", "Space"), or ""
** for a key the help leaves out ('=' is the unshifted +). */
static void bind_name(const KeyBind *b, char *out, size_t n)
{
    static const struct { int key; const char *name; } names[] = {
        { KEY_RIGHT, "\xe2\x86\x92" }, { KEY_LEFT, "\xe2\x86\x90" }, { ' ', "Space" }, { KEY_PAGEDOWN, "PgDn" },
        { KEY_PAGEUP, "PgUp" }, { KEY_ENTER, "Enter" }, { KEY_BACKSPACE, "Backspace" }, { KEY_HOME, "Home" },
        { KEY_END, "End" }, { KEY_F11, "F11" }, { KEY_ESCAPE, "Esc" }, { '-', "\xe2\x88\x92" }, { '=', "" },
    };
    char key[16] = "";
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].key == b->key) snprintf(key, sizeof key, "%s", names[i].name);
    if (!key[0] && b->key != '=') snprintf(key, sizeof key, "%c", b->key >= 'a' && b->key <= 'z' ? b->key - 'a' + 'A' : b->key);
    snprintf(out, n, "%s%s%s", !key[0] ? "" : (b->mods & KEYMOD_CTRL) ? "Ctrl+" : "",
             key[0] && (b->mods & KEYMOD_SHIFT) ? "Shift+" : "", key);
}

START_TEST(test_help_words_name_the_bindings)
{
    /* each row the help lists names, in its keys, exactly the keys bound to
    ** it and to the unlisted rows right after it (Home names First, End the
    ** Last row below it) */
    int n;
    const KeyRow *rows = app_key_rows(&n);
    int listed = 0;
    for (int i = 0; i < n; i++) {
        const KeyRow *r = &rows[i];
        if (!r->keys || !r->bind[0].key || r->bind[0].key == KEY_DIGIT) continue;
        char want[200] = "";
        for (int j = i; j < n && (j == i || (!rows[j].keys && rows[j].ctx == r->ctx)); j++) {
            for (int k = 0; k < KEY_MAX_BINDS && rows[j].bind[k].key; k++) {
                char name[40];
                bind_name(&rows[j].bind[k], name, sizeof name);
                if (!name[0]) continue;
                size_t l = strlen(want);
                snprintf(want + l, sizeof want - l, "%s%s", l ? "  " : "", name);
            }
        }
        ck_assert_msg(!strcmp(r->keys, want), "the help says \"%s\" for the keys \"%s\"", r->keys, want);
        listed++;
    }
    ck_assert_int_ge(listed, 20);
}
END_TEST

START_TEST(test_no_key_means_two_things)
{
    int n;
    const KeyRow *rows = app_key_rows(&n);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (rows[i].ctx != rows[j].ctx || !(rows[i].editions & rows[j].editions)) continue;
            for (int k = 0; k < KEY_MAX_BINDS && rows[i].bind[k].key; k++)
                for (int l = 0; l < KEY_MAX_BINDS && rows[j].bind[l].key; l++)
                    ck_assert_msg(rows[i].bind[k].key != rows[j].bind[l].key || rows[i].bind[k].mods != rows[j].bind[l].mods,
                                  "%s and %s share a key", app_action_name(rows[i].act), app_action_name(rows[j].act));
        }
    /* every action has a name the page can call it by, and back */
    for (int act = 1; act < ACT_COUNT; act++)
        ck_assert_int_eq(app_action_named(app_action_name((AppAction)act)), act);
    ck_assert_int_eq(app_action_named("no such action"), ACT_NONE);
}
END_TEST

START_TEST(test_digits_reach_every_stage)
{
    AppState *a = app_create();
    ck_assert_msg(app_open(a, QKV) == 0, "%s", a->error);
    ck_assert_int_eq(a->doc->L->nstages, 13);
    a->now = 100;
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, '1', 0), ACT_STAGE_DIGIT);
    ck_assert_int_eq(a->stage, 0);
    a->now = 100.4;
    app_key(a, EDITION_WEB, '3', 0);                  /* 1 then 3: stage 13 */
    ck_assert_int_eq(a->stage, 12);
    a->now = 102;                                     /* later: a new number */
    app_key(a, EDITION_DESKTOP, '3', 0);
    ck_assert_int_eq(a->stage, 2);
    a->now = 103;
    app_key(a, EDITION_DESKTOP, '1', 0);
    a->now = 103.5;
    app_key(a, EDITION_DESKTOP, '0', 0);              /* 10 */
    ck_assert_int_eq(a->stage, 9);
    a->now = 103.9;
    app_key(a, EDITION_DESKTOP, '7', 0);              /* 107 is no stage: 7 */
    ck_assert_int_eq(a->stage, 6);
    a->now = 110;
    app_key(a, EDITION_DESKTOP, '0', 0);              /* 0 alone: nothing */
    ck_assert_int_eq(a->stage, 6);
    app_free(a);
}
END_TEST

START_TEST(test_keys_do_what_their_rows_say)
{
    AppState *a = app_create();
    ck_assert_msg(app_open(a, TOUR) == 0, "%s", a->error);
    app_key(a, EDITION_DESKTOP, KEY_RIGHT, KEYMOD_SHIFT);    /* Shift+→ is → */
    ck_assert_int_eq(a->stage, 1);
    app_key(a, EDITION_WEB, ' ', 0);
    app_key(a, EDITION_WEB, KEY_PAGEDOWN, 0);
    ck_assert_int_eq(a->stage, 3);
    app_key(a, EDITION_DESKTOP, KEY_BACKSPACE, 0);
    ck_assert_int_eq(a->stage, 2);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'j', KEYMOD_CTRL), ACT_NONE);   /* Ctrl+J is nothing, not J */
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 't', KEYMOD_CTRL), ACT_NONE);
    ck_assert(!a->dark);
    app_key(a, EDITION_DESKTOP, 't', 0);
    ck_assert(a->dark);
    app_key(a, EDITION_DESKTOP, '?', KEYMOD_SHIFT);        /* ? is Shift+/ on many keyboards */
    ck_assert(a->help);
    app_key(a, EDITION_DESKTOP, KEY_ESCAPE, 0);
    ck_assert(!a->help);
    /* the platform's: returned, not done */
    int stage = a->stage;
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 's', 0), ACT_SHOT);
    ck_assert_int_eq(app_key(a, EDITION_WEB, 's', KEYMOD_SHIFT), ACT_SVG);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 's', KEYMOD_SHIFT), ACT_SHOT);   /* no Shift+S on the desktop */
    ck_assert_int_eq(app_key(a, EDITION_WEB, 'o', 0), ACT_OPEN);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'o', 0), ACT_OPEN);        /* both editions open files */
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'o', KEYMOD_CTRL), ACT_OPEN);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'p', KEYMOD_CTRL), ACT_PDF);   /* the handout: the desktop's only */
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'e', KEYMOD_CTRL), ACT_PDF);
    ck_assert_int_eq(app_key(a, EDITION_WEB, 'p', KEYMOD_CTRL), ACT_NONE);     /* the browser prints with its own */
    ck_assert_int_eq(a->predict, PREDICT_OFF);                                    /* Ctrl+P is not P */
    ck_assert_int_eq(app_key(a, EDITION_WEB, 's', KEYMOD_CTRL), ACT_SAVE);
    ck_assert_int_eq(app_key(a, EDITION_WEB, 'q', 0), ACT_NONE);                 /* a page does not quit */
    ck_assert_int_eq(a->stage, stage);
    ck_assert(!a->quit);
    ck_assert(!app_do(a, ACT_LINK, -1));
    ck_assert(!app_do(a, ACT_PDF, -1) && app_action_platform(ACT_PDF));
    ck_assert_str_eq(app_action_name(ACT_PDF), "pdf");
    ck_assert(app_action_platform(ACT_LINK) && !app_action_platform(ACT_MASK));
    app_free(a);
}
END_TEST

/* The first stage of a's lesson whose view has an editable heatmap (and
** that panel in *panel), or -1. */
static int stage_with_input(AppState *a, int *panel)
{
    for (int s = 0; s < a->doc->L->nstages; s++) {
        app_goto(a, s + 1);
        for (int p = 0; p < a->view->npanels; p++)
            if (a->view->panels[p].kind == PANEL_HEATMAP && a->view->panels[p].editable) {
                *panel = p;
                return s;
            }
    }
    return -1;
}

START_TEST(test_cell_cursor)
{
    /* Enter starts the cursor on panel 0's first cell; the arrows move it
    ** (clamped), Tab goes round the heatmaps, + changes an input, Esc and a
    ** click end it; the arrows step the stages again */
    AppState *a = app_create();
    ck_assert_msg(app_open(a, QKV) == 0, "%s", a->error);
    int input, s = stage_with_input(a, &input);
    ck_assert_int_ge(s, 0);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_ENTER, 0), ACT_CELLS);
    ck_assert(app_cells_on(a) && a->pinned && a->pin_row == 0 && a->pin_col == 0);
    int first = a->pin_panel;
    char *why = app_explain(a);
    ck_assert_msg(why && why[0], "the cursor's cell is explained");
    free(why);
    ck_assert_int_eq(app_key(a, EDITION_WEB, KEY_RIGHT, 0), ACT_CELL_RIGHT);
    ck_assert_int_eq(a->stage, s);
    ck_assert_int_eq(a->pin_col, 1);
    app_key(a, EDITION_DESKTOP, KEY_LEFT, 0);
    app_key(a, EDITION_DESKTOP, KEY_LEFT, 0);
    ck_assert_int_eq(a->pin_col, 0);                                /* clamped at the panel's edge */
    app_key(a, EDITION_DESKTOP, KEY_UP, 0);
    ck_assert_int_eq(a->pin_row, 0);
    app_key(a, EDITION_DESKTOP, KEY_DOWN, 0);
    ck_assert_int_eq(a->pin_row, 1);
    for (int i = 0; i < 100; i++) app_key(a, EDITION_DESKTOP, KEY_DOWN, 0);
    ck_assert_int_eq(a->pin_row, a->view->panels[a->pin_panel].m->rows - 1);
    /* Tab: round the heatmaps to the input, Shift+Tab back */
    for (int i = 0; i < a->view->npanels && a->pin_panel != input; i++) app_key(a, EDITION_DESKTOP, KEY_TAB, 0);
    ck_assert_int_eq(a->pin_panel, input);
    int before = a->doc->nedits;
    double old = mat_get(a->view->panels[input].m, a->pin_row, a->pin_col);
    ck_assert_int_eq(app_key(a, EDITION_WEB, '+', 0), ACT_INCREASE);
    ck_assert_int_eq(a->doc->nedits, before + 1);
    ck_assert_double_eq_tol(mat_get(a->view->panels[input].m, a->pin_row, a->pin_col), app_edit_step(old, 1, false), 1e-12);
    ck_assert(app_cells_on(a));                                     /* the edit keeps the cursor */
    app_key(a, EDITION_DESKTOP, '-', 0);
    ck_assert_double_eq_tol(mat_get(a->view->panels[input].m, a->pin_row, a->pin_col), old, 1e-12);
    app_key(a, EDITION_DESKTOP, KEY_TAB, KEYMOD_SHIFT);
    ck_assert(a->pin_panel != input || a->view->npanels == 1);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_ESCAPE, 0), ACT_CELLS_LEAVE);
    ck_assert(!app_cells_on(a) && !a->pinned);
    app_key(a, EDITION_DESKTOP, KEY_RIGHT, 0);
    ck_assert_int_eq(a->stage, s + 1);                              /* → steps again */
    /* a click pins without the cursor: the arrows still step */
    app_goto(a, s + 1);
    app_key(a, EDITION_DESKTOP, KEY_ENTER, 0);
    ck_assert(app_cells_on(a));
    app_click(a, first, 0, 1);
    ck_assert(a->pinned && !app_cells_on(a));
    app_key(a, EDITION_DESKTOP, KEY_RIGHT, 0);
    ck_assert_int_eq(a->stage, s + 1);
    /* a stage change ends the cursor */
    app_goto(a, s + 1);
    app_key(a, EDITION_DESKTOP, KEY_ENTER, 0);
    app_key(a, EDITION_DESKTOP, KEY_PAGEDOWN, 0);
    ck_assert(!app_cells_on(a) && !a->pinned);
    app_free(a);
}
END_TEST

START_TEST(test_cell_cursor_guesses)
{
    /* predict mode: the cursor stands on the hidden weights, and Enter or
    ** Space guesses the cell, as a click would; nothing is explained there */
    AppState *a = app_create();
    ck_assert_msg(app_open(a, TOUR) == 0, "%s", a->error);
    for (int s = 0; s < a->doc->L->nstages; s++) {
        app_goto(a, s + 1);
        if (a->predict == PREDICT_OFF) app_predict(a);
        if (a->predict_panel >= 0) break;
    }
    ck_assert_int_eq(a->predict, PREDICT_GUESSING);
    ck_assert_int_ge(a->predict_panel, 0);
    app_key(a, EDITION_DESKTOP, KEY_ENTER, 0);
    ck_assert(app_cells_on(a));
    for (int i = 0; i < a->view->npanels && !app_guess_panel(a, a->pin_panel); i++)
        app_key(a, EDITION_DESKTOP, KEY_TAB, 0);
    int p = a->pin_panel;
    ck_assert(app_guess_panel(a, p));
    app_key(a, EDITION_DESKTOP, KEY_RIGHT, 0);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, ' ', 0), ACT_CELL_PRESS);
    ck_assert_int_eq(app_guess(a, p, 0), 1);
    ck_assert(app_cells_on(a) && a->pin_panel == p && a->pin_col == 1);
    char *why = app_explain(a);
    ck_assert_msg(!why || !why[0], "a hidden weight is not explained: %s", why ? why : "");
    free(why);
    app_free(a);
}
END_TEST

START_TEST(test_undo_and_redo_keys)
{
    /* Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y in both editions (the page passes ⌘ as Ctrl) */
    AppState *a = app_create();
    ck_assert_msg(app_open(a, TOUR) == 0, "%s", a->error);
    const Mat *X = lesson_matrix(&a->doc->L->setups[0], "X")->m;
    double x0 = mat_get(X, 0, 0);
    ck_assert(app_scroll_edit(a, 0, 0, 0, 2, false));
    X = lesson_matrix(&a->doc->L->setups[0], "X")->m;
    ck_assert_double_eq_tol(mat_get(X, 0, 0), x0 + 0.2, 1e-12);
    for (unsigned ed = EDITION_DESKTOP; ed <= EDITION_WEB; ed++) {
        ck_assert_int_eq(app_key(a, ed, 'z', KEYMOD_CTRL), ACT_UNDO);
        ck_assert_double_eq(mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 0, 0), x0);
        ck_assert(!a->doc->dirty);
        ck_assert_int_eq(app_key(a, ed, 'z', KEYMOD_CTRL | KEYMOD_SHIFT), ACT_REDO);
        ck_assert_double_eq_tol(mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 0, 0), x0 + 0.2, 1e-12);
        app_key(a, ed, 'z', KEYMOD_CTRL);
        ck_assert_int_eq(app_key(a, ed, 'y', KEYMOD_CTRL), ACT_REDO);
        ck_assert(a->doc->dirty);
    }
    app_free(a);
}
END_TEST

START_TEST(test_picker_and_question_keys)
{
    AppState *a = app_create();
    ck_assert_msg(app_open(a, TOUR) == 0, "%s", a->error);
    app_key(a, EDITION_WEB, 'l', 0);
    ck_assert(a->picker);
    ck_assert_int_ge(a->picker_n, 12);
    int sel = a->picker_sel;
    app_key(a, EDITION_WEB, KEY_DOWN, 0);              /* the picker takes the arrows */
    ck_assert_int_eq(a->picker_sel, sel + 1);
    ck_assert_int_eq(a->stage, 0);
    app_key(a, EDITION_WEB, KEY_ESCAPE, 0);
    ck_assert(!a->picker);
    /* with unsaved edits, opening another lesson asks; while it asks, only its keys count */
    ck_assert(app_scroll_edit(a, 0, 0, 0, 1, false));
    ck_assert(a->doc->dirty);
    app_key(a, EDITION_DESKTOP, 'l', 0);
    app_key(a, EDITION_DESKTOP, '3', 0);                 /* the third lesson, from the picker */
    ck_assert_int_eq(a->ask, ASK_OPEN);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_RIGHT, 0), ACT_NONE);
    ck_assert_int_eq(a->ask, ASK_OPEN);
    ck_assert_int_eq(a->stage, 0);
    ck_assert_int_eq(app_key(a, EDITION_WEB, KEY_ESCAPE, 0), ACT_ASK_CANCEL);
    ck_assert_int_eq(a->ask, ASK_NONE);
    ck_assert(strstr(a->doc->path, "01-tour"));
    app_key(a, EDITION_DESKTOP, '3', 0);
    app_key(a, EDITION_WEB, KEY_ENTER, 0);              /* yes: open it, dropping the edits */
    ck_assert(strstr(a->doc->path, "03-"));
    ck_assert(!a->picker && !a->doc->dirty);
    /* the path field of O: typed keys are text, Tab completes, Esc leaves */
    app_open_file_start(a, "../lessons");
    ck_assert_int_eq(a->ask, ASK_OPEN_FILE);
    ck_assert_str_eq(a->ask_text, "../lessons/");
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'q', 0), ACT_ASK_QUIT);     /* q is a letter here, not quit */
    ck_assert(!a->quit);
    app_ask_type(a, "01");
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_TAB, 0), ACT_ASK_COMPLETE);
    ck_assert_str_eq(a->ask_text, "../lessons/01-tour.lesson");
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_ENTER, 0), ACT_ASK_ACCEPT);
    ck_assert_int_eq(a->ask, ASK_NONE);
    ck_assert(strstr(a->doc->path, "01-tour"));
    app_free(a);
}
END_TEST

/* Overlay text commands of a frame that hold part. */
static int overlay_with(const DrawList *d, const char *part)
{
    int n = 0;
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_OVERLAY && d->cmds[i].kind == DRAW_TEXT && strstr(draw_str(d, &d->cmds[i]), part)) n++;
    return n;
}

START_TEST(test_help_lists_the_table)
{
    /* the window's overlay shows one line per listed row of the desktop's
    ** edition, with its words (the page shows the browser's as HTML, from
    ** the same rows: web_help_rows, checked by web/test) */
    AppState *a = app_create();
    ck_assert_msg(app_open(a, TOUR) == 0, "%s", a->error);
    DrawList *d = draw_create(1600, 1200);
    int n;
    const KeyRow *rows = app_key_rows(&n);
    app_toggle_help(a);
    {
        app_frame(a, 1600, 1200, layout_measure_fixed, NULL, d);
        int lines = 0;
        for (int i = 0; i < n; i++) {
            if (!rows[i].keys || rows[i].ctx != KEYS_MAIN || !(rows[i].editions & EDITION_DESKTOP))
                continue;
            ck_assert_msg(overlay_with(d, rows[i].help) >= 1, "\"%s\" is not in the help", rows[i].help);
            lines++;
        }
        ck_assert_int_eq(overlay_with(d, "Ctrl+Z"), 1);          /* undo, in both editions */
        ck_assert_int_eq(overlay_with(d, "Ctrl+Shift+Z  Ctrl+Y"), 1);
        ck_assert_int_eq(overlay_with(d, "10 \xe2\x80\xa6"), 1);  /* stage numbers past 9 */
        ck_assert_int_ge(lines, 20);
    }
    a->web = true;                                  /* the page's help is HTML: no overlay */
    app_frame(a, 1600, 1200, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(overlay_with(d, "Ctrl+Z"), 0);
    draw_free(d);
    app_free(a);
}
END_TEST

/* The suite. */
Suite *keys_suite(void)
{
    Suite *s = suite_create("keys");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_help_words_name_the_bindings);
    tcase_add_test(core, test_no_key_means_two_things);
    tcase_add_test(core, test_digits_reach_every_stage);
    tcase_add_test(core, test_keys_do_what_their_rows_say);
    tcase_add_test(core, test_undo_and_redo_keys);
    tcase_add_test(core, test_cell_cursor);
    tcase_add_test(core, test_cell_cursor_guesses);
    tcase_add_test(core, test_picker_and_question_keys);
    tcase_add_test(core, test_help_lists_the_table);
    suite_add_tcase(s, core);
    return s;
}
