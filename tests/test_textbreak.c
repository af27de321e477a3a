/*
** test_textbreak.c: line-break opportunities of view/text.c: spaces, CJK
** between characters but not before closing punctuation, and never inside
** a user-perceived character (marks, emoji sequences, flags); the greedy
** wrap that uses them.
*/
#include "suites.h"
#include "view/text.h"
#include "tstages.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The break kinds of s, as a string: one letter per boundary, '|' allowed,
** '!' mandatory, '.' none, for boundaries at character starts only. */
static char *kinds(const char *s)
{
    size_t len = strlen(s);
    uint8_t *brk = malloc(len + 1);
    text_breaks(s, len, NULL, brk);
    char *out = malloc(len + 2);
    size_t k = 0;
    for (size_t i = 1; i <= len; i++) {
        if (i < len && ((unsigned char)s[i] & 0xC0) == 0x80) {
            ck_assert_int_eq(brk[i], TEXT_BREAK_NO);        /* never inside a character */
            continue;
        }
        out[k++] = brk[i] == TEXT_BREAK_MUST ? '!' : brk[i] == TEXT_BREAK_ALLOW ? '|' : '.';
    }
    out[k] = '\0';
    free(brk);
    return out;
}

/* Assert the boundary string of s. */
#define ck_kinds(s, want) do { char *got_ = kinds(s); ck_assert_str_eq(got_, want); free(got_); } while (0)

START_TEST(test_words_and_ideographs)
{
    ck_kinds("the cat", "...|..!");                 /* after the space, before "cat" */
    ck_kinds("猫が座った", "||.|!");                  /* between two characters, not before a small kana */
    ck_kinds("ラーメンをちょっと", ".||||..|!");        /* nor before ー, ょ or っ (strict Japanese rule) */
    ck_kinds("猫。犬", ".|!");                      /* never before 。 */
    ck_kinds("고양이가 앉았다", "|||.|||!");          /* between syllables (UAX 14), not before a space */
    ck_kinds("a\nb", ".!!");                         /* after a newline: mandatory */
}
END_TEST

START_TEST(test_graphemes_stay_whole)
{
    ck_kinds("e\xcc\x81 x", "..|!");               /* e + combining acute, then a space */
    ck_kinds("शिक्षक कक्षा", "......|....!");         /* no break inside a conjunct or before a vowel sign */
    ck_kinds("👍🏽👍", ".|!");                        /* the skin tone stays with its hand */
    ck_kinds("👨‍👩‍👧😀", "....|!");                  /* a family is one character */
    ck_kinds("🇯🇵🇫🇷", ".|.!");                       /* two flags: a break only between them */
}
END_TEST

START_TEST(test_malformed_and_empty)
{
    uint8_t brk[8];
    text_breaks("", 0, NULL, brk);
    ck_assert_int_eq(brk[0], TEXT_BREAK_MUST);
    text_breaks("a\xff b", 4, NULL, brk);            /* a bad byte is a character of its own */
    ck_assert_int_eq(brk[0], TEXT_BREAK_NO);
    ck_assert_int_eq(brk[3], TEXT_BREAK_ALLOW);
    ck_assert_int_eq(brk[4], TEXT_BREAK_MUST);
    /* Characters libunibreak 2.2 cannot take (it aborts): handled. */
    ck_kinds("\xef\xbf\xbf\xf0\x9f\x87\xaf x", "|.|!");    /* U+FFFF, a lone regional indicator */
}
END_TEST

