/*
** handout.c: a lesson's pictures as the pages of one PDF (handout.h).
*/
#include "handout.h"
#include "app/glyphs.h"
#include "core/io/fileio.h"
#include "core/stage/stage.h"
#include "core/util.h"
#include "sdl/pdf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* DIR/<lesson>.pdf. */
char *app_handout_path(const char *dir, const Lesson *L)
{
    Buf b = { 0 };
    buf_printf(&b, "%s/%s.pdf", dir, L->name);
    return buf_take(&b);
}

/* The outline's entry for a page: "3  Scores (t2)". */
static void page_name(const Lesson *L, int k, const View *v, char *out, size_t n)
{
    const char *title = L->stages[k].title ? L->stages[k].title : stage_default_title(L->stages[k].id);
    const char *step = v->step_label ? v->step_label : v->step_name;       /* "head 2 of 4", else "t3" */
    if (v->nsteps > 1 && step) snprintf(out, n, "%d  %s (%s)", k + 1, title, step);
    else snprintf(out, n, "%d  %s", k + 1, title);
}

/*
** The date a handout carries: SOURCE_DATE_EPOCH when set (reproducible
** builds), else when the lesson's file was last changed (standard input:
** none), so that the same lesson always gives the same bytes.
*/
static long long handout_date(const Lesson *L)
{
    const char *env = getenv("SOURCE_DATE_EPOCH");
    char *end;
    if (env && *env) {
        long long v = strtoll(env, &end, 10);
        if (!*end && v >= 0) return v;
    }
    struct stat st;
    return strcmp(L->path, FILEIO_STDIN) && stat(L->path, &st) == 0 ? (long long)st.st_mtime : 0;
}

/* Every picture, a page each. */
int app_handout_write(FontSet *fonts, LayoutCache *lc, const Lesson *L, const Trace *T, const ShotOpts *opts,
                      ExportBudget *b, const char *path, int *pages, Error *err)
{
    *pages = 0;
    if (app_shot_check(opts, err) != 0) return -1;
    PdfDoc *doc = pdf_create(fonts, L->title, handout_date(L), err);
    if (!doc) return -1;
    DrawList *d = draw_create(opts->width, opts->height);
    int r = 0;
    for (int k = 0; k < L->nstages && r == 0; k++) {
        int steps = stage_pages(L, T, k, opts->pager);
        for (int t = 0; t < steps && r == 0; t++) {
            ShotOpts o = *opts;
            o.step = t;
            StageOpts so = { 0, t, false, opts->pager };
            View *v = stage_view_with(L, T, k, &so);
            char name[400];
            page_name(L, k, v, name, sizeof name);
            stage_view_free(v);
            app_shot_layout(font_measure, fonts, lc, L, T, k, &o, d);
            if (!cli_export_take(b, draw_shapes(d), err)) r = -1;
            else r = pdf_page(doc, d, name);
        }
    }
    draw_free(d);
    const PdfUndrawn *undrawn;
    int n = pdf_undrawn(doc, &undrawn);
    app_warn_undrawn(L->path, undrawn, n);
    *pages = pdf_pages(doc);
    if (r == 0) r = pdf_save(doc, path, err);
    pdf_free(doc);
    return r;
}
