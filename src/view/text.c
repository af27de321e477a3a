/*
** text.c: line breaking (text.h): libunibreak's UAX #14 answer, then the
** grapheme rules it lacks (its tables predate emoji sequences); and the
** greedy wrap built on it. The browser build has no libunibreak
** (ATTNLAB_NO_UNIBREAK): there breaks fall after spaces and around
** ideographs and kana, under the same grapheme rules.
*/
#include "text.h"
#include "core/text/utf8.h"
#include "core/util.h"

#ifndef ATTNLAB_NO_UNIBREAK
#include <linebreak.h>
#endif
#include <stdlib.h>
#include <string.h>

/* Whether cp is a regional indicator (half of a flag). */
static int regional(uint32_t cp)
{
    return cp >= 0x1F1E6 && cp <= 0x1F1FF;
}

/* Whether cp clings to the character before it: marks and other zero-width
** characters (which is what the utf8 module's columns say) but the space
** U+200B and the bidi controls, emoji modifiers. */
static int clings(uint32_t cp)
{
    return (utf8_cp_columns(cp) == 0 && cp != 0x200B && !utf8_bidi_control(cp)) || (cp >= 0x1F3FB && cp <= 0x1F3FF);
}

/* Whether a line may break next to cp without a space: ideographs, kana,
** hangul, emoji and flags (wide characters). */
static bool wide(uint32_t cp)
{
    return utf8_cp_columns(cp) == 2 || regional(cp);
}

/* Whether a line may not start with cp next to a wide character: closing
** brackets, CJK full stops and commas, iteration marks, ellipses (small kana and the
** prolonged sound mark: see small_kana). */
static bool no_start(uint32_t cp)
{
    static const uint32_t set[] = { 0x3001, 0x3002, 0x3009, 0x300B, 0x300D, 0x300F, 0x3011, 0x3015, 0x3017, 0x3019,
                                    0x301B, 0x301E, 0x301F, 0x3005, 0x303B, 0x309D, 0x309E, 0x30FB, 0x30FD, 0x30FE,
                                    0xFF01, 0xFF09, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF3D, 0xFF5D, 0xFF60,
                                    0xFF61, 0xFF63, 0xFF64,
                                    0x2025, 0x2026 };   /* ‥ and … (UAX #14's IN: "開く…" keeps its dots) */
    for (size_t i = 0; i < sizeof set / sizeof *set; i++)
        if (cp == set[i]) return true;
    return false;
}

/* Whether cp is a small kana or the prolonged sound mark ー (UAX #14's CJ
** class). UAX #14 lets a line start with them by default; Japanese
** typesetting does not (the strict rule of JIS X 4051, and CSS's
** line-break: strict), so no build breaks before them. */
static bool small_kana(uint32_t cp)
{
    static const uint32_t set[] = { 0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3063, 0x3083, 0x3085, 0x3087, 0x308E,
                                    0x3095, 0x3096, 0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30C3, 0x30E3, 0x30E5,
                                    0x30E7, 0x30EE, 0x30F5, 0x30F6, 0x30FC };
    if ((cp >= 0x31F0 && cp <= 0x31FF) || (cp >= 0xFF67 && cp <= 0xFF70)) return true;
    for (size_t i = 0; i < sizeof set / sizeof *set; i++)
        if (cp == set[i]) return true;
    return false;
}

/* Whether cp is a quotation mark that may open or close (UAX #14's QU):
** no break on either side of it next to a wide character. */
static bool quote(uint32_t cp)
{
    return cp == '"' || cp == '\'' || cp == 0x00AB || cp == 0x00BB || (cp >= 0x2018 && cp <= 0x201F)
        || cp == 0x2039 || cp == 0x203A;
}

/* Whether no line may start with cp even after a space (UAX #14's rule
** LB13): closing brackets, full stops, commas, colons, ! ? and /. */
static bool closes(uint32_t cp)
{
    if (cp < 0x80) return cp && strchr(")]}!?,.:;/", (int)cp);
    static const uint32_t set[] = { 0x060C, 0x061B, 0x061F, 0x06D4, 0x3001, 0x3002, 0x3009, 0x300B, 0x300D, 0x300F,
                                    0x3011, 0x3015, 0x3017, 0x3019, 0x301B, 0xFF01, 0xFF09, 0xFF0C, 0xFF0E, 0xFF1F,
                                    0xFF3D, 0xFF5D, 0xFF60, 0xFF61, 0xFF63 };
    for (size_t i = 0; i < sizeof set / sizeof *set; i++)
        if (cp == set[i]) return true;
    return false;
}

