/*
** render.c: a DrawList onto a canvas or an SDL_Renderer, glyphs out of the
** atlas. The rules for placing pixels are spelled out in render.h.
**
** Three ways to put the same pixels down, chosen per Render:
**
** - On a canvas (canvas.h: PNG export, tests, the benchmark): rectangles
**   and glyphs are written into memory with SDL 2.26's arithmetic, by
**   canvas.c; nothing of SDL is loaded. A sloped line, which only SDL's
**   rasteriser draws, makes an SDL software renderer on the canvas's own
**   pixels the first time one comes (loading SDL then); no stage draws one
**   today.
**
** - Direct calls (the window on SDL's software renderer): rectangles with
**   SDL_RenderFillRect, glyphs with SDL_RenderCopy tinted by colour and
**   alpha modulation.
**
** - Batched (GPU renderers, the window): every rectangle, line and glyph
**   becomes a quad in one vertex stream on the atlas texture, with the colour
**   in the vertices; rectangles and lines sample the page's white block. A
**   heatmap alternates cell and label, which as separate calls would break
**   SDL's batching at every cell (thousands of draw calls); as one stream it
**   is one draw call per atlas page switch. (A canvas can be drawn this way
**   too, through a software renderer on it: tests compare the two.)
**
** Everything above the primitives (snapping, outlines, dashes, text
** placement) is shared, so all three draw the same shapes. SDL is called
** through sdl_dyn.h: the library is loaded when a window or a renderer
** first needs it.
*/
#include "render.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sdl_dyn.h"

/* Coordinates are clamped to this before rounding: far off-canvas anyway. */
#define COORD_LIMIT 1.0e6f
/* Quads queued before the batch is handed to SDL (bounds its memory). */
#define BATCH_QUADS 8192

/* One atlas page as a texture of this renderer. */
typedef struct PageTex {
    SDL_Texture *tex;
    uint32_t version;       /* page version last uploaded */
    int from_y;             /* rows above this are already uploaded */
    int need_full;          /* upload everything next time */
    Color mod;              /* colour modulation now set on tex (direct path) */
    int mod_set;
} PageTex;

struct Render {
    SDL_Renderer *r;        /* the window's, or one made on the canvas when needed (NULL until then) */
    FontSet *fonts;
    uint32_t generation;    /* the font cache generation the textures hold */
    PageTex page[FONT_MAX_PAGES];
    int batched;            /* 1: one geometry stream (GPU); 0: direct calls */
    int failed;             /* a texture could not be made or updated this frame */
    /* The pending batch: quads on atlas page bpage. */
    SDL_Vertex *v;
    int *ix;
    int nquads, capquads;
    int bpage;
    /* A canvas's Render: the canvas, written directly unless batched, and
    ** the SDL surface over its pixels that a renderer made for it draws on. */
    Canvas *canvas;
    SDL_Surface *wrap;
    int sdl_pending;        /* an SDL draw call since the last direct write */
    Error *err;             /* render_drawlist's, while it runs (may be NULL) */
};

/* A Render with no textures yet: pages are uploaded as glyphs are drawn. */
Render *render_create(SDL_Renderer *r, FontSet *fonts, Error *err)
{
    error_clear(err);
    if (!r || !fonts) return error_set(err, ERR_RUNTIME, NULL, 0, 0, "render: no %s", r ? "fonts" : "renderer"), NULL;
    char why[300];
    if (sdl_load(why, sizeof why) != 0) return error_set(err, ERR_RUNTIME, NULL, 0, 0, "render: %s", why), NULL;
    Render *rd = xcalloc(1, sizeof *rd);
    rd->r = r;
    rd->fonts = fonts;
    rd->generation = font_cache_generation(fonts);
    rd->bpage = -1;
    SDL_RendererInfo info;
    rd->batched = SDL_GetRendererInfo(r, &info) == 0 && !(info.flags & SDL_RENDERER_SOFTWARE);
    return rd;
}

