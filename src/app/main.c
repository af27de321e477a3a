/*
** main.c: the attnlab command line.
**
**   attnlab [FILE]                 the interactive window (no FILE: a picker)
**   attnlab --check LESSON...      validate
**   attnlab --dump LESSON          JSON of every stage
**   attnlab --list [DIR]           lessons with titles and stages
**   attnlab --export DIR [...] LESSON...   every stage as PNG or SVG, headless
**
** A LESSON of "-" is read from standard input; --stage N (or a list, 2,4-6)
** limits --dump and --export to those stages; --export - writes the one
** picture they make to standard output.
**
** Exit codes: 0 success, 1 a runtime failure (I/O, display, font, a write
** error on standard output), 2 usage or invalid input: error_exit_code
** decides from the kind of the Error. Results go to stdout, errors to
** stderr, one line each (error_print).
*/
#define _POSIX_C_SOURCE 200809L
#include "app/cli_core.h"
#include "app/glyphs.h"
#include "app/paths.h"
#include "app/shot.h"
#include "app/window.h"
#include "core/colormaps.h"
#include "core/dump.h"
#include "core/fileio.h"
#include "core/lesson.h"
#include "core/trace.h"
#include "core/util.h"
#include "view/cmap.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE \
    "usage: attnlab [--size WxH] [--font PATH] [--shots DIR] [LESSON]\n" \
    "       attnlab --check LESSON... | --dump [--stage N] LESSON | --list [DIR]\n" \
    "       attnlab --export DIR|- [--stage N] [--format png|svg] [--size WxH] [--scale N] [--theme light|dark] [--cmap NAME] LESSON...\n"

/* Everything the command line can say. */
typedef struct Args {
    const char *mode;           /* NULL (window), "check", "dump", "list", "export" */
    const char *dir;            /* --export DIR, --list DIR */
    const char *font;
    const char *shots;
    ShotOpts shot;
    bool size_given;
    StageSel stages;            /* --stage */
    bool staged;
    char **files;
    int nfiles;
} Args;

/* Print the help text (the colormaps from their one list). */
static void help(void)
{
    char maps[COLORMAPS_LIST_MAX];
    colormaps_list(maps, sizeof maps);
    printf(USAGE
           "\n"
           "attnlab teaches how attention in transformers works, one stage at a time.\n"
           "\n"
           "  LESSON             open a lesson in the window (none: pick a bundled one)\n"
           "  --check LESSON...  validate lessons; exit 0 if all are valid, 2 if not (1 if one cannot be read)\n"
           "  --dump LESSON      print every matrix of every stage as JSON (17 digits, -inf as null)\n"
           "  --list [DIR]       list lessons (default: the bundled ones) with their stages\n"
           "  --export DIR       write every stage as DIR/<lesson>-<NN>-<stage>.png (no display needed);\n"
           "                     DIR - writes the one picture --stage chooses to standard output\n"
           "    --stage N          only stage N (or a list such as 2,4-6), for --export and --dump\n"
           "    --format png|svg   image format (png)\n"
           "    --size WxH         canvas size (1280x720, a 16:9 slide; also the window's size)\n"
           "    --scale N          multiply every dimension, e.g. 2 for print (1)\n"
           "    --theme light|dark (light)\n"
           "    --cmap NAME        %s for every panel\n"
           "  --font PATH        a TTF font instead of DejaVu Sans\n"
           "  --shots DIR        where the S key saves stages (.)\n"
           "  --version, --help\n"
           "\n"
           "A LESSON of - is read from standard input.\n"
           "In the window, press ? for the keys. Lessons are plain text: see docs/lesson-format.md.\n", maps);
}

/* A usage error: one line, with where to find the usage; its exit code. */
static int usage_error(const char *fmt, const char *what)
{
    char msg[600];
    Error e;
    snprintf(msg, sizeof msg, fmt, what);
    error_set(&e, ERR_INVALID, NULL, 0, 0, "%s (see attnlab --help)", msg);
    error_print(&e, stderr);
    return error_exit_code(&e);
}

/* Parse WxH. */
static bool parse_size(const char *s, int *w, int *h)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X')) return false;
    long b = strtol(end + 1, &end, 10);
    if (*end || a < 200 || b < 150 || a > 8192 || b > 8192) return false;
    *w = (int)a;
    *h = (int)b;
    return true;
}

/* --stage SPEC into a; 0, or the exit code of a usage error (printed). */
static int parse_stage_option(Args *a, const char *spec)
{
    Error why;
    if (a->staged) return usage_error("%s is given twice", "--stage");
    if (!spec || cli_stage_parse(spec, &a->stages, &why) != 0) return usage_error("%s", spec ? why.msg : "--stage needs a stage number");
    a->staged = true;
    return 0;
}

/* What the commands that read "-" (standard input) allow: one lesson from
** it, not the window's; 0, or the exit code of a usage error. */
static int check_stdin_use(const Args *a)
{
    int from_stdin = 0;
    for (int i = 0; i < a->nfiles; i++) from_stdin += !strcmp(a->files[i], CLI_STDIN);
    if (from_stdin && !a->mode) return usage_error("the window opens a lesson file; - (standard input) works with "
                                                   "--check, --dump and --export%s", "");
    if (from_stdin > 1) return usage_error("standard input (-) can be read once%s", "");
    if (a->staged && (!a->mode || (strcmp(a->mode, "dump") && strcmp(a->mode, "export"))))
        return usage_error("--stage chooses the stages of --dump and --export%s", "");
    if (a->mode && !strcmp(a->mode, "export") && !strcmp(a->dir, CLI_STDIN) && a->nfiles != 1)
        return usage_error("--export - writes one picture of one lesson to standard output%s", "");
    return 0;
}

