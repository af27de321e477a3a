/*
** lang.c: finding and installing the catalogue for a lesson's language.
*/
#define _DEFAULT_SOURCE
#include "lang.h"
#include "paths.h"
#include "core/text/i18n.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ATTNLAB_LOCALEDIR
#define ATTNLAB_LOCALEDIR "/usr/local/share/locale"
#endif

/*
** Whether a directory or file may hold our catalogues: owned by the user
** or by root, and writable by no one else (the user's own group aside, for
** a umask of 002). A catalogue decides every word on a slide, so one that
** another user could have put there (a `locale` folder anyone can create
** in /tmp, beside a build there) is never read.
*/
static int trusted(const char *path, int want_dir)
{
    struct stat st;
    if (stat(path, &st) != 0 || (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) return 0;
    if (st.st_uid != getuid() && st.st_uid != 0) return 0;
    return !(st.st_mode & S_IWOTH) && (!(st.st_mode & S_IWGRP) || st.st_gid == getgid());
}

/* DIR/CODE/LC_MESSAGES/attnlab.mo into out, and whether it exists with
** every directory from DIR down trusted. */
static int try_dir(const char *dir, const char *code, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", dir, code);
    if (!trusted(dir, 1) || !trusted(out, 1)) return 0;
    snprintf(out, n, "%s/%s/LC_MESSAGES", dir, code);
    if (!trusted(out, 1)) return 0;
    snprintf(out, n, "%s/%s/LC_MESSAGES/attnlab.mo", dir, code);
    return trusted(out, 0);
}

/* The codes to try for code: itself, its language part, and for a bare
** "zh" the simplified Chinese catalogue. */
static int candidates(const char *code, char c[3][I18N_LANG_MAX + 1])
{
    int k = 0;
    snprintf(c[k++], I18N_LANG_MAX + 1, "%s", code);
    size_t l = strcspn(code, "_");
    if (code[l]) snprintf(c[k++], I18N_LANG_MAX + 1, "%.*s", (int)l, code);
    if (!strcmp(code, "zh")) snprintf(c[k++], I18N_LANG_MAX + 1, "zh_CN");
    return k;
}

/* The platform's supplier of catalogues (app_catalogue_source), or NULL. */
static int (*catalogue_source)(const char *code);

/* Catalogues from the platform too. */
void app_catalogue_source(int (*fetch)(const char *code))
{
    catalogue_source = fetch;
}

/* The build's own catalogues (DIR/locale beside the program: build/locale
** in the source tree; or DIR/../locale beside libattnlab in build/lib),
** then the installed ones (ATTNLAB_LOCALEDIR), and nowhere else. */
int app_catalogue_path(const char *code, char *out, size_t n)
{
    char c[3][I18N_LANG_MAX + 1], dir[PATH_MAX];
    if (!i18n_lang_valid(code)) return -1;
    int nc = candidates(code, c);
    char up[PATH_MAX + 16];
    bool own = app_exe_dir(dir, sizeof dir) == 0 && strlen(dir) + sizeof "/../locale" <= sizeof dir;
    if (own) {
        snprintf(up, sizeof up, "%s/../locale", dir);   /* beside libattnlab in the tree: build/lib/../locale */
        strcat(dir, "/locale");
    }
    for (int i = 0; i < nc; i++) {
        if (catalogue_source) catalogue_source(c[i]);
        if (own && (try_dir(dir, c[i], out, n) || try_dir(up, c[i], out, n))) return 0;
        if (try_dir(ATTNLAB_LOCALEDIR, c[i], out, n)) return 0;
    }
    return -1;
}

/* Whether code is English, the language the program is written in. */
static bool english(const char *code)
{
    return !strcmp(code, "en") || !strncmp(code, "en_", 3);
}

/* Install the catalogue for code; false (nothing changed) when there is
** none or it cannot be read. */
static bool use_code(const char *code)
{
    char path[PATH_MAX];
    if (i18n_use_again(code)) return true;
    if (!i18n_lang_valid(code) || app_catalogue_path(code, path, sizeof path) != 0) return false;
    Error err;
    I18nCatalog *c = i18n_catalog_load(path, &err);
    if (!c) {
        error_warn(&err, stderr);           /* "PATH: warning: ..."; the lesson shows in English */
        return false;
    }
    i18n_use(code, c);
    return true;
}

/*
** The user's languages: LANGUAGE, a list in order of preference as GNU
** gettext reads it ("pt_BR:es"; the first with a catalogue wins, and
** English where it comes first), unless the locale is C; then the locale's
** own language. Returns 0 with a catalogue in use, -1 for English.
*/
static int use_user_languages(void)
{
    char env[32];
    bool have = i18n_env_language(env, sizeof env);
    const char *list = getenv("LANGUAGE");
    if (have && list) {
        for (const char *s = list; *s;) {
            size_t len = strcspn(s, ":");
            char code[I18N_LANG_MAX + 1];
            size_t k = strcspn(s, ".@:");           /* drop an encoding or a modifier */
            if (len > 0 && k <= I18N_LANG_MAX) {
                snprintf(code, sizeof code, "%.*s", (int)k, s);
                if (english(code)) break;
                if (use_code(code)) return 0;
            }
            s += len;
            if (*s) s++;
        }
    }
    if (have && !english(env) && use_code(env)) return 0;
    i18n_use_none();
    return -1;
}

/* Install the catalogue for code, or the user's languages'. */
int app_use_language(const char *code)
{
    if (!code) return use_user_languages();
    if (english(code) || !use_code(code)) {
        i18n_use_none();
        return -1;
    }
    return 0;
}
