/*
** start_parts.c: where the time of a one-stage export goes, part by part,
** in a new process (bench/start.c runs it for `make bench
** BENCH_ARGS=--detail`).
**
**     ATTNLAB_SPAWNED_NS=N bench_start_parts DIR LESSON
**
** does what `attnlab --export DIR LESSON` does (app_export in
** src/app/shot.c), the same calls in the same order, linked against the
** same libraries as attnlab (not SDL2), and prints one line of
** milliseconds:
**
**     start fonts lesson check layout draw encode free
**
** start is from N (CLOCK_MONOTONIC nanoseconds, read by the spawner just
** before posix_spawn) to main: exec, the dynamic loader mapping and
** relocating the libraries, the C runtime. The spawner's own wall clock
** to the exit gives what remains (exit: unmapping, the kernel's teardown).
*/
#define _DEFAULT_SOURCE
#include "app/cli_core.h"
#include "app/glyphs.h"
#include "app/lang.h"
#include "app/shot.h"
#include "core/io/fileio.h"
#include "core/stage/stage.h"
#include "sdl/export.h"
#include "sdl/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* CLOCK_MONOTONIC in milliseconds. */
static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The parts, timed. */
int main(int argc, char **argv)
{
    double t_main = now_ms();
    const char *spawned = getenv("ATTNLAB_SPAWNED_NS");
    if (argc != 3 || !spawned) {
        fprintf(stderr, "usage: ATTNLAB_SPAWNED_NS=N bench_start_parts DIR LESSON\n");
        return 2;
    }
    double t0 = strtod(spawned, NULL) / 1e6;
    fileio_start();
    Error err;
    FontSet *fonts = font_create(NULL, &err);
    if (!fonts) return 1;
    LayoutCache *lc = layout_cache_create();
    mkdir(argv[1], 0777);
    double t_fonts = now_ms();
    Trace *T = NULL;
    int code = 0;
    Lesson *L = app_load(argv[2], &T, &code);
    if (!L) return 1;
    double t_lesson = now_ms();
    app_check_glyphs(argv[2], fonts, NULL);
    app_use_language(L->language);
    double t_check = now_ms();
    ShotOpts opts = app_shot_defaults();
    LayoutFitter *fitter = layout_fitter_create(font_measure, fonts);   /* pages as the program cuts them */
    opts.pager = stage_pager_create(layout_fitter_fits, fitter);
    DrawList *d = draw_create(opts.width, opts.height);
    app_shot_layout(font_measure, fonts, lc, L, T, 0, &opts, d);
    double t_layout = now_ms();
    Offscreen *o = render_offscreen_create(d->width, d->height, fonts, &err);
    if (!o) return 1;
    render_drawlist(o->render, d, NULL);
    double t_draw = now_ms();
    char *path = app_shot_path(argv[1], L, 0, false), desc[300];
    app_shot_desc(L, 0, desc, sizeof desc);
    ExportMeta meta = { L->title, desc };
    if (export_png(o->canvas, path, &meta, &err) != 0) return 1;
    double t_encode = now_ms();
    free(path);
    render_offscreen_free(o);
    draw_free(d);
    trace_free(T);
    lesson_free(L);
    layout_cache_free(lc);
    stage_pager_free(opts.pager);
    layout_fitter_free(fitter);
    font_free(fonts);
    double t_free = now_ms();
    printf("%.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", t_main - t0, t_fonts - t_main, t_lesson - t_fonts,
           t_check - t_lesson, t_layout - t_check, t_draw - t_layout, t_encode - t_draw, t_free - t_encode);
    return 0;
}
