/*
** canvas.h: a picture in memory, and the arithmetic that draws on it.
**
** A Canvas is w x h pixels of ARGB8888 (alpha in the top byte, blue in the
** bottom one), row y starting at pixels + y·stride. It needs no SDL:
** `attnlab --export` draws a stage on one and encodes it (export.h)
** without loading the window's libraries. Its operations put down exactly
** the pixels SDL 2.26's software renderer puts down for the same request,
** so the window (on SDL's software renderer) and a PNG agree pixel for
** pixel; canvas.c spells out that arithmetic and tests/test_render.c
** compares it with SDL's.
**
**     Canvas *c = canvas_create(1280, 720);   // pixels undefined until drawn
**     canvas_fill(c, 0, 0, c->w, c->h, background);
**     canvas_blend(c, glyph_pixels, glyph_stride, gw, gh, x, y, text_colour);
**     canvas_free(c);
**
** Coordinates are clipped to the canvas: anything partly or wholly outside
** it is cut, never an error.
*/
#ifndef ATTNLAB_CANVAS_H
#define ATTNLAB_CANVAS_H

#include <stddef.h>
#include <stdint.h>
#include "view/draw.h"

typedef struct Canvas {
    int w, h;
    size_t stride;          /* pixels from one row to the next */
    uint32_t *pixels;       /* owned; w·h words, not cleared by canvas_create */
    /* canvas_blend's memory of the last tint: what a white pixel of each
    ** coverage becomes under it (canvas.c) */
    Color tint;
    bool tint_set;
    uint32_t tint_of[256];
} Canvas;

/* A w x h canvas (1 to 16384 a side) whose pixels are not cleared: the first
** drawing of a frame fills it. NULL without memory or for a bad size. */
Canvas *canvas_create(int w, int h);
/* Release it (NULL is fine). */
void canvas_free(Canvas *c);
/* Row y. */
static inline uint32_t *canvas_row(const Canvas *c, int y) { return c->pixels + (size_t)y * c->stride; }

/* [x0, x1) x [y0, y1) filled with col: stored when opaque, blended as
** SDL_BlendFillRect blends (premultiplied) when not. */
void canvas_fill(Canvas *c, int x0, int y0, int x1, int y1, Color col);
/* A w x h bitmap of straight ARGB pixels (src rows stride words apart) with
** its top-left at (x, y), blended as SDL blits a texture in blend mode with
** colour and alpha modulation mod: white glyphs (coverage in alpha) take
** mod's colour, colour glyphs keep theirs when mod is white. */
void canvas_blend(Canvas *c, const uint32_t *src, size_t stride, int w, int h, int x, int y, Color mod);

#endif
