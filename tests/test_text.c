/*
** test_text.c: text in any script. Shaped runs are compared with HarfBuzz's
** own command-line shaper (hb-shape, glyph ids and order) on the very font
** file the run chose; a mixed Arabic/Latin/number string must come out in
** bidi visual order; measured widths must match the ink drawn; a frame with
** more distinct glyphs than one atlas page holds must draw every one of
** them as a fresh canvas would; missing characters are found; a colour
** glyph as a picture (for the PDF) fills the box the atlas draws it in.
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "tfonts.h"
#include "tstages.h"
#include "core/text/utf8.h"
#include "sdl/font.h"
#include "sdl/render.h"
#include "view/draw.h"
#include "view/layout.h"
#include "core/compute/attn.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The errors of the font, render and export calls, for messages. */
static Error ferr, rerr;

static const Color WHITE = { 255, 255, 255, 255 };
static const Color BLACK = { 0, 0, 0, 255 };

/* Glyph ids hb-shape gives for text in face index idx of file; returns the count. */
static int hb_shape(const char *file, int idx, const char *text, uint32_t *out, int max)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "hb-shape --no-glyph-names --no-positions --no-clusters "
             "--face-index=%d '%s' '%s'", idx, file, text);
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "cannot run hb-shape");
    char buf[4096] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    ck_assert_msg(pclose(p) == 0, "hb-shape failed (package libharfbuzz-bin): %s", cmd);
    int k = 0;
    for (char *s = buf; *s && k < max; s++)
        if (*s >= '0' && *s <= '9') {
            out[k++] = (uint32_t)strtoul(s, &s, 10);
            if (!*s) break;
        }
    return k;
}

/* The run of text at 32 px must be HarfBuzz's glyphs of one font, in order. */
static void check_against_hb(const char *text, const char *family_part)
{
    FontRun r = font_shape(tfonts, text, 32, 0);
    ck_assert_int_gt(r.n, 0);
    int face = r.g[0].face, idx = 0;
    for (int i = 1; i < r.n; i++) ck_assert_msg(r.g[i].face == face, "%s: one font", text);
    ck_assert_msg(strstr(font_face_family(tfonts, face), family_part), "%s drawn with %s, not %s", text,
                  font_face_family(tfonts, face), family_part);
    uint32_t want[256];
    int n = hb_shape(font_face_path(tfonts, face, &idx), idx, text, want, 256);
    ck_assert_msg(n == r.n, "%s: %d glyphs, hb-shape has %d", text, r.n, n);
    for (int i = 0; i < n; i++) ck_assert_msg(r.g[i].gid == want[i], "%s: glyph %d is %u, hb-shape %u",
                                              text, i, r.g[i].gid, want[i]);
    for (int i = 1; i < n; i++) ck_assert_int_ge(r.g[i].x, r.g[i - 1].x - 32);     /* left to right */
}

START_TEST(test_runs_match_harfbuzz)
{
    check_against_hb("القطة", "DejaVu Sans");            /* joined: initial, medial, final forms */
    check_against_hb("החתול", "DejaVu Sans");            /* right to left */
    check_against_hb("शिक्षक", "Devanagari");             /* conjunct क्ष and the vowel sign ि before */
    check_against_hb("कक्षा", "Devanagari");
    check_against_hb("แมวนั่งบนเสื่อ", "Thai");
    check_against_hb("猫がマットの上に座った", "CJK");
    check_against_hb("고양이가앉았다", "CJK");
    check_against_hb("😀👍🏽👨‍👩‍👧", "Emoji");              /* a skin tone and a family: one glyph each */
}
END_TEST

START_TEST(test_arabic_joins_and_emoji_sequences_merge)
{
    /* Joined Arabic is not the isolated forms side by side. */
    FontRun r = font_shape(tfonts, "القطة", 32, 0);
    uint32_t joined[16];
    int n = r.n;
    ck_assert_int_le(n, 16);
    for (int i = 0; i < n; i++) joined[i] = r.g[i].gid;
    const char *letters[] = { "ة", "ط", "ق", "ل", "ا" };     /* visual order, left to right */
    int differ = 0;
    for (int i = 0; i < 5 && i < n; i++) differ += font_shape(tfonts, letters[i], 32, 0).g[0].gid != joined[i];
    ck_assert_int_ge(differ, 3);
    ck_assert_int_eq(font_shape(tfonts, "👨‍👩‍👧", 32, 0).n, 1);
    ck_assert_int_eq(font_shape(tfonts, "👍🏽", 32, 0).n, 1);
}
END_TEST