/* A Render drawing on a canvas, with no SDL. */
static Render *render_for_canvas(Canvas *c, FontSet *fonts)
{
    Render *rd = xcalloc(1, sizeof *rd);
    rd->fonts = fonts;
    rd->generation = font_cache_generation(fonts);
    rd->bpage = -1;
    rd->canvas = c;
    return rd;
}

/* The SDL renderer: the window's, or a software renderer made on the
** canvas's pixels the first time one is needed (SDL loaded then). NULL
** when that fails (the frame is marked failed). */
static SDL_Renderer *sdl_renderer(Render *rd)
{
    if (rd->r || rd->failed) return rd->r;
    char why[300];
    if (sdl_load(why, sizeof why) != 0) {
        error_set(rd->err, ERR_RUNTIME, NULL, 0, 0, "render: %s", why);
        rd->failed = 1;
        return NULL;
    }
    Canvas *c = rd->canvas;
    rd->wrap = SDL_CreateRGBSurfaceWithFormatFrom(c->pixels, c->w, c->h, 32, (int)(c->stride * sizeof *c->pixels),
                                                  SDL_PIXELFORMAT_ARGB8888);
    rd->r = rd->wrap ? SDL_CreateSoftwareRenderer(rd->wrap) : NULL;
    if (!rd->r) {
        error_set(rd->err, ERR_RUNTIME, NULL, 0, 0, "render: cannot make a software renderer on the canvas: %s",
                  SDL_GetError());
        rd->failed = 1;
    }
    return rd->r;
}

/* Destroy the textures (the renderer must still exist), and the renderer
** and surface made on a canvas. */
void render_free(Render *rd)
{
    if (!rd) return;
    for (int i = 0; i < FONT_MAX_PAGES; i++)
        if (rd->page[i].tex) SDL_DestroyTexture(rd->page[i].tex);
    if (rd->canvas && rd->r) SDL_DestroyRenderer(rd->r);
    if (rd->wrap) SDL_FreeSurface(rd->wrap);
    free(rd->v);
    free(rd->ix);
    free(rd);
}

/* Mark every page for a full upload. */
void render_invalidate(Render *rd)
{
    for (int i = 0; i < FONT_MAX_PAGES; i++) {
        rd->page[i].need_full = 1;
        rd->page[i].mod_set = 0;
    }
}

/* Choose the batched (1) or direct (0) path, whatever the renderer is. */
void render_set_batched(Render *rd, int batched)
{
    rd->batched = batched ? 1 : 0;
}

/*
** Bring the texture of page i up to date with the FontSet. Only the rows
** from the shelf that was open at the last upload down to the lowest ink can
** have changed (font.c packs top to bottom), so that band is all we send.
*/
static SDL_Texture *sync_page(Render *rd, int i)
{
    if (rd->generation != font_cache_generation(rd->fonts)) {
        render_invalidate(rd);
        rd->generation = font_cache_generation(rd->fonts);
    }
    if (i < 0 || i >= font_page_count(rd->fonts) || !sdl_renderer(rd)) return NULL;
    const FontPage *p = font_page(rd->fonts, i);
    PageTex *t = &rd->page[i];
    if (!t->tex) {
        t->tex = SDL_CreateTexture(rd->r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC,
                                   FONT_PAGE_SIZE, FONT_PAGE_SIZE);
        if (!t->tex) {
            error_set(rd->err, ERR_RUNTIME, NULL, 0, 0, "render: cannot create a glyph texture: %s", SDL_GetError());
            rd->failed = 1;
            return NULL;
        }
        SDL_SetTextureBlendMode(t->tex, SDL_BLENDMODE_BLEND);
        SDL_SetTextureScaleMode(t->tex, SDL_ScaleModeNearest);
        t->need_full = 1;
        t->mod_set = 0;
    }
    if (t->need_full || t->version != p->version) {
        int y0 = t->need_full ? 0 : t->from_y;
        int y1 = p->used_h;
        if (y1 > y0) {
            SDL_Rect band = { 0, y0, FONT_PAGE_SIZE, y1 - y0 };
            const uint32_t *src = p->pixels + (size_t)y0 * FONT_PAGE_SIZE;
            if (SDL_UpdateTexture(t->tex, &band, src, FONT_PAGE_SIZE * (int)sizeof *src) < 0) {
                error_set(rd->err, ERR_RUNTIME, NULL, 0, 0, "render: cannot update a glyph texture: %s", SDL_GetError());
                rd->failed = 1;
                return NULL;
            }
        }
        t->version = p->version;
        t->from_y = p->shelf_y;
        t->need_full = 0;
    }
    return t->tex;
}

