/*
** cli_core.h: the command-line work that needs no display and no SDL:
** loading a lesson with the program's error line and exit code, --check and
** --dump. main.c calls these, and so does the WebAssembly command line
** (web/cli.c), so both print the same bytes and exit with the same codes.
**
** A selection of stages (--stage 2,4-6) limits what --dump writes and what
** --export draws.
**
** Usage:
**   int code = cli_check(paths, n, NULL);  every file; 0, 1 (I/O) or 2 (invalid);
**                                          also(path) runs for each valid one
**   int code = cli_dump(path, NULL);   JSON of every stage on stdout
**   StageSel sel;
**   if (cli_stage_parse("2,4-6", &sel, &err) != 0) ...   usage error
**   int code = cli_dump(path, &sel);   JSON of stages 2, 4, 5 and 6
*/
#ifndef ATTNLAB_CLI_CORE_H
#define ATTNLAB_CLI_CORE_H

#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"

/* Stages chosen with --stage: a list of numbers and ranges from 1. */
typedef struct StageSel {
    bool want[LESSON_MAX_STAGES + 1];   /* want[k]: stage k (1-based) is chosen */
    int last;                           /* the largest stage chosen */
    char spec[64];                      /* as written, for messages */
} StageSel;

/* Parse "3", "1,3", "2-4", "1,3-5" into sel; 0, or -1 with err filled
** (ERR_INVALID: a usage error). */
int cli_stage_parse(const char *spec, StageSel *sel, Error *err);
/* Whether sel (NULL: every stage) chooses stage k of L (0-based); false
** for every stage, with err filled (ERR_INVALID, about L's file), when sel
** names a stage past L's last. */
bool cli_stage_fits(const StageSel *sel, const Lesson *L, Error *err);
/* Whether sel (NULL: all) chooses stage k (0-based). */
bool cli_stage_wanted(const StageSel *sel, int k);
/* What an export of one lesson has drawn so far, against its budget
** (EXPORT_MAX_PAGES, EXPORT_MAX_SHAPES: docs/lesson-format.md). */
typedef struct ExportBudget {
    const Lesson *L;
    int stages;                 /* stages chosen */
    int64_t pages;              /* pages they take */
    int64_t bound;              /* at least the shapes they draw (stage_shapes_bound): when it is within
                                ** EXPORT_MAX_SHAPES the export surely is, else only drawing tells */
    int64_t shapes;             /* shapes drawn so far */
} ExportBudget;

/* The budget of exporting the stages sel chooses of L (NULL: all), cut
** into pages by pg: true when their pages are within EXPORT_MAX_PAGES
** (counted before anything is drawn), else false with err filled
** (ERR_LIMIT, about L's file). */
bool cli_export_begin(ExportBudget *b, const StageSel *sel, const Lesson *L, const Trace *T, StagePager *pg, Error *err);
/* Count a page laid out to be written, drawing shapes (draw_shapes):
** false with err filled (ERR_LIMIT) when the lesson's pages together draw
** more than EXPORT_MAX_SHAPES (the page is then not to be written). */
bool cli_export_take(ExportBudget *b, int64_t shapes, Error *err);
/* Load and compute a lesson; on failure print the error line to stderr, set
** *code (1 for I/O, 2 for an invalid lesson) and return NULL. */
Lesson *app_load(const char *path, Trace **T, int *code);
/* --check: validate every file, printing "PATH: ok (N stages)" for each
** good one. Returns the worst exit code. */
int cli_check(char **paths, int n, void (*also)(const char *path));
/* --dump: every matrix of every stage of one lesson (those of sel, when
** not NULL) as JSON on stdout. Returns the exit code. */
int cli_dump(const char *path, const StageSel *sel);

#endif
