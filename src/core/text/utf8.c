/*
** utf8.c: decoding, validating, counting and stepping through UTF-8.
** The rule for malformed input is in utf8.h; utf8_seq_len is its one home.
*/
#include "utf8.h"

#include <string.h>

/* Whether b is a continuation byte (10xxxxxx). */
static int cont(unsigned char b)
{
    return (b & 0xC0) == 0x80;
}

/*
** The lead byte fixes the length and the allowed range of the second byte
** (Unicode's table 3-7): that one check rules out overlong forms, the
** surrogates D800-DFFF and anything past U+10FFFF.
*/
int utf8_seq_len(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    if (len == 0) return 0;
    unsigned char c = s[0];
    int n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) { n = 3; lo = 0xA0; }
    else if (c == 0xED) { n = 3; hi = 0x9F; }
    else if (c >= 0xE1 && c <= 0xEF) n = 3;
    else if (c == 0xF0) { n = 4; lo = 0x90; }
    else if (c == 0xF4) { n = 4; hi = 0x8F; }
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else return 0;
    if ((size_t)n > len) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (!cont(s[i])) return 0;
    return n;
}

/* Decode a bounded sequence. */
size_t utf8_decode(const char *str, size_t len, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    int n = utf8_seq_len(str, len);
    if (n == 0) { *cp = UTF8_REPLACEMENT; return 1; }
    static const unsigned char mask[5] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
    uint32_t c = s[0] & mask[n];
    for (int i = 1; i < n; i++) c = (c << 6) | (s[i] & 0x3F);
    *cp = c;
    return (size_t)n;
}

/* Decode from a NUL-terminated string: a NUL inside a sequence makes it
** malformed, since NUL is never a continuation byte. */
uint32_t utf8_next(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    if (p[0] == 0) return 0;
    size_t avail = 1;
    while (avail < 4 && p[avail - 1] != 0 && p[avail] != 0) avail++;
    uint32_t cp;
    *s += utf8_decode(*s, avail, &cp);
    return cp;
}

/* Well-formed throughout. */
bool utf8_valid(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        int n = utf8_seq_len(s + i, len - i);
        if (n == 0) return false;
        i += (size_t)n;
    }
    return true;
}

/* Characters in len bytes. */
size_t utf8_count_n(const char *s, size_t len)
{
    size_t n = 0;
    uint32_t cp;
    for (size_t i = 0; i < len; n++) i += utf8_decode(s + i, len - i, &cp);
    return n;
}

/* Characters. */
size_t utf8_count(const char *s)
{
    return utf8_count_n(s, strlen(s));
}

/* A range of code points. */
typedef struct Range { uint32_t lo, hi; } Range;

/* Whether cp is in a sorted table of ranges (binary search). */
static int in_table(uint32_t cp, const Range *t, int n)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (cp < t[mid].lo) hi = mid - 1;
        else if (cp > t[mid].hi) lo = mid + 1;
        else return 1;
    }
    return 0;
}

/* Combining marks and invisible format characters: zero columns. The main
** blocks only; a rare mark outside them counts as one column. */
static const Range zero_width[] = {
    { 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD }, { 0x05BF, 0x05BF },
    { 0x05C1, 0x05C2 }, { 0x05C4, 0x05C5 }, { 0x05C7, 0x05C7 }, { 0x0610, 0x061A },
    { 0x064B, 0x065F }, { 0x0670, 0x0670 }, { 0x06D6, 0x06DC }, { 0x06DF, 0x06E4 },
    { 0x06E7, 0x06E8 }, { 0x06EA, 0x06ED }, { 0x0900, 0x0902 }, { 0x093A, 0x093A },
    { 0x093C, 0x093C }, { 0x0941, 0x0948 }, { 0x094D, 0x094D }, { 0x0951, 0x0957 },
    { 0x0962, 0x0963 }, { 0x0E31, 0x0E31 }, { 0x0E34, 0x0E3A }, { 0x0E47, 0x0E4E },
    { 0x1AB0, 0x1AFF }, { 0x1DC0, 0x1DFF }, { 0x200B, 0x200F }, { 0x202A, 0x202E },
    { 0x2060, 0x2064 }, { 0x20D0, 0x20FF }, { 0xFE00, 0xFE0F }, { 0xFE20, 0xFE2F },
    { 0xFEFF, 0xFEFF }, { 0xE0000, 0xE0FFF },
};

