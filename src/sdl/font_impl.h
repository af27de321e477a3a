/*
** font_impl.h: the inside of a FontSet, shared by the three files of the
** font module: font.c (finding and opening fonts, fallback, metrics),
** font_shape.c (runs and their cache) and font_atlas.c (glyphs and pages).
** Nothing outside src/sdl/font*.c includes it.
*/
#ifndef ATTNLAB_FONT_IMPL_H
#define ATTNLAB_FONT_IMPL_H

#include "font.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include <fontconfig/fontconfig.h>
#include <hb.h>
#include <pthread.h>

/* At most this many fonts in one FontSet (main, bold, fallbacks). */
#define FONT_MAX_FACES 64

/* One font file (one face of a collection), opened on first use. */
typedef struct Face {
    char *path;
    int index;                  /* face index inside a .ttc collection */
    char *family;               /* its family name, for SVG */
    FT_Face ft;                 /* NULL until opened */
    int state;                  /* 0 not tried yet, 1 open, -1 unusable */
    int embolden;               /* bold made by emboldening the outlines */
    int color;                  /* colour bitmaps (emoji) */
    int strike;                 /* bitmap-only font: ppem of its strike; 0 scalable */
    FT_Size size[FONT_MAX_PX + 1];
    int cur_px;                 /* the FT_Size now active, 0 none */
    hb_font_t *hb;              /* HarfBuzz's font over ft, made when first shaped with (font_shape.c) */
    int hb_px;                  /* the pixel size hb was last told of */
} Face;

/* One cached glyph and its key. */
typedef struct GlyphSlot {
    uint64_t key;
    FontGlyph g;
} GlyphSlot;

/* One cached run: its string, size, weight and glyphs. */
typedef struct RunEntry {
    char *text;
    uint32_t hash;
    int px, bold;
    int width, n;
    FontRunGlyph *g;
    uint64_t used;              /* the run cache's tick when it was last asked for */
} RunEntry;

/* What font_warm's thread makes, for the FontSet to take (font.c). */
typedef struct FontWarm {
    FcConfig *fc;
    FcFontSet *sorted[2];
} FontWarm;

struct FontSet {
    FT_Library lib;
    FcConfig *fc;                   /* fontconfig once started (fc_config), for fallback queries; NULL if unavailable */
    int fc_started;
    Face face[FONT_MAX_FACES];      /* 0 regular, 1 bold, then fallbacks as found */
    int nfaces;
    FcFontSet *sorted[2];           /* DejaVu Sans's fallback list per weight, lazily */
    int sorted_done[2];
    pthread_t warm_thread;          /* font_warm's, while warming */
    int warming;                    /* 1: the thread was started and is not joined yet */
    FontWarm warm;                  /* the thread's alone until it is joined */
    /* code point -> face cache for characters the main font lacks */
    uint32_t *fb_keys;              /* cp << 1 | bold, plus 1 (0 = empty) */
    int16_t *fb_face;               /* face, or -1 for none */
    uint32_t fb_n, fb_cap;          /* used, slots (a power of two) */
    FontMetrics met[2][FONT_MAX_PX + 1];
    int pkg_state[FONT_PACKAGES];   /* font_package_for: 0 not asked, 1 installed, -1 not */

    /* glyph cache: open addressing on GlyphSlot keys */
    GlyphSlot *glyphs;
    uint32_t nglyphs, capglyphs;    /* capglyphs is a power of two */

    /* run cache: open addressing; entries own their text and glyphs; the
    ** least recently used half goes when it is full (font.h) */
    RunEntry *runs;
    uint32_t nruns, capruns;
    size_t run_bytes;
    uint64_t run_tick;              /* counts the runs asked for */
    unsigned long shaped;           /* strings shaped (runs made, not found) since font_create: for tests */

    FontPage pages[FONT_MAX_PAGES];
    int shelf_x[FONT_MAX_PAGES];    /* next free column on the current shelf */
    int shelf_h[FONT_MAX_PAGES];    /* height of the current shelf */
    int npages;                     /* pages allocated (never freed before font_free) */
    int cur;                        /* the page being filled */
    uint32_t generation;
    int full;
};

/* Face i opened and sized to px (its FT_Size active); NULL if unusable. */
FT_Face font_face_at(FontSet *fs, int face, int px);
/* The face that draws cp at a weight: the main one if it can, else the
** first fallback that has it (colour fonts first when color is set);
** -1 when none can. */
int font_face_for(FontSet *fs, uint32_t cp, int bold, int color);
/* The face each of n characters is drawn with at px: the one font_face_for
** gives (marks, joiners and selectors keep the face of the character
** before them), the main one where that cannot open (font_shape.c). */
void font_choose_faces(FontSet *fs, const uint32_t *cp, int n, int px, int bold, int *face);
/* Whether cp takes no glyph of its own (controls, format characters). */
int font_invisible(uint32_t cp);
/* Free the run cache and the HarfBuzz fonts (font_shape.c). */
void font_runs_free(FontSet *fs);
/* Free the glyph cache and pages (font_atlas.c). */
void font_atlas_free(FontSet *fs);

#endif
