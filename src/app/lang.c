/*
** lang.c: finding and installing the catalogue for a lesson's language.
*/
#define _DEFAULT_SOURCE
#include "lang.h"
#include "paths.h"
#include "core/i18n.h"

#include <limits.h>
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

/* The build's own catalogues (DIR/locale beside the program: build/locale
** in the source tree), then the installed ones (ATTNLAB_LOCALEDIR), and
** nowhere else. */
int app_catalogue_path(const char *code, char *out, size_t n)
{
    char c[3][I18N_LANG_MAX + 1], dir[PATH_MAX];
    if (!i18n_lang_valid(code)) return -1;
    int nc = candidates(code, c);
    bool own = app_exe_dir(dir, sizeof dir) == 0 && strlen(dir) + sizeof "/locale" <= sizeof dir;
    if (own) strcat(dir, "/locale");
    for (int i = 0; i < nc; i++) {
        if (own && try_dir(dir, c[i], out, n)) return 0;
        if (try_dir(ATTNLAB_LOCALEDIR, c[i], out, n)) return 0;
    }
    return -1;
}

/* Install the catalogue for code, or the user's locale's. */
int app_use_language(const char *code)
{
    char env[32], path[PATH_MAX];
    if (!code) code = i18n_env_language(env, sizeof env) ? env : NULL;
    if (!code || !strcmp(code, "en") || !strncmp(code, "en_", 3)) {
        i18n_use_none();
        return -1;
    }
    if (i18n_use_again(code)) return 0;
    I18nCatalog *c = NULL;
    Error err;
    if (app_catalogue_path(code, path, sizeof path) == 0) {
        c = i18n_catalog_load(path, &err);
        if (!c) error_warn(&err, stderr);           /* "PATH: warning: ..."; the lesson shows in English */
    }
    if (!c) {
        i18n_use_none();
        return -1;
    }
    i18n_use(code, c);
    return 0;
}