/* East Asian wide and full-width characters, and emoji. */
static const Range wide[] = {
    { 0x1100, 0x115F }, { 0x231A, 0x231B }, { 0x2329, 0x232A }, { 0x23E9, 0x23EC },
    { 0x23F0, 0x23F0 }, { 0x23F3, 0x23F3 }, { 0x25FD, 0x25FE }, { 0x2614, 0x2615 },
    { 0x2648, 0x2653 }, { 0x267F, 0x267F }, { 0x2693, 0x2693 }, { 0x26A1, 0x26A1 },
    { 0x26AA, 0x26AB }, { 0x26BD, 0x26BE }, { 0x26C4, 0x26C5 }, { 0x26CE, 0x26CE },
    { 0x26D4, 0x26D4 }, { 0x26EA, 0x26EA }, { 0x26F2, 0x26F3 }, { 0x26F5, 0x26F5 },
    { 0x26FA, 0x26FA }, { 0x26FD, 0x26FD }, { 0x2705, 0x2705 }, { 0x270A, 0x270B },
    { 0x2728, 0x2728 }, { 0x274C, 0x274C }, { 0x274E, 0x274E }, { 0x2753, 0x2755 },
    { 0x2757, 0x2757 }, { 0x2795, 0x2797 }, { 0x27B0, 0x27B0 }, { 0x27BF, 0x27BF },
    { 0x2B1B, 0x2B1C }, { 0x2B50, 0x2B50 }, { 0x2B55, 0x2B55 }, { 0x2E80, 0x303E },
    { 0x3041, 0x33FF }, { 0x3400, 0x4DBF }, { 0x4E00, 0x9FFF }, { 0xA000, 0xA4CF },
    { 0xA960, 0xA97F }, { 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF }, { 0xFE10, 0xFE19 },
    { 0xFE30, 0xFE6F }, { 0xFF00, 0xFF60 }, { 0xFFE0, 0xFFE6 }, { 0x16FE0, 0x16FE4 },
    { 0x17000, 0x18CFF }, { 0x1B000, 0x1B2FF }, { 0x1F004, 0x1F004 }, { 0x1F0CF, 0x1F0CF },
    { 0x1F18E, 0x1F18E }, { 0x1F191, 0x1F19A }, { 0x1F200, 0x1F251 }, { 0x1F300, 0x1F64F },
    { 0x1F680, 0x1F6FF }, { 0x1F7E0, 0x1F7EB }, { 0x1F90C, 0x1F9FF }, { 0x1FA70, 0x1FAFF },
    { 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
};

/* Columns of one character. */
int utf8_cp_columns(uint32_t cp)
{
    if (cp == 0) return 0;
    if (in_table(cp, zero_width, (int)(sizeof zero_width / sizeof *zero_width))) return 0;
    if (in_table(cp, wide, (int)(sizeof wide / sizeof *wide))) return 2;
    return 1;
}

/* Columns of a string. */
size_t utf8_columns(const char *s)
{
    size_t n = 0;
    uint32_t cp;
    while ((cp = utf8_next(&s)) != 0) n += (size_t)utf8_cp_columns(cp);
    return n;
}

/* Step back over continuation bytes to the lead byte, if it is one that
** really owns them; otherwise one byte (a stray continuation byte). */
const char *utf8_prev(const char *start, const char *p)
{
    if (p <= start) return start;
    const char *q = p - 1;
    int back = 0;
    while (q > start && back < 3 && cont((unsigned char)*q)) { q--; back++; }
    if (utf8_seq_len(q, (size_t)(p - q)) == (int)(p - q)) return q;
    return p - 1;
}

/* The boundary at or before i: a well-formed sequence that starts up to
** three bytes back and reaches past i contains it. */
size_t utf8_floor(const char *s, size_t len, size_t i)
{
    if (i >= len) return len;
    for (size_t back = 1; back <= 3 && back <= i; back++) {
        if (!cont((unsigned char)s[i - back + 1])) break;
        int n = utf8_seq_len(s + i - back, len - (i - back));
        if (n > (int)back) return i - back;
    }
    return i;
}

/* Encode one scalar value. */
int utf8_encode(uint32_t cp, char out[4])
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = UTF8_REPLACEMENT;
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The 66 noncharacters. */
bool utf8_noncharacter(uint32_t cp)
{
    return (cp >= 0xFDD0 && cp <= 0xFDEF) || ((cp & 0xFFFE) == 0xFFFE && cp <= 0x10FFFF);
}

/* Marks, embeddings, overrides and isolates. */
bool utf8_bidi_control(uint32_t cp)
{
    return cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}
