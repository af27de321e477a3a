/*
** font.h: text in any script: fonts, fallback, shaping, glyph atlas.
**
** attnlab draws its text in DejaVu Sans (regular and bold). A character
** DejaVu Sans lacks is drawn from the first font in DejaVu Sans's fontconfig
** fallback list that has it (Noto Sans CJK, Noto Sans Devanagari, ...;
** emoji from a colour font such as Noto Color Emoji). Fallback fonts are
** opened only when a string needs them, and fontconfig itself is started
** only then (or on a thread of its own when font_warm asks, as the window
** does), so an export of a lesson in Latin, Greek or Cyrillic reads no
** other font and no font configuration. font_create takes DejaVu Sans
** from Debian's /usr/share/fonts/truetype/dejavu/, or where fontconfig
** finds it when it is not there, or an explicit file (the app's --font
** option, which then comes first, before DejaVu Sans's fallbacks); on
** failure it returns NULL and its Error says what to install. Nothing
** exits.
**
**     Error e;
**     FontSet *fs = font_create(NULL, &e);     // or font_create("/x/y.ttf", &e)
**     if (!fs) { error_print(&e, stderr); return error_exit_code(&e); }
**     layout_defaults(w, h, theme, font_measure, fs);   // fs is the ctx
**     ...
**     font_free(fs);
**
** Shaping. font_shape turns (string, pixel size, weight) into a FontRun:
** glyph ids of particular fonts, each at a whole-pixel offset from the pen,
** in visual (left-to-right) order. Complex text is shaped by HarfBuzz and
** put in bidirectional order by FriBidi: Arabic joins, Devanagari
** conjuncts form, Hebrew and Arabic read right to left with numbers and
** Latin words in between kept left to right. Plain text that DejaVu Sans
** covers and that needs no shaping (Latin, Greek, Cyrillic, mathematical
** signs) takes a fast path: one glyph per character, hinted advances, no
** kerning, exactly as the program always placed it.
**
** The run cache. The FontSet owns a cache of runs, keyed by (string, pixel
** size, weight): nothing else changes a run, since a FontSet's fonts and
** the order it falls back through them are fixed for its life, and the
** language HarfBuzz is told is the process's, read once. Measuring
** (font_measure, given to the layout) and every drawing of the list laid
** out (render.c's window and PNG, the SVG's font list font_families, the
** PDF) use the very same run, so a frame shapes each string at each size
** once, and a steady frame shapes nothing. It is bounded: at most
** FONT_RUNS_MAX runs and FONT_RUN_BYTES_MAX bytes of text and glyphs. When
** a new run would pass either bound, the least recently used half of the
** runs goes (asked for by any call: a hit counts as a use), so a frame of
** fewer than FONT_RUNS_MAX / 2 strings still finds, when it draws, every
** run it measured. Nothing else removes a run before font_free.
**
** Glyphs. Every glyph is rasterised once per (font, glyph id, pixel size,
** rotation) into atlas pages: ARGB8888 pixels in memory, FONT_PAGE_SIZE
** wide, that start a few rows tall and grow as shelves of glyphs fill
** them, which the renderer (render.h) blends from or mirrors into
** textures. Outline glyphs are white with coverage in alpha and
** are tinted when drawn; colour glyphs (emoji) hold their own colours and
** are drawn untinted. Bitmaps of rotated text are stored already turned.
** A vector output (the PDF) takes a colour glyph as a picture instead
** (font_picture): the font's own bitmap, not shrunk, and the atlas's box.
**
** Ownership: the FontSet owns its fonts, runs, glyphs and pages. font_glyph
** returns a copy. A FontRun from font_shape stays valid until the next
** font_shape or font_measure call (a new run may make older ones go).
** Pages are created on demand and live as long as the FontSet:
** font_cache_reset empties them in place but never frees one, so a page
** index a frame holds stays valid. A page's pixels
** move when it grows (font_glyph may grow it): read them through
** font_page at each use, never keep the pointer across a font_glyph.
*/
#ifndef ATTNLAB_FONT_H
#define ATTNLAB_FONT_H

#include <stdint.h>
#include "view/draw.h"
#include "core/error.h"