/* Whether cp follows a number (UAX #14's PO: %, ‰, °). */
static bool suffix(uint32_t cp)
{
    return cp == '%' || cp == 0x2030 || cp == 0x00B0;
}

/* Whether cp comes before a number (PR: $, +, \\, −, £, ¥, €, №). */
static bool prefix(uint32_t cp)
{
    return cp == '$' || cp == '+' || cp == '\\' || (cp >= 0xA3 && cp <= 0xA5) || cp == 0x20AC || cp == 0x2212
        || cp == 0x2116;
}

/* Whether a line may not start with cp (UAX #14's BA and HY): bars,
** hyphens, dashes, dandas. */
static bool hyphen(uint32_t cp)
{
    return cp == '|' || cp == '-' || cp == 0x2010 || cp == 0x2012 || cp == 0x2013 || cp == 0x0964 || cp == 0x0965;
}

/* Whether a line may not end with cp: opening brackets and quotes. */
static bool no_end(uint32_t cp)
{
    if (cp < 0x80) return cp && strchr("([{", (int)cp);
    static const uint32_t set[] = { 0x3008, 0x300A, 0x300C, 0x300E, 0x3010, 0x3014, 0x3016, 0x3018, 0x301A, 0x301D,
                                    0xFF08, 0xFF3B, 0xFF5B, 0xFF5F, 0xFF62 };
    for (size_t i = 0; i < sizeof set / sizeof *set; i++)
        if (cp == set[i]) return true;
    return false;
}

/* Whether cp is part of a word written with spaces (UAX #14's AL and NU:
** letters, digits and most symbols, not punctuation that rules of its own
** bind). */
static bool word(uint32_t cp)
{
    return !wide(cp) && cp > ' ' && !closes(cp) && !no_end(cp) && !quote(cp) && !hyphen(cp) && !prefix(cp)
        && !suffix(cp) && cp != 0x2026;
}

/* The plain rule, the browser build's whole answer: after spaces, and on
** either side of a wide character unless the next one may not start a line
** or the last may not end one; lb[i] about the boundary after byte i, with
** libunibreak's values. */
static void plain_breaks(const char *s, size_t len, char *lb)
{
    memset(lb, 2, len);                                 /* no break */
    uint32_t prev = 0, last = 0;                        /* last: the character before the spaces */
    size_t prev_end = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        if (i > 0) {
            bool may;
            if (prev == '\n') {
                lb[prev_end - 1] = 0;                   /* must break */
                may = false;
            } else if (cp == ' ' || cp == '\n' || closes(cp)) may = false;
            else if (prev == ' ') may = last && !no_end(last) && !(quote(last) && no_end(cp));
            else may = (wide(prev) || wide(cp)) && !no_start(cp) && !no_end(prev) && !quote(prev) && !quote(cp)
                    && !(no_end(cp) && word(prev))              /* "d（": a word keeps its bracket */
                    && !(suffix(cp) && ((wide(prev) && !no_start(prev)) || closes(prev)))   /* "個%", "、%" */
                    && !prefix(prev) && !(prefix(cp) && (no_start(prev) || closes(prev)))   /* "−를", "。−" */
                    && !hyphen(cp);                     /* "常|", "語-" */
            if (may) lb[prev_end - 1] = 1;              /* may break */
        }
        if (cp != ' ') last = cp;
        prev = cp;
        prev_end = i + n;
        i += n;
    }
    lb[len - 1] = 0;
}

