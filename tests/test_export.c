/*
** test_export.c: the PNG encoders, checked by decoding what they write.
**
** Every stage of every bundled lesson is drawn offscreen (1280x800, and a
** few other canvases), encoded by both encoders (the fast one and the
** portable libpng + zlib one) and decoded again with libpng: both must give
** exactly the canvas's pixels, the same text chunks in the same order, and
** the same bytes when encoded twice. With PNG_FAST=none both encoders are the
** portable one and the test still checks it against the canvas.
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "tfonts.h"
#include "tstages.h"
#include "app/cli_core.h"
#include "app/shot.h"
#include "core/io/fileio.h"
#include "core/stage/stage.h"
#include "view/layout.h"
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"
#include "sdl/export.h"
#include "sdl/font.h"
#include "sdl/render.h"
#include "view/draw.h"

#include <png.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

/* The errors of the font, render and export calls, for messages. */
static Error rerr, xerr;


/* Decode a PNG in memory to RGB with libpng's simplified API (caller frees). */
static uint8_t *decode_rgb(const Buf *png, int w, int h)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_memory(&im, png->s, png->len), "libpng: %s", im.message);
    ck_assert_int_eq((int)im.width, w);
    ck_assert_int_eq((int)im.height, h);
    im.format = PNG_FORMAT_RGB;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(im));
    ck_assert_ptr_nonnull(px);
    ck_assert_msg(png_image_finish_read(&im, NULL, px, 0, NULL), "libpng: %s", im.message);
    return px;
}

/* Assert decoded RGB equals the ARGB8888 canvas, pixel for pixel. */
static void assert_same_as_canvas(const uint8_t *rgb, const Canvas *s, const char *what)
{
    for (int y = 0; y < s->h; y++) {
        const uint32_t *row = canvas_row(s, y);
        const uint8_t *d = rgb + (size_t)y * (size_t)s->w * 3;
        for (int x = 0; x < s->w; x++) {
            uint32_t p = row[x];
            if (d[3 * x] != (uint8_t)(p >> 16) || d[3 * x + 1] != (uint8_t)(p >> 8) || d[3 * x + 2] != (uint8_t)p)
                ck_abort_msg("%s: pixel (%d, %d) decodes to %d,%d,%d, the canvas has %d,%d,%d", what, x, y,
                             d[3 * x], d[3 * x + 1], d[3 * x + 2], (int)(p >> 16 & 255), (int)(p >> 8 & 255),
                             (int)(p & 255));
        }
    }
}

/* Big-endian 32-bit number at p. */
static uint32_t be32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

/* Every chunk but IDAT, concatenated whole (length, type, data, CRC). */
static void non_idat_chunks(const Buf *png, Buf *out)
{
    ck_assert_int_eq(memcmp(png->s, "\x89PNG\r\n\x1a\n", 8), 0);
    size_t i = 8;
    while (i + 12 <= png->len) {
        uint32_t n = be32(png->s + i);
        ck_assert_uint_le(i + 12 + n, png->len);
        if (memcmp(png->s + i + 4, "IDAT", 4) != 0) buf_append(out, png->s + i, 12 + n);
        i += 12 + n;
    }
    ck_assert_uint_eq(i, png->len);
}

/* Encode the canvas with one encoder twice (something else encoded in
** between), check the bytes repeat and the pixels and chunks are right. */
static void check_encoder(const Canvas *s, const ExportMeta *meta, ExportEncoder e, Buf *chunks, const char *what)
{
    Buf a = { 0 }, b = { 0 }, other = { 0 };
    ck_assert_msg(export_png_encode_with(s, meta, e, &a, &xerr) == 0, "%s", eline(&xerr));
    Canvas *noise = canvas_create(97, 61);
    for (int i = 0; i < noise->h * noise->w; i++) noise->pixels[i] = (uint32_t)i * 2654435761u;
    ck_assert_int_eq(export_png_encode_with(noise, NULL, e, &other, &xerr), 0);
    canvas_free(noise);
    ck_assert_int_eq(export_png_encode_with(s, meta, e, &b, &xerr), 0);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert_msg(memcmp(a.s, b.s, a.len) == 0, "%s: two encodings differ", what);
    uint8_t *rgb = decode_rgb(&a, s->w, s->h);
    assert_same_as_canvas(rgb, s, what);
    free(rgb);
    non_idat_chunks(&a, chunks);
    buf_free(&a);
    buf_free(&b);
    buf_free(&other);
}

/* Both encoders on one canvas: right pixels, same chunks around the data. */
static void check_both(const Canvas *s, const ExportMeta *meta, const char *what)
{
    Buf fast = { 0 }, portable = { 0 };
    check_encoder(s, meta, EXPORT_ENC_ISAL, &fast, what);
    check_encoder(s, meta, EXPORT_ENC_LIBPNG, &portable, what);
    ck_assert_uint_eq(fast.len, portable.len);
    ck_assert_msg(memcmp(fast.s, portable.s, fast.len) == 0, "%s: chunks differ between encoders", what);
    buf_free(&fast);
    buf_free(&portable);
}