/* The Debian package that provides the default font. */
#define FONT_PACKAGE "fonts-dejavu-core"
/* The packages font_package_for may suggest. */
#define FONT_PACKAGES 3
/* Pixel sizes are clamped to this range (text smaller than 1 px is skipped). */
#define FONT_MIN_PX 1
#define FONT_MAX_PX 256
/* Atlas pages are this many pixels wide and at most this many tall (a
** texture mirrors a page as a square), */
#define FONT_PAGE_SIZE 1024
/* ... and start this many rows tall, doubling as glyphs need. */
#define FONT_PAGE_FIRST_ROWS 64
/* At most this many pages; when they are full the cache starts over. */
#define FONT_MAX_PAGES 8
/* Every page has an opaque white FONT_WHITE-pixel square at (0, 0): a GPU
** renderer draws rectangles and lines with it, tinted, so that they share
** one texture (and one draw call) with the text. */
#define FONT_WHITE 4
/* The run cache holds at most this many runs and bytes (see above). */
#define FONT_RUNS_MAX 32768
#define FONT_RUN_BYTES_MAX ((size_t)32 << 20)
/* Font files larger than this are refused (the biggest CJK collections are
** about 20 MiB). */
#define FONT_MAX_FILE ((size_t)64 << 20)

typedef struct FontSet FontSet;

/* Vertical metrics of one (pixel size, weight), in whole pixels. */
typedef struct FontMetrics {
    int px;             /* the pixel size actually used */
    int ascent;         /* baseline to the top of the tallest glyphs (> 0) */
    int descent;        /* baseline to the bottom of the lowest glyphs (>= 0) */
    int line_height;    /* recommended distance between baselines */
    int digit_top;      /* baseline to the top of the digit '0' (for centring) */
} FontMetrics;

/* One glyph of a shaped run. */
typedef struct FontRunGlyph {
    uint32_t gid;       /* glyph id in its font */
    uint16_t face;      /* which font of the FontSet */
    int32_t x, y;       /* pen position from the run's origin, whole pixels (y down) */
    uint32_t byte;      /* where in the text the character it draws begins (its
                           cluster: glyphs of one character, or of characters
                           drawn as one, share it), for text a PDF can search */
} FontRunGlyph;

/* A shaped run: glyphs in visual order, left to right. */
typedef struct FontRun {
    int width;          /* advance width of the whole run, in pixels */
    int n;              /* glyphs */
    const FontRunGlyph *g;
} FontRun;

/* One cached glyph: where it sits relative to its pen and in the atlas. */
typedef struct FontGlyph {
    int16_t advance;    /* hinted advance (the fast path's pen step), in pixels */
    int16_t dx, dy;     /* top-left of the bitmap relative to the pen on the baseline
                           (already rotated when the glyph is) */
    uint16_t w, h;      /* bitmap size on screen; 0 when there is no ink */
    uint16_t ax, ay;    /* top-left of the bitmap in its atlas page */
    int16_t page;       /* atlas page, or -1 when not rasterised (or no ink) */
    uint8_t rotated;    /* 1: bitmap turned 90 degrees counter-clockwise */
    uint8_t rastered;   /* 1: raster attempt done (page may still be -1: no ink) */
    uint8_t color;      /* 1: a colour bitmap, drawn untinted */
} FontGlyph;

/* One atlas page: the glyph bitmaps and what changed since when. */
typedef struct FontPage {
    uint32_t *pixels;       /* rows of FONT_PAGE_SIZE ARGB8888 pixels (straight alpha) */
    int rows;               /* rows allocated, FONT_PAGE_FIRST_ROWS .. FONT_PAGE_SIZE; all but [0, used_h) are clear */
    uint32_t version;       /* bumped whenever a glyph is added */
    int shelf_y;            /* top of the shelf being filled: rows above are final */
    int used_h;             /* rows [0, used_h) may hold ink */
} FontPage;

/* Load DejaVu Sans via fontconfig (path NULL) or the font file at path (used
** for both weights, bold synthesised). Returns NULL on failure with err
** filled ("font: ...", about no file; ERR_IO for a font file that cannot
** be used, ERR_RUNTIME when FreeType or DejaVu Sans is missing). */
FontSet *font_create(const char *path, Error *err);
/* Release a FontSet and everything it owns (NULL is fine). */
void font_free(FontSet *fs);
/* Start fontconfig and sort DejaVu Sans's fallback lists on a thread of
** their own, so that the first string in a script DejaVu Sans lacks does
** not wait for them (fontconfig's start and one list: about 41 million
** instructions, 5 to 20 ms): the window calls it at start-up; a
** one-picture export does not, since a Latin lesson never needs
** fontconfig. The FontSet takes the result when
** it first needs fontconfig, waiting for the thread if it still runs.
** Nothing when fontconfig has started already. */
void font_warm(FontSet *fs);
/* The file used for a weight (0 regular, 1 bold). */
const char *font_path(const FontSet *fs, int bold);

