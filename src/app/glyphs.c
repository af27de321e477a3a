/*
** glyphs.c: the missing-glyph warnings of --check and --export (glyphs.h).
*/
#include "glyphs.h"
#include "core/lesson.h"
#include "core/utf8.h"
#include "core/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
    char *path = util_shown(file);          /* the name as messages print it */
    FontSet *own = NULL;
    unsigned char *seen = NULL;
    int missing = 0, line = 1, more_line = 0, more_col = 0;
    uint32_t more_cp = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = p;
        while (eol < end && *eol != '\n') eol++;
        if (!comment_line(p, eol)) {
            int col = 1;
            for (const char *q = p; q < eol; col++) {
                uint32_t cp;
                q += utf8_decode(q, (size_t)(eol - q), &cp);
                if (cp < 0x80 || cp >= CODE_POINTS) continue;
                if (!seen) {
                    seen = xcalloc(CODE_POINTS / 8, 1);
                    if (!fonts) own = font_create(font_path, NULL);    /* no fonts: no warnings either */
                    if (!fonts && !own) goto done;
                }
                if (seen[cp >> 3] & (1u << (cp & 7))) continue;
                seen[cp >> 3] |= (unsigned char)(1u << (cp & 7));
                FontSet *fs = fonts ? fonts : own;
                if (font_can_draw(fs, cp)) continue;
                if (missing++ < LISTED) {
                    warn_one(path, line, col, cp, fs);
                } else if (!more_line) {
                    more_line = line;
                    more_col = col;
                    more_cp = cp;
                }
            }
        }
        p = eol < end ? eol + 1 : end;
        line++;
    }
    if (missing == LISTED + 1)
        warn_one(path, more_line, more_col, more_cp, fonts ? fonts : own);
    else if (missing > LISTED) {
        Error w;
        error_set(&w, ERR_RUNTIME, path, more_line, more_col, "no installed font has U+%04X, nor %d more character%s "
                  "after it; they show as boxes", (unsigned)more_cp, missing - LISTED - 1,
                  missing - LISTED - 1 == 1 ? "" : "s");
        error_warn(&w, stderr);
    }
done:
    font_free(own);
    free(seen);
    free(path);
    free(text);
    return missing;
}
