/*
** text.h: fitting UTF-8 text to a width: where a line may end, the greedy
** wrap of a paragraph that the layout's paragraphs and the window's
** overlays share, and cutting one line short with "…".
**
** Line breaking follows the Unicode line breaking algorithm (UAX #14, by
** libunibreak), kept to breaks at spaces and between ideographs or kana, so
** Chinese and Japanese wrap without spaces; never before closing
** punctuation such as 。or ), nor (Japanese's strict rule) before a small
** kana or ー. On top of it no break ever
** splits a user-perceived character: not before a combining mark, variation
** selector or emoji modifier, not after a zero-width joiner, not inside a
** pair of regional indicators (a flag).
**
**     uint8_t *brk = xmalloc(len + 1);
**     text_breaks(s, len, NULL, brk);
**     // brk[i] for 0 <= i <= len: the boundary before byte i
**     //   TEXT_BREAK_NO, TEXT_BREAK_ALLOW or TEXT_BREAK_MUST (a newline, and the end)
**
**     char cut[64];
**     float w = text_fit(title, 300, measure, ctx, cut, sizeof cut);   // "A long ti…"
**
**     TextLine lines[8];
**     int n = text_wrap(s, len, w, w, measure, ctx, lines, 8);
**     // n lines in all; the first min(n, 8) are lines[i].start .. .end
**
** Malformed UTF-8 is read as the utf8 module reads it: each bad byte is a
** character of its own (U+FFFD), and breaks may fall around it.
*/
#ifndef ATTNLAB_TEXT_H
#define ATTNLAB_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TEXT_BREAK_NO = 0, TEXT_BREAK_ALLOW = 1, TEXT_BREAK_MUST = 2 };

/* Fill brk[0..len] with the kind of boundary before each byte of s (len
** bytes; lang is a BCP 47 tag such as "ja", or NULL). Boundaries inside a
** character are TEXT_BREAK_NO; brk[0] is NO and brk[len] is MUST. */
void text_breaks(const char *s, size_t len, const char *lang, uint8_t *brk);

/* The same from the plain rule alone, which is all the browser build has:
** after spaces and next to wide characters (ideographs, kana, hangul,
** emoji), with UAX #14's rules for brackets, stops, quotes, hyphens and a
** number's prefix and suffix. text_breaks keeps only breaks of these two
** kinds, so both builds wrap lessons alike (a test holds them equal on
** every line of every bundled lesson and catalogue). */
void text_breaks_plain(const char *s, size_t len, uint8_t *brk);

/* One line of a wrapped text: bytes [start, end), without the spaces and
** newline it was broken at. */
typedef struct {
    size_t start, end;
} TextLine;

/* The width of len bytes of s (not NUL-terminated) in the caller's font. */
typedef float (*TextMeasure)(void *ctx, const char *s, size_t len);

/* Wrap len bytes of s greedily: each line ends at the last break
** opportunity that fits (first_w for the first line, rest_w after), at
** every newline, and a word wider than a line is cut between user-perceived
** characters (at least one per line). Blank lines and spaces at the start
** of a line are dropped. Stores the first max lines in lines (may be NULL
** with max 0) and returns how many lines the whole text takes. */
int text_wrap(const char *s, size_t len, float first_w, float rest_w, TextMeasure measure, void *ctx,
              TextLine *lines, int max);

/* Copy s (NUL-terminated) into out (n bytes), cut so that it measures at
** most maxw: s itself when it fits, else its longest prefix that ends
** between user-perceived characters, without trailing spaces, followed by
** "…". Returns the width kept; 0 with out empty when not even "…" fits. */
float text_fit(const char *s, float maxw, TextMeasure measure, void *ctx, char *out, size_t n);

/* Whether a paragraph reads right to left: its first strong character
** (a letter, not a digit, space or punctuation) is Hebrew, Arabic, Syriac,
** Thaana or N'Ko (the paragraph rule of the bidi algorithm, by block). */
bool text_rtl(const char *s);

#endif
