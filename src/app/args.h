/*
** args.h: the command line, read as GNU programs read theirs.
**
** One table of options (args.c) serves the parser, the suggestions for a
** mistyped option and the help text. The conventions:
**
**   --opt VALUE or --opt=VALUE      an option's value, either way
**   --exp                           an option shortened while unambiguous
**   --                              ends the options: what follows is a file
**   -                               standard input, where a lesson is read
**
** A mistyped option is named with the nearest one ("unknown option
** '--exprot'; did you mean --export?"). Messages and the help come from the
** message catalogues, in the user's language (app_use_language(NULL) first).
**
**   Args a;
**   int code = app_args_parse(argc, argv, &a);     // 0, or 2 (said on stderr)
**   if (a.help) app_args_help(stdout);
**   app_args_free(&a);
*/
#ifndef ATTNLAB_ARGS_H
#define ATTNLAB_ARGS_H

#include <stdbool.h>
#include <stdio.h>
#include "shot.h"

/* Everything the command line can say. */
typedef struct Args {
    const char *mode;           /* NULL (the window), "check", "dump", "list", "export" */
    const char *dir;            /* --export DIR, --list DIR */
    const char *font;
    const char *shots;
    const char *model;          /* --model DIR: the lesson (standard input's) reads this folder */
    ShotOpts shot;
    bool size_given;
    bool help, version;
    StageSel stages;            /* --stage, when staged */
    bool staged;
    char **files;               /* the lessons, in order ("-": standard input) */
    int nfiles;
    char **folders;             /* the window's folders of lessons, for the picker */
    int nfolders;
} Args;

/* Read argv into a (released with app_args_free). Returns 0, or 2 after one
** line on stderr saying what is wrong. */
int app_args_parse(int argc, char **argv, Args *a);
/* Release what app_args_parse allocated. */
void app_args_free(Args *a);
/* The help text, in the user's language. */
void app_args_help(FILE *out);
/* A usage error: "attnlab: error: " and the message, then where to find
** the usage (an ERR_INVALID Error, printed); returns its exit code, 2. */
int app_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The option nearest to a mistyped one (name without its dashes and
** value): its name, or NULL when none is near enough to suggest. */
const char *app_args_nearest(const char *name, size_t len);

#endif
