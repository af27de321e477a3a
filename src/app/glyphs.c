/*
** glyphs.c: the missing-glyph warnings of --check and --export, and those
** of a PDF handout's left-out characters (glyphs.h).
*/
#include "glyphs.h"
#include "core/error.h"
#include "core/io/fileio.h"
#include "core/lesson/lesson.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Characters warned about one by one; the rest get one summary line. */
#define LISTED 8
/* One bit per code point: which characters were already looked at. */
#define CODE_POINTS 0x110000u

/* Whether a line is a comment (its first non-blank character is '#'). */
static int comment_line(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    return s < end && *s == '#';
}

/* The warning for one character: with the package that would bring it,
** when there is one (glyphs.h). */
static void warn_one(const char *path, int line, int col, uint32_t cp, FontSet *fs)
{
    const char *pkg = font_package_for(fs, cp);
    Error w;
    error_set(&w, ERR_RUNTIME, path, line, col, "no installed font has U+%04X%s%s", (unsigned)cp, pkg ? "; install " : "",
              pkg ? pkg : "");
    error_warn(&w, stderr);
}

/* What a walk over a lesson's characters calls for each one. */
typedef void (*CharFn)(void *ctx, int line, int col, uint32_t cp);

/* Call fn for every character past ASCII of the lesson's text, at its line
** and column, comment lines left out; stop when fn sets *stop. */
static void each_char(const char *text, size_t len, CharFn fn, void *ctx, const int *stop)
{
    int line = 1;
    const char *p = text, *end = text + len;
    while (p < end && !*stop) {
        const char *eol = p;
        while (eol < end && *eol != '\n') eol++;
        if (!comment_line(p, eol)) {
            int col = 1;
            for (const char *q = p; q < eol && !*stop; col++) {
                uint32_t cp;
                q += utf8_decode(q, (size_t)(eol - q), &cp);
                if (cp >= 0x80 && cp < CODE_POINTS) fn(ctx, line, col, cp);
            }
        }
        p = eol < end ? eol + 1 : end;
        line++;
    }
}

/* The state of app_check_glyphs' walk. */
typedef struct GlyphWalk {
    const char *path;
    FontSet *fonts, *own;           /* the FontSet to ask; own: opened here */
    const char *font_path;
    unsigned char *seen;            /* one bit per code point */
    int missing, more_line, more_col, stop;
    uint32_t more_cp;
} GlyphWalk;

/* One character of app_check_glyphs' walk: asked about once; the first
** LISTED missing ones warned about, the place of the next kept. */
static void check_char(void *ctx, int line, int col, uint32_t cp)
{
    GlyphWalk *w = ctx;
    if (!w->seen) {
        w->seen = xcalloc(CODE_POINTS / 8, 1);
        if (!w->fonts) w->own = font_create(w->font_path, NULL);    /* no fonts: no warnings either */
        if (!w->fonts && !w->own) {
            w->stop = 1;
            return;
        }
    }
    if (w->seen[cp >> 3] & (1u << (cp & 7))) return;
    w->seen[cp >> 3] |= (unsigned char)(1u << (cp & 7));
    FontSet *fs = w->fonts ? w->fonts : w->own;
    if (font_can_draw(fs, cp)) return;
    if (w->missing++ < LISTED) {
        warn_one(w->path, line, col, cp, fs);
    } else if (!w->more_line) {
        w->more_line = line;
        w->more_col = col;
        w->more_cp = cp;
    }
}

/*
** Walk the file's lines and characters. Each distinct character is asked
** about once (a bitmap of every code point remembers which were), however
** many the lesson holds; the first LISTED missing ones get a line each, and
** the others one line at the first of them with their count (a lesson of
** emoji no font has warns in nine lines, not thousands).
*/
int app_check_glyphs(const char *file, FontSet *fonts, const char *font_path)
{
    Error err;
    size_t len = 0;
    char *text = lesson_read(file, &len, &err);
    if (!text) return 0;
    GlyphWalk w = { 0 };
    w.path = util_shown(file);          /* the name as messages print it */
    w.fonts = fonts;
    w.font_path = font_path;
    each_char(text, len, check_char, &w, &w.stop);
    FontSet *fs = fonts ? fonts : w.own;
    if (w.missing == LISTED + 1)
        warn_one(w.path, w.more_line, w.more_col, w.more_cp, fs);
    else if (w.missing > LISTED) {
        Error e;
        error_set(&e, ERR_RUNTIME, w.path, w.more_line, w.more_col, "no installed font has U+%04X, nor %d more character%s "
                  "after it; they show as boxes", (unsigned)w.more_cp, w.missing - LISTED - 1,
                  w.missing - LISTED - 1 == 1 ? "" : "s");
        error_warn(&e, stderr);
    }
    font_free(w.own);
    free(w.seen);
    free((char *)w.path);
    free(text);
    return w.missing;
}

/* A character the handout left out, and its first place in the lesson. */
typedef struct Place {
    uint32_t cp;
    const char *family;
    int line, col;
} Place;

/* The state of app_warn_undrawn's walk. */
typedef struct PlaceWalk {
    Place *places;
    int n, found, stop;
} PlaceWalk;

/* One character of app_warn_undrawn's walk: the first place of each. */
static void place_char(void *ctx, int line, int col, uint32_t cp)
{
    PlaceWalk *w = ctx;
    for (int i = 0; i < w->n; i++)
        if (w->places[i].cp == cp && !w->places[i].line) {
            w->places[i].line = line;
            w->places[i].col = col;
            w->found++;
        }
    if (w->found == w->n) w->stop = 1;
}

/* Places in the lesson's order; those not found (line 0) last. */
static int by_place(const void *a, const void *b)
{
    const Place *p = a, *q = b;
    if (!p->line != !q->line) return p->line ? -1 : 1;
    if (p->line != q->line) return p->line < q->line ? -1 : 1;
    return (p->col > q->col) - (p->col < q->col);
}

/* The warnings for the characters a PDF handout left out, at their first
** places in the lesson: LISTED lines, then one for the rest. */
void app_warn_undrawn(const char *file, const PdfUndrawn *undrawn, int n)
{
    if (n <= 0) return;
    PlaceWalk w = { xcalloc((size_t)n, sizeof *w.places), n, 0, 0 };
    for (int i = 0; i < n; i++) w.places[i] = (Place){ undrawn[i].cp, undrawn[i].family, 0, 0 };
    Error err;
    size_t len = 0;
    char *text = strcmp(file, FILEIO_STDIN) ? lesson_read(file, &len, &err) : NULL;    /* stdin is read already */
    if (text) each_char(text, len, place_char, &w, &w.stop);
    qsort(w.places, (size_t)n, sizeof *w.places, by_place);
    char *path = util_shown(file);
    for (int i = 0; i < n && i <= LISTED; i++) {
        const Place *p = &w.places[i];
        Error e;
        if (i < LISTED || n == LISTED + 1)
            error_set(&e, ERR_RUNTIME, path, p->line, p->col, "U+%04X is left out of the PDF: %s cannot read its "
                      "picture", (unsigned)p->cp, p->family);
        else
            error_set(&e, ERR_RUNTIME, path, p->line, p->col, "U+%04X is left out of the PDF, and %d more characters "
                      "after it: their fonts cannot read their pictures", (unsigned)p->cp, n - LISTED - 1);
        error_warn(&e, stderr);
    }
    free(path);
    free(text);
    free(w.places);
}
