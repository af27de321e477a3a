/*
** test_doc.c: the document (src/app/doc.c) on its own, without a state or
** a window: edits with undo and redo, saving into the file's own text,
** following the file on disk, and the events each call returns.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "app/doc.h"
#include "core/util.h"
#include "tjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A lesson as a teacher writes it: comments and a hand-aligned matrix. */
#define TEXT "# A teacher's lesson: comments and alignment stay.\n" \
    "title: Doc\n[setup]\ntokens: a b\nX =\n   1.0   0.5    # a\n  -0.5   2.0    # b\n" \
    "queries: X\nkeys: X\nvalues: X\n[softmax]\n"

static char dir[64], path[256];
static Doc *d;

/* dir/doc.lesson holding text. */
static void write_lesson(const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* The file's text now (caller frees). */
static char *read_lesson(const char *p)
{
    size_t len;
    char *text = tjson_read_file(p, &len);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* A fresh directory with TEXT in it, opened. */
static void open_doc(void)
{
    snprintf(dir, sizeof dir, "/tmp/attnlab-doc-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/doc.lesson", dir);
    write_lesson(TEXT);
    Error err;
    d = doc_open(path, &err);
    ck_assert_msg(d != NULL, "%s", eline(&err));
}

/* Free the document and remove the directory. */
static void close_doc(void)
{
    doc_free(d);
    d = NULL;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* X[r][c] as the document's lesson holds it. */
static double x_at(int r, int c)
{
    return mat_get(lesson_matrix(&d->L->setups[0], "X")->m, r, c);
}

/* The first weight of the trace. */
static double w00(void)
{
    return mat_get(trace_get(d->T, 0, "weights"), 0, 0);
}

START_TEST(test_open_and_its_errors)
{
    ck_assert_str_eq(d->L->title, "Doc");
    ck_assert_str_eq(d->path, path);
    ck_assert(!d->dirty);
    ck_assert_int_eq(d->nedits, 0);
    ck_assert(!doc_file_changed(d));
    Error err;
    const char *bad = "title: T\n[setup]\ntokens: a\nX =\n  1 zwei\n[softmax]\n";
    ck_assert_ptr_null(doc_open_text("bad.lesson", bad, strlen(bad), &err));
    ck_assert_str_eq(eline(&err), "bad.lesson:5:5: error: expected a number, found 'zwei'");
    ck_assert_ptr_null(doc_open("/nonexistent/x.lesson", &err));
    ck_assert_int_eq(error_exit_code(&err), 1);
}
END_TEST

START_TEST(test_edit_hands_over_the_old_trace)
{
    Trace *T0 = d->T;
    Lesson *L0 = d->L;
    double w = w00();
    DocEvent ev = doc_edit_cell(d, 0, "X", 1, 0, 0.25);
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, DOC_TRACE);                 /* new numbers, the same lesson */
    ck_assert_ptr_eq(ev.old_trace, T0);                       /* the caller's views still read it */
    ck_assert_ptr_null(ev.old_lesson);
    ck_assert_ptr_eq(d->L, L0);
    ck_assert_ptr_ne(d->T, T0);
    ck_assert_str_eq(ev.message, "");
    doc_event_release(&ev);
    ck_assert_ptr_null(ev.old_trace);
    ck_assert_double_eq(x_at(1, 0), 0.25);
    ck_assert(w00() != w);
    ck_assert(d->dirty);
    ck_assert(doc_is_edited(d, 0, "X", 1, 0));
    ck_assert(!doc_is_edited(d, 0, "X", 0, 0));
    double was;
    ck_assert(doc_edit_origin(d, 0, "X", 1, 0, &was));
    ck_assert_double_eq(was, -0.5);
}
END_TEST

START_TEST(test_undo_redo_events)
{
    DocEvent ev = doc_undo(d);                                /* nothing yet */
    ck_assert(!ev.done);
    ck_assert_uint_eq(ev.changed, 0);
    ck_assert_str_eq(ev.message, "nothing to undo");
    ev = doc_edit_cell(d, 0, "X", 0, 0, 1.1);
    doc_event_release(&ev);
    ev = doc_edit_cell(d, 0, "X", 0, 0, 1.2);                 /* the same cell: one edit */
    doc_event_release(&ev);
    ev = doc_edit_cell(d, 0, "X", 1, 1, 3.0);
    doc_event_release(&ev);
    ck_assert_int_eq(d->nedits, 2);
    ev = doc_undo(d);
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, DOC_TRACE);
    ck_assert_str_eq(ev.message, "undone: X[2,2] is 2 again");
    doc_event_release(&ev);
    ev = doc_undo(d);
    ck_assert_str_eq(ev.message, "undone: X[1,1] is 1 again");
    doc_event_release(&ev);
    ck_assert_double_eq(x_at(0, 0), 1.0);
    ck_assert(!d->dirty);
    ev = doc_redo(d);
    ck_assert(ev.done);
    ck_assert_str_eq(ev.message, "redone: X[1,1] = 1.2");
    doc_event_release(&ev);
    ck_assert_double_eq(x_at(0, 0), 1.2);
    ev = doc_edit_cell(d, 0, "X", 0, 1, 0.0);                 /* a new edit drops the redo step */
    doc_event_release(&ev);
    ev = doc_redo(d);
    ck_assert(!ev.done);
    ck_assert_uint_eq(ev.changed, 0);
    ck_assert_str_eq(ev.message, "nothing to redo");
    ev = doc_revert(d);                                       /* R: the text as loaded */
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, DOC_TRACE | DOC_LESSON);
    ck_assert_str_eq(ev.message, "lesson reset: 2 edits undone. Ctrl+Z brings them back");
    doc_event_release(&ev);
    ck_assert_int_eq(d->nedits, 3);                           /* the two edits and the reset */
    ck_assert_double_eq(x_at(0, 0), 1.0);
    ck_assert(!d->dirty);
}
END_TEST