/* ---- The batch: quads on one atlas page, handed to SDL in one call. ---- */

/* Hand the pending quads to SDL. */
static void flush(Render *rd)
{
    if (rd->nquads == 0) return;
    SDL_Texture *tex = sync_page(rd, rd->bpage);
    PageTex *t = &rd->page[rd->bpage];
    if (tex && t->mod_set) {            /* colour is in the vertices: no tint */
        SDL_SetTextureColorMod(tex, 255, 255, 255);
        SDL_SetTextureAlphaMod(tex, 255);
        t->mod_set = 0;
    }
    if (tex && SDL_RenderGeometry(rd->r, tex, rd->v, 4 * rd->nquads, rd->ix, 6 * rd->nquads) < 0) {
        error_set(rd->err, ERR_RUNTIME, NULL, 0, 0, "render: geometry: %s", SDL_GetError());
        rd->failed = 1;
    }
    rd->nquads = 0;
}

/* Make page the batch's texture (flushing quads on another page); -1 if
** there is no page to draw with. */
static int use_page(Render *rd, int page)
{
    if (page < 0) {                     /* any page will do: all have white */
        if (rd->bpage >= 0) return 0;
        page = font_first_page(rd->fonts);
        if (page < 0) return -1;
    }
    if (page != rd->bpage) {
        flush(rd);
        rd->bpage = page;
    }
    return 0;
}

/* Append a quad with corners p[0..3] (in order round it), texture corners
** (u0, v0)-(u1, v1) in atlas pixels, and one colour. */
static void push_quad(Render *rd, const SDL_FPoint p[4], float u0, float v0, float u1, float v1, Color c)
{
    if (rd->nquads == BATCH_QUADS) flush(rd);
    if (rd->nquads == rd->capquads) {
        rd->capquads = rd->capquads ? rd->capquads * 2 : 256;
        rd->v = xrealloc(rd->v, sizeof *rd->v * 4 * (size_t)rd->capquads);
        rd->ix = xrealloc(rd->ix, sizeof *rd->ix * 6 * (size_t)rd->capquads);
    }
    const float s = 1.0f / FONT_PAGE_SIZE;
    SDL_Color sc = { c.r, c.g, c.b, c.a };
    SDL_Vertex *v = rd->v + 4 * rd->nquads;
    v[0] = (SDL_Vertex){ p[0], sc, { u0 * s, v0 * s } };
    v[1] = (SDL_Vertex){ p[1], sc, { u1 * s, v0 * s } };
    v[2] = (SDL_Vertex){ p[2], sc, { u1 * s, v1 * s } };
    v[3] = (SDL_Vertex){ p[3], sc, { u0 * s, v1 * s } };
    int b = 4 * rd->nquads, *ix = rd->ix + 6 * rd->nquads;
    ix[0] = b; ix[1] = b + 1; ix[2] = b + 2;
    ix[3] = b; ix[4] = b + 2; ix[5] = b + 3;
    rd->nquads++;
}

/* The middle of the white block: every sample there is opaque white. */
#define WHITE_UV (FONT_WHITE / 2.0f)

/* Let queued SDL draws land before the canvas is written directly. */
static void sdl_sync(Render *rd)
{
    if (rd->sdl_pending) {
        SDL_RenderFlush(rd->r);
        rd->sdl_pending = 0;
    }
}

/* Whether this Render writes into its canvas itself (not batched). */
static int direct(const Render *rd)
{
    return rd->canvas && !rd->batched;
}

/* ---- The two primitives every command is made of. ---- */

