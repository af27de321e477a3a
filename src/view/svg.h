/*
** svg.h: a DrawList as a standalone SVG 1.1 document.
**
** The exported picture is the very display list the window draws: filled
** rectangles become <rect>, outlines <rect fill="none">, lines <line> (dashed
** ones with stroke-dasharray), text runs real <text> elements, so the text
** stays selectable and searchable. Their font-family list is the caller's
** (the SDL side knows which fallback fonts the strings needed, e.g. "DejaVu
** Sans, Noto Sans CJK JP, Noto Color Emoji, sans-serif"); without one it is
** SVG_FAMILIES. Widths in the layout were measured with the same fonts. Output is deterministic:
** coordinates are printed with two decimals, nothing depends on time or
** locale, the same list gives the same bytes.
**
** Text placement follows DrawCmd and the SDL backend: the run is aligned in
** its box r, left, centred or right (text-anchor); top, middle or bottom by
** an explicit baseline from DejaVu Sans' metrics (ascent 0.928 em, descent
** 0.236 em, digits 0.729 em tall; middle centres the digits), since
** renderers such as librsvg ignore dominant-baseline. A run with rotate = 90
** reads bottom to top and is aligned in the turned frame: halign along the
** text (LEFT starts at the bottom of r), valign across it (TOP puts the
** glyphs' tops at the left side of r).
**
** Usage:
**   char *svg = svg_write(d, "Attention weights", "attnlab, lesson 1, stage 4");
**   ...
**   free(svg);
** or svg_save(d, "out.svg", title, desc, err, sizeof err).
*/
#ifndef ATTNLAB_SVG_H
#define ATTNLAB_SVG_H

#include <stddef.h>
#include "draw.h"
#include "core/error.h"

/* The font-family list when the caller gives none. */
#define SVG_FAMILIES "DejaVu Sans, sans-serif"

/* The document for d, NUL-terminated; the caller frees it. title and desc
** (NULL to leave out) become its <title> and <desc>. If len is not NULL it
** receives the length in bytes. */
char *svg_write(const DrawList *d, const char *title, const char *desc, size_t *len);
/* How many numbers (coordinates, sizes) that were not finite svg_write has
** written as 0 since the program started. The layout never produces one;
** this guard only keeps "nan" out of a file should it ever happen, and
** tests assert that the count stays 0. */
long svg_nonfinite_count(void);
/* The same with the text's font-family list (NULL: SVG_FAMILIES). */
char *svg_write_fonts(const DrawList *d, const char *title, const char *desc, const char *families,
                      size_t *len);
/* Write the document to path atomically, text in families (NULL:
** SVG_FAMILIES). 0 on success; -1 with err filled (fileio_write_atomic's). */
int svg_save(const DrawList *d, const char *path, const char *title, const char *desc,
             const char *families, Error *err);

#endif
