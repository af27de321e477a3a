/*
** font.h: the program's typeface, its measurements and a glyph cache.
**
** attnlab draws all its text in DejaVu Sans (regular and bold). font_create
** finds the two files with fontconfig, or takes an explicit path (the app's
** --font option), and returns a FontSet; when the font cannot be found it
** returns NULL and font_error() says what to install. Nothing exits.
**
**     FontSet *fs = font_create(NULL);          // or font_create("/x/y.ttf")
**     if (!fs) { fprintf(stderr, "%s\n", font_error()); return 1; }
**     layout_defaults(w, h, theme, font_measure, fs);   // fs is the ctx
**     ...
**     font_free(fs);
**
** Sizes arrive as floats (DrawList pixels) and are rounded to whole pixels:
** one SDL_ttf font object is opened per (pixel size, weight), lazily. Every
** glyph is rasterised once per (code point, pixel size, weight, rotation) into
** atlas pages: plain ARGB8888 surfaces, white with coverage in alpha, that
** the renderer (render.h) mirrors into textures. Bitmaps of rotated text are
** stored already turned, so drawing never rotates anything. Text width is
** the sum of the glyphs' integer advances, exactly how render.c places them,
** so what layout measures is what the screen shows. No kerning, no shaping:
** the lessons are Latin text, digits and a handful of mathematical signs.
**
** Ownership: the FontSet owns its fonts, glyphs and pages. font_glyph returns
** a copy. font_page points into a fixed array, but font_cache_reset keeps
** only page 0 (and empties it): re-read font_page_count after a reset.
*/
#ifndef ATTNLAB_FONT_H
#define ATTNLAB_FONT_H

#include <stdint.h>
#include <SDL.h>

/* The Debian package that provides the default font. */
#define FONT_PACKAGE "fonts-dejavu-core"
/* Pixel sizes are clamped to this range (text smaller than 1 px is skipped). */
#define FONT_MIN_PX 1
#define FONT_MAX_PX 256
/* Atlas pages are square surfaces of this many pixels a side. */
#define FONT_PAGE_SIZE 1024
/* At most this many pages; when they are full the cache starts over. */
#define FONT_MAX_PAGES 8
/* Every page has an opaque white FONT_WHITE-pixel square at (0, 0): a GPU
** renderer draws rectangles and lines with it, tinted, so that they share
** one texture (and one draw call) with the text. */
#define FONT_WHITE 4

typedef struct FontSet FontSet;

/* Vertical metrics of one (pixel size, weight), in whole pixels. */
typedef struct FontMetrics {
    int px;             /* the pixel size actually used */
    int ascent;         /* baseline to the top of the tallest glyphs (> 0) */
    int descent;        /* baseline to the bottom of the lowest glyphs (>= 0) */
    int line_height;    /* recommended distance between baselines */
    int digit_top;      /* baseline to the top of the digit '0' (for centring) */
} FontMetrics;

/* One cached glyph: where it sits relative to the pen and in the atlas. */
typedef struct FontGlyph {
    uint32_t cp;        /* code point */
    int16_t advance;    /* pen advance along the text, in pixels */
    int16_t dx, dy;     /* top-left of the bitmap relative to the pen on the baseline
                           (already rotated when the glyph is) */
    uint16_t w, h;      /* bitmap size on screen; 0 when there is no ink */
    uint16_t ax, ay;    /* top-left of the bitmap in its atlas page */
    int16_t page;       /* atlas page, or -1 when not rasterised (or no ink) */
    uint8_t rotated;    /* 1: bitmap turned 90 degrees counter-clockwise */
    uint8_t rastered;   /* 1: raster attempt done (page may still be -1: no ink) */
} FontGlyph;

/* One atlas page: the glyph bitmaps and what changed since when. */
typedef struct FontPage {
    SDL_Surface *surface;   /* FONT_PAGE_SIZE square, ARGB8888, white + alpha */
    uint32_t version;       /* bumped whenever a glyph is added */
    int shelf_y;            /* top of the shelf being filled: rows above are final */
    int used_h;             /* rows [0, used_h) may hold ink */
} FontPage;

/* Load DejaVu Sans via fontconfig (path NULL) or the TTF file at path (used
** for both weights, bold synthesised). Returns NULL on failure: see font_error. */
FontSet *font_create(const char *path);
/* Release a FontSet and everything it owns (NULL is fine). */
void font_free(FontSet *fs);
/* Why the last font_ call failed, or "" if none did. */
const char *font_error(void);
/* The file used for a weight (0 regular, 1 bold). */
const char *font_path(const FontSet *fs, int bold);

/* Round a DrawList size to the pixel size used: 0 when it draws nothing. */
int font_px(float size);
/* MeasureFn for layout: width in pixels of UTF-8 text at size; ctx is a FontSet. */
float font_measure(void *ctx, const char *text, float size, int bold);
/* Vertical metrics at a size (all zero if size draws nothing). */
FontMetrics font_metrics(FontSet *fs, float size, int bold);
/* Whether the font has a real glyph (not the missing-glyph box) for cp. */
int font_has_glyph(FontSet *fs, uint32_t cp, int bold);

/* Decode one UTF-8 code point at *s and advance *s past it; malformed input
** gives U+FFFD and skips one byte. Returns 0 at the terminating NUL. */
uint32_t font_utf8_next(const char **s);

/* The glyph for cp at a pixel size, weight and rotation (0 or 1 = 90 degrees
** counter-clockwise); rasterised into a page on first use when raster is set.
** For px out of range the glyph is empty (advance 0, page -1). */
FontGlyph font_glyph(FontSet *fs, uint32_t cp, int px, int bold, int rotated, int raster);
/* Create page 0 if there is none yet; returns 0, or -1 without memory. */
int font_first_page(FontSet *fs);
/* Number of atlas pages in use. */
int font_page_count(const FontSet *fs);
/* Page i (0 <= i < font_page_count). */
const FontPage *font_page(const FontSet *fs, int i);
/* Bumped each time the cache starts over (every page must be re-uploaded). */
uint32_t font_cache_generation(const FontSet *fs);
/* True when a raster attempt found every page full: call font_cache_reset
** between frames. */
int font_cache_full(const FontSet *fs);
/* Forget every bitmap (metrics are kept) and empty the pages. */
void font_cache_reset(FontSet *fs);

#endif