/* Fill the pixels between snapped edges [x0, x1) x [y0, y1) with c. */
static void fill_edges(Render *rd, int x0, int y0, int x1, int y1, Color c)
{
    if (x1 <= x0 || y1 <= y0) return;
    if (direct(rd)) {
        sdl_sync(rd);
        canvas_fill(rd->canvas, x0, y0, x1, y1, c);
        return;
    }
    if (rd->batched) {
        if (use_page(rd, -1) < 0) return;
        SDL_FPoint p[4] = { { (float)x0, (float)y0 }, { (float)x1, (float)y0 },
                            { (float)x1, (float)y1 }, { (float)x0, (float)y1 } };
        push_quad(rd, p, WHITE_UV, WHITE_UV, WHITE_UV, WHITE_UV, c);
        return;
    }
    SDL_SetRenderDrawColor(rd->r, c.r, c.g, c.b, c.a);
    SDL_SetRenderDrawBlendMode(rd->r, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
    SDL_Rect q = { x0, y0, x1 - x0, y1 - y0 };
    SDL_RenderFillRect(rd->r, &q);
    rd->sdl_pending = 1;
}

/* Copy one glyph with its pen at (x, y), tinted with c; a colour glyph
** keeps its own colours and takes only c's opacity. */
static void glyph_at(Render *rd, const FontGlyph *g, int x, int y, Color c, int cw, int ch)
{
    if (g->page < 0 || g->w == 0) return;
    SDL_Rect dst = { x + g->dx, y + g->dy, g->w, g->h };
    if (dst.x >= cw || dst.y >= ch || dst.x + dst.w <= 0 || dst.y + dst.h <= 0) return;
    if (g->color) c = (Color){ 255, 255, 255, c.a };
    if (direct(rd)) {
        sdl_sync(rd);
        const FontPage *p = font_page(rd->fonts, g->page);
        canvas_blend(rd->canvas, p->pixels + (size_t)g->ay * FONT_PAGE_SIZE + g->ax, FONT_PAGE_SIZE, g->w, g->h, dst.x,
                     dst.y, c);
        return;
    }
    if (rd->batched) {
        if (use_page(rd, g->page) < 0) return;
        SDL_FPoint p[4] = { { (float)dst.x, (float)dst.y }, { (float)(dst.x + dst.w), (float)dst.y },
                            { (float)(dst.x + dst.w), (float)(dst.y + dst.h) },
                            { (float)dst.x, (float)(dst.y + dst.h) } };
        push_quad(rd, p, g->ax, g->ay, g->ax + g->w, g->ay + g->h, c);
        return;
    }
    SDL_Texture *tex = sync_page(rd, g->page);
    if (!tex) return;
    PageTex *t = &rd->page[g->page];
    if (!t->mod_set || memcmp(&t->mod, &c, sizeof c) != 0) {
        SDL_SetTextureColorMod(tex, c.r, c.g, c.b);
        SDL_SetTextureAlphaMod(tex, c.a);
        t->mod = c;
        t->mod_set = 1;
    }
    SDL_Rect src = { g->ax, g->ay, g->w, g->h };
    SDL_RenderCopy(rd->r, tex, &src, &dst);
    rd->sdl_pending = 1;
}

/* ---- Commands. ---- */

/* Round to the nearest whole pixel, halves up, far values clamped. */
static int snap(float v)
{
    if (!(v > -COORD_LIMIT)) v = -COORD_LIMIT;     /* also NaN */
    if (v > COORD_LIMIT) v = COORD_LIMIT;
    /* floorf(v + 0.5f) without the libm call (a heatmap snaps four edges
    ** a cell): truncate, then step down for negatives with a fraction.
    ** Exact, since |v| <= COORD_LIMIT < 2^24 converts both ways exactly. */
    float f = v + 0.5f;
    int i = (int)f;
    return (float)i > f ? i - 1 : i;
}

/* The snapped edges of [a, b] (either order); at least one pixel wide. */
static void span(float a, float b, int *lo, int *hi)
{
    if (b < a) { float t = a; a = b; b = t; }
    *lo = snap(a);
    *hi = snap(b);
    if (*hi <= *lo) *hi = *lo + 1;
}

/* A filled rectangle, or its outline centred on its edges. */
static void draw_rect_cmd(Render *rd, const DrawCmd *c)
{
    Rect q = c->r;
    Color col = c->color;
    if (!(q.w > 0) || !(q.h > 0) || !isfinite(q.x) || !isfinite(q.y) || !isfinite(q.w) || !isfinite(q.h))
        return;
    if (!(c->width > 0)) {
        int x0, x1, y0, y1;
        span(q.x, q.x + q.w, &x0, &x1);
        span(q.y, q.y + q.h, &y0, &y1);
        fill_edges(rd, x0, y0, x1, y1, col);
        return;
    }
    float hw = c->width / 2;
    int ox0, ox1, oy0, oy1;
    span(q.x - hw, q.x + q.w + hw, &ox0, &ox1);
    span(q.y - hw, q.y + q.h + hw, &oy0, &oy1);
    int ix0 = snap(q.x + hw), ix1 = snap(q.x + q.w - hw);
    int iy0 = snap(q.y + hw), iy1 = snap(q.y + q.h - hw);
    if (ix0 <= ox0) ix0 = ox0 + 1;      /* every side at least one pixel */
    if (iy0 <= oy0) iy0 = oy0 + 1;
    if (ix1 >= ox1) ix1 = ox1 - 1;
    if (iy1 >= oy1) iy1 = oy1 - 1;
    if (ix1 <= ix0 || iy1 <= iy0) {     /* all stroke, no hole */
        fill_edges(rd, ox0, oy0, ox1, oy1, col);
        return;
    }
    /* Four bands that do not overlap, so translucent frames blend once. */
    fill_edges(rd, ox0, oy0, ox1, iy0, col);
    fill_edges(rd, ox0, iy1, ox1, oy1, col);
    fill_edges(rd, ox0, iy0, ix0, iy1, col);
    fill_edges(rd, ix1, iy0, ox1, iy1, col);
}

/* One solid piece of a line from (x0, y0) to (x1, y1), w pixels wide. */
static void stroke(Render *rd, float x0, float y0, float x1, float y1, float w, Color col)
{
    float dx = x1 - x0, dy = y1 - y0;
    int a0, a1, b0, b1;
    if (fabsf(dy) < 1e-4f) {            /* horizontal: a crisp band */
        span(x0, x1, &a0, &a1);
        span(y0 - w / 2, y0 + w / 2, &b0, &b1);
        fill_edges(rd, a0, b0, a1, b1, col);
        return;
    }
    if (fabsf(dx) < 1e-4f) {            /* vertical */
        span(x0 - w / 2, x0 + w / 2, &a0, &a1);
        span(y0, y1, &b0, &b1);
        fill_edges(rd, a0, b0, a1, b1, col);
        return;
    }
    if (!rd->batched && !sdl_renderer(rd)) return;     /* a canvas draws this through SDL */
    if (!rd->batched && w < 1.5f) {     /* hairline: a continuous pixel line */
        SDL_SetRenderDrawColor(rd->r, col.r, col.g, col.b, col.a);
        SDL_SetRenderDrawBlendMode(rd->r, col.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
        SDL_RenderDrawLineF(rd->r, x0, y0, x1, y1);
        rd->sdl_pending = 1;
        return;
    }
    float len = sqrtf(dx * dx + dy * dy);
    float nx = -dy / len * w / 2, ny = dx / len * w / 2;
    SDL_FPoint p[4] = { { x0 + nx, y0 + ny }, { x1 + nx, y1 + ny },
                        { x1 - nx, y1 - ny }, { x0 - nx, y0 - ny } };
    if (rd->batched) {
        if (use_page(rd, -1) == 0) push_quad(rd, p, WHITE_UV, WHITE_UV, WHITE_UV, WHITE_UV, col);
        return;
    }
    SDL_Color sc = { col.r, col.g, col.b, col.a };
    SDL_Vertex v[4];
    for (int i = 0; i < 4; i++) v[i] = (SDL_Vertex){ p[i], sc, { 0, 0 } };
    static const int idx[6] = { 0, 1, 2, 0, 2, 3 };
    SDL_SetRenderDrawBlendMode(rd->r, col.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
    SDL_RenderGeometry(rd->r, NULL, v, 4, idx, 6);
    rd->sdl_pending = 1;
}

/* A line command, solid or dashed. */
static void draw_line_cmd(Render *rd, const DrawCmd *c)
{
    float x0 = c->r.x, y0 = c->r.y, x1 = c->r.x + c->r.w, y1 = c->r.y + c->r.h;
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return;
    float w = c->width >= 1 ? c->width : 1;
    float len = sqrtf(c->r.w * c->r.w + c->r.h * c->r.h);
    if (len < 1e-3f) return;
    float on = DRAW_DASH_ON * w, off = DRAW_DASH_OFF * w;
    if (!c->dashed || len / (on + off) > 100000) {
        stroke(rd, x0, y0, x1, y1, w, c->color);
        return;
    }
    float ux = c->r.w / len, uy = c->r.h / len;
    for (float t = 0; t < len; t += on + off) {
        float e = t + on < len ? t + on : len;
        stroke(rd, x0 + ux * t, y0 + uy * t, x0 + ux * e, y0 + uy * e, w, c->color);
    }
}

/*
** Where the pen starts for a run of the given advance width. Unrotated:
** halign places the run along x, valign puts the baseline. Rotated, the same
** rules run in the turned frame: "along" is upward from the box's bottom and
** the glyphs' tops face the box's left side.
*/
static void text_origin(FontSet *fonts, const DrawCmd *c, int width, int *x, int *y)
{
    FontMetrics m = font_metrics(fonts, c->size, c->bold);
    int rot = c->rotate == 90;
    float along0 = rot ? c->r.y + c->r.h : c->r.x;     /* where LEFT starts */
    float along_len = rot ? c->r.h : c->r.w;
    float across0 = rot ? c->r.x : c->r.y;             /* the glyphs' top side */
    float across_len = rot ? c->r.w : c->r.h;
    float start = 0;                                    /* distance along */
    if (c->halign == ALIGN_CENTER) start = (along_len - (float)width) / 2;
    else if (c->halign == ALIGN_RIGHT) start = along_len - (float)width;
    float base;                                         /* baseline across */
    if (c->valign == VALIGN_TOP) base = (float)m.ascent;
    else if (c->valign == VALIGN_BOTTOM) base = across_len - (float)m.descent;
    else base = (across_len + (float)m.digit_top) / 2;
    if (rot) {
        /* Baseline is a vertical line; the glyphs' tops point to -x. */
        *x = snap(across0 + base);
        *y = snap(along0 - start);
    } else {
        *x = snap(along0 + start);
        *y = snap(across0 + base);
    }
}

/* Public form of text_origin: measures the run, then places it. */
int render_text_origin(FontSet *fonts, const DrawCmd *c, const char *text, int *x, int *y)
{
    int width = (int)font_measure(fonts, text, c->size, c->bold);
    text_origin(fonts, c, width, x, y);
    return width;
}

/*
** The glyph, rasterised. When every page is full mid-frame the cache starts
** over: the quads already queued are handed to SDL first (SDL runs queued
** draws before a texture they read is updated), and the pages are emptied
** in place, never freed, so nothing this frame holds can dangle.
*/
static FontGlyph get_glyph(Render *rd, int face, uint32_t gid, int px, int rot)
{
    FontGlyph g = font_glyph(rd->fonts, face, gid, px, rot, 1);
    if (!g.rastered && font_cache_full(rd->fonts)) {
        flush(rd);
        if (rd->r) SDL_RenderFlush(rd->r);
        font_cache_reset(rd->fonts);
        g = font_glyph(rd->fonts, face, gid, px, rot, 1);
    }
    return g;
}

/*
** A text run: the shaped run (from the cache: the very one the layout
** measured), the pen placed for its width, then each glyph at its offset.
** A rotated run is the same run turned counter-clockwise: an offset (u, v)
** along and across the text lands at (v, -u) on screen.
*/
static void draw_text_cmd(Render *rd, const DrawList *d, const DrawCmd *c)
{
    const char *s = draw_str(d, c);
    int px = font_px(c->size);
    if (px == 0 || !*s) return;
    if (!isfinite(c->r.x) || !isfinite(c->r.y) || !isfinite(c->r.w) || !isfinite(c->r.h)) return;
    int rot = c->rotate == 90;
    FontRun run = font_shape(rd->fonts, s, px, c->bold);
    int x, y;
    text_origin(rd->fonts, c, run.width, &x, &y);
    for (int i = 0; i < run.n; i++) {
        const FontRunGlyph *rg = &run.g[i];
        FontGlyph g = get_glyph(rd, rg->face, rg->gid, px, rot);
        if (rot) glyph_at(rd, &g, x + rg->y, y - rg->x, c->color, d->width, d->height);
        else glyph_at(rd, &g, x + rg->x, y + rg->y, c->color, d->width, d->height);
    }
}

/* One block of an image, drawn as a rectangle (draw_image_each). */
static void image_block(void *rd, const DrawCmd *rect)
{
    draw_rect_cmd(rd, rect);
}

/* Clear, then every command in order. */
int render_drawlist(Render *rd, const DrawList *d, Error *err)
{
    error_clear(err);
    rd->err = err;
    rd->failed = 0;
    rd->nquads = 0;
    rd->bpage = -1;
    /* A cache that filled up last frame starts over now, between frames. */
    if (font_cache_full(rd->fonts)) font_cache_reset(rd->fonts);
    if (direct(rd)) {
        sdl_sync(rd);
        canvas_fill(rd->canvas, 0, 0, rd->canvas->w, rd->canvas->h, (Color){ d->background.r, d->background.g,
                                                                           d->background.b, 255 });
    } else if (sdl_renderer(rd)) {
        SDL_RenderSetClipRect(rd->r, NULL);
        SDL_SetRenderDrawColor(rd->r, d->background.r, d->background.g, d->background.b, 255);
        SDL_RenderClear(rd->r);
    } else {
        return -1;
    }
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->color.a == 0) continue;
        switch (c->kind) {
        case DRAW_RECT: draw_rect_cmd(rd, c); break;
        case DRAW_LINE: draw_line_cmd(rd, c); break;
        case DRAW_TEXT: draw_text_cmd(rd, d, c); break;
        case DRAW_IMAGE: draw_image_each(d, c, image_block, rd); break;
        }
    }
    flush(rd);
    if (rd->r) SDL_RenderFlush(rd->r);
    rd->sdl_pending = 0;
    rd->err = NULL;
    return rd->failed ? -1 : 0;
}

/* A canvas and its Render: no SDL. */
Offscreen *render_offscreen_create(int w, int h, FontSet *fonts, Error *err)
{
    error_clear(err);
    if (w <= 0 || h <= 0 || w > RENDER_MAX_SIDE || h > RENDER_MAX_SIDE)
        return error_set(err, ERR_RUNTIME, NULL, 0, 0, "render: canvas %dx%d out of range (1..%d a side)", w, h,
                         RENDER_MAX_SIDE), NULL;
    if (!fonts) return error_set(err, ERR_RUNTIME, NULL, 0, 0, "render: no fonts"), NULL;
    Offscreen *o = xcalloc(1, sizeof *o);
    o->w = w;
    o->h = h;
    o->canvas = canvas_create(w, h);
    if (!o->canvas) {
        error_set(err, ERR_RUNTIME, NULL, 0, 0, "render: no memory for a %dx%d canvas", w, h);
        free(o);
        return NULL;
    }
    o->render = render_for_canvas(o->canvas, fonts);
    return o;
}

/* The Render (and what it made on the canvas), then the canvas. */
void render_offscreen_free(Offscreen *o)
{
    if (!o) return;
    render_free(o->render);
    canvas_free(o->canvas);
    free(o);
}

/* Read one pixel back. */
Color render_offscreen_pixel(const Offscreen *o, int x, int y)
{
    if (x < 0 || y < 0 || x >= o->w || y >= o->h) return (Color){ 0, 0, 0, 255 };
    uint32_t v = canvas_row(o->canvas, y)[x];
    return (Color){ (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v, 255 };
}
