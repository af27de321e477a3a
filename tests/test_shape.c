/*
** test_shape.c: the shaping road and the run cache (src/sdl/font_shape.c).
**
** The program shaped complex text through libraqm 0.7 until it shaped with
** HarfBuzz itself, keeping one HarfBuzz font a face; its pictures must not
** change. So every string of the script lessons, strings written to walk
** the bidi and script rules (brackets, numbers, embeddings, isolates,
** marks, emoji sequences) and thousands of random ones are shaped both
** ways, at sizes taken in turn so that the kept fonts change size, and
** must give the same glyphs at the same places. The reference is the code
** the program had: libraqm with the same fonts per character.
**
** The run cache: a frame (the layout measuring, the PNG drawing, the SVG's
** font list) shapes each string at each size once, also when the cache is
** full of strings no frame shows; the cache stays within its bound and
** lets the least recently used runs go first.
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "tfonts.h"
#include "tstages.h"
#include "core/compute/attn.h"
#include "core/text/utf8.h"
#include "core/util.h"
#include "sdl/font_impl.h"
#include "sdl/render.h"
#include "view/layout.h"

#include <raqm.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The errors of the font and render calls, for messages. */
static Error ferr, rerr;

/* Round a 26.6 value to whole pixels, halves away from zero (as the run does). */
static int round26(long v)
{
    return (int)(v >= 0 ? (v + 32) >> 6 : -((-v + 32) >> 6));
}

/* Whether text takes the shaping road for certain: a character no simple
** run can hold (a combining mark, or anything from Hebrew to the end of
** the Mongolian-era blocks, or from U+2C00 on). */
static int surely_complex(const char *text)
{
    const char *p = text;
    uint32_t c;
    while ((c = utf8_next(&p)) != 0)
        if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x0590 && c <= 0x1CFF) || c >= 0x2C00) return 1;
    return 0;
}

/*
** The run of text as libraqm 0.7 made it for font_shape: the characters
** without controls, the face of each (font_choose_faces), libraqm's
** layout over faces with px active, a bitmap font's units scaled to px.
** Fills g (at most max) and returns the glyph count, *width the advance;
** -1 when libraqm fails.
*/
static int raqm_run(FontSet *fs, const char *text, int px, int bold, FontRunGlyph *g, int max, int *width)
{
    size_t len = strlen(text);
    uint32_t *cp = xmalloc(sizeof *cp * (len + 1)), *at = xmalloc(sizeof *at * (len + 1));
    int *face = xmalloc(sizeof *face * (len + 1)), n = 0, count = -1;
    const char *p = text, *from = text;
    uint32_t c;
    while ((c = utf8_next(&p)) != 0) {
        uint32_t byte = (uint32_t)(from - text);
        from = p;
        if (c < 0x20 || c == 0x7F) continue;
        at[n] = byte;
        cp[n++] = c;
    }
    font_choose_faces(fs, cp, n, px, bold, face);
    raqm_t *rq = raqm_create();
    ck_assert_ptr_nonnull(rq);
    int ok = raqm_set_text(rq, cp, (size_t)n) && raqm_set_par_direction(rq, RAQM_DIRECTION_DEFAULT)
             && raqm_set_freetype_load_flags(rq, FT_LOAD_DEFAULT);
    for (int i = 0; i < n && ok;) {
        int j = i;
        while (j < n && face[j] == face[i]) j++;
        FT_Face ft = font_face_at(fs, face[i], px);
        ok = ft && raqm_set_freetype_face_range(rq, ft, (size_t)i, (size_t)(j - i));
        i = j;
    }
    for (int i = 0; i < n; i++) font_face_at(fs, face[i], px);
    size_t ng = 0;
    raqm_glyph_t *rg = ok && raqm_layout(rq) ? raqm_get_glyphs(rq, &ng) : NULL;
    if (rg || (ok && n == 0)) {
        long pen = 0;
        for (size_t k = 0; k < ng && (int)k < max; k++) {
            int fi = bold;
            for (int i = 0; i < fs->nfaces; i++)
                if (fs->face[i].ft == rg[k].ftface) { fi = i; break; }
            long adv = rg[k].x_advance, xo = rg[k].x_offset, yo = rg[k].y_offset;
            int strike = fs->face[fi].strike;
            if (strike) { adv = adv * px / strike; xo = xo * px / strike; yo = yo * px / strike; }
            g[k] = (FontRunGlyph){ rg[k].index, (uint16_t)fi, round26(pen + xo), -round26(yo),
                                   rg[k].cluster < (uint32_t)n ? at[rg[k].cluster] : 0 };
            pen += adv;
        }
        *width = round26(pen);
        count = (int)ng;
    }
    raqm_destroy(rq);
    free(cp);
    free(at);
    free(face);
    return count;
}