START_TEST(test_reset_is_one_step_of_undo)
{
    /* R takes every edit back, and so do the settings the window changes
    ** (here the temperature); Ctrl+Z brings the lesson back as it was, one
    ** step, and the edits before it are then undone one at a time. */
    DocEvent ev = doc_edit_cell(d, 0, "X", 0, 0, 1.2);
    doc_event_release(&ev);
    ev = doc_edit_cell(d, 0, "X", 1, 1, 3.0);
    doc_event_release(&ev);
    d->L->setups[0].temperature = 2.0;
    ev = doc_recompute(d);
    doc_event_release(&ev);
    double w_edited = w00();
    ev = doc_revert(d);
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, DOC_TRACE | DOC_LESSON);
    ck_assert_str_eq(ev.message, "lesson reset: 2 edits undone. Ctrl+Z brings them back");
    doc_event_release(&ev);
    ck_assert_double_eq(x_at(0, 0), 1.0);
    ck_assert_double_eq(x_at(1, 1), 2.0);
    ck_assert_double_eq(d->L->setups[0].temperature, 1.0);
    ck_assert(!d->dirty);
    ck_assert(!doc_is_edited(d, 0, "X", 0, 0));              /* the file's number again, not an edit */
    ck_assert_int_eq(d->nredo, 0);
    ev = doc_undo(d);                                         /* Ctrl+Z: the reset taken back */
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, DOC_TRACE | DOC_LESSON);
    ck_assert_str_eq(ev.message, "reset undone: the lesson is as it was before R");
    doc_event_release(&ev);
    ck_assert_double_eq(x_at(0, 0), 1.2);
    ck_assert_double_eq(x_at(1, 1), 3.0);
    ck_assert_double_eq(d->L->setups[0].temperature, 2.0);
    ck_assert_double_eq(w00(), w_edited);
    ck_assert(d->dirty);
    double was;
    ck_assert(doc_edit_origin(d, 0, "X", 0, 0, &was));
    ck_assert_double_eq(was, 1.0);
    ev = doc_undo(d);                                         /* then the edits, one by one */
    ck_assert_str_eq(ev.message, "undone: X[2,2] is 2 again");
    doc_event_release(&ev);
    ev = doc_redo(d);
    doc_event_release(&ev);
    ev = doc_redo(d);                                         /* and the reset again */
    ck_assert(ev.done);
    ck_assert_str_eq(ev.message, "redone: lesson reset to its file");
    doc_event_release(&ev);
    ck_assert_double_eq(x_at(0, 0), 1.0);
    ck_assert_double_eq(d->L->setups[0].temperature, 1.0);
    ck_assert(!doc_is_edited(d, 0, "X", 0, 0));
    ev = doc_revert(d);                                       /* nothing left to reset: no step */
    ck_assert(!ev.done);
    ck_assert_uint_eq(ev.changed, 0);
    ck_assert_str_eq(ev.message, "nothing to reset: the lesson is as it was loaded");
    ck_assert_int_eq(d->nedits, 3);
    /* one edit on top of the reset: R says so in the singular */
    ev = doc_edit_cell(d, 0, "X", 0, 1, 0.75);
    doc_event_release(&ev);
    ev = doc_revert(d);
    ck_assert_str_eq(ev.message, "lesson reset: 1 edit undone. Ctrl+Z brings it back");
    doc_event_release(&ev);
    ck_assert_double_eq(x_at(0, 1), 0.5);
    /* only a setting changed: the reset takes it back, and Ctrl+Z brings it back */
    d->L->setups[0].temperature = 0.5;
    ev = doc_recompute(d);
    doc_event_release(&ev);
    ev = doc_revert(d);
    ck_assert(ev.done);
    ck_assert_str_eq(ev.message, "lesson reset to its file. Ctrl+Z undoes the reset");
    doc_event_release(&ev);
    ck_assert_double_eq(d->L->setups[0].temperature, 1.0);
    ev = doc_undo(d);
    doc_event_release(&ev);
    ck_assert_double_eq(d->L->setups[0].temperature, 0.5);
    ck_assert_double_eq(x_at(0, 1), 0.5);
    ev = doc_undo(d);                                         /* the reset before it */
    ck_assert_str_eq(ev.message, "reset undone: the lesson is as it was before R");
    doc_event_release(&ev);
    ck_assert_double_eq(x_at(0, 1), 0.75);
}
END_TEST