/* Width for text_wrap: one unit per code point. */
static float per_cp(void *ctx, const char *s, size_t len)
{
    (void)ctx;
    float w = 0;
    for (size_t i = 0; i < len; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* The lines of s wrapped to width w, joined with '/'. */
static char *wrapped(const char *s, float w)
{
    TextLine lines[32];
    int n = text_wrap(s, strlen(s), w, w, per_cp, NULL, lines, 32);
    ck_assert_int_le(n, 32);
    char *out = calloc(strlen(s) + 34, 1);
    for (int i = 0; i < n; i++) {
        if (i) strcat(out, "/");
        strncat(out, s + lines[i].start, lines[i].end - lines[i].start);
    }
    return out;
}

/* Assert the wrapped lines of s. */
#define ck_wrap(s, w, want) do { char *got_ = wrapped(s, w); ck_assert_str_eq(got_, want); free(got_); } while (0)

START_TEST(test_wrap_lines)
{
    ck_wrap("the cat sat on the mat", 7, "the cat/sat on/the mat");    /* spaces dropped at the ends */
    ck_wrap("  a\n\nb  ", 10, "a/b");                    /* newlines break; blank lines go */
    ck_wrap("猫が魚を食べた。", 3, "猫が魚/を食べ/た。");          /* between ideographs, 。 kept with its word */
    ck_wrap("abcdefgh ij", 3, "abc/def/gh/ij");            /* a word wider than the line is cut */
    ck_wrap("e\xcc\x81" "e\xcc\x81" "e\xcc\x81", 1, "e\xcc\x81/e\xcc\x81/e\xcc\x81");   /* never a mark alone */
    ck_wrap("🇯🇵🇫🇷🇯🇵", 3, "🇯🇵/🇫🇷/🇯🇵");                 /* a flag is one character */
    ck_wrap("", 5, "");
    /* The count covers the whole text even when fewer lines are kept. */
    TextLine one;
    ck_assert_int_eq(text_wrap("a b c", 5, 1, 1, per_cp, NULL, &one, 1), 3);
    ck_assert_int_eq((int)one.start, 0);
    ck_assert_int_eq((int)one.end, 1);
    /* A narrower width after the first line (the window's indented continuations). */
    TextLine two[4];
    ck_assert_int_eq(text_wrap("ab cd efg", 9, 5, 2, per_cp, NULL, two, 4), 3);
    ck_assert_int_eq((int)two[0].end, 5);
}
END_TEST

/* text_fit with one unit per code point, into a buffer of n bytes. */
static char *fitted(const char *s, float w, size_t n, float *kept)
{
    char *out = malloc(n ? n : 1);
    *kept = text_fit(s, w, per_cp, NULL, out, n);
    return out;
}

/* Assert what text_fit keeps of s in width w (buffer n) and its width. */
#define ck_fit(s, w, n, want, want_w) do { float k_; char *got_ = fitted(s, w, n, &k_); \
    ck_assert_str_eq(got_, want); ck_assert_float_eq(k_, want_w); free(got_); } while (0)

START_TEST(test_fit_with_ellipsis)
{
    ck_fit("attention", 9, 64, "attention", 9);                 /* fits: unchanged */
    ck_fit("attention", 5, 64, "atte\xe2\x80\xa6", 5);          /* four letters and "…" */
    ck_fit("the cat sat", 5, 64, "the\xe2\x80\xa6", 4);          /* no space before "…" */
    ck_fit("e\xcc\x81" "e\xcc\x81" "e\xcc\x81", 4, 64, "e\xcc\x81\xe2\x80\xa6", 3);   /* never a letter without its mark */
    ck_fit("शिक्षक", 5, 64, "शि\xe2\x80\xa6", 3);                     /* क्ष is one conjunct: never क् alone */
    ck_fit("👨‍👩‍👧👨‍👩‍👧", 6, 64, "👨‍👩‍👧\xe2\x80\xa6", 6);               /* a family stays whole */
    ck_fit("attention", 0.5f, 64, "", 0);                        /* not even "…" fits */
    ck_fit("attention", 100, 8, "atte\xe2\x80\xa6", 5);          /* the buffer bounds it too */
    ck_fit("attention", 100, 3, "", 0);                          /* no room for "…" */
}
END_TEST

START_TEST(test_paragraph_direction)
{
    ck_assert(text_rtl("انظر إلى الصف"));
    ck_assert(text_rtl("«القطة» cat"));                  /* punctuation first: the first letter decides */
    ck_assert(text_rtl("0.5 שלום"));                     /* digits are not strong */
    ck_assert(!text_rtl("(0.30) cat القطة"));
    ck_assert(!text_rtl("猫が座った"));
    ck_assert(!text_rtl("Élan"));
    ck_assert(!text_rtl("√4 = 2"));
    ck_assert(!text_rtl(""));
}
END_TEST

/* Compare text_breaks with the plain rule on line s: 1 when they differ
** (the first such line described in first). */
static int differs(const char *s, char *first, size_t cap)
{
    size_t len = strlen(s);
    uint8_t *a = malloc(len + 1), *b = malloc(len + 1);
    text_breaks(s, len, NULL, a);
    text_breaks_plain(s, len, b);
    int bad = 0;
    for (size_t i = 0; i <= len && !bad; i++)
        if (a[i] != b[i]) {
            bad = 1;
            if (!first[0]) snprintf(first, cap, "byte %zu (%s here, %s in the browser) of: %s", i,
                                    a[i] == TEXT_BREAK_NO ? "no break" : "a break",
                                    b[i] == TEXT_BREAK_NO ? "no break" : "a break", s);
        }
    free(a);
    free(b);
    return bad;
}

/* Lines compared and lines that differ, and the first of those. */
typedef struct {
    int lines, bad;
    char *first;
} BreakTally;

/* Compare the paragraphs of one stage (a TStageFn). */
static void para_breaks(const char *name, const Lesson *L, const Trace *T, int k, View *v, void *ctx)
{
    (void)name; (void)L; (void)T; (void)k;
    BreakTally *t = ctx;
    for (int i = 0; i < v->npara; i++, t->lines++) t->bad += v->paras[i] && differs(v->paras[i], t->first, 1200);
}

/* The desktop (libunibreak) and the browser (the plain rule) break every
** line of every bundled lesson and every catalogue in the same places, so
** both editions lay the lessons out alike. */
START_TEST(test_browser_breaks_alike)
{
    const char *dirs[2] = { "../lessons", "../po" };
    int lines = 0, bad = 0;
    char first[1200] = "";
    for (int d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        ck_assert_ptr_nonnull(dir);
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (!strstr(e->d_name, ".lesson") && !strstr(e->d_name, ".po")) continue;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            FILE *f = fopen(path, "r");
            ck_assert_ptr_nonnull(f);
            char line[8192];
            while (fgets(line, sizeof line, f)) {
                line[strcspn(line, "\r\n")] = '\0';
                char *text = line;
                if (d == 1) {                           /* a catalogue: the strings only */
                    char *q = strchr(line, '"'), *z = strrchr(line, '"');
                    if (line[0] == '#' || !q || z == q) continue;
                    *z = '\0';
                    text = q + 1;
                    char *o = text;                     /* \n and \" as the program has them */
                    for (char *c = text; *c; c++) {
                        if (c[0] == '\\' && (c[1] == 'n' || c[1] == '"')) { *o++ = c[1] == 'n' ? '\n' : '"'; c++; }
                        else *o++ = *c;
                    }
                    *o = '\0';
                }
                lines++;
                bad += differs(text, first, sizeof first);
            }
            fclose(f);
        }
        closedir(dir);
    }
    /* and every paragraph as the slides show it (joined lines, numbers filled in) */
    BreakTally t = { 0, 0, first };
    tstages_each("../lessons", para_breaks, &t);
    tstages_each("scripts", para_breaks, &t);
    lines += t.lines;
    bad += t.bad;
    const char *more[] = { "the cat-like one/two", "猫が座った。「猫」（ねこ）ー", "고양이가 앉았다", "👍🏽👍 🇯🇵🇫🇷",
                           "شيء ما 3.14 cat", "e\xcc\x81 x", NULL };
    for (int i = 0; more[i]; i++, lines++) bad += differs(more[i], first, sizeof first);
    ck_assert_int_gt(lines, 1000);
    ck_assert_msg(bad == 0, "%d of %d lines break differently in the browser, e.g. %s", bad, lines, first);
}
END_TEST

