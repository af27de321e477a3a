/*
** lesson_scan.c: the lesson parser's scanner (see lesson_int.h).
**
** Numbers as lessons write them (with the typographic minus of pasted
** slides), whole numbers within a range, small arithmetic for scalars,
** identifiers and token lists; and the one error of a parse, formatted
** "FILE:LINE:COL: error: what was expected, what was found" with the
** column counted in characters.
*/
#include "lesson_int.h"
#include "core/text/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- errors */

/* Record the parse's error at line:col. */
static bool fail_v(Parser *p, int line, int col, const char *fmt, va_list ap)
{
    char what[400];
    vsnprintf(what, sizeof what, fmt, ap);
    return error_set(p->err, ERR_INVALID, p->file, line, col, "%s", what);
}

/* Record an error at a column of the current line (1-based, in characters). */
bool lp_fail_at(Parser *p, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(p, p->lineno, col, fmt, ap);
    va_end(ap);
    return false;
}

/* Point errors at a given line (for checks made when a section ends). */
bool lp_fail_line(Parser *p, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(p, line, col, fmt, ap);
    va_end(ap);
    return false;
}

/* The 1-based character column of pointer s within the current line. */
int lp_col(const Parser *p, const char *s)
{
    size_t n = 0;
    while (p->line + n < s && p->line[n]) n++;
    return 1 + (int)utf8_count_n(p->line, n);
}

/* ---------------------------------------------------------------- scanning */

/* Describe what was found at s, for "found ..." in messages. */
void lp_found(const char *s, char *out, size_t n)
{
    s = skip_ws(s);
    if (!*s) { snprintf(out, n, "the end of the line"); return; }
    size_t len = 0;
    while (s[len] && s[len] != ' ' && s[len] != '\t' && len < 24) len++;
    len = utf8_floor(s, strlen(s), len);            /* never cut a character in two */
    snprintf(out, n, "'%.*s'", (int)len, s);
}

/* True if s starts with the lowercase word w, ignoring case. */
static bool starts_nocase(const char *s, const char *w)
{
    for (; *w; s++, w++)
        if (tolower((unsigned char)*s) != *w) return false;
    return true;
}

/* ---------------------------------------------------------------- numbers */

/*
** A number is [sign] digits [. digits] [e [sign] digits], with U+2212 (the
** typographic minus) accepted as either sign since lessons get pasted from
** slides (−1e−3).
** nan, inf and hex floats are not numbers here; a literal that overflows a
** double is an error too.
*/
bool lp_number(Parser *p, const char **sp, double *out)
{
    const char *s = *sp;
    char buf[64];
    size_t n = 0;
    if (*s == '+' || *s == '-') buf[n++] = *s++;
    else if (!strncmp(s, "\xe2\x88\x92", 3)) { buf[n++] = '-'; s += 3; }
    const char *digits = s;
    while (isdigit((unsigned char)*s) && n < 60) buf[n++] = *s++;
    if (*s == '.' && n < 60) {
        buf[n++] = *s++;
        while (isdigit((unsigned char)*s) && n < 60) buf[n++] = *s++;
    }
    if (s == digits || (s == digits + 1 && *digits == '.')) {
        char what[48];
        lp_found(*sp, what, sizeof what);
        const char *w = skip_ws(*sp);
        if (starts_nocase(w, "nan") || starts_nocase(w, "inf") || starts_nocase(w, "-inf") || starts_nocase(w, "+inf"))
            return FAIL(p, *sp, "expected a finite number, found %s (NaN and infinity are not allowed)", what);
        return FAIL(p, *sp, "expected a number, found %s", what);
    }
    if ((*s == 'e' || *s == 'E') && n < 60) {
        const char *e = s;
        buf[n++] = *s++;
        if (*s == '+' || *s == '-') buf[n++] = *s++;
        else if (!strncmp(s, "\xe2\x88\x92", 3)) { buf[n++] = '-'; s += 3; }      /* −1e−3 */
        if (!isdigit((unsigned char)*s)) return FAIL(p, e, "expected digits after the exponent 'e'");
        while (isdigit((unsigned char)*s) && n < 60) buf[n++] = *s++;
    }
    if (n >= 60) return FAIL(p, *sp, "number is too long (at most 60 characters)");
    if (isalpha((unsigned char)*s) || *s == '_') {
        char what[48];
        lp_found(*sp, what, sizeof what);
        return FAIL(p, *sp, "expected a number, found %s", what);
    }
    buf[n] = '\0';
    errno = 0;
    double v = strtod(buf, NULL);
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
        return FAIL(p, *sp, "number %s is too large for a double (it would be infinite)", buf);
    *out = v;
    *sp = s;
    return true;
}