/* Glyph ids of text as hb-shape gives them in DejaVu Sans. */
static int dejavu(const char *text, uint32_t *out, int max)
{
    return hb_shape(font_path(tfonts, 0), 0, text, out, max);
}

START_TEST(test_mixed_bidi_visual_order)
{
    /* Logical: القطة cat 3.14 جلست. The paragraph is right to left (its
    ** first strong letter is Arabic); "cat 3.14" is one left-to-right
    ** island. Visual, left to right: جلست, space, cat 3.14, space, القطة. */
    FontRun r = font_shape(tfonts, "القطة cat 3.14 جلست", 32, 0);
    uint32_t want[64];
    int n = dejavu("جلست", want, 64);
    n += dejavu(" ", want + n, 64 - n);
    n += dejavu("cat 3.14", want + n, 64 - n);
    n += dejavu(" ", want + n, 64 - n);
    n += dejavu("القطة", want + n, 64 - n);
    ck_assert_int_eq(r.n, n);
    for (int i = 0; i < n; i++) ck_assert_msg(r.g[i].gid == want[i], "glyph %d: %u, want %u", i, r.g[i].gid, want[i]);
    for (int i = 1; i < n; i++) ck_assert_int_ge(r.g[i].x, r.g[i - 1].x);
    ck_assert_int_eq(r.width, (int)font_measure(tfonts, "القطة cat 3.14 جلست", 32, 0));
}
END_TEST

/* Latin text among bidi controls is placed in FriBidi's visual order, as
** wide as without them: an override reverses it, a bracket under it is
** mirrored, an override closed by PDF ends, an isolate keeps its inside. */
START_TEST(test_overrides_visual_order)
{
    static const struct { const char *text, *visual; } cases[] = {
        { "\xe2\x80\xae" "abc", "cba" },                                  /* RLO, never closed */
        { "x\xe2\x80\xae" "ab\xe2\x80\xac" "y", "xbay" },                  /* RLO ... PDF */
        { "\xe2\x80\xae" "(a)", "(a)" },                                  /* reversed, brackets mirrored */
        { "\xe2\x80\xae" "a \xe2\x80\xae" "b \xe2\x80\xae" "c", "c b a" },        /* nested, unclosed */
        { "\xe2\x80\xad" "abc\xe2\x80\x8e", "abc" },                       /* LRO, LRM */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        FontRun r = font_shape(tfonts, cases[k].text, 24, 0);
        uint32_t want[16];
        int n = dejavu(cases[k].visual, want, 16);
        ck_assert_int_eq(r.n, n);
        for (int i = 0; i < n; i++) ck_assert_msg(r.g[i].gid == want[i], "%zu glyph %d: %u, want %u", k, i, r.g[i].gid, want[i]);
        for (int i = 1; i < n; i++) ck_assert_int_gt(r.g[i].x, r.g[i - 1].x);
        ck_assert_int_eq(r.width, font_shape(tfonts, cases[k].visual, 24, 0).width);
    }
}
END_TEST

/* Draw text left-aligned at x = 20 and return the ink's extent in x. */
static void ink_extent(const char *text, int bold, int *x0, int *x1)
{
    DrawList *d = draw_create(900, 80);
    draw_clear(d, 900, 80, WHITE);
    int i = draw_text(d, (Rect){ 20, 0, 860, 80 }, text, 32, BLACK, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_BODY);
    d->cmds[i].bold = (uint8_t)bold;
    Offscreen *o = render_offscreen_create(900, 80, tfonts, &rerr);
    ck_assert_int_eq(render_drawlist(o->render, d, NULL), 0);
    *x0 = 1 << 30;
    *x1 = -1;
    for (int y = 0; y < 80; y++)
        for (int x = 0; x < 900; x++) {
            Color c = render_offscreen_pixel(o, x, y);
            if (c.r + c.g + c.b > 3 * 255 - 120) continue;
            if (x < *x0) *x0 = x;
            if (x > *x1) *x1 = x;
        }
    render_offscreen_free(o);
    draw_free(d);
}

