/*
** render.c: a DrawList onto an SDL_Renderer, glyphs out of atlas textures.
** The rules for placing pixels are spelled out in render.h.
**
** Two ways to put the same pixels down, chosen per renderer:
**
** - Direct (the software renderer, so PNG export and tests): rectangles with
**   SDL_RenderFillRect, glyphs with SDL_RenderCopy tinted by colour and alpha
**   modulation. SDL blits these directly, which is the fastest path there.
**
** - Batched (GPU renderers, the window): every rectangle, line and glyph
**   becomes a quad in one vertex stream on the atlas texture, with the colour
**   in the vertices; rectangles and lines sample the page's white block. A
**   heatmap alternates cell and label, which as separate calls would break
**   SDL's batching at every cell (thousands of draw calls); as one stream it
**   is one draw call per atlas page switch.
**
** Everything above those two primitives (snapping, outlines, dashes, text
** placement) is shared, so both draw the same shapes.
**
** - Straight to the surface (an Offscreen on the direct path): opaque
**   rectangles and glyphs are written into the canvas surface by this file
**   rather than queued through SDL's renderer. The pixels are the same: see
**   "Straight to the surface" below. It is what makes PNG export and large
**   heatmaps cheap (bench/, docs/performance.md): SDL's generic modulated
**   blit costs about 50 instructions a glyph pixel, transparent ones too,
**   and every fill or copy pays for a trip through the render queue.
*/
#include "render.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    SDL_Renderer *r;
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
    /* Offscreen only: the canvas, written directly (NULL: always through SDL). */
    SDL_Surface *target;
    int sdl_pending;        /* an SDL draw call since the last direct write */
    Error *err;             /* render_drawlist's, while it runs (may be NULL) */
};

/* A Render with no textures yet: pages are uploaded as glyphs are drawn. */
Render *render_create(SDL_Renderer *r, FontSet *fonts, Error *err)
{
    if (!r || !fonts) return error_set(err, ERR_RUNTIME, NULL, 0, 0, "render: no %s", r ? "fonts" : "renderer"), NULL;
    Render *rd = xcalloc(1, sizeof *rd);
    rd->r = r;
    rd->fonts = fonts;
    rd->generation = font_cache_generation(fonts);
    rd->bpage = -1;
    SDL_RendererInfo info;
    rd->batched = SDL_GetRendererInfo(r, &info) == 0 && !(info.flags & SDL_RENDERER_SOFTWARE);
    return rd;
}

