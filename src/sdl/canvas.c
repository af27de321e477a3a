/*
** canvas.c: a picture in memory (canvas.h), drawn on with SDL 2.26's
** software arithmetic, so that a PNG has the pixels the window shows.
**
** What SDL 2.26 does, for an ARGB8888 target, and so what this file does:
**
** - An opaque fill stores the colour (SDL_FillRect).
** - A translucent fill of colour c (SDL_BlendFillRect, blend mode BLEND)
**   first premultiplies, c' = c·a/255 per channel, then for each pixel d:
**   d' = (255 − a)·d/255 + c', the alpha channel alike with a itself.
** - A texture pixel s (straight alpha a = s's top byte) blitted in blend
**   mode goes one of two ways:
**   · no modulation (colour and alpha modulation 255, SDL's pixel-alpha blit,
**     which shifts instead of dividing): a = 0 keeps d, a = 255 stores s,
**     otherwise each colour channel d' = (s·a >> 8) + (d·(255 − a) >> 8) and
**     the alpha channel d' = (255·a >> 8) + (d·(255 − a) >> 8);
**   · with modulation m (the generic blitter): sa = a·m.a/255, each colour
**     channel s' = s·m/255, premultiplied when sa < 255 (s' = s'·sa/255),
**     then d' = s' + (255 − sa)·d/255, the alpha channel d' = sa + (255 −
**     sa)·d/255.
**   Glyphs are white with their coverage in alpha and tinted by modulation
**   with the text colour; colour glyphs (emoji) keep their colours and take
**   only the text's opacity.
**
** Integer division by 255 and the shifts are exactly SDL's; the pixel-alpha
** blit works on two channels at a time (each product is below 2^16, so
** channels 16 bits apart do not interfere).
*/
#define _DEFAULT_SOURCE     /* madvise */
#include "canvas.h"
#include "core/util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Transparent huge pages: 2 MB. */
#define HUGE_PAGE ((size_t)2 << 20)

/*
** A canvas whose pixels are left for the first fill. Not calloc: every
** frame starts by filling the whole canvas with its background, and the
** kernel gives fresh pages zeroed anyway. A canvas of 2 MB or more (1280 x
** 720 is 3.5 MB) is aligned to 2 MB and asks for transparent huge pages,
** where Linux has them: its first frame then takes two page faults
** instead of nine hundred, which is a tenth of a one-stage export's time
** (docs/performance.md). Without them it is ordinary memory.
*/
Canvas *canvas_create(int w, int h)
{
    if (w < 1 || h < 1 || w > 16384 || h > 16384) return NULL;
    size_t bytes = (size_t)w * (size_t)h * sizeof(uint32_t);
    void *px = NULL;
    if (bytes >= HUGE_PAGE) {
        size_t whole = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        if (posix_memalign(&px, HUGE_PAGE, whole) != 0) px = NULL;
#ifdef MADV_HUGEPAGE
        if (px) madvise(px, whole, MADV_HUGEPAGE);      /* a hint: failing changes nothing */
#endif
    } else {
        px = malloc(bytes);
    }
    if (!px) return NULL;
    Canvas *c = xmalloc(sizeof *c);
    c->w = w;
    c->h = h;
    c->stride = (size_t)w;
    c->pixels = px;
    return c;
}

/* Release the canvas. */
void canvas_free(Canvas *c)
{
    if (!c) return;
    free(c->pixels);
    free(c);
}

/* Clip [x0, x1) x [y0, y1) to the canvas; false when nothing is left. */
static bool clip(const Canvas *c, int *x0, int *y0, int *x1, int *y1)
{
    if (*x0 < 0) *x0 = 0;
    if (*y0 < 0) *y0 = 0;
    if (*x1 > c->w) *x1 = c->w;
    if (*y1 > c->h) *y1 = c->h;
    return *x1 > *x0 && *y1 > *y0;
}