START_TEST(test_measured_width_is_the_ink)
{
    static const char *texts[] = { "猫がマットの上に座った", "고양이가 앉았다", "القطة cat 3.14 جلست",
                                   "שטיח", "शिक्षक कक्षा", "แมวนั่งบนเสื่อ", "Кошка Η γάτα", "😀 cat 🐱" };
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        for (int bold = 0; bold < 2; bold++) {
            int w = (int)font_measure(tfonts, texts[k], 32, bold), x0, x1;
            ink_extent(texts[k], bold, &x0, &x1);
            ck_assert_msg(x1 > x0, "%s: no ink", texts[k]);
            /* Side bearings are a few pixels at 32 px: the ink lies within the
            ** advance, give or take them, and fills most of it. */
            ck_assert_msg(x0 >= 20 - 2 && x0 <= 20 + 4, "%s: ink starts at %d", texts[k], x0);
            ck_assert_msg(x1 + 1 <= 20 + w + 2 && x1 + 1 >= 20 + w - 5, "%s: ink ends at %d, width %d",
                          texts[k], x1 + 1, w);
        }
    }
}
END_TEST

START_TEST(test_colour_emoji_are_drawn_untinted)
{
    /* 😀 in black text: its face is still yellow; at half opacity it is paler. */
    for (int batched = 0; batched < 2; batched++) {
        for (int alpha = 255; alpha >= 128; alpha -= 127) {
            DrawList *d = draw_create(100, 100);
            draw_clear(d, 100, 100, WHITE);
            draw_text(d, (Rect){ 0, 0, 100, 100 }, "😀", 64, (Color){ 0, 0, 0, (uint8_t)alpha }, ALIGN_CENTER,
                      VALIGN_MIDDLE, ROLE_BODY);
            Offscreen *o = render_offscreen_create(100, 100, tfonts, &rerr);
            render_set_batched(o->render, batched);
            ck_assert_int_eq(render_drawlist(o->render, d, NULL), 0);
            int yellow = 0, dark = 0;
            for (int y = 0; y < 100; y++)
                for (int x = 0; x < 100; x++) {
                    Color c = render_offscreen_pixel(o, x, y);
                    yellow += c.r > 200 && c.g > 150 && c.r - c.b > 60;
                    dark += c.r < 100 && c.g < 80;
                }
            ck_assert_msg(yellow > 1000, "batched=%d alpha=%d: %d yellow pixels", batched, alpha, yellow);
            if (alpha < 255) ck_assert_int_eq(dark, 0);     /* the eyes blend with white */
            render_offscreen_free(o);
            draw_free(d);
        }
    }
}
END_TEST

START_TEST(test_colour_glyphs_as_pictures)
{
    /* 😀 as the PDF takes it: the font's own strike at every size, premultiplied,
    ** in the very box the atlas draws it in; a DejaVu letter is no picture. */
    int made_at = 0, w = 0, h = 0;
    for (int px = 12; px <= 120; px += 27) {
        FontRun r = font_shape(tfonts, "😀", px, 0);
        ck_assert_int_eq(r.n, 1);
        FontRunGlyph g = r.g[0];
        ck_assert(font_face_color(tfonts, g.face));
        FontPicture pic;
        ck_assert_int_eq(font_picture(tfonts, g.face, g.gid, px, &pic), 1);
        FontGlyph atlas = font_glyph(tfonts, g.face, g.gid, px, 0, 1);
        ck_assert(atlas.color);
        ck_assert_int_eq(pic.x, atlas.dx);
        ck_assert_int_eq(pic.y, atlas.dy);
        ck_assert_int_eq(pic.dw, atlas.w);
        ck_assert_int_eq(pic.dh, atlas.h);
        if (!made_at) made_at = pic.made_at, w = pic.w, h = pic.h;
        ck_assert_int_eq(pic.made_at, made_at);         /* one strike serves every size, */
        ck_assert(pic.w == w && pic.h == h);            /* whole at every size: the PDF scales it */
        ck_assert_int_gt(pic.w, 100);
        ck_assert(!pic.thickened);
        int yellow = 0;
        for (int i = 0; i < pic.w * pic.h; i++) {
            uint32_t v = pic.argb[i], a = v >> 24;
            ck_assert(((v >> 16) & 255) <= a && ((v >> 8) & 255) <= a && (v & 255) <= a);     /* premultiplied */
            yellow += a == 255 && (v >> 16 & 255) > 200 && (v >> 8 & 255) > 150 && (v & 255) < 100;
        }
        ck_assert_int_gt(yellow, pic.w * pic.h / 4);
        free(pic.argb);
    }
    FontRun r = font_shape(tfonts, "A", 20, 0);
    ck_assert(!font_face_color(tfonts, r.g[0].face));
    FontPicture none;
    ck_assert_int_eq(font_picture(tfonts, r.g[0].face, r.g[0].gid, 20, &none), 0);
    ck_assert(none.argb == NULL && none.w == 0);
}
END_TEST

