/*
** test_state_files.c: the interactive program and the lesson file on disk:
** saving (atomic, only the edited numbers changed, Save as, a read-only
** lesson saved among the user's own), asking before edits are lost,
** R and live reload, undo and redo, decimal steps, and any sequence of
** actions leaving the file readable. test_state.c has the rest of the program's actions.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "app/state.h"
#include "app/prompt.h"
#include "app/frame.h"
#include "app/keys.h"
#include "view/layout.h"
#include "core/io/fileio.h"
#include "core/util.h"
#include "tjson.h"
#include "ttour.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOUR TTOUR_PATH

static AppState *a;

/* A state with the tour open (ttour_open), and freed. */
static void open_tour(void) { a = ttour_open(); }
static void close_tour(void) { app_free(a); }

/* A fresh temporary directory (caller removes it with rm_dir). */
static void make_dir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/attnlab-save-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* rm -rf dir. */
static void rm_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Write text to path. */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* The tour copied to dir/tour.lesson and opened; its text in *orig (caller frees). */
static void open_copy(const char *dir, char *path, size_t n, char **orig)
{
    size_t len;
    *orig = tjson_read_file(TOUR, &len);
    snprintf(path, n, "%s/tour.lesson", dir);
    write_text(path, *orig);
    ck_assert_msg(app_open(a, path) == 0, "%s", a->error);
}

START_TEST(test_limits_big_generated_saves_one_line)
{
    /* 300x300 random numbers: saving an edit adds one line, nothing is
    ** written out, and the first save keeps the old file as FILE~ */
    char dir[64], path[256], bak[260];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/big.lesson", dir);
    const char *text = "title: Big\n[setup]\nseed: 1\ntokens: a b\nX = randn 2x300\nW = randn 300x300\nqueries: X @ W\n[softmax]\n";
    write_text(path, text);
    ck_assert_int_eq(app_open(a, path), 0);
    ck_assert_int_eq(app_save_lesson(a), 0);                   /* nothing to save: untouched */
    ck_assert(strstr(a->toast, "nothing to save") != NULL);
    snprintf(bak, sizeof bak, "%s~", path);
    ck_assert_int_ne(access(bak, F_OK), 0);
    ck_assert(app_edit_cell(a, 0, "W", 5, 7, 0.5));
    ck_assert(a->doc->dirty);
    ck_assert_int_eq(app_save_lesson(a), 0);
    ck_assert(!a->doc->dirty);
    size_t len;
    char *now = tjson_read_file(path, &len);
    ck_assert_str_eq(now, "title: Big\n[setup]\nseed: 1\ntokens: a b\nX = randn 2x300\nW = randn 300x300\nW[6,8] = 0.5\n"
                          "queries: X @ W\n[softmax]\n");
    free(now);
    char *old = tjson_read_file(bak, &len);
    ck_assert_str_eq(old, text);
    free(old);
    rm_dir(dir);
}
END_TEST

START_TEST(test_undo_redo)
{
    app_goto(a, 1);
    double x0 = mat_get(a->view->panels[0].m, 0, 0), y0 = mat_get(a->view->panels[0].m, 1, 2);
    ck_assert(app_scroll_edit(a, 0, 0, 0, +1, false));
    ck_assert(app_scroll_edit(a, 0, 0, 0, +2, false));        /* the same cell: one edit */
    ck_assert(app_scroll_edit(a, 0, 1, 2, -1, true));
    ck_assert_int_eq(a->doc->nedits, 2);
    ck_assert(a->doc->dirty);
    ck_assert(app_undo(a));
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 1, 2), y0);
    ck_assert(app_undo(a));
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 0, 0), x0);
    ck_assert(!a->doc->dirty);
    ck_assert(!app_undo(a));
    ck_assert_str_eq(a->toast, "nothing to undo");
    ck_assert(app_redo(a));
    ck_assert_double_eq_tol(mat_get(a->view->panels[0].m, 0, 0), x0 + 0.3, 1e-12);
    ck_assert(!doc_is_edited(a->doc, 0, "X", 1, 2));
    ck_assert(doc_is_edited(a->doc, 0, "X", 0, 0));
    ck_assert(doc_is_edited(a->doc, 2, "X", 0, 0));                /* setup 3 inherits X from the line */
    ck_assert(app_scroll_edit(a, 0, 3, 3, 1, false));        /* a new edit drops the redo step */
    ck_assert(!app_redo(a));
    ck_assert_int_eq(a->doc->nedits, 2);
}
END_TEST

