/*
** error.c: filling, mapping and printing an Error (see error.h).
*/
#include "error.h"

#include <assert.h>
#include <stdarg.h>
#include <string.h>

/* No error. */
void error_clear(Error *e)
{
    if (!e) return;
    e->kind = ERR_NONE;
    e->file[0] = e->msg[0] = '\0';
    e->line = e->col = 0;
}

/* Fill e with a failure. */
bool error_set(Error *e, ErrorKind kind, const char *file, int line, int col, const char *fmt, ...)
{
    if (!e) return false;
    e->kind = kind;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    e->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return false;
}

/* 1 for what failed around the input, 2 for the input itself, 0 for none. */
int error_exit_code(const Error *e)
{
    assert(e);
    switch (e->kind) {
    case ERR_NONE: return 0;
    case ERR_IO: case ERR_RUNTIME: return 1;
    case ERR_INVALID: case ERR_LIMIT: return 2;
    }
    return 1;
}

/* The line with the word for how bad it is (NULL: none, and no program
** name for an error about no file). */
static void format_as(const Error *e, const char *severity, char *out, size_t n)
{
    assert(e && e->kind != ERR_NONE);           /* only a failure is printed */
    const char *sep = severity ? ": " : "", *word = severity ? severity : "";
    if (!e->file[0] && severity) snprintf(out, n, "attnlab: %s: %s", word, e->msg);
    else if (!e->file[0]) snprintf(out, n, "%s", e->msg);
    else if (e->line > 0) snprintf(out, n, "%s:%d:%d: %s%s%s", e->file, e->line, e->col, word, sep, e->msg);
    else snprintf(out, n, "%s: %s%s%s", e->file, word, sep, e->msg);
}

/* e as one line. */
void error_format(const Error *e, char *out, size_t n)
{
    format_as(e, "error", out, n);
}

/* e without "error:". */
void error_brief(const Error *e, char *out, size_t n)
{
    format_as(e, NULL, out, n);
}

/* Print e as one line. */
void error_print(const Error *e, FILE *f)
{
    char line[ERROR_LINE_MAX];
    format_as(e, "error", line, sizeof line);
    fprintf(f, "%s\n", line);
}

/* Print e as a warning. */
void error_warn(const Error *e, FILE *f)
{
    char line[ERROR_LINE_MAX];
    format_as(e, "warning", line, sizeof line);
    fprintf(f, "%s\n", line);
}