START_TEST(test_fallback_faces_and_missing_characters)
{
    ck_assert(font_can_draw(tfonts, 'a'));
    ck_assert(font_can_draw(tfonts, 0x732B));        /* 猫 */
    ck_assert(font_can_draw(tfonts, 0x0915));        /* क */
    ck_assert(font_can_draw(tfonts, 0x1F600));       /* 😀 */
    ck_assert(font_can_draw(tfonts, 0x200D));        /* ZWJ: invisible */
    ck_assert(!font_can_draw(tfonts, 0x1E4D0));      /* Nag Mundari: no font installed */
    /* which package a script needs, asked without looking at what is installed */
    ck_assert_str_eq(font_package_for(NULL, 0x732B), "fonts-noto-cjk");
    ck_assert_str_eq(font_package_for(NULL, 0x1F600), "fonts-noto-color-emoji");
    ck_assert_str_eq(font_package_for(NULL, 0x1E4D0), "fonts-noto-core");
    /* no package brings a noncharacter, a private-use or an unassigned code point */
    ck_assert_ptr_null(font_package_for(NULL, 0xFFFE));
    ck_assert_ptr_null(font_package_for(NULL, 0xFDD0));
    ck_assert_ptr_null(font_package_for(NULL, 0xE000));
    ck_assert_ptr_null(font_package_for(NULL, 0x1F6D8));       /* unassigned in the Unicode HarfBuzz knows */
    /* an installed package lacks what it lacks: it is not suggested again */
    ck_assert_ptr_null(font_package_for(tfonts, 0x1E4D0));
    ck_assert_ptr_null(font_package_for(tfonts, 0x1FAE9));
    /* The main font keeps the signs the program prints. */
    FontRun r = font_shape(tfonts, "Kᵀ √ −∞", 20, 0);
    for (int i = 0; i < r.n; i++) ck_assert_int_eq(r.g[i].face, 0);
    /* The SVG's font list names the fallbacks a drawing used. */
    DrawList *d = draw_create(100, 100);
    draw_text(d, (Rect){ 0, 0, 100, 20 }, "猫 😀", 14, BLACK, ALIGN_LEFT, VALIGN_TOP, ROLE_BODY);
    char *fam = font_families(tfonts, d);
    ck_assert_msg(!strncmp(fam, "DejaVu Sans, Noto Sans CJK", 26), "%s", fam);
    ck_assert_ptr_nonnull(strstr(fam, "Noto Color Emoji"));
    ck_assert_ptr_nonnull(strstr(fam, ", sans-serif"));
    free(fam);
    draw_clear(d, 100, 100, WHITE);
    draw_text(d, (Rect){ 0, 0, 100, 20 }, "cat 0.25", 14, BLACK, ALIGN_LEFT, VALIGN_TOP, ROLE_BODY);
    fam = font_families(tfonts, d);
    ck_assert_str_eq(fam, "DejaVu Sans, sans-serif");
    free(fam);
    draw_free(d);
}
END_TEST