/* font_shape's run of text must be libraqm's, glyph for glyph; 1 when the
** text took the shaping road (and was compared). */
static int same_as_raqm(FontSet *fs, const char *text, int px, int bold)
{
    if (!surely_complex(text)) return 0;
    FontRun r = font_shape(fs, text, px, bold);
    static FontRunGlyph ref[8192];
    int width = 0, n = raqm_run(fs, text, px, bold, ref, 8192, &width);
    ck_assert_msg(n >= 0, "libraqm failed on '%s'", text);
    ck_assert_msg(n <= 8192, "'%s': too many glyphs for the test", text);
    ck_assert_msg(r.n == n && r.width == width, "'%s' at %d px%s: %d glyphs %d px wide, libraqm %d glyphs %d px wide",
                  text, px, bold ? " bold" : "", r.n, r.width, n, width);
    for (int k = 0; k < n; k++) {
        const FontRunGlyph *a = &r.g[k], *b = &ref[k];
        ck_assert_msg(a->gid == b->gid && a->face == b->face && a->x == b->x && a->y == b->y && a->byte == b->byte,
                      "'%s' at %d px%s, glyph %d: %u of face %d at (%d, %d) from byte %u; libraqm: %u of face %d at "
                      "(%d, %d) from byte %u", text, px, bold ? " bold" : "", k, a->gid, a->face, a->x, a->y, a->byte,
                      b->gid, b->face, b->x, b->y, b->byte);
    }
    return 1;
}

/* Every line of a file, compared at px (both weights); the count compared. */
static int file_same_as_raqm(FontSet *fs, const char *path, int px)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        for (int bold = 0; bold < 2; bold++) n += same_as_raqm(fs, line, px, bold);
    }
    fclose(f);
    return n;
}

START_TEST(test_lessons_shape_as_libraqm_did)
{
    /* Every line of the lessons in other scripts, at three sizes taken in
    ** turn (each face's kept HarfBuzz font changes size between lines). */
    static const char *files[] = { "scripts/ar.lesson", "scripts/he.lesson", "scripts/hi.lesson", "scripts/ja.lesson",
                                   "scripts/ko.lesson", "scripts/th.lesson", "scripts/zh.lesson",
                                   "scripts/emoji.lesson", "scripts/el.lesson", "scripts/ru.lesson",
                                   "../lessons/11-japanese-to-english.lesson", "../lessons/12-arabic-pronoun.lesson" };
    int compared = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        for (int px = 9; px <= 33; px += 12) compared += file_same_as_raqm(tfonts, files[i], px);
    ck_assert_int_gt(compared, 300);
}
END_TEST

