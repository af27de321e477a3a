/*
** font_shape.c: strings into shaped runs, and the cache of runs.
**
** A string takes one of two roads. If every character is one DejaVu Sans
** (the main font) has and none needs shaping (Latin, Greek, Cyrillic,
** letter-like and mathematical signs), the run is one glyph per character
** with hinted advances, unkerned: cheap, and the same pixels the program
** has always drawn. Anything else goes to libraqm: each character gets a
** font (the main font if it has the glyph, else the first fallback that
** does; marks, joiners and variation selectors stay with the character
** before them so that clusters are shaped by one font), then HarfBuzz
** shapes every stretch of one font and FriBidi puts the stretches in
** visual order.
**
** Text of the first kind with bidi controls in it (the marks U+200E/F, the
** embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069) takes
** the fast road too, in the visual order FriBidi gives it: a paragraph
** of overrides no one closes costs what plain Latin costs, instead of a
** HarfBuzz run per word.
**
** Runs are cached by (string, pixel size, weight). The cache is bounded:
** when it holds too many runs or bytes it is emptied and refilled, which a
** steady frame never triggers.
*/
#include "font_impl.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <fribidi.h>
#include <hb.h>
#include <raqm.h>

#include <stdlib.h>
#include <string.h>

/* The run cache is emptied beyond this many runs or bytes. */
#define RUNS_MAX      32768
#define RUN_BYTES_MAX (32u << 20)

/* Whether cp can be placed without shaping when the main font has it. */
static int simple_cp(uint32_t cp)
{
    return (cp >= 0x20 && cp < 0x0300) || (cp >= 0x0370 && cp < 0x0483) || (cp >= 0x048A && cp < 0x0530)
        || (cp >= 0x1D00 && cp < 0x1DC0) || (cp >= 0x1E00 && cp < 0x2000)
        || (cp >= 0x2010 && cp < 0x2028) || (cp >= 0x2030 && cp < 0x205F)
        || (cp >= 0x2070 && cp < 0x20D0) || (cp >= 0x2100 && cp < 0x2C00);
}

/* Whether cp belongs with the character before it (a mark, joiner, selector, modifier). */
static int extends(uint32_t cp)
{
    if (cp == 0x200C || cp == 0x200D || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0020 && cp <= 0xE007F)
        || (cp >= 0xE0100 && cp <= 0xE01EF) || (cp >= 0x1F3FB && cp <= 0x1F3FF) || cp == 0x20E3)
        return 1;
    hb_unicode_general_category_t gc = hb_unicode_general_category(hb_unicode_funcs_get_default(), cp);
    return gc == HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK || gc == HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK
        || gc == HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK;
}

/* Whether cp wants a colour (emoji) font: pictographs, or a sign asking for
** emoji presentation with U+FE0F after it. */
static int wants_color(uint32_t cp, uint32_t next)
{
    return (cp >= 0x1F000 && cp <= 0x1FAFF) || next == 0xFE0F;
}

/* FNV-1a over the string, then the size and weight. */
static uint32_t hash_key(const char *s, int px, int bold)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) h = (h ^ *p) * 16777619u;
    h = (h ^ (uint32_t)px) * 16777619u;
    h = (h ^ (uint32_t)bold) * 16777619u;
    return h ? h : 1;
}

/* Empty the run cache (memory for the table is kept). */
static void runs_clear(FontSet *fs)
{
    for (uint32_t i = 0; i < fs->capruns; i++) {
        free(fs->runs[i].text);
        free(fs->runs[i].g);
    }
    if (fs->runs) memset(fs->runs, 0, sizeof *fs->runs * fs->capruns);
    fs->nruns = 0;
    fs->run_bytes = 0;
}

/* Free the run cache. */
void font_runs_free(FontSet *fs)
{
    runs_clear(fs);
    free(fs->runs);
    fs->runs = NULL;
    fs->capruns = 0;
}

/* A growable list of run glyphs. */
typedef struct GlyphList {
    FontRunGlyph *g;
    int n, cap;
} GlyphList;

/* Append one glyph. */
static void push(GlyphList *l, uint32_t gid, int face, int x, int y, uint32_t byte)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->g = xrealloc(l->g, sizeof *l->g * (size_t)l->cap);
    }
    l->g[l->n++] = (FontRunGlyph){ gid, (uint16_t)face, x, y, byte };
}

/* The fast road: one glyph per character of the main font, hinted advances. */
static int shape_simple(FontSet *fs, const uint32_t *cp, const uint32_t *at, int n, int px, int bold, GlyphList *out)
{
    FT_Face f = font_face_at(fs, bold, px);
    if (!f) return 0;
    int pen = 0;
    for (int i = 0; i < n; i++) {
        if (font_invisible(cp[i])) continue;
        uint32_t gid = FT_Get_Char_Index(f, cp[i]);
        push(out, gid, bold, pen, 0, at[i]);
        pen += font_glyph(fs, bold, gid, px, 0, 0).advance;
    }
    return pen;
}

