/*
** cli_core.c: --check and --dump, shared by the native and the WebAssembly
** command lines.
*/
#include "cli_core.h"
#include "core/dump.h"
#include "core/fileio.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* --dump: JSON of one lesson. */
int cli_dump(const char *path)
{
    Trace *T = NULL;
    int code = 0;
    Lesson *L = app_load(path, &T, &code);
    if (!L) return code;
    Buf b = {0};
    dump_json(L, T, &b);
    fwrite(b.s, 1, b.len, stdout);      /* a failed write is reported once, when stdout is closed */
    buf_free(&b);
    trace_free(T);
    lesson_free(L);
    return 0;
}
