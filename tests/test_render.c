/*
** test_render.c: the renderer, checked by its pixels. Display lists are
** built by hand, drawn offscreen (no display, no SDL_Init) and read back:
** cell colours exactly, text by where its ink falls, PNG files by decoding
** them again with libpng; the canvas's arithmetic against SDL's own.
*/
#define _POSIX_C_SOURCE 200809L    /* mkdtemp, chmod, geteuid */
#include "suites.h"
#include "tfonts.h"
#include "view/svg.h"
#include "core/text/utf8.h"
#include "sdl/font.h"
#include "sdl/render.h"
#include "sdl/export.h"
#include "view/draw.h"

#include <png.h>
#include <SDL.h>

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The errors of the font, render and export calls, for messages. */
static Error ferr, rerr, xerr;

static const Color WHITE = { 255, 255, 255, 255 };
static const Color BLACK = { 0, 0, 0, 255 };


/* A list of w x h on white. */
static DrawList *canvas(int w, int h)
{
    DrawList *d = draw_create(w, h);
    draw_clear(d, w, h, WHITE);
    return d;
}

/* Draw d on a fresh offscreen canvas of its size. */
static Offscreen *paint(const DrawList *d)
{
    Offscreen *o = render_offscreen_create(d->width, d->height, tfonts, &rerr);
    ck_assert_msg(o != NULL, "offscreen: %s", eline(&rerr));
    ck_assert_int_eq(render_drawlist(o->render, d, NULL), 0);
    return o;
}

/* Whether two colours are the same (alpha ignored). */
static int same(Color a, Color b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b;
}

/* Ink: a pixel noticeably darker than white. */
static int inked(Color c)
{
    return c.r + c.g + c.b < 3 * 255 - 60;
}

/* Bounding box of the ink inside [x0,x1)x[y0,y1); returns the ink count. */
static int ink_box(const Offscreen *o, int x0, int y0, int x1, int y1,
                   int *bx0, int *by0, int *bx1, int *by1)
{
    int n = 0;
    *bx0 = *by0 = 1 << 30;
    *bx1 = *by1 = -1;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            if (!inked(render_offscreen_pixel(o, x, y))) continue;
            n++;
            if (x < *bx0) *bx0 = x;
            if (x > *bx1) *bx1 = x;
            if (y < *by0) *by0 = y;
            if (y > *by1) *by1 = y;
        }
    return n;
}

/* The string of a text command with the given style bits. */
static int text_cmd(DrawList *d, Rect r, const char *s, float size, Color c,
                    HAlign ha, VAlign va, int bold, int rotate)
{
    int i = draw_text(d, r, s, size, c, ha, va, ROLE_BODY);
    d->cmds[i].bold = (uint8_t)bold;
    d->cmds[i].rotate = (uint8_t)rotate;
    return i;
}

/* A temporary directory for files the test writes. */
static char *temp_dir(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/attnlab-render-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(buf));
    return buf;
}

