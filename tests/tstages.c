/*
** tstages.c: every stage of every lesson in a directory, a lesson given as
** text, every sub-step of a stage (tstages.h).
*/
#include "tstages.h"
#include "suites.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Parse and compute the lesson text, or fail the test. */
Trace *tstages_run(const char *text, const char *name, Lesson **l)
{
    Error err;
    *l = lesson_parse(text, strlen(text), name, &err);
    ck_assert_msg(*l != NULL, "%s", eline(&err));
    Trace *t = attn_run(*l, &err);
    ck_assert_msg(t != NULL, "%s", eline(&err));
    return t;
}

/* The pager and the fitter it asks (one a test process: Check forks each test). */
static StagePager *pager;
static LayoutFitter *fitter;

/* Pages as measure lays them out. */
void tstages_use_pager(MeasureFn measure, void *ctx)
{
    stage_pager_free(pager);
    layout_fitter_free(fitter);
    fitter = layout_fitter_create(measure, ctx);
    pager = stage_pager_create(layout_fitter_fits, fitter);
}

/* The suites' pager. */
StagePager *tstages_pager(void)
{
    if (!pager) tstages_use_pager(NULL, NULL);
    return pager;
}

/* Stage k, paged by the suites' pager. */
View *tstages_view(const Lesson *L, const Trace *T, int k)
{
    StageOpts o = { 0, 0, false, tstages_pager() };
    return stage_view_with(L, T, k, &o);
}

/* Walk dirname. */
int tstages_each(const char *dirname, TStageFn fn, void *ctx)
{
    DIR *dir = opendir(dirname);
    ck_assert_ptr_nonnull(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (!strstr(e->d_name, ".lesson")) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dirname, e->d_name);
        Error err;
        Lesson *L = lesson_load(path, &err);
        ck_assert_msg(L != NULL, "%s", eline(&err));
        Trace *T = attn_run(L, &err);
        ck_assert_msg(T != NULL, "%s", eline(&err));
        for (int k = 0; k < L->nstages; k++, n++) {
            StageOpts o = { 0, 0, false, tstages_pager() };
            View *v = stage_view_with(L, T, k, &o);
            fn(e->d_name, L, T, k, v, ctx);
            stage_view_free(v);
        }
        trace_free(T);
        lesson_free(L);
    }
    closedir(dir);
    return n;
}

/* Every sub-step of stage k of L, of head (0: every head), given to fn. */
void tstages_each_step(const Lesson *L, const Trace *T, int k, int head, TStepFn fn, void *ctx)
{
    StageOpts o = { head, 0, false, tstages_pager() };
    View *v = stage_view_with(L, T, k, &o);
    int n = v->nsteps;
    fn(v, ctx);
    stage_view_free(v);
    for (int s = 1; s < n; s++) {
        o.step = s;
        v = stage_view_with(L, T, k, &o);
        fn(v, ctx);
        stage_view_free(v);
    }
}