START_TEST(test_reset_then_reload_keeps_the_later_edits)
{
    /* A new version of the file comes in after R: the lesson before R was
    ** made of the old text, so the reset and what it replaced are not
    ** brought back; the edits made after it are applied to the new text. */
    DocEvent ev = doc_edit_cell(d, 0, "X", 0, 0, 1.2);
    doc_event_release(&ev);
    ev = doc_revert(d);
    doc_event_release(&ev);
    ev = doc_edit_cell(d, 0, "X", 1, 0, 0.25);
    doc_event_release(&ev);
    write_lesson("title: Doc 2\n[setup]\ntokens: a b\nX =\n   1.0   0.5\n  -0.5   2.0\n"
                 "queries: X\nkeys: X\nvalues: X\n[softmax]\n");
    ev = doc_reload(d);
    ck_assert(ev.changed & DOC_LESSON);
    doc_event_release(&ev);
    ck_assert_str_eq(d->L->title, "Doc 2");
    ck_assert_int_eq(d->nedits, 1);
    ck_assert_double_eq(x_at(1, 0), 0.25);
    ck_assert_double_eq(x_at(0, 0), 1.0);
    ev = doc_undo(d);
    doc_event_release(&ev);
    ck_assert_double_eq(x_at(1, 0), -0.5);
    ev = doc_undo(d);
    ck_assert(!ev.done);
    ck_assert_str_eq(ev.message, "nothing to undo");
}
END_TEST

