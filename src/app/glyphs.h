/*
** glyphs.h: warning about characters of a lesson that no installed font can
** draw, so a teacher learns it from --check or --export rather than from
** boxes on the screen in front of the class.
**
**     app_check_glyphs("x.lesson", fonts, NULL);   // fonts may be NULL
**
** prints, once per distinct character, to stderr:
**     x.lesson:12:7: warning: no installed font has U+1E4D0; install fonts-noto-core
** The lesson's text is read again and every line but comment lines is
** walked, so tokens, titles, setup titles and prose are all covered.
*/
#ifndef ATTNLAB_GLYPHS_H
#define ATTNLAB_GLYPHS_H

#include "sdl/font.h"

/* Warn about the characters of the lesson at path that no font has. fonts:
** the FontSet to ask, or NULL to open one (with font_path, NULL for DejaVu
** Sans) only if the lesson has any non-ASCII text. Returns the number of
** warnings printed (0 also when the file or the fonts cannot be read). */
int app_check_glyphs(const char *path, FontSet *fonts, const char *font_path);

#endif
