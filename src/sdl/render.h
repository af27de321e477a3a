/*
** render.h: drawing a DrawList on a window (SDL) or on a canvas in memory.
**
** A Render binds a FontSet's glyph pages to one SDL_Renderer as textures;
** render_drawlist then draws a whole DrawList (clear, rectangles, lines, text)
** with no texture created per string: each glyph is a copy out of an atlas
** page, tinted with the text colour. On a GPU renderer the whole list goes
** out as one vertex stream on the atlas (rectangles sample a white block), so
** a big heatmap costs a draw call or two, not two per cell.
**
**     Render *rd = render_create(sdl_renderer, fonts);
**     each frame: render_drawlist(rd, list); SDL_RenderPresent(sdl_renderer);
**     render_free(rd);                 // before SDL_DestroyRenderer
**
** For PNG export and tests, an Offscreen is a canvas (canvas.h) and a Render
** that writes into it with SDL's arithmetic but without SDL: it needs no
** display, and nothing of SDL is loaded unless a command only SDL draws
** (a sloped line) comes, or render_set_batched asks for the GPU path.
**
**     Offscreen *o = render_offscreen_create(1280, 800, fonts, &err);
**     render_drawlist(o->render, list, NULL);   // pixels now in o->canvas
**     render_offscreen_free(o);
**
** How commands become pixels (the SVG writer should agree):
** - Rectangles snap their edges to whole pixels (round), so cells that share
**   an edge neither overlap nor leave gaps. An outline of width w is centred
**   on the rectangle's edge, like an SVG stroke. Colours with alpha < 255 blend.
** - A line of width w (at least 1) covers w/2 either side of its centre line,
**   with butt ends. Horizontal and vertical lines snap like rectangles;
**   others are filled quads. Dashed: DRAW_DASH_ON*w drawn, DRAW_DASH_OFF*w
**   skipped, starting with a dash at (x0, y0) (draw.h: every backend's dash).
** - Text is the shaped run of font_shape (font.h) at font_px(size), each
**   glyph at whole pixels; colour glyphs (emoji) keep their colours and
**   take only the text colour's opacity. Horizontally the run's advance
**   width is aligned in the box. Vertically TOP puts the font's
**   ascent at the box top, BOTTOM its descent at the box bottom, and MIDDLE
**   centres the digits (baseline to the top of '0') in the box.
** - Rotated text (rotate 90) is the same run turned 90 degrees counter-
**   clockwise, reading bottom to top, laid out in the box's own frame: halign
**   runs along the text (LEFT = the box's bottom, RIGHT = its top), valign
**   across it (TOP = the box's left side, BOTTOM = its right side).
**
** Ownership: a Render borrows its SDL_Renderer and FontSet (both must outlive
** it) and owns its textures. An Offscreen owns its canvas and Render (and
** whatever SDL renderer the Render made on the canvas).
*/
#ifndef ATTNLAB_RENDER_H
#define ATTNLAB_RENDER_H

#include <SDL.h>
#include "canvas.h"
#include "font.h"
#include "view/draw.h"

/* Offscreen canvases are limited to this many pixels a side. */
#define RENDER_MAX_SIDE 16384

typedef struct Render Render;

typedef struct Offscreen {
    int w, h;
    Canvas *canvas;             /* w x h: the pixels */
    Render *render;             /* draws on canvas */
} Offscreen;

/* A Render for r using fonts (loads SDL's functions, sdl_dyn.h); NULL on
** failure, with err filled. */
Render *render_create(SDL_Renderer *r, FontSet *fonts, Error *err);
/* Destroy its textures; call before destroying the SDL_Renderer. NULL is fine. */
void render_free(Render *rd);
/* Upload every page again (after SDL_RENDER_TARGETS_RESET or _DEVICE_RESET). */
void render_invalidate(Render *rd);
/* Force the batched (1: one vertex stream, the default on GPU renderers;
** on a canvas, through an SDL software renderer made on it) or direct (0:
** fill and copy calls on the software renderer, or the canvas's own
** writes, the default there) path. */
void render_set_batched(Render *rd, int batched);
/* Clear to d->background and draw every command of d in order. Returns 0, or
** -1 when a texture could not be made (err filled, if not NULL: ERR_RUNTIME);
** what could be drawn is. */
int render_drawlist(Render *rd, const DrawList *d, Error *err);

/* Pen position and width of a text command as render_drawlist places it:
** (x, y) is where the first glyph's pen sits on the baseline. For rotated
** text the pen moves up from (x, y). Returns the advance width in pixels. */
int render_text_origin(FontSet *fonts, const DrawCmd *c, const char *text, int *x, int *y);

/* A w x h offscreen canvas drawing with fonts, no SDL involved; NULL on
** failure, with err filled (ERR_RUNTIME; err may be NULL). */
Offscreen *render_offscreen_create(int w, int h, FontSet *fonts, Error *err);
/* Release the canvas, its Render and what that made (NULL is fine). */
void render_offscreen_free(Offscreen *o);
/* The pixel at (x, y) of the canvas, opaque; black outside it. */
Color render_offscreen_pixel(const Offscreen *o, int x, int y);

#endif