START_TEST(test_R_is_one_step_of_undo)
{
    /* R, the key: every edit and setting back to the file, the message
    ** says how many edits and that Ctrl+Z brings them back, which it does
    ** (the settings too), with the edited cells marked again. */
    app_goto(a, 1);
    double x0 = mat_get(a->view->panels[0].m, 0, 0), y0 = mat_get(a->view->panels[0].m, 1, 2);
    ck_assert(app_scroll_edit(a, 0, 0, 0, +2, false));
    ck_assert(app_scroll_edit(a, 0, 1, 2, -1, true));
    double x1 = mat_get(a->view->panels[0].m, 0, 0), y1 = mat_get(a->view->panels[0].m, 1, 2);
    int s = a->doc->L->stages[a->stage].setup;
    ScoreKind score = a->doc->L->setups[s].score;
    app_toggle_scaling(a);
    ck_assert(marks_is_edited(&a->edited, 0, 0, 0));
    app_goto(a, 3);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'r', 0), ACT_RESET);
    ck_assert_str_eq(a->toast, "lesson reset: 2 edits undone. Ctrl+Z brings them back");
    ck_assert_int_eq(a->stage, 2);
    app_goto(a, 1);
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 0, 0), x0);
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 1, 2), y0);
    ck_assert_int_eq(a->doc->L->setups[s].score, score);
    ck_assert(!a->doc->dirty);
    ck_assert(!marks_is_edited(&a->edited, 0, 0, 0));
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'z', KEYMOD_CTRL), ACT_UNDO);
    ck_assert_str_eq(a->toast, "reset undone: the lesson is as it was before R");
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 0, 0), x1);
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 1, 2), y1);
    ck_assert_int_ne(a->doc->L->setups[s].score, score);
    ck_assert(a->doc->dirty);
    ck_assert(marks_is_edited(&a->edited, 0, 0, 0));
    ck_assert(marks_is_edited(&a->edited, 0, 1, 2));
    ck_assert(app_redo(a));                              /* and R again */
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 0, 0), x0);
    app_undo_all(a);                                     /* nothing left to reset */
    ck_assert_str_eq(a->toast, "nothing to reset: the lesson is as it was loaded");
}
END_TEST

START_TEST(test_decimal_steps)
{
    ck_assert_double_eq(app_edit_step(0.9, 3, false), 1.2);      /* not 1.2000000000000002 */
    ck_assert_double_eq(app_edit_step(-0.05, 1, true), -0.04);
    ck_assert_double_eq(app_edit_step(0.1, -1, false), 0.0);
    double r = 0.4967141530112327;                                  /* a drawn number: no grid */
    ck_assert_double_eq(app_edit_step(r, 1, false), r + 0.1);
}
END_TEST