/* Draw stage k of a lesson as --export would and check both encoders. */
static void check_stage(const Lesson *L, const Trace *T, int k, const ShotOpts *opts)
{
    DrawList *d = draw_create(opts->width * opts->scale, opts->height * opts->scale);
    LayoutCache *lc = layout_cache_create();
    app_shot_layout(font_measure, tfonts, lc, L, T, k, opts, d);
    layout_cache_free(lc);
    Offscreen *o = render_offscreen_create(d->width, d->height, tfonts, &rerr);
    ck_assert_msg(o != NULL, "offscreen: %s", eline(&rerr));
    ck_assert_int_eq(render_drawlist(o->render, d, NULL), 0);
    char what[256];
    snprintf(what, sizeof what, "%s stage %d at %dx%d", L->name, k + 1, d->width, d->height);
    ExportMeta meta = { L->title, lesson_stage_name(L->stages[k].id) };
    check_both(o->canvas, &meta, what);
    render_offscreen_free(o);
    draw_free(d);
}

/* One stage at the default canvas; the first of a lesson also at an odd
** width (the row tail) in the dark theme, the last at 1x1 (a TStageFn). */
static void decode_stage(const char *name, const Lesson *L, const Trace *T, int k, View *v, void *ctx)
{
    (void)name; (void)v; (void)ctx;
    ShotOpts opts = app_shot_defaults();
    check_stage(L, T, k, &opts);
    if (k == 0) {
        opts.width = 641; opts.height = 479; opts.dark = true;
        check_stage(L, T, k, &opts);
    }
    if (k == L->nstages - 1) {
        opts = app_shot_defaults();
        opts.width = 1; opts.height = 1; opts.dark = true;
        check_stage(L, T, k, &opts);
    }
}

START_TEST(test_every_bundled_stage_decodes_to_its_canvas)
{
    ck_assert_int_ge(tstages_each("../lessons", decode_stage, NULL), 40);
}
END_TEST

START_TEST(test_text_chunks_and_a_big_canvas)
{
    /* Non-ASCII text goes in iTXt in both; a canvas of several IDAT buffers. */
    Canvas *s = canvas_create(2563, 1601);
    uint32_t v = 12345;
    for (int y = 0; y < s->h; y++) {
        uint32_t *row = canvas_row(s, y);
        for (int x = 0; x < s->w; x++) {
            v = v * 1103515245u + 12345u;
            row[x] = (x / 40 + y / 40) % 3 ? 0xff000000u | (uint32_t)(x * 7 + y) : v;
        }
    }
    ExportMeta meta = { "Atención, paso a paso", "softmax: los pesos" };
    check_both(s, &meta, "2563x1601 canvas");
    ExportMeta none = { NULL, NULL };
    check_both(s, &none, "no title");
    canvas_free(s);
}
END_TEST

/* The zlib stream of a PNG: its IDAT chunks' data, concatenated. */
static void idat_stream(const Buf *png, Buf *out)
{
    size_t i = 8;
    while (i + 12 <= png->len) {
        uint32_t n = be32(png->s + i);
        if (memcmp(png->s + i + 4, "IDAT", 4) == 0) buf_append(out, png->s + i + 8, n);
        i += 12 + n;
    }
}

/* Adler-32 (RFC 1950) of n bytes, straight from its definition. */
static uint32_t adler32_plain(const unsigned char *p, size_t n)
{
    uint32_t s1 = 1, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s1 = (s1 + p[i]) % 65521;
        s2 = (s2 + s1) % 65521;
    }
    return s2 << 16 | s1;
}

START_TEST(test_zlib_header_and_checksum)
{
    /* The fast encoder writes the zlib header and the Adler-32 of the rows
    ** itself, the checksum computed as the rows are converted: every width
    ** from 1 to 40 (each tail of the vector loop) and some wide ones, in
    ** random pixels, against the checksum of export_png_rows' bytes. */
    static const int wide[] = { 255, 256, 257, 1200, 2049, 2563, 4100 };
    uint32_t v = 99;
    for (int i = 0; i < 40 + (int)(sizeof wide / sizeof wide[0]); i++) {
        int w = i < 40 ? i + 1 : wide[i - 40], h = i < 40 ? 3 + i % 5 : 37;
        Canvas *s = canvas_create(w, h);
        for (int k = 0; k < w * h; k++) {
            v = v * 1103515245u + 12345u;
            s->pixels[k] = v ^ (v >> 13);
        }
        Buf png = { 0 }, rows = { 0 }, z = { 0 };
        ck_assert_int_eq(export_png_encode_with(s, NULL, EXPORT_ENC_ISAL, &png, &xerr), 0);
        ck_assert_int_eq(export_png_rows(s, &rows, &xerr), 0);
        idat_stream(&png, &z);
        ck_assert_uint_ge(z.len, 6);
        ck_assert_msg((unsigned char)z.s[0] == 0x78 && (unsigned char)z.s[1] == 0x01,
                      "%dx%d: zlib header %02x %02x", w, h, (unsigned char)z.s[0], (unsigned char)z.s[1]);
        uint32_t want = adler32_plain((const unsigned char *)rows.s, rows.len);
        ck_assert_msg(be32(z.s + z.len - 4) == want, "%dx%d: Adler-32 %08x, the rows' is %08x", w, h,
                      be32(z.s + z.len - 4), want);
        uint8_t *rgb = decode_rgb(&png, w, h);
        assert_same_as_canvas(rgb, s, "random canvas");
        free(rgb);
        buf_free(&png);
        buf_free(&rows);
        buf_free(&z);
        canvas_free(s);
    }
}
END_TEST

