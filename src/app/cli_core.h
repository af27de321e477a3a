/*
** cli_core.h: the command-line work that needs no display and no SDL:
** loading a lesson with the program's error line and exit code, --check and
** --dump. main.c calls these, and so does the WebAssembly command line
** (web/cli.c), so both print the same bytes and exit with the same codes.
**
** Usage:
**   int code = cli_check(paths, n, NULL);  every file; 0, 1 (I/O) or 2 (invalid);
**                                          also(path) runs for each valid one
**   int code = cli_dump(path);         JSON of every stage on stdout
*/
#ifndef ATTNLAB_CLI_CORE_H
#define ATTNLAB_CLI_CORE_H

#include "core/lesson.h"
#include "core/trace.h"

/* Load and compute a lesson; on failure print the error line to stderr, set
** *code (1 for I/O, 2 for an invalid lesson) and return NULL. */
Lesson *app_load(const char *path, Trace **T, int *code);
/* --check: validate every file, printing "PATH: ok (N stages)" for each
** good one. Returns the worst exit code. */
int cli_check(char **paths, int n, void (*also)(const char *path));
/* --dump: every matrix of every stage of one lesson as JSON on stdout.
** Returns the exit code. */
int cli_dump(const char *path);

#endif
