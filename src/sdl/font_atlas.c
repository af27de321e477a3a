/*
** font_atlas.c: the glyph cache and its atlas pages.
**
** A glyph is known by (font, glyph id, pixel size, rotation). Its metrics
** are taken on first sight; its bitmap is rasterised by FreeType when it is
** first drawn and copied into an atlas page: coverage as alpha over white
** for outline glyphs, real colours for colour glyphs (emoji, scaled from
** the font's one bitmap size with a box filter).
**
** A page is FONT_PAGE_SIZE pixels wide and starts FONT_PAGE_FIRST_ROWS
** tall; when a shelf needs rows it does not have, its rows double (up to
** FONT_PAGE_SIZE), the new ones clear. A one-stage export rasterises a few
** hundred glyphs into a page a few hundred rows tall, not the 4 MB a full
** page takes. Pages are never freed while the FontSet lives. When every
** page is full the cache starts over: the glyphs forget their places and
** the pages are emptied in place, so a renderer still holding a page index
** reads a blank but valid page.
*/
#include "font_impl.h"
#include "core/util.h"

#include FT_SYNTHESIS_H

#include <stdlib.h>
#include <string.h>

/* Bits of a glyph key: glyph id (24), pixel size (9), rotated, face (6). */
#define GKEY(face, gid, px, rot) \
    (((uint64_t)(gid) & 0xFFFFFFu) | (uint64_t)(px) << 24 | (uint64_t)(rot) << 33 | (uint64_t)(face) << 34)

