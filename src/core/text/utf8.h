/*
** utf8.h: the program's one UTF-8 decoder, with one rule for bad input.
**
** Every module that walks text byte by byte (fonts, SVG, the check for
** missing glyphs) decodes it here, so all of them agree on what a character
** is. The rule for malformed input: a byte that does not start a complete,
** shortest-form sequence of a Unicode scalar value (no surrogates, nothing
** past U+10FFFF) decodes as U+FFFD and consumes exactly that one byte; the
** next byte is tried afresh. So a bad byte never swallows a good character.
**
**     const char *p = text;
**     uint32_t cp;
**     while ((cp = utf8_next(&p)) != 0) ...          // NUL-terminated text
**     size_t n = utf8_decode(s, len, &cp);           // bounded buffers
**
** Columns follow the terminal convention (wcwidth): combining marks and
** format characters take 0, East Asian wide and full-width characters and
** emoji take 2, everything else 1.
*/
#ifndef ATTNLAB_UTF8_H
#define ATTNLAB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The replacement character malformed input decodes to. */
#define UTF8_REPLACEMENT 0xFFFDu

/* Decode the character at *s and step *s past it (one byte when malformed,
** giving U+FFFD). At the terminating NUL returns 0 and leaves *s alone. */
uint32_t utf8_next(const char **s);
/* Decode the character at s, reading at most len bytes (len > 0); *cp gets
** it (U+FFFD when malformed) and the bytes consumed are returned (>= 1). */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp);
/* The length of the well-formed sequence at s (1..4), or 0 if malformed. */
int utf8_seq_len(const char *s, size_t len);
/* Whether len bytes of s are well-formed UTF-8 throughout. */
bool utf8_valid(const char *s, size_t len);
/* Characters in a NUL-terminated string (each malformed byte counts one). */
size_t utf8_count(const char *s);
/* Characters in len bytes of s (each malformed byte counts one). */
size_t utf8_count_n(const char *s, size_t len);
/* Display columns of a NUL-terminated string (see above). */
size_t utf8_columns(const char *s);
/* Columns of one character: 0, 1 or 2. */
int utf8_cp_columns(uint32_t cp);
/* The start of the character before p, not before start (p itself if p == start).
** A stray continuation byte counts as a character of its own. */
const char *utf8_prev(const char *start, const char *p);
/* Byte offset i of s (len bytes) moved back to the start of the character
** it falls inside; i itself when it is already a boundary. */
size_t utf8_floor(const char *s, size_t len, size_t i);
/* Whether cp is one of Unicode's 66 noncharacters (U+FDD0 … U+FDEF and the
** last two code points of every plane, U+FFFE, U+FFFF, U+1FFFE …): code
** points a program may use inside itself, never text to show. */
bool utf8_noncharacter(uint32_t cp);
/* Whether cp is a bidi control: the marks U+200E and U+200F, the
** embeddings and overrides U+202A … U+202E, the isolates U+2066 … U+2069.
** Zero-width, they start what follows rather than end what precedes. */
bool utf8_bidi_control(uint32_t cp);
/* Encode cp (a scalar value; others give U+FFFD) into out; returns 1..4. */
int utf8_encode(uint32_t cp, char out[4]);

#endif