START_TEST(test_bidi_and_scripts_shape_as_libraqm_did)
{
    /* Strings that walk the rules: brackets of one script around another
    ** (paired, unpaired, crossed, nested), numbers and Latin inside
    ** right-to-left text, trailing spaces (also inside an embedding no one
    ** closes, which the end of the line brings back to the paragraph's
    ** level), embeddings, overrides and isolates, marks at the start,
    ** joiners, emoji sequences, conjuncts. */
    static const char *texts[] = {
        "القطة (cat) جلست", "(القطة) cat", "cat (القطة [جلست] على) mat", "«שלום» world", "עברית (with [nested) brackets]",
        "[(عربي])", ")عربي(", "日本語（テスト）です", "「日本語」と「English」", "【注意】Attention 注意",
        "〔中文〕〖中文〗〘中〙〚文〛《书名》〈篇名〉", "‘עברית’ “عربي” ‹x› «y»", "123 עברית 456", "3.14 + 2.71 = القيمة",
        "عدد 1,234.56 في النص", "عربي   ", "   عربي", "a\u202Eعربي abc\u202C b", "\u202Bשלום world\u202C!",
        "\u2067עברית\u2069 and \u2066English\u2069", "\u2068مرحبا\u2069 42", "\u0301\u0301 accent first", "é e\u0301 ñ n\u0303",
        "क्षत्रिय नमस्ते हिन्दी", "ภาษาไทย สวัสดี", "한국어 텍스트", "👨\u200d👩\u200d👧 family", "👍🏽 👍🏿 ok",
        "🇯🇵🇫🇷 flags", "❤\uFE0F ❤\uFE0E", "#\uFE0F\u20E3 1\uFE0F\u20E3", "x² √2 −∞ Kᵀ עברית", "ℵ₀ (עברית) ∑",
        "a\u200Db\u200Cc עברית", "\u061C123\u200F456\u200E789", "کتاب فارسی ۱۲۳", "ܐܪܡܝܐ ܠܫܢܐ", "ދިވެހި",
        "Ελληνικά (עברית) Русский", "mixed 日本 عربي 한국 עברית ไทย हिन्दी 😀", "(((((עברית)))))", "]]]]] עברית [[[[[",
        "\u05D0\u0591\u05B0\u05B4 marks", "ﷺ ﷽", "ﻻ ﻼ لا", "", " ", "\u200F", "\u0300",
        "abc \u202Bשלום   ", "\u202Eabc שלום   ", "עברית \u202Aabc  ", "abc \u2067שלום  ", "עברית abc \u200E  ",
        "\u202Bعربي 123   \u202C", "\u202Dعربي ()  ",
    };
    int compared = 0;
    static const int sizes[] = { 1, 7, 13, 24, 40, 71, 13, 256 };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
            for (int bold = 0; bold < 2; bold++) compared += same_as_raqm(tfonts, texts[i], sizes[s], bold);
    ck_assert_int_gt(compared, 600);
}
END_TEST

START_TEST(test_random_text_shapes_as_libraqm_did)
{
    /* Random strings of pieces from every script and rule above, bytes
    ** that are not UTF-8 among them. */
    static const char *pieces[] = { "(", ")", "[", "]", "«", "»", "「", "」", "【", "】", "‘", "’", " ", "  ", "1", "42",
                                    ".", ",", "-", "a", "Word", "é", "\u0301", "\u0651", "ب", "ي", "لا", "ש", "ל",
                                    "日", "本", "語", "한", "ก", "\u0e31", "क", "\u094d", "ष", "😀", "👍", "🏽",
                                    "\u200d", "\uFE0F", "\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066",
                                    "\u2067", "\u2068", "\u2069", "\u200E", "\u200F", "∞", "−", "\t", "\xff", "\xe2\x88" };
    const int np = (int)(sizeof pieces / sizeof *pieces);
    uint32_t seed = 2024;
    int compared = 0;
    for (int k = 0; k < 4000; k++) {
        char buf[512];
        size_t len = 0;
        seed = seed * 1664525u + 1013904223u;
        int n = 1 + (int)(seed >> 27);
        for (int i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            const char *p = pieces[(seed >> 16) % (uint32_t)np];
            size_t l = strlen(p);
            memcpy(buf + len, p, l);
            len += l;
        }
        buf[len] = '\0';
        compared += same_as_raqm(tfonts, buf, 8 + k % 5 * 6, k & 1);
    }
    ck_assert_int_gt(compared, 2500);
}
END_TEST

/* ---- the run cache ---- */

/* What one frame asked of the fonts: every (pixel size, weight, text) as
** a key "PX/BOLD/TEXT", and for each whether the layout measured it, the
** layout's measuring shaped it, and the frame draws it. */
typedef struct Key {
    char *s;
    bool measured, shaped, drawn, cached;
} Key;
typedef struct Asked {
    FontSet *fs;
    Key *keys;
    int n, cap;
} Asked;

