/*
** util.h: the small pieces every module leans on.
**
** Allocation never returns NULL: xmalloc and friends print one line and abort
** when memory runs out, so callers do not carry error paths for it. Buf is a
** growable string (append, printf) used for JSON, explanations and messages.
*/
#ifndef ATTNLAB_UTIL_H
#define ATTNLAB_UTIL_H

#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* Allocate n bytes or abort. */
void *xmalloc(size_t n);
/* Allocate a zeroed array of count elements of size bytes or abort. */
void *xcalloc(size_t count, size_t size);
/* Resize p to n bytes or abort. */
void *xrealloc(void *p, size_t n);
/* Duplicate a NUL-terminated string or abort. */
char *xstrdup(const char *s);
/* Duplicate the first n bytes of s as a NUL-terminated string. */
char *xstrndup(const char *s, size_t n);

/* A growable, always NUL-terminated string. Zero-initialise, then buf_free. */
typedef struct Buf {
    char *s;      /* the text, NUL-terminated once anything was added */
    size_t len;   /* bytes used, excluding the NUL */
    size_t cap;   /* bytes allocated */
} Buf;

/* Append n bytes of s. */
void buf_append(Buf *b, const char *s, size_t n);
/* Append a NUL-terminated string. */
void buf_puts(Buf *b, const char *s);
/* Append formatted text. */
void buf_printf(Buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append formatted text from a va_list. */
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
/* Forget the contents but keep the memory. */
void buf_clear(Buf *b);
/* Return the text ("" when empty); the Buf still owns it. */
const char *buf_str(const Buf *b);
/* Hand the text to the caller (who frees it) and reset the Buf. */
char *buf_take(Buf *b);
/* Release the memory. */
void buf_free(Buf *b);

/* A copy of s (a file name) fit for a one-line message: control
** characters written as C escapes ("\n", "\t", "\x1b"), everything else
** as it is. The caller frees it. */
char *util_shown(const char *s);

/* Format a double the way the screen and explanations show it: fixed decimals,
** "-0" folded to "0", infinities as "−∞"/"∞". Writes into out (size n). */
void util_fmt_num(char *out, size_t n, double v, int decimals);
/* A heatmap cell's text: util_fmt_num, exact 0 as "0", and with compact set
** the leading zero dropped (".50", "-.45") so it fits a narrow cell; exact
** 0 and 1 are "0" and "1" (so only they print without decimals). */
void util_fmt_cell(char *out, size_t n, double v, int decimals, bool compact);
/* The same, an exact 0 or 1 too printed with the decimals when even is set. */
void util_fmt_cell_even(char *out, size_t n, double v, int decimals, bool compact, bool even);
/* Digits to print in a cell when the lesson says "automatic": enough to
** tell values of this size apart (2 in general, 3 for tiny ones, fewer for
** big ones), 0 for whole numbers, and at least 2 for weights in (0, 1).
** amax is the largest magnitude shown; the layout and the stage pager
** both read it. */
int util_auto_decimals(bool ints, double amax, bool probabilities);
/* The shortest decimal text that reads back (strtod) as exactly v: "1.2",
** not "1.2000000000000002". v must be finite; out needs 32 bytes. */
void util_fmt_shortest(char *out, size_t n, double v);

/* The IEEE half-precision number of bits b, as a double (exactly). */
double util_half_to_double(uint16_t b);

#endif