START_TEST(test_R_returns_to_the_file_after_save)
{
    char dir[64], path[256], *orig;
    make_dir(dir, sizeof dir);
    open_copy(dir, path, sizeof path, &orig);
    app_goto(a, 1);
    double x0 = mat_get(a->view->panels[0].m, 1, 1);
    ck_assert(app_scroll_edit(a, 0, 1, 1, 2, false));
    ck_assert_int_eq(app_save_lesson(a), 0);
    ck_assert(!a->doc->dirty);
    app_goto(a, 3);
    app_undo_all(a);                                     /* R: the file as loaded, not as saved */
    ck_assert_int_eq(a->stage, 2);
    app_goto(a, 1);
    ck_assert_double_eq(mat_get(a->view->panels[0].m, 1, 1), x0);
    ck_assert(a->doc->dirty);                                 /* the saved file still has the edit */
    ck_assert(!doc_is_edited(a->doc, 0, "X", 1, 1));
    ck_assert_int_eq(app_save_lesson(a), 0);             /* saving now gives the original bytes */
    size_t len;
    char *now = tjson_read_file(path, &len);
    ck_assert_str_eq(now, orig);
    free(now);
    free(orig);
    rm_dir(dir);
}
END_TEST

START_TEST(test_quit_and_open_ask_first)
{
    app_request_quit(a);                                 /* nothing edited: quits */
    ck_assert(a->quit);
    a->quit = false;
    app_goto(a, 1);
    ck_assert(app_scroll_edit(a, 0, 0, 1, 1, false));
    app_request_quit(a);
    ck_assert(!a->quit);
    ck_assert_int_eq(a->ask, ASK_QUIT);
    app_escape(a);                                       /* Esc: stay */
    ck_assert_int_eq(a->ask, ASK_NONE);
    ck_assert(!a->quit);
    app_request_quit(a);
    app_request_quit(a);                                 /* Q again */
    ck_assert(a->quit);
    a->quit = false;
    app_ask_cancel(a);
    app_request_quit(a);
    app_ask_accept(a);                                   /* Enter */
    ck_assert(a->quit);
    a->quit = false;
    app_ask_cancel(a);
    /* the picker asks before dropping the edits */
    app_toggle_picker(a);
    app_picker_move(a, +1);
    app_picker_open(a);
    ck_assert_int_eq(a->ask, ASK_OPEN);
    ck_assert_str_eq(a->doc->L->title, "A short tour of attention");
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "Open another lesson without saving the edits?"), 1);
    draw_free(d);
    app_ask_accept(a);
    ck_assert_int_eq(a->ask, ASK_NONE);
    ck_assert(!a->picker);
    ck_assert_str_eq(a->doc->L->title, "From one-hot words to queries, keys and values");
    ck_assert(!a->doc->dirty);
}
END_TEST

START_TEST(test_save_as)
{
    char dir[64], path[256], *orig;
    make_dir(dir, sizeof dir);
    open_copy(dir, path, sizeof path, &orig);
    app_goto(a, 1);
    ck_assert(app_scroll_edit(a, 0, 0, 0, 1, false));
    app_save_as_start(a);
    ck_assert_int_eq(a->ask, ASK_SAVE_AS);
    char want[300];
    snprintf(want, sizeof want, "%s/tour-edited.lesson", dir);
    ck_assert_str_eq(a->ask_text, want);
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "Save the lesson as:"), 1);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "tour-edited.lesson|"), 1);
    draw_free(d);
    for (int i = 0; i < 7; i++) app_ask_backspace(a);     /* "lesson" and the dot */
    app_ask_type(a, "2.lesson");
    snprintf(want, sizeof want, "%s/tour-edited2.lesson", dir);
    ck_assert_str_eq(a->ask_text, want);
    app_ask_accept(a);
    ck_assert_int_eq(a->ask, ASK_NONE);
    ck_assert_str_eq(a->doc->path, want);
    ck_assert(!a->doc->dirty);
    size_t len;
    char *orig_now = tjson_read_file(path, &len);
    ck_assert_str_eq(orig_now, orig);                    /* the original is untouched */
    free(orig_now);
    /* over an existing file: asked twice, and the old one kept as FILE~ */
    ck_assert(app_scroll_edit(a, 0, 0, 0, 1, false));
    app_save_as_start(a);
    snprintf(a->ask_text, sizeof a->ask_text, "%s", path);
    app_ask_accept(a);
    ck_assert_int_eq(a->ask, ASK_OVERWRITE);
    app_ask_cancel(a);
    ck_assert_int_eq(a->ask, ASK_SAVE_AS);
    app_ask_accept(a);
    app_ask_accept(a);
    ck_assert_int_eq(a->ask, ASK_NONE);
    char bak[300];
    snprintf(bak, sizeof bak, "%s~", path);
    char *kept = tjson_read_file(bak, &len);
    ck_assert_str_eq(kept, orig);
    free(kept);
    ck_assert_str_eq(a->doc->path, path);
    free(orig);
    rm_dir(dir);
}
END_TEST

