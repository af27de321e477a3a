/*
** glyphs.h: warning about characters of a lesson that no installed font can
** draw, so a teacher learns it from --check or --export rather than from
** boxes on the screen in front of the class.
**
**     app_check_glyphs("x.lesson", fonts, NULL);   // fonts may be NULL
**
** prints, once per distinct character, to stderr:
**     x.lesson:12:7: warning: no installed font has U+1E4D0; install fonts-noto-core
** naming a package only when one would bring the character (font.h's
** font_package_for): not for a noncharacter or an unassigned code point,
** and not when the package for its script is installed already. After
** eight such lines, one more line counts the rest:
**     x.lesson:14:3: warning: no installed font has U+1F6D9, nor 1991 more characters after it; they show as boxes
** The lesson's text is read again and every line but comment lines is
** walked, so tokens, titles, setup titles and prose are all covered.
** app_warn_undrawn walks it the same way to place the characters that a
** PDF handout could not draw.
*/
#ifndef ATTNLAB_GLYPHS_H
#define ATTNLAB_GLYPHS_H

#include "sdl/font.h"
#include "sdl/pdf.h"

/* Warn about the characters of the lesson at path that no font has. fonts:
** the FontSet to ask, or NULL to open one (with font_path, NULL for DejaVu
** Sans) only if the lesson has any non-ASCII text. Returns the number of
** distinct characters no font has (0 also when the file or the fonts cannot
** be read). */
int app_check_glyphs(const char *path, FontSet *fonts, const char *font_path);
/* Warn about the n characters a PDF handout of the lesson at path left out
** (pdf_undrawn: a colour glyph its font cannot read), each at its first
** place in the lesson, in the lesson's order (a character not found there,
** or a lesson from standard input: at the file alone):
**     x.lesson:1:11: warning: U+1F431 is left out of the PDF: Noto Color Emoji cannot read its picture
** After eight such lines, one more line counts the rest. */
void app_warn_undrawn(const char *path, const PdfUndrawn *undrawn, int n);

#endif