/* An opaque colour as a pixel. */
static uint32_t argb(Color c)
{
    return 0xFF000000u | (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b;
}

/* Fill a rectangle: a store when opaque, SDL_BlendFillRect's blend when not. */
void canvas_fill(Canvas *c, int x0, int y0, int x1, int y1, Color col)
{
    if (col.a == 0 || !clip(c, &x0, &y0, &x1, &y1)) return;
    size_t n = (size_t)(x1 - x0);
    if (col.a == 255) {
        uint32_t px = argb(col);
        uint32_t *first = canvas_row(c, y0) + x0;
        for (size_t i = 0; i < n; i++) first[i] = px;
        /* Wide rows: copy the first one (memcpy moves 32 bytes a step). */
        for (int y = y0 + 1; y < y1; y++) {
            uint32_t *row = canvas_row(c, y) + x0;
            if (n > 16) memcpy(row, first, n * sizeof *row);
            else for (size_t i = 0; i < n; i++) row[i] = px;
        }
        return;
    }
    uint32_t a = col.a, inva = 255 - a;
    uint32_t r = col.r * a / 255, g = col.g * a / 255, b = col.b * a / 255;
    for (int y = y0; y < y1; y++) {
        uint32_t *row = canvas_row(c, y) + x0;
        for (size_t i = 0; i < n; i++) {
            uint32_t d = row[i];
            row[i] = (inva * (d >> 24) / 255 + a) << 24 | (inva * ((d >> 16) & 255) / 255 + r) << 16
                   | (inva * ((d >> 8) & 255) / 255 + g) << 8 | (inva * (d & 255) / 255 + b);
        }
    }
}

/* Blend n source pixels onto dp, modulated by mod (see the top of the file). */
void canvas_blend_row(uint32_t *dp, const uint32_t *sp, int n, Color mod)
{
    if (mod.r == 255 && mod.g == 255 && mod.b == 255 && mod.a == 255) {
        for (int i = 0; i < n; i++) {
            uint32_t s = sp[i], a = s >> 24;
            if (!a) continue;
            if (a == 255) {
                dp[i] = s;
                continue;
            }
            uint32_t k = 255 - a, d = dp[i];
            s |= 0xFF000000u;               /* the alpha channel takes 255·a */
            uint32_t lo = (((s & 0x00FF00FFu) * a >> 8) & 0x00FF00FFu) + (((d & 0x00FF00FFu) * k >> 8) & 0x00FF00FFu);
            uint32_t hi = ((((s >> 8) & 0x00FF00FFu) * a >> 8) & 0x00FF00FFu)
                        + ((((d >> 8) & 0x00FF00FFu) * k >> 8) & 0x00FF00FFu);
            dp[i] = lo + (hi << 8);
        }
        return;
    }
    uint32_t mr = mod.r, mg = mod.g, mb = mod.b, ma = mod.a;
    for (int i = 0; i < n; i++) {
        uint32_t s = sp[i], a = s >> 24;
        if (!a) continue;
        uint32_t sa = a * ma / 255, k = 255 - sa, d = dp[i];
        uint32_t r = ((s >> 16) & 255) * mr / 255, g = ((s >> 8) & 255) * mg / 255, b = (s & 255) * mb / 255;
        if (sa < 255) {
            r = r * sa / 255;
            g = g * sa / 255;
            b = b * sa / 255;
        }
        dp[i] = (sa + k * (d >> 24) / 255) << 24 | (r + k * ((d >> 16) & 255) / 255) << 16
              | (g + k * ((d >> 8) & 255) / 255) << 8 | (b + k * (d & 255) / 255);
    }
}

/* Blend a bitmap with its top-left at (x, y), clipped to the canvas. */
void canvas_blend(Canvas *c, const uint32_t *src, size_t stride, int w, int h, int x, int y, Color mod)
{
    int x0 = x, y0 = y, x1 = x + w, y1 = y + h;
    if (!clip(c, &x0, &y0, &x1, &y1)) return;
    for (int j = y0; j < y1; j++)
        canvas_blend_row(canvas_row(c, j) + x0, src + (size_t)(j - y) * stride + (x0 - x), x1 - x0, mod);
}