START_TEST(test_refused_edits_change_nothing)
{
    Trace *T0 = d->T;
    DocEvent ev = doc_edit_cell(d, 0, "X", 5, 0, 1.0);        /* no such cell */
    ck_assert(!ev.done);
    ck_assert_uint_eq(ev.changed, 0);
    ck_assert_ptr_eq(d->T, T0);
    ck_assert_int_eq(d->nedits, 0);
    ev = doc_edit_cell(d, 0, "X", 0, 0, 1e300);               /* X·Xᵀ would overflow */
    ck_assert(!ev.done);
    ck_assert_uint_eq(ev.changed, 0);
    ck_assert_ptr_null(ev.old_trace);
    char want[400];
    snprintf(want, sizeof want, "%s:3:1: error: raw_scores[1][1] is infinite, not a finite number: "
             "the inputs of this setup are too large", path);
    ck_assert_str_eq(ev.message, want);
    ck_assert_ptr_eq(d->T, T0);
    ck_assert_double_eq(x_at(0, 0), 1.0);
    ck_assert_int_eq(d->nedits, 0);
    ck_assert(!d->dirty);
    /* a setting the caller changed that does not compute: the trace stays, for it to put back */
    d->L->setups[0].temperature = 1e-310;
    DocEvent re = doc_recompute(d);
    ck_assert(!re.done);
    ck_assert_uint_eq(re.changed, 0);
    ck_assert_ptr_eq(d->T, T0);
    d->L->setups[0].temperature = 1.0;
}
END_TEST

START_TEST(test_save_changes_only_the_number)
{
    char want[600], bak[300];
    snprintf(bak, sizeof bak, "%s~", path);
    DocEvent ev = doc_save(d);                                /* nothing to save: untouched */
    ck_assert(ev.done);
    snprintf(want, sizeof want, "nothing to save: %s already holds these numbers", path);
    ck_assert_str_eq(ev.message, want);
    ck_assert_int_ne(access(bak, F_OK), 0);
    ev = doc_edit_cell(d, 0, "X", 1, 0, 0.25);
    doc_event_release(&ev);
    ev = doc_save(d);
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, 0);                         /* the numbers on screen are the saved ones */
    snprintf(want, sizeof want, "saved %s (the previous version is %s~)", path, path);
    ck_assert_str_eq(ev.message, want);
    ck_assert(!d->dirty);
    ck_assert(!doc_file_changed(d));                          /* its own save is no change on disk */
    char *now = read_lesson(path);
    ck_assert_str_eq(now, "# A teacher's lesson: comments and alignment stay.\n"
                          "title: Doc\n[setup]\ntokens: a b\nX =\n   1.0   0.5    # a\n  0.25   2.0    # b\n"
                          "queries: X\nkeys: X\nvalues: X\n[softmax]\n");
    free(now);
    char *old = read_lesson(bak);
    ck_assert_str_eq(old, TEXT);
    free(old);
    /* the saved file opens to the same numbers */
    Error err;
    Doc *again = doc_open(path, &err);
    ck_assert_ptr_nonnull(again);
    ck_assert(mat_max_abs_diff(trace_get(again->T, 0, "weights"), trace_get(d->T, 0, "weights")) == 0.0);
    doc_free(again);
    /* undo after the save: unsaved again, and saving gives back the first text */
    ev = doc_undo(d);
    doc_event_release(&ev);
    ck_assert(d->dirty);
    ev = doc_save(d);
    snprintf(want, sizeof want, "saved %s", path);            /* FILE~ is kept from the first save */
    ck_assert_str_eq(ev.message, want);
    now = read_lesson(path);
    ck_assert_str_eq(now, TEXT);
    free(now);
    old = read_lesson(bak);
    ck_assert_str_eq(old, TEXT);
    free(old);
}
END_TEST