/* A whole non-negative integer below limit, for sizes and counts. */
bool lp_int(Parser *p, const char **sp, int64_t lo, int64_t hi, const char *what, int64_t *out)
{
    const char *s = skip_ws(*sp);
    if (!isdigit((unsigned char)*s) && *s != '-') {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "expected %s (a whole number), found %s", what, f);
    }
    const char *start = s;
    bool neg = *s == '-';
    if (neg) s++;
    int64_t v = 0;
    while (isdigit((unsigned char)*s)) {
        if (v > INT64_C(100000000000)) return FAIL(p, start, "%s is far too large", what);
        v = v * 10 + (*s++ - '0');
    }
    if (neg) v = -v;
    if (*s == '.' || *s == 'e' || *s == 'E') return FAIL(p, start, "expected %s to be a whole number", what);
    /* "-0" is as negative as it looks where only non-negative numbers go */
    if (v < lo || v > hi || (neg && lo >= 0))
        return FAIL(p, start, "%s must be between %" PRId64 " and %" PRId64 ", found %s%" PRId64, what, lo, hi,
                    neg ? "-" : "", neg ? -v : v);
    *out = v;
    *sp = s;
    return true;
}

/* -------------------------------------------------------------- expressions */

/*
** Scalars (scales, divisors, temperatures, frequencies) may be small
** arithmetic: numbers, + - * /, parentheses and sqrt(...), so a lesson can
** say `* sqrt(2/(64+16))` exactly as the notebook computes it.
*/

/* A number, a parenthesised sum, sqrt(...), or a negated factor. */
static bool expr_atom(Parser *p, const char **sp, double *out, int depth)
{
    const char *s = skip_ws(*sp);
    if (depth > 32) return FAIL(p, s, "expression is nested too deeply");
    if (*s == '(') {
        s++;
        if (!lp_expr(p, &s, out, depth + 1)) return false;
        s = skip_ws(s);
        if (*s != ')') return FAIL(p, s, "expected ')' to close the parenthesis");
        *sp = s + 1;
        return true;
    }
    if (!strncmp(s, "sqrt", 4)) {
        const char *at = s;
        s = skip_ws(s + 4);
        if (*s != '(') return FAIL(p, s, "expected '(' after sqrt");
        if (!expr_atom(p, &s, out, depth + 1)) return false;
        if (*out < 0) return FAIL(p, at, "sqrt of a negative number (%g)", *out);
        *out = sqrt(*out);
        *sp = s;
        return true;
    }
    if (*s == '-' || !strncmp(s, "\xe2\x88\x92", 3)) {
        const char *next = *s == '-' ? s + 1 : s + 3;
        if (*next == '(' || !strncmp(next, "sqrt", 4)) {
            if (!expr_atom(p, &next, out, depth + 1)) return false;
            *out = -*out;
            *sp = next;
            return true;
        }
    }
    if (!lp_number(p, &s, out)) return false;
    *sp = s;
    return true;
}

/* Factors joined by * and /. */
static bool expr_product(Parser *p, const char **sp, double *out, int depth)
{
    if (!expr_atom(p, sp, out, depth)) return false;
    for (;;) {
        const char *s = skip_ws(*sp);
        if (*s != '*' && *s != '/') return true;
        const char *op_at = s;      /* errors point at the operator */
        char op = *s++;
        double rhs;
        if (!expr_atom(p, &s, &rhs, depth)) return false;
        if (op == '/' && rhs == 0) return FAIL(p, op_at, "division by zero");
        *out = op == '*' ? *out * rhs : *out / rhs;
        if (!isfinite(*out)) return FAIL(p, op_at, "the expression overflows to infinity");
        *sp = s;
    }
}

/* Terms joined by + and -. */
bool lp_expr(Parser *p, const char **sp, double *out, int depth)
{
    if (!expr_product(p, sp, out, depth)) return false;
    for (;;) {
        const char *s = skip_ws(*sp);
        if (*s != '+' && *s != '-') return true;
        const char *op_at = s;
        char op = *s++;
        double rhs;
        if (!expr_product(p, &s, &rhs, depth)) return false;
        *out = op == '+' ? *out + rhs : *out - rhs;
        if (!isfinite(*out)) return FAIL(p, op_at, "the expression overflows to infinity");
        *sp = s;
    }
}

/* A full expression that must end the line. */
bool lp_expr_line(Parser *p, const char *s, double *out)
{
    if (!lp_expr(p, &s, out, 0)) return false;
    s = skip_ws(s);
    if (*s) {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "expected the end of the expression, found %s", f);
    }
    return true;
}

/* Nothing but spaces may follow. */
bool lp_end(Parser *p, const char *s)
{
    s = skip_ws(s);
    if (!*s) return true;
    char f[48];
    lp_found(s, f, sizeof f);
    return FAIL(p, s, "expected the end of the line, found %s", f);
}

/* ------------------------------------------------------------------- words */

/* Read an identifier into a new string, advancing *sp. */
char *lp_ident(Parser *p, const char **sp, const char *what)
{
    const char *s = skip_ws(*sp);
    size_t n = ident_len(s);
    if (n == 0) {
        char f[48];
        lp_found(s, f, sizeof f);
        FAIL(p, s, "expected %s, found %s", what, f);
        return NULL;
    }
    if (n > LESSON_MAX_NAME) {
        FAIL(p, s, "name is longer than %d characters", LESSON_MAX_NAME);
        return NULL;
    }
    *sp = s + n;
    return xstrndup(s, n);
}