/* The key of (text, px, bold), its place in a->keys (added if new). */
static Key *key_of(Asked *a, const char *text, int px, int bold)
{
    char *s = xmalloc(strlen(text) + 16);
    sprintf(s, "%d/%d/%s", px, bold ? 1 : 0, text);
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->keys[i].s, s)) { free(s); return &a->keys[i]; }
    if (a->n == a->cap) a->keys = xrealloc(a->keys, sizeof *a->keys * (size_t)(a->cap = a->cap ? a->cap * 2 : 256));
    a->keys[a->n] = (Key){ s, false, false, false, false };
    return &a->keys[a->n++];
}

/* The layout's MeasureFn: font_measure, noting what it shapes. A string
** shaped twice in one frame fails the test. */
static float noting_measure(void *ctx, const char *text, float size, int bold)
{
    Asked *a = ctx;
    int px = font_px(size);
    unsigned long before = a->fs->shaped;
    float w = font_measure(a->fs, text, size, bold);
    if (px == 0) return w;
    Key *k = key_of(a, text, px, bold);
    k->measured = true;
    if (a->fs->shaped != before) {
        ck_assert_msg(!k->shaped, "'%s' at %d px shaped twice in one layout", text, px);
        k->shaped = true;
    }
    return w;
}

/* Order of keys by their text, for qsort and bsearch. */
static int key_order(const void *x, const void *y)
{
    return strcmp(((const Key *)x)->s, ((const Key *)y)->s);
}

/* Mark the keys whose runs are in fs's cache now (a->keys is sorted). */
static void mark_cached(FontSet *fs, Asked *a)
{
    qsort(a->keys, (size_t)a->n, sizeof *a->keys, key_order);
    for (int i = 0; i < a->n; i++) a->keys[i].cached = false;
    for (uint32_t i = 0; i < fs->capruns; i++) {
        const RunEntry *e = &fs->runs[i];
        if (!e->text) continue;
        Key probe = { xmalloc(strlen(e->text) + 16), false, false, false, false };
        sprintf(probe.s, "%d/%d/%s", e->px, e->bold, e->text);
        Key *k = bsearch(&probe, a->keys, (size_t)a->n, sizeof *a->keys, key_order);
        if (k) k->cached = true;
        free(probe.s);
    }
}

/* Forget every key. */
static void forget(Asked *a)
{
    for (int i = 0; i < a->n; i++) free(a->keys[i].s);
    a->n = 0;
}

/* Lay out and draw stage k of the tour as an export does (layout, the PNG's
** drawing, the SVG's font list): the layout shapes no string twice, every
** string it measured and the frame draws is still in the cache when the
** drawing starts, and the drawing shapes only the strings that are not
** (those drawn without being measured, such as most numbers in cells). */
static void frame_shapes_once(FontSet *fs, Asked *a, const Lesson *L, const Trace *T, int k)
{
    Theme th = layout_theme(false);
    LayoutCache *lc = layout_cache_create();
    LayoutOpts o = layout_defaults(1280, 720, &th, noting_measure, a);
    DrawList *d = draw_create(1280, 720);
    View *v = stage_view(L, T, k);
    forget(a);
    layout_view(lc, v, &o, d);
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == DRAW_TEXT && font_px(d->cmds[i].size) > 0)
            key_of(a, draw_str(d, &d->cmds[i]), font_px(d->cmds[i].size), d->cmds[i].bold)->drawn = true;
    mark_cached(fs, a);
    unsigned long absent = 0, before = fs->shaped;
    for (int i = 0; i < a->n; i++) {
        const Key *key = &a->keys[i];
        ck_assert_msg(!key->measured || !key->drawn || key->cached, "stage %d: '%s' was measured, then left the "
                      "cache before it was drawn", k + 1, key->s);
        absent += key->drawn && !key->cached;
    }
    Offscreen *off = render_offscreen_create(1280, 720, fs, &rerr);
    ck_assert_ptr_nonnull(off);
    ck_assert_int_eq(render_drawlist(off->render, d, NULL), 0);
    free(font_families(fs, d));
    ck_assert_msg(fs->shaped - before == absent, "stage %d: drawing shaped %lu strings, %lu were not in the cache",
                  k + 1, fs->shaped - before, absent);
    ck_assert_int_le(fs->nruns, FONT_RUNS_MAX);
    render_offscreen_free(off);
    stage_view_free(v);
    draw_free(d);
    layout_cache_free(lc);
}