#ifndef ATTNLAB_NO_UNIBREAK
/* UAX #14's answer for s: lb[i] about the boundary after byte i. */
static void uax14(const char *s, size_t len, const char *lang, char *lb)
{
    /* libunibreak gets a well-formed copy of the same length: each
    ** malformed byte becomes '?'. Its version 2.2 also aborts on regional
    ** indicators and on U+FFFF, so those (and every noncharacter) become an
    ** ideograph of the same byte length: the flag rule below handles them. */
    char *clean = xmalloc(len);
    for (size_t i = 0; i < len;) {
        int n = utf8_seq_len(s + i, len - i);
        if (n == 0) { clean[i++] = '?'; continue; }
        uint32_t cp;
        utf8_decode(s + i, len - i, &cp);
        if (regional(cp) || utf8_noncharacter(cp))
            memcpy(clean + i, n == 4 ? "\xf0\xa0\x80\x80" : "\xe4\xb8\x80", (size_t)n);   /* U+20000, U+4E00 */
        else
            memcpy(clean + i, s + i, (size_t)n);
        i += (size_t)n;
    }
    static int ready;
    if (!ready) { init_linebreak(); ready = 1; }
    set_linebreaks_utf8((const utf8_t *)clean, len, lang, lb);
    free(clean);
}
#else
enum { LINEBREAK_MUSTBREAK = 0, LINEBREAK_ALLOWBREAK = 1, LINEBREAK_NOBREAK = 2 };

/* Without libunibreak: the plain rule. */
static void uax14(const char *s, size_t len, const char *lang, char *lb)
{
    (void)lang;
    plain_breaks(s, len, lb);
}
#endif

/* brk from lb (an answer about the boundary after each byte, given at a
** character's last byte), with the grapheme rules on top. */
static void fill(const char *s, size_t len, const char *lb, uint8_t *brk)
{
    uint32_t prev = 0;
    int ri_run = 0;
    bool text = false;                                  /* past the leading spaces */
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        size_t end = i + n;
        if (i > 0) {
            text |= prev != ' ';
            int b = lb[i - 1] == LINEBREAK_MUSTBREAK ? TEXT_BREAK_MUST
                  : lb[i - 1] == LINEBREAK_ALLOWBREAK ? TEXT_BREAK_ALLOW : TEXT_BREAK_NO;
            if (b == TEXT_BREAK_ALLOW && (clings(cp) || prev == 0x200D || (regional(prev) && regional(cp) && ri_run % 2)
                                          || small_kana(cp)))
                b = TEXT_BREAK_NO;
            /* after a space or next to a wide character only: no break after
            ** a hyphen or a slash, so the browser build (the plain rule)
            ** wraps lessons as the desktop does */
            if (b == TEXT_BREAK_ALLOW && ((prev != ' ' && !wide(prev) && !wide(cp)) || !text)) b = TEXT_BREAK_NO;
            brk[i] = (uint8_t)b;
        }
        ri_run = regional(cp) ? ri_run + 1 : 0;
        prev = cp;
        i = end;
    }
    /* A final newline's MUST is the end itself. */
}

/* Fill the boundaries. */
void text_breaks(const char *s, size_t len, const char *lang, uint8_t *brk)
{
    memset(brk, TEXT_BREAK_NO, len + 1);
    brk[len] = TEXT_BREAK_MUST;
    if (len == 0) return;
    char *lb = xmalloc(len);
    uax14(s, len, lang, lb);
    fill(s, len, lb, brk);
    free(lb);
}

/* The browser build's boundaries (text.h). */
void text_breaks_plain(const char *s, size_t len, uint8_t *brk)
{
    memset(brk, TEXT_BREAK_NO, len + 1);
    brk[len] = TEXT_BREAK_MUST;
    if (len == 0) return;
    char *lb = xmalloc(len);
    plain_breaks(s, len, lb);
    fill(s, len, lb, brk);
    free(lb);
}

/* Whether a virama joins cp to the consonant before it (क्ष, ক্ষ, ...):
** Unicode's extended grapheme rule GB9c, for the Brahmic scripts from
** Devanagari to Malayalam, whose viramas sit at offset 0x4D of their block. */
static bool conjunct(uint32_t virama, uint32_t cp)
{
    return virama >= 0x0900 && virama < 0x0D80 && (virama & 0x7F) == 0x4D && (cp >> 7) == (virama >> 7)
        && (cp & 0x7F) >= 0x15 && (cp & 0x7F) <= 0x39;
}

/* The end of the user-perceived character that starts at byte i: one code
** point and what clings to it (marks, a joiner and what it joins, the
** second half of a flag, the consonants a virama joins). */
static size_t cluster_end(const char *s, size_t len, size_t i)
{
    uint32_t cp;
    size_t e = i + utf8_decode(s + i, len - i, &cp);
    uint32_t prev = cp;
    int flag = regional(cp);
    while (e < len) {
        uint32_t next;
        size_t n = utf8_decode(s + e, len - e, &next);
        if (!(clings(next) || next == 0x200D || prev == 0x200D || (flag && regional(next)) || conjunct(prev, next))) break;
        flag = 0;
        prev = next;
        e += n;
    }
    return e;
}