/* Spread the bits of a 64-bit key (the finaliser of MurmurHash3). */
static uint64_t mix64(uint64_t k)
{
    k ^= k >> 33; k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* Double the table and re-insert every glyph. */
static void grow(FontSet *fs)
{
    uint32_t ncap = fs->capglyphs ? fs->capglyphs * 2 : 1024;
    GlyphSlot *t = xcalloc(ncap, sizeof *t);
    for (uint32_t i = 0; i < fs->capglyphs; i++) {
        if (!fs->glyphs[i].key) continue;
        uint32_t h = (uint32_t)mix64(fs->glyphs[i].key) & (ncap - 1);
        while (t[h].key) h = (h + 1) & (ncap - 1);
        t[h] = fs->glyphs[i];
    }
    free(fs->glyphs);
    fs->glyphs = t;
    fs->capglyphs = ncap;
}

/* Load a glyph's outline or bitmap into the face's slot; -1 on failure. */
static int load(FontSet *fs, int face, uint32_t gid, int render)
{
    Face *f = &fs->face[face];
    FT_Int32 flags = FT_LOAD_DEFAULT | (f->color ? FT_LOAD_COLOR : 0);
    if (FT_Load_Glyph(f->ft, gid, flags) != 0) return -1;
    if (f->embolden && f->ft->glyph->format == FT_GLYPH_FORMAT_OUTLINE) FT_GlyphSlot_Embolden(f->ft->glyph);
    if (render && f->ft->glyph->format != FT_GLYPH_FORMAT_BITMAP
        && FT_Render_Glyph(f->ft->glyph, FT_RENDER_MODE_NORMAL) != 0)
        return -1;
    return 0;
}

/* The cached glyph, with its metrics taken on first sight. */
static FontGlyph *glyph_ref(FontSet *fs, int face, uint32_t gid, int px, int rot)
{
    uint64_t key = GKEY(face, gid, px, rot) + 1;
    if ((fs->nglyphs + 1) * 2 >= fs->capglyphs) grow(fs);
    uint32_t h = (uint32_t)mix64(key) & (fs->capglyphs - 1);
    while (fs->glyphs[h].key) {
        if (fs->glyphs[h].key == key) return &fs->glyphs[h].g;
        h = (h + 1) & (fs->capglyphs - 1);
    }
    GlyphSlot *s = &fs->glyphs[h];
    s->key = key;
    fs->nglyphs++;
    FontGlyph *g = &s->g;
    memset(g, 0, sizeof *g);
    g->page = -1;
    g->rotated = (uint8_t)rot;
    FT_Face ft = font_face_at(fs, face, px);
    if (ft && load(fs, face, gid, 0) == 0) {
        long adv = ft->glyph->advance.x;
        int strike = fs->face[face].strike;
        if (strike) adv = adv * px / strike;
        g->advance = (int16_t)((adv + 63) >> 6);
    }
    return g;
}

/* Row y of page p. */
static uint32_t *page_row(const FontPage *p, int y)
{
    return p->pixels + (size_t)y * FONT_PAGE_SIZE;
}

/* Empty page i (the rows that may hold ink) and put the white block in its corner. */
static void clear_page(FontSet *fs, int i)
{
    FontPage *p = &fs->pages[i];
    int rows = p->used_h < p->rows ? p->used_h : p->rows;
    memset(p->pixels, 0, (size_t)rows * FONT_PAGE_SIZE * sizeof *p->pixels);
    for (int y = 0; y < FONT_WHITE; y++)
        for (int x = 0; x < FONT_WHITE; x++) page_row(p, y)[x] = 0xFFFFFFFFu;
    /* The block and its gutter open the first shelf. */
    p->shelf_y = 0;
    p->used_h = FONT_WHITE + 1;
    p->version++;
    fs->shelf_x[i] = fs->shelf_h[i] = FONT_WHITE + 1;
}

/* Page i ready to fill: allocated if it never was. -1 without memory. */
static int open_page(FontSet *fs, int i)
{
    if (i < fs->npages) return i;
    /* Zeroed by the kernel (calloc of fresh memory writes nothing). */
    uint32_t *px = calloc((size_t)FONT_PAGE_FIRST_ROWS * FONT_PAGE_SIZE, sizeof *px);
    if (!px) return -1;
    fs->pages[i] = (FontPage){ px, FONT_PAGE_FIRST_ROWS, 0, 0, 0 };
    fs->npages = i + 1;
    clear_page(fs, i);
    return i;
}

/* Give page p at least `need` rows (doubling, new rows clear); -1 without memory. */
static int grow_page(FontPage *p, int need)
{
    if (need <= p->rows) return 0;
    int rows = p->rows;
    while (rows < need) rows *= 2;
    if (rows > FONT_PAGE_SIZE) rows = FONT_PAGE_SIZE;
    uint32_t *px = realloc(p->pixels, (size_t)rows * FONT_PAGE_SIZE * sizeof *px);
    if (!px) return -1;
    memset(px + (size_t)p->rows * FONT_PAGE_SIZE, 0, (size_t)(rows - p->rows) * FONT_PAGE_SIZE * sizeof *px);
    p->pixels = px;
    p->rows = rows;
    return 0;
}

/* Make sure page 0 exists (it carries the white block even with no glyphs). */
int font_first_page(FontSet *fs)
{
    return open_page(fs, 0);
}

/*
** Shelf packing: glyphs go left to right along a shelf as tall as the
** tallest glyph on it; a glyph that does not fit starts a new shelf below,
** and a full page moves on to the next page. Everything above the current
** shelf never changes again, which lets a renderer upload only the rows
** below it.
*/
static int pack(FontSet *fs, int w, int h, int *x, int *y)
{
    if (w > FONT_PAGE_SIZE || h > FONT_PAGE_SIZE) return -1;
    int i = fs->cur;
    if (open_page(fs, i) < 0) return -1;
    if (fs->shelf_x[i] + w > FONT_PAGE_SIZE) {
        fs->pages[i].shelf_y += fs->shelf_h[i];
        fs->shelf_x[i] = fs->shelf_h[i] = 0;
    }
    if (fs->pages[i].shelf_y + h > FONT_PAGE_SIZE) {
        fs->pages[i].shelf_y = FONT_PAGE_SIZE;      /* closed until the next reset */
        if (i + 1 == FONT_MAX_PAGES || open_page(fs, i + 1) < 0) { fs->full = 1; return -1; }
        fs->cur = i = i + 1;
    }
    FontPage *p = &fs->pages[i];
    if (grow_page(p, p->shelf_y + h) < 0) return -1;
    *x = fs->shelf_x[i];
    *y = p->shelf_y;
    fs->shelf_x[i] += w;
    if (h > fs->shelf_h[i]) fs->shelf_h[i] = h;
    if (p->shelf_y + h > p->used_h) p->used_h = p->shelf_y + h;
    p->version++;
    return i;
}

/* Source pixel (x, y) of a bitmap as straight ARGB: coverage over white, or
** a colour pixel (FreeType's BGRA is premultiplied). */
static uint32_t src_pixel(const FT_Bitmap *b, int x, int y)
{
    const unsigned char *row = b->buffer + (long)y * b->pitch;
    if (b->pixel_mode == FT_PIXEL_MODE_GRAY) return (uint32_t)row[x] << 24 | 0xFFFFFFu;
    if (b->pixel_mode == FT_PIXEL_MODE_MONO) return (row[x >> 3] >> (7 - (x & 7)) & 1) ? 0xFFFFFFFFu : 0xFFFFFFu;
    const unsigned char *p = row + 4 * x;       /* B G R A, premultiplied */
    uint32_t a = p[3];
    if (a == 0) return 0;
    uint32_t r = p[2] * 255u / a, g = p[1] * 255u / a, bl = p[0] * 255u / a;
    return a << 24 | (r > 255 ? 255 : r) << 16 | (g > 255 ? 255 : g) << 8 | (bl > 255 ? 255 : bl);
}

/* The colour bitmap b shrunk by a box filter to dw x dh: each target pixel
** averages the premultiplied source pixels it covers. */
static uint32_t box_pixel(const FT_Bitmap *b, int dw, int dh, int x, int y)
{
    int x0 = x * (int)b->width / dw, x1 = (x + 1) * (int)b->width / dw;
    int y0 = y * (int)b->rows / dh, y1 = (y + 1) * (int)b->rows / dh;
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
    uint32_t sum[4] = { 0, 0, 0, 0 }, n = 0;
    for (int j = y0; j < y1 && j < (int)b->rows; j++)
        for (int i = x0; i < x1 && i < (int)b->width; i++) {
            const unsigned char *p = b->buffer + (long)j * b->pitch + 4 * i;
            for (int c = 0; c < 4; c++) sum[c] += p[c];
            n++;
        }
    if (n == 0 || sum[3] == 0) return 0;
    uint32_t a = (sum[3] + n / 2) / n;
    uint32_t r = sum[2] * 255u / sum[3], g = sum[1] * 255u / sum[3], bl = sum[0] * 255u / sum[3];
    return a << 24 | (r > 255 ? 255 : r) << 16 | (g > 255 ? 255 : g) << 8 | (bl > 255 ? 255 : bl);
}

/*
** Where the bitmap FreeType just loaded for face goes when drawn at px: its
** top-left is (left, -top) from the pen and it is gw x gh pixels. FreeType
** puts it at (bitmap_left, -bitmap_top) at its own size; a bitmap-only
** font's strike is scaled to the pixel size, in whole pixels. Returns
** whether it is scaled.
*/
static int bitmap_box(const FontSet *fs, int face, const FT_GlyphSlot slot, int px, int *left, int *top, int *gw,
                      int *gh)
{
    const FT_Bitmap *b = &slot->bitmap;
    *gw = (int)b->width, *gh = (int)b->rows, *left = slot->bitmap_left, *top = slot->bitmap_top;
    int strike = fs->face[face].strike, scaled = strike && strike != px && b->pixel_mode == FT_PIXEL_MODE_BGRA;
    if (scaled) {
        *left = *left * px / strike;
        *top = (*top * px + strike / 2) / strike;
        *gw = (*gw * px + strike / 2) / strike;
        *gh = (*gh * px + strike / 2) / strike;
        if (*gw < 1) *gw = 1;
        if (*gh < 1) *gh = 1;
    }
    return scaled;
}

/* Rasterise a glyph into a page, turned when it is rotated, scaled to px
** on the way in (bitmap_box). */
static void raster(FontSet *fs, FontGlyph *g, int face, uint32_t gid, int px)
{
    g->rastered = 1;
    FT_Face ft = font_face_at(fs, face, px);
    if (!ft || load(fs, face, gid, 1) != 0) return;
    const FT_GlyphSlot slot = ft->glyph;
    const FT_Bitmap *b = &slot->bitmap;
    int gw, gh, left, top;
    int scaled = bitmap_box(fs, face, slot, px, &left, &top, &gw, &gh);
    if (gw <= 0 || gh <= 0 || !b->buffer) return;     /* a space */
    if (b->pixel_mode != FT_PIXEL_MODE_GRAY && b->pixel_mode != FT_PIXEL_MODE_MONO
        && b->pixel_mode != FT_PIXEL_MODE_BGRA)
        return;
    int rot = g->rotated;
    int dw = rot ? gh : gw, dh = rot ? gw : gh;
    int ax, ay;
    int page = pack(fs, dw + 1, dh + 1, &ax, &ay);  /* +1: a clear gutter */
    if (page < 0) { g->rastered = 0; return; }
    const FontPage *dst = &fs->pages[page];
    for (int j = 0; j < gh; j++)
        for (int i = 0; i < gw; i++) {
            uint32_t v = scaled ? box_pixel(b, gw, gh, i, j) : src_pixel(b, i, j);
            /* Counter-clockwise: column i of the glyph becomes row gw-1-i. */
            int tx = rot ? j : i, ty = rot ? gw - 1 - i : j;
            page_row(dst, ay + ty)[ax + tx] = v;
        }
    g->color = b->pixel_mode == FT_PIXEL_MODE_BGRA;
    g->page = (int16_t)page;
    g->ax = (uint16_t)ax;
    g->ay = (uint16_t)ay;
    g->w = (uint16_t)dw;
    g->h = (uint16_t)dh;
    /* The unrotated box is (left, -top) from the pen; turning it
    ** counter-clockwise maps an offset (u, v) to (v, -u). */
    g->dx = (int16_t)(rot ? -top : left);
    g->dy = (int16_t)(rot ? -(left + gw) : -top);
}

/*
** A colour glyph as a picture: FreeType's own BGRA bitmap (a bitmap-only
** font's whole strike, not shrunk), copied as premultiplied ARGB, and the
** box the atlas draws it in at px (bitmap_box), so a PDF puts it where the
** PNG does.
*/
int font_picture(FontSet *fs, int face, uint32_t gid, int px, FontPicture *pic)
{
    memset(pic, 0, sizeof *pic);
    if (!fs || face < 0 || face >= fs->nfaces || px < FONT_MIN_PX || px > FONT_MAX_PX) return 0;
    FT_Face ft = font_face_at(fs, face, px);
    if (!ft) return 0;          /* no font to draw it with: the text's own fallback (nothing) */
    if (!fs->face[face].color) return 0;
    if (load(fs, face, gid, 1) != 0) return -1;
    const FT_GlyphSlot slot = ft->glyph;
    const FT_Bitmap *b = &slot->bitmap;
    if (b->pixel_mode != FT_PIXEL_MODE_BGRA) return b->width && b->rows ? 0 : 1;     /* plain glyph, or no ink */
    if (!b->width || !b->rows) return 1;
    if (!b->buffer) return -1;
    int left, top, gw, gh;
    bitmap_box(fs, face, slot, px, &left, &top, &gw, &gh);
    pic->w = (int)b->width;
    pic->h = (int)b->rows;
    pic->x = left;
    pic->y = -top;
    pic->dw = gw;
    pic->dh = gh;
    pic->made_at = fs->face[face].strike ? fs->face[face].strike : px;
    pic->thickened = fs->face[face].embolden && !fs->face[face].strike;
    pic->argb = xmalloc(sizeof *pic->argb * (size_t)pic->w * (size_t)pic->h);
    for (int j = 0; j < pic->h; j++) {
        const unsigned char *row = b->buffer + (long)j * b->pitch;
        for (int i = 0; i < pic->w; i++) {
            const unsigned char *p = row + 4 * i;           /* B G R A, premultiplied */
            pic->argb[(size_t)j * (size_t)pic->w + (size_t)i] =
                (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
        }
    }
    return 1;
}

/* A copy of the glyph, rasterised first when asked. */
FontGlyph font_glyph(FontSet *fs, int face, uint32_t gid, int px, int rotated, int raster_it)
{
    FontGlyph none;
    memset(&none, 0, sizeof none);
    none.page = -1;
    if (!fs || face < 0 || face >= fs->nfaces || px < FONT_MIN_PX || px > FONT_MAX_PX) return none;
    rotated = rotated ? 1 : 0;
    FontGlyph *g = glyph_ref(fs, face, gid, px, rotated);
    if (raster_it && !g->rastered) raster(fs, g, face, gid, px);
    return *g;
}

/* Pages allocated. */
int font_page_count(const FontSet *fs)
{
    return fs->npages;
}

/* One page. */
const FontPage *font_page(const FontSet *fs, int i)
{
    return &fs->pages[i];
}

/* How many times the cache has started over. */
uint32_t font_cache_generation(const FontSet *fs)
{
    return fs->generation;
}

/* Whether a glyph found no room. */
int font_cache_full(const FontSet *fs)
{
    return fs->full;
}

/* Drop all bitmaps: the pages are emptied in place and refilled from page 0. */
void font_cache_reset(FontSet *fs)
{
    for (uint32_t i = 0; i < fs->capglyphs; i++) {
        FontGlyph *g = &fs->glyphs[i].g;
        g->rastered = 0;
        g->page = -1;
        g->w = g->h = 0;
    }
    for (int i = 0; i < fs->npages; i++) clear_page(fs, i);
    fs->cur = 0;
    fs->generation++;
    fs->full = 0;
}

/* Free the glyph table and the pages. */
void font_atlas_free(FontSet *fs)
{
    for (int i = 0; i < fs->npages; i++) free(fs->pages[i].pixels);
    fs->npages = 0;
    free(fs->glyphs);
    fs->glyphs = NULL;
    fs->nglyphs = fs->capglyphs = 0;
}
