/*
** tstages.c: every stage of every bundled lesson (tstages.h).
*/
#include "tstages.h"
#include "suites.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Walk ../lessons. */
int tstages_each(TStageFn fn, void *ctx)
{
    DIR *dir = opendir("../lessons");
    ck_assert_ptr_nonnull(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (!strstr(e->d_name, ".lesson")) continue;
        char path[600];
        snprintf(path, sizeof path, "../lessons/%s", e->d_name);
        LessonError err;
        Lesson *L = lesson_load(path, &err);
        ck_assert_msg(L != NULL, "%s", err.msg);
        Trace *T = attn_run(L, &err);
        ck_assert_msg(T != NULL, "%s", err.msg);
        for (int k = 0; k < L->nstages; k++, n++) {
            View *v = stage_view(L, T, k);
            fn(e->d_name, L, T, k, v, ctx);
            stage_view_free(v);
        }
        trace_free(T);
        lesson_free(L);
    }
    closedir(dir);
    return n;
}
