/*
** font_shape.c: strings into shaped runs, and the cache of runs.
**
** A string takes one of two roads. If every character is one DejaVu Sans
** (the main font) has and none needs shaping (Latin, Greek, Cyrillic,
** letter-like and mathematical signs), the run is one glyph per character
** with hinted advances, unkerned: cheap, and the same pixels the program
** has always drawn. Anything else is shaped: each character gets a font
** (the main font if it has the glyph, else the first fallback that does;
** marks, joiners and variation selectors stay with the character before
** them so that clusters are shaped by one font), FriBidi finds the
** paragraph's levels and their visual order, the text is cut where the
** level, the font or the script changes, and HarfBuzz shapes each piece.
** The pieces and their order are the ones libraqm 0.7 made when the
** program shaped through it (tests/test_shape.c compares the two); what
** differs is that each face keeps its HarfBuzz font, and with it the shape
** plans HarfBuzz compiles, where libraqm made a new font for every piece
** of every string and compiled them again: nine tenths of the time of a
** first layout of a lesson in Japanese (docs/performance.md).
**
** Text of the first kind with bidi controls in it (the marks U+200E/F, the
** embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069) takes
** the fast road too, in the visual order FriBidi gives it: a paragraph
** of overrides no one closes costs what plain Latin costs, instead of a
** HarfBuzz run per word.
**
** Runs are cached by (string, pixel size, weight), within the bounds and
** by the rule font.h gives: a tick counts the runs asked for, each run
** keeps the tick of its last use, and when a new run would pass a bound
** the older half goes.
*/
#include "font_impl.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <fribidi.h>
#include <hb.h>
#include <hb-ft.h>

#include <assert.h>
#include <stdlib.h>
#include <string.h>

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

/* What a run holds in memory: its text and glyphs. */
static size_t run_size(const RunEntry *e)
{
    return strlen(e->text) + 1 + sizeof *e->g * (size_t)e->n;
}

/* Move the runs last used at or after tick `from` into a table of cap
** slots (a power of two), letting the others go. */
static void runs_rebuild(FontSet *fs, uint32_t cap, uint64_t from)
{
    RunEntry *t = xcalloc(cap, sizeof *t);
    fs->nruns = 0;
    fs->run_bytes = 0;
    for (uint32_t i = 0; i < fs->capruns; i++) {
        RunEntry *e = &fs->runs[i];
        if (!e->text) continue;
        if (e->used < from) {
            free(e->text);
            free(e->g);
            continue;
        }
        uint32_t j = e->hash & (cap - 1);
        while (t[j].text) j = (j + 1) & (cap - 1);
        t[j] = *e;
        fs->nruns++;
        fs->run_bytes += run_size(e);
    }
    free(fs->runs);
    fs->runs = t;
    fs->capruns = cap;
}

