/*
** trace_cells.c: single numbers out of a lesson's trace, for
** tests/check_model_layer.py, whose lessons are too big for --dump.
**
**     trace_cells LESSON
**
** Loads and computes the lesson, then reads lines "SETUP NAME ROW COL"
** from standard input (setup, row and column 0-based; NAME as --dump
** names matrices, "head3.weights") and answers each with one line: the
** value with 17 significant digits, "-inf" for a masked score, or "none"
** when the setup has no such matrix or cell. Exits 2 with the lesson's
** error when it does not load.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/lesson/lesson.h"
#include "core/compute/trace.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: trace_cells LESSON < \"SETUP NAME ROW COL\" lines\n");
        return 2;
    }
    Error err;
    Lesson *L = lesson_load(argv[1], &err);
    Trace *T = L ? attn_run(L, &err) : NULL;
    if (!T) {
        error_print(&err, stderr);
        lesson_free(L);
        return 2;
    }
    char line[256], name[128];
    int s, r, c;
    while (fgets(line, sizeof line, stdin)) {
        const Mat *m = NULL;
        if (sscanf(line, "%d %127s %d %d", &s, name, &r, &c) == 4 && s >= 0 && s < T->nsetups)
            m = trace_get(T, s, name);
        if (!m || r < 0 || c < 0 || r >= m->rows || c >= m->cols) puts("none");
        else if (isinf(mat_get(m, r, c))) puts(mat_get(m, r, c) < 0 ? "-inf" : "inf");
        else printf("%.17g\n", mat_get(m, r, c));
    }
    trace_free(T);
    lesson_free(L);
    return 0;
}
