/*
** unidata.h: the Unicode facts a model's tokenizer asks of a character.
**
** GPT-2's tokenizer splits text into letters, numbers, spaces and the rest
** before its merges; BERT's drops control characters, splits at
** punctuation and around Chinese characters, lowers the case and removes
** accents (a canonical decomposition without its non-spacing marks). Both
** follow Python's unicodedata, which is what the published tokenizers run
** on, so the tables (unitables.c) are generated from it by unidata_gen.py.
**
**     if (unidata_class(cp) == UC_LETTER) ...
**     uint32_t out[3]; int n = unidata_strip(unidata_lower(cp), out);
*/
#ifndef ATTNLAB_UNIDATA_H
#define ATTNLAB_UNIDATA_H

#include <stdbool.h>
#include <stdint.h>

/* A character's class: its general category, as coarse as the tokenizers ask. */
typedef enum UniClass {
    UC_OTHER,       /* symbols, spacing marks, line and paragraph separators */
    UC_LETTER,      /* L* */
    UC_NUMBER,      /* N* */
    UC_PUNCT,       /* P* */
    UC_MARK,        /* Mn, a non-spacing mark */
    UC_CONTROL,     /* C*: control, format, surrogate, private use, unassigned */
    UC_SPACE        /* Zs */
} UniClass;

/* The class of code point cp (cp past U+10FFFF: UC_CONTROL). */
UniClass unidata_class(uint32_t cp);
/* Whether cp is white space as Unicode's White_Space property says (what
** GPT-2's pattern calls \s). */
bool unidata_is_space(uint32_t cp);
/* Python's str.lower() of cp, into out (1 or 2 code points: U+0130 lowers
** to i and a combining dot); the count. */
int unidata_lower(uint32_t cp, uint32_t out[2]);
/* cp's canonical decomposition without its non-spacing marks, into out (0
** to 3 code points; cp itself when it does not decompose); the count. */
int unidata_strip(uint32_t cp, uint32_t out[3]);

/* The generated tables (unitables.c). */
extern const uint32_t unidata_runs[];
extern const int unidata_nruns;
extern const uint32_t unidata_lower_table[][2];
extern const int unidata_nlower;
extern const uint32_t unidata_strip_table[][4];
extern const int unidata_nstrip;

#endif
