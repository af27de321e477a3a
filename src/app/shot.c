/*
** shot.c: rendering a stage to a PNG or SVG file without a window.
*/
#define _POSIX_C_SOURCE 200809L
#include "shot.h"
#include "app/glyphs.h"
#include "handout.h"
#include "lang.h"
#include "core/io/fileio.h"
#include "core/stage/stage.h"
#include "core/util.h"
#include "sdl/export.h"
#include "sdl/render.h"
#include "view/layout.h"
#include "view/svg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

/* The canvas within the renderer's limit, for PNG and SVG alike. */
int app_shot_check(const ShotOpts *opts, Error *err)
{
    long w = (long)opts->width * opts->scale, h = (long)opts->height * opts->scale;
    if (w >= 1 && h >= 1 && w <= RENDER_MAX_SIDE && h <= RENDER_MAX_SIDE) return 0;
    error_set(err, ERR_LIMIT, NULL, 0, 0, "--size %dx%d at --scale %d makes a %ldx%ld canvas, over the limit of %d "
              "pixels a side", opts->width, opts->height, opts->scale, w, h, RENDER_MAX_SIDE);
    return -1;
}

/* Write one stage. */
int app_shot_write(FontSet *fonts, LayoutCache *lc, const Lesson *L, const Trace *T, int k, const ShotOpts *opts,
                   const char *path, Error *err)
{
    if (app_shot_check(opts, err) != 0) return -1;
    DrawList *d = draw_create(opts->width, opts->height);
    app_shot_layout(font_measure, fonts, lc, L, T, k, opts, d);
    char desc[300];
    app_shot_desc(L, k, desc, sizeof desc);
    int r = app_shot_save_list(fonts, d, opts->svg, path, L->title, desc, err);
    draw_free(d);
    return r;
}


/* The canvas of the last PNG, kept for the next one of the same size and
** fonts: a batch export draws every stage on one canvas instead of
** allocating and clearing megabytes a picture. */
static Offscreen *canvas;
static FontSet *canvas_fonts;

/* Free the kept canvas. */
void app_shot_release(void)
{
    render_offscreen_free(canvas);
    canvas = NULL;
    canvas_fonts = NULL;
}

/* A canvas of w x h drawing with fonts: the kept one, or a new one kept
** (NULL with err filled when it cannot be made). */
static Offscreen *canvas_for(int w, int h, FontSet *fonts, Error *err)
{
    if (canvas && (canvas->w != w || canvas->h != h || canvas_fonts != fonts)) app_shot_release();
    if (!canvas) {
        canvas = render_offscreen_create(w, h, fonts, err);
        canvas_fonts = canvas ? fonts : NULL;
    }
    return canvas;
}

/* The kept canvas with d drawn on it, or NULL with err filled about the
** file name (as messages show it; NULL for none). */
static Offscreen *drawn(FontSet *fonts, const DrawList *d, const char *name, Error *err)
{
    Error why;
    Offscreen *o = canvas_for(d->width, d->height, fonts, &why);
    if (!o) {
        error_set(err, why.kind, name, 0, 0, "cannot render: %s", why.msg);
        return NULL;
    }
    render_drawlist(o->render, d, NULL);        /* what could not be drawn is missing from the picture */
    return o;
}

/* Draw a laid-out list into a PNG (or write it as SVG) at path. */
int app_shot_save_list(FontSet *fonts, const DrawList *d, bool svg, const char *path, const char *title,
                       const char *desc, Error *err)
{
    if (svg) {
        char *families = font_families(fonts, d);
        int r = svg_save(d, path, title, desc, families, err);
        free(families);
        return r;
    }
    char *shown = util_shown(path);
    Offscreen *o = drawn(fonts, d, shown, err);
    free(shown);
    ExportMeta meta = { title, desc };
    return o ? export_png(o->canvas, path, &meta, err) : -1;
}

/* A laid-out list encoded as PNG or SVG, appended to out. */
int app_shot_encode(FontSet *fonts, const DrawList *d, bool svg, const char *title, const char *desc, Buf *out,
                    Error *err)
{
    if (svg) {
        char *families = font_families(fonts, d);
        size_t len = 0;
        char *text = svg_write_fonts(d, title, desc, families, &len);
        buf_append(out, text, len);
        free(text);
        free(families);
        return 0;
    }
    Offscreen *o = drawn(fonts, d, NULL, err);
    ExportMeta meta = { title, desc };
    return o ? export_png_encode(o->canvas, &meta, out, err) : -1;
}

/* After a file was written (r 0) or not: its name on stdout (unless
** quiet), or the error on stderr. */
static void say_written(int r, const Error *err, const char *path, bool quiet)
{
    if (r != 0) {
        error_print(err, stderr);
    } else if (!quiet) {
        char *line = util_shown(path);                  /* a name with a newline stays on its line */
        printf("%s\n", line);
        free(line);
    }
}

/* The files an export of one lesson wrote, removed again when its budget
** stops it (nothing of a lesson over budget is left). */
typedef struct Written {
    char **paths;
    int n;
} Written;

