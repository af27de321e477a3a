/*
** sentence.c: what a typed sentence costs in the window, from Enter to
** its frame drawn (bench/checkpoint.py runs it for `make bench`).
**
**     bench_sentence FOLDER BEFORE SENTENCE RUNS
**
** opens the lesson `attnlab --model FOLDER BEFORE` makes in an AppState,
** as the window does (its fonts, its measure, its pages), draws its first
** frame, then RUNS times: reads BEFORE again (not timed), then times what
** Enter in the sentence field does with SENTENCE (app_read_sentence: the
** lesson made again, every layer computed, the same stage and head) and
** the frame after it (app_frame laid out, render_drawlist drawn into
** pixels, as the window draws before it presents). Prints the median and
** the least of the runs in milliseconds, and the sentence's tokens.
*/
#define _DEFAULT_SOURCE
#include "app/prompt.h"
#include "app/frame.h"
#include "app/state.h"
#include "core/io/fileio.h"
#include "core/stage/stage.h"
#include "core/util.h"
#include "sdl/render.h"
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One frame of the window's size, laid out and drawn. */
static void frame(AppState *a, FontSet *fonts, DrawList *d, Offscreen *o)
{
    app_frame(a, d->width, d->height, font_measure, fonts, d);
    render_drawlist(o->render, d, NULL);
}

/* The runs, timed. */
int main(int argc, char **argv)
{
    if (argc != 5 || atoi(argv[4]) < 1) {
        fprintf(stderr, "usage: bench_sentence FOLDER BEFORE SENTENCE RUNS\n");
        return 2;
    }
    int runs = atoi(argv[4]);
    fileio_start();
    Error err;
    FontSet *fonts = font_create(NULL, &err);
    if (!fonts) return 1;
    char text[4096];
    snprintf(text, sizeof text, "title: a sentence\n\n[setup]\nmodel: \"%s\"\ntext: \"%s\"\n", argv[1], argv[2]);
    AppState *a = app_create();
    app_set_measure(a, font_measure, fonts);
    if (app_open_text(a, "sentence.lesson", text, strlen(text)) != 0 || !a->view) {
        fprintf(stderr, "bench_sentence: the lesson of %s did not open\n", argv[1]);
        return 1;
    }
    DrawList *d = draw_create(1280, 720);
    Offscreen *o = render_offscreen_create(d->width, d->height, fonts, &err);
    if (!o) return 1;
    frame(a, fonts, d, o);
    double *ms = xmalloc(sizeof *ms * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        if (!app_read_sentence(a, argv[2])) return 1;
        frame(a, fonts, d, o);
        double t = bench_now_ms();
        if (!app_read_sentence(a, argv[3])) return 1;
        frame(a, fonts, d, o);
        ms[r] = bench_now_ms() - t;
    }
    double median = bench_median(ms, runs);         /* sorts: ms[0] is the least */
    printf("%.1f %.1f %d\n", median, ms[0], a->doc->L->setups[0].nq);
    free(ms);
    render_offscreen_free(o);
    draw_free(d);
    app_free(a);
    font_free(fonts);
    return 0;
}
