/*
** text.c: line-break opportunities (text.h): libunibreak's UAX #14 answer,
** then the grapheme rules it lacks (its tables predate emoji sequences).
*/
#include "text.h"
#include "core/utf8.h"
#include "core/util.h"

#include <linebreak.h>
#include <stdlib.h>
#include <string.h>

/* Whether cp is a regional indicator (half of a flag). */
static int regional(uint32_t cp)
{
    return cp >= 0x1F1E6 && cp <= 0x1F1FF;
}

/* Whether cp clings to the character before it: marks and other zero-width
** characters (which is what the utf8 module's columns say), emoji modifiers. */
static int clings(uint32_t cp)
{
    return (utf8_cp_columns(cp) == 0 && cp != 0x200B) || (cp >= 0x1F3FB && cp <= 0x1F3FF);
}

/* Fill the boundaries. */
void text_breaks(const char *s, size_t len, const char *lang, uint8_t *brk)
{
    memset(brk, TEXT_BREAK_NO, len + 1);
    brk[len] = TEXT_BREAK_MUST;
    if (len == 0) return;
    /* libunibreak gets a well-formed copy of the same length: each
    ** malformed byte becomes '?'. Its version 2.2 also aborts on regional
    ** indicators and on U+FFFF, so those (and every noncharacter) become an
    ** ideograph of the same byte length: the flag rule below handles them. */
    char *clean = xmalloc(len);
    for (size_t i = 0; i < len;) {
        int n = utf8_seq_len(s + i, len - i);
        if (n == 0) { clean[i++] = '?'; continue; }
        uint32_t cp;
        utf8_decode(s + i, len - i, &cp);
        if (regional(cp) || (cp & 0xFFFE) == 0xFFFE || (cp >= 0xFDD0 && cp <= 0xFDEF))
            memcpy(clean + i, n == 4 ? "\xf0\xa0\x80\x80" : "\xe4\xb8\x80", (size_t)n);   /* U+20000, U+4E00 */
        else
            memcpy(clean + i, s + i, (size_t)n);
        i += (size_t)n;
    }
    static int ready;
    if (!ready) { init_linebreak(); ready = 1; }
    char *lb = xmalloc(len);
    set_linebreaks_utf8((const utf8_t *)clean, len, lang, lb);
    /* lb[i] is about the boundary after byte i, given at a character's last byte. */
    uint32_t prev = 0;
    int ri_run = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        size_t end = i + n;
        if (i > 0) {
            int b = lb[i - 1] == LINEBREAK_MUSTBREAK ? TEXT_BREAK_MUST
                  : lb[i - 1] == LINEBREAK_ALLOWBREAK ? TEXT_BREAK_ALLOW : TEXT_BREAK_NO;
            if (b == TEXT_BREAK_ALLOW && (clings(cp) || prev == 0x200D || (regional(prev) && regional(cp) && ri_run % 2)))
                b = TEXT_BREAK_NO;
            brk[i] = (uint8_t)b;
        }
        ri_run = regional(cp) ? ri_run + 1 : 0;
        prev = cp;
        i = end;
    }
    /* A final newline's MUST is the end itself. */
    free(lb);
    free(clean);
}