/* Destroy the textures (the renderer must still exist). */
void render_free(Render *rd)
{
    if (!rd) return;
    for (int i = 0; i < FONT_MAX_PAGES; i++)
        if (rd->page[i].tex) SDL_DestroyTexture(rd->page[i].tex);
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
    if (i < 0 || i >= font_page_count(rd->fonts)) return NULL;
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
            const uint8_t *src = (const uint8_t *)p->surface->pixels + (size_t)y0 * (size_t)p->surface->pitch;
            if (SDL_UpdateTexture(t->tex, &band, src, p->surface->pitch) < 0) {
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

/*
** ---- Straight to the surface. ----
**
** On an Offscreen the software renderer would draw into o->surface anyway,
** one queued command at a time. Opaque fills and glyphs skip the queue and
** are written here, with SDL's own arithmetic, so the pixels do not change:
**
** - an opaque fill stores the colour, as SDL_FillRect does;
** - a glyph (white, coverage in alpha) tinted with colour c and blended is,
**   in SDL 2.26's blitters, for coverage a and each channel of the canvas d:
**     c anything but opaque white (the generic modulated blit):
**       sa = a·c.a/255;  s = c·sa/255 (s = c when sa = 255);
**       d' = s + (255 − sa)·d/255, the canvas alpha likewise from sa;
**     c opaque white (no modulation: SDL's pixel-alpha blit, which shifts
**       instead of dividing): a = 0 keeps d, a = 255 stores white, otherwise
**       d' = (255·a >> 8) + (d·(255 − a) >> 8), alpha included.
**
** Another SDL release may round differently, so the first glyph drawn this
** way runs a probe (blend_matches_sdl): the same ramps blitted by SDL and
** here; if one pixel differs, glyphs go through SDL again. Translucent
** fills and sloped lines always do. SDL's software renderer does not batch, so its calls are
** done when they return; the SDL_RenderFlush before a direct write (only
** when an SDL call came in between) keeps the order right if it ever does.
*/

/* The canvas pixel for an opaque colour (ARGB8888). */
static uint32_t argb(Color c)
{
    return 0xFF000000u | (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b;
}

/* Let queued SDL draws land before the surface is written directly. */
static void sdl_sync(Render *rd)
{
    if (rd->sdl_pending) {
        SDL_RenderFlush(rd->r);
        rd->sdl_pending = 0;
    }
}

/* Opaque c over [x0, x1) x [y0, y1), clipped to the canvas. */
static void direct_fill(Render *rd, int x0, int y0, int x1, int y1, Color c)
{
    SDL_Surface *s = rd->target;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > s->w) x1 = s->w;
    if (y1 > s->h) y1 = s->h;
    if (x1 <= x0 || y1 <= y0) return;
    sdl_sync(rd);
    uint32_t px = argb(c);
    uint32_t *first = (uint32_t *)((uint8_t *)s->pixels + (size_t)y0 * (size_t)s->pitch) + x0;
    size_t n = (size_t)(x1 - x0);
    for (size_t i = 0; i < n; i++) first[i] = px;
    /* Wide rows: copy the first one (memcpy moves 32 bytes a step). */
    for (int y = y0 + 1; y < y1; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch) + x0;
        if (n > 16) memcpy(row, first, n * sizeof *row);
        else for (size_t i = 0; i < n; i++) row[i] = px;
    }
}

/*
** Blend n glyph pixels sp (white, coverage in alpha) tinted c onto the
** canvas pixels dp, as SDL 2.26 does it (see above). The generic formula is
** exact for full coverage too, so its only branch skips empty pixels (which
** predicts better than testing for 0 and 255). The white one works on two
** channels at a time: each product is below 2^16, so channel pairs 16 bits
** apart do not interfere; full coverage is picked with a select.
*/
static void blend_row(uint32_t *dp, const uint32_t *sp, int n, Color c)
{
    if (c.r == 255 && c.g == 255 && c.b == 255 && c.a == 255) {
        for (int i = 0; i < n; i++) {
            uint32_t a = sp[i] >> 24;
            if (!a) continue;
            uint32_t k = 255 - a, d = dp[i];
            uint32_t lo = ((d & 0x00FF00FFu) * k >> 8) & 0x00FF00FFu;
            uint32_t hi = (((d >> 8) & 0x00FF00FFu) * k >> 8) & 0x00FF00FFu;
            uint32_t v = ((255 * a) >> 8) * 0x01010101u + lo + (hi << 8);
            dp[i] = a == 255 ? 0xFFFFFFFFu : v;
        }
        return;
    }
    uint32_t cr = c.r, cg = c.g, cb = c.b, ca = c.a;
    for (int i = 0; i < n; i++) {
        uint32_t a = sp[i] >> 24;
        if (!a) continue;
        uint32_t sa = a * ca / 255, k = 255 - sa, d = dp[i];
        dp[i] = (sa + k * (d >> 24) / 255) << 24
              | (cr * sa / 255 + k * ((d >> 16) & 255) / 255) << 16
              | (cg * sa / 255 + k * ((d >> 8) & 255) / 255) << 8
              | (cb * sa / 255 + k * (d & 255) / 255);
    }
}

/* Blend glyph g's bitmap with its top-left at (x, y), clipped to the canvas. */
static void direct_glyph(Render *rd, const FontGlyph *g, int x, int y, Color c)
{
    SDL_Surface *s = rd->target;
    const SDL_Surface *src = font_page(rd->fonts, g->page)->surface;
    int i0 = x < 0 ? -x : 0, j0 = y < 0 ? -y : 0;
    int i1 = x + g->w > s->w ? s->w - x : g->w, j1 = y + g->h > s->h ? s->h - y : g->h;
    sdl_sync(rd);
    for (int j = j0; j < j1; j++) {
        const uint32_t *sp = (const uint32_t *)((const uint8_t *)src->pixels
                             + (size_t)(g->ay + j) * (size_t)src->pitch) + g->ax;
        uint32_t *dp = (uint32_t *)((uint8_t *)s->pixels + (size_t)(y + j) * (size_t)s->pitch) + x;
        blend_row(dp + i0, sp + i0, i1 - i0, c);
    }
}

/*
** Whether blend_row agrees with this SDL, pixel for pixel: a coverage ramp
** 0..255 is copied by SDL's software renderer, tinted with each test colour,
** over rows of varied canvas colours, and compared with blend_row. Runs once.
*/
static int blend_matches_sdl(void)
{
    static int verdict = -1;
    if (verdict >= 0) return verdict;
    static const Color tints[] = { { 255, 255, 255, 255 }, { 0, 0, 0, 255 }, { 31, 119, 180, 255 },
                                   { 255, 255, 255, 128 }, { 200, 60, 20, 170 }, { 1, 254, 128, 3 } };
    enum { NT = sizeof tints / sizeof tints[0], W = 256, H = 8 };
    verdict = 0;
    SDL_Surface *ramp = SDL_CreateRGBSurfaceWithFormat(0, W, 1, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Surface *canvas = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = canvas ? SDL_CreateSoftwareRenderer(canvas) : NULL;
    SDL_Texture *t = NULL;
    if (ramp && r) {
        for (int x = 0; x < W; x++) ((uint32_t *)ramp->pixels)[x] = (uint32_t)x << 24 | 0xFFFFFFu;
        t = SDL_CreateTextureFromSurface(r, ramp);
    }
    if (t && SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND) == 0) {
        verdict = 1;
        for (int k = 0; k < NT && verdict; k++) {
            Color c = tints[k];
            /* Canvas colours: every level in each channel, alpha 255 as on a real canvas. */
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    uint32_t v = (uint32_t)(x * (2 * y + 1) + 37 * y) & 255;
                    ((uint32_t *)((uint8_t *)canvas->pixels + y * canvas->pitch))[x] =
                        0xFF000000u | v << 16 | (255 - v) << 8 | ((v * 7 + y) & 255);
                }
            SDL_SetTextureColorMod(t, c.r, c.g, c.b);
            SDL_SetTextureAlphaMod(t, c.a);
            for (int y = 0; y < H && verdict; y++) {
                uint32_t *row = (uint32_t *)((uint8_t *)canvas->pixels + y * canvas->pitch);
                uint32_t mine[W];
                memcpy(mine, row, sizeof mine);
                blend_row(mine, ramp->pixels, W, c);
                SDL_Rect src = { 0, 0, W, 1 }, dst = { 0, y, W, 1 };
                SDL_RenderCopy(r, t, &src, &dst);
                SDL_RenderFlush(r);
                if (memcmp(row, mine, sizeof mine) != 0) verdict = 0;
            }
        }
    }
    if (t) SDL_DestroyTexture(t);
    if (r) SDL_DestroyRenderer(r);
    SDL_FreeSurface(canvas);
    SDL_FreeSurface(ramp);
    return verdict;
}

