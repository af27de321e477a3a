/*
** render.c: a DrawList onto an SDL_Renderer, glyphs out of atlas textures.
** The rules for placing pixels are spelled out in render.h.
*/
#include "render.h"
#include "core/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Glyphs of one text run kept between measuring and drawing it. */
#define RUN_GLYPHS 128
/* Coordinates are clamped to this before rounding: far off-canvas anyway. */
#define COORD_LIMIT 1.0e6f

/* One atlas page as a texture of this renderer. */
typedef struct PageTex {
    SDL_Texture *tex;
    uint32_t version;       /* page version last uploaded */
    int from_y;             /* rows above this are already uploaded */
    int need_full;          /* upload everything next time */
    Color mod;              /* colour modulation now set on tex */
    int mod_set;
} PageTex;

struct Render {
    SDL_Renderer *r;
    FontSet *fonts;
    uint32_t generation;    /* the font cache generation the textures hold */
    PageTex page[FONT_MAX_PAGES];
};

static char render_err[512];

/* Record why the current call fails. */
static void set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(render_err, sizeof render_err, fmt, ap);
    va_end(ap);
}

/* The last failure reason. */
const char *render_error(void)
{
    return render_err;
}

/* A Render with no textures yet: pages are uploaded as glyphs are drawn. */
Render *render_create(SDL_Renderer *r, FontSet *fonts)
{
    if (!r || !fonts) {
        set_error("render: no %s", r ? "fonts" : "renderer");
        return NULL;
    }
    Render *rd = xcalloc(1, sizeof *rd);
    rd->r = r;
    rd->fonts = fonts;
    rd->generation = font_cache_generation(fonts);
    return rd;
}

/* Destroy the textures (the renderer must still exist). */
void render_free(Render *rd)
{
    if (!rd) return;
    for (int i = 0; i < FONT_MAX_PAGES; i++)
        if (rd->page[i].tex) SDL_DestroyTexture(rd->page[i].tex);
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
    const FontPage *p = font_page(rd->fonts, i);
    PageTex *t = &rd->page[i];
    if (!t->tex) {
        t->tex = SDL_CreateTexture(rd->r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC,
                                   FONT_PAGE_SIZE, FONT_PAGE_SIZE);
        if (!t->tex) {
            set_error("render: cannot create a glyph texture: %s", SDL_GetError());
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
                set_error("render: cannot update a glyph texture: %s", SDL_GetError());
                return NULL;
            }
        }
        t->version = p->version;
        t->from_y = p->shelf_y;
        t->need_full = 0;
    }
    return t->tex;
}

/* Round to the nearest whole pixel, halves up, far values clamped. */
static int snap(float v)
{
    if (!(v > -COORD_LIMIT)) v = -COORD_LIMIT;     /* also NaN */
    if (v > COORD_LIMIT) v = COORD_LIMIT;
    return (int)floorf(v + 0.5f);
}

/* Set the draw colour, blending only when it is translucent. */
static void set_color(SDL_Renderer *r, Color c)
{
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a);
    SDL_SetRenderDrawBlendMode(r, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
}

