/*
** cli_core.c: --check and --dump, shared by the native and the WebAssembly
** command lines; lessons from standard input; --stage selections.
*/
#include "cli_core.h"
#include "core/stage/dump.h"
#include "core/io/fileio.h"
#include "core/stage/stage.h"
#include "core/util.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One number of a --stage list at *sp (advancing it), 1 … LESSON_MAX_STAGES; 0 if none. */
static int stage_number(const char **sp)
{
    const char *s = *sp;
    long n = 0;
    if (!isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s) && n <= LESSON_MAX_STAGES) n = n * 10 + (*s++ - '0');
    if (isdigit((unsigned char)*s) || n < 1 || n > LESSON_MAX_STAGES) return 0;
    *sp = s;
    return (int)n;
}

/* Parse a --stage list. */
int cli_stage_parse(const char *spec, StageSel *sel, Error *err)
{
    memset(sel, 0, sizeof *sel);
    snprintf(sel->spec, sizeof sel->spec, "%s", spec);
    const char *s = spec;
    for (;;) {
        int a = stage_number(&s), b = a;
        if (a && *s == '-') {
            s++;
            b = stage_number(&s);
        }
        if (!a || !b || b < a)
            return error_set(err, ERR_INVALID, NULL, 0, 0, "--stage takes stage numbers from 1 to %d and ranges, "
                             "as in 3, 1,4 or 2-5, found '%s'", LESSON_MAX_STAGES, spec), -1;
        for (int k = a; k <= b; k++) sel->want[k] = true;
        if (b > sel->last) sel->last = b;
        if (!*s) return 0;
        if (*s++ != ',') s = "";            /* anything else ends in the error above */
    }
}

/* Whether a selection fits a lesson. */
bool cli_stage_fits(const StageSel *sel, const Lesson *L, Error *err)
{
    if (!sel || sel->last <= L->nstages) return true;
    return error_set(err, ERR_INVALID, L->shown, 0, 0, "--stage %s: the lesson has %d stage%s", sel->spec, L->nstages,
                     L->nstages == 1 ? "" : "s");
}

/* Whether a selection chooses stage k (0-based). */
bool cli_stage_wanted(const StageSel *sel, int k)
{
    return !sel || (k + 1 <= LESSON_MAX_STAGES && sel->want[k + 1]);
}

/* Begin an export's budget: the pages first. */
bool cli_export_begin(ExportBudget *b, const StageSel *sel, const Lesson *L, const Trace *T, StagePager *pg, Error *err)
{
    memset(b, 0, sizeof *b);
    b->L = L;
    for (int k = 0; k < L->nstages; k++)
        if (cli_stage_wanted(sel, k)) {
            b->pages += stage_pages(L, T, k, pg);
            b->stages++;
        }
    for (int k = 0; k < L->nstages && b->pages <= EXPORT_MAX_PAGES; k++)
        if (cli_stage_wanted(sel, k)) b->bound += stage_shapes_bound(L, T, k, pg);
    if (b->pages <= EXPORT_MAX_PAGES) return true;
    return error_set(err, ERR_LIMIT, L->shown, 0, 0, "exporting %d stage%s would write %" PRId64 " pages (a page for each "
                     "sub-step, head or part), over the limit of %d an export writes; choose fewer stages with --stage, "
                     "or show fewer tokens or heads", b->stages, b->stages == 1 ? "" : "s", b->pages, EXPORT_MAX_PAGES);
}

/* Count a page's shapes. */
bool cli_export_take(ExportBudget *b, int64_t shapes, Error *err)
{
    b->shapes += shapes;
    if (b->shapes <= EXPORT_MAX_SHAPES) return true;
    return error_set(err, ERR_LIMIT, b->L->shown, 0, 0, "exporting %d stage%s would draw more than %" PRId64 " shapes "
                     "(cells, labels, lines) on its %" PRId64 " pages, the limit of an export (about 300 MB of SVG); "
                     "nothing was written; choose fewer stages with --stage, or show fewer tokens or heads", b->stages,
                     b->stages == 1 ? "" : "s", EXPORT_MAX_SHAPES, b->pages);
}

/* Load and compute a lesson; print the error and return NULL on failure. */
Lesson *app_load(const char *path, Trace **T, int *code)
{
    Error err;
    Lesson *L = lesson_load(path, &err);
    if (L) {
        *T = attn_run(L, &err);
        if (*T) return L;
        lesson_free(L);
    }
    error_print(&err, stderr);
    *code = error_exit_code(&err);
    return NULL;
}

/* --check: validate every file. */
int cli_check(char **paths, int n, void (*also)(const char *path))
{
    int code = 0;
    for (int i = 0; i < n; i++) {
        Trace *T = NULL;
        int c = 0;
        Lesson *L = app_load(paths[i], &T, &c);
        if (!L) {
            if (c > code) code = c;
            continue;
        }
        if (also) also(paths[i]);
        printf("%s: ok (%d stage%s)\n", strcmp(paths[i], FILEIO_STDIN) ? paths[i] : L->shown, L->nstages, L->nstages == 1 ? "" : "s");
        trace_free(T);
        lesson_free(L);
    }
    return code;
}

/* --dump: JSON of one lesson (the stages of sel). */
int cli_dump(const char *path, const StageSel *sel)
{
    Trace *T = NULL;
    int code = 0;
    Lesson *L = app_load(path, &T, &code);
    if (!L) return code;
    Error err;
    if (!cli_stage_fits(sel, L, &err)) {
        error_print(&err, stderr);
        trace_free(T);
        lesson_free(L);
        return error_exit_code(&err);
    }
    bool keep[LESSON_MAX_STAGES];
    for (int k = 0; k < L->nstages; k++) keep[k] = cli_stage_wanted(sel, k);
    Buf b = {0};
    dump_json_stages(L, T, keep, &b);
    fwrite(b.s, 1, b.len, stdout);      /* a failed write is reported once, when stdout is closed */
    buf_free(&b);
    trace_free(T);
    lesson_free(L);
    return 0;
}
