/*
** main.c: the attnlab command line.
**
**   attnlab [FILE] [FOLDER...]     the interactive window (no FILE: a picker)
**   attnlab --check LESSON...      validate
**   attnlab --dump LESSON          JSON of every stage
**   attnlab --list [DIR]           lessons with titles and stages
**   attnlab --export DIR [...] LESSON...   every stage as PNG or SVG, or
**                                  a PDF per lesson, headless
**
** A LESSON of "-" is read from standard input; --stage N (or a list, 2,4-6)
** limits --dump and --export to those stages; --export - writes the one
** picture they make to standard output.
**
** The options are read as GNU programs read theirs (args.h). Exit codes: 0
** success, 1 a runtime failure (I/O, no display, font, a write error on
** standard output), 2 usage or invalid input: error_exit_code decides from
** the kind of the Error. Results go to stdout, errors to stderr, one line
** each (error_print), in the user's language where a catalogue has it.
*/
#define _POSIX_C_SOURCE 200809L
#include "app/args.h"
#include "app/cli_core.h"
#include "app/glyphs.h"
#include "app/lang.h"
#include "app/paths.h"
#include "app/shot.h"
#include "app/window.h"
#include "core/stage/dump.h"
#include "core/io/fileio.h"
#include "core/text/i18n.h"
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"
#include "core/util.h"
#include "lib/attnlab.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --list: titles and stage ids of the lessons in dir. */
static int cmd_list(const char *dir)
{
    char found[PATH_MAX];
    Error err;
    if (!dir) {
        if (app_data_dir("lessons", found, sizeof found) != 0) {
            error_set(&err, ERR_IO, NULL, 0, 0, _("no bundled lessons found (looked beside the program and in %s)"), found);
            error_print(&err, stderr);
            return error_exit_code(&err);
        }
        dir = found;
    }
    char **list = app_list_lessons(dir);
    if (!list) {
        char *shown = util_shown(dir);
        error_set(&err, ERR_IO, shown, 0, 0, "%s", _("cannot read the directory"));
        free(shown);
        error_print(&err, stderr);
        return error_exit_code(&err);
    }
    int code = 0;
    for (char **p = list; *p; p++) {
        Lesson *L = lesson_load(*p, &err);
        if (!L) {
            error_print(&err, stderr);
            if (error_exit_code(&err) > code) code = error_exit_code(&err);
            continue;
        }
        const char *base = strrchr(*p, '/');
        printf("%-28s %s\n", base ? base + 1 : *p, L->title);
        printf("%-28s", "");
        for (int k = 0; k < L->nstages; k++) printf(" %s", lesson_stage_name(L->stages[k].id));
        printf("\n");
        lesson_free(L);
    }
    if (!list[0]) printf(_("(no .lesson files in %s)\n"), dir);
    app_free_list(list);
    return code;
}

/*
** Results printed to stdout sit in its buffer until the end: a full disk or
** a closed pipe shows only when it is flushed, so a command that would exit
** 0 checks that here and fails with one line instead.
*/
static int close_stdout(int code)
{
    bool bad = ferror(stdout) != 0;
    int e = bad ? errno : 0;            /* a failed write earlier set it */
    if (fflush(stdout) != 0) { bad = true; e = errno; }
    if (fclose(stdout) != 0 && !bad) { bad = true; e = errno; }
    if (!bad) return code;
    Error err;
    error_set(&err, ERR_IO, NULL, 0, 0, _("cannot write to standard output%s%s"), e ? ": " : "", e ? strerror(e) : "");
    error_print(&err, stderr);
    return code ? code : error_exit_code(&err);
}

/* --check also warns about characters no installed font can draw. */
static void warn_glyphs(const char *path)
{
    app_check_glyphs(path, NULL, NULL);
}

/* --dump, as a program using libattnlab does it (attnlab.h): the lesson
** read, opened and dumped through the library's public functions; the same
** bytes, messages and exit codes as cli_dump, which the browser's command
** line keeps. */
static int dump_lesson(const char *path, const char *stages)
{
    Error e;
    size_t len;
    char *text = lesson_read(path, &len, &e);
    if (!text) {
        error_print(&e, stderr);
        return error_exit_code(&e);
    }
    attnlab_error err;
    attnlab *lesson = attnlab_open(text, len, path, NULL, 0, &err);
    free(text);
    char *json = NULL;
    size_t n = 0;
    int code = 0;
    if (!lesson || attnlab_dump(lesson, stages, &json, &n, &err) != 0) {
        fprintf(stderr, "%s\n", err.text);
        code = err.kind == ATTNLAB_IO || err.kind == ATTNLAB_RUNTIME ? 1 : 2;
    } else {
        fwrite(json, 1, n, stdout);     /* a failed write is reported once, when stdout is closed */
    }
    attnlab_free(json);
    attnlab_close(lesson);
    return code;
}

/* Parse arguments and dispatch. */
int main(int argc, char **argv)
{
    fileio_start();
    app_use_language(NULL);             /* messages and --help in the user's language */
    Args a;
    int code = app_args_parse(argc, argv, &a);
    if (code == 0 && a.help) {
        app_args_help(stdout);
    } else if (code == 0 && a.version) {
        printf("attnlab %s\n", ATTNLAB_VERSION);
    } else if (code == 0) {
        if (!a.mode) code = app_window(&(WindowArgs){ a.nfiles ? a.files[0] : NULL, a.folders, a.nfolders, a.font,
                                                      a.shots ? a.shots : ".", a.size_given ? a.shot.width : 0,
                                                      a.size_given ? a.shot.height : 0 });
        else if (!strcmp(a.mode, "check")) code = cli_check(a.files, a.nfiles, warn_glyphs);
        else if (!strcmp(a.mode, "dump")) code = dump_lesson(a.files[0], a.staged ? a.stages.spec : NULL);
        else if (!strcmp(a.mode, "list")) code = cmd_list(a.dir);
        else code = app_export(a.dir, a.files, a.nfiles, &a.shot, a.staged ? &a.stages : NULL, a.font, false);
    }
    app_args_free(&a);
    return close_stdout(code);
}