/* Parse argv into args; returns 0, or 2 after printing a usage error. */
static int parse_args(int argc, char **argv, Args *a)
{
    memset(a, 0, sizeof *a);
    a->shot = app_shot_defaults();
    a->files = xcalloc((size_t)argc, sizeof *a->files);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--check") || !strcmp(s, "--dump") || !strcmp(s, "--list") || !strcmp(s, "--export")) {
            if (a->mode) return usage_error("%s cannot be combined with another command", s);
            a->mode = s + 2;
            if (!strcmp(s, "--export")) {
                if (!next) return usage_error("%s needs a directory", s);
                a->dir = argv[++i];
            }
        } else if (!strcmp(s, "--format")) {
            if (!next || (strcmp(next, "png") && strcmp(next, "svg"))) return usage_error("--format takes png or svg, found '%s'", next ? next : "");
            a->shot.svg = !strcmp(argv[++i], "svg");
        } else if (!strcmp(s, "--size")) {
            if (!next || !parse_size(next, &a->shot.width, &a->shot.height))
                return usage_error("--size takes WxH between 200x150 and 8192x8192, found '%s'", next ? next : "");
            a->size_given = true;
            i++;
        } else if (!strcmp(s, "--scale")) {
            if (!next || (strcmp(next, "1") && strcmp(next, "2") && strcmp(next, "3") && strcmp(next, "4")))
                return usage_error("--scale takes 1, 2, 3 or 4, found '%s'", next ? next : "");
            a->shot.scale = atoi(argv[++i]);
        } else if (!strcmp(s, "--theme")) {
            if (!next || (strcmp(next, "light") && strcmp(next, "dark"))) return usage_error("--theme takes light or dark, found '%s'", next ? next : "");
            a->shot.dark = !strcmp(argv[++i], "dark");
        } else if (!strcmp(s, "--cmap")) {
            if (!next || !cmap_get(next)) {
                char maps[COLORMAPS_LIST_MAX], fmt[COLORMAPS_LIST_MAX + 32];
                colormaps_list(maps, sizeof maps);
                snprintf(fmt, sizeof fmt, "--cmap takes %s, found '%%s'", maps);
                return usage_error(fmt, next ? next : "");
            }
            a->shot.cmap = argv[++i];
        } else if (!strcmp(s, "--stage")) {
            int code = parse_stage_option(a, next);
            if (code) return code;
            i++;
        } else if (!strcmp(s, "--font")) {
            if (!next) return usage_error("%s needs a path", s);
            a->font = argv[++i];
        } else if (!strcmp(s, "--shots")) {
            if (!next) return usage_error("%s needs a directory", s);
            a->shots = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return usage_error("unknown option '%s'", s);
        } else {
            a->files[a->nfiles++] = argv[i];
        }
    }
    if (a->mode && !strcmp(a->mode, "list")) {
        if (a->nfiles > 1) return usage_error("--list takes at most one directory%s", "");
        a->dir = a->nfiles ? a->files[0] : NULL;
    } else if (a->mode && !strcmp(a->mode, "dump") && a->nfiles != 1) {
        return usage_error("--dump takes exactly one lesson%s", "");
    } else if (a->mode && a->nfiles == 0) {
        return usage_error("--%s needs at least one lesson", a->mode);
    } else if (!a->mode && a->nfiles > 1) {
        return usage_error("the window opens one lesson at a time%s", "");
    }
    Error why;
    if (app_shot_check(&a->shot, &why) != 0) return usage_error("%s", why.msg);
    return check_stdin_use(a);
}

/* --list: titles and stage ids of the lessons in dir. */
static int cmd_list(const char *dir)
{
    char found[PATH_MAX];
    Error err;
    if (!dir) {
        if (app_data_dir("lessons", found, sizeof found) != 0) {
            error_set(&err, ERR_IO, NULL, 0, 0, "no bundled lessons found (looked beside the program and in %s)", found);
            error_print(&err, stderr);
            return error_exit_code(&err);
        }
        dir = found;
    }
    char **list = app_list_lessons(dir);
    if (!list) {
        char *shown = util_shown(dir);
        error_set(&err, ERR_IO, shown, 0, 0, "cannot read the directory");
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
    if (!list[0]) printf("(no .lesson files in %s)\n", dir);
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
    error_set(&err, ERR_IO, NULL, 0, 0, "cannot write to standard output%s%s", e ? ": " : "", e ? strerror(e) : "");
    error_print(&err, stderr);
    return code ? code : error_exit_code(&err);
}

/* --check also warns about characters no installed font can draw. */
static void warn_glyphs(const char *path)
{
    app_check_glyphs(path, NULL, NULL);
}

/* Parse arguments and dispatch. */
int main(int argc, char **argv)
{
    fileio_start();
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("attnlab %s\n", ATTNLAB_VERSION);
        return close_stdout(0);
    }
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        help();
        return close_stdout(0);
    }
    Args a;
    int code = parse_args(argc, argv, &a);
    if (code == 0) {
        if (!a.mode) code = app_window(a.nfiles ? a.files[0] : NULL, a.font, a.shots ? a.shots : ".",
                                       a.size_given ? a.shot.width : 1280, a.size_given ? a.shot.height : 800);
        else if (!strcmp(a.mode, "check")) code = cli_check(a.files, a.nfiles, warn_glyphs);
        else if (!strcmp(a.mode, "dump")) code = cli_dump(a.files[0], a.staged ? &a.stages : NULL);
        else if (!strcmp(a.mode, "list")) code = cmd_list(a.dir);
        else code = app_export(a.dir, a.files, a.nfiles, &a.shot, a.staged ? &a.stages : NULL, a.font, false);
    }
    free(a.files);
    return close_stdout(code);
}