START_TEST(test_read_only_saves_in_user_dir)
{
    /* /sys takes no new file, even for root: the save goes to the user directory */
    char dir[64], want[300];
    make_dir(dir, sizeof dir);
    setenv("XDG_DATA_HOME", dir, 1);
    size_t len;
    char *text = tjson_read_file(TOUR, &len);
    ck_assert_int_eq(app_open_text(a, "/sys/tour.lesson", text, len), 0);
    app_goto(a, 1);
    ck_assert(app_scroll_edit(a, 0, 0, 0, 1, false));
    ck_assert_int_eq(app_save_lesson(a), 0);
    snprintf(want, sizeof want, "%s/attnlab/lessons/tour-edited.lesson", dir);
    ck_assert_str_eq(a->doc->path, want);
    char toast[600];
    snprintf(toast, sizeof toast, "/sys/tour.lesson is read-only: saved as %s", want);
    ck_assert_str_eq(a->toast, toast);
    AppState *b = app_create();
    ck_assert_int_eq(app_open(b, want), 0);
    ck_assert_double_eq(mat_get(lesson_matrix(&b->doc->L->setups[0], "X")->m, 0, 0),
                        mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 0, 0));
    app_free(b);
    unsetenv("XDG_DATA_HOME");
    free(text);
    rm_dir(dir);
}
END_TEST

START_TEST(test_live_reload)
{
    char dir[64], path[256], *orig;
    make_dir(dir, sizeof dir);
    open_copy(dir, path, sizeof path, &orig);
    app_goto(a, 1);
    ck_assert(app_scroll_edit(a, 0, 3, 3, 1, false));    /* an unsaved edit survives reloads */
    double edited = mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 3, 3);
    app_goto(a, 4);
    ck_assert(!app_reload_check(a));                     /* nothing changed */
    /* the teacher changes the title in an editor */
    char *changed = xstrdup(orig);
    char *t = strstr(changed, "title: A short tour") + 7;
    memcpy(t, "A brief tour", 12);
    write_text(path, changed);
    ck_assert(app_reload_check(a));
    ck_assert_str_eq(a->doc->L->title, "A brief tour of attention");
    ck_assert_int_eq(a->stage, 3);
    ck_assert_double_eq(mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 3, 3), edited);
    ck_assert(a->doc->dirty);
    /* then saves something invalid: the last version stays, with the error */
    write_text(path, "title: T\n[setup]\ntokens: a\nX =\n  1 zwei\n[softmax]\n");
    ck_assert(app_reload_check(a));
    char want[400];
    snprintf(want, sizeof want, "%s:5:5: error: expected a number, found 'zwei'", path);
    ck_assert_str_eq(a->error, want);
    ck_assert_str_eq(a->doc->L->title, "A brief tour of attention");
    ck_assert_int_eq(app_save_lesson(a), -1);            /* nothing is written over the broken file */
    /* and fixes it */
    write_text(path, changed);
    ck_assert(app_reload_check(a));
    ck_assert_str_eq(a->error, "");
    /* our own save does not reload */
    ck_assert_int_eq(app_save_lesson(a), 0);
    ck_assert(!app_reload_check(a));
    a->now = 100;
    ck_assert(!app_watch_poll(a));
    ck_assert_double_eq(mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 3, 3), edited);
    free(changed);
    free(orig);
    rm_dir(dir);
}
END_TEST