/* What text_wrap asked of its measure: how often, and the longest text. */
typedef struct { long calls; size_t longest; } Asked;

/* per_cp, counted. */
static float counted(void *ctx, const char *s, size_t len)
{
    Asked *a = ctx;
    a->calls++;
    if (len > a->longest) a->longest = len;
    return per_cp(NULL, s, len);
}

/* Bidi controls start what follows them: a line may break before an
** override after a space (it clung to the space, so a paragraph of words
** each after an override no one closes had no break at all). */
START_TEST(test_bidi_controls_break)
{
    ck_kinds("a \xe2\x80\xae" "b", ".|.!");          /* RLO after the space: a break before it */
    ck_kinds("a \xe2\x81\xa6" "b\xe2\x81\xa9", ".|..!");  /* LRI ... PDI likewise */
    ck_kinds("a\xe2\x80\x8f b", "..|!");           /* RLM stays with its word, the space breaks */
    ck_wrap("\xe2\x80\xae" "ab \xe2\x80\xae" "cd \xe2\x80\xae" "ef", 3, "\xe2\x80\xae" "ab/\xe2\x80\xae" "cd/\xe2\x80\xae" "ef");
}
END_TEST

/* Text with no break opportunity costs in proportion to its length: each
** line asks a few measures of text a little longer than the line, never
** the whole rest of the paragraph. */
START_TEST(test_limits_wrap_without_breaks_is_linear)
{
    size_t len = 200000;
    char *s = malloc(len + 1);
    memset(s, 'a', len);
    s[len] = '\0';
    Asked a = { 0, 0 };
    int n = text_wrap(s, len, 100, 100, counted, &a, NULL, 0);
    ck_assert_int_eq(n, 2000);
    ck_assert_msg(a.calls <= 24L * n, "%ld measures for %d lines", a.calls, n);
    ck_assert_msg(a.longest <= 1024, "measured %zu bytes at once", a.longest);
    /* the same with a break opportunity every 150 000 bytes */
    s[150000] = ' ';
    a = (Asked){ 0, 0 };
    n = text_wrap(s, len, 100, 100, counted, &a, NULL, 0);
    ck_assert_int_eq(n, 2000);
    ck_assert_msg(a.longest <= 1024, "measured %zu bytes at once", a.longest);
    free(s);
}
END_TEST

/* The text-breaking suite. */
Suite *textbreak_suite(void)
{
    Suite *s = suite_create("textbreak");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_words_and_ideographs);
    tcase_add_test(core, test_graphemes_stay_whole);
    tcase_add_test(core, test_wrap_lines);
    tcase_add_test(core, test_fit_with_ellipsis);
    tcase_add_test(core, test_paragraph_direction);
    tcase_add_test(core, test_browser_breaks_alike);
    tcase_add_test(core, test_bidi_controls_break);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_malformed_and_empty);
    tcase_add_test(limits, test_limits_wrap_without_breaks_is_linear);
    suite_add_tcase(s, limits);
    return s;
}