/* Round a DrawList size to the pixel size used: 0 when it draws nothing. */
int font_px(float size);
/* MeasureFn for layout: width in pixels of UTF-8 text at size; ctx is a FontSet. */
float font_measure(void *ctx, const char *text, float size, int bold);
/* Vertical metrics at a size (all zero if size draws nothing). */
FontMetrics font_metrics(FontSet *fs, float size, int bold);
/* Whether the main font (DejaVu Sans, or --font's) has a glyph for cp. */
int font_has_glyph(FontSet *fs, uint32_t cp, int bold);
/* Whether any installed font (the main one or a fallback) can draw cp.
** Controls and invisible format characters count as drawable. */
int font_can_draw(FontSet *fs, uint32_t cp);
/* The Debian package that would bring a font for cp (a best guess by
** script), or NULL when none would: cp is not an assigned character (a
** noncharacter such as U+FFFE, private use, unassigned) or the package for
** its script is installed and still lacks it. fs NULL: do not ask which
** packages are installed. */
const char *font_package_for(FontSet *fs, uint32_t cp);

/* The shaped run of UTF-8 text at a pixel size and weight (cached; see
** above for how long it stays valid). px out of range gives an empty run. */
FontRun font_shape(FontSet *fs, const char *text, int px, int bold);
/* A comma-separated CSS font-family list of the fonts that the text
** commands of d are drawn with, main font first, ending in "sans-serif"
** (caller frees). */
char *font_families(FontSet *fs, const DrawList *d);
/* The family name of font i of a run's glyphs. */
const char *font_face_family(const FontSet *fs, int face);
/* The file of font i, and its face index in that file (a .ttc collection). */
const char *font_face_path(const FontSet *fs, int face, int *index);
/* Whether font i is a regular font made bold by thickening its outlines. */
int font_face_emboldened(const FontSet *fs, int face);
/* Whether font i is a colour font (emoji): its glyphs are pictures
** (font_picture) wherever they cannot be drawn as text. */
int font_face_color(const FontSet *fs, int face);

/* The glyph gid of font face at a pixel size and rotation (0, or 1 = 90
** degrees counter-clockwise); rasterised into a page on first use when
** raster is set. For px out of range the glyph is empty (page -1). */
FontGlyph font_glyph(FontSet *fs, int face, uint32_t gid, int px, int rotated, int raster);
/* A colour glyph (an emoji of a colour bitmap font) as a picture, for a
** vector output that cannot draw it as text: FreeType's own bitmap, at the
** font's size (a bitmap font's strike is not shrunk), and the box in which
** the atlas draws it at px: top-left (x, y) from the pen, dw x dh pixels. */
typedef struct FontPicture {
    int w, h;               /* the bitmap's pixels (0 x 0: no ink, nothing to draw) */
    uint32_t *argb;         /* w * h pixels, rows top down, premultiplied ARGB (caller frees) */
    int x, y, dw, dh;       /* where it goes, in pixels from the pen (y down) */
    int made_at;            /* the pixel size the bitmap was made at: a bitmap font's
                               strike, the same at every px (one picture serves all) */
    int thickened;          /* made from outlines thickened for a synthesised bold: not
                               the regular weight's picture (a bitmap font's never is) */
} FontPicture;
/* Glyph gid of font face at px as a picture: 1 with *pic filled when it is
** a colour glyph (free pic->argb), 0 when it is not (draw it as text: pic
** is empty), -1 when it is one of a colour font but FreeType cannot read
** it (a damaged font: the PNG draws nothing there either). */
int font_picture(FontSet *fs, int face, uint32_t gid, int px, FontPicture *pic);
/* Create page 0 if there is none yet; returns 0, or -1 without memory. */
int font_first_page(FontSet *fs);
/* Number of atlas pages in use. */
int font_page_count(const FontSet *fs);
/* Page i (0 <= i < font_page_count). */
const FontPage *font_page(const FontSet *fs, int i);
/* Bumped each time the cache starts over (every page must be re-uploaded). */
uint32_t font_cache_generation(const FontSet *fs);
/* True when a raster attempt found every page full: call font_cache_reset. */
int font_cache_full(const FontSet *fs);
/* Forget every bitmap (metrics are kept) and empty the pages in place. */
void font_cache_reset(FontSet *fs);

#endif
