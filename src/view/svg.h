/*
** svg.h: a DrawList as a standalone SVG 1.1 document.
**
** The exported picture is the very display list the window draws: filled
** rectangles become <rect>, outlines <rect fill="none">, lines <line> (dashed
** ones with stroke-dasharray), text runs real <text> elements in DejaVu Sans,
** so the text stays selectable and searchable. Output is deterministic:
** coordinates are printed with two decimals, nothing depends on time or
** locale, the same list gives the same bytes.
**
** Text placement follows DrawCmd: the run is aligned in its box r, left,
** centred or right (text-anchor), top, middle or bottom (a baseline computed
** from DejaVu Sans' ascent 0.928 and descent 0.236 em, since renderers such
** as librsvg ignore dominant-baseline). A run with rotate = 90 reads bottom
** to top, and its turned ink box is aligned in r in screen terms: halign
** places it horizontally, valign vertically.
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

/* The document for d, NUL-terminated; the caller frees it. title and desc
** (NULL to leave out) become its <title> and <desc>. If len is not NULL it
** receives the length in bytes. */
char *svg_write(const DrawList *d, const char *title, const char *desc, size_t *len);
/* Write the document to path atomically. 0 on success; -1 with a one-line
** reason in err (size n). */
int svg_save(const DrawList *d, const char *path, const char *title, const char *desc,
             char *err, size_t n);

#endif
