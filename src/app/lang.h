/*
** lang.h: choosing the interface's language for a lesson.
**
** A lesson's `language:` setting wins; without one, the user's languages:
** LANGUAGE, a list in order of preference as GNU gettext reads it
** ("pt_BR:es": the first with a catalogue), then the locale (LC_ALL,
** LC_MESSAGES, LANG). The catalogue LANG/LC_MESSAGES/attnlab.mo is
** looked for in the build's own locale directory (locale/ beside the
** program: build/locale in the source tree), then in the installed
** $(PREFIX)/share/locale, and nowhere else; a directory or file that a user
** other than the owner (or root) could have written is skipped. With none
** found the interface stays in English, the language the program is
** written in.
**
**   app_use_language(L->language);     // before building the lesson's views
*/
#ifndef ATTNLAB_LANG_H
#define ATTNLAB_LANG_H

#include <stddef.h>

/* Use the catalogue for code (NULL: the user's languages). Returns 0 when one
** was found and is in use, -1 when the interface falls back to English. */
int app_use_language(const char *code);
/* The path of the catalogue for code (ja, pt_BR; then its language part),
** written to out (size n): 0 when that file exists, -1 otherwise. */
int app_catalogue_path(const char *code, char *out, size_t n);

/* A platform that carries its catalogues elsewhere (the browser edition,
** inside its page) supplies them with fetch: called with each code looked
** for, before the directories are, it may write that code's catalogue
** where app_catalogue_path finds it. NULL: none. */
void app_catalogue_source(int (*fetch)(const char *code));

#endif
