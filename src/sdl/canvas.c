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
** Integer division by 255 and the shifts are exactly SDL's. Both blends
** work on two channels at a time: each product is below 2^16, so channels
** 16 bits apart do not interfere, and x/255 = (x + (x >> 8) + 1) >> 8
** exactly for every x up to 255·255 (checked for all of them), which
** divides both lanes at once. Text is white glyphs under one tint for
** thousands of pixels, so what a white pixel of each coverage becomes
** under the tint (its premultiplied colour and alpha) is a table of 256,
** made again only when the tint changes.
*/
#define _DEFAULT_SOURCE     /* madvise */
#include "canvas.h"
#include "core/util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CANVAS_X86 1
#include <immintrin.h>
#endif

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
    c->tint_set = false;
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

/* x / 255 in both 16-bit lanes of v (each at most 255·255). */
static inline uint32_t div255_lanes(uint32_t v)
{
    return ((v + ((v >> 8) & 0x00FF00FFu) + 0x00010001u) >> 8) & 0x00FF00FFu;
}

/* The canvas pixel d under a source already premultiplied and packed
** (alpha sa on top): s + (255 - sa)·d/255 in every channel. */
static inline uint32_t over(uint32_t s, uint32_t d)
{
    uint32_t k = 255 - (s >> 24);
    return s + div255_lanes((d & 0x00FF00FFu) * k) + (div255_lanes(((d >> 8) & 0x00FF00FFu) * k) << 8);
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
    uint32_t a = col.a, src = a << 24 | (col.r * a / 255) << 16 | (col.g * a / 255) << 8 | (col.b * a / 255);
    for (int y = y0; y < y1; y++) {
        uint32_t *row = canvas_row(c, y) + x0;
        for (size_t i = 0; i < n; i++) row[i] = over(src, row[i]);
    }
}

/* Source pixel s under modulation m, as SDL's generic blitter takes it:
** colour and alpha modulated, premultiplied when not opaque, packed. */
static uint32_t modulated(uint32_t s, Color m)
{
    uint32_t sa = (s >> 24) * m.a / 255;
    uint32_t r = ((s >> 16) & 255) * m.r / 255, g = ((s >> 8) & 255) * m.g / 255, b = (s & 255) * m.b / 255;
    if (sa < 255) {
        r = r * sa / 255;
        g = g * sa / 255;
        b = b * sa / 255;
    }
    return sa << 24 | r << 16 | g << 8 | b;
}

#ifdef CANVAS_X86
/* Eight canvas pixels d under eight source pixels s (white or empty: the
** caller checks) tinted by tint_of: the same integer steps as tint_of and
** over() in each 32-bit lane, so the same pixels as blend_row's loop. */
__attribute__((target("avx2")))
static inline __m256i tinted8(const uint32_t tint_of[256], __m256i s, __m256i d, __m256i empty)
{
    const __m256i lanes = _mm256_set1_epi32(0x00FF00FF), one = _mm256_set1_epi32(0x00010001);
    const __m256i c255 = _mm256_set1_epi32(255);
    __m256i t = _mm256_i32gather_epi32((const int *)tint_of, _mm256_srli_epi32(s, 24), 4);
    __m256i k = _mm256_sub_epi32(c255, _mm256_srli_epi32(t, 24));
    __m256i lo = _mm256_mullo_epi32(_mm256_and_si256(d, lanes), k);
    __m256i hi = _mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(d, 8), lanes), k);
    lo = _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(lo, _mm256_and_si256(_mm256_srli_epi32(lo, 8), lanes)), one), 8), lanes);
    hi = _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(hi, _mm256_and_si256(_mm256_srli_epi32(hi, 8), lanes)), one), 8), lanes);
    __m256i mixed = _mm256_add_epi32(t, _mm256_add_epi32(lo, _mm256_slli_epi32(hi, 8)));
    __m256i out = _mm256_blendv_epi8(mixed, t, _mm256_cmpeq_epi32(k, _mm256_setzero_si256()));
    return _mm256_blendv_epi8(out, d, empty);
}

/*
** The tinted blend of blend_row, eight pixels a step (the last step
** masked), while every pixel is white or empty (glyph coverage). A step
** with any other colour ends the vector part; returns the pixels done.
*/
__attribute__((target("avx2")))
static int blend_tinted_avx2(const uint32_t tint_of[256], uint32_t *dp, const uint32_t *sp, int n)
{
    const __m256i rgb = _mm256_set1_epi32(0xFFFFFF), zero = _mm256_setzero_si256();
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int i = 0;
    while (i < n) {
        /* lanes past n are neither read nor written: they load as empty */
        __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - i), index);
        __m256i s = _mm256_maskload_epi32((const int *)(sp + i), in);
        __m256i empty = _mm256_cmpeq_epi32(_mm256_srli_epi32(s, 24), zero);
        if (_mm256_movemask_epi8(empty) != -1) {
            __m256i white = _mm256_cmpeq_epi32(_mm256_and_si256(s, rgb), rgb);
            if (_mm256_movemask_epi8(_mm256_or_si256(white, empty)) != -1) break;
            __m256i d = _mm256_maskload_epi32((const int *)(dp + i), in);
            _mm256_maskstore_epi32((int *)(dp + i), in, tinted8(tint_of, s, d, empty));
        }
        i += n - i < 8 ? n - i : 8;
    }
    return i;
}
#endif

/* Blend n source pixels onto dp, modulated by mod (see the top of the file). */
static void blend_row(Canvas *c, uint32_t *dp, const uint32_t *sp, int n, Color mod)
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
    if (!c->tint_set || memcmp(&c->tint, &mod, sizeof mod) != 0) {
        for (uint32_t a = 0; a < 256; a++) c->tint_of[a] = modulated(a << 24 | 0xFFFFFFu, mod);
        c->tint = mod;
        c->tint_set = true;
    }
    int i = 0;
#ifdef CANVAS_X86
    static int avx2 = -1;
    if (avx2 < 0) avx2 = __builtin_cpu_supports("avx2") != 0;
    if (avx2) i = blend_tinted_avx2(c->tint_of, dp, sp, n);
#endif
    for (; i < n; i++) {
        uint32_t s = sp[i];
        if (!(s >> 24)) continue;
        /* a white pixel (a glyph's coverage) from the table; any other (a
        ** colour glyph under a translucent text colour) worked out */
        uint32_t t = (s & 0xFFFFFFu) == 0xFFFFFFu ? c->tint_of[s >> 24] : modulated(s, mod);
        dp[i] = t >> 24 == 255 ? t : over(t, dp[i]);
    }
}

/* Blend a bitmap with its top-left at (x, y), clipped to the canvas. */
void canvas_blend(Canvas *c, const uint32_t *src, size_t stride, int w, int h, int x, int y, Color mod)
{
    int x0 = x, y0 = y, x1 = x + w, y1 = y + h;
    if (!clip(c, &x0, &y0, &x1, &y1)) return;
    for (int j = y0; j < y1; j++)
        blend_row(c, canvas_row(c, j) + x0, src + (size_t)(j - y) * stride + (x0 - x), x1 - x0, mod);
}