/* Number of entries in a directory, "." and ".." aside. */
static int dir_entries(const char *path)
{
    DIR *dir = opendir(path);
    ck_assert_ptr_nonnull(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(dir);
    return n;
}

START_TEST(test_cell_centre_exact_colour)
{
    DrawList *d = canvas(64, 48);
    Color cell = { 200, 30, 40, 255 };
    draw_rect(d, (Rect){ 10, 10, 20, 20 }, cell, ROLE_CELL);
    Offscreen *o = paint(d);
    ck_assert(same(render_offscreen_pixel(o, 20, 20), cell));
    ck_assert(same(render_offscreen_pixel(o, 10, 10), cell));     /* edges included */
    ck_assert(same(render_offscreen_pixel(o, 29, 29), cell));
    ck_assert(same(render_offscreen_pixel(o, 30, 20), WHITE));    /* ... and excluded */
    ck_assert(same(render_offscreen_pixel(o, 5, 5), WHITE));
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

START_TEST(test_fractional_cells_tile_without_gaps)
{
    /* Cells 23.7 px wide: shared edges snap alike, so no white seams. */
    DrawList *d = canvas(260, 40);
    Color a = { 10, 20, 200, 255 }, b = { 200, 180, 10, 255 };
    for (int i = 0; i < 10; i++)
        draw_rect(d, (Rect){ 3.3f + 23.7f * (float)i, 5.5f, 23.7f, 23.7f }, i % 2 ? b : a, ROLE_CELL);
    Offscreen *o = paint(d);
    int first = 3, last = (int)(3.3f + 237.0f + 0.5f) - 1;
    for (int x = first; x <= last; x++) {
        Color c = render_offscreen_pixel(o, x, 15);
        ck_assert_msg(same(c, a) || same(c, b), "seam at x=%d", x);
    }
    ck_assert(same(render_offscreen_pixel(o, last + 1, 15), WHITE));
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

/* An image command (a heatmap in blocks) draws exactly what one filled
** rectangle per block draws, pixel for pixel and in SVG, with fractional
** cell sizes and blocks cut at the grid's edge. */
START_TEST(test_image_draws_as_its_blocks)
{
    enum { ROWS = 37, COLS = 53, RSTEP = 2, CSTEP = 3 };
    int br = (ROWS + RSTEP - 1) / RSTEP, bc = (COLS + CSTEP - 1) / CSTEP;
    Color *px = malloc(sizeof *px * (size_t)(br * bc));
    for (int i = 0; i < br * bc; i++) px[i] = (Color){ (uint8_t)(i * 37), (uint8_t)(i * 91 + 7), (uint8_t)(255 - i), 255 };
    DrawImage im = { ROWS, COLS, RSTEP, CSTEP, 1.37f, 0.93f };
    DrawList *a = canvas(120, 80), *b = canvas(120, 80);
    Color *arena;
    draw_image(a, 10.3f, 7.6f, &im, ROLE_CELL, &arena);
    memcpy(arena, px, sizeof *px * (size_t)(br * bc));
    int blocks = 0;
    for (int i = 0; i < br; i++)
        for (int j = 0; j < bc; j++, blocks++) {
            DrawCmd r = draw_image_block(a, &a->cmds[0], i, j);
            ck_assert(r.color.r == px[i * bc + j].r && r.color.g == px[i * bc + j].g);
            draw_rect(b, r.r, r.color, ROLE_CELL);
        }
    ck_assert_int_eq(blocks, br * bc);
    Offscreen *oa = paint(a), *ob = paint(b);
    int colored = 0;
    for (int y = 0; y < 80; y++)
        for (int x = 0; x < 120; x++) {
            Color ca = render_offscreen_pixel(oa, x, y), cb = render_offscreen_pixel(ob, x, y);
            ck_assert_msg(same(ca, cb), "pixel %d,%d differs", x, y);
            colored += !same(ca, WHITE);
        }
    ck_assert_int_gt(colored, 70 * 30);                         /* the grid is there: about 72 x 34 px */
    char *sa = svg_write(a, NULL, NULL, NULL), *sb = svg_write(b, NULL, NULL, NULL);
    ck_assert_str_eq(sa, sb);
    free(sa); free(sb);
    render_offscreen_free(oa);
    render_offscreen_free(ob);
    draw_free(a);
    draw_free(b);
    free(px);
}
END_TEST

START_TEST(test_translucent_rect_blends)
{
    DrawList *d = canvas(40, 40);
    draw_rect(d, (Rect){ 0, 0, 40, 40 }, (Color){ 0, 0, 255, 255 }, ROLE_DECOR);
    draw_rect(d, (Rect){ 10, 10, 20, 20 }, (Color){ 255, 0, 0, 128 }, ROLE_OVERLAY);
    Offscreen *o = paint(d);
    Color c = render_offscreen_pixel(o, 20, 20);
    ck_assert_int_ge(c.r, 120);
    ck_assert_int_le(c.r, 136);
    ck_assert_int_ge(c.b, 120);
    ck_assert_int_le(c.b, 136);
    ck_assert(same(render_offscreen_pixel(o, 5, 5), ((Color){ 0, 0, 255, 255 })));
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

/* Canvas colours for the comparisons with SDL: every level in each
** channel across a row, opaque as on a real canvas, or translucent. */
static uint32_t canvas_colour(int x, int y, bool opaque)
{
    uint32_t v = (uint32_t)(x * (2 * y + 1) + 37 * y) & 255;
    uint32_t a = opaque ? 255 : (uint32_t)(x * 13 + y * 71) & 255;
    return a << 24 | v << 16 | (255 - v) << 8 | ((v * 7 + (uint32_t)y) & 255);
}

START_TEST(test_canvas_blend_is_sdls)
{
    /* canvas.c's blend of a texture pixel, against SDL's software renderer
    ** copying the same pixels: white glyph coverage 0..255 and colour
    ** pixels, under colour and alpha modulations, over canvases of every
    ** level (opaque and not). The PNG's pixels are the window's. */
    static const Color mods[] = { { 255, 255, 255, 255 }, { 0, 0, 0, 255 }, { 31, 119, 180, 255 },
                                  { 255, 255, 255, 128 }, { 200, 60, 20, 170 }, { 1, 254, 128, 3 } };
    enum { W = 256, H = 8 };
    SDL_Surface *src = SDL_CreateRGBSurfaceWithFormat(0, W, 2, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Surface *dst = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = SDL_CreateSoftwareRenderer(dst);
    ck_assert_ptr_nonnull(r);
    uint32_t *sp = src->pixels;
    for (int x = 0; x < W; x++) {
        sp[x] = (uint32_t)x << 24 | 0xFFFFFFu;                                  /* a glyph's coverage */
        sp[src->pitch / 4 + x] = (uint32_t)x << 24 | (uint32_t)(x * 2654435761u >> 8 & 0xFFFFFFu);   /* colours */
    }
    SDL_Texture *t = SDL_CreateTextureFromSurface(r, src);
    ck_assert_ptr_nonnull(t);
    SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    Canvas *c = canvas_create(W, H);
    for (size_t k = 0; k < sizeof mods / sizeof mods[0]; k++)
        for (int row = 0; row < 2; row++)
            for (int opaque = 0; opaque < 2; opaque++) {
                Color m = mods[k];
                SDL_SetTextureColorMod(t, m.r, m.g, m.b);
                SDL_SetTextureAlphaMod(t, m.a);
                for (int y = 0; y < H; y++) {
                    uint32_t *d = (uint32_t *)((uint8_t *)dst->pixels + y * dst->pitch), *mine = canvas_row(c, y);
                    for (int x = 0; x < W; x++) d[x] = mine[x] = canvas_colour(x, y, opaque);
                    canvas_blend(c, sp + row * src->pitch / 4, (size_t)src->pitch / 4, W, 1, 0, y, m);
                    SDL_Rect from = { 0, row, W, 1 }, to = { 0, y, W, 1 };
                    SDL_RenderCopy(r, t, &from, &to);
                    SDL_RenderFlush(r);
                    for (int x = 0; x < W; x++)
                        ck_assert_msg(d[x] == mine[x], "mod %d,%d,%d,%d source %08x over %08x: SDL %08x, canvas %08x",
                                      m.r, m.g, m.b, m.a, sp[row * src->pitch / 4 + x], canvas_colour(x, y, opaque),
                                      d[x], mine[x]);
                }
            }
    canvas_free(c);
    SDL_DestroyTexture(t);
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(dst);
    SDL_FreeSurface(src);
}
END_TEST

START_TEST(test_canvas_fill_is_sdls)
{
    /* Opaque and translucent fills, against SDL_RenderFillRect. */
    enum { W = 256, H = 8 };
    SDL_Surface *dst = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = SDL_CreateSoftwareRenderer(dst);
    Canvas *c = canvas_create(W, H);
    for (int a = 1; a < 256; a += 2) {
        Color col = { (uint8_t)(a * 7), (uint8_t)(255 - a), (uint8_t)(a * 3 + 1), (uint8_t)a };
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                canvas_row(c, y)[x] = ((uint32_t *)((uint8_t *)dst->pixels + y * dst->pitch))[x] =
                    canvas_colour(x, y, a % 4 == 1);
        SDL_SetRenderDrawColor(r, col.r, col.g, col.b, col.a);
        SDL_SetRenderDrawBlendMode(r, col.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
        SDL_Rect q = { 3, 1, W - 5, H - 2 };
        SDL_RenderFillRect(r, &q);
        SDL_RenderFlush(r);
        canvas_fill(c, 3, 1, W - 2, H - 1, col);
        for (int y = 0; y < H; y++)
            ck_assert_msg(memcmp(canvas_row(c, y), (uint8_t *)dst->pixels + y * dst->pitch, W * 4) == 0,
                          "fill %d,%d,%d,%d: row %d differs from SDL's", col.r, col.g, col.b, col.a, y);
    }
    canvas_free(c);
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(dst);
}
END_TEST

START_TEST(test_outline_is_a_frame)
{
    DrawList *d = canvas(60, 60);
    Color red = { 220, 0, 0, 255 };
    draw_frame(d, (Rect){ 10, 10, 40, 30 }, red, 2, ROLE_DECOR);
    Offscreen *o = paint(d);
    ck_assert(same(render_offscreen_pixel(o, 30, 10), red));      /* top edge */
    ck_assert(same(render_offscreen_pixel(o, 30, 40), red));      /* bottom edge */
    ck_assert(same(render_offscreen_pixel(o, 10, 25), red));      /* left */
    ck_assert(same(render_offscreen_pixel(o, 50, 25), red));      /* right */
    ck_assert(same(render_offscreen_pixel(o, 30, 25), WHITE));    /* hollow */
    ck_assert(same(render_offscreen_pixel(o, 30, 5), WHITE));
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

START_TEST(test_text_ink_stays_in_its_box)
{
    DrawList *d = canvas(200, 100);
    Rect box = { 40, 30, 100, 36 };
    text_cmd(d, box, "0.37", 18, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, 0, 0);
    Offscreen *o = paint(d);
    int bx0, by0, bx1, by1;
    int inside = ink_box(o, 40, 30, 140, 66, &bx0, &by0, &bx1, &by1);
    int all = ink_box(o, 0, 0, 200, 100, &bx0, &by0, &bx1, &by1);
    ck_assert_int_gt(inside, 40);
    ck_assert_int_eq(all, inside);
    /* MIDDLE centres the digits: the ink's middle is the box's middle. */
    double cy = (by0 + by1 + 1) / 2.0, cx = (bx0 + bx1 + 1) / 2.0;
    ck_assert_double_eq_tol(cy, box.y + box.h / 2, 1.0);
    ck_assert_double_eq_tol(cx, box.x + box.w / 2, 1.5);
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

START_TEST(test_text_alignment_and_colour)
{
    DrawList *d = canvas(300, 120);
    Color red = { 230, 0, 0, 255 };
    text_cmd(d, (Rect){ 20, 10, 260, 30 }, "left", 16, red, ALIGN_LEFT, VALIGN_TOP, 0, 0);
    text_cmd(d, (Rect){ 20, 60, 260, 40 }, "right", 16, BLACK, ALIGN_RIGHT, VALIGN_BOTTOM, 1, 0);
    Offscreen *o = paint(d);
    int bx0, by0, bx1, by1;
    ck_assert_int_gt(ink_box(o, 0, 0, 300, 50, &bx0, &by0, &bx1, &by1), 20);
    ck_assert_int_le(bx0, 23);                  /* starts at the left edge */
    ck_assert_int_le(by0, 16);                  /* near the top */
    /* Red text: its darkest pixel is red, not grey. */
    Color darkest = WHITE;
    for (int y = by0; y <= by1; y++)
        for (int x = bx0; x <= bx1; x++) {
            Color c = render_offscreen_pixel(o, x, y);
            if (c.g < darkest.g) darkest = c;
        }
    ck_assert_int_ge(darkest.r, 200);
    ck_assert_int_le(darkest.g, 40);
    ck_assert_int_gt(ink_box(o, 0, 50, 300, 120, &bx0, &by0, &bx1, &by1), 20);
    ck_assert_int_ge(bx1, 276);                 /* ends at the right edge */
    ck_assert_int_le(bx1, 279);
    ck_assert_int_ge(by1, 90);                  /* sits low in its box */
    ck_assert_int_le(by1, 99);
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

START_TEST(test_unicode_signs_have_glyphs_and_ink)
{
    static const char *signs[] = { "−", "∞", "·", "ᵀ", "√", "…", "Σ", "á", "é", "í", "ó", "ú", "ñ", "¿" };
    for (size_t i = 0; i < sizeof signs / sizeof signs[0]; i++) {
        const char *p = signs[i];
        uint32_t cp = utf8_next(&p);
        ck_assert_int_eq(*p, '\0');             /* one code point each */
        ck_assert_msg(font_has_glyph(tfonts, cp, 0), "no glyph for %s", signs[i]);
        ck_assert_msg(font_has_glyph(tfonts, cp, 1), "no bold glyph for %s", signs[i]);
    }
    DrawList *d = canvas(120, 40);
    text_cmd(d, (Rect){ 0, 0, 120, 40 }, "−∞", 20, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, 0, 0);
    Offscreen *o = paint(d);
    int bx0, by0, bx1, by1;
    ck_assert_int_gt(ink_box(o, 0, 0, 120, 40, &bx0, &by0, &bx1, &by1), 30);
    ck_assert_int_gt(bx1 - bx0, 15);            /* two signs wide */
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

START_TEST(test_rotated_text_is_the_run_turned)
{
    /* The rotated run must be exactly the upright one turned 90 degrees
    ** counter-clockwise: its first letter at the bottom, reading upward. */
    const char *s = "está Wj";
    DrawList *a = canvas(200, 60), *b = canvas(60, 200);
    text_cmd(a, (Rect){ 0, 0, 200, 60 }, s, 20, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, 0, 0);
    text_cmd(b, (Rect){ 0, 0, 60, 200 }, s, 20, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, 0, 90);
    Offscreen *oa = paint(a), *ob = paint(b);
    int ax0, ay0, ax1, ay1, bx0, by0, bx1, by1;
    int na = ink_box(oa, 0, 0, 200, 60, &ax0, &ay0, &ax1, &ay1);
    int nb = ink_box(ob, 0, 0, 60, 200, &bx0, &by0, &bx1, &by1);
    ck_assert_int_gt(na, 50);
    ck_assert_int_eq(na, nb);
    ck_assert_int_eq(ax1 - ax0, by1 - by0);     /* width became height */
    ck_assert_int_eq(ay1 - ay0, bx1 - bx0);
    for (int y = ay0; y <= ay1; y++)
        for (int x = ax0; x <= ax1; x++) {
            Color up = render_offscreen_pixel(oa, x, y);
            /* (u, v) upright -> (v, W-1-u) turned, W the upright width. */
            Color turned = render_offscreen_pixel(ob, bx0 + (y - ay0), by0 + (ax1 - x));
            ck_assert_msg(same(up, turned), "pixel (%d,%d) differs", x, y);
        }
    /* Centred in its box both ways. */
    ck_assert_double_eq_tol((by0 + by1 + 1) / 2.0, 100, 1.5);
    ck_assert_double_eq_tol((bx0 + bx1 + 1) / 2.0, 30, 6);
    render_offscreen_free(oa);
    render_offscreen_free(ob);
    draw_free(a);
    draw_free(b);
}
END_TEST

START_TEST(test_lines_solid_thick_and_dashed)
{
    DrawList *d = canvas(200, 120);
    Color blue = { 0, 0, 200, 255 }, green = { 0, 160, 0, 255 }, red = { 200, 0, 0, 255 };
    draw_line(d, 10, 10, 190, 10, blue, 1, ROLE_DECOR);
    draw_line(d, 20, 30, 20, 110, blue, 3, ROLE_DECOR);
    draw_line(d, 40, 110, 140, 30, green, 4, ROLE_PLOT);
    int k = draw_line(d, 10, 115, 190, 115, red, 1, ROLE_PLOT);
    d->cmds[k].dashed = 1;
    Offscreen *o = paint(d);
    /* A 1 px line on a whole coordinate covers half of two rows: the lower wins. */
    for (int x = 10; x < 190; x++) ck_assert(same(render_offscreen_pixel(o, x, 10), blue));
    ck_assert(same(render_offscreen_pixel(o, 100, 9), WHITE));
    ck_assert(same(render_offscreen_pixel(o, 100, 11), WHITE));
    ck_assert(same(render_offscreen_pixel(o, 9, 10), WHITE));
    ck_assert(same(render_offscreen_pixel(o, 190, 10), WHITE));
    for (int x = 19; x <= 21; x++) ck_assert(same(render_offscreen_pixel(o, x, 70), blue));
    ck_assert(same(render_offscreen_pixel(o, 23, 70), WHITE));
    ck_assert(same(render_offscreen_pixel(o, 90, 70), green));    /* the middle of the slope */
    ck_assert(same(render_offscreen_pixel(o, 90, 60), WHITE));
    int on = 0, off = 0;
    for (int x = 10; x < 190; x++) {
        if (same(render_offscreen_pixel(o, x, 115), red)) on++;
        else off++;
    }
    ck_assert_int_gt(on, 80);
    ck_assert_int_gt(off, 60);
    ck_assert(same(render_offscreen_pixel(o, 12, 115), red));      /* starts with a dash */
    ck_assert(same(render_offscreen_pixel(o, 16, 115), WHITE));    /* 5 on, 4 off */
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

/*
** One dash pattern in every backend: a dashed line 2 px wide drawn by the
** renderer (window and PNG) runs DRAW_DASH_ON x 2 px inked and
** DRAW_DASH_OFF x 2 px blank, from a dash at its start, and the SVG of the
** same list asks for exactly those lengths.
*/
START_TEST(test_dash_pattern_same_in_png_and_svg)
{
    DrawList *d = canvas(200, 40);
    Color red = { 200, 0, 0, 255 };
    int k = draw_line(d, 10, 20, 190, 20, red, 2, ROLE_PLOT);
    d->cmds[k].dashed = 1;
    Offscreen *o = paint(d);
    int runs[8], n = 0, x = 10;
    while (n < 8 && x < 190) {
        bool ink = same(render_offscreen_pixel(o, x, 20), red);
        ck_assert_msg(ink == (n % 2 == 0), "run %d at x %d: %s", n, x, ink ? "inked" : "blank");
        int start = x;
        while (x < 190 && same(render_offscreen_pixel(o, x, 20), red) == ink) x++;
        runs[n++] = x - start;
    }
    ck_assert_int_eq(n, 8);
    for (int i = 0; i < 8; i++) ck_assert_int_eq(runs[i], 2 * (i % 2 ? DRAW_DASH_OFF : DRAW_DASH_ON));
    char want[64];
    snprintf(want, sizeof want, "stroke-dasharray=\"%d %d\"", 2 * DRAW_DASH_ON, 2 * DRAW_DASH_OFF);
    size_t len = 0;
    char *svg = svg_write(d, NULL, NULL, &len);
    ck_assert_msg(strstr(svg, want) != NULL, "the SVG's line: %.120s", strstr(svg, "<line"));
    free(svg);
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

/* A small heatmap with labels: the picture the determinism tests use. */
static DrawList *sample_heatmap(void)
{
    DrawList *d = canvas(320, 200);
    text_cmd(d, (Rect){ 0, 0, 320, 30 }, "Atención · softmax(QKᵀ/√d)", 16, BLACK,
             ALIGN_CENTER, VALIGN_MIDDLE, 1, 0);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            Rect q = { 80 + 50.0f * (float)c, 50 + 45.0f * (float)r, 50, 45 };
            draw_rect(d, q, (Color){ (uint8_t)(40 * c + 60), 90, (uint8_t)(70 * r + 40), 255 }, ROLE_CELL);
            draw_text(d, q, c > r ? "−∞" : "0.37", 13, WHITE, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_CELL_TEXT);
        }
    text_cmd(d, (Rect){ 0, 50, 75, 135 }, "durmiendo", 12, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, 0, 90);
    int k = draw_line(d, 80, 190, 280, 190, BLACK, 1, ROLE_DECOR);
    d->cmds[k].dashed = 1;
    return d;
}

START_TEST(test_render_twice_identical)
{
    DrawList *d = sample_heatmap();
    Offscreen *a = paint(d), *b = paint(d);
    size_t bytes = a->canvas->stride * sizeof *a->canvas->pixels * (size_t)a->h;
    ck_assert_int_eq(memcmp(a->canvas->pixels, b->canvas->pixels, bytes), 0);
    /* The same canvas again: glyphs now come from the warm cache. */
    void *first = malloc(bytes);
    memcpy(first, a->canvas->pixels, bytes);
    ck_assert_int_eq(render_drawlist(a->render, d, NULL), 0);
    ck_assert_int_eq(memcmp(first, a->canvas->pixels, bytes), 0);
    free(first);
    render_offscreen_free(a);
    render_offscreen_free(b);
    draw_free(d);
}
END_TEST

START_TEST(test_batched_path_matches_direct)
{
    /* The GPU path (one vertex stream, rectangles from the white block) run
    ** on the software renderer must put down exactly the direct path's pixels. */
    DrawList *d = sample_heatmap();
    draw_frame(d, (Rect){ 70.5f, 45.5f, 150, 80 }, (Color){ 0, 0, 0, 128 }, 3, ROLE_DECOR);
    text_cmd(d, (Rect){ 290, 40, 30, 160 }, "ᵀ √ … Σ", 14, (Color){ 200, 0, 0, 255 },
             ALIGN_RIGHT, VALIGN_TOP, 1, 90);
    Offscreen *a = paint(d);
    Offscreen *b = render_offscreen_create(d->width, d->height, tfonts, &rerr);
    render_set_batched(b->render, 1);
    ck_assert_int_eq(render_drawlist(b->render, d, NULL), 0);
    for (int y = 0; y < d->height; y++)
        for (int x = 0; x < d->width; x++)
            ck_assert_msg(same(render_offscreen_pixel(a, x, y), render_offscreen_pixel(b, x, y)),
                          "pixel (%d,%d) differs", x, y);
    render_offscreen_free(a);
    render_offscreen_free(b);
    draw_free(d);
}
END_TEST

/* Everything a test wants to know about a PNG file. */
typedef struct PngFacts {
    unsigned w, h;
    int has_time;
    char title[128], description[128], software[64];
    Color centre;           /* pixel at (cx, cy) */
} PngFacts;

/* Read a PNG back with libpng's classic API. */
static PngFacts read_png(const char *path, int cx, int cy)
{
    PngFacts f;
    memset(&f, 0, sizeof f);
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "%s: %s", path, strerror(errno));
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) ck_abort_msg("libpng could not read %s", path);
    png_init_io(png, fp);
    png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    f.w = png_get_image_width(png, info);
    f.h = png_get_image_height(png, info);
    ck_assert_int_eq(png_get_bit_depth(png, info), 8);
    ck_assert_int_eq(png_get_color_type(png, info), PNG_COLOR_TYPE_RGB);
    f.has_time = png_get_valid(png, info, PNG_INFO_tIME) != 0;
    png_textp text = NULL;
    int n = png_get_text(png, info, &text, NULL);
    for (int i = 0; i < n; i++) {
        char *dst = !strcmp(text[i].key, "Title") ? f.title
                  : !strcmp(text[i].key, "Description") ? f.description
                  : !strcmp(text[i].key, "Software") ? f.software : NULL;
        if (dst) snprintf(dst, 64, "%s", text[i].text);
    }
    png_bytepp rows = png_get_rows(png, info);
    png_bytep px = rows[cy] + 3 * cx;
    f.centre = (Color){ px[0], px[1], px[2], 255 };
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    return f;
}

START_TEST(test_png_roundtrip)
{
    DrawList *d = sample_heatmap();
    Offscreen *o = paint(d);
    char dir[64], path[128];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/stage.png", dir);
    ExportMeta meta = { "Attention tour", "softmax: Atención" };
    ck_assert_msg(export_png(o->canvas, path, &meta, &xerr) == 0, "%s", eline(&xerr));
    PngFacts f = read_png(path, 80 + 25, 50 + 45 + 5);
    ck_assert_uint_eq(f.w, 320);
    ck_assert_uint_eq(f.h, 200);
    ck_assert(!f.has_time);
    ck_assert_str_eq(f.title, "Attention tour");
    ck_assert_str_eq(f.description, "softmax: Atención");          /* iTXt, UTF-8 */
    ck_assert_str_eq(f.software, "attnlab " ATTNLAB_VERSION);
    ck_assert(same(f.centre, ((Color){ 60, 90, 110, 255 })));
    /* png_image agrees on size and pixels. */
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    ck_assert(png_image_begin_read_from_file(&im, path));
    ck_assert_uint_eq(im.width, 320);
    im.format = PNG_FORMAT_RGB;
    png_bytep buf = malloc(PNG_IMAGE_SIZE(im));
    ck_assert(png_image_finish_read(&im, NULL, buf, 0, NULL));
    png_bytep px = buf + 3 * ((50 + 45 + 5) * 320 + 80 + 25);
    ck_assert(px[0] == 60 && px[1] == 90 && px[2] == 110);
    free(buf);
    /* Deterministic: the same canvas encodes to the same bytes. */
    Buf a = { 0 }, b = { 0 };
    ck_assert_int_eq(export_png_encode(o->canvas, &meta, &a, &xerr), 0);
    ck_assert_int_eq(export_png_encode(o->canvas, &meta, &b, &xerr), 0);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert_int_eq(memcmp(a.s, b.s, a.len), 0);
    ck_assert_int_eq(memcmp(a.s, "\x89PNG\r\n\x1a\n", 8), 0);
    buf_free(&a);
    buf_free(&b);
    remove(path);
    rmdir(dir);
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

START_TEST(test_measure_grows_and_matches_drawing)
{
    ck_assert_double_eq(font_measure(tfonts, "", 14, 0), 0);
    ck_assert_double_eq(font_measure(NULL, "abc", 14, 0), 0);
    ck_assert_double_eq(font_measure(tfonts, "abc", 0, 0), 0);
    float w1 = font_measure(tfonts, "0", 14, 0);
    float w2 = font_measure(tfonts, "00", 14, 0);
    float w4 = font_measure(tfonts, "0.37", 14, 0);
    ck_assert(w1 > 0);
    ck_assert_double_eq(w2, 2 * w1);            /* unkerned, whole pixels */
    ck_assert(w4 > w2);
    ck_assert(font_measure(tfonts, "0.37", 28, 0) > w4);
    ck_assert(font_measure(tfonts, "Wide words", 14, 1) > font_measure(tfonts, "Wide words", 14, 0));
    ck_assert(font_measure(tfonts, "−∞", 14, 0) > 0);
    /* 13.6 and 14.4 are both drawn at 14 px, so they measure the same. */
    ck_assert_double_eq(font_measure(tfonts, "durmiendo", 13.6f, 0), font_measure(tfonts, "durmiendo", 14.4f, 0));
    /* The ink of a run fits the width that layout was told. */
    DrawList *d = canvas(300, 40);
    int i = text_cmd(d, (Rect){ 10, 0, 280, 40 }, "durmiendo está", 18, BLACK, ALIGN_LEFT, VALIGN_MIDDLE, 0, 0);
    Offscreen *o = paint(d);
    int bx0, by0, bx1, by1, x, y;
    ink_box(o, 0, 0, 300, 40, &bx0, &by0, &bx1, &by1);
    int width = render_text_origin(tfonts, &d->cmds[i], draw_str(d, &d->cmds[i]), &x, &y);
    ck_assert_int_eq(width, (int)font_measure(tfonts, "durmiendo está", 18, 0));
    ck_assert_int_eq(x, 10);
    ck_assert_int_ge(bx0, x);
    ck_assert_int_le(bx1 + 1, x + width + 1);
    ck_assert_int_ge(bx1 + 1, x + width - 4);
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

START_TEST(test_metrics_are_sane)
{
    FontMetrics m = font_metrics(tfonts, 20, 0);
    ck_assert_int_eq(m.px, 20);
    ck_assert_int_gt(m.ascent, m.digit_top);
    ck_assert_int_gt(m.digit_top, 10);
    ck_assert_int_gt(m.descent, 0);
    ck_assert_int_ge(m.line_height, m.ascent + m.descent);
    ck_assert_int_eq(font_metrics(tfonts, 0.2f, 0).px, 0);
    ck_assert_int_eq(font_px(10000), FONT_MAX_PX);
    ck_assert_ptr_nonnull(strstr(font_path(tfonts, 0), "DejaVuSans"));
}
END_TEST

START_TEST(test_export_to_bad_places_fails_cleanly)
{
    DrawList *d = sample_heatmap();
    Offscreen *o = paint(d);
    ExportMeta meta = { "t", "d" };
    ck_assert_int_eq(export_png(o->canvas, "/nonexistent-attnlab-dir/x.png", &meta, &xerr), -1);
    ck_assert_ptr_nonnull(strstr(eline(&xerr), "/nonexistent-attnlab-dir/x.png"));
    ck_assert_int_eq(access("/nonexistent-attnlab-dir", F_OK), -1);
    /* A "directory" that is a file. */
    ck_assert_int_eq(export_png(o->canvas, "cli.sh/x.png", &meta, &xerr), -1);
    ck_assert_ptr_nonnull(strstr(eline(&xerr), "cannot write"));
    ck_assert_int_eq(export_png(o->canvas, "", &meta, &xerr), -1);
    ck_assert_str_ne(eline(&xerr), "");
    /* A directory without write permission (root may write anyway). */
    char dir[64], path[128];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/x.png", dir);
    chmod(dir, 0500);
    int rc = export_png(o->canvas, path, &meta, &xerr);
    if (geteuid() != 0) {
        ck_assert_int_eq(rc, -1);
        ck_assert_ptr_nonnull(strstr(eline(&xerr), path));
    }
    chmod(dir, 0700);
    ck_assert_int_eq(dir_entries(dir), rc == 0 ? 1 : 0);    /* no temporary left */
    remove(path);
    rmdir(dir);
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

START_TEST(test_missing_font_says_what_to_install)
{
    font_free(tfonts);
    tfonts = NULL;
    FontSet *fs = font_create("/nonexistent/attnlab-font.ttf", &ferr);
    ck_assert_ptr_null(fs);
    ck_assert_ptr_nonnull(strstr(eline(&ferr), "/nonexistent/attnlab-font.ttf"));
    ck_assert_ptr_nonnull(strstr(eline(&ferr), FONT_PACKAGE));
    /* A file that is no font. */
    fs = font_create("cli.sh", &ferr);
    ck_assert_ptr_null(fs);
    ck_assert_ptr_nonnull(strstr(eline(&ferr), "cli.sh"));
    ck_assert_ptr_nonnull(strstr(eline(&ferr), FONT_PACKAGE));
    /* An explicit good path works, bold synthesised from it. */
    fs = font_create("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", &ferr);
    if (fs) {
        ck_assert(font_measure(fs, "abc", 14, 1) >= font_measure(fs, "abc", 14, 0));
        font_free(fs);
    }
}
END_TEST

START_TEST(test_offscreen_bad_sizes)
{
    ck_assert_ptr_null(render_offscreen_create(0, 10, tfonts, &rerr));
    ck_assert_ptr_nonnull(strstr(eline(&rerr), "out of range"));
    ck_assert_ptr_null(render_offscreen_create(10, -3, tfonts, &rerr));
    ck_assert_ptr_null(render_offscreen_create(RENDER_MAX_SIDE + 1, 10, tfonts, &rerr));
    ck_assert_ptr_null(render_offscreen_create(10, 10, NULL, &rerr));
    Offscreen *o = render_offscreen_create(1, 1, tfonts, &rerr);
    ck_assert_ptr_nonnull(o);
    Color black = render_offscreen_pixel(o, 5, 5);      /* outside: black, no crash */
    ck_assert_int_eq(black.r, 0);
    render_offscreen_free(o);
    render_offscreen_free(NULL);
}
END_TEST

START_TEST(test_degenerate_commands_draw_nothing)
{
    float nan = NAN;
    DrawList *d = canvas(80, 60);
    d->background = (Color){ 10, 200, 30, 255 };
    draw_rect(d, (Rect){ nan, 5, 10, 10 }, BLACK, ROLE_CELL);
    draw_rect(d, (Rect){ 5, 5, 0, 10 }, BLACK, ROLE_CELL);
    draw_rect(d, (Rect){ 5, 5, -10, 10 }, BLACK, ROLE_CELL);
    draw_rect(d, (Rect){ 5, 5, 50, 50 }, (Color){ 0, 0, 0, 0 }, ROLE_CELL);  /* invisible */
    draw_rect(d, (Rect){ -1e9f, -1e9f, 1e9f, 1e9f }, BLACK, ROLE_CELL);      /* far away */
    draw_line(d, 40, 30, 40, 30, BLACK, 3, ROLE_DECOR);
    draw_line(d, nan, 0, 10, 10, BLACK, 3, ROLE_DECOR);
    draw_text(d, (Rect){ 0, 0, 80, 60 }, "zero", 0, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    draw_text(d, (Rect){ 0, 0, 80, 60 }, "nan", nan, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    draw_text(d, (Rect){ 0, 0, 80, 60 }, "", 12, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    draw_text(d, (Rect){ 5000, 5000, 80, 60 }, "far", 12, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    draw_text(d, (Rect){ nan, 0, 80, 60 }, "nan box", 12, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    Offscreen *o = paint(d);
    for (int y = 0; y < 60; y++)
        for (int x = 0; x < 80; x++)
            ck_assert_msg(same(render_offscreen_pixel(o, x, y), d->background), "(%d,%d) drawn", x, y);
    /* Huge and malformed text, partly off the canvas: drawn, no crash. */
    draw_text(d, (Rect){ -20, -20, 120, 100 }, "\xff\xc3(\xe2\x88 W", 900, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    ck_assert_int_eq(render_drawlist(o->render, d, NULL), 0);
    int bx0, by0, bx1, by1;
    ck_assert_int_gt(ink_box(o, 0, 0, 80, 60, &bx0, &by0, &bx1, &by1), 0);
    render_offscreen_free(o);
    draw_free(d);
}
END_TEST

/* Whether two canvases agree on [x0,x1)x[y0,y1). */
static int same_region(const Offscreen *a, const Offscreen *b, int x0, int y0, int x1, int y1)
{
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            if (!same(render_offscreen_pixel(a, x, y), render_offscreen_pixel(b, x, y))) return 0;
    return 1;
}

START_TEST(test_glyph_cache_starts_over_cleanly)
{
    /* A frame whose huge glyphs overflow every atlas page makes the cache
    ** start over halfway through it. The small run drawn before the reset,
    ** and the same run drawn afterwards, must look as with a fresh cache. */
    static const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    DrawList *small = canvas(400, 400);
    draw_text(small, (Rect){ 300, 0, 100, 40 }, "0.37 −∞", 16, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    Offscreen *ref = paint(small);
    DrawList *big = canvas(400, 400);
    draw_text(big, (Rect){ 300, 0, 100, 40 }, "0.37 −∞", 16, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    for (int k = 0; k < 4; k++)     /* upright ink stays below y=100, turned left of x=300 */
        text_cmd(big, (Rect){ 0, 100, 400, 300 }, alphabet, 250, BLACK, ALIGN_LEFT, VALIGN_TOP,
                 k & 1, k & 2 ? 90 : 0);
    for (int batched = 0; batched < 2; batched++) {
        Offscreen *o = render_offscreen_create(400, 400, tfonts, &rerr);
        render_set_batched(o->render, batched);
        uint32_t gen0 = font_cache_generation(tfonts);
        ck_assert_int_eq(render_drawlist(o->render, big, NULL), 0);
        ck_assert_uint_gt(font_cache_generation(tfonts), gen0);
        ck_assert_int_le(font_page_count(tfonts), FONT_MAX_PAGES);
        ck_assert_msg(same_region(o, ref, 300, 0, 400, 40), "run before the reset (batched=%d)", batched);
        ck_assert_int_eq(render_drawlist(o->render, small, NULL), 0);
        ck_assert_msg(same_region(o, ref, 0, 0, 400, 400), "run after the reset (batched=%d)", batched);
        render_offscreen_free(o);
    }
    render_offscreen_free(ref);
    draw_free(small);
    draw_free(big);
}
END_TEST

/* The render suite. */
Suite *render_suite(void)
{
    Suite *s = suite_create("render");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, tfonts_setup, tfonts_teardown);
    tcase_add_test(core, test_cell_centre_exact_colour);
    tcase_add_test(core, test_fractional_cells_tile_without_gaps);
    tcase_add_test(core, test_image_draws_as_its_blocks);
    tcase_add_test(core, test_translucent_rect_blends);
    tcase_add_test(core, test_canvas_blend_is_sdls);
    tcase_add_test(core, test_canvas_fill_is_sdls);
    tcase_add_test(core, test_outline_is_a_frame);
    tcase_add_test(core, test_text_ink_stays_in_its_box);
    tcase_add_test(core, test_text_alignment_and_colour);
    tcase_add_test(core, test_unicode_signs_have_glyphs_and_ink);
    tcase_add_test(core, test_rotated_text_is_the_run_turned);
    tcase_add_test(core, test_lines_solid_thick_and_dashed);
    tcase_add_test(core, test_dash_pattern_same_in_png_and_svg);
    tcase_add_test(core, test_render_twice_identical);
    tcase_add_test(core, test_batched_path_matches_direct);
    tcase_add_test(core, test_png_roundtrip);
    tcase_add_test(core, test_measure_grows_and_matches_drawing);
    tcase_add_test(core, test_metrics_are_sane);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, tfonts_setup, tfonts_teardown);
    tcase_set_timeout(limits, 30);
    tcase_add_test(limits, test_export_to_bad_places_fails_cleanly);
    tcase_add_test(limits, test_missing_font_says_what_to_install);
    tcase_add_test(limits, test_offscreen_bad_sizes);
    tcase_add_test(limits, test_degenerate_commands_draw_nothing);
    tcase_add_test(limits, test_glyph_cache_starts_over_cleanly);
    suite_add_tcase(s, limits);
    return s;
}