/*
** Tokens as tokenizers write them. A bare token runs to the next space; a
** quoted one, "…", may hold spaces, '#' and any byte: \" is a quote, \\ a
** backslash and \xHH the byte HH (two hex digits). A byte that does not
** make text (part of a broken UTF-8 sequence, as byte-level tokenizers
** split a character, a control character or a noncharacter) stays visible
** in the token as the four characters \xHH, so every token can be drawn
** and printed as it is kept.
*/

/* The n bytes at b as a token that can be drawn (a new string): valid
** UTF-8 text kept, every other byte written \xHH. */
char *lp_token_text(const char *b, size_t n)
{
    Buf out = {0};
    for (size_t i = 0; i < n;) {
        int k = utf8_seq_len(b + i, n - i);
        uint32_t cp = 0;
        if (k > 0) utf8_decode(b + i, n - i, &cp);
        if (k <= 0 || cp < 0x20 || cp == 0x7f || utf8_noncharacter(cp)) {
            buf_printf(&out, "\\x%02X", (unsigned char)b[i]);
            i++;
            continue;
        }
        buf_append(&out, b + i, (size_t)k);
        i += (size_t)k;
    }
    if (!out.s) buf_puts(&out, "");
    return buf_take(&out);
}

/* The value of hex digit c, or -1. */
static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Just past the closing quote of the quoted text at s (which is at its
** opening '"'), or NULL when it is not closed. */
const char *lp_quoted_end(const char *s)
{
    for (s++; *s; s++) {
        if (*s == '\\' && s[1]) s++;
        else if (*s == '"') return s + 1;
    }
    return NULL;
}

/* One token at *sp (bare, or quoted with escapes), as a new string in *out,
** advancing *sp past it. */
bool lp_token(Parser *p, const char **sp, char **out)
{
    const char *s = *sp, *start = s;
    Buf b = {0};
    if (*s == '"') {
        for (s++; *s != '"'; s++) {
            if (!*s) { buf_free(&b); return FAIL(p, start, "unterminated quoted token"); }
            if (*s != '\\') { buf_append(&b, s, 1); continue; }
            if (s[1] == '"' || s[1] == '\\') { buf_append(&b, ++s, 1); continue; }
            int hi = s[1] == 'x' ? hex_digit(s[2]) : -1, lo = hi >= 0 ? hex_digit(s[3]) : -1;
            if (lo < 0) {
                buf_free(&b);
                return FAIL(p, s, "unknown escape in a quoted token; write \\\" for a quote, \\\\ for a backslash "
                            "and \\xHH for a byte (two hex digits)");
            }
            char byte = (char)(hi * 16 + lo);
            buf_append(&b, &byte, 1);
            s += 3;
        }
        s++;
    } else {
        while (*s && *s != ' ' && *s != '\t') s++;
        buf_append(&b, start, (size_t)(s - start));
    }
    char *t = lp_token_text(b.s ? b.s : "", b.len);
    buf_free(&b);
    if (!*t) { free(t); return FAIL(p, start, "a token cannot be empty"); }
    if (strlen(t) > LESSON_MAX_TOKEN) { free(t); return FAIL(p, start, "token is longer than %d bytes", LESSON_MAX_TOKEN); }
    *out = t;
    *sp = s;
    return true;
}

/* A token list: tokens separated by spaces, at most max of them. */
bool lp_tokens(Parser *p, const char *s, int max, char ***out, int *n)
{
    char **toks = NULL;
    int count = 0;
    s = skip_ws(s);
    while (*s) {
        const char *start = s;
        char *t;
        if (count >= max) {
            lp_tokens_free(toks, count);
            return FAIL(p, start, "too many tokens (the limit is %d)", max);
        }
        if (!lp_token(p, &s, &t)) {
            lp_tokens_free(toks, count);
            return false;
        }
        if (*s && *s != ' ' && *s != '\t') {
            free(t);
            lp_tokens_free(toks, count);
            return FAIL(p, s, "expected a space after the quoted token");
        }
        toks = xrealloc(toks, sizeof *toks * (size_t)(count + 1));
        toks[count++] = t;
        s = skip_ws(s);
    }
    if (count == 0) return FAIL(p, s, "expected at least one token, found the end of the line");
    *out = toks;
    *n = count;
    return true;
}

/* Free a token list. */
void lp_tokens_free(char **t, int n)
{
    for (int i = 0; i < n; i++) free(t[i]);
    free(t);
}

/* Copy a token list. */
char **lp_tokens_copy(char *const *t, int n)
{
    if (!t) return NULL;
    char **c = xmalloc(sizeof *c * (size_t)n);
    for (int i = 0; i < n; i++) c[i] = xstrdup(t[i]);
    return c;
}