/* Many distinct ideographs at several sizes: more than one atlas page. */
static DrawList *many_glyphs(int *ncmds)
{
    DrawList *d = draw_create(1200, 900);
    draw_clear(d, 1200, 900, WHITE);
    static const int sizes[] = { 40, 52, 64 };
    uint32_t cp = 0x4E00;
    int n = 0;
    for (int s = 0; s < 3; s++)
        for (int row = 0; row < 12; row++) {
            char line[200];
            int len = 0;
            for (int k = 0; k < 16; k++) len += utf8_encode(cp++, line + len);
            line[len] = '\0';
            draw_text(d, (Rect){ 0, (float)(row * 70 + s * 10 % 30), 1200, 70 }, line, (float)sizes[s], BLACK,
                      ALIGN_LEFT, VALIGN_TOP, ROLE_BODY);
            n++;
        }
    *ncmds = n;
    return d;
}

START_TEST(test_frame_filling_several_atlas_pages)
{
    int n;
    DrawList *d = many_glyphs(&n);
    /* The last line alone on a fresh canvas, for reference. */
    DrawList *last = draw_create(1200, 900);
    draw_clear(last, 1200, 900, WHITE);
    const DrawCmd *c = &d->cmds[d->n - 1];
    draw_text(last, c->r, draw_str(d, c), c->size, BLACK, ALIGN_LEFT, VALIGN_TOP, ROLE_BODY);
    for (int batched = 0; batched < 2; batched++) {
        FontSet *fresh = font_create(NULL, &ferr);
        Offscreen *ref = render_offscreen_create(1200, 900, fresh, &rerr);
        ck_assert_int_eq(render_drawlist(ref->render, last, NULL), 0);
        font_cache_reset(tfonts);
        Offscreen *o = render_offscreen_create(1200, 900, tfonts, &rerr);
        render_set_batched(o->render, batched);
        uint32_t gen = font_cache_generation(tfonts);
        ck_assert_int_eq(render_drawlist(o->render, d, NULL), 0);
        ck_assert_int_ge(font_page_count(tfonts), 2);
        ck_assert_uint_eq(font_cache_generation(tfonts), gen);      /* filled, not started over */
        /* Draw the last line again (its glyphs on the last page) over the frame. */
        DrawList *both = draw_create(1200, 900);
        draw_clear(both, 1200, 900, WHITE);
        draw_text(both, c->r, draw_str(d, c), c->size, BLACK, ALIGN_LEFT, VALIGN_TOP, ROLE_BODY);
        ck_assert_int_eq(render_drawlist(o->render, both, NULL), 0);
        int diff = 0;
        for (int y = 0; y < 900; y += 1)
            for (int x = 0; x < 1200; x += 1) {
                Color a = render_offscreen_pixel(o, x, y), b = render_offscreen_pixel(ref, x, y);
                diff += a.r != b.r || a.g != b.g || a.b != b.b;
            }
        ck_assert_msg(diff == 0, "batched=%d: %d pixels differ from a fresh canvas", batched, diff);
        draw_free(both);
        render_offscreen_free(o);
        render_offscreen_free(ref);
        font_free(fresh);
    }
    draw_free(last);
    draw_free(d);
}
END_TEST

START_TEST(test_one_run_larger_than_the_whole_atlas)
{
    /* 600 distinct ideographs at 200 px in one run: the atlas fills and
    ** starts over several times while this one run is drawn. The glyphs on
    ** the canvas must look as a fresh cache draws them, and nothing drawn
    ** may come from a page freed or emptied underneath it (under ASan this
    ** once read freed memory). */
    char s600[2000], s4[16];
    int n = 0;
    for (int i = 0; i < 600; i++) n += utf8_encode(0x4E00 + (uint32_t)i, s600 + n);
    s600[n] = '\0';
    memcpy(s4, s600, 12);
    s4[12] = '\0';
    for (int batched = 0; batched < 2; batched++) {
        DrawList *d = draw_create(800, 300), *ref = draw_create(800, 300);
        draw_clear(d, 800, 300, WHITE);
        draw_clear(ref, 800, 300, WHITE);
        draw_text(d, (Rect){ 0, 0, 800, 300 }, s600, 200, BLACK, ALIGN_LEFT, VALIGN_TOP, ROLE_BODY);
        draw_text(ref, (Rect){ 0, 0, 800, 300 }, s4, 200, BLACK, ALIGN_LEFT, VALIGN_TOP, ROLE_BODY);
        FontSet *fresh = font_create(NULL, &ferr);
        Offscreen *a = render_offscreen_create(800, 300, tfonts, &rerr), *b = render_offscreen_create(800, 300, fresh, &rerr);
        render_set_batched(a->render, batched);
        uint32_t gen = font_cache_generation(tfonts);
        ck_assert_int_eq(render_drawlist(a->render, d, NULL), 0);
        ck_assert_uint_ge(font_cache_generation(tfonts), gen + 2);     /* started over at least twice */
        ck_assert_int_eq(render_drawlist(b->render, ref, NULL), 0);
        int diff = 0, ink = 0;
        for (int y = 0; y < 300; y++)
            for (int x = 0; x < 800; x++) {
                Color p = render_offscreen_pixel(a, x, y), q = render_offscreen_pixel(b, x, y);
                diff += p.r != q.r || p.g != q.g || p.b != q.b;
                ink += q.r < 128;
            }
        ck_assert_int_gt(ink, 1000);
        ck_assert_msg(diff == 0, "batched=%d: %d pixels differ", batched, diff);
        render_offscreen_free(a);
        render_offscreen_free(b);
        font_free(fresh);
        draw_free(d);
        draw_free(ref);
    }
}
END_TEST

