/*
** main.c: the attnlab command line: validate, list and dump lessons.
**
** Exit codes: 0 success, 1 a runtime failure (I/O), 2 usage or invalid input.
** Results go to stdout, errors to stderr, one line each.
*/
#include "app/paths.h"
#include "core/dump.h"
#include "core/lesson.h"
#include "core/trace.h"
#include "core/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE "usage: attnlab [--help] [--version] [--check LESSON...] [--dump LESSON] [--list [DIR]]\n"

/* Print the help text. */
static void help(void)
{
    printf(USAGE
           "\n"
           "attnlab teaches how attention in transformers works, one stage at a time.\n"
           "\n"
           "  --check LESSON...  validate lessons; exit 0 if all are valid, 2 if not\n"
           "  --dump LESSON      print every matrix of every stage as JSON (17 digits, -inf as null)\n"
           "  --list [DIR]       list lessons (default: the bundled ones) with their stages\n"
           "  --version          print the version\n"
           "  --help             this text\n"
           "\n"
           "Lessons are plain text files; see docs/lesson-format.md.\n");
}

/* Load and compute a lesson; print the error and return NULL on failure. */
static Lesson *load(const char *path, Trace **T, int *code)
{
    LessonError err;
    Lesson *L = lesson_load(path, &err);
    if (L) {
        *T = attn_run(L, &err);
        if (*T) return L;
        lesson_free(L);
    }
    fprintf(stderr, "%s\n", err.msg);
    *code = err.line == 0 && strstr(err.msg, "cannot") ? 1 : 2;
    return NULL;
}

/* --check: validate every file. */
static int cmd_check(int n, char **paths)
{
    int code = 0;
    for (int i = 0; i < n; i++) {
        Trace *T = NULL;
        int c = 0;
        Lesson *L = load(paths[i], &T, &c);
        if (!L) {
            if (c > code) code = c;
            continue;
        }
        printf("%s: ok (%d stage%s)\n", paths[i], L->nstages, L->nstages == 1 ? "" : "s");
        trace_free(T);
        lesson_free(L);
    }
    return code == 1 ? 1 : code ? 2 : 0;
}

/* --dump: JSON of one lesson. */
static int cmd_dump(const char *path)
{
    Trace *T = NULL;
    int code = 0;
    Lesson *L = load(path, &T, &code);
    if (!L) return code;
    Buf b = {0};
    dump_json(L, T, &b);
    int ok = fwrite(b.s, 1, b.len, stdout) == b.len && fflush(stdout) == 0;
    buf_free(&b);
    trace_free(T);
    lesson_free(L);
    if (!ok) {
        fprintf(stderr, "attnlab: error: cannot write the dump to standard output\n");
        return 1;
    }
    return 0;
}

/* --list: titles and stage ids of the lessons in dir. */
static int cmd_list(const char *dir)
{
    char found[PATH_MAX];
    if (!dir) {
        if (app_data_dir("lessons", found, sizeof found) != 0) {
            fprintf(stderr, "attnlab: error: no bundled lessons found (looked beside the program and in %s)\n", found);
            return 1;
        }
        dir = found;
    }
    char **list = app_list_lessons(dir);
    if (!list) {
        fprintf(stderr, "%s: error: cannot read the directory\n", dir);
        return 1;
    }
    int code = 0;
    for (char **p = list; *p; p++) {
        LessonError err;
        Lesson *L = lesson_load(*p, &err);
        if (!L) {
            fprintf(stderr, "%s\n", err.msg);
            code = 2;
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

/* Parse arguments and dispatch. */
int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("attnlab %s\n", ATTNLAB_VERSION);
        return 0;
    }
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        help();
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "--check")) return cmd_check(argc - 2, argv + 2);
    if (argc == 3 && !strcmp(argv[1], "--dump")) return cmd_dump(argv[2]);
    if ((argc == 2 || argc == 3) && !strcmp(argv[1], "--list")) return cmd_list(argc == 3 ? argv[2] : NULL);
    fputs(USAGE, stderr);
    return 2;
}
