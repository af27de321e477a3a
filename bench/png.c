/*
** png.c: the PNG encoders side by side, printed as "name value unit" like
** bench.c's figures (`make bench` runs both; docs/performance.md).
**
** Every stage of lessons/01-tour.lesson at 1280x720 (the --export default)
** is drawn once; then, round after round, each encoder encodes all of them,
** the encoders taking turns so that a change of load hits them alike:
**
**   png_isal_ms            export.c's encoder: rows converted and deflated
**                          by ISA-L's igzip at level 1, chunks, CRCs
**   png_libpng_ms          the portable encoder: libpng with zlib at level 1
**   png_libdeflate_L_ms    the rows (export_png_rows) deflated by libdeflate
**                          at level L (1, 2, 4, 6, 9) into a zlib stream
**
** each the median over rounds of a round's time divided by the number of
** pictures, and png_*_kb the size of all of them (libdeflate's without the
** few hundred bytes of chunks). libdeflate is deterministic by design (one
** call, whole buffers, no state kept between calls); it is here because its
** output could replace ISA-L's if igzip's bytes ever depended on anything
** but the pixels again (see "The first byte of a stream" in the doc).
**
** Usage: bench_png [--lessons DIR] [--quick]
*/
#include "app/shot.h"
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"
#include "core/util.h"
#include "sdl/export.h"
#include "sdl/font.h"
#include "sdl/render.h"
#include "view/draw.h"
#include "view/layout.h"
#include "timing.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PICS 32
#define MAX_ROUNDS 64

/* Say what went wrong and stop. */
/* The errors of the font, render and export calls, for messages. */
static Error ferr, rerr, xerr;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_png: error: %s: %s\n", what, why);
    exit(1);
}

/* One encoder: its figure's name, and how it encodes a picture (appending
** to out; level for libdeflate). */
typedef struct Encoder {
    char name[32];
    int kind;                   /* 0 ISA-L, 1 libpng, 2 libdeflate */
    int level;
    double ms[MAX_ROUNDS];
    size_t bytes;
} Encoder;

/* Encode canvas s with e; the size of what it wrote. */
static size_t encode(Encoder *e, const Canvas *s, Buf *out, Buf *rows, struct libdeflate_compressor **c)
{
    static char *z;                 /* libdeflate's output */
    static size_t zcap;
    buf_clear(out);
    ExportMeta meta = { "bench", "a stage" };
    if (e->kind < 2) {
        if (export_png_encode_with(s, &meta, e->kind == 0 ? EXPORT_ENC_ISAL : EXPORT_ENC_LIBPNG, out, &xerr) != 0)
            die(e->name, xerr.msg);
        return out->len;
    }
    buf_clear(rows);
    if (export_png_rows(s, rows, &xerr) != 0) die(e->name, xerr.msg);
    size_t cap = libdeflate_zlib_compress_bound(c[e->level], rows->len);
    if (cap > zcap) {
        free(z);
        z = xmalloc(cap);
        zcap = cap;
    }
    size_t n = libdeflate_zlib_compress(c[e->level], rows->s, rows->len, z, zcap);
    if (n == 0) die(e->name, "libdeflate found no room for the stream");
    return n;
}

/* Draw every stage of the tour, run the rounds, print the figures. */
int main(int argc, char **argv)
{
    const char *lessons = "lessons";
    int rounds = 21;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lessons") && i + 1 < argc) lessons = argv[++i];
        else if (!strcmp(argv[i], "--quick")) rounds = 3;
        else die(argv[i], "unknown argument (usage: bench_png [--lessons DIR] [--quick])");
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/01-tour.lesson", lessons);
    Error lerr;
    Lesson *L = lesson_load(path, &lerr);
    if (!L) die(path, lerr.msg);
    Trace *T = attn_run(L, &lerr);
    if (!T) die(path, lerr.msg);
    FontSet *fonts = font_create(NULL, &ferr);
    if (!fonts) die("fonts", ferr.msg);
    ShotOpts opts = app_shot_defaults();
    LayoutFitter *fitter = layout_fitter_create(font_measure, fonts);   /* pages as the program cuts them */
    opts.pager = stage_pager_create(layout_fitter_fits, fitter);
    DrawList *d = draw_create(opts.width, opts.height);
    LayoutCache *lc = layout_cache_create();
    Offscreen *pics[MAX_PICS];
    int npics = L->nstages < MAX_PICS ? L->nstages : MAX_PICS;
    for (int k = 0; k < npics; k++) {
        pics[k] = render_offscreen_create(opts.width, opts.height, fonts, &rerr);
        if (!pics[k]) die("offscreen", rerr.msg);
        app_shot_layout(font_measure, fonts, lc, L, T, k, &opts, d);
        render_drawlist(pics[k]->render, d, NULL);
    }

    static const int levels[] = { 1, 2, 4, 6, 9 };
    enum { NLEVELS = sizeof levels / sizeof levels[0] };
    Encoder enc[2 + NLEVELS];
    memset(enc, 0, sizeof enc);
    snprintf(enc[0].name, sizeof enc[0].name, "isal");
    snprintf(enc[1].name, sizeof enc[1].name, "libpng");
    enc[1].kind = 1;
    struct libdeflate_compressor *c[13] = { 0 };
    for (int i = 0; i < NLEVELS; i++) {
        Encoder *e = &enc[2 + i];
        snprintf(e->name, sizeof e->name, "libdeflate_%d", levels[i]);
        e->kind = 2;
        e->level = levels[i];
        c[levels[i]] = libdeflate_alloc_compressor(levels[i]);
        if (!c[levels[i]]) die(e->name, "out of memory");
    }
    int nenc = 2 + NLEVELS;

    Buf out = { 0 }, rows = { 0 };
    for (int i = 0; i < nenc; i++)                     /* warm-up, and the sizes */
        for (int k = 0; k < npics; k++) {
            enc[i].bytes += encode(&enc[i], pics[k]->canvas, &out, &rows, c);
        }
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nenc; i++) {
            double t0 = bench_now_ms();
            for (int k = 0; k < npics; k++) encode(&enc[i], pics[k]->canvas, &out, &rows, c);
            enc[i].ms[r] = (bench_now_ms() - t0) / npics;
        }
    for (int i = 0; i < nenc; i++) {
        printf("png_%s_ms %.3f ms\n", enc[i].name, bench_median(enc[i].ms, rounds));
        printf("png_%s_kb %.1f KB\n", enc[i].name, (double)enc[i].bytes / 1024.0);
    }

    buf_free(&out);
    buf_free(&rows);
    for (int l = 0; l < 13; l++) libdeflate_free_compressor(c[l]);
    for (int k = 0; k < npics; k++) render_offscreen_free(pics[k]);
    draw_free(d);
    layout_cache_free(lc);
    stage_pager_free(opts.pager);
    layout_fitter_free(fitter);
    font_free(fonts);
    trace_free(T);
    lesson_free(L);
    return 0;
}