START_TEST(test_arbitrary_bytes_shape_and_draw)
{
    /* Random bytes, weighted towards lead and continuation bytes of every
    ** length, marks, joiners, bidi controls and emoji pieces: every string
    ** shapes to a run whose glyphs exist, measures what it draws, and draws
    ** without a crash (ASan in `make test-sanitize`). */
    static const char *pieces[] = { "\xcc\x81", "\xe2\x80\x8d", "\xe2\x80\xae", "\xe2\x80\x8f", "\xef\xb8\x8f",
                                    "\xf0\x9f\x8f\xbd", "\xf0\x9f\x87\xaf", "\xe0\xa5\x8d", "\xd9\x84", "\xd7\x90",
                                    "\xe0\xb8\xb1", "\xe7\x8c\xab", "\xf0\x9f\x98\x80", "a", " ", "3", "\xff", "\x80",
                                    "\xc3", "\xe2\x88", "\xf4\x90\x80\x80", "\xed\xa0\x80", "\x01", "\t" };
    const int np = (int)(sizeof pieces / sizeof *pieces);
    uint32_t seed = 12345;
    Offscreen *o = render_offscreen_create(300, 100, tfonts, &rerr);
    DrawList *d = draw_create(300, 100);
    for (int k = 0; k < 600; k++) {
        char buf[400];
        size_t len = 0;
        int n = 1 + (int)((seed = seed * 1664525u + 1013904223u) >> 27);
        for (int i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            const char *p = pieces[(seed >> 16) % (uint32_t)np];
            size_t l = strlen(p);
            memcpy(buf + len, p, l);
            len += l;
        }
        buf[len] = '\0';
        int px = 6 + (int)(seed % 40);
        FontRun r = font_shape(tfonts, buf, px, (int)(k & 1));
        ck_assert_int_ge(r.width, 0);
        for (int i = 0; i < r.n; i++) ck_assert(font_glyph(tfonts, r.g[i].face, r.g[i].gid, px, 0, 0).advance >= 0);
        ck_assert_int_eq((int)font_measure(tfonts, buf, (float)px, (int)(k & 1)), r.width);
        draw_clear(d, 300, 100, WHITE);
        int c = draw_text(d, (Rect){ 10, 10, 280, 80 }, buf, (float)px, BLACK, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
        d->cmds[c].rotate = (uint8_t)(k % 3 == 0 ? 90 : 0);
        render_set_batched(o->render, k & 2);
        ck_assert_int_eq(render_drawlist(o->render, d, NULL), 0);
    }
    draw_free(d);
    render_offscreen_free(o);
}
END_TEST

START_TEST(test_font_files_are_checked_before_reading)
{
    FontSet *fs = font_create("/dev/zero", &ferr);         /* a device: refused, not read forever */
    ck_assert_ptr_null(fs);
    ck_assert_ptr_nonnull(strstr(eline(&ferr), "/dev/zero"));
    fs = font_create("/tmp", &ferr);
    ck_assert_ptr_null(fs);
    char fifo[] = "/tmp/attnlab-fifo-XXXXXX";
    int fd = mkstemp(fifo);
    ck_assert_int_ge(fd, 0);
    close(fd);
    unlink(fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    fs = font_create(fifo, &ferr);                         /* no writer: must not hang */
    ck_assert_ptr_null(fs);
    unlink(fifo);
}
END_TEST

/* Where a text command's glyphs may reach: the pen from render.c, the
** measured width along the text, ascent and descent across it. */
static void text_box(const DrawCmd *c, const char *s, float b[4])
{
    int x, y;
    int w = render_text_origin(tfonts, c, s, &x, &y);
    FontMetrics m = font_metrics(tfonts, c->size, c->bold);
    if (c->rotate == 90) { b[0] = (float)(x - m.ascent); b[1] = (float)(y - w); b[2] = (float)(x + m.descent); b[3] = (float)y; }
    else { b[0] = (float)x; b[1] = (float)(y - m.ascent); b[2] = (float)(x + w); b[3] = (float)(y + m.descent); }
}

/* One stage laid out with the real shaped widths: text stays on the
** canvas and no two runs overlap (a TStageFn). */
static void clean_stage(const char *name, const Lesson *L, const Trace *T, int k, View *v, void *ctx)
{
    (void)L; (void)T; (void)ctx;
    Theme th = layout_theme(false);
    LayoutOpts lo = layout_defaults(1280, 800, &th, font_measure, tfonts);
    DrawList *d = draw_create(1280, 800);
    LayoutCache *lc = layout_cache_create();
    layout_view(lc, v, &lo, d);
    layout_cache_free(lc);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_TEXT || !draw_str(d, c)[0]) continue;
        float a[4];
        text_box(c, draw_str(d, c), a);
        ck_assert_msg(a[0] >= -1 && a[1] >= -1 && a[2] <= 1281 && a[3] <= 801,
                      "%s stage %d: '%s' leaves the canvas", name, k + 1, draw_str(d, c));
        for (int j = i + 1; j < d->n; j++) {
            const DrawCmd *o = &d->cmds[j];
            if (o->kind != DRAW_TEXT || !draw_str(d, o)[0]) continue;
            float b[4];
            text_box(o, draw_str(d, o), b);
            int hit = a[0] < b[2] - 1 && b[0] < a[2] - 1 && a[1] < b[3] - 1 && b[1] < a[3] - 1;
            ck_assert_msg(!hit, "%s stage %d: '%s' overlaps '%s'", name, k + 1, draw_str(d, c), draw_str(d, o));
        }
    }
    draw_free(d);
}

