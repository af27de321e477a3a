/*
** test_open.c: what the window opens and where it opens, without a window:
** the picker's list (recent files, folders, the user's own, bundled),
** recent files, Tab completing a path, dropped files, the window's place on
** a screen, and the command line's reading of options. The runner points
** XDG_STATE_HOME and XDG_DATA_HOME at a fresh directory (check_main.c);
** each test empties them first.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "app/args.h"
#include "app/filedlg.h"
#include "app/frame.h"
#include "app/library.h"
#include "app/paths.h"
#include "app/state.h"
#include "app/winstate.h"
#include "core/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOUR "../lessons/01-tour.lesson"

static char work[PATH_MAX];     /* a folder of the test's own lessons */

/* Copy file from to to. */
static void copy(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
}

/* Empty the user's directories; make work, a folder with two lessons. */
static void setup(void)
{
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", getenv("XDG_STATE_HOME"), getenv("XDG_DATA_HOME"));
    ck_assert_int_eq(system(cmd), 0);
    snprintf(work, sizeof work, "%s/work", getenv("HOME"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/sub'", work, work);
    ck_assert_int_eq(system(cmd), 0);
    char to[PATH_MAX + 32];
    snprintf(to, sizeof to, "%s/week3.lesson", work);
    copy("../lessons/03-four-words-by-hand.lesson", to);
    snprintf(to, sizeof to, "%s/week4.lesson", work);
    copy("../lessons/04-heads-entropy-causal.lesson", to);
}

/* The index of the picker's item whose path ends in tail, or -1. */
static int item(const AppState *a, const char *tail)
{
    for (int i = 0; i < a->picker_n; i++) {
        size_t l = strlen(a->picker_items[i]), t = strlen(tail);
        if (l >= t && !strcmp(a->picker_items[i] + l - t, tail)) return i;
    }
    return -1;
}

START_TEST(test_recent_files_newest_first)
{
    char path[PATH_MAX + 32];
    for (int i = 0; i < APP_RECENT_MAX + 3; i++) {         /* more than are kept */
        snprintf(path, sizeof path, "%s/r%02d.lesson", work, i);
        copy(TOUR, path);
        ck_assert_int_eq(app_recent_add(path), 0);
    }
    snprintf(path, sizeof path, "%s/r%02d.lesson", work, 4);
    app_recent_add(path);                                  /* again: to the front, once */
    char **list = app_recent_list();
    int n = 0;
    while (list[n]) n++;
    ck_assert_int_eq(n, APP_RECENT_MAX);
    ck_assert_str_eq(list[0], path);
    snprintf(path, sizeof path, "%s/r%02d.lesson", work, APP_RECENT_MAX + 2);
    ck_assert_str_eq(list[1], path);
    for (int i = 1; i < n; i++) ck_assert_str_ne(list[i], list[0]);
    app_free_list(list);
    snprintf(path, sizeof path, "%s/r%02d.lesson", work, 4);
    unlink(path);                                           /* a file gone is not offered */
    list = app_recent_list();
    int m = 0;
    for (; list[m]; m++) ck_assert_str_ne(list[m], path);
    ck_assert_int_eq(m, n - 1);
    app_free_list(list);
    ck_assert_int_eq(app_recent_add("-"), 0);               /* standard input is no file to come back to */
    ck_assert_int_eq(app_recent_add("/no/such/file.lesson"), 0);
}
END_TEST

START_TEST(test_picker_lists_every_source_once)
{
    char mine[PATH_MAX], path[PATH_MAX + 32];
    ck_assert_int_eq(app_xdg_dir("XDG_DATA_HOME", ".local/share", "attnlab/lessons", true, mine, sizeof mine), 0);
    snprintf(path, sizeof path, "%s/mine.lesson", mine);
    copy("../lessons/05-translation.lesson", path);
    snprintf(path, sizeof path, "%s/week4.lesson", work);
    app_recent_add(path);
    AppState *a = app_create();
    a->folders = xcalloc(2, sizeof *a->folders);
    a->folders[a->nfolders++] = xstrdup(work);
    app_toggle_picker(a);
    ck_assert(a->picker);
    /* recent first, then the folder, the user's own and the bundled ones; each file once */
    ck_assert_int_eq(item(a, "/week4.lesson"), 0);
    ck_assert_str_eq(a->picker_where[0], "recent");
    ck_assert_int_eq(item(a, "/week3.lesson"), 1);
    ck_assert_str_eq(a->picker_where[1], "work");
    ck_assert_int_eq(item(a, "/mine.lesson"), 2);
    ck_assert_str_eq(a->picker_where[2], "your lessons");
    ck_assert_int_eq(item(a, "/01-tour.lesson"), 3);
    ck_assert_str_eq(a->picker_where[3], "bundled");
    ck_assert_str_eq(a->picker_titles[2], "Translation: Spanish words attend to English words");
    int bundled = 0;
    for (int i = 0; i < a->picker_n; i++) bundled += !strcmp(a->picker_where[i], "bundled");
    ck_assert_int_ge(bundled, 12);
    ck_assert_int_eq(a->picker_n, 3 + bundled);
    /* the open lesson is selected */
    ck_assert_int_eq(app_open(a, TOUR), 0);
    app_toggle_picker(a);
    app_toggle_picker(a);
    ck_assert_int_eq(a->picker_sel, item(a, "/01-tour.lesson"));
    /* the picker draws where each comes from */
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    int labels = 0;
    for (int i = 0; i < d->n; i++)
        labels += d->cmds[i].kind == DRAW_TEXT && !strcmp(draw_str(d, &d->cmds[i]), "your lessons");
    ck_assert_int_eq(labels, 1);
    draw_free(d);
    app_free(a);
}
END_TEST

START_TEST(test_tab_completes_a_path)
{
    char text[PATH_MAX + 32], note[512], want[PATH_MAX + 32];
    snprintf(text, sizeof text, "%s/we", work);
    ck_assert_int_eq(app_complete_path(text, sizeof text, note, sizeof note), 2);   /* week3, week4 */
    snprintf(want, sizeof want, "%s/week", work);
    ck_assert_str_eq(text, want);                                                   /* as far as they agree */
    ck_assert_str_eq(note, "week3.lesson  week4.lesson");
    strcat(text, "3");
    ck_assert_int_eq(app_complete_path(text, sizeof text, note, sizeof note), 1);
    snprintf(want, sizeof want, "%s/week3.lesson", work);
    ck_assert_str_eq(text, want);
    ck_assert_str_eq(note, "");
    snprintf(text, sizeof text, "%s/su", work);
    ck_assert_int_eq(app_complete_path(text, sizeof text, note, sizeof note), 1);
    snprintf(want, sizeof want, "%s/sub/", work);
    ck_assert_str_eq(text, want);                                                   /* a folder: walk in */
    snprintf(text, sizeof text, "~/work/week3");                                    /* ~ is the home */
    ck_assert_int_eq(app_complete_path(text, sizeof text, note, sizeof note), 1);
    ck_assert_str_eq(text, "~/work/week3.lesson");
    snprintf(text, sizeof text, "%s/zz", work);
    ck_assert_int_eq(app_complete_path(text, sizeof text, note, sizeof note), 0);
    ck_assert_str_eq(note, "no folder or lesson starts so");
}
END_TEST

START_TEST(test_dropped_files)
{
    /* a lesson that loads a NumPy file beside it */
    char les[PATH_MAX + 32], npy[PATH_MAX + 32], other[PATH_MAX + 32];
    snprintf(les, sizeof les, "%s/np.lesson", work);
    snprintf(npy, sizeof npy, "%s/x.npy", work);
    snprintf(other, sizeof other, "%s/sub/x.npy", work);
    FILE *f = fopen(les, "w");
    fputs("title: NumPy\n[setup]\ntokens: a b\nX = load \"x.npy\"\n[embeddings]\n", f);
    fclose(f);
    static const unsigned char head[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
    for (int k = 0; k < 2; k++) {
        f = fopen(k ? other : npy, "wb");
        fwrite(head, 1, sizeof head - 1, f);
        for (size_t i = sizeof head - 1; i < 127; i++) fputc(' ', f);
        fputc('\n', f);
        double v[4] = { 1, 2, 3, k ? 9 : 4 };
        fwrite(v, sizeof v[0], 4, f);
        fclose(f);
    }
    AppState *a = app_create();
    char *drop[2] = { npy, les };
    app_open_dropped(a, drop, 2);                      /* the lesson among them opens */
    ck_assert_msg(a->doc != NULL, "%s", a->error);
    ck_assert_str_eq(a->doc->path, les);
    ck_assert_double_eq(mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 1, 1), 4);
    /* the .npy alone, changed: the lesson that loads it reads it again, on its stage */
    f = fopen(npy, "r+b");
    fseek(f, 128 + 3 * 8, SEEK_SET);
    double five = 5;
    fwrite(&five, sizeof five, 1, f);
    fclose(f);
    char *one[1] = { npy };
    app_open_dropped(a, one, 1);
    ck_assert_double_eq(mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 1, 1), 5);
    ck_assert(strstr(a->toast, "x.npy"));
    /* a .npy of that name from elsewhere, or one the lesson does not load: said, nothing read */
    char *elsewhere[1] = { other };
    app_open_dropped(a, elsewhere, 1);
    ck_assert(strstr(a->toast, "beside it"));
    ck_assert_double_eq(mat_get(lesson_matrix(&a->doc->L->setups[0], "X")->m, 1, 1), 5);
    app_free(a);
    a = app_create();
    app_open_dropped(a, one, 1);
    ck_assert(a->doc == NULL);
    ck_assert(strstr(a->toast, "drop it together with the lesson"));
    app_free(a);
}
END_TEST

START_TEST(test_window_fits_the_screen)
{
    WinRect screen = { 0, 0, 1366, 768 };
    WinFrame frame = { 22, 1, 5, 1 }, none = { 0, 0, 0, 0 };
    /* 1280x800 on a 1366x768 screen: as tall as fits with the title bar, centred */
    WinRect r = winstate_fit(screen, frame, NULL, 1280, 800);
    ck_assert_int_eq(r.w, 1280);
    ck_assert_int_eq(r.h, 768 - 22 - 5);
    ck_assert_int_eq(r.y, 22);
    ck_assert_int_ge(r.x - frame.left, 0);
    ck_assert_int_le(r.x + r.w + frame.right, 1366);
    /* a panel at the top: its strip is not usable */
    WinRect below_panel = { 0, 28, 1366, 740 };
    r = winstate_fit(below_panel, frame, NULL, 1280, 800);
    ck_assert_int_eq(r.y - frame.top, 28);
    ck_assert_int_eq(r.y + r.h + frame.bottom, 768);
    /* the last place, off the screen now (another monitor was unplugged): moved in */
    WinRect last = { 2500, -300, 900, 600 };
    r = winstate_fit(screen, frame, &last, 1280, 800);
    ck_assert_int_eq(r.w, 900);
    ck_assert_int_eq(r.h, 600);
    ck_assert_int_eq(r.x + r.w + frame.right, 1366);
    ck_assert_int_eq(r.y - frame.top, 0);
    /* never smaller than the smallest window, unless the screen is */
    WinRect tiny = { 10, 10, 200, 100 };
    r = winstate_fit(screen, none, &tiny, 1280, 800);
    ck_assert_int_eq(r.w, WIN_MIN_W);
    ck_assert_int_eq(r.h, WIN_MIN_H);
    WinRect small = { 0, 0, 500, 300 };
    r = winstate_fit(small, none, NULL, 1280, 800);
    ck_assert_int_eq(r.w, 500);
    ck_assert_int_eq(r.h, 300);
}
END_TEST

START_TEST(test_window_state_kept)
{
    WinState s;
    winstate_load(&s);
    ck_assert(!s.have_place && !s.hinted);                 /* no file yet */
    s.have_place = true;
    s.place = (WinRect){ 40, 30, 1000, 700 };
    s.hinted = true;
    ck_assert_int_eq(winstate_save(&s), 0);
    WinState t;
    winstate_load(&t);
    ck_assert(t.have_place && t.hinted);
    ck_assert_int_eq(t.place.x, 40);
    ck_assert_int_eq(t.place.w, 1000);
    ck_assert_int_eq(t.place.h, 700);
    /* a file someone edited into nonsense: ignored where it makes none */
    char path[PATH_MAX];
    ck_assert_int_eq(winstate_path(path, sizeof path), 0);
    FILE *f = fopen(path, "w");
    fputs("x=12\ny=huge\nwidth=99999999\nheight=700\nwhat=1\n", f);
    fclose(f);
    winstate_load(&t);
    ck_assert(!t.have_place && !t.hinted);
}
END_TEST

/* The first-run hint covers no text of the slide: over every stage of
** lesson 07 (notes under the panels: heads switched off, the likeliest
** words) and of the tour, at the window's size and a small one, its
** banner overlaps no note, explanation, label or number. */
START_TEST(test_first_hint_covers_no_text)
{
    static const char *const lessons[] = { TOUR, "../lessons/07-induction-head.lesson" };
    static const int sizes[][2] = { { 1280, 800 }, { 1024, 640 } };
    int frames = 0;
    for (size_t l = 0; l < 2; l++) {
        AppState *a = app_create();
        ck_assert_int_eq(app_open(a, lessons[l]), 0);
        a->first_hint = true;
        for (int k = 0; k < a->view->nstages; k++) {
            app_goto(a, k);
            for (size_t z = 0; z < 2; z++) {
                int w = sizes[z][0], h = sizes[z][1];
                DrawList *d = draw_create(w, h);
                app_frame(a, w, h, layout_measure_fixed, NULL, d);
                Rect hint = { 0, 0, 0, 0 };
                for (int i = 1; i < d->n; i++)
                    if (d->cmds[i].kind == DRAW_TEXT && strstr(draw_str(d, &d->cmds[i]), "? every key"))
                        hint = d->cmds[i - 1].r;        /* its background, drawn just before */
                ck_assert_float_gt(hint.w, 0);
                for (int i = 0; i < d->n; i++) {
                    const DrawCmd *c = &d->cmds[i];
                    if (c->role == ROLE_DECOR || c->role == ROLE_OVERLAY || c->kind != DRAW_TEXT) continue;
                    bool over = c->r.x < hint.x + hint.w && hint.x < c->r.x + c->r.w && c->r.y < hint.y + hint.h
                                && hint.y < c->r.y + c->r.h;
                    ck_assert_msg(!over, "%s stage %d at %dx%d: the hint covers \"%s\"", lessons[l], k + 1, w, h,
                                  draw_str(d, c));
                }
                draw_free(d);
                frames++;
            }
        }
        app_free(a);
    }
    printf("open: the first-run hint over %d frames, none covering the slide's text\n", frames);
}
END_TEST

START_TEST(test_first_hint_until_a_key)
{
    AppState *a = app_create();
    ck_assert_int_eq(app_open(a, TOUR), 0);
    a->first_hint = true;
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    int hint = 0;
    for (int i = 0; i < d->n; i++)
        hint += d->cmds[i].kind == DRAW_TEXT && strstr(draw_str(d, &d->cmds[i]), "\xe2\x86\x92 next stage") != NULL
                && strstr(draw_str(d, &d->cmds[i]), "? every key") != NULL;
    ck_assert_int_eq(hint, 1);
    a->first_hint = false;
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    for (int i = 0; i < d->n; i++)
        ck_assert(d->cmds[i].kind != DRAW_TEXT || !strstr(draw_str(d, &d->cmds[i]), "every key"));
    draw_free(d);
    app_free(a);
}
END_TEST

/* Parse an argument vector (NULL-terminated) into *a; the code. */
static int parse(Args *a, const char **argv)
{
    int argc = 0;
    while (argv[argc]) argc++;
    return app_args_parse(argc, (char **)argv, a);
}

/* The arguments a stand-in dialog program (bin/NAME under work) was run
** with, one a line, after the dialog started in dir ends; its answer. */
static char *dialog_args(const char *name, const char *dir, char *args, size_t n)
{
    char bin[PATH_MAX + 8], prog[PATH_MAX + 32], out[PATH_MAX + 32];
    snprintf(bin, sizeof bin, "%s/bin", work);
    mkdir(bin, 0755);
    snprintf(prog, sizeof prog, "%s/%s", bin, name);
    snprintf(out, sizeof out, "%s/%s-args", work, name);
    FILE *f = fopen(prog, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\necho chosen.lesson\n", out);
    fclose(f);
    chmod(prog, 0755);
    char *path_was = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s:%s", bin, path_was);
    setenv("PATH", path, 1);
    setenv("ATTNLAB_FILE_DIALOG", name, 1);
    FileDialog *d = filedlg_start(dir, "Open a lesson");
    ck_assert_ptr_nonnull(d);
    char *answer = NULL;
    while (!filedlg_poll(d, &answer)) usleep(1000);      /* its end is the event waited for */
    filedlg_free(d);
    setenv("PATH", path_was, 1);
    unsetenv("ATTNLAB_FILE_DIALOG");
    free(path_was);
    f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    size_t k = fread(args, 1, n - 1, f);
    args[k] = '\0';
    fclose(f);
    return answer;
}

START_TEST(test_dialog_folder_starting_with_a_dash)
{
    /* a relative folder named "-course" reaches the dialog as ./-course/,
    ** which no dialog program can take for an option */
    char args[4096];
    char *answer = dialog_args("zenity", "-course", args, sizeof args);
    ck_assert_str_eq(answer, "chosen.lesson");
    free(answer);
    ck_assert_msg(strstr(args, "\n--filename=./-course/\n") != NULL, "zenity got:\n%s", args);
    answer = dialog_args("kdialog", "-course", args, sizeof args);
    free(answer);
    ck_assert_msg(strstr(args, "\n--getopenfilename\n./-course/\n") != NULL, "kdialog got:\n%s", args);
    answer = dialog_args("zenity", "/home/t/course", args, sizeof args);   /* an absolute folder as it is */
    free(answer);
    ck_assert_msg(strstr(args, "\n--filename=/home/t/course/\n") != NULL, "zenity got:\n%s", args);
}
END_TEST

START_TEST(test_options_as_gnu_reads_them)
{
    Args a;
    const char *v1[] = { "attnlab", "--export=out", "--format=pdf", "--size", "800x600", "l.lesson", NULL };
    ck_assert_int_eq(parse(&a, v1), 0);
    ck_assert_str_eq(a.mode, "export");
    ck_assert_str_eq(a.dir, "out");
    ck_assert(a.shot.pdf && !a.shot.svg);
    ck_assert_int_eq(a.shot.width, 800);
    ck_assert_int_eq(a.nfiles, 1);
    app_args_free(&a);
    const char *v2[] = { "attnlab", "--exp", "o", "--form", "svg", "--", "--weird.lesson", "-", NULL };
    ck_assert_int_eq(parse(&a, v2), 0);
    ck_assert(a.shot.svg);
    ck_assert_int_eq(a.nfiles, 2);
    ck_assert_str_eq(a.files[0], "--weird.lesson");
    ck_assert_str_eq(a.files[1], "-");
    app_args_free(&a);
    const char *v3[] = { "attnlab", "../lessons", TOUR, NULL };        /* a folder for the picker, a lesson */
    ck_assert_int_eq(parse(&a, v3), 0);
    ck_assert(a.mode == NULL);
    ck_assert_int_eq(a.nfolders, 1);
    ck_assert_str_eq(a.folders[0], "../lessons");
    ck_assert_int_eq(a.nfiles, 1);
    app_args_free(&a);
    const char *bad[][5] = {
        { "attnlab", "--exprot", "o", "x", NULL }, { "attnlab", "--s", "2", NULL, NULL },
        { "attnlab", "--check=1", "x", NULL, NULL }, { "attnlab", "--format", NULL, NULL, NULL },
        { "attnlab", "--check", "-", "-", NULL }, { "attnlab", "-x", NULL, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(parse(&a, bad[i]), 2);
        app_args_free(&a);
    }
    ck_assert_str_eq(app_args_nearest("exprot", 6), "export");
    ck_assert_str_eq(app_args_nearest("fromat", 6), "format");
    ck_assert_str_eq(app_args_nearest("chek", 4), "check");
    ck_assert_ptr_null(app_args_nearest("no-such-flag", 12));
    ck_assert_ptr_null(app_args_nearest("x", 1));
}
END_TEST

/* The suite. */
Suite *open_suite(void)
{
    Suite *s = suite_create("open");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, test_recent_files_newest_first);
    tcase_add_test(core, test_dialog_folder_starting_with_a_dash);
    tcase_add_test(core, test_picker_lists_every_source_once);
    tcase_add_test(core, test_tab_completes_a_path);
    tcase_add_test(core, test_dropped_files);
    tcase_add_test(core, test_window_fits_the_screen);
    tcase_add_test(core, test_window_state_kept);
    tcase_add_test(core, test_first_hint_until_a_key);
    tcase_add_test(core, test_first_hint_covers_no_text);
    tcase_add_test(core, test_options_as_gnu_reads_them);
    suite_add_tcase(s, core);
    return s;
}
