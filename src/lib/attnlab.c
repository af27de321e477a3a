/*
** attnlab.c: libattnlab's public functions (attnlab.h) over the core: the
** lesson parser with arrays in memory (lesson_parse_with), the trace
** (attn_run), the stage views and their pager, the layout measured with
** the program's fonts, and the PNG and SVG encoders the export uses. An
** attnlab handle owns its lesson and trace, and, made the first time a
** page is asked for, the fonts, the layout cache and the pager, which it
** keeps for the next call as a batch export does.
*/
#include "attnlab.h"
#include "app/picture.h"
#include "app/cli_core.h"
#include "app/lang.h"
#include "app/shot.h"
#include "core/compute/attn.h"
#include "core/error.h"
#include "core/lesson/lesson.h"
#include "core/stage/dump.h"
#include "core/stage/explain.h"
#include "core/stage/stage.h"
#include "core/util.h"
#include "sdl/font.h"
#include "view/cmap.h"
#include "view/layout.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct attnlab {
    Lesson *L;
    Trace *T;
    FontSet *fonts;             /* made by the first call that lays out a page (need_fonts) */
    LayoutCache *lc;
    LayoutFitter *fitter;
    StagePager *pager;
};

/* An internal error as the public one (err may be NULL). */
static void give_error(const Error *e, attnlab_error *err)
{
    if (!err) return;
    static const int kinds[] = { [ERR_NONE] = ATTNLAB_OK, [ERR_IO] = ATTNLAB_IO, [ERR_INVALID] = ATTNLAB_INVALID,
                                 [ERR_LIMIT] = ATTNLAB_LIMIT, [ERR_RUNTIME] = ATTNLAB_RUNTIME };
    memset(err, 0, sizeof *err);
    err->kind = e->kind <= ERR_RUNTIME ? kinds[e->kind] : ATTNLAB_RUNTIME;
    err->line = e->line;
    err->col = e->col;
    snprintf(err->file, sizeof err->file, "%s", e->file);
    snprintf(err->message, sizeof err->message, "%s", e->msg);
    error_format(e, err->text, sizeof err->text);
}