/* Remove what w lists and forget it. */
static void written_undo(Written *w)
{
    for (int i = 0; i < w->n; i++) {
        unlink(w->paths[i]);
        free(w->paths[i]);
    }
    w->n = 0;
}

/* Keep what w lists, printing each name unless quiet, and forget it. */
static void written_keep(Written *w, bool quiet)
{
    for (int i = 0; i < w->n; i++) {
        say_written(0, NULL, w->paths[i], quiet);
        free(w->paths[i]);
    }
    free(w->paths);
    memset(w, 0, sizeof *w);
}

/* Write every sub-step of stage k (one file when it has none), each page
** laid out, counted against the budget b, then written and listed in w;
** 0, 1 (I/O) or 2 (over budget). */
static int export_stage(FontSet *fonts, LayoutCache *lc, const char *dir, const Lesson *L, const Trace *T, int k,
                        const ShotOpts *opts, ExportBudget *b, Written *w)
{
    int n = stage_pages(L, T, k, opts->pager), code = 0;
    char desc[300];
    app_shot_desc(L, k, desc, sizeof desc);
    DrawList *d = draw_create(opts->width, opts->height);
    for (int t = 0; t < n && !code; t++) {
        ShotOpts o = *opts;
        o.step = t;
        StageOpts so = { 0, t, false, opts->pager };
        View *page = stage_view_with(L, T, k, &so);
        char *path = app_shot_step_path(dir, L, k, t, n, page->step_name, opts->svg);
        stage_view_free(page);
        Error err;
        int r = app_shot_check(&o, &err);
        if (r == 0) {
            app_shot_layout(font_measure, fonts, lc, L, T, k, &o, d);
            bool fits = !o.svg || cli_export_take(b, draw_shapes(d), &err);     /* a PNG's bytes do not grow with them */
            r = fits ? app_shot_save_list(fonts, d, o.svg, path, L->title, desc, &err) : -1;
        }
        say_written(r, &err, path, true);       /* the names once the lesson is whole (written_keep) */
        if (r == 0) {
            w->paths = xrealloc(w->paths, sizeof *w->paths * (size_t)(w->n + 1));
            w->paths[w->n++] = path;
        } else {
            code = error_exit_code(&err);
            free(path);
        }
    }
    draw_free(d);
    return code;
}

/*
** Whether the vector pictures (SVG, PDF) of the stages sel chooses draw
** within the budget: when its bound says they may not, every page is laid
** out and its shapes counted before anything is written, so that a lesson
** over the budget costs its layouts, not hundreds of MB and a minute of
** writing. false with err filled when they draw too many.
*/
static bool export_vectors_fit(FontSet *fonts, LayoutCache *lc, const Lesson *L, const Trace *T, const StageSel *sel,
                               const ShotOpts *opts, const ExportBudget *b, Error *err)
{
    if (b->bound <= EXPORT_MAX_SHAPES) return true;
    ExportBudget dry = *b;
    DrawList *d = draw_create(opts->width, opts->height);
    bool fits = true;
    for (int k = 0; k < L->nstages && fits; k++) {
        if (!cli_stage_wanted(sel, k)) continue;
        int n = stage_pages(L, T, k, opts->pager);
        for (int t = 0; t < n && fits; t++) {
            ShotOpts o = *opts;
            o.step = t;
            app_shot_layout(font_measure, fonts, lc, L, T, k, &o, d);
            fits = cli_export_take(&dry, draw_shapes(d), err);
        }
    }
    draw_free(d);
    return fits;
}

/* The lesson as one PDF, DIR/<lesson>.pdf (handout.h), within budget b;
** 0, 1 (I/O) or 2 (over budget). */
static int export_handout(FontSet *fonts, LayoutCache *lc, const char *dir, const Lesson *L, const Trace *T,
                          const ShotOpts *opts, ExportBudget *b, bool quiet)
{
    char *path = app_handout_path(dir, L);
    Error err;
    int pages, r = app_handout_write(fonts, lc, L, T, opts, b, path, &pages, &err);
    say_written(r, &err, path, quiet);
    free(path);
    return r != 0 ? error_exit_code(&err) : 0;
}

/* Create dir (one level) if it is missing; 0, or -1 with err filled. A
** symbolic link whose target does not exist is said to be one (mkdir
** would only say "File exists"). */
int app_shot_ensure_dir(const char *dir, Error *err)
{
    struct stat st;
    char *shown = util_shown(dir);
    int r = -1;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode)) r = 0;
        else error_set(err, ERR_IO, shown, 0, 0, "exists and is not a directory");
    } else if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(dir, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        char *to = util_shown(target);
        error_set(err, ERR_IO, shown, 0, 0, "is a symbolic link to %s, which does not exist: create that directory, "
                  "or remove the link", to);
        free(to);
    } else if (mkdir(dir, 0777) == 0) {
        r = 0;
    } else {
        error_set(err, ERR_IO, shown, 0, 0, "cannot create the directory: %s", strerror(errno));
    }
    free(shown);
    return r;
}