/*
** The fast road for simple characters among bidi controls: FriBidi's
** levels and visual order (the paragraph's direction from its first strong
** character, as libraqm decides it), mirrored brackets where a level is
** right to left, then one glyph per character as shape_simple places them.
** Linear in the length, however the controls nest. Returns -1 when FriBidi
** fails (the caller takes the shaping road).
*/
static int shape_simple_bidi(FontSet *fs, const uint32_t *cp, const uint32_t *at, int n, int px, int bold,
                             GlyphList *out)
{
    FT_Face f = font_face_at(fs, bold, px);
    if (!f) return 0;
    FriBidiCharType *types = xmalloc(sizeof *types * (size_t)n);
    FriBidiBracketType *brackets = xmalloc(sizeof *brackets * (size_t)n);
    FriBidiLevel *levels = xmalloc(sizeof *levels * (size_t)n);
    FriBidiStrIndex *map = xmalloc(sizeof *map * (size_t)n);
    FriBidiParType dir = FRIBIDI_PAR_ON;
    fribidi_get_bidi_types(cp, n, types);
    fribidi_get_bracket_types(cp, n, types, brackets);
    for (int i = 0; i < n; i++) map[i] = i;
    int pen = -1;
    if (fribidi_get_par_embedding_levels_ex(types, brackets, n, &dir, levels)
        && fribidi_reorder_line(FRIBIDI_FLAGS_DEFAULT, types, n, 0, dir, levels, NULL, map)) {
        pen = 0;
        for (int k = 0; k < n; k++) {
            int i = map[k];
            FriBidiChar c = cp[i];
            if (font_invisible(c)) continue;
            if (FRIBIDI_LEVEL_IS_RTL(levels[i])) fribidi_get_mirror_char(c, &c);
            uint32_t gid = FT_Get_Char_Index(f, c);
            push(out, gid, bold, pen, 0, at[i]);
            pen += font_glyph(fs, bold, gid, px, 0, 0).advance;
        }
    }
    free(types);
    free(brackets);
    free(levels);
    free(map);
    return pen;
}

/* The face of each character (see the top of the file). */
static void choose_faces(FontSet *fs, const uint32_t *cp, int n, int bold, int *face)
{
    for (int i = 0; i < n; i++) {
        if (i > 0 && extends(cp[i])) { face[i] = face[i - 1]; continue; }
        int f = font_face_for(fs, cp[i], bold, wants_color(cp[i], i + 1 < n ? cp[i + 1] : 0));
        face[i] = f >= 0 ? f : bold;        /* nobody has it: the main font's box */
    }
}

/* The face whose FT_Face is ft. */
static int face_index(const FontSet *fs, FT_Face ft, int dflt)
{
    for (int i = 0; i < fs->nfaces; i++)
        if (fs->face[i].ft == ft) return i;
    return dflt;
}

/* Round a 26.6 value to whole pixels, halves away from zero. */
static int round26(long v)
{
    return (int)(v >= 0 ? (v + 32) >> 6 : -((-v + 32) >> 6));
}

/* The shaping road: fonts per character, then raqm (HarfBuzz + FriBidi). */
static int shape_complex(FontSet *fs, const uint32_t *cp, const uint32_t *at, int n, int px, int bold, GlyphList *out)
{
    int *face = xmalloc(sizeof *face * (size_t)(n ? n : 1));
    choose_faces(fs, cp, n, bold, face);
    for (int i = 0; i < n; i++)             /* fonts that cannot open: the main one */
        if (!font_face_at(fs, face[i], px)) face[i] = bold;
    raqm_t *rq = raqm_create();
    int width = 0;
    if (rq && raqm_set_text(rq, cp, (size_t)n) && raqm_set_par_direction(rq, RAQM_DIRECTION_DEFAULT)
        && raqm_set_freetype_load_flags(rq, FT_LOAD_DEFAULT)) {
        int ok = 1;
        for (int i = 0; i < n && ok;) {
            int j = i;
            while (j < n && face[j] == face[i]) j++;
            FT_Face ft = font_face_at(fs, face[i], px);
            ok = ft && raqm_set_freetype_face_range(rq, ft, (size_t)i, (size_t)(j - i));
            i = j;
        }
        /* Every face used must have px active when raqm reads its size. */
        for (int i = 0; i < n; i++) font_face_at(fs, face[i], px);
        size_t count = 0;
        raqm_glyph_t *g = ok && raqm_layout(rq) ? raqm_get_glyphs(rq, &count) : NULL;
        long pen = 0;
        for (size_t k = 0; g && k < count; k++) {
            int fi = face_index(fs, g[k].ftface, bold);
            long adv = g[k].x_advance, xo = g[k].x_offset, yo = g[k].y_offset;
            int strike = fs->face[fi].strike;
            if (strike) { adv = adv * px / strike; xo = xo * px / strike; yo = yo * px / strike; }
            push(out, g[k].index, fi, round26(pen + xo), -round26(yo), g[k].cluster < (uint32_t)n ? at[g[k].cluster] : 0);
            pen += adv;
        }
        width = round26(pen);
    }
    if (rq) raqm_destroy(rq);
    free(face);
    return width;
}