START_TEST(test_script_lessons_lay_out_cleanly)
{
    /* Every stage of every lesson in tests/scripts, laid out with the real
    ** shaped widths: text stays on the canvas and no two runs overlap. */
    ck_assert_int_ge(tstages_each("scripts", clean_stage, NULL), 20);
}
END_TEST

/* The text suite. */
Suite *text_suite(void)
{
    Suite *s = suite_create("text");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_checked_fixture(core, tfonts_setup, tfonts_teardown);
    tcase_add_test(core, test_runs_match_harfbuzz);
    tcase_add_test(core, test_arabic_joins_and_emoji_sequences_merge);
    tcase_add_test(core, test_mixed_bidi_visual_order);
    tcase_add_test(core, test_overrides_visual_order);
    tcase_add_test(core, test_measured_width_is_the_ink);
    tcase_add_test(core, test_fallback_faces_and_missing_characters);
    tcase_add_test(core, test_colour_emoji_are_drawn_untinted);
    tcase_add_test(core, test_colour_glyphs_as_pictures);
    tcase_add_test(core, test_script_lessons_lay_out_cleanly);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_set_timeout(limits, 120);
    tcase_add_checked_fixture(limits, tfonts_setup, tfonts_teardown);
    tcase_add_test(limits, test_frame_filling_several_atlas_pages);
    tcase_add_test(limits, test_one_run_larger_than_the_whole_atlas);
    tcase_add_test(limits, test_arbitrary_bytes_shape_and_draw);
    tcase_add_test(limits, test_font_files_are_checked_before_reading);
    suite_add_tcase(s, limits);
    return s;
}