START_TEST(test_save_as_moves_the_document)
{
    DocEvent ev = doc_edit_cell(d, 0, "X", 0, 1, -1.5);
    doc_event_release(&ev);
    char def[300], other[300];
    doc_save_as_default(d, def, sizeof def);
    snprintf(other, sizeof other, "%s/doc-edited.lesson", dir);
    ck_assert_str_eq(def, other);
    ev = doc_save_as(d, other);
    ck_assert(ev.done);
    char want[400];
    snprintf(want, sizeof want, "saved as %s", other);
    ck_assert_str_eq(ev.message, want);
    ck_assert_str_eq(d->path, other);
    ck_assert(!d->dirty);
    char *first = read_lesson(path);                          /* the first file is as it was */
    ck_assert_str_eq(first, TEXT);
    free(first);
    char *now = read_lesson(other);
    ck_assert(strstr(now, "   1.0  -1.5    # a\n") != NULL);
    free(now);
}
END_TEST

START_TEST(test_save_text_is_written_by_the_caller)
{
    char *text;
    size_t len;
    DocEvent ev = doc_save_text(d, &text, &len);              /* no edits: the file as it is */
    ck_assert(ev.done);
    ck_assert_uint_eq(len, strlen(TEXT));
    ck_assert_str_eq(text, TEXT);
    free(text);
    ev = doc_edit_cell(d, 0, "X", 0, 1, 0.75);
    doc_event_release(&ev);
    ev = doc_save_text(d, &text, &len);
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, 0);
    ck_assert_uint_eq(len, strlen(text));
    ck_assert(strstr(text, "   1.0  0.75    # a\n") != NULL);
    ck_assert(!d->dirty);                                      /* it is what the file holds now */
    char *disk = read_lesson(path);                            /* which the caller writes, not the document */
    ck_assert_str_eq(disk, TEXT);
    free(disk);
    free(text);
}
END_TEST

START_TEST(test_reload_takes_a_new_version)
{
    DocEvent ev = doc_edit_cell(d, 0, "X", 1, 1, 3.0);        /* an unsaved edit survives reloads */
    doc_event_release(&ev);
    ev = doc_reload(d);                                        /* the same bytes: nothing */
    ck_assert(!ev.done);
    ck_assert_uint_eq(ev.changed, 0);
    char *changed = xstrdup(TEXT);
    memcpy(strstr(changed, "title: Doc") + 7, "Dog", 3);
    write_lesson(changed);
    ck_assert(doc_file_changed(d));
    Lesson *L0 = d->L;
    Trace *T0 = d->T;
    ev = doc_reload(d);
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, DOC_TRACE | DOC_LESSON | DOC_ERROR);
    ck_assert_ptr_eq(ev.old_lesson, L0);                      /* the ones the caller's views read */
    ck_assert_ptr_eq(ev.old_trace, T0);
    char want[400];
    snprintf(want, sizeof want, "reloaded %s", path);
    ck_assert_str_eq(ev.message, want);
    doc_event_release(&ev);
    ck_assert(!doc_file_changed(d));
    ck_assert_str_eq(d->L->title, "Dog");
    ck_assert_double_eq(x_at(1, 1), 3.0);                     /* the edit, applied again */
    ck_assert_int_eq(d->nedits, 1);
    ck_assert(d->dirty);
    ck_assert_int_eq(d->disk_error.kind, ERR_NONE);
    /* a broken version: the last good one stays, with the error */
    write_lesson("title: T\n[setup]\ntokens: a\nX =\n  1 zwei\n[softmax]\n");
    ev = doc_reload(d);
    ck_assert(ev.done);
    ck_assert_uint_eq(ev.changed, DOC_ERROR);
    ck_assert(d->disk_bad);
    snprintf(want, sizeof want, "%s:5:5: error: expected a number, found 'zwei'", path);
    ck_assert_str_eq(eline(&d->disk_error), want);
    ck_assert_str_eq(d->L->title, "Dog");
    ev = doc_save(d);                                          /* nothing is written over it */
    ck_assert(!ev.done);
    ck_assert(strstr(ev.message, "the file on disk does not load") != NULL);
    /* fixed back to the version on screen: the error goes, nothing else changes */
    write_lesson(changed);
    ev = doc_reload(d);
    ck_assert_uint_eq(ev.changed, DOC_ERROR);
    ck_assert(!d->disk_bad);
    ck_assert_int_eq(d->disk_error.kind, ERR_NONE);
    ck_assert_double_eq(x_at(1, 1), 3.0);
    free(changed);
}
END_TEST