START_TEST(test_nothing_to_encode)
{
    Buf a = { 0 };
    ck_assert_int_eq(export_png_encode(NULL, NULL, &a, &xerr), -1);
    ck_assert_str_eq(eline(&xerr), "attnlab: error: export: nothing to encode");
    ck_assert_uint_eq(a.len, 0);
}
END_TEST

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* XINUSE (XGETBV with ECX = 1): which register states are not in their
** initial configuration; 0 when the CPU cannot say. */
static unsigned xinuse(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(0xd, 1, &a, &b, &c, &d) || !(a & 4)) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    (void)hi;
    return lo;
}
#endif

START_TEST(test_upper_vector_state_is_clean_after_encoding)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    /* Bit 2: upper halves of YMM0-15; bit 6: upper halves of ZMM0-15. */
    Canvas *s = canvas_create(300, 200);
    canvas_fill(s, 0, 0, 300, 200, (Color){ 0x33, 0x66, 0x99, 255 });
    Buf a = { 0 };
    ck_assert_int_eq(export_png_encode(s, NULL, &a, &xerr), 0);
    unsigned state = xinuse();
    ck_assert_msg((state & 0x44) == 0, "XINUSE %#x after export_png_encode", state);
    buf_free(&a);
    canvas_free(s);
#endif
}
END_TEST

/* app_shot_write, one stage to one file (what the benchmark times), writes
** the very bytes --export writes for that stage: the same layout, the same
** encoder, the same text chunks, pages cut by the same pager. Every stage
** of one page is compared. */
START_TEST(test_shot_write_is_export)
{
    char dir[] = "/tmp/attnlab-shot-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *paths[] = { "../lessons/03-four-words-by-hand.lesson" };
    Error err;
    FontSet *fonts = font_create(NULL, &err);
    ck_assert_msg(fonts != NULL, "%s", eline(&err));
    LayoutFitter *fitter = layout_fitter_create(font_measure, fonts);
    ShotOpts opts = app_shot_defaults();
    opts.pager = stage_pager_create(layout_fitter_fits, fitter);
    ck_assert_int_eq(app_export(dir, paths, 1, &opts, NULL, NULL, true), 0);
    Trace *T = NULL;
    int code = 0;
    Lesson *L = app_load(paths[0], &T, &code);
    ck_assert_ptr_nonnull(L);
    LayoutCache *lc = layout_cache_create();
    char one[64];
    snprintf(one, sizeof one, "%s/one.png", dir);
    int compared = 0;
    for (int k = 0; k < L->nstages; k++) {
        if (stage_pages(L, T, k, opts.pager) != 1) continue;
        ck_assert_msg(app_shot_write(fonts, lc, L, T, k, &opts, one, &err) == 0, "%s", eline(&err));
        char *want_path = app_shot_path(dir, L, k, false);
        size_t nw = 0, ng = 0;
        char *want = fileio_read(want_path, 1 << 26, &nw, &err), *got = fileio_read(one, 1 << 26, &ng, &err);
        ck_assert_msg(want && got, "%s", eline(&err));
        ck_assert_msg(nw == ng && memcmp(want, got, nw) == 0, "stage %d: %s and app_shot_write's differ", k + 1, want_path);
        free(want);
        free(got);
        free(want_path);
        compared++;
    }
    ck_assert_int_ge(compared, 3);
    layout_cache_free(lc);
    stage_pager_free(opts.pager);
    layout_fitter_free(fitter);
    font_free(fonts);
    trace_free(T);
    lesson_free(L);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The export suite. */
Suite *export_suite(void)
{
    Suite *s = suite_create("export");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, tfonts_setup, tfonts_teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_every_bundled_stage_decodes_to_its_canvas);
    tcase_add_test(core, test_text_chunks_and_a_big_canvas);
    tcase_add_test(core, test_zlib_header_and_checksum);
    tcase_add_test(core, test_nothing_to_encode);
    tcase_add_test(core, test_upper_vector_state_is_clean_after_encoding);
    tcase_add_test(core, test_shot_write_is_export);
    suite_add_tcase(s, core);
    return s;
}