#define HAND "# Attention on three words, by hand.\n" \
    "# Legend: column 1 = size, 2 = colour, 3 = motion\n" \
    "title: Hand-aligned\nsummary: A lesson a teacher wrote.\n\n" \
    "[setup: first]\nseed: 42        # numpy's seed\ntokens: the cat sat\n" \
    "X =\n   0.90   0.10  -0.30   # the\n   0.10   0.80   0.40   # cat\n  -0.20   0.60   0.70   # sat\n" \
    "W_q = randn 3x3 * 0.5\nW_k = identity 3\nW_k[1,2] = 0.25\nW_v = rand 3x3\n" \
    "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\n\n" \
    "[softmax: weights]\ncmap: viridis\n\nSome prose.\n\n" \
    "[setup: second]\nW_v[3,3] = 2\n\n[weighted_sum]\n"

/* Is t (n bytes) one number? */
static bool is_number(const char *t, size_t n)
{
    char buf[64], *end;
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, t, n);
    buf[n] = '\0';
    strtod(buf, &end);
    return *end == '\0';
}

/* Lines p and q hold the same words, except numbers (spacing may differ). */
static bool same_but_numbers(const char *p, size_t na, const char *q, size_t nb)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (i < na && (p[i] == ' ' || p[i] == '\t')) i++;
        while (j < nb && (q[j] == ' ' || q[j] == '\t')) j++;
        if (i == na || j == nb) return i == na && j == nb;
        size_t ei = i, ej = j;
        while (ei < na && p[ei] != ' ' && p[ei] != '\t') ei++;
        while (ej < nb && q[ej] != ' ' && q[ej] != '\t') ej++;
        bool same = ei - i == ej - j && !memcmp(p + i, q + j, ei - i);
        if (!same && !(is_number(p + i, ei - i) && is_number(q + j, ej - j))) return false;
        i = ei;
        j = ej;
    }
}

/* saved is orig with numbers changed and override lines added (or, set
** back to what is underneath, removed), nothing else. */
static void only_numbers_changed(const char *orig, const char *saved)
{
    const char *p = orig, *q = saved;
    while (*p || *q) {
        const char *ea = strchr(p, '\n'), *eb = strchr(q, '\n');
        ck_assert_msg(eb != NULL, "the saved text lost its last line end");
        if (ea && same_but_numbers(p, (size_t)(ea - p), q, (size_t)(eb - q))) {
            p = ea + 1;
            q = eb + 1;
            continue;
        }
        if (strstr(q, "] = ") && strstr(q, "] = ") < eb) {
            q = eb + 1;                          /* an override line added */
            continue;
        }
        ck_assert_msg(ea && strstr(p, "] = ") && strstr(p, "] = ") < ea,
                      "a line other than a number or an override changed: %.*s", (int)(eb - q), q);
        p = ea + 1;                              /* an override line removed */
    }
}

/* Every input matrix of every setup of L equals the lesson in the file, bit for bit. */
static void file_holds(const Lesson *L, const char *path)
{
    Error err;
    Lesson *F = lesson_load(path, &err);
    ck_assert_msg(F != NULL, "%s", eline(&err));
    ck_assert_int_eq(F->nsetups, L->nsetups);
    for (int s = 0; s < L->nsetups; s++)
        for (int k = 0; k < L->setups[s].nmats; k++) {
            const LessonMatrix *m = &L->setups[s].mats[k], *f = lesson_matrix(&F->setups[s], m->name);
            ck_assert_ptr_nonnull(f);
            ck_assert(mat_same_shape(m->m, f->m));
            ck_assert_msg(!memcmp(m->m->data, f->m->data, sizeof(double) * (size_t)m->m->rows * (size_t)m->m->cols),
                          "setup %d, %s differs from the file", s + 1, m->name);
        }
    lesson_free(F);
}

