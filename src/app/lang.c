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

#ifndef ATTNLAB_LOCALEDIR
#define ATTNLAB_LOCALEDIR "/usr/local/share/locale"
#endif

/* True if path is a regular file. */
static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* DIR/CODE/LC_MESSAGES/attnlab.mo into out, and whether it exists. */
static int try_dir(const char *dir, const char *code, char *out, size_t n)
{
    snprintf(out, n, "%s/%s/LC_MESSAGES/attnlab.mo", dir, code);
    return is_file(out);
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

/* Beside the program (build/locale), in PREFIX/share/locale relative to it
** (an installed tree that was moved), then the configured locale directory. */
int app_catalogue_path(const char *code, char *out, size_t n)
{
    char c[3][I18N_LANG_MAX + 1], dir[2][PATH_MAX];
    if (!i18n_lang_valid(code)) return -1;
    int nc = candidates(code, c);
    bool found[2] = { app_data_dir("locale", dir[0], sizeof dir[0]) == 0,
                      app_data_dir("../share/locale", dir[1], sizeof dir[1]) == 0 };
    for (int i = 0; i < nc; i++) {
        for (int d = 0; d < 2; d++)
            if (found[d] && try_dir(dir[d], c[i], out, n)) return 0;
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
    I18nError err;
    if (app_catalogue_path(code, path, sizeof path) == 0) {
        c = i18n_catalog_load(path, &err);
        if (!c) fprintf(stderr, "attnlab: warning: %s\n", err.reason);
    }
    if (!c) {
        i18n_use_none();
        return -1;
    }
    i18n_use(code, c);
    return 0;
}
