/*
** font.c: finding DejaVu Sans, SDL_ttf fonts per pixel size, and the glyph
** cache with its atlas pages. See font.h for how the pieces are used.
*/
#include "font.h"
#include "core/fileio.h"
#include "core/util.h"

#include <SDL_ttf.h>
#include <fontconfig/fontconfig.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest font file read (DejaVu Sans is 740 KB; big CJK fonts ~20 MB). */
#define FONT_MAX_BYTES ((size_t)64 << 20)
/* Where Debian puts the files, tried when fontconfig cannot help. */
#define DEJAVU_DIR "/usr/share/fonts/truetype/dejavu/"
/* Bits of a glyph key: code point (21), pixel size (9), bold, rotated. */
#define KEY(cp, px, bold, rot) \
    ((uint32_t)(cp) | (uint32_t)(px) << 21 | (uint32_t)(bold) << 30 | (uint32_t)(rot) << 31)

struct FontSet {
    char *path[2];                  /* regular, bold */
    int synth_bold;                 /* one file: bold made by SDL_ttf */
    void *data[2];                  /* the font files, read once */
    size_t len[2];
    TTF_Font *ttf[2][FONT_MAX_PX + 1];
    FontMetrics met[2][FONT_MAX_PX + 1];    /* px == 0: not computed yet */

    FontGlyph *glyphs;              /* every glyph seen, in order of arrival */
    uint32_t *keys;                 /* KEY of each glyph */
    int nglyphs, capglyphs;
    uint32_t *slots;                /* open addressing: glyph index + 1, 0 = empty */
    uint32_t nslots;                /* a power of two */

    FontPage pages[FONT_MAX_PAGES];
    int shelf_x[FONT_MAX_PAGES];    /* next free column on the current shelf */
    int shelf_h[FONT_MAX_PAGES];    /* height of the current shelf */
    int npages;
    uint32_t generation;
    int full;
};

static char font_err[768];

/* Record why the current call fails. */
static void set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(font_err, sizeof font_err, fmt, ap);
    va_end(ap);
}

/* The last failure reason. */
const char *font_error(void)
{
    return font_err;
}

/* A font file, whole, through the one capped reader; NULL with why in reason. */
static void *read_file(const char *path, size_t *len, char *reason, size_t n)
{
    FileioError e;
    char *data = fileio_read(path, FONT_MAX_BYTES, len, &e);
    if (data && *len == 0) {
        free(data);
        snprintf(reason, n, "cannot read: the file is empty");
        return NULL;
    }
    if (!data && e.kind == FILEIO_TOO_BIG)
        snprintf(reason, n, "cannot read: over the limit of %zu MiB for a font file", FONT_MAX_BYTES >> 20);
    else if (!data)
        snprintf(reason, n, "%s", e.reason);
    return data;
}

