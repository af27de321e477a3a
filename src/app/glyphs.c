/*
** glyphs.c: the missing-glyph warnings of --check and --export (glyphs.h).
*/
#include "glyphs.h"
#include "core/lesson.h"
#include "core/utf8.h"

#include <stdio.h>
#include <stdlib.h>

/* At most this many distinct characters are remembered as warned about. */
#define MAX_WARNED 256

/* Whether a line is a comment (its first non-blank character is '#'). */
static int comment_line(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    return s < end && *s == '#';
}

/* Walk the file's lines and characters. */
int app_check_glyphs(const char *path, FontSet *fonts, const char *font_path)
{
    LessonError err;
    size_t len = 0;
    char *text = lesson_read(path, &len, &err);
    if (!text) return 0;
    FontSet *own = NULL;
    uint32_t warned[MAX_WARNED];
    int nwarned = 0, line = 1;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = p;
        while (eol < end && *eol != '\n') eol++;
        if (!comment_line(p, eol)) {
            int col = 1;
            for (const char *q = p; q < eol; col++) {
                uint32_t cp;
                q += utf8_decode(q, (size_t)(eol - q), &cp);
                if (cp < 0x80) continue;
                if (!fonts && !own) {
                    own = font_create(font_path);
                    if (!own) goto done;
                }
                FontSet *fs = fonts ? fonts : own;
                int seen = 0;
                for (int i = 0; i < nwarned && !seen; i++) seen = warned[i] == cp;
                if (seen || font_can_draw(fs, cp)) continue;
                fprintf(stderr, "%s:%d:%d: warning: no installed font has U+%04X; install %s\n",
                        path, line, col, (unsigned)cp, font_package_for(cp));
                if (nwarned < MAX_WARNED) warned[nwarned] = cp;
                nwarned++;
            }
        }
        p = eol < end ? eol + 1 : end;
        line++;
    }
done:
    font_free(own);
    free(text);
    return nwarned;
}