/* Order of ticks, for qsort. */
static int tick_order(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Let the least recently used half of the runs go (at least one). */
static void runs_evict(FontSet *fs)
{
    uint64_t *used = xmalloc(sizeof *used * (fs->nruns ? fs->nruns : 1));
    uint32_t n = 0;
    for (uint32_t i = 0; i < fs->capruns; i++)
        if (fs->runs[i].text) used[n++] = fs->runs[i].used;
    assert(n == fs->nruns && n > 0);
    qsort(used, n, sizeof *used, tick_order);
    uint64_t from = used[(n - 1) / 2] + 1;      /* ticks are never equal: n / 2 runs stay */
    free(used);
    runs_rebuild(fs, fs->capruns, from);
}

/* Free the run cache and the HarfBuzz fonts. */
void font_runs_free(FontSet *fs)
{
    for (uint32_t i = 0; i < fs->capruns; i++) {
        free(fs->runs[i].text);
        free(fs->runs[i].g);
    }
    free(fs->runs);
    fs->runs = NULL;
    fs->capruns = fs->nruns = 0;
    fs->run_bytes = 0;
    for (int i = 0; i < fs->nfaces; i++) {
        if (fs->face[i].hb) hb_font_destroy(fs->face[i].hb);
        fs->face[i].hb = NULL;
    }
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

/* The face of each character (see the top of the file), a face that
** cannot open at px replaced by the main one. */
void font_choose_faces(FontSet *fs, const uint32_t *cp, int n, int px, int bold, int *face)
{
    for (int i = 0; i < n; i++) {
        if (i > 0 && extends(cp[i])) { face[i] = face[i - 1]; continue; }
        int f = font_face_for(fs, cp[i], bold, wants_color(cp[i], i + 1 < n ? cp[i + 1] : 0));
        face[i] = f >= 0 ? f : bold;        /* nobody has it: the main font's box */
    }
    for (int i = 0; i < n; i++)
        if (!font_face_at(fs, face[i], px)) face[i] = bold;
}

/* Round a 26.6 value to whole pixels, halves away from zero. */
static int round26(long v)
{
    return (int)(v >= 0 ? (v + 32) >> 6 : -((-v + 32) >> 6));
}

/*
** Face i's HarfBuzz font, sized to px (its FT_Size active). One a face,
** made on first use and kept: its hb_face holds the shape plans HarfBuzz
** compiles for each script and direction, which for a large font (a CJK
** collection) cost a hundred times the shaping of a word; a font made
** afresh for every string (as libraqm 0.7 makes them) compiles them again
** every time. A new size is taken as hb_ft_font_create takes the first
** (hb_ft_font_changed: the scale read from the active size, the advance
** cache emptied), so the kept font shapes exactly as a new one would.
** NULL when the face cannot be used.
*/
static hb_font_t *hb_font_at(FontSet *fs, int face, int px)
{
    FT_Face ft = font_face_at(fs, face, px);
    if (!ft) return NULL;
    Face *f = &fs->face[face];
    if (!f->hb) {
        f->hb = hb_ft_font_create_referenced(ft);
        hb_ft_font_set_load_flags(f->hb, FT_LOAD_DEFAULT);     /* hinted advances, as the glyphs are drawn */
        f->hb_px = px;
    } else if (f->hb_px != px) {
        hb_ft_font_changed(f->hb);
        f->hb_px = px;
    }
    return f->hb;
}

/* Brackets whose two sides take the script around the opening one: pairs,
** the opening side at an even place (as libraqm 0.7 pairs them). */
static const uint32_t paired[] = {
    0x0028, 0x0029, 0x003C, 0x003E, 0x005B, 0x005D, 0x007B, 0x007D, 0x00AB, 0x00BB,
    0x2018, 0x2019, 0x201C, 0x201D, 0x2039, 0x203A, 0x3008, 0x3009, 0x300A, 0x300B,
    0x300C, 0x300D, 0x300E, 0x300F, 0x3010, 0x3011, 0x3014, 0x3015, 0x3016, 0x3017,
    0x3018, 0x3019, 0x301A, 0x301B,
};

/* cp's place in paired, or -1. */
static int pair_index(uint32_t cp)
{
    int lo = 0, hi = (int)(sizeof paired / sizeof paired[0]) - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (cp < paired[mid]) hi = mid - 1;
        else if (cp > paired[mid]) lo = mid + 1;
        else return mid;
    }
    return -1;
}

/*
** The script each character is shaped in. A character of the Common or
** Inherited script (spaces, digits, punctuation, marks) takes the script
** of the one before it; an opening bracket too, and its closing bracket
** then takes the opening one's (the brackets opened since are closed with
** it; the opening one stays open); the Common or Inherited characters the
** text starts with take the script after them. These are libraqm 0.7's
** rules, kept so that text splits into the runs it always did.
*/
static void resolve_scripts(const uint32_t *cp, int n, hb_script_t *script)
{
    hb_unicode_funcs_t *uf = hb_unicode_funcs_get_default();
    hb_script_t *open_script = xmalloc(sizeof *open_script * (size_t)n);
    int *open_pair = xmalloc(sizeof *open_pair * (size_t)n), open = 0;
    hb_script_t last = HB_SCRIPT_INVALID;
    for (int i = 0; i < n; i++) {
        hb_script_t s = hb_unicode_script(uf, cp[i]);
        int pi = i > 0 && s == HB_SCRIPT_COMMON ? pair_index(cp[i]) : -1;
        if (pi >= 0 && pi % 2 == 0) {
            s = last;
            open_script[open] = s;
            open_pair[open++] = pi;
        } else if (pi >= 0) {
            while (open > 0 && open_pair[open - 1] != pi - 1) open--;
            s = open > 0 ? (last = open_script[open - 1]) : last;
        } else if (i > 0 && (s == HB_SCRIPT_COMMON || s == HB_SCRIPT_INHERITED)) {
            s = last;
        } else {
            last = s;
        }
        script[i] = s;
    }
    for (int i = n - 2; i >= 0; i--)
        if (script[i] == HB_SCRIPT_COMMON || script[i] == HB_SCRIPT_INHERITED) script[i] = script[i + 1];
    free(open_script);
    free(open_pair);
}

/* A stretch of one embedding level (UAX #9), in logical order. */
typedef struct Level {
    int pos, len;
    FriBidiLevel level;
} Level;

/*
** The text's stretches of one level in visual order (UAX #9 rule L2 for a
** single line: from the highest level down, every sequence of stretches
** at that level or above is reversed). FriBidi's levels have rule L1
** applied already (white space and controls at the end of the line at
** the paragraph's level). Returns the count.
*/
static int visual_levels(const FriBidiLevel *levels, int n, Level *out)
{
    int count = 0;
    FriBidiLevel top = 0;
    for (int i = 0; i < n; i++) {
        if (levels[i] > top) top = levels[i];
        if (count == 0 || levels[i] != out[count - 1].level) out[count++] = (Level){ i, 0, levels[i] };
        out[count - 1].len++;
    }
    for (FriBidiLevel lv = top; lv > 0; lv--)
        for (int i = count - 1; i >= 0; i--) {
            if (out[i].level < lv) continue;
            int end = i;
            while (i > 0 && out[i - 1].level >= lv) i--;
            for (int a = i, b = end; a < b; a++, b--) {
                Level t = out[a];
                out[a] = out[b];
                out[b] = t;
            }
        }
    return count;
}

/* Shape characters [pos, pos + len) of cp in one face, script and
** direction, with the whole text as context; the glyphs are appended with
** the pen (26.6) moving on. 0 when the face cannot be used. */
static int shape_item(FontSet *fs, hb_buffer_t *buf, const uint32_t *cp, const uint32_t *at, int n, int pos, int len,
                      int face, hb_script_t script, int rtl, int px, GlyphList *out, long *pen)
{
    hb_font_t *font = hb_font_at(fs, face, px);
    if (!font) return 0;
    hb_buffer_reset(buf);
    hb_buffer_add_utf32(buf, cp, n, (unsigned)pos, len);
    hb_buffer_set_script(buf, script);
    hb_buffer_set_language(buf, hb_language_get_default());
    hb_buffer_set_direction(buf, rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
    hb_buffer_set_flags(buf, HB_BUFFER_FLAG_BOT | HB_BUFFER_FLAG_EOT);
    hb_shape(font, buf, NULL, 0);
    unsigned count = 0;
    const hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buf, &count);
    const hb_glyph_position_t *gp = hb_buffer_get_glyph_positions(buf, NULL);
    int strike = fs->face[face].strike;
    for (unsigned k = 0; k < count; k++) {
        long adv = gp[k].x_advance, xo = gp[k].x_offset, yo = gp[k].y_offset;
        if (strike) { adv = adv * px / strike; xo = xo * px / strike; yo = yo * px / strike; }
        uint32_t c = info[k].cluster;
        push(out, info[k].codepoint, face, round26(*pen + xo), -round26(yo), c < (uint32_t)n ? at[c] : 0);
        *pen += adv;
    }
    return 1;
}

/*
** The shaping road: a font per character (font_choose_faces), the embedding
** levels of the paragraph (FriBidi; its direction from its first strong
** character), the script of each character (resolve_scripts); then the
** stretches of one level in visual order, each cut where the font or the
** script changes (a right-to-left stretch from its end), and each piece
** shaped by HarfBuzz with the face's kept font (hb_font_at). This is what
** libraqm 0.7 gives for the same fonts, glyph for glyph. Returns the
** width; no glyphs when FriBidi or a font fails.
*/
static int shape_complex(FontSet *fs, const uint32_t *cp, const uint32_t *at, int n, int px, int bold, GlyphList *out)
{
    if (n == 0) return 0;
    int *face = xmalloc(sizeof *face * (size_t)n);
    FriBidiCharType *types = xmalloc(sizeof *types * (size_t)n);
    FriBidiBracketType *brackets = xmalloc(sizeof *brackets * (size_t)n);
    FriBidiLevel *levels = xmalloc(sizeof *levels * (size_t)n);
    hb_script_t *script = xmalloc(sizeof *script * (size_t)n);
    Level *lv = xmalloc(sizeof *lv * (size_t)n);
    font_choose_faces(fs, cp, n, px, bold, face);
    FriBidiParType dir = FRIBIDI_PAR_ON;
    fribidi_get_bidi_types(cp, n, types);
    fribidi_get_bracket_types(cp, n, types, brackets);
    int ok = fribidi_get_par_embedding_levels_ex(types, brackets, n, &dir, levels) != 0;
    long pen = 0;
    if (ok) {
        resolve_scripts(cp, n, script);
        int nlv = visual_levels(levels, n, lv);
        hb_buffer_t *buf = hb_buffer_create();
        for (int r = 0; r < nlv && ok; r++) {
            int rtl = FRIBIDI_LEVEL_IS_RTL(lv[r].level), step = rtl ? -1 : 1;
            int i = rtl ? lv[r].pos + lv[r].len - 1 : lv[r].pos, stop = rtl ? lv[r].pos - 1 : lv[r].pos + lv[r].len;
            while (i != stop && ok) {
                int j = i;
                while (j != stop && face[j] == face[i] && script[j] == script[i]) j += step;
                ok = shape_item(fs, buf, cp, at, n, rtl ? j + 1 : i, rtl ? i - j : j - i, face[i], script[i], rtl, px, out,
                                &pen);
                i = j;
            }
        }
        hb_buffer_destroy(buf);
    }
    free(face);
    free(types);
    free(brackets);
    free(levels);
    free(script);
    free(lv);
    if (!ok) {
        out->n = 0;
        return 0;
    }
    return round26(pen);
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

/* Find or make the cached run (the rule is in font.h). */
FontRun font_shape(FontSet *fs, const char *text, int px, int bold)
{
    FontRun none = { 0, 0, NULL };
    if (!fs || !text || px < FONT_MIN_PX || px > FONT_MAX_PX) return none;
    bold = bold ? 1 : 0;
    uint32_t h = hash_key(text, px, bold);
    if (fs->capruns) {
        for (uint32_t i = h & (fs->capruns - 1); fs->runs[i].text; i = (i + 1) & (fs->capruns - 1)) {
            RunEntry *e = &fs->runs[i];
            if (e->hash == h && e->px == px && e->bold == bold && !strcmp(e->text, text)) {
                e->used = ++fs->run_tick;
                return (FontRun){ e->width, e->n, e->g };
            }
        }
    }
    GlyphList l = { NULL, 0, 0 };
    int width = shape(fs, text, px, bold, &l);
    fs->shaped++;
    RunEntry e = { xstrdup(text), h, px, bold, width, l.n, l.g, ++fs->run_tick };
    size_t bytes = run_size(&e);
    while (fs->nruns > 0 && (fs->nruns + 1 > FONT_RUNS_MAX || fs->run_bytes + bytes > FONT_RUN_BYTES_MAX))
        runs_evict(fs);
    if ((fs->nruns + 1) * 2 >= fs->capruns) runs_rebuild(fs, fs->capruns ? fs->capruns * 2 : 1024, 0);
    uint32_t i = h & (fs->capruns - 1);
    while (fs->runs[i].text) i = (i + 1) & (fs->capruns - 1);
    fs->runs[i] = e;
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