/*
** `--export -`: the one picture the selection makes, on standard output.
** More than one (no --stage in a lesson of several stages, or a stage
** with sub-steps) is an error, and so is a PNG for a terminal. 0, or the
** exit code with the error printed.
*/
static int export_stdout(FontSet *fonts, LayoutCache *lc, const Lesson *L, const Trace *T, const ShotOpts *opts,
                         const StageSel *sel)
{
    Error err;
    int k = -1, chosen = 0;
    for (int i = 0; i < L->nstages; i++)
        if (cli_stage_wanted(sel, i)) { k = k < 0 ? i : k; chosen++; }
    int steps = k >= 0 ? stage_pages(L, T, k, opts->pager) : 0;
    if (chosen != 1)
        error_set(&err, ERR_INVALID, L->shown, 0, 0, "--export - writes one picture to standard output, but %s; "
                  "choose one stage with --stage N", sel ? "--stage chooses several stages" : "the lesson has several stages");
    else if (steps > 1)
        error_set(&err, ERR_INVALID, L->shown, 0, 0, "--export -: stage %d (%s) unfolds into %d pictures, one per "
                  "sub-step; export it to a directory", k + 1, lesson_stage_name(L->stages[k].id), steps);
    else if (!opts->svg && isatty(STDOUT_FILENO))
        error_set(&err, ERR_INVALID, NULL, 0, 0, "--export - would write a PNG to the terminal; redirect standard "
                  "output to a file or a pipe (or use --format svg)");
    else if (app_shot_check(opts, &err) == 0) {
        DrawList *d = draw_create(opts->width, opts->height);
        app_shot_layout(font_measure, fonts, lc, L, T, k, opts, d);
        char desc[300];
        app_shot_desc(L, k, desc, sizeof desc);
        Buf b = {0};
        int r = app_shot_encode(fonts, d, opts->svg, L->title, desc, &b, &err);
        if (r == 0) fwrite(b.s, 1, b.len, stdout);     /* a failed write is reported when stdout is closed */
        buf_free(&b);
        draw_free(d);
        if (r == 0) return 0;
    }
    error_print(&err, stderr);
    return error_exit_code(&err);
}

/* Every stage of every lesson to dir (or the one picture to standard
** output for "-"); headless, its stages cut into pages as its fonts lay
** them out. */
int app_export(const char *dir, char **paths, int n, const ShotOpts *given, const StageSel *sel, const char *font,
               bool quiet)
{
    bool to_stdout = !strcmp(dir, FILEIO_STDIN);
    Error err;
    FontSet *fonts = font_create(font, &err);
    if (!fonts) {
        error_print(&err, stderr);
        return error_exit_code(&err);
    }
    int code = 0;
    if (!to_stdout && app_shot_ensure_dir(dir, &err) != 0) {
        error_print(&err, stderr);
        code = error_exit_code(&err);
    }
    LayoutCache *lc = layout_cache_create();
    LayoutFitter *fitter = layout_fitter_create(font_measure, fonts);
    ShotOpts o = *given;
    const ShotOpts *opts = &o;
    if (!o.pager) o.pager = stage_pager_create(layout_fitter_fits, fitter);
    for (int i = 0; i < n && code != 1; i++) {
        Trace *T = NULL;
        int c = 0;
        Lesson *L = app_load(paths[i], &T, &c);
        if (!L) {
            if (c > code) code = c;
            continue;
        }
        app_check_glyphs(paths[i], fonts, NULL);
        app_use_language(L->language);
        ExportBudget budget;
        bool vector = opts->svg || opts->pdf;
        if (!cli_stage_fits(sel, L, &err) || (!to_stdout && !cli_export_begin(&budget, opts->pdf ? NULL : sel, L, T, opts->pager, &err))
            || (!to_stdout && vector && !export_vectors_fit(fonts, lc, L, T, opts->pdf ? NULL : sel, opts, &budget, &err))) {
            error_print(&err, stderr);              /* nothing of this lesson written */
            if (error_exit_code(&err) > code) code = error_exit_code(&err);
        } else if (to_stdout) {
            c = export_stdout(fonts, lc, L, T, opts, sel);
            if (c > code) code = c;
        } else if (opts->pdf) {
            c = export_handout(fonts, lc, dir, L, T, opts, &budget, quiet);
            if (c == 1 || (c > code && code != 1)) code = c;
        } else {
            Written w = { NULL, 0 };
            for (int k = 0; k < L->nstages && !c; k++)
                if (cli_stage_wanted(sel, k)) c = export_stage(fonts, lc, dir, L, T, k, opts, &budget, &w);
            if (c == 2) written_undo(&w);           /* over budget: none of the lesson's pictures stays */
            written_keep(&w, quiet);
            if (c == 1 || (c > code && code != 1)) code = c;
        }
        trace_free(T);
        lesson_free(L);
    }
    if (o.pager != given->pager) stage_pager_free(o.pager);
    layout_fitter_free(fitter);
    layout_cache_free(lc);
    app_shot_release();
    font_free(fonts);
    return code;
}