/* Fill err with an error about the call (invalid, about no file); returns -1. */
static int call_error(attnlab_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int call_error(attnlab_error *err, const char *fmt, ...)
{
    Error e;
    error_set(&e, ERR_INVALID, NULL, 0, 0, "%s", "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof e.msg, fmt, ap);
    va_end(ap);
    give_error(&e, err);
    return -1;
}

/* No error in err (which may be NULL). */
static void no_error(attnlab_error *err)
{
    if (err) memset(err, 0, sizeof *err);
}

/* The version the library was built as. */
const char *attnlab_version(void)
{
    return ATTNLAB_VERSION;
}

/* Whether array a may be lent: float32, 2-D, every number finite (one
** that is not is copied, and the copy's reading names what is wrong). */
static bool lendable(const attnlab_array *a)
{
    if (!a->dtype || strcmp(a->dtype, "<f4") || a->ndim != 2 || !a->data || a->shape[0] < 1 || a->shape[1] < 1
        || a->shape[0] > INT32_MAX || a->shape[1] > INT32_MAX)
        return false;                           /* the parser says what is wrong with a shape */
    int64_t n = a->shape[0] * a->shape[1];
    return a->nbytes == (size_t)n * sizeof(float) && (uintptr_t)a->data % sizeof(float) == 0
        && mat_floats_finite(a->data, n);
}

/* The lesson parsed with the arrays given (NULL with err filled); lend:
** float32 matrices read where they lie (attnlab_open_lending). */
static Lesson *parse(const char *text, size_t len, const char *name, const attnlab_array *arrays, int n, bool lend,
                     attnlab_error *err)
{
    Error e;
    no_error(err);
    if (!text || n < 0 || (n > 0 && !arrays)) {
        call_error(err, "attnlab_open: %s", !text ? "no text" : "no arrays for the count given");
        return NULL;
    }
    LessonArray *given = n > 0 ? xcalloc((size_t)n, sizeof *given) : NULL;
    long (*shapes)[4] = n > 0 ? xcalloc((size_t)n, sizeof *shapes) : NULL;
    for (int i = 0; i < n; i++) {
        const attnlab_array *a = &arrays[i];
        for (int d = 0; d < a->ndim && d < 4; d++) shapes[i][d] = (long)a->shape[d];
        bool lent = lend && lendable(a);
        given[i] = (LessonArray){ a->file, a->key, a->dtype, a->ndim, shapes[i], a->data, a->nbytes,
                                  lent, false, lent ? shapes[i][1] : 0, lent };
    }
    Lesson *L = lesson_parse_with(text, len, name && name[0] ? name : "-", given, n, &e);
    free(given);
    free(shapes);
    if (!L) give_error(&e, err);
    return L;
}

/* Check a lesson without computing it. */
int attnlab_check(const char *text, size_t len, const char *name, const attnlab_array *arrays, int n,
                  attnlab_error *err)
{
    Lesson *L = parse(text, len, name, arrays, n, false, err);
    int r = L ? 0 : -1;
    lesson_free(L);
    return r;
}

/* Parse and compute a lesson, its `load` lines reading the arrays given
** (lend: float32 matrices read where they lie). */
static attnlab *open_with(const char *text, size_t len, const char *name, const attnlab_array *arrays, int n,
                          bool lend, attnlab_error *err)
{
    Error e;
    Lesson *L = parse(text, len, name, arrays, n, lend, err);
    if (!L) return NULL;
    Trace *T = attn_run(L, &e);
    if (!T) {
        give_error(&e, err);
        lesson_free(L);
        return NULL;
    }
    attnlab *a = xcalloc(1, sizeof *a);
    a->L = L;
    a->T = T;
    return a;
}

/* Parse and compute a lesson, its `load` lines reading the arrays given. */
attnlab *attnlab_open(const char *text, size_t len, const char *name, const attnlab_array *arrays, int n,
                      attnlab_error *err)
{
    return open_with(text, len, name, arrays, n, false, err);
}

/* The same, float32 matrices lent for the lesson's life. */
attnlab *attnlab_open_lending(const char *text, size_t len, const char *name, const attnlab_array *arrays, int n,
                              attnlab_error *err)
{
    return open_with(text, len, name, arrays, n, true, err);
}

/* Close a lesson and what it made. */
void attnlab_close(attnlab *a)
{
    if (!a) return;
    if (a->fonts) app_shot_release();       /* the encoder's canvas holds the fonts */
    stage_pager_free(a->pager);
    layout_fitter_free(a->fitter);
    layout_cache_free(a->lc);
    font_free(a->fonts);
    trace_free(a->T);
    lesson_free(a->L);
    free(a);
}

/* The lesson's title. */
const char *attnlab_title(const attnlab *a)
{
    return a && a->L->title ? a->L->title : "";
}

/* How many stages the lesson has. */
int attnlab_stage_count(const attnlab *a)
{
    return a ? a->L->nstages : 0;
}

/* Whether k (from 1) is a stage of a. */
static bool has_stage(const attnlab *a, int k)
{
    return a && k >= 1 && k <= a->L->nstages;
}

/* Stage k's id. */
const char *attnlab_stage_id(const attnlab *a, int k)
{
    return has_stage(a, k) ? lesson_stage_name(a->L->stages[k - 1].id) : NULL;
}

/* Stage k's title (its own, or its kind's). */
const char *attnlab_stage_title(const attnlab *a, int k)
{
    if (!has_stage(a, k)) return NULL;
    const Stage *st = &a->L->stages[k - 1];
    return st->title ? st->title : stage_default_title(st->id);
}

/* The setup stage k shows. */
int attnlab_stage_setup(const attnlab *a, int k)
{
    return has_stage(a, k) ? a->L->stages[k - 1].setup + 1 : 0;
}

/* The fonts, layout cache and pager, made on the first call that needs
** them; false with err filled when no font is found. */
static bool need_fonts(attnlab *a, attnlab_error *err)
{
    if (a->fonts) return true;
    Error e;
    a->fonts = font_create(NULL, &e);
    if (!a->fonts) {
        give_error(&e, err);
        return false;
    }
    a->lc = layout_cache_create();
    a->fitter = layout_fitter_create(font_measure, a->fonts);
    a->pager = stage_pager_create(layout_fitter_fits, a->fitter);
    return true;
}

/* The lesson's language for what is drawn (its `language:`, else the
** user's), as the program's export sets it for each lesson. */
static void use_language(const attnlab *a)
{
    app_use_language(a->L->language);
}

/* Check stage k of a for a call named who; -1 with err filled if it is not one. */
static int check_stage(const attnlab *a, int k, const char *who, attnlab_error *err)
{
    no_error(err);
    if (!a) return call_error(err, "%s: no lesson", who);
    if (!has_stage(a, k))
        return k == 0 ? call_error(err, "%s: stages count from 1", who)
                      : call_error(err, "%s: the lesson has no stage %d", who, k);
    return 0;
}

/* The pages of stage k. */
int attnlab_page_count(attnlab *a, int k, attnlab_error *err)
{
    if (check_stage(a, k, "attnlab_page_count", err) < 0 || !need_fonts(a, err)) return -1;
    use_language(a);
    return stage_pages(a->L, a->T, k - 1, a->pager);
}

/* Page p of stage k checked: 0, or -1 with err filled. */
static int check_page(attnlab *a, int k, int p, const char *who, attnlab_error *err)
{
    if (check_stage(a, k, who, err) < 0 || !need_fonts(a, err)) return -1;
    use_language(a);
    int n = stage_pages(a->L, a->T, k - 1, a->pager);
    if (p < 1 || p > n)
        return call_error(err, "%s: stage %d has %d page%s; page %d is not one", who, k, n, n == 1 ? "" : "s", p);
    return 0;
}

/* The name --export gives page p of stage k. */
char *attnlab_page_name(attnlab *a, int k, int p, attnlab_error *err)
{
    if (check_page(a, k, p, "attnlab_page_name", err) < 0) return NULL;
    StageOpts o = { 0, p - 1, false, a->pager };
    View *v = stage_view_with(a->L, a->T, k - 1, &o);
    char *name = xstrdup(v && v->nsteps > 1 && v->step_name ? v->step_name : "");
    stage_view_free(v);
    return name;
}

/* The program's defaults for a picture. */
void attnlab_render_defaults(attnlab_render_opts *opts)
{
    ShotOpts d = app_shot_defaults();
    *opts = (attnlab_render_opts){ d.width, d.height, d.scale, d.dark, d.svg, NULL };
}

/* Draw page p of stage k. */
int attnlab_render(attnlab *a, int k, int p, const attnlab_render_opts *opts, unsigned char **out, size_t *len,
                   attnlab_error *err)
{
    if (out) *out = NULL;
    if (len) *len = 0;
    if (!out || !len) return call_error(err, "attnlab_render: no place for the picture");
    if (check_page(a, k, p, "attnlab_render", err) < 0) return -1;
    attnlab_render_opts ro;
    attnlab_render_defaults(&ro);
    if (opts) ro = *opts;
    if (ro.cmap && !cmap_get(ro.cmap))
        return call_error(err, "attnlab_render: no colormap called '%s'", ro.cmap);
    ShotOpts so = app_shot_defaults();
    so.width = ro.width;
    so.height = ro.height;
    so.scale = ro.scale;
    so.dark = ro.dark != 0;
    so.svg = ro.svg != 0;
    so.cmap = ro.cmap;
    so.step = p - 1;
    so.pager = a->pager;
    Error e;
    if (ro.scale < 1 || ro.scale > 4) {
        call_error(err, "attnlab_render: scale %d; it is 1 to 4", ro.scale);
        return -1;
    }
    if (app_shot_check(&so, &e) != 0) {
        give_error(&e, err);
        return -1;
    }
    DrawList *d = draw_create(so.width, so.height);
    app_shot_layout(font_measure, a->fonts, a->lc, a->L, a->T, k - 1, &so, d);
    char desc[300];
    app_shot_desc(a->L, k - 1, desc, sizeof desc);
    Buf b = {0};
    int r = app_shot_encode(a->fonts, d, so.svg, a->L->title, desc, &b, &e);
    draw_free(d);
    if (r != 0) {
        buf_free(&b);
        give_error(&e, err);
        return -1;
    }
    *len = b.len;
    *out = (unsigned char *)(b.s ? buf_take(&b) : xstrdup(""));
    return 0;
}

/* --dump's JSON of the stages a list chooses, or of every stage. */
int attnlab_dump(attnlab *a, const char *stages, char **json, size_t *len, attnlab_error *err)
{
    if (json) *json = NULL;
    if (len) *len = 0;
    no_error(err);
    if (!a || !json || !len) return call_error(err, "attnlab_dump: no lesson, or no place for the JSON");
    StageSel sel;
    Error e;
    if (stages && (cli_stage_parse(stages, &sel, &e) != 0 || !cli_stage_fits(&sel, a->L, &e))) {
        give_error(&e, err);
        return -1;
    }
    app_use_language(NULL);             /* as `attnlab --dump` writes it: in the user's language */
    bool *keep = xcalloc((size_t)a->L->nstages + 1, sizeof *keep);
    for (int k = 0; k < a->L->nstages; k++) keep[k] = cli_stage_wanted(stages ? &sel : NULL, k);
    Buf b = {0};
    dump_json_stages(a->L, a->T, keep, &b);
    free(keep);
    *len = b.len;
    *json = b.s ? buf_take(&b) : xstrdup("");
    return 0;
}

/* A matrix of stage k's setup by its --dump name. */
int attnlab_matrix(attnlab *a, int k, const char *name, int *rows, int *cols, double **data, attnlab_error *err)
{
    if (data) *data = NULL;
    if (check_stage(a, k, "attnlab_matrix", err) < 0) return -1;
    if (!name || !rows || !cols || !data)
        return call_error(err, "attnlab_matrix: no name, or no place for the matrix");
    const Mat *m = trace_get(a->T, a->L->stages[k - 1].setup, name);
    if (!m) return call_error(err, "attnlab_matrix: stage %d's setup has no matrix called '%s'", k,
                              name);
    *rows = m->rows;
    *cols = m->cols;
    size_t n = (size_t)m->rows * (size_t)m->cols;         /* (a Mat's rows lie one after the other) */
    *data = xmalloc(sizeof **data * (n ? n : 1));
    memcpy(*data, mat_data(m), sizeof **data * n);
    return 0;
}

/* The arithmetic behind one cell. */
char *attnlab_explain(attnlab *a, int k, const char *name, int row, int col, attnlab_error *err)
{
    if (check_stage(a, k, "attnlab_explain", err) < 0) return NULL;
    if (!name) {
        call_error(err, "attnlab_explain: no matrix named");
        return NULL;
    }
    int s = a->L->stages[k - 1].setup;
    const Mat *m = trace_get(a->T, s, name);
    if (!m) {
        call_error(err, "attnlab_explain: stage %d's setup has no matrix called '%s'", k, name);
        return NULL;
    }
    if (row < 1 || row > m->rows || col < 1 || col > m->cols) {
        call_error(err, "attnlab_explain: %s is %dx%d; it has no cell (%d, %d)", name, m->rows, m->cols, row, col);
        return NULL;
    }
    char *text = explain_cell(a->L, a->T, s, name, row - 1, col - 1);
    if (!text) call_error(err, "attnlab_explain: no arithmetic for %s", name);
    return text;
}

/* Free what the library returned. */
void attnlab_free(void *p)
{
    free(p);
}