START_TEST(test_reload_keeps_toggles_that_compute)
{
    /* the caller turned the temperature down (as the window's [ does) */
    d->L->setups[0].temperature = 0.5;
    DocEvent ev = doc_recompute(d);
    ck_assert(ev.done);
    doc_event_release(&ev);
    char *changed = xstrdup(TEXT);
    memcpy(strstr(changed, "title: Doc") + 7, "Dog", 3);
    write_lesson(changed);
    ev = doc_reload(d);
    doc_event_release(&ev);
    ck_assert_str_eq(d->L->title, "Dog");
    ck_assert_double_eq(d->L->setups[0].temperature, 0.5);    /* kept */
    /* a version whose scores overflow at that temperature: the file's own */
    d->L->setups[0].temperature = 0.1;
    ev = doc_recompute(d);
    doc_event_release(&ev);
    write_lesson("title: Big\n[setup]\ntokens: a b\nX =\n  7e153 7e153\n  7e153 7e153\nqueries: X\nkeys: X\nvalues: X\n[softmax]\n");
    ev = doc_reload(d);
    ck_assert_uint_eq(ev.changed & DOC_LESSON, DOC_LESSON);
    doc_event_release(&ev);
    ck_assert_str_eq(d->L->title, "Big");
    ck_assert_double_eq(d->L->setups[0].temperature, 1.0);
    ck_assert(d->T->s[0].su == &d->L->setups[0]);             /* computed from the lesson it holds */
    ck_assert_double_eq(w00(), 0.5);
    free(changed);
}
END_TEST

START_TEST(test_read_only_file_saves_in_the_user_dir)
{
    char home[300], want[400];
    snprintf(home, sizeof home, "%s/data", dir);
    setenv("XDG_DATA_HOME", home, 1);
    Error err;
    Doc *ro = doc_open_text("/sys/doc.lesson", TEXT, strlen(TEXT), &err);  /* a place nobody writes */
    ck_assert_ptr_nonnull(ro);
    DocEvent ev = doc_edit_cell(ro, 0, "X", 0, 0, 2.0);
    doc_event_release(&ev);
    ev = doc_save(ro);
    ck_assert(ev.done);
    snprintf(want, sizeof want, "%s/attnlab/lessons/doc-edited.lesson", home);
    ck_assert_str_eq(ro->path, want);
    char msg[900];
    snprintf(msg, sizeof msg, "/sys/doc.lesson is read-only: saved as %s", want);
    ck_assert_str_eq(ev.message, msg);
    char *now = read_lesson(want);
    ck_assert(strstr(now, "   2.0   0.5    # a\n") != NULL);
    free(now);
    doc_free(ro);
    unsetenv("XDG_DATA_HOME");
}
END_TEST

Suite *doc_suite(void)
{
    Suite *s = suite_create("doc");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, open_doc, close_doc);
    tcase_add_test(core, test_open_and_its_errors);
    tcase_add_test(core, test_edit_hands_over_the_old_trace);
    tcase_add_test(core, test_undo_redo_events);
    tcase_add_test(core, test_reset_is_one_step_of_undo);
    tcase_add_test(core, test_reset_then_reload_keeps_the_later_edits);
    tcase_add_test(core, test_refused_edits_change_nothing);
    tcase_add_test(core, test_save_changes_only_the_number);
    tcase_add_test(core, test_save_as_moves_the_document);
    tcase_add_test(core, test_save_text_is_written_by_the_caller);
    tcase_add_test(core, test_reload_takes_a_new_version);
    tcase_add_test(core, test_reload_keeps_toggles_that_compute);
    tcase_add_test(core, test_read_only_file_saves_in_the_user_dir);
    suite_add_tcase(s, core);
    return s;
}
