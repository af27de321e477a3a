/*
** i18n.h: the words attnlab draws, in the lesson's language.
**
** Every sentence the program writes on a slide, in a toast or in the explain
** panel is marked `_("…")` in the source. xgettext collects them into
** po/attnlab.pot, translators fill po/LANG.po, and msgfmt compiles those into
** GNU .mo files (build/locale/LANG/LC_MESSAGES/attnlab.mo). This module reads
** such a file itself, without setlocale: the language can change with every
** lesson, the machine may have no locales installed, and the browser edition
** runs the same code.
**
**   Error e;
**   I18nCatalog *c = i18n_catalog_load("build/locale/ja/LC_MESSAGES/attnlab.mo", &e);
**   if (!c) error_warn(&e, stderr);    // "PATH: warning: not a .mo file (bad magic number)"
**   i18n_use("ja", c);                 // the module owns c from now on
**   puts(_("queries"));                // the Japanese, or "queries" itself
**
** A .mo file is untrusted input: every offset and length is checked against
** the file's size, originals must be sorted (lookups are a binary search),
** and a translation whose printf conversions differ from its original's is
** dropped (the original is used), so a corrupt file can never make a format
** read the wrong arguments, nor pad a number to a width the original does
** not have ("%99999999d" for "%d"). Both byte orders are accepted.
**
** Strings returned by i18n_get stay valid until i18n_reset: catalogues once
** used are kept (a few kilobytes each), so switching language never leaves a
** pointer dangling.
*/
#ifndef ATTNLAB_I18N_H
#define ATTNLAB_I18N_H

#include <stdbool.h>
#include <stddef.h>
#include "core/error.h"

/* Mark a literal for translation and translate it now. */
#define _(s) i18n_get(s)
/* Mark a literal for translation where it must stay a constant (a static
** table); translate it with _() where it is used. */
#define N_(s) s

/* The largest .mo file read (ours are tens of kilobytes). */
#define I18N_MAX_BYTES (4u << 20)
/* The longest language code: "ll", "lll", "ll_CC" or "lll_CC". */
#define I18N_LANG_MAX 7

typedef struct I18nCatalog I18nCatalog;

/* A catalogue from the len bytes of a .mo file (copied). NULL with err filled
** (ERR_INVALID, about the file called name) when the data is not a
** well-formed .mo file. err may be NULL. */
I18nCatalog *i18n_catalog_parse(const void *data, size_t len, const char *name, Error *err);
/* A catalogue from a .mo file, read through fileio_read (regular files only,
** at most I18N_MAX_BYTES). NULL with err filled. */
I18nCatalog *i18n_catalog_load(const char *path, Error *err);
/* Release a catalogue not handed to i18n_use. */
void i18n_catalog_free(I18nCatalog *c);
/* The translation of msgid, or NULL when the catalogue has none. */
const char *i18n_catalog_lookup(const I18nCatalog *c, const char *msgid);
/* How many translations the catalogue holds (the header excluded). */
int i18n_catalog_count(const I18nCatalog *c);

/* Translate with catalogue c for language lang from now on (c may be NULL:
** lang is remembered without one). The module keeps c until i18n_reset. */
void i18n_use(const char *lang, I18nCatalog *c);
/* Switch back to a language used before; false when it was never used. */
bool i18n_use_again(const char *lang);
/* Untranslated text from now on (the catalogues are kept). */
void i18n_use_none(void);
/* The language in use ("" when untranslated). */
const char *i18n_language(void);
/* Free every catalogue; untranslated text from now on. */
void i18n_reset(void);
/* The translation of msgid in the catalogue in use, else msgid itself. */
const char *i18n_get(const char *msgid) __attribute__((format_arg(1)));

/* True for a language code as a lesson may give it: two or three lowercase
** letters, optionally "_" and two uppercase letters (ja, fil, pt_BR). */
bool i18n_lang_valid(const char *code);
/* The user's language from LC_ALL, LC_MESSAGES or LANG (the first one set),
** reduced to a code i18n_lang_valid accepts ("ja_JP.UTF-8" gives "ja_JP"),
** into out (size n). Returns false for none, "C" or "POSIX". */
bool i18n_env_language(char *out, size_t n);

#endif
