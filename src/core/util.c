/*
** util.c: allocation that aborts on failure, growable strings, number
** formatting. (Files are read and written by fileio.c.)
*/
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print why we stop and abort: the one place allocation failure goes. */
static void out_of_memory(size_t n)
{
    fprintf(stderr, "attnlab: out of memory (asked for %zu bytes)\n", n);
    abort();
}

/* Allocate n bytes or abort. */
void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

/* Allocate a zeroed array or abort. */
void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory(count * size);
    return p;
}

/* Resize or abort. */
void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory(n);
    return q;
}

/* Duplicate a string or abort. */
char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

/* Duplicate n bytes as a string or abort. */
char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* Make room for n more bytes plus the NUL. */
static void buf_reserve(Buf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1) cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
}

/* Append n bytes. */
void buf_append(Buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* Append a string. */
void buf_puts(Buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

/* Append formatted text from a va_list. */
void buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    buf_reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

/* Append formatted text. */
void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Forget the contents, keep the memory. */
void buf_clear(Buf *b)
{
    b->len = 0;
    if (b->s) b->s[0] = '\0';
}

/* The text, or "" for an empty Buf. */
const char *buf_str(const Buf *b)
{
    return b->s ? b->s : "";
}

/* Give the text to the caller. */
char *buf_take(Buf *b)
{
    char *s = b->s ? b->s : xstrdup("");
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

/* Release the memory. */
void buf_free(Buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* Fixed decimals; -0 shown as 0 so a cell never reads "-0.00". */
void util_fmt_num(char *out, size_t n, double v, int decimals)
{
    if (isnan(v)) { snprintf(out, n, "NaN"); return; }
    if (isinf(v)) { snprintf(out, n, v < 0 ? "\xe2\x88\x92\xe2\x88\x9e" : "\xe2\x88\x9e"); return; }
    if (decimals < 0) decimals = 0;
    if (decimals > 17) decimals = 17;
    if (fabs(v) >= 1e9 && v != floor(v)) { snprintf(out, n, "%.2e", v); return; }
    if (fabs(v) >= 1e15) { snprintf(out, n, "%.2e", v); return; }
    snprintf(out, n, "%.*f", decimals, v);
    /* "-0.00" -> "0.00": the sign of a value that rounds to zero is noise */
    if (out[0] == '-') {
        const char *p = out + 1;
        while (*p == '0' || *p == '.') p++;
        if (*p == '\0') memmove(out, out + 1, strlen(out));
    }
}

/* %.15g already gives the shortest form when one of 15 digits or fewer
** exists (it rounds, then drops trailing zeros), so only 15, 16 and 17
** digits need trying; 17 always reads back exactly. */
void util_fmt_shortest(char *out, size_t n, double v)
{
    assert(isfinite(v) && n >= 32);
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

/* util_fmt_num, then "0.50" shortened to ".50" and "-0.45" to "-.45" when
** compact is set; an exact 0 or 1 is "0" or "1" whatever the decimals. */
void util_fmt_cell(char *out, size_t n, double v, int decimals, bool compact)
{
    util_fmt_cell_even(out, n, v, decimals, compact, false);
}

/* The same, an exact 0 or 1 too printed with the decimals when even is set
** ("0.00", as every other number of its panel). */
void util_fmt_cell_even(char *out, size_t n, double v, int decimals, bool compact, bool even)
{
    if (!even && (v == 0.0 || v == 1.0)) { snprintf(out, n, "%d", (int)v); return; }
    util_fmt_num(out, n, v, decimals);
    if (!compact) return;
    char *z = out[0] == '-' ? out + 1 : out;
    if (z[0] == '0' && z[1] == '.') memmove(z, z + 1, strlen(z));
}

/* Automatic digits for a cell (util.h). */
int util_auto_decimals(bool ints, double amax, bool probabilities)
{
    if (ints) return 0;
    if (probabilities) return amax > 0 && amax < 0.05 ? 3 : 2;
    if (amax >= 1000) return 0;
    if (amax >= 100) return 1;
    if (amax > 0 && amax < 0.05) return 3;
    return 2;
}

/* Control characters escaped, so that a name never breaks a message's line. */
char *util_shown(const char *s)
{
    Buf b = {0};
    buf_puts(&b, "");
    for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
        if (*c >= 0x20 && *c != 0x7f) buf_append(&b, (const char *)c, 1);
        else if (*c == '\n') buf_puts(&b, "\\n");
        else if (*c == '\r') buf_puts(&b, "\\r");
        else if (*c == '\t') buf_puts(&b, "\\t");
        else buf_printf(&b, "\\x%02x", *c);
    }
    return buf_take(&b);
}

/* An IEEE half-precision number, exactly. */
double util_half_to_double(uint16_t b)
{
    int e = (b >> 10) & 0x1f, m = b & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (b & 0x8000) ? -v : v;
}
