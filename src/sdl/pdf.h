/*
** pdf.h: display lists as the pages of a PDF document, drawn with cairo.
**
** Each page is a display list drawn in vector form: rectangles and lines
** as paths, text as the very glyphs the window and the PNG draw (the shaped
** runs of font.h, at the same places), in their fonts, which cairo embeds
** (the glyphs used only). Text stays text: each glyph carries the
** characters it draws, so the PDF can be searched and copied from. Colour
** glyphs (emoji of a colour bitmap font such as Noto Color Emoji), which
** cairo would embed as empty Type 3 glyphs, are drawn as images instead:
** the font's own bitmap scaled into the box the PNG draws it in (they are
** not searchable; an emoji drawn many times is one image in the file). A
** colour glyph whose font cannot read it is left out, and pdf_undrawn says
** which characters were, for a warning (nothing else is ever). A pixel
** of the list is 0.75 point (96 to the inch): a 1280x720 list makes a
** 13.33 x 7.5 inch page, the size of a 16:9 slide. The document is built in
** memory and written at the end, atomically (fileio.h), so a failure
** leaves no half file.
**
**   Error err;
**   PdfDoc *doc = pdf_create(fonts, "A short tour of attention", mtime, &err);
**   pdf_page(doc, list, "1  embeddings: Words as vectors");   // one per page
**   if (pdf_save(doc, "out/tour.pdf", &err) != 0) error_print(&err, stderr);
**   pdf_free(doc);
**
** The fonts must outlive the document. Nothing here uses SDL.
*/
#ifndef ATTNLAB_PDF_H
#define ATTNLAB_PDF_H

#include <stddef.h>
#include <stdint.h>
#include "font.h"
#include "core/error.h"
#include "view/draw.h"

typedef struct PdfDoc PdfDoc;

/* A character that could not be drawn, and the font it was to come from. */
typedef struct PdfUndrawn {
    uint32_t cp;
    const char *family;     /* owned by the FontSet */
} PdfUndrawn;

/* A document whose text is drawn with fonts, titled title and dated date
** (seconds since 1970, UTC: its metadata; the same date gives the same
** bytes). NULL with err filled (ERR_RUNTIME) when cairo cannot be loaded. */
PdfDoc *pdf_create(FontSet *fonts, const char *title, long long date, Error *err);
/* Draw d as the next page; outline names it in the document's outline
** (NULL: none). 0, or -1 once drawing failed (pdf_save then says why). */
int pdf_page(PdfDoc *doc, const DrawList *d, const char *outline);
/* The pages so far. */
int pdf_pages(const PdfDoc *doc);
/* The characters left out of the pages so far, each once, in the order
** they were met: their number, and them in *out (valid until the next
** pdf_page or pdf_free). */
int pdf_undrawn(const PdfDoc *doc, const PdfUndrawn **out);
/* Finish the document and write it to path. 0, or -1 with err filled. */
int pdf_save(PdfDoc *doc, const char *path, Error *err);
/* Release it (written or not). NULL is fine. */
void pdf_free(PdfDoc *doc);

#endif