/* Shape text from scratch. */
static int shape(FontSet *fs, const char *text, int px, int bold, GlyphList *out)
{
    int n = 0, cap = 64, simple = 1, bidi = 0;
    uint32_t *cp = xmalloc(sizeof *cp * (size_t)cap), *at = xmalloc(sizeof *at * (size_t)cap);
    FT_Face main = font_face_at(fs, bold, px);
    const char *p = text, *from = text;
    uint32_t c;
    while ((c = utf8_next(&p)) != 0) {
        if (n == cap) {
            cap *= 2;
            cp = xrealloc(cp, sizeof *cp * (size_t)cap);
            at = xrealloc(at, sizeof *at * (size_t)cap);
        }
        uint32_t byte = (uint32_t)(from - text);
        from = p;
        if (c < 0x20 || c == 0x7F) continue;    /* controls take no room and draw nothing */
        at[n] = byte;
        cp[n++] = c;
        if (utf8_bidi_control(c)) bidi = 1;
        else if (simple && (!simple_cp(c) || !main || FT_Get_Char_Index(main, c) == 0)) simple = 0;
    }
    int w = -1;
    if (simple && bidi) w = shape_simple_bidi(fs, cp, at, n, px, bold, out);
    else if (simple) w = shape_simple(fs, cp, at, n, px, bold, out);
    if (w < 0) {
        out->n = 0;
        w = shape_complex(fs, cp, at, n, px, bold, out);
    }
    free(cp);
    free(at);
    return w;
}

/* Find or make the cached run. */
FontRun font_shape(FontSet *fs, const char *text, int px, int bold)
{
    FontRun none = { 0, 0, NULL };
    if (!fs || !text || px < FONT_MIN_PX || px > FONT_MAX_PX) return none;
    bold = bold ? 1 : 0;
    uint32_t h = hash_key(text, px, bold);
    if (fs->capruns) {
        for (uint32_t i = h & (fs->capruns - 1); fs->runs[i].text; i = (i + 1) & (fs->capruns - 1)) {
            RunEntry *e = &fs->runs[i];
            if (e->hash == h && e->px == px && e->bold == bold && !strcmp(e->text, text))
                return (FontRun){ e->width, e->n, e->g };
        }
    }
    GlyphList l = { NULL, 0, 0 };
    int width = shape(fs, text, px, bold, &l);
    size_t bytes = strlen(text) + 1 + sizeof *l.g * (size_t)l.n;
    if (fs->nruns + 1 > RUNS_MAX || fs->run_bytes + bytes > RUN_BYTES_MAX) runs_clear(fs);
    if ((fs->nruns + 1) * 2 >= fs->capruns) {
        uint32_t ncap = fs->capruns ? fs->capruns * 2 : 1024;
        RunEntry *t = xcalloc(ncap, sizeof *t);
        for (uint32_t i = 0; i < fs->capruns; i++) {
            if (!fs->runs[i].text) continue;
            uint32_t j = fs->runs[i].hash & (ncap - 1);
            while (t[j].text) j = (j + 1) & (ncap - 1);
            t[j] = fs->runs[i];
        }
        free(fs->runs);
        fs->runs = t;
        fs->capruns = ncap;
    }
    uint32_t i = h & (fs->capruns - 1);
    while (fs->runs[i].text) i = (i + 1) & (fs->capruns - 1);
    fs->runs[i] = (RunEntry){ xstrdup(text), h, px, bold, width, l.n, l.g };
    fs->nruns++;
    fs->run_bytes += bytes;
    return (FontRun){ width, l.n, l.g };
}

/* Text width: the shaped run's advance, as render.c places the glyphs. */
float font_measure(void *ctx, const char *text, float size, int bold)
{
    int px = font_px(size);
    if (!ctx || !text || px == 0) return 0;
    return (float)font_shape(ctx, text, px, bold).width;
}

/* The font families the text of d is drawn with. */
char *font_families(FontSet *fs, const DrawList *d)
{
    unsigned char used[FONT_MAX_FACES] = { 0 };
    used[0] = 1;
    for (int i = 0; d && i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_TEXT) continue;
        FontRun r = font_shape(fs, draw_str(d, c), font_px(c->size), c->bold);
        for (int k = 0; k < r.n; k++) used[r.g[k].face] = 1;
    }
    Buf b = { 0 };
    for (int f = 0; f < fs->nfaces; f++) {
        const char *fam = fs->face[f].family;
        if (!used[f] || !fam[0] || strchr(fam, '"') || strchr(fam, '<') || strchr(fam, '&')) continue;
        int seen = 0;
        for (int g = 0; g < f; g++) seen |= used[g] && !strcmp(fs->face[g].family, fam);
        if (seen) continue;
        buf_printf(&b, "%s%s", b.len ? ", " : "", fam);
    }
    buf_printf(&b, "%ssans-serif", b.len ? ", " : "");
    return buf_take(&b);
}