START_TEST(test_limits_any_sequence_keeps_the_file)
{
    /* random edits, undos, redos, saves, R and reloads on a commented,
    ** hand-aligned lesson with generated matrices and overrides: every save
    ** holds exactly the numbers of the window and differs from the original
    ** only in numbers and override lines */
    char dir[64], path[256];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/hand.lesson", dir);
    write_text(path, HAND);
    ck_assert_msg(app_open(a, path) == 0, "%s", a->error);
    const char *names[4] = { "X", "W_q", "W_k", "W_v" };
    const double values[8] = { 1.2, -0.5, 1.0 / 3, 12345.678, 1e-7, 0.0, -2.25, 0.9 + 0.1 + 0.1 + 0.1 };
    uint32_t x = 12345;
    int saves = 0, overrides = 0;
    for (int step = 0; step < 300; step++) {
        x = x * 1664525u + 1013904223u;
        int op = (int)(x >> 24) % 20;
        if (op < 10) {
            int s = (int)(x >> 4) % 2, r = (int)(x >> 8) % 3, c = (int)(x >> 12) % 3;
            const char *name = names[(x >> 16) % 4];
            double v = values[(x >> 20) % 8] + (double)((x >> 2) % 3);
            app_edit_cell(a, s, name, r, c, v);
        } else if (op < 12) {
            app_undo(a);
        } else if (op == 12) {
            app_redo(a);
        } else if (op < 17) {
            ck_assert_int_eq(app_save_lesson(a), 0);
            ck_assert(!a->doc->dirty);
            file_holds(a->doc->L, path);
            size_t len;
            char *now = tjson_read_file(path, &len);
            only_numbers_changed(HAND, now);
            if (strstr(now, "\nW_q[") && strstr(now, "\nW_v[1")) overrides++;
            free(now);
            saves++;
        } else if (op == 17) {
            app_undo_all(a);
        } else {
            /* the file rewritten with the same bytes (an editor saving
            ** without a change): nothing reloads, nothing is lost */
            size_t len;
            char *now = tjson_read_file(path, &len);
            write_text(path, now);
            free(now);
            bool dirty = a->doc->dirty;
            app_reload_check(a);
            ck_assert_int_eq(a->doc->dirty, dirty);
        }
    }
    ck_assert_int_gt(saves, 20);
    ck_assert_int_gt(overrides, 5);                         /* the sequence did write overrides */
    /* R and a save: the original numbers again */
    app_undo_all(a);
    ck_assert_int_eq(app_save_lesson(a), 0);
    AppState *b = app_create();
    ck_assert_int_eq(app_open_text(b, path, HAND, strlen(HAND)), 0);
    file_holds(b->doc->L, path);
    app_free(b);
    size_t len;
    char *last = tjson_read_file(path, &len);
    only_numbers_changed(HAND, last);
    ck_assert_ptr_null(strstr(last, "\nW_q["));           /* set back: no override is left */
    free(last);
    rm_dir(dir);
}
END_TEST

Suite *state_files_suite(void)
{
    Suite *s = suite_create("statefiles");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, open_tour, close_tour);
    tcase_add_test(core, test_undo_redo);
    tcase_add_test(core, test_R_is_one_step_of_undo);
    tcase_add_test(core, test_decimal_steps);
    tcase_add_test(core, test_quit_and_open_ask_first);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, open_tour, close_tour);
    tcase_add_test(limits, test_limits_big_generated_saves_one_line);
    tcase_add_test(limits, test_R_returns_to_the_file_after_save);
    tcase_add_test(limits, test_save_as);
    tcase_add_test(limits, test_read_only_saves_in_user_dir);
    tcase_add_test(limits, test_live_reload);
    tcase_add_test(limits, test_limits_any_sequence_keeps_the_file);
    suite_add_tcase(s, limits);
    return s;
}