/* The first k bytes of s without trailing spaces, then "…", into out. */
static size_t cut_with_ellipsis(const char *s, size_t k, char *out)
{
    static const char ellipsis[] = "\xe2\x80\xa6";
    memcpy(out, s, k);
    while (k > 0 && out[k - 1] == ' ') k--;
    memcpy(out + k, ellipsis, sizeof ellipsis);
    return k + sizeof ellipsis - 1;
}

/* Cut a line short with "…" (text.h): a binary search over the ends of
** user-perceived characters, so no cut splits a mark from its letter, a
** conjunct or an emoji sequence. */
float text_fit(const char *s, float maxw, TextMeasure measure, void *ctx, char *out, size_t n)
{
    size_t len = strlen(s);
    if (n == 0) return 0;
    if (len < n) {
        memcpy(out, s, len + 1);
        float w = measure(ctx, out, len);
        if (w <= maxw) return w;
    }
    out[0] = '\0';
    if (n < 4) return 0;                        /* no room for "…" */
    size_t room = n - 4, nb = 1, *ends = xmalloc(sizeof *ends * (len + 1));
    ends[0] = 0;                                /* the cuts that may be tried: 0 and each character's end */
    for (size_t i = 0; i < len;) {
        i = cluster_end(s, len, i);
        if (i > room) break;
        ends[nb++] = i;
    }
    size_t lo = 0, hi = nb - 1;                 /* ends[lo] fits (or is 0); past ends[hi] nothing is tried */
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (measure(ctx, out, cut_with_ellipsis(s, ends[mid], out)) <= maxw) lo = mid;
        else hi = mid - 1;
    }
    size_t k = cut_with_ellipsis(s, ends[lo], out);
    free(ends);
    float w = measure(ctx, out, k);
    if (w > maxw) { out[0] = '\0'; return 0; }
    return w;
}