/* ---- The two primitives every command is made of. ---- */

/* Fill the pixels between snapped edges [x0, x1) x [y0, y1) with c. */
static void fill_edges(Render *rd, int x0, int y0, int x1, int y1, Color c)
{
    if (x1 <= x0 || y1 <= y0) return;
    if (rd->target && !rd->batched && c.a == 255) {
        direct_fill(rd, x0, y0, x1, y1, c);
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
    if (rd->target && !rd->batched && !g->color && blend_matches_sdl()) {
        direct_glyph(rd, g, dst.x, dst.y, c);
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
        SDL_RenderFlush(rd->r);
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
    SDL_Renderer *r = rd->r;
    SDL_RenderSetClipRect(r, NULL);
    SDL_SetRenderDrawColor(r, d->background.r, d->background.g, d->background.b, 255);
    if (rd->target && !rd->batched) {
        /* What SDL_RenderClear does on a software renderer, minus the queue,
        ** with ordinary stores: SDL_FillRect's SSE loop streams past the
        ** cache, so every later fill, glyph and the PNG's conversion read
        ** the canvas back from memory (a third of a 1200x800 export). */
        SDL_RenderFlush(r);
        direct_fill(rd, 0, 0, rd->target->w, rd->target->h, d->background);
        rd->sdl_pending = 0;
    } else {
        SDL_RenderClear(r);
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
    SDL_RenderFlush(r);
    rd->err = NULL;
    return rd->failed ? -1 : 0;
}

/* A surface with a software renderer on it. */
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
    o->surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!o->surface) {
        error_set(err, ERR_RUNTIME, NULL, 0, 0, "render: cannot create a %dx%d surface: %s", w, h, SDL_GetError());
        render_offscreen_free(o);
        return NULL;
    }
    o->renderer = SDL_CreateSoftwareRenderer(o->surface);
    if (!o->renderer) {
        error_set(err, ERR_RUNTIME, NULL, 0, 0, "render: cannot create a software renderer: %s", SDL_GetError());
        render_offscreen_free(o);
        return NULL;
    }
    o->render = render_create(o->renderer, fonts, err);
    if (!o->render) {
        render_offscreen_free(o);
        return NULL;
    }
    o->render->target = o->surface;     /* ARGB8888, unlocked: safe to write */
    return o;
}

/* Textures, then renderer, then surface: each needs the next. */
void render_offscreen_free(Offscreen *o)
{
    if (!o) return;
    render_free(o->render);
    if (o->renderer) SDL_DestroyRenderer(o->renderer);
    if (o->surface) SDL_FreeSurface(o->surface);
    free(o);
}

/* Read one pixel back. */
Color render_offscreen_pixel(const Offscreen *o, int x, int y)
{
    if (x < 0 || y < 0 || x >= o->w || y >= o->h) return (Color){ 0, 0, 0, 255 };
    const uint8_t *row = (const uint8_t *)o->surface->pixels + (size_t)y * (size_t)o->surface->pitch;
    uint32_t v = ((const uint32_t *)row)[x];
    return (Color){ (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v, 255 };
}