START_TEST(test_a_frame_shapes_each_string_once)
{
    /* A fresh font set, then one whose run cache is full to the brim with
    ** strings no frame shows: every stage of the tour measures, draws and
    ** lists its fonts with one shaping per string. */
    Lesson *L = NULL;
    char path[] = "../lessons/01-tour.lesson";
    L = lesson_load(path, &ferr);
    ck_assert_msg(L != NULL, "%s", eline(&ferr));
    Trace *T = attn_run(L, &ferr);
    ck_assert_msg(T != NULL, "%s", eline(&ferr));
    FontSet *fs = font_create(NULL, &ferr);
    ck_assert_msg(fs != NULL, "%s", eline(&ferr));
    Asked a = { fs, NULL, 0, 0 };
    for (int k = 0; k < L->nstages; k++) frame_shapes_once(fs, &a, L, T, k);
    for (int full = 0; full < 2; full++)
        for (int k = 0; k < L->nstages; k++) {
            char s[48];
            uint32_t brim = FONT_RUNS_MAX - (uint32_t)(k % 4) * 3;     /* full, or a few runs short of it */
            for (int i = 0; fs->nruns != brim; i++) {
                snprintf(s, sizeof s, "filler %d.%d.%d", full, k, i);
                font_shape(fs, s, 11 + full, 0);
            }
            ck_assert_int_eq(fs->nruns, brim);
            frame_shapes_once(fs, &a, L, T, k);
        }
    forget(&a);
    free(a.keys);
    font_free(fs);
    trace_free(T);
    lesson_free(L);
}
END_TEST

START_TEST(test_the_cache_keeps_what_was_used_last)
{
    /* Three caches' worth of strings: the cache never holds more than its
    ** bound; a string used all along, and the last strings shaped, are
    ** still there; the first ones, never used again, are gone. */
    FontSet *fs = tfonts;
    char s[32];
    font_shape(fs, "kept all along", 14, 0);
    for (int i = 0; i < 3 * FONT_RUNS_MAX; i++) {
        snprintf(s, sizeof s, "string %d", i);
        font_shape(fs, s, 14, 0);
        ck_assert_int_le(fs->nruns, FONT_RUNS_MAX);
        ck_assert_uint_le(fs->run_bytes, FONT_RUN_BYTES_MAX);
        if (i % 1000 == 0) font_shape(fs, "kept all along", 14, 0);
    }
    unsigned long shaped = fs->shaped;
    font_shape(fs, "kept all along", 14, 0);
    for (int i = 3 * FONT_RUNS_MAX - 1000; i < 3 * FONT_RUNS_MAX; i++) {
        snprintf(s, sizeof s, "string %d", i);
        font_shape(fs, s, 14, 0);
    }
    ck_assert_uint_eq(fs->shaped, shaped);
    font_shape(fs, "string 0", 14, 0);
    ck_assert_uint_eq(fs->shaped, shaped + 1);
}
END_TEST

/* The shape suite. */
Suite *shape_suite(void)
{
    Suite *s = suite_create("shape");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_checked_fixture(core, tfonts_setup, tfonts_teardown);
    tcase_add_test(core, test_lessons_shape_as_libraqm_did);
    tcase_add_test(core, test_bidi_and_scripts_shape_as_libraqm_did);
    tcase_add_test(core, test_random_text_shapes_as_libraqm_did);
    tcase_add_test(core, test_a_frame_shapes_each_string_once);
    tcase_add_test(core, test_the_cache_keeps_what_was_used_last);
    suite_add_tcase(s, core);
    return s;
}