/* Whether c is a space or newline a line may drop at its ends. */
static int blank(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The longest line from pos that fits w by measuring each candidate whole:
** its end after the blanks in *end_out, the end of its text returned (0 when
** not even the first piece fits). */
static size_t exact_line(const char *s, size_t len, const uint8_t *brk, size_t pos, float w, TextMeasure measure,
                         void *ctx, size_t *end_out)
{
    size_t best = 0, best_end = 0;
    for (size_t e = pos + 1; e <= len; e++) {
        if (brk[e] == TEXT_BREAK_NO) continue;
        size_t te = e;
        while (te > pos && blank(s[te - 1])) te--;
        if (te > pos && measure(ctx, s + pos, te - pos) > w) break;
        best = e;
        best_end = te;
        if (brk[e] == TEXT_BREAK_MUST) break;
    }
    *end_out = best;
    return best_end;
}

/* A run of text with no break opportunity is measured every PROBE_BYTES
** bytes past this many, so that wrapping never scans far beyond a line. */
#define PROBE_BYTES 256

/* The end of the longest run of whole clusters from pos, up to a blank,
** that measures at most w, at least one cluster (a word wider than the
** line is cut between its characters). Exponential, then binary search
** over the clusters: a few measures per line, however long the word. */
static size_t cut_word(const char *s, size_t len, size_t pos, float w, TextMeasure measure, void *ctx)
{
    size_t fit = cluster_end(s, len, pos);              /* always taken */
    size_t step = 1, lo, hi;
    for (;;) {                                          /* double the clusters until one does not fit */
        size_t e = fit;
        for (size_t k = 0; k < step && e < len && !blank(s[e]); k++) e = cluster_end(s, len, e);
        if (e == fit) return fit;                       /* a blank or the end: all of it fits */
        if (measure(ctx, s + pos, e - pos) > w) { lo = fit; hi = e; break; }
        fit = e;
        step *= 2;
    }
    /* fit measures at most w, hi more: bisect the clusters between */
    while (lo < hi) {
        size_t n = 0, mid = lo;
        for (size_t e = lo; e < hi; e = cluster_end(s, len, e)) n++;
        if (n <= 1) break;
        for (size_t k = 0; k < n / 2; k++) mid = cluster_end(s, len, mid);
        if (measure(ctx, s + pos, mid - pos) > w) hi = mid;
        else lo = mid;
    }
    return lo;
}

/* Wrap greedily (text.h). A line's width is taken as the sum of its pieces
** (the text between two break opportunities, and the blanks after it), each
** measured once, so a paragraph costs one measure per piece and one per
** line rather than one per piece per line; the line found is then measured
** whole, and measured candidate by candidate when the sum misjudged it. A
** piece that runs on without a break is measured as it grows (every
** PROBE_BYTES bytes), and the scan stops once it cannot fit: text with no
** break opportunity costs time in proportion to its length, not to the
** square of it. */
int text_wrap(const char *s, size_t len, float first_w, float rest_w, TextMeasure measure, void *ctx,
              TextLine *lines, int max)
{
    uint8_t *brk = xmalloc(len + 1);
    text_breaks(s, len, NULL, brk);
    int n = 0;
    size_t pos = 0;
    for (;;) {
        while (pos < len && blank(s[pos])) pos++;
        if (pos >= len) break;
        float w = n == 0 ? first_w : rest_w, acc = 0;
        size_t best = 0, best_end = 0, seg = pos;
        for (size_t e = pos + 1; e <= len; e++) {
            if (brk[e] == TEXT_BREAK_NO) {
                /* far from a break: stop when what is there already overflows */
                if (e - seg >= PROBE_BYTES && (e - seg) % PROBE_BYTES == 0 && (s[e] & 0xC0) != 0x80
                    && acc + measure(ctx, s + seg, e - seg) > w)
                    break;
                continue;
            }
            size_t te = e;
            while (te > seg && blank(s[te - 1])) te--;
            float piece = te > seg ? measure(ctx, s + seg, te - seg) : 0;
            if (te > seg && acc + piece > w) break;
            best = e;
            if (te > seg) best_end = te;
            acc += piece + (e > te ? measure(ctx, s + te, e - te) : 0);
            seg = e;
            if (brk[e] == TEXT_BREAK_MUST) break;
        }
        if (best && measure(ctx, s + pos, best_end - pos) > w)     /* the pieces misjudged it */
            best_end = exact_line(s, len, brk, pos, w, measure, ctx, &best);
        if (best == 0) best = best_end = cut_word(s, len, pos, w, measure, ctx);    /* a word wider than the line */
        if (n < max) lines[n] = (TextLine){ pos, best_end };
        n++;
        pos = best;
    }
    free(brk);
    return n;
}

/* Whether cp is a right-to-left letter, by block. */
static bool rtl_letter(uint32_t cp)
{
    return (cp >= 0x05D0 && cp <= 0x05FF) || (cp >= 0x0600 && cp <= 0x07FF && !(cp >= 0x0660 && cp <= 0x0669)
            && !(cp >= 0x06F0 && cp <= 0x06F9) && !(cp >= 0x064B && cp <= 0x065F) && cp != 0x060C)
        || (cp >= 0x0800 && cp <= 0x08FF) || (cp >= 0xFB1D && cp <= 0xFDFF) || (cp >= 0xFE70 && cp <= 0xFEFF);
}

/* Whether cp is a left-to-right letter: Latin, Greek, Cyrillic and the
** scripts after them, ideographs and kana; not digits, marks or symbols. */
static bool ltr_letter(uint32_t cp)
{
    if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
    if (cp < 0xC0 || rtl_letter(cp) || clings(cp)) return false;
    if (cp >= 0x0590 && cp <= 0x08FF) return false;          /* RTL blocks' digits and marks */
    if (cp >= 0x2000 && cp <= 0x2BFF) return false;          /* punctuation, arrows, maths, symbols */
    if (cp >= 0x3000 && cp <= 0x303F) return false;          /* CJK punctuation */
    if (cp >= 0xFE00 && cp <= 0xFE6F) return false;          /* variation selectors, small forms */
    if (cp >= 0xFF00 && cp <= 0xFF20) return false;          /* fullwidth punctuation and digits */
    if (cp >= 0x1F000) return false;                         /* emoji and symbols */
    return true;
}

/* The first strong character decides (text.h). */
bool text_rtl(const char *s)
{
    uint32_t cp;
    while ((cp = utf8_next(&s)) != 0) {
        if (rtl_letter(cp)) return true;
        if (ltr_letter(cp)) return false;
    }
    return false;
}