/* Whether a file can be opened for reading. */
static int readable(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/*
** Ask fontconfig for DejaVu Sans at a weight. fontconfig always answers with
** *something*, so the family of the match is checked: a substitute font
** would lack the signs the lessons print (−∞, ᵀ, √). A private FcConfig keeps
** the library's global state out of it. Returns a malloc'd path or NULL, with
** what fontconfig offered instead (if anything) in other.
*/
static char *fc_find(FcConfig *cfg, int bold, int *got_bold, char *other, size_t n)
{
    char *found = NULL;
    other[0] = '\0';
    FcPattern *pat = FcPatternBuild(NULL,
        FC_FAMILY, FcTypeString, (const FcChar8 *)"DejaVu Sans",
        FC_WEIGHT, FcTypeInteger, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR,
        FC_SLANT, FcTypeInteger, FC_SLANT_ROMAN,
        FC_WIDTH, FcTypeInteger, FC_WIDTH_NORMAL,
        (char *)0);
    if (!pat) return NULL;
    FcConfigSubstitute(cfg, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcResult res = FcResultNoMatch;
    FcPattern *m = FcFontMatch(cfg, pat, &res);
    if (m) {
        FcChar8 *fam = NULL, *file = NULL;
        int is_dejavu = 0, weight = FC_WEIGHT_REGULAR;
        for (int i = 0; FcPatternGetString(m, FC_FAMILY, i, &fam) == FcResultMatch; i++)
            if (!strcmp((const char *)fam, "DejaVu Sans")) is_dejavu = 1;
        FcPatternGetInteger(m, FC_WEIGHT, 0, &weight);
        if (FcPatternGetString(m, FC_FILE, 0, &file) == FcResultMatch) {
            if (is_dejavu && readable((const char *)file)) {
                found = xstrdup((const char *)file);
                *got_bold = weight >= FC_WEIGHT_DEMIBOLD;
            } else {
                snprintf(other, n, "%s", (const char *)file);
            }
        }
        FcPatternDestroy(m);
    }
    FcPatternDestroy(pat);
    return found;
}

/* Fill fs->path[] with DejaVu Sans regular and bold; -1 with the error set. */
static int find_dejavu(FontSet *fs)
{
    char other[512] = "";
    int got_bold = 0;
    FcConfig *cfg = FcInitLoadConfigAndFonts();
    if (cfg) {
        fs->path[0] = fc_find(cfg, 0, &got_bold, other, sizeof other);
        if (fs->path[0]) {
            char dummy[8];
            fs->path[1] = fc_find(cfg, 1, &got_bold, dummy, sizeof dummy);
            if (fs->path[1] && (!got_bold || !strcmp(fs->path[1], fs->path[0]))) {
                free(fs->path[1]);
                fs->path[1] = NULL;
            }
        }
        FcConfigDestroy(cfg);
    }
    /* fontconfig may be unconfigured (a bare container): try Debian's path. */
    if (!fs->path[0] && readable(DEJAVU_DIR "DejaVuSans.ttf"))
        fs->path[0] = xstrdup(DEJAVU_DIR "DejaVuSans.ttf");
    if (fs->path[0] && !fs->path[1]) {
        if (readable(DEJAVU_DIR "DejaVuSans-Bold.ttf"))
            fs->path[1] = xstrdup(DEJAVU_DIR "DejaVuSans-Bold.ttf");
        else
            fs->synth_bold = 1;
    }
    if (!fs->path[0]) {
        set_error("font: DejaVu Sans was not found by fontconfig%s%s%s; install it with "
                  "`apt-get install " FONT_PACKAGE "` or pass --font PATH to a TTF file",
                  other[0] ? " (it offered " : "", other, other[0] ? " instead)" : "");
        return -1;
    }
    return 0;
}

/* A new FontSet with its files read and checked. */
FontSet *font_create(const char *path)
{
    FontSet *fs = xcalloc(1, sizeof *fs);
    font_err[0] = '\0';
    if (TTF_Init() < 0) {
        set_error("font: SDL_ttf cannot start: %s", TTF_GetError());
        free(fs);
        return NULL;
    }
    if (path) {
        fs->path[0] = xstrdup(path);
        fs->synth_bold = 1;
    } else if (find_dejavu(fs) < 0) {
        font_free(fs);
        return NULL;
    }
    int nfiles = fs->synth_bold ? 1 : 2;
    for (int i = 0; i < nfiles; i++) {
        char why[256];
        fs->data[i] = read_file(fs->path[i], &fs->len[i], why, sizeof why);
        if (!fs->data[i]) {
            set_error("font: %s: %s; install DejaVu Sans with "
                      "`apt-get install " FONT_PACKAGE "`%s", fs->path[i], why,
                      path ? " and leave out --font" : "");
            font_free(fs);
            return NULL;
        }
    }
    /* Open one size now, so a file that is not a font fails here, not mid-frame. */
    for (int i = 0; i < 2; i++) {
        if (font_metrics(fs, 16, i).px == 0) {
            set_error("font: %s: not a usable TrueType/OpenType font: %s%s",
                      fs->path[i < nfiles ? i : 0], TTF_GetError(),
                      path ? "; omit --font to use DejaVu Sans (package " FONT_PACKAGE ")" : "");
            font_free(fs);
            return NULL;
        }
    }
    return fs;
}

/* Close every font, free every page, and release SDL_ttf. */
void font_free(FontSet *fs)
{
    if (!fs) return;
    for (int b = 0; b < 2; b++)
        for (int px = 0; px <= FONT_MAX_PX; px++)
            if (fs->ttf[b][px]) TTF_CloseFont(fs->ttf[b][px]);
    for (int i = 0; i < fs->npages; i++) SDL_FreeSurface(fs->pages[i].surface);
    for (int i = 0; i < 2; i++) {
        free(fs->path[i]);
        free(fs->data[i]);
    }
    free(fs->glyphs);
    free(fs->keys);
    free(fs->slots);
    free(fs);
    TTF_Quit();     /* reference counted by SDL_ttf: pairs with font_create */
}

/* The file behind a weight. */
const char *font_path(const FontSet *fs, int bold)
{
    return fs->path[bold && !fs->synth_bold ? 1 : 0];
}

/* Whole pixels for a DrawList size. */
int font_px(float size)
{
    if (!(size >= 0.5f)) return 0;      /* also NaN */
    if (size >= FONT_MAX_PX) return FONT_MAX_PX;
    return (int)(size + 0.5f);
}

/* The SDL_ttf font for (px, bold), opened on first use; NULL if it fails. */
static TTF_Font *face(FontSet *fs, int px, int bold)
{
    bold = bold ? 1 : 0;
    TTF_Font *f = fs->ttf[bold][px];
    if (f) return f;
    int file = bold && !fs->synth_bold ? 1 : 0;
    SDL_RWops *rw = SDL_RWFromConstMem(fs->data[file], (int)fs->len[file]);
    if (!rw) return NULL;
    f = TTF_OpenFontRW(rw, 1, px);      /* 72 dpi: points are pixels */
    if (!f) return NULL;
    if (bold && fs->synth_bold) TTF_SetFontStyle(f, TTF_STYLE_BOLD);
    TTF_SetFontKerning(f, 0);           /* we place glyphs ourselves, unkerned */
    fs->ttf[bold][px] = f;
    return f;
}

/* Vertical metrics, computed once per (px, bold). */
FontMetrics font_metrics(FontSet *fs, float size, int bold)
{
    FontMetrics none = { 0, 0, 0, 0, 0 };
    int px = font_px(size);
    bold = bold ? 1 : 0;
    if (!fs || px == 0) return none;
    FontMetrics *m = &fs->met[bold][px];
    if (m->px) return *m;
    TTF_Font *f = face(fs, px, bold);
    if (!f) return none;
    m->ascent = TTF_FontAscent(f);
    m->descent = -TTF_FontDescent(f);
    if (m->descent < 0) m->descent = 0;
    m->line_height = TTF_FontLineSkip(f);
    int minx, maxx, miny, maxy, adv;
    if (TTF_GlyphMetrics32(f, '0', &minx, &maxx, &miny, &maxy, &adv) == 0 && maxy > 0)
        m->digit_top = maxy;
    else
        m->digit_top = (m->ascent * 3 + 2) / 4;
    m->px = px;
    return *m;
}

/* Whether cp maps to a real glyph. */
int font_has_glyph(FontSet *fs, uint32_t cp, int bold)
{
    TTF_Font *f = fs ? face(fs, 16, bold) : NULL;
    return f && TTF_GlyphIsProvided32(f, cp) != 0;
}

/*
** UTF-8, decoded by hand: the lead byte says how many continuation bytes
** follow; overlong forms, surrogates and values past U+10FFFF are rejected
** so that a malformed lesson shows U+FFFD instead of garbage.
*/
uint32_t font_utf8_next(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    uint32_t c = p[0];
    if (c == 0) return 0;
    int n;
    uint32_t min;
    if (c < 0x80) { *s += 1; return c; }
    else if ((c & 0xE0) == 0xC0) { n = 1; c &= 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { n = 2; c &= 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { n = 3; c &= 0x07; min = 0x10000; }
    else { *s += 1; return 0xFFFD; }
    for (int i = 1; i <= n; i++) {
        if ((p[i] & 0xC0) != 0x80) { *s += 1; return 0xFFFD; }
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) { *s += 1; return 0xFFFD; }
    *s += n + 1;
    return c;
}

/* Spread the bits of a key (a 32-bit finaliser from MurmurHash3). */
static uint32_t mix(uint32_t k)
{
    k ^= k >> 16; k *= 0x85ebca6bu;
    k ^= k >> 13; k *= 0xc2b2ae35u;
    k ^= k >> 16;
    return k;
}

/* Double the slot table and re-insert every glyph. */
static void grow_slots(FontSet *fs)
{
    uint32_t n = fs->nslots ? fs->nslots * 2 : 1024;
    free(fs->slots);
    fs->slots = xcalloc(n, sizeof *fs->slots);
    fs->nslots = n;
    for (int i = 0; i < fs->nglyphs; i++) {
        uint32_t h = mix(fs->keys[i]) & (n - 1);
        while (fs->slots[h]) h = (h + 1) & (n - 1);
        fs->slots[h] = (uint32_t)i + 1;
    }
}

/* The cached glyph (metrics only until rasterised), added on first sight. */
static FontGlyph *glyph_ref(FontSet *fs, uint32_t cp, int px, int bold, int rot)
{
    uint32_t key = KEY(cp, px, bold, rot);
    if ((uint32_t)fs->nglyphs * 2 >= fs->nslots) grow_slots(fs);
    uint32_t h = mix(key) & (fs->nslots - 1);
    while (fs->slots[h]) {
        uint32_t i = fs->slots[h] - 1;
        if (fs->keys[i] == key) return &fs->glyphs[i];
        h = (h + 1) & (fs->nslots - 1);
    }
    if (fs->nglyphs == fs->capglyphs) {
        fs->capglyphs = fs->capglyphs ? fs->capglyphs * 2 : 512;
        fs->glyphs = xrealloc(fs->glyphs, sizeof *fs->glyphs * (size_t)fs->capglyphs);
        fs->keys = xrealloc(fs->keys, sizeof *fs->keys * (size_t)fs->capglyphs);
    }
    FontGlyph *g = &fs->glyphs[fs->nglyphs];
    memset(g, 0, sizeof *g);
    g->cp = cp;
    g->page = -1;
    g->rotated = (uint8_t)rot;
    /* Control characters take no room and draw nothing. */
    TTF_Font *f = (cp >= 0x20 && cp != 0x7F) ? face(fs, px, bold) : NULL;
    int minx, maxx, miny, maxy, adv;
    if (f && TTF_GlyphMetrics32(f, cp, &minx, &maxx, &miny, &maxy, &adv) == 0)
        g->advance = (int16_t)adv;
    fs->keys[fs->nglyphs] = key;
    fs->slots[h] = (uint32_t)fs->nglyphs + 1;
    fs->nglyphs++;
    return g;
}

/* Text width: the sum of the advances, as render.c places the glyphs. */
float font_measure(void *ctx, const char *text, float size, int bold)
{
    FontSet *fs = ctx;
    int px = font_px(size);
    if (!fs || !text || px == 0) return 0;
    bold = bold ? 1 : 0;
    long w = 0;
    uint32_t cp;
    while ((cp = font_utf8_next(&text)) != 0) w += glyph_ref(fs, cp, px, bold, 0)->advance;
    return (float)w;
}

/* Empty page i and put the opaque white block in its top-left corner. */
static void clear_page(FontSet *fs, int i)
{
    FontPage *p = &fs->pages[i];
    SDL_Surface *s = p->surface;
    SDL_memset(s->pixels, 0, (size_t)s->pitch * (size_t)s->h);
    for (int y = 0; y < FONT_WHITE; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + y * s->pitch);
        for (int x = 0; x < FONT_WHITE; x++) row[x] = 0xFFFFFFFFu;
    }
    /* The block and its gutter open the first shelf. */
    p->shelf_y = 0;
    p->used_h = FONT_WHITE + 1;
    p->version++;
    fs->shelf_x[i] = fs->shelf_h[i] = FONT_WHITE + 1;
}

/* A fresh page; -1 when there is no room for another. */
static int add_page(FontSet *fs)
{
    if (fs->npages == FONT_MAX_PAGES) return -1;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, FONT_PAGE_SIZE, FONT_PAGE_SIZE, 32,
                                                    SDL_PIXELFORMAT_ARGB8888);
    if (!s) return -1;
    int i = fs->npages++;
    fs->pages[i] = (FontPage){ s, 0, 0, 0 };
    clear_page(fs, i);
    return i;
}

/* Make sure page 0 exists (it carries the white block even with no glyphs). */
int font_first_page(FontSet *fs)
{
    return fs->npages > 0 ? 0 : add_page(fs);
}

/*
** Shelf packing: glyphs go left to right along a shelf as tall as the
** tallest glyph on it; a glyph that does not fit starts a new shelf below,
** and a full page starts a new page. Glyphs of one size have similar heights,
** so little space is lost, and everything above the current shelf never
** changes again, which lets a renderer upload only the rows below it.
*/
static int pack(FontSet *fs, int w, int h, int *x, int *y)
{
    if (w > FONT_PAGE_SIZE || h > FONT_PAGE_SIZE) return -1;
    int i = fs->npages - 1;
    if (i >= 0 && fs->shelf_x[i] + w > FONT_PAGE_SIZE) {
        fs->pages[i].shelf_y += fs->shelf_h[i];
        fs->shelf_x[i] = fs->shelf_h[i] = 0;
    }
    if (i < 0 || fs->pages[i].shelf_y + h > FONT_PAGE_SIZE) {
        if (i >= 0) fs->pages[i].shelf_y = FONT_PAGE_SIZE;   /* closed for good */
        i = add_page(fs);
        if (i < 0) { fs->full = 1; return -1; }
    }
    FontPage *p = &fs->pages[i];
    *x = fs->shelf_x[i];
    *y = p->shelf_y;
    fs->shelf_x[i] += w;
    if (h > fs->shelf_h[i]) fs->shelf_h[i] = h;
    if (p->shelf_y + h > p->used_h) p->used_h = p->shelf_y + h;
    p->version++;
    return i;
}

/*
** Rasterise a glyph into a page. SDL_ttf renders one glyph as a line of
** text: a surface as tall as the font, with the pen at x = max(0, -minx)
** and the baseline at ascent + max(0, maxy - ascent). From there the
** glyph's own box [minx, maxx) x [miny, maxy) is cut out and copied, as
** plain coverage (white, alpha), turned when the glyph is rotated.
*/
static void raster(FontSet *fs, FontGlyph *g, int px, int bold)
{
    g->rastered = 1;
    if (g->cp < 0x20 || g->cp == 0x7F) return;
    TTF_Font *f = face(fs, px, bold);
    int minx, maxx, miny, maxy, adv;
    if (!f || TTF_GlyphMetrics32(f, g->cp, &minx, &maxx, &miny, &maxy, &adv) < 0) return;
    int gw = maxx - minx, gh = maxy - miny;
    if (gw <= 0 || gh <= 0) return;                 /* a space */
    SDL_Surface *s = TTF_RenderGlyph32_Blended(f, g->cp, (SDL_Color){ 255, 255, 255, 255 });
    if (!s) return;
    if (s->format->format != SDL_PIXELFORMAT_ARGB8888) {
        SDL_Surface *c = SDL_ConvertSurfaceFormat(s, SDL_PIXELFORMAT_ARGB8888, 0);
        SDL_FreeSurface(s);
        if (!c) return;
        s = c;
    }
    int ascent = TTF_FontAscent(f);
    int ox = minx < 0 ? -minx : 0;
    int oy = ascent + (maxy > ascent ? maxy - ascent : 0);
    int sx = ox + minx, sy = oy - maxy;
    int rot = g->rotated;
    int dw = rot ? gh : gw, dh = rot ? gw : gh;
    int ax, ay;
    int page = pack(fs, dw + 1, dh + 1, &ax, &ay);  /* +1: a clear gutter */
    if (page < 0) { SDL_FreeSurface(s); g->rastered = 0; return; }
    SDL_Surface *dst = fs->pages[page].surface;
    SDL_LockSurface(s);
    for (int j = 0; j < gh; j++) {
        int y = sy + j;
        for (int i = 0; i < gw; i++) {
            int x = sx + i;
            uint32_t a = 0;
            if (x >= 0 && x < s->w && y >= 0 && y < s->h)
                a = ((const uint32_t *)((const uint8_t *)s->pixels + y * s->pitch))[x] >> 24;
            /* Counter-clockwise: column i of the glyph becomes row gw-1-i. */
            int tx = rot ? j : i, ty = rot ? gw - 1 - i : j;
            uint32_t *row = (uint32_t *)((uint8_t *)dst->pixels + (ay + ty) * dst->pitch);
            row[ax + tx] = a << 24 | 0xFFFFFFu;
        }
    }
    SDL_UnlockSurface(s);
    SDL_FreeSurface(s);
    g->page = (int16_t)page;
    g->ax = (uint16_t)ax;
    g->ay = (uint16_t)ay;
    g->w = (uint16_t)dw;
    g->h = (uint16_t)dh;
    /* The unrotated box is (minx, -maxy) from the pen; turning it
    ** counter-clockwise maps an offset (u, v) to (v, -u). */
    g->dx = (int16_t)(rot ? -maxy : minx);
    g->dy = (int16_t)(rot ? -(minx + gw) : -maxy);
}

/* A copy of the glyph, rasterised first when asked. */
FontGlyph font_glyph(FontSet *fs, uint32_t cp, int px, int bold, int rotated, int raster_it)
{
    FontGlyph none;
    memset(&none, 0, sizeof none);
    none.page = -1;
    if (!fs || px < FONT_MIN_PX || px > FONT_MAX_PX || cp > 0x10FFFF) return none;
    bold = bold ? 1 : 0;
    rotated = rotated ? 1 : 0;
    FontGlyph *g = glyph_ref(fs, cp, px, bold, rotated);
    if (raster_it && !g->rastered) raster(fs, g, px, bold);
    return *g;
}

/* Pages in use. */
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

/* Drop all bitmaps: the pages are cleared and refilled from the top. */
void font_cache_reset(FontSet *fs)
{
    for (int i = 0; i < fs->nglyphs; i++) {
        FontGlyph *g = &fs->glyphs[i];
        g->rastered = 0;
        g->page = -1;
        g->w = g->h = 0;
    }
    /* Keep the first page, free the others: a reset is rare, memory is not. */
    for (int i = 1; i < fs->npages; i++) SDL_FreeSurface(fs->pages[i].surface);
    if (fs->npages > 1) fs->npages = 1;
    if (fs->npages == 1) clear_page(fs, 0);
    fs->generation++;
    fs->full = 0;
}