/* Fill the pixels between snapped edges [x0, x1) x [y0, y1). */
static void fill_edges(SDL_Renderer *r, int x0, int y0, int x1, int y1)
{
    if (x1 <= x0 || y1 <= y0) return;
    SDL_Rect q = { x0, y0, x1 - x0, y1 - y0 };
    SDL_RenderFillRect(r, &q);
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
static void draw_rect_cmd(SDL_Renderer *r, const DrawCmd *c)
{
    Rect q = c->r;
    if (!(q.w > 0) || !(q.h > 0)) return;
    set_color(r, c->color);
    if (!(c->width > 0)) {
        int x0, x1, y0, y1;
        span(q.x, q.x + q.w, &x0, &x1);
        span(q.y, q.y + q.h, &y0, &y1);
        fill_edges(r, x0, y0, x1, y1);
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
        fill_edges(r, ox0, oy0, ox1, oy1);
        return;
    }
    /* Four bands that do not overlap, so translucent frames blend once. */
    fill_edges(r, ox0, oy0, ox1, iy0);
    fill_edges(r, ox0, iy1, ox1, oy1);
    fill_edges(r, ox0, iy0, ix0, iy1);
    fill_edges(r, ix1, iy0, ox1, iy1);
}

/* One solid piece of a line from (x0, y0) to (x1, y1), w pixels wide. */
static void stroke(SDL_Renderer *r, float x0, float y0, float x1, float y1, float w, Color col)
{
    float dx = x1 - x0, dy = y1 - y0;
    int a0, a1, b0, b1;
    if (fabsf(dy) < 1e-4f) {            /* horizontal: a crisp band */
        span(x0, x1, &a0, &a1);
        span(y0 - w / 2, y0 + w / 2, &b0, &b1);
        fill_edges(r, a0, b0, a1, b1);
        return;
    }
    if (fabsf(dx) < 1e-4f) {            /* vertical */
        span(x0 - w / 2, x0 + w / 2, &a0, &a1);
        span(y0, y1, &b0, &b1);
        fill_edges(r, a0, b0, a1, b1);
        return;
    }
    if (w < 1.5f) {                     /* hairline: a continuous pixel line */
        SDL_RenderDrawLineF(r, x0, y0, x1, y1);
        return;
    }
    float len = sqrtf(dx * dx + dy * dy);
    float nx = -dy / len * w / 2, ny = dx / len * w / 2;
    SDL_Color sc = { col.r, col.g, col.b, col.a };
    SDL_Vertex v[4] = {
        { { x0 + nx, y0 + ny }, sc, { 0, 0 } },
        { { x1 + nx, y1 + ny }, sc, { 0, 0 } },
        { { x1 - nx, y1 - ny }, sc, { 0, 0 } },
        { { x0 - nx, y0 - ny }, sc, { 0, 0 } },
    };
    static const int idx[6] = { 0, 1, 2, 0, 2, 3 };
    SDL_RenderGeometry(r, NULL, v, 4, idx, 6);
}

/* A line command, solid or dashed. */
static void draw_line_cmd(SDL_Renderer *r, const DrawCmd *c)
{
    float x0 = c->r.x, y0 = c->r.y, x1 = c->r.x + c->r.w, y1 = c->r.y + c->r.h;
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return;
    float w = c->width >= 1 ? c->width : 1;
    float len = sqrtf(c->r.w * c->r.w + c->r.h * c->r.h);
    if (len < 1e-3f) return;
    set_color(r, c->color);
    float on = RENDER_DASH_ON * w, off = RENDER_DASH_OFF * w;
    if (!c->dashed || len / (on + off) > 100000) {
        stroke(r, x0, y0, x1, y1, w, c->color);
        return;
    }
    float ux = c->r.w / len, uy = c->r.h / len;
    for (float t = 0; t < len; t += on + off) {
        float e = t + on < len ? t + on : len;
        stroke(r, x0 + ux * t, y0 + uy * t, x0 + ux * e, y0 + uy * e, w, c->color);
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

/* The glyph, rasterised; a full cache starts over once and tries again. */
static FontGlyph get_glyph(FontSet *fs, uint32_t cp, int px, int bold, int rot)
{
    FontGlyph g = font_glyph(fs, cp, px, bold, rot, 1);
    if (!g.rastered && font_cache_full(fs)) {
        /* SDL flushes queued copies before a texture they read is updated,
        ** so what was drawn before the reset stays right. */
        font_cache_reset(fs);
        g = font_glyph(fs, cp, px, bold, rot, 1);
    }
    return g;
}

/* Copy one glyph with its pen at (x, y), tinted with col. */
static int blit_glyph(Render *rd, const FontGlyph *g, int x, int y, Color col, int cw, int ch)
{
    if (g->page < 0 || g->w == 0) return 0;
    SDL_Rect dst = { x + g->dx, y + g->dy, g->w, g->h };
    if (dst.x >= cw || dst.y >= ch || dst.x + dst.w <= 0 || dst.y + dst.h <= 0) return 0;
    SDL_Texture *tex = sync_page(rd, g->page);
    if (!tex) return -1;
    PageTex *t = &rd->page[g->page];
    if (!t->mod_set || memcmp(&t->mod, &col, sizeof col) != 0) {
        SDL_SetTextureColorMod(tex, col.r, col.g, col.b);
        SDL_SetTextureAlphaMod(tex, col.a);
        t->mod = col;
        t->mod_set = 1;
    }
    SDL_Rect src = { g->ax, g->ay, g->w, g->h };
    return SDL_RenderCopy(rd->r, tex, &src, &dst) < 0 ? -1 : 0;
}

/*
** A text run: decode and fetch its glyphs once (keeping up to RUN_GLYPHS of
** them), add up the advances, place the pen, then copy glyph after glyph.
*/
static int draw_text_cmd(Render *rd, const DrawList *d, const DrawCmd *c)
{
    const char *s = draw_str(d, c);
    int px = font_px(c->size);
    if (px == 0 || !*s || c->color.a == 0) return 0;
    if (!isfinite(c->r.x) || !isfinite(c->r.y) || !isfinite(c->r.w) || !isfinite(c->r.h)) return 0;
    int bold = c->bold ? 1 : 0, rot = c->rotate == 90;
    FontGlyph run[RUN_GLYPHS];
    int width;
    const char *p;
    uint32_t cp;
    /* A cache reset halfway through would leave stale atlas places in run[]:
    ** then fetch again (a second reset within one run cannot happen). */
    for (int tries = 0; tries < 2; tries++) {
        uint32_t gen = font_cache_generation(rd->fonts);
        int n = 0;
        width = 0;
        p = s;
        while ((cp = font_utf8_next(&p)) != 0) {
            FontGlyph g = get_glyph(rd->fonts, cp, px, bold, rot);
            if (n < RUN_GLYPHS) run[n] = g;
            n++;
            width += g.advance;
        }
        if (gen == font_cache_generation(rd->fonts)) break;
    }
    int x, y, rc = 0;
    text_origin(rd->fonts, c, width, &x, &y);
    p = s;
    for (int i = 0; (cp = font_utf8_next(&p)) != 0; i++) {
        FontGlyph g = i < RUN_GLYPHS ? run[i] : get_glyph(rd->fonts, cp, px, bold, rot);
        if (blit_glyph(rd, &g, x, y, c->color, d->width, d->height) < 0) rc = -1;
        if (rot) y -= g.advance;
        else x += g.advance;
    }
    return rc;
}

/* Clear, then every command in order. */
int render_drawlist(Render *rd, const DrawList *d)
{
    int rc = 0;
    render_err[0] = '\0';
    SDL_Renderer *r = rd->r;
    SDL_RenderSetClipRect(r, NULL);
    SDL_SetRenderDrawColor(r, d->background.r, d->background.g, d->background.b, 255);
    SDL_RenderClear(r);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->color.a == 0) continue;
        switch (c->kind) {
        case DRAW_RECT: draw_rect_cmd(r, c); break;
        case DRAW_LINE: draw_line_cmd(r, c); break;
        case DRAW_TEXT: if (draw_text_cmd(rd, d, c) < 0) rc = -1; break;
        }
    }
    SDL_RenderFlush(r);
    return rc;
}

/* A surface with a software renderer on it. */
Offscreen *render_offscreen_create(int w, int h, FontSet *fonts)
{
    render_err[0] = '\0';
    if (w <= 0 || h <= 0 || w > RENDER_MAX_SIDE || h > RENDER_MAX_SIDE) {
        set_error("render: canvas %dx%d out of range (1..%d a side)", w, h, RENDER_MAX_SIDE);
        return NULL;
    }
    if (!fonts) {
        set_error("render: no fonts");
        return NULL;
    }
    Offscreen *o = xcalloc(1, sizeof *o);
    o->w = w;
    o->h = h;
    o->surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!o->surface) {
        set_error("render: cannot create a %dx%d surface: %s", w, h, SDL_GetError());
        render_offscreen_free(o);
        return NULL;
    }
    o->renderer = SDL_CreateSoftwareRenderer(o->surface);
    if (!o->renderer) {
        set_error("render: cannot create a software renderer: %s", SDL_GetError());
        render_offscreen_free(o);
        return NULL;
    }
    o->render = render_create(o->renderer, fonts);
    if (!o->render) {
        render_offscreen_free(o);
        return NULL;
    }
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
